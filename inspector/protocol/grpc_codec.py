"""The gRPC binding, pure: which RPC a method is, its request message as ProtoJSON, and
the error model of a gRPC status.

No third codec: a gRPC message is turned into ProtoJSON (grpc_schema.to_json), which
is what the HTTP+JSON binding carries, so rest.codec() decodes answers and the REST
request helpers give the params back. Only the 0.3 request messages differ from their
REST bodies (ids travel as resource names, ``tasks/{id}``), and are spelled here.

Errors: a status code, a message, and (rich errors) a ``google.rpc.Status`` in the
``grpc-status-details-bin`` trailer whose ErrorInfo ``reason`` names the A2A error. The
mapping onto the JSON-RPC codes, both ways, is grpc_errors.py's (the mock sends with it,
the client reads with it); the proto packages are grpc_schema.py's.
"""

from __future__ import annotations

from collections.abc import Callable
from json.encoder import encode_basestring as _quote
from typing import Any, TypeAlias, cast

from . import grpc_errors, proto03, rest
from . import models as m
from .dialects import get_dialect
from .errors import ProtocolError
from .grpc_schema import PACKAGES, SERVICE
from .methods import Method

#: The A2AService method of each A2A method, per dialect.
RPC_NAMES: dict[str, dict[Method, str]] = {
    "1.0": {
        Method.SEND: "SendMessage",
        Method.STREAM: "SendStreamingMessage",
        Method.GET: "GetTask",
        Method.LIST: "ListTasks",
        Method.CANCEL: "CancelTask",
        Method.RESUBSCRIBE: "SubscribeToTask",
        Method.PUSH_SET: "CreateTaskPushNotificationConfig",
        Method.PUSH_GET: "GetTaskPushNotificationConfig",
        Method.PUSH_LIST: "ListTaskPushNotificationConfigs",
        Method.PUSH_DELETE: "DeleteTaskPushNotificationConfig",
        Method.EXTENDED_CARD: "GetExtendedAgentCard",
    },
    "0.3": {
        Method.SEND: "SendMessage",
        Method.STREAM: "SendStreamingMessage",
        Method.GET: "GetTask",
        Method.CANCEL: "CancelTask",
        Method.RESUBSCRIBE: "TaskSubscription",
        Method.PUSH_SET: "CreateTaskPushNotificationConfig",
        Method.PUSH_GET: "GetTaskPushNotificationConfig",
        Method.PUSH_LIST: "ListTaskPushNotificationConfig",
        Method.PUSH_DELETE: "DeleteTaskPushNotificationConfig",
        Method.EXTENDED_CARD: "GetAgentCard",
    },
}
#: The metadata key 1.0 carries its version in (gRPC keys are lower case).
VERSION_KEY = "a2a-version"


def supports(dialect: str) -> bool:
    return dialect in RPC_NAMES


def has(dialect: str, method: Method) -> bool:
    return method in RPC_NAMES.get(dialect, {})


def rpc_name(dialect: str, method: Method) -> str:
    names = RPC_NAMES.get(dialect)
    if names is None:
        raise ProtocolError(f"the {dialect} dialect has no gRPC binding")
    try:
        return names[method]
    except KeyError:
        raise ProtocolError(f"the {dialect} gRPC binding has no {method.value} RPC") from None


def rpc_path(dialect: str, method: Method) -> str:
    """``/lf.a2a.v1.A2AService/SendMessage``: the HTTP/2 path the call goes to."""
    return f"/{PACKAGES[dialect]}.{SERVICE}/{rpc_name(dialect, method)}"


#: The other way: each dialect's RPC names -> the A2A methods (the mock's dispatch).
METHODS: dict[str, dict[str, Method]] = {
    d: {rpc: method for method, rpc in names.items()} for d, names in RPC_NAMES.items()
}


def method_for(dialect: str, name: str) -> Method | None:
    """An RPC's name (or its path) -> the A2A method; None when it is not one."""
    return METHODS.get(dialect, {}).get(name.rsplit("/", 1)[-1])


def encode_request(dialect: str, method: Method, params: Any, tenant: str | None = None) -> dict[str, Any]:
    """The normalised params of ``method`` -> its request message as ProtoJSON."""
    rpc_name(dialect, method)
    wire = get_dialect("1.0").encode_params(method, params)
    wire = dict(wire) if isinstance(wire, dict) else {}
    if dialect == "1.0":
        if tenant:
            wire["tenant"] = tenant
        return wire
    if method in (Method.SEND, Method.STREAM):
        return cast(dict[str, Any], proto03.send_to03(wire))  # a dict in, a dict out
    if method is Method.GET:
        out: dict[str, Any] = {"name": f"tasks/{wire.get('id', '')}"}
        if wire.get("historyLength") is not None:
            out["historyLength"] = wire["historyLength"]
        return out
    if method in (Method.CANCEL, Method.RESUBSCRIBE):
        return {"name": f"tasks/{wire.get('id', '')}"}
    if method is Method.PUSH_SET:
        task = wire.get("taskId", "")
        return {"parent": f"tasks/{task}", "configId": wire.get("id", ""), "config": proto03.push_to03(wire)}
    if method in (Method.PUSH_GET, Method.PUSH_DELETE):
        return {"name": f"tasks/{wire.get('taskId', '')}/pushNotificationConfigs/{wire.get('id', '')}"}
    if method is Method.PUSH_LIST:
        out = {"parent": f"tasks/{wire.get('taskId', '')}"}
        for key in ("pageSize", "pageToken"):
            if wire.get(key) is not None:
                out[key] = wire[key]
        return out
    return {}


