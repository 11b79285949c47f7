"""A recording opened lazily: an index of where each event's line starts, built in one
pass (in a background thread, or a slice at a time), with events read from the file
when asked.

A 1 GB recording is about 1.5 million events: read whole, it took minutes and gigabytes
before anything showed. The index keeps per event only its line's offset and its
recorded time (16 bytes); events are read back by position, a page at a time, and
decoded when a view asks (see ``spill.event_from_line``). The pass also folds every
state change into ``marks`` with a tracker that sees only what can move a task (an
artifact chunk cannot), so the replay timeline shows its ticks as the pass goes.

The recorder writes an event's fixed fields last (``..."seq":N,"t":T,"wall":W,
"kind":"K","exchange":X}``): the pass reads those from the line's tail without parsing
the line, and parses whole only lines it cannot read so, or that it must fold. Damage is
reported as the reader reports it (``Problem``), and such lines are left out.

A file with several sessions (``--record --append``) reads as the reader reads it: one
session, the later ones renumbered, a NOTE where each begins. The index keeps one entry
per appended session (``sessions``: where it starts and how its events are moved), not
per event; a session's NOTE is its header line's position, and ``read`` renumbers the
events it reads back by the session they fall in.
"""

from __future__ import annotations

import math
import os
import re
import threading
import time
from array import array
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, overload

from ..protocol.models import Message, Task, TaskStatusUpdateEvent
from ..safejson import loads
from .decoding import ExchangeFacts
from .events import Event, Kind
from .lines import LINE_DEPTH, LinesRead, RecordingLines, SessionStart, is_header
from .reader import RecordingIterator
from .spill import EventStore, event_from_line

#: How much of the file the pass reads at a time (in the background: less at a time).
BLOCK = 8 << 20
THREAD_BLOCK = 1 << 20

_TAIL = re.compile(rb'"seq":(\d+),"t":([-+0-9.eE]+),"wall":[-+0-9.eE]+,"kind":"([a-z-]+)","exchange":(\d+)\}\s*$')
_KINDS = {k.value.encode(): k for k in Kind}
#: Kinds whose events may move a task (an SSE event only when it names a state).
_FOLDED = frozenset((Kind.REQUEST, Kind.RESPONSE, Kind.PUSH, Kind.SSE, Kind.MESSAGE))


@dataclass(frozen=True, slots=True)
class StateMark:
    """A task entered ``state`` with the event at ``position`` (1-based: the cursor
    value that includes that event)."""

    position: int
    task_id: str
    state: Any


