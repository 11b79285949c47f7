"""Focus and keys (issue 12): F2-F6 show a view and give it the keys, what is typed
after them lands in the focused widget and never fires a panel's one-letter commands,
the focused pane is marked in the theme's accent, and a few keys work from anywhere."""

from __future__ import annotations

from typing import Any

import pytest
from textual.widgets import DataTable, TabbedContent, TextArea

from inspector.ui.app import InspectorApp
from inspector.ui.screens.agent_form import AgentForm
from inspector.ui.screens.errors import ErrorsScreen
from inspector.ui.widgets.card_view import CardView
from inspector.ui.widgets.traffic_list import TrafficList
from mock_agent import MockAgent
from ui_helpers import wait_until

#: Each view key, the view it shows, and the widget that must have the keys then.
VIEW_KEYS = (
    ("f2", "card", "card-view"),
    ("f3", "task", "composer-text"),
    ("f4", "tasks", "tasks-table"),
    ("f5", "traffic", "traffic-list"),
    ("f6", "push", "push-table"),
)


async def ready(pilot: Any, app: InspectorApp) -> Any:
    return await wait_until(
        pilot, lambda: app.active if app.active and app.active.state == "ready" else None, 15, "connected"
    )


def focused_id(app: InspectorApp) -> str | None:
    focused = app.screen.focused
    return focused.id if focused is not None else None


async def test_the_composer_has_the_keys_at_start_so_typing_is_a_message() -> None:
    async with MockAgent("echo", dialect="all") as mock:
        app = InspectorApp(url=mock.url)
        async with app.run_test(size=(120, 36)) as pilot:
            await ready(pilot, app)
            assert focused_id(app) == "composer-text"
            await pilot.press(*"srdwa")  # the agents panel's letters, had it the keys
            assert app.screen.query_one("#composer-text", TextArea).text == "srdwa"
            assert not isinstance(app.screen, AgentForm)


@pytest.mark.parametrize("size", [(80, 24), (120, 36)])
async def test_each_view_key_shows_its_view_and_gives_it_the_keys(size: tuple[int, int]) -> None:
    async with MockAgent("echo", dialect="all") as mock:
        app = InspectorApp(url=mock.url)
        async with app.run_test(size=size) as pilot:
            await ready(pilot, app)
            tabs = app.screen.query_one("#views", TabbedContent)
            # Twice round, from every view to every other (and to itself).
            for key, view, widget in VIEW_KEYS * 2:
                await pilot.press(key)
                await wait_until(
                    pilot, lambda widget=widget: focused_id(app) == widget, 5, f"{widget} focused after {key}"
                )
                assert tabs.active == view
            # From the agents sidebar too: F3 takes the keys back to the composer.
            await pilot.press("ctrl+b")
            await wait_until(pilot, lambda: focused_id(app) == "agents-list", 5, "the sidebar focused")
            await pilot.press("f3")
            await wait_until(pilot, lambda: focused_id(app) == "composer-text", 5, "the composer again")
            await pilot.press(*"hello")
            assert app.screen.query_one("#composer-text", TextArea).text == "hello"
            assert not isinstance(app.screen, AgentForm)


async def test_letters_after_a_view_key_go_to_the_widget_that_has_the_keys() -> None:
    async with MockAgent("echo", dialect="all") as mock:
        app = InspectorApp(url=mock.url)
        async with app.run_test(size=(120, 36)) as pilot:
            await ready(pilot, app)
            # F2: "j" is the card's own key (raw JSON), not a letter lost somewhere else.
            await pilot.press("f2")
            card = app.screen.query_one(CardView)
            await wait_until(pilot, lambda: app.screen.focused is card, 5, "the card focused")
            await pilot.press("j")
            assert card.raw
            # F5: "/" goes to the traffic list's view, which opens its filter; text lands there.
            await pilot.press("f5")
            await wait_until(pilot, lambda: isinstance(app.screen.focused, TrafficList), 5, "the list")
            await pilot.press("slash", *"card")
            assert focused_id(app) == "traffic-filter"
            assert app.screen.query_one("#traffic-filter").value == "card"
            # F3 and type: the text box, whatever had the keys before.
            await pilot.press("f3", *"abc")
            assert app.screen.query_one("#composer-text", TextArea).text == "abc"


async def test_the_sidebar_hides_and_shows_with_one_key_and_starts_hidden_when_narrow() -> None:
    async with MockAgent("echo", dialect="all") as mock:
        app = InspectorApp(url=mock.url)
        async with app.run_test(size=(80, 24)) as pilot:
            await ready(pilot, app)
            agents = app.screen.query_one("#agents")
            assert not agents.display
            await pilot.press("ctrl+b")
            await wait_until(pilot, lambda: agents.display and focused_id(app) == "agents-list", 5, "shown")
            await pilot.press("ctrl+b")
            await wait_until(pilot, lambda: not agents.display, 5, "hidden again")
            assert focused_id(app) == "composer-text"
        wide = InspectorApp(url=mock.url)
        async with wide.run_test(size=(120, 36)) as pilot:
            await ready(pilot, wide)
            assert wide.screen.query_one("#agents").display


async def test_the_focused_pane_is_marked_in_the_accent_colour() -> None:
    async with MockAgent("echo", dialect="all") as mock:
        app = InspectorApp(url=mock.url)
        async with app.run_test(size=(120, 36)) as pilot:
            await ready(pilot, app)
            accent = app.current_theme.accent
            composer = app.screen.query_one("#composer")
            conversation = app.screen.query_one("#conversation")
            assert composer.styles.outline_left[0] == "outer"
            assert composer.styles.outline_left[1].hex.upper() == accent.upper()
            assert conversation.styles.outline_left[0] in ("", "none")
            conversation.focus()
            await pilot.pause()
            assert conversation.styles.outline_left[0] == "outer"
            assert composer.styles.outline_left[0] in ("", "none")


async def test_end_in_the_tasks_table_keeps_the_keys_there() -> None:
    async with MockAgent("echo", dialect="all") as mock:
        app = InspectorApp(url=mock.url)
        async with app.run_test(size=(120, 36)) as pilot:
            conn = await ready(pilot, app)
            for text in ("one", "two", "three"):
                await pilot.press(*text, "ctrl+s")
                await wait_until(
                    pilot,
                    lambda text=text: len(conn.tracker.tasks) >= ["one", "two", "three"].index(text) + 1,
                    10,
                    "the task",
                )
            await pilot.press("f4")
            table = app.screen.query_one("#tasks-table", DataTable)
            await wait_until(pilot, lambda: app.screen.focused is table, 5, "the table")
            await pilot.press("home", "end")
            assert app.screen.focused is table
            assert app.screen.query_one("#views", TabbedContent).active == "tasks"
            assert table.cursor_row == table.row_count - 1


async def test_error_details_open_from_the_text_box_too() -> None:
    async with MockAgent("echo", dialect="all") as mock:
        app = InspectorApp(url=mock.url)
        async with app.run_test(size=(120, 36)) as pilot:
            await ready(pilot, app)
            app.report_error("something failed", RuntimeError("the detail"))
            assert focused_id(app) == "composer-text"
            await pilot.press("ctrl+e")
            await wait_until(pilot, lambda: isinstance(app.screen, ErrorsScreen), 5, "the errors screen")
            await pilot.press("ctrl+e")
            await wait_until(pilot, lambda: not isinstance(app.screen, ErrorsScreen), 5, "closed again")
