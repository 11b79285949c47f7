"""The proxy relays gRPC: the official a2a-sdk 1.3.0 gRPC client -> a2a-inspect proxy
(its gRPC listener, found through the rewritten card) -> the a2a-sdk agent's gRPC
service and a2a-mock's. Every call is logged as the inspector's own gRPC client logs
it; statuses, details and trailers pass through unchanged; fault rules apply."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from inspector.protocol import models as m
from inspector.proxy import Rules
from inspector.proxy.faults import Rule
from inspector.session import Kind
from mock_agent import MockAgent
from peers.sdk_agent import release, wait_parked
from proxy_helpers import MOCK_SCENARIO, grpc_agent, message, proxy_to, requests, texts, until


@contextlib.asynccontextmanager
async def grpc_client(url: str, *, streaming: bool) -> AsyncIterator[Any]:
    """The SDK's client made from the card at ``url``, picking its GRPC interface."""
    import grpc
    from a2a.client import ClientConfig, ClientFactory

    from test_mock_sdk_interop import _sdk_compat_grpc

    _sdk_compat_grpc()
    async with httpx.AsyncClient(timeout=30) as http:
        config = ClientConfig(
            streaming=streaming,
            httpx_client=http,
            supported_protocol_bindings=["GRPC"],
            grpc_channel_factory=grpc.aio.insecure_channel,
        )
        client = await ClientFactory(config).create_from_url(url)
        try:
            yield client
        finally:
            await client.close()


def grpc_requests(proxy: Any) -> list[Any]:
    return [e for e in requests(proxy) if e.data.get("binding") == "grpc"]


def events_of(proxy: Any, number: int) -> list[Any]:
    return [e for e in proxy.session.events if e.exchange == number]


