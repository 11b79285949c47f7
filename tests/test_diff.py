"""``a2a-inspect replay FILE --against URL``: a recording re-sent to a live agent, and the
differences in states, artifacts, messages and errors (ids and times aside).

The command-line tests run a2a-inspect and a2a-mock as real processes: the recording is
made against a mock serving one scenario, then compared with the same scenario (exit 0)
and with a changed one (exit 1). The rest call ``diff_against`` in-process.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from cli_helpers import Cli, cli  # noqa: F401 - cli is a fixture
from inspector.headless.resend import diff_against
from inspector.protocol import models as m
from inspector.session import Kind, Recorder, Session, load_recording
from inspector.session.diff import Outcome, compare
from mock_agent import MockAgent
from test_replay_serve import message, mock_process, record_multi_turn, stream_all

CARD = {"name": "Diffable", "description": "reports", "capabilities": {"streaming": True}, "skills": []}


def scenario(texts: list[str], final: str = "completed", message_text: str = "done") -> dict[str, Any]:
    return {
        "name": "diffable",
        "card": CARD,
        "rules": [
            {
                "when": {"text": "^report"},
                "script": [
                    {"status": "working", "message": "on it"},
                    {"chunks": {"name": "report", "texts": texts}},
                    {"status": final, "message": message_text},
                ],
            },
            {"when": {"text": "^error"}, "script": [{"error": {"code": -32001, "message": "Task not found"}}]},
        ],
    }


def write(path: Path, doc: dict[str, Any]) -> Path:
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


# ---------------------------------------------------------------------- command line


def test_a_changed_agent_is_reported_and_an_unchanged_one_is_not(cli: Cli, tmp_path: Path) -> None:
    same = write(tmp_path / "same.yaml", scenario(["part one, ", "part two"]))
    changed = write(
        tmp_path / "changed.yaml", scenario(["part one, ", "part 2"], final="failed", message_text="gave up")
    )
    rec = tmp_path / "session.jsonl"
    with mock_process("--scenario", str(same), "--dialect", "1.0") as (url, _proc):
        made = cli("send", url, "report please", "--stream", "--record", str(rec))
        assert made.code == 0, made
        ok = cli("replay", str(rec), "--against", url)
        assert ok.code == 0, ok
        assert "same (submitted → working → completed)" in ok.out
        assert "result: equivalent" in ok.out
        assert ok.err == "", ok
    with mock_process("--scenario", str(changed), "--dialect", "1.0") as (url, _proc):
        bad = cli("replay", str(rec), "--against", url)
        assert bad.code == 1, bad
        assert "DIFFERS" in bad.out and "DIFFERENT: 1 of 1 exchanges differ" in bad.out
        lines = bad.out.splitlines()
        states = next(i for i, line in enumerate(lines) if line.strip().startswith("states"))
        assert "recorded submitted → working → completed" in lines[states]
        assert "live     submitted → working → failed" in lines[states + 1]
        assert any('report: "part one, part two"' in line for line in lines)
        assert any('report: "part one, part 2"' in line for line in lines)
        assert any('"gave up"' in line for line in lines)
        as_json = cli("replay", str(rec), "--against", url, "-o", "json")
        assert as_json.code == 1, as_json
        doc = as_json.json()
        assert doc["equivalent"] is False and doc["compared"] == 1 and doc["differ"] == 1
        (ex,) = doc["exchanges"]
        fields = {d["field"]: d for d in ex["differences"]}
        assert set(fields) == {"states", "message", "artifacts"}
        assert fields["states"]["recorded"][-1] == "completed" and fields["states"]["live"][-1] == "failed"
        assert fields["artifacts"]["live"] == [{"name": "report", "parts": [{"text": "part one, part 2"}]}]
        # Ids and times are never part of the report.
        assert doc["exchanges"][0]["recorded"]["task"] == doc["exchanges"][0]["live"]["task"] == "task 1"


def test_an_unreachable_agent_is_exit_3(cli: Cli, tmp_path: Path) -> None:
    rec = tmp_path / "session.jsonl"
    with MockAgent(scenario(["a"]), dialect="0.3") as mock:
        assert cli("send", mock.url, "report", "--record", str(rec)).code == 0
    r = cli("replay", str(rec), "--against", "http://127.0.0.1:1/", "--timeout", "5")
    assert r.code == 3, r
    assert r.err_lines[-1].startswith("a2a-inspect: could not reach the agent: ")
    assert "connection refused" in r.err
    assert "DIFFERS" not in r.out


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("replay", "{d}/missing.jsonl", "--against", "http://127.0.0.1:1/"), "no such recording"),
        (("replay", "{d}/foreign.jsonl", "--against", "http://127.0.0.1:1/"), "not an a2a-inspect recording"),
        (("replay", "{d}/missing.jsonl"), "no such recording"),
    ],
)
def test_usage_errors_are_exit_2(cli: Cli, tmp_path: Path, args: tuple[str, ...], needle: str) -> None:
    (tmp_path / "foreign.jsonl").write_text('{"not": "a recording"}\n')
    r = cli(*(a.replace("{d}", str(tmp_path)) for a in args))
    assert r.code == 2 and needle in r.err, r
    assert "Traceback" not in r.err


def test_replay_without_against_opens_the_ui_replay(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import sys
    import types

    from inspector.cli import main

    rec = tmp_path / "session.jsonl"
    with Recorder(rec):
        pass
    opened: list[Path] = []
    fake = types.ModuleType("inspector.ui.replay_app")
    fake.launch_replay = lambda path: opened.append(path) or 0  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "inspector.ui.replay_app", fake)
    assert main(["replay", str(rec)]) == 0
    assert opened == [rec]
    # A build without the UI replay says so in one line, exit 2.
    monkeypatch.setitem(sys.modules, "inspector.ui.replay_app", None)
    assert main(["replay", str(rec)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "--against" in err[0]


# ---------------------------------------------------------------------- in-process


async def _record(mock: MockAgent, path: Path, dialect: str, *texts: str, stream: bool = True) -> None:
    from inspector.client import A2AClient
    from inspector.protocol.errors import JsonRpcError

    session = Session()
    with Recorder.attach(session, path):
        async with A2AClient(mock.url, session=session, dialect=dialect) as client:
            for text in texts:
                try:
                    if stream:
                        await stream_all(client, message(text))
                    else:
                        await client.send(message(text))
                except JsonRpcError:
                    pass


@pytest.mark.parametrize("dialect", ["0.1", "0.3", "1.0"])
async def test_chunking_is_not_a_difference_but_content_is(tmp_path: Path, dialect: str) -> None:
    path = tmp_path / "r.jsonl"
    async with MockAgent(scenario(["part one, ", "part two"]), dialect=dialect) as mock:
        await _record(mock, path, dialect, "report", "error please")
    rec = load_recording(path)
    async with MockAgent(scenario(["part one, part two"]), dialect=dialect) as mock:
        report = await diff_against(rec, mock.url, dialect=dialect)
    assert report.equivalent, [d.to_json() for d in report.exchanges]
    assert [d.recorded.method for d in report.exchanges] == ["stream", "stream"]
    assert report.exchanges[1].recorded.error == -32001
    changed = scenario(["part one, part two"])
    changed["rules"][1]["script"] = [{"error": {"code": -32004, "message": "nope"}}]
    async with MockAgent(changed, dialect=dialect) as mock:
        report = await diff_against(rec, mock.url, dialect=dialect)
    assert not report.equivalent
    assert report.exchanges[0].same
    (difference,) = report.exchanges[1].differences
    assert (difference.field, difference.recorded, difference.live) == ("error", -32001, -32004)


async def test_a_multi_turn_session_continues_on_the_live_agents_task(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    async with MockAgent("input-required", dialect="0.3") as mock:
        recorded = await record_multi_turn(mock.url, path, "0.3")
    rec = load_recording(path)
    live = Session()
    async with MockAgent("input-required", dialect="0.3") as mock:
        report = await diff_against(rec, mock.url, session=live)
    assert report.equivalent, [d.to_json() for d in report.exchanges]
    assert [(d.recorded.method, d.recorded.states) for d in report.exchanges] == [
        ("stream", ["submitted", "working", "input-required"]),
        ("send", ["completed"]),
        ("get", ["completed"]),
        ("send", ["input-required"]),
    ]
    assert [d.live.task for d in report.exchanges] == ["task 1", "task 1", "task 1", "task 2"]
    # The answer and the get went to the live agent's task, not the recorded one.
    requests = [
        json.loads(e.data["body"])
        for e in live.events
        if e.kind is Kind.REQUEST and e.data.get("a2a_method") in ("send", "get")
    ]
    first_task = next(e.payload.id for e in live.events if e.kind is Kind.SSE and isinstance(e.payload, m.Task))
    assert first_task != recorded["task"]
    assert requests[0]["params"]["message"]["taskId"] == first_task
    assert requests[1]["params"]["id"] == first_task
    assert recorded["task"] not in json.dumps(requests)


async def test_overlapping_exchanges_run_together(tmp_path: Path) -> None:
    """A cancel sent while a stream ran is sent while the live stream runs too."""
    from inspector.client import A2AClient

    # After its first chunk the task waits at a gate that nobody opens: the cancel lands
    # while the stream runs, recorded and live alike, however slow the machine.
    slow = {
        "card": CARD,
        "rules": [
            {
                "script": [
                    {"status": "working"},
                    {"artifact": {"name": "slow", "text": "a", "last_chunk": False}},
                    {"hold": "never"},
                    {"chunks": {"name": "slow", "texts": ["b", "c", "d"]}},
                    {"status": "completed"},
                ]
            }
        ],
    }
    path = tmp_path / "r.jsonl"
    async with MockAgent(slow, dialect="1.0") as mock:
        session = Session()
        with Recorder.attach(session, path):
            async with A2AClient(mock.url, session=session, dialect="1.0") as client:
                events = []
                async for event in client.stream(message("go")):
                    events.append(event)
                    if isinstance(event, m.TaskArtifactUpdateEvent):
                        break_id = event.task_id
                        await client.cancel(break_id)
    rec = load_recording(path)
    async with MockAgent(slow, dialect="1.0") as mock:
        report = await diff_against(rec, mock.url)
    assert report.equivalent, [d.to_json() for d in report.exchanges]
    assert report.exchanges[0].live.states[-1] == "canceled"
    assert report.exchanges[1].live.method == "cancel"


def test_compare_ignores_what_is_not_behaviour() -> None:
    a = Outcome(
        1,
        "send",
        "hi",
        http_status=200,
        task="task 1",
        states=["completed"],
        artifacts=[{"name": "x", "parts": [{"text": "ab"}]}],
    )
    b = Outcome(
        9,
        "send",
        "hi",
        http_status=201,
        task="task 1",
        states=["completed"],
        artifacts=[{"name": "x", "parts": [{"text": "ab"}]}],
    )
    assert compare(a, b) == []
    b.http_status = 503
    assert [d.field for d in compare(a, b)] == ["http_status"]
