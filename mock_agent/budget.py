"""How much a scenario may make the mock produce, checked twice.

At load (``--check`` and every start): each fixed text after ``repeat``, each script's
characters and events in all, and the fixed texts the mock builds when it starts, are
estimated from the file and refused past the limits below, naming the field. A
template's variables count as empty there, since their values come with each request,
so a run counts again (:class:`Meter`): a text that a template makes too large, or a
script that goes past its totals, ends that turn with an error instead of growing the
mock until it fails.

The limits leave room to test a client's own limits (16 MiB an event, 64 MiB a body by
default), and keep one request's cost to a few hundred MiB.
"""

from __future__ import annotations

import math
from typing import Any

from inspector.protocol.sizes import MiB

from . import scenario as sc
from . import template

#: The most characters one text may come to once repeated: a part, or one chunk.
MAX_TEXT = 64 * MiB
#: The most characters one script may produce in all (a rule's, the fallback's) ...
MAX_SCRIPT_TEXT = 256 * MiB
#: ... and the most events (status and artifact updates, messages, heartbeat comments).
MAX_SCRIPT_EVENTS = 2_000_000
#: The most characters of fixed text the mock builds once, when it starts (shared by
#: every turn that sends them).
MAX_BUILT_TEXT = 256 * MiB


class TooLarge(Exception):
    """A run went past a limit; the message says which and by how much."""


def _n(value: int) -> str:
    return f"{value:,}"


# ------------------------------------------------------------------ at load


class _Tally:
    __slots__ = ("text", "events")

    def __init__(self, text: int = 0, events: int = 0) -> None:
        self.text = text
        self.events = events

    def add(self, other: _Tally) -> None:
        self.text += other.text
        self.events += other.events


def _literal(text: str) -> int:
    """The characters a template is sure to render: its fixed segments."""
    try:
        return sum(len(seg) for seg in template.parse(text) if isinstance(seg, str))
    except template.TemplateError:
        return len(text)  # reported by the template check


def _static(text: str) -> bool:
    try:
        return template.is_static(text)
    except template.TemplateError:
        return False  # reported by the template check


