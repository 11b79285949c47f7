"""How much an agent may send, counted after decompression, and the bounded decoder
that does the counting.

httpx inflates a gzip body one network read at a time with no output limit: a 64 KiB
read of a gzip bomb becomes ~64 MiB at once, and ``aread()`` keeps going until memory
runs out. So the client reads the raw bytes and inflates them itself, in pieces of at
most ``PIECE`` bytes, and the caller stops as soon as a limit is passed.

Only the encodings the client asks for (``ACCEPT_ENCODING``) are undone. Any other
``Content-Encoding`` is passed through as received, as httpx does for one it has no
decoder for; the body then reads as what it is (not UTF-8, not JSON).
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from dataclasses import dataclass

from ..protocol.sizes import GiB, KiB, MiB

__all__ = ["Limits", "BodyDecoder", "DecodeFailed", "PIECE", "ACCEPT_ENCODING"]

#: The most one decoded piece holds: what a limit can be overshot by in memory.
PIECE = 256 * KiB

#: Sent on every request, so that an agent never picks an encoding we do not bound.
ACCEPT_ENCODING = "gzip, deflate"


@dataclass(frozen=True)
class Limits:
    """Bytes after decompression. ``max_body`` bounds one response that is not a
    stream (and one gRPC message, which shares the channel's bound). A stream is long by
    design (an agent streaming tokens for an hour sends millions of events), so it has
    bounds of its own, set for that: ``max_event`` for one SSE event (its block of
    lines) or gRPC message, ``max_stream_events`` for the events and comments it may
    carry, ``max_stream_body`` for its whole body; time bounds it too (Timeouts). A
    flood still ends at one of them. The count bounds what the session keeps per event
    (a CLI command keeps none; the TUI keeps its newest events in memory, older ones in
    a spill file), the body the spill file and the text an artifact assembles: 10
    million events of a few hundred bytes (a token each) stay within both."""

    max_body: int = 64 * MiB
    max_event: int = 16 * MiB
    max_stream_events: int = 10_000_000
    max_stream_body: int = 4 * GiB


class DecodeFailed(Exception):
    """The body does not decompress as its Content-Encoding says."""

    def __init__(self, encoding: str, reason: str) -> None:
        super().__init__(f"{encoding} body does not decompress: {reason}")
        self.encoding = encoding


class _Inflate:
    """One zlib layer (gzip, or deflate with or without its zlib header) giving at most
    PIECE bytes per piece."""

    def __init__(self, name: str) -> None:
        self.name = name
        # gzip: header and trailer checked; deflate: zlib-wrapped, else raw (as httpx).
        self._z = zlib.decompressobj(zlib.MAX_WBITS | 16 if name == "gzip" else zlib.MAX_WBITS)
        self._first = name == "deflate"

    def feed(self, data: bytes) -> Iterator[bytes]:
        z = self._z
        if z.eof:
            return  # bytes after the end: zlib would hoard them in unused_data
        try:
            out = z.decompress(data, PIECE)
        except zlib.error as exc:
            if not self._first:
                raise DecodeFailed(self.name, str(exc)) from None
            self._z = z = zlib.decompressobj(-zlib.MAX_WBITS)
            try:
                out = z.decompress(data, PIECE)
            except zlib.error as exc2:
                raise DecodeFailed(self.name, str(exc2)) from None
        self._first = False
        while True:
            if out:
                yield out
            tail = z.unconsumed_tail
            if not tail:
                return
            try:
                out = z.decompress(tail, PIECE)
            except zlib.error as exc:
                raise DecodeFailed(self.name, str(exc)) from None
            if not out and z.unconsumed_tail == tail:  # pragma: no cover - zlib made no progress
                return

    def flush(self) -> Iterator[bytes]:
        try:
            out = self._z.flush()
        except zlib.error as exc:  # pragma: no cover - flush only reports what feed did
            raise DecodeFailed(self.name, str(exc)) from None
        for start in range(0, len(out), PIECE):
            yield out[start : start + PIECE]


class BodyDecoder:
    """Undoes a response's Content-Encoding (a comma-separated list, applied in order)
    one raw chunk at a time; every piece it gives is at most PIECE bytes."""

    def __init__(self, content_encoding: str | None) -> None:
        names = [n.strip().lower() for n in (content_encoding or "").split(",") if n.strip()]
        #: Encodings left as received (not ones we asked for).
        self.skipped = [n for n in names if n not in ("gzip", "deflate", "identity")]
        # Decoded last-applied first.
        self._layers = [_Inflate(n) for n in reversed(names) if n in ("gzip", "deflate")]

    @property
    def decodes(self) -> bool:
        return bool(self._layers)

    def feed(self, raw: bytes) -> Iterator[bytes]:
        if not self._layers:
            for start in range(0, len(raw), PIECE):
                yield raw[start : start + PIECE]
            return
        yield from self._through(0, raw)

    def flush(self) -> Iterator[bytes]:
        for level in range(len(self._layers)):
            for piece in self._layers[level].flush():
                yield from self._through(level + 1, piece)

    def _through(self, level: int, data: bytes) -> Iterator[bytes]:
        if level == len(self._layers):
            if data:
                yield data
            return
        for piece in self._layers[level].feed(data):
            yield from self._through(level + 1, piece)
