"""Where a session's older events go when it keeps only its newest ones in memory.

``SpillStore`` writes them to a private temporary file (created 0600 and unlinked at
once: it disappears with the process, whatever happens) and reads them back by position.
It holds the events as the session had them, secrets included, exactly as memory did;
what a user saves (a recording, an export) is redacted as always.
"""

from __future__ import annotations

import json
import os
import tempfile
from array import array
from typing import Any

from pydantic_core import to_json as _dump

from .decoding import ExchangeFacts
from .events import _LAZY, Event, Kind
from .sse_block import sse_data

_MESSAGE = Kind.MESSAGE
#: json.dumps(..., ensure_ascii=False, separators=(",", ":")) with and without
#: default=repr, the encoders made once (json.dumps builds one per call when given
#: options: a spilled REQUEST or RESPONSE paid for it each time).
_LINE = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
_LINE_REPR = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), default=repr).encode
#: The types a JSON line holds as they are (``__class__`` exactly: a subclass such as an
#: IntEnum is written by its repr, as _LINE_REPR writes it).
_SCALARS = frozenset({str, int, float, bool, type(None)})


def _plain(value: Any) -> bool:
    """Whether ``value`` holds nothing but dicts with string keys, lists and _SCALARS:
    what pydantic-core writes as the json module does (bytes, a set, a date... it
    writes its own way, not by their repr)."""
    cls = value.__class__
    if cls is dict:
        for key, item in value.items():
            if key.__class__ is not str or (item.__class__ not in _SCALARS and not _plain(item)):
                return False
        return True
    if cls is list:
        return all(item.__class__ in _SCALARS or _plain(item) for item in value)
    return cls in _SCALARS


def _line(record: dict[str, Any]) -> bytes:
    """A record's JSON line, read back by json.loads to the same values as
    ``_LINE_REPR(record)``: a plain record written by pydantic-core's encoder, at a
    third of the json module's cost (a proxied unary call spills two records, 15 µs
    each that way); anything else, and a string pydantic-core cannot write as UTF-8
    (a lone surrogate), by _LINE_REPR."""
    try:
        if _plain(record):
            return _dump(record, inf_nan_mode="constants")
    except (ValueError, RecursionError):  # PydanticSerializationError is a ValueError
        pass
    return _LINE_REPR(record).encode("utf-8", "surrogatepass")


#: A message's data keys, in order, that its compact record keeps (the client's; the proxy's).
_MESSAGE_KEYS = (("json", "size"), ("json", "size", "added_ms"))


class SpillFile:
    """A private temporary file that grows: ``write`` returns where the bytes went."""

    def __init__(self, directory: str | None = None) -> None:
        self._file: Any = None
        self._directory = directory
        self.end = 0

    def write(self, data: bytes) -> int:
        if self._file is None:
            # TemporaryFile: mode 0600, and no name on disk once created (POSIX). Open until close().
            self._file = tempfile.TemporaryFile(prefix="a2a-inspect-spill-", dir=self._directory)  # noqa: SIM115
        at = self.end
        os.pwrite(self._file.fileno(), data, at)
        self.end = at + len(data)
        return at

    def read(self, offset: int, length: int) -> bytes:
        return os.pread(self._file.fileno(), length, offset)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


class EventStore:
    """Receives the events a session lets go of, in order; may give them back."""

    #: Whether ``read`` can give events back.
    keeps = False

    def add(self, start: int, events: list[Event]) -> None:
        """``events`` are positions ``start``, ``start + 1``... of the session."""

    def read(self, start: int, stop: int) -> list[Event]:
        raise IndexError("this store keeps no events")

    def close(self) -> None:
        pass


def event_from_line(obj: Any, facts: ExchangeFacts) -> Event:
    """An event read back (a spill line or a recording's), compact when it can be:
    an SSE event whose data is exactly what its raw text says keeps the raw text only.
    Its payload is derived when asked, from ``facts``."""
    if obj.__class__ is list:
        seq, t, wall, exchange, raw = obj
        return Event.sse(seq, t, exchange, raw, wall, facts.codec)
    event = Event.from_json(obj)
    if event.kind is Kind.SSE:
        data = event.data
        raw = data.get("raw")
        if raw.__class__ is str and len(data) == 5 and sse_data(raw) == data:
            event = Event.sse(event.seq, event.t, event.exchange, raw, event.wall)
    event.codec = facts.codec
    event.payload = _LAZY
    return event


