"""tui_stream: a long stream through the real TUI in a terminal, followed to `completed`:
peak RSS and the time it took.

The installed console script ``a2a-inspect URL`` runs in a pseudo-terminal of 120x36
(tests/terminal.py's ``Terminal``: Textual's own driver, every frame encoded and read
by a VT100 emulator), as a user runs it: default options, empty XDG directories. Once
the bar says ready, the composer gets ``go`` and ctrl+s streams it; the agent answers
with one artifact in N chunks of about 45 characters. The run ends when the screen shows
the diagram at ``completed``, the artifacts' summary row counting N chunks, the last
chunk's text at the end of the artifact and no spinner in the bar; the app's peak
resident set is then read from /proc (VmHWM), and ctrl+q must end it with status 0 and
the terminal restored.

Baseline, in the same run: the same app connected and idle (VmHWM 1 s after ready,
before anything is sent). ``per event`` is (peak - idle) / N; ``slope`` what one more
event costs between two sizes.

The agent is bench/_stream_agent.py (a bare 1.0 agent that makes its stream on the fly,
flat memory, a few seconds of CPU for a million events) unless ``--agent mock``:
a2a-mock with a ``chunks: {text, count}`` scenario (its CPU shares the machine with the
app, and it keeps the task it streams: see bench/README.md).

The code measured is this checkout's (``PYTHONPATH``, ahead of the venv's editable
install), or ``--code DIR``'s. The console script runs as it is, with the default limits
(10,000,000 events and 4 GiB a stream). A tree whose defaults would stop the stream (main
before issue 25: 100,000 events, a 64 MiB body) is started as ``python -c`` with those
defaults raised and the console script's ``main``: the output says so.

Target (issue 25): a 1,000,000-chunk stream peaks at <= 250 MiB.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(HERE), str(ROOT / "tests")]
from common import median, memory_rows, stop_child, table  # noqa: E402
from terminal import Terminal, console_script  # noqa: E402

SIZE = (120, 36)
TARGET_EVENTS = 1_000_000
TARGET_MIB = 250
#: Bytes a chunk event takes on the wire, at most (bench/_stream_agent.py: about 330).
EVENT_BYTES = 400
CHUNK_TEXT = "token {i} of the answer, naïve “quoted” —\n"

#: How the app starts while the client's defaults would stop the stream: the same
#: ``main`` as the console script, with the defaults raised first.
RAISED = """
import dataclasses, sys
from inspector.client import limits
# An older tree, whose defaults would stop the stream.
raised = {"max_body": 1 << 40, "max_stream_body": 1 << 40, "max_stream_events": 10**9}
limits.Limits.__init__.__defaults__ = tuple(
    raised.get(f.name, f.default) for f in dataclasses.fields(limits.Limits)
    if f.default is not dataclasses.MISSING)
assert limits.Limits().max_stream_events == raised["max_stream_events"]
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


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Agent:
    """The streaming agent in a child process; ``url`` once it listens."""

    def __init__(self, kind: str, n: int, home: Path, env: dict[str, str]) -> None:
        if kind == "mock":
            scenario = home / "stream.json"
            scenario.write_text(
                json.dumps(
                    {
                        "name": "stream",
                        "card": {
                            "name": "stream agent",
                            "description": "one long artifact",
                            "version": "1",
                            "capabilities": {"streaming": True},
                            "skills": [],
                            "defaultInputModes": ["text"],
                            "defaultOutputModes": ["text"],
                        },
                        "rules": [
                            {
                                "script": [
                                    {"status": "working"},
                                    {"chunks": {"id": "answer", "text": CHUNK_TEXT, "count": n}},
                                    {"status": "completed", "message": "done"},
                                ]
                            }
                        ],
                    },
                    ensure_ascii=False,
                ),
                encoding="utf-8",
            )
            cmd = [
                sys.executable,
                "-m",
                "mock_agent.cli",
                "--scenario",
                str(scenario),
                "--port",
                "0",
                "--dialect",
                "1.0",
            ]
        else:
            cmd = [sys.executable, str(HERE / "_stream_agent.py"), "chunks", str(n)]
        self.proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if kind == "mock":
            found = re.search(r"http://127\.0\.0\.1:\d+/", line)
            if found is None:
                raise Failure(f"a2a-mock did not start: {line!r}")
            self.url = found.group(0)
        else:
            self.url = f"http://127.0.0.1:{int(line)}/"

    def close(self) -> None:
        stop_child(self.proc)


def client_limits(env: dict[str, str], home: Path) -> tuple[int, int]:
    """The measured code's default (max_stream_events, bytes a stream may carry)."""
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            "from inspector.client.limits import Limits; l = Limits(); "
            "print(l.max_stream_events, getattr(l, 'max_stream_body', l.max_body))",
        ],
        env=env,
        cwd=home,
        capture_output=True,
        text=True,
        check=True,
    )
    events, body = out.stdout.split()
    return int(events), int(body)


def app_argv(url: str, raised: bool) -> list[str]:
    if raised:
        return [sys.executable, "-c", RAISED, url]
    return [console_script("a2a-inspect"), url]


def one_run(n: int, args: argparse.Namespace, env: dict[str, str], home: Path, raised: bool) -> dict[str, Any]:
    agent = Agent(args.agent, n, home, env)
    try:
        # Started in an empty directory: python -c puts its working directory first on
        # sys.path, ahead of PYTHONPATH.
        term = Terminal(app_argv(agent.url, raised), size=SIZE, env=env, cwd=home)
        try:
            result = follow(term, n, args)
        finally:
            term.close()
        result["agent"] = proc_status(agent.proc.pid)["VmHWM"] / 1024
        result["agent_cpu"] = cpu_seconds(agent.proc.pid)
        return result
    finally:
        agent.close()


