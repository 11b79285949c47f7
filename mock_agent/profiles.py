"""The seed systems as profiles: each one's method surface, endpoints, limits and quirks.

A profile is served in the 0.1 dialect (all four seeds speak the draft) with its own
method table, so a method the system does not have is -32601 exactly as there, and
with hooks for what its documentation shows on the wire that the draft does not say.
Behaviour (what a message gets back) still comes from a scenario: each profile names a
built-in one with the system's card, used when the user gives none.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from inspector.protocol import models as m
from inspector.protocol.dialects import get_dialect
from inspector.protocol.dialects.base import Dialect
from inspector.protocol.errors import JsonRpcError
from inspector.protocol.methods import Method
from inspector.protocol.sizes import MiB


@dataclass(frozen=True)
class Profile:
    name: str
    seeds: str
    summary: str
    #: Built-in scenario used when the user names none.
    scenario: str
    #: Normalised method -> the wire name this system uses; nothing else is served.
    methods: dict[Method, str]
    dialect: str = "0.1"
    #: Paths that take JSON-RPC POSTs.
    endpoints: tuple[str, ...] = ("/",)
    #: Orloj: per-system endpoints, /v1/agent-systems/{name}/a2a (and the legacy
    #: /v1/agents/{name}/a2a); a name other than the scenario's is -32003.
    agent_systems: bool = False
    max_body: int = MiB
    #: A blocking send still unsettled after this many seconds gets -32603.
    request_timeout: float | None = None
    #: SSE ``event:`` name for every event (Orloj: "status").
    sse_event: str | None = None
    #: Stream the whole task on each status change instead of update events (Orloj).
    full_task_events: bool = False
    #: Start a stream with the task as submitted (a2a-sdk does; Orloj starts at working).
    initial_event: bool = True
    heartbeat: float | None = None
    heartbeat_comment: str = "heartbeat"
    #: Error code -> message template ({method}, {task_id}).
    messages: dict[int, str] = field(default_factory=dict)
    #: Error code -> data builder, given the task id (may be None).
    error_data: dict[int, Callable[[str | None], Any]] = field(default_factory=dict)
    #: Rewrites an encoded task (send/get results, full-task events) into the system's shape.
    shape_task: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    #: Rewrites the encoded card into the system's shape.
    shape_card: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    #: Task metadata for a new task, from the send params and the card.
    task_metadata: Callable[[m.SendParams, m.AgentCard], dict[str, Any] | None] | None = None

    def codec(self) -> Dialect:
        base = type(get_dialect(self.dialect))
        cls: type[Dialect] = type(
            f"{base.__name__}_{self.name.replace('-', '_')}",
            (base,),
            {
                "methods": dict(self.methods),
                "method_aliases": {},
            },
        )
        return cls()

    def error(self, err: JsonRpcError, method: str | None = None, task_id: str | None = None) -> JsonRpcError:
        template = self.messages.get(err.code)
        build = self.error_data.get(err.code)
        if template is None and build is None:
            return err
        message = template.format(method=method or "", task_id=task_id or "") if template else err.message
        data = build(task_id) if build is not None else err.data
        return JsonRpcError(err.code, message, data)


# ------------------------------------------------------------------ seed 000: Society


def _society_task(task: dict[str, Any]) -> dict[str, Any]:
    # Society's documented result: status.message is a string ("" when there is none),
    # "messages" is an empty list, artifacts carry name and parts, and there is no
    # sessionId: the task id is the thread.
    status = dict(task.get("status") or {})
    msg = status.get("message")
    if isinstance(msg, dict):
        status["message"] = "".join(p.get("text", "") for p in msg.get("parts", ()) if isinstance(p, dict))
    else:
        status["message"] = msg if isinstance(msg, str) else ""
    status.pop("timestamp", None)
    artifacts = [{k: v for k, v in a.items() if k in ("name", "parts")} for a in task.get("artifacts") or ()]
    return {"id": task.get("id"), "status": status, "messages": [], "artifacts": artifacts}


_SOCIETY_CARD_KEYS = ("name", "description", "url", "skills", "capabilities")


def _society_card(card: dict[str, Any]) -> dict[str, Any]:
    # The documented card has these five keys and no others (no version, no modes).
    return {key: card[key] for key in _SOCIETY_CARD_KEYS if key in card}


SOCIETY = Profile(
    name="society",
    seeds="000",
    summary="Society: card + tasks/send only, everything else -32601, 1 MiB body limit, 30 s timeout",
    scenario="society",
    methods={Method.SEND: "tasks/send"},
    request_timeout=30.0,
    messages={-32601: "method not found: {method}"},
    error_data={-32601: lambda task_id: None},
    shape_task=_society_task,
    shape_card=_society_card,
)


# --------------------------------------------------------------- seed 001: Society AI


_PASSED_ON = ("requester", "executor", "skill_used", "user_id", "chat_id")


def _society_ai_metadata(params: m.SendParams, card: m.AgentCard) -> dict[str, Any]:
    given = params.metadata or {}
    out: dict[str, Any] = {key: given[key] for key in _PASSED_ON if key in given}
    out.setdefault("requester", {"name": "unknown"})
    out.setdefault("executor", {"name": card.name or "agent"})
    if "skill_used" not in out and card.skills:
        out["skill_used"] = card.skills[0].id
    # The agent reports what the task cost; the mock's tasks are free.
    out["cost"] = {"amount": 0.0, "currency": "USD", "breakdown": {"infrastructure": 0.0}}
    return out


SOCIETY_AI = Profile(
    name="society-ai",
    seeds="001",
    summary="Society AI: 0.1 + sessionId, tasks/list, task/resubscribe, extended metadata",
    scenario="society-ai",
    methods={
        Method.SEND: "tasks/send",
        Method.STREAM: "tasks/sendSubscribe",
        Method.GET: "tasks/get",
        Method.LIST: "tasks/list",
        Method.CANCEL: "tasks/cancel",
        Method.RESUBSCRIBE: "task/resubscribe",
    },
    task_metadata=_society_ai_metadata,
)


# ------------------------------------------------------------ seeds 002, 004: the draft


DRAFT = Profile(
    name="draft",
    seeds="002, 004",
    summary="the 0.1 draft: every method, push notification set/get and resubscribe",
    scenario="draft",
    methods={
        Method.SEND: "tasks/send",
        Method.STREAM: "tasks/sendSubscribe",
        Method.GET: "tasks/get",
        Method.CANCEL: "tasks/cancel",
        Method.RESUBSCRIBE: "tasks/resubscribe",
        Method.PUSH_SET: "tasks/pushNotification/set",
        Method.PUSH_GET: "tasks/pushNotification/get",
    },
)


# ------------------------------------------------------------------ seed 003: Orloj


def _orloj_task(task: dict[str, Any]) -> dict[str, Any]:
    # Orloj's A2ATask: id, status, artifacts, history, metadata (map[string]string);
    # no sessionId. The stream's last event carries "artifacts": [] even when empty.
    out = {k: v for k, v in task.items() if k != "sessionId"}
    state = (out.get("status") or {}).get("state")
    if "artifacts" not in out and state in ("completed", "failed", "canceled", "rejected"):
        out["artifacts"] = []
    if isinstance(out.get("metadata"), dict):
        out["metadata"] = {str(k): v if isinstance(v, str) else str(v) for k, v in out["metadata"].items()}
    return out


ORLOJ = Profile(
    name="orloj",
    seeds="003",
    summary="Orloj: /a2a and /v1/agent-systems/{name}/a2a, `event: status` full-task SSE, "
    ": heartbeat every 15 s, rejected state, -32003 agent not found",
    scenario="orloj",
    methods={
        Method.SEND: "tasks/send",
        Method.STREAM: "tasks/sendSubscribe",
        Method.GET: "tasks/get",
        Method.CANCEL: "tasks/cancel",
    },
    endpoints=("/a2a",),
    agent_systems=True,
    sse_event="status",
    full_task_events=True,
    initial_event=False,
    heartbeat=15.0,
    messages={
        -32001: "task not found",
        # Orloj's -32002 is "Task cancelled": the task is already over.
        -32002: "task cancelled",
        -32003: "agent not found",
    },
    error_data={-32001: lambda task_id: {"task_id": task_id} if task_id else None},
    shape_task=_orloj_task,
)

PROFILES: dict[str, Profile] = {p.name: p for p in (SOCIETY, SOCIETY_AI, DRAFT, ORLOJ)}


def get_profile(name: str) -> Profile:
    try:
        return PROFILES[name]
    except KeyError:
        raise ValueError(f"unknown profile {name!r}; profiles: {', '.join(PROFILES)}") from None