async def test_every_call_over_grpc_through_the_proxy_to_the_sdk_agent(sdk_agent_grpc: tuple[str, str]) -> None:
    from a2a.types import a2a_pb2 as pb

    S = pb.TaskState
    base, target = sdk_agent_grpc
    async with proxy_to(("", base)) as (proxy, server):
        async with grpc_client(server.base_url, streaming=False) as client:
            (sent,) = [r async for r in client.send_message(message("hello over grpc"))]
            assert sent.task.status.state == S.TASK_STATE_COMPLETED
            assert texts(sent.task.artifacts[0].parts) == "echo: hello over grpc"
            (asked,) = [r async for r in client.send_message(message("ask me"))]
            assert asked.task.status.state == S.TASK_STATE_INPUT_REQUIRED
            (answered,) = [
                r
                async for r in client.send_message(
                    message("the answer", task_id=asked.task.id, context_id=asked.task.context_id)
                )
            ]
            assert answered.task.status.state == S.TASK_STATE_COMPLETED
            (held,) = [r async for r in client.send_message(message("hold for cancel", return_immediately=True))]
            await asyncio.to_thread(wait_parked, base, held.task.id)
            canceled = await client.cancel_task(pb.CancelTaskRequest(id=held.task.id))
            assert canceled.status.state == S.TASK_STATE_CANCELED
            # An A2A error: the agent's status and its details reach the client unchanged.
            with pytest.raises(Exception) as caught:
                await client.get_task(pb.GetTaskRequest(id="no-such-task"))
            assert "not found" in str(caught.value).lower()

        async with grpc_client(server.base_url, streaming=True) as client:
            events = [e async for e in client.send_message(message("stream me over grpc"))]
            assert events[-1].status_update.status.state == S.TASK_STATE_COMPLETED
            streamed = texts(
                p
                for e in events
                if e.WhichOneof("payload") == "artifact_update"
                for p in e.artifact_update.artifact.parts
            )
            assert streamed == "echo: stream me over grpc"
        async with grpc_client(server.base_url, streaming=False) as blocking:
            (live,) = [r async for r in blocking.send_message(message("hold to subscribe", return_immediately=True))]
        await asyncio.to_thread(wait_parked, base, live.task.id)
        async with grpc_client(server.base_url, streaming=True) as client:
            subscribed = client.subscribe(pb.SubscribeToTaskRequest(id=live.task.id))
            head = await anext(subscribed)
            assert head.task.status.state == S.TASK_STATE_WORKING
            await asyncio.to_thread(release, base, live.task.id)
            rest = [e async for e in subscribed]
            assert rest[-1].status_update.status.state == S.TASK_STATE_COMPLETED
        # The card the client read pointed its GRPC interface at the proxy's listener.
        (listener,) = proxy.grpc.listeners.values()
        assert listener.url == target
    notes = [e.data for e in proxy.session.events if e.kind is Kind.NOTE and e.data.get("code") == "proxy-card"]
    assert any([f"127.0.0.1:{listener.port}" in new for _old, new in n["moved"]] for n in notes)
    calls = grpc_requests(proxy)
    seen = {e.data["a2a_method"] for e in calls}
    assert {"send", "stream", "cancel", "get", "resubscribe"} <= seen, seen
    assert {e.data["dialect"] for e in calls} == {"1.0"}
    first = calls[0].data
    assert first["client"].startswith("127.0.0.1:") and "grpc" in (first["user_agent"] or "")
    assert first["url"] == target + first["grpc_path"]
    # Logged as the inspector's own client logs a call: status on the RESPONSE, one
    # MESSAGE per streamed message, STREAM_END with the final status.
    (stream_call,) = [e for e in calls if e.data["a2a_method"] == "stream"]
    kinds = [e.kind for e in events_of(proxy, stream_call.exchange)]
    assert kinds[0] is Kind.REQUEST and kinds[1] is Kind.RESPONSE and kinds[-1] is Kind.STREAM_END
    assert kinds.count(Kind.MESSAGE) == len(events)
    end = events_of(proxy, stream_call.exchange)[-1].data
    assert end["reason"] == "complete" and end["grpc_code"] == 0 and end["terminal"] is True
    assert "added_ms" in end
    (missing,) = [e for e in calls if e.data["a2a_method"] == "get"]
    answer = next(e for e in events_of(proxy, missing.exchange) if e.kind is Kind.RESPONSE)
    assert answer.data["grpc_status"] == "NOT_FOUND"
    assert any(str(d.get("@type", "")).endswith("ErrorInfo") for d in answer.data["grpc_details"])
    assert answer.payload.code == -32001
    tracker = proxy.tracker
    states = {t.id: t.state for t in tracker.tasks.values()}
    assert states[sent.task.id] is m.TaskState.COMPLETED
    assert states[asked.task.id] is m.TaskState.COMPLETED
    assert states[held.task.id] is m.TaskState.CANCELED
    assert states[live.task.id] is m.TaskState.COMPLETED
    assert tracker.violations == [], [(v.code, v.message) for v in tracker.violations]


def rules(*items: dict[str, Any]) -> Rules:
    return Rules([Rule.model_validate(item) for item in items])


async def _stream(url: str, text: str) -> tuple[list[Any], BaseException | None]:
    got: list[Any] = []
    async with grpc_client(url, streaming=True) as client:
        try:
            async for event in client.send_message(message(text)):
                got.append(event)
        except Exception as exc:  # noqa: BLE001 - the fault under test
            return got, exc
    return got, None


