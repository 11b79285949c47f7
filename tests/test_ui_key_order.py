"""Keys in one read from the terminal are handled in order, each against the focus it
was aimed at (inspector/ui/key_order.py).

The keys are posted to the app all at once, as its driver does with the keys of one
read, without Pilot's wait between keys: before KeyOrder, text typed right after Tab
went into the field Tab left, and ctrl+s followed by F5 sent nothing. The screen tests
(tests/test_screen_keys.py) show the same at the terminal.
"""

from __future__ import annotations

import asyncio

from textual import events
from textual.app import App, ComposeResult
from textual.widget import Widget
from textual.widgets import Input

from inspector.ui.app import InspectorApp
from inspector.ui.key_order import GIVE_UP, KeyOrder
from inspector.ui.screens.agent_form import AgentForm
from inspector.ui.screens.json_edit import JsonText
from inspector.ui.widgets.composer import Composer
from mock_agent import MockAgent
from ui_helpers import one_read, wait_until


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
        one_read(app, [*"my agent", "tab", *"http://x"])
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
            one_read(app, [*"hi there", "ctrl+s", "f5"])
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
        one_read(app, ["tab", *"1"])
        await wait_until(pilot, lambda: "1" in editor.text, 10, "the key after Tab")
        assert app.focused is editor, "Tab left the editor"
        assert before == "{\n  \n}"  # the cursor starts inside the braces, indented
        assert editor.text == "{\n    1\n}"  # Tab indented one more step


async def test_a_key_that_comes_once_the_screens_are_gone_is_dropped_not_a_crash() -> None:
    """Pilot shuts an app down by closing its screens while the app's loop still runs: a
    busy app (a hub agent's heartbeats flooding in) still had keys queued then, which
    reached KeyOrder with no screen; reading the focus raised ScreenStackError and the
    app ended on a traceback. Such a key has nowhere to go: it is dropped."""
    app = InspectorApp()
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: app.focused is not None, 10, "the app ready")
    assert app.screen_stack == []
    for key in ("x", "tab", "f5"):
        await app.key_order.arrived(events.Key(key, key if len(key) == 1 else None))
    assert not app.key_order.waiting and app.key_order.on_its_way is None


class _SlowToLeave(Widget, can_focus=True):
    """Takes its time over ``z`` (its queue is busy meanwhile, as a widget's is behind a
    flood of messages on a loaded machine), then moves the focus to the field."""

    async def on_key(self, event: events.Key) -> None:
        if event.key == "z":
            event.stop()
            await asyncio.sleep(SLOW)
            self.app.query_one(Input).focus()


class _KeysApp(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.key_order = KeyOrder(self, super().on_event)

    def compose(self) -> ComposeResult:
        yield _SlowToLeave()
        yield Input()

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key) and not event.is_forwarded:
            await self.key_order.arrived(event)
            return
        await super().on_event(event)


#: Longer than KeyOrder's GIVE_UP: a key held only GIVE_UP seconds let the next go first.
SLOW = GIVE_UP + 0.6


async def test_a_key_slow_on_its_way_still_holds_the_next_ones() -> None:
    """``/`` then text on a loaded machine: ``/`` focuses the filter, but its widget took
    more than a second to get to it, and the text went to the list it was leaving."""
    app = _KeysApp()
    async with app.run_test() as pilot:
        slow = app.query_one(_SlowToLeave)
        slow.focus()
        await wait_until(pilot, lambda: app.focused is slow, 10, "the slow widget focused")
        one_read(app, ["z", *"typed"])
        field = app.query_one(Input)
        await wait_until(pilot, lambda: field.value == "typed", 10, "the text in the field")
