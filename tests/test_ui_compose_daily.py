"""The composer as used all day (issue 12): the JSON editor's template, select-all and
$EDITOR; message metadata that belongs to one message only."""

from __future__ import annotations

import contextlib
from typing import Any

from inspector.session import Kind
from inspector.ui.app import InspectorApp
from inspector.ui.screens.json_edit import JsonEditScreen
from inspector.ui.widgets.composer import Composer
from mock_agent import MockAgent
from ui_helpers import screen_text, wait_until


async def ready(pilot: Any, app: InspectorApp) -> Any:
    return await wait_until(
        pilot, lambda: app.active if app.active and app.active.state == "ready" else None, 15, "connected"
    )


async def open_data_editor(pilot: Any, app: InspectorApp) -> JsonEditScreen:
    await pilot.press("ctrl+g")
    return await wait_until(pilot, lambda: isinstance(app.screen, JsonEditScreen) and app.screen, 5, "the JSON editor")


def sent_messages(conn: Any) -> list[dict[str, Any]]:
    import json

    out = []
    for event in conn.session.events:
        if event.kind is Kind.REQUEST and event.data.get("a2a_method") in ("send", "stream"):
            body = json.loads(event.data["body"])
            out.append(body["params"]["message"])
    return out


async def test_the_data_editor_opens_with_the_cursor_inside_the_braces() -> None:
    async with MockAgent("echo", dialect="all") as mock:
        app = InspectorApp(url=mock.url)
        async with app.run_test(size=(120, 36)) as pilot:
            await ready(pilot, app)
            composer = app.screen.query_one(Composer)
            for _ in range(3):  # it failed 3 times out of 3 before
                screen = await open_data_editor(pilot, app)
                await pilot.press(*'"city": "Oslo"')
                assert screen.text_area.text == '{\n  "city": "Oslo"\n}'
                assert "✓ valid" in screen_text(app)
                await pilot.press("ctrl+s")
                await wait_until(pilot, lambda: not isinstance(app.screen, JsonEditScreen), 5, "saved")
            assert [p.data for p in composer.draft.parts] == [{"city": "Oslo"}] * 3


async def test_typing_a_whole_object_into_the_template_leaves_no_stray_brace() -> None:
    async with MockAgent("echo", dialect="all") as mock:
        app = InspectorApp(url=mock.url)
        async with app.run_test(size=(120, 36)) as pilot:
            await ready(pilot, app)
            screen = await open_data_editor(pilot, app)
            await pilot.press(*'{"a": [1, 2]}')
            assert screen.text_area.text == '{"a": [1, 2]}'
            assert screen.problem is None
            # Once edited, a brace is a brace: it goes where the cursor is.
            await pilot.press("ctrl+a")
            assert screen.text_area.selected_text == '{"a": [1, 2]}'
            await pilot.press(*"[1]")
            assert screen.text_area.text == "[1]"
            await pilot.press("left", "{")
            assert screen.text_area.text == "[1{]"


async def test_ctrl_o_round_trips_through_editor(monkeypatch: Any, tmp_path: Any) -> None:
    script = tmp_path / "fake-editor"
    # Reads what it was given, and writes it back with one more key.
    script.write_text('#!/bin/sh\nsed \'s/"a": 1/"a": 1, "b": 2/\' "$1" > "$1.new" && mv "$1.new" "$1"\n')
    script.chmod(0o755)
    monkeypatch.setenv("EDITOR", str(script))
    monkeypatch.delenv("VISUAL", raising=False)
    async with MockAgent("echo", dialect="all") as mock:
        app = InspectorApp(url=mock.url)
        async with app.run_test(size=(120, 36)) as pilot:
            await ready(pilot, app)
            monkeypatch.setattr(app, "suspend", contextlib.nullcontext)
            screen = await open_data_editor(pilot, app)
            await pilot.press(*'"a": 1')
            await pilot.press("ctrl+o")
            await wait_until(pilot, lambda: '"b": 2' in screen.text_area.text, 5, "the edited text")
            assert screen.value == {"a": 1, "b": 2}


async def test_message_metadata_goes_with_one_message_only() -> None:
    async with MockAgent("echo", dialect="all") as mock:
        app = InspectorApp(url=mock.url)
        async with app.run_test(size=(120, 36)) as pilot:
            conn = await ready(pilot, app)
            composer = app.screen.query_one(Composer)
            composer.part_list.focus()
            composer.part_list.highlighted = composer.part_list.option_count - 1  # message metadata
            await pilot.press("enter")
            screen = await wait_until(
                pilot, lambda: isinstance(app.screen, JsonEditScreen) and app.screen, 5, "the metadata editor"
            )
            await pilot.press(*'"trace": "t-1"', "ctrl+s")
            await wait_until(pilot, lambda: composer.draft.message_metadata == {"trace": "t-1"}, 5, "set")
            assert 'message metadata 1 key: {"trace": "t-1"}' in screen_text(app)
            await pilot.press("f3", *"first", "ctrl+s")
            await wait_until(pilot, lambda: len(sent_messages(conn)) == 1, 10, "the first message")
            # Sent: the composer says it is gone, and the next message goes without it.
            await wait_until(pilot, lambda: "message metadata none" in screen_text(app), 5, "cleared")
            assert composer.draft.message_metadata is None
            await pilot.press(*"second", "ctrl+s")
            await wait_until(pilot, lambda: len(sent_messages(conn)) == 2, 10, "the second message")
            first, second = sent_messages(conn)
            assert first["metadata"] == {"trace": "t-1"}
            assert "metadata" not in second
            # ctrl+up brings the last message back as it was sent: without metadata.
            await pilot.press("ctrl+up")
            assert composer.text == "second"
            assert composer.draft.message_metadata is None
            del screen


