"""The proxy's relaying: credentials go to the upstream they were sent for and are
redacted in what is written; redirects are passed back, never followed; two clients
streaming at once each get their own stream intact, told apart in the session."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse
from starlette.routing import Route

from inspector.serving.runner import BackgroundServer
from inspector.session import Kind, Recorder
from peers.sdk_agent import release, wait_parked
from proxy_helpers import MOCK_SCENARIO, message, proxy_to, requests, sdk_client, texts

SECRET = "Bearer tok-0123456789abcdef"


def _echo_headers(seen: list[dict[str, str]], elsewhere: str | None = None) -> Starlette:
    async def anything(request: Request) -> Any:
        seen.append(dict(request.headers))
        if request.url.path == "/moved" and elsewhere:
            return RedirectResponse(f"{elsewhere}/landing", status_code=302)
        return JSONResponse({"ok": True})

    return Starlette(routes=[Route("/{path:path}", anything, methods=["GET", "POST"])])


async def test_credentials_reach_the_upstream_unchanged_and_are_redacted_in_the_recording(tmp_path: Path) -> None:
    seen: list[dict[str, str]] = []
    other: list[dict[str, str]] = []
    with BackgroundServer(_echo_headers(other)) as far, BackgroundServer(_echo_headers(seen, far.url)) as up:
        async with proxy_to(("", up.url)) as (proxy, server):
            path = tmp_path / "rec.jsonl"
            with Recorder.attach(proxy.session, path):
                async with httpx.AsyncClient(timeout=10) as http:
                    ok = await http.post(
                        f"{server.base_url}/a2a",
                        json={"x": 1},
                        headers={
                            "Authorization": SECRET,
                            "X-API-Key": "key-abcdefgh123",
                            "Proxy-Authorization": "Basic cHJveHk6cHc=",
                        },
                    )
                    moved = await http.get(f"{server.base_url}/moved", headers={"Authorization": SECRET})
    assert ok.status_code == 200 and seen[0]["authorization"] == SECRET and seen[0]["x-api-key"] == "key-abcdefgh123"
    # The proxy's own credential is the proxy's: not passed on.
    assert "proxy-authorization" not in seen[0]
    # The redirect came back to the client, and nothing went to the other origin.
    assert moved.status_code == 302 and moved.headers["location"] == f"{far.url}/landing"
    assert other == []
    assert any(e.kind is Kind.NOTE and "not followed" in e.data["text"] for e in proxy.session.events)
    text = path.read_text()
    assert "tok-0123456789abcdef" not in text and "key-abcdefgh123" not in text
    assert json.loads(text.splitlines()[2])["headers"]["authorization"] == "Bearer [redacted]"


async def test_two_clients_streaming_at_once_each_get_their_stream(sdk_agent_compat: str) -> None:
    from a2a.types import a2a_pb2 as pb

    upstream = sdk_agent_compat
    async with proxy_to(("", upstream)) as (proxy, server):
        async with (
            sdk_client(server.base_url, streaming=True) as one,
            sdk_client(server.base_url, streaming=True) as two,
        ):
            a = one.send_message(message("hold alpha beta"))
            b = two.send_message(message("hold gamma delta"))
            a_first, b_first = await anext(a), await anext(b)
            a_id, b_id = a_first.task.id, b_first.task.id
            await asyncio.to_thread(wait_parked, upstream, a_id)
            await asyncio.to_thread(wait_parked, upstream, b_id)
            # Interleaved on purpose: b finishes while a is still held.
            await asyncio.to_thread(release, upstream, b_id)
            b_rest = [e async for e in b]
            await asyncio.to_thread(release, upstream, a_id)
            a_rest = [e async for e in a]

    def streamed(events: list[Any]) -> str:
        return texts(
            p for e in events if e.WhichOneof("payload") == "artifact_update" for p in e.artifact_update.artifact.parts
        )

    assert streamed(a_rest) == "echo: hold alpha beta" and streamed(b_rest) == "echo: hold gamma delta"
    assert a_rest[-1].status_update.status.state == pb.TaskState.TASK_STATE_COMPLETED
    assert b_rest[-1].status_update.status.state == pb.TaskState.TASK_STATE_COMPLETED
    tracker = proxy.tracker
    assert {tracker.tasks[a_id].state.value, tracker.tasks[b_id].state.value} == {"completed"}
    assert next(iter(tracker.tasks[a_id].artifacts.values())).text() == "echo: hold alpha beta"
    assert tracker.violations == []
    streams = [e for e in requests(proxy) if e.data.get("a2a_method") == "stream"]
    assert len({e.data["client"] for e in streams}) == 2  # two connections, told apart
    ends = [e for e in proxy.session.events if e.kind is Kind.STREAM_END]
    assert [e.data["reason"] for e in ends] == ["complete", "complete"]


async def test_a_long_stream_is_relayed_whole_and_logged_whole() -> None:
    from mock_agent import MockAgent

    texts_sent = [f"piece {i:05d} " for i in range(4000)]
    scenario = {
        "name": "long",
        "card": {**MOCK_SCENARIO["card"], "name": "Long"},
        "rules": [
            {
                "script": [
                    {"status": "working"},
                    {"chunks": {"id": "a", "name": "a", "texts": texts_sent}},
                    {"status": "completed"},
                ]
            }
        ],
    }
    async with MockAgent(scenario, dialect="1.0") as mock, proxy_to(("", mock.base_url)) as (proxy, server):
        async with sdk_client(server.base_url, streaming=True) as client:
            events = [e async for e in client.send_message(message("go"))]
    got = texts(
        p for e in events if e.WhichOneof("payload") == "artifact_update" for p in e.artifact_update.artifact.parts
    )
    assert got == "".join(texts_sent)
    (task,) = proxy.tracker.tasks.values()
    assert next(iter(task.artifacts.values())).text() == "".join(texts_sent)
    (end,) = [e for e in proxy.session.events if e.kind is Kind.STREAM_END]
    assert end.data["reason"] == "complete" and end.data["events"] == len(events)
    assert end.data["terminal"] is True  # the traffic row says "terminal", not "no final event"
    assert proxy.tracker.violations == []


async def test_a_log_that_falls_behind_the_relay_is_said_and_loses_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past BACKLOG unlogged bytes the relay waits for its log; it says so once (a NOTE,
    and the waits on the STREAM_END). Here the bound is a byte: it waits every chunk."""
    from inspector.proxy import core, relaying
    from mock_agent import MockAgent

    monkeypatch.setattr(relaying, "BACKLOG", 1)
    monkeypatch.setattr(core, "BACKLOG", 1)
    texts_sent = [f"piece {i:03d} " for i in range(50)]
    scenario = {
        "name": "behind",
        "card": {**MOCK_SCENARIO["card"], "name": "Behind"},
        "rules": [
            {
                "script": [
                    {"status": "working"},
                    {"chunks": {"id": "a", "name": "a", "texts": texts_sent}},
                    {"status": "completed"},
                ]
            }
        ],
    }
    async with MockAgent(scenario, dialect="1.0") as mock, proxy_to(("", mock.base_url)) as (proxy, server):
        async with sdk_client(server.base_url, streaming=True) as client:
            events = [e async for e in client.send_message(message("go"))]
    got = texts(
        p for e in events if e.WhichOneof("payload") == "artifact_update" for p in e.artifact_update.artifact.parts
    )
    assert got == "".join(texts_sent)
    notes = [e for e in proxy.session.events if e.kind is Kind.NOTE and e.data.get("code") == "proxy-log-behind"]
    assert len(notes) == 1 and "behind the relay" in notes[0].data["text"]
    (end,) = [e for e in proxy.session.events if e.kind is Kind.STREAM_END]
    assert end.data["reason"] == "complete" and end.data["events"] == len(events) and end.data["log_waits"] >= 1
    (task,) = proxy.tracker.tasks.values()
    assert next(iter(task.artifacts.values())).text() == "".join(texts_sent)


