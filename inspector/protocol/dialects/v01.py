"""The 0.1 draft dialect (tag v0.1.0 and the systems built on it: seeds 000-004).

Differences from the normalised (0.3) spelling, handled here as key maps:
  - parts are tagged ``type``; messages have no ids; the client picks the task id and
    sends it as ``params.id`` (mapped onto ``message.task_id``), ``sessionId`` is the
    context (mapped onto ``context_id`` everywhere);
  - stream results are bare ``{id, status, final}`` / ``{id, artifact}`` objects, the
    artifact carrying its own ``index``/``append``/``lastChunk``.

Decoding is lenient where deployed 0.1 systems deviate from the draft: ``cancelled``,
a status message given as a string (or without a role), numeric task ids, ``kind`` in
place of ``type``, ``file.data`` in place of ``file.bytes`` (the draft's own examples),
and full tasks sent as stream events (Orloj).
"""

from __future__ import annotations

from typing import Any, ClassVar

from .. import models as m
from ..errors import ProtocolError
from ..methods import PARAMS, Method
from ..shape import Path, arr, check, fail, implied_final, new_id, obj, shape_task, string
from ..validation import type_name, validate
from .base import TASK_ERRORS, Dialect
from .v03 import as_event, as_model


class V01Dialect(Dialect):
    name = "0.1"
    label = "0.1 draft"
    card_paths = ("/.well-known/agent.json",)
    methods: ClassVar[dict[Method, str]] = {
        Method.SEND: "tasks/send",
        Method.STREAM: "tasks/sendSubscribe",
        Method.GET: "tasks/get",
        Method.CANCEL: "tasks/cancel",
        Method.RESUBSCRIBE: "tasks/resubscribe",
        Method.PUSH_SET: "tasks/pushNotification/set",
        Method.PUSH_GET: "tasks/pushNotification/get",
        # Society AI's addition (seed 001).
        Method.LIST: "tasks/list",
    }
    # Society AI's spelling (seed 001). It cannot replace tasks/resubscribe above, the
    # draft's (seed 002, 004), so a client sends it only when asked:
    # A2AClient(method_names={"resubscribe": "task/resubscribe"}).
    method_aliases: ClassVar[dict[str, Method]] = {"task/resubscribe": Method.RESUBSCRIBE}
    # -32001..-32004 from the v0.1.0 schema; -32005 from the draft's error table.
    error_codes: ClassVar[dict[int, str]] = {**TASK_ERRORS}

    # ------------------------------------------------------------------ params

    def with_client_ids(self, method: Method, params: Any) -> Any:
        # The client picks a new task's id and session: a 0.1 stream's events never name
        # the session, so a caller that did not pick it never learns it (a hub bridge
        # stream answered contextId null, and the next turn sent sessionId "null").
        if method not in (Method.SEND, Method.STREAM) or not isinstance(params, m.SendParams):
            return params
        msg = params.message
        if msg.task_id:
            return params  # a later turn: its session is the one turn 1 named
        ids = {"task_id": new_id(), "context_id": msg.context_id or new_id()}
        return params.model_copy(update={"message": msg.model_copy(update=ids)})

    def encode_params(self, method: Method, params: Any) -> Any:
        self.wire_method(method)
        p = as_model(PARAMS[method], params)
        if method in (Method.SEND, Method.STREAM):
            return _send_params_out(p.wire())
        if method is Method.PUSH_SET:
            return _push_out(p.wire())
        out = p.wire()
        if method is Method.LIST:
            _rename(out, "contextId", "sessionId")
        return out

    def decode_params(self, method: Method, raw: Any, path: str = "$.params") -> Any:
        self.wire_method(method)
        if method in (Method.SEND, Method.STREAM):
            return _send_params_in(obj(raw, path), path)
        if method is Method.PUSH_SET:
            return _push_in(raw, path)
        if method is Method.LIST:
            data = obj(raw if raw is not None else {}, path)
            return validate(m.ListTasksParams, _session_in(data, path), path)
        return validate(PARAMS[method], _id_in(raw, path), path)

    # ------------------------------------------------------------------ results

    def encode_result(self, method: Method, result: Any) -> Any:
        self.wire_method(method)
        if method in (Method.SEND, Method.STREAM, Method.RESUBSCRIBE):
            return self.encode_event(result)
        if method in (Method.GET, Method.CANCEL):
            return task_out(as_model(m.Task, result).wire())
        if method in (Method.PUSH_SET, Method.PUSH_GET):
            return _push_out(as_model(m.TaskPushNotificationConfig, result).wire())
        out = as_model(m.ListTasksResult, result).wire()
        out["tasks"] = [task_out(t) for t in out["tasks"]]
        return out

    def decode_result(self, method: Method, raw: Any, path: str = "$.result") -> Any:
        self.wire_method(method)
        if method in (Method.SEND, Method.STREAM, Method.RESUBSCRIBE):
            return self.decode_sent(method, raw, path, "a Task")
        if method in (Method.GET, Method.CANCEL):
            return validate(m.Task, task_in(raw, path), path)
        if method in (Method.PUSH_SET, Method.PUSH_GET):
            return _push_in(raw, path)
        # tasks/list: no spec; accept a bare array of tasks or {tasks: [...], ...}.
        if isinstance(raw, list):
            raw = {"tasks": raw}
        data = dict(obj(raw, path))
        if "tasks" in data:
            tasks = arr(data["tasks"], f"{path}.tasks")
            data["tasks"] = [task_in(t, f"{path}.tasks[{i}]") for i, t in enumerate(tasks)]
        return validate(m.ListTasksResult, data, path)

    # ------------------------------------------------------------------ events

    def encode_event(self, event: m.StreamEvent) -> Any:
        event = as_event(event)
        if isinstance(event, m.Task):
            return task_out(event.wire())
        if isinstance(event, m.Message):
            return message_out(event.wire())
        if isinstance(event, m.TaskStatusUpdateEvent):
            d = event.wire()
            d.pop("contextId", None)
            out = {"id": d.pop("taskId"), **d}
            _status_out(out["status"])
            if "final" not in out:
                # Without ``final`` a 0.1 reader takes the event for a whole task.
                out["final"] = implied_final(out)
            return out
        if isinstance(event, m.TaskArtifactUpdateEvent):
            d = event.wire()
            d.pop("contextId", None)
            art = artifact_out(d.pop("artifact"))
            # 0.1 carries the chunk flags on the artifact; the artifact's own win.
            for key in ("append", "lastChunk"):
                value = d.pop(key, None)
                if value is not None and key not in art:
                    art[key] = value
            return {"id": d.pop("taskId"), "artifact": art, **d}
        raise ProtocolError(f"not a stream event: {type(event).__name__}")

    def decode_event(self, raw: Any, path: str = "$.result") -> m.StreamEvent:
        data = obj(raw, path)
        if "artifact" in data:
            out = _task_id_in(data, path)
            art = artifact_in(data["artifact"], (path, "artifact"))
            out["artifact"] = art
            for key in ("append", "lastChunk"):
                if key in art and key not in data:
                    out[key] = art[key]
            return check(m.TaskArtifactUpdateEvent, out, path)
        if "status" in data:
            if "final" in data:
                out = _task_id_in(data, path)
                out["status"] = status_in(data["status"], (path, "status"))
                return check(m.TaskStatusUpdateEvent, out, path)
            # Orloj streams whole tasks (id, status, artifacts) with no ``final``.
            return check(m.Task, task_in(data, path), path)
        if "role" in data or "parts" in data:
            return check(m.Message, message_in(data, path), path)
        raise fail("cannot tell what this is: none of status, artifact, role or parts", path)

    def encode_card(self, card: m.AgentCard) -> dict[str, Any]:
        from .. import card as card_codec

        return card_codec.encode_card(card, self.name)


