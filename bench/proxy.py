"""Streaming through a2a-inspect proxy against streaming straight from the agent, in the
same run: how many events a second each way, and how much later each event arrives.

    bench/run proxy [--quick] [--events N] [--runs R] [--only CASE] [--grpc-references]

Three processes on loopback: the agent (bench/_stream_agent.py for the throughput
phase; a paced agent of this file for the latency phase), the proxy (``Proxy`` and
``ProxyServer`` as ``a2a-inspect proxy`` runs them, without the terminal's printing),
and this one, the client: httpx reading the raw stream and counting events.

* throughput: the agent sends one 1.0 artifact stream of N chunk events as fast as it
  can (64 KiB writes); runs alternate direct / through the proxy.
  Target: ratio (proxy events/s ÷ direct events/s) >= 0.8 (issue 17).
* grpc: the same over gRPC: a grpc.aio agent of this file sends one 1.0
  SendStreamingMessage stream of N artifact-update messages as fast as it can; the
  client (grpcio, bytes only) counts messages; the proxy relays it with
  ``--grpc-upstream`` and logs each message as ProtoJSON. Target: the same ratio.
  Printed too: each process's CPU time per message (steadier than rates under load).
  ``--grpc-references`` adds, in the same run, the proxy with every connection on its
  slow path (its grpc.aio relay, as the proxy ran before the fast path) and a bare
  grpc.aio relay (no log: that path's floor).
  Then unary: N/10 SendMessage calls, INFLIGHT at a time (calls/s, ratio), and N/100
  one after the other (round trip, what the proxy adds: median, p99); then a gRPC
  stream of messages PACE apart, stamped as in the latency case (added per message).
* latency: the agent sends one event every 2 ms, each stamped with the system's
  monotonic clock as it is written; the client subtracts the stamp on arrival. The
  added latency is the proxy run's figure minus the direct run's (median and p99).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

from common import child_cpu_seconds, fmt_rate, median, spread, stop_child, table  # noqa: E402

TARGET = 0.8
PACE = 0.002
#: Unary calls in flight at once when measuring the rate.
INFLIGHT = 16


# ---------------------------------------------------------------------- children


def serve_proxy(upstream: str, grpc_upstream: str | None = None, *, slow: bool = False) -> None:
    from inspector import gcpolicy
    from inspector.proxy import Proxy, ProxyServer, Route
    from inspector.proxy.grpc_front import FrontServer

    gcpolicy.install()
    # Every gRPC connection through the grpc.aio relay, as before the fast path.
    FrontServer.fast = not slow

    async def run() -> None:
        # As the TUI runs it: the proxy's own bounded session (spilling), its tracker
        # folding every event.
        proxy = Proxy([Route("", upstream)])
        server = ProxyServer(proxy, port=0, grpc_upstream=grpc_upstream)
        await server.start()
        if grpc_upstream:
            (address,) = server.grpc_addresses.values()
            print(address.rsplit(":", 1)[1], flush=True)
        else:
            print(server.port, flush=True)
        await asyncio.Event().wait()

    asyncio.run(run())


def serve_paced(count: int) -> None:
    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            length = 0
            for line in head.decode("latin-1").split("\r\n")[1:]:
                name, _, value = line.partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value)
            if length:
                await reader.readexactly(length)
            writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n")
            for i in range(count):
                update = {
                    "taskId": "t",
                    "contextId": "c",
                    "artifact": {"artifactId": "a", "parts": [{"text": f"{time.monotonic_ns()}"}]},
                    "append": bool(i),
                }
                event = (
                    b"data: "
                    + json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"artifactUpdate": update}}).encode()
                    + b"\r\n\r\n"
                )
                writer.write(b"%x\r\n%b\r\n" % (len(event), event))
                await writer.drain()
                await asyncio.sleep(PACE)
            final = {"taskId": "t", "contextId": "c", "status": {"state": "TASK_STATE_COMPLETED"}, "final": True}
            event = (
                b"data: "
                + json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"statusUpdate": final}}).encode()
                + b"\r\n\r\n"
            )
            writer.write(b"%x\r\n%b\r\n0\r\n\r\n" % (len(event), event))
            await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    async def run() -> None:
        server = await asyncio.start_server(handle, "127.0.0.1", 0)
        print(server.sockets[0].getsockname()[1], flush=True)
        async with server:
            await server.serve_forever()

    asyncio.run(run())


GRPC_PATH = "/lf.a2a.v1.A2AService/SendStreamingMessage"
GRPC_UNARY = "/lf.a2a.v1.A2AService/SendMessage"


def serve_grpc(count: int, paced: bool = False) -> None:
    """A gRPC agent: SendMessage answers one completed task; any other call answers
    ``count`` artifact updates and a final status, as fast as it can or, ``paced``, one
    every PACE seconds, each stamped with the monotonic clock as it is written."""
    from inspector.protocol import grpc_schema

    cls = grpc_schema.message_class("1.0", "StreamResponse")

    def update(text: str) -> bytes:
        return cls(
            artifact_update={
                "task_id": "t",
                "context_id": "c",
                "append": True,
                "artifact": {"artifact_id": "a", "parts": [{"text": text}]},
            }
        ).SerializeToString()

    chunk = update("x" * 40)
    final = cls(
        status_update={"task_id": "t", "context_id": "c", "status": {"state": "TASK_STATE_COMPLETED"}}
    ).SerializeToString()
    # Each answer a task of its own, as an agent gives each new message (not the streamed
    # task "t", nor one task answered again and again: the tracker would fold every
    # call into it). Serialized once with a fixed-width id, each call's id put in place.
    answer = grpc_schema.message_class("1.0", "SendMessageResponse")(
        task={
            "id": _unique("u", 0).decode(),
            "context_id": "c",
            "status": {"state": "TASK_STATE_COMPLETED"},
            "artifacts": [{"artifact_id": "a", "parts": [{"text": "x" * 40}]}],
        }
    ).SerializeToString()
    answered = itertools.count(1)

    async def stream(request: bytes, context: Any) -> Any:
        if paced:
            for _ in range(count):
                yield update(str(time.monotonic_ns()))
                await asyncio.sleep(PACE)
        else:
            for _ in range(count):
                yield chunk
        yield final

    async def unary(request: bytes, context: Any) -> bytes:
        return answer.replace(_unique("u", 0), _unique("u", next(answered)), 1)

    asyncio.run(_serve_stream(stream, unary))


def serve_grpc_bare(upstream: str) -> None:
    """The floor of the proxy's design: grpc.aio relaying each message as the proxy
    does (a read always pending beside the write), and nothing else: no log."""
    import grpc

    async def run() -> None:
        channel = grpc.aio.insecure_channel(upstream)

        async def stream(request: bytes, context: Any) -> None:
            call = channel.unary_stream(GRPC_PATH)(request)
            queue: asyncio.Queue[Any] = asyncio.Queue(64)

            async def read() -> None:
                async for raw in call:
                    await queue.put(raw)
                await queue.put(None)

            reader = asyncio.ensure_future(read())
            while (raw := await queue.get()) is not None:
                await context.write(raw)
            await reader

        async def unary(request: bytes, context: Any) -> bytes:
            return await channel.unary_unary(GRPC_UNARY)(request)

        await _serve_stream(stream, unary)

    asyncio.run(run())


async def _serve_stream(stream: Any, unary: Any = None) -> None:
    """A loopback grpc.aio server answering any call with the unary-stream handler
    ``stream`` (SendMessage with ``unary`` when given); prints its port (the parent
    reads it), then serves until killed."""
    import grpc

    class Handler(grpc.GenericRpcHandler):
        def service(self, details: Any) -> Any:
            if unary is not None and details.method == GRPC_UNARY:
                return grpc.unary_unary_rpc_method_handler(unary)
            return grpc.unary_stream_rpc_method_handler(stream)

    server = grpc.aio.server()
    server.add_generic_rpc_handlers((Handler(),))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    print(port, flush=True)
    await server.wait_for_termination()


def _unique(prefix: str, n: int) -> bytes:
    """An id of fixed width: put into a message serialized once, it keeps its length."""
    return f"{prefix}-{n:012d}".encode()


#: The messageIds this process has sent (each call's its own, run after run).
_SENT = itertools.count(1)


def _grpc_request(n: int = 0) -> bytes:
    """A SendMessageRequest whose messageId is ``n``'s (a client gives each message its own)."""
    from inspector.protocol import grpc_schema

    return grpc_schema.from_json(
        "1.0",
        "SendMessageRequest",
        {"message": {"messageId": _unique("m", n).decode(), "role": "ROLE_USER", "parts": [{"text": "go"}]}},
    ).SerializeToString()


