"""Screen test: a stream cut at a limit, as a person sees it in a terminal
(tests/terminal.py).

The app takes no limit options, so the agent sends what its defaults cut: one SSE event
larger than the 16 MiB --max-event, after two small chunks of an open artifact. The task
view says the stream was cut and by which limit, the bar's spinner is gone, and the
running state's time no longer moves.
"""

from __future__ import annotations

import re
import time
from typing import Any

from inspector.client.limits import Limits
from inspector.protocol.sizes import MiB
from screen_app import bar, body, inspector, quit_app, send, task_right

WORDS = "an event larger than 16 MiB (--max-event)"
OVER = {
    "name": "over",
    "card": {"name": "Over Agent", "capabilities": {"streaming": True}},
    "rules": [
        {
            "script": [
                {"status": "working"},
                {"artifact": {"id": "answer", "text": "first ", "last_chunk": False}},
                {"artifact": {"id": "answer", "text": "second ", "append": True, "last_chunk": False}},
                {
                    "artifact": {
                        "id": "answer",
                        "append": True,
                        "last_chunk": False,
                        "parts": [{"text": "x", "repeat": 17 * MiB}],
                    }
                },
                {"hold": "never", "timeout": 600},
            ]
        }
    ],
}


def test_a_stream_cut_at_a_limit_shows_in_the_task_view_and_the_spinner_stops(a2a_mock_factory: Any) -> None:
    assert Limits().max_event == 16 * MiB  # what the agent's third chunk goes past
    mock = a2a_mock_factory(OVER)
    with inspector(mock.url, (140, 45)) as term:
        term.wait_for("⇶ stream", body(term))  # the composer streams to an agent whose card says it can
        send(term, "go")
        term.wait_for("✂ stream cut: " + WORDS, body(term))  # the conversation's last line
        term.wait_for("working · stream cut", body(term))  # the state diagram's title
        term.wait_for("✂ stream cut ", task_right(term))  # and its row after the running state
        term.wait_for("stream cut: " + WORDS, task_right(term), flow=True)  # the open artifact's info row
        term.wait_gone("streaming to", bar(term))
        assert not set("⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏") & set(term.row(0)), term.dump()

        # Not live: the running state's time stays where the cut left it (a live one
        # ticks every second).
        def working() -> str:
            match = term.find(re.compile(r"▸ working[^│\n]*"), task_right(term))
            assert match is not None, term.dump()
            return match.group(0).rstrip()

        before = working()
        assert not before.endswith("…"), term.dump()
        time.sleep(2.5)
        assert working() == before, term.dump()
        assert "streaming to" not in term.row(0), term.dump()
        quit_app(term)
