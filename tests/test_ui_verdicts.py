"""The TUI shows true verdicts: a resubscribe beside the app's own stream reads each
chunk once, a JSON-RPC error mid-stream is the task's latest word (not a state), and a
late push is a late report on the timeline, not the agent walking back."""

from __future__ import annotations

import asyncio
from typing import Any

from inspector.protocol import models as m
from inspector.session import Kind, Session
from inspector.ui.app import InspectorApp
from inspector.ui.connection import AgentConnection
from inspector.ui.widgets.artifacts_view import ArtifactsView
from inspector.ui.widgets.state_diagram import StateDiagram
from inspector.ui.widgets.tasks_view import TasksView
from mock_agent import MockAgent
from peers.sdk_agent import artifact_id_for, release, wait_parked
from test_ui_task import params, ready, view
from ui_helpers import screen_text, wait_until

SIZE = (120, 40)


async def test_resubscribe_beside_the_open_stream_shows_each_chunk_once(sdk_agent_v10: str) -> None:
    app = InspectorApp(url=sdk_agent_v10)
    async with app.run_test(size=SIZE) as pilot:
        conn = await ready(pilot)
        app.send_message(conn, params("hold one two three four"), stream=True)
        task_id = await wait_until(pilot, lambda: next(iter(conn.tracker.tasks), None), 10, "the task")
        await asyncio.to_thread(wait_parked, sdk_agent_v10, task_id, 0)
        await asyncio.to_thread(release, sdk_agent_v10, task_id, 1)
        await asyncio.to_thread(wait_parked, sdk_agent_v10, task_id, 1)
        key = artifact_id_for(task_id)
        task = conn.tracker.task(task_id)
        await wait_until(pilot, lambda: key in task.artifacts, 10, "the first chunk")
        app.select_task(task_id)
        app.action_view("tasks")
        tasks = view(app, TasksView)
        tasks.table.focus()
        await pilot.press("r")  # the tasks list's resubscribe action
        resubscribe = await wait_until(
            pilot,
            lambda: next(
                (ex for ex in conn.tracker.exchanges.values() if ex.method == "resubscribe" and ex.snapshot_seen), None
            ),
            10,
            "the resubscribe's snapshot",
        )
        await asyncio.to_thread(release, sdk_agent_v10, task_id, "all")
        streams = [ex for ex in conn.tracker.exchanges.values() if ex.method in ("stream", "resubscribe")]
        await wait_until(pilot, lambda: all(ex.ended for ex in streams), 15, "both streams ended")
        assert resubscribe in streams and len(streams) == 2
        app.action_view("task")
        artifacts = view(app, ArtifactsView)
        await wait_until(
            pilot, lambda: artifacts.text_of(key) == "echo: hold one two three four", 10, "the artifact, once"
        )
        assert task.text() == "echo: hold one two three four"
        assert task.state is m.TaskState.COMPLETED
        assert conn.tracker.violations == [], conn.tracker.violations
        chunks = task.artifacts[key].chunks
        assert sum(not c.dup for c in chunks) == 3 and any(c.dup for c in chunks)


async def test_an_error_mid_stream_shows_as_the_tasks_latest_word() -> None:
    async with MockAgent("demo", dialect="all", time_scale=0.05) as mock:
        app = InspectorApp(url=mock.url)
        async with app.run_test(size=SIZE) as pilot:
            conn = await ready(pilot)
            app.send_message(conn, params("trigger an error"), stream=True)
            task = await wait_until(
                pilot,
                lambda: next((t for t in conn.tracker.tasks.values() if t.error is not None), None),
                10,
                "the error",
            )
            assert task.state is m.TaskState.WORKING
            app.select_task(task.id)
            app.action_view("task")
            diagram = view(app, StateDiagram)
            await wait_until(pilot, lambda: "then error -32603" in diagram.render().plain, 5, "the title")
            shown = diagram.render().plain
            assert "error -32603" in shown.split("state ")[1] and "The demo agent failed on purpose." in shown
            app.action_view("tasks")
            tasks = view(app, TasksView)
            # The error ended the stream: nothing follows the task now (issue 28, item 6).
            await wait_until(pilot, lambda: "working · ended on error -32603" in screen_text(app), 5, "the tasks list")
            assert tasks.row_keys and conn.tracker.violations == []


def _late_push_session() -> Session:
    from test_tracker import Script, chunk, send, status

    s = Script("0.3")
    ex, _ = s.stream(
        send("go"), status("t", "working"), chunk("t", "a", "done", last=True), status("t", "completed", final=True)
    )
    s.end(ex)
    late = s.dialect.decode_event(
        {**status("t", "working"), "status": {"state": "working", "timestamp": "2025-01-01T10:00:00Z"}}, "$"
    )
    s.session.append(Kind.PUSH, {"headers": {}, "body": "", "url": "/push", "path": "/push"}, payload=late)
    return s.session


async def test_a_late_push_is_a_late_report_on_the_timeline() -> None:
    async with InspectorApp().run_test(size=SIZE) as pilot:
        app = pilot.app
        conn = AgentConnection("http://127.0.0.1:9/", session=_late_push_session(), read_only=True)
        app.open_connection(conn)
        app.select_task("t")
        app.action_view("task")
        diagram = view(app, StateDiagram)
        await wait_until(pilot, lambda: "late working" in diagram.render().plain, 5, "the late row")
        shown: Any = diagram.render().plain
        assert "violations" not in shown and conn.tracker.task("t").state is m.TaskState.COMPLETED
        assert shown.index("completed", shown.index("state ")) < shown.index("late working")
