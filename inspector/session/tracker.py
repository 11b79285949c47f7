"""The task tracker: the event log projected into tasks, conversations and artifacts.

It only ever reads events (and their decoded payloads); it never talks to the network
and never changes an event. Feed it a live session or a loaded recording and it builds
the same picture, which is what makes replay indistinguishable from live.

Assembly follows the spec per dialect: 0.1 keys artifacts by ``index`` and carries
``append``/``lastChunk`` on the artifact; 0.2+ keys by ``artifactId`` with the flags on
the update event. The tracker reads whichever is present, so one code path serves all.

``apply`` runs once per SSE event while a stream is live, so the hot path (status and
artifact updates) is kept to dict lookups and list appends; anything costlier (content
comparison of messages, snapshot checks) happens only on the rarer Task snapshots. The
commonest event of all, the next chunk of an open artifact, has its own shortcut
(``_next_chunk``), checked against the general path by tests/test_tracker_fast.py.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ..protocol.errors import JsonRpcError, ProtocolError
from ..protocol.models import (
    Artifact,
    DataPart,
    FilePart,
    ListTasksResult,
    Message,
    PushConfigParams,
    SendParams,
    Task,
    TaskArtifactUpdateEvent,
    TaskIdParams,
    TaskPushNotificationConfig,
    TaskQueryParams,
    TaskState,
    TaskStatus,
    TaskStatusUpdateEvent,
    TextPart,
)
from ..protocol.states import INTERRUPTED, TERMINAL, is_legal
from .events import Event, Kind
from .log import Session

ERROR = "error"
WARNING = "warning"

#: Every violation the tracker reports: code -> (severity, what it means).
VIOLATION_CODES: dict[str, tuple[str, str]] = {
    "transition-after-terminal": (ERROR, "the task changed state after reaching a terminal state"),
    "illegal-transition": (ERROR, "a state change the A2A state machine does not allow"),
    "artifact-after-terminal": (ERROR, "an artifact update for a task already in a terminal state"),
    "chunk-after-close": (ERROR, "a chunk appended to an artifact whose lastChunk was already sent"),
    "append-unknown-artifact": (ERROR, "append=true for an artifact that was never started"),
    "stream-no-terminal": (ERROR, "a stream ended before the task reached a terminal or interrupted state"),
    "artifact-not-closed": (WARNING, "a stream ended while an artifact was still being chunked (no lastChunk)"),
    "final-not-terminal": (ERROR, "final=true on a state that is neither terminal nor interrupted"),
    "terminal-not-final": (WARNING, "a terminal status update with final=false"),
    "event-after-final": (ERROR, "a stream event after the event marked final=true"),
    "event-after-terminal": (WARNING, "a status update repeated in a stream after the terminal state"),
    "event-after-message": (WARNING, "a stream event after a direct Message reply (which ends the stream)"),
    "task-mismatch": (ERROR, "an object names a different task than the one it belongs to"),
    "context-mismatch": (ERROR, "an object's contextId differs from its task's contextId"),
    "decode-error": (ERROR, "a response, stream event or push body that is not valid A2A"),
    "snapshot-mismatch": (WARNING, "a Task snapshot's artifact differs from what the chunks assembled"),
    "message-id-reused": (WARNING, "two different messages share one messageId"),
    "blocking-not-final": (WARNING, "a blocking send returned a task that is still running"),
    "id-mismatch": (ERROR, "a response or stream event whose JSON-RPC id is not its request's"),
}

_SETTLED = TERMINAL | INTERRUPTED
_SSE = Kind.SSE


@dataclass(slots=True, frozen=True)
class Violation:
    seq: int
    task_id: str | None
    code: str
    severity: str
    message: str
    exchange: int = 0


@dataclass(slots=True)
class StateChange:
    state: TaskState
    t: float
    seq: int
    message: Message | None = None
    #: The agent's own timestamp for the status, when it sent one.
    timestamp: str | None = None
    #: When the next state began (None while this one is current).
    end_t: float | None = None

    def duration(self, now: float | None = None) -> float | None:
        """Seconds spent in this state; for the current state, up to ``now`` if given."""
        if self.end_t is not None:
            return self.end_t - self.t
        return None if now is None else max(0.0, now - self.t)


@dataclass(slots=True)
class Chunk:
    seq: int
    t: float
    append: bool | None
    last_chunk: bool | None
    parts: list[Any]
    #: Content size: characters of text, decoded bytes of inline files, JSON length of data.
    size: int
    exchange: int = 0


@dataclass(slots=True, eq=False)
class ArtifactView:
    key: str
    artifact_id: str | None
    index: int | None
    name: str | None = None
    description: str | None = None
    metadata: dict[str, Any] | None = None
    #: The artifact as assembled from its chunks (or taken from a snapshot).
    parts: list[Any] = field(default_factory=list)
    chunks: list[Chunk] = field(default_factory=list)
    #: lastChunk=true was seen.
    closed: bool = False
    #: Sent in pieces: some chunk had append=true or lastChunk=false.
    chunked: bool = False
    #: The artifact as the latest Task snapshot had it.
    snapshot: Artifact | None = None
    first_seq: int = 0
    last_seq: int = 0
    first_t: float = 0.0
    last_t: float = 0.0
    _text: str = ""
    _text_parts: int = 0
    _size_total: int = 0
    _size_parts: int = 0

    @property
    def complete(self) -> bool:
        """Nothing more is expected: closed, or never sent in pieces."""
        return self.closed or not self.chunked

    @property
    def size(self) -> int:
        """Content size of the assembled parts. Incremental, like text(): the UI asks on
        every frame, and re-summing a 20k-part artifact each time cost ~15 ms a frame."""
        parts = self.parts
        if self._size_parts > len(parts):
            self._size_total, self._size_parts = 0, 0
        if self._size_parts < len(parts):
            self._size_total += _size(parts[self._size_parts:])
            self._size_parts = len(parts)
        return self._size_total

    def text(self) -> str:
        """The text parts concatenated. Incremental: a growing artifact is not rescanned."""
        parts = self.parts
        if self._text_parts > len(parts):
            self._text, self._text_parts = "", 0
        if self._text_parts < len(parts):
            extra = [p.text for p in parts[self._text_parts:] if isinstance(p, TextPart)]
            self._text += "".join(extra)
            self._text_parts = len(parts)
        return self._text

    def _restart(self, parts: list[Any]) -> None:
        self.parts = list(parts)
        self._text, self._text_parts = "", 0
        self._size_total, self._size_parts = 0, 0


@dataclass(slots=True, eq=False)
class TaskView:
    id: str
    context_id: str | None = None
    #: None until the agent has said anything about the task.
    state: TaskState | None = None
    timeline: list[StateChange] = field(default_factory=list)
    #: User and agent messages in conversation order, without duplicates.
    history: list[Message] = field(default_factory=list)
    #: The latest status message: the question of input-required, the reason of failed.
    status_message: Message | None = None
    artifacts: dict[str, ArtifactView] = field(default_factory=dict)
    metadata: dict[str, Any] | None = None
    #: The latest Task object the agent sent for this task.
    snapshot: Task | None = None
    violations: list[Violation] = field(default_factory=list)
    #: Exchanges (request/response pairs) that concerned this task, in order.
    exchanges: list[int] = field(default_factory=list)
    first_seq: int = 0
    last_seq: int = 0
    first_t: float = 0.0
    last_t: float = 0.0
    _ids: dict[str, Message] = field(default_factory=dict)
    _last_exchange: int = -1

    @property
    def terminal(self) -> bool:
        return self.state in TERMINAL

    @property
    def interrupted(self) -> bool:
        return self.state in INTERRUPTED

    def durations(self, now: float | None = None) -> list[tuple[TaskState, float | None]]:
        """Each state of the timeline with the time spent in it."""
        return [(c.state, c.duration(now)) for c in self.timeline]

    def text(self) -> str:
        """All artifacts' text, in artifact order."""
        return "".join(a.text() for a in self.artifacts.values())


