"""Comparing what an agent answered with what a recording says it answered.

``a2a-inspect replay --against`` (headless/resend.py) sends a recording's A2A requests
again to a live agent; this module says what is compared: the states the task went
through, its artifacts (assembled, so chunking does not matter), the agent's status
message, a direct Message reply, JSON-RPC error codes, HTTP statuses and transport
failures. Ids and timestamps are never compared: the live agent assigns its own.

This module also holds the view of a recording as HTTP exchanges that the replaying
mock (mock_agent/replay.py) and the exporters (export_har/curl/scenario) share:
``exchanges()`` and the protocol-id helpers ``id_slots``/``rewrite_strings``.
"""

from __future__ import annotations

import hashlib
import itertools
import re
import uuid
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..protocol import models as m
from ..protocol.errors import JsonRpcError, ProtocolError
from .events import Kind
from .exchange import EventRefs, EventsByPosition, RecordedExchange
from .hub_bridge import bridge_exchanges
from .parts import PartList


# ---------------------------------------------------------------------- exchanges
def exchanges(events: EventsByPosition) -> list[RecordedExchange]:
    """The recording's HTTP exchanges, in the order their requests were sent."""
    out: dict[int, RecordedExchange] = {}
    ws: set[int] | None = None
    for position, event in enumerate(events):
        number = event.exchange
        kind = event.kind
        if kind is Kind.WS:
            # A hub recording: its relays are rebuilt as the bridge's exchanges (below).
            if ws is None:
                ws = set()
            if number:
                ws.add(number)
            continue
        if not number:
            continue
        if kind is Kind.REQUEST:
            out[number] = RecordedExchange(number, event)
            continue
        ex = out.get(number)
        if ex is None:
            continue
        if kind is Kind.RESPONSE:
            ex.response = event
        elif kind is Kind.SSE or kind is Kind.COMMENT or kind is Kind.MESSAGE:
            if ex.stream.__class__ is list and not ex.stream:
                ex.stream = EventRefs(events)
            ex.stream.append(position)
        elif kind is Kind.STREAM_END:
            ex.end = event
        elif kind is Kind.ERROR:
            ex.errors.append(event)
    if ws is None:
        return list(out.values())
    numbers = ws - out.keys()
    rebuilt = bridge_exchanges(events, numbers, max([0, *out.keys(), *ws]) + 1)
    return sorted([*out.values(), *rebuilt], key=lambda ex: ex.request.seq)


# ---------------------------------------------------------------------- protocol ids

#: Keys whose string values are protocol ids (task, context, message, push config).
ID_KEYS = frozenset(
    {
        "id",
        "taskId",
        "contextId",
        "sessionId",
        "messageId",
        "task_id",
        "context_id",
        "session_id",
        "referenceTaskIds",
        "pushNotificationConfigId",
    }
)
#: Subtrees whose "id"s are content, not protocol ids: message/artifact parts, card skills.
_SKIP_KEYS = frozenset({"parts", "skills"})

Path = tuple[Any, ...]


def id_slots(obj: Any, path: Path = ()) -> Iterator[tuple[Path, str]]:
    """(path, value) of every protocol id in a JSON document. The JSON-RPC envelope's
    own ``id`` is not one (a dict with ``jsonrpc`` is an envelope)."""
    if isinstance(obj, dict):
        envelope = "jsonrpc" in obj
        for key, value in obj.items():
            if key in _SKIP_KEYS:
                continue
            if key in ID_KEYS and not (envelope and key == "id"):
                if isinstance(value, str):
                    yield path + (key,), value
                    continue
                if isinstance(value, list) and all(isinstance(v, str) for v in value):
                    for i, v in enumerate(value):
                        yield path + (key, i), v
                    continue
            if isinstance(value, (dict, list)):
                yield from id_slots(value, path + (key,))
    elif isinstance(obj, list):
        for i, value in enumerate(obj):
            if isinstance(value, (dict, list)):
                yield from id_slots(value, path + (i,))


#: Ids a client may or may not send for the same request (a context with the task id,
#: a message id): left out of the masked form, so their absence is no difference.
OPTIONAL_IDS = frozenset({"contextId", "sessionId", "context_id", "session_id", "messageId"})


def mask_ids(obj: Any, drop: frozenset[str] = frozenset()) -> Any:
    """A copy with every protocol id replaced by ``"<id>"`` (and the keys in ``drop``
    left out): content to compare."""
    if isinstance(obj, dict):
        envelope = "jsonrpc" in obj
        out: dict[str, Any] = {}
        for key, value in obj.items():
            if key in drop and isinstance(value, str):
                continue
            if key in _SKIP_KEYS:
                out[key] = value
            elif (
                key in ID_KEYS
                and not (envelope and key == "id")
                and (isinstance(value, str) or (isinstance(value, list) and all(isinstance(v, str) for v in value)))
            ):
                out[key] = "<id>" if isinstance(value, str) else ["<id>"] * len(value)
            else:
                out[key] = mask_ids(value, drop)
        return out
    if isinstance(obj, list):
        return [mask_ids(v, drop) for v in obj]
    return obj


