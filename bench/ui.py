"""UI: long streams into the Task tab, and how long the event loop stalls meanwhile.

The inspector runs as a user runs it: ``InspectorApp(url=...).run()`` with Textual's
own terminal driver, in a child process whose terminal is a pseudo-terminal of 120x36
(ptyprocess). So each frame is encoded into escape codes and written by the driver's
writer thread, as in a real terminal. The benchmark (the parent) plays the terminal: a
thread reads every byte the app writes, answers Textual's query for synchronized
output as kitty, WezTerm or tmux do, and afterwards shows the bytes on a VT100 emulator
(pyte), frame by frame. The app is connected to a2a-mock in another child process
(``a2a-mock --scenario FILE --port 0``).

Two workloads, each streamed with no delays: ``chunks`` (one artifact in 20,000 small
chunks) and ``status`` (20,000 status-update events of one state, each with a short
agent message: an agent that streams its answer a token at a time in status
messages). The clock starts when the first chunk (or status message) reaches the
session and stops after the screen refresh that follows the view holding all of them
(``call_after_refresh``). ``shown/s`` is events per second over that span. The terminal
side adds when the first frame whose screen shows the stream's last words in the view
reached the terminal (the view follows the end with ``scroll_end`` after a refresh, so
that is usually the next frame), and checks that the app's last screen still shows them.

A probe task in the app's event loop sleeps 5 ms in a loop and records how late it
wakes up: the longest overshoot is the longest stall a key press would have met, and
the 99th percentile says how often long ones come. It runs twice in the same run:
with the app idle (connected, nothing streaming) as a baseline, then from the send
until the events are shown. Both, and the rest of a run's measuring, are done by a
coroutine in the app's event loop (``run(auto_pilot=...)``), with public API only.

Each workload also runs with a CPU hog (a busy loop) on the other core: the app is
pinned to core 0; the hog, the mock and the terminal (this process) to core 1
(``--hog-runs``).

The app's GC policy (inspector.gcpolicy) is installed and held until the first frame,
as inspector.cli does; ``--gc`` picks another (see bench/README.md).

``--memory`` instead runs each workload once with 100,000 events and prints the TUI's
peak RSS (and KB per event above the idle app).

The package measured is the one the Python running this file imports (its venv), not
necessarily the checkout this file is in: run this file with another checkout's venv
to measure that checkout's app.

Targets: every event shown, and the terminal's screen showing the stream's end (else
exit 1); longest stall during the stream <= 33 ms quiet and <= 50 ms with the hog;
status messages shown >= 5,000/s; peak RSS at 100k events <= 200 MiB (chunks) and <=
250 MiB (status).
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import gc
import importlib.util
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from common import GCTimer, child_cpu_seconds, chunk_text, median, spread, stop_child, table  # noqa: E402


def code_root() -> Path:
    """The checkout whose app is measured: where this Python imports ``inspector`` from
    (an editable install in its venv); this file's own checkout if it is not installed."""
    spec = importlib.util.find_spec("inspector")
    if spec is None or not spec.submodule_search_locations:
        sys.path.append(str(HERE.parent))
        return HERE.parent
    return Path(next(iter(spec.submodule_search_locations))).resolve().parent


ROOT = code_root()

SIZE = (120, 36)  # columns, lines
PROBE_SLEEP = 0.005
#: Issue 25: worst stall <= 50 ms on Textual's own paint path, quiet (and with the hog).
STALL_TARGET = 0.050
HOG_STALL_TARGET = 0.050
STATUS_RATE_TARGET = 5_000
RSS_TARGETS = {"chunks": 200, "status": 250}  # MiB at 100k events
MEMORY_EVENTS = 100_000
ARTIFACT = "bench"
FREEZE_EVERY = 2_000
WORKLOADS = ("chunks", "status")
#: The last words of the stream that the terminal's screen must show, in order.
TAIL_WORDS = 4