@dataclass(slots=True, eq=False)
class ExchangeView:
    """What the tracker knows about one HTTP exchange."""

    exchange: int
    #: Method.value, "card", "probe", or None when the request was never seen.
    method: str | None = None
    rpc_id: Any = None
    #: The task this exchange concerns, once the request or the answer names one.
    task_id: str | None = None
    request_message: Message | None = None
    blocking: bool | None = None
    #: A direct Message answer (no task).
    reply: Message | None = None
    #: The JSON-RPC error the agent answered with.
    error: JsonRpcError | None = None
    #: The latest ERROR event's message (transport failure, timeout, bad stream).
    failure: str | None = None
    decode_failed: bool = False
    streaming: bool = False
    http_status: int | None = None
    #: SSE events seen.
    events: int = 0
    final_seen: bool = False
    terminal_seen: bool = False
    #: The last state this exchange reported (another exchange may have moved the task since).
    last_state: TaskState | None = None
    #: STREAM_END reason, once the stream closed.
    ended: str | None = None
    #: The request's message still waits for a task to attach to.
    pending: bool = False


class TaskTracker:
    def __init__(self, session: Session | None = None) -> None:
        self.tasks: dict[str, TaskView] = {}
        #: Direct Message replies that name no task.
        self.replies: list[Message] = []
        self.violations: list[Violation] = []
        self.exchanges: dict[int, ExchangeView] = {}
        # Repeatable problems (a whole stream in the wrong context) are reported once.
        self._once: set[tuple[Any, ...]] = set()
        self._changed: set[str] = set()
        if session is not None:
            session.subscribe(self.apply, replay=True)

    # ------------------------------------------------------------------ queries

    def task(self, task_id: str) -> TaskView | None:
        return self.tasks.get(task_id)

    def exchange_task(self, exchange: int) -> str | None:
        ex = self.exchanges.get(exchange)
        return ex.task_id if ex is not None else None

    # ------------------------------------------------------------------ input

    def apply(self, event: Event) -> set[str]:
        """Fold one event in; returns the ids of the tasks it changed."""
        self._changed = changed = set()
        kind = event.kind
        if kind is _SSE:
            payload = event.payload
            if payload.__class__ is not TaskArtifactUpdateEvent or not self._next_chunk(event, payload, changed):
                self._on_sse(event)
        elif kind is Kind.RESPONSE:
            self._on_response(event)
        elif kind is Kind.REQUEST:
            self._on_request(event)
        elif kind is Kind.STREAM_END:
            self._on_stream_end(event)
        elif kind is Kind.PUSH:
            self._item(event, event.payload, None, "push body")
        elif kind is Kind.ERROR:
            ex = self._exchange(event.exchange)
            if ex is not None:
                ex.failure = event.data.get("message")
        elif kind is Kind.NOTE and event.data.get("code") == "id-mismatch":
            # The client compares ids as it reads (it has the bytes); the finding is the agent's.
            ex = self._exchange(event.exchange)
            self._flag(event, "id-mismatch", ex.task_id if ex is not None else None,
                       str(event.data.get("text") or VIOLATION_CODES["id-mismatch"][1]), ex)
        return changed

    def _exchange(self, number: int) -> ExchangeView | None:
        if not number:
            return None
        ex = self.exchanges.get(number)
        if ex is None:
            ex = self.exchanges[number] = ExchangeView(number)
        return ex

    def _on_request(self, event: Event) -> None:
        ex = self._exchange(event.exchange)
        if ex is None:
            return
        data = event.data
        ex.method = data.get("a2a_method")
        ex.rpc_id = data.get("rpc_id")
        params = event.payload
        if isinstance(params, SendParams):
            msg = params.message
            ex.request_message = msg
            if params.configuration is not None:
                ex.blocking = params.configuration.blocking
            if msg.task_id:
                # Continuing a known task (or 0.1, where the client picks the id): the
                # user's turn belongs in the conversation before the agent answers.
                ex.task_id = msg.task_id
                task = self._bind(None, msg.task_id, event)
                if task.context_id is None:
                    # 0.1 clients pick the session too; the agent must echo it.
                    task.context_id = msg.context_id
                self._link(task, ex)
                self._user_message(task, msg, event, ex)
            else:
                ex.pending = True
        elif isinstance(params, (TaskQueryParams, TaskIdParams, PushConfigParams)):
            ex.task_id = params.id
        elif isinstance(params, TaskPushNotificationConfig):
            ex.task_id = params.task_id

    def _on_response(self, event: Event) -> None:
        ex = self._exchange(event.exchange)
        data = event.data
        if ex is not None:
            ex.http_status = data.get("status")
            if data.get("streaming"):
                ex.streaming = True
                return
        payload = event.payload
        if payload is None:
            return
        status = data.get("status")
        if isinstance(payload, ProtocolError) and status is not None and not 200 <= status < 300:
            # An error page from a proxy or a crashed server: the HTTP status is the
            # finding (the client logs it as an http ERROR), not the body's failure to be
            # A2A. A JSON-RPC error in such a body still decodes and is kept.
            return
        self._item(event, payload, ex, "response body")
        if (isinstance(payload, Task) and ex is not None and ex.blocking
                and ex.method == "send" and payload.status.state not in _SETTLED):
            self._flag(event, "blocking-not-final", payload.id,
                       f"blocking send answered with state {payload.status.state.value}", ex)

    def _on_sse(self, event: Event) -> None:
        ex = self._exchange(event.exchange)
        payload = event.payload
        if ex is not None:
            ex.events += 1
            if ex.reply is not None and payload is not None:
                self._flag(event, "event-after-message", ex.task_id,
                           "stream went on after a direct Message reply", ex,
                           once=("event-after-message", ex.exchange))
        if payload is not None:
            self._item(event, payload, ex, "stream event")

    def _next_chunk(self, event: Event, ev: TaskArtifactUpdateEvent, changed: set[str]) -> bool:
        """The event nearly every event of a long stream is: the next chunk of an open
        artifact, appended, in a stream already tied to its task. Does exactly what
        _on_sse and _artifact_event would do with it, in one go, and returns True; or
        changes nothing and returns False (anything else: the general path decides).

        The models' fields are read from their ``__dict__``: a pydantic attribute read
        costs several dict lookups."""
        number = event.exchange
        ex = self.exchanges.get(number) if number else None
        if ex is None or ex.reply is not None or ex.final_seen or ex.pending:
            return False
        fields = ev.__dict__
        task_id = fields["task_id"]
        task = self.tasks.get(task_id)
        if task is None or ex.task_id != task_id or task._last_exchange != number or task.state in TERMINAL:
            return False
        context_id = fields["context_id"]
        if context_id is not None and context_id != task.context_id:
            return False
        art = fields["artifact"].__dict__
        # 0.1 carries the flags on the artifact, 0.2+ on the event.
        append = fields["append"]
        if append is None:
            append = art["append"]
        key = art["artifact_id"]
        if not append or key is None:
            return False
        view = task.artifacts.get(key)
        if view is None or view.closed:
            return False
        last = fields["last_chunk"]
        if last is None:
            last = art["last_chunk"]
        parts = art["parts"]
        if len(parts) == 1 and parts[0].__class__ is TextPart:
            size = len(parts[0].__dict__["text"])  # what _size says of one text part
        else:
            size = _size(parts)
        seq, t = event.seq, event.t
        ex.events += 1
        task.last_seq, task.last_t = seq, t
        changed.add(task_id)
        view.parts.extend(parts)
        view.chunks.append(Chunk(seq, t, append, last, parts, size, number))
        view.chunked = True
        if last:
            view.closed = True
        if art["name"] is not None:
            view.name = art["name"]
        if art["description"] is not None:
            view.description = art["description"]
        if art["metadata"] is not None:
            view.metadata = art["metadata"]
        view.last_seq, view.last_t = seq, t
        return True

    def _on_stream_end(self, event: Event) -> None:
        ex = self.exchanges.get(event.exchange)
        if ex is None:
            return
        reason = event.data.get("reason")
        ex.ended = reason
        # The user closing a stream, or the agent answering with an error, is not the
        # agent walking away from a task.
        if reason == "closed" or ex.error is not None:
            return
        task = self.tasks.get(ex.task_id) if ex.task_id else None
        if task is None and ex.reply is not None:
            return
        # Judged on what this stream said: a task left input-required by an earlier
        # stream must not excuse a continuation stream that ends without a word.
        if not ex.final_seen and not ex.decode_failed and ex.last_state not in _SETTLED:
            state = ex.last_state.value if ex.last_state is not None else "none reported"
            self._flag(event, "stream-no-terminal", ex.task_id,
                       f"stream ended ({reason}) with the task in state {state}", ex)
        # A cancel stops the work wherever it is, so a half-sent artifact is expected.
        # Failed and rejected still count: the agent ended the task itself and could
        # have closed (or never started) the artifact first. A task waiting for input
        # may go on with the artifact in its next turn: judged when a later stream ends.
        if task is not None and task.state is not TaskState.CANCELED and task.state not in INTERRUPTED:
            for view in task.artifacts.values():
                if view.chunked and not view.closed:
                    self._flag(event, "artifact-not-closed", task.id,
                               f"artifact {view.key!r} never got lastChunk=true", ex,
                               once=("artifact-not-closed", task.id, view.key))

    # ------------------------------------------------------------------ payloads

    def _item(self, event: Event, payload: Any, ex: ExchangeView | None, where: str) -> None:
        # Ordered by how often each arrives in a stream.
        if isinstance(payload, TaskArtifactUpdateEvent):
            self._artifact_event(payload, event, ex)
        elif isinstance(payload, TaskStatusUpdateEvent):
            self._status_event(payload, event, ex)
        elif isinstance(payload, Task):
            self._snapshot(payload, event, ex)
        elif isinstance(payload, Message):
            self._message_item(payload, event, ex)
        elif isinstance(payload, ProtocolError):
            task_id = ex.task_id if ex is not None else None
            if ex is not None:
                ex.decode_failed = True
            self._flag(event, "decode-error", task_id, f"{where}: {payload}", ex)
        elif isinstance(payload, JsonRpcError):
            if ex is not None:
                ex.error = payload
        elif isinstance(payload, ListTasksResult):
            for snap in payload.tasks:
                self._snapshot(snap, event, None)

    def _status_event(self, ev: TaskStatusUpdateEvent, event: Event, ex: ExchangeView | None) -> None:
        task = self._bind(ex, ev.task_id, event)
        self._context(task, ev.context_id, event, ex, "status update")
        status = ev.status
        state = status.state
        before = task.state
        replayed = (state == before and status.message is not None
                    and self._restated(task, status.message, ex))
        flagged = self._transition(task, status, event, ex)
        if ex is not None:
            if not flagged:
                if ex.final_seen:
                    self._flag(event, "event-after-final", task.id,
                               f"status update ({state.value}) after final=true", ex,
                               once=("event-after-final", ex.exchange))
                elif ex.terminal_seen and state == before:
                    self._flag(event, "event-after-terminal", task.id,
                               f"status {state.value} repeated after the task ended", ex,
                               once=("event-after-terminal", ex.exchange))
            if ev.final:
                ex.final_seen = True
            if state in TERMINAL:
                ex.terminal_seen = True
            ex.last_state = state
        if ev.final and state not in _SETTLED:
            self._flag(event, "final-not-terminal", task.id,
                       f"final=true with state {state.value}", ex)
        elif ev.final is False and state in TERMINAL:
            self._flag(event, "terminal-not-final", task.id,
                       f"state {state.value} sent with final=false", ex)
        if status.message is not None and not replayed:
            self._agent_message(task, status.message, event, ex)

    @staticmethod
    def _restated(task: TaskView, msg: Message, ex: ExchangeView | None) -> bool:
        """``msg``, in a status that repeats the task's current state, is that state's
        message told again (a 0.1 resubscribe replays the current status), not a new turn.

        Only id-less messages need this: _add already drops a known messageId. A repeat
        counts only when nothing was said since, and when it reaches this exchange (or a
        push) for the first time: an agent saying the same words twice in one stream
        said them twice."""
        if msg.message_id is not None:
            return False
        current = task.status_message
        if current is None or not task.history or (ex is not None and ex.last_state == task.state):
            return False
        return _same_content(current, msg) and _same_content(task.history[-1], msg)

    def _artifact_event(self, ev: TaskArtifactUpdateEvent, event: Event, ex: ExchangeView | None) -> None:
        task = self._bind(ex, ev.task_id, event)
        self._context(task, ev.context_id, event, ex, "artifact update")
        art = ev.artifact
        # 0.1 carries the flags on the artifact, 0.2+ on the event.
        append = ev.append if ev.append is not None else art.append
        last = ev.last_chunk if ev.last_chunk is not None else art.last_chunk
        key = art.artifact_id if art.artifact_id is not None else _index_key(art.index or 0)
        if task.state in TERMINAL:
            self._flag(event, "artifact-after-terminal", task.id,
                       f"artifact {key!r} updated after state {task.state.value}", ex,
                       once=("artifact-after-terminal", task.id, event.exchange))
        elif ex is not None and ex.final_seen:
            self._flag(event, "event-after-final", task.id,
                       f"artifact {key!r} updated after final=true", ex,
                       once=("event-after-final", ex.exchange))
        view = task.artifacts.get(key)
        if view is None:
            view = task.artifacts[key] = ArtifactView(
                key, art.artifact_id, art.index, first_seq=event.seq, first_t=event.t)
            if append:
                self._flag(event, "append-unknown-artifact", task.id,
                           f"append=true for artifact {key!r}, which was never started", ex)
            view._restart(art.parts)
        elif append:
            if view.closed:
                self._flag(event, "chunk-after-close", task.id,
                           f"chunk appended to artifact {key!r} after its lastChunk", ex,
                           once=("chunk-after-close", task.id, key, event.exchange))
            # Kept even when illegal: the inspector shows what the agent sent.
            view.parts.extend(art.parts)
        else:
            view._restart(art.parts)
            view.closed = False
        view.chunks.append(Chunk(event.seq, event.t, append, last, art.parts,
                                 _size(art.parts), event.exchange))
        if append or last is False:
            view.chunked = True
        if last:
            view.closed = True
        if art.name is not None:
            view.name = art.name
        if art.description is not None:
            view.description = art.description
        if art.metadata is not None:
            view.metadata = art.metadata
        view.last_seq, view.last_t = event.seq, event.t

    def _snapshot(self, snap: Task, event: Event, ex: ExchangeView | None) -> None:
        task = self._bind(ex, snap.id, event)
        self._context(task, snap.context_id, event, ex, "task")
        task.snapshot = snap
        if snap.metadata is not None:
            task.metadata = snap.metadata
        self._transition(task, snap.status, event, ex)
        if ex is not None:
            ex.last_state = snap.status.state
            if snap.status.state in TERMINAL:
                ex.terminal_seen = True
        if snap.history:
            self._merge_history(task, snap.history, event, ex)
        msg = snap.status.message
        if msg is not None and not self._known(task, msg):
            self._agent_message(task, msg, event, ex)
        if snap.artifacts:
            for pos, art in enumerate(snap.artifacts):
                self._snapshot_artifact(task, art, pos, event, ex)

    def _snapshot_artifact(self, task: TaskView, art: Artifact, pos: int, event: Event,
                           ex: ExchangeView | None) -> None:
        if art.artifact_id is not None:
            key = art.artifact_id
        else:
            # A snapshot lists every artifact; without an index, its place in the list is one.
            key = _index_key(art.index if art.index is not None else pos)
        view = task.artifacts.get(key)
        if view is None:
            view = task.artifacts[key] = ArtifactView(
                key, art.artifact_id, art.index, first_seq=event.seq, first_t=event.t)
        view.snapshot = art
        if not view.chunks:
            view._restart(art.parts)
            view.name, view.description, view.metadata = art.name, art.description, art.metadata
        else:
            if view.name is None:
                view.name = art.name
            if view.description is None:
                view.description = art.description
            # Both comparisons cost a pass over every part: skip them when neither can
            # apply (a snapshot in the middle of another live stream of this artifact).
            adoptable = not self._fed_elsewhere(view, ex)
            finished = view.closed or task.state in TERMINAL
            assembled = told = None
            if adoptable or finished:
                assembled, told = _normal(view.parts), _normal(art.parts)
            if adoptable and _extends(assembled, told):
                # The snapshot holds chunks this client never saw (a stream that broke
                # off, a resubscribe that came late): it is the fuller picture, and live
                # chunks that follow append to it. The chunks stay as they arrived.
                view._restart(art.parts)
                if task.state in TERMINAL:
                    view.closed = True  # the task's final record: nothing more will come
            # An open artifact is still growing; only a finished one can disagree.
            elif finished and assembled != told:
                self._flag(event, "snapshot-mismatch", task.id,
                           f"artifact {key!r} in the task differs from its assembled chunks", ex,
                           once=("snapshot-mismatch", task.id, key))
        view.last_seq, view.last_t = event.seq, event.t

    def _fed_elsewhere(self, view: ArtifactView, ex: ExchangeView | None) -> bool:
        """A stream other than the snapshot's own may still deliver this artifact's next
        chunks, which the snapshot may already hold: adopting it would show them twice.
        Push-fed artifacts (exchange 0) count as fed: pushes have no end to wait for."""
        number = view.chunks[-1].exchange
        if ex is not None and number == ex.exchange:
            return False
        feed = self.exchanges.get(number)
        return feed is None or feed.ended is None

    def _message_item(self, msg: Message, event: Event, ex: ExchangeView | None) -> None:
        if ex is not None and ex.reply is None:
            ex.reply = msg
        if msg.task_id:
            task = self._bind(ex, msg.task_id, event)
            self._agent_message(task, msg, event, ex)
        else:
            self.replies.append(msg)

    # ------------------------------------------------------------------ tasks

    def _bind(self, ex: ExchangeView | None, task_id: str, event: Event) -> TaskView:
        """The task ``task_id``, created on first sight, tied to the exchange."""
        task = self.tasks.get(task_id)
        if task is None:
            task = self.tasks[task_id] = TaskView(task_id, first_seq=event.seq, first_t=event.t)
        task.last_seq, task.last_t = event.seq, event.t
        self._changed.add(task_id)
        if ex is not None:
            if ex.task_id is None:
                ex.task_id = task_id
            elif ex.task_id != task_id:
                self._flag(event, "task-mismatch", task_id,
                           f"exchange concerns task {ex.task_id!r} but the agent answered for {task_id!r}",
                           ex, once=("task-mismatch", ex.exchange))
            if task._last_exchange != ex.exchange:
                self._link(task, ex)
            if ex.pending and ex.request_message is not None:
                ex.pending = False
                self._user_message(task, ex.request_message, event, ex)
        return task

    @staticmethod
    def _link(task: TaskView, ex: ExchangeView) -> None:
        task._last_exchange = ex.exchange
        if ex.exchange not in task.exchanges:
            task.exchanges.append(ex.exchange)

    def _transition(self, task: TaskView, status: TaskStatus, event: Event,
                    ex: ExchangeView | None) -> bool:
        """Move the task to ``status``; True when that move was a violation."""
        state = status.state
        before = task.state
        if state == before:
            if status.message is not None:
                task.status_message = status.message
            return False
        flagged = False
        if before in TERMINAL:
            flagged = True
            self._flag(event, "transition-after-terminal", task.id,
                       f"{before.value} -> {state.value}: the task had already ended", ex)
        elif not is_legal(before, state):
            flagged = True
            self._flag(event, "illegal-transition", task.id,
                       f"{before.value} -> {state.value} is not a legal transition", ex)
        if task.timeline:
            task.timeline[-1].end_t = event.t
        task.timeline.append(StateChange(state, event.t, event.seq, status.message, status.timestamp))
        task.state = state
        task.status_message = status.message
        return flagged

    def _context(self, task: TaskView, context_id: str | None, event: Event,
                 ex: ExchangeView | None, what: str) -> None:
        if context_id is None:
            return
        if task.context_id is None:
            task.context_id = context_id
        elif context_id != task.context_id:
            self._flag(event, "context-mismatch", task.id,
                       f"{what} has contextId {context_id!r}, the task has {task.context_id!r}", ex,
                       once=("context-mismatch", task.id, event.exchange))

    # ------------------------------------------------------------------ history

    def _user_message(self, task: TaskView, msg: Message, event: Event, ex: ExchangeView | None) -> None:
        # The user's own contextId is checked but does not set the task's: the agent does.
        if msg.context_id and task.context_id and msg.context_id != task.context_id:
            self._flag(event, "context-mismatch", task.id,
                       f"the message was sent with contextId {msg.context_id!r}, the task has {task.context_id!r}",
                       ex, once=("context-mismatch", task.id, event.exchange))
        self._add(task, msg, event, ex)

    def _agent_message(self, task: TaskView, msg: Message, event: Event, ex: ExchangeView | None) -> None:
        if msg.task_id and msg.task_id != task.id:
            who = f"message {msg.message_id!r}" if msg.message_id else "a message"
            self._flag(event, "task-mismatch", task.id, f"{who} of this task names task {msg.task_id!r}",
                       ex, once=("task-mismatch", "message", task.id, event.exchange))
        self._add(task, msg, event, ex)

    def _add(self, task: TaskView, msg: Message, event: Event, ex: ExchangeView | None) -> None:
        mid = msg.message_id
        if mid is not None:
            seen = task._ids.get(mid)
            if seen is not None:
                if seen is not msg and not _same_content(seen, msg):
                    self._flag(event, "message-id-reused", task.id,
                               f"messageId {mid!r} was used for two different messages", ex,
                               once=("message-id-reused", task.id, mid))
                return
            task._ids[mid] = msg
        # Id-less (0.1) messages seen live are each a real turn, so they are never merged
        # here; only snapshots, which repeat earlier turns, are matched by content.
        task.history.append(msg)

    def _known(self, task: TaskView, msg: Message) -> bool:
        if msg.message_id is not None:
            return msg.message_id in task._ids
        key = _content_key(msg)
        return any(m.message_id is None and _content_key(m) == key for m in task.history)

    def _merge_history(self, task: TaskView, snapshot: list[Message], event: Event,
                       ex: ExchangeView | None) -> None:
        """Merge a snapshot's history into the task's, keeping both orders.

        Messages already known (by id, or by content and occurrence when one side has no
        id) stay where they are; new ones go in right after the last known message that
        preceded them in the snapshot."""
        old = task.history
        by_id = {m.message_id: i for i, m in enumerate(old) if m.message_id is not None}
        by_content: dict[Any, list[int]] | None = None
        idless = any(m.message_id is None for m in old)
        used: set[int] = set()
        placed: dict[int, list[Message]] = {}
        cursor = -1
        for msg in snapshot:
            j = by_id.get(msg.message_id) if msg.message_id is not None else None
            if j is not None:
                if not _same_content(old[j], msg):
                    self._flag(event, "message-id-reused", task.id,
                               f"messageId {msg.message_id!r} was used for two different messages",
                               ex, once=("message-id-reused", task.id, msg.message_id))
            elif idless or msg.message_id is None:
                if by_content is None:
                    by_content = {}
                    for i, m in enumerate(old):
                        by_content.setdefault(_content_key(m), []).append(i)
                for i in by_content.get(_content_key(msg), ()):
                    if i not in used and (msg.message_id is None or old[i].message_id is None):
                        j = i
                        break
            if j is not None:
                used.add(j)
                cursor = max(cursor, j)
            else:
                placed.setdefault(cursor, []).append(msg)
        if not placed:
            return
        merged: list[Message] = list(placed.get(-1, ()))
        for i, m in enumerate(old):
            merged.append(m)
            merged.extend(placed.get(i, ()))
        task.history = merged
        task._ids = {}
        for m in merged:
            if m.message_id is not None:
                task._ids.setdefault(m.message_id, m)

    # ------------------------------------------------------------------ violations

    def _flag(self, event: Event, code: str, task_id: str | None, message: str,
              ex: ExchangeView | None = None, *, once: tuple[Any, ...] | None = None) -> None:
        if once is not None:
            if once in self._once:
                return
            self._once.add(once)
        severity = VIOLATION_CODES[code][0]
        violation = Violation(event.seq, task_id, code, severity, message, event.exchange)
        self.violations.append(violation)
        if task_id is not None:
            task = self.tasks.get(task_id)
            if task is not None:
                task.violations.append(violation)
                self._changed.add(task_id)


