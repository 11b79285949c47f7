"""A recording's lines read in order: parsed, checked and numbered the one way that
both the reader (``reader.RecordingIterator``) and the lazy index (``index.RecordingIndex``)
share, with the same problems reported for the same damage.

``RecordingLines`` holds what the order of lines decides: the line number, the problems
and whether the file was cut off, and the numbers an appended session continues after.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any, TypeGuard

from ..safejson import MAX_JSON_DEPTH, loads
from .decoding import ExchangeFacts
from .events import Event, Kind
from .recorder import FORMAT, VERSION

_KINDS = {k.value: k for k in Kind}
_INF = float("inf")


@dataclass(frozen=True, slots=True)
class Problem:
    #: 1-based line number in the file (the header is line 1).
    line: int
    message: str


class LinesRead:
    """What a pass over a recording's lines has found so far, for the readers that hold
    their ``RecordingLines`` as ``_lines``."""

    _lines: RecordingLines

    @property
    def problems(self) -> list[Problem]:
        return self._lines.problems

    @property
    def truncated(self) -> bool:
        return self._lines.truncated

    @property
    def headers(self) -> list[dict[str, Any]]:
        """Every session's header, the first one's first."""
        return self._lines.headers


class RecordingLines:
    """The state of one pass over a recording's event lines (the header already read)."""

    def __init__(self, header: dict[str, Any]) -> None:
        #: Every session's header, the first one's first.
        self.headers: list[dict[str, Any]] = [header]
        self.problems: list[Problem] = []
        #: The last line was cut off (the recording process was killed mid-write).
        self.truncated = False
        #: The line being read (1-based; the header is line 1): the caller counts.
        self.line = 1
        #: The current appended session (None: the first), and what the next one is
        #: numbered after: the last seq, the highest finite t and the highest exchange.
        self.session: SessionStart | None = None
        self.last_seq = 0
        self.last_t = 0.0
        self.max_exchange = 0

    def problem(self, message: str) -> None:
        self.problems.append(Problem(self.line, message))

    def parse(self, raw: bytes) -> dict[str, Any] | None:
        """The line's object, a checked event or a session's header (``is_header``);
        None when the line is damaged, with the problem noted."""
        try:
            obj = loads(raw, LINE_DEPTH)
        except ValueError as exc:
            if not raw.endswith(b"\n"):
                # Only the last line can lack its newline: the writer was stopped mid-line.
                self.truncated = True
                self.problem(
                    "incomplete last line: the recording was cut off (process killed?); "
                    "the event being written then is lost"
                )
            else:
                self.problem(f"not a valid event line ({_reason(exc)}); skipped")
            return None
        if is_header(obj):
            return obj
        try:
            check_event(obj)
        except ValueError as exc:
            self.problem(f"{exc}; skipped")
            return None
        event: dict[str, Any] = obj  # as check_event found it
        return event

    def begin(self, header: dict[str, Any]) -> SessionStart:
        """An appended session's header: the events after it are renumbered by the
        start returned."""
        start, problem = next_session(self.headers, header, self.last_seq, self.last_t, self.max_exchange)
        if problem is not None:
            self.problem(problem)
        self.session = start
        self.last_seq = start.seq
        return start

    def follow(self, seq: int, t: float, exchange: int) -> None:
        """An event's numbers (already moved by its session): note a seq out of order."""
        if exchange > self.max_exchange:
            self.max_exchange = exchange
        # Not math.isfinite: a recorded t may be an int too large for a float.
        if t == t and abs(t) != _INF and t > self.last_t:
            self.last_t = t
        if seq <= self.last_seq:
            self.problem(f"seq {seq} does not follow seq {self.last_seq}")
        else:
            self.last_seq = seq

    def take_notes(self, facts: ExchangeFacts) -> None:
        """The decoder's remarks (a dialect this version does not know, say) as problems."""
        if facts.notes:
            for note in facts.notes:
                self.problem(note)
            facts.notes.clear()


