"""Mock throughput: a2a-mock against a real a2a-sdk 1.3.0 agent doing the same work.

Servers, each in its own child process (uvicorn on 127.0.0.1, port 0, the bound port
read back from the child), with the same uvicorn settings:

  mock           a2a-mock serving a three-rule scenario in the 1.0 dialect, writing each
                 SSE event as its own write (its default, as real servers write)
  mock-buffered  the same with ``framing: {writes: buffered}``: whatever is ready goes
                 out in one write (the mock's old way; --framing per-event leaves it out)
  sdk            the a2a-sdk Echo Agent of tests/peers/sdk_agent.py (pure 1.0,
                 DefaultRequestHandler, InMemoryTaskStore); sse-starlette writes each
                 event as its own write, so "mock" is the like-for-like comparison

All do echo-like work of the same size for the same request: a working status
("echoing..."), one artifact "echo" in K chunks whose i-th text is
"chunk i of K: <the user's text>\\n", then completed ("done"). K is --send-chunks for a
text starting "send" and --chunks for one starting "stream" or "slow"; before each
chunk of a "slow" text both wait --trickle-ms (the SDK peer's SLOW_DELAY), the others
without delays (the peer's echo delay set to 0).

A load generator in this process (a lean keep-alive HTTP/1.1 client on asyncio streams,
so that it stays cheaper than either server) runs, against each server in turn:

  sends    N blocking SendMessage calls, --concurrency at a time: requests/s, events/s
           (the events a stream of the same task would carry: K + 3)
  streams  N SendStreamingMessage calls of --chunks chunks, --concurrency at a time:
           requests/s and SSE events/s
  trickle  N SendStreamingMessage calls whose chunks come --trickle-ms apart, as a
           token-streaming model sends them: the rates are bound by the delays, so
           the server CPU per request is the figure to compare

Every response is checked: the completed task with every chunk in order, every stream
with its K + 3 events (task, working, chunks in order, completed). A failed check (an
error, a lost or reordered event) exits 1. The figures are medians of --runs runs (the
runs alternate which server goes first, so load from elsewhere hits both alike); the
servers' own CPU time per request is shown too, being less sensitive to a busy machine.
Target: a2a-mock >= 3x the SDK on both requests/s and events/s (a MISS is not a failure).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(ROOT))  # the project, when it is not installed

import common as c  # noqa: E402

TARGET = 3.0  # mock / sdk, on requests/s and on events/s
HOST = "127.0.0.1"
V10 = "1.0"
WORKING, DONE = "echoing...", "done"


class CheckFailed(Exception):
    pass


def chunk_texts(text: str, count: int) -> list[str]:
    """The chunk texts both servers send for ``text`` (the mock's "chunk {i} of {n}: {text}\\n")."""
    return [f"chunk {i} of {count}: {text}\n" for i in range(count)]


# ---------------------------------------------------------------------- the servers (children)


def mock_scenario(
    send_chunks: int, stream_chunks: int, trickle: float = 0.0, framing: str = "per-event"
) -> dict[str, Any]:
    def script(count: int, delay: float = 0.0) -> list[dict[str, Any]]:
        chunks: dict[str, Any] = {"id": "echo", "name": "echo", "text": "chunk {i} of {n}: {text}\n", "count": count}
        steps: list[dict[str, Any]] = [{"status": "working", "message": WORKING}]
        if delay:
            # The SDK peer sleeps before every chunk, the first one included.
            chunks["delay"] = delay
            steps.append({"delay": delay})
        return [*steps, {"chunks": chunks}, {"status": "completed", "message": DONE}]

    return {
        "name": "bench-echo",
        "description": "Echo in K chunks, like the a2a-sdk peer (delays only for 'slow').",
        "card": {
            "name": "Echo Agent",
            "description": "Echoes text back in chunks.",
            "version": "0.1.0",
            "capabilities": {"streaming": True, "pushNotifications": False},
            "defaultInputModes": ["text/plain"],
            "defaultOutputModes": ["text/plain"],
            "skills": [{"id": "echo", "name": "Echo", "description": "Echo the input.", "tags": ["echo"]}],
        },
        "framing": {"writes": framing},
        "rules": [
            {"name": "send", "when": {"text": "^send\\b"}, "script": script(send_chunks)},
            {"name": "stream", "when": {"text": "^stream\\b"}, "script": script(stream_chunks)},
            {"name": "slow", "when": {"text": "^slow\\b"}, "script": script(stream_chunks, trickle)},
        ],
    }


def build_mock(send_chunks: int, stream_chunks: int, trickle: float, framing: str) -> tuple[Any, str]:
    from mock_agent.server import MockServer

    server = MockServer(mock_scenario(send_chunks, stream_chunks, trickle, framing), dialect=V10)
    return server.app, server.rpc_path


def build_sdk(send_chunks: int, stream_chunks: int, trickle: float) -> tuple[Any, str]:
    sys.path.insert(0, str(ROOT / "tests"))
    from peers import sdk_agent

    def echo_chunks(text: str) -> list[str]:
        count = send_chunks if text.startswith("send") else stream_chunks
        return chunk_texts(text, count)

    # The executor looks echo_chunks up in its module at each call; the artifact is
    # "echo" with an "echo-<task>" id, the statuses "echoing..." and "done", as above.
    sdk_agent.echo_chunks = echo_chunks
    return sdk_agent.build_app("v10", echo_delay=0.0, slow_delay=trickle), "/"


KINDS = ("mock", "mock-buffered", "sdk")


def serve(kind: str, send_chunks: int, stream_chunks: int, trickle: float) -> None:
    """Child process: serve ``kind`` on a free port; print "<port> <rpc path>", then run
    until terminated."""
    import logging

    import uvicorn

    if kind == "sdk":
        app, path = build_sdk(send_chunks, stream_chunks, trickle)
    else:
        app, path = build_mock(
            send_chunks, stream_chunks, trickle, "buffered" if kind == "mock-buffered" else "per-event"
        )
    logging.getLogger("a2a").setLevel(logging.ERROR)
    config = uvicorn.Config(app, host=HOST, port=0, log_level="warning", access_log=False, lifespan="auto")
    server = uvicorn.Server(config)

    async def run() -> None:
        task = asyncio.create_task(server.serve())
        while not server.started:
            if task.done():
                await task
                return
            await asyncio.sleep(0.01)
        port = server.servers[0].sockets[0].getsockname()[1]
        print(port, path, flush=True)
        await task

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(run())


class Child:
    """One server in a child process, stopped on close."""

    def __init__(self, kind: str, send_chunks: int, stream_chunks: int, trickle_ms: float) -> None:
        self.kind = kind
        self.proc = subprocess.Popen(
            [
                sys.executable,
                __file__,
                "--serve",
                kind,
                "--send-chunks",
                str(send_chunks),
                "--chunks",
                str(stream_chunks),
                "--trickle-ms",
                str(trickle_ms),
            ],
            stdout=subprocess.PIPE,
            text=True,
            cwd=str(ROOT),
        )
        line = self.proc.stdout.readline() if self.proc.stdout else ""
        parts = line.split()
        if len(parts) != 2 or not parts[0].isdigit():
            self.close()
            raise CheckFailed(f"the {kind} server did not start (said {line.strip()!r})")
        self.port = int(parts[0])
        self.path = parts[1]

    def cpu_seconds(self) -> float | None:
        """The child's user + system CPU time so far (Linux /proc), else None."""
        return c.child_cpu_seconds(self.proc.pid)

    def peak_rss_mb(self) -> float | None:
        """The child's peak resident set (VmHWM, Linux /proc), else None."""
        try:
            for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
        except OSError:
            pass
        return None

    def close(self) -> None:
        c.stop_child(self.proc, 10)
        if self.proc.stdout:
            self.proc.stdout.close()


# ---------------------------------------------------------------------- the load generator


class Connection:
    """One keep-alive HTTP/1.1 connection: POST a JSON body, read the whole response
    (Content-Length or chunked). Deliberately minimal, so that the client's own cost
    stays well below either server's."""

    def __init__(self, port: int, path: str) -> None:
        self.port = port
        self.path = path
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def post(self, body: bytes, *, stream: bool) -> tuple[int, bytes]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(HOST, self.port)
        assert self.reader is not None
        accept = b"text/event-stream" if stream else b"application/json"
        self.writer.write(
            b"POST %b HTTP/1.1\r\nhost: %b:%d\r\ncontent-type: application/json\r\n"
            b"accept: %b\r\na2a-version: 1.0\r\ncontent-length: %d\r\n\r\n%b"
            % (self.path.encode(), HOST.encode(), self.port, accept, len(body), body)
        )
        head = await self.reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split(" ", 2)[1])
        length = None
        chunked = close = False
        for line in lines[1:]:
            name, _, value = line.partition(":")
            name = name.strip().lower()
            if name == "content-length":
                length = int(value)
            elif name == "transfer-encoding":
                chunked = "chunked" in value.lower()
            elif name == "connection":
                close = "close" in value.lower()
        if chunked:
            pieces = []
            while True:
                size = int((await self.reader.readuntil(b"\r\n")).split(b";")[0], 16)
                if size == 0:
                    await self.reader.readuntil(b"\r\n")
                    break
                pieces.append((await self.reader.readexactly(size + 2))[:-2])
            data = b"".join(pieces)
        elif length is not None:
            data = await self.reader.readexactly(length)
        else:
            data = await self.reader.read()
            close = True
        if close:
            await self.close()
        return status, data

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            with contextlib.suppress(Exception):
                await self.writer.wait_closed()
        self.reader = self.writer = None


