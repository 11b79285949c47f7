"""The hub served: agents' WebSockets at ``/ws`` and the HTTP bridge beside them, on one
loopback port (uvicorn, like every server here).

    async with HubServer(hub, port=0) as server:
        server.ws_url        # ws://127.0.0.1:PORT/ws
        server.base_url      # http://127.0.0.1:PORT  (the bridge: /agents/NAME)
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterable, Mapping
from typing import Any

from .bridge import Bridge
from .core import Hub
from .socket import POLICY, TRY_LATER

#: The WebSocket path agents connect to.
WS_PATH = "/ws"


class _Transport:
    """What AgentSocket needs of a Starlette WebSocket."""

    __slots__ = ("ws",)

    def __init__(self, ws: Any) -> None:
        self.ws = ws

    async def send_text(self, text: str) -> None:
        await self.ws.send_text(text)

    async def close_socket(self, code: int, reason: str) -> None:
        await self.ws.close(code=code, reason=reason)


def _headers(scope: Mapping[str, Any]) -> dict[str, str]:
    out: dict[str, str] = {}
    for key, value in scope.get("headers") or ():
        name = key.decode("latin-1")
        text = value.decode("latin-1")
        out[name] = f"{out[name]}, {text}" if name in out else text
    return out


def build_app(hub: Hub, *, ws_path: str = WS_PATH, sweep_every: float | None = None) -> Any:
    from starlette.applications import Starlette
    from starlette.routing import WebSocketRoute
    from starlette.websockets import WebSocket

    async def agent_socket(websocket: WebSocket) -> None:
        client = websocket.client
        peer = f"{client.host}:{client.port}" if client else None
        sock = hub.open_socket(_Transport(websocket), peer, websocket.url.path, _headers(websocket.scope))
        if sock is None:
            await websocket.close(code=TRY_LATER)
            return
        await websocket.accept()
        while True:
            message = await websocket.receive()
            if not await sock.received(message):
                break

    every = sweep_every if sweep_every is not None else min(1.0, hub.limits.heartbeat_timeout / 4)

    async def sweeper() -> None:
        while True:
            await asyncio.sleep(every)
            for sock in hub.sweep():
                hub.note(
                    f"ws socket #{sock.number} did not register within {hub.limits.heartbeat_timeout:g} s: closed it",
                    sock,
                    code="hub-no-register",
                )
                await sock.close(POLICY, "register first (agent.register)")
                sock.disconnected(POLICY, "did not register", ours=True)

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        task = asyncio.get_running_loop().create_task(sweeper())
        try:
            yield
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            for sock in list(hub.sockets.values()):
                await sock.close(1001, "the hub is shutting down")
                sock.disconnected(1001, "the hub is shutting down", ours=True)

    routes = [WebSocketRoute(ws_path, agent_socket), *Bridge(hub).routes()]
    return Starlette(routes=routes, lifespan=lifespan)


class HubServer:
    """``hub`` served on a loopback port, as a task of the running event loop."""

    def __init__(
        self,
        hub: Hub,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        ws_path: str = WS_PATH,
        sweep_every: float | None = None,
        request_timeout: float | None = None,
        allow_hosts: Iterable[str] = (),
    ) -> None:
        """``request_timeout``: seconds the bridge's HTTP requests may take to arrive
        (serving/deadline.py; tests shorten it). Agents' sockets are not bound by it.
        ``allow_hosts``: Host names to answer for besides loopback (serving/browser_guard.py);
        the bridge and the agents' WebSocket upgrade are checked alike."""
        from ..serving.browser_guard import BrowserGuard
        from ..serving.runner import BackgroundServer

        self.hub = hub
        self.ws_path = ws_path if ws_path.startswith("/") else "/" + ws_path
        app = BrowserGuard(build_app(hub, ws_path=self.ws_path, sweep_every=sweep_every), allow_hosts)
        # websockets' sans-I/O protocol refuses a frame over ws_max_size from its header,
        # before reading the payload; no compression, so no frame grows after arrival.
        extra: dict[str, Any] = {"request_timeout": request_timeout} if request_timeout else {}
        self._server = BackgroundServer(
            app,
            host=host,
            port=port,
            log_config=None,
            ws="websockets-sansio",
            ws_max_size=hub.limits.max_frame,
            ws_per_message_deflate=False,
            lifespan="on",
            **extra,
        )

    @property
    def base_url(self) -> str:
        return self._server.url

    @property
    def ws_url(self) -> str:
        host = self._server.host
        host = f"[{host}]" if ":" in host else host
        return f"ws://{host}:{self._server.port}{self.ws_path}"

    @property
    def port(self) -> int:
        return self._server.port

    async def start(self) -> HubServer:
        await self._server.astart()
        self.hub.bridge = self.base_url
        # In the session (and so in a recording): where the bridge was, so that a hub
        # recording's bridge exchanges are rebuilt with the address their callers used.
        self.hub.note(
            f"hub listening: agents connect to {self.ws_url}; the bridge is at {self.base_url}/agents/NAME",
            code="hub-listening",
            bridge=self.base_url,
            ws=self.ws_url,
        )
        return self

    async def stop(self) -> None:
        await self._server.astop()

    async def __aenter__(self) -> HubServer:
        return await self.start()

    async def __aexit__(self, *exc: Any) -> None:
        await self.stop()
