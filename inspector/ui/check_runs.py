"""What the Check view (F7) remembers of each agent for the session: the options a
person set (the --ask text, the --running-text, the groups to run) and the last run,
its results as they come. A run belongs to the agent's connection, not to the view:
closing the view lets it finish (reopening shows it, still running or done), closing
the connection stops it. No textual here: the view reads these and redraws."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

#: The longest --ask / --running-text the view takes (a message, not a document).
TEXT_MAX = 2000

#: Probes that a --running-text or an --ask makes runnable: their skips point at the options.
OPTION_PROBES = {
    "multi-turn.continue": "ask",
    "tasks.cancel-running": "running text",
    "tasks.subscribe-running": "running text",
}


@dataclass(frozen=True)
class CheckSettings:
    """What a person chose for this agent's checks; empty texts are the CLI's defaults."""

    ask: str = ""
    running_text: str = ""
    #: The groups to run; empty: every group.
    groups: tuple[str, ...] = ()

    def describe(self) -> str:
        ask = repr(self.ask) if self.ask else "none"
        running = repr(self.running_text) if self.running_text else "none"
        groups = ", ".join(self.groups) if self.groups else "all"
        return f"ask: {ask} · running text: {running} · groups: {groups}"


@dataclass
class CheckRun:
    settings: CheckSettings
    #: 1 for the agent's first run in this session, then 2, ...
    number: int
    results: list[Any] = field(default_factory=list)
    report: Any = None
    #: Why the run stopped before a report (one line).
    error: str | None = None
    worker: Any = None

    @property
    def running(self) -> bool:
        return self.report is None and self.error is None


@dataclass
class Outline:
    """A run's results as the view lays them out: failures first, skips by reason (in
    the order the reasons first came), passes."""

    failed: list[Any]
    skipped: list[tuple[str, list[Any]]]
    passed: list[Any]


def outline(results: list[Any]) -> Outline:
    failed = [r for r in results if r.outcome == "fail"]
    passed = [r for r in results if r.outcome == "pass"]
    by_reason: dict[str, list[Any]] = {}
    for r in results:
        if r.outcome == "skip":
            by_reason.setdefault(r.reason or "no reason given", []).append(r)
    return Outline(failed, list(by_reason.items()), passed)


def checkable(conn: Any) -> bool:
    """A live HTTP or gRPC agent (not a recording, not an agent behind a hub)."""
    return conn is not None and not conn.read_only and not conn.fixed_client and conn.client is not None


def options_for(conn: Any, settings: CheckSettings) -> Any:
    """The check's options: the connection's URL, dialect, binding and credentials,
    and what the person set."""
    from ..check import CheckOptions

    return CheckOptions(
        url=conn.url,
        dialect=conn.requested_dialect,
        binding=conn.requested_binding,
        card_url=conn.card_url,
        headers=conn.headers,
        auth=conn.auth,
        timeouts=conn.timeouts,
        limits=conn.limits,
        secret_names=tuple(conn.secret_names),
        plain_names=tuple(conn.plain_names),
        tls=getattr(conn, "tls", None),
        ask=settings.ask or None,
        running_text=settings.running_text or None,
        only=settings.groups,
    )


class CheckMemory:
    """Each open connection's settings and last run, by connection id. ``listeners``
    hear ``(conn_id, run)`` whenever a run starts, gets a result or ends."""

    def __init__(self) -> None:
        self.settings: dict[int, CheckSettings] = {}
        self.runs: dict[int, CheckRun] = {}
        self.listeners: list[Callable[[int, CheckRun], None]] = []

    def settings_for(self, conn: Any) -> CheckSettings:
        return self.settings.get(conn.id, CheckSettings())

    def run_for(self, conn: Any) -> CheckRun | None:
        return self.runs.get(conn.id)

    def forget(self, conn: Any) -> None:
        run = self.runs.pop(conn.id, None)
        self.settings.pop(conn.id, None)
        if run is not None and run.worker is not None:
            run.worker.cancel()

    def start(self, app: Any, conn: Any, settings: CheckSettings | None = None) -> CheckRun:
        """A new run for ``conn`` with ``settings`` (remembered), or the remembered ones;
        a run of the agent still going is stopped: its results are no longer shown."""
        if settings is not None:
            self.settings[conn.id] = settings
        old = self.runs.get(conn.id)
        if old is not None and old.worker is not None and old.running:
            old.worker.cancel()
        run = CheckRun(self.settings_for(conn), number=old.number + 1 if old else 1)
        self.runs[conn.id] = run
        # The connection's group: closing the connection cancels its workers, this one too.
        run.worker = app.run_worker(self._run(conn, run), group=f"conn-{conn.id}", exit_on_error=False)
        self._tell(conn.id, run)
        return run

    async def _run(self, conn: Any, run: CheckRun) -> None:
        from ..check import run_check

        def add(result: Any) -> None:
            run.results.append(result)
            self._tell(conn.id, run)

        try:
            run.report = await run_check(options_for(conn, run.settings), conn.session, conn.tracker, on_result=add)
        except asyncio.CancelledError:
            run.error = "stopped before it finished"
            raise
        except Exception as exc:  # a bug of ours must not leave the view saying "running"
            text = " ".join(str(exc).split())
            run.error = f"stopped: {type(exc).__name__}{': ' + text[:200] if text else ''}"
        finally:
            self._tell(conn.id, run)

    def _tell(self, conn_id: int, run: CheckRun) -> None:
        for listener in list(self.listeners):
            listener(conn_id, run)
