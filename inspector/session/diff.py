"""Re-sending a recording to a live agent and comparing what comes back.

``diff_against(recording, url)`` sends the recorded A2A requests again, in order, to a
live agent, in the dialect each was recorded in, and compares each answer with the
recorded one: the states the task went through, its artifacts (assembled, so chunking
does not matter), the agent's status message, a direct Message reply, JSON-RPC error
codes, HTTP statuses and transport failures. Ids and timestamps are never compared:
the live agent assigns its own, and each recorded task/context id is rewritten to the
one the live agent assigned before it is sent again (so a multi-turn conversation
continues on the live agent's task).

This module also holds the view of a recording as HTTP exchanges that the replaying
mock (mock_agent/replay.py) and the exporters (export_har/curl/scenario) share:
``exchanges()`` and the protocol-id helpers ``id_slots``/``rewrite_strings``.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import hashlib
import itertools
import json
import re
import uuid
from array import array
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from ..protocol import models as m
from ..protocol.errors import JsonRpcError, ProtocolError
from ..protocol.limits import loads
from .events import Event, Kind
from .log import Session
from .parts import PartList

# ---------------------------------------------------------------------- exchanges


@dataclass(eq=False)
class RecordedExchange:
    """One HTTP exchange of a recording: the request and everything that answered it."""

    number: int
    request: Event
    response: Event | None = None
    #: SSE and COMMENT events, in order.
    #: Its SSE events and comments (EventRefs: read from the log as they are gone through).
    stream: Any = field(default_factory=list)
    end: Event | None = None
    #: ERROR events (transport failures, decode errors noted by the client).
    errors: list[Event] = field(default_factory=list)
    _json: Any = field(default=None, repr=False)
    _parsed: bool = field(default=False, repr=False)

    @property
    def data(self) -> dict[str, Any]:
        return self.request.data

    @property
    def http_method(self) -> str:
        return str(self.data.get("method") or "GET").upper()

    @property
    def url(self) -> str:
        return str(self.data.get("url") or "")

    @property
    def path(self) -> str:
        return urlsplit(self.url).path or "/"

    @property
    def origin(self) -> str:
        parts = urlsplit(self.url)
        return f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else ""

    @property
    def a2a_method(self) -> str | None:
        value = self.data.get("a2a_method")
        return value if isinstance(value, str) else None

    @property
    def rpc_method(self) -> str | None:
        value = self.data.get("rpc_method")
        return value if isinstance(value, str) else None

    @property
    def dialect(self) -> str | None:
        value = self.data.get("dialect")
        return value if isinstance(value, str) else None

    @property
    def streaming(self) -> bool:
        return bool(self.response is not None and self.response.data.get("streaming"))

    @property
    def binding(self) -> str:
        value = self.data.get("binding")
        return value if isinstance(value, str) and value else "jsonrpc"

    @property
    def body_json(self) -> Any:
        """The request body parsed as JSON (None when absent or not JSON). A REST
        request's is the 1.0 JSON-RPC request saying the same (rest.as_jsonrpc): the
        one form recorded requests of every binding are compared in."""
        if not self._parsed:
            self._parsed = True
            self._json = parse_body(self.data) if self.binding != "rest" else _rest_as_jsonrpc(self.data)
        return self._json

    @property
    def is_rpc(self) -> bool:
        body = self.body_json
        return (self.http_method == "POST" or self.binding == "rest") and isinstance(body, dict) \
            and isinstance(body.get("method"), str)

    @property
    def rpc_dialect(self) -> str | None:
        """The dialect ``body_json`` is in: the recorded one, or 1.0 for REST."""
        return "1.0" if self.binding == "rest" else self.dialect

    @property
    def last_t(self) -> float:
        times = [self.request.t]
        if self.response is not None:
            times.append(self.response.t)
        if self.stream:
            times.append(max(e.t for e in self.stream))
        if self.end is not None:
            times.append(self.end.t)
        times += [e.t for e in self.errors]
        return max(times)

    def header(self, name: str, response: bool = False) -> str | None:
        """A request (or response) header, by name, case-insensitively."""
        source = self.response.data if response and self.response is not None else self.data
        return header(source.get("headers"), name)

    def text(self) -> str:
        """The user's text for a send/stream, else a short summary of the params."""
        body = self.body_json
        params = body.get("params") if isinstance(body, dict) else None
        return request_text(params)


