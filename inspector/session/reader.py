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

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..safejson import loads
from .decoding import ExchangeFacts
from .events import Event
from .lines import LINE_DEPTH, LinesRead, Problem, RecordingLines, is_header
from .log import Session
from .recorder import FORMAT, VERSION
from .spill import event_from_line


class RecordingError(ValueError):
    """The file is not a recording this version can read (no header, foreign, newer)."""


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


def iter_recording(path: str | Path, *, decode: bool = True) -> RecordingIterator:
    """Events one at a time, for files too big to hold or tools that stream.

    The header is read (and checked) at once; ``problems`` and ``truncated`` fill in as
    iteration goes and are complete when it ends."""
    return RecordingIterator(path, decode=decode)


class RecordingIterator(LinesRead):
    def __init__(self, path: str | Path, *, decode: bool = True) -> None:
        self.path = Path(path)
        self._facts = ExchangeFacts() if decode else None
        self._file = open(self.path, "rb")  # noqa: SIM115 - read as the iterator advances; close() closes it
        try:
            self.header = self._read_header()
        except BaseException:
            self._file.close()
            raise
        self._lines = RecordingLines(self.header)

    def _read_header(self) -> dict[str, Any]:
        raw = self._file.readline()
        name = self.path.name
        if not raw.strip():
            raise RecordingError(f"{name}: empty, not an a2a-inspect recording")
        try:
            header = loads(raw, LINE_DEPTH)
        except ValueError:
            # The recorder writes the format key first, so a cut-off header still shows it.
            if not raw.endswith(b"\n") and raw.lstrip().startswith(b'{"format"'):
                raise RecordingError(
                    f"{name}: the header line is incomplete (the recording was cut off before it started)"
                ) from None
            raise RecordingError(
                f"{name}: not an a2a-inspect recording (the first line is not a JSON header)"
            ) from None
        if not isinstance(header, dict) or "format" not in header:
            raise RecordingError(f"{name}: not an a2a-inspect recording (the first line has no format header)")
        if header["format"] != FORMAT:
            raise RecordingError(
                f"{name}: not an a2a-inspect recording (format {header['format']!r}, expected {FORMAT!r})"
            )
        version = header.get("version")
        if not isinstance(version, int) or isinstance(version, bool) or version < 1:
            raise RecordingError(f"{name}: the header has no valid format version ({version!r})")
        if version > VERSION:
            raise RecordingError(
                f"{name}: written by a newer a2a-inspect (format version {version}; this version reads up to {VERSION})"
            )
        return header

    def __iter__(self) -> Iterator[Event]:
        return self

    def __next__(self) -> Event:
        while True:
            raw = self._file.readline() if not self._file.closed else b""
            if not raw:
                self.close()
                raise StopIteration
            self._lines.line += 1
            event = self._event(raw)
            if event is not None:
                return event

    def _event(self, raw: bytes) -> Event | None:
        if not raw.strip():
            return None
        lines = self._lines
        obj = lines.parse(raw)
        if obj is None:
            return None
        if is_header(obj):
            # An appended session: its NOTE marks where it begins.
            return lines.begin(obj).note()
        facts = self._facts
        try:
            event = Event.from_json(obj) if facts is None else event_from_line(obj, facts)
        except ValueError as exc:
            lines.problem(f"{exc}; skipped")
            return None
        start = lines.session
        if start is not None:
            start.shift(event)
        lines.follow(event.seq, event.t, event.exchange)
        if facts is not None:
            facts.note(event)
            lines.take_notes(facts)
        return event

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> RecordingIterator:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


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
