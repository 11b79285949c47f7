"""cli_memory: peak RSS of one long stream in every output, at 10k, 100k and 1M chunks,
so anyone sees whether memory stays flat.

Each cell is a fresh process as a user runs it, against bench/_stream_agent.py (one
artifact in N chunks of about 45 characters, made on the fly):

* ``-o ndjson``, text and ``-o json``: ``python -m inspector.cli send --stream [-o X]
  --dialect 1.0 URL go`` (the console script's own ``main``; default limits), stdout to a
  file that is checked afterwards (the last chunk is there; ``-o json`` counts N chunks),
  peak RSS from ``wait4``;
* the TUI: ``a2a-inspect URL`` in a pseudo-terminal, followed to ``completed`` as
  bench/tui_stream.py does it (VmHWM).

Baselines in the same run: the same CLI following a stream of 10 chunks (``idle``: what
the process costs at all; ``per chunk`` is the peak above it over N, ``slope`` what one
more chunk costs between two sizes), and the plainest client of the same N-chunk stream
(httpx-sse + json.loads, keeping nothing; ``x base`` is the peak over its peak). The
TUI's idle is the app connected, before it sends.

``--code DIR`` (repeatable) measures other checkouts with this venv, cell by cell in
turn (the measured tree first on ``PYTHONPATH``, run from an empty directory).

Targets (issue 31), 1,000,000 chunks: ``-o ndjson`` and text <= 100 MiB, ``-o json`` <=
250 MiB, the TUI <= 250 MiB.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(HERE), str(ROOT / "tests")]
from common import stop_child, table  # noqa: E402

PY = sys.executable
OUTPUTS = ("ndjson", "text", "json", "tui")
TARGETS = {"ndjson": 100, "text": 100, "json": 250, "tui": 250}
TARGET_CHUNKS = 1_000_000
IDLE_CHUNKS = 10

BASELINE_CLIENT = """
import asyncio, json, sys
import httpx, httpx_sse
async def main(url):
    body = {"jsonrpc": "2.0", "id": 1, "method": "SendStreamingMessage",
            "params": {"message": {"role": "ROLE_USER", "messageId": "m", "parts": [{"text": "go"}]}}}
    async with httpx.AsyncClient(timeout=None) as client:
        async with httpx_sse.aconnect_sse(client, "POST", url, json=body) as source:
            async for sse in source.aiter_sse():
                json.loads(sse.data)
asyncio.run(main(sys.argv[1]))
"""


class Failure(Exception):
    """Something functionally wrong: exit 1."""


class Agent:
    def __init__(self, n: int) -> None:
        self.proc = subprocess.Popen(
            [PY, str(HERE / "_stream_agent.py"), "chunks", str(n)], stdout=subprocess.PIPE, text=True
        )
        assert self.proc.stdout is not None
        self.url = f"http://127.0.0.1:{int(self.proc.stdout.readline())}/"

    def close(self) -> None:
        stop_child(self.proc)


#: Runs a command, its stdout to a file, and prints its exit status, peak RSS (KiB) and
#: stderr's tail. A fresh process of its own: Linux counts the RSS high-water mark of the
#: process a child was spawned from (vfork, then exec) in the child's ru_maxrss, so a
#: child of this benchmark, grown by the cells before, would report at least its peak.
PEAK_OF = """
import json, resource, subprocess, sys
with open(sys.argv[1], "wb") as out:
    p = subprocess.run(sys.argv[3:], stdout=out, stderr=subprocess.PIPE, timeout=float(sys.argv[2]))
print(json.dumps([p.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,
                  p.stderr.decode(errors="replace")[-800:]]))
