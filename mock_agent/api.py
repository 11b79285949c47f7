"""``MockAgent``: a mock A2A agent on a free loopback port, for other projects' tests.

    from mock_agent import MockAgent

    with MockAgent("echo", dialect="all") as mock:
        httpx.get(mock.card_url)
        httpx.post(mock.url, json={...})

    async with MockAgent("streaming", dialect="1.0", time_scale=0.01) as mock:
        ...

The sync form runs uvicorn in a daemon thread (usable from sync and async tests alike);
the async form runs it as a task in the current event loop.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from inspector.serving.browser_guard import BrowserGuard
from inspector.serving.runner import LOOPBACK, BackgroundServer, url_at

from .profiles import Profile
from .scenario import Scenario
from .server import MockServer
from .store import TaskRecord


class MockAgent:
    def __init__(
        self,
        scenario: str | Path | dict[str, Any] | Scenario | None = None,
        *,
        dialect: str | None = None,
        profile: str | Profile | None = None,
        host: str = LOOPBACK,
        port: int = 0,
        time_scale: float = 1.0,
        seed: int | None = None,
        max_body: int | None = None,
        heartbeat: float | None = None,
        allow_remote_push: bool = False,
        lenient: bool | None = None,
        max_tasks: int | None = None,
        grpc_port: int | None = None,
        allow_hosts: Iterable[str] = (),
    ) -> None:
        """``scenario``: a built-in's name, a file path, a dict or a Scenario (default:
        the profile's scenario, else "echo"). ``time_scale`` multiplies every scripted
        delay (0.01 makes a 2 s script take 20 ms). ``lenient``: accept requests the
        spec does not allow (default: the scenario's ``lenient``, else strict).
        ``max_tasks``: how many tasks to keep, newest first (default 1,000).
        ``grpc_port``: also serve gRPC (1.0 and 0.3) on this loopback port (0: a free
        one; ``grpc_address`` says which), in the same event loop and task store.
        ``allow_hosts``: Host names to answer for besides loopback (NAME, NAME:PORT or
        ``*``); a request for another Host, or from a web page of another origin, is
        refused with 403 (inspector/serving/browser_guard.py)."""
        self.server = MockServer(
            scenario,
            dialect=dialect,
            profile=profile,
            max_body=max_body,
            heartbeat=heartbeat,
            time_scale=time_scale,
            seed=seed,
            allow_remote_push=allow_remote_push,
            lenient=lenient,
            store_limit=max_tasks,
            grpc_port=grpc_port,
        )
        self._runner = BackgroundServer(BrowserGuard(self.server.app, allow_hosts), host=host, port=port)

    # -- addresses ---------------------------------------------------------------

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT``"""
        return self._runner.url

    @property
    def url(self) -> str:
        """The JSON-RPC endpoint (the card's ``url``)."""
        return url_at(self._runner.url, self.server.rpc_path)

    @property
    def grpc_address(self) -> str | None:
        """``127.0.0.1:PORT``, the gRPC channel target (None unless ``grpc_port`` was given)."""
        return self.server.grpc_address

    @property
    def grpc_url(self) -> str | None:
        """``grpc://127.0.0.1:PORT``, as a2a-inspect takes it."""
        address = self.server.grpc_address
        return None if address is None else f"grpc://{address}"

    @property
    def card_url(self) -> str:
        """The card at the served dialect's preferred well-known path."""
        return url_at(self._runner.url, self.server.card_path)

    @property
    def card_urls(self) -> list[str]:
        return [url_at(self._runner.url, path) for path in self.server.card_paths]

    @property
    def app(self) -> Any:
        return self.server.app

    # -- what happened -------------------------------------------------------------

    @property
    def tasks(self) -> list[TaskRecord]:
        """The tasks the mock holds, oldest first (``record.task`` is the A2A Task)."""
        return list(self.server.store)

    def task(self, task_id: str) -> TaskRecord | None:
        return self.server.store.get(task_id)

    @property
    def requests(self) -> list[Any]:
        """The last JSON-RPC requests received, parsed, oldest first."""
        return list(self.server.requests)

    def held(self, gate: str) -> int:
        """How many tasks wait at a ``hold: GATE`` step now."""
        return self.server.engine.gates.held(gate)

    def release(self, gate: str) -> int:
        """Let every task waiting at ``hold: GATE`` go on (returns how many). Tasks that
        reach the gate later wait again: poll ``held(gate)`` before releasing."""
        return self.server.engine.gates.release(gate)

    @property
    def push_log(self) -> list[tuple[str, str]]:
        """(url, HTTP status or error) for each push notification sent."""
        return list(self.server.push.log)

    # -- lifecycle -------------------------------------------------------------------

    def start(self) -> MockAgent:
        self._runner.start()
        self.server.http_server = (self._runner.host, self._runner.port)
        return self

    def stop(self) -> None:
        self._runner.stop()

    def __enter__(self) -> MockAgent:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    async def astart(self) -> MockAgent:
        await self._runner.astart()
        self.server.http_server = (self._runner.host, self._runner.port)
        return self

    async def astop(self) -> None:
        await self._runner.astop()

    async def __aenter__(self) -> MockAgent:
        return await self.astart()

    async def __aexit__(self, *exc: Any) -> None:
        await self.astop()

    def __repr__(self) -> str:
        return f"<MockAgent {self.server.scenario.name!r} dialect={self.server.dialect_name} at {self.base_url}>"