def _split_name(value: Any) -> list[str]:
    parts = str(value or "").split("/")
    return parts[1::2] if len(parts) >= 2 else []


def decode_request(dialect: str, method: Method, obj: Any) -> Any:
    """A request message as ProtoJSON -> the method's normalised params (ProtocolError
    when they do not decode). The reverse of encode_request: for replay and diff."""
    if not isinstance(obj, dict):
        raise ProtocolError("expected an object")
    v10 = get_dialect("1.0")
    if method is Method.EXTENDED_CARD:
        return m.ExtendedCardParams()
    if dialect == "1.0":
        return v10.decode_params(method, {k: v for k, v in obj.items() if k != "tenant"}, "$")
    ids = _split_name(obj.get("name") or obj.get("parent"))
    found = rest.RouteMatch(method, {"id": ids[0] if ids else "", **({"config": ids[1]} if len(ids) > 1 else {})}, None)
    query = [(k, str(obj[k])) for k in ("historyLength", "pageSize", "pageToken") if obj.get(k) is not None]
    return rest.decode_request(dialect, found, query, obj)


def as_jsonrpc(method: Method, params: Any) -> dict[str, Any]:
    """The 1.0 JSON-RPC request saying the same (the form recordings are compared in)."""
    return rest.as_jsonrpc(method, params)


class GrpcError(rest.RestError):
    """An error status from a gRPC agent, carried as the JSON-RPC code it maps to.
    ``grpc_code``/``status``: the status (5, NOT_FOUND); ``reason``: the ErrorInfo's."""

    def __init__(self, code: int, message: str, data: Any = None, *, grpc_code: int, reason: str | None = None) -> None:
        super().__init__(code, message, data, status=grpc_errors.NAMES.get(grpc_code, str(grpc_code)), reason=reason)
        self.grpc_code = grpc_code

    def describe(self) -> str:
        head = " ".join(x for x in (f"gRPC {self.grpc_code} {self.status}", self.reason) if x)
        return f"{head} (JSON-RPC {self.code})"


def decode_status(grpc_code: int, message: str, details: Any) -> GrpcError:
    """A non-OK status (its code, message, and the ProtoJSON of its google.rpc.Status
    details, a list, when the agent sent them) -> GrpcError with the mapped code."""
    reason = None
    for detail in details if isinstance(details, list) else ():
        if (
            isinstance(detail, dict)
            and str(detail.get("@type", "")).endswith("google.rpc.ErrorInfo")
            and isinstance(detail.get("reason"), str)
        ):
            reason = detail["reason"]
            break
    code = grpc_errors.rpc_code_for_status(grpc_code, reason, message if isinstance(message, str) else None)
    return GrpcError(code, message, details if isinstance(details, list) else None, grpc_code=grpc_code, reason=reason)


def status_details(dialect: str, data: bytes) -> list[Any]:
    """The details of a ``grpc-status-details-bin`` trailer (a google.rpc.Status), each
    as ProtoJSON with its ``@type``; a detail of a type the schema lacks is kept as its
    type URL and base64 value. ValueError when the bytes are not a Status."""
    import base64

    from . import grpc_schema

    status = grpc_schema.decode(dialect, "google.rpc.Status", data)
    out: list[Any] = []
    for detail in status.details:
        name = detail.type_url.rsplit("/", 1)[-1]
        try:
            message = grpc_schema.decode(dialect, name, detail.value)
        except (KeyError, ValueError):
            out.append({"@type": detail.type_url, "value": base64.b64encode(detail.value).decode("ascii")})
            continue
        out.append({"@type": detail.type_url, **grpc_schema.to_json(message)})
    return out


_UPDATE_KEYS = frozenset(("task_id", "context_id", "append", "last_chunk"))
_ARTIFACT_KEYS = frozenset(("artifact_id", "name", "description"))


def _text_parts(parts: Any) -> list[dict[str, Any]] | None:
    out = []
    for part in parts:
        set_ = part.ListFields()
        if len(set_) != 1 or set_[0][0].name != "text":
            return None
        out.append({"text": set_[0][1]})
    return out


