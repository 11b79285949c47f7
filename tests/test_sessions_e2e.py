"""Record, serve back, diff, export: the whole story with real processes.

``a2a-inspect`` runs with ``--record`` (in the test's process, as tests/cli_helpers.py
runs commands) against ``a2a-mock`` (a subprocess) and against the real a2a-sdk agent (tests/peers/sdk_agent.py); the
recording is then served by ``a2a-mock --replay`` (a subprocess) and the same command
run against it must print the same thing, ids and timings aside.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from cli_helpers import Cli, CliResult, cli  # noqa: F401 - cli is a fixture
from inspector.session import Kind, load_recording
from test_replay_serve import mock_process

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def normal(text: str) -> str:
    """Output without what differs from run to run: ids, times, ports."""
    text = UUID.sub("<id>", text)
    text = re.sub(r"\b[0-9a-f]{8}\b", "<hex>", text)
    text = re.sub(r"\d+\.\d+ ?s\b", "<t>", text)
    return re.sub(r"127\.0\.0\.1:\d+", "<host>", text)


def task_id(result: CliResult) -> str:
    match = re.search(r"^task\s+(\S+)", result.out, re.M)
    assert match, result
    return match.group(1)


def same_output(a: CliResult, b: CliResult) -> None:
    assert a.code == b.code, (a, b)
    assert normal(a.out) == normal(b.out), (a, b)


# ---------------------------------------------------------------------- the mock


def test_a_session_with_the_mock_served_back_prints_the_same(cli: Cli, tmp_path: Path) -> None:
    first, second = tmp_path / "ask.jsonl", tmp_path / "answer.jsonl"
    with mock_process("--scenario", "input-required", "--dialect", "1.0") as (url, _proc):
        asked = cli("send", url, "ask me", "--stream", "--record", str(first))
        assert asked.code == 4, asked
        answered = cli("send", url, "the answer", "--task-id", task_id(asked), "--record", str(second))
        assert answered.code == 0, answered
    # The two recordings served together: the second continues the first's task.
    with mock_process("--replay", str(first), "--replay", str(second)) as (url, proc):
        again = cli("send", url, "ask me", "--stream")
        same_output(asked, again)
        new_task = task_id(again)
        assert new_task != task_id(asked)
        reply = cli("send", url, "the answer", "--task-id", new_task)
        same_output(answered, reply)
        assert task_id(reply) == new_task
        # Something the recording cannot answer gets a clear error naming the closest.
        miss = cli("send", url, "something else")
        assert miss.code == 3, miss
        assert "no recorded request matches" in miss.err and "something else" in miss.err
    assert "something else" in proc.stderr_text  # type: ignore[attr-defined]


# ---------------------------------------------------------------------- the SDK agent


@pytest.mark.parametrize("dialect", ["auto", "0.3"])
def test_a_session_with_the_sdk_agent_served_back_prints_the_same(
    cli: Cli, tmp_path: Path, sdk_agent_compat: str, dialect: str
) -> None:
    rec = tmp_path / "sdk.jsonl"
    args = ("--dialect", dialect)
    streamed = cli("send", sdk_agent_compat, "hello there inspector", "--stream", *args, "--record", str(rec))
    assert streamed.code == 0, streamed
    recording = load_recording(rec)
    wire = {
        e.data["rpc_method"]
        for e in recording.session.events
        if e.kind is Kind.REQUEST and e.data.get("a2a_method") == "stream"
    }
    assert wire == ({"SendStreamingMessage"} if dialect == "auto" else {"message/stream"})
    with mock_process("--replay", str(rec)) as (url, _proc):
        again = cli("send", url, "hello there inspector", "--stream", *args)
        same_output(streamed, again)
        as_json = cli("send", url, "hello there inspector", "--stream", *args, "-o", "json")
        assert as_json.code == 0, as_json
        doc = as_json.json()
        assert doc["task"]["state"] == "completed"
        assert doc["task"]["artifacts"][0]["text"] == "echo: hello there inspector"
    # The agent still behaves as recorded.
    diff = cli("replay", str(rec), "--against", sdk_agent_compat)
    assert diff.code == 0 and "result: equivalent" in diff.out, diff


def test_a_scenario_exported_from_the_sdk_agent_plays_it(cli: Cli, tmp_path: Path, sdk_agent_v10: str) -> None:
    rec, scenario = tmp_path / "sdk.jsonl", tmp_path / "sdk.yaml"
    recorded = cli("send", sdk_agent_v10, "hello there inspector", "--stream", "--record", str(rec))
    assert recorded.code == 0, recorded
    exported = cli("export", str(rec), "--scenario", str(scenario))
    assert exported.code == 0, exported
    with mock_process("--scenario", str(scenario)) as (url, _proc):
        played = cli("send", url, "hello there inspector", "--stream")
        assert played.code == 0, played
        # The same states and artifact as the SDK agent's (chunk sizes included).
        assert normal(played.out) == normal(recorded.out)
        assert cli("replay", str(rec), "--against", url).code == 0


# ---------------------------------------------------------------------- recording


def test_record_without_a_file_name_goes_to_the_data_directory(cli: Cli, tmp_path: Path) -> None:
    with mock_process("--scenario", "echo") as (url, _proc):
        r = cli("send", url, "hi", "--record")
        assert r.code == 0, r
    (line,) = r.err_lines
    assert line.startswith("a2a-inspect: recording to ")
    path = Path(line.split("recording to ", 1)[1])
    data = Path(cli.env["XDG_DATA_HOME"]) / "a2a-inspect" / "recordings"
    assert path.parent == data and re.fullmatch(r"\d{4}-\d\d-\d\d_\d{6}_127\.0\.0\.1-\d+\.jsonl", path.name)
    assert load_recording(path).session.events


def test_settings_redact_headers_apply_to_the_command_line(cli: Cli, tmp_path: Path) -> None:
    settings = Path(cli.env["XDG_CONFIG_HOME"]) / "a2a-inspect" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"redact_headers": ["X-Tenant-Secret"]}))
    rec = tmp_path / "r.jsonl"
    with mock_process("--scenario", "echo") as (url, _proc):
        r = cli("send", url, "hi", "-H", "X-Tenant-Secret: hunter2", "--bearer", "tok3n", "--record", str(rec))
        assert r.code == 0, r
    text = rec.read_text()
    assert "hunter2" not in text and "tok3n" not in text
    assert '"X-Tenant-Secret":"[redacted]"' in text and '"Authorization":"Bearer [redacted]"' in text
    assert "x-tenant-secret" in json.loads(text.splitlines()[0])["redaction"]["headers"]


def test_a_damaged_recording_is_diffed_with_notes(cli: Cli, tmp_path: Path) -> None:
    rec = tmp_path / "r.jsonl"
    with mock_process("--scenario", "echo", "--dialect", "0.3") as (url, _proc):
        assert cli("send", url, "hello", "--stream", "--record", str(rec)).code == 0
        lines = rec.read_text().splitlines(keepends=True)
        damaged = "".join(lines[:2] + ["{not json\n"] + lines[3:])
        rec.write_text(damaged[:-10])  # the stream-end line cut off
        r = cli("replay", str(rec), "--against", url)
    assert r.code == 0, r
    assert "a2a-inspect: note: r.jsonl line 3: not a valid event line" in r.err
    assert "incomplete last line" in r.err
    assert "same (submitted → working → completed)" in r.out
