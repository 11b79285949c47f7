"""What a probe is: a small declarative object (id, group, the spec's section and rule,
when it applies) with a run function, and what running it gives (a Result).

A probe says why it did not pass by raising: ``Failed`` (the agent broke the rule
quoted), ``Skipped`` (the rule does not apply to this agent, or cannot be checked
here; always with the reason). Returning is passing.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .context import ProbeContext

PASS = "pass"
FAIL = "fail"
SKIP = "skip"

#: The groups, in the order they run and are reported.
GROUPS = ("card", "messages", "errors", "tasks", "multi-turn", "push", "bindings")

#: Every binding, in the order a report lists them.
ALL_BINDINGS = ("jsonrpc", "rest", "grpc")
ALL_DIALECTS = ("0.1", "0.3", "1.0")
#: How a card spells the capabilities a probe may need.
CARD_SPELLING = {"streaming": "streaming", "push_notifications": "pushNotifications"}


class Failed(Exception):
    """The agent broke the probe's rule; the text says how (the agent's own words quoted
    by the probe, never trusted as markup)."""

    def __init__(self, text: str, exchange: int | None = None) -> None:
        super().__init__(text)
        self.text = text
        self.exchange = exchange


class Skipped(Exception):
    """The probe's rule cannot be checked on this agent; the text says why."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text


@dataclass(frozen=True)
class Probe:
    id: str
    group: str
    #: What it checks, in a few words (a report's line, a JUnit test case's name).
    title: str
    #: Where the rule is: the section of the specification (by version when they differ).
    section: str
    #: The rule in the specification's own words, quoted in a failure.
    rule: str
    run: Callable[[ProbeContext], Awaitable[None]]
    dialects: tuple[str, ...] = ALL_DIALECTS
    bindings: tuple[str, ...] = ALL_BINDINGS
    #: A card capability the probe needs (``streaming``): skipped when the card says no.
    needs: str | None = None
    #: Run once for the agent (the card), not once per binding.
    per_agent: bool = False
    #: A per-agent probe that runs after every binding's probes (it compares them).
    last: bool = False
    #: What else makes it skip, for docs/check.md (beside dialect, binding and ``needs``).
    skips: str = ""

    def not_applicable(self, dialect: str, binding: str, capabilities: dict[str, Any]) -> str | None:
        """Why the probe does not run on this dialect and binding; None when it does."""
        # Said without this dialect's or binding's name, so that the report can say it
        # once for every binding it skipped on.
        if dialect not in self.dialects:
            return f"only in the {', '.join(self.dialects)} dialect{'s' if len(self.dialects) > 1 else ''}"
        if not self.per_agent and binding not in self.bindings:
            return f"only on the {', '.join(self.bindings)} binding{'s' if len(self.bindings) > 1 else ''}"
        if self.needs and not capabilities.get(self.needs):
            return f"the card does not declare capabilities.{CARD_SPELLING.get(self.needs, self.needs)}"
        return None


@dataclass
class Result:
    probe: Probe
    #: jsonrpc / rest / grpc; None for a probe of the agent as a whole.
    binding: str | None
    dialect: str | None
    outcome: str
    #: Why it failed or skipped; empty when it passed.
    reason: str = ""
    #: Session exchange numbers of the requests the probe sent (the traffic view's).
    exchanges: list[int] = field(default_factory=list)
    #: The exchange that shows the failure, when one does, and the session event to
    #: open it at (its request, or the event a violation names).
    exchange: int | None = None
    seq: int | None = None
    seconds: float = 0.0


#: Every probe, in the order they run (group by group).
PROBES: list[Probe] = []


def probe(
    id: str, group: str, title: str, *, section: str, rule: str, **kw: Any
) -> Callable[[Callable[[ProbeContext], Awaitable[None]]], Callable[[ProbeContext], Awaitable[None]]]:
    """Register the decorated coroutine as a probe."""
    if group not in GROUPS:
        raise ValueError(f"unknown probe group {group!r}")

    def add(fn: Callable[[ProbeContext], Awaitable[None]]) -> Callable[[ProbeContext], Awaitable[None]]:
        if any(p.id == id for p in PROBES):
            raise ValueError(f"probe {id!r} registered twice")
        PROBES.append(Probe(id=id, group=group, title=title, section=section, rule=rule, run=fn, **kw))
        return fn

    return add
