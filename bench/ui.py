"""UI: a 20,000-chunk stream into the Task tab, and how long the event loop stalls meanwhile.

The inspector runs headless (``App.run_test``, 120x36) against a2a-mock in a child
process (``a2a-mock --scenario FILE --port 0``). The scenario streams one artifact in
20,000 small chunks with no delays. The clock starts when the first chunk reaches the
session and stops after the screen refresh that follows the artifact view holding all
of them. ``shown/s`` is chunks per second over that span.

A probe task in the app's event loop sleeps 5 ms in a loop and records how late it
wakes up: the longest overshoot is the longest stall a key press would have met. It
runs twice in the same run: with the app idle (connected, nothing streaming) as a
baseline, then from the send until the chunks are shown.

Headless Textual skips encoding each frame into terminal escape codes, which a real
terminal pays. The benchmark does that work too (and throws the result away), so the
figures include it; ``--no-encode`` leaves it out.

The app's GC policy (inspector.gcpolicy) is installed first, as inspector.cli does;
``--gc`` picks another (see bench/README.md).

Targets: every chunk shown (else exit 1); longest stall during the stream <= 50 ms.
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
STALL_TARGET = 0.050
ARTIFACT = "bench"
FREEZE_EVERY = 2_000


class Failure(Exception):
    """Something functionally wrong: exit 1."""


# ---------------------------------------------------------------------- the mock


def make_chunks(n: int, seed: int, target: int) -> list[str]:
    """``n`` chunks of about ``target`` characters of model-like text (some non-ASCII,
    quotes, tabs, newlines), seeded."""
    rng = random.Random(seed)
    return [chunk_text(rng, target) for _ in range(n)]


def write_scenario(path: Path, chunks: list[str]) -> None:
    scenario = {
        "name": "ui-bench",
        "description": f"one artifact in {len(chunks)} chunks, no delays",
        "card": {"name": "UI bench agent", "version": "1.0.0", "capabilities": {"streaming": True},
                 "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
                 "skills": [{"id": "stream", "name": "Stream", "description": "streams", "tags": ["bench"]}]},
        "rules": [{"name": "stream", "script": [
            {"status": "working"},
            {"chunks": {"id": ARTIFACT, "name": "bench.txt", "texts": chunks}},
            {"status": "completed", "message": "done"},
        ]}],
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


# ---------------------------------------------------------------------- one run


@dataclass
class Result:
    chunks: int
    first_chunk_after_send: float
    shown_after_first: float
    idle_worst: float
    idle_p99: float
    stream_worst: float
    stream_p99: float
    frames: int
    gc_seconds: float
    gc_full: int
    mock_cpu: float

    @property
    def rate(self) -> float:
        return self.chunks / self.shown_after_first if self.shown_after_first > 0 else float("inf")


def encode_frames(app: Any) -> None:
    """Make the headless app also turn each frame into terminal output, as a real
    terminal run does (the result is discarded)."""
    from textual._compositor import CompositorUpdate

    display = app._display

    def _display(screen: Any, renderable: Any) -> None:
        display(screen, renderable)
        if isinstance(renderable, CompositorUpdate) and not app._batch_count:
            renderable.render_segments(app.console)

    app._display = _display


async def wait_for(predicate: Any, timeout: float, what: str, step: float = 0.02) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise Failure(f"timed out after {timeout:.0f} s waiting for {what}")
        await asyncio.sleep(step)


async def one_run(url: str, chunks: list[str], args: argparse.Namespace, mock: MockProcess,
                  profiler: Any = None) -> Result:
    from inspector.protocol import models as m
    from inspector.protocol.models import TaskArtifactUpdateEvent
    from inspector.textsafe import visible
    from inspector.ui.app import InspectorApp
    from inspector.ui.widgets.artifacts_view import ArtifactsView
    from inspector.ui.widgets.wrap import TAB

    expected = visible("".join(chunks)).replace("\t", TAB)
    n = len(chunks)
    app = InspectorApp(url=url)
    probe = Probe()
    marks: dict[str, float] = {}
    frames = 0

    async with app.run_test(size=SIZE) as pilot:
        if not args.no_encode:
            encode_frames(app)
        await wait_for(lambda: app.active is not None and app.active.state == "ready", 30, "the agent")
        conn = app.active
        artifacts = app.main.query_one(ArtifactsView)
        await pilot.pause(0.3)

        # Idle baseline: connected, nothing streaming.
        probe.start()
        await asyncio.sleep(args.idle)
        await probe.stop()
        idle_worst, idle_p99 = probe.worst(), probe.p99()

        def listener(event: Any) -> None:
            if "first" not in marks and isinstance(event.payload, TaskArtifactUpdateEvent):
                marks["first"] = time.perf_counter()

        conn.session.subscribe(listener)

        def shown() -> None:
            marks.setdefault("shown", time.perf_counter())

        original = artifacts.session_advanced

        def session_advanced(conn_: Any, events: Any, changed: Any) -> None:
            nonlocal frames
            frames += 1
            original(conn_, events, changed)
            if "full" not in marks:
                section = artifacts.document.sections.get(ARTIFACT)
                shown_chars = sum(b.body.chars for b in section.blocks if b.kind == "text") if section else 0
                if shown_chars >= len(expected):
                    marks["full"] = time.perf_counter()
                    app.call_after_refresh(shown)

        artifacts.session_advanced = session_advanced  # type: ignore[method-assign]

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
        with GCTimer() as gct:
            if profiler is not None:
                profiler.enable()
            marks["send"] = time.perf_counter()
            app.send_message(conn, m.SendParams(message=message), stream=True)
            try:
                await wait_for(lambda: "shown" in marks, args.timeout, f"{n:,} chunks to be shown")
            finally:
                if profiler is not None:
                    profiler.disable()
        await probe.stop()
        mock_cpu = mock.cpu_seconds() - mock_cpu0
        gc.enable()

        # ---- checks: the whole stream, in order, on screen
        await wait_for(lambda: not app.waiting, 30, "the stream to end")
        await pilot.pause(0.1)
        task = conn.tracker.task(app.task_id) if app.task_id else None
        if task is None:
            raise Failure("no task selected after the stream")
        if task.state.value != "completed":
            raise Failure(f"the task ended {task.state.value}, not completed")
        art = task.artifacts.get(ARTIFACT)
        if art is None or len(art.chunks) != n:
            raise Failure(f"the tracker holds {len(art.chunks) if art else 0:,} chunks, not {n:,}")
        text = artifacts.text_of(ARTIFACT)
        if text is None:
            raise Failure("the artifact view does not show the artifact")
        if len(text) != len(expected):
            raise Failure(f"the artifact view shows {len(text):,} characters, not {len(expected):,}")
        if text != expected:
            at = next(i for i, (a, b) in enumerate(zip(text, expected)) if a != b)
            raise Failure(f"the artifact view's text differs from the chunks at character {at:,}")
        summary = str(artifacts.query_one("#artifacts-summary").render())
        if f"{n} chunks" not in summary:
            raise Failure(f"the summary says {summary!r}, not {n} chunks")
        screen = "\n".join(strip.text for strip in app.screen._compositor.render_strips())
        tail = expected.rstrip().rsplit("\n", 1)[-1].split()[-1]
        if tail not in screen:
            raise Failure(f"the screen does not show the last chunk's end ({tail!r})")

    if args.gc in ("freeze", "freeze-often"):
        gc.unfreeze()
    send, first, stop = marks["send"], marks["first"], marks["shown"]
    return Result(
        chunks=n, first_chunk_after_send=first - send, shown_after_first=stop - first,
        idle_worst=idle_worst, idle_p99=idle_p99,
        stream_worst=probe.worst(send, stop), stream_p99=probe.p99(send, stop),
        frames=frames, gc_seconds=gct.seconds, gc_full=gct.count[2], mock_cpu=mock_cpu)


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
    n = results[0].chunks
    rates = [r.rate for r in results]
    stalls = [r.stream_worst for r in results]
    worst_stall = max(stalls)
    verdict = "PASS" if worst_stall <= STALL_TARGET else "MISS"
    rows = [
        ["chunks shown/s (first chunk -> all on screen)", f"{median(rates):,.0f}/s",
         f"±{spread(rates) * 50:.0f}%", "", "every chunk", "PASS"],
        ["time to show all chunks", ms(median([r.shown_after_first for r in results])), "", "", "", ""],
        ["longest stall, streaming (worst run)", ms(worst_stall), f"median {ms(median(stalls))}",
         ms(max(r.idle_worst for r in results)), f"<= {STALL_TARGET * 1000:.0f} ms", verdict],
        ["p99 wake-up lateness, streaming", ms(median([r.stream_p99 for r in results])), "",
         ms(median([r.idle_p99 for r in results])), "", ""],
        ["first chunk after send", ms(median([r.first_chunk_after_send for r in results])), "", "", "", ""],
        ["UI updates (SessionAdvanced) per stream", f"{median([r.frames for r in results]):,.0f}", "", "", "", ""],
        ["GC during the stream", ms(median([r.gc_seconds for r in results])),
         f"{median([r.gc_full for r in results]):.0f} full", "", "", ""],
        ["mock CPU for the stream", ms(median([r.mock_cpu for r in results])), "", "", "", ""],
    ]
    encode = "frames encoded as for a terminal" if not args.no_encode else "frames not encoded (--no-encode)"
    encode += {"app": "; GC: the app's policy (inspector.gcpolicy)", "default": "; GC: CPython's defaults"}.get(
        args.gc, f"; --gc {args.gc}")
    table(["measure", "median", "spread / note", "idle baseline", "target", "verdict"], rows,
          title=f"ui: {n:,} chunks streamed into the Task tab, headless {SIZE[0]}x{SIZE[1]}, "
                f"{len(results)} run(s); {encode}; probe sleeps {PROBE_SLEEP * 1000:.0f} ms")
    per_run = [[f"run {i + 1}", f"{r.rate:,.0f}/s", ms(r.shown_after_first), ms(r.stream_worst),
                ms(r.idle_worst), ms(r.gc_seconds)] for i, r in enumerate(results)]
    table(["run", "shown/s", "time", "stall", "idle stall", "GC"], per_run)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="2,000 chunks, one run (a smoke test)")
    p.add_argument("--chunks", type=int, default=20_000)
    p.add_argument("--chunk-chars", type=int, default=12, help="about this many characters a chunk (default 12)")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--idle", type=float, default=1.5, help="seconds of idle baseline per run (default 1.5)")
    p.add_argument("--timeout", type=float, default=120.0)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--no-encode", action="store_true", help="leave out encoding frames for a terminal")
    p.add_argument("--gc", choices=("app", "default", "freeze", "freeze-often", "off"), default=None,
                   help="the cyclic GC: app = the app's policy (inspector.gcpolicy, installed before the "
                        "app starts, as inspector.cli does; the default when that module exists); default "
                        "= CPython's settings; freeze = gc.freeze() once before the stream; freeze-often = "
                        "also every 2,000 session events; off = disabled during the stream (an upper bound)")
    p.add_argument("--profile", type=int, nargs="?", const=25, metavar="N",
                   help="one extra run under cProfile: the top N functions (default 25)")
    args = p.parse_args()
    if args.quick:
        args.chunks, args.runs, args.idle = 2_000, 1, 0.5
    if args.gc is None:
        args.gc = "app" if gc_policy() is not None else "default"
    if args.gc == "app":
        policy = gc_policy()
        if policy is None:
            p.error("--gc app: inspector.gcpolicy is not there")
        policy.install()  # what inspector.cli does at start-up

    with tempfile.TemporaryDirectory(prefix="a2a-bench-ui-") as home:
        env = isolated_env(home)
        os.environ.update({k: v for k, v in env.items() if k.startswith("XDG_")})
        chunks = make_chunks(args.chunks, args.seed, args.chunk_chars)
        scenario = Path(home) / "ui-bench.json"
        write_scenario(scenario, chunks)
        mock: MockProcess | None = None
        try:
            mock = MockProcess(scenario, env)
            results = [asyncio.run(one_run(mock.url, chunks, args, mock)) for _ in range(args.runs)]
            report(results, args)
            if args.profile:
                profile(mock, chunks, args)
        except Failure as exc:
            print(f"ui: FAILED: {exc}", file=sys.stderr)
            return 1
        finally:
            if mock is not None:
                mock.close()
    return 0


def profile(mock: MockProcess, chunks: list[str], args: argparse.Namespace) -> None:
    import cProfile
    import io
    import pstats

    profiler = cProfile.Profile()
    result = asyncio.run(one_run(mock.url, chunks, args, mock, profiler))
    print(f"cProfile run (send -> all shown; slower than the runs above): {result.rate:,.0f} chunks/s, "
          f"longest stall {ms(result.stream_worst)}")
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
