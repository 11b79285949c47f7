"""Seeking back in a replayed recording: how long a rebuild of the session takes.

A seek backwards builds a new connection from the recording's first N events (the
session, the tracker, the facts the views read). This benchmark records a real stream
from the mock agent, repeats one of its appended chunks until the recording holds
``--chunks`` events, and times ``ReplayController`` seeks: to the end and back to the
middle, as a user holding a key would. The baseline, measured in the same run, is the
least such a rebuild can cost: a bare ``TaskTracker`` folding the same events.

Target: two rebuilds of a 10k-event recording <= 1.5 s, and <= 3x the baseline.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from _big_recording import record_stream  # noqa: E402
from common import fmt_ms, median, spread, table  # noqa: E402
from inspector.session import TaskTracker, load_recording  # noqa: E402
from inspector.ui.replay import ReplayController  # noqa: E402


def inflate(source: Path, target: Path, chunks: int) -> None:
    """``source`` with its first appended chunk repeated ``chunks`` times, renumbered."""
    lines = source.read_text().splitlines()
    header, events = lines[0], [json.loads(line) for line in lines[1:]]
    first = next(
        i for i, e in enumerate(events) if e["kind"] == "sse" and '"append":true' in e.get("data", "").replace(" ", "")
    )
    out = [*events[: first + 1], *(dict(events[first]) for _ in range(chunks)), *events[first + 1 :]]
    t = 0.0
    for seq, event in enumerate(out, 1):
        t = max(t, event["t"]) + 1e-5
        event["seq"], event["t"] = seq, round(t, 6)
    target.write_text("\n".join([header, *(json.dumps(e) for e in out)]) + "\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="1,000 chunks, 2 runs")
    args = parser.parse_args()
    if args.quick:
        args.chunks, args.runs = 1_000, 2
    with tempfile.TemporaryDirectory(prefix="a2a-bench-replay-") as tmp:
        small, big = Path(tmp) / "r.jsonl", Path(tmp) / "big.jsonl"
        asyncio.run(record_stream(small))
        inflate(small, big, args.chunks)
        recording = load_recording(big)
    events = recording.session.events
    seeks, folds = [], []
    for _ in range(args.runs):
        c = ReplayController(recording, name="big")
        c.on_swap = lambda old, new: None
        t0 = time.perf_counter()
        c.seek(c.total - 1)
        c.settled()
        c.seek(c.total // 2)
        c.tick(time.monotonic() + 1)  # a deferred rebuild happens at the next frame
        seeks.append(time.perf_counter() - t0)
        if c.rebuilds != 2 or len(c.conn.session) != c.total // 2:
            print(f"replay: wrong result: {c.rebuilds} rebuilds, {len(c.conn.session)} events", file=sys.stderr)
            return 1
        t0 = time.perf_counter()
        for part in (events[: c.total - 1], events[: c.total // 2]):
            tracker = TaskTracker()
            for event in part:
                tracker.apply(event)
        folds.append(time.perf_counter() - t0)
    ours, base = median(seeks), median(folds)
    ok = ours <= 1.5 and ours <= 3 * base
    table(
        ["two rebuilds", "median", "spread"],
        [
            ["ReplayController seeks", fmt_ms(ours), f"{spread(seeks):.0%}"],
            ["baseline: TaskTracker fold", fmt_ms(base), f"{spread(folds):.0%}"],
        ],
        title=f"seek back in a recording of {len(events):,} events ({args.runs} runs)",
    )
    print(f"ratio {ours / base:.2f}x the baseline; target <= 1.5 s and <= 3x: {'PASS' if ok else 'MISS'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
