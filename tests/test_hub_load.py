"""The hub's flood guard limits what is abusive, not honest load: an agent answering many
tasks at once is never cut off; one that sends frames unasked, or floods one task, is.

The hub's clock is frozen in these tests, so its token bucket never refills: whether a
socket is cut depends on the frames counted alone, never on how fast the machine is."""

from __future__ import annotations

import asyncio
import json
import ssl
from typing import Any

import httpx

from hub_helpers import WAIT, RawAgent, running_hub, text_parts, until
from hub_scenario import SCENARIO, ws_agent
from inspector.hub import HubLimits
from inspector.session import Kind

TASKS = 200
CHUNKS = [f"part {i} " for i in range(10)]
#: Each task: a working status, the chunks, the completion and the answer to the request.
FRAMES_PER_TASK = 1 + len(CHUNKS) + 2
#: How long a stream may wait for its next byte. The 200 streams share one process with
#: the hub and the agent: ~3.6 s in all on a quiet machine, a stream can wait for most of
#: that, and under a CPU hog beside the suite's workers it passed hub_helpers.WAIT (15 s).
#: Generous: it only stops a broken test from hanging.
STREAM_WAIT = 120.0


def stream(i: int) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": i,
        "method": "tasks/sendSubscribe",
        "params": {"id": f"t-{i}", "message": {"role": "user", "parts": text_parts(f"stream {i}")}},
    }


async def events_of(url: str, i: int, tls: ssl.SSLContext) -> list[dict[str, Any]]:
    # A client per stream: one pool of 200 connections costs httpcore more than the hub
    # (each event scans every connection). They share one TLS context (loopback HTTP
    # uses none, but building one per client costs more than the streams).
    out = []
    async with (
        httpx.AsyncClient(timeout=STREAM_WAIT, verify=tls) as http,
        http.stream("POST", url, json=stream(i)) as resp,
    ):
        async for line in resp.aiter_lines():
            if line.startswith("data:"):
                out.append(json.loads(line[5:]))
    return out


def notes(hub: Any) -> list[str]:
    return [e.data["text"] for e in hub.session.events if e.kind is Kind.NOTE]


async def test_many_concurrent_tasks_through_the_bridge_to_one_honest_agent_all_complete() -> None:
    scenario = json.loads(json.dumps(SCENARIO))
    scenario["rules"][0]["script"][1]["chunks"]["texts"] = CHUNKS
    limits = HubLimits()
    # The default bucket (a burst of 2,000, never refilled here) is less than this load.
    assert limits.burst < TASKS * FRAMES_PER_TASK
    async with (
        running_hub(limits=limits, clock=lambda: 0.0, sweep_every=3600) as (hub, server),
        ws_agent(server.ws_url, scenario=scenario, heartbeat=0),
    ):
        url = f"{server.base_url}/agents/helper"
        tls = ssl.create_default_context()
        results = await asyncio.gather(*(events_of(url, i, tls) for i in range(TASKS)))
        for i, events in enumerate(results):
            last = events[-1]["result"]
            assert last["status"]["state"] == "completed" and last["final"], (i, events[-1])
            text = "".join(e["result"]["artifact"]["parts"][0]["text"] for e in events if "artifact" in e["result"])
            assert text == "".join(CHUNKS), (i, text)
        assert hub.agents["helper"].online and hub.agents["helper"].registrations == 1
        assert not any("flood" in n for n in notes(hub))
    assert hub.tracker.violations == []


async def test_frames_about_tasks_not_sent_are_charged_as_unasked() -> None:
    async with (
        running_hub(limits=HubLimits(burst=50, rate=1.0), clock=lambda: 0.0, sweep_every=3600) as (hub, server),
        RawAgent(server.ws_url) as agent,
    ):
        await agent.register("helper")
        for i in range(60):
            await agent.notify("task.artifact", {"id": "t-nobody", "artifact": {"parts": text_parts(str(i))}})
        code, reason = await agent.closed()
        assert (code, reason) == (1008, "frame flood")
        assert any("frames unasked in a burst" in n and "closed it as a flood" in n for n in notes(hub))


async def test_too_many_frames_for_one_task_cut_the_agent_with_a_clear_note() -> None:
    # A large bucket: only the per-task count can cut this agent.
    limits = HubLimits(burst=100_000, max_task_frames=100)
    async with (
        running_hub(limits=limits, clock=lambda: 0.0, sweep_every=3600) as (hub, server),
        RawAgent(server.ws_url) as agent,
        httpx.AsyncClient(timeout=WAIT) as http,
    ):
        await agent.register("helper")
        call = asyncio.ensure_future(
            http.post(
                f"{server.base_url}/agents/helper",
                json={
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "tasks/send",
                    "params": {"id": "t-1", "message": {"role": "user", "parts": text_parts("go")}},
                },
            )
        )
        await agent.next_request()
        for i in range(150):
            await agent.notify(
                "task.artifact", {"id": "t-1", "artifact": {"index": 0, "parts": text_parts(f"{i} "), "append": i > 0}}
            )
        code, reason = await agent.closed()
        assert (code, reason) == (1008, "too many frames for one task")
        answer = (await call).json()
        assert answer["result"]["status"]["state"] == "failed", answer
        assert "too many frames for one task" in answer["result"]["status"]["message"]["parts"][0]["text"]
        await until(
            lambda: any("sent more than 100 frames about task t-1: closed it as a flood" in n for n in notes(hub)),
            "the note",
        )
        frames = [
            e
            for e in hub.session.events
            if e.kind is Kind.WS and e.data["dir"] == "in" and e.data.get("rpc_method") == "task.artifact"
        ]
        assert len(frames) == 100  # the 101st is refused, not logged
