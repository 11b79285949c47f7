"""A small menu: which A2A dialect the active connection should talk."""

from __future__ import annotations

from .choice_menu import ChoiceMenu


class DialectMenu(ChoiceMenu):
    """Dismisses with the chosen dialect (``auto``, ``0.1``, ``0.3``, ``1.0``) or None."""

    WHAT = "dialect"
    CHOICES = (
        ("auto", "detect again: card fields, then the cache, then probes"),
        ("0.1", "0.1 draft: tasks/send, tasks/sendSubscribe"),
        ("0.3", "0.2 / 0.3: message/send, message/stream"),
        ("1.0", "1.0: SendMessage, SendStreamingMessage"),
    )
