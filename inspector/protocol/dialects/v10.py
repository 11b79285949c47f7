"""The 1.0 dialect: ProtoJSON of the ``lf.a2a.v1`` proto (a2a-v1.0.1.proto).

Differences from the normalised (0.3) spelling, handled here as key maps:
  - enums by name: ``ROLE_USER``, ``TASK_STATE_WORKING`` (ints accepted on decode);
  - parts have no tag: the content key says what they are (text / raw / url / data),
    with ``filename`` and ``mediaType`` beside it instead of a nested ``file``;
  - results are wrapped: ``{"task": ...}``, ``{"statusUpdate": ...}``; no ``final``;
  - push configs are flat (``taskId``, ``url``, ... in one object), and the config id
    of get/delete is ``id`` with the task in ``taskId``;
  - ``configuration.returnImmediately`` is the negation of 0.3's ``blocking``.

1.0 objects have no artifact ``index``/``append``/``lastChunk`` or ``final`` and the
schema forbids unknown keys, so the encoder drops those model fields (the artifact's
chunk flags move onto the update event when it has none of its own).
"""

from __future__ import annotations

from typing import Any, ClassVar

from .. import models as m
from ..errors import ProtocolError
from ..methods import PARAMS, Method
from ..shape import Path, arr, boolean, check, fail, new_id, obj, shape_task, string
from ..validation import validate
from ._fast import ValidationError, lazy_envelope_decoder
from .base import TASK_ERRORS, Dialect
from .v03 import as_event, as_model

_STATE_NAMES = {
    m.TaskState.UNKNOWN: "TASK_STATE_UNSPECIFIED",
    m.TaskState.SUBMITTED: "TASK_STATE_SUBMITTED",
    m.TaskState.WORKING: "TASK_STATE_WORKING",
    m.TaskState.COMPLETED: "TASK_STATE_COMPLETED",
    m.TaskState.FAILED: "TASK_STATE_FAILED",
    m.TaskState.CANCELED: "TASK_STATE_CANCELED",
    m.TaskState.INPUT_REQUIRED: "TASK_STATE_INPUT_REQUIRED",
    m.TaskState.REJECTED: "TASK_STATE_REJECTED",
    m.TaskState.AUTH_REQUIRED: "TASK_STATE_AUTH_REQUIRED",
}
# Proto numbering: UNSPECIFIED 0, SUBMITTED 1, WORKING 2, COMPLETED 3, FAILED 4,
# CANCELED 5, INPUT_REQUIRED 6, REJECTED 7, AUTH_REQUIRED 8.
_STATE_NUMBERS = dict(enumerate(_STATE_NAMES))
_STATE_OUT = {state.value: name for state, name in _STATE_NAMES.items()}
_STATE_IN: dict[Any, str] = {
    **{name: state.value for state, name in _STATE_NAMES.items()},
    **{n: state.value for n, state in _STATE_NUMBERS.items()},
    # Lenient: a 0.3 spelling inside a 1.0 body is unambiguous.
    **{state.value: state.value for state in m.TaskState},
}
_ROLE_OUT = {"user": "ROLE_USER", "agent": "ROLE_AGENT"}
_ROLE_IN: dict[Any, str] = {
    "ROLE_USER": "user",
    "ROLE_AGENT": "agent",
    1: "user",
    2: "agent",
    "user": "user",
    "agent": "agent",
}

_STREAM_KEYS = ("task", "message", "statusUpdate", "artifactUpdate")

# {"result": {"artifactUpdate": ...}} with text parts only: part_in makes any part with a
# "text" key a TextPart, so for those the tag it adds is the only difference.
_fast_artifact = lazy_envelope_decoder("artifactUpdate", "text")
_TextPart = m.TextPart


