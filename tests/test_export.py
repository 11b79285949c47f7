"""``a2a-inspect export``: a recording as an a2a-mock scenario, a HAR 1.2 file, a curl script.

Each output is checked by what consumes it: the HAR against the HAR 1.2 spec's required
structure, the curl script by bash (syntax, then a real run against a mock), the
scenario by a2a-mock's loader and by serving it and comparing what it does with the
recording (``diff_against``: same states, artifacts, messages and errors).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from cli_helpers import Cli, cli  # noqa: F401 - cli is a fixture
from inspector.client import A2AClient, Auth, TransportError
from inspector.headless.export_cmd import scenario_problems
from inspector.headless.resend import diff_against
from inspector.protocol.errors import JsonRpcError
from inspector.session import Kind, Recorder, Session, TaskTracker, load_recording
from inspector.session.export_curl import to_curl
from inspector.session.export_har import to_har
from inspector.session.export_scenario import scenario_yaml, to_scenario
from mock_agent import MockAgent
from mock_agent.loader import load_text
from test_replay_serve import message, record_multi_turn, stream_all

# HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/): every required field, typed.
_NV = {
    "type": "object",
    "required": ["name", "value"],
    "properties": {"name": {"type": "string"}, "value": {"type": "string"}},
}
HAR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["log"],
    "properties": {
        "log": {
            "type": "object",
            "required": ["version", "creator", "entries"],
            "properties": {
                "version": {"const": "1.2"},
                "creator": {
                    "type": "object",
                    "required": ["name", "version"],
                    "properties": {"name": {"type": "string"}, "version": {"type": "string"}},
                },
                "pages": {"type": "array"},
                "entries": {"type": "array", "items": {"$ref": "#/$defs/entry"}},
                "comment": {"type": "string"},
            },
        }
    },
    "$defs": {
        "entry": {
            "type": "object",
            "required": ["startedDateTime", "time", "request", "response", "cache", "timings"],
            "properties": {
                "startedDateTime": {
                    "type": "string",
                    "pattern": r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$",
                },
                "time": {"type": "number", "minimum": 0},
                "request": {"$ref": "#/$defs/request"},
                "response": {"$ref": "#/$defs/response"},
                "cache": {"type": "object"},
                "timings": {"$ref": "#/$defs/timings"},
            },
        },
        "request": {
            "type": "object",
            "required": [
                "method",
                "url",
                "httpVersion",
                "cookies",
                "headers",
                "queryString",
                "headersSize",
                "bodySize",
            ],
            "properties": {
                "method": {"type": "string"},
                "url": {"type": "string"},
                "httpVersion": {"type": "string"},
                "cookies": {"type": "array"},
                "headers": {"type": "array", "items": _NV},
                "queryString": {"type": "array", "items": _NV},
                "postData": {
                    "type": "object",
                    "required": ["mimeType"],
                    "properties": {
                        "mimeType": {"type": "string"},
                        "text": {"type": "string"},
                        "params": {"type": "array"},
                    },
                },
                "headersSize": {"type": "integer"},
                "bodySize": {"type": "integer"},
            },
        },
        "response": {
            "type": "object",
            "required": [
                "status",
                "statusText",
                "httpVersion",
                "cookies",
                "headers",
                "content",
                "redirectURL",
                "headersSize",
                "bodySize",
            ],
            "properties": {
                "status": {"type": "integer"},
                "statusText": {"type": "string"},
                "httpVersion": {"type": "string"},
                "cookies": {"type": "array"},
                "headers": {"type": "array", "items": _NV},
                "content": {
                    "type": "object",
                    "required": ["size", "mimeType"],
                    "properties": {
                        "size": {"type": "integer"},
                        "mimeType": {"type": "string"},
                        "text": {"type": "string"},
                        "encoding": {"type": "string"},
                    },
                },
                "redirectURL": {"type": "string"},
                "headersSize": {"type": "integer"},
                "bodySize": {"type": "integer"},
            },
        },
        "timings": {
            "type": "object",
            "required": ["send", "wait", "receive"],
            "properties": {k: {"type": "number", "minimum": -1} for k in ("blocked", "dns", "connect", "ssl")}
            | {k: {"type": "number", "minimum": 0} for k in ("send", "wait", "receive")},
        },
    },
}


async def _session(
    path: Path,
    url: str,
    dialect: str,
    *,
    auth: Auth | None = None,
    headers: dict[str, str] | None = None,
    texts: tuple[str, ...] = ("report",),
    stream: bool = True,
) -> Session:
    session = Session()
    with Recorder.attach(session, path):
        async with A2AClient(url, session=session, dialect=dialect, auth=auth, headers=headers) as client:
            for text in texts:
                try:
                    if stream:
                        await stream_all(client, message(text))
                    else:
                        await client.send(message(text))
                except (JsonRpcError, TransportError):
                    pass
    return load_recording(path).session


# ---------------------------------------------------------------------- HAR


async def test_har_is_valid_har_1_2_with_streams_as_event_streams(tmp_path: Path) -> None:
    async with MockAgent("errors", dialect="0.3", heartbeat=None) as mock:
        session = await _session(tmp_path / "r.jsonl", mock.url, "0.3", texts=("heartbeat", "http 503", "error -32001"))
    har = to_har(session)
    jsonschema.Draft202012Validator(HAR_SCHEMA).validate(har)
    entries = har["log"]["entries"]
    assert [e["request"]["method"] for e in entries][:1] == ["GET"]
    for entry in entries:
        t = entry["timings"]
        assert entry["time"] == pytest.approx(sum(v for v in (t["send"], t["wait"], t["receive"]) if v > 0), abs=0.01)
    streams = [e for e in entries if e["response"]["content"]["mimeType"].startswith("text/event-stream")]
    assert streams
    text = streams[0]["response"]["content"]["text"]
    assert text.startswith("data: {") and "\r\n\r\n" in text and ":" + " heartbeat" in text
    assert streams[0]["response"]["content"]["size"] == len(text.encode())
    posts = [e for e in entries if e["request"]["method"] == "POST"]
    assert all(json.loads(e["request"]["postData"]["text"])["jsonrpc"] == "2.0" for e in posts)
    assert any(e["response"]["status"] == 503 for e in entries)
    assert all(e["_a2aDialect"] == "0.3" for e in posts)


async def test_har_of_an_unreachable_agent_has_status_0_entries(tmp_path: Path) -> None:
    session = await _session(tmp_path / "r.jsonl", "http://127.0.0.1:1/", "0.3")
    har = to_har(session)
    jsonschema.Draft202012Validator(HAR_SCHEMA).validate(har)
    (entry,) = har["log"]["entries"]
    assert entry["response"]["status"] == 0 and "connection refused" in entry["response"]["_error"]


# ---------------------------------------------------------------------- curl


def _bash_n(path: Path) -> None:
    result = subprocess.run(["bash", "-n", str(path)], capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stderr


async def test_curl_script_keeps_secrets_out_and_runs(tmp_path: Path) -> None:
    with MockAgent("echo", dialect="1.0") as mock:  # a thread: bash runs while this loop waits
        session = await _session(
            tmp_path / "r.jsonl",
            mock.url,
            "1.0",
            auth=Auth.bearer("s3cret-token"),
            headers={"X-API-Key": "k3y", "X-Trace": "keep 'me' $HOME"},
            texts=('it\'s a "quoted" $HOME `text`',),
        )
        script = to_curl(session, source="r.jsonl")
        path = tmp_path / "replay.sh"
        path.write_text(script)
        _bash_n(path)
        assert "s3cret-token" not in script and "k3y" not in script
        assert "${A2A_BEARER_TOKEN:?" in script and "${A2A_X_API_KEY:?" in script
        assert " -N " in script  # the stream
        assert "'X-Trace: keep '\"'\"'me'\"'\"' $HOME'" in script
        env = {**os.environ, "A2A_BASE": mock.base_url, "A2A_BEARER_TOKEN": "t", "A2A_X_API_KEY": "k"}
        run = subprocess.run(["bash", str(path)], capture_output=True, text=True, timeout=60, env=env)
        assert run.returncode == 0, run.stderr
        # The card, then the stream: the text went through byte for byte.
        assert '"name":"Echo Agent"' in run.stdout.replace(" ", "") or "Echo" in run.stdout
        assert "data: " in run.stdout and "TASK_STATE_COMPLETED" in run.stdout
        assert 'echo: it\'s a \\"quoted\\" $HOME `text`' in run.stdout
        # Without the token, the script says which variable to set.
        env.pop("A2A_BEARER_TOKEN")
        run = subprocess.run(["bash", str(path)], capture_output=True, text=True, timeout=60, env=env)
        assert run.returncode != 0 and "A2A_BEARER_TOKEN" in run.stderr


async def test_curl_script_turns_assigned_ids_into_variables(tmp_path: Path) -> None:
    async with MockAgent("input-required", dialect="0.3") as mock:
        recorded = await record_multi_turn(mock.url, tmp_path / "r.jsonl", "0.3")
    script = to_curl(load_recording(tmp_path / "r.jsonl").session)
    path = tmp_path / "replay.sh"
    path.write_text(script)
    _bash_n(path)
    assert f'TASK_1="${{TASK_1:-{recorded["task"]}}}"' in script
    assert f'CONTEXT_1="${{CONTEXT_1:-{recorded["context"]}}}"' in script
    assert '\\"taskId\\":\\"${TASK_1}\\"' in script and '\\"id\\":\\"${TASK_1}\\"' in script
    assert script.count(recorded["task"]) == 1  # only as the default
    # Pointed at a live agent with a live task, the answer continues it.
    with MockAgent("input-required", dialect="0.3") as mock:  # a thread: bash runs while this loop waits
        async with A2AClient(mock.url, dialect="0.3") as client:
            task = await client.send(message("ask me"))
        env = {**os.environ, "A2A_BASE": mock.base_url, "TASK_1": task.id, "CONTEXT_1": task.context_id}
        run = subprocess.run(["bash", str(path)], capture_output=True, text=True, timeout=60, env=env)
        assert run.returncode == 0, run.stderr
        assert mock.task(task.id).state.value == "completed"


def test_curl_script_sends_the_url_as_recorded_percent_encoding_kept(tmp_path: Path) -> None:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import PlainTextResponse
    from starlette.routing import Route

    from inspector.serving.runner import BackgroundServer

    seen: list[tuple[str, str]] = []

    async def anything(request: Request) -> PlainTextResponse:
        seen.append((request.scope["raw_path"].decode(), request.scope["query_string"].decode()))
        return PlainTextResponse("ok")

    session = Session()
    path = tmp_path / "r.jsonl"
    with Recorder.attach(session, path):  # the token is redacted on the way to the file
        number = session.new_exchange()
        session.append(
            Kind.REQUEST,
            {
                "method": "GET",
                "url": "http://127.0.0.1:9/a%20b/c%2Fd?q=x%20y&plus=1%2B1&token=s3cret-t0ken",
                "headers": {},
            },
            exchange=number,
        )
    script = to_curl(load_recording(path).session)
    assert "s3cret-t0ken" not in script and "${A2A_PARAM_TOKEN:?" in script
    (tmp_path / "replay.sh").write_text(script)
    with BackgroundServer(Starlette(routes=[Route("/{p:path}", anything)])) as up:
        env = {**os.environ, "A2A_BASE": up.url, "A2A_PARAM_TOKEN": "t"}
        run = subprocess.run(["bash", str(tmp_path / "replay.sh")], capture_output=True, text=True, timeout=60, env=env)
    assert run.returncode == 0, run.stderr
    assert seen == [("/a%20b/c%2Fd", "q=x%20y&plus=1%2B1&token=t")]


# ---------------------------------------------------------------------- scenario


@pytest.mark.parametrize("dialect", ["1.0", "0.3"])
async def test_scenario_from_the_sdk_agent_reproduces_it(sdk_agent_compat: str, tmp_path: Path, dialect: str) -> None:
    path = tmp_path / "r.jsonl"
    session = Session()
    with Recorder.attach(session, path):
        async with A2AClient(sdk_agent_compat, session=session, dialect=dialect) as client:
            await stream_all(client, message("hello there inspector"))
            await client.send(message("fail"))
            await client.send(message("msg hi"))
            await stream_all(client, message("ask me"))
            task = list(TaskTracker(session).tasks.values())[-1]
            await client.send(message("the answer", task.id, task.context_id))
    rec = load_recording(path)
    text, notes = scenario_yaml(rec.session, name="sdk", source=path.name)
    assert notes == []
    assert scenario_problems(text) == []
    scenario = load_text(text)
    assert scenario.dialect == dialect
    assert scenario.card.name == "Echo Agent" and scenario.card.url is None
    assert [(r.when.text, r.when.turn) for r in scenario.rules] == [
        (r"^hello\ there\ inspector$", 1),
        ("^fail$", 1),
        (r"^msg\ hi$", 1),
        (r"^ask\ me$", 1),
        (r"^the\ answer$", 2),
    ]
    async with MockAgent(scenario) as mock:
        report = await diff_against(rec, mock.url)
    assert report.equivalent, [d.to_json() for d in report.exchanges if not d.same]
    kinds = [(d.recorded.states, d.recorded.reply is not None) for d in report.exchanges]
    assert kinds == [
        (["submitted", "working", "completed"], False),
        (["failed"], False),
        ([], True),
        (["submitted", "input-required"], False),
        (["completed"], False),
    ]


async def test_scenario_scripts_errors_faults_and_delays(tmp_path: Path) -> None:
    async with MockAgent("errors", dialect="1.0") as mock:
        session = await _session(
            tmp_path / "r.jsonl",
            mock.url,
            "1.0",
            texts=("error -32004", "http 503", "drop", "no final", "malformed", "heartbeat"),
        )
    doc, notes = to_scenario(session)
    assert notes == []
    scripts = {rule["when"]["text"]: rule["script"] for rule in doc["rules"]}
    assert {
        "error": {
            "code": -32004,
            "message": "This operation is not supported",
            "data": scripts[r"^error\ \-32004$"][-1]["error"]["data"],
        }
    } == scripts[r"^error\ \-32004$"][-1]
    assert scripts[r"^http\ 503$"][-1]["http"]["status"] == 503
    assert scripts[r"^drop$"][-1] == {"drop": True}
    assert scripts[r"^no\ final$"][-1] == {"end": True}
    assert any("heartbeat" in step for step in scripts["^heartbeat$"])
    assert any("delay" in step for step in scripts["^heartbeat$"])
    text = "# exported\n" + yaml.safe_dump(doc, sort_keys=False)
    assert scenario_problems(text) == []
    rec = load_recording(tmp_path / "r.jsonl")
    async with MockAgent(load_text(text), time_scale=0.2) as mock:
        report = await diff_against(rec, mock.url)
    assert report.equivalent, [d.to_json() for d in report.exchanges if not d.same]


def test_scenario_text_with_braces_stays_literal(tmp_path: Path) -> None:
    async def go() -> Session:
        scenario = {
            "card": {"name": "Braces"},
            "rules": [{"script": [{"status": "completed", "message": '{{"json": true}} for {text}'}]}],
        }
        async with MockAgent(scenario, dialect="0.3") as mock:
            return await _session(tmp_path / "r.jsonl", mock.url, "0.3", texts=("{x}",), stream=False)

    import asyncio

    session = asyncio.run(go())
    text, _notes = scenario_yaml(session)
    scenario = load_text(text)
    assert scenario.rules[0].when.text == r"^\{x\}$"
    assert scenario.rules[0].script[-1].message == '{{"json": true}} for {{x}}'


async def test_exports_written_a_piece_at_a_time_are_the_documents(tmp_path: Path, monkeypatch) -> None:
    # The command writes HAR and scenario files a piece at a time (bounded memory on big
    # recordings): the same bytes as the whole documents dumped at once, and the
    # scenario checked in pieces (a few steps here, to cross rules and split scripts).
    import io

    from inspector.session import export_scenario
    from inspector.session.export_har import write_har
    from inspector.session.export_scenario import write_scenario

    async with MockAgent("errors", dialect="1.0") as mock:
        session = await _session(
            tmp_path / "r.jsonl", mock.url, "1.0", texts=("heartbeat", "http 503", "drop", "no final", "heartbeat")
        )
    out = io.StringIO()
    write_har(session, out, comment="c")
    assert out.getvalue() == json.dumps(to_har(session, comment="c"), ensure_ascii=False, indent=2) + "\n"
    checked: list[str] = []
    monkeypatch.setattr(export_scenario, "CHECK_STEPS", 2)
    out = io.StringIO()
    notes, problems = write_scenario(
        session, out, name="r", source="r.jsonl", check=lambda text: checked.append(text) or scenario_problems(text)
    )
    text, whole_notes = scenario_yaml(session, name="r", source="r.jsonl")
    assert out.getvalue() == text and notes == whole_notes and problems == []
    assert len(checked) > 3 and all(len(piece) < len(text) for piece in checked)
    # A piece that does not load is reported, with its rule.
    _notes, problems = write_scenario(session, io.StringIO(), check=lambda text: ["bad"] if "503" in text else [])
    assert problems and all(p.startswith("near rule ") and p.endswith(": bad") for p in problems)


# ---------------------------------------------------------------------- command line


def test_export_command_writes_each_format(cli: Cli, tmp_path: Path) -> None:
    rec = tmp_path / "r.jsonl"
    with MockAgent("echo", dialect="0.3") as mock:
        assert cli("send", mock.url, "hello", "--stream", "--record", str(rec)).code == 0
    out = tmp_path / "out"
    r = cli("export", str(rec), "--scenario", f"{out}.yaml", "--har", f"{out}.har", "--curl", f"{out}.sh")
    assert r.code == 0, r
    assert r.err_lines == [
        f"a2a-inspect: wrote {fmt} to {out}.{ext}"
        for fmt, ext in (("scenario", "yaml"), ("har", "har"), ("curl", "sh"))
    ]
    assert load_text(Path(f"{out}.yaml").read_text()).rules
    jsonschema.Draft202012Validator(HAR_SCHEMA).validate(json.loads(Path(f"{out}.har").read_text()))
    assert os.access(f"{out}.sh", os.X_OK)
    _bash_n(Path(f"{out}.sh"))
    # To stdout.
    r = cli("export", str(rec), "--har", "-")
    assert r.code == 0 and json.loads(r.out)["log"]["version"] == "1.2"
    # A scenario that does not load is not written (nor is anything left beside it).
    import argparse

    from inspector.headless import export_cmd

    real_check = export_cmd.scenario_problems
    export_cmd.scenario_problems = lambda text: ["broken"]
    try:
        code = export_cmd.run_export(
            argparse.Namespace(file=str(rec), scenario=f"{out}-bad.yaml", har=None, curl=None, force=False)
        )
    finally:
        export_cmd.scenario_problems = real_check
    assert code != 0
    assert not [p for p in tmp_path.iterdir() if "-bad" in p.name]
    # Existing files are kept unless --force.
    r = cli("export", str(rec), "--har", f"{out}.har")
    assert r.code == 2 and "--force" in r.err
    assert cli("export", str(rec), "--har", f"{out}.har", "--force").code == 0


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("export", "{d}/r.jsonl"), "at least one of"),
        (("export", "{d}/missing.jsonl", "--har", "-"), "no such recording"),
        (("export", "{d}/r.jsonl", "--har", "-", "--curl", "-"), "only one format"),
    ],
)
def test_export_usage_errors(cli: Cli, tmp_path: Path, args: tuple[str, ...], needle: str) -> None:
    with Recorder(tmp_path / "r.jsonl"):
        pass
    r = cli(*(a.replace("{d}", str(tmp_path)) for a in args))
    assert r.code == 2 and needle in r.err, r
    assert r.out == ""


def test_a_damaged_recording_exports_with_notes(cli: Cli, tmp_path: Path) -> None:
    rec = tmp_path / "r.jsonl"
    with MockAgent("echo", dialect="0.3") as mock:
        assert cli("send", mock.url, "hello", "--record", str(rec)).code == 0
    lines = rec.read_text().splitlines(keepends=True)
    lines[2] = lines[2][:40] + "\n"  # the card response, damaged
    rec.write_text("".join(lines)[:-25])  # and the last line cut off, as kill -9 leaves it
    r = cli("export", str(rec), "--har", "-")
    assert r.code == 0, r
    assert "a2a-inspect: note: r.jsonl line 3: not a valid event line" in r.err
    assert "incomplete last line" in r.err
    entries = json.loads(r.out)["log"]["entries"]
    assert [e["request"]["method"] for e in entries] == ["GET", "POST"]
