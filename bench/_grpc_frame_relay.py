"""A measuring prototype, not the proxy: gRPC relayed below grpcio, as HTTP/2 bytes.

    python bench/_grpc_frame_relay.py HOST:PORT      (prints the port it listens on)

Every connection to it gets a TCP connection to HOST:PORT and the bytes go through
both ways as they come, one write per read, never parsed on the way. The agent's side
is also queued to a task of its own that cuts it into HTTP/2 frames, the DATA frames
into gRPC messages, and logs each message with the proxy's own code
(grpc_relay._MessageLog.one: ProtoJSON, the codec, the session, the tracker), in
batches and giving the relay a turn every relaying.SLICE, as the proxy's log does.

What it leaves out is what a real relay at this level would have to do: HPACK (the
method path, metadata, status and trailers for the log), the fault rules (which
rewrite frames, so flow control too), TLS to the agent, and every other frame type's
meaning. bench/proxy.py --grpc-references runs it beside the proxy to show what
relaying chunks of frames instead of one grpc.aio operation per message gives.
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from inspector import gcpolicy
from inspector.proxy import (
    Proxy,
    Route,
    grpc_relay,
)
from inspector.proxy.relaying import SLICE, Backlog
from inspector.session import Session

PATH = "/lf.a2a.v1.A2AService/SendStreamingMessage"
DATA, PADDED = 0, 0x8


async def pump(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, backlog: Backlog | None) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            if backlog is not None:
                backlog.put(data, 0.0)
            await writer.drain()
    except ConnectionError:
        pass
    finally:
        if backlog is not None:
            backlog.close()
        writer.close()


async def log_frames(backlog: Backlog, log: grpc_relay._MessageLog) -> None:
    buf = b""
    pending: dict[int, bytes] = {}
    clock = time.perf_counter
    started = clock()
    while True:
        while (taken := backlog.take()) is not None:
            buf += taken[0]
            at = 0
            while len(buf) - at >= 9:
                size = int.from_bytes(buf[at : at + 3], "big")
                if len(buf) - at < 9 + size:
                    break
                kind, flags = buf[at + 3], buf[at + 4]
                stream = int.from_bytes(buf[at + 5 : at + 9], "big") & 0x7FFFFFFF
                payload = buf[at + 9 : at + 9 + size]
                at += 9 + size
                if kind != DATA:
                    continue
                if flags & PADDED:
                    payload = payload[1 : len(payload) - payload[0]]
                data = pending.get(stream, b"") + payload
                i = 0
                while len(data) - i >= 5:
                    length = int.from_bytes(data[i + 1 : i + 5], "big")
                    if len(data) - i < 5 + length:
                        break
                    log.one(data[i + 5 : i + 5 + length], 0.0)
                    i += 5 + length
                    if clock() - started > SLICE:
                        await asyncio.sleep(0)
                        started = clock()
                pending[stream] = data[i:]
            buf = buf[at:]
        if backlog.closed and not backlog.items:
            return
        await backlog.more(grpc_relay._LINGER)


async def serve(upstream: str) -> None:
    host, port = upstream.rsplit(":", 1)
    proxy = Proxy([Route("", "http://127.0.0.1:9")], session=Session(keep=1_000_000))
    dialect, rpc, _method = grpc_relay.known_paths()[PATH]

    async def handle(client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        agent_reader, agent_writer = await asyncio.open_connection(host, int(port))
        call = SimpleNamespace(
            session=proxy.session, dialect=dialect, rpc=rpc, proxy=proxy, number=proxy.session.new_exchange()
        )
        backlog = Backlog()
        logger = asyncio.ensure_future(log_frames(backlog, grpc_relay._MessageLog(call)))
        await asyncio.gather(pump(client_reader, agent_writer, None), pump(agent_reader, client_writer, backlog))
        await logger

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    print(server.sockets[0].getsockname()[1], flush=True)
    await server.serve_forever()


if __name__ == "__main__":
    gcpolicy.install()
    asyncio.run(serve(sys.argv[1]))