def request(method: str, text: str) -> bytes:
    return json.dumps(
        {
            "jsonrpc": "2.0",
            "id": str(uuid.uuid4()),
            "method": method,
            "params": {"message": {"role": "ROLE_USER", "messageId": str(uuid.uuid4()), "parts": [{"text": text}]}},
        },
        separators=(",", ":"),
    ).encode()


def check_task(task: dict[str, Any], text: str, count: int, where: str) -> None:
    state = task.get("status", {}).get("state")
    if state != "TASK_STATE_COMPLETED":
        raise CheckFailed(f"{where}: task ended {state}")
    arts = task.get("artifacts") or []
    got = [p.get("text") for a in arts for p in a.get("parts", [])]
    if len(arts) != 1 or got != chunk_texts(text, count):
        raise CheckFailed(f"{where}: artifact has {len(got)} of {count} chunks or they are out of order")


def check_send(status: int, data: bytes, text: str, count: int) -> None:
    where = f"send {text!r}"
    if status != 200:
        raise CheckFailed(f"{where}: HTTP {status}: {data[:200]!r}")
    reply = json.loads(data)
    if "error" in reply:
        raise CheckFailed(f"{where}: JSON-RPC error {reply['error']}")
    check_task(reply["result"].get("task") or {}, text, count, where)


