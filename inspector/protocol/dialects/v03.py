"""The 0.2/0.3 dialect: the normalised model's own spelling, plus ``kind`` tags.

Decoding is one ``model_validate`` per object; the object-level ``kind`` tags the model
has no field for are dropped from the result afterwards, which is cheaper than copying
the input to remove them first. Parts keep ``kind``: it is the model's discriminator.
"""

from __future__ import annotations

from typing import Any, ClassVar, cast

from .. import models as m
from ..errors import ProtocolError
from ..methods import PARAMS, Method
from ..shape import arr, drop_tag, implied_final, new_id, obj
from ..validation import M, validate
from ._fast import ValidationError, lazy_envelope_decoder
from .base import TASK_ERRORS, Dialect

# {"result": <artifact-update>}: parts chosen by their kind tag, as Part does.
_fast_artifact = lazy_envelope_decoder(None, "kind")

_EVENT_KINDS: dict[str, type[m.A2AModel]] = {
    "task": m.Task,
    "message": m.Message,
    "status-update": m.TaskStatusUpdateEvent,
    "artifact-update": m.TaskArtifactUpdateEvent,
}


class V03Dialect(Dialect):
    name = "0.3"
    label = "0.2/0.3"
    lean = "0.3"
    card_paths = ("/.well-known/agent-card.json", "/.well-known/agent.json")
    methods: ClassVar[dict[Method, str]] = {
        Method.SEND: "message/send",
        Method.STREAM: "message/stream",
        Method.GET: "tasks/get",
        Method.CANCEL: "tasks/cancel",
        Method.RESUBSCRIBE: "tasks/resubscribe",
        Method.PUSH_SET: "tasks/pushNotificationConfig/set",
        Method.PUSH_GET: "tasks/pushNotificationConfig/get",
        Method.PUSH_LIST: "tasks/pushNotificationConfig/list",
        Method.PUSH_DELETE: "tasks/pushNotificationConfig/delete",
        Method.EXTENDED_CARD: "agent/getAuthenticatedExtendedCard",
    }
    error_codes: ClassVar[dict[int, str]] = {
        **TASK_ERRORS,
        -32006: "Invalid agent response",
        -32007: "Authenticated extended card not configured",
    }

    # ------------------------------------------------------------------ params

    def encode_params(self, method: Method, params: Any) -> Any:
        self.wire_method(method)
        if method is Method.EXTENDED_CARD:
            return (as_model(m.ExtendedCardParams, params).wire() or None) if params is not None else None
        out = as_model(PARAMS[method], params).wire()
        if method is Method.PUSH_DELETE and "pushNotificationConfigId" not in out:
            raise ProtocolError("deleting a push notification config needs its id (push_notification_config_id)")
        if method in (Method.SEND, Method.STREAM):
            out["message"] = tag_message(out["message"])
        return out

    def decode_params(self, method: Method, raw: Any, path: str = "$.params") -> Any:
        self.wire_method(method)
        if method is Method.EXTENDED_CARD and raw is None:
            return m.ExtendedCardParams()
        if method in (Method.SEND, Method.STREAM):
            params = validate_lenient(m.SendParams, raw, path)
            drop_tag(params.message, "message")
            return params
        if method is Method.PUSH_DELETE and isinstance(raw, dict) and "pushNotificationConfigId" not in raw:
            raise ProtocolError("Field required", f"{path}.pushNotificationConfigId")
        return validate(PARAMS[method], raw, path)

    # ------------------------------------------------------------------ results

    def encode_result(self, method: Method, result: Any) -> Any:
        self.wire_method(method)
        if method in (Method.SEND, Method.STREAM, Method.RESUBSCRIBE):
            return self.encode_event(result)
        if method in (Method.GET, Method.CANCEL):
            return tag_task(as_model(m.Task, result).wire())
        if method in (Method.PUSH_SET, Method.PUSH_GET):
            return as_model(m.TaskPushNotificationConfig, result).wire()
        if method is Method.PUSH_LIST:
            return [as_model(m.TaskPushNotificationConfig, c).wire() for c in result or ()]
        if method is Method.PUSH_DELETE:
            return None
        return self.encode_card(result)

    def decode_result(self, method: Method, raw: Any, path: str = "$.result") -> Any:
        self.wire_method(method)
        if method in (Method.SEND, Method.STREAM, Method.RESUBSCRIBE):
            return self.decode_sent(method, raw, path, "a Task or Message")
        if method in (Method.GET, Method.CANCEL):
            return decode_task(raw, path)
        if method in (Method.PUSH_SET, Method.PUSH_GET):
            return validate(m.TaskPushNotificationConfig, raw, path)
        if method is Method.PUSH_LIST:
            return [validate(m.TaskPushNotificationConfig, c, f"{path}[{i}]") for i, c in enumerate(arr(raw, path))]
        if method is Method.PUSH_DELETE:
            if raw is not None:
                raise ProtocolError("expected null", path)
            return None
        from .. import card

        return card.decode_card(raw, path)

    # ------------------------------------------------------------------ events

    def encode_event(self, event: m.StreamEvent) -> Any:
        event = as_event(event)
        if isinstance(event, m.Task):
            return tag_task(event.wire())
        if isinstance(event, m.Message):
            return tag_message(event.wire())
        if isinstance(event, m.TaskStatusUpdateEvent):
            out = event.wire()
            status = out["status"]
            if "message" in status:
                status["message"] = tag_message(status["message"])
            if "final" not in out:
                # Required in 0.2/0.3; an event decoded from 1.0 has none.
                out["final"] = implied_final(out)
            return _tagged("status-update", out)
        if isinstance(event, m.TaskArtifactUpdateEvent):
            return _tagged("artifact-update", event.wire())
        raise ProtocolError(f"not a stream event: {type(event).__name__}")

    def decode_event(self, raw: Any, path: str = "$.result") -> m.StreamEvent:
        return decode_event(raw, path)

    def decode_sse_fast(self, data: str) -> m.StreamEvent | None:
        # decode_event on an artifact-update: one validation, then drop the kind tag.
        if '"artifact-update"' not in data:
            return None
        try:
            event: m.TaskArtifactUpdateEvent = _fast_artifact()(data)["result"]
        except ValidationError:
            return None
        extra = event.__pydantic_extra__
        if extra is None or extra.get("kind") != "artifact-update":
            return None  # no kind (guessed from the fields) or another kind: the general path
        del extra["kind"]
        return event

    def encode_card(self, card: m.AgentCard) -> dict[str, Any]:
        from .. import card as card_codec

        return card_codec.encode_card(card, self.name)


