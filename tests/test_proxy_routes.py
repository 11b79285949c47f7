"""Several upstreams on one port (``--route /PATH=URL``), and the call chain: an agent
at one route that, while working on a task, calls the agent at another route through
the proxy is shown as the likely caller, with the reason, never guessed silently."""

from __future__ import annotations

import uuid
from typing import Any

import httpx
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route as StarletteRoute

from inspector.proxy import Proxy, Route
from inspector.serving.runner import BackgroundServer
from inspector.session import Kind
from mock_agent import MockAgent
from proxy_helpers import MOCK_SCENARIO, message, proxy_to, requests, sdk_client, texts

V10 = {"A2A-Version": "1.0"}


async def test_two_upstreams_on_one_port(sdk_agent_v10: str) -> None:
    async with (
        MockAgent(MOCK_SCENARIO, dialect="1.0") as mock,
        proxy_to(("/echo", sdk_agent_v10), ("/mock", mock.base_url)) as (proxy, server),
    ):
        async with (
            sdk_client(f"{server.base_url}/echo", streaming=True) as echo,
            sdk_client(f"{server.base_url}/mock", streaming=True) as mocked,
        ):
            a = [e async for e in echo.send_message(message("hello there inspector"))]
            b = [e async for e in mocked.send_message(message("hi"))]
        async with httpx.AsyncClient() as http:
            nowhere = await http.get(f"{server.base_url}/elsewhere/.well-known/agent-card.json")
    assert nowhere.status_code == 404  # no root route: nothing relayed
    assert (
        texts(p for e in a if e.WhichOneof("payload") == "artifact_update" for p in e.artifact_update.artifact.parts)
        == "echo: hello there inspector"
    )
    assert (
        texts(p for e in b if e.WhichOneof("payload") == "artifact_update" for p in e.artifact_update.artifact.parts)
        == "echo: hi!"
    )
    routes = {e.data["proxy_route"]: e.data["url"] for e in requests(proxy) if e.data.get("a2a_method") == "stream"}
    assert routes == {"/echo": f"{sdk_agent_v10}/", "/mock": f"{mock.base_url.rstrip('/')}/"}
    assert len(proxy.tracker.tasks) == 2 and proxy.tracker.violations == []
    # No call chain between two independent clients' calls made one after the other.
    assert not any(e.data.get("code") == "proxy-call-chain" for e in proxy.session.events)


def orchestrator(sub_agent: dict[str, str], *, pass_context: bool) -> Starlette:
    """A tiny 1.0 JSON-RPC agent that, for each message, asks the sub-agent at
    ``sub_agent["url"]`` (through the proxy) and answers with what it said."""

    async def rpc(request: Request) -> JSONResponse:
        body = await request.json()
        msg = body["params"]["message"]
        context = msg.get("contextId") or f"ctx-{uuid.uuid4()}"
        ask = {"messageId": f"o-{uuid.uuid4()}", "role": "ROLE_USER", "parts": [{"text": msg["parts"][0]["text"]}]}
        if pass_context:
            ask["contextId"] = context
        async with httpx.AsyncClient(timeout=20) as http:
            reply = (
                await http.post(
                    sub_agent["url"],
                    headers=V10,
                    json={"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": ask}},
                )
            ).json()
        sub = reply["result"]["task"]
        task = {
            "id": f"orch-{uuid.uuid4()}",
            "contextId": context,
            "status": {"state": "TASK_STATE_COMPLETED"},
            "artifacts": [{"artifactId": "a", "parts": sub["artifacts"][0]["parts"]}],
        }
        return JSONResponse({"jsonrpc": "2.0", "id": body["id"], "result": {"task": task}})

    return Starlette(routes=[StarletteRoute("/", rpc, methods=["POST"])])


async def _ask_orchestrator(base: str, text: str, context: str) -> dict[str, Any]:
    async with httpx.AsyncClient(timeout=20) as http:
        reply = await http.post(
            f"{base}/orch/",
            headers=V10,
            json={
                "jsonrpc": "2.0",
                "id": 1,
                "method": "SendMessage",
                "params": {
                    "message": {
                        "messageId": "u-1",
                        "role": "ROLE_USER",
                        "contextId": context,
                        "parts": [{"text": text}],
                    }
                },
            },
        )
    return reply.json()["result"]["task"]


async def test_a_call_made_for_another_agents_task_is_shown_as_its_likely_caller() -> None:
    sub: dict[str, str] = {}
    async with MockAgent(MOCK_SCENARIO, dialect="1.0") as mock:
        with BackgroundServer(orchestrator(sub, pass_context=True)) as orch:
            async with proxy_to(("/orch", orch.url), ("/sub", mock.base_url)) as (proxy, server):
                sub["url"] = f"{server.base_url}/sub/"
                top = await _ask_orchestrator(server.base_url, "weather", "ctx-42")
    assert top["status"]["state"] == "TASK_STATE_COMPLETED"
    (note,) = [e.data for e in proxy.session.events if e.data.get("code") == "proxy-call-chain"]
    assert note["confidence"] == "same-context" and "likely" in note["text"] and "ctx-42" in note["why"]
    tracker = proxy.tracker
    child = next(t for t in tracker.tasks.values() if not t.id.startswith("orch-"))
    assert child.parent == top["id"] and tracker.children[top["id"]] == [child.id]
    assert "same contextId" in tracker.chain_why[child.id]


async def test_by_time_only_is_said_and_several_candidates_are_not_guessed() -> None:
    sub: dict[str, str] = {}
    async with MockAgent(MOCK_SCENARIO, dialect="1.0") as mock:
        with BackgroundServer(orchestrator(sub, pass_context=False)) as orch:
            async with proxy_to(("/orch", orch.url), ("/sub", mock.base_url)) as (proxy, server):
                sub["url"] = f"{server.base_url}/sub/"
                await _ask_orchestrator(server.base_url, "weather", "ctx-7")
    (note,) = [e.data for e in proxy.session.events if e.data.get("code") == "proxy-call-chain"]
    assert note["confidence"] == "time" and "by time only" in note["text"]

    # Two exchanges open elsewhere, neither in the message's context: no guess.
    lone = Proxy(
        [Route("/a", "http://127.0.0.1:9"), Route("/b", "http://127.0.0.1:9"), Route("/c", "http://127.0.0.1:9")]
    )
    lone.chain.open.update({1: "/a", 2: "/b"})
    lone.chain.opened(3, "/c", None, "send")
    (guess,) = [e.data for e in lone.session.events if e.kind is Kind.NOTE]
    assert guess["confidence"] == "none" and "not guessed" in guess["text"] and guess["candidates"] == [1, 2]
