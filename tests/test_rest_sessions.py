"""REST exchanges in sessions: recorded with their binding, read back decoding as live,
replayed by ``a2a-mock --replay``, compared by diff, exported to HAR; recordings made
before the binding field (no ``binding``) still read as JSON-RPC."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from binding_matrix import message
from inspector.client import A2AClient
from inspector.headless.resend import diff_against
from inspector.protocol import models as m
from inspector.protocol.rest import RestError
from inspector.serving.runner import BackgroundServer
from inspector.session import Kind, Recorder, Session, TaskTracker, load_recording
from inspector.session.export_har import to_har
from mock_agent import MockAgent
from mock_agent.replay import ReplayServer

SCENARIO: dict[str, Any] = {
    "name": "rest-sessions",
    "card": {"name": "Rest Agent", "capabilities": {"streaming": True}},
    "rules": [
        {
            "when": {"text": "^ask"},
            "script": [{"ask": "which one?", "then": [{"status": "completed", "message": "took {text}"}]}],
        },
        {
            "script": [
                {"status": "working", "message": "on it"},
                {"chunks": {"id": "out", "name": "out", "texts": ["echo: ", "{text}"]}},
                {"status": "completed", "message": "done"},
            ]
        },
    ],
}


async def record(url: str, path: Path, dialect: str) -> None:
    session = Session()
    with Recorder.attach(session, path):
        async with A2AClient(url, session=session, dialect=dialect, binding="rest") as client:
            [e async for e in client.stream(message("hello stream"))]
            asked = await client.send(message("ask me"))
            await client.send(message("blue", asked))
            await client.get_task(asked.id, history_length=2)
            try:
                await client.get_task("no-such-task")
            except RestError:
                pass


def states(session: Session) -> list[str]:
    tracker = TaskTracker(session)
    return [t.state.value for t in tracker.tasks.values()]


async def test_a_rest_recording_reads_back_as_it_was_live(tmp_path: Path) -> None:
    path = tmp_path / "rest.jsonl"
    async with MockAgent(SCENARIO, dialect="1.0") as mock:
        await record(mock.base_url, path, "1.0")
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    requests = [ln for ln in lines if ln.get("kind") == "request" and ln.get("a2a_method") != "card"]
    assert {r["binding"] for r in requests} == {"rest"}
    assert [r["route"] for r in requests] == [
        "POST /message:stream",
        "POST /message:send",
        "POST /message:send",
        "GET /tasks/{id}",
        "GET /tasks/{id}",
    ]
    rec = load_recording(path)
    events = rec.session.events
    sent = [e.payload for e in events if e.kind is Kind.REQUEST and e.data.get("binding") == "rest"]
    assert isinstance(sent[0], m.SendParams) and sent[0].message.parts[0].text == "hello stream"
    assert isinstance(sent[3], m.TaskQueryParams) and sent[3].history_length == 2
    streamed = [e.payload for e in events if e.kind is Kind.SSE]
    assert [type(p).__name__ for p in streamed] == [
        "Task",
        "TaskStatusUpdateEvent",
        "TaskArtifactUpdateEvent",
        "TaskArtifactUpdateEvent",
        "TaskStatusUpdateEvent",
    ]
    failures = [e.payload for e in events if e.kind is Kind.RESPONSE and isinstance(e.payload, RestError)]
    assert [(f.code, f.http_status, f.reason) for f in failures] == [(-32001, 404, "TASK_NOT_FOUND")]
    assert states(rec.session) == ["completed", "completed"]


def test_a_recording_without_the_binding_field_reads_as_json_rpc(tmp_path: Path) -> None:
    # A request line as recordings made before the binding field hold it.
    path = tmp_path / "old.jsonl"
    header = {"kind": "header", "format": "a2a-inspect-recording", "version": 1}
    body = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "message/send",
            "params": {"message": {"role": "user", "messageId": "m1", "parts": [{"kind": "text", "text": "old"}]}},
        }
    )
    request = {
        "seq": 1,
        "t": 0.0,
        "kind": "request",
        "exchange": 1,
        "method": "POST",
        "url": "http://127.0.0.1:1/",
        "headers": {},
        "body": body,
        "body_encoding": "utf-8",
        "dialect": "0.3",
        "a2a_method": "send",
        "rpc_method": "message/send",
        "rpc_id": 1,
    }
    path.write_text(json.dumps(header) + "\n" + json.dumps(request) + "\n")
    rec = load_recording(path)
    (event,) = [e for e in rec.session.events if e.kind is Kind.REQUEST]
    assert isinstance(event.payload, m.SendParams) and event.payload.message.parts[0].text == "old"


async def test_replay_serves_a_rest_recording_to_a_rest_client(tmp_path: Path) -> None:
    path = tmp_path / "rest.jsonl"
    async with MockAgent(SCENARIO, dialect="1.0") as mock:
        await record(mock.base_url, path, "1.0")
    server = ReplayServer([path], speed=0)
    with BackgroundServer(server.app) as srv:
        async with A2AClient(srv.url, dialect="1.0", binding="rest") as client:
            assert (await client.get_card()).name == "Rest Agent"
            events = [e async for e in client.stream(message("hello stream"))]
            assert client.endpoint == srv.url + "/rest"
            assert events[-1].status.state is m.TaskState.COMPLETED
            asked = await client.send(message("ask me"))
            assert asked.status.state is m.TaskState.INPUT_REQUIRED
            answered = await client.send(message("blue", asked))
            assert answered.id == asked.id and answered.status.state is m.TaskState.COMPLETED
            got = await client.get_task(asked.id, history_length=2)
            assert got.id == asked.id
            try:
                await client.get_task("no-such-task")
                raise AssertionError("a recorded 404 should be served as one")
            except RestError as exc:
                assert (exc.code, exc.http_status) == (-32001, 404)


async def test_diff_resends_rest_exchanges_over_rest(tmp_path: Path) -> None:
    path = tmp_path / "rest.jsonl"
    for dialect in ("1.0", "0.3"):
        async with MockAgent(SCENARIO, dialect=dialect) as mock:
            await record(mock.base_url, path, dialect)
        rec = load_recording(path)
        live = Session()
        async with MockAgent(SCENARIO, dialect=dialect) as mock:
            report = await diff_against(rec, mock.base_url, session=live)
        assert report.equivalent, [d.to_json() for d in report.exchanges]
        assert [d.recorded.method for d in report.exchanges] == ["stream", "send", "send", "get", "get"]
        resent = [e.data for e in live.events if e.kind is Kind.REQUEST and e.data.get("a2a_method") != "card"]
        assert {r.get("binding") for r in resent} == {"rest"}
        path.unlink()


async def test_har_export_holds_rest_exchanges(tmp_path: Path) -> None:
    path = tmp_path / "rest.jsonl"
    async with MockAgent(SCENARIO, dialect="1.0") as mock:
        await record(mock.base_url, path, "1.0")
    har = to_har(load_recording(path).session)
    entries = [e for e in har["log"]["entries"] if "/rest/" in e["request"]["url"]]
    assert [(e["request"]["method"], e["response"]["status"]) for e in entries][-2:] == [("GET", 200), ("GET", 404)]
    send = entries[1]
    assert send["request"]["url"].endswith("/rest/message:send")
    assert send["request"]["postData"]["mimeType"].startswith("application/a2a+json")


async def test_diff_can_resend_a_json_rpc_recording_over_rest(tmp_path: Path) -> None:
    """--binding on replay --against overrides the recorded binding, as --dialect does."""
    path = tmp_path / "rpc.jsonl"
    async with MockAgent(SCENARIO, dialect="1.0") as mock:
        session = Session()
        with Recorder.attach(session, path):
            async with A2AClient(mock.url, session=session, dialect="1.0") as client:
                [e async for e in client.stream(message("hello stream"))]
    rec = load_recording(path)
    live = Session()
    async with MockAgent(SCENARIO, dialect="1.0") as mock:
        report = await diff_against(rec, mock.base_url, session=live, binding="rest")
    assert report.equivalent, [d.to_json() for d in report.exchanges]
    resent = [e.data for e in live.events if e.kind is Kind.REQUEST and e.data.get("a2a_method") == "stream"]
    assert [r.get("binding") for r in resent] == ["rest"]