class V10Dialect(Dialect):
    name = "1.0"
    label = "1.0"
    lean = "1.0"
    card_paths = ("/.well-known/agent-card.json",)
    methods: ClassVar[dict[Method, str]] = {
        Method.SEND: "SendMessage",
        Method.STREAM: "SendStreamingMessage",
        Method.GET: "GetTask",
        Method.CANCEL: "CancelTask",
        Method.RESUBSCRIBE: "SubscribeToTask",
        Method.PUSH_SET: "CreateTaskPushNotificationConfig",
        Method.PUSH_GET: "GetTaskPushNotificationConfig",
        Method.PUSH_LIST: "ListTaskPushNotificationConfigs",
        Method.PUSH_DELETE: "DeleteTaskPushNotificationConfig",
        Method.LIST: "ListTasks",
        Method.EXTENDED_CARD: "GetExtendedAgentCard",
    }
    error_codes: ClassVar[dict[int, str]] = {
        **TASK_ERRORS,
        -32006: "Invalid agent response",
        -32007: "Extended agent card not configured",
        -32008: "Extension support required",
        -32009: "Version not supported",
    }

    def request_headers(self) -> dict[str, str]:
        return {"A2A-Version": "1.0"}

    # ------------------------------------------------------------------ params

    def encode_params(self, method: Method, params: Any) -> Any:
        self.wire_method(method)
        if params is None and method is Method.EXTENDED_CARD:
            return None
        d = as_model(PARAMS[method], params).wire()
        if method in (Method.SEND, Method.STREAM):
            d["message"] = message_out(d["message"])
            if "configuration" in d:
                d["configuration"] = _config_out(d["configuration"])
            return d
        if method is Method.PUSH_SET:
            return push_out(d)
        if method is Method.CANCEL:
            return d
        # The other 1.0 requests have no metadata field (and forbid unknown ones).
        d.pop("metadata", None)
        if method in (Method.PUSH_GET, Method.PUSH_LIST, Method.PUSH_DELETE):
            if method is Method.PUSH_DELETE and "pushNotificationConfigId" not in d:
                raise ProtocolError("deleting a push notification config needs its id (push_notification_config_id)")
            out = {"taskId": d.pop("id")}
            if "pushNotificationConfigId" in d:
                out["id"] = d.pop("pushNotificationConfigId")
            out.update(d)
            return out
        if method is Method.LIST and "status" in d:
            d["status"] = _STATE_OUT[d["status"]]
        if method is Method.EXTENDED_CARD:
            return d or None
        return d

    def decode_params(self, method: Method, raw: Any, path: str = "$.params") -> Any:
        self.wire_method(method)
        if raw is None and method is Method.EXTENDED_CARD:
            return m.ExtendedCardParams()
        data = obj(raw, path)
        if method in (Method.SEND, Method.STREAM):
            out = dict(data)
            if "message" in data:
                out["message"] = message_in(data["message"], f"{path}.message")
            if data.get("configuration") is not None:
                out["configuration"] = _config_in(data["configuration"], f"{path}.configuration")
            return validate(m.SendParams, out, path)
        if method is Method.PUSH_SET:
            return push_in(data, path)
        if method in (Method.PUSH_GET, Method.PUSH_LIST, Method.PUSH_DELETE):
            if "taskId" not in data:
                raise ProtocolError("Field required", f"{path}.taskId")
            # Required for get as well by the proto; a 0.3-minded client leaves it out
            # for "the task's config", which is still clear enough to answer.
            if method is Method.PUSH_DELETE and "id" not in data:
                raise ProtocolError("Field required", f"{path}.id")
            out = {k: v for k, v in data.items() if k not in ("taskId", "id")}
            out["id"] = string(data["taskId"], f"{path}.taskId")
            if "id" in data:
                out["pushNotificationConfigId"] = string(data["id"], f"{path}.id")
            return validate(m.PushConfigParams, out, path)
        if method is Method.LIST and "status" in data:
            data = {**data, "status": state_in(data["status"], f"{path}.status")}
        return validate(PARAMS[method], data, path)

    # ------------------------------------------------------------------ results

    def encode_result(self, method: Method, result: Any) -> Any:
        self.wire_method(method)
        if method in (Method.STREAM, Method.RESUBSCRIBE):
            return self.encode_event(result)
        if method is Method.SEND:
            result = as_event(result)
            if isinstance(result, m.Message):
                return {"message": message_out(result.wire())}
            return {"task": task_out(as_model(m.Task, result).wire())}
        if method in (Method.GET, Method.CANCEL):
            return task_out(as_model(m.Task, result).wire())
        if method in (Method.PUSH_SET, Method.PUSH_GET):
            return push_out(as_model(m.TaskPushNotificationConfig, result).wire())
        if method is Method.PUSH_LIST:
            return {"configs": [push_out(as_model(m.TaskPushNotificationConfig, c).wire()) for c in result or ()]}
        if method is Method.PUSH_DELETE:
            return {}  # google.protobuf.Empty
        if method is Method.LIST:
            out = as_model(m.ListTasksResult, result).wire()
            out["tasks"] = [task_out(t) for t in out["tasks"]]
            return out
        return self.encode_card(result)

    def decode_result(self, method: Method, raw: Any, path: str = "$.result") -> Any:
        self.wire_method(method)
        if method in (Method.STREAM, Method.RESUBSCRIBE):
            return self.decode_event(raw, path)
        if method is Method.SEND:
            data = obj(raw, path)
            if "task" in data:
                return decode_task(data["task"], f"{path}.task")
            if "message" in data:
                return validate(m.Message, message_in(data["message"], f"{path}.message"), f"{path}.message")
            raise ProtocolError("expected a task or a message member", path)
        if method in (Method.GET, Method.CANCEL):
            return decode_task(raw, path)
        if method in (Method.PUSH_SET, Method.PUSH_GET):
            return push_in(obj(raw, path), path)
        if method is Method.PUSH_LIST:
            if isinstance(raw, list):
                items, base = raw, path
            else:
                base = f"{path}.configs"
                items = arr(obj(raw, path).get("configs", []), base)
            # Lossy: the list has no room for nextPageToken.
            return [push_in(obj(c, f"{base}[{i}]"), f"{base}[{i}]") for i, c in enumerate(items)]
        if method is Method.PUSH_DELETE:
            if raw is not None and raw != {}:
                raise ProtocolError("expected an empty object", path)
            return None
        if method is Method.LIST:
            data = dict(obj(raw, path))
            if "tasks" in data:
                tasks = arr(data["tasks"], f"{path}.tasks")
                data["tasks"] = [task_in(t, f"{path}.tasks[{i}]") for i, t in enumerate(tasks)]
            return validate(m.ListTasksResult, data, path)
        from .. import card

        return card.decode_card(raw, path)

    # ------------------------------------------------------------------ events

    def encode_event(self, event: m.StreamEvent) -> Any:
        event = as_event(event)
        if isinstance(event, m.Task):
            return {"task": task_out(event.wire())}
        if isinstance(event, m.Message):
            return {"message": message_out(event.wire())}
        if isinstance(event, m.TaskStatusUpdateEvent):
            d = event.wire()
            d.pop("final", None)
            _status_out(d["status"])
            return {"statusUpdate": d}
        if isinstance(event, m.TaskArtifactUpdateEvent):
            d = event.wire()
            art = d["artifact"]
            for key in ("append", "lastChunk"):
                value = art.pop(key, None)
                if value is not None and key not in d:
                    d[key] = value
            d["artifact"] = artifact_out(art)
            return {"artifactUpdate": d}
        raise ProtocolError(f"not a stream event: {type(event).__name__}")

    def decode_event(self, raw: Any, path: str = "$.result") -> m.StreamEvent:
        data = obj(raw, path)
        for key in _STREAM_KEYS:
            if key in data:
                return _decode_payload(key, data[key], (path, key))
        # ProtoJSON readers accept the proto field names too.
        for key, camel in (("status_update", "statusUpdate"), ("artifact_update", "artifactUpdate")):
            if key in data:
                return _decode_payload(camel, data[key], (path, key))
        raise ProtocolError("expected one of task, message, statusUpdate or artifactUpdate", path)

    def encode_card(self, card: m.AgentCard) -> dict[str, Any]:
        from .. import card as card_codec

        return card_codec.encode_card(card, self.name)

    def decode_sse_fast(self, data: str) -> m.StreamEvent | None:
        # decode_event on an artifactUpdate whose parts are all text: one validation.
        if '"artifactUpdate"' not in data:
            return None
        try:
            event: m.TaskArtifactUpdateEvent = _fast_artifact()(data)["result"]["artifactUpdate"]
        except ValidationError:
            return None
        art = event.__dict__["artifact"]  # (a pydantic attribute read is slower)
        if "content" in art.__pydantic_extra__ and "parts" not in art.__pydantic_fields_set__:
            return None  # the 0.3 proto's name for parts: _parts_in maps it
        for part in art.__dict__["parts"]:
            if type(part) is not _TextPart:
                return None  # only if pydantic-core ignored our parts schema (see _fast.py)
            # part_in tags every part it reads ({**p, "kind": "text"}).
            part.__pydantic_fields_set__.add("kind")
        return event


