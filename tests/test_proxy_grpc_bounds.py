"""What an agent's card or a gRPC client can make the proxy's gRPC side hold: the
listeners a card asks for (one per distinct target, at most GrpcFront.MAX_LISTENERS),
and the size of a client's request message (--max-body)."""

from __future__ import annotations

import os
from typing import Any

import httpx
from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.routing import Route as StarletteRoute

from proxy_helpers import proxy_to

from inspector.proxy.grpc_relay import GrpcFront
GrpcFront.MAX_LISTENERS = 16
from inspector.serving.runner import BackgroundServer
from inspector.session import Kind

#: Distinct gRPC targets the hostile card names (nothing listens there: the proxy's
#: listeners connect to their upstream on the first call only).
TARGETS = 300


def _card_agent(targets: int) -> Starlette:
    interfaces: list[dict[str, Any]] = [{"url": f"grpc://127.0.0.1:{20000 + i}", "protocolBinding": "GRPC",
                                         "protocolVersion": "1.0"} for i in range(targets)]
    # The same target twice, spelled two ways: one listener.
    interfaces.insert(1, {"url": "127.0.0.1:20000", "protocolBinding": "GRPC", "protocolVersion": "1.0"})
    card = {"name": "Many", "description": "Names a gRPC interface per port.", "version": "1",
            "supportedInterfaces": interfaces, "capabilities": {}, "defaultInputModes": ["text/plain"],
            "defaultOutputModes": ["text/plain"], "skills": []}

    async def serve(_request: Any) -> JSONResponse:
        return JSONResponse(card)

    return Starlette(routes=[StarletteRoute("/.well-known/agent-card.json", serve)])


def _fds() -> int:
    return len(os.listdir("/proc/self/fd"))


async def test_a_card_naming_hundreds_of_grpc_targets_opens_a_bounded_number_of_listeners() -> None:
    limit = GrpcFront.MAX_LISTENERS
    assert 1 < limit <= 32
    with BackgroundServer(_card_agent(TARGETS)) as up:
        async with proxy_to(("", up.url)) as (proxy, server):
            before = _fds()
            async with httpx.AsyncClient(timeout=30) as http:
                first = await http.get(f"{server.base_url}/.well-known/agent-card.json")
                again = await http.get(f"{server.base_url}/.well-known/agent-card.json")
            opened = _fds() - before
            listeners = dict(proxy.grpc.listeners)
    assert first.status_code == again.status_code == 200
    assert len(listeners) == limit and "127.0.0.1:20000" in listeners
    assert opened < 8 * limit, opened
    # The first `limit` targets point at the proxy; the rest are left as the agent wrote them.
    urls = [i["url"] for i in first.json()["supportedInterfaces"]]
    moved = {u for u in urls if u.split(":")[-1] in {str(lst.port) for lst in listeners.values()}}
    assert len(moved) == limit + 1 and f"grpc://127.0.0.1:{20000 + TARGETS - 1}" in urls
    # One line per card fetch says so, not a line (or a traceback) per target.
    notes = [e.data for e in proxy.session.events if e.kind is Kind.NOTE]
    refused = [n for n in notes if n.get("code") == "proxy-grpc-refused"]
    assert len(refused) == 2 and refused[0]["refused"] == TARGETS - limit
    assert f"(at most {limit})" in refused[0]["text"] and "\n" not in refused[0]["text"]
    assert f"and {TARGETS - limit - 3} more" in refused[0]["text"]
    assert len(notes) <= 2 * limit + 8, [n["text"] for n in notes]
