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

import base64
import binascii
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..protocol.dialects import Dialect, get_dialect
from ..protocol.errors import JsonRpcError, ProtocolError
from ..protocol.limits import MAX_JSON_DEPTH, loads
from ..protocol.wire import capture, parse_json
from .events import Event, Kind
from .log import Session
from .recorder import FORMAT, VERSION

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
        self._decoder = PayloadDecoder() if decode else None
        # Renumbering of appended sessions (see the module docstring).
        self._seq_offset = 0
        self._exchange_offset = 0
        self._t_offset = 0.0
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
        if isinstance(obj, dict) and obj.get("format") == FORMAT and "seq" not in obj:
            return self._next_session(obj)
        try:
            event = _to_event(obj)
        except ValueError as exc:
            self._problem(f"{exc}; skipped")
            return None
        if self._seq_offset:
            event.seq += self._seq_offset
            event.t += self._t_offset
            if event.exchange:
                event.exchange += self._exchange_offset
        self._max_exchange = max(self._max_exchange, event.exchange)
        self._last_t = max(self._last_t, event.t)
        if event.seq <= self._last_seq:
            self._problem(f"seq {event.seq} does not follow seq {self._last_seq}")
        self._last_seq = max(self._last_seq, event.seq)
        if self._decoder is not None:
            try:
                event.payload = self._decoder.decode(event)
            except Exception as exc:  # a decoder bug must cost one payload, not the recording
                self._problem(f"seq {event.seq}: could not re-derive the payload: {exc!r}")
            for note in self._decoder.drain():
                self._problem(note)
        return event

    def _next_session(self, header: dict[str, Any]) -> Event:
        """An appended session's header: later events are renumbered after the earlier
        ones; the NOTE returned marks where the session begins."""
        version = header.get("version")
        if isinstance(version, int) and not isinstance(version, bool) and version > VERSION:
            self._problem(f"session {len(self.headers) + 1} was written by a newer a2a-inspect "
                          f"(format version {version}); read as this version reads")
        self.headers.append(header)
        number = len(self.headers)
        first = self.headers[0].get("session_started")
        started = header.get("session_started")
        offset = self._last_t
        if _number(first) and _number(started):
            offset = max(offset, float(started) - float(first))
        self._t_offset = offset
        self._exchange_offset = self._max_exchange
        note_seq = self._last_seq + 1
        self._seq_offset = note_seq
        self._last_seq = note_seq
        created = header.get("created")
        text = f"session {number} of this file" + (f" (recorded {created})" if isinstance(created, str) else "")
        wall = float(started) if _number(started) else 0.0
        return Event(note_seq, offset, Kind.NOTE, 0, {"text": text, "session": number}, wall)

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> "RecordingIterator":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


#: A line wraps what an agent sent (an id in a NOTE, say) a few levels down.
_LINE_DEPTH = MAX_JSON_DEPTH + 8


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _reason(exc: Exception) -> str:
    if isinstance(exc, json.JSONDecodeError):
        return f"invalid JSON: {exc.msg} at column {exc.colno}"
    if isinstance(exc, UnicodeDecodeError):
        return "not UTF-8"
    return str(exc) or type(exc).__name__


def _to_event(obj: Any) -> Event:
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
    return Event.from_json(obj)


# ---------------------------------------------------------------------- payloads


class PayloadDecoder:
    """Derives an event's payload from its data, as the live client does.

    Responses and SSE events go through the client's own payload functions
    (``inspector.client.payloads``), paired with their exchange's request, so events
    must be fed in order. Requests are decoded from their body with the dialect's
    request decoder: the live client logged the params it encoded, which is the same
    object. Push bodies are decoded in the dialect of the latest request, the one the
    agent was being spoken to in."""

    def __init__(self) -> None:
        self._known: dict[str, bool] = {}
        self._requests: dict[int, dict[str, Any]] = {}
        self._agent_dialect: str | None = None
        self._notes: list[str] = []

    def drain(self) -> list[str]:
        """Remarks since the last call (e.g. a dialect this version does not know)."""
        notes, self._notes = self._notes, []
        return notes

    def decode(self, event: Event) -> Any:
        # Imported here: the client package imports the session package.
        from ..client import payloads

        kind = event.kind
        data = event.data
        if kind is Kind.SSE:
            request = self._requests.get(event.exchange)
            name = self._usable(request.get("dialect")) if request is not None else None
            return payloads.sse_payload(name, data)
        if kind is Kind.REQUEST:
            return self._request(event)
        if kind is Kind.RESPONSE:
            request = self._requests.get(event.exchange)
            if request is None:
                return None
            if request.get("a2a_method") != payloads.CARD and not self._usable(request.get("dialect")):
                return None
            return payloads.response_payload(request, data)
        if kind is Kind.PUSH:
            body = _body(data)
            if body is None or self._agent_dialect is None:
                return None
            return capture(_decode_push, get_dialect(self._agent_dialect), body)
        if kind is Kind.WS:
            # A frame says what it is by itself: no exchange or dialect to look up.
            return payloads.ws_payload(data)
        return None

    def _request(self, event: Event) -> Any:
        data = event.data
        self._requests[event.exchange] = data
        name = self._usable(data.get("dialect"))
        if name is None:
            return None
        self._agent_dialect = name
        body = _body(data)
        if body is None:
            return None
        try:
            return get_dialect(name).decode_request(parse_json(body)).params
        except (ProtocolError, JsonRpcError):
            # A request the user hand-edited into something invalid has no params.
            return None

    def _usable(self, name: Any) -> str | None:
        """``name`` if this version has that dialect; otherwise None, noted once."""
        if not isinstance(name, str) or not name:
            return None
        ok = self._known.get(name)
        if ok is None:
            try:
                get_dialect(name)
                ok = True
            except ValueError as exc:
                ok = False
                self._notes.append(f"{exc}; events in that dialect keep no decoded payload")
            self._known[name] = ok
        return name if ok else None


def _body(data: dict[str, Any]) -> bytes | str | None:
    body = data.get("body")
    if not isinstance(body, str):
        return None
    if data.get("body_encoding") == "base64":
        try:
            return base64.b64decode(body, validate=True)
        except (binascii.Error, ValueError):
            return None
    return body


def _decode_push(dialect: Dialect, body: bytes | str) -> Any:
    return dialect.decode_event(parse_json(body), "$")
