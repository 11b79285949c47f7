"""Reading recordings back into a Session.

A recording stores only wire facts (``Event.data``); each event's ``payload`` is derived
again here with the decoders the live client uses, so a replayed session is decoded by
today's code exactly as a live one would be.

A file may hold several sessions (``--record FILE --append``): each starts with a header
line of its own. They are read as one session, in order: the later sessions' seq and
exchange numbers continue after the earlier ones', their times count from the first
session's start, and a NOTE event marks where each one begins ("session 2 of this
file ..."). ``RecordingIterator.headers`` has every header.

Reading is forgiving, because a recording is evidence: a line cut off by a killed
process, or a line damaged later, is reported with its line number and everything else
still loads. Only a file that is not a recording at all (no header) is refused.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..safejson import MAX_JSON_DEPTH, loads
from .decoding import ExchangeFacts
from .events import Event, Kind
from .log import Session
from .recorder import FORMAT, VERSION
from .spill import event_from_line

_KINDS = {k.value: k for k in Kind}


class RecordingError(ValueError):
    """The file is not a recording this version can read (no header, foreign, newer)."""


@dataclass(frozen=True, slots=True)
class Problem:
    #: 1-based line number in the file (the header is line 1).
    line: int
    message: str


@dataclass(slots=True)
class Recording:
    session: Session
    header: dict[str, Any]
    problems: list[Problem] = field(default_factory=list)
    #: The last line was cut off (the recording process was killed mid-write).
    truncated: bool = False


def load_recording(path: str | Path, *, decode: bool = True) -> Recording:
    """Read a whole recording into a new Session (events keep their seq, t and wall).

    ``decode=False`` skips payload derivation (payloads stay None) for tools that only
    need the wire facts."""
    with iter_recording(path, decode=decode) as events:
        session = Session()
        started = events.header.get("session_started")
        if isinstance(started, (int, float)) and not isinstance(started, bool):
            session.started_wall = float(started)
        for event in events:
            session.extend(event)
        return Recording(session, events.header, events.problems, events.truncated)


def iter_recording(path: str | Path, *, decode: bool = True) -> "RecordingIterator":
    """Events one at a time, for files too big to hold or tools that stream.

    The header is read (and checked) at once; ``problems`` and ``truncated`` fill in as
    iteration goes and are complete when it ends."""
    return RecordingIterator(path, decode=decode)


class RecordingIterator:
    def __init__(self, path: str | Path, *, decode: bool = True) -> None:
        self.path = Path(path)
        self.problems: list[Problem] = []
        self.truncated = False
        self._line = 0
        self._last_seq = 0
        self._facts = ExchangeFacts() if decode else None
        # Renumbering of appended sessions (see the module docstring): the current
        # session's start (None: the first), the highest exchange and t read so far.
        self._session: SessionStart | None = None
        self._max_exchange = 0
        self._last_t = 0.0
        self._file = open(self.path, "rb")
        try:
            self.header = self._read_header()
        except BaseException:
            self._file.close()
            raise
        #: Every session's header, the first one's first.
        self.headers: list[dict[str, Any]] = [self.header]

    def _read_header(self) -> dict[str, Any]:
        raw = self._file.readline()
        self._line = 1
        name = self.path.name
        if not raw.strip():
            raise RecordingError(f"{name}: empty, not an a2a-inspect recording")
        try:
            header = loads(raw, _LINE_DEPTH)
        except ValueError:
            # The recorder writes the format key first, so a cut-off header still shows it.
            if not raw.endswith(b"\n") and raw.lstrip().startswith(b'{"format"'):
                raise RecordingError(f"{name}: the header line is incomplete (the recording was cut off "
                                     "before it started)") from None
            raise RecordingError(f"{name}: not an a2a-inspect recording (the first line is not "
                                 "a JSON header)") from None
        if not isinstance(header, dict) or "format" not in header:
            raise RecordingError(f"{name}: not an a2a-inspect recording (the first line has no "
                                 "format header)")
        if header["format"] != FORMAT:
            raise RecordingError(f"{name}: not an a2a-inspect recording (format {header['format']!r}, "
                                 f"expected {FORMAT!r})")
        version = header.get("version")
        if not isinstance(version, int) or isinstance(version, bool) or version < 1:
            raise RecordingError(f"{name}: the header has no valid format version ({version!r})")
        if version > VERSION:
            raise RecordingError(f"{name}: written by a newer a2a-inspect (format version {version}; "
                                 f"this version reads up to {VERSION})")
        return header

    def __iter__(self) -> Iterator[Event]:
        return self

    def __next__(self) -> Event:
        while True:
            raw = self._file.readline() if not self._file.closed else b""
            if not raw:
                self.close()
                raise StopIteration
            self._line += 1
            event = self._event(raw)
            if event is not None:
                return event

    def _problem(self, message: str) -> None:
        self.problems.append(Problem(self._line, message))

    def _event(self, raw: bytes) -> Event | None:
        if not raw.strip():
            return None
        complete = raw.endswith(b"\n")
        try:
            obj = loads(raw, _LINE_DEPTH)
        except ValueError as exc:
            if not complete:
                # Only the last line can lack its newline: the writer was stopped mid-line.
                self.truncated = True
                self._problem("incomplete last line: the recording was cut off (process killed?); "
                              "the event being written then is lost")
            else:
                self._problem(f"not a valid event line ({_reason(exc)}); skipped")
            return None
        if is_header(obj):
            return self._next_session(obj)
        try:
            event = _to_event(obj, self._facts)
        except ValueError as exc:
            self._problem(f"{exc}; skipped")
            return None
        start = self._session
        if start is not None:
            start.shift(event)
        self._max_exchange = max(self._max_exchange, event.exchange)
        if math.isfinite(event.t):
            self._last_t = max(self._last_t, event.t)
        if event.seq <= self._last_seq:
            self._problem(f"seq {event.seq} does not follow seq {self._last_seq}")
        self._last_seq = max(self._last_seq, event.seq)
        facts = self._facts
        if facts is not None:
            facts.note(event)
            if facts.notes:
                for note in facts.notes:
                    self._problem(note)
                facts.notes.clear()
        return event

    def _next_session(self, header: dict[str, Any]) -> Event:
        """An appended session's header: later events are renumbered after the earlier
        ones; the NOTE returned marks where the session begins."""
        start, problem = next_session(self.headers, header, self._last_seq, self._last_t, self._max_exchange)
        if problem is not None:
            self._problem(problem)
        self._session = start
        self._last_seq = start.seq
        return start.note()

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> "RecordingIterator":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


#: A line wraps what an agent sent (an id in a NOTE, say) a few levels down.
_LINE_DEPTH = MAX_JSON_DEPTH + 8


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


def next_session(headers: list[dict[str, Any]], header: dict[str, Any], last_seq: int, last_t: float,
                 max_exchange: int) -> tuple[SessionStart, str | None]:
    """The start of the session ``header`` opens, after the sessions of ``headers``
    (appended to), whose events reached ``last_seq``, ``last_t`` (the highest finite t)
    and ``max_exchange``; with a problem to report, or None. Shared by the reader and
    the index (``index.RecordingIndex``), which must number alike."""
    problem = None
    version = header.get("version")
    if isinstance(version, int) and not isinstance(version, bool) and version > VERSION:
        problem = (f"session {len(headers) + 1} was written by a newer a2a-inspect "
                   f"(format version {version}); read as this version reads")
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


def is_header(obj: Any) -> bool:
    """``obj`` (a parsed line) is a session's header, not an event."""
    return obj.__class__ is dict and obj.get("format") == FORMAT and "seq" not in obj


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _reason(exc: Exception) -> str:
    if isinstance(exc, json.JSONDecodeError):
        return f"invalid JSON: {exc.msg} at column {exc.colno}"
    if isinstance(exc, UnicodeDecodeError):
        return "not UTF-8"
    return str(exc) or type(exc).__name__


def _to_event(obj: Any, facts: ExchangeFacts | None) -> Event:
    check_event(obj)
    if facts is None:
        return Event.from_json(obj)
    return event_from_line(obj, facts)


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


# ---------------------------------------------------------------------- payloads


class PayloadDecoder:
    """Derives an event's payload from its data, as the live client does; events must be
    fed in order (see ``decoding.ExchangeFacts``, which it wraps)."""

    def __init__(self) -> None:
        self.facts = ExchangeFacts()

    def drain(self) -> list[str]:
        """Remarks since the last call (e.g. a dialect this version does not know)."""
        notes = list(self.facts.notes)
        self.facts.notes.clear()
        return notes

    def decode(self, event: Event) -> Any:
        self.facts.note(event)
        return self.facts.decode(event)