def follow(term: Terminal, n: int, args: argparse.Namespace) -> dict[str, Any]:
    pid = term.process.pid
    bar = term.rows(0, 1)
    body = term.rows(3, -1)
    term.wait_for("● ready", region=bar, timeout=60)
    time.sleep(1.0)
    idle = proc_status(pid)
    term.type("go")
    term.wait_for("go", region=body)
    if not term.find("⇶ stream", body):  # the agent's card says it streams: the composer's default
        term.press("ctrl+t")
        term.wait_for("⇶ stream", region=body)
    cpu0 = cpu_seconds(pid)
    t0 = time.monotonic()
    term.press("ctrl+s")
    # The diagram at completed, every chunk counted (the artifacts' summary row), the
    # last chunk's text drawn at the end of the artifact, no spinner in the bar.
    counted = re.compile(rf"1 artifact · {n} chunks")
    completed = re.compile(r"▸ completed")
    last = f"token {n - 1:07d} of the answer" if args.agent == "stream" else f"token {n - 1} of the answer"

    def done() -> bool:
        return (
            term.find(completed, body) is not None
            and term.find(counted, body) is not None
            and term.find(last, body) is not None
            and term.find("streaming", bar) is None
        )

    term.wait_until(done, f"{n:,} chunks followed to completed", timeout=args.timeout + n / 2000)
    seconds = time.monotonic() - t0
    cpu = cpu_seconds(pid) - cpu0
    peak = proc_status(pid)
    term.press("ctrl+q")
    code = term.wait_exit(timeout=60)
    if code != 0:
        raise Failure(f"a2a-inspect exited {code} after the stream:\n{term.dump()}")
    if term.restored():
        raise Failure(f"the terminal was not restored: {term.restored()}")
    return {
        "n": n,
        "idle": idle["VmHWM"] / 1024,
        "peak": peak["VmHWM"] / 1024,
        "rss": peak["VmRSS"] / 1024,
        "seconds": seconds,
        "cpu": cpu,
        "frames": bytes(term.raw).count(b"\x1b[?2026l"),
    }


def measured(env: dict[str, str], home: Path, code: Path) -> str:
    """Which app is measured: the package the app's Python imports, its commit, Textual's version."""
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            "import inspector, textual; from importlib.metadata import version; "
            "print(inspector.__file__, version('textual'))",
        ],
        env=env,
        cwd=home,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    commit = (
        subprocess.run(
            ["git", "-C", str(code), "log", "-1", "--format=%h"], capture_output=True, text=True
        ).stdout.strip()
        or "?"
    )
    return f"{Path(out[0]).parent.parent} at {commit}, Textual {out[1]}"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="10,000 chunks only (a smoke test, ~15 s)")
    p.add_argument("--sizes", default="10000,100000,1000000", help="comma-separated chunk counts")
    p.add_argument("--runs", type=int, default=1, help="runs of each size (peak and time: medians)")
    p.add_argument(
        "--agent",
        choices=("stream", "mock"),
        default="stream",
        help="bench/_stream_agent.py (default) or a2a-mock with a chunks scenario",
    )
    p.add_argument("--code", type=Path, default=ROOT, help="the checkout whose app is measured (default: this one)")
    p.add_argument("--timeout", type=float, default=120.0, help="seconds per run, plus one per 2,000 chunks")
    args = p.parse_args()
    sizes = [10_000] if args.quick else [int(s) for s in args.sizes.split(",")]
    with tempfile.TemporaryDirectory(prefix="a2a-bench-tui-stream-") as tmp:
        home = Path(tmp)
        env = dict(os.environ)
        for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"):
            env[name] = str(home / name.lower())
        env["PYTHONPATH"] = os.pathsep.join([str(args.code.resolve()), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
        events_limit, body_limit = client_limits(env, home)
        raised = events_limit < max(sizes) + 10 or body_limit < max(sizes) * EVENT_BYTES
        load = os.getloadavg()
        print(
            f"tui_stream: {measured(env, home, args.code)}; agent {args.agent}; load {load[0]:.2f} {load[1]:.2f}",
            flush=True,
        )
        if raised:
            print(
                f"  the client's defaults ({events_limit:,} events, {body_limit / 2**20:,.0f} MiB a stream) "
                "would stop the stream: the app runs as python -c with them raised, not the console script"
            )
        results: list[dict[str, Any]] = []
        try:
            for n in sizes:
                runs = [one_run(n, args, env, home, raised) for _ in range(args.runs)]
                results.append({key: median([r[key] for r in runs]) for key in runs[0]})
                r = results[-1]
                print(
                    f"  {n:>9,} chunks: peak {r['peak']:,.0f} MiB, {r['seconds']:.1f} s (the agent: peak "
                    f"{r['agent']:,.0f} MiB, {r['agent_cpu']:.1f} s CPU)",
                    flush=True,
                )
        except (Failure, AssertionError) as exc:
            print(f"tui_stream: {exc}", file=sys.stderr)
            return 1
    rows = memory_rows(results, "idle (connected)", TARGET_EVENTS, TARGET_MIB)
    table(
        ["stream", "to completed", "peak RSS", "per event", "slope", "events/s", "app CPU", "target"],
        rows,
        title=f"tui_stream: a2a-inspect URL in a {SIZE[0]}x{SIZE[1]} terminal, one stream to completed "
        f"(per event: peak above the idle app; {args.runs} run{'s' if args.runs != 1 else ''} each)",
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
