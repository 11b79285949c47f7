"""F1 help: organised by task, every key read from the bindings it describes."""

from __future__ import annotations

from textual.binding import Binding

from inspector.ui.app import InspectorApp
from inspector.ui.replay_app import ReplayApp
from inspector.ui.screens.help import SECTIONS, HelpScreen, owners, resolve
from ui_helpers import screen_text, wait_until


def test_every_binding_of_every_pane_is_described_under_a_task() -> None:
    described = {(owner, action) for _title, entries in SECTIONS for owner, action, _text in entries}
    missing = []
    classes = owners(ReplayApp)
    assert {"app", "ReplayApp"} <= set(classes)
    for name, cls in classes.items():
        for binding in cls.BINDINGS:
            if not isinstance(binding, Binding) or not binding.description:
                continue
            if name == "ReplayApp" and binding in InspectorApp.BINDINGS:
                continue
            if name == "app" and binding.action in ("help",):
                pass
            if (name, binding.action) not in described and not _elsewhere(name, binding.action, described):
                missing.append(f"{name}: {binding.key} {binding.action}")
    assert missing == [], missing


def _elsewhere(name: str, action: str, described: set[tuple[str | None, str]]) -> bool:
    """Bindings that repeat another's action (replay keys bound both on the app and on
    the timeline; shift+f beside f; the artifacts view's save and the document's)."""
    twins = {
        ("ReplayApp", "replay"),
        ("ReplayBar", "command"),
        ("ArtifactDocument", "select_file"),
        ("ArtifactDocument", "save"),
        ("TrafficList", "cursor"),
        ("TrafficList", "page"),
        ("TrafficList", "first"),
        ("TrafficList", "last"),
        ("CardView", "cursor"),
        ("CardView", "scroll_body"),
        ("AgentsPanel", "open"),
        ("JsonText", "select_all"),
    }
    return (name, action.split("(")[0]) in twins


async def test_help_is_organised_by_task_not_by_widget() -> None:
    app = InspectorApp()
    # Tall enough for the first four sections (the help scrolls for the rest).
    async with app.run_test(size=(120, 60)) as pilot:
        assert resolve(app)  # every entry has its binding
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), 5, "help")
        await pilot.pause()
        text = screen_text(app)
        for title in ("Move around", "Connect to an agent", "Send a message (F3)", "Answer a question"):
            assert title in text
        for internal in ("AgentsPanel", "OptionList", "TextArea", "global"):
            assert internal not in text
        assert any("^s" in line and "send the message" in line for line in text.splitlines())
