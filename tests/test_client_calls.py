"""Calls and streams as they should go: request headers and ids, the exact shape of the
logged events, payloads that a replay re-derives identically, and every convenience
method against the real a2a-sdk peer in both of its dialects."""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import Iterator
from typing import Any

import pytest

import hostile
from inspector.client import (
    A2AClient,
    Auth,
    JsonRpcError,
    MemoryDialectCache,
    ends_stream,
    merge_headers,
)
from inspector.protocol import models as m
from inspector.serving.runner import BackgroundServer
from inspector.session.events import Kind
from inspector.session.payloads import response_payload, sse_payload
from peers.sdk_agent import CANCELED_TEXT, QUESTION, echo_chunks, release, wait_parked

REQUEST_KEYS = {"method", "url", "headers", "body", "body_encoding", "dialect", "a2a_method", "rpc_method", "rpc_id"}
RESPONSE_KEYS = {
    "status",
    "reason",
    "headers",
    "body",
    "body_encoding",
    "body_size",
    "elapsed_ms",
    "streaming",
    "content_type",
}


def send_params(text: str, **ids: str) -> m.SendParams:
    return m.SendParams(message=m.Message(role="user", parts=[m.TextPart(text=text)], message_id=f"m-{text}", **ids))


def texts(parts: list[Any]) -> list[str]:
    return [p.text for p in parts]


@pytest.fixture(scope="module")
def plain() -> Iterator[tuple[str, Any]]:
    """A well-behaved agent speaking all three dialects (1.0 only with its header)."""
    app = hostile.dialect_agent(("1.0", "0.3", "0.1"))
    with BackgroundServer(app) as srv:
        yield srv.url, app


def at(plain: tuple[str, Any], dialect: str, **kw: Any) -> A2AClient:
    url, _ = plain
    return A2AClient(url, dialect=dialect, endpoint=url, dialect_cache=MemoryDialectCache(), **kw)


# ------------------------------------------------------------------ requests


@pytest.mark.parametrize(
    ("dialect", "wire", "version"),
    [("1.0", "SendMessage", "1.0"), ("0.3", "message/send", None), ("0.1", "tasks/send", None)],
)
async def test_headers_and_body_as_sent(plain, dialect: str, wire: str, version: str | None) -> None:
    url, app = plain
    async with at(plain, dialect, headers={"X-Trace": "abc"}, auth=Auth.bearer("s3cret")) as c:
        await c.send(send_params("hi"))
    got = app.state.requests[-1]["headers"]
    assert got.get("a2a-version") == version
    assert got["x-trace"] == "abc" and got["authorization"] == "Bearer s3cret"
    assert got["content-type"] == "application/json" and got["accept"] == "application/json"
    request = next(e for e in c.session.events if e.kind is Kind.REQUEST)
    assert set(request.data) == REQUEST_KEYS
    assert request.data["headers"]["X-Trace"] == "abc"  # spelled as sent
    assert request.data["body"] == app.state.requests[-1]["body"].decode()
    assert (request.data["dialect"], request.data["a2a_method"], request.data["rpc_method"]) == (dialect, "send", wire)
    assert isinstance(request.payload, m.SendParams)


async def test_stream_requests_accept_event_streams(plain) -> None:
    url, app = plain
    async with at(plain, "0.3") as c:
        got = [e async for e in c.stream(send_params("s"))]
    assert app.state.requests[-1]["headers"]["accept"] == "text/event-stream"
    assert [type(e) for e in got] == [m.TaskStatusUpdateEvent]


async def test_user_headers_override_and_an_empty_value_removes(plain) -> None:
    url, app = plain
    async with at(plain, "1.0", headers={"a2a-version": "", "Accept": "application/a2a+json"}) as c:
        with pytest.raises(JsonRpcError) as info:
            await c.send(send_params("no header"))
    got = app.state.requests[-1]["headers"]
    assert "a2a-version" not in got and got["accept"] == "application/a2a+json"
    assert info.value.code == -32009  # what a 1.0 handler says without the header


@pytest.mark.parametrize(
    ("auth", "header", "value"),
    [
        (Auth.bearer("tok"), "authorization", "Bearer tok"),
        (Auth.api_key("k-1"), "x-api-key", "k-1"),
        (Auth.api_key("k-2", header="X-Agent-Key"), "x-agent-key", "k-2"),
        (Auth.basic("ann", "pa:ss"), "authorization", "Basic " + base64.b64encode(b"ann:pa:ss").decode()),
    ],
)
async def test_auth_headers(plain, auth: Auth, header: str, value: str) -> None:
    url, app = plain
    async with at(plain, "0.3", auth=auth) as c:
        await c.send(send_params("auth"))
    assert app.state.requests[-1]["headers"][header] == value
    assert value not in repr(auth)
    assert auth.header_names == {header}


