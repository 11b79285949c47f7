"""Peak memory of ``a2a-inspect proxy --headless`` while a long stream goes through it,
over SSE and over gRPC: what a proxy left running for days costs.

    bench/run proxy_memory [--quick | --full] [--sizes N,N...] [--runs R] [--only sse|grpc]

Three processes on loopback: the agent (bench/_stream_agent.py ``chunks`` for SSE,
bench/_grpc_stream_agent.py for gRPC: one 1.0 artifact streamed in N chunks of about 45
characters), the proxy as a user runs it (the installed command, its text lines read
and dropped by this process), and this one, the client, which reads the whole stream
and then waits for the proxy's line saying it logged the stream's end. A fresh proxy
for each run. Printed: the proxy's peak RSS (VmHWM; the highest of the runs), the time
from request to that line, and events a second (medians). Sizes: 10,000 and 100,000
(about a minute); ``--full`` adds 1,000,000 (about 7 minutes on 2 busy cores).
**Target (issue 26): 1,000,000 events <= 250 MB, each way.**
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

from common import fmt_rate, median, stop_child, table  # noqa: E402

TARGET_MIB = 250
GRPC_PATH = "/lf.a2a.v1.A2AService/SendStreamingMessage"


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}


def _port(proc: subprocess.Popen[str]) -> int:
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not line.strip().isdigit():
        stop_child(proc)
        raise SystemExit(f"the agent did not start: {line!r}")
    return int(line)


class Proxy:
    """The headless proxy; a thread reads its lines and notes the stream's end."""

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "inspector.cli", "proxy", "--headless", "--port", "0", *args],
            stdout=subprocess.PIPE,
            text=True,
            env=_env(),
            cwd=ROOT,
        )
        assert self.proc.stdout is not None
        self.banner = "".join(self.proc.stdout.readline() for _ in range(3))
        self.ended = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if " ended: " in line:
                self.ended.set()

    def peak_mib(self) -> float:
        status = Path(f"/proc/{self.proc.pid}/status").read_text()
        found = re.search(r"VmHWM:\s+(\d+) kB", status)
        return int(found.group(1)) / 1024 if found else float("nan")


def sse_run(count: int) -> tuple[int, float, float]:
    """(events, seconds, peak MiB) of one SSE stream of ``count`` chunks."""
    import httpx

    agent = subprocess.Popen(
        [sys.executable, str(HERE / "_stream_agent.py"), "chunks", str(count)], stdout=subprocess.PIPE, text=True
    )
    proxy = None
    try:
        port = _port(agent)
        proxy = Proxy(f"http://127.0.0.1:{port}")
        listen = re.search(r"127\.0\.0\.1:(\d+)", proxy.banner)
        assert listen, proxy.banner
        body = json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "SendStreamingMessage",
                "params": {"message": {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": "go"}]}},
            }
        )
        events, tail = 0, b""
        t0 = time.perf_counter()
        with httpx.stream(
            "POST",
            f"http://127.0.0.1:{listen.group(1)}/",
            content=body,
            timeout=600,
            headers={"content-type": "application/json", "A2A-Version": "1.0"},
        ) as resp:
            for chunk in resp.iter_raw():
                events += (tail + chunk).count(b"data: ")
                tail = (tail + chunk)[-5:]
        if not proxy.ended.wait(600):
            raise SystemExit("the proxy never logged the stream's end")
        seconds = time.perf_counter() - t0
        return events, seconds, proxy.peak_mib()
    finally:
        if proxy is not None:
            stop_child(proxy.proc)
        stop_child(agent)


def grpc_run(count: int) -> tuple[int, float, float]:
    """(messages, seconds, peak MiB) of one gRPC stream of ``count`` messages."""
    import grpc

    from inspector.protocol import grpc_schema

    agent = subprocess.Popen(
        [sys.executable, str(HERE / "_grpc_stream_agent.py"), str(count)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=_env(),
    )
    proxy = None
    try:
        port = _port(agent)
        proxy = Proxy("http://127.0.0.1:9", "--grpc-upstream", f"127.0.0.1:{port}")
        listen = re.search(r"gRPC 127\.0\.0\.1:(\d+)", proxy.banner)
        assert listen, proxy.banner
        request = grpc_schema.from_json(
            "1.0",
            "SendMessageRequest",
            {"message": {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": "go"}]}},
        ).SerializeToString()

        async def read() -> int:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{listen.group(1)}") as channel:
                n = 0
                async for _ in channel.unary_stream(GRPC_PATH)(request, metadata=(("a2a-version", "1.0"),)):
                    n += 1
                return n

        t0 = time.perf_counter()
        events = asyncio.run(read())
        if not proxy.ended.wait(600):
            raise SystemExit("the proxy never logged the stream's end")
        seconds = time.perf_counter() - t0
        return events, seconds, proxy.peak_mib()
    finally:
        if proxy is not None:
            stop_child(proxy.proc)
        stop_child(agent)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10,000 events only")
    parser.add_argument("--full", action="store_true", help="10,000, 100,000 and 1,000,000 events")
    parser.add_argument("--sizes", help="comma-separated event counts (default 10000,100000)")
    parser.add_argument("--runs", type=int, default=1, help="runs of each size (default 1)")
    parser.add_argument("--only", choices=("sse", "grpc"), help="one way only")
    args = parser.parse_args(argv)
    sizes = (
        [int(s) for s in args.sizes.split(",")]
        if args.sizes
        else [10_000]
        if args.quick
        else [10_000, 100_000, 1_000_000]
        if args.full
        else [10_000, 100_000]
    )
    ways = [args.only] if args.only else ["sse", "grpc"]
    rows = []
    for way in ways:
        for count in sizes:
            peaks, times = [], []
            for _ in range(max(1, args.runs)):
                events, seconds, peak = (sse_run if way == "sse" else grpc_run)(count)
                # The SSE agent's stream has the task, a working status and the final one besides.
                expected = count + 3 if way == "sse" else count
                if events != expected:
                    print(f"FAIL: {way} stream had {events} events, expected {expected}", file=sys.stderr)
                    return 1
                peaks.append(peak)
                times.append(seconds)
                print(f"  {way} {count:,}: {peak:.0f} MiB, {seconds:.1f} s", flush=True)
            peak, seconds = max(peaks), median(times)
            rows.append(
                [
                    way,
                    f"{count:,}",
                    f"{peak:.0f}",
                    f"{seconds:.1f}",
                    fmt_rate(expected / seconds),
                    "PASS" if peak <= TARGET_MIB else "MISS",
                ]
            )
    table(
        ["way", "chunks", "proxy peak MiB", "seconds", "events/s", f"<= {TARGET_MIB} MiB"],
        rows,
        title="a2a-inspect proxy --headless: one 1.0 artifact stream",
    )
    return 0  # a MISS is printed, not an exit status (bench/README.md)


if __name__ == "__main__":
    sys.exit(main())
