"""What the screen tests know about a2a-inspect's screen: where things are and how each
view shows itself, so that a test reads like the flow a person goes through.

The agent is the real mock with tests/screen_agent.yaml (``screen_agent`` fixture);
the app is the installed ``a2a-inspect`` in a pseudo-terminal (tests/terminal.py).
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from terminal import Terminal

SCENARIO = Path(__file__).with_name("screen_agent.yaml")
#: The sizes every daily flow is tried at: a roomy terminal, and the classic 80x24.
SIZES = [(140, 45), (80, 24)]
SIZE_IDS = ["140x45", "80x24"]
NAME = "Screen Agent"

#: What each view shows of itself whatever its content: the view key, a mark only that
#: view has, on screen once the view is drawn.
VIEWS = {
    "f2": re.compile(r"IDENTITY"),
    "f3": re.compile(r"(⇶ stream|→ send)  (new task|↺ continues)"),
    "f4": re.compile(r"agent +state +task +age"),
    "f5": re.compile(r"time +kind +ex method"),
    "f6": re.compile(r"receiver (stopped|listening)"),
}


#: Seconds a person takes to read a view before the next key. Paced keys are part of
#: the daily flows: the screens that went stale did so after a pause, when the app had
#: gone quiet (a lost paint is then never made good by the next one).
READ = 0.4


def read(term: Terminal) -> None:
    """A person reading the screen before the next key."""
    time.sleep(READ)


def sizes() -> pytest.MarkDecorator:
    return pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)


def body(term: Terminal) -> tuple[int, int, int, int]:
    """Below the bar and the tabs, above the footer: the active view."""
    return term.rows(3, -1)


def task_right(term: Terminal) -> tuple[int, int, int, int]:
    """The task view's right pane (state diagram, artifacts), found by the diagram's
    timeline header; the whole body while that is not on screen."""
    for y in range(3, term.lines - 1):
        line = term.row(y)
        at = line.find("state ")
        if at > 0 and " at " in line and " for" in line:
            left = line.rfind("│", 0, at)
            return (3, left + 1, term.lines - 1, term.cols - 1)
    return body(term)


def bar(term: Terminal) -> tuple[int, int, int, int]:
    return term.rows(0, 1)


@contextmanager
def inspector(url: str, size: tuple[int, int]) -> Iterator[Terminal]:
    """``a2a-inspect URL`` at ``size``, connected (the bar says ready); at the end of the
    block the test has quit it with ctrl+q (``quit_app``), or it is killed."""
    with Terminal.app([url], size=size) as term:
        term.wait_for("● ready", region=bar(term))
        yield term


def quit_app(term: Terminal) -> None:
    """ctrl+q: the app exits 0 and leaves the terminal as it found it."""
    term.press("ctrl+q")
    assert term.wait_exit() == 0, term.dump()
    assert term.restored() == [], term.dump()


def send(term: Terminal, text: str) -> None:
    """Type a message in the composer (which has the keys on the task view) and send it."""
    term.type(text)
    term.wait_for(text)
    term.press("ctrl+s")


def show_view(term: Terminal, key: str) -> None:
    """Press a view key and wait until that view, and no other, is on screen."""
    term.press(key)
    shows_only(term, key)


def shows_only(term: Terminal, key: str) -> None:
    others = [mark for k, mark in VIEWS.items() if k != key]

    def only() -> bool:
        return term.find(VIEWS[key], body(term)) is not None and not any(term.find(mark, body(term)) for mark in others)

    term.wait_until(only, f"the {key} view alone on screen")