async def test_json_rpc_ids_increment_per_client(plain) -> None:
    url, app = plain
    async with at(plain, "0.3") as c:
        for text in ("a", "b", "c"):
            await c.send(send_params(text))
    ids = [e.data["rpc_id"] for e in c.session.events if e.kind is Kind.REQUEST]
    assert ids == [1, 2, 3]
    assert [json.loads(r["body"])["id"] for r in app.state.requests[-3:]] == [1, 2, 3]


def test_merge_headers() -> None:
    assert merge_headers({"Accept": "a", "X": "1"}, {"accept": "b"}, {"x": ""}) == {"accept": "b"}


# ------------------------------------------------------------------ event shapes


async def test_event_shapes_and_exchanges(plain) -> None:
    async with at(plain, "0.3") as c:
        await c.send(send_params("one"))
        [e async for e in c.stream(send_params("two"))]
    events = [e for e in c.session.events if e.exchange]
    assert [(e.kind, e.exchange) for e in events] == [
        (Kind.REQUEST, 1),
        (Kind.RESPONSE, 1),
        (Kind.REQUEST, 2),
        (Kind.RESPONSE, 2),
        (Kind.SSE, 2),
        (Kind.STREAM_END, 2),
    ]
    response = events[1].data
    assert set(response) == RESPONSE_KEYS
    assert response["status"] == 200 and response["reason"] == "OK" and response["streaming"] is False
    assert response["body_encoding"] == "utf-8" and response["body_size"] == len(response["body"].encode())
    assert response["content_type"] == "application/json"
    streamed = events[3].data
    assert streamed["streaming"] is True and streamed["body"] is None and streamed["body_size"] is None
    assert set(events[4].data) == {"raw", "event", "data", "id", "retry"}
    assert set(events[5].data) == {"reason", "events", "elapsed_ms", "terminal"}
    assert events[5].data["reason"] == "complete" and events[5].data["events"] == 1


async def test_payloads_rederive_from_the_logged_data(sdk_agent_compat) -> None:
    """What a replay reader does: recompute every payload from JSON-round-tripped data."""
    async with A2AClient(sdk_agent_compat, dialect_cache=MemoryDialectCache()) as c:
        await c.send(send_params("hello"))
        [e async for e in c.stream(send_params("stream me"))]
        with pytest.raises(JsonRpcError):
            await c.get_task("no-such-task")
    request = None
    checked = 0
    for event in c.session.events:
        data = json.loads(json.dumps(event.to_json()))
        if event.kind is Kind.REQUEST:
            request = data
        elif event.kind is Kind.RESPONSE:
            again = response_payload(request, data)
            assert type(again) is type(event.payload) and repr(again) == repr(event.payload)
            checked += 1
        elif event.kind is Kind.SSE:
            again = sse_payload(request["dialect"], data)
            assert again == event.payload
            checked += 1
    assert checked >= 8


# ------------------------------------------------------------------ the real SDK


@pytest.mark.parametrize("dialect", ["1.0", "0.3"])
async def test_sdk_send_get_and_history(sdk_agent_compat, dialect: str) -> None:
    async with A2AClient(sdk_agent_compat, dialect=dialect, dialect_cache=MemoryDialectCache()) as c:
        task = await c.send(send_params("hello world"))
        again = await c.get_task(task.id, history_length=1)
    assert task.status.state is m.TaskState.COMPLETED
    assert "".join(t for a in task.artifacts for t in texts(a.parts)) == "".join(echo_chunks("hello world"))
    assert again.id == task.id and len(again.history) == 1


@pytest.mark.parametrize("dialect", ["1.0", "0.3"])
async def test_sdk_stream_assembles_the_echo(sdk_agent_compat, dialect: str) -> None:
    async with A2AClient(sdk_agent_compat, dialect=dialect, dialect_cache=MemoryDialectCache()) as c:
        got = [e async for e in c.stream(send_params("stream me please"))]
    chunks = [t for e in got if isinstance(e, m.TaskArtifactUpdateEvent) for t in texts(e.artifact.parts)]
    assert chunks == echo_chunks("stream me please")
    assert got[-1].status.state is m.TaskState.COMPLETED
    end = next(e for e in c.session.events if e.kind is Kind.STREAM_END).data
    assert end["reason"] == "complete" and end["terminal"] is True and end["events"] == len(got)


