"""Replay: a recording fed back into a read-only connection, under a cursor.

``a2a-inspect replay FILE`` loads the recording and runs the inspector on a connection
whose session holds the recording's first ``cursor`` events. The views cannot tell it
from a live connection: moving forward appends the next events to the session (through
the same frame pump live traffic takes), so the task view, artifacts, traffic and card
follow exactly as they did when it happened. Moving back cannot un-append, so a fresh
connection (Session + TaskTracker rebuilt from ``events[:cursor]``) replaces the old one
and the views redraw it from scratch, as they do when the user switches agents.

``ReplayController`` is the logic (no Textual): cursor, play/pause, speed, step, seek,
state changes. The timeline widget (``widgets/replay_bar.py``) drives it from a timer;
``ReplayApp`` (``replay_app.py``) is the inspector app with the replay keys bound
globally. The controller does not know the app: the widget and the app both import it.
"""

from __future__ import annotations

import math
import threading
import time
from bisect import bisect_left, bisect_right
from collections.abc import Callable
from typing import Any

from ..protocol.models import TaskState
from ..session import Event, Kind, Recording, Session, TaskTracker
from ..session.index import IndexStore, RecordingIndex, StateMark
from .connection import AgentConnection

#: Playback speeds, slowest first; None is "max": no pacing, the recording as fast as it draws.
SPEEDS: tuple[float | None, ...] = (0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 50.0, None)
#: At max speed the whole recording plays in about this many seconds (at least MAX_BATCH
#: events a frame), so long recordings do not take minutes and short ones stay visible.
MAX_SPEED_SECONDS = 5.0
MAX_BATCH = 20
FRAME = 1 / 30
#: Going back rebuilds the session; holding a key rebuilds at most this often.
REBUILD_GAP = 0.08
#: Events read from the recording at a time when the cursor moves far.
PAGE = 4096
#: A seek further ahead than this builds a new connection at the target (as going back
#: does) instead of handing every event in between to the views as news.
FAR_FORWARD = 50_000
#: A rebuild of more events than this runs in a background thread.
SYNC_BUILD = 20_000
#: A replayed session holds this many events in memory; the recording has the rest.
REPLAY_KEPT = 100_000


def speed_label(speed: float | None) -> str:
    if speed is None:
        return "max"
    return f"{speed:g}x"


def format_t(t: float) -> str:
    """Recorded seconds as m:ss.mmm (h:mm:ss.mmm past an hour)."""
    t = max(0.0, t)
    minutes, seconds = divmod(t, 60.0)
    hours, minutes = divmod(int(minutes), 60)
    if hours:
        return f"{hours}:{minutes:02d}:{seconds:06.3f}"
    return f"{minutes}:{seconds:06.3f}"


def parse_target(text: str, controller: ReplayController) -> int:
    """What ``g`` was given: an event number (0..N), or a recorded time like ``12.5s``.
    Raises ValueError with a message for the user."""
    text = text.strip().lower()
    if not text:
        raise ValueError("no event number given")
    n = controller.total
    if text.endswith("s"):
        try:
            seconds = float(text[:-1])
        except ValueError:
            raise ValueError(f"not a time: {text!r} (try 12.5s)") from None
        if not math.isfinite(seconds):
            raise ValueError(f"not a time: {text!r}")
        return controller.position_at(seconds)
    try:
        number = int(text.lstrip("#"))
    except ValueError:
        raise ValueError(f"not an event number: {text!r} (0-{n}, or a time like 12.5s)") from None
    if number < 0 or (number > n and not controller.loading):
        raise ValueError(f"event {number} is outside the recording (0-{n})")
    return number


