"""The push panel: a local receiver per connection, registered for a task through an app
worker; notifications land in the session as PUSH events, the tracker moves the task,
and the panel lists them with a token verdict."""

from __future__ import annotations

from typing import Any

from textual.widgets import DataTable

from inspector.protocol import models as m
from inspector.session import Kind, Session
from inspector.ui.app import InspectorApp
from inspector.ui.connection import AgentConnection
from inspector.ui.messages import SessionAdvanced
from inspector.ui.widgets.push_panel import PushPanel
from inspector.ui.widgets.traffic_view import TrafficView
from mock_agent import MockAgent
from ports import unassigned_port
from ui_helpers import record_notifications, screen_text, wait_until

#: The task waits until the test has registered the receiver, then works and completes:
#: every step after the gate reaches the receiver, however slow the machine.
PUSHED = {
    "name": "pushed",
    "card": {"name": "Pushed", "capabilities": {"streaming": True, "pushNotifications": True}},
    "rules": [
        {
            "script": [
                {"hold": "registered"},
                {"status": "working", "message": "still thinking..."},
                {"chunks": {"name": "echo", "texts": ["echo: ", "{text}", " (done)"]}},
                {"status": "completed", "message": "done"},
            ]
        }
    ],
}


def non_blocking(text: str) -> m.SendParams:
    return m.SendParams(
        message=m.Message(role=m.Role.USER, parts=[m.TextPart(text=text)]),
        configuration=m.SendConfiguration(blocking=False),
    )


def cell(table: DataTable[Any], row: int, column: int) -> str:
    return str(table.get_row_at(row)[column])


async def test_register_receiver_and_notifications_move_the_task() -> None:
    messages: list[Any] = []
    async with MockAgent(PUSHED, dialect="all") as mock:
        app = InspectorApp(url=mock.url)
        async with app.run_test(size=(120, 36), message_hook=messages.append) as pilot:
            await wait_until(pilot, lambda: app.active is not None and app.active.state == "ready", 10, "connected")
            conn = app.active
            app.action_view("push")
            panel = app.screen.query_one(PushPanel)
            table = panel.query_one(DataTable)
            table.focus()
            await pilot.pause()

            await pilot.press("s")
            receiver = await wait_until(
                pilot,
                lambda: panel.receiver if panel.receiver and panel.receiver.running else None,
                10,
                "receiver running",
            )
            assert receiver.url.startswith("http://127.0.0.1:")
            assert "listening on" in screen_text(app)

            app.send_message(conn, non_blocking("hello push"), stream=False)
            task_id = await wait_until(pilot, lambda: next(iter(conn.tracker.tasks), None), 10, "task created")
            assert conn.tracker.task(task_id).state is not m.TaskState.COMPLETED
            app.select_task(task_id)
            await pilot.press("r")
            await wait_until(pilot, lambda: (conn.id, task_id) in panel.registered, 10, "registered")
            await wait_until(pilot, lambda: mock.held("registered") == 1, 10, "the task waiting")
            mock.release("registered")

            # Nothing polls the task: only the notifications can complete it.
            await wait_until(
                pilot, lambda: conn.tracker.task(task_id).state is m.TaskState.COMPLETED, 15, "task completed by push"
            )
            pushes = [e for e in conn.session.events if e.kind is Kind.PUSH]
            assert pushes and all(receiver.check_token(e) == "ok" for e in pushes)
            timeline = conn.tracker.task(task_id).timeline
            assert timeline[-1].seq == pushes[-1].seq  # in the task's timeline
            await wait_until(pilot, lambda: table.row_count == len(pushes), 5, "rows listed")
            assert cell(table, table.row_count - 1, 2) == "completed"
            assert cell(table, 0, 3) == "ok"
            assert task_id[:8] in cell(table, 0, 1)
            # The frame message names the task a push changed, so task views redraw.
            assert any(
                isinstance(msg, SessionAdvanced)
                and task_id in msg.changed
                and any(e.kind is Kind.PUSH for e in msg.events)
                for msg in messages
            )

            # enter on a notification shows it in the traffic view
            table.focus()
            table.move_cursor(row=0)
            await pilot.press("enter")
            traffic = app.screen.query_one(TrafficView)
            await wait_until(
                pilot,
                lambda: traffic.current() is not None and traffic.current().seq == pushes[0].seq,
                5,
                "push selected in traffic",
            )

            app.action_view("push")
            table.focus()
            await pilot.press("s")
            await wait_until(pilot, lambda: "receiver stopped" in screen_text(app), 10, "receiver stopped")
            assert not receiver.running


