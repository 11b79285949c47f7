"""The binding in the TUI: shown in the connection bar beside the dialect, switched from
the bar, the binding menu (shift+f8) or the palette; REST exchanges in the traffic view
(method, path, status), and gRPC ones (messages, metadata, status, trailers); a recording
shows the binding it was made over."""

from __future__ import annotations

from typing import Any

from inspector.protocol import models as m
from inspector.session import Kind
from inspector.ui.app import InspectorApp
from inspector.ui.screens.binding_menu import BindingMenu
from inspector.ui.widgets.traffic_view import TrafficView
from mock_agent import MockAgent
from test_ui_palette_themes import run_from_palette
from ui_helpers import preview, screen_text, wait_until

SIZE = (140, 36)


async def ready(pilot: Any, app: InspectorApp) -> Any:
    return await wait_until(
        pilot, lambda: app.active if app.active and app.active.state == "ready" else None, 10, "the agent to be ready"
    )


def say(text: str) -> m.SendParams:
    return m.SendParams(message=m.Message(role=m.Role.USER, parts=[m.TextPart(text=text)]))


def sends(conn: Any) -> list[dict[str, Any]]:
    return [e.data for e in conn.session.events if e.kind is Kind.REQUEST and e.data.get("a2a_method") == "stream"]


async def test_switch_binding_from_the_bar_and_see_rest_traffic() -> None:
    async with MockAgent("echo", dialect="all") as mock:
        app = InspectorApp(url=mock.url)
        async with app.run_test(size=SIZE) as pilot:
            conn = await ready(pilot, app)
            assert conn.binding_name == "jsonrpc" and conn.binding_source == "card"
            # The bar hears of the ready connection by a message, a frame or more later.
            await wait_until(pilot, lambda: "JSON-RPC ▾" in screen_text(app), 5, "the bar")
            assert "(card)" in str(app.screen.query_one("#bar-binding").tooltip)
            await pilot.click("#bar-binding")
            await wait_until(pilot, lambda: isinstance(app.screen, BindingMenu), 3, "the binding menu")
            await pilot.press("down", "down", "enter")  # auto, jsonrpc, [rest]
            await wait_until(pilot, lambda: conn.binding_name == "rest" and conn.state == "ready", 10, "rest")
            await wait_until(pilot, lambda: "REST ▾" in screen_text(app), 3, "the bar to follow")
            assert "HTTP+JSON/REST (user)" in str(app.screen.query_one("#bar-binding").tooltip)
            assert conn.dialect_name == "1.0"

            app.send_message(conn, say("over rest"), stream=True)
            await wait_until(pilot, lambda: any(e.kind is Kind.STREAM_END for e in conn.session.events), 10, "end")
            (request,) = sends(conn)
            assert request["binding"] == "rest" and request["url"] == mock.base_url + "/rest/message:stream"
            app.action_view("traffic")
            view = app.screen.query_one(TrafficView)
            await wait_until(pilot, lambda: len(view.index.rows) == len(conn.session.events), 5, "all rows")
            event = next(e for e in conn.session.events if e.kind is Kind.REQUEST and e.data.get("binding") == "rest")
            response = next(e for e in conn.session.events if e.kind is Kind.RESPONSE and e.exchange == event.exchange)
            index = view.index
            assert index.method(event) == "stream" and index.status(event) == "POST"
            assert index.summary(event) == f"POST {mock.base_url}/rest/message:stream"
            assert index.status(response) == "200"
            view.apply_filter("kind:req method:stream")
            await wait_until(pilot, lambda: view.index.done, 5, "filter applied")
            await wait_until(pilot, lambda: "/rest/message:stream" in screen_text(app), 5, "the filtered row")

            # gRPC is offered too (switching to it: test_switch_to_grpc_and_see_its_traffic).
            await pilot.press("shift+f8")
            await wait_until(pilot, lambda: isinstance(app.screen, BindingMenu), 3, "the menu by key")
            await wait_until(pilot, lambda: "A2AService" in screen_text(app), 5, "the menu's gRPC entry")
            await pilot.press("escape")
            await wait_until(pilot, lambda: not isinstance(app.screen, BindingMenu), 3, "the menu closed")
            assert conn.binding_name == "rest" and conn.requested_binding == "rest"


