"""A stream cut at one of the client's limits, in the TUI against a real mock agent: the
task view says so where the user looks (the state diagram, the conversation, the
artifacts), with the limit's words; the bar's spinner stops; the task's running state
no longer ticks; and the task is followed again once it is heard of again.

The TUI takes no limit options: a connection made with small limits
(``AgentConnection(limits=...)``, as the app makes one with the defaults) cuts the
mock's stream where the defaults would cut a longer one."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from textual.widgets import Label, Static

from inspector.client.limits import Limits
from inspector.protocol import models as m
from inspector.session.tracker import CUT
from inspector.ui.app import InspectorApp
from inspector.ui.connection import AgentConnection
from inspector.ui.widgets.artifacts_view import ArtifactsView
from inspector.ui.widgets.connection_bar import SPINNER
from inspector.ui.widgets.conversation import Conversation
from inspector.ui.widgets.state_diagram import StateDiagram
from inspector.ui.widgets.tasks_view import TasksView
from ui_helpers import screen_text, wait_until

SIZE = (140, 45)


def scenario(*script: dict[str, Any]) -> dict[str, Any]:
    return {
        "name": "cut",
        "card": {"name": "cut agent", "capabilities": {"streaming": True}},
        "rules": [{"script": list(script)}],
    }


def params(text: str) -> m.SendParams:
    return m.SendParams(
        message=m.Message(role=m.Role.USER, parts=[m.TextPart(text=text)], message_id=str(uuid.uuid4()))
    )


# Each stream goes past one limit while its artifact is open; the hold keeps the task
# working at the mock, whatever the client does.
COUNT = scenario(
    {"status": "working"},
    {"chunks": {"id": "big", "text": "chunk {i} ", "count": 500}},
    {"hold": "never", "timeout": 600},
)
EVENT = scenario(
    {"status": "working"},
    {"artifact": {"id": "big", "text": "one ", "last_chunk": False}},
    {"artifact": {"id": "big", "text": "two ", "append": True, "last_chunk": False}},
    {"artifact": {"id": "big", "append": True, "last_chunk": False, "parts": [{"text": "x", "repeat": 4096}]}},
    {"hold": "never", "timeout": 600},
)
BODY = COUNT

CASES = [
    ("count", COUNT, Limits(max_stream_events=100), "more than 100 events and comments (--max-stream-events)"),
    ("event", EVENT, Limits(max_event=1024), "an event larger than 1 KiB (--max-event)"),
    ("body", BODY, Limits(max_stream_body=16 * 1024), "larger than 16 KiB (--max-stream-body)"),
]


@pytest.mark.parametrize(("script", "limits", "words"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
async def test_a_stream_cut_at_a_limit_says_so_in_the_task_view(
    a2a_mock_factory: Any, script: dict[str, Any], limits: Limits, words: str
) -> None:
    mock = a2a_mock_factory(script)
    app = InspectorApp()
    async with app.run_test(size=SIZE) as pilot:
        conn = AgentConnection(mock.url, limits=limits)
        app.open_connection(conn)
        app.connect(conn)
        await wait_until(pilot, lambda: conn.state == "ready", 10, "the agent to be ready")
        app.send_message(conn, params("go"), stream=True)
        await wait_until(pilot, lambda: app.errors, 30, "the limit to be reported")
        _, title, detail = app.errors[-1]
        assert title == f"streaming to {conn.name} failed" and words.removeprefix("an event ") in detail

        # The error is said as it happens; the task is followed once the app has taken its
        # events in (a frame later, and on a busy machine that can come after the error).
        await wait_until(pilot, lambda: app.task_id is not None, 10, "the task to be followed")
        task = conn.tracker.task(app.task_id) if app.task_id else None
        assert task is not None and task.state is m.TaskState.WORKING
        assert task.cut is not None and task.cut.kind == CUT and task.cut.text == words
        assert task.remarks[-1] is task.cut

        # The bar: the call is over, the spinner gone (it redraws every 0.1 s).
        await wait_until(pilot, lambda: not app.waiting, 10, "the call to end")
        await pilot.pause(0.3)
        progress = str(app.main.query_one("#bar-progress", Label).content)
        bar = screen_text(app).splitlines()[0]
        assert progress == "" and "streaming to" not in bar and not set(SPINNER) & set(bar), bar

        # The state diagram: in the title, and as a row after the running state, whose
        # time has stopped at the cut however late it is now.
        diagram = app.main.query_one(StateDiagram)
        diagram.clock = lambda: conn.session.started_wall + 10 * 3600  # ten hours on
        diagram.refresh()
        await pilot.pause()
        plain = diagram.render().plain
        assert f"task {task.id[:8]}…  working · stream cut" in plain
        assert "✂ stream cut" in plain and words in plain.replace("\n", " "), plain
        working = next(line for line in plain.splitlines() if line.startswith("▸ working"))
        assert not working.rstrip().endswith("…"), working  # not live: no ticking time
        assert "h" not in working.split()[-1], working  # not the ten hours of the clock

        # The conversation: its last line, with what it means.
        conversation = app.main.query_one(Conversation)
        note = conversation.query_one("#conversation-cut", Static)
        assert note.display and conversation.children[-1] is note
        shown = str(note.content)
        assert shown.startswith(f"✂ stream cut: {words}") and "the task may go on at the agent" in shown

        # The artifacts: the summary line, and the open artifact's own info row.
        artifacts = app.main.query_one(ArtifactsView)
        summary = str(artifacts.query_one("#artifacts-summary", Static).content)
        assert "· stream cut" in summary, summary
        info = artifacts.document.sections["big"].info.body.text
        assert f"stream cut: {words}" in info and "streaming…" not in info, info

        await pilot.pause(0.2)
        screen = screen_text(app)
        assert "✂ stream cut" in screen and "working · stream cut" in screen


async def test_a_cut_task_is_followed_again_once_heard_of(a2a_mock_factory: Any) -> None:
    mock = a2a_mock_factory(COUNT)
    app = InspectorApp()
    async with app.run_test(size=SIZE) as pilot:
        conn = AgentConnection(mock.url, limits=Limits(max_stream_events=100))
        app.open_connection(conn)
        app.connect(conn)
        await wait_until(pilot, lambda: conn.state == "ready", 10, "the agent to be ready")
        app.send_message(conn, params("go"), stream=True)
        task = await wait_until(
            pilot,
            lambda: app.task_id and (t := conn.tracker.task(app.task_id)) and t.cut is not None and t,
            30,
            "the cut",
        )
        conversation = app.main.query_one(Conversation)
        note = conversation.query_one("#conversation-cut", Static)
        await wait_until(pilot, lambda: note.display, 10, "the cut in the conversation")
        tasks = app.main.query_one(TasksView)
        await wait_until(
            pilot, lambda: "working · stream cut" in tasks.table.get_row_at(0)[1].plain, 10, "the cut in the tasks list"
        )

        # A get: the agent answers for the task again, so it is no longer cut off.
        app.task_action(conn, "get", task.id)
        await wait_until(pilot, lambda: task.cut is None, 30, "the task to be heard of again")
        await wait_until(pilot, lambda: not note.display, 10, "the conversation to drop the line")
        diagram = app.main.query_one(StateDiagram)
        await pilot.pause()
        plain = diagram.render().plain
        assert "· stream cut" not in plain.splitlines()[0]
        assert "✂ stream cut" in plain  # still in the task's history, where it happened
        assert "stream cut" not in tasks.table.get_row_at(0)[1].plain
