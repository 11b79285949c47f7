"""A gRPC agent that misbehaves, served on loopback by a bare grpc.aio server: bytes that
are not the message, its own UNAVAILABLE (a status, not a failure to connect), a stream
that breaks off with an error status after a good message and a bad one. Each is one
clear error, on the record, and what was good is kept."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest

from inspector.client import A2AClient, ProtocolError, TransportError
from inspector.protocol import grpc_schema
from inspector.protocol import models as m
from inspector.protocol.grpc_codec import GrpcError
from inspector.session import Kind, TaskTracker, payloads
from proxy_helpers import grpc_agent

TASK = {"task": {"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_WORKING"}}}


def say(text: str) -> dict[str, Any]:
    return {"message": {"role": "user", "messageId": "m1", "parts": [{"kind": "text", "text": text}]}}


@pytest.fixture
async def hostile() -> AsyncIterator[str]:
    async def send(request: bytes, context: grpc.aio.ServicerContext) -> bytes:
        return b"\xff\xff\xff\xff"  # not a SendMessageResponse

    async def get(request: bytes, context: grpc.aio.ServicerContext) -> bytes:
        await context.abort(grpc.StatusCode.UNAVAILABLE, "busy, try later")
        return b""

    async def stream(request: bytes, context: grpc.aio.ServicerContext) -> AsyncIterator[bytes]:
        yield grpc_schema.from_json("1.0", "StreamResponse", TASK).SerializeToString()
        yield b"\x0a\xff"  # a length that runs past the end
        await context.abort(grpc.StatusCode.INTERNAL, "the model fell over")

    async def subscribe(request: bytes, context: grpc.aio.ServicerContext) -> AsyncIterator[bytes]:
        yield grpc_schema.from_json("1.0", "StreamResponse", TASK).SerializeToString()  # then OK, no end

    handler = grpc.method_handlers_generic_handler(
        "lf.a2a.v1.A2AService",
        {
            "SubscribeToTask": grpc.unary_stream_rpc_method_handler(subscribe),
            "SendMessage": grpc.unary_unary_rpc_method_handler(send),
            "GetTask": grpc.unary_unary_rpc_method_handler(get),
            "SendStreamingMessage": grpc.unary_stream_rpc_method_handler(stream),
        },
    )
    async with grpc_agent(handler) as address:
        yield f"grpc://{address}"


async def test_a_misbehaving_grpc_agent(hostile: str) -> None:
    async with A2AClient(hostile, dialect="1.0") as client:
        with pytest.raises(ProtocolError) as bad:
            await client.send(say("hello"))
        assert "not a valid" in str(bad.value)
        with pytest.raises(GrpcError) as busy:
            await client.get_task("t1")
        assert (busy.value.status, busy.value.code, busy.value.message) == ("UNAVAILABLE", -32603, "busy, try later")
        got: list[Any] = []
        with pytest.raises(GrpcError) as broke:
            async for event in client.stream(say("stream")):
                got.append(event)
        assert [type(e).__name__ for e in got] == ["Task"]
        assert (broke.value.status, broke.value.message) == ("INTERNAL", "the model fell over")
    events = client.session.events
    (answer,) = [e for e in events if e.kind is Kind.RESPONSE and e.data.get("body_encoding") == "base64"]
    assert answer.data["body"] == "/////w=="  # kept as received
    # A replay derives what the live client said of those bytes (it said "invalid JSON").
    (request,) = [e for e in events if e.kind is Kind.REQUEST and e.exchange == answer.exchange]
    again = payloads.response_payload(request.data, answer.data)
    assert isinstance(again, ProtocolError) and str(again) == str(answer.payload)
    assert str(again).startswith("not a valid lf.a2a.v1.SendMessageResponse")
    messages = [e.data for e in events if e.kind is Kind.MESSAGE]
    assert len(messages) == 2 and messages[1]["json"] is None and messages[1]["error"].startswith("not a valid")
    (end,) = [e.data for e in events if e.kind is Kind.STREAM_END]
    assert (end["reason"], end["grpc_status"], end["events"]) == ("error", "INTERNAL", 2)
    errors = [e.data["type"] for e in events if e.kind is Kind.ERROR]
    assert errors == ["protocol", "protocol", "grpc"]
    tracker = TaskTracker(client.session)
    assert tracker.tasks["t1"].state is m.TaskState.WORKING
    # Ended by its error status: the agent answered, it did not walk away from the task.
    assert "stream-no-terminal" not in [v.code for v in tracker.violations]


async def test_nothing_listening_is_a_connect_failure_not_a_status() -> None:
    from ports import refused_port

    with refused_port() as port:
        async with A2AClient(f"grpc://127.0.0.1:{port}", dialect="1.0") as client:
            with pytest.raises(TransportError) as raised:
                await client.get_task("t1")
    assert raised.value.kind == "connect"
    assert not [e for e in client.session.events if e.kind is Kind.RESPONSE]


async def test_a_stream_closed_with_ok_before_the_task_ends(hostile: str) -> None:
    async with A2AClient(hostile, dialect="1.0") as client:
        with pytest.raises(TransportError) as raised:
            [e async for e in client.resubscribe("t1")]
    assert raised.value.kind == "stream" and "before the task reached a final state" in raised.value.message
    (end,) = [e.data for e in client.session.events if e.kind is Kind.STREAM_END]
    assert (end["reason"], end["grpc_status"]) == ("eof", "OK")
    assert [v.code for v in TaskTracker(client.session).violations] == ["stream-no-terminal"]
