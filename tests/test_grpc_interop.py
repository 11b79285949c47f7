"""The gRPC binding end to end: a2a-inspect's client against the real a2a-sdk 1.3.0
agent's gRPC server (tests/peers/sdk_agent.py, grpc=True): 1.0 (lf.a2a.v1) and its 0.3
compat service (a2a.v1). Card, send, stream, get, cancel, subscribe, push config,
input-required continued on the same task, errors (gRPC status + ErrorInfo, mapped to
the JSON-RPC codes), and every RPC an exchange in the session log.
"""

from __future__ import annotations

import asyncio

import pytest

from binding_matrix import DIALECTS, HOOK, msg, requests, sdk_matrix
from inspector.client import A2AClient, TransportError
from inspector.protocol import models as m
from inspector.protocol.errors import describe_rpc_error
from inspector.protocol.grpc_codec import GrpcError
from inspector.session import TaskTracker
from inspector.session.events import Kind
from peers import sdk_agent
from ports import refused_port


@pytest.mark.parametrize("dialect", DIALECTS)
async def test_sdk_agent_over_grpc(sdk_agent_grpc: tuple[str, str], dialect: str) -> None:
    base, target = sdk_agent_grpc
    async with A2AClient(target, dialect=dialect) as client:
        task, answered = await sdk_matrix(client, base)
        assert (client.binding, client.endpoint) == ("grpc", target)

        # Errors: the gRPC status, mapped onto the JSON-RPC codes, both kept.
        with pytest.raises(GrpcError) as raised:
            await client.get_task("no-such-task")
        assert (raised.value.code, raised.value.grpc_code, raised.value.status) == (-32001, 5, "NOT_FOUND")
        line = describe_rpc_error(raised.value)
        assert "gRPC 5 NOT_FOUND" in line and "-32001" in line
        with pytest.raises(GrpcError) as raised:
            await client.cancel(task.id)
        assert raised.value.code == -32002 and raised.value.status == "FAILED_PRECONDITION"
        # The agent's card says no push notifications: the agent refuses, as a gRPC status.
        with pytest.raises(GrpcError) as raised:
            await client.set_push(task.id, {"url": HOOK, "id": "c1"})
        assert raised.value.code == -32003 and raised.value.status == "FAILED_PRECONDITION"
        with pytest.raises(GrpcError) as raised:
            [e async for e in client.resubscribe("no-such-task")]
        assert raised.value.code == -32001

    # A well-behaved agent over gRPC: nothing to report (the refusals above are answers).
    tracker = TaskTracker(client.session)
    assert [v.code for v in tracker.violations] == []
    assert tracker.tasks[answered.id].state is m.TaskState.COMPLETED
    sent = requests(client)
    package = "lf.a2a.v1" if dialect == "1.0" else "a2a.v1"
    assert {r["binding"] for r in sent} == {"grpc"}
    assert all(r["url"].startswith(f"{target}/{package}.A2AService/") for r in sent)
    assert all(
        r["body_size"] >= 0 and r["headers"].get("a2a-version") == ("1.0" if dialect == "1.0" else None) for r in sent
    )
    # 1.0's rich errors: the ErrorInfo from grpc-status-details-bin, as ProtoJSON.
    errors = [e.data for e in client.session.events if e.kind is Kind.RESPONSE and e.data.get("grpc_code")]
    assert {d["grpc_status"] for d in errors} == {"NOT_FOUND", "FAILED_PRECONDITION"}
    if dialect == "1.0":
        assert all(d["grpc_details"][0]["reason"] for d in errors)
    messages = [e for e in client.session.events if e.kind is Kind.MESSAGE]
    assert messages and all(e.data["size"] > 0 and e.data["json"].startswith("{") for e in messages)
    ends = [e.data for e in client.session.events if e.kind is Kind.STREAM_END]
    assert any(d["reason"] == "complete" and d["grpc_status"] == "OK" for d in ends)


