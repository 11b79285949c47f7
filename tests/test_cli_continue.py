"""``send URL TEXT --continue``: the answer goes to the last task of that agent that is
waiting for input, named on stderr; none waiting is a usage error (issue 28, item 5).

Against a2a-mock on every dialect and binding, the Python a2a-sdk agent and the JS SDK's
agent; two agents' waiting tasks never mix."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from cli_helpers import Cli, assert_one_error_line, cli  # noqa: F401  (fixture)
from mock_agent import MockAgent
from peers.js_agent import JsAgent

QUESTION_MOCK = "What should I echo? Reply on this task."
QUESTION_PEERS = "What should I echo? Reply on this taskId."


@pytest.fixture(scope="module")
def mock() -> Iterator[MockAgent]:
    with MockAgent("input-required", grpc_port=0) as agent:
        yield agent


def ask_then_continue(cli: Cli, url: str, question: str, *how: str, answer: str = "blue") -> dict:
    asked = cli("send", url, "ask me", *how, "-o", "json")
    assert asked.code == 4, asked  # input-required
    task = asked.json()["task"]
    answered = cli("send", url, answer, *how, "--continue", "-o", "json")
    assert answered.code == 0, answered
    # stderr names the task (its id's first 8 characters) and the question it answers.
    # (A warning that the card lists no interface for a dialect forced with --dialect may come first.)
    said = [line for line in answered.err_lines if not line.startswith("a2a-inspect: warning:")]
    assert said == [f"a2a-inspect: continuing task {task['id'][:8]} (input-required: {question})"]
    done = answered.json()["task"]
    assert (done["id"], done["contextId"], done["state"]) == (task["id"], task["contextId"], "completed")
    # Answered: nothing is waiting any more.
    again = cli("send", url, "more", *how, "--continue")
    assert_one_error_line(again, 2, "--continue: no task of", "is waiting for input")
    return done


@pytest.mark.parametrize(
    ("dialect", "binding"),
    [("0.1", "jsonrpc"), ("0.3", "jsonrpc"), ("1.0", "jsonrpc"), ("0.3", "rest"), ("1.0", "rest"), ("1.0", "grpc")],
)
def test_continue_answers_the_mocks_waiting_task(cli: Cli, mock: MockAgent, dialect: str, binding: str) -> None:
    url = mock.grpc_url if binding == "grpc" else mock.url
    how = ("--dialect", dialect) + (("--binding", binding) if binding != "grpc" else ())
    done = ask_then_continue(cli, url, QUESTION_MOCK, *how)
    assert [a["text"] for a in done["artifacts"]] == ["echo: blue"]
    if dialect == "0.1":
        # The answer went in the task's session, as the first turn's sessionId.
        record = mock.task(done["id"])
        assert record is not None and record.task.context_id == done["contextId"]


def test_continue_streams_the_answer_too(cli: Cli, mock: MockAgent) -> None:
    asked = cli("send", mock.url, "ask me", "--stream", "-o", "json")
    assert asked.code == 4, asked
    answered = cli("send", mock.url, "green", "--stream", "--continue", "-o", "ndjson")
    assert answered.code == 0, answered
    records = answered.ndjson()
    assert records[-1]["kind"] == "status-update" and records[-1]["status"]["state"] == "completed"
    assert answered.err_lines[0].startswith("a2a-inspect: continuing task ")


def test_continue_answers_the_sdk_agents_waiting_task(cli: Cli, sdk_agent_compat: str) -> None:
    done = ask_then_continue(cli, sdk_agent_compat, QUESTION_PEERS, answer="red")
    assert "".join(a["text"] for a in done["artifacts"]).startswith("echo: red")


def test_continue_answers_the_js_agents_waiting_task(cli: Cli, js_agent_compat: JsAgent) -> None:
    assert js_agent_compat.jsonrpc is not None
    done = ask_then_continue(cli, js_agent_compat.base, QUESTION_PEERS, answer="teal")
    assert "teal" in "".join(a["text"] for a in done["artifacts"])


def test_with_nothing_waiting_it_is_a_usage_error(cli: Cli, mock: MockAgent) -> None:
    finished = cli("send", mock.url, "ask me", "--dialect", "1.0")
    assert finished.code == 4
    # A task that is waiting, but of another agent URL entirely: not this one's.
    result = cli("send", "http://127.0.0.1:9/", "hi", "--continue")
    assert_one_error_line(result, 2, "--continue: no task of http://127.0.0.1:9 is waiting for input")
    result = cli("send", mock.url, "hi", "--continue", "--task-id", "t1")
    assert_one_error_line(result, 2, "--continue", "--task-id")


def test_two_agents_do_not_mix(cli: Cli, tmp_path: Path) -> None:
    with MockAgent("input-required") as first, MockAgent("input-required") as second:
        a = cli("send", first.url, "ask me", "--bearer", "s3cret-token", "-o", "json").json()["task"]
        b = cli("send", second.url, "ask me", "-o", "json").json()["task"]
        older = cli("send", first.url, "ask me", "-o", "json").json()["task"]
        # The newest waiting task of each agent, whichever agent was asked last.
        to_first = cli("send", first.url, "one", "--continue", "-o", "json")
        assert to_first.json()["task"]["id"] == older["id"]
        to_second = cli("send", second.url, "two", "--continue", "-o", "json")
        assert to_second.json()["task"]["id"] == b["id"]
        # Then the first agent's other waiting task; the second has none left.
        assert cli("send", first.url, "three", "--continue", "-o", "json").json()["task"]["id"] == a["id"]
        assert cli("send", second.url, "four", "--continue").code == 2
    # What is remembered: ids, states and questions per agent, no header, no credential.
    text = (cli.home / "cache" / "a2a-inspect" / "waiting-tasks.json").read_text()
    assert "s3cret" not in text
    remembered = json.loads(text)
    assert sorted(remembered) == sorted(u.rstrip("/") for u in (first.url, second.url))


def test_a_secret_the_agent_echoes_in_its_question_is_not_remembered(cli: Cli) -> None:
    echoes = {"card": {"name": "Echoes"}, "rules": [{"script": [{"ask": "did you mean {text}?"}]}]}
    with MockAgent(echoes) as agent:
        asked = cli("send", agent.url, "s3cret-token-4711", "--bearer", "s3cret-token-4711")
        assert asked.code == 4, asked
        text = (cli.home / "cache" / "a2a-inspect" / "waiting-tasks.json").read_text()
        assert "s3cret-token-4711" not in text and "did you mean" in text
        answered = cli("send", agent.url, "no", "--continue", "--bearer", "s3cret-token-4711")
        assert "s3cret-token-4711" not in answered.err, answered
