"""The hub in-process: registration, the HTTP bridge, delegation, stale agents, dropped
sockets, and what a hostile agent can and cannot do to it (the 50 MB frame is in
test_hub_cli.py, against the hub as a process, where its memory can be measured)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest

from hub_helpers import CARD, RawAgent, running_hub, text_parts, until
from inspector.client import A2AClient
from inspector.hub import HubLimits
from inspector.protocol import hub as proto
from inspector.protocol.lint import lint_card
from inspector.protocol.models import TaskState
from inspector.session import Kind
from mock_agent import MockAgent

S = TaskState


def rpc(method: str, params: Any, rid: int = 1) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "method": method, "params": params}


def send_params(task_id: str, text: str = "hello") -> dict[str, Any]:
    return {"id": task_id, "message": {"role": "user", "parts": text_parts(text)}}


def notes(hub: Any) -> list[str]:
    return [e.data["text"] for e in hub.session.events if e.kind is Kind.NOTE]


async def answer_task(agent: RawAgent, chunks: tuple[str, ...] = ("a", "b")) -> dict[str, Any]:
    """Play a well-behaved ws-agent for the next task: working, chunks, complete."""
    req = await agent.next_request()
    tid = req["params"]["id"]
    await agent.notify("task.status", {"id": tid, "status": {"state": "working"}, "final": False})
    for i, text in enumerate(chunks):
        await agent.notify(
            "task.artifact",
            {
                "id": tid,
                "artifact": {"index": 0, "parts": text_parts(text), "append": i > 0, "lastChunk": i == len(chunks) - 1},
            },
        )
    await agent.notify(
        "task.complete",
        {"id": tid, "status": {"state": "completed"}, "metadata": {"cost": {"amount": 0.0, "currency": "USD"}}},
    )
    return req


# ---------------------------------------------------------------------- registration


async def test_register_serves_the_card_on_the_bridge() -> None:
    async with running_hub() as (hub, server), RawAgent(server.ws_url) as agent:
        answer = await agent.register("helper")
        assert answer["result"]["url"] == "ws-agent://helper"
        assert answer["result"]["heartbeat_interval"] == pytest.approx(15.0)
        async with httpx.AsyncClient() as http:
            for path in ("agent.json", "agent-card.json"):
                card = (await http.get(f"{server.base_url}/agents/helper/.well-known/{path}")).json()
                assert card["url"] == "ws-agent://helper"
                assert card["hubBridge"] == f"{server.base_url}/agents/helper"
                assert card["skills"] == CARD["skills"]
            listed = (await http.get(f"{server.base_url}/agents")).json()
            assert listed["agents"][0]["name"] == "helper" and listed["agents"][0]["status"] == "online"
            missing = await http.get(f"{server.base_url}/agents/nobody/.well-known/agent.json")
            assert missing.status_code == 404
        # A Society AI card with its ws-agent:// url is a well-formed 0.1 card.
        assert [f for f in lint_card(card, "0.1") if f.severity == "error"] == []


async def test_a_name_already_taken_is_refused_clearly_and_freed_on_disconnect() -> None:
    async with running_hub() as (hub, server):
        async with RawAgent(server.ws_url) as first, RawAgent(server.ws_url) as second:
            assert "result" in await first.register("helper")
            refused = await second.register("helper")
            assert refused["error"]["code"] == proto.NAME_TAKEN
            assert "registered by another connection (#1)" in refused["error"]["data"]["reason"]
            assert any("agent.register refused" in n and "'helper'" in n for n in notes(hub))
            # The refused socket stays open and unregistered: it may try another name.
            assert "result" in await second.register("helper-2")
        await until(lambda: not hub.agents["helper"].online, "the first agent to go offline")
        async with RawAgent(server.ws_url) as third:
            again = await third.register("helper")
            assert again["result"]["name"] == "helper"
        assert hub.agents["helper"].registrations == 2


@pytest.mark.parametrize("name", ["", "has space", "x" * 65, "-leading", "ünïcode"])
async def test_names_are_bounded(name: str) -> None:
    async with running_hub() as (hub, server), RawAgent(server.ws_url) as agent:
        answer = await agent.call("agent.register", {"name": name, "card": CARD} if name else {"card": {}})
        assert answer["error"]["code"] in (proto.BAD_NAME, -32602)
        assert hub.agents == {}


async def test_nothing_but_register_and_heartbeat_before_registering() -> None:
    async with running_hub() as (hub, server), RawAgent(server.ws_url) as agent:
        beat = await agent.call("heartbeat", {})
        assert beat["result"] == {"ok": True}
        for method in ("agent.search", "agent.send_task", "task.status"):
            answer = await agent.call(method, {"id": "t", "status": {"state": "working"}})
            assert answer["error"]["code"] in (proto.NOT_REGISTERED, proto.UNKNOWN_TASK), method


# ---------------------------------------------------------------------- the bridge


async def test_bridge_send_and_stream_reach_the_ws_agent() -> None:
    async with running_hub() as (hub, server), RawAgent(server.ws_url) as agent:
        await agent.register("helper")
        url = f"{server.base_url}/agents/helper"
        async with A2AClient(url) as client:
            playing = asyncio.ensure_future(answer_task(agent, ("Hello, ", "world")))
            task = await client.send({"message": {"role": "user", "parts": [{"kind": "text", "text": "hi"}]}})
            req = await playing
            assert client.dialect.name == "0.1"
            assert req["method"] == "tasks/send"
            assert req["params"]["metadata"]["executor"] == {"name": "helper"}
            assert task.status.state is S.COMPLETED
            assert "".join(p.text for p in task.artifacts[0].parts) == "Hello, world"
            assert task.metadata["cost"]["currency"] == "USD"
            playing = asyncio.ensure_future(answer_task(agent, ("x", "y", "z")))
            events = [
                e
                async for e in client.stream(
                    {"message": {"role": "user", "parts": [{"kind": "text", "text": "again"}]}}
                )
            ]
            req = await playing
            assert req["method"] == "tasks/sendSubscribe"
            assert [type(e).__name__ for e in events] == ["TaskStatusUpdateEvent"] + ["TaskArtifactUpdateEvent"] * 3 + [
                "TaskStatusUpdateEvent"
            ]
            got = await client.get_task(req["params"]["id"])
            assert got.status.state is S.COMPLETED and got.artifacts[0].parts[2].text == "z"
        # Both calls are in the hub's session as frames, and fold without a violation.
        assert hub.tracker.violations == []
        assert [t.state for t in hub.tracker.tasks.values()] == [S.COMPLETED, S.COMPLETED]


async def test_bridge_answers_for_an_agent_that_is_not_there() -> None:
    async with running_hub() as (hub, server), httpx.AsyncClient() as http:
        r = await http.post(f"{server.base_url}/agents/ghost", json=rpc("tasks/send", send_params("t")))
        assert r.status_code == 404
        assert r.json()["error"]["code"] == proto.NO_SUCH_AGENT
        r = await http.post(f"{server.base_url}/agents/ghost", json=rpc("tasks/get", {"id": "t"}))
        assert r.json()["error"]["code"] == -32001


async def test_an_agent_error_answer_reaches_the_bridge_caller() -> None:
    async with running_hub() as (hub, server), RawAgent(server.ws_url) as agent, httpx.AsyncClient() as http:
        await agent.register("helper")

        async def fail() -> None:
            req = await agent.next_request()
            await agent.send({"jsonrpc": "2.0", "id": req["id"], "error": {"code": -32603, "message": "model down"}})

        playing = asyncio.ensure_future(fail())
        r = await http.post(f"{server.base_url}/agents/helper", json=rpc("tasks/send", send_params("t1")))
        await playing
        assert r.json()["error"] == {"code": -32603, "message": "model down"}
        assert hub.tracker.task("t1").error is not None
        assert hub.tracker.violations == []


async def test_cancel_goes_to_the_agent_and_its_answer_comes_back() -> None:
    async with running_hub() as (hub, server), RawAgent(server.ws_url) as agent, httpx.AsyncClient() as http:
        await agent.register("helper")
        url = f"{server.base_url}/agents/helper"
        streaming = asyncio.ensure_future(http.post(url, json=rpc("tasks/sendSubscribe", send_params("t1"))))
        req = await agent.next_request()
        await agent.notify("task.status", {"id": "t1", "status": {"state": "working"}, "final": False})
        await until(lambda: hub.tracker.task("t1") and hub.tracker.task("t1").state is S.WORKING)

        async def cancel_answer() -> None:
            c = await agent.next_request()
            assert c["method"] == "tasks/cancel" and c["params"] == {"id": "t1"}
            task = {"id": "t1", "status": {"state": "canceled"}}
            await agent.send({"jsonrpc": "2.0", "id": c["id"], "result": task})
            await agent.notify("task.complete", task)

        playing = asyncio.ensure_future(cancel_answer())
        r = await http.post(url, json=rpc("tasks/cancel", {"id": "t1"}, 2))
        await playing
        assert r.json()["result"]["status"]["state"] == "canceled"
        body = (await streaming).text
        assert '"canceled"' in body and req["method"] == "tasks/sendSubscribe"
        assert hub.tracker.task("t1").state is S.CANCELED and hub.tracker.violations == []


# ---------------------------------------------------------------------- faults


async def test_a_socket_dropped_mid_task_fails_the_task_with_a_clear_note() -> None:
    async with running_hub() as (hub, server), httpx.AsyncClient() as http:
        agent = await RawAgent(server.ws_url).__aenter__()
        await agent.register("helper")
        streaming = asyncio.ensure_future(
            http.post(f"{server.base_url}/agents/helper", json=rpc("tasks/sendSubscribe", send_params("t1")))
        )
        await agent.next_request()
        await agent.notify("task.status", {"id": "t1", "status": {"state": "working"}, "final": False})
        await until(lambda: hub.tracker.task("t1") and hub.tracker.task("t1").state is S.WORKING)
        agent.ws.transport.abort()  # no close frame: the connection just drops
        body = (await streaming).text
        last = json.loads(body.strip().split("\n\n")[-1].removeprefix("data: "))
        assert last["result"]["status"]["state"] == "failed" and last["result"]["final"] is True
        assert "disconnected" in last["result"]["status"]["message"]["parts"][0]["text"]
        task = hub.tracker.task("t1")
        assert task.state is S.FAILED
        errors = [e.data["message"] for e in hub.session.events if e.kind is Kind.ERROR]
        assert errors == [
            "ws-agent helper disconnected (the connection dropped) while task t1 was working: the hub failed the task"
        ]
        ends = [e.data["reason"] for e in hub.session.events if e.kind is Kind.STREAM_END]
        assert ends == ["eof"]
        # The hub's own status is marked as such, and is no violation of the agent's.
        hub_frames = [e for e in hub.session.events if e.kind is Kind.WS and e.data["dir"] == "hub"]
        assert len(hub_frames) == 1
        assert hub.tracker.violations == []


async def test_an_agent_that_goes_quiet_is_stale_until_heard_from_again() -> None:
    now = [100.0]
    async with (
        running_hub(limits=HubLimits(heartbeat_timeout=30.0), clock=lambda: now[0], sweep_every=3600) as (hub, server),
        RawAgent(server.ws_url) as agent,
    ):
        told: list[tuple[str, str]] = []
        hub.listeners.append(lambda what, entry: told.append((what, entry.name)))
        await agent.register("helper")
        now[0] += 29.0
        hub.sweep()
        assert not hub.agents["helper"].stale
        now[0] += 2.0
        hub.sweep()
        assert hub.agents["helper"].stale and hub.agents["helper"].status == "stale"
        assert any("marked stale" in n for n in notes(hub))
        await agent.call("heartbeat", {})
        assert not hub.agents["helper"].stale
        assert told == [("registered", "helper"), ("stale", "helper"), ("alive", "helper")]


async def test_a_socket_that_never_registers_is_closed() -> None:
    now = [0.0]
    async with (
        running_hub(limits=HubLimits(heartbeat_timeout=5.0), clock=lambda: now[0], sweep_every=0.01) as (hub, server),
        RawAgent(server.ws_url) as agent,
    ):
        await agent.call("heartbeat", {})
        now[0] += 6.0
        code, reason = await agent.closed()
        assert code == 1008 and "register" in reason
        assert any("did not register within 5 s" in n for n in notes(hub))


# ---------------------------------------------------------------------- hostile agents


async def test_bad_frames_are_answered_and_noted_never_a_crash() -> None:
    async with running_hub() as (hub, server), RawAgent(server.ws_url) as agent:
        await agent.register("helper")
        for junk in (
            "{not json",
            "[1, 2, 3]",
            '{"jsonrpc": "2.0", "id": {"x": 1}, "method": "heartbeat"}',
            "\u202eevil",
            json.dumps(
                {"jsonrpc": "2.0", "id": 5, "method": "task.status", "params": {"status": {"state": "working"}}}
            ),
        ):
            await agent.send(junk)
            answer = await agent.recv()
            assert answer["error"]["code"] in (-32700, -32600, -32602), (junk, answer)
        await agent.send(b"\x00\x01binary")
        assert (await agent.recv())["error"]["code"] == -32600
        unknown = await agent.call("agent.teleport", {})
        assert unknown["error"]["code"] == -32601
        # Still registered and answering.
        assert (await agent.call("heartbeat", {}))["result"] == {"ok": True}
        binary = [e for e in hub.session.events if e.kind is Kind.WS and e.data["op"] == "binary"]
        assert binary[0].data["size"] == 8 and binary[0].data["encoding"] == "base64"
        codes = [v.code for v in hub.tracker.violations]
        assert codes.count("decode-error") == 6  # four invalid frames, the bad params, the binary frame


def strict_json(text: str) -> Any:
    """JSON as RFC 8259 has it: Infinity and NaN are not JSON."""

    def refuse(word: str) -> Any:
        raise ValueError(f"{word} is not JSON")

    return json.loads(text, parse_constant=refuse)


async def test_an_id_that_is_not_a_finite_number_is_refused_with_valid_json() -> None:
    async with running_hub(sweep_every=3600) as (hub, server), RawAgent(server.ws_url) as agent:
        for registered in (False, True):
            for rid in ("1e999", "-1e999", "NaN"):
                await agent.send(f'{{"jsonrpc": "2.0", "id": {rid}, "method": "heartbeat", "params": {{}}}}')
                answer = strict_json(await asyncio.wait_for(agent.ws.recv(), 15))
                assert answer["id"] is None and answer["error"]["code"] == -32600, (rid, answer)
                assert answer["error"]["data"]["reason"] == "id must be a finite number"
            if not registered:
                await agent.register("helper")
        # The bridge, too.
        async with httpx.AsyncClient(timeout=15) as http:
            resp = await http.post(
                f"{server.base_url}/agents/helper",
                content=b'{"jsonrpc": "2.0", "id": 1e999, "method": "tasks/get", "params": {"id": "x"}}',
            )
            answer = strict_json(resp.text)
            assert answer["id"] is None and answer["error"]["code"] == -32600, answer
        assert (await agent.call("heartbeat", {}))["result"] == {"ok": True}


async def test_a_frame_flood_closes_the_socket() -> None:
    # A frozen clock: the bucket never refills, so the count alone decides.
    async with (
        running_hub(limits=HubLimits(burst=50, rate=1.0), clock=lambda: 0.0, sweep_every=3600) as (hub, server),
        RawAgent(server.ws_url) as agent,
    ):
        await agent.register("helper")  # 1 frame
        for _ in range(60):
            await agent.notify("heartbeat", {})
        code, reason = await agent.closed()
        assert (code, reason) == (1008, "frame flood")
        assert any("closed it as a flood" in n for n in notes(hub))
        frames = [
            e for e in hub.session.events if e.kind is Kind.WS and e.data["dir"] == "in" and e.data["op"] == "text"
        ]
        assert len(frames) == 50  # the 51st frame is refused, not logged
        assert not hub.agents["helper"].online


async def test_a_frame_over_the_limit_is_refused_unread() -> None:
    async with running_hub(limits=HubLimits(max_frame=64 * 1024)) as (hub, server), RawAgent(server.ws_url) as agent:
        await agent.register("helper")
        await agent.send(json.dumps({"jsonrpc": "2.0", "method": "heartbeat", "params": {"pad": "x" * 100_000}}))
        code, _reason = await agent.closed()
        assert code == 1009
        await until(lambda: any("over the 64 KiB limit" in n for n in notes(hub)), "the size note")
        assert not any(e.kind is Kind.WS and "pad" in (e.data.get("text") or "") for e in hub.session.events)


async def test_too_many_sockets_are_turned_away() -> None:
    from websockets.exceptions import InvalidStatus

    async with running_hub(limits=HubLimits(max_sockets=1)) as (hub, server), RawAgent(server.ws_url):
        with pytest.raises(InvalidStatus):
            async with RawAgent(server.ws_url):
                pass
        assert any("sockets are open already" in n for n in notes(hub))


# ---------------------------------------------------------------------- search and delegation


async def test_search_by_words_tags_and_skill() -> None:
    async with (
        running_hub(http_agents={"weather": "http://127.0.0.1:9/"}) as (hub, server),
        RawAgent(server.ws_url) as a,
        RawAgent(server.ws_url) as b,
    ):
        await a.register("helper")
        await b.register(
            "poet", {"name": "poet", "description": "Writes poems", "skills": [{"id": "verse", "tags": ["poetry"]}]}
        )
        names = lambda answer: [c["name"] for c in answer["result"]["agents"]]  # noqa: E731
        assert names(await a.call("agent.search", {"query": "research PAPERS"})) == ["helper"]
        assert names(await a.call("agent.search", {"tags": ["poetry"]})) == ["poet"]
        assert names(await a.call("agent.search", {"skill": "papers"})) == ["helper"]
        assert names(await a.call("agent.search", {"query": ""})) == ["helper", "poet", "weather"]
        assert names(await a.call("agent.search", {"query": "", "limit": 1})) == ["helper"]
        bad = await a.call("agent.search", {"limit": "all"})
        assert bad["error"]["code"] == -32602


async def test_delegation_to_another_ws_agent_links_parent_and_child() -> None:
    async with (
        running_hub() as (hub, server),
        RawAgent(server.ws_url) as a,
        RawAgent(server.ws_url) as b,
        httpx.AsyncClient() as http,
    ):
        await a.register("lead")
        await b.register("helper")
        streaming = asyncio.ensure_future(
            http.post(f"{server.base_url}/agents/lead", json=rpc("tasks/sendSubscribe", send_params("parent")))
        )
        await a.next_request()
        await a.notify("task.status", {"id": "parent", "status": {"state": "working"}, "final": False})
        child = asyncio.ensure_future(
            a.call(
                "agent.send_task", {"agent": "helper", "message": {"role": "user", "parts": text_parts("find papers")}}
            )
        )
        req = await answer_task(b, ("found",))
        assert req["params"]["metadata"]["parent_task_id"] == "parent"
        assert req["params"]["metadata"]["requester"] == {"name": "lead"}
        answer = (await child)["result"]
        assert answer["status"]["state"] == "completed"
        assert answer["metadata"]["parent_task_id"] == "parent"
        assert answer["artifacts"][0]["parts"][0]["text"] == "found"
        await a.notify("task.complete", {"id": "parent", "status": {"state": "completed"}})
        await streaming
        child_id = req["params"]["id"]
        assert hub.tracker.children == {"parent": [child_id]}
        assert hub.tracker.task(child_id).parent == "parent"
        assert hub.tracker.violations == []
        missing = await a.call("agent.send_task", {"agent": "nobody", "message": {"role": "user", "parts": []}})
        assert missing["error"]["code"] == proto.NO_SUCH_AGENT


async def test_delegation_to_an_http_agent_given_with_route() -> None:
    async with (
        MockAgent("echo", dialect="0.3") as mock,
        running_hub(http_agents={"echoer": mock.url}) as (hub, server),
        RawAgent(server.ws_url) as a,
    ):
        await a.register("lead")
        answer = await a.call(
            "agent.send_task",
            {
                "agent": "echoer",
                "message": {"role": "user", "parts": text_parts("ping")},
                "metadata": {"parent_task_id": "p0"},
            },
        )
        task = answer["result"]
        assert task["status"]["state"] == "completed"
        assert task["metadata"]["parent_task_id"] == "p0"
        # The HTTP exchange is in the hub's session beside the frames, and linked.
        assert any(e.kind is Kind.REQUEST for e in hub.session.events)
        assert hub.tracker.children == {"p0": [task["id"]]}
