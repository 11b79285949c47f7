"""UI: long streams into the Task tab, and how long the event loop stalls meanwhile.

The inspector runs headless (``App.run_test``, 120x36) against a2a-mock in a child
process (``a2a-mock --scenario FILE --port 0``). Two workloads, each streamed with no
delays: ``chunks`` (one artifact in 20,000 small chunks) and ``status`` (20,000
status-update events of one state, each with a short agent message: an agent that
streams its answer a token at a time in status messages). The clock starts when the
first chunk (or status message) reaches the session and stops after the screen
refresh that follows the view holding all of them. ``shown/s`` is events per second
over that span.

A probe task in the app's event loop sleeps 5 ms in a loop and records how late it
wakes up: the longest overshoot is the longest stall a key press would have met, and
the 99th percentile says how often long ones come. It runs twice in the same run:
with the app idle (connected, nothing streaming) as a baseline, then from the send
until the events are shown.

Each workload also runs with a CPU hog (a busy loop) on the other core: the app is
pinned to core 0, the hog and the mock to core 1 (``--hog-runs``).

Headless Textual skips encoding each frame into terminal escape codes, which a real
terminal pays; the figures leave that work out (``--no-encode`` is kept as a no-op).

The app's GC policy (inspector.gcpolicy) is installed first, as inspector.cli does;
``--gc`` picks another (see bench/README.md).

``--memory`` instead runs each workload once with 100,000 events in a fresh child
process and prints the TUI's peak RSS (and KB per event above the idle app).

Targets: every event shown (else exit 1); longest stall during the stream <= 33 ms
quiet and <= 50 ms with the hog; status messages shown >= 5,000/s; peak RSS at 100k
events <= 200 MiB (chunks) and <= 250 MiB (status).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(ROOT), str(HERE)]
from common import GCTimer, child_cpu_seconds, chunk_text, median, spread, stop_child, table  # noqa: E402

SIZE = (120, 36)
PROBE_SLEEP = 0.005
STALL_TARGET = 0.033
HOG_STALL_TARGET = 0.050
STATUS_RATE_TARGET = 5_000
RSS_TARGETS = {"chunks": 200, "status": 250}  # MiB at 100k events
MEMORY_EVENTS = 100_000
ARTIFACT = "bench"
FREEZE_EVERY = 2_000
WORKLOADS = ("chunks", "status")


class Failure(Exception):
    """Something functionally wrong: exit 1."""


# ---------------------------------------------------------------------- the mock


def make_chunks(n: int, seed: int, target: int) -> list[str]:
    """``n`` chunks of about ``target`` characters of model-like text (some non-ASCII,
    quotes, tabs, newlines), seeded."""
    rng = random.Random(seed)
    return [chunk_text(rng, target) for _ in range(n)]


def write_scenario(path: Path, chunks: list[str], workload: str = "chunks") -> None:
    if workload == "chunks":
        script: list[dict[str, Any]] = [
            {"status": "working"},
            {"chunks": {"id": ARTIFACT, "name": "bench.txt", "texts": chunks}},
            {"status": "completed", "message": "done"},
        ]
        description = f"one artifact in {len(chunks)} chunks, no delays"
    else:
        script = [{"status": "working", "message": text} for text in chunks]
        script.append({"status": "completed", "message": "done"})
        description = f"{len(chunks)} working status updates with a message each, no delays"
    scenario = {
        "name": "ui-bench",
        "description": description,
        "card": {"name": "UI bench agent", "version": "1.0.0", "capabilities": {"streaming": True},
                 "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
                 "skills": [{"id": "stream", "name": "Stream", "description": "streams", "tags": ["bench"]}]},
        "rules": [{"name": "stream", "script": script}],
    }
    path.write_text(json.dumps(scenario), encoding="utf-8")


class MockProcess:
    """``a2a-mock --scenario FILE --port 0`` in a child process; ``url`` from its banner."""

    def __init__(self, scenario: Path, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "mock_agent.cli", "--scenario", str(scenario), "--port", "0",
             "--dialect", "1.0"],
            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.url = self._read_url()

    def pin(self, cpus: set[int] | None) -> None:
        if cpus is not None:
            os.sched_setaffinity(self.proc.pid, cpus)

    def _read_url(self) -> str:
        assert self.proc.stdout is not None
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                break
            found = re.search(r" at (http://\S+)", line)
            if found:
                return found.group(1)
        self.close()
        err = self.proc.stderr.read() if self.proc.stderr else ""
        raise Failure(f"a2a-mock did not start: {err.strip()[-500:]}")

    def cpu_seconds(self) -> float:
        seconds = child_cpu_seconds(self.proc.pid)
        return float("nan") if seconds is None else seconds

    def close(self) -> None:
        stop_child(self.proc)


# ---------------------------------------------------------------------- the probe


class Probe:
    """Sleeps ``PROBE_SLEEP`` in a loop in the app's event loop; each wake-up's lateness
    is a sample ``(when, overshoot)``."""

    def __init__(self) -> None:
        self.samples: list[tuple[float, float]] = []
        self._task: asyncio.Task[None] | None = None

    async def _run(self) -> None:
        clock = time.perf_counter
        while True:
            t0 = clock()
            await asyncio.sleep(PROBE_SLEEP)
            t1 = clock()
            self.samples.append((t1, t1 - t0 - PROBE_SLEEP))

    def start(self) -> None:
        self.samples = []
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass

    def worst(self, start: float = 0.0, end: float = float("inf")) -> float:
        return max((late for when, late in self.samples if start <= when <= end), default=0.0)

    def p99(self, start: float = 0.0, end: float = float("inf")) -> float:
        values = sorted(late for when, late in self.samples if start <= when <= end)
        return values[min(len(values) - 1, int(len(values) * 0.99))] if values else 0.0


class TurnTimer:
    """The CPU time (this thread's) of each event-loop turn while active: a figure for
    the app's own work per turn, which other processes on the machine barely move,
    where the probe's wall-clock stalls grow with the machine's load."""

    def __init__(self) -> None:
        self.turns: list[float] = []
        self._original: Any = None

    def __enter__(self) -> "TurnTimer":
        import asyncio.events

        handle = asyncio.events.Handle
        original = self._original = handle._run
        turns = self.turns
        clock = time.thread_time

        def _run(h: Any) -> Any:
            t0 = clock()
            try:
                return original(h)
            finally:
                turns.append(clock() - t0)

        handle._run = _run  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: Any) -> None:
        import asyncio.events

        asyncio.events.Handle._run = self._original  # type: ignore[method-assign]

    def worst(self) -> float:
        return max(self.turns, default=0.0)


# ---------------------------------------------------------------------- one run


@dataclass
class Result:
    workload: str
    hog: bool
    events: int
    first_after_send: float
    shown_after_first: float
    idle_worst: float
    idle_p99: float
    stream_worst: float
    stream_p99: float
    frames: int
    gc_seconds: float
    gc_full: int
    mock_cpu: float
    turn_cpu: float = float("nan")
    rss_mb: float = float("nan")

    @property
    def rate(self) -> float:
        return self.events / self.shown_after_first if self.shown_after_first > 0 else float("inf")


async def wait_for(predicate: Any, timeout: float, what: str, step: float = 0.02) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise Failure(f"timed out after {timeout:.0f} s waiting for {what}")
        await asyncio.sleep(step)


class Workload:
    """What one workload streams, how the app shows it, and the checks on what it shows."""

    def __init__(self, name: str, texts: list[str]) -> None:
        from inspector.textsafe import visible
        from inspector.ui.widgets.wrap import TAB

        self.name = name
        self.texts = texts
        self.expected = visible("".join(texts)).replace("\t", TAB)

    def first(self, event: Any) -> bool:
        """Whether ``event`` is the first of the stream proper (the clock starts)."""
        from inspector.protocol.models import TaskArtifactUpdateEvent, TaskStatusUpdateEvent

        payload = event.payload
        if self.name == "chunks":
            return isinstance(payload, TaskArtifactUpdateEvent)
        return isinstance(payload, TaskStatusUpdateEvent) and payload.status.message is not None

    def view(self, app: Any) -> Any:
        from inspector.ui.widgets.artifacts_view import ArtifactsView
        from inspector.ui.widgets.conversation import Conversation

        return app.main.query_one(ArtifactsView if self.name == "chunks" else Conversation)

    def shown_chars(self, view: Any) -> int:
        if self.name == "chunks":
            section = view.document.sections.get(ARTIFACT)
            return sum(b.body.chars for b in section.blocks if b.kind == "text") if section else 0
        runs = view.runs
        return runs[0]._joined.chars if runs else 0

    def check(self, app: Any, conn: Any, view: Any) -> None:
        """Exit 1 unless the whole stream is on screen, in order."""
        n = len(self.texts)
        task = conn.tracker.task(app.task_id) if app.task_id else None
        if task is None:
            raise Failure("no task selected after the stream")
        if task.state.value != "completed":
            raise Failure(f"the task ended {task.state.value}, not completed")
        if self.name == "chunks":
            art = task.artifacts.get(ARTIFACT)
            if art is None or len(art.chunks) != n:
                raise Failure(f"the tracker holds {len(art.chunks) if art else 0:,} chunks, not {n:,}")
            text = view.text_of(ARTIFACT)
            summary = str(view.query_one("#artifacts-summary").render())
            if f"{n} chunks" not in summary:
                raise Failure(f"the summary says {summary!r}, not {n} chunks")
        else:
            runs = view.runs
            if len(runs) != 1:
                raise Failure(f"the conversation shows {len(runs)} runs of status messages, not 1")
            if runs[0].count != n:
                raise Failure(f"the run counts {runs[0].count:,} messages, not {n:,}")
            if len(task.history) != n + 2:
                raise Failure(f"the task's history holds {len(task.history):,} messages, not {n + 2:,}")
            text = runs[0]._joined.text
        if text is None:
            raise Failure("the view does not show the stream")
        if len(text) != len(self.expected):
            raise Failure(f"the view shows {len(text):,} characters, not {len(self.expected):,}")
        if text != self.expected:
            at = next(i for i, (a, b) in enumerate(zip(text, self.expected)) if a != b)
            raise Failure(f"the view's text differs from the stream at character {at:,}")


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def one_run(url: str, work: Workload, args: argparse.Namespace, mock: MockProcess,
                  profiler: Any = None, hog: bool = False) -> Result:
    from inspector.client.limits import Limits
    from inspector.protocol import models as m
    from inspector.ui.app import InspectorApp

    n = len(work.texts)
    app = InspectorApp(url=url)
    probe = Probe()
    marks: dict[str, float] = {}
    frames = 0

    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: app.active is not None and app.active.state == "ready", 30, "the agent")
        conn = app.active
        # More events than the client's default limit (100,000 a stream) for --memory.
        conn.client.limits = Limits(max_body=1 << 30, max_stream_events=n + 1_000)
        view = work.view(app)
        await pilot.pause(0.3)
        rss_idle = rss_mb()

        # Idle baseline: connected, nothing streaming.
        probe.start()
        await asyncio.sleep(args.idle)
        await probe.stop()
        idle_worst, idle_p99 = probe.worst(), probe.p99()

        def listener(event: Any) -> None:
            if "first" not in marks and work.first(event):
                marks["first"] = time.perf_counter()

        conn.session.subscribe(listener)

        def shown() -> None:
            marks.setdefault("shown", time.perf_counter())

        original = view.session_advanced

        def session_advanced(conn_: Any, events: Any, changed: Any) -> None:
            nonlocal frames
            frames += 1
            original(conn_, events, changed)
            if "full" not in marks and work.shown_chars(view) >= len(work.expected):
                marks["full"] = time.perf_counter()
                app.call_after_refresh(shown)

        view.session_advanced = session_advanced  # type: ignore[method-assign]

        message = m.Message(role=m.Role.USER, parts=[m.TextPart(text="stream please")],
                            message_id=f"bench-{time.monotonic_ns()}")
        gc.collect()
        if args.gc in ("freeze", "freeze-often"):
            gc.freeze()  # what the app could do once started: see bench/README.md
        elif args.gc == "off":
            gc.disable()
        if args.gc == "freeze-often":
            # What the app's frame pump could do: every FREEZE_EVERY session events, move
            # everything alive (mostly the session's own events, kept for good) out of
            # the collector's sight, so a full collection only walks what is new.
            pending = [0]

            def freezer(event: Any) -> None:
                pending[0] += 1
                if pending[0] >= FREEZE_EVERY:
                    pending[0] = 0
                    gc.freeze()

            conn.session.subscribe(freezer)
        mock_cpu0 = mock.cpu_seconds()
        probe.start()
        with GCTimer() as gct, TurnTimer() as turns:
            if profiler is not None:
                profiler.enable()
            marks["send"] = time.perf_counter()
            app.send_message(conn, m.SendParams(message=message), stream=True)
            try:
                await wait_for(lambda: "shown" in marks, args.timeout, f"{n:,} {work.name} events to be shown")
            finally:
                if profiler is not None:
                    profiler.disable()
        await probe.stop()
        mock_cpu = mock.cpu_seconds() - mock_cpu0
        gc.enable()

        # ---- checks: the whole stream, in order, on screen
        await wait_for(lambda: not app.waiting, 30, "the stream to end")
        await pilot.pause(0.1)
        work.check(app, conn, view)
        rss = rss_mb() - rss_idle

    if args.gc in ("freeze", "freeze-often"):
        gc.unfreeze()
    send, first, stop = marks["send"], marks["first"], marks["shown"]
    return Result(
        workload=work.name, hog=hog, events=n, first_after_send=first - send,
        shown_after_first=stop - first, idle_worst=idle_worst, idle_p99=idle_p99,
        stream_worst=probe.worst(send, stop), stream_p99=probe.p99(send, stop),
        frames=frames, gc_seconds=gct.seconds, gc_full=gct.count[2], mock_cpu=mock_cpu,
        turn_cpu=turns.worst(), rss_mb=rss)


# ---------------------------------------------------------------------- the hog


class Hog:
    """A busy loop in a child process on ``cpus`` (the other core): a machine that is
    doing something else."""

    def __init__(self, cpus: set[int]) -> None:
        self.proc = subprocess.Popen([sys.executable, "-c", "while True: pass"])
        os.sched_setaffinity(self.proc.pid, cpus)

    def close(self) -> None:
        stop_child(self.proc)


def cores() -> tuple[set[int], set[int]] | None:
    """(the app's core, the other core), or None with fewer than two."""
    try:
        allowed = sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return None
    if len(allowed) < 2:
        return None
    return {allowed[0]}, {allowed[1]}


# ---------------------------------------------------------------------- main


def gc_policy() -> Any:
    try:
        from inspector import gcpolicy
    except ImportError:
        return None
    return gcpolicy


def isolated_env(home: str) -> dict[str, str]:
    env = dict(os.environ)
    for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"):
        env[name] = str(Path(home) / name.lower())
    env.pop("TEXTUAL", None)
    return env


def ms(seconds: float) -> str:
    return f"{seconds * 1000:,.1f} ms"


def report(results: list[Result], args: argparse.Namespace) -> None:
    rows = []
    for name in args.workload:
        for hog in (False, True):
            rs = [r for r in results if r.workload == name and r.hog == hog]
            if not rs:
                continue
            rates = [r.rate for r in rs]
            stalls = [r.stream_worst for r in rs]
            target = HOG_STALL_TARGET if hog else STALL_TARGET
            worst = max(stalls)
            where = f"{name}, {'CPU hog on the other core' if hog else 'quiet'}"
            rate_target = f">= {STATUS_RATE_TARGET:,}/s" if name == "status" else "every event"
            rate_ok = name != "status" or median(rates) >= STATUS_RATE_TARGET
            rows.append([where, f"{median(rates):,.0f}/s", f"±{spread(rates) * 50:.0f}%", rate_target,
                         "PASS" if rate_ok else "MISS"])
            rows.append(["  longest stall (worst run)", ms(worst), f"median {ms(median(stalls))}",
                         f"<= {target * 1000:.0f} ms", "PASS" if worst <= target else "MISS"])
            rows.append(["  p99 wake-up lateness (worst run)", ms(max(r.stream_p99 for r in rs)),
                         f"median {ms(median([r.stream_p99 for r in rs]))}", "", ""])
            rows.append(["  longest event-loop turn, CPU time (worst run)", ms(max(r.turn_cpu for r in rs)),
                         f"median {ms(median([r.turn_cpu for r in rs]))}", "", ""])
            rows.append(["  idle baseline: longest / p99", ms(max(r.idle_worst for r in rs)),
                         ms(median([r.idle_p99 for r in rs])), "", ""])
            rows.append(["  time to show all / first after send",
                         ms(median([r.shown_after_first for r in rs])),
                         ms(median([r.first_after_send for r in rs])), "", ""])
            rows.append(["  UI updates / GC / mock CPU", f"{median([r.frames for r in rs]):,.0f}",
                         f"GC {ms(median([r.gc_seconds for r in rs]))}, "
                         f"{median([r.gc_full for r in rs]):.0f} full; mock {ms(median([r.mock_cpu for r in rs]))}",
                         "", ""])
    encode = "frames not encoded for a terminal"
    encode += {"app": "; GC: the app's policy (inspector.gcpolicy)", "default": "; GC: CPython's defaults"}.get(
        args.gc, f"; --gc {args.gc}")
    n = results[0].events
    table(["measure", "median", "spread / note", "target", "verdict"], rows,
          title=f"ui: {n:,} events streamed into the Task tab, headless {SIZE[0]}x{SIZE[1]}, "
                f"{args.runs} run(s) quiet + {args.hog_runs} with a CPU hog; {encode}; "
                f"probe sleeps {PROBE_SLEEP * 1000:.0f} ms")
    per_run = [[f"{r.workload}{' +hog' if r.hog else ''}", f"{r.rate:,.0f}/s", ms(r.shown_after_first),
                ms(r.stream_worst), ms(r.stream_p99), ms(r.turn_cpu), ms(r.idle_worst), ms(r.gc_seconds)]
               for r in results]
    table(["run", "shown/s", "time", "stall", "p99", "turn CPU", "idle stall", "GC"], per_run)
    print(f"load average (1, 5, 15 min) after the runs: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")


def run_workloads(args: argparse.Namespace, env: dict[str, str], home: str) -> list[Result]:
    pins = cores()
    results: list[Result] = []
    for name in args.workload:
        texts = make_chunks(args.events, args.seed, args.chunk_chars)
        work = Workload(name, texts)
        scenario = Path(home) / f"ui-bench-{name}.json"
        write_scenario(scenario, texts, name)
        mock = MockProcess(scenario, env)
        try:
            for _ in range(args.runs):
                results.append(asyncio.run(one_run(mock.url, work, args, mock)))
            if args.hog_runs and pins is None:
                print("ui: fewer than two cores: no runs with a CPU hog", file=sys.stderr)
            elif args.hog_runs:
                mine, other = pins
                before = os.sched_getaffinity(0)
                os.sched_setaffinity(0, mine)
                mock.pin(other)
                hog = Hog(other)
                try:
                    for _ in range(args.hog_runs):
                        results.append(asyncio.run(one_run(mock.url, work, args, mock, hog=True)))
                finally:
                    hog.close()
                    os.sched_setaffinity(0, before)
                    mock.pin(before)
            if args.profile:
                profile(mock, work, args)
        finally:
            mock.close()
    return results


def memory_child(args: argparse.Namespace) -> int:
    """One run in this (fresh) process; prints its peak RSS as JSON on the last line."""
    import resource

    with tempfile.TemporaryDirectory(prefix="a2a-bench-ui-") as home:
        env = isolated_env(home)
        os.environ.update({k: v for k, v in env.items() if k.startswith("XDG_")})
        name = args.workload[0]
        texts = make_chunks(args.events, args.seed, args.chunk_chars)
        work = Workload(name, texts)
        scenario = Path(home) / f"ui-bench-{name}.json"
        write_scenario(scenario, texts, name)
        mock = MockProcess(scenario, env)
        try:
            result = asyncio.run(one_run(mock.url, work, args, mock))
        finally:
            mock.close()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"peak_mb": peak, "grown_mb": result.rss_mb, "rate": result.rate}))
    return 0


