"""Bytes on the wire: JSON bodies, JSON-RPC envelopes and SSE frames, as a2a-sdk frames them.

An SSE event is ``data: <json>`` closed by CRLF CRLF (sse-starlette's default), comments
are ``: text``. The envelope around a result is spliced from pre-encoded pieces, so a
stream encodes each event's result once and never re-serialises the envelope.

A stream is written as real servers write it: each event in its own write (sse-starlette
sends one ASGI message per event), so a client meets events split across reads and
reads holding several events. A scenario's ``framing:`` asks for other framings a client
must also read (see :class:`Framer`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

_dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode

CRLF2 = b"\r\n\r\n"

JSON_TYPE = b"application/json"
SSE_HEADERS: list[tuple[bytes, bytes]] = [
    (b"content-type", b"text/event-stream; charset=utf-8"),
    (b"cache-control", b"no-store"),
    (b"connection", b"keep-alive"),
    (b"x-accel-buffering", b"no"),
]


def dumps(value: Any) -> bytes:
    return _dumps(value).encode("utf-8")


def id_json(rid: Any) -> bytes:
    return dumps(rid)


def result_envelope(rid: bytes, result: bytes) -> bytes:
    return b'{"jsonrpc":"2.0","id":' + rid + b',"result":' + result + b"}"


def sse_data(payload: bytes, event: bytes | None = None) -> bytes:
    if event is not None:
        return b"event: " + event + b"\r\ndata: " + payload + CRLF2
    return b"data: " + payload + CRLF2


def sse_comment(text: str) -> bytes:
    return b": " + text.replace("\r", " ").replace("\n", " ").encode("utf-8") + CRLF2


class Framer:
    """How a stream's events become writes: the line ending, comment lines between an
    event's fields, and how the bytes are cut into writes.

    ``writes``: ``per-event`` (default) sends each event (or comment) as its own write;
    ``buffered`` sends whatever is ready in one write, several events at a time.
    ``split``: cut every write further into pieces of this many bytes, so boundaries
    fall anywhere, even inside a CRLF or a multi-byte character.
    ``line_endings``: ``crlf`` (default, sse-starlette's), ``lf`` or ``cr``; the SSE
    format allows all three. ``comments``: put a comment line before each field of an
    event and before the blank line that ends it."""

    __slots__ = ("buffered", "split", "eol", "comments", "plain")

    ENDINGS = {"crlf": b"\r\n", "lf": b"\n", "cr": b"\r"}

    def __init__(
        self, writes: str = "per-event", split: int | None = None, line_endings: str = "crlf", comments: bool = False
    ) -> None:
        self.buffered = writes == "buffered"
        self.split = split
        self.eol = self.ENDINGS[line_endings]
        self.comments = comments
        #: The default framing: sse_data/sse_comment as they are, no further cutting.
        self.plain = self.eol == b"\r\n" and not comments

    def data(self, payload: bytes, event: bytes | None = None) -> bytes:
        if self.plain:
            return sse_data(payload, event)
        eol = self.eol
        note = b": a2a-mock framing" + eol if self.comments else b""
        head = note + b"event: " + event + eol if event is not None else b""
        return head + note + b"data: " + payload + eol + note + eol

    def comment(self, text: str) -> bytes:
        if self.plain:
            return sse_comment(text)
        return b": " + text.replace("\r", " ").replace("\n", " ").encode("utf-8") + self.eol + self.eol

    def writes(self, frames: list[bytes]) -> Iterator[bytes]:
        """The writes that carry ``frames`` (each an event or a comment), in order."""
        if self.buffered:
            joined = b"".join(frames)
            yield from self._cut(joined) if self.split else (joined,)
            return
        for frame in frames:
            yield from self._cut(frame) if self.split else (frame,)

    def _cut(self, data: bytes) -> Iterator[bytes]:
        size = self.split or len(data) or 1
        for start in range(0, len(data), size):
            yield data[start : start + size]


DEFAULT_FRAMER = Framer()
