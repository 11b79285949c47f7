"""Screen test: a binding or dialect the card does not list is a guess, and the TUI
says so (issue 27 item 6b): a toast when the connection is made or switched, and the
binding (shift+F8) and dialect (F8) menus name what the card lists. The app runs in a
pseudo-terminal (tests/terminal.py) against a2a-mock speaking 0.3, whose card lists
JSON-RPC and HTTP+JSON and no gRPC.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from mock_agent import MockAgent
from screen_app import bar, quit_app, send
from terminal import Terminal


@pytest.fixture(scope="module")
def agent() -> Iterator[str]:
    with MockAgent("echo", dialect="0.3") as mock:
        yield mock.url.rstrip("/")


def toast_text(term: Terminal, end: str) -> str:
    """The toasts' text, lines joined, read from the column of the toast line ``end``."""
    for y in range(term.lines):
        at = term.row(y).find(end)
        if at >= 0:
            return " ".join(term.region(3, at, term.lines - 1, term.cols - 1).split())
    return ""


def menu_text(term: Terminal, start: str) -> str:
    """The menu's paragraph that begins with ``start``, its lines joined: each line from
    that column to the box's edge, down to the blank line that ends it."""
    lines = term.text().split("\n")
    for y, line in enumerate(lines):
        at = line.find(start)
        if at >= 0:
            parts = []
            for below in lines[y:]:
                piece = below[at:].split("█")[0].strip()
                if not piece:
                    break
                parts.append(piece)
            return " ".join(parts)
    return ""


def wait_toast(term: Terminal, end: str, text: str) -> None:
    term.wait_until(lambda: text in toast_text(term, end), f"a toast saying {text!r}")


def test_a_binding_or_dialect_the_card_does_not_list_is_said(agent: str) -> None:
    listed = f"JSONRPC 0.3 at {agent}/, HTTP+JSON 0.3 at {agent}/rest"
    with Terminal.app([agent, "--binding", "grpc"], size=(140, 45)) as term:
        term.wait_for("● ready", region=bar(term))
        wait_toast(
            term,
            "(shift+F8: choose one it lists)",
            f"binding not in the card the card lists no gRPC interface for 0.2/0.3 (it lists: {listed}); "
            f"trying {agent} anyway",
        )
        term.press("shift+f8")
        term.wait_for("Switch binding")
        term.wait_until(
            lambda: (
                menu_text(term, "the card lists:") == f"the card lists: {listed}; a binding it does not list is a guess"
            ),
            "the menu naming the card's interfaces",
        )
        term.press("escape")
        term.wait_gone("Switch binding")
        # The dialect menu says the same, and a dialect the card does not list is a guess.
        term.press("f8")
        term.wait_for("Switch dialect")
        term.wait_for(re.compile(r"the card lists: JSONRPC 0\.3 at"))
        term.wait_for(re.compile(r"● auto"))  # asked for, and highlighted: the top of the menu
        term.press("down", "down", "down")  # 0.1, 0.3, 1.0
        term.press("enter")
        term.wait_gone("Switch dialect")
        term.wait_for("dialect 1.0 ▾ (user)", region=bar(term))
        wait_toast(
            term,
            "(F8: choose one it lists)",
            f"dialect not in the card the card lists no 1.0 interface (it lists: {listed}); trying {agent} anyway",
        )
        # The guess fails (gRPC to an HTTP/1.1 port): the error list names the likely cause.
        send(term, "hello")
        term.wait_for("(ctrl+e: details)")
        term.press("ctrl+e")
        term.wait_for(f"the card lists no 1.0 interface, so {agent} was a guess: F8 chooses one it lists")
        term.press("escape")
        term.wait_gone("was a guess")
        quit_app(term)
