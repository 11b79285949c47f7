"""The CLI's exit codes: scripts and CI branch on these, so they are part of the interface."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..protocol.enums import TaskState

OK = 0  # completed, or the agent replied with a Message (cancel: canceled)
TASK_FAILED = 1  # failed, canceled, rejected or unknown (cancel: any state but canceled;
# card: a lint error)
USAGE = 2  # bad arguments, missing file, invalid JSON given on the command line
TRANSPORT = 3  # unreachable, timeout, HTTP error, bad JSON, wrong types, broken stream, JSON-RPC error,
# or any protocol violation of severity error (unless --lenient)
NEEDS_INPUT = 4  # input-required or auth-required: the agent waits for the client
INTERRUPTED = 130  # Ctrl-C

_BY_STATE = {
    TaskState.COMPLETED: OK,
    TaskState.FAILED: TASK_FAILED,
    TaskState.CANCELED: TASK_FAILED,
    TaskState.REJECTED: TASK_FAILED,
    TaskState.INPUT_REQUIRED: NEEDS_INPUT,
    TaskState.AUTH_REQUIRED: NEEDS_INPUT,
    # The agent cannot say what became of the task: a script must not read it as done.
    TaskState.UNKNOWN: TASK_FAILED,
}

#: States in which the task is still running.
RUNNING = frozenset((TaskState.SUBMITTED, TaskState.WORKING))


def for_state(state: TaskState | None, command: str = "send") -> int:
    """Exit code for a task that ended (or paused) in ``state``, as ``command`` left it.
    A task still submitted or working is not a failure of itself: a non-blocking send
    or a get of a running task asked for no more (a blocking send answered so early, or
    a stream that ended there, is a violation, judged apart). A cancel succeeds only
    when the task is canceled: any other state means the agent did not cancel it."""
    if command == "cancel":
        return OK if state is TaskState.CANCELED else TASK_FAILED
    return _BY_STATE.get(state, OK) if state is not None else OK


def judged(code: int, violations: Iterable[Any], lenient: bool = False) -> int:
    """``code`` as the outcome alone would give it, or TRANSPORT when the agent broke
    the protocol (a violation of severity error). A violation outranks the task's own
    outcome (0, 1, 4): that outcome came through a broken exchange and may not be what
    the agent meant. ``lenient`` keeps the outcome's code; usage errors and Ctrl-C stand."""
    if lenient or code in (USAGE, TRANSPORT, INTERRUPTED):
        return code
    return TRANSPORT if any(v.severity == "error" for v in violations) else code