class EventRefs:
    """Events of a log by position (8 bytes each): a long stream's events are read from
    the log when gone through, not held (the log may keep them on disk)."""

    __slots__ = ("_log", "_positions")

    def __init__(self, log: Sequence[Event]) -> None:
        self._log = log
        self._positions = array("q")

    def append(self, position: int) -> None:
        self._positions.append(position)

    def __len__(self) -> int:
        return len(self._positions)

    def __bool__(self) -> bool:
        return len(self._positions) > 0

    def __getitem__(self, i: int) -> Event:
        return self._log[self._positions[i]]

    def __iter__(self) -> Iterator[Event]:
        log = self._log
        for position in self._positions:
            yield log[position]


def exchanges(events: Sequence[Event]) -> list[RecordedExchange]:
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
        elif kind is Kind.SSE or kind is Kind.COMMENT:
            if ex.stream.__class__ is list and not ex.stream:
                ex.stream = EventRefs(events)
            ex.stream.append(position)
        elif kind is Kind.STREAM_END:
            ex.end = event
        elif kind is Kind.ERROR:
            ex.errors.append(event)
    if ws is None:
        return list(out.values())
    from .hub_bridge import bridge_exchanges

    numbers = ws - out.keys()
    rebuilt = bridge_exchanges(events, numbers, max([0, *out.keys(), *ws]) + 1)
    return sorted([*out.values(), *rebuilt], key=lambda ex: ex.request.seq)


def header(headers: Any, name: str) -> str | None:
    low = name.lower()
    if isinstance(headers, dict):
        for key, value in headers.items():
            if isinstance(key, str) and key.lower() == low and isinstance(value, str):
                return value
    elif isinstance(headers, list):
        for pair in headers:
            if isinstance(pair, (list, tuple)) and len(pair) == 2 and str(pair[0]).lower() == low:
                return str(pair[1])
    return None


def body_bytes(data: dict[str, Any], key: str = "body") -> bytes | None:
    body = data.get(key)
    if not isinstance(body, str):
        return None
    if data.get(f"{key}_encoding") == "base64":
        try:
            return base64.b64decode(body, validate=True)
        except (binascii.Error, ValueError):
            return None
    return body.encode("utf-8")


def _rest_as_jsonrpc(data: dict[str, Any]) -> Any:
    from ..client import payloads  # (the client package imports this one)
    from ..protocol.methods import Method
    from ..protocol.rest import as_jsonrpc

    params = payloads.request_payload(data)
    try:
        method = Method(data.get("a2a_method"))
    except ValueError:
        return None
    if params is None:
        return None
    try:
        return as_jsonrpc(method, params)
    except (ProtocolError, JsonRpcError):
        return None


def parse_body(data: dict[str, Any]) -> Any:
    body = data.get("body")
    if not isinstance(body, str) or data.get("body_encoding") == "base64":
        return None
    try:
        return loads(body)
    except ValueError:
        return None


def sse_json(event: Event) -> Any:
    """An SSE event's data parsed as JSON (None when absent or not JSON)."""
    if event.kind is not Kind.SSE or event.data.get("raw_encoding") == "base64":
        return None
    text = event.data.get("data")
    if not isinstance(text, str):
        return None
    try:
        return loads(text)
    except ValueError:
        return None


def request_text(params: Any) -> str:
    """The text parts of a request's message, joined; else a summary of the params."""
    if not isinstance(params, dict):
        return ""
    message = params.get("message")
    if isinstance(message, dict):
        texts = [p["text"] for p in message.get("parts") or [] if isinstance(p, dict) and isinstance(p.get("text"), str)]
        return "\n".join(texts)
    bits = []
    for key in ("id", "taskId", "contextId", "status", "state"):
        value = params.get(key)
        if isinstance(value, (str, int)):
            bits.append(f"{key}={value}")
    return " ".join(bits)


# ---------------------------------------------------------------------- protocol ids

#: Keys whose string values are protocol ids (task, context, message, push config).
ID_KEYS = frozenset({"id", "taskId", "contextId", "sessionId", "messageId", "task_id", "context_id",
                     "session_id", "referenceTaskIds", "pushNotificationConfigId"})
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
            elif key in ID_KEYS and not (envelope and key == "id") and (
                    isinstance(value, str) or (isinstance(value, list) and all(isinstance(v, str) for v in value))):
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


