"""Memory: peak RSS of the CLI, the TUI and replay, as a user would measure it, with the
slope per event.

Every figure is the peak resident set of a fresh process (``ru_maxrss`` of a child):

* CLI: ``a2a-inspect send --stream -o ndjson`` against bench/_stream_agent.py (a bare
  1.0 agent that makes its stream on the fly), two workloads: one artifact in N chunks of
  about 45 characters, and N status updates each with a short agent message ("token
  streaming"). Baseline, in the same run: the plainest Python client of the same stream
  (httpx-sse + json.loads, keeping nothing).
* TUI: the real app, headless (``App.run_test``), connected to the same agent, sending
  one streaming message and waiting until the task is completed on screen. Baseline:
  the app connected and idle.
* replay: ``a2a-inspect replay`` of a generated recording (bench/_big_recording.py):
  time to the first frame from the process's start, time until the index has read the
  file, and the peak after seeking to the end (the whole recording folded).
* export: ``a2a-inspect export --scenario`` and ``--har`` of generated recordings of two
  sizes: the slope says whether the export holds the recording (or its output) whole.

Slope: bytes per event between consecutive sizes (what one more event costs). KiB/event:
(peak - baseline) / events.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from itertools import pairwise
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
from common import table  # noqa: E402

PY = sys.executable
BIG = ["--max-stream-events", "100000000", "--max-body", "100G"]

#: Targets (issue 11): (what, events) -> MiB (RSS in KiB / 1024, as the issue measured).
TARGETS = {
    ("cli chunks", 100_000): 120,
    ("cli status", 300_000): 120,
    ("tui chunks", 100_000): 200,
    ("tui status", 100_000): 250,
}
REPLAY_FIRST_FRAME = 2.0
REPLAY_PEAK_MB = 500
#: Bytes an export may grow by per event of the recording: it streams (it was ~10 KB for
#: --scenario and ~1.1 KB for --har while they held the document whole).
EXPORT_SLOPE = 500


# ---------------------------------------------------------------------- children


def _peak_of(cmd: list[str], timeout: float) -> tuple[int, float, float, str]:
    """(exit code, peak RSS in MiB, seconds, stdout+stderr tail) of ``cmd`` run in a fresh
    helper process, so that ru_maxrss is this command's alone."""
    code = (
        "import resource, subprocess, sys, time\n"
        "t = time.monotonic()\n"
        f"p = subprocess.run({cmd!r}, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout={timeout!r})\n"
        "print(json.dumps([p.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,"
        " time.monotonic() - t, p.stdout.decode(errors='replace')[-2000:]]))\n"
    )
    try:
        done = subprocess.run(
            [PY, "-c", "import json\n" + code], capture_output=True, text=True, cwd=ROOT, timeout=timeout + 30
        )
    except subprocess.TimeoutExpired:
        return -1, float("nan"), timeout, "timed out"
    if done.returncode != 0:
        return -1, float("nan"), 0.0, done.stderr[-500:]
    rc, mb, seconds, tail = json.loads(done.stdout.strip().splitlines()[-1])
    return rc, mb, seconds, tail


class Agent:
    def __init__(self, workload: str, n: int) -> None:
        self.proc = subprocess.Popen(
            [PY, str(HERE / "_stream_agent.py"), workload, str(n)], stdout=subprocess.PIPE, text=True
        )
        assert self.proc.stdout is not None
        self.url = f"http://127.0.0.1:{int(self.proc.stdout.readline())}/"

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()


BASELINE_CLIENT = """
import asyncio, json, sys
import httpx, httpx_sse
async def main(url):
    body = {"jsonrpc": "2.0", "id": 1, "method": "SendStreamingMessage",
            "params": {"message": {"role": "ROLE_USER", "messageId": "m", "parts": [{"text": "go"}]}}}
    n = 0
    async with httpx.AsyncClient(timeout=None) as client:
        async with httpx_sse.aconnect_sse(client, "POST", url, json=body) as source:
            async for sse in source.aiter_sse():
                json.loads(sse.data)
                n += 1
    print(n)
asyncio.run(main(sys.argv[1]))
"""


