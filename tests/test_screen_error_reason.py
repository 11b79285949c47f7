"""Screen test: an HTTP error's toast and the error list (ctrl+e) say what the error
body says went wrong (issue 27 item 6a), literally and bounded, as a person sees them:
the installed app in a pseudo-terminal (tests/terminal.py) against tests/failing_agent.py.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from failing_agent import LEAKS, build_app
from inspector.serving.runner import BackgroundServer
from screen_app import inspector, quit_app, send
from terminal import Terminal

#: The top edge of a modal screen (the error list).
MODAL_TOP = "█▀▀▀▀▀▀▀▀▀▀"


@pytest.fixture(scope="module")
def agent() -> Iterator[str]:
    with BackgroundServer(build_app()) as srv:
        yield f"{srv.url}/by-text"


def no_leaks(term: Terminal) -> None:
    raw = bytes(term.raw)
    assert not [leak for leak in LEAKS if leak in raw], "the body's escapes reached the terminal"


def toasts(term: Terminal) -> str:
    """The toasts' text, their lines joined (a toast wraps its message): the column
    from the toasts' left edge to the screen's right."""
    for y in range(term.lines):
        at = term.row(y).find("(ctrl+e: details)")
        if at >= 0:
            return term.region(3, at, term.lines - 1, term.cols - 1)
    return ""


def wait_toast(term: Terminal, text: str) -> None:
    term.wait_until(lambda: text in " ".join(toasts(term).split()), f"a toast saying {text!r}")


def test_the_toast_and_the_error_list_say_why(agent: str) -> None:
    with inspector(agent, (140, 45)) as term:
        send(term, "error-string")
        wait_toast(term, "HTTP 500 Internal Server Error (JSON, 26 B): database down")
        send(term, "hostile")
        # Literal: the markup as typed, the escapes as text; bounded: a few lines of a
        # toast, not a megabyte of x.
        wait_toast(term, "(JSON, 1.0 MiB): [bold red]boom[/] \\x1b]0;pwned\\x07 \\x1b[2J \\u202egnp.exe xxx")
        assert term.text().count("x") < 400, term.dump()
        term.press("ctrl+e")
        term.wait_for(MODAL_TOP)
        term.wait_for("HTTP 500 Internal Server Error (JSON, 26 B): database down")
        term.wait_for("HTTP 500 Internal Server Error (JSON, 1.0 MiB): [bold red]boom[/] \\x1b]0;pwned\\x07")
        term.wait_for("x…")  # the excerpt's end: cut, and said to be
        # The list's excerpt (~240 characters) and the toasts' behind it; a megabyte
        # would fill the screen.
        assert term.text().count("x") < 800, term.dump()
        term.press("escape")
        term.wait_gone(MODAL_TOP)
        no_leaks(term)
        quit_app(term)
        no_leaks(term)