def get_path(obj: Any, path: Path) -> Any:
    for key in path:
        obj = obj[key]
    return obj


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
                item["bytes"] = f"{len(f.bytes)} base64 chars, sha256 {hashlib.sha256(f.bytes.encode()).hexdigest()[:16]}"
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
        out = {"exchange": self.exchange, "method": self.method, "text": self.text,
               "httpStatus": self.http_status, "error": self.error, "errorMessage": self.error_message,
               "failures": self.failures, "task": self.task, "states": self.states,
               "message": self.message, "reply": self.reply, "artifacts": self.artifacts}
        if self.listed is not None:
            out["listed"] = self.listed
        if self.skipped is not None:
            out["skipped"] = self.skipped
        return out


class _Labels:
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
    items = itertools.chain([ex.response] if ex.response is not None else [],
                            (e for e in ex.stream if e.kind is Kind.SSE))
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
                artifacts[key] = {"name": art.name if art.name is not None else (slot or {}).get("name"),
                                  "parts": PartList(art.parts)}
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
        return {"exchange": self.recorded.exchange, "liveExchange": self.live_exchange,
                "method": self.recorded.method, "text": self.recorded.text, "same": self.same,
                "differences": [d.to_json() for d in self.differences],
                "recorded": self.recorded.to_json(),
                "live": self.live.to_json() if self.live is not None else None}


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
        return {"against": self.against, "equivalent": self.equivalent,
                "compared": len(self.exchanges), "differ": differ,
                "transportError": self.transport_error, "notes": self.notes,
                "exchanges": [d.to_json() for d in self.exchanges]}


# ---------------------------------------------------------------------- re-sending

#: The A2A methods re-sent (card GETs and dialect probes are the client's own business).
RESENT = frozenset({"send", "stream", "get", "cancel", "resubscribe", "push-set", "push-get",
                    "push-list", "push-delete", "list", "extended-card"})
#: Request headers the live client sets itself; everything else recorded is sent again.
_OWN_HEADERS = frozenset({"host", "content-length", "content-type", "accept", "accept-encoding",
                          "connection", "user-agent", "a2a-version", "transfer-encoding"})
#: Transport failures that mean the live agent was not reached, not that it behaved.
_UNREACHED = frozenset({"connect", "timeout"})


def recorded_headers(exs: list[RecordedExchange]) -> tuple[dict[str, str], list[str]]:
    """Extra headers of the recorded A2A requests (those the user added with -H), and
    the names of those whose value was redacted (not re-sent)."""
    from .redact import REDACTED

    extra: dict[str, str] = {}
    redacted: list[str] = []
    for ex in exs:
        headers = ex.data.get("headers")
        if not isinstance(headers, dict):
            continue
        for name, value in headers.items():
            if not isinstance(name, str) or not isinstance(value, str) or name.lower() in _OWN_HEADERS:
                continue
            if REDACTED in value:
                if name not in redacted:
                    redacted.append(name)
                continue
            extra.setdefault(name, value)
    return extra, redacted


class _IdMap:
    """Recorded id -> the id to send the live agent."""

    def __init__(self) -> None:
        self.learned: dict[str, str] = {}
        self.chosen: dict[str, str] = {}

    def get(self, recorded: str, key: str) -> str:
        if key == "messageId":
            # Every message is new to the live agent.
            return str(uuid.uuid4())
        hit = self.learned.get(recorded) or self.chosen.get(recorded)
        if hit is None:
            # Chosen by the client in the recording (a 0.1 task id, a contextId given
            # with --context-id): choose a new one, the same each time it recurs.
            hit = self.chosen[recorded] = fresh_id(recorded)
        return hit