async def read_grpc(address: str, stamps: bool = False) -> tuple[int, float, list[float]]:
    """(messages, seconds from the call to its end, latencies in seconds when stamped)."""
    import grpc

    from inspector.protocol import grpc_schema

    parse = grpc_schema.message_class("1.0", "StreamResponse").FromString
    lags: list[float] = []
    async with grpc.aio.insecure_channel(address) as channel:
        t0 = time.perf_counter()
        events = 0
        async for message in channel.unary_stream(GRPC_PATH)(_grpc_request(), metadata=(("a2a-version", "1.0"),)):
            events += 1
            if stamps:
                now = time.monotonic_ns()
                update = parse(message)
                if update.HasField("artifact_update"):
                    lags.append((now - int(update.artifact_update.artifact.parts[0].text)) / 1e9)
        return events, time.perf_counter() - t0, lags


async def call_grpc(address: str, calls: int, inflight: int = 1) -> tuple[float, list[float]]:
    """``calls`` SendMessage calls on one channel, ``inflight`` at a time: (seconds, each
    call's round trip in seconds)."""
    import grpc

    request = _grpc_request()
    template = _unique("m", 0)
    trips: list[float] = []
    clock = time.perf_counter
    async with grpc.aio.insecure_channel(address) as channel:
        send = channel.unary_unary(GRPC_UNARY)

        async def worker(n: int) -> None:
            for _ in range(n):
                message = request.replace(template, _unique("m", next(_SENT)), 1)
                began = clock()
                await send(message, metadata=(("a2a-version", "1.0"),))
                trips.append(clock() - began)

        t0 = clock()
        await asyncio.gather(*(worker(calls // inflight + (i < calls % inflight)) for i in range(inflight)))
        return clock() - t0, trips


def start(*args: str) -> tuple[subprocess.Popen[str], int]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    proc = subprocess.Popen([sys.executable, *args], stdout=subprocess.PIPE, text=True, env=env)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not line.strip().isdigit():
        stop_child(proc)
        raise SystemExit(f"a child did not start: {args}")
    return proc, int(line)


# ---------------------------------------------------------------------- the client


BODY = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "SendStreamingMessage",
        "params": {"message": {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": "go"}]}},
    }
).encode()
HEADERS = {"Content-Type": "application/json", "Accept": "text/event-stream", "A2A-Version": "1.0"}


async def read_stream(url: str, stamps: bool) -> tuple[int, float, list[float]]:
    """(events, seconds from request to last byte, latencies in seconds when stamped)."""
    import httpx

    events = 0
    lags: list[float] = []
    buf = b""
    async with httpx.AsyncClient(timeout=120) as http:
        t0 = time.perf_counter()
        async with http.stream("POST", url, content=BODY, headers=HEADERS) as resp:
            assert resp.status_code == 200, resp.status_code
            async for chunk in resp.aiter_raw():
                now = time.monotonic_ns()
                buf += chunk
                blocks = buf.split(b"\r\n\r\n")
                buf = blocks.pop()
                events += len(blocks)
                if stamps:
                    for block in blocks:
                        at = block.find(b'"text": "')
                        if at >= 0:
                            stamp = int(block[at + 9 : block.index(b'"', at + 9)])
                            lags.append((now - stamp) / 1e9)
        return events, time.perf_counter() - t0, lags


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


CASES = ("throughput", "grpc", "latency")


def throughput_case(me: str, count: int, runs: int, children: list[subprocess.Popen[str]]) -> int:
    agent, agent_port = start(str(HERE / "_stream_agent.py"), "chunks", str(count))
    children.append(agent)
    direct = f"http://127.0.0.1:{agent_port}/"
    proxy, proxy_port = start(me, "--serve-proxy", direct.rstrip("/"))
    children.append(proxy)
    via = f"http://127.0.0.1:{proxy_port}/"
    rates: dict[str, list[float]] = {"direct": [], "proxy": []}
    for url in (direct, via):  # warm-up: connections, imports, first decodes
        asyncio.run(read_stream(url, stamps=False))
    for _ in range(runs):
        for name, url in (("direct", direct), ("proxy", via)):
            events, seconds, _ = asyncio.run(read_stream(url, stamps=False))
            if events != count + 3:
                print(f"FAIL: {name} stream had {events} events, expected {count + 3}")
                return 1
            rates[name].append(events / seconds)
    ratio = median(rates["proxy"]) / median(rates["direct"])
    table(
        ["path", "events/s (median)", "spread", "runs"],
        [[name, fmt_rate(median(r)), f"{spread(r):.0%}", len(r)] for name, r in rates.items()],
        title=f"throughput: one 1.0 stream of {count:,} chunk events",
    )
    verdict = "ok" if ratio >= TARGET else "MISS"
    print(f"ratio proxy/direct: {ratio:.2f}  (target >= {TARGET})  {verdict}")
    for child in (agent, proxy):
        stop_child(child)
        children.remove(child)
    return 0


def settle(proc: subprocess.Popen[str] | None, quiet: float = 0.1, limit: float = 30.0) -> None:
    """Wait until ``proc`` has used no CPU for ``quiet`` seconds (its work is done)."""
    if proc is None:
        return
    until = time.monotonic() + limit
    last = child_cpu_seconds(proc.pid)
    while time.monotonic() < until:
        time.sleep(quiet)
        now = child_cpu_seconds(proc.pid)
        if now is None or last is None or now == last:  # (in clock ticks: not one more)
            return
        last = now


def grpc_case(
    me: str, count: int, runs: int, paced: int, references: bool, children: list[subprocess.Popen[str]]
) -> int:
    grpc_agent, grpc_port = start(me, "--serve-grpc", str(count))
    children.append(grpc_agent)
    upstream = f"127.0.0.1:{grpc_port}"
    proxy, proxy_grpc = start(me, "--serve-proxy", "http://127.0.0.1:9", "--grpc-upstream", upstream)
    children.append(proxy)
    #: name -> (address, the relaying process or None)
    ways: dict[str, tuple[str, subprocess.Popen[str] | None]] = {
        "direct": (upstream, None),
        "proxy": (f"127.0.0.1:{proxy_grpc}", proxy),
    }
    if references:
        bare, bare_port = start(me, "--serve-grpc-bare", upstream)
        children.append(bare)
        slow, slow_port = start(me, "--serve-proxy", "http://127.0.0.1:9", "--grpc-upstream", upstream, "--slow")
        children.append(slow)
        ways[REFERENCES[0]] = (f"127.0.0.1:{slow_port}", slow)
        ways[REFERENCES[1]] = (f"127.0.0.1:{bare_port}", bare)
    rates: dict[str, list[float]] = {name: [] for name in ways}
    # CPU seconds a message of the agent, the relay and this process (grpcio's threads in).
    cpu: dict[str, list[list[float]]] = {name: [] for name in ways}
    # Unary: SendMessage calls one after the other, direct and through the proxy.
    calls = max(100, count // 10)
    unary_ways = list(ways)
    unary_rates: dict[str, list[float]] = {name: [] for name in unary_ways}
    trips: dict[str, list[float]] = {name: [] for name in unary_ways}
    unary_cpu: dict[str, list[list[float]]] = {name: [] for name in unary_ways}
    for address, _relay in ways.values():
        asyncio.run(read_grpc(address))
    for name in unary_rates:
        asyncio.run(call_grpc(ways[name][0], 20))
    for _ in range(runs):
        for name, (address, relay) in ways.items():
            procs = [grpc_agent, relay]
            before = [child_cpu_seconds(p.pid) if p else 0.0 for p in procs] + [time.process_time()]
            events, seconds, _lags = asyncio.run(read_grpc(address))
            # The relay's log may still be at work: its CPU is counted once it is idle.
            settle(relay)
            after = [child_cpu_seconds(p.pid) if p else 0.0 for p in procs] + [time.process_time()]
            if events != count + 1:
                print(f"FAIL: {name} gRPC stream had {events} messages, expected {count + 1}")
                return 1
            rates[name].append(events / seconds)
            cpu[name].append([((b or 0.0) - (a or 0.0)) / events for a, b in zip(before, after, strict=True)])
        for name in unary_rates:
            procs = [grpc_agent, ways[name][1]]
            before = [child_cpu_seconds(p.pid) if p else 0.0 for p in procs] + [time.process_time()]
            seconds, _trips = asyncio.run(call_grpc(ways[name][0], calls, INFLIGHT))
            # The relay's log may still be at work: its CPU is counted once it is idle.
            settle(ways[name][1])
            after = [child_cpu_seconds(p.pid) if p else 0.0 for p in procs] + [time.process_time()]
            unary_rates[name].append(calls / seconds)
            unary_cpu[name].append([((b or 0.0) - (a or 0.0)) / calls for a, b in zip(before, after, strict=True)])
            _seconds, got = asyncio.run(call_grpc(ways[name][0], calls // 10))
            trips[name] += got

    def us(name: str, i: int, of: dict[str, list[list[float]]] = cpu) -> str:
        return f"{median([c[i] for c in of[name]]) * 1e6:.0f}"

    print()
    table(
        ["path", "messages/s (median)", "spread", "runs", "CPU µs/msg: agent", "relay", "client"],
        [
            [
                name,
                fmt_rate(median(r)),
                f"{spread(r):.0%}",
                len(r),
                us(name, 0),
                us(name, 1) if ways[name][1] else "-",
                us(name, 2),
            ]
            for name, r in rates.items()
        ],
        title=f"gRPC: one 1.0 stream of {count:,} artifact messages",
    )
    ratio = median(rates["proxy"]) / median(rates["direct"])
    print(f"gRPC stream ratio proxy/direct: {ratio:.2f}  (target >= {TARGET})  {'ok' if ratio >= TARGET else 'MISS'}")
    for name in REFERENCES if references else ():
        print(f"  for reference, {name}: ratio {median(rates[name]) / median(rates['direct']):.2f}")
    print()
    table(
        [
            "path",
            "calls/s (median)",
            "spread",
            "runs",
            "round trip median (ms)",
            "p99 (ms)",
            "CPU µs/call: agent",
            "relay",
            "client",
        ],
        [
            [
                name,
                fmt_rate(median(r)),
                f"{spread(r):.0%}",
                len(r),
                f"{median(trips[name]) * 1e3:.3f}",
                f"{pct(trips[name], 99) * 1e3:.3f}",
                us(name, 0, unary_cpu),
                us(name, 1, unary_cpu) if ways[name][1] else "-",
                us(name, 2, unary_cpu),
            ]
            for name, r in unary_rates.items()
        ],
        title=f"gRPC unary: {calls:,} SendMessage calls, {INFLIGHT} at a time (rate); "
        f"{calls // 10:,} one after the other (round trip)",
    )
    ratio = median(unary_rates["proxy"]) / median(unary_rates["direct"])
    print(f"gRPC unary ratio proxy/direct: {ratio:.2f}  (target >= {TARGET})  {'ok' if ratio >= TARGET else 'MISS'}")
    print(
        f"added by the proxy per call: median {(median(trips['proxy']) - median(trips['direct'])) * 1e3:.3f} ms, "
        f"p99 {(pct(trips['proxy'], 99) - pct(trips['direct'], 99)) * 1e3:.3f} ms"
    )
    for name in REFERENCES if references else ():
        print(f"  for reference, {name}: ratio {median(unary_rates[name]) / median(unary_rates['direct']):.2f}")
    for _address, relay in ways.values():
        if relay is not None:
            stop_child(relay)
            children.remove(relay)
    stop_child(grpc_agent)
    children.remove(grpc_agent)
    return grpc_latency(me, runs, paced, children)


def grpc_latency(me: str, runs: int, paced: int, children: list[subprocess.Popen[str]]) -> int:
    """A gRPC stream's messages PACE apart, stamped by the agent: what the proxy adds."""
    agent, agent_port = start(me, "--serve-grpc", str(paced), "--paced")
    children.append(agent)
    direct = f"127.0.0.1:{agent_port}"
    proxy, proxy_grpc = start(me, "--serve-proxy", "http://127.0.0.1:9", "--grpc-upstream", direct)
    children.append(proxy)
    via = f"127.0.0.1:{proxy_grpc}"
    lags: dict[str, list[float]] = {"direct": [], "proxy": []}
    for _ in range(max(1, runs // 2)):
        for name, address in (("direct", direct), ("proxy", via)):
            _events, _seconds, got = asyncio.run(read_grpc(address, stamps=True))
            lags[name] += got
    print()
    table(
        ["path", "latency median (ms)", "p99 (ms)", "messages"],
        [[name, f"{median(v) * 1e3:.3f}", f"{pct(v, 99) * 1e3:.3f}", len(v)] for name, v in lags.items()],
        title=f"gRPC latency: stream messages {PACE * 1e3:g} ms apart, stamped by the agent",
    )
    print(
        f"added by the proxy per gRPC message: median {(median(lags['proxy']) - median(lags['direct'])) * 1e3:.3f} "
        f"ms, p99 {(pct(lags['proxy'], 99) - pct(lags['direct'], 99)) * 1e3:.3f} ms"
    )
    for child in (agent, proxy):
        stop_child(child)
        children.remove(child)
    return 0


REFERENCES = ("proxy, slow path only", "grpc.aio relay, no log")


def latency_case(me: str, runs: int, paced: int, children: list[subprocess.Popen[str]]) -> int:
    paced_agent, paced_port = start(me, "--serve-paced", str(paced))
    children.append(paced_agent)
    direct = f"http://127.0.0.1:{paced_port}/"
    proxy, proxy_port = start(me, "--serve-proxy", direct.rstrip("/"))
    children.append(proxy)
    via = f"http://127.0.0.1:{proxy_port}/"
    lags: dict[str, list[float]] = {"direct": [], "proxy": []}
    for _ in range(max(1, runs // 2)):
        for name, url in (("direct", direct), ("proxy", via)):
            _events, _seconds, got = asyncio.run(read_stream(url, stamps=True))
            lags[name] += got
    rows = [[name, f"{median(v) * 1e3:.3f}", f"{pct(v, 99) * 1e3:.3f}", len(v)] for name, v in lags.items()]
    print()
    table(
        ["path", "latency median (ms)", "p99 (ms)", "events"],
        rows,
        title=f"latency: events {PACE * 1e3:g} ms apart, stamped by the agent",
    )
    added_med = (median(lags["proxy"]) - median(lags["direct"])) * 1e3
    added_p99 = (pct(lags["proxy"], 99) - pct(lags["direct"], 99)) * 1e3
    print(f"added by the proxy per event: median {added_med:.3f} ms, p99 {added_p99:.3f} ms")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes: a smoke test")
    parser.add_argument("--events", type=int, help="events in the throughput stream (default 30000; quick 3000)")
    parser.add_argument("--runs", type=int, help="runs each way (default 5; quick 2)")
    parser.add_argument("--only", action="append", choices=CASES, help="run this case (repeatable; default all)")
    parser.add_argument(
        "--grpc-references",
        action="store_true",
        help="the gRPC case also through the proxy's slow path only (its grpc.aio relay) "
        "and through a bare grpc.aio relay (no log)",
    )
    parser.add_argument("--serve-proxy", help=argparse.SUPPRESS)
    parser.add_argument("--serve-paced", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--serve-grpc", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--serve-grpc-bare", help=argparse.SUPPRESS)
    parser.add_argument("--paced", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--grpc-upstream", help=argparse.SUPPRESS)
    parser.add_argument("--slow", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve_proxy:
        serve_proxy(args.serve_proxy, args.grpc_upstream, slow=args.slow)
        return 0
    if args.serve_grpc:
        serve_grpc(args.serve_grpc, args.paced)
        return 0
    if args.serve_grpc_bare:
        serve_grpc_bare(args.serve_grpc_bare)
        return 0
    if args.serve_paced:
        serve_paced(args.serve_paced)
        return 0
    count = args.events or (3000 if args.quick else 30000)
    runs = args.runs or (2 if args.quick else 5)
    paced = 200 if args.quick else 1500
    cases = args.only or CASES
    me = str(Path(__file__).resolve())
    children: list[subprocess.Popen[str]] = []
    try:
        if "throughput" in cases and throughput_case(me, count, runs, children):
            return 1
        if "grpc" in cases and grpc_case(me, count, runs, paced, args.grpc_references, children):
            return 1
        if "latency" in cases and latency_case(me, runs, paced, children):
            return 1
    finally:
        for child in children:
            stop_child(child)
    return 0


if __name__ == "__main__":
    sys.exit(main())
