"""A task as an agent would answer tasks/get for it, built from the tracker's view (the
hub answers so from frames; a hub recording's bridge exchanges are rebuilt so)."""

from __future__ import annotations

from ..protocol import models as m
from .tracker import TaskView


def task_from_view(view: TaskView, history_length: int | None = None) -> m.Task:
    """``tasks/get``'s answer: the task's state and latest status message, its
    artifacts as assembled from the chunks, its metadata, and its history (the newest
    ``history_length`` messages; all when None)."""
    artifacts = [
        m.Artifact(
            artifact_id=a.artifact_id,
            index=a.index,
            name=a.name,
            description=a.description,
            parts=list(a.parts),
            metadata=a.metadata,
        )
        for a in view.artifacts.values()
    ]
    history = list(view.history)
    if history_length is not None:
        history = history[len(history) - history_length :] if history_length > 0 else []
    state = view.state or m.TaskState.SUBMITTED
    timestamp = view.timeline[-1].timestamp if view.timeline else None
    return m.Task(
        id=view.id,
        context_id=view.context_id,
        status=m.TaskStatus(state=state, message=view.status_message, timestamp=timestamp),
        history=history or None,
        artifacts=artifacts or None,
        metadata=view.metadata,
    )
