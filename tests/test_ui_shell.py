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
