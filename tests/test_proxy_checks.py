"""The client's side judged through a live proxy: a hand-written client that breaks each
rule raises its ``client-*`` code (the official a2a-sdk client, through the same proxy,
raises none: tests/test_proxy_sdk.py)."""

from __future__ import annotations

from typing import Any

import httpx

from mock_agent import MockAgent
from proxy_helpers import MOCK_SCENARIO, proxy_to

V10 = {"A2A-Version": "1.0"}


def send(text: str, parts: Any = None, **extra: Any) -> dict[str, Any]:
    msg = {
        "messageId": f"m-{text}",
        "role": "ROLE_USER",
        "parts": [{"text": text}] if parts is None else parts,
        **extra,
    }
    return {"jsonrpc": "2.0", "id": text, "method": "SendMessage", "params": {"message": msg}}


async def test_each_client_fault_is_found_and_attributed_to_the_client() -> None:
    async with MockAgent(MOCK_SCENARIO, dialect="1.0") as mock, proxy_to(("", mock.base_url)) as (proxy, server):
        async with httpx.AsyncClient(base_url=server.base_url, timeout=20) as http:
            await http.post("/", json=send("no-version"))
            await http.post("/", json=send("empty", parts=[]), headers=V10)
            await http.post("/", content=b'{"jsonrpc": "2.0", "id": 1, "method": ', headers=V10)
            await http.post(
                "/", json={"jsonrpc": "1.0", "id": 1, "method": "GetTask", "params": {"id": "x"}}, headers=V10
            )
            asked = (await http.post("/", json=send("ask"), headers=V10)).json()["result"]["task"]
            assert asked["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
            await http.post("/", json=send("Paris", contextId=asked["contextId"]), headers=V10)
    found = [(v.code, v.exchange) for v in proxy.tracker.violations]
    assert [code for code, _ in found] == [
        "client-no-version",
        "client-empty-parts",
        "client-bad-envelope",
        "client-bad-envelope",
        "client-continuation-without-task",
    ]
    waiting = next(v for v in proxy.tracker.violations if v.code == "client-continuation-without-task")
    assert waiting.task_id == asked["id"]
