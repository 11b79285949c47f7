"""The a2a-sdk peer answers like the captured Echo Agent (/work/shared/wire-captures).

Raw httpx, no inspector code: these tests pin the peer itself, so that inspector tests
run against it can trust what it sends. Each assertion mirrors a capture."""

from __future__ import annotations

import asyncio
import json
import uuid
from typing import Any

import httpx
import pytest

from peers.sdk_agent import (
    CANCELED_TEXT,
    FAILED_TEXT,
    QUESTION,
    artifact_id_for,
    echo_chunks,
    release,
    wait_parked,
)

V10 = {"A2A-Version": "1.0"}


# --- helpers ----------------------------------------------------------------------------


def msg03(text: str, **ids: str) -> dict[str, Any]:
    return {
        "kind": "message",
        "role": "user",
        "messageId": f"m-{uuid.uuid4()}",
        "parts": [{"kind": "text", "text": text}],
        **ids,
    }


def msg10(text: str, **ids: str) -> dict[str, Any]:
    return {"role": "ROLE_USER", "messageId": f"m-{uuid.uuid4()}", "parts": [{"text": text}], **ids}


def envelope(method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": str(uuid.uuid4()), "method": method, "params": params}


def rpc(url: str, method: str, params: dict[str, Any], headers: dict[str, str] | None = None) -> dict[str, Any]:
    body = envelope(method, params)
    r = httpx.post(f"{url}/", json=body, headers=headers, timeout=5)
    assert r.status_code == 200, r.text
    reply = r.json()
    assert reply["id"] == body["id"] and reply["jsonrpc"] == "2.0"
    return reply


def result(reply: dict[str, Any]) -> dict[str, Any]:
    assert "error" not in reply, reply
    return reply["result"]


def rpc_stream(
    url: str, method: str, params: dict[str, Any], headers: dict[str, str] | None = None, on_first: Any = None
) -> list[dict[str, Any]]:
    """The stream's JSON-RPC responses; ``on_first`` runs once the first has arrived."""
    body = envelope(method, params)
    events = []
    with httpx.stream("POST", f"{url}/", json=body, headers=headers, timeout=5) as r:
        assert r.status_code == 200
        assert r.headers["content-type"].startswith("text/event-stream")
        for line in r.iter_lines():
            if line.startswith("data:"):
                event = json.loads(line[len("data:") :])
                assert event["id"] == body["id"]
                events.append(event)
                if on_first is not None:
                    on_first()
                    on_first = None
    return events


def texts(parts: list[dict[str, Any]]) -> list[str]:
    return [p["text"] for p in parts]


# --- echo chunking (pure) -----------------------------------------------------------------


@pytest.mark.parametrize(
    "text, chunks",
    [
        ("hello there inspector", ["echo: hello ", "there ", "inspector"]),  # capture 02
        ("stream me please now", ["echo: stream ", "me please ", "now"]),  # capture 03
        ("the answer", ["echo: ", "the ", "answer"]),  # capture 10
        ("notify", ["echo: ", "notify ", "."]),  # capture 31
    ],
)
def test_echo_chunks_match_captures(text: str, chunks: list[str]) -> None:
    assert echo_chunks(text) == chunks


# --- agent card ---------------------------------------------------------------------------


def test_card_uses_bound_url_and_matches_mode(sdk_agent: tuple[str, str]) -> None:
    mode, url = sdk_agent
    r = httpx.get(f"{url}/.well-known/agent-card.json")
    assert r.status_code == 200
    card = r.json()
    assert card["name"] == "Echo Agent"
    assert card["capabilities"] == {"streaming": True, "pushNotifications": False}
    versions = ["1.0", "0.3"] if mode == "compat" else ["1.0"]
    assert card["supportedInterfaces"] == [
        {"url": u, "protocolBinding": b, "protocolVersion": v}
        for v in versions
        for u, b in ((f"{url}/", "JSONRPC"), (f"{url}/rest", "HTTP+JSON"))
    ]
    legacy = httpx.get(f"{url}/.well-known/agent.json")
    if mode == "compat":
        # 0.3 readers take the top-level fields; the card is the same at both paths.
        assert card["url"] == f"{url}/"
        assert (card["protocolVersion"], card["preferredTransport"]) == ("0.3", "JSONRPC")
        assert card["additionalInterfaces"] == [{"transport": "HTTP+JSON", "url": f"{url}/rest"}]
        assert legacy.status_code == 200 and legacy.json() == card
    else:
        assert not {"url", "protocolVersion", "preferredTransport", "additionalInterfaces"} & card.keys()
        assert legacy.status_code == 404


def test_card_revalidates_with_etag(sdk_agent_compat: str) -> None:
    first = httpx.get(f"{sdk_agent_compat}/.well-known/agent-card.json")
    etag = first.headers["etag"]
    assert etag.startswith('W/"')
    again = httpx.get(f"{sdk_agent_compat}/.well-known/agent-card.json", headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.content == b""


# --- send ---------------------------------------------------------------------------------


def test_v03_message_send_completes_with_three_chunk_echo(sdk_agent_compat: str) -> None:
    task = result(rpc(sdk_agent_compat, "message/send", {"message": msg03("hello there inspector")}))
    assert task["kind"] == "task"
    assert task["status"]["state"] == "completed"
    assert texts(task["status"]["message"]["parts"]) == ["done"]
    assert task["artifacts"] == [
        {
            "artifactId": artifact_id_for(task["id"]),
            "name": "echo",
            "parts": [{"kind": "text", "text": t} for t in ("echo: hello ", "there ", "inspector")],
        }
    ]
    assert [texts(m["parts"]) for m in task["history"]] == [["hello there inspector"], ["echoing..."]]
    assert [m["role"] for m in task["history"]] == ["user", "agent"]


def test_v10_send_message_completes_with_three_chunk_echo(sdk_agent: tuple[str, str]) -> None:
    _, url = sdk_agent
    reply = result(rpc(url, "SendMessage", {"message": msg10("hello one oh")}, V10))
    task = reply["task"]
    assert task["status"]["state"] == "TASK_STATE_COMPLETED"
    assert texts(task["status"]["message"]["parts"]) == ["done"]
    assert task["artifacts"] == [
        {
            "artifactId": artifact_id_for(task["id"]),
            "name": "echo",
            "parts": [{"text": "echo: hello "}, {"text": "one "}, {"text": "oh"}],
        }
    ]
    assert [m["role"] for m in task["history"]] == ["ROLE_USER", "ROLE_AGENT"]


def test_fail_keyword_fails_the_task(sdk_agent: tuple[str, str]) -> None:
    _, url = sdk_agent
    task = result(rpc(url, "SendMessage", {"message": msg10("fail please")}, V10))["task"]
    assert task["status"]["state"] == "TASK_STATE_FAILED"
    assert texts(task["status"]["message"]["parts"]) == [FAILED_TEXT]
    assert "artifacts" not in task


def test_msg_keyword_replies_with_a_message(sdk_agent: tuple[str, str]) -> None:
    mode, url = sdk_agent
    reply = result(rpc(url, "SendMessage", {"message": msg10("msg with parts")}, V10))
    assert set(reply) == {"message"}
    message = reply["message"]
    assert message["role"] == "ROLE_AGENT" and message["messageId"].startswith("reply-")
    assert texts(message["parts"]) == ["echo: msg with parts"]
    assert "taskId" not in message
    if mode == "compat":
        old = result(rpc(url, "message/send", {"message": msg03("msg hi")}))
        assert old["kind"] == "message" and texts(old["parts"]) == ["echo: msg hi"]


# --- streaming ----------------------------------------------------------------------------


def test_v03_message_stream_sequence(sdk_agent_compat: str) -> None:
    events = [
        e["result"] for e in rpc_stream(sdk_agent_compat, "message/stream", {"message": msg03("stream me please now")})
    ]
    assert [e["kind"] for e in events] == [
        "task",
        "status-update",
        "artifact-update",
        "artifact-update",
        "artifact-update",
        "status-update",
    ]
    submitted, working, *chunks, completed = events
    task_id = submitted["id"]
    assert submitted["status"] == {"state": "submitted"}
    assert (working["status"]["state"], working["final"]) == ("working", False)
    assert texts(working["status"]["message"]["parts"]) == ["echoing..."]
    # 0.3 spells out the defaults that 1.0 omits.
    assert [(c["append"], c["lastChunk"]) for c in chunks] == [(False, False), (True, False), (True, True)]
    assert [texts(c["artifact"]["parts"]) for c in chunks] == [["echo: stream "], ["me please "], ["now"]]
    assert {c["artifact"]["artifactId"] for c in chunks} == {artifact_id_for(task_id)}
    assert (completed["status"]["state"], completed["final"]) == ("completed", True)
    assert {e["taskId"] for e in (working, *chunks, completed)} == {task_id}


def test_v10_streaming_sequence(sdk_agent: tuple[str, str]) -> None:
    _, url = sdk_agent
    events = [e["result"] for e in rpc_stream(url, "SendStreamingMessage", {"message": msg10("stream in one oh")}, V10)]
    assert [next(iter(e)) for e in events] == [
        "task",
        "statusUpdate",
        "artifactUpdate",
        "artifactUpdate",
        "artifactUpdate",
        "statusUpdate",
    ]
    submitted, working, *chunks, completed = (next(iter(e.values())) for e in events)
    task_id = submitted["id"]
    assert submitted["status"] == {"state": "TASK_STATE_SUBMITTED"}
    assert working["status"]["state"] == "TASK_STATE_WORKING"
    # proto3 JSON omits false: the first chunk carries neither flag.
    flags = [(c.get("append"), c.get("lastChunk")) for c in chunks]
    assert flags == [(None, None), (True, None), (True, True)]
    assert [texts(c["artifact"]["parts"]) for c in chunks] == [["echo: stream "], ["in one "], ["oh"]]
    assert {c["artifact"]["artifactId"] for c in chunks} == {artifact_id_for(task_id)}
    assert completed["status"]["state"] == "TASK_STATE_COMPLETED"
    assert "final" not in completed


# --- input-required -----------------------------------------------------------------------


def test_v03_ask_then_follow_up_on_same_task(sdk_agent_compat: str) -> None:
    url = sdk_agent_compat
    asked = result(rpc(url, "message/send", {"message": msg03("ask me something")}))
    assert asked["status"]["state"] == "input-required"
    assert texts(asked["status"]["message"]["parts"]) == [QUESTION]
    ids = {"taskId": asked["id"], "contextId": asked["contextId"]}

    peek = result(rpc(url, "tasks/get", {"id": asked["id"], "historyLength": 1}))
    assert peek["status"]["state"] == "input-required"
    assert [texts(m["parts"]) for m in peek["history"]] == [["ask me something"]]

    done = result(rpc(url, "message/send", {"message": msg03("the answer", **ids)}))
    assert (done["id"], done["status"]["state"]) == (asked["id"], "completed")
    assert texts(done["artifacts"][0]["parts"]) == ["echo: ", "the ", "answer"]
    # The question moves from status into history when the answer arrives.
    assert [texts(m["parts"]) for m in done["history"]] == [
        ["ask me something"],
        [QUESTION],
        ["the answer"],
        ["echoing..."],
    ]


def test_v10_ask_then_follow_up_and_get_with_history_length(sdk_agent: tuple[str, str]) -> None:
    _, url = sdk_agent
    asked = result(rpc(url, "SendMessage", {"message": msg10("ask v1")}, V10))["task"]
    assert asked["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
    assert texts(asked["status"]["message"]["parts"]) == [QUESTION]
    ids = {"taskId": asked["id"], "contextId": asked["contextId"]}

    # "ask" in an answer is data, not a command.
    done = result(rpc(url, "SendMessage", {"message": msg10("ask again", **ids)}, V10))["task"]
    assert (done["id"], done["status"]["state"]) == (asked["id"], "TASK_STATE_COMPLETED")
    assert texts(done["artifacts"][0]["parts"]) == ["echo: ", "ask ", "again"]

    full = result(rpc(url, "GetTask", {"id": asked["id"]}, V10))
    assert [texts(m["parts"]) for m in full["history"]] == [["ask v1"], [QUESTION], ["ask again"], ["echoing..."]]
    last = result(rpc(url, "GetTask", {"id": asked["id"], "historyLength": 1}, V10))
    assert [texts(m["parts"]) for m in last["history"]] == [["echoing..."]]
    none = result(rpc(url, "GetTask", {"id": asked["id"], "historyLength": 0}, V10))
    assert "history" not in none and none["artifacts"] == full["artifacts"]


def test_v03_stream_ask_ends_at_input_required(sdk_agent_compat: str) -> None:
    events = [e["result"] for e in rpc_stream(sdk_agent_compat, "message/stream", {"message": msg03("ask via stream")})]
    assert [e["kind"] for e in events] == ["task", "status-update"]
    # Capture 53: the SDK sends final=false here although the stream then closes.
    assert (events[1]["status"]["state"], events[1]["final"]) == ("input-required", False)


# --- cancel and subscribe -----------------------------------------------------------------


async def test_cancel_running_slow_task_mid_stream(sdk_agent: tuple[str, str]) -> None:
    _, url = sdk_agent
    # The peer holds the task before each chunk: the first is let go once the task runs,
    # and the cancel surely lands before the second.
    body = envelope("SendStreamingMessage", {"message": msg10("hold one two three")})
    seen: list[dict[str, Any]] = []
    task_id = None
    async with httpx.AsyncClient(timeout=5, headers=V10) as client:
        async with client.stream("POST", f"{url}/", json=body) as r:
            async for line in r.aiter_lines():
                if not line.startswith("data:"):
                    continue
                seen.append(json.loads(line[5:])["result"])
                if "statusUpdate" in seen[-1] and len(seen) == 2:
                    running = seen[-1]["statusUpdate"]["taskId"]
                    await asyncio.to_thread(wait_parked, url, running)
                    await asyncio.to_thread(release, url, running, 1)
                if "artifactUpdate" in seen[-1]:
                    task_id = seen[-1]["artifactUpdate"]["taskId"]
                    cancel = await client.post(f"{url}/", json=envelope("CancelTask", {"id": task_id}))
                    canceled = result(cancel.json())
                    assert canceled["status"]["state"] == "TASK_STATE_CANCELED"
                    assert texts(canceled["status"]["message"]["parts"]) == [CANCELED_TEXT]
        # The open stream hears the cancel and closes; no chunk follows it.
        assert [next(iter(e)) for e in seen] == ["task", "statusUpdate", "artifactUpdate", "statusUpdate"]
        assert seen[-1]["statusUpdate"]["status"]["state"] == "TASK_STATE_CANCELED"
        assert task_id is not None
        stored = result((await client.post(f"{url}/", json=envelope("GetTask", {"id": task_id}))).json())
    assert stored["status"]["state"] == "TASK_STATE_CANCELED"
    assert [texts(a["parts"]) for a in stored["artifacts"]] == [["echo: hold "]]


def test_v03_cancel_input_required_task(sdk_agent_compat: str) -> None:
    url = sdk_agent_compat
    asked = result(rpc(url, "message/send", {"message": msg03("ask again")}))
    canceled = result(rpc(url, "tasks/cancel", {"id": asked["id"]}))
    assert canceled["status"]["state"] == "canceled"
    assert texts(canceled["status"]["message"]["parts"]) == [CANCELED_TEXT]
    again = rpc(url, "tasks/cancel", {"id": asked["id"]})
    assert again["error"]["code"] == -32002  # TaskNotCancelable, capture 11


def test_v10_subscribe_to_running_slow_task(sdk_agent: tuple[str, str]) -> None:
    _, url = sdk_agent
    started = result(
        rpc(
            url,
            "SendMessage",
            {"configuration": {"returnImmediately": True}, "message": msg10("hold four five six")},
            V10,
        )
    )["task"]
    assert started["status"]["state"] == "TASK_STATE_SUBMITTED"
    wait_parked(url, started["id"])  # the task waits before its first chunk ...
    events = [
        e["result"]
        for e in rpc_stream(
            url, "SubscribeToTask", {"id": started["id"]}, V10, on_first=lambda: release(url, started["id"])
        )
    ]
    # ... until the subscriber has the snapshot, which comes first; then only what the
    # agent emits after subscribing.
    assert next(iter(events[0])) == "task" and events[0]["task"]["id"] == started["id"]
    chunks = [texts(e["artifactUpdate"]["artifact"]["parts"]) for e in events if "artifactUpdate" in e]
    assert chunks == [["echo: hold "], ["four five "], ["six"]]
    assert events[-1]["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED"
    after = rpc(url, "SubscribeToTask", {"id": started["id"]}, V10)
    assert after["error"]["code"] == -32004  # terminal task, capture 41


# --- protocol version gates ---------------------------------------------------------------


def test_v10_method_without_version_header_is_rejected(sdk_agent: tuple[str, str]) -> None:
    _, url = sdk_agent
    error = rpc(url, "SendMessage", {"message": msg10("hello one oh")})["error"]
    assert error["code"] == -32009
    assert error["data"][0]["reason"] == "VERSION_NOT_SUPPORTED"


@pytest.mark.parametrize("method", ["message/send", "message/stream", "tasks/get"])
def test_pure_v10_does_not_know_v03_methods(sdk_agent_v10: str, method: str) -> None:
    reply = rpc(sdk_agent_v10, method, {"message": msg03("hi"), "id": "x"})
    assert reply["error"] == {"code": -32601, "message": "Method not found"}


# --- HTTP+JSON, as advertised on the card -------------------------------------------------


def test_rest_send_completes(sdk_agent: tuple[str, str]) -> None:
    _, url = sdk_agent
    r = httpx.post(f"{url}/rest/message:send", json={"message": msg10("rest hello")}, headers=V10)
    assert r.status_code == 200
    task = r.json()["task"]
    assert task["status"]["state"] == "TASK_STATE_COMPLETED"
    assert texts(task["artifacts"][0]["parts"]) == ["echo: ", "rest ", "hello"]
