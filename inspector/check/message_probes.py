"""The messages group: send and stream a text, and what blocking means in each version."""

from __future__ import annotations

import base64
from typing import Any

from ..client import JsonRpcError, ProtocolError, TransportError
from ..protocol import models as m
from .context import ProbeContext, error_text, settled
from .probe import probe

BLOCKING_SECTION = "1.0 SendMessageConfiguration.return_immediately; 0.3 MessageSendConfiguration.blocking"
BLOCKING_RULE = (
    '1.0: "If `false` (default), the operation MUST wait until the task reaches a terminal '
    "(`COMPLETED`, `FAILED`, `CANCELED`, `REJECTED`) or interrupted (`INPUT_REQUIRED`, "
    '`AUTH_REQUIRED`) state before returning." (return_immediately); 0.3: "If true, the '
    'message will be blocking until the task is completed." (blocking)'
)


@probe(
    "messages.send-text",
    "messages",
    "a text message is answered with a task or a message",
    section="1.0 SendMessage, SendMessageResponse; 0.3 message/send; 0.1 tasks/send",
    rule='1.0 SendMessageResponse: "The task created or updated by the message." or "A message '
    'from the agent." (0.3: a Task or a Message); every object well formed for the version.',
    skips="never",
)
async def send_text(ctx: ProbeContext) -> None:
    ctx.ignore("blocking-not-final")  # messages.blocking's rule, judged there
    await ctx.send()


@probe(
    "messages.blocking",
    "messages",
    "a blocking send waits for a terminal or interrupted state",
    section=BLOCKING_SECTION,
    rule=BLOCKING_RULE,
    dialects=("0.3", "1.0"),
    skips="the 0.1 draft (tasks/send has no such option)",
)
async def blocking(ctx: ProbeContext) -> None:
    ctx.ignore("blocking-not-final")  # the same finding, said here with the rule
    result = await ctx.send(blocking=True)
    if isinstance(result, m.Task) and not settled(result.status.state):
        raise ctx.fail(f"the blocking send was answered with the task still {result.status.state.value}")


@probe(
    "messages.return-immediately",
    "messages",
    "a send that asks not to wait is answered",
    section=BLOCKING_SECTION,
    rule='1.0: "If `true`, the operation returns immediately after creating the task, even if '
    'processing is still in progress." (return_immediately); 0.3: "If false, the message will '
    'be non-blocking and the task will be returned immediately." (blocking)',
    dialects=("0.3", "1.0"),
    skips="the 0.1 draft (tasks/send has no such option)",
)
async def return_immediately(ctx: ProbeContext) -> None:
    await ctx.send(blocking=False)


@probe(
    "messages.stream-text",
    "messages",
    "a stream ends in a terminal or interrupted state",
    section="1.0 SendStreamingMessage, StreamResponse; 0.3 message/stream; 0.1 tasks/sendSubscribe",
    rule='0.3 StreamResponse: "The stream should complete when the Task if in an interrupted or '
    'terminal state." (0.x: with final: true on that status event); artifact chunks append only '
    "to an artifact the stream started; every object names the stream's task and context.",
    needs="streaming",
    skips="a card without capabilities.streaming",
)
async def stream_text(ctx: ProbeContext) -> None:
    events: list[Any] = []
    last_state: m.TaskState | None = None
    try:
        async for ev in ctx.client.stream(ctx.params(ctx.message(ctx.options.text))):
            events.append(type(ev).__name__)
            if isinstance(ev, m.Message):
                return
            if isinstance(ev, (m.Task, m.TaskStatusUpdateEvent)):
                last_state = ev.status.state
            if len(events) > 10_000:
                raise ctx.fail("the stream went on past 10,000 events")
    except JsonRpcError as exc:
        raise ctx.fail(f"the stream was answered with {error_text(exc)}") from None
    except (ProtocolError, TransportError) as exc:
        raise ctx.fail(f"the stream broke: {error_text(exc)}") from None
    if not events:
        raise ctx.fail("the stream ended without an event")
    if last_state is None or not settled(last_state):
        raise ctx.fail(
            f"the stream ended with the task {last_state.value if last_state else 'in no state'}, "
            "not terminal or interrupted"
        )


PARTS_SECTION = "1.0 Part (text, raw, url, data); 0.3 TextPart, FilePart, DataPart; 0.1 Part"
PARTS_RULE = (
    "A message may carry file (bytes or URI) and data parts beside text; the agent answers with a task "
    "or a message, or refuses a type it does not take with -32005 ContentTypeNotSupportedError: "
    '"An A2A-specific error indicating an incompatibility between the requested content types '
    "and the agent's capabilities.\" (0.3), or with the validation error 1.0 §3.3.2 names for an "
    "unsupported content type (-32602)"
)
#: The codes an agent may refuse a part with: ContentTypeNotSupportedError, and the
#: validation error 1.0 §3.3.2 gives "unsupported content type" as an example of.
PART_REFUSALS = (-32005, -32602)
#: A file URI no agent can fetch (.invalid never resolves): a check sends nothing anywhere else.
NOWHERE = "https://a2a-inspect-check.invalid/hello.txt"


async def _send_part(ctx: ProbeContext, part: Any, what: str) -> None:
    ctx.ignore("blocking-not-final")  # messages.blocking's
    msg = ctx.message(ctx.options.text, parts=[m.TextPart(text=ctx.options.text), part])
    try:
        await ctx.client.send(ctx.params(msg))
    except JsonRpcError as exc:
        if exc.code in PART_REFUSALS:
            return
        raise ctx.fail(
            f"a message with {what} was answered with {error_text(exc)}, not a task, a message, -32005 or -32602"
        ) from None
    except (ProtocolError, TransportError) as exc:
        raise ctx.fail(f"a message with {what} was answered with {error_text(exc)}") from None


@probe(
    "messages.data-part",
    "messages",
    "a message with a data part is answered (or refused with -32005 or -32602)",
    section=PARTS_SECTION,
    rule=PARTS_RULE,
    skips="never",
)
async def data_part(ctx: ProbeContext) -> None:
    await _send_part(ctx, m.DataPart(data={"a2a-inspect": "check", "n": 1}), "a data part")


@probe(
    "messages.file-bytes",
    "messages",
    "a message with a file's bytes is answered (or refused with -32005 or -32602)",
    section=PARTS_SECTION,
    rule=PARTS_RULE,
    skips="never",
)
async def file_bytes(ctx: ProbeContext) -> None:
    part = m.FilePart(
        file=m.FileContent(
            name="hello.txt", mime_type="text/plain", bytes=base64.b64encode(b"hello from a2a-inspect check\n").decode()
        )
    )
    await _send_part(ctx, part, "a file's bytes")


@probe(
    "messages.file-uri",
    "messages",
    "a message with a file URI is answered (or refused with -32005 or -32602)",
    section=PARTS_SECTION,
    rule=PARTS_RULE,
    skips="never (the URI is on a .invalid host: an agent that fetches it reaches nothing)",
)
async def file_uri(ctx: ProbeContext) -> None:
    part = m.FilePart(file=m.FileContent(name="hello.txt", mime_type="text/plain", uri=NOWHERE))
    await _send_part(ctx, part, "a file URI")