class RecordingIndex(LinesRead):
    """Events of a recording by position; ``count`` grows as the pass goes (``done``)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        head = RecordingIterator(self.path, decode=False)
        self.header = head.header
        head.close()
        self._lines = RecordingLines(self.header)
        #: The appended sessions (the second one's first), and the position of each one's
        #: NOTE (ascending): the only per-session data; none is kept per event.
        self.sessions: list[SessionStart] = []
        self.session_positions: list[int] = []
        self._fd = os.open(self.path, os.O_RDONLY)
        self.size = os.fstat(self._fd).st_size
        #: Where each event's line starts, and its recorded time (never going back).
        self.offsets = array("q")
        self.lengths = array("l")
        self.times = array("d")
        #: Events indexed so far (published after their offsets and times).
        self.count = 0
        #: Bytes of the file the pass has read.
        self.scanned = 0
        self.done = False
        self.facts = ExchangeFacts()
        #: Every state change of every task, by position; per task; a task's first event.
        self.marks: list[StateMark] = []
        self.lanes: dict[str, list[StateMark]] = {}
        self.first_position: dict[str, int] = {}
        #: The agent's URL and card URL as the first requests name them.
        self.url: str | None = None
        self.card_url: str | None = None
        self._high_t = 0.0
        self._pos = self._header_end()
        self._pending = b""
        self._tracker: Any = None
        self._seen: dict[str, int] = {}
        self._thread: threading.Thread | None = None
        self._stop = False
        self._lock = threading.Lock()
        started = self.header.get("session_started")
        self.started_wall = (
            float(started) if isinstance(started, (int, float)) and not isinstance(started, bool) else 0.0
        )

    def _header_end(self) -> int:
        size = 4096
        while True:
            blob = os.pread(self._fd, size, 0)
            cut = blob.find(b"\n")
            if cut >= 0:
                return cut + 1
            if len(blob) < size:
                return len(blob)
            size *= 4

    # ------------------------------------------------------------------ the pass

    @property
    def progress(self) -> float:
        """How much of the file is indexed, 0..1."""
        return 1.0 if self.done or not self.size else min(1.0, self.scanned / self.size)

    def start(self) -> None:
        """Go on with the pass in a background thread."""
        if self._thread is None and not self.done:
            self._thread = threading.Thread(target=self._run, name="recording-index", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        while not self.done and not self._stop:
            self.scan(THREAD_BLOCK)
            # Let the UI's thread have the interpreter between slices: the replay must
            # stay usable while the index is built.
            time.sleep(0.002)

    def wait(self, timeout: float | None = None) -> bool:
        """Until the pass is done (or ``timeout``); True when it is."""
        if self._thread is not None:
            self._thread.join(timeout)
        return self.done

    def scan(self, size: int | None = None) -> bool:
        """Index about ``size`` more bytes (default BLOCK); True when the whole file is indexed."""
        size = size or BLOCK
        with self._lock:
            if self.done:
                return True
            blob = os.pread(self._fd, size, self._pos)
            self._pos += len(blob)
            buf = self._pending + blob if self._pending else blob
            base = self._pos - len(buf)
            end = len(buf) if not blob else buf.rfind(b"\n") + 1
            start = 0
            while start < end:
                cut = buf.find(b"\n", start, end)
                stop = end if cut < 0 else cut + 1
                self._index_line(buf, start, stop, base)
                start = stop
            self._pending = buf[end:] if blob else b""
            self.scanned = self._pos - len(self._pending)
            if not blob:
                self.done = True
                self._tracker = None  # the pass is over: its tracker is not needed
            return self.done

    def _index_line(self, buf: bytes, start: int, stop: int, base: int) -> None:
        lines = self._lines
        lines.line += 1
        line = buf[start:stop]
        if not line.strip():
            return
        match = _TAIL.search(line, max(0, len(line) - 160)) if line.endswith(b"\n") else None
        obj: Any = None
        if match is not None:
            seq, t, kind = int(match.group(1)), float(match.group(2)), _KINDS.get(match.group(3))
            exchange = int(match.group(4))
            if kind is None:
                match = None
        if match is None or kind in _FOLDED:
            obj = lines.parse(line)
            if obj is None:
                return
            if is_header(obj):
                self._begin_session(obj, base + start, stop - start)
                return
            seq, t, kind, exchange = obj["seq"], obj["t"], Kind(obj["kind"]), obj.get("exchange", 0)
        session = lines.session
        if session is not None:
            seq += session.seq
            t += session.t
            if exchange:
                exchange += session.exchange
        lines.follow(seq, t, exchange)
        if t == t and abs(t) != float("inf"):  # finite
            self._high_t = max(self._high_t, t)
        self.offsets.append(base + start)
        self.lengths.append(stop - start)
        self.times.append(self._high_t)
        self.count += 1
        if obj is not None:
            assert kind is not None  # the pattern's, known, or the parsed line's
            self._fold(obj, kind, line)

    def _begin_session(self, header: dict[str, Any], offset: int, length: int) -> None:
        """An appended session's header line: the position of its NOTE."""
        start = self._lines.begin(header)
        if math.isfinite(start.t):
            self._high_t = max(self._high_t, start.t)
        # Published before the count that covers it (``read`` runs on other threads).
        self.sessions.append(start)
        self.session_positions.append(self.count)
        self.offsets.append(offset)
        self.lengths.append(length)
        self.times.append(self._high_t)
        self.count += 1

    def _fold(self, obj: Any, kind: Kind, line: bytes) -> None:
        """Note what decoding needs, and fold what may move a task into ``marks``."""
        facts = self.facts
        event = event_from_line(obj, facts)
        session = self._lines.session
        if session is not None:
            session.shift(event)
        facts.note(event)
        self._lines.take_notes(facts)
        if kind is Kind.REQUEST:
            self._agent_url(event)
        if (kind is Kind.SSE or kind is Kind.MESSAGE) and b"state" not in line:
            return  # an artifact chunk, say: it cannot move a task
        from .tracker import TaskTracker

        if self._tracker is None:
            self._tracker = TaskTracker()
        payload = event.payload
        # Only states matter here: messages would pile up in this tracker's histories.
        if isinstance(payload, TaskStatusUpdateEvent):
            payload.status.message = None
        elif isinstance(payload, Task):
            payload.history = None
            payload.status.message = None
            payload.artifacts = None
        elif isinstance(payload, Message):
            payload = None
        event.payload = payload
        position = self.count
        tracker = self._tracker
        for task_id in tracker.apply(event):
            task = tracker.tasks.get(task_id)
            if task is None:
                continue
            # This tracker keeps no messages; their ids need not pile up either.
            task._ids.clear()
            self.first_position.setdefault(task_id, position)
            n = len(task.timeline)
            if n != self._seen.get(task_id, 0):
                self._seen[task_id] = n
                mark = StateMark(position, task_id, task.timeline[-1].state)
                self.marks.append(mark)
                self.lanes.setdefault(task_id, []).append(mark)

    def _agent_url(self, event: Event) -> None:
        if self.url is not None:
            return
        url = event.data.get("url")
        if not isinstance(url, str) or not url:
            return
        if event.data.get("a2a_method") == "card":
            self.card_url = self.card_url or url
        else:
            self.url = url

    # ------------------------------------------------------------------ reading

    def read(self, start: int, stop: int) -> list[Event]:
        """Events ``start``..``stop - 1`` (0-based positions), from the file."""
        stop = min(stop, self.count)
        if start >= stop:
            return []
        offsets, lengths = self.offsets, self.lengths
        first = offsets[start]
        last = offsets[stop - 1] + lengths[stop - 1]
        blob = os.pread(self._fd, last - first, first)
        facts = self.facts
        out: list[Event] = []
        positions = self.session_positions
        if not positions or stop <= positions[0]:
            for i in range(start, stop):
                at = offsets[i] - first
                obj = loads(blob[at : at + lengths[i]], LINE_DEPTH)
                out.append(event_from_line(obj, facts))
            return out
        # Several sessions: each event moved by the session it falls in; a session's
        # header line reads as its NOTE.
        sessions = self.sessions
        k = bisect_right(positions, start - 1) - 1  # the last session begun before start
        session = sessions[k] if k >= 0 else None
        following = positions[k + 1] if k + 1 < len(positions) else stop
        for i in range(start, stop):
            if i == following:
                k += 1
                session = sessions[k]
                following = positions[k + 1] if k + 1 < len(positions) else stop
                out.append(session.note())
                continue
            at = offsets[i] - first
            event = event_from_line(loads(blob[at : at + lengths[i]], LINE_DEPTH), facts)
            if session is not None:
                session.shift(event)
            out.append(event)
        return out

    @property
    def events(self) -> IndexedEvents:
        return IndexedEvents(self)

    def close(self) -> None:
        self._stop = True
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join()
        with self._lock:
            if self._fd >= 0:
                os.close(self._fd)
                self._fd = -1


