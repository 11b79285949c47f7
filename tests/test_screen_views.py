"""Screen tests: the view keys (F2-F6) and the tasks view, as the terminal shows them.

Each view key shows its own view and nothing of the one before, every time (the first
time a view is shown it mounts; after that it is only uncovered, and that must paint
too). The tasks view opens a task with enter, and its rows follow their tasks.
"""

from __future__ import annotations

import re

from screen_app import VIEWS, body, inspector, quit_app, read, send, show_view, shows_only, sizes, task_right
from terminal import Terminal

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
def test_each_view_key_shows_its_own_view_and_nothing_of_the_last(screen_agent, size) -> None:
    with inspector(screen_agent.url, size) as term:
        send(term, "echo the views")
        term.wait_for(re.compile(r"▸ completed"), body(term))
        for key in ROUND * 2:
            read(term)
            show_view(term, key)
        quit_app(term)


@sizes()
def test_enter_on_a_row_of_the_tasks_view_opens_that_task(screen_agent, size) -> None:
    with inspector(screen_agent.url, size) as term:
        send(term, "echo first")
        term.wait_for("echo: echo first", task_right(term), flow=True)
        first = _task_id_prefix(term)
        send(term, "echo second")
        term.wait_for("echo: echo second", task_right(term), flow=True)
        second = _task_id_prefix(term, other_than=first)
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
        quit_app(term)


def _age(term: Terminal, task: str) -> str | None:
    match = term.find(re.compile(rf"{task}… +(\S+)"), body(term))
    return match.group(1) if match else None


@sizes()
def test_a_tasks_row_follows_its_task_to_its_end(screen_agent, size) -> None:
    with inspector(screen_agent.url, size) as term:
        send(term, "echo one")
        term.wait_for(re.compile(r"▸ completed"), body(term))
        one = _task_id_prefix(term)
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
        quit_app(term)