"""


def peak_of(cmd: list[str], env: dict[str, str], cwd: Path, out: Path, timeout: float) -> tuple[int, float, float]:
    """(exit status, peak RSS in MiB, seconds) of ``cmd``, its stdout to ``out``."""
    t0 = time.monotonic()
    try:
        done = subprocess.run(
            [PY, "-c", PEAK_OF, str(out), str(timeout), *cmd],
            env=env,
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=timeout + 30,
        )
    except subprocess.TimeoutExpired:
        raise Failure(f"{' '.join(cmd[3:6])}: still running after {timeout:g} s") from None
    seconds = time.monotonic() - t0
    if done.returncode != 0:
        raise Failure(f"{' '.join(cmd[3:6])}: {done.stderr[-800:]}")
    rc, kib, err = json.loads(done.stdout.strip().splitlines()[-1])
    if rc != 0:
        raise Failure(f"{' '.join(cmd[3:6])}: exit {rc}: {err}")
    return rc, kib / 1024, seconds


def check_output(output: str, n: int, out: Path) -> None:
    """The command printed the stream to its end (without reading its output whole)."""
    last = f"token {n - 1:07d} of the answer".encode()
    want = [f'"chunks": {n},'.encode()] if output == "json" else []
    if output != "ndjson":
        want.append(b"completed")
    if output != "json":
        want.append(last)
    found: set[bytes] = set()
    keep = max(len(w) for w in want)
    with out.open("rb") as f:
        tail = b""
        while block := f.read(1 << 20):
            window = tail + block
            found.update(w for w in want if w in window)
            tail = window[-keep:]
    missing = [w.decode() for w in want if w not in found]
    if missing:
        raise Failure(f"-o {output}, {n:,} chunks: the output lacks {missing}")


def cli_cell(output: str, n: int, env: dict[str, str], home: Path, timeout: float) -> dict[str, Any]:
    agent = Agent(n)
    try:
        cmd = [
            PY,
            "-m",
            "inspector.cli",
            "send",
            "--stream",
            *([] if output == "text" else ["-o", output]),
            "--dialect",
            "1.0",
            agent.url,
            "go",
        ]
        out = home / "out"
        _rc, peak, seconds = peak_of(cmd, env, home, out, timeout)
        if n > IDLE_CHUNKS:
            check_output(output, n, out)
        out.unlink()
        return {"peak": peak, "seconds": seconds}
    finally:
        agent.close()


def baseline_cell(n: int, env: dict[str, str], home: Path, timeout: float) -> float:
    agent = Agent(n)
    try:
        return peak_of([PY, "-c", BASELINE_CLIENT, agent.url], env, home, home / "out", timeout)[1]
    finally:
        agent.close()


def tui_cell(n: int, env: dict[str, str], home: Path, timeout: float) -> dict[str, Any]:
    import tui_stream

    events_limit, body_limit = tui_stream.client_limits(env, home)
    raised = events_limit < n + 10 or body_limit < n * tui_stream.EVENT_BYTES
    args = argparse.Namespace(agent="stream", timeout=timeout)
    try:
        result = tui_stream.one_run(n, args, env, home, raised)
    except tui_stream.Failure as exc:
        raise Failure(f"tui, {n:,} chunks: {exc}") from None
    return {"peak": result["peak"], "idle": result["idle"], "seconds": result["seconds"]}


def tree_env(code: Path, home: Path) -> dict[str, str]:
    env = dict(os.environ)
    for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"):
        env[name] = str(home / name.lower())
    env["PYTHONPATH"] = os.pathsep.join([str(code.resolve()), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return env


def commit(code: Path) -> str:
    found = subprocess.run(["git", "-C", str(code), "log", "-1", "--format=%h"], capture_output=True, text=True)
    return found.stdout.strip() or "?"


def _mib(value: float) -> str:
    return "-" if value != value else f"{value:,.0f} MiB"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="10,000 chunks only (a smoke test, ~20 s)")
    p.add_argument("--sizes", default="10000,100000,1000000", help="comma-separated chunk counts")
    p.add_argument("--outputs", default=",".join(OUTPUTS), help=f"comma-separated, of: {', '.join(OUTPUTS)}")
    p.add_argument("--code", type=Path, action="append", help="a checkout to measure (repeatable; default: this one)")
    p.add_argument("--runs", type=int, default=1, help="accepted for bench/run; each cell runs once")
    p.add_argument("--timeout", type=float, default=900.0, help="seconds per process")
    args = p.parse_args()
    sizes = [10_000] if args.quick else [int(s) for s in args.sizes.split(",")]
    outputs = [o for o in args.outputs.split(",") if o]
    if unknown := set(outputs) - set(OUTPUTS):
        p.error(f"unknown outputs: {', '.join(sorted(unknown))}")
    trees = args.code or [ROOT]
    load = os.getloadavg()
    print(
        f"cli_memory: peak RSS per cell; load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; trees: "
        + ", ".join(f"{t} at {commit(t)}" for t in trees),
        flush=True,
    )
    # (tree, output, n) -> figures; "idle" and "base" rows as outputs of their own.
    got: dict[tuple[int, str, int], dict[str, Any]] = {}
    base: dict[int, float] = {}
    with tempfile.TemporaryDirectory(prefix="a2a-bench-cli-memory-") as tmp:
        home = Path(tmp)
        envs = [tree_env(t, home) for t in trees]
        try:
            for k, env in enumerate(envs):
                got[k, "idle", IDLE_CHUNKS] = cli_cell("json", IDLE_CHUNKS, env, home, args.timeout)
            for n in sizes:
                base[n] = baseline_cell(n, envs[0], home, args.timeout)
                for output in outputs:
                    for k, env in enumerate(envs):
                        cell = (
                            tui_cell(n, env, home, args.timeout)
                            if output == "tui"
                            else cli_cell(output, n, env, home, args.timeout)
                        )
                        got[k, output, n] = cell
                        print(
                            f"  {trees[k].name:>12} {output:>6} {n:>9,} chunks: peak {cell['peak']:,.0f} MiB, "
                            f"{cell['seconds']:.1f} s",
                            flush=True,
                        )
        except Failure as exc:
            print(f"cli_memory: {exc}", file=sys.stderr)
            return 1
    rows: list[list[Any]] = []
    for k, tree in enumerate(trees):
        label = f"{tree.name} " if len(trees) > 1 else ""
        idle = got[k, "idle", IDLE_CHUNKS]["peak"]
        rows.append([f"{label}idle (-o json, {IDLE_CHUNKS} chunks)", "", _mib(idle), "", "", "", "", ""])
        for output in outputs:
            previous: tuple[int, float] | None = None
            for n in sizes:
                cell = got[k, output, n]
                peak = cell["peak"]
                floor = cell.get("idle", idle)
                slope = "-" if previous is None else f"{(peak - previous[1]) * 2**20 / (n - previous[0]):,.0f} B"
                previous = (n, peak)
                target = TARGETS[output] if n == TARGET_CHUNKS else None
                verdict = f"<= {target} MiB {'PASS' if peak <= target else 'MISS'}" if target else ""
                what = "TUI" if output == "tui" else ("text" if output == "text" else f"-o {output}")
                rows.append(
                    [
                        f"{label}{what}",
                        f"{n:,}",
                        _mib(peak),
                        f"{peak / base[n]:.1f}x",
                        f"{(peak - floor) * 2**20 / n:,.0f} B",
                        slope,
                        f"{cell['seconds']:.1f} s",
                        verdict,
                    ]
                )
    table(
        ["what", "chunks", "peak RSS", "x base", "per chunk", "slope", "time", "target"],
        rows,
        title="cli_memory: one stream of N chunks (x base: over httpx-sse + json.loads on the same stream, "
        "peak " + ", ".join(f"{n:,}: {_mib(b)}" for n, b in base.items()) + "; per chunk: above the idle "
        "CLI, or for the TUI the idle app)",
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
