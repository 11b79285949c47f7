"""An event's payload, derived from nothing but the event's recorded data.

The live client computes every payload through these functions, from the same dicts it
logs, so a replay that calls them on a loaded recording gets exactly what the live
session saw (decoding failures included). They live in the session layer, which owns
the recorded form of an event, so the client (which logs) and the reader (which loads)
share them without importing each other.
"""

from __future__ import annotations

import base64
import binascii
import functools
from typing import Any

from ..protocol import rest
from ..protocol.bindings import GRPC, REST
from ..protocol.card import decode_card
from ..protocol.dialects import Dialect, get_dialect
from ..protocol.errors import JsonRpcError, ProtocolError
from ..protocol.methods import Method
from ..protocol.wire import capture, decode_response_body, decode_sse_data, parse_json
from ..safejson import TOO_DEEP, may_be_too_deep, too_deep

#: REQUEST ``a2a_method`` values that are not A2A methods.
CARD = "card"
PROBE = "probe"

INCOMPLETE_EVENT = "stream ended in the middle of an event (no blank line after it), so it was not dispatched"
CUT_BODY = "body cut at the size limit: only its start was kept, not decoded"
CUT_EVENT = "event cut at the size limit: only its start was kept, not decoded"


def body_bytes(data: dict[str, Any]) -> bytes | None:
    """A REQUEST/RESPONSE body as the bytes on the wire."""
    body: str | None = data.get("body")
    if body is None:
        return None
    if data.get("body_encoding") == "base64":
        return base64.b64decode(body)
    return body.encode("utf-8")


def _body_for_decoding(data: dict[str, Any]) -> bytes | str:
    # Text stays text (no re-encode of a 10 MB body); base64 goes back to bytes so the
    # decoder can say which byte is not UTF-8.
    if data.get("body_encoding") == "base64":
        return base64.b64decode(data["body"])
    body: str = data["body"]
    return body


@functools.cache
def _grpc_codec() -> Any:
    """protocol.grpc_codec, imported when first needed (it loads protobuf, which a
    session without gRPC never needs): an import statement in the function cost each
    gRPC call's payloads about a microsecond every time."""
    from ..protocol import grpc_codec

    return grpc_codec


def response_payload(request: dict[str, Any], response: dict[str, Any]) -> Any:
    """What a RESPONSE decodes to: the method's result, the agent's JsonRpcError, a
    ProtocolError, the AgentCard of a card GET, or None (streamed, or a card GET that
    found nothing)."""
    if request.get("binding") == GRPC:
        return _grpc_response(request, response)
    if response.get("body") is None:
        return None
    if response.get("cut"):
        return ProtocolError(CUT_BODY)
    a2a_method = request.get("a2a_method")
    body = _body_for_decoding(response)
    if a2a_method == CARD:
        status = response.get("status") or 0
        if not 200 <= status < 300:
            return None
        return capture(lambda: decode_card(parse_json(body)))
    name = request.get("dialect")
    if not name:
        return None
    dialect = get_dialect(name)
    if a2a_method == PROBE:
        method = dialect.method_for(request.get("rpc_method") or "")
    else:
        try:
            method = Method(a2a_method)
        except ValueError:
            method = None
    if method is None:
        return capture(parse_json, body)
    if request.get("binding") == REST:
        return capture(_rest_response, rest.codec(dialect), method, body, response.get("status"))
    return capture(decode_response_body, dialect, method, body)


def codec_for(dialect: Dialect | str | None, binding: str | None) -> Any:
    """The codec an exchange's answers decode with: the dialect's own for JSON-RPC, its
    REST codec for HTTP+JSON. None when there is no dialect."""
    if not dialect:
        return None
    d = get_dialect(dialect) if isinstance(dialect, str) else dialect
    if binding in (REST, GRPC):
        # A gRPC message is read as its ProtoJSON: what the HTTP+JSON binding carries.
        try:
            return rest.codec(d)
        except ProtocolError:
            return None
    return d


def _rest_response(codec: Any, method: Method, body: bytes | str, status: Any) -> Any:
    if not body and isinstance(status, int) and 200 <= status < 300 and method is Method.PUSH_DELETE:
        return None  # google.protobuf.Empty may come as no body at all
    obj = parse_json(body)
    err = rest.decode_error(obj, status if isinstance(status, int) else None)
    if err is None and codec.name == "0.3" and isinstance(status, int):
        err = rest.decode_bare_error(obj, status)
    if err is not None:
        raise err
    return codec.decode_response(method, obj)


