"""What the TUI does not do at start or on a key, so that it starts and switches views
with less work: every test of the app pays for it too, ~250 starts a run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Footer

from inspector.ui.app import InspectorApp
from inspector.ui.themes import load_theme_file
from ui_helpers import wait_until


async def settled(pilot: Any, layouts: list[Any]) -> None:
    """Once the hidden tabs' views are mounted, wait until a pause passes with no layout."""
    app = pilot.app
    await wait_until(pilot, lambda: app.screen.query("#traffic-view"), 5, "the hidden tabs' views")
    seen = [-1]

    def quiet() -> bool:
        was, seen[0] = seen[0], len(layouts)
        return was == seen[0]

    await wait_until(pilot, quiet, 5, "a quiet screen")


async def test_the_split_view_s_parts_are_not_made_until_a_task_is_pinned() -> None:
    # Composed with the rest, they were 9 of the ~100 widgets styled before the first
    # frame, for a view most sessions never open (tests/test_ui_compose_daily.py pins one).
    app = InspectorApp()
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: app.screen.query("#traffic-view"), 5, "the hidden tabs' views")
        assert app.screen.query("#task-beside")
        for part in ("#beside-conversation", "#beside-diagram", "#beside-artifacts"):
            assert not app.screen.query(part), part


def count_footer_builds(monkeypatch: pytest.MonkeyPatch) -> list[None]:
    """One entry per time any Footer makes its keys, from now on (clear() to restart)."""
    builds: list[None] = []
    compose = Footer.compose

    def counted(self: Any) -> Any:
        builds.append(None)
        return compose(self)

    monkeypatch.setattr(Footer, "compose", counted)
    return builds


async def test_a_view_key_rebuilds_the_footer_at_most_twice(monkeypatch: pytest.MonkeyPatch) -> None:
    # Textual's Footer rebuilt its keys for every time the screen said they changed:
    # twice per change of focus, and a view key changes focus twice (off the old view,
    # onto the new one), so four rebuilds of the same keys per key.
    rebuilt = count_footer_builds(monkeypatch)
    app = InspectorApp()
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: app.screen.query("#traffic-view"), 5, "the hidden tabs' views")
        for key, focused in (("f4", "tasks-table"), ("f5", "traffic-list"), ("f3", "composer-text")):
            await pilot.pause(0.1)
            rebuilt.clear()
            await pilot.press(key)
            await wait_until(pilot, lambda f=focused: app.screen.focused and app.screen.focused.id == f, 5, key)
            await pilot.pause(0.1)  # any rebuild still on its way
            # None at all once the footer has keys enough to change in place
            # (test_ui_switch_cost).
            assert len(rebuilt) <= 2, (key, len(rebuilt))
            footer = app.screen.query_one(Footer)
            assert any(key.description == "Help" for key in footer.query("FooterKey") if key.display), key


async def test_the_first_frame_has_the_footer_s_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    # Textual makes a footer's keys after the screen's first frame: they showed in a
    # second frame, with a layout and a whole repaint of their own. The keys in the
    # footer at the screen's first layout, and at the last, are the same.
    from inspector.ui.screens.main import MainScreen

    at_layouts: list[list[str]] = []
    on_mount = MainScreen.on_mount

    def keys_at_layouts(screen: MainScreen) -> None:
        footer = screen.query_one(Footer)

        def laid_out(_screen: Any) -> None:
            at_layouts.append([str(key.description) for key in footer.query("FooterKey") if key.display])

        screen.screen_layout_refresh_signal.subscribe(screen, laid_out)
        on_mount(screen)

    monkeypatch.setattr(MainScreen, "on_mount", keys_at_layouts)
    app = InspectorApp()
    async with app.run_test(size=(120, 36)) as pilot:
        await settled(pilot, [])
        await pilot.pause()
        assert at_layouts, "no layout seen"
        first, last = at_layouts[0], at_layouts[-1]
        assert "Help" in last
        assert first == last


async def test_the_terminal_s_size_sent_again_lays_nothing_out() -> None:
    # Textual sends the screen its size again at start (from the screen's own first
    # layout, and from the app once idle): each laid the whole screen out and painted it
    # whole, two frames that changed nothing in every start. A new size still lays out.
    app = InspectorApp()
    async with app.run_test(size=(120, 36)) as pilot:
        screen = app.screen
        layouts: list[Any] = []
        screen.screen_layout_refresh_signal.subscribe(screen, lambda laid_out: layouts.append(laid_out.size))
        await settled(pilot, layouts)
        layouts.clear()
        await pilot.resize_terminal(120, 36)
        for _ in range(5):
            await pilot.pause()
        assert layouts == []
        await pilot.resize_terminal(100, 30)
        await wait_until(pilot, lambda: layouts and layouts[-1] == (100, 30), 5, "a layout at the new size")
        assert screen.has_class("-short") and screen.has_class("-narrow")


async def test_keys_said_to_change_that_did_not_leave_the_footer_as_it_is(monkeypatch: pytest.MonkeyPatch) -> None:
    # A view mounting tells the footer that the keys changed when they had not: the
    # footer's keys were mounted, styled, laid out and painted again for nothing.
    rebuilt = count_footer_builds(monkeypatch)
    app = InspectorApp()
    async with app.run_test(size=(120, 36)) as pilot:
        await settled(pilot, [])
        footer = app.screen.query_one(Footer)
        keys = list(footer.query("FooterKey"))
        assert keys
        rebuilt.clear()
        app.screen.refresh_bindings()
        for _ in range(5):
            await pilot.pause()
        assert len(rebuilt) == 0
        assert list(footer.query("FooterKey")) == keys
        # Keys that did change are made again: the sidebar's, once it has the focus.
        await pilot.press("ctrl+b")
        await wait_until(pilot, lambda: len(rebuilt) >= 1, 5, "the sidebar's keys")
        await wait_until(pilot, lambda: list(footer.query("FooterKey")) != keys, 5, "new keys")


def test_a_theme_file_is_read_once_until_it_changes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Every start registers every theme file; their YAML was ~5% of a start.
    from inspector import safeyaml

    parsed = 0
    load = safeyaml.load

    def counted(text: str) -> Any:
        nonlocal parsed
        parsed += 1
        return load(text)

    monkeypatch.setattr(safeyaml, "load", counted)
    path = tmp_path / "once.yaml"
    path.write_text(f"name: once-{tmp_path.name}\nprimary: '#FF0000'\n", encoding="utf-8")
    first = load_theme_file(path)
    assert load_theme_file(path) == first and parsed == 1
    path.write_text(f"name: once-{tmp_path.name}\nprimary: '#00FF00'\n", encoding="utf-8")
    changed = load_theme_file(path)
    assert parsed == 2 and changed.primary.upper() == "#00FF00"


async def test_a_resize_under_a_modal_still_sets_the_main_screen_s_size_classes() -> None:
    # Under a modal, the modal's Resize lays the main screen out at the new size, and
    # the main screen's own Resize then finds that size laid out already: its size
    # classes (short, narrow) must still follow.
    app = InspectorApp()
    async with app.run_test(size=(120, 36)) as pilot:
        main = app.screen
        await pilot.press("f1")
        await wait_until(pilot, lambda: app.screen is not main, 5, "the help screen")
        await pilot.resize_terminal(80, 24)
        await wait_until(pilot, lambda: main.outer_size == (80, 24), 5, "the main screen laid out at 80x24")
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is main, 5, "the main screen back")
        await wait_until(pilot, lambda: main.has_class("-short") and main.has_class("-narrow"), 5, "its size classes")
