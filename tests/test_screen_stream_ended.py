"""Screen test: a stream that died on a JSON-RPC error, as the terminal shows it (issue
28, item 6): the task view says the stream ended, with the error, its working time no
longer runs (no ``…``), and the tasks list (F4) says so where ``g`` gets the task back.

At 140x45 and 80x24 against tests/screen_agent.yaml (its ``error`` rule: working, then
-32603 in the stream)."""

from __future__ import annotations

import re

from screen_app import body, inspector, quit_app, send, show_view, sizes


@sizes()
def test_a_stream_ended_by_an_error_says_so_and_g_gets_the_task(screen_agent, size) -> None:
    with inspector(screen_agent.url, size) as term:
        send(term, "error please")
        term.wait_for("stream ended: error -32603", body(term))
        term.wait_for("g: get it", body(term), flow=True)
        # Nothing follows the task now: its working time has stopped (a live one ends in …).
        term.wait_for(re.compile(r"▸ working"), body(term))
        assert term.find(re.compile(r"▸ working.*…"), body(term)) is None, term.dump()
        show_view(term, "f4")
        term.wait_for("working · ended on error -32603", body(term))
        term.type("g")
        term.wait_gone("ended on error", body(term))
        term.wait_for(re.compile(r"working"), body(term))
        quit_app(term)
