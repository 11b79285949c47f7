"""Shared by the proxy's tests: the official a2a-sdk client through a proxy, and a
scenario for a2a-mock that has every path the proxy must relay."""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator
from typing import Any

import httpx

from inspector.proxy import Proxy, ProxyServer, Route, Rules
from inspector.session import Kind

#: a2a-mock: echo chunks; "ask" asks, then echoes the answer; "hold" waits at gate "p".
MOCK_SCENARIO: dict[str, Any] = {
    "name": "proxy-e2e",
    "card": {
        "name": "Proxied Mock",
        "description": "Behind a2a-inspect proxy.",
        "version": "1.0.0",
        "capabilities": {"streaming": True},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "echo", "name": "Echo", "description": "Echoes.", "tags": ["echo"]}],
    },
    "rules": [
        {
            "when": {"text": "^ask"},
            "script": [
                {
                    "ask": "Which city?",
                    "state": "input-required",
                    "then": [{"status": "completed", "message": "sunny in {text}"}],
                }
            ],
        },
        {
            "when": {"text": "^hold"},
            "script": [
                {"status": "working", "message": "holding"},
                {"hold": "p", "timeout": 60},
                {"artifact": {"id": "echo", "name": "echo", "text": "echo: {text}"}},
                {"status": "completed", "message": "done"},
            ],
        },
        {
            "script": [
                {"status": "working", "message": "echoing"},
                {"chunks": {"id": "echo", "name": "echo", "texts": ["echo: ", "{text}", "!"]}},
                {"status": "completed", "message": "done"},
            ]
        },
    ],
}


@contextlib.asynccontextmanager
async def proxy_to(*routes: tuple[str, str], rules: Rules | None = None) -> AsyncIterator[tuple[Proxy, ProxyServer]]:
    proxy = Proxy([Route(prefix, url) for prefix, url in routes], rules=rules)
    async with ProxyServer(proxy) as server:
        yield proxy, server


@contextlib.asynccontextmanager
async def sdk_client(url: str, *, streaming: bool) -> AsyncIterator[Any]:
    """The official a2a-sdk client, discovering the agent at ``url`` (the proxy's)."""
    from a2a.client import ClientConfig, ClientFactory

    async with httpx.AsyncClient(timeout=30) as http:
        client = await ClientFactory(ClientConfig(streaming=streaming, httpx_client=http)).create_from_url(url)
        try:
            yield client
        finally:
            await client.close()


def message(text: str, task_id: str | None = None, context_id: str | None = None, **config: Any) -> Any:
    from a2a.types import a2a_pb2 as pb

    msg = pb.Message(message_id=f"m-{uuid.uuid4()}", role=pb.Role.ROLE_USER, parts=[pb.Part(text=text)])
    if task_id:
        msg.task_id = task_id
    if context_id:
        msg.context_id = context_id
    return pb.SendMessageRequest(message=msg, configuration=pb.SendMessageConfiguration(**config) if config else None)


def texts(parts: Any) -> str:
    return "".join(p.text for p in parts)


def requests(proxy: Proxy) -> list[Any]:
    return [e for e in proxy.session.events if e.kind is Kind.REQUEST]


def methods(proxy: Proxy) -> list[str | None]:
    return [e.data.get("a2a_method") for e in requests(proxy)]


async def until(predicate: Any, what: str, timeout: float = 20.0) -> Any:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        value = predicate()
        if value:
            return value
        assert loop.time() < deadline, f"never: {what}"
        await asyncio.sleep(0.005)


@contextlib.asynccontextmanager
async def grpc_agent(handler: Any, options: list[tuple[str, Any]] | None = None) -> AsyncIterator[str]:
    """A grpc.aio server on loopback with the generic ``handler``: its address, while the
    block runs."""
    import grpc

    server = grpc.aio.server(options=options)
    server.add_generic_rpc_handlers((handler,))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        yield f"127.0.0.1:{port}"
    finally:
        await server.stop(None)