def _artifact_update(update: Any) -> dict[str, Any] | None:
    out: dict[str, Any] = {}
    for field, value in update.ListFields():
        name = field.name
        if name in _UPDATE_KEYS:
            out[field.json_name] = value
            continue
        if name != "artifact":
            return None
        artifact: dict[str, Any] = {}
        for afield, avalue in value.ListFields():
            if afield.name in _ARTIFACT_KEYS:
                artifact[afield.json_name] = avalue
            elif afield.name == "parts":
                parts = _text_parts(avalue)
                if parts is None:
                    return None
                artifact[afield.json_name] = parts
            else:
                return None
        out[field.json_name] = artifact
    return {"artifactUpdate": out}


def stream_json(message: Any) -> dict[str, Any]:
    """A StreamResponse as ProtoJSON, exactly as grpc_schema.to_json gives it, sooner for
    the message nearly every event of a long stream is: an artifact update whose parts
    are text (json_format walks every field in Python; this reads the set ones only)."""
    fields = message.ListFields()
    if len(fields) == 1 and fields[0][0].name == "artifact_update":
        found = _artifact_update(fields[0][1])
        if found is not None:
            return found
    from . import grpc_schema

    return grpc_schema.to_json(message)


#: Every field of the 1.0 messages plain_chunk reads. A schema with another field (a
#: newer proto) turns the shortcut off rather than let it miss one.
_PLAIN_FIELDS = {
    "StreamResponse": {"task", "message", "status_update", "artifact_update"},
    "TaskArtifactUpdateEvent": {"task_id", "context_id", "artifact", "append", "last_chunk", "metadata"},
    "Artifact": {"artifact_id", "name", "description", "parts", "metadata", "extensions"},
    "Part": {"text", "raw", "url", "data", "metadata", "filename", "media_type"},
}


#: A plain chunk's facts, in TextChunk's order: task, context and artifact ids, name,
#: description, text, last chunk.
ChunkFacts: TypeAlias = tuple[str, str | None, str, str | None, str | None, str, bool | None]


def plain_chunk_reader(dialect: str) -> Callable[[Any], tuple[str, ChunkFacts] | None] | None:
    """The reader of a 1.0 StreamResponse that is the plain next chunk of a text artifact
    (what protocol/lean.py reads lean from the HTTP+JSON form), or None for a dialect
    without one. The reader gives (the ProtoJSON text of stream_json's dict, the
    TextChunk's facts: task, context, artifact ids, name, description, text, last
    chunk), or None for any other message. It reads the fields by name instead of
    walking ListFields and writes the text itself: stream_json and to_json cost a
    message more than the rest of the client. tests/test_grpc_codec.py holds it to
    stream_json and the lean shape test on every combination of the fields."""
    if dialect != "1.0":
        return None  # a 0.3 event is not read lean (see rest.Codec.lean)
    from . import grpc_schema

    for name, fields in _PLAIN_FIELDS.items():
        if {f.name for f in grpc_schema.message_class(dialect, name).DESCRIPTOR.fields} != fields:
            return None
    return _plain_chunk


def _plain_chunk(message: Any) -> tuple[str, ChunkFacts] | None:
    if message.WhichOneof("payload") != "artifact_update":
        return None
    update = message.artifact_update
    # ProtoJSON leaves out a scalar at its default: an empty id is no id, so no chunk.
    if not update.append or update.HasField("metadata") or not update.HasField("artifact"):
        return None
    artifact = update.artifact
    parts = artifact.parts
    if len(parts) != 1 or artifact.HasField("metadata") or len(artifact.extensions):
        return None
    part = parts[0]
    if part.WhichOneof("content") != "text" or part.HasField("metadata") or part.filename or part.media_type:
        return None
    task_id = update.task_id
    artifact_id = artifact.artifact_id
    if not task_id or not artifact_id:
        return None
    text = part.text
    context_id = update.context_id or None
    name = artifact.name or None
    description = artifact.description or None
    last = True if update.last_chunk else None
    # Written out directly, keys in field-number order as json_format writes them; the
    # strings escaped as pydantic_core.to_json (the general path) escapes them.
    json = (
        f'{{"artifactUpdate":{{"taskId":{_quote(task_id)}'
        + (f',"contextId":{_quote(context_id)}' if context_id is not None else "")
        + f',"artifact":{{"artifactId":{_quote(artifact_id)}'
        + (f',"name":{_quote(name)}' if name is not None else "")
        + (f',"description":{_quote(description)}' if description is not None else "")
        + f',"parts":[{{"text":{_quote(text)}}}]}},"append":true'
        + (',"lastChunk":true}}' if last else "}}")
    )
    return json, (task_id, context_id, artifact_id, name, description, text, last)


def garbled(body: bytes) -> bytes:
    """``body`` behind a field header claiming 1,000 bytes more than follow: no protobuf
    parser takes it, and the original bytes are still there to read in a capture (the
    mock's and the proxy's corrupt-chunk faults)."""
    size = len(body) + 1000
    head = bytearray(b"\x0a")
    while True:
        byte = size & 0x7F
        size >>= 7
        head.append(byte | 0x80 if size else byte)
        if not size:
            return bytes(head) + body
