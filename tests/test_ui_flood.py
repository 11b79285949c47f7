"""An agent that streams its answer in status updates ("token streaming"): the
conversation coalesces them into one growing entry with a count, each update stays
reachable (enter lists them one per line), and the traffic list stays virtual."""

from __future__ import annotations

import uuid
from typing import Any

from inspector.protocol import models as m
from inspector.ui.app import InspectorApp
from inspector.ui.widgets.conversation import Conversation
from inspector.ui.widgets.message_view import MessageView
from inspector.ui.widgets.state_diagram import StateDiagram
from inspector.ui.widgets.status_run import StatusRun
from inspector.ui.widgets.traffic_model import Positions
from inspector.ui.widgets.traffic_view import TrafficView
from mock_agent import MockAgent
from ui_helpers import screen_text, wait_until

SIZE = (120, 36)
N = 400
HALF = 200
TOKENS = [f"tok{i} " for i in range(N)]


def flood(tokens: list[str], hold_after: int | None = None) -> dict[str, Any]:
    script: list[dict[str, Any]] = []
    for i, token in enumerate(tokens):
        if i == hold_after:
            script.append({"hold": "half"})
        script.append({"status": "working", "message": token})
    script.append({"status": "completed", "message": "done"})
    return {
        "name": "tokens",
        "card": {"name": "token agent", "capabilities": {"streaming": True}},
        "rules": [{"script": script}],
    }


def ask(text: str) -> m.SendParams:
    return m.SendParams(
        message=m.Message(role=m.Role.USER, parts=[m.TextPart(text=text)], message_id=str(uuid.uuid4()))
    )


async def connected(pilot: Any) -> Any:
    app = pilot.app
    await wait_until(pilot, lambda: app.active is not None and app.active.state == "ready", 10, "the agent")
    return app.active


def the_run(conversation: Conversation) -> StatusRun | None:
    runs = conversation.runs
    return runs[0] if runs else None


async def test_status_updates_of_one_state_grow_one_entry_with_a_count() -> None:
    async with MockAgent(flood(TOKENS, hold_after=HALF), dialect="1.0") as mock:
        app = InspectorApp(url=mock.url)
        async with app.run_test(size=SIZE) as pilot:
            conn = await connected(pilot)
            conversation = app.main.query_one(Conversation)
            app.send_message(conn, ask("stream tokens"), stream=True)
            await wait_until(
                pilot,
                lambda: mock.held("half") == 1 and (run := the_run(conversation)) is not None and run.count == HALF,
                15,
                "the first half, the agent held",
            )
            run = the_run(conversation)
            assert run is not None
            assert [v.label for v in conversation.messages] == ["you", "agent · working"]
            assert run.body.text == "".join(TOKENS[:HALF])
            await pilot.pause(0.1)
            assert f"agent · working · {HALF} updates" in screen_text(app)

            mock.release("half")
            task = await wait_until(
                pilot,
                lambda: (
                    (t := conn.tracker.task(app.task_id or "")) is not None
                    and t.terminal
                    and run.count == N
                    and len(conversation.messages) == 3
                    and t
                ),
                15,
                "every update",
            )
            assert len(task.history) == N + 2  # the user's message, N tokens, "done"
            # One entry grew: the same widget, all the text, joined as chunks join.
            assert the_run(conversation) is run
            assert [v.label for v in conversation.messages] == ["you", "agent · working", "agent · completed"]
            assert run.body.text == "".join(TOKENS)
            # Never one widget per event.
            assert len(conversation.query(StatusRun)) == 1
            assert len(conversation.query(MessageView)) == 2
            await pilot.pause(0.1)
            shown = screen_text(app)
            assert f"agent · working · {N} updates" in shown
            assert "tok399" in shown  # the entry follows its end
            # The timeline: one row for the state, with its count.
            diagram = app.main.query_one(StateDiagram)
            await wait_until(pilot, lambda: f"working ×{N}" in diagram.render().plain, 5, "the count")
            assert f"working ×{N}" in shown or f"working ×{N}" in screen_text(app)

            # enter: each update on its own numbered line; every one reachable.
            run.focus()
            await pilot.press("enter")
            assert run.expanded
            assert run.body.text == "".join(f"#{i + 1:<5} {t}\n" for i, t in enumerate(TOKENS))
            await pilot.press("home")
            await pilot.pause(0.1)
            shown = screen_text(app)
            assert "#1     tok0" in shown and "#2     tok1" in shown and "#400" not in shown
            await pilot.press("end")
            await pilot.pause(0.1)
            shown = screen_text(app)
            assert "#400   tok399" in shown and "#1     tok0" not in shown
            await pilot.press("e")
            assert not run.expanded and run.body.text == "".join(TOKENS)


async def test_a_new_state_or_a_user_turn_starts_a_new_entry() -> None:
    script = flood(["a", "b", "c"])
    steps = script["rules"][0]["script"]
    steps[-1:] = [
        {"status": "input-required", "message": "which one?"},
        {"status": "input-required", "message": "(still waiting)"},
    ]
    async with MockAgent(script, dialect="1.0") as mock:
        app = InspectorApp(url=mock.url)
        async with app.run_test(size=SIZE) as pilot:
            conn = await connected(pilot)
            conversation = app.main.query_one(Conversation)
            app.send_message(conn, ask("go"), stream=True)
            await wait_until(
                pilot,
                lambda: (
                    len(conversation.messages) == 3
                    and all(isinstance(v, StatusRun) for v in conversation.messages[1:])
                    and conversation.messages[2].count == 2
                    and conversation.messages[2].waiting
                ),
                15,
                "two runs, the question waiting",
            )
            you, working, question = conversation.messages
            assert (working.label, working.count, working.body.text) == ("agent · working", 3, "abc")
            assert question.label == "agent asks · input-required"
            assert question.body.text == "which one?(still waiting)"
            assert not working.waiting


async def test_the_traffic_list_stays_virtual_under_a_flood() -> None:
    tokens = [f"t{i} " for i in range(1500)]
    async with MockAgent(flood(tokens), dialect="1.0") as mock:
        app = InspectorApp(url=mock.url)
        async with app.run_test(size=SIZE) as pilot:
            conn = await connected(pilot)
            app.send_message(conn, ask("flood"), stream=True)
            await wait_until(
                pilot,
                lambda: (t := conn.tracker.task(app.task_id or "")) is not None and t.terminal and not app.waiting,
                20,
                "the flood",
            )
            app.action_view("traffic")
            view = app.screen.query_one(TrafficView)
            await wait_until(pilot, lambda: len(view.index.rows) == len(conn.session.events), 5, "all rows")
            index = view.index
            events = conn.session.events
            assert len(events) > len(tokens)
            # Every event is a row; the rows are runs of positions, not objects: one run here.
            assert isinstance(index.rows, Positions) and index.rows._rows is None
            assert list(index.rows) == list(range(len(events)))
            lst = view.traffic_list
            await pilot.pause(0.1)
            # Following: the newest event is selected and on screen.
            assert lst.selected is events[-1]
            lst.focus()
            await pilot.press("home")
            await pilot.pause(0.1)
            assert lst.selected is events[0]
            assert "POST" in screen_text(app)
            # Only what was drawn was made into text, and the cache stays small.
            assert len(lst._texts) <= 512
            await pilot.press("end")
            await pilot.pause(0.1)
            assert lst.selected is events[-1]
            sse = [e for e in events if e.kind.value == "sse"]
            assert len(sse) >= len(tokens)
