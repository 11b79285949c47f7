"""The tasks group: get (with and without history), cancel of a running and of a
finished task, subscribe to a finished one, and unknown ids. Each probe makes its own
tasks; none touches a task it did not create."""

from __future__ import annotations

import asyncio
import contextlib
import uuid

from ..client import JsonRpcError, ProtocolError, TransportError
from ..protocol import models as m
from ..protocol.states import TERMINAL as TERMINAL_STATES
from .context import ProbeContext, error_text, settled
from .probe import Failed, Skipped, probe

NOT_FOUND = (-32001,)
#: What skips a probe that needs a finished task of its own.
UNFINISHED = "the ordinary text (--text) is answered with a message, or leaves its task unfinished"


def _unknown_id() -> str:
    return f"a2a-inspect-check-unknown-{uuid.uuid4()}"


@probe(
    "tasks.get",
    "tasks",
    "a task of ours is returned by get, as it ended",
    section="1.0 GetTask; 0.3 tasks/get; 0.1 tasks/get",
    rule='1.0: "Gets the latest state of a task." The task returned is the one asked for, in its latest state.',
    skips=f"{UNFINISHED}; 0.1 agents without tasks/get (-32601)",
)
async def get(ctx: ProbeContext) -> None:
    task = await ctx.finished_task()
    got = await ctx.answered(ctx.client.get_task(task.id), "a get of the task")
    if got.id != task.id:
        raise ctx.fail(f"a get of task {task.id} returned task {got.id}")
    if got.status.state is not task.status.state:
        raise ctx.fail(f"a get of a task that had ended {task.status.state.value} says {got.status.state.value}")


@probe(
    "tasks.get-history",
    "tasks",
    "get with historyLength 1 returns at most one message",
    section="1.0 GetTaskRequest.history_length; 0.3 TaskQueryParams.historyLength; 0.1 TaskQueryParams",
    rule='1.0: "The server MUST NOT return more messages than the provided value, but MAY apply a lower limit."',
    skips=f"{UNFINISHED}; 0.1 agents without tasks/get (-32601)",
)
async def get_history(ctx: ProbeContext) -> None:
    task = await ctx.finished_task()
    got = await ctx.answered(ctx.client.get_task(task.id, history_length=1), "a get with historyLength 1")
    count = len(got.history or [])
    if count > 1:
        raise ctx.fail(f"a get with historyLength 1 returned {count} messages of history")


@probe(
    "tasks.unknown-id",
    "tasks",
    "get and cancel of an unknown task id are answered -32001",
    section="1.0 TaskNotFoundError; 0.3 TaskNotFoundError; 0.1 TaskNotFoundError",
    rule='-32001 TaskNotFoundError: "An A2A-specific error indicating that the requested task ID was not found."',
    skips="0.1 agents without tasks/get and tasks/cancel (-32601)",
)
async def unknown_id(ctx: ProbeContext) -> None:
    await ctx.expect_error(ctx.client.get_task(_unknown_id()), NOT_FOUND, "a get of an unknown task id")
    await ctx.expect_error(ctx.client.cancel(_unknown_id()), NOT_FOUND, "a cancel of an unknown task id")


@probe(
    "tasks.cancel-finished",
    "tasks",
    "a cancel of a finished task is answered -32002",
    section="1.0 CancelTask, TaskNotCancelableError; 0.3 tasks/cancel; 0.1 tasks/cancel",
    rule='-32002 TaskNotCancelableError: "An A2A-specific error indicating that the task is in a state '
    'where it cannot be canceled."',
    skips=f"{UNFINISHED}; 0.1 agents without tasks/cancel (-32601)",
)
async def cancel_finished(ctx: ProbeContext) -> None:
    task = await ctx.finished_task()
    await ctx.expect_error(
        ctx.client.cancel(task.id), (-32002,), f"a cancel of a task that had ended {task.status.state.value}"
    )


