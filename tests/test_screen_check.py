"""Screen test: the Check view as the terminal shows it. F7 runs the probes against the
agent, the list shows the failure first with the rule quoted below it, and enter opens
the exchange that shows the failure in the traffic view."""

from __future__ import annotations

import re
from pathlib import Path

from mock_agent import MockAgent
from screen_app import bar, body, quit_app, read, sizes
from terminal import Terminal

NO_FINAL = Path(__file__).parent / "fixtures" / "check" / "stream-no-final.yaml"


@sizes()
def test_f7_checks_the_agent_and_enter_opens_the_failure(size) -> None:
    with MockAgent(str(NO_FINAL)) as mock, \
            Terminal.app([mock.base_url, "--binding", "jsonrpc"], size=size) as term:
        term.wait_for("● ready", region=bar(term))
        term.press("f7")
        term.wait_for(re.compile(r"1 failed, \d+ skipped, \d+ passed"), flow=True)
        # Failures first, the cursor on the first: its rule is quoted below the list.
        term.wait_for(re.compile(r"✗ +messages\.stream-text +jsonrpc"))
        term.wait_for("The stream should complete when the Task", flow=True)
        read(term)
        term.press("enter")
        term.wait_gone("Check of")
        # The traffic view, its cursor on the event that showed the failure: the end of
        # the stream that stopped with the task working.
        term.wait_for(re.compile(r"end +exchange \d+"), body(term))
        term.wait_for("reason: eof", body(term))
        quit_app(term)