class _Check:
    def __init__(self) -> None:
        self.problems: list[tuple[tuple[Any, ...], str]] = []
        self.built = 0  # fixed text the engine builds at start, so far
        self.built_reported = False

    def text(self, text: str, repeat: int, loc: tuple[Any, ...], field: str, built: bool = True) -> int:
        """``built``: a fixed text here is built once at start (parts are; chunks are
        made as they are sent)."""
        size = _literal(text) * repeat
        if size > MAX_TEXT:
            where = loc + (field,) if field else loc
            self.problems.append(
                (
                    where,
                    f"{_n(repeat)} copies of a {_n(_literal(text))}-character text come to "
                    f"{_n(size)} characters; one text may come to {_n(MAX_TEXT)} at most",
                )
            )
            return MAX_TEXT  # said once, here: the script's totals count what may be
        elif built and _static(text):
            self.built += size
            if self.built > MAX_BUILT_TEXT and not self.built_reported:
                self.built_reported = True
                self.problems.append(
                    (
                        loc,
                        f"the scenario's fixed texts come to more than {_n(MAX_BUILT_TEXT)} "
                        "characters, which the mock would build when it starts",
                    )
                )
        return size

    def content(self, content: Any, loc: tuple[Any, ...]) -> int:
        if content is None:
            return 0
        if isinstance(content, str):
            return self.text(content, 1, loc, "")
        total = 0
        for i, part in enumerate(content):
            if isinstance(part, str):
                total += self.text(part, 1, loc + (i,), "")
            elif part.text is not None:
                total += self.text(part.text, part.repeat, loc + (i,), "repeat" if part.repeat != 1 else "text")
        return total

    def script(self, steps: list[Any], loc: tuple[Any, ...]) -> _Tally:
        """What ``steps`` produce at most (a one_of its largest branch), with a problem
        at the step that takes the script past a total."""
        total = _Tally()
        over = False
        for i, step in enumerate(steps):
            here = loc + (i,)
            got, field = self.step(step, here)
            total.add(got)
            if over:
                continue
            where = here + field
            if total.events > MAX_SCRIPT_EVENTS:
                over = True
                self.problems.append(
                    (
                        where,
                        f"this script would send {_n(total.events)} events by here; "
                        f"one script may send {_n(MAX_SCRIPT_EVENTS)} at most",
                    )
                )
            elif total.text > MAX_SCRIPT_TEXT:
                over = True
                self.problems.append(
                    (
                        where,
                        f"this script would produce {_n(total.text)} characters by here; "
                        f"one script may produce {_n(MAX_SCRIPT_TEXT)} at most",
                    )
                )
        return total

    def step(self, step: Any, loc: tuple[Any, ...]) -> tuple[_Tally, tuple[Any, ...]]:
        if isinstance(step, sc.StatusStep):
            return _Tally(self.content(step.message, loc + ("message",)), 1), ()
        if isinstance(step, sc.ArtifactStep):
            a = step.artifact
            size = (
                self.text(a.text, 1, loc + ("artifact",), "text")
                if a.text is not None
                else self.content(a.parts, loc + ("artifact", "parts"))
            )
            return _Tally(size, 1), ("artifact",)
        if isinstance(step, sc.ChunksStep):
            c = step.chunks
            field = "repeat" if c.repeat != 1 else "text"
            if c.texts is not None:
                size = sum(
                    self.text(t, c.repeat, loc + ("chunks", "texts", j), "", False) for j, t in enumerate(c.texts)
                )
                return _Tally(size, len(c.texts)), ("chunks", "texts")
            count = c.count or 1
            one = self.text(c.text or "", c.repeat, loc + ("chunks",), field, False)
            return _Tally(one * count, count), ("chunks", "count")
        if isinstance(step, sc.AskStep):
            got = _Tally(self.content(step.ask, loc + ("ask",)), 1)
            if step.then:
                got.add(self.script(step.then, loc + ("then",)))
            return got, ()
        if isinstance(step, sc.ReplyStep):
            return _Tally(self.content(step.reply, loc + ("reply",)), 1), ()
        if isinstance(step, sc.HttpStep):
            return _Tally(len(step.http.body), 1), ()
        if isinstance(step, sc.MalformedStep):
            return _Tally(len(step.malformed), 1), ()
        if isinstance(step, sc.ErrorStep):
            return _Tally(len(step.error.message or ""), 1), ()
        if isinstance(step, sc.HeartbeatStep):
            h = step.heartbeat
            beats = math.floor(h.for_ / h.every) + 1 if h.for_ / h.every < 1e15 else 10**15
            return _Tally(beats * len(h.comment), beats), ("heartbeat", "every")
        if isinstance(step, sc.OneOfStep):
            worst = _Tally()
            for b, branch in enumerate(step.one_of):
                got = self.script(branch.script, loc + ("one_of", b, "script"))
                worst = _Tally(max(worst.text, got.text), max(worst.events, got.events))
            return worst, ()
        return _Tally(), ()


def problems(scenario: sc.Scenario) -> list[tuple[tuple[Any, ...], str]]:
    """Where ``scenario`` would make the mock produce more than the limits allow:
    ``(location, message)``, as scenario.template_problems gives them."""
    check = _Check()
    for r, rule in enumerate(scenario.rules):
        check.script(rule.script, ("rules", r, "script"))
    if scenario.fallback:
        check.script(scenario.fallback, ("fallback",))
    return check.problems


# ------------------------------------------------------------------ while running


def check_text(size: int, repeat: int) -> int:
    """``size`` characters repeated ``repeat`` times, or TooLarge past MAX_TEXT: checked
    before the text is built."""
    total = size * repeat
    if total > MAX_TEXT:
        raise TooLarge(
            f"a text of {_n(size)} characters repeated {_n(repeat)} times would be {_n(total)} "
            f"characters; one text may come to {_n(MAX_TEXT)} at most"
        )
    return total


class Meter:
    """One run's characters and events, against the script's totals."""

    __slots__ = ("text", "events")

    def __init__(self) -> None:
        self.text = 0
        self.events = 0

    def count(self, text: int, events: int = 1) -> None:
        self.text += text
        self.events += events
        if self.text > MAX_SCRIPT_TEXT:
            raise TooLarge(
                f"this turn has produced {_n(self.text)} characters; one script may produce "
                f"{_n(MAX_SCRIPT_TEXT)} at most"
            )
        if self.events > MAX_SCRIPT_EVENTS:
            raise TooLarge(
                f"this turn has sent {_n(self.events)} events; one script may send {_n(MAX_SCRIPT_EVENTS)} at most"
            )
