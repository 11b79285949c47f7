"""The TUI and gRPC: opened on a bare grpc:// URL (the card from the agent's card RPC,
gRPC in the bar, a message out and back), the composer's preview of a gRPC call, and a
gRPC recording replayed."""

from __future__ import annotations

from typing import Any

from inspector.session import Kind
from inspector.ui.app import InspectorApp
from test_ui_bindings import SIZE, ready, say, sends
from ui_helpers import preview, screen_text, wait_until


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
        head, body = await preview(pilot, composer)
        first = head.splitlines()[0]
        assert first.startswith(f"POST {target}/lf.a2a.v1.A2AService/Send") and "gRPC" in first
        assert "a2a-version: 1.0" in head
        assert body["message"]["parts"] == [{"text": "preview me"}] and "jsonrpc" not in body


async def test_a_grpc_recording_replays_in_the_tui(sdk_agent_grpc: tuple[str, str], tmp_path: Any) -> None:
    """``a2a-inspect replay FILE`` on a gRPC recording: the same views, fed from the file."""
    from inspector.ui.replay_app import open_replay
    from test_grpc_sessions import record
    from test_ui_replay import settled

    _, target = sdk_agent_grpc
    path = tmp_path / "grpc.jsonl"
    await record(target, path, "1.0")
    app = open_replay(path)
    async with app.run_test(size=SIZE) as pilot:
        c = await settled(pilot, app)
        assert c.cursor == c.total
        # The app opens the recording's connection after its first frame, which a short
        # recording can outrun: wait for it rather than for the race to go one way.
        await wait_until(pilot, lambda: app.active is not None, 10, "the recording's connection")
        conn = app.active
        assert conn.binding_name == "grpc"
        kinds = [e.kind for e in conn.session.events]
        assert kinds.count(Kind.MESSAGE) == 6
        assert [t.state.value for t in conn.tracker.tasks.values()] == ["completed", "completed"]
        app.action_view("traffic")
        await pilot.pause()
        await wait_until(pilot, lambda: "NOT_FOUND" in screen_text(app), 5, "the error's row")
