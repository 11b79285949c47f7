"""``a2a-inspect proxy`` in the terminal UI: the proxy runs in the app's event loop and
its session opens as one connection (read-only: the traffic is the clients'), so the
tasks, task and traffic views show what passes through it as they show anything else."""

from __future__ import annotations

from typing import Any

from .connection import EVENTS_KEPT, AgentConnection


async def start_proxy(app: Any, options: Any) -> None:
    from ..headless.proxy_cmd import build_proxy
    from ..proxy import ProxyServer, RulesError
    from ..proxy.core import BYTES_KEPT
    from ..session import Session
    from .listening import start_listening

    try:
        proxy = build_proxy(options, session=Session(keep=EVENTS_KEPT, keep_bytes=BYTES_KEPT))
    except (RulesError, ValueError) as exc:
        app.report_error("the proxy cannot start", exc)
        return
    server = ProxyServer(proxy, port=options.port, grpc_upstream=options.grpc_upstream, allow_hosts=options.allow_hosts)
    recorder = await start_listening(app, "proxy", proxy.session, options, server)
    if recorder is False:
        return
    upstreams = ", ".join(r.upstream for r in proxy.routes)
    conn = AgentConnection(server.base_url, name=f"→ {upstreams}", session=proxy.session, read_only=True)
    conn.state = "proxy"
    conn.recorder = recorder
    app.proxy = (proxy, server, recorder)
    app.open_connection(conn)
    _follow_facts(app, conn)
    app.sub_title = f"proxy {server.base_url}"
    app.notify(
        f"clients connect to {server.base_url} (→ {upstreams}); F10: fault rules",
        title="proxy",
        timeout=10,
        markup=False,
    )


async def stop_proxy(app: Any) -> None:
    _proxy, server, recorder = app.proxy
    try:
        await server.stop()
    finally:
        if recorder is not None:
            recorder.close()


def _follow_facts(app: Any, conn: AgentConnection) -> None:
    """Redraw the connection's bar when the traffic first shows its card, dialect or
    binding (a recording has them all when it opens; a proxy learns them as it goes)."""
    from .messages import ConnectionChanged

    seen: list[Any] = [None]

    def check(event: Any) -> None:
        if event.kind.value not in ("request", "response"):
            return
        facts = conn.recorded()
        now = (facts.dialect, facts.binding, id(facts.card))
        if now != seen[0]:
            seen[0] = now
            app.to_main(ConnectionChanged(conn))

    conn.session.subscribe(check)
