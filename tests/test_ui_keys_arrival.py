"""Tab and shift+tab are the app's own (priority) bindings: what they still do (Pilot).

Textual resolves a binding that is not a priority one when the key has bubbled back up
from the focused widget, against whatever has the focus by then: text typed right after
Tab went into the field Tab left, and a key pressed right before a view key (ctrl+s,
then F5) acted in the new view, or not at all. So Tab, and the app's keys, resolve as
they arrive. Pilot waits between keys and cannot show that race; the screen tests do
(tests/test_screen_keys.py). These check that Tab still moves through a form both
ways, and still indents in the JSON editor.
"""

from __future__ import annotations

from textual.widgets import Input

from inspector.ui.app import InspectorApp
from inspector.ui.screens.agent_form import AgentForm
from inspector.ui.screens.json_edit import JsonText
from inspector.ui.widgets.composer import Composer
from ui_helpers import wait_until


async def test_tab_moves_the_focus_before_the_next_key_is_handed_out() -> None:
    app = InspectorApp()
    async with app.run_test(size=(120, 36)) as pilot:
        app.push_screen(AgentForm("Add a saved agent"))
        form = await wait_until(pilot, lambda: isinstance(app.screen, AgentForm) and len(app.screen.query(Input)) > 1
                                and app.screen, 10, "the form")
        name, url = form.query(Input)[0], form.query(Input)[1]
        await wait_until(pilot, lambda: app.focused is name, 10, "the name field focused")
        await pilot.press(*"ab", "tab", *"cd")
        assert (name.value, url.value) == ("ab", "cd")
        assert app.focused is url
        await pilot.press("shift+tab")
        assert app.focused is name


async def test_tab_in_the_json_editor_indents_instead() -> None:
    app = InspectorApp()
    async with app.run_test(size=(120, 36)) as pilot:
        composer = app.screen.query_one(Composer)
        composer.text_area.focus()
        await pilot.press("ctrl+g")  # a data part: the JSON editor
        editor = await wait_until(pilot, lambda: next(iter(app.screen.query(JsonText)), None), 10, "the editor")
        await wait_until(pilot, lambda: app.focused is editor, 10, "the editor focused")
        before = editor.text
        await pilot.press("tab")
        assert app.focused is editor
        assert editor.text != before and editor.text.replace(" ", "").replace("\t", "") == \
            before.replace(" ", "").replace("\t", "")
