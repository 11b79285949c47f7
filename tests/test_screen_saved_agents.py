"""Screen test (issue 28 item 7): a saved agent keeps what the person chose, as they see
it. Save the open agent after switching it to REST (shift+F8): the sidebar and the bar
keep its name instead of showing host:port; in a new run, ``e`` edits it with every
field filled in (REST among them), the new name is listed, and opening it talks REST.
The real app in a pty, read through a VT emulator (tests/terminal.py)."""

from __future__ import annotations

from screen_app import NAME, bar, inspector, quit_app, read
from terminal import Terminal


def active_row(term: Terminal) -> str:
    """The sidebar's line naming the active connection (the URL is on the next one)."""
    return next(term.row(y)[:30] for y in range(term.lines) if "▶ " in term.row(y)[:30])


def test_save_reopen_and_edit_keep_the_name_and_the_binding(screen_agent) -> None:
    host = screen_agent.url.split("//")[1].rstrip("/")
    with inspector(screen_agent.url, (140, 45)) as term:
        term.press("shift+f8")
        term.wait_for("HTTP+JSON/REST")
        term.press("down", "down", "enter")  # auto, jsonrpc, [rest]
        term.wait_for("REST ▾", bar(term))
        term.press("ctrl+b")
        term.wait_for("s Save", term.rows(-1, term.lines))
        term.type("s")
        term.wait_for("Save the active agent")
        term.wait_for(NAME)
        term.press("ctrl+s")
        term.wait_for(f"{NAME} (open)")
        read(term)
        shown = active_row(term)
        assert NAME in shown and host not in shown, term.dump()
        assert f"● ready  {NAME}  http://{host}/" in term.region(*bar(term)), term.dump()
        quit_app(term)

    with Terminal.app([], size=(140, 45)) as term:
        term.wait_for("SAVED (1)")
        term.press("ctrl+b")
        term.wait_for("e Edit", term.rows(-1, term.lines))
        term.press("down")
        term.type("e")
        term.wait_for(f"Edit {NAME}")
        term.wait_for("binding")
        form = term.text()
        assert "rest" in next(line for line in form.splitlines() if "binding" in line), term.dump()
        assert screen_agent.url in form, term.dump()
        term.press("end")
        term.type(" two")
        term.wait_for(f"{NAME} two")
        term.press("ctrl+s")
        term.wait_gone(f"Edit {NAME}")
        term.wait_for(f"{NAME} two")
        term.press("enter")
        term.wait_for("● ready", bar(term))
        term.wait_for("REST ▾", bar(term))
        term.wait_for(f"{NAME} two (open)")
        quit_app(term)
