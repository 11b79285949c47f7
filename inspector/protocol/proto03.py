"""0.3's HTTP+JSON payloads: the ProtoJSON of the 0.3 ``a2a.v1`` proto, as the 1.0 ProtoJSON
the 1.0 codec reads and writes.

0.3's REST binding does not carry the 0.3 JSON-RPC shapes (``kind`` tags, lower-case
roles) but the proto's JSON mapping, which is close to 1.0's. The differences, mapped
here in both directions so that 0.3 over REST reuses the 1.0 codec:

  - a message's parts are ``content``; roles and states are enum names, and the
    canceled state is spelled ``TASK_STATE_CANCELLED``;
  - a file part is ``{"file": {"fileWithUri" | "fileWithBytes", "mimeType", "name"}}``
    and a data part ``{"data": {"data": {...}}}`` (1.0: ``url``/``raw`` + ``mediaType``
    + ``filename`` on the part, ``data`` holding the value itself);
  - a status update carries ``final``;
  - the send configuration has ``blocking`` and ``pushNotification``
    (1.0: ``returnImmediately`` and ``taskPushNotificationConfig``); absent, the proto3
    bool ``blocking`` is false, so a 0.3 configuration without it is non-blocking;
  - a push config is ``{"name": "tasks/T/pushNotificationConfigs/C",
    "pushNotificationConfig": {id, url, token, authentication{schemes, credentials}}}``
    (1.0: one flat object with ``taskId``).
"""

from __future__ import annotations

import re
from typing import Any

_PUSH_NAME = re.compile(r"tasks/([^/]+)/pushNotificationConfigs(?:/([^/]*))?")


def _d(value: Any) -> dict[str, Any] | None:
    return value if isinstance(value, dict) else None


def _task(t: dict[str, Any], status: Any, message: Any, artifact: Any) -> dict[str, Any]:
    """A task with its status, history and artifacts mapped (one way or the other)."""
    out = dict(t)
    if "status" in t:
        out["status"] = status(t["status"])
    if isinstance(t.get("history"), list):
        out["history"] = [message(x) for x in t["history"]]
    if isinstance(t.get("artifacts"), list):
        out["artifacts"] = [artifact(x) for x in t["artifacts"]]
    return out


# ---------------------------------------------------------------------- 1.0 -> 0.3


def part_to03(part: Any) -> Any:
    p = _d(part)
    if p is None or "text" in p:
        return part
    if "raw" in p or "url" in p:
        f: dict[str, Any] = {}
        if "url" in p:
            f["fileWithUri"] = p["url"]
        if "raw" in p:
            f["fileWithBytes"] = p["raw"]
        if "mediaType" in p:
            f["mimeType"] = p["mediaType"]
        if "filename" in p:
            f["name"] = p["filename"]
        out = {k: v for k, v in p.items() if k not in ("raw", "url", "mediaType", "filename")}
        out["file"] = f
        return out
    if "data" in p:
        return {**p, "data": {"data": p["data"]}}
    return part


def message_to03(msg: Any) -> Any:
    m = _d(msg)
    if m is None:
        return msg
    out = {k: v for k, v in m.items() if k != "parts"}
    if isinstance(m.get("parts"), list):
        out["content"] = [part_to03(p) for p in m["parts"]]
    return out


def _state_to03(state: Any) -> Any:
    return "TASK_STATE_CANCELLED" if state == "TASK_STATE_CANCELED" else state


def status_to03(status: Any) -> Any:
    s = _d(status)
    if s is None:
        return status
    out = dict(s)
    if "state" in s:
        out["state"] = _state_to03(s["state"])
    if s.get("message") is not None:
        out["message"] = message_to03(s["message"])
    return out


def artifact_to03(art: Any) -> Any:
    a = _d(art)
    if a is None or not isinstance(a.get("parts"), list):
        return art
    return {**a, "parts": [part_to03(p) for p in a["parts"]]}


def task_to03(task: Any) -> Any:
    t = _d(task)
    return task if t is None else _task(t, status_to03, message_to03, artifact_to03)


def event_to03(event: Any, final: bool | None = None) -> Any:
    """A 1.0 StreamResponse (or SendMessageResponse) -> 0.3's. ``final``: the status
    update's flag, which 1.0 has dropped."""
    e = _d(event)
    if e is None:
        return event
    if "task" in e:
        return {**e, "task": task_to03(e["task"])}
    if "message" in e:
        return {**e, "message": message_to03(e["message"])}
    if "statusUpdate" in e:
        su = dict(_d(e["statusUpdate"]) or {})
        if "status" in su:
            su["status"] = status_to03(su["status"])
        if final is not None:
            su["final"] = final
        return {**e, "statusUpdate": su}
    if "artifactUpdate" in e:
        au = dict(_d(e["artifactUpdate"]) or {})
        if "artifact" in au:
            au["artifact"] = artifact_to03(au["artifact"])
        return {**e, "artifactUpdate": au}
    return event


def _auth_to03(auth: Any) -> Any:
    a = _d(auth)
    if a is None:
        return auth
    out = {k: v for k, v in a.items() if k != "scheme"}
    if "scheme" in a:
        out["schemes"] = [a["scheme"]]
    return out


def push_config_to03(config: Any) -> dict[str, Any]:
    """A flat 1.0 push config (no taskId) -> 0.3's PushNotificationConfig."""
    out = dict(_d(config) or {})
    out.pop("taskId", None)
    out.pop("tenant", None)
    if "authentication" in out:
        out["authentication"] = _auth_to03(out["authentication"])
    return out


def push_to03(push: Any) -> Any:
    """A 1.0 TaskPushNotificationConfig -> 0.3's {name, pushNotificationConfig}."""
    p = _d(push)
    if p is None:
        return push
    name = f"tasks/{p.get('taskId', '')}/pushNotificationConfigs/{p.get('id', '')}"
    return {"name": name, "pushNotificationConfig": push_config_to03(p)}


