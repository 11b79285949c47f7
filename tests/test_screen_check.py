"""Screen test: the Check view as the terminal shows it. F7 runs the probes against the
agent: a summary line counts the outcomes, the failure comes first with its rule
quoted below the list, skips are one folded line per reason (s unfolds them), o sets
the --ask text and runs again, and enter opens the exchange that shows the failure in
the traffic view."""

from __future__ import annotations

import re
from pathlib import Path

from mock_agent import MockAgent
from screen_app import bar, body, quit_app, read, sizes
from terminal import Terminal

#: Streams end without a final event (the one failure); "ask…" asks for input.
ASKING = Path(__file__).parent / "fixtures" / "check" / "no-final-asks-holds.yaml"


@sizes()
def test_f7_summary_failure_first_skips_grouped_options_and_enter_opens_the_failure(size) -> None:
    with MockAgent(str(ASKING)) as mock, Terminal.app([mock.base_url, "--binding", "jsonrpc"], size=size) as term:
        term.wait_for("● ready", region=bar(term))
        term.press("f7")
        term.wait_for(re.compile(r"· run 1 · 1\.0 · jsonrpc"))
        term.wait_for(re.compile(r"1 failed · \d+ passed · \d+ skipped \(\d+ reasons\)"))
        # Failures first, the cursor on the first: its rule is quoted below the list.
        failure = term.wait_for(re.compile(r"✗ messages\.stream-text  \[jsonrpc\]"))
        term.wait_for("The stream should complete when the Task", flow=True)
        # One folded line per reason; the probes it skipped are not listed yet.
        group = term.wait_for(re.compile(r"▶ – 1 skipped: the card does not declare an extended card"))
        term.wait_for(re.compile(r"▶ – 1 skipped: no --ask TEXT"))
        assert term.find(re.compile(r"card\.extended +\[jsonrpc\]")) is None
        assert term.text().find(failure.group(0)) < term.text().find(group.group(0))
        read(term)
        term.type("s")
        term.wait_for(re.compile(r"└── card\.extended  \[jsonrpc\]  the extended card"))
        read(term)
        term.type("s")
        term.wait_gone(re.compile(r"card\.extended  \[jsonrpc\]"))
        # o: the ask text, and two groups (the failure's and multi-turn's) of the seven;
        # ctrl+s: run 2, where the multi-turn probe runs (and passes).
        read(term)
        term.type("o")
        term.wait_for("Check options for")
        term.type("ask me")
        term.wait_for("ask me")
        term.press("tab", "tab")  # past the running text, to the groups: card first
        for key in ("space", "down", "down", "space", "down", "space", "down", "down", "space", "down", "space"):
            term.press(key)  # card, errors, tasks, push, bindings off
        term.press("ctrl+s")
        term.wait_for(re.compile(r"· run 2 · 1\.0 · jsonrpc"))
        term.wait_for("ask: 'ask me'")
        term.wait_for("groups: messages, multi-turn")
        term.wait_gone("no --ask TEXT")
        term.wait_for(re.compile(r"1 failed · \d+ passed"))
        read(term)
        term.press("enter")
        term.wait_gone("Check of")
        # The traffic view, its cursor on the event that showed the failure: the end of
        # the stream that stopped with the task working.
        term.wait_for(re.compile(r"end +exchange \d+"), body(term))
        term.wait_for("reason: eof", body(term))
        quit_app(term)