async def test_a_file_part_and_numbers_over_0_3_grpc_are_judged_the_same_message(
    sdk_agent_grpc: tuple[str, str],
) -> None:
    """0.3's proto carries no file name and only double numbers: the agent's echo of the
    user's message (no name, 1.0 for 1) is that message, not a messageId reused."""
    _, target = sdk_agent_grpc
    sent = m.SendParams(
        message=m.Message(
            role=m.Role.USER,
            message_id="m-files",
            parts=[
                m.TextPart(text="with a file"),
                m.FilePart(
                    file=m.FileContent(name="chart.png", mime_type="image/png", uri="https://example.invalid/c.png")
                ),
                m.DataPart(data={"n": 1}),
            ],
        )
    )
    async with A2AClient(target, dialect="0.3") as client:
        task = await client.send(sent)
    assert task.status.state is m.TaskState.COMPLETED
    assert [v.code for v in TaskTracker(client.session).violations] == []


async def test_auto_binding_takes_the_cards_grpc_interface(sdk_agent_grpc: tuple[str, str]) -> None:
    base, target = sdk_agent_grpc
    async with A2AClient(base) as client:
        task = await client.send(msg("hello auto"))
        assert task.status.state is m.TaskState.COMPLETED
        assert (client.binding, client.binding_source) == ("grpc", "card")
        assert client.endpoint == target.removeprefix("grpc://")
        assert "gRPC" in (client.binding_reason or "") and "GRPC" in (client.binding_reason or "")
    # Asked for JSON-RPC, the same agent is spoken to over HTTP.
    async with A2AClient(base, binding="jsonrpc") as client:
        await client.send(msg("hello json"))
        assert client.binding == "jsonrpc"


async def test_grpc_url_without_a_dialect_asks_the_card_rpc(sdk_agent_grpc: tuple[str, str]) -> None:
    _, target = sdk_agent_grpc
    async with A2AClient(target) as client:
        task = await client.send(msg("hello bare"))
        assert task.status.state is m.TaskState.COMPLETED
        assert client.dialect is not None and client.dialect.name == "1.0" and client.binding == "grpc"
    notes = [e.data["text"] for e in client.session.events if e.kind is Kind.NOTE]
    assert any("no card over HTTP" in n and "GetExtendedAgentCard" in n for n in notes)


async def test_grpc_connect_failure_is_one_clear_line() -> None:
    with refused_port() as port:
        async with A2AClient(f"grpc://127.0.0.1:{port}", dialect="1.0") as client:
            with pytest.raises(TransportError) as raised:
                await client.send(msg("anyone?"))
    assert raised.value.kind == "connect" and "cannot connect" in raised.value.message


async def test_credentials_travel_as_metadata_only_to_their_origin(sdk_agent_grpc: tuple[str, str]) -> None:
    base, target = sdk_agent_grpc
    # Given for the agent's own gRPC URL: sent.
    async with A2AClient(target, dialect="1.0", headers={"Authorization": "Bearer s3cret"}) as client:
        await client.send(msg("hello creds"))
    assert all(r["headers"].get("authorization") == "Bearer s3cret" for r in requests(client))


# ---------------------------------------------------------------------- bounds


async def test_deadline_and_idle_timeout_over_grpc(sdk_agent_grpc: tuple[str, str]) -> None:
    """A unary call has a deadline (connect + read), a stream an idle timeout; the
    peer's hold gate keeps the streamed task from finishing for as long as the test needs."""
    from inspector.client.transport import Timeouts

    base, target = sdk_agent_grpc
    quick = Timeouts(connect=0.2, read=0.3, stream_read=0.3)
    async with A2AClient(target, dialect="1.0", timeouts=quick) as client:
        stream = client.stream(msg("hold on please"))
        first = await anext(stream)
        assert isinstance(first, m.Task)
        with pytest.raises(TransportError) as raised:
            async for _ in stream:
                pass
        assert raised.value.kind == "timeout" and "went quiet" in raised.value.message
        await asyncio.to_thread(sdk_agent.wait_parked, base, first.id)
        # A "slow" task sleeps 0.3 s before each of its three chunks: never done in 0.5 s.
        with pytest.raises(TransportError) as raised:
            await client.send(msg("slow answer please", blocking=True))
        assert raised.value.kind == "timeout" and "deadline" in raised.value.message
        ends = [e.data["reason"] for e in client.session.events if e.kind is Kind.STREAM_END]
        assert ends == ["timeout"]
        await asyncio.to_thread(sdk_agent.release, base, first.id)