def memory(args: argparse.Namespace) -> int:
    rows = []
    for name in args.workload:
        argv = [sys.executable, __file__, "--memory-child", "--workload", name, "--events", str(args.events),
                "--runs", "1", "--idle", "0.2", "--chunk-chars", str(args.chunk_chars), "--gc", args.gc]
        done = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT)
        if done.returncode != 0:
            print(f"ui --memory: the {name} run failed: {done.stderr.strip()[-800:]}", file=sys.stderr)
            return 1
        figures = json.loads(done.stdout.strip().splitlines()[-1])
        peak, grown = figures["peak_mb"], figures["grown_mb"]
        target = RSS_TARGETS[name]
        rows.append([name, f"{args.events:,}", f"{peak:,.0f} MiB", f"{grown * 1024 / args.events:.2f} KiB",
                     f"{figures['rate']:,.0f}/s", f"<= {target} MiB", "PASS" if peak <= target else "MISS"])
    table(["workload", "events", "peak RSS", "per event", "shown/s", "target", "verdict"], rows,
          title="ui --memory: the TUI's peak RSS (headless, real app, its own process), "
                "per event: RSS grown from the connected idle app")
    return 0


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="2,000 events, one run each (a smoke test)")
    p.add_argument("--workload", action="append", choices=WORKLOADS,
                   help="chunks (artifact chunks) or status (status messages); repeatable; default both")
    p.add_argument("--events", "--chunks", type=int, default=None,
                   help="events a stream (default 20,000; 100,000 with --memory)")
    p.add_argument("--chunk-chars", type=int, default=12, help="about this many characters an event (default 12)")
    p.add_argument("--runs", type=int, default=3, help="quiet runs per workload (default 3)")
    p.add_argument("--hog-runs", type=int, default=2,
                   help="runs per workload with a CPU hog on the other core (default 2; 0: none)")
    p.add_argument("--idle", type=float, default=1.5, help="seconds of idle baseline per run (default 1.5)")
    p.add_argument("--timeout", type=float, default=120.0)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--no-encode", action="store_true", help="leave out encoding frames for a terminal")
    p.add_argument("--memory", action="store_true",
                   help="peak RSS of the TUI for each workload at 100,000 events, each in its own process")
    p.add_argument("--memory-child", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--gc", choices=("app", "default", "freeze", "freeze-often", "off"), default=None,
                   help="the cyclic GC: app = the app's policy (inspector.gcpolicy, installed before the "
                        "app starts, as inspector.cli does; the default when that module exists); default "
                        "= CPython's settings; freeze = gc.freeze() once before the stream; freeze-often = "
                        "also every 2,000 session events; off = disabled during the stream (an upper bound)")
    p.add_argument("--profile", type=int, nargs="?", const=25, metavar="N",
                   help="one extra run per workload under cProfile: the top N functions (default 25)")
    args = p.parse_args()
    args.workload = args.workload or list(WORKLOADS)
    if args.events is None:
        args.events = MEMORY_EVENTS if args.memory or args.memory_child else 20_000
    if args.quick:
        args.events, args.runs, args.hog_runs, args.idle = min(args.events, 2_000), 1, 1, 0.5
    if args.gc is None:
        args.gc = "app" if gc_policy() is not None else "default"
    if args.memory:
        return memory(args)
    if args.gc == "app":
        policy = gc_policy()
        if policy is None:
            p.error("--gc app: inspector.gcpolicy is not there")
        policy.install()  # what inspector.cli does at start-up
    if args.memory_child:
        return memory_child(args)

    with tempfile.TemporaryDirectory(prefix="a2a-bench-ui-") as home:
        env = isolated_env(home)
        os.environ.update({k: v for k, v in env.items() if k.startswith("XDG_")})
        try:
            results = run_workloads(args, env, home)
            report(results, args)
        except Failure as exc:
            print(f"ui: FAILED: {exc}", file=sys.stderr)
            return 1
    return 0


def profile(mock: MockProcess, work: Workload, args: argparse.Namespace) -> None:
    import cProfile
    import io
    import pstats

    profiler = cProfile.Profile()
    result = asyncio.run(one_run(mock.url, work, args, mock, profiler))
    print(f"cProfile run, {work.name} (send -> all shown; slower than the runs above): "
          f"{result.rate:,.0f} events/s, longest stall {ms(result.stream_worst)}")
    for order in ("tottime", "cumulative"):
        out = io.StringIO()
        stats = pstats.Stats(profiler, stream=out)
        stats.sort_stats(order).print_stats(args.profile)
        text = out.getvalue()
        start = text.find("   ncalls")
        print(f"top {args.profile} by {order}:")
        print(text[start:] if start >= 0 else text)


if __name__ == "__main__":
    sys.exit(main())