def _decode_payload(key: str, raw: Any, path: Path) -> m.StreamEvent:
    if key == "task":
        return decode_task(raw, path)
    if key == "message":
        return check(m.Message, message_in(raw, path), path)
    data = obj(raw, path)
    out = dict(data)
    if key == "statusUpdate":
        if "status" in data:
            out["status"] = status_in(data["status"], (path, "status"))
        return check(m.TaskStatusUpdateEvent, out, path)
    if "artifact" in data:
        out["artifact"] = artifact_in(data["artifact"], (path, "artifact"))
    return check(m.TaskArtifactUpdateEvent, out, path)


# ---------------------------------------------------------------------- decode


def state_in(value: Any, path: Path) -> str:
    if isinstance(value, bool):  # True == 1 would pass as SUBMITTED
        raise fail(f"unknown task state {value!r}", path)
    try:
        return _STATE_IN[value]
    except (KeyError, TypeError):
        raise fail(f"unknown task state {value!r}", path) from None


def part_in(part: Any, path: Path) -> dict[str, Any]:
    p = obj(part, path)
    if "text" in p:
        return {**p, "kind": "text"}
    has_raw, has_url = "raw" in p, "url" in p
    if has_raw or has_url:
        if has_raw and has_url:
            raise fail("part has both raw and url (they are one of)", path)
        f: dict[str, Any] = {}
        if has_raw:
            f["bytes"] = string(p["raw"], (path, "raw"))
        else:
            f["uri"] = string(p["url"], (path, "url"))
        if "filename" in p:
            f["name"] = string(p["filename"], (path, "filename"))
        if "mediaType" in p:
            f["mimeType"] = string(p["mediaType"], (path, "mediaType"))
        out = {k: v for k, v in p.items() if k not in ("raw", "url", "filename", "mediaType")}
        out["kind"] = "file"
        out["file"] = f
        return out
    if "data" in p:
        return {**p, "kind": "data"}
    if "kind" in p:
        return p  # a 0.3 part; unambiguous, so take it
    raise fail("part has none of text, raw, url or data", path)


