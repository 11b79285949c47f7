"""Screen tests: the task view (F3) through a task's life, as the terminal shows it.

The flows run one after the other in one run of the app, at 140x45 and at 80x24,
against tests/screen_agent.yaml, and end with ctrl+q: exit 0, terminal restored. Among
them, a stream that died on a JSON-RPC error (issue 28, item 6): the task view says the
stream ended, with the error, its working time no longer runs, and the tasks list (F4)
says so where ``g`` gets the task back.
"""

from __future__ import annotations

import re

from inspector.ui.app import ERROR_TOAST_SECONDS
from screen_app import bar, body, inspector, quit_app, read, send, show_view, sizes, task_right
from terminal import Terminal, step

STORY_START = "The lighthouse keeper counted ships."
STORY_END = "and lost count at the comet."
#: The composer, ready for a new task: where each flow starts.
NEW_TASK = re.compile(r"(⇶ stream|→ send)  new task")


def _held(mock: object, gate: str, term: Terminal) -> None:
    term.wait_until(lambda: mock.held(gate) == 1, f"the agent to wait at gate {gate!r}")  # type: ignore[attr-defined]


@sizes()
def test_a_task_s_life_stream_input_required_and_errors(screen_agent, size) -> None:
    """One run of the app walks five flows, each from the composer of a new task: a
    stream shown live and to its end, an input-required turn answered, an error whose
    toast leaves the screen when it expires under the traffic view, that stream's task
    in the task and tasks views (it ended on the error), and an error shown whole with
    ctrl+e."""
    with inspector(screen_agent.url, size) as term:
        with step("a stream is shown live and to its end"):
            _a_stream_is_shown_live_and_to_its_end(screen_agent, term)
        with step("an input-required turn is answered from the composer"):
            _an_input_required_turn_is_answered_from_the_composer(term)
        with step("a toast leaves the screen when it expires under another view"):
            _a_toast_leaves_the_screen_when_it_expires_under_another_view(term)
        with step("a stream ended by an error says so and g gets the task"):
            show_view(term, "f3")
            _a_stream_ended_by_an_error_says_so_and_g_gets_the_task(term)
        with step("an error shows a toast and ctrl+e shows it whole"):
            show_view(term, "f3")
            _an_error_shows_a_toast_and_ctrl_e_shows_it_whole(term)
        quit_app(term)


def _a_stream_is_shown_live_and_to_its_end(screen_agent: object, term: Terminal) -> None:
    send(term, "stream a story")
    _held(screen_agent, "story", term)
    # Live, halfway: the diagram is in working, the first chunks are on screen.
    term.wait_for(re.compile(r"▸ working"), body(term))
    term.wait_for(STORY_START, task_right(term), flow=True)
    if term.cols >= 100:  # the bar has room for the stream's spinner
        term.wait_for("streaming to", bar(term))
    read(term)
    screen_agent.release("story")  # type: ignore[attr-defined]
    # The end: completed in the diagram, the artifact's last text, the stream's
    # final message, and no spinner left in the bar.
    term.wait_for(re.compile(r"▸ completed"), body(term))
    term.wait_for(re.compile(r"4 chunks · 124 B · complete"), body(term))
    term.wait_for(
        STORY_START + " One night the sea was empty, so she counted stars instead, " + STORY_END,
        task_right(term),
        flow=True,
    )
    term.wait_for("The end.", body(term))
    term.wait_gone("streaming", bar(term))
    term.wait_for(NEW_TASK, body(term))


def _an_input_required_turn_is_answered_from_the_composer(term: Terminal) -> None:
    send(term, "ask me")
    term.wait_for("What should the story be about?", body(term))
    term.wait_for(re.compile(r"▸ input-required"), body(term))
    # The composer now continues the waiting task.
    term.wait_for(re.compile(r"↺ continues \S+"), body(term))
    send(term, "a comet")
    term.wait_for(re.compile(r"▸ completed"), body(term))
    term.wait_for("A very short story about a comet.", task_right(term), flow=True)
    term.wait_for(NEW_TASK, body(term))


def _a_toast_leaves_the_screen_when_it_expires_under_another_view(term: Terminal) -> None:
    # Textual 8.2.8 left an expired toast painted when a view had scrolled while it was
    # up (see InspectorApp.notify): the traffic list follows its newest row.
    send(term, "error please")
    term.wait_for("(ctrl+e: details)")
    term.press("f5")
    term.wait_for(re.compile(r"← resp +\d+ stream"), body(term))
    term.wait_gone("(ctrl+e: details)", timeout=ERROR_TOAST_SECONDS + 5)


def _a_stream_ended_by_an_error_says_so_and_g_gets_the_task(term: Terminal) -> None:
    # Issue 28, item 6: the stream of the task the last flow sent died on a JSON-RPC
    # error (the agent's ``error`` rule: working, then -32603 in the stream). The task
    # view says the stream ended, with the error, and its working time no longer runs
    # (a live one ends in …); the tasks list (F4) says so where ``g`` gets the task back.
    term.wait_for("stream ended: error -32603", body(term))
    term.wait_for("g: get it", body(term), flow=True)
    term.wait_for(re.compile(r"▸ working"), body(term))
    assert term.find(re.compile(r"▸ working.*…"), body(term)) is None, term.dump()
    show_view(term, "f4")
    term.wait_for("working · ended on error -32603", body(term))
    term.type("g")
    term.wait_gone("ended on error", body(term))
    term.wait_for(re.compile(r"working"), body(term))


def _an_error_shows_a_toast_and_ctrl_e_shows_it_whole(term: Terminal) -> None:
    send(term, "error please")
    term.wait_for("The agent failed on purpose.")
    term.press("ctrl+e")
    # The error in full: its code and its data, which the toast leaves out.
    term.wait_for("scripted by the screen tests")
    term.wait_for("-32603")
    term.press("escape")
    term.wait_gone("scripted by the screen tests")
    term.wait_for(NEW_TASK, body(term))