class ReplayController:
    """A cursor over a recording's events and the read-only connection showing them.

    ``cursor`` is how many events the connection's session holds (0..total); the event
    "at" the cursor is the last one applied. Forward moves extend the session in place;
    backward moves build a new connection from ``events[:cursor]`` and hand it to
    ``on_swap(old, new)`` (the app installs it and tells the views). ``tick(now)`` is
    called every frame: it plays (paced by the events' recorded ``t`` / speed) and
    applies seeks that were deferred to keep key repeat from rebuilding every key press.
    """

    def __init__(
        self,
        recording: Recording | RecordingIndex,
        *,
        name: str = "recording",
        url: str | None = None,
        cursor: int | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """``recording``: a loaded Recording, or a RecordingIndex (events read from the
        file as the cursor moves; the index may still be growing in the background, and
        ``total`` with it). ``cursor`` None: the end, or the start while still indexing."""
        self.recording = recording
        if isinstance(recording, RecordingIndex):
            self.source: Any = recording
            self.started_wall = recording.started_wall
        else:
            self.source = _LoadedSource(recording)
            self.started_wall = recording.session.started_wall
        self.name = name
        self._url = url
        self._clock = clock
        #: Called with (old, new) after a backward move built a new connection.
        self.on_swap: Callable[[AgentConnection, AgentConnection], None] | None = None
        #: Called after any change the timeline should redraw (cursor, play state, speed).
        self.on_change: Callable[[], object] | None = None
        #: Called when events moving forward changed what the connection knows of the
        #: agent (its card, its dialect): live, the client announces that the same way.
        self.on_facts: Callable[[AgentConnection], None] | None = None
        #: Called once when a background index has read the whole file.
        self.on_loaded: Callable[[], None] | None = None
        self._was_loading = self.loading
        self.playing = False
        self.speed: float | None = 1.0
        #: The recorded time the play head is at (moves smoothly between events while playing).
        self.head_t = 0.0
        self._last_tick: float | None = None
        self._pending: int | None = None
        self._last_rebuild = -math.inf
        #: A rebuilt connection was handed over and the views have not drawn it yet:
        #: events appended now would reach them twice (in the redraw and as news).
        self.settling = False
        self.rebuilds = 0
        self._mark_positions: list[int] = []
        self._job: _Build | None = None
        if cursor is None:
            start = 0 if self.loading else self.total
        else:
            start = max(0, min(self.total, cursor))
        self.cursor = start
        self.conn = self._build(start)
        self.head_t = self._t_at(start)

    # ------------------------------------------------------------------ the recording

    @property
    def events(self) -> Any:
        """The recording's events (indexed so far), by position."""
        return self.source.events

    @property
    def total(self) -> int:
        return len(self.source.events)

    @property
    def loading(self) -> bool:
        """The index is still reading the file: ``total`` grows."""
        return not self.source.done

    @property
    def progress(self) -> float:
        """How much of the recording is indexed, 0..1."""
        return self.source.progress

    @property
    def url(self) -> str:
        if self._url is not None:
            return self._url
        return self.source.url or self.source.card_url or "recording"

    @url.setter
    def url(self, value: str) -> None:
        self._url = value

    @property
    def card_url(self) -> str | None:
        return self.source.card_url

    @property
    def marks(self) -> list[StateMark]:
        return self.source.marks

    @property
    def lanes(self) -> dict[str, list[StateMark]]:
        return self.source.lanes

    @property
    def first_position(self) -> dict[str, int]:
        return self.source.first_position

    @property
    def mark_positions(self) -> list[int]:
        """Positions of every state change, ascending (the timeline's ticks)."""
        marks = self.source.marks
        cached = self._mark_positions
        if len(cached) < len(marks):
            cached.extend(m.position for m in marks[len(cached) :])
        return cached

    @property
    def _times(self) -> Any:
        return self.source.times

    # ------------------------------------------------------------------ facts

    @property
    def position(self) -> int:
        """Where the cursor is going: a deferred seek's target, a rebuild's in progress,
        else the cursor."""
        if self._pending is not None:
            return self._pending
        return self._job.target if self._job is not None else self.cursor

    @property
    def seeking(self) -> bool:
        """A rebuild is running in the background (or a target waits for the index)."""
        return self._job is not None or (self._pending is not None and self._pending > self.total)

    @property
    def at_end(self) -> bool:
        return self.position >= self.total

    @property
    def duration(self) -> float:
        return self._times[-1] if self._times else 0.0

    def event_at(self, position: int | None = None) -> Event | None:
        """The last event applied at ``position`` (default: the cursor), None at 0."""
        position = self.position if position is None else position
        return self.events[position - 1] if 0 < position <= self.total else None

    def time_at(self, position: int | None = None) -> float:
        return self._t_at(self.position if position is None else position)

    @property
    def shown_t(self) -> float:
        """The time to show: the play head while playing, else the event's time."""
        if self.playing and self._pending is None:
            return max(self.head_t, self._t_at(self.cursor))
        return self.time_at()

    def position_at(self, t: float) -> int:
        """The cursor that includes every event recorded at or before ``t``."""
        return bisect_right(self._times, t)

    def wait_for_next(self) -> float | None:
        """Wall-clock seconds until the next event plays (None unless playing, paced)."""
        if not self.playing or self.speed is None or self._pending is not None or self.cursor >= self.total:
            return None
        return max(0.0, (self._times[self.cursor] - self.head_t) / self.speed)

    def state_at(self, task_id: str, position: int | None = None) -> TaskState | None:
        lane = self.lanes.get(task_id)
        if not lane:
            return None
        position = self.position if position is None else position
        i = bisect_right(lane, position, key=lambda m: m.position)
        return lane[i - 1].state if i else None

    def next_mark(self, direction: int, position: int | None = None) -> int | None:
        """The position of the next (direction 1) or previous (-1) state change."""
        position = self.position if position is None else position
        marks = self.mark_positions
        if direction > 0:
            i = bisect_right(marks, position)
            return marks[i] if i < len(marks) else None
        i = bisect_left(marks, position)
        return marks[i - 1] if i else None

    # ------------------------------------------------------------------ commands

    def play(self) -> None:
        if self.total == 0:
            return
        if self.at_end:
            self.seek(0)
        self.playing = True
        self.head_t = self._t_at(self.position)
        self._last_tick = None
        self._changed()

    def pause(self) -> None:
        if self.playing:
            self.playing = False
            self._changed()

    def toggle(self) -> None:
        if self.playing:
            self.pause()
        else:
            self.play()

    def faster(self) -> None:
        self._set_speed(1)

    def slower(self) -> None:
        self._set_speed(-1)

    def set_speed(self, speed: float | None) -> None:
        self.speed = speed
        self._changed()

    def step(self, count: int = 1) -> None:
        """Step ``count`` events (negative: back). Stepping pauses."""
        self.playing = False
        self.seek(self.position + count)

    def jump_state(self, direction: int) -> bool:
        """To the next/previous state change of any task; False when there is none."""
        target = self.next_mark(direction)
        if target is None:
            return False
        self.playing = False
        self.seek(target)
        return True

    def home(self) -> None:
        self.seek(0)

    def end(self) -> None:
        self.playing = False
        self.seek(self.total)

    def seek(self, position: int) -> None:
        """Move the cursor to ``position`` (clamped). Forward now; back at the next tick
        if the last rebuild was very recent (the timeline shows the target meanwhile).
        While the index is still reading the file, a position past what it has read is
        kept as the target and reached once it has."""
        if not (self.loading and position > self.total):
            position = max(0, min(self.total, position))
        near = self.cursor <= position <= min(self.total, self.cursor + FAR_FORWARD)
        if self._pending is None and self._job is None and not self.settling and near:
            self._forward(position)
        else:
            self._pending = position
            if self._may_apply(self._clock()):
                self._apply_pending()
        self.head_t = self._t_at(self.position)
        self._last_tick = None
        if self.position >= self.total:
            self.playing = False
        self._changed()

    def tick(self, now: float | None = None) -> bool:
        """One frame: apply a deferred seek, then play. True when the cursor moved."""
        now = self._clock() if now is None else now
        if self._was_loading and not self.loading:
            self._was_loading = False
            if self.on_loaded is not None:
                self.on_loaded()
        before = (self.cursor, self.playing)
        job = self._job
        if job is not None and job.done.is_set():
            self._job = None
            if job.conn is not None and not job.cancelled:
                self._install(job.conn, job.target)
        if self._pending is not None and self._may_apply(now):
            self._apply_pending()
        if self.playing and self._pending is None and self._job is None and not self.settling:
            last, self._last_tick = self._last_tick, now
            if self.speed is None:
                # Paced by the clock, not per frame: slow frames take bigger batches.
                rate = max(MAX_BATCH / FRAME, self.total / MAX_SPEED_SECONDS)
                elapsed = FRAME if last is None else min(0.5, max(0.0, now - last))
                target = min(self.total, self.cursor + max(1, math.ceil(rate * elapsed)))
            else:
                if last is not None:
                    self.head_t += max(0.0, now - last) * self.speed
                target = bisect_right(self._times, self.head_t, lo=self.cursor)
            if target > self.cursor:
                self._forward(target)
            if self.cursor >= self.total:
                self.playing = False
        moved = (self.cursor, self.playing) != before
        if moved:
            self._changed()
        return moved

    def settled(self) -> None:
        """The views have drawn the rebuilt connection: events may flow again."""
        self.settling = False

    # ------------------------------------------------------------------ building

    def _may_apply(self, now: float) -> bool:
        if self.settling:
            return False
        target = self._pending
        if target is not None and target > self.total:
            if self.loading:
                return False  # not indexed yet: wait for it
            target = self._pending = self.total
        # Forward needs no rebuild; back (or far ahead) waits for REBUILD_GAP since the last one.
        return (
            target is not None and self.cursor <= target <= self.cursor + FAR_FORWARD
        ) or now - self._last_rebuild >= REBUILD_GAP

    def _forward(self, position: int) -> None:
        conn = self.conn
        before = _facts(conn)
        session = conn.session
        for start in range(self.cursor, position, PAGE):
            for event in self.events[start : min(position, start + PAGE)]:
                session.extend(event)
        self.cursor = position
        if self.on_facts is not None and _facts(conn) != before:
            self.on_facts(conn)

    def _apply_pending(self) -> None:
        target, self._pending = self._pending, None
        if target is None:
            return
        if self.cursor <= target <= self.cursor + FAR_FORWARD:
            self._forward(target)
            return
        # Back, or far ahead: a new connection at the target, which the views redraw
        # from scratch (far ahead, that is less work than showing every event as news).
        if self._job is not None:
            self._job.cancelled = True  # the user moved on: its result is not wanted
            self._job = None
        if isinstance(self.source, RecordingIndex) and target > SYNC_BUILD:
            # A long rebuild runs in a thread; the views go on showing the old cursor
            # (the timeline, the target) and stay usable until it is done (tick swaps).
            # Meanwhile the shown session keeps few events in memory: two whole sessions
            # of a long recording would not fit the memory a replay should take.
            self.conn.session.shrink(PAGE)
            self._job = _Build(self, target)
            return
        self._install(self._build(target), target)

    def _install(self, conn: AgentConnection, target: int) -> None:
        old = self.conn
        self.conn = conn
        self.cursor = target
        self._last_rebuild = self._clock()
        self.rebuilds += 1
        self._last_tick = None
        if self.on_swap is not None:
            self.settling = True
            self.on_swap(old, self.conn)

    def _build(self, position: int, job: _Build | None = None) -> AgentConnection:
        """A new read-only connection whose session holds ``events[:position]``
        (``job``: stop early, returning what there is, once it is cancelled)."""
        source = self.source
        if isinstance(source, RecordingIndex):
            # The recording holds every event: the session keeps only the newest ones
            # in memory and reads older ones back from the file.
            session = Session(keep=REPLAY_KEPT, store=IndexStore(source))
        else:
            session = Session()
        session.started_wall = self.started_wall
        # The connection first, the events after: its tracker and facts see them as they
        # are added, rather than read them back (from the file, for older ones).
        conn = AgentConnection(self.url, name=self.name, session=session, read_only=True, card_url=self.card_url)
        conn.recorded()
        for start in range(0, position, PAGE):
            if job is not None and job.cancelled:
                break
            for event in self.events[start : min(position, start + PAGE)]:
                session.extend(event)
        return conn

    def _t_at(self, position: int) -> float:
        return self._times[position - 1] if 0 < position <= self.total else 0.0

    def _set_speed(self, direction: int) -> None:
        try:
            i = SPEEDS.index(self.speed)
        except ValueError:
            i = SPEEDS.index(1.0)
        i = max(0, min(len(SPEEDS) - 1, i + direction))
        self.set_speed(SPEEDS[i])

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change()


def _facts(conn: AgentConnection) -> tuple[Any, ...]:
    facts = conn.recorded()
    return (id(facts.card), facts.dialect, facts.dialect_source)


class _Build:
    """A connection built at ``target`` in a background thread (see _apply_pending)."""

    def __init__(self, controller: ReplayController, target: int) -> None:
        self.target = target
        self.conn: AgentConnection | None = None
        self.cancelled = False
        self.done = threading.Event()
        self._controller = controller
        threading.Thread(target=self._run, name="replay-seek", daemon=True).start()

    def _run(self) -> None:
        try:
            self.conn = self._controller._build(self.target, self)
        except Exception:  # the file went away, say: the cursor stays where it was
            self.conn = None
        finally:
            self.done.set()


class _LoadedSource:
    """A Recording loaded whole, seen the way a RecordingIndex is."""

    done = True
    progress = 1.0

    def __init__(self, recording: Recording) -> None:
        self.events: list[Event] = list(recording.session.events)
        self.times = _monotonic_times(self.events)
        self.marks, self.lanes, self.first_position = _state_marks(self.events)
        url, self.card_url = _agent_urls(self.events)
        self.url: str | None = url


def _monotonic_times(events: list[Event]) -> list[float]:
    """Each event's recorded t, never going back (a damaged file may disagree with
    itself; pacing and time seeks need an order)."""
    out: list[float] = []
    high = 0.0
    for event in events:
        t = event.t if math.isfinite(event.t) else high
        high = max(high, t)
        out.append(high)
    return out


def _state_marks(events: list[Event]) -> tuple[list[StateMark], dict[str, list[StateMark]], dict[str, int]]:
    """Every state change of every task, by position, from one tracker pass."""
    tracker = TaskTracker()
    marks: list[StateMark] = []
    lanes: dict[str, list[StateMark]] = {}
    first: dict[str, int] = {}
    seen: dict[str, int] = {}
    for position, event in enumerate(events, start=1):
        for task_id in tracker.apply(event):
            task = tracker.tasks.get(task_id)
            if task is None:
                continue
            first.setdefault(task_id, position)
            n = len(task.timeline)
            if n != seen.get(task_id, 0):
                seen[task_id] = n
                mark = StateMark(position, task_id, task.timeline[-1].state)
                marks.append(mark)
                lanes.setdefault(task_id, []).append(mark)
    return marks, lanes, first


def _agent_urls(events: list[Event]) -> tuple[str, str | None]:
    """(the agent's URL, its card URL) as the recording's requests name them."""
    card_url: str | None = None
    for event in events:
        if event.kind is not Kind.REQUEST:
            continue
        url = event.data.get("url")
        if not isinstance(url, str) or not url:
            continue
        if event.data.get("a2a_method") == "card":
            card_url = card_url or url
            continue
        return url, card_url
    return (card_url or "recording"), card_url
