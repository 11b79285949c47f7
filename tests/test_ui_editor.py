"""The JSON editor's ctrl+o: $VISUAL, else $EDITOR, else vi as git does, and a clear
message when there is no editor to run (issue 28 item 10)."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

from inspector.ui.app import InspectorApp
from inspector.ui.screens.json_edit import JsonEditScreen
from inspector.ui.widgets.composer import Composer
from ui_helpers import record_notifications, screen_text, wait_until


async def open_editor(pilot: Any, app: InspectorApp) -> JsonEditScreen:
    app.screen.query_one(Composer).text_area.focus()
    await pilot.press("ctrl+g")
    return await wait_until(pilot, lambda: isinstance(app.screen, JsonEditScreen) and app.screen, 5, "the JSON editor")


async def test_without_visual_or_editor_ctrl_o_runs_vi_from_the_path(monkeypatch: Any, tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    vi = bin_dir / "vi"
    vi.write_text('#!/bin/sh\nprintf \'{"from": "vi"}\' > "$1"\n')
    vi.chmod(0o755)
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.delenv("EDITOR", raising=False)
    monkeypatch.setenv("PATH", str(bin_dir))
    app = InspectorApp()
    async with app.run_test(size=(100, 30)) as pilot:
        monkeypatch.setattr(app, "suspend", contextlib.nullcontext)
        screen = await open_editor(pilot, app)
        await pilot.press("ctrl+o")
        await wait_until(pilot, lambda: screen.text_area.text == '{"from": "vi"}', 5, "vi's text")
        assert "✓ valid" in screen_text(app)


async def test_no_editor_at_all_is_one_clear_warning(monkeypatch: Any, tmp_path: Path) -> None:
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.delenv("EDITOR", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))  # no vi here
    app = InspectorApp()
    said = record_notifications(app)
    async with app.run_test(size=(100, 30)) as pilot:
        monkeypatch.setattr(app, "suspend", contextlib.nullcontext)
        screen = await open_editor(pilot, app)
        screen.text_area.text = '{"kept": true}'
        await pilot.press("ctrl+o")
        await wait_until(pilot, lambda: any("no editor" in n.message for n in said), 5, "the warning")
        (note,) = [n.message for n in said if "no editor" in n.message]
        assert note == (
            "no editor: $VISUAL and $EDITOR are unset and vi is not on the PATH; set $EDITOR to edit in your own editor"
        )
        assert screen.text_area.text == '{"kept": true}' and isinstance(app.screen, JsonEditScreen)
        # An $EDITOR that does not exist: named, in one line, and the text is kept.
        monkeypatch.setenv("EDITOR", str(tmp_path / "no-such-editor"))
        await pilot.press("ctrl+o")
        await wait_until(pilot, lambda: app.errors, 5, "the error")
        assert app.errors[-1][2] == f"{tmp_path / 'no-such-editor'}: not found (check $VISUAL and $EDITOR)"
        assert screen.text_area.text == '{"kept": true}'


def shown_in(app: InspectorApp, selector: str) -> str:
    """The words on screen inside the region of the widget ``selector`` (of the screen on top)."""
    region = app.screen.query_one(selector).region
    lines = screen_text(app).split("\n")[region.y : region.bottom]
    return " ".join(" ".join(line[region.x : region.right] for line in lines).split())


async def test_the_problem_and_its_line_wrap_whole_at_80_columns() -> None:
    """At 80x24 the parser's message ran past the dialog's edge and was cut ("...enclosed
    in double quo"), and so did the line it blames. Both wrap now, every word on screen."""
    app = InspectorApp()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_editor(pilot, app)
        long_line = '"a key long enough to reach the edge of the dialog": 1 "and": "another"'
        for text, blamed in (('{\n  "city": "Lisbon",\n}', "3 │ }"), ("{\n  " + long_line + "\n}", f"2 │ {long_line}")):
            screen.text_area.text = text
            await wait_until(pilot, lambda: screen.problem is not None, 5, "the problem")
            await pilot.pause()
            assert shown_in(app, "#json-status") == f"✗ {screen.problem}"
            assert shown_in(app, "#json-error-line") == blamed
