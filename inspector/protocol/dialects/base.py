"""What every dialect codec provides, and the JSON-RPC envelope handling they share.

A codec works on parsed JSON (dicts, lists, str...) in both directions and for both
sides of the wire:

    client:  encode_request  ->  (wire)  ->  decode_response / decode_stream_event
    server:  decode_request  ->  (wire)  ->  encode_response / encode_stream_event / encode_error

Subclasses supply the per-object maps (``encode_params``/``decode_params``,
``encode_result``/``decode_result``, ``encode_event``/``decode_event``, ``encode_card``)
and the method-name table. Everything raises :class:`ProtocolError` (with a JSON path)
on malformed input, or :class:`JsonRpcError` for a well-formed error.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar

from .. import models as m
from ..errors import JSONRPC_CODES, JsonRpcError, ProtocolError
from ..methods import Method
from ..validation import type_name

#: The A2A error codes every dialect defines (0.1 the draft's five; 0.2 on add -32006
#: and later codes): each dialect's ``error_codes`` starts from these.
TASK_ERRORS: dict[int, str] = {
    -32001: "Task not found",
    -32002: "Task cannot be canceled",
    -32003: "Push notifications not supported",
    -32004: "Unsupported operation",
    -32005: "Incompatible content types",
}


@dataclass(frozen=True, slots=True)
class RpcRequest:
    """A decoded JSON-RPC request (server side)."""

    method: Method
    params: Any
    id: m.JsonRpcId
    wire_method: str
    #: False for a JSON-RPC notification (no "id" member): it gets no reply body.
    has_id: bool = True


class Dialect(ABC):
    #: "0.1", "0.3" or "1.0": what users type after --dialect.
    name: ClassVar[str]
    #: For people: "0.1 draft", "0.2/0.3", "1.0".
    label: ClassVar[str]
    #: Well-known card paths, preferred first.
    card_paths: ClassVar[tuple[str, ...]]
    #: Normalised method -> wire method name, for the methods this dialect has.
    methods: ClassVar[dict[Method, str]]
    #: Further wire spellings a server should accept (e.g. Society AI's task/resubscribe).
    method_aliases: ClassVar[dict[str, Method]] = {}
    #: A2A error codes of this dialect (JSON-RPC's own codes are added by error_name()).
    error_codes: ClassVar[dict[int, str]]
    #: How protocol/lean.py reads this dialect's plain artifact chunks (None: it does not).
    lean: ClassVar[str | None] = None

    # ------------------------------------------------------------------ per dialect

    def request_headers(self) -> dict[str, str]:
        """HTTP headers a client sends with every JSON-RPC call in this dialect."""
        return {}

    @abstractmethod
    def encode_params(self, method: Method, params: Any) -> Any: ...

    @abstractmethod
    def decode_params(self, method: Method, raw: Any, path: str = "$.params") -> Any: ...

    @abstractmethod
    def encode_result(self, method: Method, result: Any) -> Any: ...

    @abstractmethod
    def decode_result(self, method: Method, raw: Any, path: str = "$.result") -> Any: ...

    @abstractmethod
    def encode_event(self, event: m.StreamEvent) -> Any: ...

    @abstractmethod
    def decode_event(self, raw: Any, path: str = "$.result") -> m.StreamEvent: ...

    @abstractmethod
    def encode_card(self, card: m.AgentCard) -> dict[str, Any]: ...

    # ------------------------------------------------------------------ shared

    def wire_method(self, method: Method) -> str:
        try:
            return self.methods[method]
        except KeyError:
            raise ProtocolError(f"the {self.label} dialect has no {method.value} method") from None

    def has(self, method: Method) -> bool:
        return method in self.methods

    def method_for(self, wire: str) -> Method | None:
        for method, name in self.methods.items():
            if name == wire:
                return method
        return self.method_aliases.get(wire)

    def error_name(self, code: int) -> str | None:
        return self.error_codes.get(code) or JSONRPC_CODES.get(code)

    def decode_sent(self, method: Method, raw: Any, path: str, expected: str) -> Any:
        """What send, stream and resubscribe answer: a stream event; a send's must be
        one of the final answers (a Task or a Message), ``expected`` saying which."""
        event = self.decode_event(raw, path)
        if method is Method.SEND and not isinstance(event, (m.Task, m.Message)):
            raise ProtocolError(f"{self.wire_method(method)} answered with a stream event, not {expected}", path)
        return event

    # client side ---------------------------------------------------------------

    def with_client_ids(self, method: Method, params: Any) -> Any:
        """``params`` with the ids this dialect has the client pick filled in, so that
        what the client logs is what it sends. Most dialects leave ids to the agent."""
        return params

    def encode_request(self, method: Method, params: Any, id: m.JsonRpcId) -> dict[str, Any]:
        out: dict[str, Any] = {"jsonrpc": "2.0", "id": id, "method": self.wire_method(method)}
        encoded = self.encode_params(method, params)
        if encoded is not None:
            out["params"] = encoded
        return out

    def decode_response(self, method: Method, obj: Any) -> Any:
        """A JSON-RPC response body -> the method's normalised result.

        Raises JsonRpcError for an error response, ProtocolError for anything malformed.
        """
        body = self._envelope(obj)
        return self.decode_result(method, body["result"], "$.result")

    def decode_sse_fast(self, data: str) -> m.StreamEvent | None:
        """The common stream event decoded straight from an SSE event's JSON text, or
        None: take the general path (``decode_stream_event(parse_json(data))``).

        A dialect may shortcut the shape a long stream is made of, but only where the
        result is identical to the general path's; anything unusual, and every error,
        goes the general way (see _fast.py)."""
        return None

    def decode_stream_event(self, obj: Any) -> m.StreamEvent:
        """One SSE ``data:`` payload (a JSON-RPC response) -> a normalised stream event.

        Some 0.1-era agents (Orloj, seed 003) send the event object itself, with no
        JSON-RPC envelope; an object with none of the envelope's members is read so."""
        if isinstance(obj, dict) and not ({"jsonrpc", "result", "error"} & obj.keys()):
            return self.decode_event(obj, "$")
        body = self._envelope(obj)
        return self.decode_event(body["result"], "$.result")

    def _envelope(self, obj: Any) -> dict[str, Any]:
        if not isinstance(obj, dict):
            raise ProtocolError(f"expected a JSON-RPC response object, got {type_name(obj)}")
        if "error" in obj and obj["error"] is not None:
            raise decode_error(obj["error"])
        if "result" not in obj:
            raise ProtocolError("JSON-RPC response has neither result nor error")
        return obj

    # server side ---------------------------------------------------------------

    def decode_request(self, obj: Any) -> RpcRequest:
        """A parsed JSON-RPC request -> RpcRequest, or JsonRpcError with the code to reply."""
        check_envelope(obj)
        has_id = "id" in obj
        rid = obj.get("id")
        wire = obj["method"]
        method = self.method_for(wire)
        if method is None:
            raise JsonRpcError(-32601, "Method not found", {"method": wire})
        try:
            params = self.decode_params(method, obj.get("params"), "$.params")
        except ProtocolError as exc:
            raise JsonRpcError(-32602, "Invalid params", {"path": exc.path, "reason": exc.reason}) from None
        return RpcRequest(method, params, rid, wire, has_id)

    def encode_response(self, method: Method, result: Any, id: m.JsonRpcId) -> dict[str, Any]:
        return {"jsonrpc": "2.0", "id": id, "result": self.encode_result(method, result)}

    def encode_stream_event(self, event: m.StreamEvent, id: m.JsonRpcId) -> dict[str, Any]:
        return {"jsonrpc": "2.0", "id": id, "result": self.encode_event(event)}

    def encode_error(self, error: JsonRpcError, id: m.JsonRpcId) -> dict[str, Any]:
        return {"jsonrpc": "2.0", "id": id, "error": error.to_wire()}

    def __repr__(self) -> str:
        return f"<dialect {self.name}>"