async def diff_against(
    recording: Any,
    url: str,
    *,
    session: Session | None = None,
    dialect: str | None = None,
    card_url: str | None = None,
    headers: Mapping[str, str] | None = None,
    auth: Any = None,
    timeouts: Any = None,
    progress: Callable[[ExchangeDiff], None] | None = None,
    limits: Any = None,
    binding: str | None = None,
) -> DiffReport:
    """Re-send ``recording``'s A2A requests to the agent at ``url`` and compare.
    ``binding`` (jsonrpc, rest) overrides the recorded one, as ``dialect`` does.

    ``session`` receives the live traffic (attach a Recorder to keep it); ``dialect``
    overrides the recorded dialect; ``headers``/``auth`` are sent with every request
    (the recording's own extra headers are sent too, except redacted ones)."""
    from ..client import A2AClient, TransportError
    from ..protocol.dialects import get_dialect
    from ..protocol.methods import Method
    from ..protocol.rest import has as rest_has
    from .tracker import TaskTracker

    report = DiffReport(url)
    rec_session: Session = recording.session
    rec_tracker = TaskTracker(rec_session)
    all_exs = exchanges(rec_session.events)
    targets = [ex for ex in all_exs if ex.a2a_method in RESENT and ex.is_rpc]
    for ex in all_exs:
        if ex.a2a_method in RESENT and not ex.is_rpc:
            report.notes.append(f"exchange #{ex.number} ({ex.a2a_method}) not re-sent: its recorded request is not "
                                "an A2A request (JSON-RPC or REST)")
    extra, redacted = recorded_headers(targets)
    given = {k.lower() for k in (headers or {})} | {k.lower() for k in (auth.headers() if auth else {})}
    redacted = [name for name in redacted if name.lower() not in given]
    if redacted:
        report.notes.append("recorded with redacted " + ", ".join(redacted)
                            + ": not re-sent (give them with -H, --bearer or --api-key)")
    live = session if session is not None else Session()
    live_tracker = TaskTracker(live)
    send_headers = {**extra, **(headers or {})}
    clients: dict[str, Any] = {}
    labels_rec, labels_live = _Labels(), _Labels()
    ids = _IdMap()
    # recorded exchange number -> (live exchange number or None, the running call)
    runs: dict[int, tuple[list[int | None], asyncio.Task[Any]]] = {}

    def client_for(name: str, binding: str = "jsonrpc") -> Any:
        c = clients.get((name, binding))
        if c is None:
            c = clients[(name, binding)] = A2AClient(url, session=live, dialect=name, card_url=card_url,
                                                     headers=send_headers, auth=auth, timeouts=timeouts,
                                                     limits=limits, binding=binding)
        return c

    def learn() -> None:
        """Pair the recorded exchanges' tasks and contexts with the live ones."""
        for number, (slot, _task) in runs.items():
            live_number = slot[0]
            if live_number is None:
                continue
            rex = rec_tracker.exchanges.get(number)
            lex = live_tracker.exchanges.get(live_number)
            if rex is None or lex is None:
                continue
            if rex.task_id and lex.task_id:
                ids.learned[rex.task_id] = lex.task_id
                rtask, ltask = rec_tracker.tasks.get(rex.task_id), live_tracker.tasks.get(lex.task_id)
                if rtask and ltask and rtask.context_id and ltask.context_id:
                    ids.learned[rtask.context_id] = ltask.context_id
            if rex.reply is not None and lex.reply is not None and rex.reply.context_id and lex.reply.context_id:
                ids.learned[rex.reply.context_id] = lex.reply.context_id

    def live_events(number: int) -> int:
        slot = runs[number][0]
        if slot[0] is None:
            return 0
        lex = live_tracker.exchanges.get(slot[0])
        return lex.events if lex is not None else 0

    async def run(ex: RecordedExchange, method: Method, client: Any, params: Any, slot: list[int | None]) -> None:
        def watch(event: Event) -> None:
            if slot[0] is None and event.kind is Kind.REQUEST and event.data.get("a2a_method") == method.value:
                slot[0] = event.exchange

        live.subscribe(watch)
        try:
            if method.streams:
                async for _ in client.stream_call(method, params):
                    pass
            else:
                await client.call(method, params)
        except (JsonRpcError, ProtocolError, TransportError):
            pass  # on record in the live session, compared below
        except Exception as exc:  # noqa: BLE001 - one odd exchange must not end the comparison
            report.notes.append(f"exchange #{ex.number}: the request could not be made: {exc}")
        finally:
            live.unsubscribe(watch)

    try:
        for ex in targets:
            method = Method(ex.a2a_method)
            # Wait for what had finished before this request was sent in the recording;
            # an exchange still running then (a stream being canceled) runs on, once the
            # live one has got as far as the recorded one had.
            for number, (_slot, task) in list(runs.items()):
                earlier = next(e for e in targets if e.number == number)
                if earlier.last_t <= ex.request.t:
                    await task
                else:
                    seen = sum(1 for e in earlier.stream if e.kind is Kind.SSE and e.t <= ex.request.t)
                    await _until(lambda n=number, s=seen: live_events(n) >= s or runs[n][1].done(), 30.0)
            learn()
            name = dialect or ex.dialect or "0.3"
            try:
                codec = get_dialect(name)
            except ValueError as exc:
                report.notes.append(f"exchange #{ex.number} not re-sent: {exc}")
                continue
            body = json.loads(json.dumps(ex.body_json))
            for path, value in list(id_slots(body)):
                set_path(body, path, ids.get(value, str(path[-2] if isinstance(path[-1], int) else path[-1])))
            try:
                rpc = get_dialect(ex.rpc_dialect or name).decode_request(body)
            except (JsonRpcError, ProtocolError) as exc:
                report.notes.append(f"exchange #{ex.number} not re-sent: its recorded request does not decode ({exc})")
                continue
            if not codec.has(method):
                report.notes.append(f"exchange #{ex.number} not re-sent: dialect {codec.name} has no {method.value}")
                continue
            over = binding or ex.binding
            if over == "rest" and not rest_has(codec.name, method):
                report.notes.append(f"exchange #{ex.number} not re-sent: the {codec.label} dialect has no "
                                    f"HTTP+JSON/REST route for {method.value}")
                continue
            slot: list[int | None] = [None]
            task = asyncio.create_task(run(ex, method, client_for(codec.name, over), rpc.params, slot))
            runs[ex.number] = (slot, task)
            # Let it reach the wire before the next one is considered.
            await _until(lambda s=slot, t=task: s[0] is not None or t.done(), 30.0)
            if task.done():
                failure = _unreached(live, slot[0], ex)
                if failure is not None:
                    report.transport_error = failure
                    break
        for _slot, task in runs.values():
            await task
    except TransportError as exc:  # pragma: no cover - run() catches these
        report.transport_error = str(exc)
    finally:
        for _slot, task in runs.values():
            if not task.done():
                task.cancel()
        for c in clients.values():
            await c.aclose()
    if report.transport_error is None:
        for number, (slot, _task) in runs.items():
            failure = _unreached(live, slot[0], next(e for e in targets if e.number == number))
            if failure is not None:
                report.transport_error = failure
                break
    if report.transport_error is None and not runs and targets:
        report.transport_error = "nothing could be re-sent"
    live_exs = {ex.number: ex for ex in exchanges(live.events)}
    for ex in targets:
        if ex.number not in runs:
            continue
        recorded = outcome(ex, labels_rec)
        live_number = runs[ex.number][0][0]
        live_ex = live_exs.get(live_number) if live_number is not None else None
        if report.transport_error is not None and (live_ex is None or live_ex.response is None):
            continue  # not compared: the agent was not reached
        if live_ex is not None:
            got = outcome(live_ex, labels_live)
        else:
            got = Outcome(ex.number, ex.a2a_method, recorded.text, skipped="no request reached the agent")
            got.failures = _session_failures(live)
        diff = ExchangeDiff(recorded, got, live_number, compare(recorded, got))
        report.exchanges.append(diff)
        if progress is not None:
            progress(diff)
    return report


