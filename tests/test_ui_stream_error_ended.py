"""A stream that died on a JSON-RPC error, in the TUI against a real mock agent: the
task's running state stops ticking (nothing follows the task any more), the task view
and the tasks list say the stream ended, with the error, and offer ``g`` (get), which
brings the task back as the agent has it (issue 28, item 6)."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from textual.widgets import Static

from inspector.protocol import models as m
from inspector.ui.app import InspectorApp
from inspector.ui.connection import AgentConnection
from inspector.ui.widgets.conversation import Conversation
from inspector.ui.widgets.state_diagram import StateDiagram
from inspector.ui.widgets.tasks_view import TasksView
from ui_helpers import screen_text, wait_until

SIZE = (140, 45)
DIES = {
    "name": "dies",
    "card": {"name": "dies", "capabilities": {"streaming": True}},
    "rules": [
        {
            "script": [
                {"status": "working", "message": "on it"},
                {"error": {"code": -32603, "message": "the model went away"}},
            ]
        }
    ],
}


def params(text: str) -> m.SendParams:
    return m.SendParams(
        message=m.Message(role=m.Role.USER, parts=[m.TextPart(text=text)], message_id=str(uuid.uuid4()))
    )


@pytest.mark.parametrize("dialect", ["0.3", "1.0"])
async def test_a_stream_ended_by_an_error_stops_the_clock_and_offers_a_get(a2a_mock_factory: Any, dialect: str) -> None:
    mock = a2a_mock_factory(DIES, dialect=dialect)
    app = InspectorApp()
    async with app.run_test(size=SIZE) as pilot:
        conn = AgentConnection(mock.url)
        app.open_connection(conn)
        app.connect(conn)
        await wait_until(pilot, lambda: conn.state == "ready", 10, "the agent to be ready")
        app.send_message(conn, params("go"), stream=True)
        task = await wait_until(
            pilot,
            lambda: app.task_id and (t := conn.tracker.task(app.task_id)) and t.error is not None and t,
            10,
            "the error to end the stream",
        )
        assert task.state is m.TaskState.WORKING and task.error.error.code == -32603
        await wait_until(pilot, lambda: not app.waiting, 10, "the call to end")

        # The state diagram: the title says so, and the working time has stopped at the
        # error however late it is now.
        diagram = app.main.query_one(StateDiagram)
        diagram.clock = lambda: conn.session.started_wall + 10 * 3600  # ten hours on
        diagram.refresh()
        await pilot.pause()
        plain = diagram.render().plain
        assert f"task {task.id[:8]}…  working · then error -32603 · stream ended" in plain, plain
        working = next(line for line in plain.splitlines() if line.startswith("▸ working"))
        assert not working.rstrip().endswith("…"), working
        assert "h" not in working.split()[-1], working

        # The conversation's last line: what ended it, and the way to know more.
        note = app.main.query_one(Conversation).query_one("#conversation-cut", Static)
        await wait_until(pilot, lambda: note.display, 10, "the line under the conversation")
        shown = str(note.content)
        assert shown.startswith("✖ stream ended: error -32603 the model went away"), shown
        assert "(F4, g: get it)" in shown

        # The tasks list, where g is: the same words, then g gets the task.
        await pilot.press("f4")
        tasks = app.main.query_one(TasksView)
        await wait_until(
            pilot,
            lambda: "working · ended on error -32603" in tasks.table.get_row_at(0)[1].plain,
            10,
            "the row to say so",
        )
        assert "working · ended on error -32603" in screen_text(app)
        tasks.table.focus()
        await pilot.press("g")
        await wait_until(
            pilot, lambda: "ended" not in tasks.table.get_row_at(0)[1].plain, 10, "the get to hear of the task again"
        )
        await wait_until(pilot, lambda: not note.display, 10, "the conversation to drop the line")
        assert task.state is m.TaskState.WORKING  # as the agent has it: nothing moved it
