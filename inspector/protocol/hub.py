"""Society AI's WebSocket hub: its frames, as a2a-inspect reads and writes them.

The seed (Society AI's docs) names the hub's methods and says that agents speak "the
same JSON-RPC 2.0 methods" over the socket; it gives no params. The shapes here are
built from that text and the A2A 0.1 task model the seed documents (``id``,
``sessionId``, ``status``, ``artifacts``, and the extended ``metadata``: ``requester``,
``executor``, ``skill_used``, ``cost``). docs/hub.md lists every one of them and every
assumption made, so that they can be checked against a real hub.

Decoding is lenient, as for any agent's JSON: unknown keys are kept (the models keep
extras), ``id`` and ``taskId`` both name a task, ``sessionId`` and ``contextId`` both
a session. What cannot be read is a ``ProtocolError`` in the frame's ``item`` (the
tracker reports it as a decode-error), never an exception out of ``decode_frame``.

Pure: no I/O; the hub (inspector/hub) and the mock's ws-agent (mock_agent) both use it.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

from . import models as m
from .dialects import v01 as _CODEC
from .dialects.base import decode_error
from .dialects.v01 import artifact_in, message_in, status_in, task_in, task_out
from .errors import JsonRpcError, ProtocolError
from .methods import Method
from .shape import check, fail, obj, string
from .validation import type_name
from .wire import parse_json

#: A registered agent's card ``url``: ``ws-agent://NAME``.
SCHEME = "ws-agent"

# Agent -> hub.
REGISTER = "agent.register"
HEARTBEAT = "heartbeat"
STATUS = "task.status"
ARTIFACT = "task.artifact"
COMPLETE = "task.complete"
SEARCH = "agent.search"
SEND_TASK = "agent.send_task"
#: The frames in which an agent reports on a task.
TASK_UPDATES = frozenset((STATUS, ARTIFACT, COMPLETE))
HUB_METHODS = frozenset((REGISTER, HEARTBEAT, SEARCH, SEND_TASK)) | TASK_UPDATES

# Hub -> agent: the 0.1 draft's own method names (Society AI's dialect).
SEND = "tasks/send"
STREAM = "tasks/sendSubscribe"
CANCEL = "tasks/cancel"
GET = "tasks/get"
#: Wire method -> the A2A operation, for the requests the hub sends an agent.
A2A_METHODS: dict[str, Method] = {SEND: Method.SEND, STREAM: Method.STREAM, CANCEL: Method.CANCEL, GET: Method.GET}

#: Metadata key naming the task that delegated this one (agent.send_task).
PARENT_KEY = "parent_task_id"

#: JSON-RPC error codes the hub answers with (server-defined range; see docs/hub.md).
NAME_TAKEN = -32010
NOT_REGISTERED = -32011
BAD_NAME = -32012
NO_SUCH_AGENT = -32013
TOO_MANY_AGENTS = -32014
UNKNOWN_TASK = -32001  # the 0.1 draft's "Task not found"


def agent_url(name: str) -> str:
    return f"{SCHEME}://{name}"


def agent_name(url: str) -> str | None:
    """NAME of ``ws-agent://NAME``, else None."""
    prefix = f"{SCHEME}://"
    if url.startswith(prefix):
        name = url[len(prefix) :].strip("/")
        return name or None
    return None


# ---------------------------------------------------------------------- what frames hold


@dataclass(frozen=True, slots=True)
class Registration:
    """agent.register's params. ``card_raw`` is the card as sent (for lint)."""

    name: str | None
    card: m.AgentCard | None
    card_raw: Any
    #: Why the card did not decode, when it did not (the registration still counts).
    card_error: ProtocolError | None = None


@dataclass(frozen=True, slots=True)
class Search:
    query: str = ""
    tags: tuple[str, ...] = ()
    skill: str | None = None
    limit: int | None = None


@dataclass(frozen=True, slots=True)
class Delegation:
    """agent.send_task's params: the agent to ask, and the A2A send params for it."""

    target: str | None
    params: m.SendParams
    #: The delegating task, when the agent names it.
    parent_task_id: str | None = None
    stream: bool = False


@dataclass(frozen=True, slots=True)
class Heartbeat:
    params: Any = None