#: A line wraps what an agent sent (an id in a NOTE, say) a few levels down.
LINE_DEPTH = MAX_JSON_DEPTH + 8


@dataclass(frozen=True, slots=True)
class SessionStart:
    """Where an appended session begins (its header line) and how its events are
    renumbered: ``seq`` is the NOTE's seq and what its events' seq are moved by,
    ``exchange`` what their exchange numbers are moved by, ``t`` the NOTE's t and what
    their t are moved by."""

    number: int
    seq: int
    exchange: int
    t: float
    wall: float
    text: str

    def note(self) -> Event:
        """The NOTE that marks the session's start (a new one each call)."""
        return Event(self.seq, self.t, Kind.NOTE, 0, {"text": self.text, "session": self.number}, self.wall)

    def shift(self, event: Event) -> None:
        event.seq += self.seq
        event.t += self.t
        if event.exchange:
            event.exchange += self.exchange


def next_session(
    headers: list[dict[str, Any]], header: dict[str, Any], last_seq: int, last_t: float, max_exchange: int
) -> tuple[SessionStart, str | None]:
    """The start of the session ``header`` opens, after the sessions of ``headers``
    (appended to), whose events reached ``last_seq``, ``last_t`` (the highest finite t)
    and ``max_exchange``; with a problem to report, or None. Shared by the reader and
    the index (``index.RecordingIndex``), which must number alike."""
    problem = None
    version = header.get("version")
    if isinstance(version, int) and not isinstance(version, bool) and version > VERSION:
        problem = (
            f"session {len(headers) + 1} was written by a newer a2a-inspect "
            f"(format version {version}); read as this version reads"
        )
    headers.append(header)
    number = len(headers)
    first = headers[0].get("session_started")
    started = header.get("session_started")
    offset = last_t
    if _number(first) and _number(started):
        gap = float(started) - float(first)
        if math.isfinite(gap):
            offset = max(offset, gap)
    created = header.get("created")
    text = f"session {number} of this file" + (f" (recorded {created})" if isinstance(created, str) else "")
    wall = float(started) if _number(started) else 0.0
    return SessionStart(number, last_seq + 1, max_exchange, offset, wall, text), problem


def is_header(obj: Any) -> TypeGuard[dict[str, Any]]:
    """``obj`` (a parsed line) is a session's header, not an event."""
    return obj.__class__ is dict and obj.get("format") == FORMAT and "seq" not in obj


def _number(value: Any) -> TypeGuard[int | float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _reason(exc: Exception) -> str:
    if isinstance(exc, json.JSONDecodeError):
        return f"invalid JSON: {exc.msg} at column {exc.colno}"
    if isinstance(exc, UnicodeDecodeError):
        return "not UTF-8"
    return str(exc) or type(exc).__name__


def check_event(obj: Any) -> None:
    """Raise ValueError when ``obj`` is not an event line this version can read."""
    if not isinstance(obj, dict):
        raise ValueError("not a JSON object")
    seq, t, kind = obj.get("seq"), obj.get("t"), obj.get("kind")
    if not isinstance(seq, int) or isinstance(seq, bool):
        raise ValueError("event without a valid seq")
    if not isinstance(t, (int, float)) or isinstance(t, bool):
        raise ValueError(f"seq {seq}: no valid t")
    if kind not in _KINDS:
        raise ValueError(f"seq {seq}: unknown event kind {kind!r} (written by a newer a2a-inspect?)")
    exchange = obj.get("exchange", 0)
    if not isinstance(exchange, int) or isinstance(exchange, bool):
        raise ValueError(f"seq {seq}: exchange is not a number")
    wall = obj.get("wall", 0.0)
    if not isinstance(wall, (int, float)) or isinstance(wall, bool):
        raise ValueError(f"seq {seq}: wall is not a number")
