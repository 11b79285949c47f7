"""A task's and an artifact's ``metadata`` in the commands' output, for every dialect:
Society AI (seed 001) puts ``requester``, ``executor``, ``skill_used`` and ``cost`` there,
and neither -o json nor the text showed them. And the hint for Society AI's other
spelling of resubscribe."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import jsonschema
import pytest

from cli_helpers import Cli
from mock_agent import MockAgent
from peers.sdk_agent import ARTIFACT_METADATA, TASK_METADATA

SCHEMA = Path(__file__).resolve().parents[1] / "docs" / "output.schema.json"

#: Agent text in an artifact's metadata that a careless view would interpret.
HOSTILE = "\x1b[31mred\x1b[0m [bold]not bold[/bold]"
#: More keys than a glance shows.
MANY = {f"k{i:02}": i for i in range(40)}

# Society AI's agent (the mock's society-ai profile: it adds requester, executor,
# skill_used and cost to every task) with artifacts that carry metadata of their own.
SCENARIO = {
    "name": "society-ai-metadata",
    "dialect": "0.1",
    "card": {
        "name": "research-agent",
        "description": "Research with metadata",
        "version": "1.0.0",
        "capabilities": {"streaming": True},
        "skills": [{"id": "research-topic", "name": "Topic Research", "description": "Research", "tags": ["research"]}],
    },
    "rules": [
        {
            "when": {"text": "^many"},
            "script": [
                {"artifact": {"name": "report", "text": "many keys", "metadata": MANY}},
                {"status": "completed"},
            ],
        }
    ],
    "fallback": [
        {"artifact": {"name": "report", "text": "Findings on {text}", "metadata": {"sources": 2, "note": HOSTILE}}},
        {"status": "completed", "message": "Research complete."},
    ],
}


@pytest.fixture
def cli(tmp_path: Path) -> Cli:
    return Cli(tmp_path)


@pytest.fixture(scope="module")
def society_ai() -> Iterator[str]:
    with MockAgent(SCENARIO, profile="society-ai", time_scale=0.01) as mock:
        yield mock.url


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text(encoding="utf-8")))


def _valid(validator: jsonschema.Draft202012Validator, doc: dict) -> dict:
    errors = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(doc)]
    assert errors == [], errors
    return doc


def test_society_ai_task_metadata_in_json_text_and_get(cli: Cli, society_ai: str, validator) -> None:
    asked = {"requester": {"name": "ai-chatbot"}, "user_id": "u-1"}
    sent = cli("send", society_ai, "quantum", "-o", "json", "--metadata", json.dumps(asked))
    assert sent.code == 0, sent
    task = _valid(validator, sent.json())["task"]
    meta = task["metadata"]
    assert meta["requester"] == {"name": "ai-chatbot"} and meta["user_id"] == "u-1"
    assert meta["executor"] == {"name": "research-agent"} and meta["skill_used"] == "research-topic"
    assert meta["cost"]["currency"] == "USD"
    assert task["artifacts"][0]["metadata"] == {"sources": 2, "note": HOSTILE}

    # tasks/get answers with the same metadata.
    got = cli("get", society_ai, task["id"], "-o", "json")
    assert got.code == 0, got
    assert _valid(validator, got.json())["task"]["metadata"] == meta

    # In text, a row a key; the agent's text literally, never interpreted.
    text = cli("get", society_ai, task["id"]).out
    assert 'metadata requester   {"name": "ai-chatbot"}' in text, text
    assert "skill_used  research-topic" in text and '"currency": "USD"' in text, text
    assert "  metadata sources  2" in text, text
    assert "\\x1b[31mred\\x1b[0m [bold]not bold[/bold]" in text and "\x1b" not in text, text


def test_metadata_rows_are_bounded_and_json_has_them_all(cli: Cli, society_ai: str) -> None:
    sent = cli("send", society_ai, "many", "-o", "json")
    assert sent.json()["task"]["artifacts"][0]["metadata"] == MANY
    text = cli("send", society_ai, "many").out
    assert "k11  11" in text and "k12  12" not in text and "… 28 more keys" in text, text


@pytest.mark.parametrize("stream", [False, True], ids=["send", "stream"])
@pytest.mark.parametrize("dialect, peer", [("0.3", "sdk_agent_compat"), ("1.0", "sdk_agent_v10")])
def test_metadata_from_the_a2a_sdk_in_each_dialect(
    cli: Cli, request, validator, dialect: str, peer: str, stream: bool
) -> None:
    url = request.getfixturevalue(peer)
    how = ["--stream"] if stream else []
    sent = cli("send", url, "meta please", "--dialect", dialect, *how, "-o", "json")
    assert sent.code == 0, sent
    task = _valid(validator, sent.json())["task"]
    assert task["metadata"] == TASK_METADATA
    assert [a["metadata"] for a in task["artifacts"]] == [ARTIFACT_METADATA]


def test_a_task_without_metadata_says_null(cli: Cli, sdk_agent_compat: str, validator) -> None:
    sent = cli("send", sdk_agent_compat, "hello there", "-o", "json")
    task = _valid(validator, sent.json())["task"]
    assert task["metadata"] is None and task["artifacts"][0]["metadata"] is None
    assert "metadata" not in cli("send", sdk_agent_compat, "hello there").out


# ------------------------------------------------------------------ resubscribe's spelling


def test_resubscribe_on_society_ai_names_its_spelling(cli: Cli, society_ai: str) -> None:
    denied = cli("resubscribe", society_ai, "t-1")
    assert denied.code == 3, denied
    assert "-32601" in denied.err
    assert "try --method-name resubscribe=task/resubscribe" in denied.err, denied.err
    # Spelled that way, the agent knows the method (the task is unknown: -32001).
    spelled = cli("resubscribe", society_ai, "t-1", "--method-name", "resubscribe=task/resubscribe")
    assert spelled.code == 3 and "-32001" in spelled.err, spelled
    assert "--method-name" not in spelled.err, spelled.err


def test_resubscribe_on_the_draft_gets_no_spelling_hint(cli: Cli) -> None:
    # A well-behaved 0.1 agent that knows tasks/resubscribe: its -32001 is not about spelling.
    with MockAgent(profile="draft", time_scale=0.01) as mock:
        denied = cli("resubscribe", mock.url, "t-1")
    assert denied.code == 3 and "-32001" in denied.err, denied
    assert "method-name" not in denied.err, denied.err
