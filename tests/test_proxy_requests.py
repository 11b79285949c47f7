"""What a client asks of the proxy that must not reach the upstream as it was written:
a path whose dot segments (``..``, ``%2e%2e``) climb out of the route it came in on,
and header bytes that are not ASCII. The requests are written on a raw socket, since
httpx would resolve the dot segments itself before sending."""

from __future__ import annotations

import asyncio
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route as StarletteRoute

from inspector.serving.runner import BackgroundServer
from inspector.session import Kind
from proxy_helpers import proxy_to


def _recorder(seen: list[dict[str, Any]]) -> Starlette:
    async def anything(request: Request) -> JSONResponse:
        seen.append(
            {
                "path": request.scope["raw_path"].decode("latin-1"),
                "headers": [(k.decode("latin-1"), v) for k, v in request.scope["headers"]],
            }
        )
        return JSONResponse({"ok": True})

    return Starlette(routes=[StarletteRoute("/{path:path}", anything, methods=["GET", "POST"])])


async def _raw(base: str, target: str, extra: bytes = b"") -> tuple[int, bytes]:
    """GET ``target`` written as is; (status, body)."""
    host, port = base.split("://", 1)[1].rstrip("/").rsplit(":", 1)
    reader, writer = await asyncio.open_connection(host, int(port))
    try:
        writer.write(
            f"GET {target} HTTP/1.1\r\nHost: {host}:{port}\r\n".encode("ascii") + extra + b"Connection: close\r\n\r\n"
        )
        await writer.drain()
        data = await asyncio.wait_for(reader.read(), 10)
    finally:
        writer.close()
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), body


async def test_dot_segments_that_leave_the_route_are_refused() -> None:
    seen: list[dict[str, Any]] = []
    with BackgroundServer(_recorder(seen)) as up:
        async with proxy_to(("/planner", f"{up.url}/agents/planner")) as (proxy, server):
            refused = {}
            for target in (
                "/planner/../../../x",
                "/planner/%2e%2e/%2E%2E/x",
                "/planner/a/../../x",
                "/planner/.%2e/secret?token=1",
                "/planner/..",
                "/planner/%2e%2E",
                "/planner/..%2f..%2fx",
                "/planner/a/..%5C..%5Cx",
                "/planner/a/..\\..\\x",
            ):
                refused[target] = await _raw(server.base_url, target)
            # Dot segments that stay inside the route are resolved, not refused.
            inside = await _raw(server.base_url, "/planner/a/./b/../c%20d?q=%20")
            dotted = await _raw(server.base_url, "/planner/v1..2/file..txt")  # dots, not dot segments
    for target, (status, body) in refused.items():
        assert status == 400, (target, status, body)
        assert body.startswith(b"a2a-inspect proxy: ") and b"leaves the route /planner" in body, body
    assert inside[0] == dotted[0] == 200
    # Only the requests that stayed inside reached the upstream, under its base path,
    # percent-encoding kept as sent.
    assert [s["path"] for s in seen] == ["/agents/planner/a/c%20d", "/agents/planner/v1..2/file..txt"]
    refusals = [e for e in proxy.session.events if e.kind is Kind.NOTE and e.data.get("code") == "proxy-path-refused"]
    assert len(refusals) == len(refused)


async def test_a_header_with_non_ascii_bytes_is_passed_on_not_answered_502() -> None:
    seen: list[dict[str, Any]] = []
    with BackgroundServer(_recorder(seen)) as up:
        async with proxy_to(("", up.url)) as (proxy, server):
            status, body = await _raw(server.base_url, "/a2a", b"X-Name: caf\xe9 \xc3\xa9\r\n")
    assert status == 200, body
    (got,) = seen
    assert ("x-name", b"caf\xe9 \xc3\xa9") in got["headers"]
    (request,) = [e for e in proxy.session.events if e.kind is Kind.REQUEST]
    assert request.data["headers"]["x-name"] == "caf\xe9 \xc3\xa9"  # as latin-1 reads the bytes
