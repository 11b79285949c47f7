"""Hostile peers for tests/test_trust_bounds.py: agents (and clients) that try to make
the inspector run out of memory, time or stack.

``build_app()`` is one Starlette app; each behaviour lives under its own path prefix,
so a test points the CLI or the TUI at ``<url>/<behaviour>`` (the card is looked for
under that prefix, and is a 404 unless the behaviour is about the card). The gzip bomb
is built once per process (``gzip_bomb()``, about half a second): 2 MiB on the wire
that inflates to 2 GiB of zero bytes.

Also here: ``peak_rss_mib`` (a command's peak memory, measured in a fresh process so
no earlier child of the test process counts) and ``dribble`` (a slowloris client on a
raw socket).
"""

from __future__ import annotations

import asyncio
import functools
import json
import os
import resource
import select
import socket
import struct
import subprocess
import sys
import time
import zlib
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

MiB = 1024 * 1024
BOMB_INFLATED = 2048 * MiB
#: The CRC-32 of so many zero bytes, for the gzip trailer: worked out once with
#: ``zlib.crc32`` a MiB at a time, which takes half a second of CPU in every process
#: that serves the bomb (nothing reads that far: the client's limit cuts it first).
ZEROS_CRC32 = {2048 * MiB: 0x4DBDF21C}
TASK = {"kind": "task", "id": "t-trust", "contextId": "c-trust", "status": {"state": "working"}}
DEEP = 100_000


