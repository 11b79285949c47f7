"""What a view key or a change of focus does not do again: every test of the app, and a
person at the keyboard, pays for each key (~0.1 s of CPU per view key before)."""

from __future__ import annotations

from typing import Any

import pytest
from textual.widget import Widget
from textual.widgets import Footer

from inspector.ui.app import InspectorApp
from inspector.ui.screens.main import MainScreen
from test_ui_start_cost import count_footer_builds
from ui_helpers import wait_until

#: Each view key and the widget it gives the keys to.
VIEW_KEYS = (
    ("f2", "card-view"),
    ("f3", "composer-text"),
    ("f4", "tasks-table"),
    ("f5", "traffic-list"),
    ("f6", "push-table"),
)


def keys_shown(footer: Footer) -> list[tuple[str, str]]:
    """The footer's keys a person sees (key, description), left to right."""
    return [
        (key.key, key.description)
        for key in footer.query("FooterKey")
        if key.display and (key.parent is footer or key.parent.display)  # a key of a group
    ]


def keys_wanted(app: Any) -> list[tuple[str, str]]:
    """What Textual's Footer shows for the screen's keys now (its rules, in its order):
    one key per action, a group's keys without their description."""
    actions: dict[str, Any] = {}
    for _node, binding, _enabled, _tip in app.screen.active_bindings.values():
        if binding.show:
            actions.setdefault(binding.action, binding)
    grouped = {}
    for binding in actions.values():
        grouped.setdefault(binding.group, []).append(binding)
    wanted = []
    for binding in actions.values():
        in_group = binding.group is not None and len(grouped[binding.group]) > 1
        wanted.append((binding.key, "" if in_group else binding.description))
    palette = app.screen.active_bindings.get(app.COMMAND_PALETTE_BINDING)
    if palette is not None:
        wanted.append((palette[1].key, palette[1].description))
    return wanted


async def focused_on(pilot: Any, key: str, widget_id: str) -> None:
    """Press ``key``; back once ``widget_id`` has the focus and the footer shows its keys."""
    app = pilot.app
    await pilot.press(key)
    await wait_until(pilot, lambda: app.screen.focused and app.screen.focused.id == widget_id, 5, key)
    footer = app.screen.query_one(Footer)
    await wait_until(pilot, lambda: keys_shown(footer) == keys_wanted(app), 5, f"the footer's keys after {key}")


async def test_view_keys_change_the_footer_s_keys_without_making_new_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    # Footer made all its keys again for every view key (removed, then ~8 keys mounted,
    # styled, laid out): ~25 ms of CPU. Once it has shown every view's keys, it has
    # enough of them to show any view's by changing them in place.
    rebuilt = count_footer_builds(monkeypatch)
    app = InspectorApp()
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: app.screen.query("#traffic-view"), 5, "the hidden tabs' views")
        footer = app.screen.query_one(Footer)
        for key, focused in VIEW_KEYS:
            await focused_on(pilot, key, focused)
        rebuilt.clear()
        for key, focused in VIEW_KEYS:
            await focused_on(pilot, key, focused)
        assert rebuilt == []
        assert any(description == "Help" for _key, description in keys_shown(footer))


async def test_a_change_of_focus_does_not_repaint_the_whole_screen(monkeypatch: pytest.MonkeyPatch) -> None:
    # Textual's Screen repaints all of itself when its focused widget changes: a full
    # frame (~10-15 ms of CPU) per Tab, two per view key, every widget's lines drawn
    # into it again. What the focus changes repaints itself: the widgets it leaves and
    # reaches, the panes' bars, the footer.
    app = InspectorApp()
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: app.screen.query("#traffic-view"), 5, "the hidden tabs' views")
        screen = app.screen
        assert isinstance(screen, MainScreen)
        whole: list[str] = []
        refresh = Widget.refresh

        def counted(self: Widget, *regions: Any, **kwargs: Any) -> Any:
            if self is screen and not regions and not kwargs.get("layout") and not kwargs.get("recompose"):
                whole.append(str(screen.focused))
            return refresh(self, *regions, **kwargs)

        monkeypatch.setattr(Widget, "refresh", counted)
        for key, focused in (*VIEW_KEYS, ("f3", "composer-text")):
            await focused_on(pilot, key, focused)
        for _ in range(3):
            await pilot.press("tab")
        assert screen.focused is not None and screen.focused.id != "composer-text"
        assert whole == []
        # Asked for, it still repaints whole.
        screen.refresh()
        assert whole