def _grpc_response(request: dict[str, Any], response: dict[str, Any]) -> Any:
    """A gRPC RESPONSE: its status (a GrpcError when it is not OK), else its message's
    ProtoJSON read by the REST codec. None for a stream's head."""
    grpc_codec = _grpc_codec()
    code = response.get("grpc_code")
    if isinstance(code, int) and code != 0:
        message = response.get("grpc_message")
        return grpc_codec.decode_status(code, message if isinstance(message, str) else "", response.get("grpc_details"))
    body = response.get("body")
    if not isinstance(body, str) or response.get("streaming"):
        return None
    if response.get("cut"):
        return ProtocolError(CUT_BODY)
    try:
        method = Method(request.get("a2a_method"))
        codec = rest.codec(str(request.get("dialect")))
    except (ValueError, ProtocolError):
        return None
    if method is Method.PUSH_DELETE:
        return None  # google.protobuf.Empty
    if response.get("body_encoding") == "base64":
        # An answer whose bytes did not decode is logged as them: the live log's payload
        # says why they do not (reading the base64 text as JSON said something else).
        return _unparsed_answer(codec, method, request, body)
    return capture(lambda: codec.decode_response(method, parse_json(body)))


def _unparsed_answer(codec: Any, method: Method, request: dict[str, Any], body: str) -> Any:
    from ..protocol import grpc_schema

    rpc = grpc_schema.rpcs(codec.name).get(str(request.get("rpc_method")))
    if rpc is None:
        return None
    try:
        raw = base64.b64decode(body, validate=True)
        message = grpc_schema.decode(codec.name, rpc.response, raw)
    except (ValueError, binascii.Error) as exc:
        return ProtocolError(str(exc))
    # (Bytes that decode: a recording edited by hand. Read as the live log reads them.)
    return capture(lambda: codec.decode_response(method, grpc_schema.to_json(message)))


def grpc_answer_payload(dialect: str, method: Method, obj: Any, text: str) -> Any:
    """What response_payload gives for an OK unary gRPC answer whose body is ``text``,
    the ProtoJSON written from ``obj``: read from ``obj`` itself (the proxy's log has it
    at hand, and parsing the text it just wrote cost a call microseconds)."""
    if method is Method.PUSH_DELETE:
        return None  # google.protobuf.Empty
    try:
        codec = rest.codec(dialect)
    except ProtocolError:
        return None
    return capture(lambda: codec.decode_response(method, _parsed(obj, text)))


def grpc_request_payload(dialect: str, method: Method, obj: Any, text: str) -> Any:
    """What request_payload gives for a gRPC REQUEST whose body is ``text``, the
    ProtoJSON written from ``obj``: read from ``obj`` itself (as grpc_answer_payload)."""
    try:
        return _grpc_codec().decode_request(dialect, method, _parsed(obj, text))
    except (ValueError, JsonRpcError):
        return None


def _parsed(obj: Any, text: str) -> Any:
    """parse_json(text) for the JSON text written from ``obj``: ``obj`` (a parse of it
    is equal), or its ProtocolError for nesting past the bound."""
    if may_be_too_deep(text) and too_deep(obj):
        raise ProtocolError(f"invalid JSON: {TOO_DEEP}")
    return obj


def message_payload(dialect: Dialect | str | None, data: dict[str, Any]) -> Any:
    """What one message of a gRPC stream (a MESSAGE event, its ProtoJSON in ``json``)
    decodes to; ``dialect`` is the exchange's, by name or codec (codec_for(..., GRPC))."""
    if data.get("cut"):
        return ProtocolError(CUT_EVENT)
    text = data.get("json")
    if not isinstance(text, str) or not dialect:
        return None
    codec = codec_for(dialect, GRPC) if isinstance(dialect, str) else dialect
    if codec is None:
        return None
    # The codec's shortcut for the usual artifact chunk first, as the live client reads it.
    found = codec.decode_sse_fast(text)
    if found is not None:
        return found
    return capture(lambda: codec.decode_stream_event(parse_json(text)))


class MessageCodec:
    """Derives a logged gRPC stream message's payload again (an Event's ``codec``): the
    client's transport and the proxy's relay log messages lazily through it."""

    __slots__ = ("codec",)

    def __init__(self, codec: Any) -> None:
        self.codec = codec

    def __call__(self, event: Any) -> Any:
        return message_payload(self.codec, event.data)


class SSECodec:
    """Derives a relayed SSE event's payload again (an Event's ``codec``): the proxy
    logs each event with its own fields (``added_ms``), so not in the compact form, and
    holds no decoded payload for it past the listeners (a payload costs kilobytes)."""

    __slots__ = ("codec",)

    def __init__(self, codec: Any) -> None:
        self.codec = codec

    def __call__(self, event: Any) -> Any:
        return sse_payload(self.codec, event.data)


