"""``check``'s multi-turn probe without --ask: the card's skill examples are tried (a
few at most) for one that makes the agent ask, and the follow-up must continue that
task; when none asks, the skip says what was tried."""

from __future__ import annotations

import json
from typing import Any

import pytest

from inspector.cli import main
from mock_agent import MockAgent


def check(capsys: pytest.CaptureFixture[str], url: str, *args: str) -> tuple[int, dict]:
    code = main(["check", url, "-o", "json", "--only", "multi-turn", *args])
    return code, json.loads(capsys.readouterr().out)


def results(doc: dict) -> dict[str | None, dict[str, Any]]:
    return {r["binding"]: r for r in doc["results"] if r["probe"] == "multi-turn.continue"}


def echoing(examples: list[str] | None) -> dict[str, Any]:
    """a2a-mock echoing every message (it never asks), its one skill with ``examples``."""
    skill: dict[str, Any] = {"id": "echo", "name": "Echo", "description": "Echoes.", "tags": ["echo"]}
    if examples is not None:
        skill["examples"] = examples
    return {
        "name": "check-echo-examples",
        "card": {
            "name": "Echo Agent",
            "description": "Echoes.",
            "version": "1.0.0",
            "capabilities": {"streaming": True},
            "defaultInputModes": ["text/plain"],
            "defaultOutputModes": ["text/plain"],
            "skills": [skill],
        },
        "rules": [{"script": [{"status": "completed", "message": "echo: {text}"}]}],
    }


@pytest.mark.parametrize("dialect", ["1.0", "0.3"])
def test_a_skill_example_that_asks_drives_the_follow_up(capsys: pytest.CaptureFixture[str], dialect: str) -> None:
    # a2a-mock's input-required scenario: its card's example ("ask me something") is
    # answered with a question; the follow-up continues that task, on every binding.
    with MockAgent("input-required", grpc_port=0) as mock:
        code, doc = check(capsys, mock.base_url, "--dialect", dialect)
    assert code == 0
    assert {b: r["outcome"] for b, r in results(doc).items()} == {"jsonrpc": "pass", "rest": "pass", "grpc": "pass"}
    # The example that asked, and the follow-up: two sends a binding.
    assert all(len(r["exchanges"]) == 2 for r in results(doc).values())


def test_a_card_without_examples_skips_saying_so(capsys: pytest.CaptureFixture[str]) -> None:
    with MockAgent(echoing(None)) as mock:
        code, doc = check(capsys, mock.base_url, "--binding", "jsonrpc")
    (result,) = results(doc).values()
    assert code == 0 and result["outcome"] == "skip" and result["exchanges"] == []
    assert result["reason"] == (
        "no --ask TEXT, and the card's skills give no examples to try: give a message "
        "that makes the agent ask for input"
    )


def test_examples_that_do_not_ask_are_named_in_the_skip(capsys: pytest.CaptureFixture[str]) -> None:
    # At most three examples are sent, whatever the card lists; the skip names each and
    # what it did, the agent's text shown literally on one line.
    examples = ["hello\x1b[31m\nthere", "what can you do?", "hello\x1b[31m\nthere", "third", "fourth", "fifth"]
    with MockAgent(echoing(examples)) as mock:
        code, doc = check(capsys, mock.base_url, "--binding", "jsonrpc")
    (result,) = results(doc).values()
    assert code == 0 and result["outcome"] == "skip"
    assert len(result["exchanges"]) == 3
    reason = result["reason"]
    assert "(the first 3 of 5)" in reason and "fourth" not in reason
    assert reason.count("left the task completed") == 3
    assert "\x1b" not in reason and "\n" not in reason and "what can you do?" in reason


def test_ask_given_is_used_and_examples_are_not(capsys: pytest.CaptureFixture[str]) -> None:
    with MockAgent(echoing(["ask me"])) as mock:
        _code, doc = check(capsys, mock.base_url, "--binding", "jsonrpc", "--ask", "please ask")
    (result,) = results(doc).values()
    assert result["outcome"] == "skip" and "the --ask text left the task completed" in result["reason"]
    assert len(result["exchanges"]) == 1  # the --ask send alone: no example tried


async def test_an_example_that_hangs_uses_only_the_examples_time() -> None:
    # The first example is held by the agent (a gate released after the check, never
    # raced): it has half the probe's time, the next is not sent, and the probe skips
    # saying so rather than failing for the time it ran out of.
    from inspector.check import CheckOptions, run_check
    from inspector.session import Session, TaskTracker

    scenario = echoing(["hold on", "ask me"])
    scenario["rules"] = [
        {
            "when": {"text": "^hold"},
            "script": [{"status": "working"}, {"hold": "examples", "timeout": 60}, {"status": "completed"}],
        },
        *scenario["rules"],
    ]
    async with MockAgent(scenario) as mock:
        session = Session(keep=0, store=None)
        options = CheckOptions(url=mock.base_url, binding="jsonrpc", only=("multi-turn",), probe_seconds=1.0)
        report = await run_check(options, session, TaskTracker(session))
        mock.release("examples")
    (result,) = report.results
    assert result.outcome == "skip", result.reason
    assert result.reason.endswith(
        "made the agent ask: hold on was not answered in the examples' 0.5 s; "
        "ask me was not sent (the examples' time ran out)"
    )
    assert len(result.exchanges) == 1