# ---------------------------------------------------------------------- decode


def _id(value: Any, path: Path) -> str:
    # The draft's own examples answer with "id": 1; ids are strings everywhere else.
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return string(value, path)


def _id_in(raw: Any, path: Path) -> Any:
    if isinstance(raw, dict) and "id" in raw and not isinstance(raw["id"], str):
        out = dict(raw)
        out["id"] = _id(raw["id"], (path, "id"))
        return out
    return raw


def _task_id_in(data: dict[str, Any], path: Path) -> dict[str, Any]:
    """An event's ``id`` is the normalised ``taskId``; the rest is copied."""
    out = {k: v for k, v in data.items() if k != "id"}
    if "id" in data:
        out["taskId"] = _id(data["id"], (path, "id"))
    elif "taskId" not in data:
        raise fail("Field required", (path, "id"))
    return out


def _session_in(data: dict[str, Any], path: Path) -> dict[str, Any]:
    if "sessionId" not in data or "contextId" in data:
        return data
    out = {k: v for k, v in data.items() if k != "sessionId"}
    out["contextId"] = string(data["sessionId"], (path, "sessionId"))
    return out


def part_in(part: Any, path: Path) -> Any:
    p = obj(part, path)
    if "type" in p:
        out = {k: v for k, v in p.items() if k != "type"}
        out["kind"] = p["type"]
    elif "kind" in p:
        out = p
    else:
        raise fail("part has no type (expected text, file or data)", path)
    if out["kind"] == "file" and isinstance(out.get("file"), dict):
        f = out["file"]
        if "data" in f and "bytes" not in f and "uri" not in f:
            # The draft's examples spell the base64 content "data".
            content = string(f["data"], ((path, "file"), "data"))
            f = {k: v for k, v in f.items() if k != "data"}
            f["bytes"] = content
            out = {**out, "file": f}
    return out


