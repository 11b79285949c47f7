"""Runs scenario scripts: picks the rule for a turn, then plays its steps against a task.

The engine knows nothing of dialects or HTTP. A run produces normalised protocol
objects (status and artifact update events, a Message) and fault markers, applies them
to the task in the store, and hands each to the task's subscribers: the open streams,
the resubscribers and the push notifier. A blocking send just waits for the run's
``outcome``.

Scripts are compiled once per server: parts without a template become protocol objects
shared by every run, so a turn builds little more than its events. Outgoing objects
are built without validation (see construct.py): they are ours and known to be valid.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from inspector.protocol import grpc_errors
from inspector.protocol import models as m
from inspector.protocol.errors import JsonRpcError
from inspector.protocol.states import INTERRUPTED, TERMINAL

from . import budget, matching, template
from . import construct as new
from . import scenario as sc
from .gates import Gates
from .store import TaskRecord, TaskStore

# ------------------------------------------------------------------ run output items


class RpcFault:
    __slots__ = ("error",)

    def __init__(self, error: JsonRpcError) -> None:
        self.error = error


class HttpFault:
    __slots__ = ("status", "body", "content_type", "headers", "grpc")

    def __init__(
        self, status: int, body: bytes, content_type: str, headers: dict[str, str], grpc: int | None = None
    ) -> None:
        self.status = status
        self.body = body
        self.content_type = content_type
        self.headers = headers
        #: The gRPC status to answer with over gRPC (None: the one HTTP ``status`` maps to).
        self.grpc = grpc


class Malformed:
    __slots__ = ("body",)

    def __init__(self, body: bytes) -> None:
        self.body = body


class Drop:
    __slots__ = ()


class Comment:
    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


class Canceled:
    """tasks/cancel's final status update (Orloj: the whole task), marked as such.

    A stream holds its opening snapshot until the run's first item, so that a script
    that opens with a fault can still answer with a plain response. When a cancel is
    that first item, the held snapshot predates a state the client has already been
    told (by the cancel's own response): the stream must drop it, not send it now."""

    __slots__ = ("item",)

    def __init__(self, item: Any) -> None:
        self.item = item


#: Chunks sent without a delay between them: let the server write every this many.
FLUSH_EVERY = 64

#: How far a run may get ahead of its slowest stream: characters of text queued for it
#: (and at most QUEUED_EVENTS events). Past that the run waits for the stream to catch
#: up, as an agent writing to a socket does, instead of queueing the whole script.
QUEUED_TEXT = 8 * 1024 * 1024
QUEUED_EVENTS = 1024

#: The run is over: streams that are still open end here.
DONE = object()

#: Items that answer a blocking send on their own (the task snapshot is not sent).
FAULTS = (RpcFault, HttpFault, Malformed, Drop)

_SETTLING = TERMINAL | INTERRUPTED

log = logging.getLogger("a2a-mock")


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


# ------------------------------------------------------------------ compiled script


class _TextTemplate:
    __slots__ = ("text", "repeat", "metadata")

    def __init__(self, text: str, repeat: int, metadata: dict[str, Any] | None) -> None:
        self.text = text
        self.repeat = repeat
        self.metadata = metadata


Parts = tuple[Any, ...]


def compile_content(content: Any) -> Parts | None:
    if content is None:
        return None
    out: list[Any] = []
    for part in [content] if isinstance(content, str) else content:
        if isinstance(part, str):
            part = sc.PartSpec(text=part)
        if part.text is not None:
            if template.is_static(part.text):
                fixed = template.render(part.text, {})
                try:
                    budget.check_text(len(fixed), part.repeat)
                except budget.TooLarge as exc:  # the loader refuses it first; a Scenario built in code may not
                    raise ValueError(f"a2a-mock: {exc}") from None
                out.append(new.TextPart(kind="text", text=fixed * part.repeat, metadata=part.metadata))
            else:
                out.append(_TextTemplate(part.text, part.repeat, part.metadata))
        elif part.file is not None:
            f = part.file
            out.append(
                new.FilePart(
                    kind="file",
                    metadata=part.metadata,
                    file=new.FileContent(name=f.name, mime_type=f.mime_type, bytes=f.bytes, uri=f.uri),
                )
            )
        else:
            out.append(new.DataPart(kind="data", data=part.data, metadata=part.metadata))
    return tuple(out)


def render_parts(parts: Parts, values: dict[str, Any]) -> list[Any]:
    return [_render_text(p, values) if type(p) is _TextTemplate else p for p in parts]


def _render_text(p: _TextTemplate, values: dict[str, Any]) -> Any:
    text = template.render(p.text, values)
    if p.repeat != 1:
        budget.check_text(len(text), p.repeat)  # before the copies are made
    return new.TextPart(kind="text", text=text * p.repeat, metadata=p.metadata)


def _text_size(parts: list[Any]) -> int:
    return sum(len(p.text) for p in parts if type(p) is m.TextPart)


@dataclass(slots=True)
class StatusOp:
    state: m.TaskState
    message: Parts | None
    final: bool | None
    metadata: dict[str, Any] | None


@dataclass(slots=True)
class ArtifactOp:
    artifact_id: str | None
    index: int | None
    name: str | None
    description: str | None
    parts: Parts
    append: bool | None
    last_chunk: bool | None
    metadata: dict[str, Any] | None


@dataclass(slots=True)
class ChunksOp:
    artifact_id: str | None
    index: int | None
    name: str | None
    description: str | None
    texts: tuple[str, ...] | None
    text: str | None
    count: int
    repeat: int
    delay: float
    metadata: dict[str, Any] | None


@dataclass(slots=True)
class DelayOp:
    seconds: float


@dataclass(slots=True)
class HoldOp:
    gate: str
    timeout: float | None
    follow_up: bool


@dataclass(slots=True)
class AskOp:
    state: m.TaskState
    question: Parts
    then: list[Any] | None
    metadata: dict[str, Any] | None


@dataclass(slots=True)
class ReplyOp:
    parts: Parts
    metadata: dict[str, Any] | None


@dataclass(slots=True)
class ErrorOp:
    code: int
    message: str | None
    data: Any


@dataclass(slots=True)
class HttpOp:
    fault: HttpFault


@dataclass(slots=True)
class MalformedOp:
    body: bytes


@dataclass(slots=True)
class DropOp:
    pass


@dataclass(slots=True)
class HeartbeatOp:
    every: float
    duration: float
    comment: str


@dataclass(slots=True)
class EndOp:
    pass


@dataclass(slots=True)
class OneOfOp:
    weights: tuple[float, ...]
    branches: tuple[list[Any], ...]


def compile_script(steps: list[Any]) -> list[Any]:
    ops: list[Any] = []
    for step in steps:
        if isinstance(step, sc.StatusStep):
            ops.append(StatusOp(step.status, compile_content(step.message), step.final, step.metadata))
        elif isinstance(step, sc.ArtifactStep):
            a = step.artifact
            ops.append(
                ArtifactOp(
                    a.artifact_id,
                    a.index,
                    a.name,
                    a.description,
                    compile_content(a.text if a.text is not None else a.parts) or (),
                    a.append,
                    a.last_chunk,
                    a.metadata,
                )
            )
        elif isinstance(step, sc.ChunksStep):
            c = step.chunks
            texts = tuple(c.texts) if c.texts is not None else None
            ops.append(
                ChunksOp(
                    c.artifact_id,
                    c.index,
                    c.name,
                    c.description,
                    texts,
                    c.text,
                    len(texts) if texts is not None else c.count or 1,
                    c.repeat,
                    c.delay,
                    c.metadata,
                )
            )
        elif isinstance(step, sc.DelayStep):
            ops.append(DelayOp(step.delay))
        elif isinstance(step, sc.HoldStep):
            ops.append(HoldOp(step.hold, step.timeout, step.until == "message"))
        elif isinstance(step, sc.AskStep):
            state = m.TaskState(step.state)
            ops.append(
                AskOp(
                    state,
                    compile_content(step.ask) or (),
                    compile_script(step.then) if step.then is not None else None,
                    step.metadata,
                )
            )
        elif isinstance(step, sc.ReplyStep):
            ops.append(ReplyOp(compile_content(step.reply) or (), step.metadata))
        elif isinstance(step, sc.ErrorStep):
            ops.append(ErrorOp(step.error.code, step.error.message, step.error.data))
        elif isinstance(step, sc.HttpStep):
            h = step.http
            ops.append(
                HttpOp(
                    HttpFault(
                        h.status,
                        h.body.encode("utf-8"),
                        h.content_type or "text/plain; charset=utf-8",
                        dict(h.headers or {}),
                        None if h.grpc is None else grpc_errors.code_of(h.grpc),
                    )
                )
            )
        elif isinstance(step, sc.MalformedStep):
            ops.append(MalformedOp(step.malformed.encode("utf-8")))
        elif isinstance(step, sc.DropStep):
            ops.append(DropOp())
        elif isinstance(step, sc.HeartbeatStep):
            beat = step.heartbeat
            ops.append(HeartbeatOp(beat.every, beat.for_, beat.comment))
        elif isinstance(step, sc.EndStep):
            ops.append(EndOp())
        elif isinstance(step, sc.OneOfStep):
            ops.append(
                OneOfOp(tuple(b.weight for b in step.one_of), tuple(compile_script(b.script) for b in step.one_of))
            )
        else:  # pragma: no cover - the model admits no other step
            raise TypeError(f"unknown step {step!r}")
    return ops


@dataclass(slots=True)
class _Rule:
    name: str
    regex: matching.Pattern | None
    part: str | None
    skill: str | None
    turn: int | None
    method: str | None
    dialect: str | None
    ops: list[Any]


# ------------------------------------------------------------------ turn input


SKILL_KEYS = ("skill", "skillId", "skill_id", "skill_used")


def skill_of(message: m.Message, metadata: dict[str, Any] | None) -> str:
    for source in (message.metadata, metadata):
        if source:
            for key in SKILL_KEYS:
                value = source.get(key)
                if isinstance(value, str):
                    return value
    return ""


def message_vars(message: m.Message) -> tuple[dict[str, Any], set[str]]:
    texts: list[str] = []
    kinds: set[str] = set()
    files: list[str] = []
    data: list[Any] = []
    for part in message.parts:
        kind = part.kind
        kinds.add(kind)
        if isinstance(part, m.TextPart):
            texts.append(part.text)
        elif isinstance(part, m.FilePart):
            files.append(part.file.name or part.file.uri or "file")
        else:
            data.append(part.data)
    values = {
        "text": "\n".join(texts),
        "file_count": len(files),
        "data_count": len(data),
        "file_names": ", ".join(files),
        "data_json": json.dumps(data[0], ensure_ascii=False) if data else "",
    }
    return values, kinds


# ------------------------------------------------------------------ the engine


Listener = Callable[[TaskRecord, Any], None]


class Engine:
    """One per server: the compiled rules, the seeded RNG, and the task store."""

    def __init__(
        self, scenario: sc.Scenario, store: TaskStore | None = None, time_scale: float = 1.0, seed: int | None = None
    ) -> None:
        self.scenario = scenario
        self.store = store if store is not None else TaskStore()
        self.time_scale = time_scale
        self.rng = random.Random(seed if seed is not None else scenario.seed)
        #: Seconds one message may spend in the rules' text patterns (matching.py).
        self.match_budget = matching.BUDGET
        #: Where ``hold`` steps wait (see gates.py).
        self.gates = Gates()
        #: Called with (record, event) for every status/artifact update (push delivery).
        self.listener: Listener | None = None
        #: Streams carry the whole task at each status change, and no artifact events
        #: (Orloj's ``event: status``).
        self.full_task_events = False
        self.rules = [
            _Rule(
                rule.name or f"rules[{i}]",
                matching.compile_pattern(rule.when.text) if rule.when.text is not None else None,
                rule.when.part,
                rule.when.skill,
                rule.when.turn,
                rule.when.method,
                rule.when.dialect,
                compile_script(rule.script),
            )
            for i, rule in enumerate(scenario.rules)
        ]
        if scenario.fallback:
            self.fallback = compile_script(scenario.fallback)
        else:
            why = f"a2a-mock: no rule in scenario {scenario.name or '(unnamed)'!r} matches this message"
            self.fallback = [
                StatusOp(m.TaskState.FAILED, compile_content(why.replace("{", "{{").replace("}", "}}")), None, None)
            ]

    def pick(self, values: dict[str, Any], kinds: set[str]) -> tuple[list[Any], dict[str, Any]]:
        """The first rule whose conditions all hold -> (ops, regex groups). A rule whose
        pattern runs out of the message's matching time (matching.py) fails the turn,
        saying which rule, instead of holding every other client up."""
        clock = None
        for rule in self.rules:
            if rule.method is not None and rule.method != values["method"]:
                continue
            if rule.dialect is not None and rule.dialect != values["dialect"]:
                continue
            if rule.turn is not None and rule.turn != values["turn"]:
                continue
            if rule.part is not None and rule.part not in kinds:
                continue
            if rule.skill is not None and rule.skill != values["skill"]:
                continue
            if rule.regex is not None:
                clock = clock or matching.Clock(self.match_budget)
                try:
                    found = clock.search(rule.regex, values["text"])
                except matching.TooSlow:
                    return self._too_slow(rule.name), {}
                if found is None:
                    continue
                return rule.ops, found.groupdict("")
            return rule.ops, {}
        return self.fallback, {}

    def _too_slow(self, rule: str) -> list[Any]:
        why = (
            f"a2a-mock: the text pattern of {rule} took longer than {self.match_budget:g} s on this "
            "message (it backtracks catastrophically?); no rule was chosen: simplify the pattern"
        )
        log.warning("%s", why)
        return [StatusOp(m.TaskState.FAILED, compile_content(why.replace("{", "{{").replace("}", "}}")), None, None)]

    def set_idle_status(self, record: TaskRecord, status: m.TaskStatus) -> None:
        """A status change with no script running (tasks/cancel of a waiting task)."""
        record.set_status(status)
        if self.listener is not None and record.push:
            self.listener(
                record,
                new.TaskStatusUpdateEvent(
                    task_id=record.task.id, context_id=record.task.context_id, status=status, final=True, metadata=None
                ),
            )

    def begin_turn(
        self, record: TaskRecord, message: m.Message, method: str, dialect: str, metadata: dict[str, Any] | None = None
    ) -> Run:
        """Record the user's message on the task and prepare the run for this turn."""
        self._user_turn(record, message)
        values, kinds = self._turn_values(record, message, method, dialect, metadata)
        if record.pending is not None:
            ops, carried = record.pending
            record.pending = None
            values = {**carried, **values}
        else:
            ops, groups = self.pick(values, kinds)
            if groups:
                values.update(groups)
        return Run(self, record, ops, values)

    def follow_up(
        self, record: TaskRecord, message: m.Message, method: str, dialect: str, metadata: dict[str, Any] | None = None
    ) -> Run:
        """A message to a task held at a ``hold: ..., until: message`` step: it joins
        the history, and the held run goes on with this message's values."""
        run = record.run
        assert run is not None and record.follow_up is not None
        self._user_turn(record, message)
        values, _kinds = self._turn_values(record, message, method, dialect, metadata)
        run.values.update(values)  # in place: the playing script holds this dict
        waiter, record.follow_up = record.follow_up, None
        if not waiter.done():
            waiter.set_result(None)
        return run

    @staticmethod
    def _user_turn(record: TaskRecord, message: m.Message) -> None:
        record.turn += 1
        status = record.task.status
        if status.message is not None:
            # As a2a-sdk does: the agent's last word (say, the question) becomes history
            # before the user's answer, so history reads in conversation order.
            record.add_message(status.message)
            record.task.status = new.TaskStatus(state=status.state, message=None, timestamp=status.timestamp)
        record.add_message(message)

    @staticmethod
    def _turn_values(
        record: TaskRecord, message: m.Message, method: str, dialect: str, metadata: dict[str, Any] | None
    ) -> tuple[dict[str, Any], set[str]]:
        values, kinds = message_vars(message)
        values["task_id"] = record.task.id
        values["context_id"] = record.task.context_id or ""
        values["turn"] = record.turn
        values["method"] = method
        values["dialect"] = dialect
        values["skill"] = skill_of(message, metadata)
        return values, kinds


class Run:
    """One turn's script playing against one task."""

    __slots__ = ("engine", "record", "ops", "values", "outcome", "meter", "_task", "_finished")

    def __init__(self, engine: Engine, record: TaskRecord, ops: list[Any], values: dict[str, Any]) -> None:
        self.engine = engine
        self.record = record
        self.ops = ops
        self.values = values
        #: The first item that answers a blocking send: a Message, a fault, or None
        #: (the task reached a terminal/interrupted state, or the script ended).
        self.outcome: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        #: What this turn has produced, against the script's totals (budget.py).
        self.meter = budget.Meter()
        self._task: asyncio.Task[None] | None = None
        self._finished = False

    def start(self) -> Run:
        self.record.run = self
        self._task = asyncio.get_running_loop().create_task(self._main())
        # A task canceled before its first step never enters _main's finally: finish then.
        self._task.add_done_callback(lambda _task: self._finish())
        return self

    def cancel(self, status: m.TaskStatus) -> None:
        """tasks/cancel: the canceled status goes out, then the script stops."""
        self._status_event(status, True, by_request=True)
        if self._task is not None:
            self._task.cancel()

    async def _main(self) -> None:
        try:
            await self._play(self.ops)
        except asyncio.CancelledError:
            pass
        except budget.TooLarge as exc:
            why = f"a2a-mock: the script stopped: {exc}"
            log.warning("%s", why)
            self._emit(RpcFault(JsonRpcError(-32603, why)))
        except Exception as exc:  # a bug in the mock must still end the turn visibly
            self._emit(RpcFault(JsonRpcError(-32603, f"a2a-mock: script failed: {exc}")))
        finally:
            self._finish()

    def _finish(self) -> None:
        if self._finished:
            return
        self._finished = True
        record = self.record
        if record.run is self:
            record.run = None
        for queue in record.subscribers:
            queue.put_nowait(DONE)
        if not self.outcome.done():
            self.outcome.set_result(None)
        if record.ephemeral:
            self.engine.store.discard(record.task.id)

    # -- emitting ----------------------------------------------------------------

    def _emit(self, item: Any) -> None:
        for queue in self.record.subscribers:
            queue.put_nowait(item)
        if not self.outcome.done() and (isinstance(item, FAULTS) or type(item) is m.Message):
            self.outcome.set_result(item)

    def _status_event(self, status: m.TaskStatus, final: bool, by_request: bool = False) -> None:
        record = self.record
        record.set_status(status)
        listener = self.engine.listener
        pushing = listener is not None and bool(record.push)
        if pushing or record.subscribers:
            event = new.TaskStatusUpdateEvent(
                task_id=record.task.id, context_id=record.task.context_id, status=status, final=final
            )
            if pushing and listener is not None:  # (pushing says it is not None)
                listener(record, event)
            if record.subscribers:
                item = record.snapshot(frozen=True) if self.engine.full_task_events else event
                self._emit(Canceled(item) if by_request else item)
        if status.state in _SETTLING and not self.outcome.done():
            self.outcome.set_result(None)

    def _agent_message(self, parts: Parts, metadata: dict[str, Any] | None, task_id: bool = True) -> m.Message:
        task = self.record.task
        rendered = render_parts(parts, self.values)
        self.meter.count(_text_size(rendered))
        return new.Message(
            role=m.Role.AGENT,
            parts=rendered,
            message_id=str(uuid.uuid4()),
            task_id=task.id if task_id else None,
            context_id=task.context_id,
            metadata=metadata,
        )

    def _status(
        self, state: m.TaskState, parts: Parts | None, final: bool | None, metadata: dict[str, Any] | None
    ) -> None:
        message = self._agent_message(parts, metadata) if parts is not None else None
        status = new.TaskStatus(state=state, message=message, timestamp=now())
        self._status_event(status, state in _SETTLING if final is None else final)

    def _artifact(
        self,
        artifact_id: str | None,
        index: int | None,
        name: str | None,
        description: str | None,
        parts: list[Any],
        append: bool,
        last_chunk: bool | None,
        metadata: dict[str, Any] | None,
    ) -> None:
        self.meter.count(_text_size(parts))
        record = self.record
        artifact_id, index, pos = record.artifact_slot(artifact_id, index, append)
        # Each dialect names artifacts one way: 0.1 by index, later ones by artifactId.
        wire_id, wire_index = (None, index) if record.dialect == "0.1" else (artifact_id, None)
        record.add_artifact(wire_id, wire_index, name, description, parts, metadata, append, (artifact_id, index), pos)
        listener = self.engine.listener
        pushing = listener is not None and bool(record.push)
        if not pushing and (not record.subscribers or self.engine.full_task_events):
            return  # nobody to tell: a blocking send reads the stored task at the end
        wire_append: bool | None = append
        if record.dialect == "1.0":
            # a2a-sdk 1.x leaves false flags out, as ProtoJSON does; 0.x agents send them.
            wire_append = append or None
            last_chunk = last_chunk or None
        artifact = new.Artifact(
            artifact_id=wire_id, index=wire_index, name=name, description=description, parts=parts, metadata=metadata
        )
        event = new.TaskArtifactUpdateEvent(
            task_id=record.task.id,
            context_id=record.task.context_id,
            artifact=artifact,
            append=wire_append,
            last_chunk=last_chunk,
        )
        if pushing and listener is not None:  # (pushing says it is not None)
            listener(record, event)
        if not self.engine.full_task_events:
            self._emit(event)

    async def _sleep(self, seconds: float) -> None:
        scaled = seconds * self.engine.time_scale
        if scaled > 0:
            await asyncio.sleep(scaled)

    # -- the script --------------------------------------------------------------

    async def _play(self, ops: list[Any]) -> bool:
        """Run ops in order; True once a step has ended the turn."""
        values = self.values
        for op in ops:
            kind = type(op)
            if kind is StatusOp:
                self._status(op.state, op.message, op.final, op.metadata)
            elif kind is ArtifactOp:
                parts = render_parts(op.parts, values)
                self._artifact(
                    op.artifact_id,
                    op.index,
                    op.name,
                    op.description,
                    parts,
                    bool(op.append),
                    op.last_chunk,
                    op.metadata,
                )
                await self._caught_up(_text_size(parts))
            elif kind is ChunksOp:
                await self._chunks(op)
            elif kind is DelayOp:
                await self._sleep(op.seconds)
            elif kind is HoldOp:
                await self._hold(op)
            elif kind is AskOp:
                # Set before the status goes out: a client may answer the moment it sees it.
                self.record.pending = (op.then, dict(values)) if op.then is not None else None
                self._status(op.state, op.question, None, op.metadata)
                return True
            elif kind is ReplyOp:
                if self.record.turn == 1:
                    self.record.ephemeral = True
                self._emit(self._agent_message(op.parts, op.metadata, task_id=False))
                return True
            elif kind is ErrorOp:
                self._emit(RpcFault(JsonRpcError(op.code, op.message or "", op.data)))
                return True
            elif kind is HttpOp:
                self._emit(op.fault)
                return True
            elif kind is MalformedOp:
                self._emit(Malformed(op.body))
            elif kind is DropOp:
                self._emit(Drop())
            elif kind is HeartbeatOp:
                await self._heartbeats(op)
            elif kind is EndOp:
                return True
            elif kind is OneOfOp:
                branch = self.engine.rng.choices(op.branches, weights=op.weights)[0]
                if await self._play(branch):
                    return True
        return False

    async def _hold(self, op: HoldOp) -> None:
        timeout = None if op.timeout is None else op.timeout * self.engine.time_scale
        gates = self.engine.gates
        if not op.follow_up:
            await gates.wait(op.gate, timeout)
            return
        record = self.record
        message: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        record.follow_up = message
        released = asyncio.ensure_future(gates.wait(op.gate, timeout))
        try:
            await asyncio.wait((released, message), return_when=asyncio.FIRST_COMPLETED)
        finally:
            released.cancel()
            if record.follow_up is message:
                record.follow_up = None

    async def _chunks(self, op: ChunksOp) -> None:
        values = self.values
        n = op.count
        artifact_id, index = op.artifact_id, op.index
        for i in range(n):
            if i and op.delay:
                await self._sleep(op.delay)
            elif i % FLUSH_EVERY == FLUSH_EVERY - 1:
                # Without delays the whole script would run before the server sends its
                # first byte; an agent writing as fast as it can still sends as it goes.
                await asyncio.sleep(0)
            if op.texts is not None:
                text = template.render(op.texts[i], values)
            else:
                text = template.render(op.text or "", {**values, "i": i, "n": n})
            size = budget.check_text(len(text), op.repeat)
            part = new.TextPart(kind="text", text=text * op.repeat, metadata=None)
            self._artifact(artifact_id, index, op.name, op.description, [part], i > 0, i == n - 1, op.metadata)
            await self._caught_up(size)

    async def _caught_up(self, size: int) -> None:
        """Wait while a stream has more than QUEUED_TEXT characters (in events of
        ``size``) or QUEUED_EVENTS events still to write: the script goes at the pace of
        its slowest reader, so a large or endless one costs a bounded queue, not memory
        for all it has produced."""
        most = max(1, min(QUEUED_EVENTS, QUEUED_TEXT // max(size, 1)))
        pause = 0.001
        while any(queue.qsize() > most for queue in self.record.subscribers):
            await asyncio.sleep(pause)
            pause = min(pause * 2, 0.05)

    async def _heartbeats(self, op: HeartbeatOp) -> None:
        loop = asyncio.get_running_loop()
        scale = self.engine.time_scale
        end = loop.time() + op.duration * scale
        while True:
            self.meter.count(len(op.comment))
            self._emit(Comment(op.comment))
            left = end - loop.time()
            if left <= 0:
                return
            await asyncio.sleep(min(op.every * scale, left))
