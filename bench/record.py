"""Recording cost per event, with and without secret values to redact.

The recorder writes one JSON line per event and, when the user gave credentials,
looks for each secret value in the line (redaction by value). This measures the CPU
time per event of ``Recorder.record`` over a long stream of artifact-update SSE events
(about 300 bytes each, none holding a secret), for: no secret values, 3 values (a
bearer token, a cookie, a query token), and 20 values; and the cost when every event
holds one (the rare path: replace, re-parse). Target: 3 values cost at most 10% more
per event than none. Figures are CPU-time medians of --runs, the variants alternating
run by run.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from inspector.session import Kind, Recorder, Session
from inspector.session.redact import Redaction

SECRETS = ("BEARER-token-0123456789abcdef", "session-cookie-0123456789", "query-token-0123456789")


def build(events: int, leak: bool) -> Session:
    session = Session()
    for i in range(events):
        text = f'chunk {i}: some generated text, with "quotes" and caf\u00e9 {"x" * 40}'
        if leak:
            text += f" {SECRETS[0]}"
        data = json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "result": {
                    "kind": "artifact-update",
                    "taskId": "t-1",
                    "contextId": "c-1",
                    "append": True,
                    "artifact": {"artifactId": "a-1", "parts": [{"kind": "text", "text": text}]},
                },
            }
        )
        session.append(
            Kind.SSE, {"raw": f"data: {data}", "event": None, "data": data, "id": None, "retry": None}, exchange=1
        )
    return session


def run(session: Session, redaction: Redaction, directory: str) -> float:
    path = os.path.join(directory, f"r-{time.monotonic_ns()}.jsonl")
    rec = Recorder(path, redact=redaction)
    events = session.events
    start = time.process_time()
    for event in events:
        rec.record(event)
    took = time.process_time() - start
    rec.close()
    os.unlink(path)
    return took / len(events) * 1e6


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=50_000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--quick", action="store_true", help="5,000 events, 3 runs")
    args = parser.parse_args()
    if args.quick:
        args.events, args.runs = 5_000, 3
    clean, leaky = build(args.events, False), build(args.events, True)
    many = SECRETS + tuple(f"another-secret-value-{i:04d}" for i in range(17))
    variants = {
        "no secret values": (clean, Redaction()),
        "3 secret values": (clean, Redaction(values=SECRETS)),
        "20 secret values": (clean, Redaction(values=many)),
        "3 values, each event holds one": (leaky, Redaction(values=SECRETS)),
    }
    times: dict[str, list[float]] = {name: [] for name in variants}
    with tempfile.TemporaryDirectory() as directory:
        for _ in range(args.runs):
            for name, (session, redaction) in variants.items():
                times[name].append(run(session, redaction, directory))
    base = statistics.median(times["no secret values"])
    print(f"recorder: µs per event ({args.events} events, median of {args.runs} runs, CPU time)")
    for name, values in times.items():
        med = statistics.median(values)
        spread = (max(values) - min(values)) / med if med else 0.0
        print(f"  {name:<34} {med:7.2f} µs   x{med / base:4.2f}   spread {spread:4.0%}")
    ratio = statistics.median(times["3 secret values"]) / base
    print(f"3 values vs none: x{ratio:.3f}  {'PASS' if ratio <= 1.10 else 'MISS'} (target <= 1.10)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