def _parts_in(data: dict[str, Any], out: dict[str, Any], path: Path) -> None:
    if "parts" in data:
        sub = (path, "parts")
        out["parts"] = [part_in(p, (sub, i)) for i, p in enumerate(arr(data["parts"], sub))]


def message_in(msg: Any, path: Path, *, from_agent: bool = False) -> dict[str, Any]:
    data = obj(msg, path)
    out = dict(data)
    _parts_in(data, out, path)
    if from_agent and "role" not in data:
        out["role"] = "agent"
    return out


def status_in(status: Any, path: Path) -> dict[str, Any]:
    data = obj(status, path)
    out = dict(data)
    if data.get("state") == "cancelled":
        out["state"] = "canceled"
    if "message" in data:
        msg = data["message"]
        if isinstance(msg, str):
            # Society (seed 000) answers "message": "" — a bare string, often empty.
            out["message"] = {"role": "agent", "parts": [{"kind": "text", "text": msg}]} if msg else None
        elif msg is not None:
            out["message"] = message_in(msg, (path, "message"), from_agent=True)
    return out


def artifact_in(art: Any, path: Path) -> dict[str, Any]:
    data = obj(art, path)
    out = dict(data)
    _parts_in(data, out, path)
    return out


def task_in(task: Any, path: Path) -> dict[str, Any]:
    data = _session_in(obj(task, path), path)
    out = shape_task(data, path, status_in, message_in, artifact_in)
    if "id" in data:
        out["id"] = _id(data["id"], (path, "id"))
    return out


def _send_params_in(data: dict[str, Any], path: str) -> m.SendParams:
    if "id" not in data:
        raise ProtocolError("Field required", f"{path}.id")
    task_id = _id(data["id"], f"{path}.id")
    if "message" not in data:
        raise ProtocolError("Field required", f"{path}.message")
    msg = message_in(data["message"], f"{path}.message")
    msg["taskId"] = task_id
    if "sessionId" in data and data["sessionId"] is not None:
        msg["contextId"] = string(data["sessionId"], f"{path}.sessionId")
    message = validate(m.Message, msg, f"{path}.message")

    conf: dict[str, Any] = {}
    rest: dict[str, Any] = {}
    for key, value in data.items():
        if key in ("id", "sessionId", "message"):
            continue
        if key == "historyLength" and value is not None:
            if not isinstance(value, int) or isinstance(value, bool):
                raise ProtocolError(f"expected an integer, got {type_name(value)}", f"{path}.historyLength")
            conf["history_length"] = value
        elif key == "pushNotification" and value is not None:
            conf["push_notification_config"] = validate(m.PushNotificationConfig, value, f"{path}.pushNotification")
        elif key == "acceptedOutputModes" and value is not None:
            modes = arr(value, f"{path}.acceptedOutputModes")
            conf["accepted_output_modes"] = [string(x, f"{path}.acceptedOutputModes[{i}]") for i, x in enumerate(modes)]
        else:
            rest[key] = value
    rest["message"] = message
    if conf:
        rest["configuration"] = m.SendConfiguration(**conf)
    return validate(m.SendParams, rest, path)