def check_stream(status: int, data: bytes, text: str, count: int) -> int:
    """Check one SSE body; return its number of events."""
    where = f"stream {text!r}"
    if status != 200:
        raise CheckFailed(f"{where}: HTTP {status}: {data[:200]!r}")
    events = []
    for block in data.replace(b"\r\n", b"\n").split(b"\n\n"):
        datas = [line[5:].strip() for line in block.split(b"\n") if line.startswith(b"data:")]
        if datas:
            events.append(json.loads(b"\n".join(datas)))
    kinds = []
    chunks = []
    for ev in events:
        if "error" in ev:
            raise CheckFailed(f"{where}: JSON-RPC error {ev['error']}")
        ((kind, body),) = ev["result"].items()
        kinds.append(kind)
        if kind == "artifactUpdate":
            chunks.extend(p.get("text") for p in body["artifact"]["parts"])
        elif kind == "statusUpdate":
            kinds[-1] += ":" + body["status"]["state"]
    expected = (
        ["task", "statusUpdate:TASK_STATE_WORKING"] + ["artifactUpdate"] * count + ["statusUpdate:TASK_STATE_COMPLETED"]
    )
    if kinds != expected:
        raise CheckFailed(f"{where}: {len(kinds)} events, expected {len(expected)}: {kinds[:4]}...{kinds[-2:]}")
    if chunks != chunk_texts(text, count):
        raise CheckFailed(f"{where}: chunks lost or out of order")
    return len(events)


@dataclass
class Figures:
    requests: int
    events: int
    seconds: float
    server_cpu: float | None
    client_cpu: float

    @property
    def rps(self) -> float:
        return c.rate(self.requests, self.seconds)

    @property
    def eps(self) -> float:
        return c.rate(self.events, self.seconds)

    def cpu_ms(self) -> str:
        return "?" if self.server_cpu is None else f"{self.server_cpu / self.requests * 1000:.2f}"