class IndexedEvents:
    """The events indexed so far, as a read-only sequence (read from the file)."""

    __slots__ = ("_index",)

    def __init__(self, index: RecordingIndex) -> None:
        self._index = index

    def __len__(self) -> int:
        return self._index.count

    @overload
    def __getitem__(self, i: int) -> Event: ...

    @overload
    def __getitem__(self, i: slice) -> list[Event]: ...

    def __getitem__(self, i: Any) -> Any:
        n = self._index.count
        if i.__class__ is slice:
            start, stop, step = i.indices(n)
            events = self._index.read(start, stop)
            return events if step == 1 else events[::step]
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("event index out of range")
        return self._index.read(i, i + 1)[0]

    def __iter__(self) -> Iterator[Event]:
        n = self._index.count
        for start in range(0, n, 1024):
            yield from self._index.read(start, min(n, start + 1024))


class IndexStore(EventStore):
    """A replayed session's older events are the recording's: read them back from it."""

    keeps = True

    def __init__(self, index: RecordingIndex) -> None:
        self.index = index

    def read(self, start: int, stop: int) -> list[Event]:
        return self.index.read(start, stop)


def open_recording(path: str | Path, *, keep: int = 4096) -> Any:
    """A recording as a Recording whose session holds none of its events in memory:
    they are read from the file, in pages, whenever the session's events are read
    (tools that go through a recording once or twice: diff, export). The file is
    indexed first, in one pass. Raises OSError or RecordingError as load_recording does."""
    from .log import Session
    from .reader import Recording

    index = RecordingIndex(path)
    while not index.scan():
        pass
    session = Session(keep=keep, store=IndexStore(index))
    session.started_wall = index.started_wall
    session.events._base = index.count
    if index.count:
        session.last = index.read(index.count - 1, index.count)[0]
        session._seq = session.last.seq
        session._exchanges = max(index.facts.requests, default=0)
    return Recording(session, index.header, index.problems, index.truncated)