async def test_a_client_that_hangs_up_ends_the_stream_as_closed(sdk_agent_compat: str) -> None:
    upstream = sdk_agent_compat
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "SendStreamingMessage",
        "params": {"message": {"messageId": "m-hang", "role": "ROLE_USER", "parts": [{"text": "hold on there"}]}},
    }
    async with proxy_to(("", upstream)) as (proxy, server):
        async with httpx.AsyncClient(timeout=20) as http:
            async with http.stream("POST", f"{server.base_url}/", json=body, headers={"A2A-Version": "1.0"}) as resp:
                lines = resp.aiter_lines()
                first = await anext(line async for line in lines if line.startswith("data:"))
        task_id = json.loads(first[5:])["result"]["task"]["id"]
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 20
        while not any(e.kind is Kind.STREAM_END for e in proxy.session.events):
            assert loop.time() < deadline, "the proxy never noticed the client hang up"
            await asyncio.sleep(0.01)
        await asyncio.to_thread(release, upstream, task_id)
    (end,) = [e for e in proxy.session.events if e.kind is Kind.STREAM_END]
    assert end.data["reason"] == "closed" and end.data["closed_by"] == "client"
    # The client stopped reading: not the agent walking away from the task.
    assert "stream-no-terminal" not in [v.code for v in proxy.tracker.violations]
