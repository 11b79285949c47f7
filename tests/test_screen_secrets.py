"""Screen test: a saved agent's bearer token is never on the screen until asked for.

The traffic detail shows a request's headers; the Authorization header reads
``Bearer ••••••`` and the last few characters of the token, until ``v`` shows it, and
the same key masks it again. Judged where a person sees it: the real app in a pty,
read through a VT emulator (tests/terminal.py).
"""

from __future__ import annotations

import re

from inspector import store
from screen_app import NAME, body, quit_app, show_view
from terminal import Terminal

TOKEN = "SCREEN-bearer-t0ken-000042"


def test_a_bearer_token_is_masked_until_v_shows_it(screen_agent) -> None:
    store.AgentStore(store.config_dir() / "agents.json").add(
        store.SavedAgent(name=NAME, url=screen_agent.url, auth="bearer", secret=TOKEN)
    )
    with Terminal.app([], size=(140, 45)) as term:
        term.wait_for("SAVED (1)")
        term.wait_for(NAME)
        # The agents list takes the keys (its own in the footer); down to the saved agent.
        term.press("ctrl+b")
        term.wait_for("a Add", term.rows(-1, term.lines))
        term.press("down")
        term.press("enter")
        term.wait_for("● ready", region=term.rows(0, 1))
        show_view(term, "f5")
        # The first event (the card's GET, sent with the token), in full, scrolled to its
        # headers.
        term.press("home")
        term.wait_for(re.compile(r"→ req +1 "), body(term))
        term.press("enter")
        term.wait_for("headers", body(term))
        term.press("end")
        term.wait_for("Authorization: Bearer ••••••0042", body(term))
        assert TOKEN[:-4] not in term.text(), term.dump()
        term.type("v")
        term.wait_for(f"Authorization: Bearer {TOKEN}", body(term))
        term.type("v")
        term.wait_for("Authorization: Bearer ••••••0042", body(term))
        term.wait_gone(TOKEN[:-4])
        quit_app(term)
