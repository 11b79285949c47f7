"""What a view key or a change of focus does not do again: every test of the app, and a
person at the keyboard, pays for each key (~0.1 s of CPU per view key before)."""

from __future__ import annotations

from typing import Any

import pytest
from textual.widgets import Footer

from inspector.ui.app import InspectorApp
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
    app = pilot.app
    await pilot.press(key)
    await wait_until(pilot, lambda: app.screen.focused and app.screen.focused.id == widget_id, 5, key)
    await pilot.pause(0.1)  # the footer's keys follow after a refresh


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
        for key, focused in (*VIEW_KEYS, *VIEW_KEYS):
            await focused_on(pilot, key, focused)
            assert keys_shown(footer) == keys_wanted(app), key
        assert rebuilt == []
