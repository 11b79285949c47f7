"""What the card says of a binding or dialect the user chose: when it lists no such
interface, the endpoint is a guess, and whoever shows the failure should say so.

A guess stays possible (cards do lie, and an agent may serve more than its card names),
but never a silent one: the CLI warns before the call and hints on failure, the TUI
says it in a toast and in the binding menu (issue 27 item 6b).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..protocol import bindings as b
from ..protocol.dialects import Dialect
from ..protocol.models import AgentCard
from ..textsafe import shorten

#: Interfaces named in the sentence (a card may list hundreds), and the width of each.
SHOWN = 4
WIDTH = 100


@dataclass(frozen=True)
class NotInCard:
    """The card lists no interface for the chosen ``axis`` ("binding" or "dialect")."""

    axis: str
    #: "the card lists no gRPC interface for 0.2/0.3"
    text: str
    #: What it lists instead: "JSONRPC 0.3 at http://…/, HTTP+JSON 0.3 at http://…/rest"
    listed: str
    #: A binding the card lists for other dialects only: those dialects ("1.0"), the
    #: way to it (the guess is the wrong dialect, not a binding the agent lacks).
    elsewhere: tuple[str, ...] = ()
    binding: str | None = None

    def warning(self, endpoint: str | None) -> str:
        where = endpoint or "the agent URL"
        # gRPC aimed at an http(s) URL meets an HTTP/1.1 server: its error speaks of
        # HTTP/2 frames, which says nothing of why.
        expect = (
            " (gRPC to an HTTP endpoint: expect an HTTP/2 error)"
            if self.binding == b.GRPC and (endpoint or "").lower().startswith(("http://", "https://"))
            else ""
        )
        return f"{self.text} (it lists: {self.listed}); trying {where} anyway{expect}"

    def way(self, dialect_option: str, auto: str) -> str:
        """What to do instead, in the caller's terms: ``dialect_option`` (formatted with
        the dialect) when the binding is listed for another dialect, else ``auto``."""
        return dialect_option.format(self.elsewhere[0]) if self.elsewhere else auto


def listed_text(card: AgentCard) -> str:
    """The card's interfaces in a few words each, at most SHOWN of them; "" for none."""
    listed = b.card_interfaces(card)
    names = [shorten(i.describe(), WIDTH) for i in listed[:SHOWN]]
    more = len(listed) - SHOWN
    return ", ".join(names) + (f" and {more} more" if more > 0 else "")


def not_in_card(
    card: AgentCard | None, dialect: Dialect, binding: str | None, *, dialect_chosen: bool, binding_chosen: bool
) -> NotInCard | None:
    """None when the choice is one the card lists, or when there is nothing to compare
    with (no card, or a card that names no interface: the 0.1 draft's)."""
    if card is None:
        return None
    listed = b.card_interfaces(card)
    if not listed:
        # A card naming no interface (the 0.1 draft's, an early 0.2 one) has its ``url``,
        # which is JSON-RPC in every version; its dialect it does not say.
        if card.url and binding_chosen and binding not in (None, b.JSONRPC):
            return NotInCard(
                "binding",
                f"the card lists no {b.LABELS.get(binding, binding)} interface",
                f"JSONRPC at {shorten(card.url, WIDTH)}, its url",
                binding=binding,
            )
        return None
    same = [i for i in listed if i.dialect == dialect.name]
    elsewhere: tuple[str, ...] = ()
    if dialect_chosen and not same:
        axis, what = "dialect", f"no {dialect.label} interface"
    elif binding_chosen and binding is not None and not any(i.binding == binding for i in same):
        axis, label = "binding", b.LABELS.get(binding, binding)
        others = [i for i in listed if i.binding == binding]
        elsewhere = tuple(dict.fromkeys(i.dialect for i in others if i.dialect))
        if elsewhere:
            at = shorten(others[0].url or "?", WIDTH)
            what = f"{label} only for {', '.join(elsewhere)} (at {at}), not for {dialect.label}"
        else:
            what = f"no {label} interface for {dialect.label}"
    else:
        return None
    return NotInCard(axis, f"the card lists {what}", listed_text(card), elsewhere, binding)
