"""The mock's tasks, in memory: state, history, artifacts, push configs, live subscribers.

Statuses and messages are never mutated once stored: an update replaces them. Artifacts
are the exception (chunks append to the stored artifact's parts), so whatever keeps a
snapshot past the current step takes a frozen one.
"""

from __future__ import annotations

import asyncio
import itertools
from collections import OrderedDict
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from inspector.protocol import models as m
from inspector.protocol.states import INTERRUPTED, TERMINAL

from . import construct as new

if TYPE_CHECKING:
    from .engine import Run

#: The mock keeps the newest this many tasks (``--max-tasks``) and forgets older ones,
#: so a benchmark that sends a million messages does not grow the mock without bound.
DEFAULT_LIMIT = 1_000


class TaskRecord:
    __slots__ = (
        "task",
        "dialect",
        "turn",
        "pending",
        "run",
        "subscribers",
        "push",
        "ephemeral",
        "seq",
        "follow_up",
        "_keys",
    )

    def __init__(self, task: m.Task, dialect: str, seq: int) -> None:
        self.task = task
        #: The dialect the task was created in: shared method names (tasks/get) and
        #: push notifications answer in it under ``--dialect all``.
        self.dialect = dialect
        self.turn = 0
        #: (ops, vars) to run on the next message, left by an ``ask`` step.
        self.pending: tuple[Any, dict[str, Any]] | None = None
        self.run: Run | None = None
        self.subscribers: list[asyncio.Queue[Any]] = []
        self.push: OrderedDict[str, m.PushNotificationConfig] = OrderedDict()
        #: The first turn answered with a Message: the task is dropped when it ends.
        self.ephemeral = False
        self.seq = seq
        #: Set while the run waits at a ``hold ... until: message`` step: a message to the
        #: task resolves it (engine.Engine.follow_up) instead of being refused.
        self.follow_up: asyncio.Future[None] | None = None
        #: (artifactId, index) of each artifact, in the order of task.artifacts.
        self._keys: list[tuple[str, int]] = []

    @property
    def state(self) -> m.TaskState:
        return self.task.status.state

    @property
    def terminal(self) -> bool:
        return self.task.status.state in TERMINAL

    @property
    def settled(self) -> bool:
        return self.task.status.state in TERMINAL or self.task.status.state in INTERRUPTED

    # -- updates ---------------------------------------------------------------

    def add_message(self, message: m.Message) -> None:
        if self.task.history is None:
            self.task.history = []
        self.task.history.append(message)

    def set_status(self, status: m.TaskStatus) -> None:
        # The previous status message becomes history, as a2a-sdk agents keep it.
        old = self.task.status.message
        if old is not None and old is not status.message:
            self.add_message(old)
        self.task.status = status

    def artifact_slot(self, artifact_id: str | None, index: int | None, append: bool) -> tuple[str, int, int | None]:
        """-> (artifactId, index, position in the task's artifacts or None if new).

        Scripts may name an artifact by artifactId (0.2+), by index (0.1) or not at all:
        with neither, an append continues the last artifact and anything else starts a
        new one. Both names are kept here, whichever the dialect puts on the wire."""
        keys = self._keys
        if artifact_id is None and index is None:
            if append and keys:
                return (*keys[-1], len(keys) - 1)
            return f"artifact-{len(keys)}", len(keys), None
        for pos, (aid, idx) in enumerate(keys):
            if (aid == artifact_id) if artifact_id is not None else (idx == index):
                return aid, idx, pos
        return (
            artifact_id if artifact_id is not None else f"artifact-{index}",
            index if index is not None else len(keys),
            None,
        )

    def add_artifact(
        self,
        artifact_id: str | None,
        index: int | None,
        name: str | None,
        description: str | None,
        parts: list[Any],
        metadata: dict[str, Any] | None,
        append: bool,
        key: tuple[str, int],
        pos: int | None,
    ) -> None:
        """Store a chunk. The stored artifact is the task's own object: appends grow its
        parts in place, so a long stream costs one list append per chunk."""
        arts = self.task.artifacts
        if arts is None:
            arts = self.task.artifacts = []
        if pos is not None and append:
            old = arts[pos]
            old.parts.extend(parts)
            if old.name is None and name is not None:
                old.name = name
            return
        stored = new.Artifact(
            artifact_id=artifact_id,
            index=index,
            name=name,
            description=description,
            parts=list(parts),
            metadata=metadata,
        )
        if pos is None:
            self._keys.append(key)
            arts.append(stored)
        else:
            arts[pos] = stored

    # -- views -----------------------------------------------------------------

    def snapshot(self, history_length: int | None = None, *, frozen: bool = False) -> m.Task:
        """The task as a new object; its artifacts are the stored ones (which later
        chunks grow) unless ``frozen``, for a snapshot that is kept and encoded later."""
        t = self.task
        history = t.history
        if history is not None:
            if history_length is not None:
                history = history[-history_length:] if history_length > 0 else None
            else:
                history = list(history)
        artifacts = t.artifacts
        if artifacts:
            artifacts = [_copy_artifact(a) for a in artifacts] if frozen else list(artifacts)
        return new.Task(
            id=t.id,
            context_id=t.context_id,
            status=t.status,
            history=history or None,
            artifacts=artifacts or None,
            metadata=t.metadata,
        )


def _copy_artifact(a: m.Artifact) -> m.Artifact:
    return new.Artifact(
        artifact_id=a.artifact_id,
        index=a.index,
        name=a.name,
        description=a.description,
        parts=list(a.parts),
        metadata=a.metadata,
    )


class TaskStore:
    def __init__(self, limit: int = DEFAULT_LIMIT) -> None:
        self._tasks: dict[str, TaskRecord] = {}
        self._seq = itertools.count()
        self.limit = limit

    def __len__(self) -> int:
        return len(self._tasks)

    def __iter__(self) -> Iterator[TaskRecord]:
        return iter(list(self._tasks.values()))

    def get(self, task_id: str) -> TaskRecord | None:
        return self._tasks.get(task_id)

    def create(self, task_id: str, context_id: str, dialect: str, metadata: dict[str, Any] | None = None) -> TaskRecord:
        task = new.Task(
            id=task_id,
            context_id=context_id,
            status=new.TaskStatus(state=m.TaskState.SUBMITTED),
            history=None,
            artifacts=None,
            metadata=metadata,
        )
        record = TaskRecord(task, dialect, next(self._seq))
        self._tasks.pop(task_id, None)  # a reused 0.1 id is the newest again
        self._tasks[task_id] = record
        if len(self._tasks) > self.limit:
            self._evict()
        return record

    def discard(self, task_id: str) -> None:
        self._tasks.pop(task_id, None)

    def _evict(self) -> None:
        """Forget the oldest tasks until the newest ``limit`` are left. A task whose
        script is still running or that a stream still follows is kept until it is done
        (a later new task evicts it then), so no open stream loses its task. Live tasks
        are few (about one per request in flight), so the scan stays short."""
        tasks = self._tasks
        excess = len(tasks) - self.limit
        victims: list[str] = []
        for task_id, record in tasks.items():  # oldest first: dicts keep insertion order
            if len(victims) >= excess:
                break
            if record.run is None and not record.subscribers:
                victims.append(task_id)
        for task_id in victims:
            del tasks[task_id]

    def records(self, context_id: str | None = None, state: m.TaskState | None = None) -> list[TaskRecord]:
        """Newest first, as ListTasks orders them."""
        out = [
            r
            for r in self._tasks.values()
            if (context_id is None or r.task.context_id == context_id)
            and (state is None or r.task.status.state == state)
        ]
        out.reverse()
        return out