async def test_fault_rules_over_grpc_to_a2a_mock() -> None:
    faults = rules(
        {"match": {"method": "SendMessage", "text": "err"}, "fault": {"error": {"code": -32001}}},
        {"match": {"method": "SendMessage", "text": "http"}, "fault": {"http": 503}},
        {
            "match": {"method": "SendMessage", "text": "grpcstatus"},
            "fault": {"http": {"status": 500, "grpc": "DATA_LOSS"}},
        },
        {"match": {"method": "SendStreamingMessage", "text": "drop"}, "fault": {"drop_after": 2}},
        {"match": {"method": "SendStreamingMessage", "text": "dup"}, "fault": {"duplicate_chunk": 2}},
        {"match": {"method": "SendStreamingMessage", "text": "corrupt"}, "fault": {"corrupt_chunk": 2}},
        {"match": {"method": "SendStreamingMessage", "text": "slow"}, "fault": {"delay": "10ms"}},
    )
    async with MockAgent(MOCK_SCENARIO, dialect="1.0", grpc_port=0) as mock:
        async with proxy_to(("", mock.base_url), rules=faults) as (proxy, server):
            async with grpc_client(server.base_url, streaming=False) as client:
                with pytest.raises(Exception) as err:
                    [r async for r in client.send_message(message("err please"))]
                assert type(err.value).__name__ == "TaskNotFoundError"  # the ErrorInfo reached the client
                with pytest.raises(Exception) as unavailable:
                    [r async for r in client.send_message(message("http please"))]
                assert "UNAVAILABLE" in str(unavailable.value)
                with pytest.raises(Exception) as loss:
                    [r async for r in client.send_message(message("grpcstatus please"))]
                assert "DATA_LOSS" in str(loss.value)
                (plain,) = [r async for r in client.send_message(message("plain"))]
                assert plain.task.status.state  # relayed untouched
            plain_events, failure = await _stream(server.base_url, "plain stream")
            assert failure is None and plain_events
            dropped, failure = await _stream(server.base_url, "drop me")
            assert len(dropped) == 2 and failure is not None
            duplicated, failure = await _stream(server.base_url, "dup me")
            assert failure is None and len(duplicated) == len(plain_events) + 1
            assert duplicated[1] == duplicated[2]
            _corrupted, failure = await _stream(server.base_url, "corrupt me")
            assert failure is not None
            slow, failure = await _stream(server.base_url, "slow me")
            assert failure is None and len(slow) == len(plain_events)
            assert not mock.requests or all(
                r.get("body", {}).get("message", {}).get("parts", [{}])[0].get("text")
                not in ("err please", "http please")
                for r in mock.requests
            )

    calls = {
        e.data["body"] and json.loads(e.data["body"])["message"]["parts"][0]["text"]: e.exchange
        for e in grpc_requests(proxy)
        if e.data["a2a_method"] in ("send", "stream")
    }

    def injected(text: str) -> str:
        return " ".join(
            e.data["injected"]
            for e in events_of(proxy, calls[text])
            if e.kind in (Kind.RESPONSE, Kind.STREAM_END) and e.data.get("injected")
        )

    assert "error=-32001" in injected("err please")
    assert "http=503" in injected("http please")
    assert "drop_after=2" in injected("drop me")
    assert "duplicate_chunk=2" in injected("dup me")
    assert "corrupt_chunk=2" in injected("corrupt me")
    assert "delay=0.01s" in injected("slow me")
    assert injected("plain") == "" and injected("plain stream") == ""
    answer = next(e for e in events_of(proxy, calls["err please"]) if e.kind is Kind.RESPONSE)
    assert answer.data["grpc_status"] == "NOT_FOUND" and answer.payload.code == -32001
    # The agent's messages are logged as it sent them: the corrupted one whole.
    corrupt_msgs = [e for e in events_of(proxy, calls["corrupt me"]) if e.kind is Kind.MESSAGE]
    assert all(e.data["json"] for e in corrupt_msgs)
    # Nothing the proxy injected is blamed on the agent.
    assert [v.code for v in proxy.tracker.violations if not v.code.startswith("client-")] == []


async def test_grpc_client_side_checks_and_a_well_behaved_client() -> None:
    """An empty parts list is the client's fault over gRPC too; the official client's
    calls raise nothing (a 1.0 gRPC call is known by its package, so a missing
    a2a-version metadata is not a finding)."""
    import grpc

    from inspector.protocol import grpc_schema

    async with MockAgent(MOCK_SCENARIO, dialect="1.0", grpc_port=0) as mock:
        async with proxy_to(("", mock.base_url)) as (proxy, server):
            async with grpc_client(server.base_url, streaming=False) as client:
                [r async for r in client.send_message(message("fine"))]
            assert proxy.tracker.violations == []
            (address,) = proxy.grpc.listeners.values()
            rpc = grpc_schema.rpcs("1.0")["SendMessage"]
            empty = grpc_schema.from_json("1.0", rpc.request, {"message": {"messageId": "m1", "role": "ROLE_USER"}})
            async with grpc.aio.insecure_channel(address.address) as channel:
                with contextlib.suppress(grpc.aio.AioRpcError):
                    await channel.unary_unary(rpc.path)(empty.SerializeToString())
                # An unknown method passes through to the agent, which says UNIMPLEMENTED.
                with pytest.raises(grpc.aio.AioRpcError) as unknown:
                    await channel.unary_unary("/no.Such/Method")(b"")
                assert unknown.value.code() is grpc.StatusCode.UNIMPLEMENTED
    codes = [v.code for v in proxy.tracker.violations]
    assert codes.count("client-empty-parts") == 1, codes
    assert "client-no-version" not in codes