@pytest.mark.parametrize("dialect", ["1.0", "0.3"])
async def test_sdk_ask_ends_the_stream_at_input_required_then_follow_up(sdk_agent_compat, dialect: str) -> None:
    async with A2AClient(sdk_agent_compat, dialect=dialect, dialect_cache=MemoryDialectCache()) as c:
        got = [e async for e in c.stream(send_params("ask me"))]
        last = got[-1]
        assert last.status.state is m.TaskState.INPUT_REQUIRED
        assert texts(last.status.message.parts) == [QUESTION]
        task_id = last.task_id if isinstance(last, m.TaskStatusUpdateEvent) else last.id
        follow = await c.send(send_params("echo this", task_id=task_id, context_id=last.context_id))
    assert follow.id == task_id and follow.status.state is m.TaskState.COMPLETED


@pytest.mark.parametrize("dialect", ["1.0", "0.3"])
async def test_sdk_cancel_and_unknown_task(sdk_agent_compat, dialect: str) -> None:
    async with A2AClient(sdk_agent_compat, dialect=dialect, dialect_cache=MemoryDialectCache()) as c:
        asked = await c.send(send_params("ask first"))
        canceled = await c.cancel(asked.id)
        with pytest.raises(JsonRpcError) as again:
            await c.cancel(asked.id)
        with pytest.raises(JsonRpcError) as missing:
            await c.get_task("does-not-exist")
    assert canceled.status.state is m.TaskState.CANCELED
    assert texts(canceled.status.message.parts) == [CANCELED_TEXT]
    assert again.value.code == -32002
    assert missing.value.code == -32001 and missing.value.http_status == 200


async def test_sdk_message_reply_ends_a_stream(sdk_agent_v10) -> None:
    async with A2AClient(sdk_agent_v10, dialect_cache=MemoryDialectCache()) as c:
        got = [e async for e in c.stream(send_params("msg hi"))]
    assert [type(e) for e in got] == [m.Message]
    assert next(e for e in c.session.events if e.kind is Kind.STREAM_END).data["terminal"] is True


async def test_sdk_resubscribe_to_a_running_task(sdk_agent_v10) -> None:
    async with A2AClient(sdk_agent_v10, dialect_cache=MemoryDialectCache()) as c:
        stream = c.stream(send_params("hold hello"))
        first = await stream.__anext__()
        task_id = first.id if isinstance(first, m.Task) else first.task_id
        await asyncio.to_thread(wait_parked, sdk_agent_v10, task_id)
        resubscribed = c.resubscribe(task_id)
        again = [await resubscribed.__anext__()]
        # The peer holds the task until the resubscribe has its snapshot: the rest of the
        # task must reach it, however the two streams interleave.
        await asyncio.to_thread(release, sdk_agent_v10, task_id)
        again += [e async for e in resubscribed]
        await stream.aclose()
    assert isinstance(again[0], m.Task) and again[0].status.state is m.TaskState.WORKING
    assert again[-1].status.state is m.TaskState.COMPLETED
    assert any(isinstance(e, m.TaskArtifactUpdateEvent) for e in again)


async def test_sdk_stream_of_an_unknown_task_is_a_plain_json_error(sdk_agent_v10) -> None:
    # capture 34: the SDK answers a streaming request for a missing task with plain JSON
    async with A2AClient(sdk_agent_v10, dialect_cache=MemoryDialectCache()) as c:
        with pytest.raises(JsonRpcError) as info:
            [e async for e in c.stream(send_params("x", task_id="does-not-exist"))]
    assert info.value.code == -32001
    assert any(e.kind is Kind.NOTE and "expected an SSE stream" in e.data["text"] for e in c.session.events)


# ------------------------------------------------------------------ stream end rules


@pytest.mark.parametrize(
    ("event", "ends"),
    [
        (m.Message(role="agent", parts=[]), True),
        (m.Task(id="t", status=m.TaskStatus(state="working")), False),
        (m.Task(id="t", status=m.TaskStatus(state="completed")), True),
        (m.Task(id="t", status=m.TaskStatus(state="input-required")), True),
        (m.TaskStatusUpdateEvent(task_id="t", status=m.TaskStatus(state="working")), False),
        (m.TaskStatusUpdateEvent(task_id="t", status=m.TaskStatus(state="working"), final=True), True),
        (m.TaskStatusUpdateEvent(task_id="t", status=m.TaskStatus(state="auth-required")), True),
        (m.TaskStatusUpdateEvent(task_id="t", status=m.TaskStatus(state="rejected")), True),
        (m.TaskArtifactUpdateEvent(task_id="t", artifact=m.Artifact(parts=[]), last_chunk=True), False),
    ],
)
def test_what_ends_a_stream(event: Any, ends: bool) -> None:
    assert ends_stream(event) is ends
