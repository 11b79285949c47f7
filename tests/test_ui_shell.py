"""The app shell: connections open and close cleanly, whatever is in flight."""

from __future__ import annotations

import uuid

from mock_agent import MockAgent
from ui_helpers import wait_until

from inspector.protocol import models as m
from inspector.session import Kind
from inspector.ui.app import InspectorApp


def _params(text: str) -> m.SendParams:
    return m.SendParams(message=m.Message(role=m.Role.USER, parts=[m.TextPart(text=text)],
                                          message_id=str(uuid.uuid4())))


async def test_closing_a_connection_mid_stream_stops_the_stream_without_an_error() -> None:
    async with MockAgent("slow", dialect="1.0") as mock:
        app = InspectorApp(url=mock.url)
        async with app.run_test(size=(120, 36)) as pilot:
            conn = await wait_until(pilot, lambda: app.active if app.active and app.active.state == "ready" else None,
                                    what="connected")
            app.send_message(conn, _params("slow one two three"), stream=True)
            await wait_until(pilot, lambda: any(e.kind is Kind.SSE for e in conn.session.events),
                             what="the stream to start")
            await app.close_connection(conn)
            await pilot.pause(0.1)
            assert conn not in app.connections
            assert app.active is None
            assert app.errors == []
            assert not [w for w in app.workers if w.group == f"conn-{conn.id}" and not w.is_finished]


async def test_view_keys_switch_from_every_focusable_of_every_view() -> None:
    # Hiding a tab whose focused widget has a focusable sibling made Textual move focus
    # to that (also hidden) sibling, and the tabs followed focus straight back.
    from textual.widgets import TabbedContent

    keys = {"card": "f2", "task": "f3", "tasks": "f4", "traffic": "f5", "push": "f6"}
    async with MockAgent("echo", dialect="all") as mock:
        app = InspectorApp(url=mock.url)
        async with app.run_test(size=(120, 36)) as pilot:
            await wait_until(pilot, lambda: app.active is not None and app.active.state == "ready", 10,
                             "connected")
            tabs = app.screen.query_one("#views", TabbedContent)
            for source, source_key in keys.items():
                await pilot.press(source_key)
                await wait_until(pilot, lambda: tabs.active == source, 5, f"the {source} tab")
                pane = tabs.get_pane(source)
                focusables = [w for w in app.screen.focus_chain if pane in w.ancestors]
                assert focusables, f"nothing to focus on the {source} tab"
                for widget in focusables:
                    for target, target_key in keys.items():
                        if target == source:
                            continue
                        await pilot.press(source_key)
                        await wait_until(pilot, lambda: tabs.active == source, 5, f"back on {source}")
                        widget.focus()
                        await pilot.pause()
                        await pilot.press(target_key)
                        await pilot.pause(0.1)
                        where = f"{target_key} with {widget!r} focused on the {source} tab"
                        assert tabs.active == target, where
                        focused = app.screen.focused
                        assert focused is None or all(node.display for node in focused.ancestors_with_self), \
                            f"{where}: focus left on hidden {focused!r}"