@dataclass(frozen=True, slots=True)
class Frame:
    """One decoded WebSocket frame.

    ``role``: ``request`` (a method and an id), ``notification`` (a method, no id),
    ``result``, ``error`` (answers), or ``invalid`` (not a JSON-RPC 2.0 object: the
    item is the ProtocolError saying why).

    ``item``: what the frame carries, normalised where this tool knows the method:
    SendParams / TaskIdParams / TaskQueryParams (tasks/*), TaskStatusUpdateEvent
    (task.status), TaskArtifactUpdateEvent (task.artifact), Task (task.complete, and a
    result that is a task), Message (a result that is one), Registration, Search,
    Delegation, Heartbeat, JsonRpcError (an error), ProtocolError (params that do not
    decode); the raw params or result otherwise."""

    role: str
    method: str | None = None
    rpc_id: Any = None
    item: Any = None
    has_id: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def is_task_update(self) -> bool:
        return self.method in TASK_UPDATES

    @property
    def task_id(self) -> str | None:
        """The task the frame is about, when it names one."""
        item = self.item
        for attr in ("task_id", "id"):
            value = getattr(item, attr, None)
            if isinstance(value, str):
                return value
        if isinstance(item, m.SendParams):
            return item.message.task_id
        if isinstance(item, Delegation):
            return item.params.message.task_id
        return None


# ---------------------------------------------------------------------- decoding


def decode_frame(text: str | bytes | None) -> Frame:
    """A text frame -> Frame. Never raises: what cannot be read is ``invalid``."""
    if text is None:
        return Frame("invalid", item=ProtocolError("empty frame"))
    try:
        doc = parse_json(text)
    except ProtocolError as exc:
        return Frame("invalid", item=exc)
    return decode_document(doc)


def decode_document(doc: Any) -> Frame:
    if not isinstance(doc, dict):
        return Frame("invalid", item=ProtocolError(f"expected a JSON-RPC object, got {type_name(doc)}"))
    has_id = "id" in doc
    rid = doc.get("id")
    if isinstance(rid, bool) or (rid is not None and not isinstance(rid, (str, int, float))):
        return Frame(
            "invalid",
            rpc_id=None,
            item=ProtocolError(f"id must be a string, a number or null, got {type_name(rid)}", "$.id"),
            has_id=has_id,
        )
    if isinstance(rid, float) and not math.isfinite(rid):
        # 1e999 parses as infinity: echoed back, it would be written as Infinity, not JSON.
        return Frame("invalid", rpc_id=None, item=ProtocolError("id must be a finite number", "$.id"), has_id=has_id)
    method = doc.get("method")
    if method is not None:
        if not isinstance(method, str):
            return Frame(
                "invalid", rpc_id=rid, item=ProtocolError("method must be a string", "$.method"), has_id=has_id
            )
        role = "request" if has_id else "notification"
        return Frame(role, method, rid, _params(method, doc.get("params")), has_id)
    if doc.get("error") is not None:
        try:
            return Frame("error", None, rid, decode_error(doc["error"]), has_id)
        except ProtocolError as exc:
            return Frame("invalid", None, rid, exc, has_id)
    if "result" in doc:
        return Frame("result", None, rid, _result(doc["result"]), has_id)
    return Frame("invalid", None, rid, ProtocolError("a JSON-RPC object with neither method, result nor error"), has_id)


def _params(method: str, raw: Any) -> Any:
    path = "$.params"
    try:
        if method == STATUS:
            return status_update(raw, path)
        if method == ARTIFACT:
            return artifact_update(raw, path)
        if method == COMPLETE:
            return completion(raw, path)
        if method in A2A_METHODS:
            return _CODEC.decode_params(A2A_METHODS[method], _task_keys(raw, path), path)
        if method == REGISTER:
            return registration(raw, path)
        if method == SEARCH:
            return search(raw, path)
        if method == SEND_TASK:
            return delegation(raw, path)
        if method == HEARTBEAT:
            return Heartbeat(raw)
    except ProtocolError as exc:
        return exc
    return raw


def _result(raw: Any) -> Any:
    """A result: a Task or Message when it is one (the answer to tasks/*), else as is."""
    if isinstance(raw, dict) and ("status" in raw and ("id" in raw or "taskId" in raw)):
        try:
            return check(m.Task, task_in(_task_keys(raw, "$.result"), "$.result"), "$.result")
        except ProtocolError as exc:
            return exc
    if isinstance(raw, dict) and "role" in raw and "parts" in raw:
        try:
            return check(m.Message, message_in(raw, "$.result"), "$.result")
        except ProtocolError as exc:
            return exc
    return raw