def check_envelope(obj: Any) -> None:
    """Raise the -32600 Invalid Request a JSON-RPC 2.0 server answers when ``obj`` is no
    request object: not an object, ``jsonrpc`` not "2.0", an ``id`` that is not a string,
    an integer or null, a ``method`` that is not a string, ``params`` neither an object
    nor an array (null is read as absent, as a2a-sdk reads it). Checked before anything
    in the params: a request that is not one has no params to judge."""
    if not isinstance(obj, dict):
        raise JsonRpcError(-32600, "Invalid Request", {"reason": f"expected an object, got {type_name(obj)}"})
    if obj.get("jsonrpc") != "2.0":
        raise JsonRpcError(-32600, "Invalid Request", {"path": "$.jsonrpc", "reason": 'must be "2.0"'})
    rid = obj.get("id")
    if isinstance(rid, bool) or (rid is not None and not isinstance(rid, (str, int))):
        raise JsonRpcError(-32600, "Invalid Request", {"path": "$.id", "reason": "must be a string, a number or null"})
    if not isinstance(obj.get("method"), str):
        raise JsonRpcError(-32600, "Invalid Request", {"path": "$.method", "reason": "must be a string"})
    params = obj.get("params")
    if params is not None and not isinstance(params, (dict, list)):
        raise JsonRpcError(
            -32600,
            "Invalid Request",
            {"path": "$.params", "reason": f"must be an object or an array, got {type_name(params)}"},
        )


def decode_error(raw: Any) -> JsonRpcError:
    """A JSON-RPC ``error`` member -> JsonRpcError (ProtocolError if it is not one)."""
    if not isinstance(raw, dict):
        raise ProtocolError(f"expected an error object, got {type_name(raw)}", "$.error")
    code = raw.get("code")
    if not isinstance(code, int) or isinstance(code, bool):
        raise ProtocolError("error code must be an integer", "$.error.code")
    message = raw.get("message", "")
    if not isinstance(message, str):
        raise ProtocolError("error message must be a string", "$.error.message")
    return JsonRpcError(code, message, raw.get("data"))
