"""``a2a-mock --replay``: a recorded session served back by mock_agent/replay.py.

Recordings are made in-process (A2AClient + Recorder, as the TUI records) against the
real a2a-sdk agent and the mock; the replaying server runs in a background thread for
the behaviour tests and as a real ``a2a-mock`` process for the command line ones.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import select
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from inspector.client import A2AClient, TransportError
from inspector.protocol import models as m
from inspector.protocol.errors import JsonRpcError
from inspector.serving.runner import BackgroundServer
from inspector.session import Kind, Recorder, Session, TaskTracker, load_recording
from mock_agent import MockAgent
from mock_agent.replay import ReplayError, ReplayServer
from peers.sdk_agent import DONE_TEXT, QUESTION

REPO = Path(__file__).resolve().parents[1]
MOCK = [sys.executable, "-m", "mock_agent.cli"]


# ---------------------------------------------------------------------- helpers


def message(text: str, task_id: str | None = None, context_id: str | None = None) -> m.SendParams:
    return m.SendParams(
        message=m.Message(
            role=m.Role.USER,
            parts=[m.TextPart(text=text)],
            message_id=str(uuid.uuid4()),
            task_id=task_id,
            context_id=context_id,
        )
    )


async def stream_all(client: A2AClient, params: m.SendParams) -> list[Any]:
    return [event async for event in client.stream(params)]


def task_of(session: Session, number: int = 0) -> Any:
    tracker = TaskTracker(session)
    return list(tracker.tasks.values())[number]


@contextlib.contextmanager
def replaying(*paths: Path, speed: float = 0.0) -> Iterator[tuple[ReplayServer, str]]:
    """A ReplayServer in a background thread: (server, base URL)."""
    server = ReplayServer(list(paths), speed=speed)
    with BackgroundServer(server.app) as srv:
        yield server, srv.url


@contextlib.contextmanager
def mock_process(*args: str, timeout: float = 20.0) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """``a2a-mock --port 0 ARGS`` as a real process: (the URL it prints, the process).
    Stopped (SIGTERM) on exit; its stderr is then in ``proc.stderr_text``."""
    env = {
        **os.environ,
        "PYTHONUNBUFFERED": "1",
        "PYTHONPATH": os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p),
    }
    proc = subprocess.Popen(
        [*MOCK, "--port", "0", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=REPO
    )
    try:
        assert proc.stdout is not None
        ready, _, _ = select.select([proc.stdout], [], [], timeout)
        line = proc.stdout.readline() if ready else ""
        if " at " not in line:
            proc.kill()
            _out, err = proc.communicate(timeout=10)
            raise AssertionError(f"a2a-mock {' '.join(args)} did not start: {line!r} {err[-2000:]!r}")
        yield line.rsplit(" at ", 1)[1].strip(), proc
    finally:
        if proc.poll() is None:
            proc.terminate()
        try:
            _out, err = proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            _out, err = proc.communicate()
        proc.stderr_text = err  # type: ignore[attr-defined]


async def record_multi_turn(url: str, path: Path, dialect: str) -> dict[str, Any]:
    """A TUI-like session: stream "ask me" (input-required), answer on the task, get it,
    then start a second conversation. Returns the recorded ids."""
    session = Session()
    recorder = Recorder.attach(session, path)
    try:
        async with A2AClient(url, session=session, dialect=dialect) as client:
            await stream_all(client, message("ask me"))
            task = task_of(session)
            done = await client.send(message("the answer", task.id, task.context_id))
            assert done.status.state is m.TaskState.COMPLETED
            await client.get_task(task.id)
            await client.send(message("ask me"))
    finally:
        recorder.close()
    return {"task": task.id, "context": task.context_id}


# ---------------------------------------------------------------------- ids


@pytest.mark.parametrize("dialect", ["1.0", "0.3"])
async def test_a_multi_turn_task_continues_on_the_new_clients_ids(
    sdk_agent_compat: str, tmp_path: Path, dialect: str
) -> None:
    path = tmp_path / "multi.jsonl"
    recorded = await record_multi_turn(sdk_agent_compat, path, dialect)
    with replaying(path) as (_server, url):
        seen_tasks = []
        for _run in range(2):
            session = Session()
            async with A2AClient(url, session=session, dialect=dialect) as client:
                events = await stream_all(client, message("ask me"))
                assert events[-1].status.state is m.TaskState.INPUT_REQUIRED
                task = task_of(session)
                assert task.id != recorded["task"] and task.context_id != recorded["context"]
                assert task.status_message.parts[0].text == QUESTION
                answer = message("the answer", task.id, task.context_id)
                done = await client.send(answer)
                # The recorded answer, written in this client's ids.
                assert (done.id, done.context_id) == (task.id, task.context_id)
                assert done.status.state is m.TaskState.COMPLETED
                assert done.status.message.parts[0].text == DONE_TEXT
                assert "".join(p.text for p in done.artifacts[0].parts) == "echo: the answer"
                mine = [h for h in done.history or [] if h.role is m.Role.USER]
                assert answer.message.message_id in {h.message_id for h in mine}
                got = await client.get_task(task.id)
                assert got.id == task.id and got.status.state is m.TaskState.COMPLETED
                again = await client.get_task(task.id)  # more polls than recorded: the same task
                assert (again.id, again.context_id) == (task.id, task.context_id)
                assert again.history[-1].message_id == got.history[-1].message_id
                other = await client.send(message("ask me"))
                assert other.id not in (task.id, recorded["task"])
                assert other.status.state is m.TaskState.INPUT_REQUIRED
                seen_tasks.append(task.id)
                tracker = TaskTracker(session)
                assert not tracker.violations, tracker.violations
        # Two clients walking the same recording get two different tasks.
        assert seen_tasks[0] != seen_tasks[1]


async def test_an_earlier_clients_task_keeps_its_own_context(tmp_path: Path) -> None:
    async with MockAgent("input-required", dialect="0.3") as mock:
        path = tmp_path / "r.jsonl"
        await record_multi_turn(mock.url, path, "0.3")
    with replaying(path) as (_server, url):
        sessions = [Session(), Session()]
        clients = [A2AClient(url, session=s, dialect="0.3") for s in sessions]
        try:
            # Both start before either answers: the second start must not steal the
            # first one's context when the first one continues.
            for client in clients:
                await client.send(message("ask me"))
            for client, session in zip(clients, sessions, strict=True):
                task = task_of(session)
                done = await client.send(message("the answer", task.id))
                assert (done.id, done.context_id) == (task.id, task.context_id)
        finally:
            for client in clients:
                await client.aclose()


async def test_a_task_polled_by_its_recorded_id_keeps_all_its_recorded_ids(tmp_path: Path) -> None:
    path = tmp_path / "get.jsonl"
    async with MockAgent("echo", dialect="0.3") as mock:
        async with A2AClient(mock.url, dialect="0.3") as client:
            task = await client.send(message("hi"))
        session = Session()
        with Recorder.attach(session, path):  # a recording of the get alone, as `a2a-inspect get --record`
            async with A2AClient(mock.url, session=session, dialect="0.3") as client:
                await client.get_task(task.id)
    with replaying(path) as (_server, url):
        async with A2AClient(url, dialect="0.3") as client:
            for _poll in range(3):
                got = await client.get_task(task.id)
                assert (got.id, got.context_id) == (task.id, task.context_id)
                assert got.status.state is m.TaskState.COMPLETED


# ---------------------------------------------------------------------- misses


async def _post(url: str, body: dict[str, Any], headers: dict[str, str] | None = None) -> dict[str, Any]:
    async with httpx.AsyncClient() as http:
        response = await http.post(url, json=body, headers=headers or {})
        return response.json()


async def test_an_unmatched_request_gets_an_error_naming_the_closest(sdk_agent_v10: str, tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    await record_multi_turn(sdk_agent_v10, path, "1.0")
    with replaying(path) as (_server, url):
        async with A2AClient(url, dialect="1.0") as client:
            with pytest.raises(JsonRpcError) as info:
                await client.send(message("ask you"))
            err = info.value
            assert err.code == -32602
            assert err.data["closest"]["text"] == "ask me"
            assert err.data["closest"]["method"] == "SendMessage"
            assert "parts[0].text" in err.data["why"] and "ask you" in err.data["why"]
            assert "ask you" in err.message
            # Continuing a task this replay never created names the id.
            with pytest.raises(JsonRpcError) as info:
                await client.send(message("the answer", "not-a-task", "not-a-context"))
            assert info.value.code == -32602
            assert "not-a-task" in info.value.data["why"]
        # A method the recording never used.
        reply = await _post(
            url + "/", {"jsonrpc": "2.0", "id": "x", "method": "ListTasks", "params": {}}, {"A2A-Version": "1.0"}
        )
        assert reply["id"] == "x" and reply["error"]["code"] == -32601
        assert "not in the recording" in reply["error"]["data"]["why"]
        # The A2A-Version header is part of what was recorded.
        body = {
            "jsonrpc": "2.0",
            "id": 7,
            "method": "SendMessage",
            "params": {"message": {"role": "ROLE_USER", "parts": [{"text": "ask me"}], "messageId": "m-1"}},
        }
        reply = await _post(url + "/", body)
        assert reply["error"]["code"] == -32602 and "A2A-Version" in reply["error"]["data"]["why"]
        reply = await _post(url + "/", body, {"A2A-Version": "1.0"})
        assert reply["id"] == 7 and reply["result"]["task"]["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
        assert reply["result"]["task"]["history"][0]["messageId"] == "m-1"
        bad = await _post(url + "/", [1, 2])  # type: ignore[arg-type]
        assert bad["error"]["code"] == -32600


# ---------------------------------------------------------------------- cards


async def test_the_card_is_served_where_it_was_fetched_with_this_servers_address(tmp_path: Path) -> None:
    async with MockAgent("echo", dialect="0.1") as mock:
        path = tmp_path / "r.jsonl"
        session = Session()
        with Recorder.attach(session, path):
            async with A2AClient(mock.base_url, session=session) as client:
                await client.send(message("hi"))
        recorded_origin = mock.base_url
    with replaying(path) as (server, url):
        assert server.card_paths == ["/.well-known/agent.json"]
        async with httpx.AsyncClient() as http:
            card = await http.get(url + "/.well-known/agent.json")
            assert card.status_code == 200
            assert card.json()["url"].startswith(url) and recorded_origin not in card.text
            # The 0.1 agent had no card at the newer path: neither has its replay.
            assert (await http.get(url + "/.well-known/agent-card.json")).status_code == 404
            missing = await http.get(url + "/nowhere")
            assert missing.status_code == 404 and "not in the recording" in missing.text
        # And a client finds everything as it did: the 0.1 dialect, the same answer.
        session = Session()
        async with A2AClient(url, session=session) as client:
            task = await client.send(message("hi"))
            assert client.dialect.name == "0.1"
            assert task.status.state is m.TaskState.COMPLETED


# ---------------------------------------------------------------------- streams


async def test_named_events_and_heartbeats_are_served_as_recorded(tmp_path: Path) -> None:
    path = tmp_path / "orloj.jsonl"
    async with MockAgent(profile="orloj", time_scale=0.005, heartbeat=0.03) as mock:
        session = Session()
        with Recorder.attach(session, path):
            async with A2AClient(mock.url, session=session, dialect="0.1") as client:
                await stream_all(client, message("slow summary please"))
    recorded = load_recording(path).session
    beats = sum(1 for e in recorded.events if e.kind is Kind.COMMENT)
    assert beats >= 2
    request = next(e for e in recorded.events if e.kind is Kind.REQUEST and e.data["a2a_method"] == "stream")
    body = json.loads(request.data["body"])
    body["id"] = "new-rpc-id"
    body["params"]["id"] = "my-own-task-id"  # 0.1: the client picks the task id
    with replaying(path, speed=4) as (_server, url):
        async with httpx.AsyncClient() as http:
            async with http.stream("POST", url + "/a2a", json=body) as response:
                assert response.headers["content-type"].startswith("text/event-stream")
                raw = b"".join([chunk async for chunk in response.aiter_bytes()])
    assert raw.count(b"event: status\r\ndata: ") == 2
    assert raw.count(b": heartbeat\r\n\r\n") == beats
    events = [json.loads(block.split(b"data: ", 1)[1]) for block in raw.split(b"\r\n\r\n") if b"data: " in block]
    # Orloj sends the task itself (no envelope): its id is the client's, no JSON-RPC id added.
    assert [e["id"] for e in events] == ["my-own-task-id"] * 2
    assert events[-1]["status"]["state"] == "completed"


async def test_speed_scales_the_recorded_pauses(tmp_path: Path) -> None:
    scenario = {
        "card": {"name": "Pauser", "capabilities": {"streaming": True}},
        "rules": [{"script": [{"status": "working"}, {"delay": 0.8}, {"status": "completed"}]}],
    }
    path = tmp_path / "slow.jsonl"
    async with MockAgent(scenario, dialect="0.3") as mock:
        session = Session()
        with Recorder.attach(session, path):
            async with A2AClient(mock.url, session=session, dialect="0.3") as client:
                await stream_all(client, message("go"))
    # The same recording with a ten-minute pause before the task completes: speed 0 must
    # not wait it out. (A bound this far from the recorded time holds under any load;
    # one near it would be a race.)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    last_sse = max(i for i, e in enumerate(lines) if e.get("kind") == "sse")
    for event in lines[last_sse:]:
        event["t"] += 600
    long_pause = tmp_path / "long-pause.jsonl"
    long_pause.write_text("".join(json.dumps(e) + "\n" for e in lines))

    timings = {}
    for speed, recording in ((0, long_pause), (2, path)):
        with replaying(recording, speed=speed) as (_server, url):
            async with A2AClient(url, dialect="0.3") as client:
                await client.resolve_dialect()
                started = time.monotonic()
                async with asyncio.timeout(120):
                    events = await stream_all(client, message("go"))
                timings[speed] = time.monotonic() - started
                assert events[-1].status.state is m.TaskState.COMPLETED
    assert timings[2] >= 0.35, timings  # 0.8 s recorded, played twice as fast: never sooner
    assert timings[0] < 60, timings  # 600 s recorded, not waited for


async def test_a_stream_that_broke_breaks_again(tmp_path: Path) -> None:
    path = tmp_path / "drop.jsonl"
    async with MockAgent("errors", dialect="1.0") as mock:
        session = Session()
        with Recorder.attach(session, path):
            async with A2AClient(mock.url, session=session, dialect="1.0") as client:
                with pytest.raises(TransportError):
                    await stream_all(client, message("drop"))
    with replaying(path) as (_server, url):
        session = Session()
        async with A2AClient(url, session=session, dialect="1.0") as client:
            with pytest.raises(TransportError) as info:
                await stream_all(client, message("drop"))
            assert info.value.kind == "stream"
        ends = [e for e in session.events if e.kind is Kind.STREAM_END]
        assert ends and ends[-1].data["reason"] == "error"
        assert task_of(session).artifacts  # the half that arrived before the cut


# ---------------------------------------------------------------------- loading


def test_a_missing_or_foreign_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ReplayError, match="no such file"):
        ReplayServer(tmp_path / "nope.jsonl")
    foreign = tmp_path / "x.jsonl"
    foreign.write_text('{"hello": 1}\n')
    with pytest.raises(ReplayError, match="not an a2a-inspect recording"):
        ReplayServer(foreign)
    with pytest.raises(ReplayError, match="speed"):
        ReplayServer(foreign, speed=-1)


def test_the_command_line_serves_a_damaged_recording_and_says_what_was_skipped(tmp_path: Path) -> None:
    path = tmp_path / "damaged.jsonl"
    with MockAgent("echo", dialect="0.3") as mock:
        session = Session()
        with Recorder.attach(session, path):
            asyncio.run(_send_once(mock.url, session))
            session.append(Kind.NOTE, {"text": "the line a kill -9 cuts off"})
    lines = path.read_bytes().split(b"\n")
    lines[1] = b'{"seq": 1, "t": oops'  # the first card GET, damaged
    data = b"\n".join(lines)
    path.write_bytes(data[:-20])  # and the last line cut off
    rec = load_recording(path)
    assert rec.truncated and len(rec.problems) == 2
    with mock_process("--replay", str(path), "--speed", "0") as (url, proc):
        assert url.endswith("/")
        reply = httpx.post(
            url,
            json=json.loads(
                next(
                    e.data["body"]
                    for e in rec.session.events
                    if e.kind is Kind.REQUEST and e.data["a2a_method"] == "send"
                )
            ),
            headers={"Content-Type": "application/json"},
            timeout=10,
        )
        assert reply.json()["result"]["status"]["state"] == "completed"
    err = proc.stderr_text  # type: ignore[attr-defined]
    assert "line 2:" in err and "not a valid event line" in err
    assert "incomplete last line" in err


async def _send_once(url: str, session: Session) -> None:
    async with A2AClient(url, session=session, dialect="0.3") as client:
        await client.send(message("hi"))


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("--replay", "/no/such/recording.jsonl"), "no such file"),
        (("--replay", "x.jsonl", "--scenario", "echo"), "does not take --scenario"),
        (("--replay", "x.jsonl", "--speed", "-1"), "--speed"),
    ],
)
def test_command_line_usage_errors(args: tuple[str, ...], needle: str) -> None:
    result = subprocess.run([*MOCK, *args, "--port", "0"], capture_output=True, text=True, timeout=30, cwd=REPO)
    assert result.returncode == 1 and needle in result.stderr, result
    assert "Traceback" not in result.stderr


def test_a_taken_port_is_one_line_and_exit_1(tmp_path: Path) -> None:
    import socket

    path = tmp_path / "r.jsonl"
    with MockAgent("echo", dialect="0.3") as mock:
        session = Session()
        with Recorder.attach(session, path):
            asyncio.run(_send_once(mock.url, session))
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        r = subprocess.run(
            [*MOCK, "--replay", str(path), "--port", str(port)], capture_output=True, text=True, timeout=30, cwd=REPO
        )
    assert r.returncode == 1, r
    assert r.stderr.strip().splitlines()[-1] == f"a2a-mock: cannot listen on 127.0.0.1:{port}: Address already in use"
    assert "Traceback" not in r.stderr