def _parts_in(data: dict[str, Any], out: dict[str, Any], path: Path) -> None:
    key = "parts"
    if "parts" not in data and "content" in data:
        # The 0.3 proto (REST binding) called them "content".
        key = "content"
        del out["content"]
    if key in data:
        sub = (path, key)
        out["parts"] = [part_in(p, (sub, i)) for i, p in enumerate(arr(data[key], sub))]


def message_in(msg: Any, path: Path) -> dict[str, Any]:
    data = obj(msg, path)
    out = dict(data)
    if "role" in data:
        role = data["role"]
        try:
            if isinstance(role, bool):
                raise KeyError(role)
            out["role"] = _ROLE_IN[role]
        except (KeyError, TypeError):
            raise fail(f"unknown role {role!r} (expected ROLE_USER or ROLE_AGENT)", (path, "role")) from None
    _parts_in(data, out, path)
    return out


def status_in(status: Any, path: Path) -> dict[str, Any]:
    data = obj(status, path)
    out = dict(data)
    if "state" in data:
        out["state"] = state_in(data["state"], (path, "state"))
    if data.get("message") is not None:
        out["message"] = message_in(data["message"], (path, "message"))
    return out


def artifact_in(art: Any, path: Path) -> dict[str, Any]:
    data = obj(art, path)
    out = dict(data)
    _parts_in(data, out, path)
    return out


def task_in(task: Any, path: Path) -> dict[str, Any]:
    return shape_task(obj(task, path), path, status_in, message_in, artifact_in)


def decode_task(raw: Any, path: Path) -> m.Task:
    return check(m.Task, task_in(raw, path), path)


def _auth_in(raw: Any, path: Path) -> dict[str, Any]:
    data = obj(raw, path)
    out = {k: v for k, v in data.items() if k != "scheme"}
    if "scheme" in data:
        out["schemes"] = [string(data["scheme"], (path, "scheme"))]
    return out