@probe(
    "tasks.cancel-running",
    "tasks",
    "a cancel of a running task ends it canceled",
    section="1.0 CancelTask; 0.3 tasks/cancel; 0.1 tasks/cancel",
    rule='0.3: "Cancel a task from the agent. If supported one should expect no more task updates for '
    'the task." 1.0 TASK_STATE_CANCELED: "Indicates that a task was canceled before completion. '
    'This is a terminal state." The answer is the task, canceled (and a get after it says so), or '
    "-32002 TaskNotCancelableError.",
    skips="the task ended before the cancel reached it (--running-text names a message that keeps the "
    "agent working); it is answered with a message; 0.1 agents without streaming or tasks/cancel",
)
async def cancel_running(ctx: ProbeContext) -> None:
    text = ctx.options.running_text or ctx.options.text
    task_id, state, stream = await running_task(ctx, text)
    try:
        if state is not None and settled(state):
            raise Skipped(
                f"the task was {state.value} before the cancel could reach it; "
                "--running-text TEXT names a message that keeps the agent working"
            )
        try:
            answer = await ctx.client.cancel(task_id)
        except (JsonRpcError, ProtocolError, TransportError) as exc:
            if isinstance(exc, JsonRpcError) and exc.code == -32002:
                return  # the agent may refuse: the task is not cancelable
            if isinstance(exc, JsonRpcError) and exc.code == -32601 and ctx.dialect == "0.1":
                raise Skipped(
                    "the agent does not implement tasks/cancel (-32601), which the 0.1 draft leaves to it"
                ) from None
            raise ctx.fail(f"the cancel of a running task was answered with {error_text(exc)}") from None
        if answer.status.state is not m.TaskState.CANCELED:
            again = await ctx.answered(ctx.client.get_task(task_id), "a get after the cancel")
            if again.status.state is not m.TaskState.CANCELED:
                raise ctx.fail(
                    f"the cancel of a running task was answered with the task "
                    f"{answer.status.state.value}, and a get after it says {again.status.state.value}"
                )
            return
        # Said is not done: an agent may answer "canceled" and carry on with the task.
        # Canceled is terminal, so a get after the answer must say canceled too.
        after = await _state_after_cancel(ctx, task_id)
        if after is not None and after is not m.TaskState.CANCELED:
            ctx.ignore("transition-after-terminal")  # this failure says it, with the rule
            raise ctx.fail(
                f"the cancel of a running task was answered with the task canceled, but a get after "
                f"it says {after.value}: the task went on"
            )
    finally:
        if stream is not None:
            with contextlib.suppress(JsonRpcError, ProtocolError, TransportError):
                await stream.aclose()  # type: ignore[attr-defined]


async def _state_after_cancel(ctx: ProbeContext, task_id: str) -> m.TaskState | None:
    """The task's state as a get tells it after a cancel the agent accepted; None from a
    0.1 agent without tasks/get (the draft leaves it out, and the cancel's answer stands)."""
    try:
        return (await ctx.client.get_task(task_id)).status.state
    except JsonRpcError as exc:
        if exc.code == -32601 and ctx.dialect == "0.1":
            return None
        raise ctx.fail(f"a get after the cancel was answered with {error_text(exc)}") from None
    except (ProtocolError, TransportError) as exc:
        raise ctx.fail(f"a get after the cancel was answered with {error_text(exc)}") from None


#: Why a subscription to a running task cannot be followed when its cancel fails.
_NO_END = "so the subscription cannot be followed to an end here (tasks.cancel-running judges the cancel)"


async def _cancel_to_end(ctx: ProbeContext, task_id: str) -> None:
    """Cancel the task a subscription follows, so that it ends; skip when the cancel does
    not end it (the subscription is then not to blame, and the cancel is judged by
    tasks.cancel-running)."""
    try:
        await ctx.client.cancel(task_id)
    except JsonRpcError as exc:
        if exc.code == -32002:
            raise Skipped(
                "the agent does not cancel the task (-32002), so the subscription cannot be followed to an end here"
            ) from None
        raise Skipped(f"the cancel was answered with {error_text(exc)}, {_NO_END}") from None
    except (ProtocolError, TransportError) as exc:
        raise Skipped(f"the cancel was answered with {error_text(exc)}, {_NO_END}") from None
    # An accepted cancel the agent does not carry out leaves the task running, and the
    # subscription with no end to follow.
    try:
        after = await _state_after_cancel(ctx, task_id)
    except Failed as exc:
        raise Skipped(f"{exc.text}, {_NO_END}") from None
    if after is not None and after not in TERMINAL_STATES:
        ctx.ignore("transition-after-terminal")
        raise Skipped(f"the agent accepted a cancel but a get after it says {after.value}, {_NO_END}")