def _task_keys(raw: Any, path: str) -> dict[str, Any]:
    """``taskId`` read as the 0.1 ``id``, ``contextId`` as ``sessionId``."""
    data = obj(raw, path)
    if "id" not in data and "taskId" in data:
        data = {("id" if k == "taskId" else k): v for k, v in data.items()}
    if "sessionId" not in data and "contextId" in data:
        data = {("sessionId" if k == "contextId" else k): v for k, v in data.items()}
    return data


def _event_keys(raw: Any, path: str) -> dict[str, Any]:
    """An update's params in the normalised spelling: ``taskId``, ``contextId``."""
    data = _task_keys(raw, path)
    out = {k: v for k, v in data.items() if k not in ("id", "sessionId")}
    if "id" not in data:
        raise fail("Field required (the task's id, or taskId)", (path, "id"))
    value = data["id"]
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    out["taskId"] = string(value, (path, "id"))
    if data.get("sessionId") is not None:
        out["contextId"] = string(data["sessionId"], (path, "sessionId"))
    return out


def _status(raw: Any, path: Any) -> dict[str, Any]:
    # Lenient: a bare state string stands for {"state": ...}.
    if isinstance(raw, str):
        raw = {"state": raw}
    return status_in(raw, path)


def status_update(raw: Any, path: str = "$.params") -> m.TaskStatusUpdateEvent:
    data = _event_keys(raw, path)
    if "status" not in data:
        if "state" not in data:
            raise fail("Field required (status)", (path, "status"))
        data["status"] = {"state": data.pop("state"), **({"message": data.pop("message")} if "message" in data else {})}
    data["status"] = _status(data["status"], (path, "status"))
    return check(m.TaskStatusUpdateEvent, data, path)


def artifact_update(raw: Any, path: str = "$.params") -> m.TaskArtifactUpdateEvent:
    data = _event_keys(raw, path)
    if "artifact" not in data:
        if "parts" not in data:
            raise fail("Field required (artifact)", (path, "artifact"))
        # Lenient: the artifact's own keys at the top level.
        art_keys = ("parts", "name", "description", "index", "append", "lastChunk", "artifactId")
        data["artifact"] = {k: data.pop(k) for k in art_keys if k in data}
    art = artifact_in(data["artifact"], (path, "artifact"))
    data["artifact"] = art
    # 0.1 carries the chunk flags on the artifact; the event's copy is what the tracker reads first.
    for key in ("append", "lastChunk"):
        if key in art and key not in data:
            data[key] = art[key]
    return check(m.TaskArtifactUpdateEvent, data, path)


def completion(raw: Any, path: str = "$.params") -> m.Task:
    """task.complete: the whole task. Without a status the task is completed."""
    data = _task_keys(raw, path)
    if "status" not in data:
        data = {**data, "status": {"state": data.get("state") or "completed"}}
        data.pop("state", None)
    elif isinstance(data["status"], str):
        data = {**data, "status": {"state": data["status"]}}
    return check(m.Task, task_in(data, path), path)


def _card(raw: Any, path: str) -> tuple[m.AgentCard | None, ProtocolError | None]:
    from .card import decode_card

    try:
        return decode_card(raw, path), None
    except ProtocolError as exc:
        return None, exc


def registration(raw: Any, path: str = "$.params") -> Registration:
    data = obj(raw if raw is not None else {}, path)
    card_raw = None
    where = path
    for key in ("card", "agent_card", "agentCard"):
        if isinstance(data.get(key), dict):
            card_raw, where = data[key], f"{path}.{key}"
            break
    if card_raw is None and ("skills" in data or "capabilities" in data):
        card_raw = data  # the params are the card itself
    name = None
    for source in (data, card_raw if isinstance(card_raw, dict) else {}):
        for key in ("name", "agent_name", "agentName"):
            value = source.get(key)
            if isinstance(value, str) and value:
                name = value
                break
        if name:
            break
    card = error = None
    if card_raw is not None:
        card, error = _card(card_raw, where)
    return Registration(name, card, card_raw, error)