def child_tui(url: str, timeout: float) -> None:
    """In a fresh process: the app streams one reply to the end; prints JSON figures."""
    sys.path.insert(0, str(ROOT))
    from inspector import gcpolicy
    from inspector.protocol import models as m
    from inspector.ui.app import InspectorApp

    gcpolicy.install()

    async def run() -> dict[str, Any]:
        from inspector.client.limits import Limits
        from inspector.ui.connection import AgentConnection

        app = InspectorApp()
        async with app.run_test(size=(120, 36)) as pilot:
            # As connect_to does, with limits that let a stream of a million events through.
            conn = AgentConnection(url, dialect="1.0", limits=Limits(max_body=1 << 40, max_stream_events=10**9))
            app.open_connection(conn)
            app.connect(conn)
            deadline = time.monotonic() + 30
            while app.active is None or app.active.state != "ready":
                if time.monotonic() > deadline:
                    raise SystemExit("the app did not connect")
                await asyncio.sleep(0.05)
            await pilot.pause(0.3)
            idle = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            conn = app.active
            t0 = time.monotonic()
            message = m.Message(role=m.Role.USER, parts=[m.TextPart(text="go")], message_id="bench-1")
            app.send_message(conn, m.SendParams(message=message), stream=True)
            deadline = t0 + timeout
            done = False
            while time.monotonic() < deadline:
                await asyncio.sleep(0.1)
                if not app.waiting and conn.tracker.tasks:
                    task = next(iter(conn.tracker.tasks.values()))
                    if task.state is not None and task.state.value == "completed":
                        done = True
                        break
            seconds = time.monotonic() - t0
            await pilot.pause(0.3)
            return {"idle": idle, "done": done, "seconds": seconds, "events": len(conn.session)}

    figures = asyncio.run(run())
    figures["peak"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(figures))


