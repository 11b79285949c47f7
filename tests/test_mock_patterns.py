"""A rule's text pattern cannot stall the mock: each message gets a fixed matching time
over all rules (mock_agent/matching.py). A pattern that backtracks catastrophically
meeting the message that sets it off fails that one turn, naming the rule; every other
client is answered meanwhile. Well-behaved patterns match as before."""

from __future__ import annotations

import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

from mock_process import mock_process

V10 = {"A2A-Version": "1.0"}
SCENARIO = """\
card: {name: Patterns}
rules:
  - name: nested
    when: {text: '^(a+)+$'}
    script: [{status: completed, message: nested}]
  - name: alternation
    when: {text: '(a|aa)+$'}
    script: [{status: completed, message: alternation}]
  - name: city
    when: {text: 'weather in (?P<city>\\w+)'}
    script: [{status: completed, message: 'sunny in {city}'}]
  - script: [{status: completed, message: 'echo: {text}'}]
"""
#: Exponential for re's backtracking on either pattern above: hours, not seconds.
HOSTILE = "a" * 34 + "!"


def status_text(client: httpx.Client, url: str, text: str) -> tuple[str, str]:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "SendMessage",
        "params": {"message": {"role": "ROLE_USER", "messageId": str(uuid.uuid4()), "parts": [{"text": text}]}},
    }
    task = client.post(url, json=body, headers=V10).json()["result"]["task"]
    status = task["status"]
    return status["state"], "".join(p.get("text", "") for p in status.get("message", {}).get("parts", []))


def test_a_catastrophic_pattern_fails_its_turn_and_holds_nobody_up(tmp_path: Path) -> None:
    path = tmp_path / "patterns.yaml"
    path.write_text(SCENARIO, encoding="utf-8")
    with (
        mock_process("--scenario", str(path), "--dialect", "1.0") as mock,
        httpx.Client(timeout=httpx.Timeout(20.0)) as client,
    ):
        # Well-behaved patterns, before: the rules match as they always did.
        assert status_text(client, mock.url, "aaaa") == ("TASK_STATE_COMPLETED", "nested")
        assert status_text(client, mock.url, "weather in Paris") == ("TASK_STATE_COMPLETED", "sunny in Paris")
        # Three hostile messages and a plain one at once: all answered, none waits on the
        # others for long (old code: the first hostile one held the loop for hours, and
        # the client timed out).
        with ThreadPoolExecutor(4) as pool:
            hostile = [pool.submit(status_text, client, mock.url, HOSTILE) for _ in range(3)]
            plain = pool.submit(status_text, client, mock.url, "hello")
            assert plain.result(timeout=20) == ("TASK_STATE_COMPLETED", "echo: hello")
            for done in hostile:
                state, text = done.result(timeout=20)
                assert state == "TASK_STATE_FAILED"
                assert "pattern of alternation took longer than" in text and "simplify" in text
        # ... and after: still matching, and small.
        assert status_text(client, mock.url, "aa") == ("TASK_STATE_COMPLETED", "nested")
        assert mock.kib() < 200 * 1024
    assert "pattern of alternation took longer than" in mock.stderr and "Traceback" not in mock.stderr
