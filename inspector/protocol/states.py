"""Task state rules shared by every dialect: what is terminal, what may follow what."""

from __future__ import annotations

from .enums import TaskState

S = TaskState

#: States after which the task never changes again (0.1 and 0.2+ agree; 1.0 adds none).
TERMINAL: frozenset[TaskState] = frozenset({S.COMPLETED, S.CANCELED, S.FAILED, S.REJECTED})

#: States where the agent waits on the client; a new message continues the same task.
INTERRUPTED: frozenset[TaskState] = frozenset({S.INPUT_REQUIRED, S.AUTH_REQUIRED})

_ACTIVE = (S.SUBMITTED, S.WORKING, S.INPUT_REQUIRED, S.AUTH_REQUIRED)

#: Legal transitions. A repeated state (working -> working) is always legal: agents
#: send progress messages as status updates with an unchanged state.
LEGAL: dict[TaskState, frozenset[TaskState]] = {
    S.SUBMITTED: frozenset({S.WORKING, *INTERRUPTED, *TERMINAL}),
    S.WORKING: frozenset({*INTERRUPTED, *TERMINAL}),
    S.INPUT_REQUIRED: frozenset({S.WORKING, S.SUBMITTED, S.AUTH_REQUIRED, *TERMINAL}),
    S.AUTH_REQUIRED: frozenset({S.WORKING, S.SUBMITTED, S.INPUT_REQUIRED, *TERMINAL}),
    # "unknown" says nothing, so nothing after it can be called illegal.
    S.UNKNOWN: frozenset(TaskState),
    **{t: frozenset() for t in TERMINAL},
}


def is_terminal(state: TaskState) -> bool:
    return state in TERMINAL


def is_legal(before: TaskState | None, after: TaskState) -> bool:
    """Whether ``before -> after`` is a transition the spec allows. ``None`` = new task.

    An unchanged state is not a transition; whether a repeated event after a terminal
    state is a problem is the tracker's call, not this table's."""
    if before is None or before == after:
        return True
    return after in LEGAL[before]