async def test_a_consumer_slower_than_the_idle_timeout_is_not_a_quiet_stream(sdk_agent_grpc: tuple[str, str]) -> None:
    """The idle timeout times the agent's silence during a read, never the consumer's
    work between reads (the client arms one timer per quiet period, not one per read)."""
    from inspector.client.transport import Timeouts

    _, target = sdk_agent_grpc
    async with A2AClient(target, dialect="1.0", timeouts=Timeouts(stream_read=0.3)) as client:
        seen = []
        async for event in client.stream(msg("slow reader here")):
            seen.append(event)
            await asyncio.sleep(0.6)  # twice the idle timeout, with the read's timer armed
        assert isinstance(seen[-1], m.TaskStatusUpdateEvent) and seen[-1].status.state is m.TaskState.COMPLETED
    ends = [e.data["reason"] for e in client.session.events if e.kind is Kind.STREAM_END]
    assert ends == ["complete"]


async def test_limits_bound_what_a_grpc_agent_sends(sdk_agent_grpc: tuple[str, str]) -> None:
    from inspector.client.limits import Limits

    _, target = sdk_agent_grpc
    async with A2AClient(target, dialect="1.0", limits=Limits(max_stream_events=2)) as client:
        with pytest.raises(TransportError) as raised:
            [e async for e in client.stream(msg("count these words"))]
        assert raised.value.kind == "limit" and "--max-stream-events" in raised.value.message
        assert len([e for e in client.session.events if e.kind is Kind.MESSAGE]) == 2
    async with A2AClient(target, dialect="1.0", limits=Limits(max_event=64)) as client:
        with pytest.raises(TransportError) as raised:
            [e async for e in client.stream(msg("size these words"))]
        assert raised.value.kind == "limit" and "--max-event" in raised.value.message
    async with A2AClient(target, dialect="1.0", limits=Limits(max_stream_body=256)) as client:
        with pytest.raises(TransportError) as raised:
            [e async for e in client.stream(msg("weigh these words, and these, and these too"))]
        assert raised.value.kind == "limit" and "--max-stream-body" in raised.value.message
        (end,) = [e for e in client.session.events if e.kind is Kind.STREAM_END]
        assert (end.data["reason"], end.data["limit"]) == ("limit", "larger than 256 B (--max-stream-body)")
        assert end.data["events"] == len([e for e in client.session.events if e.kind is Kind.MESSAGE]) > 0
    async with A2AClient(target, dialect="1.0", limits=Limits(max_body=64)) as client:
        with pytest.raises(TransportError) as raised:
            await client.send(msg("a body too big for the limit"))
        assert raised.value.kind == "limit" and "--max-body" in raised.value.message


async def test_credentials_stay_off_a_grpc_target_on_another_origin(sdk_agent_grpc: tuple[str, str]) -> None:
    """Given for one origin, credentials reach another only when a card that origin
    served names it; a card that came from elsewhere (a redirect) does not carry them."""
    _, target = sdk_agent_grpc
    given = "http://127.0.0.1:9"
    async with A2AClient(given, headers={"Authorization": "Bearer s3cret"}) as client:
        sent = {"authorization": "Bearer s3cret", "a2a-version": "1.0"}
        client.card_url = given + "/.well-known/agent-card.json"
        assert client._guard(target, dict(sent)) == sent
    async with A2AClient(given, headers={"Authorization": "Bearer s3cret"}) as client:
        client.card_url = "http://127.0.0.2:9/.well-known/agent-card.json"  # after a redirect
        assert client._guard(target, dict(sent)) == {"a2a-version": "1.0"}