async def test_register_without_a_task_or_on_a_recording_is_a_notice() -> None:
    app = InspectorApp()
    said = record_notifications(app)
    async with app.run_test(size=(120, 36)) as pilot:
        session = Session()
        session.append(
            Kind.PUSH,
            {"headers": {"X-A2A-Notification-Token": "t"}, "body": "{}", "url": "/x", "path": "/x", "body_size": 2},
        )
        conn = AgentConnection("http://127.0.0.1:9/", session=session, read_only=True)
        app = pilot.app
        app.open_connection(conn)
        app.action_view("push")
        panel = app.screen.query_one(PushPanel)
        # The view mounts on demand (the first frame has only just been drawn): its table may not be made yet.
        table = await wait_until(pilot, lambda: next(iter(panel.query(DataTable)), None), 5, "the push table")
        await wait_until(pilot, lambda: table.row_count == 1, 5, "recorded push listed")
        assert cell(table, 0, 3) == "present"
        table.focus()
        await pilot.press("s")
        await pilot.pause()
        assert panel.receiver is None
        assert any("recording" in n.message for n in said)


async def test_receivers_stop_when_the_app_quits() -> None:
    async with MockAgent("echo", dialect="all") as mock:
        app = InspectorApp(url=mock.url)
        async with app.run_test(size=(120, 36)) as pilot:
            await wait_until(pilot, lambda: app.active is not None and app.active.state == "ready", 10, "connected")
            panel = app.screen.query_one(PushPanel)
            panel.action_start_receiver()
            receiver = await wait_until(
                pilot,
                lambda: panel.receiver if panel.receiver and panel.receiver.running else None,
                10,
                "receiver running",
            )
        assert not receiver.running


async def test_push_port_goes_to_the_first_receiver_and_others_get_free_ports() -> None:
    port = unassigned_port()  # no other test's bind(0) can take it meanwhile
    async with MockAgent("echo", dialect="all") as one, MockAgent("echo", dialect="all") as two:
        app = InspectorApp(url=one.url, push_port=port)
        async with app.run_test(size=(120, 36)) as pilot:
            await wait_until(pilot, lambda: app.active is not None and app.active.state == "ready", 10, "connected")
            app.action_view("push")
            panel = app.screen.query_one(PushPanel)
            panel.action_start_receiver()
            first = await wait_until(
                pilot,
                lambda: panel.receiver if panel.receiver and panel.receiver.running else None,
                10,
                "the first receiver",
            )
            assert first.url.startswith(f"http://127.0.0.1:{port}/")
            assert f"127.0.0.1:{port}/" in screen_text(app)

            second_conn = app.connect_to(two.url)
            app.connect(second_conn)
            await wait_until(pilot, lambda: second_conn.state == "ready", 10, "the second agent")
            panel.action_start_receiver()
            second = await wait_until(
                pilot,
                lambda: (
                    panel.receiver
                    if panel.receiver is not first and panel.receiver and panel.receiver.running
                    else None
                ),
                10,
                "the second receiver",
            )
            assert second.url.startswith("http://127.0.0.1:") and f":{port}/" not in second.url


def test_push_port_option_is_checked() -> None:
    import pytest

    from inspector.cli import build_tui_parser

    assert build_tui_parser().parse_args(["--push-port", "8123"]).push_port == 8123
    assert build_tui_parser().parse_args([]).push_port == 0
    for bad in ("70000", "-1", "http"):
        with pytest.raises(SystemExit):
            build_tui_parser().parse_args(["--push-port", bad])


