"""A small menu: which protocol binding the active connection should talk over."""

from __future__ import annotations

from .choice_menu import ChoiceMenu


class BindingMenu(ChoiceMenu):
    """Dismisses with the chosen binding (``auto``, ``jsonrpc``, ``rest``, ``grpc``) or None."""

    WHAT = "binding"
    CHOICES = (
        ("auto", "the card's first interface a2a-inspect speaks"),
        ("jsonrpc", "JSON-RPC 2.0: one endpoint, POST, method names"),
        ("rest", "HTTP+JSON/REST: routes such as POST /message:send"),
        ("grpc", "gRPC: RPCs such as A2AService/SendMessage"),
    )
    COLUMN = 8
    WIDTH = 72