def child_replay(path: str, start: float) -> None:
    """In a fresh process: open the recording, time the first frame, wait for the index,
    seek to the end and wait for it; prints JSON figures."""
    sys.path.insert(0, str(ROOT))
    from inspector import gcpolicy
    from inspector.ui.replay_app import open_replay

    gcpolicy.install()
    figures: dict[str, Any] = {}

    async def run() -> None:
        app = open_replay(Path(path))
        display = app._display

        def _display(screen: Any, renderable: Any) -> None:
            display(screen, renderable)
            if "first_frame" not in figures and app.main is not None and screen is app.main:
                figures["first_frame"] = time.time() - start

        app._display = _display  # type: ignore[method-assign]
        async with app.run_test(size=(120, 36)) as pilot:
            c = app.replay_controller
            while "first_frame" not in figures:
                await asyncio.sleep(0.01)
            figures["events_at_first_frame"] = c.total
            figures["rss_first_frame"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            # The timeline is usable meanwhile: step forward a few events.
            for _ in range(3):
                await pilot.press("right")
            while c.loading:
                await asyncio.sleep(0.1)
            figures["indexed"] = time.time() - start
            figures["events"] = c.total
            figures["rss_indexed"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            t0 = time.monotonic()
            c.seek(c.total)
            while c.seeking or c.cursor != c.total or c.settling:
                await asyncio.sleep(0.1)
            await pilot.pause(0.5)
            figures["seek_end"] = time.monotonic() - t0

    asyncio.run(run())
    figures["peak"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(figures))


# ---------------------------------------------------------------------- parent


def _mb(value: float) -> str:
    return "-" if value != value else f"{value:,.0f} MiB"


def _slopes(points: list[tuple[int, float]]) -> list[str]:
    out = ["-"]
    for (n0, p0), (n1, p1) in pairwise(points):
        out.append(f"{(p1 - p0) * 2**20 / (n1 - n0):,.0f} B" if p1 == p1 and p0 == p0 else "-")
    return out


def _verdict(what: str, n: int, peak: float) -> str:
    target = TARGETS.get((what, n))
    if target is None:
        return ""
    return f"<= {target} MiB {'PASS' if peak <= target else 'MISS'}"


def run_cli(sizes: dict[str, list[int]], timeout: float) -> list[list[Any]]:
    rows: list[list[Any]] = []
    for workload, ns in sizes.items():
        points: list[tuple[int, float]] = []
        base_points: list[float] = []
        for n in ns:
            agent = Agent(workload, n)
            try:
                rc, peak, _secs, tail = _peak_of(
                    [
                        PY,
                        "-m",
                        "inspector.cli",
                        "send",
                        "--stream",
                        "-o",
                        "ndjson",
                        "--dialect",
                        "1.0",
                        *BIG,
                        agent.url,
                        "go",
                    ],
                    timeout,
                )
                brc, base, _bs, btail = _peak_of([PY, "-c", BASELINE_CLIENT, agent.url], timeout)
            finally:
                agent.close()
            if rc != 0:
                print(f"memory: cli {workload} {n}: exit {rc}: {tail}", file=sys.stderr)
            if brc != 0:
                print(f"memory: baseline {workload} {n}: exit {brc}: {btail}", file=sys.stderr)
            points.append((n, peak))
            base_points.append(base)
        for (n, peak), base, slope in zip(points, base_points, _slopes(points), strict=True):
            per = (peak - base) * 1024 / n if peak == peak and base == base else float("nan")
            rows.append(
                [
                    f"cli {workload}",
                    f"{n:,}",
                    _mb(peak),
                    _mb(base),
                    f"{per:.2f}",
                    slope,
                    _verdict(f"cli {workload}", n, peak),
                ]
            )
    return rows


def run_tui(sizes: dict[str, list[int]], timeout: float) -> list[list[Any]]:
    rows: list[list[Any]] = []
    for workload, ns in sizes.items():
        points: list[tuple[int, float]] = []
        results = []
        for n in ns:
            agent = Agent(workload, n)
            try:
                done = subprocess.run(
                    [PY, __file__, "--child-tui", agent.url, str(timeout)],
                    capture_output=True,
                    text=True,
                    cwd=ROOT,
                    timeout=timeout + 60,
                )
            except subprocess.TimeoutExpired:
                done = None
            finally:
                agent.close()
            figures = json.loads(done.stdout.strip().splitlines()[-1]) if done and done.returncode == 0 else {}
            if not figures:
                print(f"memory: tui {workload} {n}: {done.stderr[-500:] if done else 'timed out'}", file=sys.stderr)
            peak = figures.get("peak", float("nan"))
            points.append((n, peak))
            results.append(figures)
        for (n, peak), figures, slope in zip(points, results, _slopes(points), strict=True):
            idle = figures.get("idle", float("nan"))
            per = (peak - idle) * 1024 / n if figures else float("nan")
            note = "" if figures.get("done") else " (did not finish)"
            rate = f", {n / figures['seconds']:,.0f} ev/s" if figures.get("seconds") else ""
            rows.append(
                [
                    f"tui {workload}",
                    f"{n:,}",
                    _mb(peak) + note,
                    _mb(idle) + " idle",
                    f"{per:.2f}",
                    slope + rate,
                    _verdict(f"tui {workload}", n, peak),
                ]
            )
    return rows


def run_replay(events: int, timeout: float) -> list[list[Any]]:
    sys.path.insert(0, str(HERE))
    from _big_recording import make

    with tempfile.TemporaryDirectory(prefix="a2a-bench-memory-") as tmp:
        path = Path(tmp) / "big.jsonl"
        size = make(path, events)
        start = time.time()
        try:
            done = subprocess.run(
                [PY, __file__, "--child-replay", str(path), repr(start)],
                capture_output=True,
                text=True,
                cwd=ROOT,
                timeout=timeout,
            )
        except subprocess.TimeoutExpired:
            print("memory: replay timed out", file=sys.stderr)
            return []
    if done.returncode != 0:
        print(f"memory: replay failed: {done.stderr[-800:]}", file=sys.stderr)
        return []
    f = json.loads(done.stdout.strip().splitlines()[-1])
    n = f["events"]
    ok_frame = f["first_frame"] <= REPLAY_FIRST_FRAME
    ok_peak = f["peak"] <= REPLAY_PEAK_MB
    return [
        [
            f"replay {size / 2**20:,.0f} MiB",
            f"{n:,}",
            f"first frame {f['first_frame']:.2f} s",
            f"{f['events_at_first_frame']:,} ev indexed",
            "",
            "",
            f"<= {REPLAY_FIRST_FRAME:g} s {'PASS' if ok_frame else 'MISS'}",
        ],
        [
            "",
            "",
            f"indexed in {f['indexed']:.1f} s",
            _mb(f["rss_indexed"]),
            f"{f['rss_indexed'] * 1024 / n:.2f}",
            "",
            "",
        ],
        [
            "",
            "",
            f"seek to end {f['seek_end']:.1f} s",
            _mb(f["peak"]) + " peak",
            f"{f['peak'] * 1024 / n:.2f}",
            "",
            f"<= {REPLAY_PEAK_MB} MiB {'PASS' if ok_peak else 'MISS'}",
        ],
    ]


def run_export(sizes: list[int], timeout: float) -> list[list[Any]]:
    sys.path.insert(0, str(HERE))
    from _big_recording import make

    rows: list[list[Any]] = []
    with tempfile.TemporaryDirectory(prefix="a2a-bench-export-") as tmp:
        paths = []
        for n in sizes:
            path = Path(tmp) / f"r{n}.jsonl"
            make(path, n)
            paths.append((n, path))
        for fmt in ("scenario", "har"):
            points: list[tuple[int, float]] = []
            seconds: list[float] = []
            for n, path in paths:
                out = Path(tmp) / f"out-{n}.{fmt}"
                rc, peak, secs, tail = _peak_of(
                    [PY, "-m", "inspector.cli", "export", str(path), f"--{fmt}", str(out), "--force"], timeout
                )
                if rc != 0:
                    print(f"memory: export --{fmt} {n}: exit {rc}: {tail}", file=sys.stderr)
                points.append((n, peak))
                seconds.append(secs)
            for i, ((n, peak), secs, slope) in enumerate(zip(points, seconds, _slopes(points), strict=True)):
                verdict = ""
                if i:
                    per = (peak - points[i - 1][1]) * 2**20 / (n - points[i - 1][0])
                    verdict = f"slope <= {EXPORT_SLOPE} B {'PASS' if per <= EXPORT_SLOPE else 'MISS'}"
                rows.append(
                    [f"export --{fmt}", f"{n:,}", _mb(peak), f"{secs:.0f} s", f"{peak * 1024 / n:.2f}", slope, verdict]
                )
    return rows


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--child-tui":
        child_tui(sys.argv[2], float(sys.argv[3]))
        return 0
    if len(sys.argv) > 1 and sys.argv[1] == "--child-replay":
        child_replay(sys.argv[2], float(sys.argv[3]))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10k events, a small recording (~30 s)")
    parser.add_argument(
        "--full",
        action="store_true",
        help="10k / 100k / 1M events and a 1 GB recording (1.5M events): about 15 minutes",
    )
    parser.add_argument("--only", default="cli,tui,replay,export", help="comma-separated: cli, tui, replay, export")
    parser.add_argument("--runs", type=int, default=1, help="accepted for bench/run; each size runs once")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per process")
    args = parser.parse_args()
    only = set(args.only.split(","))
    if args.quick:
        cli = {"chunks": [10_000], "status": [10_000]}
        tui = {"chunks": [10_000], "status": [2_000]}
        replay_events = 50_000
        export = [20_000, 60_000]
    elif args.full:
        cli = {"chunks": [10_000, 100_000, 1_000_000], "status": [10_000, 100_000, 300_000, 1_000_000]}
        tui = {"chunks": [10_000, 100_000, 1_000_000], "status": [10_000, 100_000, 1_000_000]}
        replay_events = 1_500_000
        export = [50_000, 150_000]
    else:
        cli = {"chunks": [10_000, 100_000], "status": [10_000, 100_000, 300_000]}
        tui = {"chunks": [10_000, 100_000], "status": [10_000, 100_000]}
        replay_events = 150_000
        export = [20_000, 60_000]
    load = os.getloadavg()
    print(f"memory: peak RSS of fresh processes; load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    rows: list[list[Any]] = []
    if "cli" in only:
        rows += run_cli(cli, args.timeout)
    if "tui" in only:
        rows += run_tui(tui, args.timeout)
    if "replay" in only:
        rows += run_replay(replay_events, args.timeout * 2)
    if "export" in only:
        rows += run_export(export, args.timeout)
    table(
        ["what", "events", "peak RSS", "baseline", "KiB/event", "slope/event", "target"],
        rows,
        title="peak RSS (baseline: cli = httpx-sse + json.loads on the same stream; tui = the app idle; "
        "export: its time)",
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
