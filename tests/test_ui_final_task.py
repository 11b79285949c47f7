"""Pilot tests: continuing a task in a final state is said before it is sent, and a
refusal puts the composer back on "new task" (issue 28 item 8)."""

from __future__ import annotations

import json
from typing import Any

from inspector.protocol import models as m
from inspector.session.events import Kind
from inspector.ui.app import InspectorApp
from inspector.ui.widgets.composer import Composer
from mock_agent import MockAgent
from ui_helpers import record_notifications, screen_text, wait_until

SIZE = (120, 36)


def sends(conn: Any) -> list[dict[str, Any]]:
    return [
        json.loads(e.data["body"])
        for e in conn.session.events
        if e.kind is Kind.REQUEST and e.data.get("a2a_method") in ("send", "stream")
    ]


def composer_head(app: InspectorApp) -> str:
    """The line(s) above the text box, as on screen (it wraps in a narrow column)."""
    lines = screen_text(app).split("\n")
    top = next(i for i, line in enumerate(lines) if "⇶ stream" in line or "→ send" in line)
    column = lines[top].index("⇶ stream" if "⇶ stream" in lines[top] else "→ send")
    out = []
    for line in lines[top : top + 3]:
        cell = line[column:].split("│")[0].strip()
        if cell.startswith("▊"):
            break
        out.append(cell)
    return " ".join(out)


async def test_continuing_a_completed_task_warns_and_a_refusal_starts_a_new_task_again() -> None:
    async with MockAgent("echo", dialect="all") as mock:
        app = InspectorApp(url=mock.url)
        said = record_notifications(app)
        async with app.run_test(size=SIZE) as pilot:
            conn = await wait_until(
                pilot,
                lambda: app.active if app.active and app.active.state == "ready" else None,
                10,
                "the agent to be ready",
            )
            composer = app.screen.query_one(Composer)
            composer.text_area.focus()
            composer.set_text("first")
            await pilot.press("ctrl+s")
            task_id = await wait_until(pilot, lambda: app.task_id, 10, "the task to be selected")
            task = conn.tracker.task(task_id)
            await wait_until(pilot, lambda: task.state == m.TaskState.COMPLETED, 10, "the task to complete")
            assert composer.target == "new"

            # One ctrl+n: the composer says, before anything is sent, that this task is over.
            await pilot.press("ctrl+n")
            assert composer.target == "continue"
            await wait_until(pilot, lambda: "may refuse" in composer_head(app), 3, "the composer's warning")
            assert f"↺ continues {task_id[:8]}… (completed): the agent may refuse" in composer_head(app)
            assert any("is completed: the agent may refuse" in n for n in said)

            composer.set_text("second")
            await pilot.press("ctrl+s")
            await wait_until(
                pilot,
                lambda: conn.tracker.exchanges and any(v.error is not None for v in conn.tracker.exchanges.values()),
                10,
                "the refusal",
            )
            # Refused: back on "new task", said in a toast.
            await wait_until(pilot, lambda: composer.target == "new", 3, "new task after the refusal")
            await wait_until(pilot, lambda: "↺ continues" not in composer_head(app), 3, "the head redrawn")
            assert "new task" in composer_head(app)
            assert any("the next message starts a new task" in n for n in said)

            composer.set_text("third")
            await pilot.press("ctrl+s")
            await wait_until(pilot, lambda: len(sends(conn)) == 3, 10, "the third send")
            first, second, third = sends(conn)
            assert second["params"]["message"]["taskId"] == task_id
            assert "taskId" not in third["params"]["message"]
            await wait_until(pilot, lambda: len(mock.tasks) == 2, 10, "a second task at the agent")
