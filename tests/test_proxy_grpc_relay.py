"""What a gRPC relay must keep whatever way it moves the bytes: a message larger than an
HTTP/2 frame arrives whole, a message at the size limits is relayed and logged as the
limits say, a per-message fault hits exactly the Nth message, a client's cancel reaches
the agent, and the recording holds every message of a fast stream in order. The agents
here are deterministic (indexed messages, gates rather than sleeps)."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from inspector.client.limits import Limits
from inspector.protocol import grpc_codec, grpc_schema
from inspector.protocol.errors import ProtocolError
from inspector.proxy import Proxy, ProxyServer, Route, Rules
from inspector.proxy.faults import Rule
from inspector.session import Kind
from inspector.session.recorder import Recorder
from proxy_helpers import grpc_agent, until

STREAM = "/lf.a2a.v1.A2AService/SendStreamingMessage"
SEND = "/lf.a2a.v1.A2AService/SendMessage"
#: HTTP/2's default SETTINGS_MAX_FRAME_SIZE: a larger message crosses DATA frames.
FRAME = 16_384


def update(i: int, text: str | None = None) -> bytes:
    cls = grpc_schema.message_class("1.0", "StreamResponse")
    message = cls(
        artifact_update={
            "task_id": "t",
            "context_id": "c",
            "append": i > 0,
            "artifact": {"artifact_id": "a", "parts": [{"text": ""}]},
        }
    )
    message.artifact_update.artifact.parts[0].text = f"part {i:05d}" if text is None else text
    return message.SerializeToString()


def request(text: str = "go") -> bytes:
    return grpc_schema.from_json(
        "1.0", "SendMessageRequest", {"message": {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": text}]}}
    ).SerializeToString()


@contextlib.asynccontextmanager
async def agent(stream: Any = None, unary: Any = None) -> AsyncIterator[str]:
    """A loopback grpc.aio agent: SendMessage answered by ``unary``, any other call by
    the unary-stream handler ``stream``."""

    class Handler(grpc.GenericRpcHandler):
        def service(self, details: Any) -> Any:
            if details.method == SEND:
                return grpc.unary_unary_rpc_method_handler(unary)
            return grpc.unary_stream_rpc_method_handler(stream)

    limits = [("grpc.max_send_message_length", -1), ("grpc.max_receive_message_length", -1)]
    async with grpc_agent(Handler(), limits) as address:
        yield address


@contextlib.asynccontextmanager
async def relay(upstream: str, **options: Any) -> AsyncIterator[tuple[Proxy, str]]:
    proxy = Proxy([Route("", "http://127.0.0.1:9")], **options)
    async with ProxyServer(proxy, grpc_upstream=upstream):
        (listener,) = proxy.grpc.listeners.values()
        yield proxy, listener.address


async def read_all(address: str, text: str = "go") -> tuple[list[bytes], grpc.aio.AioRpcError | None]:
    got: list[bytes] = []
    async with grpc.aio.insecure_channel(address, options=[("grpc.max_receive_message_length", -1)]) as channel:
        try:
            async for raw in channel.unary_stream(STREAM)(request(text), metadata=(("a2a-version", "1.0"),)):
                got.append(raw)
        except grpc.aio.AioRpcError as exc:
            return got, exc
    return got, None


def messages(proxy: Proxy) -> list[Any]:
    return [e for e in proxy.session.events if e.kind is Kind.MESSAGE]


def logged_text(event: Any) -> str:
    return json.loads(event.data["json"])["artifactUpdate"]["artifact"]["parts"][0]["text"]


async def test_a_message_larger_than_an_http2_frame_arrives_whole_and_is_logged_once() -> None:
    big = [update(i, chr(ord("a") + i) * (FRAME * (i + 1) + 7)) for i in range(3)]

    async def stream(_request: bytes, _context: Any) -> Any:
        for raw in big:
            yield raw

    async with agent(stream) as upstream, relay(upstream) as (proxy, address):
        got, failure = await read_all(address)
        await until(lambda: [e for e in proxy.session.events if e.kind is Kind.STREAM_END], "the stream's end")
    assert failure is None and got == big
    logged = messages(proxy)
    assert [e.data["size"] for e in logged] == [len(raw) for raw in big]
    assert [logged_text(e) for e in logged] == [chr(ord("a") + i) * (FRAME * (i + 1) + 7) for i in range(3)]


def sized(make: Any, size: int) -> tuple[bytes, str]:
    """``make(text)`` of exactly ``size`` bytes (the sizes here are far from a varint's
    step, so there is one), and its text."""
    length = size - len(make(""))
    while len(make("x" * length)) > size:
        length -= 1
    text = "x" * length
    assert len(make(text)) == size
    return make(text), text


async def test_messages_at_the_size_limits_are_relayed_and_logged_as_the_limits_say() -> None:
    """A stream message of exactly --max-event bytes is logged whole, one byte more is
    relayed whole and logged cut; a request of exactly the request bound is relayed, one
    byte more is refused by the proxy (RESOURCE_EXHAUSTED) without reaching the agent."""
    limit, bound = 200_000, 300_000
    (at, at_text), (over, _) = sized(lambda t: update(0, t), limit), sized(lambda t: update(1, t), limit + 1)
    (_fits, fits_text), (_big, big_text) = sized(request, bound), sized(request, bound + 1)
    reached: list[int] = []

    async def stream(req: bytes, _context: Any) -> Any:
        reached.append(len(req))
        yield at
        yield over

    async with (
        agent(stream) as upstream,
        relay(upstream, limits=Limits(max_event=limit), max_request=bound) as (proxy, address),
    ):
        got, failure = await read_all(address, fits_text)
        assert failure is None and got == [at, over] and reached == [bound]
        refused, failure = await read_all(address, big_text)
        assert refused == [] and failure is not None and failure.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
        await until(lambda: [e for e in proxy.session.events if e.kind is Kind.STREAM_END], "the stream's end")
    assert reached == [bound]
    whole, cut = messages(proxy)
    assert whole.data["size"] == limit and logged_text(whole) == at_text
    assert cut.data["size"] == limit + 1 and cut.data.get("cut") and isinstance(cut.payload, ProtocolError)


@pytest.mark.parametrize(
    "fault", [{"corrupt_chunk": 7}, {"duplicate_chunk": 7}, {"drop_after": 7}], ids=lambda f: next(iter(f))
)
async def test_a_per_message_fault_hits_exactly_the_nth_message(fault: dict[str, int]) -> None:
    sent = [update(i) for i in range(12)]

    async def stream(_request: bytes, _context: Any) -> Any:
        for raw in sent:
            yield raw

    rules = Rules([Rule.model_validate({"match": {"method": "SendStreamingMessage"}, "fault": fault})])
    async with agent(stream) as upstream, relay(upstream, rules=rules) as (proxy, address):
        got, failure = await read_all(address)
        end = await until(lambda: [e for e in proxy.session.events if e.kind is Kind.STREAM_END], "the stream's end")
    ((name, n),) = fault.items()
    if name == "corrupt_chunk":
        assert got[:6] == sent[:6] and got[6] == grpc_codec.garbled(sent[6]) and got[6] != sent[6]
        assert failure is None and got[7:] == sent[7:]
    elif name == "duplicate_chunk":
        assert failure is None and got == sent[:7] + [sent[6]] + sent[7:]
    else:
        assert got == sent[:7] and failure is not None and failure.code() is grpc.StatusCode.UNAVAILABLE
    assert f"{name}={n}" in end[0].data["injected"]
    # The recording holds what the agent sent, in order, untouched by the fault.
    logged = [logged_text(e) for e in messages(proxy)]
    assert logged == [f"part {i:05d}" for i in range(len(logged))]
    assert len(logged) == (7 if name == "drop_after" else 12)


async def test_a_client_cancelling_a_unary_call_reaches_the_agent() -> None:
    arrived = asyncio.Event()
    cancelled = asyncio.Event()

    async def unary(_request: bytes, _context: Any) -> bytes:
        arrived.set()
        try:
            await asyncio.Event().wait()  # answers never: only the client's cancel ends it
        except asyncio.CancelledError:
            cancelled.set()  # grpc.aio cancels the handler when the call is cancelled
            raise
        return b""  # pragma: no cover

    async with agent(unary=unary) as upstream, relay(upstream) as (proxy, address):
        async with grpc.aio.insecure_channel(address) as channel:
            call = channel.unary_unary(SEND)(request(), metadata=(("a2a-version", "1.0"),))
            await asyncio.wait_for(arrived.wait(), 20)
            call.cancel()
            await asyncio.wait_for(cancelled.wait(), 20)
            with pytest.raises(asyncio.CancelledError):
                await call
    assert [e.data["a2a_method"] for e in proxy.session.events if e.kind is Kind.REQUEST] == ["send"]


async def test_the_recording_holds_every_message_of_a_fast_10k_stream_in_order(tmp_path: Path) -> None:
    count = 10_000
    sent = [update(i) for i in range(count)]

    async def stream(_request: bytes, _context: Any) -> Any:
        for raw in sent:
            yield raw

    path = tmp_path / "relayed.jsonl"
    async with agent(stream) as upstream, relay(upstream) as (proxy, address):
        recorder = Recorder.attach(proxy.session, path)
        try:
            got, failure = await read_all(address)
            end = await until(
                lambda: [e for e in proxy.session.events if e.kind is Kind.STREAM_END], "the stream's end"
            )
        finally:
            recorder.close()
    assert failure is None and len(got) == count
    assert end[0].data["events"] == count
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()[1:]]
    texts = [
        json.loads(line["json"])["artifactUpdate"]["artifact"]["parts"][0]["text"]
        for line in lines
        if line["kind"] == "message"
    ]
    assert texts == [f"part {i:05d}" for i in range(count)]


async def test_a_log_that_falls_behind_the_relay_is_said_and_loses_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past BACKLOG unlogged bytes the relay waits for its log (memory stays bounded);
    it says so once (a NOTE, and the waits on the STREAM_END) rather than slowing the
    stream silently. Here the bound is a byte: the relay waits after every message."""
    from inspector.proxy import grpc_relay, relaying

    monkeypatch.setattr(relaying, "BACKLOG", 1)
    monkeypatch.setattr(grpc_relay, "BACKLOG", 1)
    sent = [update(i) for i in range(20)]

    async def stream(_request: bytes, _context: Any) -> Any:
        for raw in sent:
            yield raw

    async with agent(stream) as upstream, relay(upstream) as (proxy, address):
        got, failure = await read_all(address)
        end = await until(lambda: [e for e in proxy.session.events if e.kind is Kind.STREAM_END], "the stream's end")
    assert failure is None and got == sent
    notes = [e for e in proxy.session.events if e.kind is Kind.NOTE and e.data.get("code") == "proxy-log-behind"]
    assert len(notes) == 1 and "behind the relay" in notes[0].data["text"]
    assert end[0].data["log_waits"] >= 1 and end[0].data["log_wait_ms"] >= 0
    assert [logged_text(e) for e in messages(proxy)] == [f"part {i:05d}" for i in range(20)]


async def test_a_log_that_keeps_up_says_nothing() -> None:
    sent = [update(i) for i in range(20)]

    async def stream(_request: bytes, _context: Any) -> Any:
        for raw in sent:
            yield raw

    async with agent(stream) as upstream, relay(upstream) as (proxy, address):
        got, failure = await read_all(address)
        end = await until(lambda: [e for e in proxy.session.events if e.kind is Kind.STREAM_END], "the stream's end")
    assert failure is None and got == sent
    assert not [e for e in proxy.session.events if e.data.get("code") == "proxy-log-behind"]
    assert "log_waits" not in end[0].data