async def run_phase(child: Child, phase: str, n: int, concurrency: int, count: int, tag: str) -> Figures:
    """n requests of one phase against one server, ``concurrency`` connections at a time."""
    stream = phase != "sends"
    method = "SendStreamingMessage" if stream else "SendMessage"
    word = {"sends": "send", "streams": "stream", "trickle": "slow"}[phase]
    todo = iter(range(n))
    events = 0

    async def worker() -> None:
        nonlocal events
        conn = Connection(child.port, child.path)
        try:
            for i in todo:
                text = f"{word} {tag} {i:05d} hello from the bench"
                try:
                    status, data = await conn.post(request(method, text), stream=stream)
                except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError) as exc:
                    raise CheckFailed(f"{child.kind} {word} {i}: the connection failed: {exc!r}") from None
                if stream:
                    events += check_stream(status, data, text, count)
                else:
                    check_send(status, data, text, count)
                    events += count + 3
        finally:
            await conn.close()

    cpu0, client0 = child.cpu_seconds(), time.process_time()
    t0 = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(min(concurrency, n))))
    seconds = time.perf_counter() - t0
    cpu1 = child.cpu_seconds()
    server_cpu = cpu1 - cpu0 if cpu0 is not None and cpu1 is not None else None
    return Figures(n, events, seconds, server_cpu, time.process_time() - client0)


# ---------------------------------------------------------------------- main


def _verdict(ratio: float) -> str:
    return "PASS" if ratio >= TARGET else "MISS"


def _cpu_ms(figs: list[Figures]) -> str:
    values = [f.server_cpu / f.requests * 1000 for f in figs if f.server_cpu is not None]
    return f"{c.median(values):.2f}" if values else "?"


def _client_ms(figs: list[Figures]) -> str:
    return f"{c.median([f.client_cpu / f.requests * 1000 for f in figs]):.2f}"


