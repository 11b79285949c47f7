"""From raw bytes to normalised objects: the one decoding path for live traffic and replay.

The live client and the recording reader both call these, so an event decodes the same
way whether it just arrived or was loaded from a file.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from pydantic_core import from_json

from ..safejson import TOO_DEEP, TooDeep, loads, may_be_too_deep, too_deep
from .dialects.base import Dialect
from .errors import JsonRpcError, ProtocolError
from .methods import Method


def parse_json(body: bytes | str) -> Any:
    """Bytes or text -> parsed JSON, or ProtocolError saying why not (one line)."""
    if isinstance(body, bytes):
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ProtocolError(f"body is not UTF-8 (byte 0x{body[exc.start]:02x} at offset {exc.start})") from None
    else:
        text = body
    try:
        # pydantic-core's parser is about twice as fast as json's, and this runs per SSE
        # event. It rejects a BOM and blank text, so those checks wait for a failure.
        value = from_json(text)
    except ValueError as exc:
        value = _parse_slow(text, exc)
    # from_json lets one more level of arrays through than MAX_JSON_DEPTH.
    if may_be_too_deep(text) and too_deep(value):
        raise ProtocolError(f"invalid JSON: {TOO_DEEP}")
    return value


def _parse_slow(text: str, exc: ValueError) -> Any:
    if "recursion limit" in str(exc):
        raise ProtocolError(f"invalid JSON: {TOO_DEEP}") from None
    if text.startswith("\ufeff"):
        try:
            return from_json(text[1:])
        except ValueError as again:
            if "recursion limit" in str(again):
                raise ProtocolError(f"invalid JSON: {TOO_DEEP}") from None
    if not text.strip():
        raise ProtocolError("empty body where JSON was expected")
    try:
        # json is more lenient (lone surrogates) and words its errors better; only failures get here.
        return loads(text)
    except json.JSONDecodeError as exc:
        snippet = text.lstrip()[:40]
        hint = " (looks like HTML)" if snippet[:1] == "<" else ""
        raise ProtocolError(f"invalid JSON{hint}: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except TooDeep:
        raise ProtocolError(f"invalid JSON: {TOO_DEEP}") from None


def decode_response_body(dialect: Dialect, method: Method, body: bytes | str) -> Any:
    """A whole JSON-RPC response body -> the method's result.

    Raises JsonRpcError (the agent answered with an error) or ProtocolError (malformed).
    """
    return dialect.decode_response(method, parse_json(body))


def decode_sse_data(dialect: Dialect, data: str) -> Any:
    """One SSE event's ``data`` -> a normalised stream event (or raises, as above)."""
    event = dialect.decode_sse_fast(data)
    if event is not None:
        return event
    return dialect.decode_stream_event(parse_json(data))


def capture(fn: Callable[..., Any], *args: Any) -> Any:
    """Run a decoder and return its result, or the JsonRpcError/ProtocolError it raised.

    Events keep what decoding produced, failures included, as their payload."""
    try:
        return fn(*args)
    except (JsonRpcError, ProtocolError) as exc:
        return exc
