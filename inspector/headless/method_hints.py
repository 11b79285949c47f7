"""What to say when an agent refuses a method, where the card or the dialect tells why.

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

#: Who spells it that way, where the seeds say.
_WHOSE = {"task/resubscribe": "Society AI's agents do"}


def spelling_hint(error: BaseException | None, dialect: Any, method: Method,
                  chosen: dict[Method, str]) -> str | None:
    """The hint for ``error`` from calling ``method`` in ``dialect`` (None when the
    error is not -32601, the user chose the spelling, or there is no other one)."""
    if not isinstance(error, JsonRpcError) or error.code != -32601 or dialect is None or method in chosen:
        return None
    others = [name for name, meant in dialect.method_aliases.items() if meant is method]
    if not others or not dialect.has(method):
        return None
    other = others[0]
    whose = _WHOSE.get(other)
    return (f"the agent does not know {dialect.wire_method(method)}; it may spell it {other}"
            f"{f' ({whose})' if whose else ''}: try --method-name {method.value}={other}")