def _spread(figs: list[Figures]) -> str:
    return f"±{c.spread([f.rps for f in figs]) * 50:.0f}%"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="bench/run mock", description=__doc__.split("\n\n")[0])
    ap.add_argument("--sends", type=int, default=2000, help="blocking sends per server (default 2000)")
    ap.add_argument("--streams", type=int, default=500, help="streams per server (default 500)")
    ap.add_argument(
        "--trickle",
        type=int,
        default=200,
        help="streams with delays between chunks, per server (default 200; 0 skips the phase)",
    )
    ap.add_argument(
        "--trickle-ms", type=float, default=2.0, help="milliseconds before each chunk of a trickle stream (default 2)"
    )
    ap.add_argument("--chunks", type=int, default=20, help="artifact chunks per stream (default 20)")
    ap.add_argument(
        "--send-chunks",
        type=int,
        default=3,
        help="artifact chunks per blocking send (default 3, like the SDK peer's echo)",
    )
    ap.add_argument("--concurrency", type=int, default=16, help="requests in flight (default 16)")
    ap.add_argument("--runs", type=int, default=3, help="runs per server; medians are reported (default 3)")
    ap.add_argument(
        "--framing",
        choices=("both", "per-event", "buffered"),
        default="both",
        help="which mock writes to measure: per-event (its default, like the SDK), buffered, or both (default)",
    )
    ap.add_argument("--quick", action="store_true", help="300 sends, 100 streams, 50 trickle streams, one run")
    ap.add_argument("--serve", choices=KINDS, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    trickle = args.trickle_ms / 1000
    if args.serve:
        serve(args.serve, args.send_chunks, args.chunks, trickle)
        return 0
    if args.quick:
        args.sends, args.streams, args.runs = min(args.sends, 300), min(args.streams, 100), 1
        args.trickle = min(args.trickle, 50)
    if (
        min(args.sends, args.streams, args.chunks, args.send_chunks, args.concurrency, args.runs) < 1
        or args.trickle < 0
        or args.trickle_ms < 0
    ):
        ap.error("every count must be >= 1 (--trickle and --trickle-ms >= 0)")

    try:
        import a2a
        import uvicorn
    except ImportError as exc:
        print(
            f"bench/run mock: needs a2a-sdk and uvicorn, the project's test extras "
            f"(.venv/bin/pip install -e '.[test]'): {exc}",
            file=sys.stderr,
        )
        return 1

    mocks = {"both": ["mock", "mock-buffered"], "per-event": ["mock"], "buffered": ["mock-buffered"]}[args.framing]
    kinds = [*mocks, "sdk"]
    phases = [("sends", args.sends, args.send_chunks), ("streams", args.streams, args.chunks)]
    if args.trickle:
        phases.append(("trickle", args.trickle, args.chunks))
    print(
        f"mock: a2a-mock vs a2a-sdk {getattr(a2a, '__version__', '1.3')} agent, 1.0 JSON-RPC over HTTP/1.1 "
        f"on loopback; {args.sends:,} sends of {args.send_chunks} chunks, {args.streams:,} streams of "
        f"{args.chunks} chunks and {args.trickle:,} trickle streams of {args.chunks} chunks "
        f"{args.trickle_ms:g} ms apart, {args.concurrency} in flight, medians of {args.runs} run(s) "
        f"(Python {sys.version.split()[0]}, uvicorn {uvicorn.__version__}, {os.cpu_count()} CPUs; "
        f"load {' '.join(f'{x:.2f}' for x in os.getloadavg())})"
    )
    print(
        "  mock writes each SSE event as its own write, as a2a-sdk (sse-starlette) does: the like-for-like "
        "pair; mock-buffered writes what is ready at once"
    )
    print()
    started = time.perf_counter()
    children: dict[str, Child] = {}
    runs: dict[tuple[str, str], list[Figures]] = {}
    try:
        for kind in kinds:
            children[kind] = Child(kind, args.send_chunks, args.chunks, args.trickle_ms)
        loop = asyncio.new_event_loop()
        try:
            # Warm-up: imports, first-request paths, the handler's caches.
            for child in children.values():
                loop.run_until_complete(run_phase(child, "sends", 50, 4, args.send_chunks, "warm"))
                loop.run_until_complete(run_phase(child, "streams", 20, 4, args.chunks, "warm"))
            for r in range(args.runs):
                for phase, n, count in phases:
                    # Rotate which server goes first, so a burst of load elsewhere does
                    # not always fall on the same one.
                    order = kinds[r % len(kinds) :] + kinds[: r % len(kinds)]
                    for kind in order:
                        fig = loop.run_until_complete(
                            run_phase(children[kind], phase, n, args.concurrency, count, f"r{r}")
                        )
                        print(
                            f"  run {r + 1} {phase:7} {kind:13}: {c.fmt_rate(fig.rps)} requests, "
                            f"{c.fmt_rate(fig.eps)} events ({fig.seconds:.2f} s, server CPU "
                            f"{fig.cpu_ms()} ms/request)",
                            flush=True,
                        )
                        runs.setdefault((phase, kind), []).append(fig)
        finally:
            loop.close()
        peaks = {kind: child.peak_rss_mb() for kind, child in children.items()}
    except CheckFailed as exc:
        print(f"\nFAIL: {exc}", file=sys.stderr)
        return 1
    finally:
        for child in children.values():
            child.close()
    print()
    rows = []
    for phase, _n, _count in phases:
        sdk = runs[(phase, "sdk")]
        s_rps, s_eps = c.median([f.rps for f in sdk]), c.median([f.eps for f in sdk])
        for kind in mocks:
            mock = runs[(phase, kind)]
            m_rps, m_eps = c.median([f.rps for f in mock]), c.median([f.eps for f in mock])
            rps_ratio, eps_ratio = m_rps / s_rps, m_eps / s_eps
            # Trickle streams are paced by their delays: rates say little, CPU does.
            judged = phase != "trickle"
            rows.append(
                [
                    f"{phase} {kind}",
                    c.fmt_rate(m_rps),
                    c.fmt_rate(s_rps),
                    f"{rps_ratio:.1f}x",
                    _verdict(rps_ratio) if judged else "-",
                    c.fmt_rate(m_eps),
                    c.fmt_rate(s_eps),
                    f"{eps_ratio:.1f}x",
                    _verdict(eps_ratio) if judged else "-",
                    f"{_cpu_ms(mock)} / {_cpu_ms(sdk)}",
                    f"{_client_ms(mock)} / {_client_ms(sdk)}",
                    f"{_spread(mock)} / {_spread(sdk)}",
                ]
            )
    c.table(
        [
            "",
            "mock req/s",
            "sdk req/s",
            "ratio",
            "verdict",
            "mock events/s",
            "sdk events/s",
            "ratio",
            "verdict",
            "server CPU ms/req",
            "client CPU ms/req",
            "spread",
        ],
        rows,
        title=f"mock summary (medians of {args.runs}; target: a2a-mock >= {TARGET:g}x the SDK "
        "on requests/s and on events/s, sends and streams; pairs are mock / sdk)",
    )
    print(
        "peak RSS: "
        + ", ".join(f"{kind} {mb:.0f} MiB" if mb is not None else f"{kind} ?" for kind, mb in peaks.items())
    )
    print(f"done in {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