def set_path(obj: Any, path: Path, value: Any) -> None:
    for key in path[:-1]:
        obj = obj[key]
    obj[path[-1]] = value


#: Ids shorter than this are replaced only where a whole string equals them; longer
#: ones (UUIDs) also inside text ("task 1b2c... created", "tasks/1b2c...").
LONG_ID = 12


#: Ids shorter than this are only replaced where they stand as an id (under an id key).
SHORT_ID = 8


class Rewriter:
    """Replaces ids by a table: a string equal to a key (short keys only under an id
    key: "1" is an id there and a number in a text), and any long key inside a longer
    string (an id quoted in a message, an origin in a URL)."""

    def __init__(self, table: Mapping[str, str]) -> None:
        self.table = {k: v for k, v in table.items() if k != v}
        longs = sorted((k for k in self.table if len(k) >= LONG_ID), key=len, reverse=True)
        self._regex = re.compile("|".join(map(re.escape, longs))) if longs else None

    def __bool__(self) -> bool:
        return bool(self.table)

    def string(self, text: str, as_id: bool = True) -> str:
        if as_id or len(text) >= SHORT_ID:
            hit = self.table.get(text)
            if hit is not None:
                return hit
        if self._regex is not None and len(text) >= LONG_ID:
            return self._regex.sub(lambda mt: self.table[mt.group()], text)
        return text

    def __call__(self, obj: Any, key: Any = None) -> Any:
        if not self.table:
            return obj
        if isinstance(obj, str):
            return self.string(obj, key in ID_KEYS)
        if isinstance(obj, dict):
            return {k: self(v, k) for k, v in obj.items()}
        if isinstance(obj, list):
            return [self(v, key) for v in obj]
        return obj


_UUID = re.compile(r"[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}")


def fresh_id(like: str) -> str:
    """A new id shaped like ``like``: a UUID for a UUID, else ``like`` plus a suffix."""
    if _UUID.fullmatch(like):
        return str(uuid.uuid4())
    return f"{like}-{uuid.uuid4().hex[:8]}"


# ---------------------------------------------------------------------- outcomes


def _parts(parts: Any) -> list[Any]:
    """Parts for comparison: adjacent text joined (chunking does not count), metadata
    left out, inline file bytes as their size and hash."""
    out: list[Any] = []
    for p in (parts if isinstance(parts, PartList) else PartList(parts)).runs():
        if isinstance(p, str):
            out.append({"text": p})
        elif isinstance(p, m.DataPart):
            out.append({"data": p.data})
        elif isinstance(p, m.FilePart):
            f = p.file
            item: dict[str, Any] = {"name": f.name, "mimeType": f.mime_type}
            if f.uri is not None:
                item["uri"] = f.uri
            if f.bytes is not None:
                item["bytes"] = (
                    f"{len(f.bytes)} base64 chars, sha256 {hashlib.sha256(f.bytes.encode()).hexdigest()[:16]}"
                )
            out.append({"file": item})
    return out


def message_text(msg: m.Message | None) -> str | None:
    if msg is None:
        return None
    texts = [p.text for p in msg.parts if isinstance(p, m.TextPart)]
    others = len(msg.parts) - len(texts)
    text = "".join(texts) if texts else ""
    if others:
        text += f" (+{others} part{'s' if others > 1 else ''})"
    return text


@dataclass
class Outcome:
    """What one exchange came to, without ids or times: the facts a diff compares."""

    exchange: int
    method: str | None
    text: str
    http_status: int | None = None
    #: The JSON-RPC error code (its message is shown, not compared: it often holds ids).
    error: int | None = None
    error_message: str | None = None
    #: Transport or decode failures: "stream", "http", "timeout", "protocol"...
    failures: list[str] = field(default_factory=list)
    #: "task 1", "task 2": which task of the session, in order of first appearance.
    task: str | None = None
    states: list[str] = field(default_factory=list)
    #: The last status message's text.
    message: str | None = None
    #: A direct Message reply's text.
    reply: str | None = None
    #: [{name, parts}] in order of first appearance, assembled from chunks.
    artifacts: list[dict[str, Any]] = field(default_factory=list)
    #: For list: each task's state.
    listed: list[str] | None = None
    #: The live request could not be made (nothing was sent).
    skipped: str | None = None

    COMPARED = ("http_status", "error", "failures", "reply", "task", "states", "message", "artifacts", "listed")

    def to_json(self) -> dict[str, Any]:
        out = {
            "exchange": self.exchange,
            "method": self.method,
            "text": self.text,
            "httpStatus": self.http_status,
            "error": self.error,
            "errorMessage": self.error_message,
            "failures": self.failures,
            "task": self.task,
            "states": self.states,
            "message": self.message,
            "reply": self.reply,
            "artifacts": self.artifacts,
        }
        if self.listed is not None:
            out["listed"] = self.listed
        if self.skipped is not None:
            out["skipped"] = self.skipped
        return out