# ---------------------------------------------------------------------- helpers


def as_model(model: type[m.A2AModel], value: Any) -> Any:
    """Encoders take the normalised model; a plain dict (e.g. from a scenario file) is
    validated first."""
    if isinstance(value, model):
        return value
    if isinstance(value, dict):
        return validate(model, value)
    raise ProtocolError(f"expected {model.__name__}, got {type(value).__name__}")


def as_event(value: Any) -> Any:
    """A stream event given as a dict is read in the normalised (0.3) spelling."""
    return decode_event(value, "$") if isinstance(value, dict) else value


def decode_event(raw: Any, path: str) -> m.StreamEvent:
    data = obj(raw, path)
    kind = data.get("kind")
    model: type[m.A2AModel] | None
    if kind is None:
        model = _guess_kind(data, path)
    else:
        model = _EVENT_KINDS.get(kind) if isinstance(kind, str) else None
        if model is None:
            raise ProtocolError(
                f"unknown kind {kind!r} (expected task, message, status-update or artifact-update)", f"{path}.kind"
            )
    if model is m.Task:
        return decode_task(data, path)
    event = validate_lenient(model, data, path)
    if model is m.Message:
        drop_tag(event, "message")
    elif isinstance(event, m.TaskStatusUpdateEvent):  # (model is m.TaskStatusUpdateEvent)
        drop_tag(event, "status-update")
        drop_tag(event.status.message, "message")
    else:
        drop_tag(event, "artifact-update")
    return cast(m.StreamEvent, event)  # model is one of _EVENT_KINDS


def _tagged(kind: str, out: dict[str, Any]) -> dict[str, Any]:
    # An unexpected kind kept from decoding stays: it is what the agent sent.
    return out if "kind" in out else {"kind": kind, **out}


def tag_message(msg: dict[str, Any]) -> dict[str, Any]:
    if "messageId" not in msg:
        msg["messageId"] = new_id()
    return _tagged("message", msg)


def tag_task(task: dict[str, Any]) -> dict[str, Any]:
    status = task.get("status")
    if isinstance(status, dict) and "message" in status:
        status["message"] = tag_message(status["message"])
    if "history" in task:
        task["history"] = [tag_message(h) for h in task["history"]]
    return _tagged("task", task)


def decode_task(raw: Any, path: str) -> m.Task:
    task = validate_lenient(m.Task, raw, path)
    drop_tag(task, "task")
    drop_tag(task.status.message, "message")
    for msg in task.history or ():
        drop_tag(msg, "message")
    return task


def _guess_kind(data: dict[str, Any], path: str) -> type[m.A2AModel]:
    """0.2.0 agents, and some others, leave ``kind`` out: tell the object by its fields."""
    if "artifact" in data:
        return m.TaskArtifactUpdateEvent
    if "status" in data:
        return m.TaskStatusUpdateEvent if "taskId" in data or "final" in data else m.Task
    if "role" in data or "parts" in data:
        return m.Message
    raise ProtocolError("cannot tell what this is: no kind, and none of status, artifact, role or parts", path)


def validate_lenient(model: type[M], raw: Any, path: str) -> M:
    """Validate; if that fails and some part is tagged ``type`` instead of ``kind`` (as
    0.1 clients send and a2a-sdk accepts), retag those parts and try once more."""
    try:
        return validate(model, raw, path)
    except ProtocolError:
        fixed = _retag(raw)
        if fixed is raw:
            raise
        return validate(model, fixed, path)


# Only these keys lead to parts; agent data (metadata, data parts) is never rewritten.
_PART_HOLDERS = ("message", "status", "history", "artifacts", "artifact")


def _retag(value: Any) -> Any:
    if isinstance(value, list):
        new = [_retag(v) for v in value]
        return value if all(a is b for a, b in zip(new, value, strict=True)) else new
    if not isinstance(value, dict):
        return value
    out = None
    parts = value.get("parts")
    if isinstance(parts, list):
        fixed = [_retag_part(p) for p in parts]
        if any(a is not b for a, b in zip(fixed, parts, strict=True)):
            out = dict(value)
            out["parts"] = fixed
    for key in _PART_HOLDERS:
        if key in value:
            child = value[key]
            new = _retag(child)
            if new is not child:
                if out is None:
                    out = dict(value)
                out[key] = new
    return value if out is None else out


def _retag_part(part: Any) -> Any:
    if isinstance(part, dict) and "kind" not in part and "type" in part:
        out = dict(part)
        out["kind"] = out.pop("type")
        return out
    return part