def sse_payload(dialect: Dialect | str | None, data: dict[str, Any]) -> Any:
    """What one SSE event decodes to: a stream event, a JsonRpcError, a ProtocolError,
    or None for a block without data (``id:`` alone, say), which is not decoded.
    ``dialect`` is the exchange's (its REQUEST's ``dialect``), by name or codec."""
    if data.get("cut"):
        return ProtocolError(CUT_EVENT)
    if data.get("raw_encoding") == "base64":
        return _not_utf8(base64.b64decode(data["raw"]))
    if data.get("incomplete"):
        return ProtocolError(INCOMPLETE_EVENT)
    text = data.get("data")
    if text is None or not dialect:
        return None
    return capture(decode_sse_data, get_dialect(dialect) if isinstance(dialect, str) else dialect, text)


def request_payload(data: dict[str, Any]) -> Any:
    """What a logged REQUEST decodes to (its params), or None when it does not (a card
    GET, a probe, a body the user hand-edited into something invalid)."""
    name = data.get("dialect")
    if not isinstance(name, str) or not name:
        return None
    try:
        dialect = get_dialect(name)
    except ValueError:
        return None
    body = data.get("body")
    if data.get("body_encoding") == "base64" and isinstance(body, str):
        try:
            body = base64.b64decode(body, validate=True)
        except ValueError:
            return None
    try:
        if data.get("binding") == GRPC:
            method = Method(data.get("a2a_method"))
            return _grpc_codec().decode_request(dialect.name, method, parse_json(body) if body else {})
        if data.get("binding") == REST:
            url = data.get("url")
            if not isinstance(url, str):
                return None
            found = rest.match_route(dialect.name, str(data.get("method") or ""), _rest_path(url, data))
            if found is None or isinstance(found, str):
                return None
            obj = parse_json(body) if body else None
            return rest.decode_request(dialect.name, found, _query(url), obj)
        if not isinstance(body, (str, bytes)):
            return None
        return dialect.decode_request(parse_json(body)).params
    except (ValueError, JsonRpcError):  # ProtocolError, or a method name this version lacks
        return None


def _rest_path(url: str, data: dict[str, Any]) -> str:
    """The route part of a REST request's URL: what follows the interface's URL, which
    the REQUEST keeps as ``rest_base`` (else the path from the route's first segment)."""
    from urllib.parse import urlsplit

    path = urlsplit(url).path
    base = data.get("rest_base")
    if isinstance(base, str):
        base_path = urlsplit(base).path.rstrip("/")
        if path.startswith(base_path):
            return path[len(base_path) :] or "/"
    for mark in ("/v1/", "/message:", "/tasks", "/extendedAgentCard"):
        cut = path.find(mark)
        if cut >= 0:
            return path[cut:]
    return path


def _query(url: str) -> list[tuple[str, str]]:
    from urllib.parse import parse_qsl, urlsplit

    return parse_qsl(urlsplit(url).query, keep_blank_values=True)


def push_payload(dialect: Dialect | str | None, data: dict[str, Any]) -> Any:
    """What a PUSH event's body decodes to (a Task, a stream event, a ProtocolError),
    or None when there is no body or no dialect (known to this version) to read it in.
    ``dialect`` is the one the agent was last spoken to in."""
    body = recorded_body(data)
    if body is None or not dialect:
        return None
    if isinstance(dialect, str):
        try:
            dialect = get_dialect(dialect)
        except ValueError:
            return None
    return capture(decode_push, dialect, body)


def recorded_body(data: dict[str, Any]) -> bytes | str | None:
    """A recorded body as the decoder takes it: text as text, base64 as bytes; None when
    there is none or it is not valid base64 (a hand-edited recording)."""
    body = data.get("body")
    if not isinstance(body, str):
        return None
    if data.get("body_encoding") == "base64":
        try:
            return base64.b64decode(body, validate=True)
        except (binascii.Error, ValueError):
            return None
    return body


def decode_push(dialect: Dialect, body: bytes | str) -> Any:
    return dialect.decode_event(parse_json(body), "$")


def ws_payload(data: dict[str, Any]) -> Any:
    """What one WebSocket frame of the hub decodes to: a ``protocol.hub.Frame`` for a
    text frame (its item a ProtocolError when it is not a JSON-RPC object), a Frame
    whose item says why for a binary or cut frame, None for an opening or a closing."""
    from ..protocol import hub

    op = data.get("op")
    if op == "text":
        if data.get("cut"):
            return hub.Frame("invalid", item=ProtocolError(CUT_FRAME))
        text = data.get("text")
        return hub.decode_frame(text if isinstance(text, str) else None)
    if op == "binary":
        return hub.Frame("invalid", item=ProtocolError(BINARY_FRAME))
    return None


CUT_FRAME = "frame cut at the size limit: only its start was kept, not decoded"
BINARY_FRAME = "a binary frame: the hub's JSON-RPC travels in text frames"


def _not_utf8(raw: bytes) -> ProtocolError:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return ProtocolError(f"event is not UTF-8 (byte 0x{raw[exc.start]:02x} at offset {exc.start})")
    return ProtocolError("event is not UTF-8")