def push_config_in(data: dict[str, Any], path: Path) -> m.PushNotificationConfig:
    """A flat 1.0 push config -> PushNotificationConfig; keys it does not know (taskId,
    tenant inside a send configuration) stay on it."""
    if "url" not in data:
        raise fail("Field required", (path, "url"))
    out = dict(data)
    if data.get("authentication") is not None:
        out["authentication"] = _auth_in(data["authentication"], (path, "authentication"))
    return check(m.PushNotificationConfig, out, path)


def push_in(data: dict[str, Any], path: Path) -> m.TaskPushNotificationConfig:
    if "taskId" not in data:
        raise fail("Field required", (path, "taskId"))
    own = ("id", "url", "token", "authentication")
    outer = {k: v for k, v in data.items() if k not in own and k != "taskId"}
    outer["taskId"] = string(data["taskId"], (path, "taskId"))
    outer["pushNotificationConfig"] = push_config_in({k: v for k, v in data.items() if k in own}, path)
    return check(m.TaskPushNotificationConfig, outer, path)


def _config_in(raw: Any, path: Path) -> dict[str, Any]:
    data = obj(raw, path)
    out = {k: v for k, v in data.items() if k not in ("returnImmediately", "taskPushNotificationConfig")}
    if data.get("returnImmediately") is not None:
        out["blocking"] = not boolean(data["returnImmediately"], (path, "returnImmediately"))
    push = data.get("taskPushNotificationConfig")
    if push is not None:
        sub = (path, "taskPushNotificationConfig")
        out["pushNotificationConfig"] = push_config_in(obj(push, sub), sub)
    return out


# ---------------------------------------------------------------------- encode


def part_out(p: dict[str, Any]) -> dict[str, Any]:
    kind = p.pop("kind", None)
    if kind == "file":
        f = p.pop("file", {})
        out: dict[str, Any] = {}
        if "bytes" in f:
            out["raw"] = f.pop("bytes")
        if "uri" in f:
            out["url"] = f.pop("uri")
        if "name" in f:
            out["filename"] = f.pop("name")
        if "mimeType" in f:
            out["mediaType"] = f.pop("mimeType")
        out.update(f)
        out.update(p)
        return out
    if kind == "data" and "data" not in p:
        p["data"] = None  # JSON null data, dropped by exclude_none
    return p


def message_out(msg: dict[str, Any]) -> dict[str, Any]:
    if "messageId" not in msg:
        msg["messageId"] = new_id()
    if "role" in msg:
        msg["role"] = _ROLE_OUT.get(msg["role"], msg["role"])
    if "parts" in msg:
        msg["parts"] = [part_out(p) for p in msg["parts"]]
    return msg


def _status_out(status: dict[str, Any]) -> None:
    status["state"] = _STATE_OUT.get(status["state"], status["state"])
    if "message" in status:
        status["message"] = message_out(status["message"])


def artifact_out(art: dict[str, Any]) -> dict[str, Any]:
    for key in ("index", "append", "lastChunk"):
        art.pop(key, None)
    if "parts" in art:
        art["parts"] = [part_out(p) for p in art["parts"]]
    return art


def task_out(task: dict[str, Any]) -> dict[str, Any]:
    _status_out(task["status"])
    if "history" in task:
        task["history"] = [message_out(h) for h in task["history"]]
    if "artifacts" in task:
        task["artifacts"] = [artifact_out(a) for a in task["artifacts"]]
    return task


def _auth_out(auth: dict[str, Any]) -> dict[str, Any]:
    schemes = auth.pop("schemes", None)
    # Lossy: 1.0 names one scheme; the first is kept.
    return {"scheme": schemes[0], **auth} if schemes else auth


def push_config_out(config: dict[str, Any]) -> dict[str, Any]:
    if "authentication" in config:
        config["authentication"] = _auth_out(config["authentication"])
    return config


def push_out(d: dict[str, Any]) -> dict[str, Any]:
    config = push_config_out(d.pop("pushNotificationConfig"))
    task_id = d.pop("taskId")
    out = dict(d)  # tenant and unknown keys
    if "id" in config:
        out["id"] = config.pop("id")
    out["taskId"] = task_id
    out.update(config)
    return out


def _config_out(conf: dict[str, Any]) -> dict[str, Any]:
    if "blocking" in conf:
        conf["returnImmediately"] = not conf.pop("blocking")
    if "pushNotificationConfig" in conf:
        conf["taskPushNotificationConfig"] = push_config_out(conf.pop("pushNotificationConfig"))
    return conf
