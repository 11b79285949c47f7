"""hub_stream: a long stream from a ws-agent through the hub to a client on the hub's
HTTP bridge: the hub's peak RSS and the time it took.

Three processes on loopback: ``a2a-inspect hub --headless --port 0`` (as a user runs
it: a line printed per frame, drained by this process), the ws-agent
bench/_hub_agent.py (one artifact in N chunks of about 45 characters, as fast as the
hub reads them) and the client, this process: httpx POSTs tasks/sendSubscribe to
``/agents/NAME`` and reads the SSE stream to the final ``completed``, counting the
artifact events (each must arrive). The hub's peak resident set is then read from
/proc (VmHWM). Each size runs in a fresh hub.

Baseline, in the same run: the same hub with the agent registered and idle (VmHWM
before the call). ``per event`` is (peak - idle) / N; ``slope`` what one more event
costs between two sizes.

The hub's flood guard (a burst of 2,000 frames, then 500 a second, in main before issue
26's item 2) would close the agent's socket long before a million frames, and the
servers' 30 s request deadline (inspector/serving) wrote a 408 into an upgraded socket
(item 1): while the measured code's flood guard would stop the stream, the hub runs as
``python -c`` with the guard and the deadline raised and the console script's own
``main`` (the output says so), as bench/tui_stream.py does for the client's limits. Since
item 2 the guard counts only frames an agent sends unasked, and since item 1 no deadline
applies to a socket: the console script runs as it is.

Target (issue 26): 1,000,000 chunks through the hub peak at <= 250 MiB.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(HERE)]
from common import child_cpu_seconds, median, memory_rows, stop_child, table  # noqa: E402

TARGET_EVENTS = 1_000_000
TARGET_MIB = 250
NAME = "streamer"

#: The hub's flood guard raised (an older tree: see the docstring), then the CLI's main.
RAISED = """
import dataclasses, sys
from inspector.serving import runner
runner.REQUEST_TIMEOUT = 1e9
from inspector.hub import limits
raised = {"burst": 10**9, "rate": 1e9}
limits.HubLimits.__init__.__defaults__ = tuple(
    raised.get(f.name, f.default) for f in dataclasses.fields(limits.HubLimits)
    if f.default is not dataclasses.MISSING)