def _push_in(raw: Any, path: str) -> m.TaskPushNotificationConfig:
    data = obj(raw, path)
    if "id" not in data:
        raise ProtocolError("Field required", f"{path}.id")
    if "pushNotificationConfig" not in data:
        raise ProtocolError("Field required", f"{path}.pushNotificationConfig")
    out = {k: v for k, v in data.items() if k not in ("id", "pushNotificationConfig")}
    out["taskId"] = _id(data["id"], f"{path}.id")
    out["pushNotificationConfig"] = validate(
        m.PushNotificationConfig, data["pushNotificationConfig"], f"{path}.pushNotificationConfig"
    )
    return validate(m.TaskPushNotificationConfig, out, path)


# ---------------------------------------------------------------------- encode


def _rename(d: dict[str, Any], old: str, new: str) -> None:
    # A key already spelled the 0.1 way (kept from decoding) is not overwritten.
    if old in d and new not in d:
        d[new] = d.pop(old)


def part_out(p: dict[str, Any]) -> dict[str, Any]:
    kind = p.pop("kind", None)
    if kind == "data" and "data" not in p:
        p["data"] = None  # JSON null data, dropped by exclude_none
    return {"type": kind, **p} if kind is not None else p


def message_out(msg: dict[str, Any]) -> dict[str, Any]:
    for key in ("messageId", "taskId", "contextId"):
        msg.pop(key, None)
    if "parts" in msg:
        msg["parts"] = [part_out(p) for p in msg["parts"]]
    return msg


def _status_out(status: dict[str, Any]) -> None:
    if "message" in status:
        status["message"] = message_out(status["message"])


def artifact_out(art: dict[str, Any]) -> dict[str, Any]:
    if "parts" in art:
        art["parts"] = [part_out(p) for p in art["parts"]]
    return art


def task_out(task: dict[str, Any]) -> dict[str, Any]:
    _rename(task, "contextId", "sessionId")
    _status_out(task["status"])
    if "history" in task:
        task["history"] = [message_out(h) for h in task["history"]]
    if "artifacts" in task:
        task["artifacts"] = [artifact_out(a) for a in task["artifacts"]]
    return task


def _send_params_out(d: dict[str, Any]) -> dict[str, Any]:
    msg = d.pop("message")
    out: dict[str, Any] = {"id": msg.get("taskId") or new_id()}
    if msg.get("contextId") is not None:
        out["sessionId"] = msg["contextId"]
    elif not msg.get("taskId"):
        out["sessionId"] = new_id()  # see V01Dialect.with_client_ids
    out["message"] = message_out(msg)
    conf = d.pop("configuration", None) or {}
    if "acceptedOutputModes" in conf:
        out["acceptedOutputModes"] = conf.pop("acceptedOutputModes")
    if "historyLength" in conf:
        out["historyLength"] = conf.pop("historyLength")
    if "pushNotificationConfig" in conf:
        out["pushNotification"] = conf.pop("pushNotificationConfig")
    # tasks/send always blocks: 0.1 has no ``blocking``.
    conf.pop("blocking", None)
    out.update(conf)
    out.update(d)
    return out


def _push_out(d: dict[str, Any]) -> dict[str, Any]:
    return {"id": d.pop("taskId"), **d}