async def test_an_unknown_method_s_status_reaches_the_client_every_time() -> None:
    """The agent answers an unknown method before it reads the request; the proxy passes
    its UNIMPLEMENTED on only once the client has finished sending, so the client reads
    that status and not grpcio's INTERNAL for a call ended under its feet (before the
    proxy waited for the client, 4% of these calls read INTERNAL)."""
    import grpc

    async with MockAgent(MOCK_SCENARIO, dialect="1.0", grpc_port=0) as mock:
        async with proxy_to(("", mock.base_url)) as (proxy, server):
            async with grpc_client(server.base_url, streaming=False) as client:
                [r async for r in client.send_message(message("fine"))]  # opens the gRPC listener
            (address,) = proxy.grpc.listeners.values()
            codes = []
            async with grpc.aio.insecure_channel(address.address) as channel:
                for _ in range(100):
                    with pytest.raises(grpc.aio.AioRpcError) as unknown:
                        await channel.unary_unary("/no.Such/Method")(b"x")
                    codes.append(unknown.value.code())
    assert set(codes) == {grpc.StatusCode.UNIMPLEMENTED}, codes


async def test_a_method_outside_a2a_passes_through_both_ways() -> None:
    """A bidirectional method the A2A schema does not know (a service of the agent's
    own): the client's messages reach the agent in order as it sends them, the answers
    come back, then the agent's status and trailers; the call is logged without a
    dialect."""
    import grpc

    async def echo(requests: Any, context: Any) -> Any:
        async for raw in requests:
            yield b"echo:" + raw
        context.set_trailing_metadata((("x-count", "3"),))

    handler = grpc.method_handlers_generic_handler("own.Echo", {"Talk": grpc.stream_stream_rpc_method_handler(echo)})
    agent = grpc.aio.server()
    agent.add_generic_rpc_handlers((handler,))
    port = agent.add_insecure_port("127.0.0.1:0")
    await agent.start()
    try:
        async with proxy_to(("", "http://127.0.0.1:9/")) as (proxy, _server):
            listener = await proxy.grpc.ensure(f"grpc://127.0.0.1:{port}")
            async with grpc.aio.insecure_channel(listener.address) as channel:
                call = channel.stream_stream("/own.Echo/Talk")()
                answers = []
                for word in (b"one", b"two", b"three"):
                    await call.write(word)
                    answers.append(await call.read())  # each answer before the next write
                await call.done_writing()
                assert await call.read() is grpc.aio.EOF
                assert await call.code() is grpc.StatusCode.OK
                assert ("x-count", "3") in tuple(await call.trailing_metadata())
    finally:
        await agent.stop(None)
    assert answers == [b"echo:one", b"echo:two", b"echo:three"]
    (request,) = [e for e in proxy.session.events if e.kind is Kind.REQUEST]
    assert request.data["url"].endswith("/own.Echo/Talk") and not request.data.get("dialect")
    (response,) = [e for e in proxy.session.events if e.kind is Kind.RESPONSE]
    assert response.data["grpc_status"] == "OK" and response.data["trailers"]["x-count"] == "3"


