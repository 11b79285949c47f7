"""Each seed system's profile, on the wire as its documentation shows it."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator

import httpx
import pytest

from inspector.protocol import models as m
from inspector.protocol.methods import Method
from mock_agent import MockAgent
from test_mock_support import Wire, parse_sse

FAST = 0.01


@pytest.fixture(scope="module")
def client() -> Iterator[httpx.Client]:
    with httpx.Client(timeout=10) as c:
        yield c


def rpc(client: httpx.Client, url: str, method: str, params: dict | None = None, rid: object = 1) -> dict:
    body: dict = {"jsonrpc": "2.0", "id": rid, "method": method}
    if params is not None:
        body["params"] = params
    response = client.post(url, json=body)
    assert response.status_code == 200, response.text
    return response.json()


def send01(task_id: str, text: str, **extra: object) -> dict:
    return {"id": task_id, "message": {"role": "user", "parts": [{"type": "text", "text": text}]}, **extra}


# ----------------------------------------------------------------------- society (000)


@pytest.fixture(scope="module")
def society() -> Iterator[MockAgent]:
    with MockAgent(profile="society") as mock:
        yield mock


def test_society_card_is_exactly_the_documented_one(society: MockAgent, client: httpx.Client) -> None:
    assert society.card_url == society.base_url + "/.well-known/agent.json"
    card = client.get(society.card_url).json()
    assert card == {
        "name": "claude",
        "description": "Claude Code agent",
        "url": society.url,
        "skills": [{"id": "code", "name": "Code Assistant"}],
        "capabilities": {"streaming": False, "pushNotifications": False},
    }


def test_society_tasks_send_answers_in_its_own_shape(society: MockAgent, client: httpx.Client) -> None:
    body = rpc(client, society.url, "tasks/send", send01("task-123", "Hello, agent"), rid="task-123")
    assert body["id"] == "task-123"
    result = body["result"]
    assert result == {
        "id": "task-123",
        "status": {"state": "completed", "message": ""},
        "messages": [],
        "artifacts": [
            {"name": "response", "parts": [{"type": "text", "text": "Hello! I'm the agent. You said: Hello, agent"}]}
        ],
    }


@pytest.mark.parametrize(
    "method",
    [
        "tasks/get",
        "tasks/sendSubscribe",
        "tasks/cancel",
        "tasks/resubscribe",
        "tasks/pushNotification/set",
        "message/send",
        "SendMessage",
        "unknown/method",
    ],
)
def test_society_answers_everything_else_with_32601(society: MockAgent, client: httpx.Client, method: str) -> None:
    body = rpc(client, society.url, method, {"id": "task-123"}, rid="task-123")
    assert body["error"] == {"code": -32601, "message": f"method not found: {method}"}


def test_society_body_limit(society: MockAgent, client: httpx.Client) -> None:
    big = send01("big", "x" * (1024 * 1024))
    response = client.post(society.url, json={"jsonrpc": "2.0", "id": "big", "method": "tasks/send", "params": big})
    assert response.status_code == 413


def test_society_times_out_a_send_after_its_limit(client: httpx.Client) -> None:
    slow = {"card": {"name": "claude"}, "rules": [{"script": [{"delay": 60}, {"status": "completed"}]}]}
    with MockAgent(slow, profile="society", time_scale=1.0) as mock:
        mock.server.profile = dataclasses.replace(mock.server.profile, request_timeout=0.2)
        body = rpc(client, mock.url, "tasks/send", send01("t", "hi"))
        assert body["error"]["code"] == -32603 and "timed out" in body["error"]["message"]


# ----------------------------------------------------------------------- society-ai (001)


@pytest.fixture(scope="module")
def society_ai() -> Iterator[MockAgent]:
    with MockAgent(profile="society-ai", time_scale=FAST) as mock:
        yield mock


def test_society_ai_keeps_the_session_and_extends_the_metadata(society_ai: MockAgent, client: httpx.Client) -> None:
    params = send01(
        "t-ai-1",
        "What is quantum computing?",
        sessionId="session-1",
        metadata={
            "requester": {"name": "ai-chatbot"},
            "executor": {"name": "research-agent"},
            "skill_used": "research-topic",
            "user_id": "user-1",
        },
    )
    task = rpc(client, society_ai.url, "tasks/send", params)["result"]
    assert task["id"] == "t-ai-1" and task["sessionId"] == "session-1"
    meta = task["metadata"]
    assert meta["requester"] == {"name": "ai-chatbot"} and meta["executor"] == {"name": "research-agent"}
    assert meta["skill_used"] == "research-topic" and meta["user_id"] == "user-1"
    assert set(meta["cost"]) >= {"amount", "currency"}


def test_society_ai_lists_tasks(society_ai: MockAgent, client: httpx.Client) -> None:
    rpc(client, society_ai.url, "tasks/send", send01("t-ai-list", "hello", sessionId="session-list"))
    listed = rpc(client, society_ai.url, "tasks/list", {"sessionId": "session-list"})["result"]
    assert [t["id"] for t in listed["tasks"]] == ["t-ai-list"]
    assert listed["tasks"][0]["sessionId"] == "session-list"


def test_society_ai_streams_and_resubscribes_with_its_spelling(client: httpx.Client) -> None:
    with MockAgent(profile="society-ai", time_scale=1.0) as mock:
        w = Wire(client, mock.url, "0.1")
        task = w.task_of(w.send("clarify please", task_id="t-ai-2"))
        assert task["status"]["state"] == "input-required"
        assert rpc(client, mock.url, "tasks/resubscribe", {"id": "t-ai-2"})["error"]["code"] == -32601
        response = client.post(
            mock.url, json={"jsonrpc": "2.0", "id": 2, "method": "task/resubscribe", "params": {"id": "t-ai-2"}}
        )
        [event] = parse_sse(response.content)
        assert event.json()["result"]["status"]["state"] == "input-required"
        with client.stream(
            "POST",
            mock.url,
            json={"jsonrpc": "2.0", "id": 3, "method": "tasks/sendSubscribe", "params": send01("t-ai-3", "papers")},
        ) as stream:
            events = parse_sse(stream.read())
        results = [e.json()["result"] for e in events]
        assert results[1]["status"]["message"]["parts"] == [{"type": "text", "text": "Researching..."}]
        assert results[-1]["final"] is True and results[-1]["status"]["state"] == "completed"


@pytest.mark.parametrize("method", ["tasks/pushNotification/set", "tasks/pushNotification/get", "message/send"])
def test_society_ai_has_no_push_methods(society_ai: MockAgent, client: httpx.Client, method: str) -> None:
    assert rpc(client, society_ai.url, method, {"id": "x"})["error"]["code"] == -32601


# ----------------------------------------------------------------------- draft (002, 004)


def test_draft_serves_every_method_of_the_01_draft(client: httpx.Client) -> None:
    with MockAgent(profile="draft", time_scale=FAST) as mock:
        card = client.get(mock.base_url + "/.well-known/agent.json").json()
        assert card["capabilities"] == {"streaming": True, "pushNotifications": True}
        joke = rpc(client, mock.url, "tasks/send", send01("d-1", "tell me a joke"))["result"]
        assert joke["artifacts"][0]["name"] == "joke" and joke["status"]["state"] == "completed"
        assert rpc(client, mock.url, "tasks/get", {"id": "d-1", "historyLength": 10})["result"]["history"]
        ask = rpc(client, mock.url, "tasks/send", send01("d-2", "request a new phone for me"))["result"]
        assert ask["status"]["message"]["parts"][0]["text"] == "Select a phone type (iPhone/Android)"
        assert rpc(client, mock.url, "tasks/cancel", {"id": "d-2"})["result"]["status"]["state"] == "canceled"
        with client.stream(
            "POST",
            mock.url,
            json={
                "jsonrpc": "2.0",
                "id": 9,
                "method": "tasks/sendSubscribe",
                "params": send01("d-3", "write a long paper"),
            },
        ) as stream:
            results = [e.json()["result"] for e in parse_sse(stream.read())]
        arts = [r["artifact"] for r in results if "artifact" in r]
        assert [(a["append"], a["lastChunk"]) for a in arts] == [(False, False), (True, False), (True, True)]
        assert rpc(client, mock.url, "tasks/pushNotification/get", {"id": "d-1"})["error"]["code"] == -32602
        for method in ("tasks/list", "task/resubscribe", "message/send"):
            assert rpc(client, mock.url, method, {"id": "d-1"})["error"]["code"] == -32601


# ----------------------------------------------------------------------- orloj (003)


@pytest.fixture(scope="module")
def orloj() -> Iterator[MockAgent]:
    with MockAgent(profile="orloj", time_scale=FAST, heartbeat=0.05) as mock:
        yield mock


@pytest.mark.parametrize("path", ["/a2a", "/v1/agent-systems/summarizer/a2a", "/v1/agents/summarizer/a2a"])
def test_orloj_endpoints(orloj: MockAgent, client: httpx.Client, path: str) -> None:
    body = rpc(client, orloj.base_url + path, "tasks/send", send01(f"o{len(path)}", "Summarize this"))
    assert body["result"]["status"]["state"] == "completed"
    assert "sessionId" not in body["result"]


def test_orloj_unknown_agent_system_is_32003(orloj: MockAgent, client: httpx.Client) -> None:
    body = rpc(client, orloj.base_url + "/v1/agent-systems/nobody/a2a", "tasks/send", send01("x", "hi"))
    assert body["error"]["code"] == -32003 and body["error"]["message"] == "agent not found"


def test_orloj_root_path_is_not_an_endpoint(orloj: MockAgent, client: httpx.Client) -> None:
    assert client.post(orloj.base_url + "/", json={"jsonrpc": "2.0", "id": 1, "method": "tasks/get"}).status_code == 404


def test_orloj_streams_named_status_events_with_the_whole_task(orloj: MockAgent, client: httpx.Client) -> None:
    with client.stream(
        "POST",
        orloj.url,
        json={"jsonrpc": "2.0", "id": "s", "method": "tasks/sendSubscribe", "params": send01("o-stream", "Summarize")},
    ) as stream:
        events = parse_sse(stream.read())
    assert {e.event for e in events} == {"status"}
    tasks = [e.json() for e in events]
    assert "jsonrpc" not in tasks[0]  # the task itself, no envelope
    assert [t["status"]["state"] for t in tasks] == ["working", "completed"]
    assert tasks[-1]["artifacts"][0]["parts"][0]["text"] == "Here is the summary of: Summarize"
    assert all(t["id"] == "o-stream" for t in tasks)


def test_orloj_heartbeat_comments(orloj: MockAgent, client: httpx.Client) -> None:
    with client.stream(
        "POST",
        orloj.url,
        json={
            "jsonrpc": "2.0",
            "id": "s",
            "method": "tasks/sendSubscribe",
            "params": send01("o-slow", "slow summary please"),
        },
    ) as stream:
        raw = stream.read()
    assert b": heartbeat\r\n\r\n" in raw and raw.count(b": heartbeat") >= 3
    assert b"event: status\r\ndata: " in raw


def test_orloj_default_heartbeat_is_fifteen_seconds() -> None:
    assert MockAgent(profile="orloj").server.heartbeat == 15.0


def test_orloj_rejected_state(orloj: MockAgent, client: httpx.Client) -> None:
    task = rpc(client, orloj.url, "tasks/send", send01("o-rej", "reject this one"))["result"]
    assert task["status"]["state"] == "rejected" and task["artifacts"] == []


def test_orloj_errors_and_notifications(orloj: MockAgent, client: httpx.Client) -> None:
    missing = rpc(client, orloj.url, "tasks/get", {"id": "a2a-task-unknown"}, rid="req-4")
    assert missing == {
        "jsonrpc": "2.0",
        "id": "req-4",
        "error": {"code": -32001, "message": "task not found", "data": {"task_id": "a2a-task-unknown"}},
    }
    response = client.post(
        orloj.url, json={"jsonrpc": "2.0", "method": "tasks/send", "params": send01("o-note", "fire and forget")}
    )
    assert response.status_code == 204 and response.content == b""
    for method in ("tasks/pushNotification/set", "tasks/resubscribe"):
        assert rpc(client, orloj.url, method, {"id": "x"})["error"]["code"] == -32601


def test_orloj_decodes_with_the_01_codec(orloj: MockAgent, client: httpx.Client) -> None:
    # The inspector reads Orloj's full-task events through the 0.1 codec.
    w = Wire(client, orloj.url, "0.1")
    response, events = w.stream_call(Method.STREAM, m.SendParams(message=w.message("Summarize", task_id="o-codec")))
    decoded = [w.codec.decode_event(e.json()) for e in events]
    assert all(isinstance(d, m.Task) for d in decoded) and decoded[-1].status.state is m.TaskState.COMPLETED


def test_profile_and_other_dialect_conflict() -> None:
    with pytest.raises(ValueError, match=re.escape("0.1 dialect only")):
        MockAgent(profile="society", dialect="1.0")