from inspector.cli import main
sys.argv[0] = "a2a-inspect"
sys.exit(main())
"""


class Failure(Exception):
    """Something functionally wrong: exit 1."""


def proc_status(pid: int) -> dict[str, int]:
    """VmHWM and VmRSS of a process, in KiB."""
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmHWM", "VmRSS"):
            out[name] = int(value.split()[0])
    return out


def guard_stops(env: dict[str, str], home: Path, n: int) -> bool:
    """Whether the measured code's default flood guard would close a socket sending n
    frames as fast as it can."""
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            "from inspector.hub import HubLimits; l = HubLimits(); "
            "print(getattr(l, 'burst', 0), getattr(l, 'rate', 0), hasattr(l, 'max_task_frames'))",
        ],
        env=env,
        cwd=home,
        capture_output=True,
        text=True,
        check=True,
    )
    burst, rate, per_task = out.stdout.split()
    if per_task == "True":  # the guard counts only frames sent unasked (issue 26, item 2)
        return False
    return 0 < float(burst) < n + 10 and float(rate) < 1e8


class HubProcess:
    def __init__(self, env: dict[str, str], home: Path, raised: bool) -> None:
        if raised:
            argv = [sys.executable, "-c", RAISED]
        else:
            argv = [str(Path(sys.executable).with_name("a2a-inspect"))]
        argv += ["hub", "--headless", "--port", "0"]
        self.proc = subprocess.Popen(
            argv, env=env, cwd=home, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL
        )
        assert self.proc.stdout is not None
        first = self.proc.stdout.readline().decode("utf-8", "replace")
        if "agents connect to ws://" not in first:
            self.close()
            raise Failure(f"the hub did not start: {first!r} {self.proc.stderr.read()!r}")  # type: ignore[union-attr]
        self.ws_url = first.rsplit(" ", 1)[1].strip()
        self.base = self.ws_url.replace("ws://", "http://").rsplit("/", 1)[0]
        self.lines = 0
        self._drain = threading.Thread(target=self._read, daemon=True)
        self._drain.start()

    def _read(self) -> None:
        # The hub prints a line per frame: read as a terminal would, counted, not kept.
        assert self.proc.stdout is not None
        for _ in self.proc.stdout:
            self.lines += 1

    def close(self) -> str:
        stop_child(self.proc)
        err = self.proc.stderr.read().decode("utf-8", "replace") if self.proc.stderr else ""
        return err


async def stream(base: str, n: int, timeout: float) -> tuple[int, dict[str, Any], float]:
    """(artifact events, the last event, seconds) of one tasks/sendSubscribe through the bridge."""
    import httpx

    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tasks/sendSubscribe",
        "params": {"id": "bench-task", "message": {"role": "user", "parts": [{"type": "text", "text": "go"}]}},
    }
    chunks = 0
    last = b""
    t0 = time.monotonic()
    async with httpx.AsyncClient(timeout=httpx.Timeout(timeout)) as http:
        async with http.stream("POST", f"{base}/agents/{NAME}", json=body) as resp:
            if resp.status_code != 200:
                raise Failure(f"the bridge answered {resp.status_code}: {(await resp.aread())[:300]!r}")
            async for line in resp.aiter_lines():
                if line.startswith("data:"):
                    if '"artifact"' in line:
                        chunks += 1
                    last = line.encode()
    return chunks, json.loads(last[5:]) if last else {}, time.monotonic() - t0


def one_run(n: int, env: dict[str, str], home: Path, raised: bool, timeout: float) -> dict[str, Any]:
    hub = HubProcess(env, home, raised)
    agent = None
    try:
        agent = subprocess.Popen(
            [sys.executable, str(HERE / "_hub_agent.py"), hub.ws_url, NAME, str(n)],
            env=env,
            cwd=home,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert agent.stdout is not None
        line = agent.stdout.readline()
        if line.strip() != "registered":
            raise Failure(f"the ws-agent did not register: {line!r}")
        time.sleep(0.5)
        idle = proc_status(hub.proc.pid)
        cpu0 = child_cpu_seconds(hub.proc.pid) or 0.0
        chunks, last, seconds = asyncio.run(stream(hub.base, n, timeout))
        peak = proc_status(hub.proc.pid)
        cpu = (child_cpu_seconds(hub.proc.pid) or 0.0) - cpu0
        if chunks != n:
            raise Failure(f"{chunks:,} of {n:,} chunks reached the client")
        result = last.get("result") or {}
        if (result.get("status") or {}).get("state") != "completed" or result.get("final") is not True:
            raise Failure(f"the stream did not end completed and final: {str(last)[:300]}")
        return {
            "n": n,
            "idle": idle["VmHWM"] / 1024,
            "peak": peak["VmHWM"] / 1024,
            "rss": peak["VmRSS"] / 1024,
            "seconds": seconds,
            "cpu": cpu,
            "agent_cpu": child_cpu_seconds(agent.pid) or 0.0,
        }
    finally:
        if agent is not None:
            stop_child(agent)
        err = hub.close()
        if "Traceback" in err:
            raise Failure(f"the hub wrote a traceback:\n{err[-2000:]}")


def measured(env: dict[str, str], home: Path) -> str:
    out = subprocess.run(
        [sys.executable, "-c", "import inspector; print(inspector.__file__)"],
        env=env,
        cwd=home,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    code = Path(out).parent.parent
    commit = (
        subprocess.run(
            ["git", "-C", str(code), "log", "-1", "--format=%h"], capture_output=True, text=True
        ).stdout.strip()
        or "?"
    )
    return f"{code} at {commit}"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="10,000 chunks only (a smoke test, a few seconds)")
    p.add_argument("--sizes", default="10000,100000,1000000", help="comma-separated chunk counts")
    p.add_argument("--runs", type=int, default=1, help="runs of each size (peak and time: medians)")
    p.add_argument("--code", type=Path, default=ROOT, help="the checkout whose hub is measured (default: this one)")
    p.add_argument("--timeout", type=float, default=120.0, help="seconds of silence on the stream before giving up")
    args = p.parse_args()
    sizes = [10_000] if args.quick else [int(s) for s in args.sizes.split(",")]
    with tempfile.TemporaryDirectory(prefix="a2a-bench-hub-stream-") as tmp:
        home = Path(tmp)
        env = dict(os.environ)
        for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"):
            env[name] = str(home / name.lower())
        env["PYTHONPATH"] = os.pathsep.join([str(args.code.resolve()), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
        raised = guard_stops(env, home, max(sizes))
        load = os.getloadavg()
        print(f"hub_stream: {measured(env, home)}; load {load[0]:.2f} {load[1]:.2f}", flush=True)
        if raised:
            print(
                "  the hub's default flood guard would close the agent's socket: the hub runs as python -c with "
                "its burst and rate (and the request deadline) raised, not the console script",
                flush=True,
            )
        results: list[dict[str, Any]] = []
        try:
            for n in sizes:
                runs = [one_run(n, env, home, raised, args.timeout) for _ in range(args.runs)]
                results.append({key: median([r[key] for r in runs]) for key in runs[0]})
                r = results[-1]
                print(
                    f"  {n:>9,} chunks: hub peak {r['peak']:,.0f} MiB, {r['seconds']:.1f} s (hub CPU {r['cpu']:.1f} s, "
                    f"agent CPU {r['agent_cpu']:.1f} s)",
                    flush=True,
                )
        except (Failure, AssertionError) as exc:
            print(f"hub_stream: {exc}", file=sys.stderr)
            return 1
    rows = memory_rows(results, "idle (agent registered)", TARGET_EVENTS, TARGET_MIB)
    table(
        ["stream", "to completed", "hub peak RSS", "per event", "slope", "events/s", "hub CPU", "target"],
        rows,
        title=f"hub_stream: a ws-agent's stream through a2a-inspect hub --headless to a bridge client "
        f"(per event: peak above the idle hub; {args.runs} run{'s' if args.runs != 1 else ''} each)",
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
