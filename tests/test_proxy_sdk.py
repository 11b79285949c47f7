"""The official a2a-sdk 1.3.0 client -> a2a-inspect proxy -> a real agent (the a2a-sdk
Echo Agent of tests/peers, and a2a-mock): send, stream, an input-required turn
continued, cancel and subscribe all work through the proxy, which sees every exchange,
builds the same tasks the client saw, and finds nothing wrong on either side (the
official client is the well-behaved peer for every ``client-*`` violation code)."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest

from inspector.protocol import models as m
from inspector.session import Kind
from mock_agent import MockAgent
from peers.sdk_agent import release, wait_parked
from proxy_helpers import MOCK_SCENARIO, message, methods, proxy_to, requests, sdk_client, texts, until


async def test_every_call_through_the_proxy_to_the_sdk_agent(sdk_agent: tuple[str, str]) -> None:
    from a2a.types import a2a_pb2 as pb

    S = pb.TaskState
    mode, upstream = sdk_agent
    async with proxy_to(("", upstream)) as (proxy, server):
        async with sdk_client(server.base_url, streaming=False) as client:
            (sent,) = [r async for r in client.send_message(message("hello there inspector"))]
            assert sent.task.status.state == S.TASK_STATE_COMPLETED
            assert texts(sent.task.artifacts[0].parts) == "echo: hello there inspector"

            # input-required, continued on the task.
            (asked,) = [r async for r in client.send_message(message("ask me"))]
            assert asked.task.status.state == S.TASK_STATE_INPUT_REQUIRED
            (answered,) = [
                r
                async for r in client.send_message(
                    message("the answer", task_id=asked.task.id, context_id=asked.task.context_id)
                )
            ]
            assert answered.task.status.state == S.TASK_STATE_COMPLETED

            # A held task, canceled.
            (held,) = [r async for r in client.send_message(message("hold for cancel", return_immediately=True))]
            await asyncio.to_thread(wait_parked, upstream, held.task.id)
            canceled = await client.cancel_task(pb.CancelTaskRequest(id=held.task.id))
            assert canceled.status.state == S.TASK_STATE_CANCELED

        async with sdk_client(server.base_url, streaming=True) as client:
            events = [e async for e in client.send_message(message("stream me please now"))]
            assert events[-1].status_update.status.state == S.TASK_STATE_COMPLETED
            streamed = texts(
                p
                for e in events
                if e.WhichOneof("payload") == "artifact_update"
                for p in e.artifact_update.artifact.parts
            )
            assert streamed == "echo: stream me please now"

            # Subscribe to a live task, then let it finish.
            (live,) = [
                r async for r in _blocking(server.base_url, message("hold to subscribe", return_immediately=True))
            ]
            await asyncio.to_thread(wait_parked, upstream, live.task.id)
            subscribed = client.subscribe(pb.SubscribeToTaskRequest(id=live.task.id))
            head = await anext(subscribed)
            assert head.task.status.state == S.TASK_STATE_WORKING
            await asyncio.to_thread(release, upstream, live.task.id)
            rest = [e async for e in subscribed]
            assert rest[-1].status_update.status.state == S.TASK_STATE_COMPLETED

    seen = methods(proxy)
    for method in ("card", "send", "stream", "cancel", "resubscribe"):
        assert method in seen, f"{method} did not go through the proxy: {seen}"
    assert {e.data["dialect"] for e in requests(proxy) if e.data.get("a2a_method") != "card"} == {"1.0"}
    # Every client was told to come back to the proxy: no request went around it.
    tracker = proxy.tracker
    states = {t.id: t.state for t in tracker.tasks.values()}
    assert states[sent.task.id] is m.TaskState.COMPLETED
    assert states[asked.task.id] is m.TaskState.COMPLETED
    assert states[held.task.id] is m.TaskState.CANCELED
    assert states[live.task.id] is m.TaskState.COMPLETED
    assert (
        tracker.tasks[sent.task.id].artifacts
        and next(iter(tracker.tasks[sent.task.id].artifacts.values())).text() == "echo: hello there inspector"
    )
    assert tracker.violations == [], [(v.code, v.message) for v in tracker.violations]
    # Who made each call is on record.
    first = requests(proxy)[0].data
    assert first["client"].startswith("127.0.0.1:") and first["user_agent"]
    # The per-event latency the proxy added, on every event.
    sse = [e for e in proxy.session.events if e.kind is Kind.SSE]
    assert sse and all(isinstance(e.data.get("added_ms"), float) for e in sse)


async def _blocking(url: str, request: object):  # type: ignore[no-untyped-def]
    async with sdk_client(url, streaming=False) as client:
        async for reply in client.send_message(request):
            yield reply


@pytest.mark.parametrize("dialect", ["1.0", "0.3"])
async def test_every_call_through_the_proxy_to_a2a_mock(dialect: str) -> None:
    from a2a.types import a2a_pb2 as pb

    S = pb.TaskState
    async with MockAgent(MOCK_SCENARIO, dialect=dialect) as mock, proxy_to(("", mock.base_url)) as (proxy, server):
        async with sdk_client(server.base_url, streaming=False) as client:
            (sent,) = [r async for r in client.send_message(message("hello"))]
            assert texts(sent.task.artifacts[0].parts) == "echo: hello!"
            (asked,) = [r async for r in client.send_message(message("ask"))]
            assert asked.task.status.state == S.TASK_STATE_INPUT_REQUIRED
            (answered,) = [
                r
                async for r in client.send_message(
                    message("Paris", task_id=asked.task.id, context_id=asked.task.context_id)
                )
            ]
            assert answered.task.status.state == S.TASK_STATE_COMPLETED
            (held,) = [r async for r in client.send_message(message("hold it", return_immediately=True))]
            await until(lambda: mock.held("p") == 1, "the task at its gate")
            canceled = await client.cancel_task(pb.CancelTaskRequest(id=held.task.id))
            assert canceled.status.state == S.TASK_STATE_CANCELED
        async with sdk_client(server.base_url, streaming=True) as client:
            events = [e async for e in client.send_message(message("stream"))]
            assert events[-1].status_update.status.state == S.TASK_STATE_COMPLETED
            (live,) = [r async for r in _blocking(server.base_url, message("hold on", return_immediately=True))]
            await until(lambda: mock.held("p") == 1, "the task at its gate")
            subscribed = client.subscribe(pb.SubscribeToTaskRequest(id=live.task.id))
            head = await anext(subscribed)
            assert head.task.status.state == S.TASK_STATE_WORKING
            mock.release("p")
            rest = [e async for e in subscribed]
            assert rest[-1].status_update.status.state == S.TASK_STATE_COMPLETED
    assert {e.data["dialect"] for e in requests(proxy) if e.data.get("a2a_method") != "card"} == {dialect}
    for method in ("card", "send", "stream", "cancel", "resubscribe"):
        assert method in methods(proxy)
    states = {t.id: t.state for t in proxy.tracker.tasks.values()}
    assert states[answered.task.id] is m.TaskState.COMPLETED and states[held.task.id] is m.TaskState.CANCELED
    assert proxy.tracker.violations == [], [(v.code, v.message) for v in proxy.tracker.violations]


# ---------------------------------------------------------------------- the card


async def test_the_card_points_every_address_at_the_proxy_and_keeps_the_rest(sdk_agent_compat: str) -> None:
    upstream = sdk_agent_compat
    async with proxy_to(("", upstream)) as (proxy, server):
        async with httpx.AsyncClient() as http:
            direct = (await http.get(f"{upstream}/.well-known/agent-card.json")).content
            proxied = await http.get(f"{server.base_url}/.well-known/agent-card.json")
            legacy = await http.get(f"{server.base_url}/.well-known/agent.json")
    assert proxied.status_code == 200 and legacy.status_code == 200
    card = json.loads(proxied.content)
    urls = [
        card.get("url"),
        *(i["url"] for i in card["supportedInterfaces"]),
        *(i["url"] for i in card.get("additionalInterfaces", [])),
    ]
    assert urls and all(u.startswith(server.base_url) for u in urls if u), urls
    assert {i["url"] for i in card["supportedInterfaces"]} == {f"{server.base_url}/", f"{server.base_url}/rest"}
    # Byte for byte the agent's card, but for the addresses.
    assert proxied.content == direct.replace(upstream.encode(), server.base_url.encode())
    notes = [e.data for e in proxy.session.events if e.kind is Kind.NOTE and e.data.get("code") == "proxy-card"]
    assert notes and notes[0]["moved"]


async def test_a_card_address_elsewhere_and_grpc_interfaces_stay_and_are_noted() -> None:
    from inspector.proxy.card import rewrite_card

    body = json.dumps(
        {
            "name": "x",
            "url": "http://up:1/a",
            "x-unknown": {"keep": [1, 2]},
            "supportedInterfaces": [
                {"url": "http://up:1/a", "protocolBinding": "JSONRPC"},
                {"url": "up:2", "protocolBinding": "GRPC"},
                {"url": "http://other:3/", "protocolBinding": "HTTP+JSON"},
            ],
        }
    ).encode()
    out = rewrite_card(
        body, lambda url: "http://proxy:9/p" + url[len("http://up:1") :] if url.startswith("http://up:1") else None
    )
    assert out is not None
    card = json.loads(out.body)
    assert card["url"] == "http://proxy:9/p/a" and card["supportedInterfaces"][0]["url"] == "http://proxy:9/p/a"
    assert (
        card["supportedInterfaces"][1]["url"] == "up:2" and card["supportedInterfaces"][2]["url"] == "http://other:3/"
    )
    assert card["x-unknown"] == {"keep": [1, 2]}
    assert [why.split(":")[0] for _url, why in out.kept] == ["a gRPC interface", "not under any upstream of this proxy"]
    # The same string quoted elsewhere: the card is re-serialised, the quote kept.
    quoted = json.dumps({"url": "http://up:1/a", "description": "http://up:1/a"}).encode()
    again = rewrite_card(quoted, lambda url: "http://proxy:9" + url[len("http://up:1") :])
    assert again is not None and json.loads(again.body) == {"url": "http://proxy:9/a", "description": "http://up:1/a"}


async def test_the_rest_binding_through_the_proxy_is_detected_and_replays(sdk_agent_v10: str, tmp_path) -> None:
    """The official client over HTTP+JSON (the card's REST interface, moved to the
    proxy): each exchange is recorded as REST with its interface's base, and the
    recording is served back by a2a-mock's replay to the same client."""
    from a2a.client import ClientConfig, ClientFactory
    from a2a.types import a2a_pb2 as pb

    from inspector.serving.runner import BackgroundServer
    from inspector.session import Recorder
    from mock_agent.replay import ReplayServer

    upstream = sdk_agent_v10
    path = tmp_path / "rest.jsonl"

    async def run(url: str) -> list[str]:
        out = []
        async with httpx.AsyncClient(timeout=30) as http:
            for streaming in (False, True):
                config = ClientConfig(streaming=streaming, httpx_client=http, supported_protocol_bindings=["HTTP+JSON"])
                client = await ClientFactory(config).create_from_url(url)
                try:
                    replies = [r async for r in client.send_message(message("hello there inspector"))]
                finally:
                    await client.close()
                last = replies[-1]
                out.append(
                    texts(last.task.artifacts[0].parts)
                    if last.WhichOneof("payload") == "task"
                    else last.status_update.status.state == pb.TaskState.TASK_STATE_COMPLETED
                )
        return out

    async with proxy_to(("", upstream)) as (proxy, server):
        with Recorder.attach(proxy.session, path):
            got = await run(server.base_url)
    calls = [e.data for e in requests(proxy) if e.data.get("a2a_method") in ("send", "stream")]
    assert [(c["binding"], c["dialect"], c["rest_base"]) for c in calls] == [("rest", "1.0", f"{upstream}/rest")] * 2
    assert got == ["echo: hello there inspector", True]
    assert proxy.tracker.violations == [] and all(
        t.state is m.TaskState.COMPLETED for t in proxy.tracker.tasks.values()
    )
    with BackgroundServer(ReplayServer([path]).app) as replay:
        assert await run(replay.url) == got