async def _ended_first(ctx: ProbeContext, task_id: str) -> None:
    """Skip when the task had ended by the time the call reached it (a race the agent
    may win: a refusal then is the rule for a finished task, not a fault)."""
    try:
        task = await ctx.client.get_task(task_id)
    except (JsonRpcError, ProtocolError, TransportError):
        return
    if task.status.state in TERMINAL_STATES:
        raise Skipped(
            f"the task was {task.status.state.value} before the call could reach it; "
            "--running-text TEXT names a message that keeps the agent working"
        )


async def running_task(ctx: ProbeContext, text: str) -> tuple[str, m.TaskState | None, object]:
    """Start a task that should still be running: a send that does not wait (0.3, 1.0),
    else a stream read up to its first event naming the task (the stream stays open)."""
    if ctx.dialect != "0.1":
        result = await ctx.send(text, blocking=False)
        if not isinstance(result, m.Task):
            raise Skipped("the agent answers with a message, not a task")
        return result.id, result.status.state, None
    caps = ctx.card.capabilities if ctx.card is not None else None
    if not (caps and caps.streaming):
        raise Skipped("the 0.1 draft has no send that does not wait, and the card declares no streaming")
    stream = ctx.client.stream(ctx.params(ctx.message(text)))
    try:
        async with asyncio.timeout(ctx.options.probe_seconds / 2):
            async for ev in stream:
                if isinstance(ev, m.Message):
                    raise Skipped("the agent answers with a message, not a task")
                if isinstance(ev, m.Task):
                    return ev.id, ev.status.state, stream
                if isinstance(ev, m.TaskStatusUpdateEvent) and ev.task_id:
                    return ev.task_id, ev.status.state, stream
    except BaseException:
        await stream.aclose()
        raise
    await stream.aclose()
    raise ctx.fail("the stream ended without naming its task")


@probe(
    "tasks.subscribe-finished",
    "tasks",
    "a subscribe to a finished task is answered -32004",
    section="1.0 SubscribeToTask, UnsupportedOperationError",
    rule='1.0: "Returns `UnsupportedOperationError` if the task is already in a terminal state '
    '(completed, failed, canceled, rejected)."',
    dialects=("1.0",),
    needs="streaming",
    skips="0.1 and 0.3 (they leave it open); a card without capabilities.streaming; the ordinary text "
    "is answered with a message, or leaves its task unfinished",
)
async def subscribe_finished(ctx: ProbeContext) -> None:
    task = await ctx.finished_task()
    await ctx.expect_error(
        ctx.client.resubscribe(task.id).drain(),
        (-32004,),
        f"a subscribe to a task that had ended {task.status.state.value}",
    )


