"""gRPC stream: events/s of a2a-inspect's client streaming N events, against a plain
grpcio client loop over the same server, in the same run.

The server (bench/_grpc_stream_agent.py) runs in its own process and sends the same
pre-serialised StreamResponse messages to every call. Both clients run in this process:

  ours      A2AClient(grpc://..., dialect 1.0).stream(): the real gRPC transport, each
            message parsed, turned into ProtoJSON, logged (Kind.MESSAGE), decoded by the
            REST codec, folded by a TaskTracker subscribed to the session.
  baseline  grpc.aio's unary_stream over the same channel options, each message parsed
            into the StreamResponse class (the least a client must do), nothing else.

Figures are this process's CPU time (the server's is not counted), medians of --runs,
the two alternating run by run. Target: ratio (ours / baseline events per second) >= 0.7.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))


async def ours(target: str, events: int, consume: str = "drain") -> float:
    from inspector.client import A2AClient
    from inspector.protocol import models as m
    from inspector.session import Session, TaskTracker

    session = Session(keep=0, store=None)
    TaskTracker(session)
    params = m.SendParams(message=m.Message(role=m.Role.USER, parts=[m.TextPart(text="go")], message_id="m1"))
    async with A2AClient(target, session=session, dialect="1.0") as client:
        await client.resolve_dialect()
        t0 = time.process_time()
        if consume == "drain":
            last = await client.stream(params).drain()
            spent = time.process_time() - t0
            got = sum(1 for e in session.events if e.kind.value == "message") if session.keep else events
            assert last is not None and last.status.state is m.TaskState.COMPLETED, f"ours ended on {last!r}"
        else:
            got = 0
            async for _ in client.stream(params):
                got += 1
            spent = time.process_time() - t0
    assert got == events, f"ours got {got} of {events} events"
    return spent


async def baseline(target: str, events: int) -> float:
    import grpc

    from inspector.protocol import grpc_schema

    request = grpc_schema.from_json(
        "1.0", "SendMessageRequest", {"message": {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "go"}]}}
    ).SerializeToString()
    parse = grpc_schema.message_class("1.0", "StreamResponse").FromString
    async with grpc.aio.insecure_channel(
        target.removeprefix("grpc://"), options=[("grpc.max_receive_message_length", 64 << 20)]
    ) as channel:
        call = channel.unary_stream("/lf.a2a.v1.A2AService/SendStreamingMessage")
        t0 = time.process_time()
        got = 0
        async for raw in call(request, metadata=[("a2a-version", "1.0")]):
            parse(raw)
            got += 1
        spent = time.process_time() - t0
    assert got == events, f"baseline got {got} of {events} events"
    return spent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="2,000 events, 3 runs")
    parser.add_argument(
        "--consume",
        choices=("drain", "iterate"),
        default="drain",
        help="ours reads the stream for its session as the TUI does (drain, the default), "
        "or takes every event as the CLI does (iterate)",
    )
    args = parser.parse_args()
    if args.quick:
        args.events, args.runs = 2_000, 3
    from inspector import gcpolicy

    gcpolicy.install()
    server = subprocess.Popen(
        [sys.executable, str(HERE / "_grpc_stream_agent.py"), str(args.events)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        target = f"grpc://127.0.0.1:{int(server.stdout.readline())}"
        times: dict[str, list[float]] = {"ours": [], "baseline": []}
        asyncio.run(ours(target, args.events, args.consume))  # warm-up: imports, the schema, the channel
        for _ in range(args.runs):
            times["ours"].append(asyncio.run(ours(target, args.events, args.consume)))
            times["baseline"].append(asyncio.run(baseline(target, args.events)))
    finally:
        if server.stdin is not None:
            server.stdin.close()
        server.wait(timeout=10)
    rates = {name: args.events / statistics.median(values) for name, values in times.items()}
    print(
        f"grpc_stream: {args.events} events, median of {args.runs} runs, CPU time of this process; "
        f"ours {'drains the stream (the TUI)' if args.consume == 'drain' else 'iterates (the CLI)'}"
    )
    for name, values in times.items():
        med = statistics.median(values)
        spread = (max(values) - min(values)) / med if med else 0.0
        print(
            f"  {name:<9} {rates[name]:10,.0f} events/s   {med / args.events * 1e6:7.1f} µs/event   "
            f"spread {spread:4.0%}"
        )
    ratio = rates["ours"] / rates["baseline"]
    print(f"ratio ours/baseline: {ratio:.2f}  {'PASS' if ratio >= 0.7 else 'MISS'} (target >= 0.7)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
