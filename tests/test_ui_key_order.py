"""Keys in one read from the terminal are handled in order, each against the focus it
was aimed at (inspector/ui/key_order.py).

The keys are posted to the app all at once, as its driver does with the keys of one
read, without Pilot's wait between keys: before KeyOrder, text typed right after Tab
went into the field Tab left, and ctrl+s followed by F5 sent nothing. The screen tests
(tests/test_screen_keys.py) show the same at the terminal.
"""

from __future__ import annotations

from textual import events
from textual.widgets import Input

from inspector.ui.app import InspectorApp
from inspector.ui.screens.agent_form import AgentForm
from inspector.ui.screens.json_edit import JsonText
from inspector.ui.widgets.composer import Composer
from mock_agent import MockAgent
from ui_helpers import wait_until


def _one_read(app: InspectorApp, keys: str | list[str]) -> None:
    """Post each key to the app at once, as the driver does with one read."""
    for key in keys:
        character = {"tab": "\t", "space": " "}.get(key, key if len(key) == 1 else None)
        app.post_message(events.Key(key, character))


async def test_text_typed_right_after_tab_lands_in_the_next_field() -> None:
    app = InspectorApp()
    async with app.run_test(size=(120, 36)) as pilot:
        app.push_screen(AgentForm("Add a saved agent"))
        form = await wait_until(
            pilot,
            lambda: isinstance(app.screen, AgentForm) and len(app.screen.query(Input)) > 1 and app.screen,
            10,
            "the form",
        )
        name, url = form.query(Input)[0], form.query(Input)[1]
        await wait_until(pilot, lambda: app.focused is name, 10, "the name field focused")
        _one_read(app, [*"my agent", "tab", *"http://x"])
        await wait_until(pilot, lambda: url.value == "http://x", 10, "the URL typed")
        assert name.value == "my agent"


async def test_send_then_a_view_key_sends_then_shows_the_view() -> None:
    async with MockAgent("echo", dialect="all") as mock:
        app = InspectorApp(url=mock.url)
        async with app.run_test(size=(120, 36)) as pilot:
            conn = await wait_until(
                pilot, lambda: app.active if app.active and app.active.state == "ready" else None, 10, "the agent"
            )
            composer = app.screen.query_one(Composer)
            await wait_until(pilot, lambda: app.focused is composer.text_area, 10, "the composer focused")
            # Text, send and the traffic view in one read: the text is in the message.
            _one_read(app, [*"hi there", "ctrl+s", "f5"])
            await wait_until(pilot, lambda: conn.tracker.tasks, 10, "the message to be sent")
            task = conn.tracker.task(next(iter(conn.tracker.tasks)))
            assert next(p.text for m in task.history for p in m.parts if getattr(p, "text", None)) == "hi there"
            await wait_until(pilot, lambda: app.screen.query_one("#views").active == "traffic", 10, "the traffic view")


async def test_tab_in_the_json_editor_still_indents() -> None:
    app = InspectorApp()
    async with app.run_test(size=(120, 36)) as pilot:
        composer = app.screen.query_one(Composer)
        composer.text_area.focus()
        await pilot.press("ctrl+g")  # a data part: the JSON editor
        editor = await wait_until(pilot, lambda: next(iter(app.screen.query(JsonText)), None), 10, "the editor")
        await wait_until(pilot, lambda: app.focused is editor, 10, "the editor focused")
        before = editor.text
        _one_read(app, ["tab", *"1"])
        await wait_until(pilot, lambda: "1" in editor.text, 10, "the key after Tab")
        assert app.focused is editor, "Tab left the editor"
        assert before == "{\n  \n}"  # the cursor starts inside the braces, indented
        assert editor.text == "{\n    1\n}"  # Tab indented one more step
