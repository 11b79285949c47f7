"""At 80 columns every footer shows all its keys whole: each main view, the sidebar
with the keys, a replay's timeline; and a modal's own key line wraps instead of being
cut (issue 28 item 10)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from inspector.ui.app import InspectorApp
from inspector.ui.replay_app import open_replay
from inspector.ui.screens.json_edit import JsonEditScreen
from inspector.ui.widgets.composer import Composer
from mock_agent import MockAgent
from ui_helpers import screen_text, wait_until

SIZE = (80, 24)
#: The app's own keys close every footer: whole, then the palette's mark at the right.
WHOLE = re.compile(r"f1 Help \^b Agents \^o Connect +▏\^p palette")


def footer(app: Any) -> str:
    return screen_text(app).split("\n")[-1]


async def shows_whole(pilot: Any, app: Any, where: str, *keys: str) -> str:
    for key in keys:
        await pilot.press(key)
    await wait_until(pilot, lambda: WHOLE.search(footer(app)), 5, f"the whole footer in {where}: {footer(app)!r}")
    return footer(app)


async def test_every_footer_fits_80_columns(tmp_path: Path) -> None:
    record = tmp_path / "s.jsonl"
    async with MockAgent("echo", dialect="all") as mock:
        app = InspectorApp(url=mock.url, record=str(record))
        async with app.run_test(size=SIZE) as pilot:
            conn = await wait_until(
                pilot,
                lambda: app.active if app.active and app.active.state == "ready" else None,
                10,
                "the agent to be ready",
            )
            composer = app.screen.query_one(Composer)
            composer.text_area.focus()
            composer.set_text("hi")
            await pilot.press("ctrl+s")
            await wait_until(
                pilot,
                lambda: (
                    app.task_id
                    and conn.tracker.task(app.task_id).state is not None
                    and conn.tracker.task(app.task_id).state.value == "completed"
                ),
                10,
                "the task",
            )
            assert "^t Stream on/off" in await shows_whole(pilot, app, "the task view", "f3")
            assert "⏎ Use example" in await shows_whole(pilot, app, "the card view", "f2")
            assert "g Get" in await shows_whole(pilot, app, "the tasks view", "f4")
            assert "[] Prev/next in ex." in await shows_whole(pilot, app, "the traffic view", "f5")
            await shows_whole(pilot, app, "an event's detail", "enter")
            assert "s Receiver on/off" in await shows_whole(pilot, app, "the push view", "f6")
            assert "a Add" in await shows_whole(pilot, app, "the sidebar", "ctrl+b")
            await pilot.press("ctrl+b", "f3")
            composer.text_area.focus()
            await pilot.press("ctrl+g")
            await wait_until(pilot, lambda: isinstance(app.screen, JsonEditScreen), 5, "the JSON editor")
            # The modal's own key line, all of it (it wraps).
            await wait_until(pilot, lambda: "$EDITOR" in screen_text(app), 5, "the editor's keys whole")
            await pilot.press("escape")
    replay = open_replay(record)
    async with replay.run_test(size=SIZE) as pilot:
        assert "←→ Step" in await shows_whole(pilot, replay, "the replay's timeline", "f7")
        await shows_whole(pilot, replay, "a replay's tasks view", "f4")
        await shows_whole(pilot, replay, "a replay's traffic view", "f5")
