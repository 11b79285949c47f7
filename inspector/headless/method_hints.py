"""What to say when an agent refuses a method, where the card or the dialect tells why.

A stream to an agent whose card declares no streaming: warned before it goes (the user
asked for it, and cards are sometimes wrong, so it is sent anyway), and named again in
the error when the agent refuses it.

A method the dialect spells more than one way: the other spelling, and the option that
sends it.

Society AI (seed 001) spells resubscribe ``task/resubscribe`` where the 0.1 draft (seeds
002, 004) has ``tasks/resubscribe``. Neither its card nor its -32601 says so, and the
same -32601 comes from a draft agent that has no resubscribe at all, so the client does
not try the other spelling on its own (that would send a guess to someone else's agent):
it names it, and the user chooses with ``--method-name``.
"""

from __future__ import annotations

from typing import Any

from ..protocol.errors import JsonRpcError
from ..protocol.methods import Method

#: What an agent answers to a method it does not serve: method not found, unsupported operation.
_REFUSED = (-32601, -32004)

#: Who spells it that way, where the seeds say.
_WHOSE = {"task/resubscribe": "Society AI's agents do"}


def spelling_hint(error: BaseException | None, dialect: Any, method: Method, chosen: dict[Method, str]) -> str | None:
    """The hint for ``error`` from calling ``method`` in ``dialect`` (None when the
    error is not -32601, the user chose the spelling, or there is no other one)."""
    if not isinstance(error, JsonRpcError) or error.code != -32601 or dialect is None or method in chosen:
        return None
    others = [name for name, meant in dialect.method_aliases.items() if meant is method]
    if not others or not dialect.has(method):
        return None
    other = others[0]
    whose = _WHOSE.get(other)
    return (
        f"the agent does not know {dialect.wire_method(method)}; it may spell it {other}"
        f"{f' ({whose})' if whose else ''}: try --method-name {method.value}={other}"
    )


def no_streaming(card: Any) -> str | None:
    """How the card says it does not stream, or None when it says it does (or there is no card)."""
    if card is None:
        return None
    streaming = card.capabilities.streaming if card.capabilities is not None else None
    if streaming is True:
        return None
    if streaming is False:
        return "the card declares no streaming (capabilities.streaming: false)"
    return "the card does not declare streaming (no capabilities.streaming; the spec's default is false)"


def no_stream_warning(card: Any, wire_method: str) -> str | None:
    """Said before a stream the card does not offer is sent anyway (--stream)."""
    why = no_streaming(card)
    return f"{why}; sending {wire_method} anyway, as --stream asks" if why else None


def no_stream_hint(error: BaseException | None, card: Any) -> str | None:
    """Said with the agent's refusal of such a stream."""
    why = no_streaming(card)
    if not why or not isinstance(error, JsonRpcError) or error.code not in _REFUSED:
        return None
    return f"{why}: send without --stream"
