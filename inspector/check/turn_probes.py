"""The multi-turn group: an agent driven to input-required (by the user's --ask text)
takes the follow-up on the same task."""

from __future__ import annotations

from ..client import JsonRpcError, ProtocolError, TransportError
from ..protocol import models as m
from .context import ProbeContext, error_text
from .probe import Skipped, probe


@probe("multi-turn.continue", "multi-turn", "the answer to a question continues the same task",
       section="1.0 Message.task_id, TASK_STATE_INPUT_REQUIRED; 0.3 Message.taskId; 0.1 tasks/send id",
       rule="1.0: \"Optional. The task id of the message. If set, the message will be associated with the "
            "given task.\" The follow-up to a task in input-required is answered on that task, in its context.",
       skips="no --ask TEXT (a message that makes the agent ask for input); the agent does not ask (its "
             "task is in another state), or answers with a message")
async def continue_task(ctx: ProbeContext) -> None:
    ask = ctx.options.ask
    if not ask:
        raise Skipped("no --ask TEXT: give a message that makes the agent ask for input")
    first = await ctx.send(ask, blocking=True if ctx.dialect == "0.3" else None)
    if not isinstance(first, m.Task):
        raise Skipped("the agent answered the --ask text with a message, not a task")
    if first.status.state is not m.TaskState.INPUT_REQUIRED:
        raise Skipped(f"the agent did not ask: the --ask text left the task {first.status.state.value}")
    msg = ctx.message(ctx.options.text, task_id=first.id, context_id=first.context_id)
    try:
        answer = await ctx.client.send(ctx.params(msg, blocking=True if ctx.dialect == "0.3" else None))
    except (JsonRpcError, ProtocolError, TransportError) as exc:
        raise ctx.fail(f"the follow-up on task {first.id} was answered with {error_text(exc)}") from None
    named = answer.id if isinstance(answer, m.Task) else answer.task_id
    if named is not None and named != first.id:
        raise ctx.fail(f"the follow-up on task {first.id} was answered with task {named}: a new task, "
                       "not the one that asked")
    context = answer.context_id
    if first.context_id and context and context != first.context_id:
        raise ctx.fail(f"the follow-up in context {first.context_id} was answered in context {context}")