@functools.cache
def gzip_bomb() -> bytes:
    """A valid gzip stream of BOMB_INFLATED zero bytes, about 2 MiB.

    One MiB of zeros is deflated once and ended with a full flush, which resets the
    compressor: the same bytes then stand for every further MiB, so the bomb is that
    piece repeated, a final empty block, and the gzip trailer (CRC-32 and length)."""
    block = bytes(MiB)
    deflate = zlib.compressobj(9, zlib.DEFLATED, -15)
    piece = deflate.compress(block) + deflate.flush(zlib.Z_FULL_FLUSH)
    end = deflate.flush(zlib.Z_FINISH)
    crc = ZEROS_CRC32[BOMB_INFLATED]  # a KeyError for another size: work its CRC out once
    header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"
    return header + piece * (BOMB_INFLATED // MiB) + end + struct.pack("<II", crc, BOMB_INFLATED & 0xFFFFFFFF)


def deep_json(depth: int = DEEP) -> bytes:
    return b"[" * depth + b"]" * depth


def _bomb(content_type: str) -> Response:
    return Response(gzip_bomb(), headers={"content-type": content_type, "content-encoding": "gzip"})


def _ok(rpc_id: Any, result: Any) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": rpc_id, "result": result}, ensure_ascii=False).encode()


async def _rpc_id(request: Request) -> Any:
    try:
        return json.loads(await request.body()).get("id")
    except (ValueError, AttributeError):
        return None


def _sse(chunks: Any) -> StreamingResponse:
    return StreamingResponse(chunks, media_type="text/event-stream")


async def card_bomb(request: Request) -> Response:
    return _bomb("application/json")


async def send_bomb(request: Request) -> Response:
    return _bomb("application/json")


async def stream_bomb(request: Request) -> Response:
    # Zero bytes and never a line break: one SSE event that only grows.
    return _bomb("text/event-stream")


async def bad_gzip(request: Request) -> Response:
    return Response(b"this was never gzip", headers={"content-type": "application/json", "content-encoding": "gzip"})


async def deep_card(request: Request) -> Response:
    return Response(deep_json(), media_type="application/json")


async def deep_answer(request: Request) -> Response:
    rpc_id = await _rpc_id(request)
    return Response(
        b'{"jsonrpc":"2.0","id":%s,"result":' % json.dumps(rpc_id).encode() + deep_json() + b"}",
        media_type="application/json",
    )


async def heartbeats(request: Request) -> Response:
    """The task starts, then only ': ping' comments, for ever."""
    rpc_id = await _rpc_id(request)

    async def chunks() -> Any:
        yield b"data: " + _ok(rpc_id, TASK) + b"\n\n"
        while True:
            await asyncio.sleep(0.05)
            yield b": ping\n\n"

    return _sse(chunks())


async def stalled(request: Request) -> Response:
    """The task starts, then nothing at all (the connection stays open)."""
    rpc_id = await _rpc_id(request)

    async def chunks() -> Any:
        yield b"data: " + _ok(rpc_id, TASK) + b"\n\n"
        await asyncio.Event().wait()

    return _sse(chunks())


async def big_event(request: Request) -> Response:
    """One event of 256 KiB of text, uncompressed: over a --max-event of 100K."""
    rpc_id = await _rpc_id(request)
    status = {
        "kind": "status-update",
        "taskId": "t-trust",
        "contextId": "c-trust",
        "final": False,
        "status": {
            "state": "working",
            "message": {
                "kind": "message",
                "role": "agent",
                "messageId": "m1",
                "parts": [{"kind": "text", "text": "x" * (256 * 1024)}],
            },
        },
    }

    async def chunks() -> Any:
        yield b"data: " + _ok(rpc_id, TASK) + b"\n\n"
        yield b"data: " + _ok(rpc_id, status) + b"\n\n"
        await asyncio.Event().wait()

    return _sse(chunks())


async def big_answer(request: Request) -> Response:
    """A 256 KiB answer, uncompressed: over a --max-body of 100K."""
    rpc_id = await _rpc_id(request)
    task = dict(
        TASK,
        status={
            "state": "completed",
            "message": {
                "kind": "message",
                "role": "agent",
                "messageId": "m1",
                "parts": [{"kind": "text", "text": "é" * (128 * 1024)}],
            },
        },
    )
    return Response(_ok(rpc_id, task), media_type="application/json")


async def comment_flood(request: Request) -> Response:
    """Heartbeat comments as fast as they go, in 64 KiB writes, until the client leaves."""
    rpc_id = await _rpc_id(request)

    async def chunks() -> Any:
        yield b"data: " + _ok(rpc_id, TASK) + b"\n\n"
        block = b":\n" * 32768
        while True:
            yield block
            await asyncio.sleep(0)

    return _sse(chunks())


def build_app() -> Starlette:
    return Starlette(
        routes=[
            Route("/card-bomb/.well-known/agent-card.json", card_bomb),
            Route("/send-bomb/", send_bomb, methods=["POST"]),
            Route("/stream-bomb/", stream_bomb, methods=["POST"]),
            Route("/bad-gzip/", bad_gzip, methods=["POST"]),
            Route("/deep-card/.well-known/agent-card.json", deep_card),
            Route("/deep/", deep_answer, methods=["POST"]),
            Route("/heartbeats/", heartbeats, methods=["POST"]),
            Route("/stalled/", stalled, methods=["POST"]),
            Route("/big-event/", big_event, methods=["POST"]),
            Route("/big-answer/", big_answer, methods=["POST"]),
            Route("/comment-flood/", comment_flood, methods=["POST"]),
        ]
    )


# ---------------------------------------------------------------------- measuring

# Runs the command given in argv[2:] and writes the peak RSS of its children (KiB on
# Linux) to the file in argv[1]: a fresh process has no other children to count.
_MEASURE = """\
import resource, subprocess, sys
code = subprocess.call(sys.argv[2:])
with open(sys.argv[1], "w") as fh:
    fh.write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))
sys.exit(code)
"""


def peak_rss_mib(
    command: list[str],
    *,
    env: dict[str, str],
    cwd: Path,
    timeout: float = 120.0,
) -> tuple[subprocess.CompletedProcess[bytes], float]:
    """Run ``command`` (stdin closed, output captured); return it and its peak RSS in MiB."""
    out = Path(cwd) / f".peak-rss-{os.getpid()}-{time.monotonic_ns()}"
    proc = subprocess.run(
        [sys.executable, "-c", _MEASURE, str(out), *command],
        capture_output=True,
        timeout=timeout,
        env=env,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
    )
    peak = int(out.read_text())
    out.unlink()
    # ru_maxrss is KiB on Linux, bytes on macOS.
    return proc, peak / (1024 * 1024 if sys.platform == "darwin" else 1024)


def self_peak_mib() -> float:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024 if sys.platform == "darwin" else 1024)


# ---------------------------------------------------------------------- slow clients


def dribble(port: int, opening: bytes, byte: bytes = b"a", every: float = 0.05, give_up: float = 60.0) -> bytes:
    """Slowloris: send ``opening``, then one ``byte`` every ``every`` seconds, until the
    server closes the connection; return what it answered. AssertionError if it is still
    open after ``give_up`` seconds (the only bound that matters: it never closes)."""
    sock = socket.create_connection(("127.0.0.1", port))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    answer = b""
    deadline = time.monotonic() + give_up
    try:
        sock.sendall(opening)
        while True:
            readable, _, _ = select.select([sock], [], [], every)
            if readable:
                try:
                    chunk = sock.recv(65536)
                except ConnectionResetError:
                    return answer
                if not chunk:
                    return answer
                answer += chunk
                continue
            if time.monotonic() > deadline:
                raise AssertionError(f"the server kept a dribbling connection open for {give_up} s")
            try:
                sock.sendall(byte)
            except (BrokenPipeError, ConnectionResetError):
                return answer
    finally:
        sock.close()
