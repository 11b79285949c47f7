"""The TUI opened on a bare grpc:// URL: the card comes from the agent's card RPC, the bar
says gRPC, and a message goes out and comes back over it."""

from __future__ import annotations

from inspector.session import Kind
from inspector.ui.app import InspectorApp
from test_ui_bindings import SIZE, ready, say, sends
from ui_helpers import screen_text, wait_until


async def test_open_a_grpc_url(sdk_agent_grpc: tuple[str, str]) -> None:
    _, target = sdk_agent_grpc
    app = InspectorApp(url=target)
    async with app.run_test(size=SIZE) as pilot:
        conn = await ready(pilot, app)
        assert (conn.binding_name, conn.dialect_name) == ("grpc", "1.0")
        await wait_until(pilot, lambda: "gRPC ▾" in screen_text(app), 3, "the bar")
        app.send_message(conn, say("hello from the tui"), stream=True)
        await wait_until(pilot, lambda: any(e.kind is Kind.STREAM_END for e in conn.session.events), 10, "end")
        (request,) = sends(conn)
        assert request["url"] == target + "/lf.a2a.v1.A2AService/SendStreamingMessage"
        await wait_until(pilot, lambda: "echo: hello from the tui" in screen_text(app), 5, "the answer")


async def test_the_composer_previews_a_grpc_call(sdk_agent_grpc: tuple[str, str]) -> None:
    from inspector.ui.widgets.composer import Composer

    _, target = sdk_agent_grpc
    app = InspectorApp(url=target)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        composer = app.screen.query_one(Composer)
        composer.set_text("preview me")
        head, body = composer.preview_request()
        first = head.splitlines()[0]
        assert first.startswith(f"POST {target}/lf.a2a.v1.A2AService/Send") and "gRPC" in first
        assert "a2a-version: 1.0" in head
        assert body["message"]["parts"] == [{"text": "preview me"}] and "jsonrpc" not in body
