"""What an agent's card or a gRPC client can make the proxy's gRPC side hold: the
listeners a card asks for (one per distinct target, at most GrpcFront.MAX_LISTENERS),
and the size of a client's request message (the proxy's max_request, 16 MiB, as for an
HTTP request body), refused by gRPC from the message's length prefix."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest
from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.routing import Route as StarletteRoute

from cli_helpers import Cli
from inspector.protocol import grpc_schema
from inspector.proxy import Proxy, ProxyServer, Route
from inspector.proxy.core import MAX_REQUEST
from inspector.proxy.grpc_relay import GrpcFront
from inspector.serving.runner import BackgroundServer
from inspector.session import Kind
from proxy_helpers import proxy_to
from test_proxy_cli import ProxyProcess

HERE = Path(__file__).resolve().parent
STREAM = "/lf.a2a.v1.A2AService/SendStreamingMessage"

#: Distinct gRPC targets the hostile card names (nothing listens there: the proxy's
#: listeners connect to their upstream on the first call only).
TARGETS = 300


def _card_agent(targets: int) -> Starlette:
    interfaces: list[dict[str, Any]] = [
        {"url": f"grpc://127.0.0.1:{20000 + i}", "protocolBinding": "GRPC", "protocolVersion": "1.0"}
        for i in range(targets)
    ]
    # The same target twice, spelled two ways: one listener.
    interfaces.insert(1, {"url": "127.0.0.1:20000", "protocolBinding": "GRPC", "protocolVersion": "1.0"})
    card = {
        "name": "Many",
        "description": "Names a gRPC interface per port.",
        "version": "1",
        "supportedInterfaces": interfaces,
        "capabilities": {},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [],
    }

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


# ---------------------------------------------------------------------- a client's request


@pytest.fixture
def grpc_agent() -> Iterator[str]:
    """A 1.0 gRPC agent in a process of its own (tests/grpc_flood_agent.py), streaming one
    short chunk (4 messages): ``127.0.0.1:PORT``."""
    proc = subprocess.Popen(
        [sys.executable, str(HERE / "grpc_flood_agent.py"), "1", "10"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        yield f"127.0.0.1:{proc.stdout.readline().strip()}"
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait(30)


def _request(text_size: int) -> bytes:
    """A SendMessageRequest carrying ``text_size`` bytes of text (built field by field:
    ProtoJSON parsing of a 64 MB string takes seconds)."""
    request = grpc_schema.message_class("1.0", "SendMessageRequest")()
    request.message.message_id = "m-1"
    request.message.role = 1  # ROLE_USER
    request.message.parts.add().text = "x" * text_size
    return request.SerializeToString()


async def _stream(address: str, data: bytes) -> tuple[int, Any]:
    """(messages received, the status code) of one SendStreamingMessage call."""
    async with grpc.aio.insecure_channel(address, options=[("grpc.max_send_message_length", -1)]) as channel:
        call = channel.unary_stream(STREAM)(data, timeout=30)
        got = 0
        try:
            async for _message in call:
                got += 1
        except grpc.aio.AioRpcError as exc:
            return got, (exc.code(), exc.details())
        return got, (await call.code(), None)


def _peak_mib(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"VmHWM:\s+(\d+) kB", status)[1]) / 1024


async def test_a_grpc_request_past_the_bound_is_refused_before_it_is_held(tmp_path: Path, grpc_agent: str) -> None:
    # The headless proxy as run, with its default bound (no option): 16 MiB a message.
    proxy = ProxyProcess(Cli(tmp_path / "home"), "--grpc-upstream", grpc_agent, "http://127.0.0.1:9")
    try:
        address = re.search(r"gRPC (127\.0\.0\.1:\d+) ->", proxy.wait_for("gRPC "))[1]
        # A well-behaved request is relayed: the agent's task, chunks and status come back.
        assert await _stream(address, _request(1000)) == (4, (grpc.StatusCode.OK, None))
        before = _peak_mib(proxy.proc.pid)
        big = _request(4 * MAX_REQUEST)
        size = len(big)
        got, (code, details) = await _stream(address, big)
        del big
        peak = _peak_mib(proxy.proc.pid)
        # Still serving afterwards.
        assert await _stream(address, _request(1000)) == (4, (grpc.StatusCode.OK, None))
    finally:
        rest = proxy.stop()
    assert (got, code) == (0, grpc.StatusCode.RESOURCE_EXHAUSTED)
    assert f"larger than max ({size} vs. {MAX_REQUEST})" in details, details
    # Held whole and relayed, the 64 MiB took the proxy from ~70 to ~410 MiB.
    assert peak - before < 24, f"peak RSS {before:.0f} -> {peak:.0f} MiB"
    assert "Traceback" not in rest and "Traceback" not in proxy.proc.stderr.read().decode()


async def test_the_request_bound_is_one_option_for_http_and_grpc(grpc_agent: str) -> None:
    proxy = Proxy([Route("", "http://127.0.0.1:9")], max_request=4096)
    async with ProxyServer(proxy, grpc_upstream=grpc_agent) as server:
        (address,) = server.grpc_addresses.values()
        small = await _stream(address, _request(1000))
        refused = await _stream(address, _request(5000))
        async with httpx.AsyncClient(timeout=10) as http:
            posted = await http.post(f"{server.base_url}/", content=b"{" + b" " * 5000 + b"}")
    assert small == (4, (grpc.StatusCode.OK, None))
    assert refused[0] == 0 and refused[1][0] is grpc.StatusCode.RESOURCE_EXHAUSTED
    assert posted.status_code == 413 and posted.text == "a2a-inspect proxy: request body larger than 4096 bytes\n"
