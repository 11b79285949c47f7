"""a2a-mock's ws-agent against the hub, in one event loop: the inspector's own client
through the bridge sees what an HTTP agent's client would."""

from __future__ import annotations

import asyncio

import pytest

from hub_helpers import RawAgent, running_hub, until
from hub_scenario import ws_agent
from inspector.client import A2AClient, JsonRpcError
from inspector.hub import HubLimits
from inspector.protocol.models import TaskState
from inspector.session import Kind
from mock_agent.ws_agent import Refused

S = TaskState


def msg(text: str, task_id: str | None = None) -> dict:
    message = {"role": "user", "parts": [{"kind": "text", "text": text}]}
    if task_id:
        message["taskId"] = task_id
    return {"message": message}


async def test_stream_send_and_cost_metadata() -> None:
    async with (
        running_hub() as (hub, server),
        ws_agent(server.ws_url),
        A2AClient(f"{server.base_url}/agents/helper") as client,
    ):
        events = [e async for e in client.stream(msg("stream it"))]
        states = [e.status.state for e in events if hasattr(e, "status")]
        assert states == [S.WORKING, S.COMPLETED]
        chunks = [e.artifact.parts[0].text for e in events if hasattr(e, "artifact")]
        assert chunks == ["Once ", "upon ", "a time."]
        task = await client.send(msg("hello"))
        assert task.status.state is S.COMPLETED
        assert task.artifacts[0].parts[0].text == "echo: hello"
        assert task.metadata["cost"]["currency"] == "USD"
        assert task.metadata["executor"] == {"name": "helper"}
    assert hub.tracker.violations == []


async def test_input_required_is_continued_on_the_same_task() -> None:
    async with (
        running_hub() as (hub, server),
        ws_agent(server.ws_url),
        A2AClient(f"{server.base_url}/agents/helper") as client,
    ):
        first = await client.send(msg("ask me"))
        assert first.status.state is S.INPUT_REQUIRED
        assert first.status.message.parts[0].text == "Which city?"
        second = await client.send(msg("Paris", first.id))
        assert second.id == first.id and second.status.state is S.COMPLETED
        assert second.artifacts[0].parts[0].text == "sunny in Paris"
    task = hub.tracker.task(first.id)
    assert [c.state for c in task.timeline] == [S.WORKING, S.INPUT_REQUIRED, S.COMPLETED]
    assert hub.tracker.violations == []


async def test_cancel_a_task_held_at_a_gate() -> None:
    async with (
        running_hub() as (hub, server),
        ws_agent(server.ws_url) as agent,
        A2AClient(f"{server.base_url}/agents/helper") as client,
    ):
        stream = client.stream(msg("wait"))
        first = await anext(stream)
        assert first.status.state is S.WORKING
        await until(lambda: agent.held("work") == 1, "the task to reach its gate")
        canceled = await client.cancel(first.task_id)
        assert canceled.status.state is S.CANCELED
        rest = [e async for e in stream]
        assert rest[-1].status.state is S.CANCELED and rest[-1].final
    assert hub.tracker.task(first.task_id).state is S.CANCELED
    assert hub.tracker.violations == []


async def test_a_scripted_error_reaches_the_caller() -> None:
    async with (
        running_hub() as (hub, server),
        ws_agent(server.ws_url),
        A2AClient(f"{server.base_url}/agents/helper") as client,
    ):
        with pytest.raises(JsonRpcError) as caught:
            await client.send(msg("fail now"))
        assert (caught.value.code, caught.value.message) == (-32603, "the model is down")


async def test_a_scripted_drop_fails_the_task_and_the_agent_comes_back() -> None:
    async with (
        running_hub() as (hub, server),
        ws_agent(server.ws_url) as agent,
        A2AClient(f"{server.base_url}/agents/helper") as client,
    ):
        stream = client.stream(msg("drop it"))
        first = await anext(stream)
        await until(lambda: agent.held("drop") == 1, "the task to reach the drop")
        agent.release("drop")
        rest = [e async for e in stream]
        last = rest[-1]
        assert last.status.state is S.FAILED and last.final
        assert "disconnected (the connection dropped)" in last.status.message.parts[0].text
        await until(lambda: hub.agents["helper"].registrations == 2, "the agent to register again")
        assert agent.connections == 2
        again = await client.send(msg("hello"))
        assert again.status.state is S.COMPLETED
    assert hub.tracker.task(first.task_id).state is S.FAILED
    assert hub.tracker.violations == []


async def test_malformed_frames_are_violations_and_the_task_goes_on() -> None:
    async with (
        running_hub() as (hub, server),
        ws_agent(server.ws_url),
        A2AClient(f"{server.base_url}/agents/helper") as client,
    ):
        task = await client.send(msg("junk"))
        assert task.status.state is S.COMPLETED
    assert [v.code for v in hub.tracker.violations] == ["decode-error"]


async def test_an_agent_without_heartbeats_goes_stale() -> None:
    now = [0.0]
    async with (
        running_hub(limits=HubLimits(heartbeat_timeout=10.0), clock=lambda: now[0], sweep_every=3600) as (hub, server),
        ws_agent(server.ws_url, heartbeat=0),
    ):
        now[0] += 11.0
        hub.sweep()
        assert hub.agents["helper"].status == "stale"


async def test_the_mock_heartbeats_at_the_interval_the_hub_asks_for() -> None:
    # A 0.3 s timeout asks for a heartbeat every 0.1 s: heartbeats arrive, whatever the pace.
    async with (
        running_hub(limits=HubLimits(heartbeat_timeout=0.3), sweep_every=3600) as (hub, server),
        ws_agent(server.ws_url),
    ):
        await until(
            lambda: (
                sum(1 for e in hub.session.events if e.kind is Kind.WS and e.data.get("rpc_method") == "heartbeat") >= 2
            ),
            "two heartbeats",
        )


async def test_a_name_already_taken_stops_the_mock_with_a_clear_reason() -> None:
    from mock_agent.ws_agent import WsAgent

    async with running_hub() as (hub, server), RawAgent(server.ws_url) as squatter:
        await squatter.register("helper")
        with pytest.raises(Refused, match="registered by another connection"):
            await asyncio.wait_for(WsAgent(server.ws_url, "helper").run(), 15)


def test_the_mock_talks_to_loopback_hubs_only() -> None:
    from mock_agent.ws_agent import WsAgent

    with pytest.raises(ValueError, match="loopback only"):
        WsAgent("ws://192.0.2.1:8765/ws", "x")
