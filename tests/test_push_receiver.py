"""The local push receiver: every POST under its secret path is one PUSH event, decoded
in the session's dialect, applied by the tracker; anything else is refused."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

import httpx

from inspector.client import A2AClient
from inspector.client.push_receiver import PushReceiver, latest_dialect, token_of
from inspector.protocol import models as m
from inspector.protocol.errors import ProtocolError
from inspector.session import Kind, Session, TaskTracker, load_recording
from inspector.session.payloads import push_payload
from inspector.session.recorder import Recorder
from mock_agent import MockAgent


async def wait_for(predicate, timeout: float = 10.0, what: str = "condition"):
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not (value := predicate()):
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.02)
    return value


def status_body(task_id: str, state: str) -> dict:
    return {
        "kind": "status-update",
        "taskId": task_id,
        "contextId": "c1",
        "status": {"state": state},
        "final": state == "completed",
    }


async def test_post_becomes_a_push_event_decoded_in_the_connection_dialect() -> None:
    session = Session()
    tracker = TaskTracker(session)
    receiver = PushReceiver(session, dialect="0.3")
    url = await receiver.start()
    try:
        assert url.startswith("http://127.0.0.1:") and url.endswith(f"/{receiver.secret}/")
        token = receiver.issue_token("t1")
        async with httpx.AsyncClient() as http:
            for state in ("working", "completed"):
                resp = await http.post(
                    receiver.url_for("t1"), json=status_body("t1", state), headers={"X-A2A-Notification-Token": token}
                )
                assert resp.status_code == 200
        pushes = [e for e in session.events if e.kind is Kind.PUSH]
        assert len(pushes) == 2 == len(receiver.received)
        first = pushes[0]
        assert first.data["url"] == receiver.url_for("t1")
        assert token_of(first.data["headers"]) == token
        assert json.loads(first.data["body"])["status"]["state"] == "working"
        assert isinstance(first.payload, m.TaskStatusUpdateEvent)
        assert receiver.check_token(first) == "ok"
        # The tracker applies pushes: they are the task's timeline.
        task = tracker.task("t1")
        assert task is not None and task.state is m.TaskState.COMPLETED
        assert [c.seq for c in task.timeline] == [p.seq for p in pushes]
    finally:
        await receiver.stop()
    assert not receiver.running


async def test_tokens_paths_and_methods_are_judged_not_trusted() -> None:
    session = Session()
    receiver = PushReceiver(session, dialect="0.3")
    await receiver.start()
    try:
        receiver.issue_token("t1")
        base = receiver.url.rsplit("/", 2)[0]  # http://127.0.0.1:PORT
        async with httpx.AsyncClient() as http:
            bad = await http.post(
                receiver.url_for("t1"), json=status_body("t1", "working"), headers={"X-A2A-Notification-Token": "guess"}
            )
            none = await http.post(receiver.url + "deeper/path", json=status_body("t1", "working"))
            garbage = await http.post(receiver.url, content=b"\xff\xfe not json")
            stray = await http.post(base + "/somewhere-else", json={})
            get = await http.get(receiver.url)
            check = await http.get(receiver.url, params={"validationToken": "abc"})
        assert [bad.status_code, none.status_code, garbage.status_code] == [200, 200, 200]
        assert stray.status_code == 404 and get.status_code == 405
        assert check.status_code == 200 and check.text == "abc"
        pushes = [e for e in session.events if e.kind is Kind.PUSH]
        assert len(pushes) == 3
        assert receiver.check_token(pushes[0]) == "wrong"
        assert receiver.check_token(pushes[1]) == "missing"
        assert pushes[1].data["path"].endswith("/deeper/path")
        assert pushes[2].data["body_encoding"] == "base64"  # not UTF-8: kept byte for byte
        assert isinstance(pushes[2].payload, ProtocolError)
        assert any(e.kind is Kind.NOTE and "validation" in e.data["text"] for e in session.events)
    finally:
        await receiver.stop()


def test_payload_follows_the_latest_request_dialect_like_replay() -> None:
    session = Session()
    assert latest_dialect(session) is None
    session.append(Kind.REQUEST, {"method": "POST", "dialect": "1.0"}, exchange=1)
    session.append(Kind.REQUEST, {"method": "GET", "a2a_method": "card"}, exchange=2)
    assert latest_dialect(session) == "1.0"
    body = json.dumps({"statusUpdate": {"taskId": "t", "contextId": "c", "status": {"state": "TASK_STATE_WORKING"}}})
    payload = push_payload("1.0", {"body": body})
    assert isinstance(payload, m.TaskStatusUpdateEvent) and payload.status.state is m.TaskState.WORKING
    assert push_payload(None, {"body": body}) is None
    assert push_payload("9.9", {"body": body}) is None


async def test_end_to_end_with_the_mock_and_replay_agrees(tmp_path) -> None:
    session = Session()
    tracker = TaskTracker(session)
    path = tmp_path / "push.jsonl"
    recorder = Recorder.attach(session, path)
    # The task waits at a gate until its push config is set: every later step is pushed.
    pushed = {
        "name": "pushed",
        "card": {"name": "Pushed", "capabilities": {"pushNotifications": True}},
        "rules": [
            {
                "script": [
                    {"hold": "registered"},
                    {"status": "working"},
                    {"chunks": {"name": "echo", "texts": ["echo: ", "{text}"]}},
                    {"status": "completed", "message": "done"},
                ]
            }
        ],
    }
    async with MockAgent(pushed, dialect="all") as mock:
        receiver = PushReceiver(session)
        await receiver.start()
        client = A2AClient(mock.url, session=session, dialect="0.3")
        try:
            params = m.SendParams(
                message=m.Message(role=m.Role.USER, parts=[m.TextPart(text="hello")], message_id="m1"),
                configuration=m.SendConfiguration(blocking=False),
            )
            task = await client.send(params)
            assert isinstance(task, m.Task) and task.status.state not in (m.TaskState.COMPLETED,)
            config = m.PushNotificationConfig(url=receiver.url_for(task.id), token=receiver.issue_token(task.id))
            await client.set_push(task.id, config)
            await wait_for(lambda: mock.held("registered") == 1, what="the task waiting")
            mock.release("registered")
            await wait_for(lambda: tracker.task(task.id).state is m.TaskState.COMPLETED, what="completed by push")
        finally:
            await client.aclose()
            await receiver.stop()
    recorder.close()
    pushes = [e for e in session.events if e.kind is Kind.PUSH]
    assert pushes and all(receiver.check_token(p) == "ok" for p in pushes)
    assert tracker.task(task.id).timeline[-1].seq == pushes[-1].seq
    replay = load_recording(path)
    replayed = [e for e in replay.session.events if e.kind is Kind.PUSH]
    assert [type(e.payload) for e in replayed] == [type(e.payload) for e in pushes]
    assert TaskTracker(replay.session).task(task.id).state is m.TaskState.COMPLETED


def test_receiver_module_is_headless() -> None:
    code = (
        "import sys, inspector.client.push_receiver\n"
        "print(any(n == 'textual' or n.startswith('textual.') for n in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


async def test_a_start_cut_short_leaves_nothing_listening() -> None:
    # The app cancels a start still under way when its connection closes.
    receiver = PushReceiver(Session())
    start = asyncio.ensure_future(receiver.start())
    await asyncio.sleep(0)  # the start has made its server task and waits for it to listen
    assert any(t.get_name() == "a2a-uvicorn" for t in asyncio.all_tasks())
    start.cancel()
    try:
        await start
    except asyncio.CancelledError:
        pass
    assert not receiver.running
    assert not [t for t in asyncio.all_tasks() if t.get_name() == "a2a-uvicorn" and not t.done()]
