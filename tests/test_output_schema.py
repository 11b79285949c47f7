"""``-o json`` is a documented format: each document carries ``formatVersion``, and
docs/output.schema.json (generated from inspector/headless/output_model.py by
scripts/gen_output_schema.py) describes it. Real output of the commands validates
against the committed schema; the committed schema is the one the models make."""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from cli_helpers import Cli, cli  # noqa: F401 - cli is a fixture
from inspector.headless.output import FORMAT_VERSION
from mock_agent import MockAgent

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = ROOT / "docs" / "output.schema.json"

#: Answers most texts, fails one, and errors on another: every shape of a result.
SCENARIO = {
    "name": "output-schema",
    "card": {"name": "Output Agent", "capabilities": {"streaming": True}},
    "rules": [
        {
            "when": {"text": "^boom"},
            "script": [{"error": {"code": -32001, "message": "Task not found", "data": {"why": "scripted"}}}],
        },
        {"when": {"text": "^fail"}, "script": [{"status": "working"}, {"status": "failed", "message": "no"}]},
        {
            "when": {"text": "^story"},
            "script": [
                {"status": "working", "message": "writing"},
                {"chunks": {"name": "story", "texts": ["once ", "upon"]}},
                {"status": "completed", "message": "done"},
            ],
        },
    ],
    "fallback": [{"status": "completed", "message": "echo: {text}"}],
}


def _generator() -> Any:
    spec = importlib.util.spec_from_file_location("gen_output_schema", ROOT / "scripts" / "gen_output_schema.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft202012Validator:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


@pytest.fixture(scope="module")
def agent() -> Iterator[str]:
    with MockAgent(SCENARIO, dialect="all") as mock:
        yield mock.url


def valid(validator: jsonschema.Draft202012Validator, doc: Any) -> Any:
    errors = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(doc)]
    assert errors == [], json.dumps(doc, indent=1)[:3000]
    assert doc["formatVersion"] == FORMAT_VERSION
    return doc


def test_the_committed_schema_is_the_generated_one() -> None:
    # After changing output_model.py: .venv/bin/python scripts/gen_output_schema.py
    assert SCHEMA.read_text(encoding="utf-8") == _generator().render()


def test_the_schema_names_the_version_the_commands_print(validator: jsonschema.Draft202012Validator) -> None:
    defs = validator.schema["$defs"]
    for name in ("ResultDoc", "CardDoc", "TaskListDoc", "DiffDoc"):
        assert defs[name]["properties"]["formatVersion"]["const"] == FORMAT_VERSION
        assert "formatVersion" in defs[name]["required"]


def test_send_get_and_a_stream_validate(cli: Cli, validator: jsonschema.Draft202012Validator, agent: str) -> None:
    sent = cli("send", agent, "story please", "-o", "json")
    assert sent.code == 0, sent
    doc = valid(validator, sent.json())
    assert doc["task"]["state"] == "completed" and doc["task"]["artifacts"][0]["text"] == "once upon"
    got = cli("get", agent, doc["task"]["id"], "-o", "json")
    assert got.code == 0, got
    assert valid(validator, got.json())["task"]["id"] == doc["task"]["id"]
    streamed = cli("send", agent, "story again", "--stream", "-o", "json")
    assert streamed.code == 0, streamed
    assert valid(validator, streamed.json())["task"]["artifacts"][0]["chunks"] == 2


def test_failures_and_errors_validate(cli: Cli, validator: jsonschema.Draft202012Validator, agent: str) -> None:
    failed = cli("send", agent, "fail now", "-o", "json")
    assert failed.code != 0, failed
    assert valid(validator, failed.json())["task"]["state"] == "failed"
    rpc = cli("send", agent, "boom", "-o", "json", "--dialect", "0.3")
    assert valid(validator, rpc.json())["error"] == {
        "type": "rpc",
        "code": -32001,
        "message": "Task not found",
        "data": {"why": "scripted"},
    }
    unknown = cli("get", agent, "no-such-task", "-o", "json", "--dialect", "0.3")
    assert valid(validator, unknown.json())["error"]["type"] == "rpc"
    cut = cli("send", agent, "story", "--stream", "-o", "json", "--max-stream-events", "3")
    assert cut.code == 3, cut
    doc = valid(validator, cut.json())
    assert doc["error"]["type"] == "limit" and doc["task"]["state"] == "working"
    assert [(r["kind"], r["text"]) for r in doc["task"]["remarks"]] == [
        ("cut", "more than 3 events and comments (--max-stream-events)")
    ]


def test_card_list_and_diff_validate(
    cli: Cli, validator: jsonschema.Draft202012Validator, agent: str, tmp_path: Path
) -> None:
    card = cli("card", agent, "-o", "json")
    assert card.code == 1, card  # the scenario's bare card has lint errors: findings to validate too
    doc = valid(validator, card.json())
    assert doc["card"]["name"] == "Output Agent" and doc["findings"]
    assert valid(validator, cli("card", agent, "--json").json()) == card.json()
    rec = tmp_path / "r.jsonl"
    assert cli("send", agent, "hello", "--record", str(rec), "--dialect", "1.0").code == 0
    listed = cli("list", agent, "-o", "json", "--dialect", "1.0")
    assert listed.code == 0, listed
    assert valid(validator, listed.json())["tasks"]
    diff = cli("replay", str(rec), "--against", agent, "-o", "json")
    assert diff.code == 0, diff
    assert valid(validator, diff.json())["equivalent"] is True


def test_the_schema_refuses_what_it_does_not_describe(validator: jsonschema.Draft202012Validator) -> None:
    # Our own objects are closed: a key added to the output without the model fails above.
    doc = {
        "formatVersion": FORMAT_VERSION,
        "task": None,
        "message": None,
        "violations": [],
        "error": None,
        "exitCode": 0,
    }
    assert validator.is_valid(doc)
    assert not validator.is_valid({**doc, "surprise": 1})
    assert not validator.is_valid({**doc, "formatVersion": FORMAT_VERSION + 1})
    assert not validator.is_valid({k: v for k, v in doc.items() if k != "formatVersion"})
