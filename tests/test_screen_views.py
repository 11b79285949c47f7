"""Screen tests: the view keys (F2-F6) and the tasks view, as the terminal shows them.

Each view key shows its own view and nothing of the one before, every time (the first
time a view is shown it mounts; after that it is only uncovered, and that must paint
too). The tasks view opens a task with enter, and its rows follow their tasks.
"""

from __future__ import annotations

import re
from typing import Any

from screen_app import VIEWS, body, inspector, quit_app, read, send, show_view, shows_only, sizes, task_right
from terminal import Terminal, step

#: Two rounds through every view, from the task view: the second round uncovers views
#: that are already mounted.
ROUND = ("f5", "f4", "f2", "f6", "f3")


def _task_id_prefix(term: Terminal, other_than: str | None = None) -> str:
    """The short id of the task the task view shows ("task 0f17e280…"), once it is not
    ``other_than`` (the task shown before)."""

    def shown() -> str | None:
        match = term.find(re.compile(r"task ([0-9a-f]{8})…"), task_right(term))
        return match.group(1) if match and match.group(1) != other_than else None

    return term.wait_until(shown, "the task view to show a new task")


@sizes()
def test_the_view_keys_and_the_tasks_view(screen_agent, size) -> None:
    """One run of the app walks three flows: enter on a row of the tasks view opens
    that task; each view key shows its own view and nothing of the last, twice round;
    a tasks row follows its task to its end."""
    with inspector(screen_agent.url, size) as term:
        with step("enter on a row of the tasks view opens that task"):
            shown = _enter_on_a_row_of_the_tasks_view_opens_that_task(term)
        with step("each view key shows its own view and nothing of the last"):
            shown = _each_view_key_shows_its_own_view_and_nothing_of_the_last(term, shown)
        with step("a tasks row follows its task to its end"):
            _a_tasks_row_follows_its_task_to_its_end(screen_agent, term, shown)
        quit_app(term)


def _send_and_see(term: Terminal, text: str, shown: str | None) -> str:
    """Send ``text`` (the agent echoes it) and wait for the task view to show the new
    task, answered; the new task's short id."""
    send(term, text)
    term.wait_for(f"echo: {text}", task_right(term), flow=True)
    return _task_id_prefix(term, other_than=shown)


def _enter_on_a_row_of_the_tasks_view_opens_that_task(term: Terminal) -> str:
    first = _send_and_see(term, "echo first", None)
    second = _send_and_see(term, "echo second", first)
    show_view(term, "f4")
    term.wait_for(first, body(term))
    term.wait_for(second, body(term))
    # Move the cursor to the first task's row, whichever place it has.
    for _ in range(3):
        term.press("up")
    rows = [term.row(y) for y in range(3, term.lines - 1)]
    task_rows = [r for r in rows if first in r or second in r]
    if first not in task_rows[0]:
        term.press("down")
    read(term)
    term.press("enter")
    shows_only(term, "f3")
    term.wait_for(f"task {first}…", task_right(term))
    term.wait_for("echo: echo first", task_right(term), flow=True)
    return first


def _each_view_key_shows_its_own_view_and_nothing_of_the_last(term: Terminal, shown: str) -> str:
    task = _send_and_see(term, "echo the views", shown)
    term.wait_for(re.compile(r"▸ completed"), body(term))
    for key in ROUND * 2:
        read(term)
        show_view(term, key)
    return task


def _age(term: Terminal, task: str) -> str | None:
    match = term.find(re.compile(rf"{task}… +(\S+)"), body(term))
    return match.group(1) if match else None


def _a_tasks_row_follows_its_task_to_its_end(screen_agent: Any, term: Terminal, shown: str) -> None:
    one = _send_and_see(term, "echo one", shown)
    term.wait_for(re.compile(r"▸ completed"), body(term))
    # A follow-up, answered with a new task that waits at a gate.
    send(term, "held two")
    term.wait_until(lambda: screen_agent.held("held") == 1, "the agent to hold the second task")
    held = _task_id_prefix(term, other_than=one)
    show_view(term, "f4")
    row = re.compile(rf"working +{held}…")
    term.wait_for(row, body(term))
    # The running task's age ticks on the screen.
    age = _age(term, held)
    term.wait_until(lambda: _age(term, held) not in (None, age), "the running task's age to tick")
    read(term)
    screen_agent.release("held")
    # The row moves on to completed while the tasks view stays on screen.
    term.wait_for(re.compile(rf"completed +{held}…"), body(term))
    term.wait_gone(row, body(term))
    assert term.find(VIEWS["f4"], body(term))
    # Again, with the task ending while the task view is on screen: the tasks
    # view, uncovered, shows where it is now.
    read(term)
    show_view(term, "f3")
    send(term, "held three")
    term.wait_until(lambda: screen_agent.held("held") == 1, "the agent to hold the third task")
    third = _task_id_prefix(term, other_than=held)
    read(term)
    screen_agent.release("held")
    term.wait_for(re.compile(r"▸ completed"), body(term))
    read(term)
    show_view(term, "f4")
    term.wait_for(re.compile(rf"completed +{third}…"), body(term))
    assert not term.find(re.compile(r"working +[0-9a-f]{8}…"), body(term)), term.dump()