def test_headless_proxy_records_grpc_that_replays_and_diffs_equivalent(
    sdk_agent_grpc: tuple[str, str], tmp_path: Path
) -> None:
    """``a2a-inspect proxy --grpc-upstream`` relays gRPC from the start; its recording
    is an ordinary one: it loads as the client's own gRPC recordings do, and ``replay
    --against`` the agent finds the same conversation."""
    from cli_helpers import Cli
    from inspector.session.reader import load_recording
    from test_proxy_cli import ProxyProcess

    base, target = sdk_agent_grpc
    cli = Cli(tmp_path / "home")
    record = tmp_path / "proxied-grpc.jsonl"
    proxy = ProxyProcess(cli, base, "--grpc-upstream", target.removeprefix("grpc://"), "--record", str(record))
    try:
        listening = proxy.wait_for("  gRPC 127.0.0.1:")
        assert listening.strip().endswith(f"-> {target}")

        async def talk() -> list[str]:
            from a2a.types import a2a_pb2 as pb

            got = []
            async with grpc_client(proxy.url, streaming=False) as client:
                (sent,) = [r async for r in client.send_message(message("hello over grpc"))]
                got.append(texts(sent.task.artifacts[0].parts))
                (asked,) = [r async for r in client.send_message(message("ask me"))]
                assert asked.task.status.state == pb.TaskState.TASK_STATE_INPUT_REQUIRED
                [
                    r
                    async for r in client.send_message(
                        message("the answer", task_id=asked.task.id, context_id=asked.task.context_id)
                    )
                ]
            async with grpc_client(proxy.url, streaming=True) as client:
                events = [e async for e in client.send_message(message("stream me over grpc"))]
                got.append(
                    texts(
                        p
                        for e in events
                        if e.WhichOneof("payload") == "artifact_update"
                        for p in e.artifact_update.artifact.parts
                    )
                )
            return got

        got = asyncio.run(talk())
        proxy.wait_for("ended: complete after")
    finally:
        rest = proxy.stop()
    text = "".join(proxy.lines) + rest
    assert got == ["echo: hello over grpc", "echo: stream me over grpc"]
    assert "SendStreamingMessage [1.0 grpc]" in text and "← gRPC OK stream" in text
    assert "error (" not in text and "warning (" not in text
    # Times print rounded to the microsecond, never as a float's long tail.
    import re

    assert not re.search(r"\+\d+\.\d{4,} ms", text), text
    rec = load_recording(record)
    assert {Kind.REQUEST, Kind.RESPONSE, Kind.MESSAGE, Kind.STREAM_END} <= {e.kind for e in rec.session.events}
    assert {
        e.data.get("binding")
        for e in rec.session.events
        if e.kind is Kind.REQUEST and e.data.get("a2a_method") != "card"
    } == {"grpc"}
    diff = cli("replay", str(record), "--against", target)
    assert diff.code == 0, diff
    assert "equivalent" in diff.out


async def test_a_grpc_message_past_the_limits_is_relayed_whole_and_logged_cut() -> None:
    from inspector.client.limits import Limits
    from inspector.protocol.errors import ProtocolError
    from inspector.proxy import Proxy, ProxyServer, Route

    async with MockAgent(MOCK_SCENARIO, dialect="1.0", grpc_port=0) as mock:
        proxy = Proxy([Route("", mock.base_url)], limits=Limits(max_body=40, max_event=40))
        async with ProxyServer(proxy, grpc_upstream=mock.grpc_address):
            (listener,) = proxy.grpc.listeners.values()
            events, failure = await _stream_to(listener.address, "long enough to pass forty bytes")
            assert failure is None and events
    messages = [e for e in proxy.session.events if e.kind is Kind.MESSAGE]
    assert len(messages) == len(events)
    assert any(e.data.get("cut") and isinstance(e.payload, ProtocolError) for e in messages)
    assert all(e.data.get("json") is None for e in messages if e.data["size"] > 40)


