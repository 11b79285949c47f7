"""Runs the battery: discovers the card, chooses the bindings, runs each probe that
applies on each binding, and judges every exchange a probe made with the tracker's
rules too. What comes out is data (a Report); headless and the UI render it."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..client import A2AClient, JsonRpcError, ProtocolError, TransportError, UnsupportedMethod
from ..protocol import bindings as b
from ..session import Session, TaskTracker

# Imported for what importing does: each probe module registers its probes.
from . import (  # noqa: F401
    binding_probes,
    card_probes,
    error_probes,
    grpc_error_probes,
    message_probes,
    push_probes,
    task_probes,
    turn_probes,
)
from .card_probes import same_host
from .context import CheckOptions, ProbeContext, error_text, quoted
from .probe import FAIL, GROUPS, PASS, PROBES, SKIP, Failed, Probe, Result, Skipped


@dataclass
class Report:
    url: str
    dialect: str | None = None
    bindings: list[str] = field(default_factory=list)
    results: list[Result] = field(default_factory=list)
    #: Why the agent could not be reached (nothing was probed).
    unreachable: str | None = None
    #: Set when --max-time ran out: the probes not run are skipped with this reason.
    stopped: str | None = None
    card_name: str | None = None
    requests: int = 0
    seconds: float = 0.0

    @property
    def failed(self) -> bool:
        return any(r.outcome == FAIL for r in self.results)

    def count(self, outcome: str) -> int:
        return sum(1 for r in self.results if r.outcome == outcome)


def selected(only: tuple[str, ...], skip: tuple[str, ...]) -> list[Probe]:
    """The probes ``--only`` and ``--skip`` leave (each a group or a probe id);
    ValueError naming a word that is neither."""
    known = set(GROUPS) | {p.id for p in PROBES}
    for word in (*only, *skip):
        if word not in known:
            raise ValueError(f"no probe or group {word!r}; groups: {', '.join(GROUPS)} (probe ids: docs/check.md)")

    def hit(p: Probe, words: tuple[str, ...]) -> bool:
        return p.group in words or p.id in words

    chosen = [p for p in PROBES if (not only or hit(p, only)) and not hit(p, skip)]
    return sorted(chosen, key=lambda p: GROUPS.index(p.group))


def _capabilities(client: A2AClient) -> dict[str, Any]:
    caps = client.card.capabilities if client.card is not None else None
    if caps is None:
        return {}
    return {"streaming": bool(caps.streaming), "push_notifications": bool(caps.push_notifications)}


def _bindings(client: A2AClient, dialect: str, wanted: str) -> list[str]:
    if wanted != b.AUTO:
        return [wanted]
    found: list[str] = []
    if client.card is not None:
        for iface in b.card_interfaces(client.card):
            if (
                iface.dialect == dialect
                and iface.binding in b.SPOKEN
                and iface.binding not in found
                and dialect in b.DIALECTS[iface.binding]
            ):
                found.append(iface.binding)
    return found or [client.binding or b.JSONRPC]


async def run_check(
    options: CheckOptions,
    session: Session,
    tracker: TaskTracker,
    *,
    max_time: float | None = None,
    on_result: Callable[[Result], None] | None = None,
) -> Report:
    started = time.monotonic()
    deadline = started + max_time if max_time is not None else None
    report = Report(url=options.url)
    probes = selected(options.only, options.skip)
    requests = _RequestCount(session)

    def add(result: Result) -> None:
        report.results.append(result)
        if on_result is not None:
            on_result(result)

    try:
        async with options.client(session, options.dialect, options.binding) as first:
            try:
                async with _until(deadline):
                    try:
                        await first.get_card()
                    except ProtocolError:
                        pass  # card.lint says why
                    except TransportError as exc:
                        if exc.kind != "http":
                            raise
                    dialect = (await first.resolve_dialect()).name
            except (TransportError, UnsupportedMethod) as exc:
                report.unreachable = str(exc)
                return report
            except TimeoutError:
                report.unreachable = "no card and no dialect within --max-time"
                return report
            report.dialect = dialect
            report.card_name = first.card.name if first.card is not None else None
            caps = _capabilities(first)
            report.bindings = _bindings(first, dialect, options.binding)
            every = tuple(report.bindings)
            for p in probes:
                if p.per_agent and not p.last:
                    ctx = ProbeContext(options, first, session, tracker, dialect=dialect, binding=None, bindings=every)
                    add(await _run(p, ctx, caps, deadline, report))
            async with contextlib.AsyncExitStack() as stack:
                # Each binding's client stays open for the probes that compare bindings.
                clients: dict[str, A2AClient] = {}
                for binding in report.bindings:
                    client = await stack.enter_async_context(options.client(session, dialect, binding))
                    if await _run_binding(
                        options, client, session, tracker, dialect, binding, probes, caps, deadline, report, add
                    ):
                        clients[binding] = client
                for p in probes:
                    if p.per_agent and p.last:
                        ctx = ProbeContext(
                            options,
                            first,
                            session,
                            tracker,
                            dialect=dialect,
                            binding=None,
                            bindings=every,
                            clients=clients,
                        )
                        add(await _run(p, ctx, caps, deadline, report))
    finally:
        report.requests = requests.close()
        report.seconds = time.monotonic() - started
    return report


async def _run_binding(
    options: CheckOptions,
    client: A2AClient,
    session: Session,
    tracker: TaskTracker,
    dialect: str,
    binding: str,
    probes: list[Probe],
    caps: dict[str, Any],
    deadline: float | None,
    report: Report,
    add: Callable[[Result], None],
) -> bool:
    """Run the per-binding probes on ``client``; False when the binding cannot be used."""
    mine = [p for p in probes if not p.per_agent]
    why = None
    try:
        async with _until(deadline):
            await client.resolve_dialect()
        if client.endpoint and not same_host(options.url, client.endpoint):
            why = (
                f"the card's {binding} endpoint {quoted(client.endpoint)} is on another host than "
                f"{quoted(options.url)}: a check does not follow the card there"
            )
    except (UnsupportedMethod, ValueError) as exc:
        why = f"the {binding} binding cannot be used: {quoted(exc)}"
    except (TransportError, ProtocolError, JsonRpcError) as exc:
        why = f"the {binding} binding could not be reached: {error_text(exc)}"
    except TimeoutError:
        why = report.stopped = "not run: --max-time ran out"
    for p in mine:
        if why is not None:
            add(Result(p, binding, dialect, SKIP, why))
            continue
        ctx = ProbeContext(options, client, session, tracker, dialect=dialect, binding=binding)
        add(await _run(p, ctx, caps, deadline, report))
    return why is None


async def _run(p: Probe, ctx: ProbeContext, caps: dict[str, Any], deadline: float | None, report: Report) -> Result:
    result = Result(p, ctx.binding, ctx.dialect, PASS)
    why = p.not_applicable(ctx.dialect, ctx.binding or "", caps)
    if why is not None:
        result.outcome, result.reason = SKIP, why
        return result
    if report.stopped is not None:
        result.outcome, result.reason = SKIP, report.stopped
        return result
    seconds = ctx.options.probe_seconds
    cut_by_max_time = False
    if deadline is not None:
        left = deadline - time.monotonic()
        if left <= 0:
            report.stopped = "not run: --max-time ran out"
            result.outcome, result.reason = SKIP, report.stopped
            return result
        cut_by_max_time = left < seconds
        seconds = min(seconds, left)
    start = len(ctx.tracker.violations)
    ctx.listen()
    t0 = time.monotonic()
    try:
        async with asyncio.timeout(seconds):
            await p.run(ctx)
    except Failed as exc:
        result.outcome, result.reason, result.exchange = FAIL, exc.text, exc.exchange
    except Skipped as exc:
        result.outcome, result.reason = SKIP, exc.text
    except TimeoutError:
        if cut_by_max_time:
            report.stopped = "not run: --max-time ran out"
            result.outcome, result.reason = SKIP, "--max-time ran out during this probe"
        else:
            result.outcome = FAIL
            result.reason = f"no answer within {seconds:g} s"
            result.exchange = ctx.last_exchange
    except UnsupportedMethod as exc:
        result.outcome, result.reason = SKIP, quoted(exc)
    except (JsonRpcError, ProtocolError, TransportError) as exc:
        result.outcome, result.reason, result.exchange = FAIL, error_text(exc), ctx.last_exchange
    finally:
        ctx.stop()
    result.seconds = time.monotonic() - t0
    result.exchanges = list(ctx.exchanges)
    found = [v for v in ctx.tracker.violations[start:] if v.severity == "error" and v.code not in ctx.ignored]
    if found:
        said = "; ".join(f"violation {v.code}: {quoted(v.message)}" for v in found[:3])
        if result.outcome == FAIL:
            result.reason = f"{result.reason}; {said}"
        else:
            result.outcome, result.reason = FAIL, said
            result.exchange = found[0].exchange or ctx.last_exchange
        result.seq = found[0].seq
    elif result.outcome == FAIL and result.exchange is not None:
        result.seq = ctx.request_seqs.get(result.exchange)
    return result


def _until(deadline: float | None) -> Any:
    """A timeout at ``deadline`` (time.monotonic()), or none."""
    if deadline is None:
        return contextlib.nullcontext()
    return asyncio.timeout(max(0.0, deadline - time.monotonic()))


class _RequestCount:
    def __init__(self, session: Session) -> None:
        from ..session import Kind

        self._kind = Kind.REQUEST
        self.count = 0
        self.session = session
        session.subscribe(self._seen)

    def _seen(self, event: Any) -> None:
        if event.kind is self._kind:
            self.count += 1

    def close(self) -> int:
        self.session.unsubscribe(self._seen)
        return self.count
