"""Bytes on the wire: JSON bodies, JSON-RPC envelopes and SSE frames, as a2a-sdk frames them.

An SSE event is ``data: <json>`` closed by CRLF CRLF (sse-starlette's default), comments
are ``: text``. The envelope around a result is spliced from pre-encoded pieces, so a
stream encodes each event's result once and never re-serialises the envelope.
"""

from __future__ import annotations

import json
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