def search(raw: Any, path: str = "$.params") -> Search:
    data = obj(raw if raw is not None else {}, path)
    query = data.get("query", data.get("q", data.get("text", "")))
    if query is None:
        query = ""
    query = string(query, (path, "query"))
    tags_raw = data.get("tags") or []
    if isinstance(tags_raw, str):
        tags_raw = [tags_raw]
    if not isinstance(tags_raw, list):
        raise fail(f"expected an array of strings, got {type_name(tags_raw)}", (path, "tags"))
    tags = tuple(string(t, ((path, "tags"), i)) for i, t in enumerate(tags_raw))
    skill = data.get("skill", data.get("skill_used", data.get("skillId")))
    if skill is not None:
        skill = string(skill, (path, "skill"))
    limit = data.get("limit", data.get("top_k"))
    if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 1):
        raise fail("expected a whole number of 1 or more", (path, "limit"))
    return Search(query, tags, skill, limit)


def delegation(raw: Any, path: str = "$.params") -> Delegation:
    data = dict(obj(raw, path))
    target = None
    for key in ("agent", "agent_name", "agentName", "to", "executor", "target"):
        value = data.pop(key, None)
        if isinstance(value, dict):
            value = value.get("name")
        if isinstance(value, str) and value and target is None:
            target = value
    meta = data.get("metadata")
    if target is None and isinstance(meta, dict):
        executor = meta.get("executor")
        value = executor.get("name") if isinstance(executor, dict) else executor
        if isinstance(value, str) and value:
            target = value
    parent = data.pop("parent_task_id", None) or data.pop("parentTaskId", None)
    if parent is None and isinstance(meta, dict):
        parent = meta.get(PARENT_KEY)
    if parent is not None and not isinstance(parent, str):
        parent = str(parent) if isinstance(parent, int) and not isinstance(parent, bool) else None
    stream = bool(data.pop("stream", False) is True)
    data = _task_keys(data, path)
    if "id" not in data:
        # The hub picks the child task's id when the agent leaves it out.
        data["id"] = ""
    if "message" not in data and isinstance(data.get("text"), str):
        data["message"] = {"role": "user", "parts": [{"type": "text", "text": data.pop("text")}]}
    params = _CODEC.decode_params(Method.SEND, data, path)
    if not params.message.task_id:
        params.message.task_id = None
    return Delegation(target, params, parent, stream)


# ---------------------------------------------------------------------- encoding


def request(method: str, params: Any, rpc_id: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"jsonrpc": "2.0", "id": rpc_id, "method": method}
    if params is not None:
        out["params"] = params
    return out


def notification(method: str, params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": method, "params": params}


def result(rpc_id: Any, value: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rpc_id, "result": value}


def error(rpc_id: Any, err: JsonRpcError) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rpc_id, "error": err.to_wire()}


def send_request(params: m.SendParams, *, stream: bool, rpc_id: Any) -> dict[str, Any]:
    """tasks/send or tasks/sendSubscribe for an agent, in the 0.1 spelling."""
    return _CODEC.encode_request(Method.STREAM if stream else Method.SEND, params, rpc_id)


def task_request(method: Method, task_id: str, rpc_id: Any) -> dict[str, Any]:
    return _CODEC.encode_request(
        method, m.TaskIdParams(id=task_id) if method is not Method.GET else m.TaskQueryParams(id=task_id), rpc_id
    )


def encode_task(task: m.Task) -> dict[str, Any]:
    return task_out(task.wire())


def encode_message(message: m.Message) -> dict[str, Any]:
    out: dict[str, Any] = _CODEC.encode_event(message)
    return out


def status_params(event: m.TaskStatusUpdateEvent) -> dict[str, Any]:
    out: dict[str, Any] = _CODEC.encode_event(event)
    if event.context_id is not None:
        out = {"id": out.pop("id"), "sessionId": event.context_id, **out}
    return out


def artifact_params(event: m.TaskArtifactUpdateEvent) -> dict[str, Any]:
    out: dict[str, Any] = _CODEC.encode_event(event)
    if event.context_id is not None:
        out = {"id": out.pop("id"), "sessionId": event.context_id, **out}
    return out


def dumps(doc: Any) -> str:
    """A frame's text: compact, UTF-8 kept as is."""
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":"))