def _unreached(live: Session, live_number: int | None, recorded: RecordedExchange) -> str | None:
    """The failure message when the live agent was never reached for this exchange
    (and the recording did reach it)."""
    if any(e.data.get("type") in _UNREACHED for e in recorded.errors) and recorded.response is None:
        return None
    events = live.events if live_number is None else [e for e in live.events if e.exchange == live_number]
    got_response = any(e.kind is Kind.RESPONSE for e in events)
    if live_number is not None and got_response:
        return None
    for event in reversed(events):
        if event.kind is Kind.ERROR and event.data.get("type") in _UNREACHED:
            return str(event.data.get("message"))
    if live_number is None:
        # The request was never sent: discovery failed (no card, agent unreachable).
        for event in reversed(live.events):
            if event.kind is Kind.ERROR and event.data.get("type") in _UNREACHED:
                return str(event.data.get("message"))
    return None


def _session_failures(live: Session) -> list[str]:
    out: list[str] = []
    for event in live.events:
        if event.kind is Kind.ERROR:
            kind = event.data.get("type")
            if isinstance(kind, str) and kind not in out:
                out.append(kind)
    return out


async def _until(ready: Callable[[], bool], limit: float) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limit
    while not ready() and loop.time() < deadline:
        await asyncio.sleep(0.005)