# ---------------------------------------------------------------------- what the views show


async def test_a_direct_message_reply_shows_in_the_task_views_conversation() -> None:
    from inspector.ui.widgets.conversation import Conversation

    script = {
        "name": "replies",
        "card": {"name": "Reply Agent"},
        "rules": [
            {"when": {"text": "^msg"}, "script": [{"reply": "echo: {text}"}]},
            {"script": [{"status": "completed", "message": "done"}]},
        ],
    }
    async with MockAgent(script, dialect="all") as mock:
        app = InspectorApp(url=mock.url)
        async with app.run_test(size=(120, 36)) as pilot:
            conn = await ready(pilot, app)
            await pilot.press(*"a task first", "ctrl+s")
            await wait_until(pilot, lambda: app.task_id is not None, 10, "the task selected")
            await pilot.press(*"msg hi there", "ctrl+s")
            conversation = app.screen.query_one("#conversation", Conversation)
            await wait_until(pilot, lambda: "echo: msg hi there" in screen_text(app), 10, "the reply")
            assert app.task_id is None
            assert [v.label for v in conversation.messages][-2:] == ["you", "agent · reply (no task)"]
            assert conn.tracker.replies


async def test_get_from_the_tasks_view_shows_the_fetched_task() -> None:
    async with MockAgent("echo", dialect="all") as mock:
        app = InspectorApp(url=mock.url)
        async with app.run_test(size=(120, 36)) as pilot:
            conn = await ready(pilot, app)
            await pilot.press(*"one", "ctrl+s")
            await wait_until(pilot, lambda: len(conn.tracker.tasks) == 1, 10, "the first task")
            first = next(iter(conn.tracker.tasks))
            await pilot.press(*"two", "ctrl+s")
            await wait_until(pilot, lambda: len(conn.tracker.tasks) == 2 and app.task_id != first, 10, "two")
            await pilot.press("f4", "up", "g")  # the first task's row: get it
            await wait_until(
                pilot,
                lambda: app.task_id == first and app.screen.query_one("#views").active == "task",
                10,
                "the fetched task shown",
            )
            gets = [e for e in conn.session.events if e.kind is Kind.REQUEST and e.data.get("a2a_method") == "get"]
            assert len(gets) == 1


async def test_the_running_states_time_ticks_while_the_agent_is_silent() -> None:
    from inspector.ui.widgets.formatting import format_duration
    from inspector.ui.widgets.state_diagram import StateDiagram

    script = {
        "name": "holds",
        "card": {"name": "Holds", "capabilities": {"streaming": True}},
        "rules": [{"script": [{"status": "working"}, {"hold": "go"}, {"status": "completed"}]}],
    }
    async with MockAgent(script, dialect="1.0") as mock:
        app = InspectorApp(url=mock.url)
        async with app.run_test(size=(120, 36)) as pilot:
            await ready(pilot, app)
            diagram = app.screen.query_one("#state-diagram", StateDiagram)
            now = [1000.0]
            diagram.clock = lambda: now[0]  # type: ignore[method-assign]
            await pilot.press(*"wait", "ctrl+s")
            await wait_until(
                pilot,
                lambda: (
                    diagram.task_view is not None
                    and diagram.task_view.state is not None
                    and diagram.task_view.state.value == "working"
                ),
                10,
                "working",
            )
            session = app.active.session

            def shows(seconds: float) -> bool:
                # The running state's time, from the injected clock: now minus its start.
                now[0] = session.started_wall + diagram.task_view.timeline[-1].t + seconds
                return f"{format_duration(seconds)}…" in diagram.render().plain

            assert shows(12.0), diagram.render().plain
            assert diagram.task_view.state.value == "working"
            assert shows(72.5), diagram.render().plain
            # On screen too, with nothing new from the agent: the widget's own tick redraws it.
            await wait_until(pilot, lambda: "1m12s…" in screen_text(app), 5, "the tick on screen")
            mock.release("go")


async def test_two_agents_answering_the_same_message_side_by_side() -> None:
    from inspector.ui.widgets.task_beside import TaskBeside

    async with MockAgent("echo", dialect="all") as mock:
        app = InspectorApp(url=mock.url, dialect="0.3")
        async with app.run_test(size=(200, 50)) as pilot:
            old = await ready(pilot, app)
            await pilot.press(*"same question", "ctrl+s")
            await wait_until(pilot, lambda: len(old.tracker.tasks) == 1, 10, "the 0.3 task")
            new = app.connect_to(mock.url, dialect="1.0", name="one-oh")
            await wait_until(pilot, lambda: new.state == "ready" and app.active is new, 10, "the 1.0 agent")
            await pilot.press("f3", "ctrl+up", "ctrl+s")  # the same message again
            await wait_until(
                pilot, lambda: len(new.tracker.tasks) == 1 and app.task_id in new.tracker.tasks, 10, "the 1.0 task"
            )
            await pilot.press("f4")
            await wait_until(
                pilot,
                lambda: app.screen.focused is not None and app.screen.focused.id == "tasks-table",
                5,
                "the tasks table",
            )
            await pilot.press("up", "b")  # the 0.3 task's row, beside the 1.0 one
            beside = app.screen.query_one(TaskBeside)
            await wait_until(
                pilot,
                lambda: beside.display and app.screen.query_one("#views").active == "task",
                5,
                "the split task view",
            )
            assert beside.conn is old and beside.task_id in old.tracker.tasks
            assert app.active is new and app.task_id in new.tracker.tasks
            text = screen_text(app)
            assert "beside: Echo Agent · 0.3 · task" in text
            assert text.count("echo: same question") == 2  # each agent's artifact
            # b on the same row again closes the split.
            await pilot.press("f4", "b")
            await wait_until(pilot, lambda: not beside.display, 5, "the split closed")