async def test_switch_binding_from_the_palette_and_start_with_one() -> None:
    async with MockAgent("echo", dialect="all") as mock:
        app = InspectorApp(url=mock.url, binding="rest")
        async with app.run_test(size=SIZE) as pilot:
            conn = await ready(pilot, app)
            assert (conn.binding_name, conn.binding_source) == ("rest", "user")
            # The composer's preview shows the request as it will go: a REST route, no envelope.
            from inspector.ui.widgets.composer import Composer

            composer = app.screen.query_one(Composer)
            composer.set_text("preview me")
            head, body = await preview(pilot, composer)
            assert head.splitlines()[0].startswith(f"POST {mock.base_url}/rest/message:")
            assert "POST /message:" in head.splitlines()[0] and "A2A-Version: 1.0" in head
            assert "jsonrpc" not in body and body["message"]["parts"] == [{"text": "preview me"}]
            await run_from_palette(pilot, "switch binding to jsonrpc")
            await wait_until(pilot, lambda: conn.binding_name == "jsonrpc" and conn.state == "ready", 10, "jsonrpc")
            await wait_until(pilot, lambda: "JSON-RPC ▾" in screen_text(app), 3, "the bar to follow")
            await run_from_palette(pilot, "switch binding to auto")
            await wait_until(pilot, lambda: conn.requested_binding == "auto" and conn.state == "ready", 10, "auto")
            assert conn.binding_name == "jsonrpc" and conn.binding_source == "card"


def test_a_recording_shows_the_binding_it_was_made_over() -> None:
    from inspector.session import Session
    from inspector.ui.connection import AgentConnection
    from inspector.ui.widgets.connection_bar import binding_label

    def recorded(data: dict[str, Any]) -> AgentConnection:
        session = Session()
        session.append(
            Kind.REQUEST,
            {
                "method": "POST",
                "url": "http://127.0.0.1:9/x",
                "headers": {},
                "body": None,
                "dialect": "1.0",
                "a2a_method": "send",
                **data,
            },
        )
        return AgentConnection("http://127.0.0.1:9/", session=session, read_only=True)

    rest = recorded({"binding": "rest", "route": "POST /message:send"})
    assert (rest.binding_name, rest.binding_source, binding_label(rest)) == ("rest", "recording", "REST")
    old = recorded({"rpc_method": "SendMessage", "rpc_id": 1})  # before the binding was recorded
    assert (old.binding_name, binding_label(old)) == ("jsonrpc", "JSON-RPC")


async def test_switch_to_grpc_and_see_its_traffic(sdk_agent_grpc: tuple[str, str]) -> None:
    """Switched to gRPC from the menu, a stream's traffic shows each RPC: the method path,
    metadata, every message as ProtoJSON with its size, the final status and trailers."""
    base, target = sdk_agent_grpc
    app = InspectorApp(url=base, binding="jsonrpc")
    async with app.run_test(size=SIZE) as pilot:
        conn = await ready(pilot, app)
        assert conn.binding_name == "jsonrpc"
        await pilot.press("shift+f8")
        await wait_until(pilot, lambda: isinstance(app.screen, BindingMenu), 3, "the binding menu")
        await pilot.press("down", "down", "enter")  # from jsonrpc (asked for): rest, [grpc]
        await wait_until(pilot, lambda: conn.binding_name == "grpc" and conn.state == "ready", 10, "grpc")
        await wait_until(pilot, lambda: "gRPC ▾" in screen_text(app), 3, "the bar to follow")

        app.send_message(conn, say("over grpc please"), stream=True)
        await wait_until(pilot, lambda: any(e.kind is Kind.STREAM_END for e in conn.session.events), 10, "end")
        (request,) = sends(conn)
        path = "/lf.a2a.v1.A2AService/SendStreamingMessage"
        assert request["binding"] == "grpc" and request["url"] == target + path
        app.action_view("traffic")
        view = app.screen.query_one(TrafficView)
        await wait_until(pilot, lambda: len(view.index.rows) == len(conn.session.events), 5, "all rows")
        events = [e for e in conn.session.events if e.exchange == conn.session.events[-1].exchange]
        index = view.index
        req = events[0]
        assert index.summary(req) == f"POST {target}{path}" and index.method(req) == "stream"
        messages = [e for e in events if e.kind is Kind.MESSAGE]
        assert len(messages) == 6 and all(index.size(e) == e.data["size"] for e in messages)
        assert index.status(messages[-1]) == "completed"
        end = events[-1]
        assert end.kind is Kind.STREAM_END and index.summary(end).endswith("terminal, gRPC OK")

        detail = view.detail
        detail.show_event(req, index)
        shown = detail.text()
        assert "binding: grpc" in shown and "metadata" in shown and "a2a-version: 1.0" in shown
        detail.show_event(messages[2], index)
        shown = detail.text()
        assert "message (ProtoJSON)" in shown and '"artifactUpdate"' in shown and "on the wire" in shown
        detail.show_event(end, index)
        assert "grpc status: 0 OK" in detail.text()

        view.apply_filter("kind:msg")
        await wait_until(pilot, lambda: view.index.done, 5, "filter applied")
        await wait_until(pilot, lambda: "artifact" in screen_text(app), 5, "the filtered rows")
