"""Screen tests: keys as fast as a terminal delivers them, and a terminal that changes
size. Every key acts where it was aimed, in the order it came, whatever the app is busy
with; a resize repaints the whole screen at the new size.

One run of the app per size walks the flows (terminal.step names the one that failed):
the send and view keys in one write (right after the app is ready, while it is still
busy with its start), Tab then typing in the agent form, and at 140x45 a resize to 80x24
and back.
"""

from __future__ import annotations

import re
from typing import Any

from screen_app import body, inspector, quit_app, show_view, shows_only, sizes, task_right
from terminal import KEYS, Terminal, step


@sizes()
def test_keys_at_once_and_a_resized_terminal(screen_agent, size) -> None:
    with inspector(screen_agent.url, size) as term:
        with step("send and the traffic view key at once"):
            _send_and_the_traffic_view_key_at_once(term)
        with step("tab then typing lands in the next field"):
            _tab_then_typing_lands_in_the_next_field(term)
        if size == (140, 45):
            with step("a resized terminal is painted whole at each size"):
                _a_resized_terminal_is_painted_whole_at_each_size(screen_agent, term)
        quit_app(term)


def _send_and_the_traffic_view_key_at_once(term: Terminal) -> None:
    # The text, ctrl+s and F5 in one write, as a terminal sends keys pressed
    # together: the text goes out, then the traffic view shows.
    term.write(b"echo at once" + KEYS["ctrl+s"] + KEYS["f5"])
    shows_only(term, "f5")
    # The message went out, and the traffic list shows its exchange to the end.
    term.wait_for(re.compile(r"→ req +2 +stream"), body(term))
    term.wait_for(re.compile(r"← end +2 +stream +complete"), body(term))
    show_view(term, "f3")
    term.wait_for("echo: echo at once", task_right(term), flow=True)


def _field(term: Terminal, label: str) -> str:
    """What the agent form shows in the field labelled ``label``."""
    for y in range(term.lines):
        match = re.search(rf"█ {label} +(.*?) *(▼ +)?█", term.row(y))
        if match:
            return match.group(1)
    raise AssertionError(f"no field {label!r} on screen:\n{term.dump()}")


def _tab_then_typing_lands_in_the_next_field(term: Terminal) -> None:
    term.press("ctrl+b")
    term.wait_for("SAVED (0)")
    term.type("a")
    term.wait_for("Add a saved agent")
    # Each field's text right after the Tab that moves to it, in one write.
    term.write(b"my agent" + KEYS["tab"] + b"http://127.0.0.1:9/x")
    term.wait_until(lambda: _field(term, "URL") == "http://127.0.0.1:9/x", "the URL in the URL field")
    assert _field(term, "name") == "my agent"
    term.press("ctrl+s")
    term.wait_gone("Add a saved agent")
    term.wait_for("SAVED (1)")
    term.wait_for("my agent")


def _a_resized_terminal_is_painted_whole_at_each_size(screen_agent: Any, term: Terminal) -> None:
    show_view(term, "f3")  # the composer has the keys again (the sidebar had them)
    term.type("stream a story")
    term.press("ctrl+s")
    term.wait_until(lambda: screen_agent.held("story") == 1, "the story to be held")
    screen_agent.release("story")
    term.wait_for("lost count at the comet.", task_right(term), flow=True)  # the story's task, not the echo's
    term.wait_for(re.compile(r"▸ completed"), body(term))
    term.wait_for("╭───────────╮", task_right(term))  # the full state diagram
    term.resize(80, 24)
    # Narrow and short: the one-line path instead of the diagram, the end of the
    # story in the artifacts, the tabs and the footer at the new width.
    term.wait_for("submitted → working → completed", task_right(term), flow=True)
    term.wait_for("lost count at the comet.", task_right(term), flow=True)
    term.wait_gone("╭───────────╮")
    term.wait_for(re.compile(r"\^s Send .*\^p palette"), term.rows(-1, term.lines))
    show_view(term, "f5")
    term.resize(140, 45)
    shows_only(term, "f5")
    # The story is the third exchange (the card, the echo at once, the story).
    term.wait_for(re.compile(r"← end +3 +stream +complete"), body(term))
    show_view(term, "f3")
    term.wait_for("╭───────────╮", task_right(term))