class SpillStore(EventStore):
    """Events in a private temporary file, a record each.

    A compact SSE event (the bulk of a long stream) is a header line
    ``[seq,t,wall,exchange,size]`` followed by its raw text as ``size`` bytes of UTF-8
    and a newline: writing it costs an encode, where a JSON string of the text (escaping
    every quote) cost 6-7 µs an event, a fifth of what the TUI spends on a chunk. A gRPC
    stream's message (the bulk of a relayed gRPC stream: data ``json``, ``size`` and the
    proxy's ``added_ms``, in that order) is alike: ``m[seq,t,wall,exchange,size,
    added_ms,length]`` (``added_ms`` only when the event has it), then its ProtoJSON as
    ``length`` bytes (a JSON line cost the proxy 62 ms a batch of 4,096, 3/4 of a
    spill). Any other event is one JSON line, as is one of those whose numbers are not
    finite floats and integers as said.

    Where each record starts is kept for every ``STRIDE``-th event only: an offset per
    event (8 bytes) would be the biggest thing a long stream leaves in memory once its
    events are on disk. Reading event ``i`` reads from the record of the stride it falls
    in: at most ``STRIDE - 1`` records more than asked, whose headers are read to skip
    them."""

    keeps = True
    #: One offset kept per this many events.
    STRIDE = 64

    def __init__(self, directory: str | None = None) -> None:
        self._file = SpillFile(directory)
        #: Where event ``_start + k * STRIDE`` starts in the file, for each k.
        self._offsets = array("q")
        self._start = 0
        self._count = 0
        self.facts = ExchangeFacts()

    def add(self, start: int, events: list[Event]) -> None:
        if not self._count:
            self._start = start
        records: list[bytes] = []
        offsets = self._offsets
        stride = self.STRIDE
        count = self._count
        end = self._file.end
        note = self.facts.note
        for event in events:
            note(event)
            t, wall, seq, exchange, fields = event.t, event.wall, event.seq, event.exchange, event._data
            # Floats as json.dumps writes them (repr; ``%a`` of a float is its repr): read back exactly.
            exact = (
                t.__class__ is float
                and wall.__class__ is float
                and t - t == 0
                and wall - wall == 0
                and seq.__class__ is int
                and exchange.__class__ is int
            )
            if exact and fields.__class__ is str:
                raw = fields.encode("utf-8", "surrogatepass")  # a compact event's raw text
                data = b"[%d,%a,%a,%d,%d]\n%s\n" % (seq, t, wall, exchange, len(raw), raw)
            elif (
                exact
                and event.kind is _MESSAGE
                and (keys := tuple(fields)) in _MESSAGE_KEYS
                and fields["json"].__class__ is str
                and fields["size"].__class__ is int
                and (len(keys) == 2 or ((added := fields["added_ms"]).__class__ is float and added - added == 0))
            ):
                text = fields["json"].encode("utf-8", "surrogatepass")
                if len(keys) == 3:
                    data = b"m[%d,%a,%a,%d,%d,%a,%d]\n%s\n" % (
                        seq,
                        t,
                        wall,
                        exchange,
                        fields["size"],
                        added,
                        len(text),
                        text,
                    )
                else:
                    data = b"m[%d,%a,%a,%d,%d,%d]\n%s\n" % (seq, t, wall, exchange, fields["size"], len(text), text)
            else:
                if event.compact:
                    data = _LINE([event.seq, t, wall, event.exchange, event.raw]).encode("utf-8", "surrogatepass")
                else:
                    # Times exact (a recording rounds them): the event comes back as it was.
                    data = _line(
                        {
                            "kind": event.kind.value,
                            "seq": event.seq,
                            "t": t,
                            "wall": wall,
                            "exchange": event.exchange,
                            "data": event.data,
                        }
                    )
                data += b"\n"
            if count % stride == 0:
                offsets.append(end)
            count += 1
            end += len(data)
            records.append(data)
        self._count = count
        self._file.write(b"".join(records))

    def read(self, start: int, stop: int) -> list[Event]:
        lo, hi = start - self._start, stop - self._start
        if lo < 0 or hi > self._count:
            raise IndexError("event index out of range")
        if lo >= hi:
            return []
        stride = self.STRIDE
        offsets = self._offsets
        first_block = lo // stride
        after = -(-hi // stride)  # the first stride wholly after the events asked for
        first = offsets[first_block]
        last = offsets[after] if after < len(offsets) else self._file.end
        blob = self._file.read(first, last - first)
        facts = self.facts
        out: list[Event] = []
        pos = 0
        for k in range(first_block * stride, hi):
            nl = blob.index(b"\n", pos)
            head = blob[pos:nl]
            size = _raw_size(head)
            if k < lo:  # a record before those asked for: skipped
                pos = nl + 1 + (size + 1 if size >= 0 else 0)
                continue
            if size >= 0:
                raw = blob[nl + 1 : nl + 1 + size].decode("utf-8", "surrogatepass")
                if head[:1] == b"m":
                    out.append(_message(json.loads(head[1:].decode()), raw, facts))
                else:
                    seq, t, wall, exchange, _ = json.loads(head)
                    out.append(Event.sse(seq, t, exchange, raw, wall, facts.codec))
                pos = nl + 1 + size + 1
            else:
                out.append(_spilled(json.loads(head.decode("utf-8", "surrogatepass")), facts))
                pos = nl + 1
        return out

    def close(self) -> None:
        self._file.close()


def _raw_size(head: bytes) -> int:
    """The size of the text that follows a compact event's or a message's header, else
    -1 (a JSON line: an array whose last item is a string, or an object)."""
    if head[:1] != b"[" and head[:1] != b"m":
        return -1
    size = head.rsplit(b",", 1)[1][:-1]
    return int(size) if size.isdigit() else -1


def _message(head: list[Any], text: str, facts: ExchangeFacts) -> Event:
    """A gRPC stream's message read back from its header and its ProtoJSON text."""
    data = {"json": text, "size": head[4]}
    if len(head) == 7:
        data["added_ms"] = head[5]
    return Event(head[0], head[1], _MESSAGE, head[3], data, head[2], _LAZY, codec=facts.codec)


def _spilled(obj: Any, facts: ExchangeFacts) -> Event:
    if obj.__class__ is list:
        return event_from_line(obj, facts)
    event = Event(
        obj["seq"], obj["t"], Kind(obj["kind"]), obj["exchange"], obj["data"], obj["wall"], _LAZY, codec=facts.codec
    )
    return event