async def test_a_busy_push_port_is_a_notification_not_a_crash() -> None:
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        async with MockAgent("echo", dialect="all") as mock:
            app = InspectorApp(url=mock.url, push_port=port)
            async with app.run_test(size=(120, 36)) as pilot:
                await wait_until(pilot, lambda: app.active is not None and app.active.state == "ready", 10, "connected")
                app.action_view("push")
                panel = app.screen.query_one(PushPanel)
                panel.action_start_receiver()
                await wait_until(pilot, lambda: app.errors, 10, "the error")
                _, title, detail = app.errors[-1]
                assert title == "the push receiver did not start"
                assert f"127.0.0.1:{port}" in detail and "in use" in detail, detail
                assert panel.receiver is None and "receiver stopped" in screen_text(app)
                # The app goes on: a receiver on a free port still starts.
                app.push_port = 0
                panel.action_start_receiver()
                await wait_until(
                    pilot,
                    lambda: panel.receiver is not None and panel.receiver.running,
                    10,
                    "a receiver on a free port",
                )


async def refuses(url: str) -> bool:
    """Whether nothing listens at ``url`` any more (the connection is refused). A GET:
    the receiver records every POST, and answers this one 405 without a trace."""
    import httpx

    try:
        async with httpx.AsyncClient() as http:
            await http.get(url)
    except httpx.ConnectError:
        return True
    return False


async def notify(receiver: Any, task_id: str) -> None:
    import httpx

    body = {
        "kind": "status-update",
        "taskId": task_id,
        "contextId": "c1",
        "status": {"state": "working"},
        "final": False,
    }
    async with httpx.AsyncClient() as http:
        assert (await http.post(receiver.url_for(task_id), json=body)).status_code == 200


async def test_the_receiver_belongs_to_the_connection_not_to_the_push_view() -> None:
    async with MockAgent("echo", dialect="all") as mock:
        app = InspectorApp(url=mock.url)
        async with app.run_test(size=(120, 36)) as pilot:
            await wait_until(pilot, lambda: app.active is not None and app.active.state == "ready", 10, "connected")
            conn = app.active
            app.action_view("push")
            panel = app.screen.query_one(PushPanel)
            panel.action_start_receiver()
            receiver = await wait_until(
                pilot,
                lambda: panel.receiver if panel.receiver and panel.receiver.running else None,
                10,
                "receiver running",
            )
            url = receiver.url_for("t1")

            # Another view in front: the receiver goes on, and the panel lists what came meanwhile.
            app.action_view("task")
            await notify(receiver, "t1")
            app.action_view("push")
            await wait_until(pilot, lambda: panel.query_one(DataTable).row_count == 1, 5, "the first push listed")

            # The panel gone: still listening; a new panel shows the same receiver and
            # what it received, and starting again makes no second one.
            pane = panel.parent
            await panel.remove()
            await pilot.pause()
            assert receiver.running and not await refuses(url)
            await notify(receiver, "t1")
            again = PushPanel(id="push-panel")
            await pane.mount(again)
            table = await wait_until(pilot, lambda: next(iter(again.query(DataTable)), None), 5, "the new table")
            await wait_until(pilot, lambda: table.row_count == 2, 5, "both pushes listed")
            assert again.receiver is receiver
            assert f"listening on {receiver.url}" in str(again.query_one("#push-status").content)
            again.action_start_receiver()
            await pilot.pause()
            assert again.receiver is receiver and list(again.receivers.values()) == [receiver]
            assert len(receiver.received) == 2

            # Closing the connection stops its receiver: the port refuses.
            await app.close_connection(conn)
            assert not receiver.running
            assert await refuses(url)


async def test_closing_a_connection_that_is_not_shown_stops_its_receiver() -> None:
    async with MockAgent("echo", dialect="all") as mock:
        app = InspectorApp(url=mock.url)
        async with app.run_test(size=(120, 36)) as pilot:
            await wait_until(pilot, lambda: app.active is not None and app.active.state == "ready", 10, "connected")
            first = app.active
            app.action_view("push")
            panel = app.screen.query_one(PushPanel)
            panel.action_start_receiver()
            receiver = await wait_until(
                pilot,
                lambda: panel.receiver if panel.receiver and panel.receiver.running else None,
                10,
                "the first receiver",
            )
            url = receiver.url_for("t1")

            second = app.connect_to(mock.url)
            await wait_until(pilot, lambda: second.state == "ready" and app.active is second, 10, "the second agent")
            await pilot.pause()
            await app.close_connection(first)
            await wait_until(pilot, lambda: not receiver.running, 5, "the closed connection's receiver to stop")
            assert await refuses(url)
