"""The bindings group: one task seen through every binding the card lists is the same
task (the TCK's transport equivalence). It runs after the per-binding groups."""

from __future__ import annotations

from typing import Any

from ..client import JsonRpcError, ProtocolError, TransportError
from ..protocol import models as m
from .context import ProbeContext, error_text, quoted
from .probe import Skipped, probe


def _artifact_texts(task: m.Task) -> list[str]:
    return sorted("".join(p.text for p in a.parts if isinstance(p, m.TextPart)) for a in task.artifacts or [])


def _seen(task: m.Task) -> dict[str, Any]:
    return {
        "id": task.id,
        "contextId": task.context_id,
        "state": task.status.state.value,
        "artifact texts": _artifact_texts(task),
    }


@probe(
    "bindings.same-task",
    "bindings",
    "a task is the same task through every binding the card lists",
    section="1.0 Protocol Bindings (the same operations over JSON-RPC, gRPC and HTTP+JSON); 0.3 transports",
    rule="Every interface a card lists serves the same agent: a task made through one binding is found "
    "through each other binding with the same id, context, state and artifacts.",
    per_agent=True,
    last=True,
    skips="a card that lists fewer than two bindings for the dialect (or --binding); the ordinary text "
    "is answered with a message, or leaves its task unfinished",
)
async def same_task(ctx: ProbeContext) -> None:
    bindings = [b for b in ctx.bindings if b in ctx.clients]
    if len(bindings) < 2:
        raise Skipped("only one binding to compare" + (" (--binding)" if ctx.options.binding != "auto" else ""))
    made_with = ProbeContext(
        ctx.options, ctx.clients[bindings[0]], ctx.session, ctx.tracker, dialect=ctx.dialect, binding=bindings[0]
    )
    made_with.exchanges, made_with.request_seqs = ctx.exchanges, ctx.request_seqs
    ctx.ignore("blocking-not-final")  # messages.blocking's finding; a send answered early is a skip here
    task = await made_with.finished_task()
    want = _seen(task)
    for binding in bindings:
        try:
            got = await ctx.clients[binding].get_task(task.id)
        except (JsonRpcError, ProtocolError, TransportError) as exc:
            raise ctx.fail(
                f"task {task.id}, made over {bindings[0]}, was answered over {binding} with {error_text(exc)}"
            ) from None
        seen = _seen(got)
        differ = [k for k in want if seen[k] != want[k]]
        if differ:
            shown = "; ".join(
                f"{k} {quoted(want[k])} over {bindings[0]}, {quoted(seen[k])} over {binding}" for k in differ
            )
            raise ctx.fail(f"task {task.id} differs: {shown}")