#: Escape sequences (DEC private modes): the alternate screen, and synchronized output
#: (a frame between begin and end is shown at once, as a whole).
ALT_SCREEN_OFF = b"\x1b[?1049l"
SYNC_BEGIN, SYNC_END = b"\x1b[?2026h", b"\x1b[?2026l"
#: Textual asks whether the terminal knows mode 2026 (DECRQM); the answer "known, now
#: off" (DECRPM), as kitty, WezTerm, iTerm2, foot and tmux give it (tests/terminal.py).
SYNC_QUERY, SYNC_ANSWER = b"\x1b[?2026$p", b"\x1b[?2026;2$y"


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
        "card": {
            "name": "UI bench agent",
            "version": "1.0.0",
            "capabilities": {"streaming": True},
            "defaultInputModes": ["text/plain"],
            "defaultOutputModes": ["text/plain"],
            "skills": [{"id": "stream", "name": "Stream", "description": "streams", "tags": ["bench"]}],
        },
        "rules": [{"name": "stream", "script": script}],
    }
    path.write_text(json.dumps(scenario), encoding="utf-8")


class MockProcess:
    """``a2a-mock --scenario FILE --port 0`` in a child process; ``url`` from its banner."""

    def __init__(self, scenario: Path, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "mock_agent.cli", "--scenario", str(scenario), "--port", "0", "--dialect", "1.0"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
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


# ---------------------------------------------------------------------- the terminal (parent)


def terminal_env(base: dict[str, str]) -> dict[str, str]:
    """The app's environment in the pseudo-terminal: a 256-colour xterm with true colour
    and UTF-8 (as tests/terminal.py), none of Textual's developer switches."""
    env = {k: v for k, v in base.items() if not k.startswith("TEXTUAL")}
    env.update({"TERM": "xterm-256color", "COLORTERM": "truecolor", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"})
    for name in ("NO_COLOR", "COLUMNS", "LINES", "TERM_PROGRAM"):
        env.pop(name, None)
    return env


class Terminal:
    """A child process in a pseudo-terminal of ``SIZE`` (ptyprocess: the pty is its
    controlling terminal). A thread drains every byte it writes, as fast as it comes,
    and keeps it with the time it arrived; it answers Textual's DECRQM query. Nothing is
    emulated while the child runs (``Screen`` does that afterwards), so the terminal
    costs the machine little more than a read loop."""

    def __init__(self, argv: list[str], env: dict[str, str], cwd: Path) -> None:
        from ptyprocess import PtyProcess

        #: (time.perf_counter() when read, bytes), in order.
        self.reads: list[tuple[float, bytes]] = []
        self.process = PtyProcess.spawn(argv, dimensions=(SIZE[1], SIZE[0]), env=env, cwd=str(cwd))
        self._thread = threading.Thread(target=self._drain, name="pty-drain", daemon=True)
        self._thread.start()

    def _drain(self) -> None:
        fd = self.process.fd
        clock = time.perf_counter
        tail = b""
        while True:
            try:
                data = os.read(fd, 1 << 16)
            except OSError:  # EIO: the child closed the terminal
                return
            if not data:
                return
            self.reads.append((clock(), data))
            if SYNC_QUERY in tail + data:
                self.process.write(SYNC_ANSWER)
            tail = data[-len(SYNC_QUERY) :]

    def wait(self, timeout: float) -> int | None:
        """The child's exit status; None if it was still running after ``timeout`` (it
        is killed)."""
        deadline = time.monotonic() + timeout
        while self.process.isalive():
            if time.monotonic() > deadline:
                self.close()
                return None
            time.sleep(0.05)
        self._thread.join(timeout=5)
        status = self.process.exitstatus
        return status if status is not None else 128 + (self.process.signalstatus or 0)

    def close(self) -> None:
        if self.process.isalive():
            self.process.terminate(force=True)
        self._thread.join(timeout=5)
        try:
            self.process.close()
        except OSError:
            pass

    def text(self) -> str:
        """What the child wrote after it left the alternate screen (a traceback, say),
        else everything, decoded, escape sequences left out (for a failure message)."""
        raw = b"".join(data for _, data in self.reads)
        stop = raw.rfind(ALT_SCREEN_OFF)
        text = raw[stop + len(ALT_SCREEN_OFF) :] if stop >= 0 else raw
        return re.sub(r"\x1b(\[[0-?]*[ -/]*[@-~]|[@-_])", "", text.decode("utf-8", "replace"))


@dataclass
class Frame:
    """One frame as the terminal showed it: when its last byte arrived, its size."""

    at: float
    nbytes: int


class Screen:
    """What the terminal showed, replayed on a VT100 emulator (pyte) the way a terminal
    with synchronized output shows it: a frame between begin and end at once, at its
    end (each read at once where the app does not use it). Stops where the app leaves
    the alternate screen, so ``text`` is the last screen the app showed."""

    def __init__(self, reads: list[tuple[float, bytes]]) -> None:
        import pyte

        self.screen = pyte.Screen(*SIZE)
        self._stream = pyte.ByteStream(self.screen)
        raw = b"".join(data for _, data in reads)
        self.stop = raw.rfind(ALT_SCREEN_OFF)
        self.raw = raw[: self.stop] if self.stop >= 0 else raw
        self.synced = SYNC_BEGIN in self.raw
        self._times = [at for at, _ in reads]
        self._ends: list[int] = []
        total = 0
        for _, data in reads:
            total += len(data)
            self._ends.append(total)

    def arrived(self, offset: int) -> float:
        """When the byte at ``offset`` reached the terminal."""
        return self._times[bisect.bisect_right(self._ends, offset)]

    def frames(self) -> Any:
        """Feed the emulator frame by frame; yield each ``Frame`` once it is shown."""
        raw = self.raw
        pos = 0
        if self.synced:
            while True:
                end = raw.find(SYNC_END, pos)
                if end < 0:
                    break
                end += len(SYNC_END)
                self._stream.feed(raw[pos:end])
                yield Frame(self.arrived(end - 1), end - pos)
                pos = end
        else:
            for stop in self._ends:
                stop = min(stop, len(raw))
                if stop > pos:
                    self._stream.feed(raw[pos:stop])
                    yield Frame(self.arrived(stop - 1), stop - pos)
                    pos = stop
        if pos < len(raw):
            self._stream.feed(raw[pos:])

    def text(self, region: tuple[int, int, int, int] | None = None) -> str:
        """The screen's text, or a region's (x, y, width, height), cell by cell (the
        cell after a wide character holds nothing)."""
        x, y, width, height = region or (0, 0, *SIZE)
        buffer = self.screen.buffer
        return "\n".join(
            "".join(buffer[row][col].data for col in range(x, x + width)).rstrip()
            for row in range(y, min(y + height, SIZE[1]))
        )

    def dump(self) -> str:
        """The screen in a frame, for a failure message."""
        width = SIZE[0]
        return "\n".join([f"┌{'─' * width}┐", *(f"│{line}│" for line in self.screen.display), f"└{'─' * width}┘"])


def words_of(text: str) -> list[str]:
    """The words of some text as the screen shows them (box drawing, scroll bars and
    other cell art are not words)."""
    return re.findall(r"[^\s\u2500-\u259f]+", text)


def shows_tail(text: str, tail: list[str]) -> bool:
    """Whether ``text`` shows the words ``tail`` one after another."""
    words = words_of(text)
    n = len(tail)
    return any(words[i : i + n] == tail for i in range(len(words) - n + 1))


# ---------------------------------------------------------------------- the probe (app)


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
    rss_mb: float = float("nan")
    peak_mb: float = float("nan")
    #: The app's marks (time.perf_counter(), the same clock in every process on Linux).
    send: float = float("nan")
    shown: float = float("nan")
    #: From the terminal: when the first frame that shows the stream's end arrived, less
    #: the app's ``shown`` mark; frames and bytes the terminal got from the send until then.
    terminal_lag: float = float("nan")
    terminal_frames: int = 0
    terminal_bytes: int = 0
    #: Where the view is on the screen at the end: x, y, width, height (``Widget.region``).
    region: tuple[int, int, int, int] = (0, 0, SIZE[0], SIZE[1])

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

    def tail(self) -> list[str]:
        """The stream's last words: what the screen shows at its end."""
        return words_of(self.expected)[-TAIL_WORDS:]

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
        """Exit 1 unless the whole stream is in the view, in order."""
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
            at = next(i for i, (a, b) in enumerate(zip(text, self.expected, strict=True)) if a != b)
            raise Failure(f"the view's text differs from the stream at character {at:,}")


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def measure(app: Any, pilot: Any, work: Workload, spec: dict[str, Any], profiler: Any) -> Result:
    """One run, in the app's event loop, once the app is up: the idle baseline, then the
    stream, then the checks on what the app holds."""
    from inspector.client.limits import Limits
    from inspector.protocol import models as m

    n = len(work.texts)
    probe = Probe()
    marks: dict[str, float] = {}
    frames = 0

    await wait_for(lambda: app.active is not None and app.active.state == "ready", 30, "the agent")
    conn = app.active
    # More events than the client's default limit (100,000 a stream) for --memory.
    conn.client.limits = Limits(max_body=1 << 30, max_stream_events=n + 1_000)
    view = work.view(app)
    await pilot.pause(0.3)
    rss_idle = rss_mb()

    # Idle baseline: connected, nothing streaming.
    probe.start()
    await asyncio.sleep(spec["idle"])
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

    message = m.Message(
        role=m.Role.USER, parts=[m.TextPart(text="stream please")], message_id=f"bench-{time.monotonic_ns()}"
    )
    policy = spec["gc"]
    gc.collect()
    if policy in ("freeze", "freeze-often"):
        gc.freeze()  # what the app could do once started: see bench/README.md
    elif policy == "off":
        gc.disable()
    if policy == "freeze-often":
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
    mock_pid = spec["mock_pid"]
    mock_cpu0 = child_cpu_seconds(mock_pid)
    probe.start()
    with GCTimer() as gct:
        if profiler is not None:
            profiler.enable()
        marks["send"] = time.perf_counter()
        app.send_message(conn, m.SendParams(message=message), stream=True)
        try:
            await wait_for(lambda: "shown" in marks, spec["timeout"], f"{n:,} {work.name} events to be shown")
        finally:
            if profiler is not None:
                profiler.disable()
    await probe.stop()
    mock_cpu1 = child_cpu_seconds(mock_pid)
    mock_cpu = float("nan") if mock_cpu0 is None or mock_cpu1 is None else mock_cpu1 - mock_cpu0
    gc.enable()

    # ---- checks: the whole stream, in order, in the view (the terminal's screen is
    # checked by the parent)
    await wait_for(lambda: not app.waiting, 30, "the stream to end")
    await pilot.pause(0.1)
    work.check(app, conn, view)
    region = tuple(view.region)
    rss = rss_mb() - rss_idle
    if policy in ("freeze", "freeze-often"):
        gc.unfreeze()
    send, first, stop = marks["send"], marks["first"], marks["shown"]
    return Result(
        workload=work.name,
        hog=bool(spec["hog"]),
        events=n,
        first_after_send=first - send,
        shown_after_first=stop - first,
        idle_worst=idle_worst,
        idle_p99=idle_p99,
        stream_worst=probe.worst(send, stop),
        stream_p99=probe.p99(send, stop),
        frames=frames,
        gc_seconds=gct.seconds,
        gc_full=gct.count[2],
        mock_cpu=mock_cpu,
        rss_mb=rss,
        send=send,
        shown=stop,
        region=region,
    )  # type: ignore[arg-type]


def child(spec: dict[str, Any]) -> int:
    """The app's process (``--child``): its terminal is the parent's pty. Runs the app
    with Textual's own driver, measures one run from inside its event loop, and writes
    the outcome as JSON to ``spec["out"]`` (stdout and stderr are the terminal)."""
    import resource

    if spec["cpus"] is not None:
        os.sched_setaffinity(0, set(spec["cpus"]))  # before any thread starts
    if spec["gc"] == "app":
        from inspector import gcpolicy

        gcpolicy.install()  # what inspector.cli does before it starts the TUI
        gcpolicy.hold()
    from inspector.ui.app import InspectorApp

    work = Workload(spec["workload"], make_chunks(spec["events"], spec["seed"], spec["chunk_chars"]))
    profiler = None
    if spec["profile"]:
        import cProfile

        profiler = cProfile.Profile()
    app = InspectorApp(url=spec["url"])
    outcome: dict[str, Any] = {}

    async def drive(pilot: Any) -> None:
        try:
            result = await measure(app, pilot, work, spec, profiler)
            outcome["result"] = asdict(result)
        except Failure as exc:
            outcome["failure"] = str(exc)
        except Exception:
            outcome["error"] = traceback.format_exc()
        finally:
            app.exit()

    app.run(auto_pilot=drive)
    outcome["package"] = str(Path(sys.modules["inspector"].__file__ or "").resolve().parent)
    if "result" in outcome:
        outcome["result"]["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    if profiler is not None:
        profiler.dump_stats(spec["profile"])
    Path(spec["out"]).write_text(json.dumps(outcome), encoding="utf-8")
    return 0


def one_run(
    work: Workload,
    mock: MockProcess,
    args: argparse.Namespace,
    home: str,
    *,
    hog: bool = False,
    cpus: set[int] | None = None,
    events: int | None = None,
    profile: str | None = None,
) -> Result:
    """One run: the app in a child process in a pseudo-terminal; this process is its
    terminal. Checks that the terminal's screen shows the stream's end."""
    out = Path(home) / "ui-bench-result.json"
    out.unlink(missing_ok=True)
    spec = {
        "url": mock.url,
        "mock_pid": mock.proc.pid,
        "workload": work.name,
        "events": events or args.events,
        "seed": args.seed,
        "chunk_chars": args.chunk_chars,
        "idle": args.idle,
        "timeout": args.timeout,
        "gc": args.gc,
        "hog": hog,
        "cpus": sorted(cpus) if cpus is not None else None,
        "out": str(out),
        "profile": profile,
    }
    env = terminal_env(isolated_env(home))
    term = Terminal([sys.executable, str(Path(__file__).resolve()), "--child", json.dumps(spec)], env, ROOT)
    try:
        status = term.wait(args.timeout + 90)
    finally:
        term.close()
    if status is None:
        raise Failure(f"the app did not end within {args.timeout + 90:.0f} s")
    screen = Screen(term.reads)
    if not out.exists():
        raise Failure(f"the app ended (status {status}) without a result; it wrote:\n{term.text()[-3000:]}")
    outcome = json.loads(out.read_text(encoding="utf-8"))
    if Path(outcome["package"]) != ROOT / "inspector":
        raise Failure(f"the app ran {outcome['package']}, not {ROOT / 'inspector'}")
    if "failure" in outcome:
        raise Failure(outcome["failure"])
    if "error" in outcome:
        raise Failure(f"the run broke:\n{outcome['error']}")
    data = outcome["result"]
    result = Result(**{f.name: data[f.name] for f in fields(Result) if f.name in data})

    # ---- the terminal: the first frame that shows the stream's end, and the last screen
    tail = work.tail()
    region = tuple(result.region)
    seen = None
    frames = nbytes = 0
    for frame in screen.frames():
        if seen is None and frame.at >= result.send:
            frames += 1
            nbytes += frame.nbytes
            if shows_tail(screen.text(region), tail):
                seen = frame.at
    if seen is None or not shows_tail(screen.text(region), tail):
        where = "never showed" if seen is None else "showed, then lost,"
        raise Failure(
            f"the terminal {where} the stream's end ({' '.join(tail)!r}) in the {work.name} view "
            f"(x, y, width, height {region}); its last screen:\n{screen.dump()}"
        )
    result.terminal_lag = seen - result.shown
    result.terminal_frames, result.terminal_bytes = frames, nbytes
    return result


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


def measured() -> str:
    """Which app was measured: its checkout, commit and Textual's version."""
    from importlib.metadata import version

    try:
        commit = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, timeout=10
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        commit = ""
    return f"app: {ROOT}{f' @ {commit}' if commit else ''}, Textual {version('textual')}"


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
            rows.append(
                [
                    where,
                    f"{median(rates):,.0f}/s",
                    f"±{spread(rates) * 50:.0f}%",
                    rate_target,
                    "PASS" if rate_ok else "MISS",
                ]
            )
            rows.append(
                [
                    "  longest stall (worst run)",
                    ms(worst),
                    f"median {ms(median(stalls))}",
                    f"<= {target * 1000:.0f} ms",
                    "PASS" if worst <= target else "MISS",
                ]
            )
            rows.append(
                [
                    "  p99 wake-up lateness (worst run)",
                    ms(max(r.stream_p99 for r in rs)),
                    f"median {ms(median([r.stream_p99 for r in rs]))}",
                    "",
                    "",
                ]
            )
            rows.append(
                [
                    "  idle baseline: longest / p99",
                    ms(max(r.idle_worst for r in rs)),
                    ms(median([r.idle_p99 for r in rs])),
                    "",
                    "",
                ]
            )
            rows.append(
                [
                    "  time to show all / first after send",
                    ms(median([r.shown_after_first for r in rs])),
                    ms(median([r.first_after_send for r in rs])),
                    "",
                    "",
                ]
            )
            rows.append(
                [
                    "  end on the terminal, after the app's refresh",
                    ms(median([r.terminal_lag for r in rs])),
                    f"{median([r.terminal_frames for r in rs]):,.0f} frames, "
                    f"{median([r.terminal_bytes for r in rs]) / 1024:,.0f} KiB",
                    "",
                    "",
                ]
            )
            rows.append(
                [
                    "  UI updates / GC / mock CPU",
                    f"{median([r.frames for r in rs]):,.0f}",
                    f"GC {ms(median([r.gc_seconds for r in rs]))}, "
                    f"{median([r.gc_full for r in rs]):.0f} full; mock {ms(median([r.mock_cpu for r in rs]))}",
                    "",
                    "",
                ]
            )
    policy = {"app": "GC: the app's policy (inspector.gcpolicy)", "default": "GC: CPython's defaults"}.get(
        args.gc, f"--gc {args.gc}"
    )
    n = results[0].events
    table(
        ["measure", "median", "spread / note", "target", "verdict"],
        rows,
        title=f"ui: {n:,} events streamed into the Task tab, Textual's terminal driver in a "
        f"{SIZE[0]}x{SIZE[1]} pty, {args.runs} run(s) quiet + {args.hog_runs} with a CPU hog; "
        f"{policy}; probe sleeps {PROBE_SLEEP * 1000:.0f} ms\n{measured()}",
    )
    per_run = [
        [
            f"{r.workload}{' +hog' if r.hog else ''}",
            f"{r.rate:,.0f}/s",
            ms(r.shown_after_first),
            ms(r.stream_worst),
            ms(r.stream_p99),
            ms(r.idle_worst),
            ms(r.gc_seconds),
            ms(r.terminal_lag),
        ]
        for r in results
    ]
    table(["run", "shown/s", "time", "stall", "p99", "idle stall", "GC", "term +"], per_run)
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
                results.append(one_run(work, mock, args, home))
            if args.hog_runs and pins is None:
                print("ui: fewer than two cores: no runs with a CPU hog", file=sys.stderr)
            elif args.hog_runs:
                mine, other = pins
                before = os.sched_getaffinity(0)
                # The terminal (this process) keeps to the other core, with the hog and
                # the mock; the app has the first to itself.
                os.sched_setaffinity(0, other)
                mock.pin(other)
                hog = Hog(other)
                try:
                    for _ in range(args.hog_runs):
                        results.append(one_run(work, mock, args, home, hog=True, cpus=mine))
                finally:
                    hog.close()
                    os.sched_setaffinity(0, before)
                    mock.pin(before)
            if args.profile:
                profile(work, mock, args, home)
        finally:
            mock.close()
    return results


def memory(args: argparse.Namespace, env: dict[str, str], home: str) -> int:
    args.idle = 0.2  # the idle baseline's figures are not shown
    rows = []
    for name in args.workload:
        texts = make_chunks(args.events, args.seed, args.chunk_chars)
        work = Workload(name, texts)
        scenario = Path(home) / f"ui-bench-{name}.json"
        write_scenario(scenario, texts, name)
        mock = MockProcess(scenario, env)
        try:
            result = one_run(work, mock, args, home)
        finally:
            mock.close()
        peak, grown = result.peak_mb, result.rss_mb
        target = RSS_TARGETS[name]
        rows.append(
            [
                name,
                f"{args.events:,}",
                f"{peak:,.0f} MiB",
                f"{grown * 1024 / args.events:.2f} KiB",
                f"{result.rate:,.0f}/s",
                f"<= {target} MiB",
                "PASS" if peak <= target else "MISS",
            ]
        )
    table(
        ["workload", "events", "peak RSS", "per event", "shown/s", "target", "verdict"],
        rows,
        title="ui --memory: the TUI's peak RSS (real app in a pty, its own process), "
        f"per event: RSS grown from the connected idle app\n{measured()}",
    )
    return 0


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="2,000 events, one run each (a smoke test)")
    p.add_argument(
        "--workload",
        action="append",
        choices=WORKLOADS,
        help="chunks (artifact chunks) or status (status messages); repeatable; default both",
    )
    p.add_argument(
        "--events", "--chunks", type=int, default=None, help="events a stream (default 20,000; 100,000 with --memory)"
    )
    p.add_argument("--chunk-chars", type=int, default=12, help="about this many characters an event (default 12)")
    p.add_argument("--runs", type=int, default=3, help="quiet runs per workload (default 3)")
    p.add_argument(
        "--hog-runs",
        type=int,
        default=2,
        help="runs per workload with a CPU hog on the other core (default 2; 0: none)",
    )
    p.add_argument("--idle", type=float, default=1.5, help="seconds of idle baseline per run (default 1.5)")
    p.add_argument("--timeout", type=float, default=120.0)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--no-encode", action="store_true", help=argparse.SUPPRESS)
    p.add_argument(
        "--memory",
        action="store_true",
        help="peak RSS of the TUI for each workload at 100,000 events, each in its own process",
    )
    p.add_argument("--child", metavar="JSON", help=argparse.SUPPRESS)
    p.add_argument(
        "--gc",
        choices=("app", "default", "freeze", "freeze-often", "off"),
        default=None,
        help="the cyclic GC: app = the app's policy (inspector.gcpolicy, installed and held "
        "until the first frame, as inspector.cli does; the default when that module "
        "exists); default = CPython's settings; freeze = gc.freeze() once before the "
        "stream; freeze-often = also every 2,000 session events; off = disabled during "
        "the stream (an upper bound)",
    )
    p.add_argument(
        "--profile",
        type=int,
        nargs="?",
        const=25,
        metavar="N",
        help="one extra run per workload under cProfile: the top N functions (default 25)",
    )
    args = p.parse_args()
    if args.child is not None:
        return child(json.loads(args.child))
    missing = [name for name in ("ptyprocess", "pyte") if importlib.util.find_spec(name) is None]
    if missing:
        p.error(
            f"{' and '.join(missing)} missing in {sys.prefix}: the app runs in a pseudo-terminal "
            "(ptyprocess) read by a VT100 emulator (pyte): pip install 'ptyprocess>=0.7,<0.8' "
            "'pyte>=0.8.2,<0.9' (the project's [test] extra has both)"
        )
    if args.no_encode:
        p.error(
            "--no-encode is gone: the app runs with Textual's terminal driver, which always "
            "encodes each frame for the terminal"
        )
    args.workload = args.workload or list(WORKLOADS)
    if args.events is None:
        args.events = MEMORY_EVENTS if args.memory else 20_000
    if args.quick:
        args.events, args.runs, args.hog_runs, args.idle = min(args.events, 2_000), 1, 1, 0.5
    if args.gc is None:
        args.gc = "app" if gc_policy() is not None else "default"
    if args.gc == "app" and gc_policy() is None:
        p.error("--gc app: inspector.gcpolicy is not there")

    with tempfile.TemporaryDirectory(prefix="a2a-bench-ui-") as home:
        env = isolated_env(home)
        try:
            if args.memory:
                return memory(args, env, home)
            results = run_workloads(args, env, home)
            report(results, args)
        except Failure as exc:
            print(f"ui: FAILED: {exc}", file=sys.stderr)
            return 1
    return 0


def profile(work: Workload, mock: MockProcess, args: argparse.Namespace, home: str) -> None:
    import io
    import pstats

    stats_file = str(Path(home) / f"ui-bench-{work.name}.prof")
    result = one_run(work, mock, args, home, profile=stats_file)
    print(
        f"cProfile run, {work.name} (send -> all shown; slower than the runs above): "
        f"{result.rate:,.0f} events/s, longest stall {ms(result.stream_worst)}"
    )
    for order in ("tottime", "cumulative"):
        out = io.StringIO()
        stats = pstats.Stats(stats_file, stream=out)
        stats.sort_stats(order).print_stats(args.profile)
        text = out.getvalue()
        start = text.find("   ncalls")
        print(f"top {args.profile} by {order}:")
        print(text[start:] if start >= 0 else text)


if __name__ == "__main__":
    sys.exit(main())