def send_to03(params: Any) -> Any:
    """A 1.0 SendMessageRequest -> 0.3's."""
    p = _d(params)
    if p is None:
        return params
    out = {k: v for k, v in p.items() if k != "tenant"}
    if "message" in p:
        out["message"] = message_to03(p["message"])
    conf = _d(p.get("configuration"))
    if conf is not None:
        c = {k: v for k, v in conf.items() if k not in ("returnImmediately", "taskPushNotificationConfig")}
        # A proto3 bool that is absent is false: 0.3 has no way to say "the default", so
        # blocking (1.0's default) is spelled out.
        c["blocking"] = not conf.get("returnImmediately", False)
        if _d(conf.get("taskPushNotificationConfig")) is not None:
            c["pushNotification"] = push_config_to03(conf["taskPushNotificationConfig"])
        out["configuration"] = c
    return out


# ---------------------------------------------------------------------- 0.3 -> 1.0


def part_from03(part: Any) -> Any:
    p = _d(part)
    if p is None:
        return part
    f = _d(p.get("file"))
    if f is not None and "text" not in p:
        out = {k: v for k, v in p.items() if k != "file"}
        if "fileWithUri" in f:
            out["url"] = f["fileWithUri"]
        if "fileWithBytes" in f:
            out["raw"] = f["fileWithBytes"]
        if "mimeType" in f:
            out["mediaType"] = f["mimeType"]
        if "name" in f:
            out["filename"] = f["name"]
        return out
    data = _d(p.get("data"))
    if data is not None and set(data) == {"data"} and "text" not in p:
        return {**p, "data": data["data"]}
    return part


def message_from03(msg: Any) -> Any:
    m = _d(msg)
    if m is None:
        return msg
    out = dict(m)
    key = "content" if "content" in m and "parts" not in m else "parts"
    if isinstance(m.get(key), list):
        out.pop("content", None)
        out["parts"] = [part_from03(p) for p in m[key]]
    return out


def status_from03(status: Any) -> Any:
    s = _d(status)
    if s is None:
        return status
    out = dict(s)
    if s.get("state") == "TASK_STATE_CANCELLED":
        out["state"] = "TASK_STATE_CANCELED"
    if s.get("message") is not None:
        out["message"] = message_from03(s["message"])
    return out


def artifact_from03(art: Any) -> Any:
    a = _d(art)
    if a is None:
        return art
    return message_from03(a)  # parts (or a stray "content"), mapped the same way


def task_from03(task: Any) -> Any:
    t = _d(task)
    return task if t is None else _task(t, status_from03, message_from03, artifact_from03)


def event_from03(event: Any) -> Any:
    e = _d(event)
    if e is None:
        return event
    out = dict(e)
    if "task" in e:
        out["task"] = task_from03(e["task"])
    elif "message" in e or "msg" in e:
        out["message"] = message_from03(out.pop("msg", None) or e.get("message"))
    elif "statusUpdate" in e:
        su = dict(_d(e["statusUpdate"]) or {})
        if "status" in su:
            su["status"] = status_from03(su["status"])
        out["statusUpdate"] = su
    elif "artifactUpdate" in e:
        au = dict(_d(e["artifactUpdate"]) or {})
        if "artifact" in au:
            au["artifact"] = artifact_from03(au["artifact"])
        out["artifactUpdate"] = au
    return out


def _auth_from03(auth: Any) -> Any:
    a = _d(auth)
    if a is None:
        return auth
    out = {k: v for k, v in a.items() if k != "schemes"}
    schemes = a.get("schemes")
    if isinstance(schemes, list) and schemes:
        out["scheme"] = schemes[0]
    return out


def push_config_from03(config: Any) -> dict[str, Any]:
    out = dict(_d(config) or {})
    if "authentication" in out:
        out["authentication"] = _auth_from03(out["authentication"])
    return out


def push_name(name: Any) -> tuple[str | None, str | None]:
    """``tasks/T/pushNotificationConfigs/C`` -> (T, C); (None, None) when it is not one."""
    match = _PUSH_NAME.fullmatch(name) if isinstance(name, str) else None
    if match is None:
        return None, None
    return match.group(1), match.group(2) or None


def push_from03(push: Any, task_id: str | None = None) -> Any:
    """0.3's {name, pushNotificationConfig} -> a flat 1.0 TaskPushNotificationConfig."""
    p = _d(push)
    if p is None:
        return push
    if "pushNotificationConfig" not in p and "url" in p:
        return {**p, "taskId": p.get("taskId") or task_id}  # already flat
    named_task, named_id = push_name(p.get("name"))
    out = push_config_from03(p.get("pushNotificationConfig"))
    out["taskId"] = named_task or task_id or ""
    if "id" not in out and named_id:
        out["id"] = named_id
    return out


def send_from03(params: Any) -> Any:
    p = _d(params)
    if p is None:
        return params
    out = dict(p)
    if "message" in p or "request" in p:
        out["message"] = message_from03(out.pop("request", None) or p.get("message"))
    conf = _d(p.get("configuration"))
    if conf is not None:
        c = {k: v for k, v in conf.items() if k not in ("blocking", "pushNotification")}
        # Absent, the proto3 bool is false: a configuration without it is non-blocking
        # (as a2a-sdk's 0.3 handler reads it; its 0.3 client omits a false one).
        c["returnImmediately"] = not conf.get("blocking", False)
        if _d(conf.get("pushNotification")) is not None:
            c["taskPushNotificationConfig"] = push_config_from03(conf["pushNotification"])
        out["configuration"] = c
    return out