# ---------------------------------------------------------------------- helpers


def _index_key(index: int) -> str:
    # Brackets keep an index apart from any plausible artifactId.
    return f"[{index}]"


def _size(parts: list[Any]) -> int:
    n = 0
    for p in parts:
        if isinstance(p, TextPart):
            n += len(p.text)
        elif isinstance(p, FilePart):
            if p.file.bytes:
                n += len(p.file.bytes) * 3 // 4
        elif isinstance(p, DataPart):
            n += len(json.dumps(p.data, default=str))
    return n


def _content_key(msg: Message) -> tuple[Any, ...]:
    return (msg.role, tuple(p.model_dump_json(exclude_none=True) for p in msg.parts))


def _same_content(a: Message, b: Message) -> bool:
    # An agent echoing the user's message adds taskId/contextId; only what was said counts.
    return a.role == b.role and (a.parts == b.parts or _content_key(a) == _content_key(b))


def _extends(short: list[Any], long: list[Any]) -> bool:
    """``long`` says all that ``short`` says and more (both _normal()'d): a strict prefix,
    where the last text of ``short`` may be the start of a longer text in ``long``."""
    if len(short) > len(long) or short == long:
        return False
    if not short:
        return True
    n = len(short) - 1
    if short[:n] != long[:n]:
        return False
    last, other = short[n], long[n]
    return last == other or (isinstance(last, str) and isinstance(other, str) and other.startswith(last))


def _normal(parts: list[Any]) -> list[Any]:
    """Parts for comparison: adjacent text joined, since agents may merge text chunks."""
    out: list[Any] = []
    for p in parts:
        if isinstance(p, TextPart):
            if out and isinstance(out[-1], str):
                out[-1] += p.text
            else:
                out.append(p.text)
        else:
            out.append(p.model_dump(mode="json", exclude_none=True))
    return out
