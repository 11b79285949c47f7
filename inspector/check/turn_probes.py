"""The multi-turn group: an agent driven to input-required (by the user's --ask text, or
else by one of its card's skill examples) takes the follow-up on the same task."""

from __future__ import annotations

import asyncio

from ..client import JsonRpcError, ProtocolError, TransportError
from ..protocol import models as m
from .context import ProbeContext, error_text, quoted
from .probe import Skipped, probe

#: The most skill examples tried for one that makes the agent ask: each is a send.
#: Together they have half the probe's time, the follow-up the other half.
MAX_EXAMPLES = 3
#: An example longer than this is not sent (a card's text is the agent's, and unbounded).
MAX_EXAMPLE_CHARS = 2000


def _examples(card: m.AgentCard | None) -> list[str]:
    """The card's skill examples worth sending, first seen first, without repeats."""
    found: list[str] = []
    for skill in (card.skills or []) if card is not None else []:
        for example in skill.examples or []:
            if (
                isinstance(example, str)
                and example.strip()
                and len(example) <= MAX_EXAMPLE_CHARS
                and example not in found
            ):
                found.append(example)
    return found


async def _ask(ctx: ProbeContext, text: str, seconds: float | None) -> m.Task | m.Message:
    """The answer to ``text`` (blocking where the dialect has the option); an error, or no
    answer within ``seconds``, raises."""
    msg = ctx.message(text)
    async with asyncio.timeout(seconds):
        return await ctx.client.send(ctx.params(msg, blocking=True if ctx.dialect == "0.3" else None))


def _left(answer: m.Task | m.Message) -> str:
    if isinstance(answer, m.Task):
        return f"left the task {answer.status.state.value}"
    return "was answered with a message"


async def _asking_example(ctx: ProbeContext) -> m.Task:
    """The task of the first skill example the agent answers by asking for input; Skipped
    saying what was tried when none does."""
    examples = _examples(ctx.card)
    if not examples:
        raise Skipped(
            "no --ask TEXT, and the card's skills give no examples to try: give a message that "
            "makes the agent ask for input"
        )
    tried = examples[:MAX_EXAMPLES]
    # A slow first example may use all the time the examples have (a busy machine, an
    # agent that thinks): the ones after it are then not sent, and the skip says so.
    loop = asyncio.get_running_loop()
    budget = ctx.options.probe_seconds / 2
    until = loop.time() + budget
    outcomes: list[str] = []
    for example in tried:
        left = until - loop.time()
        if left <= 0:
            outcomes.append(f"{quoted(example)} was not sent (the examples' time ran out)")
            continue
        try:
            answer = await _ask(ctx, example, left)
        except TimeoutError:
            outcomes.append(f"{quoted(example)} was not answered in the examples' {budget:g} s")
            continue
        except (JsonRpcError, ProtocolError, TransportError) as exc:
            outcomes.append(f"{quoted(example)} was answered with {error_text(exc)}")
            continue
        if isinstance(answer, m.Task) and answer.status.state is m.TaskState.INPUT_REQUIRED:
            return answer
        outcomes.append(f"{quoted(example)} {_left(answer)}")
    more = f" (the first {len(tried)} of {len(examples)})" if len(examples) > len(tried) else ""
    raise Skipped(
        f"no --ask TEXT, and none of the card's skill examples tried{more} made the agent ask: " + "; ".join(outcomes)
    )


@probe(
    "multi-turn.continue",
    "multi-turn",
    "the answer to a question continues the same task",
    section="1.0 Message.task_id, TASK_STATE_INPUT_REQUIRED; 0.3 Message.taskId; 0.1 tasks/send id",
    rule='1.0: "Optional. The task id of the message. If set, the message will be associated with the '
    'given task." The follow-up to a task in input-required is answered on that task, in its context.',
    skips="no --ask TEXT (a message that makes the agent ask for input) and no skill example of the card "
    "(at most 3 tried) that makes it ask; the agent does not ask (its task is in another state), or "
    "answers with a message",
)
async def continue_task(ctx: ProbeContext) -> None:
    ask = ctx.options.ask
    if ask:
        first = await ctx.send(ask, blocking=True if ctx.dialect == "0.3" else None)
        if not isinstance(first, m.Task):
            raise Skipped("the agent answered the --ask text with a message, not a task")
        if first.status.state is not m.TaskState.INPUT_REQUIRED:
            raise Skipped(f"the agent did not ask: the --ask text left the task {first.status.state.value}")
    else:
        first = await _asking_example(ctx)
    msg = ctx.message(ctx.options.text, task_id=first.id, context_id=first.context_id)
    try:
        answer = await ctx.client.send(ctx.params(msg, blocking=True if ctx.dialect == "0.3" else None))
    except (JsonRpcError, ProtocolError, TransportError) as exc:
        raise ctx.fail(f"the follow-up on task {first.id} was answered with {error_text(exc)}") from None
    named = answer.id if isinstance(answer, m.Task) else answer.task_id
    if named is not None and named != first.id:
        raise ctx.fail(
            f"the follow-up on task {first.id} was answered with task {named}: a new task, not the one that asked"
        )
    context = answer.context_id
    if first.context_id and context and context != first.context_id:
        raise ctx.fail(f"the follow-up in context {first.context_id} was answered in context {context}")