@probe(
    "tasks.subscribe-running",
    "tasks",
    "a subscribe to a running task follows it to its end",
    section="1.0 SubscribeToTask; 0.3 tasks/resubscribe",
    rule='1.0: "Subscribes to task updates for tasks not in a terminal state." The stream names the '
    "task, and ends when the task does (here: canceled by the probe).",
    dialects=("0.3", "1.0"),
    needs="streaming",
    skips="the task ended before the subscribe reached it (--running-text names a message that keeps "
    "the agent working); it is answered with a message; an agent that does not cancel it (-32002, "
    "another error, or a cancel accepted but not carried out)",
)
async def subscribe_running(ctx: ProbeContext) -> None:
    text = ctx.options.running_text or ctx.options.text
    task_id, state, _stream = await running_task(ctx, text)
    if state is not None and settled(state):
        raise Skipped(
            f"the task was {state.value} before the subscribe could reach it; "
            "--running-text TEXT names a message that keeps the agent working"
        )
    stream = ctx.client.resubscribe(task_id)
    named: set[str] = set()
    last: m.TaskState | None = None
    canceled = False
    try:
        async for ev in stream:
            ident = ev.id if isinstance(ev, m.Task) else getattr(ev, "task_id", None)
            if ident:
                named.add(ident)
            if isinstance(ev, m.Task | m.TaskStatusUpdateEvent):
                last = ev.status.state
            if not canceled:
                canceled = True
                await _cancel_to_end(ctx, task_id)
    except JsonRpcError as exc:
        if not canceled:
            await _ended_first(ctx, task_id)
        raise ctx.fail(f"the subscribe to a running task was answered with {error_text(exc)}") from None
    except (ProtocolError, TransportError) as exc:
        raise ctx.fail(f"the subscribe to a running task broke: {error_text(exc)}") from None
    finally:
        await stream.aclose()
    if not canceled:
        raise ctx.fail("the subscribe to a running task ended without an event")
    if named - {task_id}:
        raise ctx.fail(f"the subscribe to task {task_id} named other tasks: {', '.join(sorted(named - {task_id}))}")
    if last is None or last not in TERMINAL_STATES:
        raise ctx.fail(
            f"the subscription ended with the task {last.value if last else 'in no state'}, after a "
            "cancel the agent accepted"
        )


#: The answers that say an agent does not offer an operation at all.
NOT_OFFERED = (-32601, -32004)


@probe(
    "tasks.list",
    "tasks",
    "list filtered by context pages through our two tasks, a page at a time",
    section="1.0 ListTasks, ListTasksRequest, ListTasksResponse; 0.1 Society AI tasks/list",
    rule='1.0 ListTasksRequest: "Filter tasks by context ID to get tasks from a specific conversation or '
    'session." page_size: "The maximum number of tasks to return. The service may return fewer than '
    'this value." next_page_token: "A token to retrieve the next page of results, or empty if there '
    'are no more results in the list."',
    dialects=("0.1", "1.0"),
    skips="0.3 (no list method); an agent that does not offer it (-32601, -32004); the ordinary text is "
    "answered with a message, or leaves its task unfinished",
)
async def list_tasks(ctx: ProbeContext) -> None:
    first = await ctx.finished_task()
    if not first.context_id:
        raise Skipped("the agent's task names no context to filter by")
    msg = ctx.message(ctx.options.text, context_id=first.context_id)
    try:
        again = await ctx.client.send(ctx.params(msg))
    except (JsonRpcError, ProtocolError, TransportError) as exc:
        raise ctx.fail(f"a second send in context {first.context_id} was answered with {error_text(exc)}") from None
    if not isinstance(again, m.Task):
        raise Skipped("the agent answered the second message with a message, not a task")
    ours = {first.id, again.id}
    seen: list[str] = []
    token: str | None = None
    for page in (1, 2):
        try:
            result = await ctx.client.list_tasks(
                m.ListTasksParams(context_id=first.context_id, page_size=1, page_token=token)
            )
        except JsonRpcError as exc:
            if exc.code in NOT_OFFERED and page == 1:
                raise Skipped(f"the agent does not offer a task list ({exc.code})") from None
            raise ctx.fail(f"page {page} of the list was answered with {error_text(exc)}") from None
        except (ProtocolError, TransportError) as exc:
            raise ctx.fail(f"page {page} of the list was answered with {error_text(exc)}") from None
        if len(result.tasks) > 1:
            raise ctx.fail(f"page {page} of a list with pageSize 1 held {len(result.tasks)} tasks")
        others = [t.id for t in result.tasks if t.context_id and t.context_id != first.context_id]
        if others:
            raise ctx.fail(
                f"a list filtered by context {first.context_id} returned task {others[0]} of another context"
            )
        seen += [t.id for t in result.tasks]
        token = result.next_page_token
        if not token:
            break
    if not ours <= set(seen):
        missing = ", ".join(sorted(ours - set(seen)))
        raise ctx.fail(
            f"two pages of pageSize 1 in context {first.context_id} did not hold both tasks of ours (missing {missing})"
        )
