"""The traffic filter's ``task:`` takes any unique prefix of a task id (the views show 8
characters), and says when a prefix starts several tasks' ids (issue 28, item 6)."""

from __future__ import annotations

from inspector.protocol import models as m
from inspector.session import Kind
from inspector.ui.app import InspectorApp
from inspector.ui.widgets.traffic_view import TrafficView
from mock_agent import MockAgent
from ui_helpers import screen_text, wait_until


def say(text: str, task_id: str) -> m.SendParams:
    # A 0.1 client names its tasks: the ids are the test's, so prefixes are known.
    return m.SendParams(message=m.Message(role=m.Role.USER, parts=[m.TextPart(text=text)], task_id=task_id))


def tasks_shown(view: TrafficView) -> set[str | None]:
    index = view.index
    return {index.task_of(index.events[i]) for i in index.rows}


async def test_a_task_prefix_filters_its_events_and_an_ambiguous_one_says_so() -> None:
    async with MockAgent("echo", dialect="0.1", time_scale=0.01) as mock:
        app = InspectorApp(url=mock.url, dialect="0.1")
        async with app.run_test(size=(140, 40)) as pilot:
            await wait_until(pilot, lambda: app.active is not None and app.active.state == "ready", 10, "connected")
            conn = app.active
            for task_id in ("beef0001-first", "beef0002-second", "cafe0003-third"):
                app.send_message(conn, say("hello", task_id), stream=True)
                await wait_until(
                    pilot,
                    lambda t=task_id: (v := conn.tracker.task(t)) is not None and v.state is m.TaskState.COMPLETED,
                    10,
                    f"{task_id} completed",
                )
            await wait_until(
                pilot, lambda: sum(e.kind is Kind.STREAM_END for e in conn.session.events) == 3, 10, "the streams' ends"
            )
            app.action_view("traffic")
            view = app.screen.query_one(TrafficView)
            view.traffic_list.focus()
            await pilot.pause()

            # Typed as a person does: the 8 characters the tasks list shows.
            await pilot.press("slash", *"task:cafe0003", "enter")
            await wait_until(
                pilot, lambda: view.index.filter.text == "task:cafe0003" and view.index.done, 5, "the filter"
            )
            assert view.index.rows and tasks_shown(view) == {"cafe0003-third"}
            assert view.index.filter.problem is None

            # The full id still works; so does any shorter unique prefix.
            for text in ("task:beef0002-second", "task:beef0002", "t:ca"):
                view.apply_filter(text)
                await wait_until(pilot, lambda: view.index.done, 5, "filter applied")
                expected = {"cafe0003-third"} if text == "t:ca" else {"beef0002-second"}
                assert tasks_shown(view) == expected, text

            # A prefix of two tasks: both are shown, and the bar says it is ambiguous.
            view.apply_filter("task:beef")
            await wait_until(pilot, lambda: view.index.done, 5, "the ambiguous filter")
            assert tasks_shown(view) == {"beef0001-first", "beef0002-second"}
            await pilot.pause(0.1)
            shown = screen_text(app)
            assert "task:beef is ambiguous: beef0001…, beef0002…" in shown, [
                ln for ln in shown.splitlines() if "of" in ln
            ][:3]