class TaskLabels:
    """Task ids -> "task 1", "task 2" in order of first sight."""

    def __init__(self) -> None:
        self._ids: dict[str, str] = {}

    def __call__(self, task_id: str | None) -> str | None:
        if task_id is None:
            return None
        label = self._ids.get(task_id)
        if label is None:
            label = self._ids[task_id] = f"task {len(self._ids) + 1}"
        return label


def outcome(ex: RecordedExchange, label: Callable[[str | None], str | None]) -> Outcome:
    """The comparable facts of one exchange, from its events' payloads."""
    out = Outcome(ex.number, ex.a2a_method, ex.text())
    task_id: str | None = None
    artifacts: dict[str, dict[str, Any]] = {}
    states: list[str] = []
    if ex.response is not None:
        out.http_status = ex.response.data.get("status")
    items = itertools.chain(
        [ex.response] if ex.response is not None else [],
        (e for e in ex.stream if e.kind is Kind.SSE or e.kind is Kind.MESSAGE),
    )
    for event in items:
        p = event.payload
        if p is None:
            continue
        if isinstance(p, m.Task):
            task_id = task_id or p.id
            states.append(p.status.state.value)
            if p.status.message is not None:
                out.message = message_text(p.status.message)
            if p.artifacts:
                artifacts = {}
                for pos, art in enumerate(p.artifacts):
                    key = art.artifact_id or f"[{art.index if art.index is not None else pos}]"
                    artifacts[key] = {"name": art.name, "parts": PartList(art.parts)}
        elif isinstance(p, m.TaskStatusUpdateEvent):
            task_id = task_id or p.task_id
            states.append(p.status.state.value)
            if p.status.message is not None:
                out.message = message_text(p.status.message)
        elif isinstance(p, m.TaskArtifactUpdateEvent):
            task_id = task_id or p.task_id
            art = p.artifact
            append = p.append if p.append is not None else art.append
            key = art.artifact_id or f"[{art.index or 0}]"
            slot = artifacts.get(key)
            if slot is None or not append:
                artifacts[key] = {
                    "name": art.name if art.name is not None else (slot or {}).get("name"),
                    "parts": PartList(art.parts),
                }
            else:
                slot["parts"].extend(art.parts)
                if art.name is not None:
                    slot["name"] = art.name
        elif isinstance(p, m.Message):
            out.reply = message_text(p)
            if p.task_id:
                task_id = task_id or p.task_id
        elif isinstance(p, m.ListTasksResult):
            out.listed = [t.status.state.value for t in p.tasks]
        elif isinstance(p, JsonRpcError):
            if out.error is None:
                out.error, out.error_message = p.code, p.message
        elif isinstance(p, ProtocolError):
            out.failures.append("protocol")
    for event in ex.errors:
        kind = event.data.get("type")
        if isinstance(kind, str) and kind not in out.failures:
            out.failures.append(kind)
    collapsed: list[str] = []
    for state in states:
        if not collapsed or collapsed[-1] != state:
            collapsed.append(state)
    out.states = collapsed
    out.task = label(task_id)
    out.artifacts = [{"name": a["name"], "parts": _parts(a["parts"])} for a in artifacts.values()]
    return out


@dataclass
class Difference:
    field: str
    recorded: Any
    live: Any

    def to_json(self) -> dict[str, Any]:
        return {"field": self.field, "recorded": self.recorded, "live": self.live}


def compare(recorded: Outcome, live: Outcome) -> list[Difference]:
    out = []
    for name in Outcome.COMPARED:
        a, b = getattr(recorded, name), getattr(live, name)
        if name == "http_status":
            # Only a non-2xx status is a behaviour worth comparing.
            a = a if a is not None and not 200 <= a < 300 else None
            b = b if b is not None and not 200 <= b < 300 else None
        if a != b:
            out.append(Difference(name, a, b))
    return out


@dataclass
class ExchangeDiff:
    recorded: Outcome
    live: Outcome | None
    live_exchange: int | None
    differences: list[Difference]

    @property
    def same(self) -> bool:
        return not self.differences

    def to_json(self) -> dict[str, Any]:
        return {
            "exchange": self.recorded.exchange,
            "liveExchange": self.live_exchange,
            "method": self.recorded.method,
            "text": self.recorded.text,
            "same": self.same,
            "differences": [d.to_json() for d in self.differences],
            "recorded": self.recorded.to_json(),
            "live": self.live.to_json() if self.live is not None else None,
        }


@dataclass
class DiffReport:
    against: str
    exchanges: list[ExchangeDiff] = field(default_factory=list)
    #: Remarks: recorded exchanges not re-sent and why, headers not re-sent...
    notes: list[str] = field(default_factory=list)
    #: The agent could not be reached (the comparison is incomplete): exit 3.
    transport_error: str | None = None

    @property
    def equivalent(self) -> bool:
        return self.transport_error is None and all(d.same for d in self.exchanges)

    def to_json(self) -> dict[str, Any]:
        differ = sum(1 for d in self.exchanges if not d.same)
        return {
            "against": self.against,
            "equivalent": self.equivalent,
            "compared": len(self.exchanges),
            "differ": differ,
            "transportError": self.transport_error,
            "notes": self.notes,
            "exchanges": [d.to_json() for d in self.exchanges],
        }
