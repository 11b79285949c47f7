"""The proxy served on a loopback port (uvicorn, like every server here).

async with ProxyServer(proxy, port=0) as server:
    server.base_url      # http://127.0.0.1:PORT: clients call this instead of the agent
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .core import Proxy


class ProxyServer:
    def __init__(
        self,
        proxy: Proxy,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        grpc_upstream: str | None = None,
        allow_hosts: Iterable[str] = (),
    ) -> None:
        """``allow_hosts``: Host names to answer for besides loopback (serving/browser_guard.py)."""
        from ..serving.browser_guard import BrowserGuard
        from ..serving.runner import BackgroundServer

        self.proxy = proxy
        #: A gRPC target (``host:port``) to listen for from the start, not only once a card names it.
        self.grpc_upstream = grpc_upstream
        self._server = BackgroundServer(
            BrowserGuard(proxy, allow_hosts), host=host, port=port, log_config=None, lifespan="on"
        )

    @property
    def base_url(self) -> str:
        return self._server.url

    @property
    def port(self) -> int:
        return self._server.port

    async def start(self) -> ProxyServer:
        await self._server.astart()
        self.proxy.http()  # its TLS set-up now, not on the first client's time
        routes = ", ".join(f"{r.label} -> {r.upstream}" for r in self.proxy.routes)
        # In the session (and so in a recording): where the proxy listened, for what.
        self.proxy.note(
            f"proxy listening on {self.base_url}: {routes}",
            code="proxy-listening",
            proxy=self.base_url,
            routes={r.label: r.upstream for r in self.proxy.routes},
        )
        if self.grpc_upstream:
            try:
                await self.proxy.grpc.ensure(self.grpc_upstream, self.proxy.routes[-1].label)
            except OSError:
                await self.stop()
                raise
        return self

    @property
    def grpc_addresses(self) -> dict[str, str]:
        """The gRPC listeners open so far: upstream URL -> the proxy's ``127.0.0.1:PORT``."""
        return {lst.url: lst.address for lst in self.proxy.grpc.listeners.values()}

    async def stop(self) -> None:
        await self.proxy.stop_relays()
        await self._server.astop()
        await self.proxy.aclose()

    async def __aenter__(self) -> ProxyServer:
        return await self.start()

    async def __aexit__(self, *exc: Any) -> None:
        await self.stop()
