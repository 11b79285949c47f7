"""Screen tests: an agent's text never drives the terminal (issue 25).

The agent (tests/escape_agent.py) puts markup, OSC 0/8/52, CSI, C1 and bidi controls in
every field it sends. Each test walks the views that show those fields in the real app
in a pseudo-terminal (tests/terminal.py), then judges two things:

- the bytes the app wrote to the terminal never hold the agent's sequences (Textual's
  own escapes are allowed: what is looked for is the agent's payload, see
  ``escape_agent.LEAKS``), so no terminal ever runs them;
- the screen shows the text literally: ``\\x1b]52;c;ZXZpbA==`` and ``[bold red]x[/]``
  as characters, so the test fails just as well when a view hides what the agent sent.

The last check of each test is that ctrl+q still ends the app with 0: an agent's text
that crashes it (markup Textual cannot parse) fails the test too.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterator

import pytest

import escape_agent as ea
from inspector.serving.runner import BackgroundServer
from inspector.textsafe import visible
from terminal import Terminal

WIDE = (140, 45)
#: Lines of a pane read for one field: its text wraps over a few of them.
FIELD_ROWS = 12
#: Characters that draw panes, borders, scrollbars and bars (box drawing, blocks).
_DRAWING = re.compile(r"[\s\u2500-\u259f]")
#: The ones that stand between two panes side by side.
_EDGES = "│┃║▌▐▊▎▏█"
#: The top edge of a modal screen (the error list).
MODAL_TOP = "█▀▀▀▀▀▀▀▀▀▀"


@pytest.fixture(scope="module")
def agent() -> Iterator[str]:
    with BackgroundServer(ea.build_app()) as srv:
        yield srv.url


# ----------------------------------------------------------------- what should show


def literal(tag: str, upto: str | None = None) -> str:
    """The field ``tag`` as a view shows it: the agent's text with its control
    characters made visible. ``upto``: only as far as that part of the payload (a view
    that cuts the field short shows only its start)."""
    text = ea.hostile(tag)
    if upto is not None:
        text = text[: text.index(upto) + len(upto)]
    return visible(text)


def as_json(tag: str, upto: str | None = None) -> str:
    """The field as a JSON view shows it: a JSON string (C0 controls as ``\\u001b``)
    with the rest made visible."""
    text = ea.hostile(tag)
    if upto is not None:
        text = text[: text.index(upto) + len(upto)]
    return visible(json.dumps(text, ensure_ascii=False)[1:-1])


def head(tag: str) -> str:
    """The start every field cut short still shows: the title escape, the tag, the
    markup and the OSC 52, all as text."""
    return literal(tag, ea.OSC52)


def short(tag: str) -> str:
    """What a narrow column shows of the field: the title escape and the tag."""
    return visible(ea.TITLE + tag)


def _flat(text: str) -> str:
    return _DRAWING.sub("", text)


def _pane_text(term: Terminal, row: int, col: int) -> str:
    """The text of the pane around (row, col), read down from that row with the lines
    joined and the spaces and drawing left out: a field that wraps reads as one line."""
    lines = term.text().split("\n")
    line = lines[row].ljust(term.cols)
    left = max((line.rfind(edge, 0, col) for edge in _EDGES), default=-1) + 1
    rights = [i for i in (line.find(edge, col) for edge in _EDGES) if i >= 0]
    right = min(rights, default=term.cols)
    return "".join(_flat(lines[y].ljust(term.cols)[left:right]) for y in range(row, min(row + FIELD_ROWS, len(lines))))


def _float_text(term: Terminal, row: int, col: int) -> str:
    """The text of a box without edges (a tooltip) whose lines start at ``col``: each
    line up to the first gap of two spaces."""
    lines = term.text().split("\n")
    return "".join(_flat(lines[y][col:].split("  ")[0]) for y in range(row, min(row + FIELD_ROWS, len(lines))))


def shows(term: Terminal, tag: str, expected: str, floating: bool = False) -> bool:
    """Whether the screen shows ``expected`` (field ``tag``'s text as a view shows it),
    possibly wrapped over several lines of its pane (``floating``: of a tooltip)."""
    want = _flat(expected)
    start = expected.find(tag)
    for row, line in enumerate(term.text().split("\n")):
        for found in re.finditer(re.escape(tag), line):
            text = (
                _float_text(term, row, max(0, found.start() - start))
                if floating
                else _pane_text(term, row, found.start())
            )
            if want in text:
                return True
    return False


def wait_shown(term: Terminal, tag: str, expected: str | None = None, floating: bool = False) -> None:
    expected = literal(tag) if expected is None else expected
    term.wait_until(
        lambda: shows(term, tag, expected, floating), f"{ea.TAGS.get(tag, tag)} ({tag}) shown as {expected!r}"
    )


BACK = {"pagedown": "pageup", "down": "up"}


def seek(term: Terminal, tag: str, expected: str | None = None, key: str = "pagedown", presses: int = 6) -> None:
    """Scroll (``key``) until the screen shows field ``tag``.

    Each press waits for the app to answer it (it writes) and go quiet before the screen
    is read, so a slow app is not pressed past the field; if it was all the same (an
    answer can come in two writes more than 0.3 s apart on a busy machine), the way back
    finds it."""
    expected = literal(tag) if expected is None else expected
    for way, count in ((key, presses), (BACK[key], 2 * presses)):
        for _ in range(count):
            term.wait_quiet(0.3)
            if shows(term, tag, expected):
                return
            written = len(term.raw)
            term.press(way)
            with contextlib.suppress(AssertionError):  # nothing written: at the end, the screen is as it was
                term.wait_until(lambda written=written: len(term.raw) > written, f"an answer to {way}", timeout=3)
    wait_shown(term, tag, expected)


def wheel_to(term: Terminal, tag: str, expected: str, at: tuple[int, int], turns: int = 12) -> None:
    """Turn the mouse wheel up over the pane at ``at`` (column, line) until the screen
    shows field ``tag``; each turn waits for the app to answer and go quiet, as ``seek``."""
    column, line = at
    for _ in range(turns):
        term.wait_quiet(0.3)
        if shows(term, tag, expected):
            return
        written = len(term.raw)
        term.write(f"\x1b[<64;{column + 1};{line + 1}M".encode())  # SGR mouse: wheel up
        with contextlib.suppress(AssertionError):  # nothing written: at the top already
            term.wait_until(lambda written=written: len(term.raw) > written, "an answer to the wheel", timeout=3)
    wait_shown(term, tag, expected)


def no_leaks(term: Terminal) -> None:
    """The terminal never got the agent's sequences."""
    raw = bytes(term.raw)
    leaks = []
    for what, payload in ea.LEAKS.items():
        at = raw.find(payload)
        if at >= 0:
            tags = sorted(set(re.findall(rb"[A-Z]{2}(?=\[bold)", raw[max(0, at - 60) : at + 60])))
            leaks.append(f"{what} (near {b', '.join(tags).decode() or '?'}): {raw[max(0, at - 60) : at + 60]!r}")
    link = re.search(ea.LINK_LEAK, raw)
    if link:
        leaks.append(f"markup made a hyperlink: {raw[max(0, link.start() - 60) : link.end() + 20]!r}")
    assert not leaks, "the agent's text reached the terminal as escapes:\n" + "\n".join(leaks)


def quit_cleanly(term: Terminal) -> None:
    no_leaks(term)
    term.press("ctrl+q")
    assert term.wait_exit() == 0, term.dump()
    assert term.restored() == []
    no_leaks(term)


def ready(term: Terminal) -> None:
    term.wait_for("● ready", region=term.rows(0, 1))


def send(term: Terminal, text: str, *, stream: bool) -> None:
    """Type a message in the composer (F3) and send it; the composer starts in stream
    mode for this agent (its card says it streams)."""
    term.press("f3")
    term.wait_for("message metadata")  # the composer is on screen
    mode = "⇶ stream" if stream else "→ send"
    if not term.find(mode):
        term.press("ctrl+t")
        term.wait_for(mode)
    term.type(text)
    term.wait_for(f"text {len(text)} chars")
    term.press("ctrl+s")


# ----------------------------------------------------------------- the tests


def test_card_bar_sidebar_and_what_they_lead_to(agent: str) -> None:
    with Terminal.app([agent], size=WIDE) as term:
        ready(term)
        # The bar and the sidebar: the card's name, cut short.
        term.wait_until(lambda: _flat(literal("NM")[:27]) in _flat(term.row(0)), "the name in the bar")
        wait_shown(term, "NM", literal("NM")[:18])

        term.press("f2")
        for tag in ("DS", "VR", "DU", "IC", "PO", "PU"):
            wait_shown(term, tag)
        wait_shown(term, "NM", head("NM"))  # the summary line
        wait_shown(term, "EX", literal("EX", ea.BIDI))  # a list: each item cut at 80
        # Further down: security, modes, interfaces, skills. The labels' column and a
        # skill's id show only the start (short); lists cut each item at 80, the security
        # line at 400, a skill's name at 60.
        # SS names a scheme of an unknown type: a finding's path holds the name.
        for tag, expected in (
            ("SN", short("SN")),
            ("SH", literal("SH")),
            ("SD", literal("SD", ea.OSC8)),
            ("SS", literal("SS", ea.CLICK)),
            ("ST", literal("ST")),
            ("IM", literal("IM", ea.BIDI)),
            ("PF", literal("PF")),
            ("IT", short("IT")),
            ("IU", literal("IU")),
            ("SK", head("SK")),
            ("SI", short("SI")),
            ("SX", literal("SX")),
            ("TG", literal("TG", ea.BIDI)),
            ("EG", literal("EG")),
        ):
            seek(term, tag, expected)
        # A lint finding quotes the agent's value: visible there too.
        term.wait_for("[unknown-protocol-binding]")

        term.type("j")  # the raw JSON
        wait_shown(term, "NM", as_json("NM"))
        wait_shown(term, "DS", as_json("DS"))
        term.type("j")

        # The binding's tooltip says which interface was skipped: the agent's
        # preferredTransport, as text (Textual parses a str tooltip as markup).
        label = term.wait_for("JSON-RPC ▾", region=term.rows(0, 1))
        term.write(f"\x1b[<35;{label.start() + 2};1M".encode())  # the mouse moves onto it
        term.wait_for("skipped")
        wait_shown(term, "PF", literal("PF", ea.CLICK), floating=True)
        term.write(f"\x1b[<35;{label.start() + 2};20M".encode())
        term.wait_gone("skipped")

        # Saving the agent: the card's security scheme is what the form offers.
        term.press("ctrl+b")
        term.wait_for("s Save", region=term.rows(-1, 45))  # the sidebar has the keys
        term.type("s")
        term.wait_for("Save the active agent")
        wait_shown(term, "SN", head("SN"))  # "the card asks for: ..."
        wait_shown(term, "SH", head("SH"))  # the header field
        term.press("escape")
        term.wait_gone("Save the active agent")

        # A skill's example fills the composer: the text box shows it literally too.
        term.press("f2")
        term.press("down", "enter")
        term.wait_for(f"text {len(literal('EG'))} chars")  # in the composer, as shown
        term.press("up", "up", "up", "up")  # the cursor was at the end: back to the top
        wait_shown(term, "EG", head("EG"))
        quit_cleanly(term)


def test_a_task_and_its_artifacts_tasks_traffic_palette_and_push(agent: str) -> None:
    with Terminal.app([agent], size=WIDE) as term:
        ready(term)
        send(term, "hello", stream=False)
        # The conversation, the task's head (its id), the artifact and its parts.
        wait_shown(term, "SM")
        term.wait_for(visible(ea.TITLE)[:7], region=term.rows(3, 4))  # "task \x1b]0;…"
        term.press("tab", "tab")
        term.wait_for("f Next file")  # the artifacts have the keys
        term.press("home")
        for tag in ("AN", "AI", "AD"):
            wait_shown(term, tag)
        seek(term, "AT", key="down", presses=20)  # below the task's metadata rows, which come first
        term.type("f")  # the first file part, and its neighbours
        wait_shown(term, "FN", literal("FN", "[bold"))  # the rest of its line: "s: save"
        wait_shown(term, "FM")
        seek(term, "FU")
        term.type("s")  # save it: the dialog names the file
        term.wait_for("Save file part")
        wait_shown(term, "FN")
        term.press("escape")
        term.wait_gone("Save file part")
        term.press("end")
        for tag in ("DK", "DV", "DL"):
            wait_shown(term, tag, as_json(tag))

        # The tasks list: the agent's name and the task id, cut short.
        term.press("f4")
        term.wait_for("violations")
        term.wait_for(f"{literal('NM')[:17]}…  completed  {visible(ea.TITLE)[:8]}…", region=term.rows(5, 6))

        # The palette offers to get the selected task, naming it (Textual reads a
        # command's help as markup).
        term.press("ctrl+p")
        term.type("get the selected")
        wait_shown(term, "TI", literal("TI", ea.CLICK))
        term.press("escape")
        term.wait_gone("the agent's view of it")

        # The traffic: the response's row, and its body in the detail.
        term.press("f5")
        term.wait_for(f"200 task {visible(ea.hostile('TI')[:8])}… completed: {visible(ea.TITLE)[:7]}…")
        term.wait_for("decoded: Task (completed)")
        for tag in ("TI", "CX"):
            wait_shown(term, tag, as_json(tag, ea.BIDI))

        # Push: the receiver registered for the task; the agent pushes a task of its own.
        term.press("f6")
        term.wait_for("receiver stopped")
        term.type("r")
        term.wait_for("1 received")
        wait_shown(term, "TI", literal("TI", ea.CLICK))  # "the agent will push task ..."
        # The row: the pushed task's id (cut at 8), and the end of the path it was posted
        # to, decoded: the receiver's URL for the task it was registered for.
        term.wait_for(f"{visible(ea.TITLE)[:8]}…  completed")
        term.wait_for(literal("TI")[-30:], region=term.rows(6, 12))
        quit_cleanly(term)


def test_a_streamed_task_its_events_and_two_tasks_side_by_side(agent: str) -> None:
    with Terminal.app([agent], size=WIDE) as term:
        ready(term)
        # A task first (sent: it goes beside the streamed one at the end).
        send(term, "hello", stream=False)
        wait_shown(term, "SM")
        send(term, "hello", stream=True)
        for tag in ("WM", "DM", "CN"):
            wait_shown(term, tag)
        # The artifact came in two chunks cut inside its OSC 52: whole, then shown.
        wait_shown(term, "CK")
        term.press("tab", "tab")
        term.wait_for("f Next file")
        term.type("t")  # the chunk table: one row per chunk, named by the artifact's id
        term.wait_for("# artifact")
        term.wait_until(lambda: len(re.findall(re.escape(short("CI") + "[…"), term.text())) == 2, "two chunk rows")

        # The traffic: the last chunk's event, whose text starts inside the OSC 52.
        term.press("f5")
        term.wait_for("stream complete after 5 events")
        term.press("up", "up")
        term.wait_for("decoded: TaskArtifactUpdateEvent")
        term.press("tab", "pagedown")  # the detail has the keys, and shows the parts
        rest = visible(json.dumps(ea.STREAMED_ARTIFACT[ea.SPLIT_AT :], ensure_ascii=False))
        term.wait_for(f'"text": {rest[:60]}')

        # The two tasks side by side (F4, up to the first, b): the first one beside the
        # streamed one, its two messages whole in the narrow column.
        term.press("f4")
        term.wait_until(lambda: term.text().count(f"completed  {visible(ea.TITLE)[:8]}…") == 2, "the two tasks' rows")
        term.wait_quiet(0.3)  # the list has put its cursor on the open task: up goes from there
        term.press("up")
        term.type("b")  # in the same read as up: b acts on the row up moved to
        term.wait_until(lambda: len(re.findall("completed    failed", term.text())) == 2, "two state diagrams")
        wait_shown(term, "SM")
        quit_cleanly(term)


def test_errors_toasts_and_the_error_list(agent: str) -> None:
    with Terminal.app([agent], size=WIDE) as term:
        ready(term)
        # An HTTP 500 with a text body: the toast, and the body in the traffic detail
        # (first, while the one toast leaves the body's line free).
        send(term, "crash", stream=False)
        term.wait_for("HTTP 500 Internal Server Error (text")
        term.press("f5")
        term.wait_for("← resp     2 send         500")
        term.press("up")
        term.wait_for("status: 500")
        wait_shown(term, "HB", literal("HB", ea.CLICK))

        # A failed task action: its title names the task (its first 8 characters).
        send(term, "hello", stream=False)
        wait_shown(term, "SM")
        term.press("f4")
        term.wait_for("violations")
        term.type("g")
        failed = f"get {visible(ea.hostile('TI')[:8], single_line=True)} failed"
        term.wait_for(failed)  # the toast's title
        # A JSON-RPC error: its message in the toast.
        send(term, "boom", stream=False)
        wait_shown(term, "ER", literal("ER", ea.BIDI))

        # The error list: each in full, the error's data as JSON.
        term.press("ctrl+e")
        term.wait_for(MODAL_TOP)
        wait_shown(term, "ER")
        wait_shown(term, "ED", as_json("ED"))
        term.wait_for(re.compile(r"\d\d  " + re.escape(failed)))  # the list's, after its time
        term.press("escape")
        term.wait_gone(MODAL_TOP)
        quit_cleanly(term)


def test_at_80x24(agent: str) -> None:
    # The classic terminal: no sidebar, one-line state diagram, narrower columns.
    with Terminal.app([agent], size=(80, 24)) as term:
        ready(term)
        term.wait_for(visible(ea.TITLE) + "NM", region=term.rows(0, 1))
        term.press("f2")
        wait_shown(term, "DS")
        send(term, "hello", stream=True)
        # The stream's events come at once, and the short conversation shows its end: once
        # the task has completed, the working status (WM) is above it. The wheel scrolls
        # up to it (waiting for it to show while it streams raced: under load the app
        # painted the end at once).
        wait_shown(term, "DM", head("DM"))
        wheel_to(term, "WM", head("WM"), at=(5, 8))
        term.press("f4")
        term.wait_for(f"completed  {visible(ea.TITLE)[:8]}…")
        term.press("f5")
        term.wait_for("events: 5")  # the stream's end, selected
        term.wait_for(f"task {visible(ea.TITLE)[:7]}")  # the events' rows, cut short
        quit_cleanly(term)
