"""Screen tests: starting the app, as a person sees it in a terminal (tests/terminal.py).

The bar, the sidebar and the panes agree within a second of the bar saying ready; the
app exits 0 on ctrl+q and gives the terminal back as it found it.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from terminal import Terminal

#: The sizes every daily flow is tried at: a roomy terminal, and the classic 80x24.
SIZES = [(140, 45), (80, 24)]
#: What "at once" means for a person: the screen agrees with the bar within this.
AGREE = 1.0


def _size_id(size: tuple[int, int]) -> str:
    return f"{size[0]}x{size[1]}"


def _agrees(term: Terminal, name: str) -> bool:
    text = term.text()
    sidebar_ok = term.cols < 100 or (f"▶ ● {name}" in text and "OPEN (1)" in text)
    return sidebar_ok and "No task selected." in text and "No agent connected." not in text


def _ready_then_agree(term: Terminal, name: str) -> None:
    term.wait_for("● ready", region=term.rows(0, 1))
    seen = time.monotonic()
    term.wait_until(
        lambda: _agrees(term, name), f"the sidebar and panes to show {name!r} (the bar says ready)", timeout=AGREE + 30
    )
    took = time.monotonic() - seen
    assert took <= AGREE, f"the screen agreed with the bar {took:.2f} s after ready:\n{term.dump()}"


@pytest.mark.parametrize("size", SIZES, ids=_size_id)
def test_started_with_a_url_the_screen_agrees_with_the_bar(a2a_mock, size: tuple[int, int], tmp_path: Path) -> None:
    with Terminal.app([a2a_mock.url, "--record", str(tmp_path / "started.jsonl")], size=size) as term:
        _ready_then_agree(term, "Echo Agent")
        # The whole bar in its columns: in short forms at 80 (it was cut after the
        # dialect there: binding, auth and the recording mark off screen).
        bar = term.row(0)
        if term.cols >= 100:
            assert "dialect 1.0 ▾ (card)" in bar and "⏺ REC started.jsonl" in bar and a2a_mock.url in bar, bar
        else:
            assert "1.0 ▾" in bar and "⏺ REC" in bar and "dialect" not in bar, bar
        assert "JSON-RPC ▾" in bar and "auth: none" in bar, bar
        term.press("ctrl+q")
        assert term.wait_exit() == 0
        assert term.restored() == []


@pytest.mark.parametrize("size", SIZES, ids=_size_id)
def test_started_with_demo_the_screen_agrees_with_the_bar(size: tuple[int, int]) -> None:
    with Terminal.app(["--demo"], size=size) as term:
        _ready_then_agree(term, "demo agent")
        term.press("ctrl+q")
        assert term.wait_exit() == 0
        assert term.restored() == []


def test_a_tiny_terminal_stacks_the_task_s_panes_and_works() -> None:
    # Under 64 columns the task's states and artifacts go under the conversation. At 40
    # columns they took 36 of them beside it: the composer's text box had no width left,
    # and Textual's TextArea raised on it (a traceback instead of the app).
    with Terminal.app(["--demo"], size=(40, 24)) as term:
        term.wait_for("● ready", region=term.rows(0, 1))
        term.wait_for("message text", region=term.rows(8, 14))  # the composer's box, whole width
        term.type("hello")
        term.press("ctrl+s")
        term.wait_for("completed", region=term.rows(12, 22))  # the task's head, below
        term.press("ctrl+q")
        assert term.wait_exit() == 0
        assert term.restored() == []