async def _stream_to(address: str, text: str) -> tuple[list[bytes], BaseException | None]:
    import grpc

    from inspector.protocol import grpc_schema

    request = grpc_schema.from_json(
        "1.0", "SendMessageRequest", {"message": {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": text}]}}
    ).SerializeToString()
    got: list[bytes] = []
    async with grpc.aio.insecure_channel(address) as channel:
        try:
            async for raw in channel.unary_stream("/lf.a2a.v1.A2AService/SendStreamingMessage")(
                request, metadata=(("a2a-version", "1.0"),)
            ):
                got.append(raw)
        except grpc.aio.AioRpcError as exc:
            return got, exc
    return got, None


async def test_a_0_3_grpc_client_through_the_proxy_to_a2a_mock() -> None:
    """0.3's A2AService (package a2a.v1) is told from 1.0's by its path; the card's 0.3
    GRPC interface is moved to the proxy too."""
    async with MockAgent(MOCK_SCENARIO, dialect="0.3", grpc_port=0) as mock:
        async with proxy_to(("", mock.base_url)) as (proxy, server):
            events, failure = await _stream(server.base_url, "stream over 0.3")
            assert failure is None and events
            (listener,) = proxy.grpc.listeners.values()
            assert listener.url == f"grpc://{mock.grpc_address}"
    calls = grpc_requests(proxy)
    assert calls and {e.data["dialect"] for e in calls} == {"0.3"}
    assert all(e.data["grpc_path"].startswith("/a2a.v1.A2AService/") for e in calls)
    assert any(e.kind is Kind.MESSAGE for e in proxy.session.events)
    assert proxy.tracker.violations == [], [(v.code, v.message) for v in proxy.tracker.violations]


@contextlib.asynccontextmanager
async def _raw_agent(stream: Any) -> AsyncIterator[str]:
    """A grpc.aio agent answering any call with the unary-stream handler ``stream``."""
    import grpc

    class Handler(grpc.GenericRpcHandler):
        def service(self, details: Any) -> Any:
            return grpc.unary_stream_rpc_method_handler(stream)

    async with grpc_agent(Handler()) as address:
        yield address


def _update(text: str) -> bytes:
    from inspector.protocol import grpc_schema

    return grpc_schema.message_class("1.0", "StreamResponse")(
        artifact_update={"task_id": "t", "context_id": "c", "artifact": {"artifact_id": "a", "parts": [{"text": text}]}}
    ).SerializeToString()


async def test_an_agent_failing_mid_stream_reaches_the_client_after_its_messages() -> None:
    """The relay reads ahead of its writes: the agent's messages still come before its
    status, and the status, details and trailers come through as sent."""
    import grpc

    from inspector.proxy import Proxy, ProxyServer, Route

    async def stream(request: bytes, context: Any) -> Any:
        for i in range(3):
            yield _update(f"part {i}")
        await context.abort(grpc.StatusCode.INTERNAL, "the agent broke", trailing_metadata=(("why", "test"),))

    async with _raw_agent(stream) as address:
        proxy = Proxy([Route("", "http://127.0.0.1:9")])
        async with ProxyServer(proxy, grpc_upstream=address):
            (listener,) = proxy.grpc.listeners.values()
            got, failure = await _stream_to(listener.address, "go")
    assert got == [_update(f"part {i}") for i in range(3)]
    assert failure is not None and failure.code() is grpc.StatusCode.INTERNAL
    assert failure.details() == "the agent broke" and ("why", "test") in tuple(failure.trailing_metadata())
    assert len([e for e in proxy.session.events if e.kind is Kind.MESSAGE]) == 3
    (end,) = [e for e in proxy.session.events if e.kind is Kind.STREAM_END]
    assert end.data["reason"] == "error" and end.data["events"] == 3 and end.data["grpc_status"] == "INTERNAL"


async def test_a_client_leaving_mid_stream_ends_the_agents_call() -> None:
    from inspector.protocol import grpc_schema
    from inspector.proxy import Proxy, ProxyServer, Route

    agent_gone = asyncio.Event()

    async def stream(request: bytes, context: Any) -> Any:
        try:
            i = 0
            while True:
                yield _update(f"part {i}")
                i += 1
        finally:
            agent_gone.set()

    import grpc

    request = grpc_schema.from_json(
        "1.0", "SendMessageRequest", {"message": {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": "go"}]}}
    ).SerializeToString()
    async with _raw_agent(stream) as address:
        proxy = Proxy([Route("", "http://127.0.0.1:9")])
        async with ProxyServer(proxy, grpc_upstream=address):
            (listener,) = proxy.grpc.listeners.values()
            async with grpc.aio.insecure_channel(listener.address) as channel:
                call = channel.unary_stream("/lf.a2a.v1.A2AService/SendStreamingMessage")(
                    request, metadata=(("a2a-version", "1.0"),)
                )
                for _ in range(5):
                    assert await call.read() == _update(f"part {_}")
                call.cancel()
            await until(agent_gone.is_set, "the agent's call ended")
            end = await until(
                lambda: [e for e in proxy.session.events if e.kind is Kind.STREAM_END], "the stream's end logged"
            )
    assert end[0].data["reason"] == "closed" and end[0].data.get("closed_by") == "client"
    messages = [e for e in proxy.session.events if e.kind is Kind.MESSAGE]
    assert len(messages) == end[0].data["events"] >= 5
