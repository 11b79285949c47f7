"""The session: an append-only event log that projections and recorders subscribe to.

A session may keep only its newest events in memory (``keep``): a live session that runs
for hours, or streams millions of tokens, would otherwise grow without end. Older events
go to an ``EventStore`` (a private spill file, the recording being replayed, or nowhere
for a CLI command that has printed them already) and ``session.events`` reads them back
from there when asked, by position, as if they had never left.

A count alone does not bound memory when events are large (a proxy relaying megabyte
messages): ``keep_bytes`` bounds the text the held events carry as well.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any, overload

from .events import _LAZY, Event, Kind
from .spill import EventStore

#: What a listener returns is not read (the tracker returns the tasks it changed).
Listener = Callable[[Event], object]

#: How many events beyond ``keep`` pile up before the oldest go to the store in one batch.
EVICT_BATCH = 4096
_SSE = Kind.SSE
#: Older events are read back this many at a time.
PAGE = 512
#: Pages of older events held, the most recently read: a view reading old events and,
#: for each, its exchange's request (another page) must not read both pages every time.
PAGES = 4


def held_size(event: Event) -> int:
    """About what ``event`` holds in memory: the length of its text (its raw block, or
    the strings of its data: a body, a message's JSON), not its small fields."""
    data = event._data
    if data.__class__ is str:
        return len(data)
    size = 0
    for value in data.values():
        if value.__class__ is str:
            size += len(value)
    return size


class EventGone(IndexError):
    """An event that left memory for a store that does not keep events (the CLI's)."""


class EventLog:
    """``session.events``: every event of the session by position (0-based), newest last.

    A sequence like a list (``len``, indexing, slices, iteration); events the session no
    longer holds in memory are read from its store, one by one. Iterating over events
    from the store reads them in order, in pages."""

    __slots__ = ("_mem", "_base", "_store", "_pages")

    def __init__(self, store: EventStore | None) -> None:
        self._mem: list[Event] = []
        #: The last PAGES pages of older events read back: first position -> events,
        #: least recently read first.
        self._pages: dict[int, list[Event]] = {}
        #: Events before _mem[0] (in the store, or gone).
        self._base = 0
        self._store = store

    def __len__(self) -> int:
        return self._base + len(self._mem)

    def __bool__(self) -> bool:
        return bool(self._mem) or self._base > 0

    @property
    def first_kept(self) -> int:
        """The position of the oldest event held in memory."""
        return self._base

    @overload
    def __getitem__(self, index: int) -> Event: ...

    @overload
    def __getitem__(self, index: slice) -> list[Event]: ...

    def __getitem__(self, index: Any) -> Any:
        if index.__class__ is slice:
            start, stop, step = index.indices(len(self))
            if step != 1:
                return [self[i] for i in range(start, stop, step)]
            return list(self._range(start, stop))
        n = self._base + len(self._mem)
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError("event index out of range")
        at = index - self._base
        if at >= 0:
            return self._mem[at]
        # Views read old events one by one, mostly near each other: a page at a time.
        pages = self._pages
        start = index - index % PAGE
        page = pages.pop(start, None)
        # A page read when fewer events had left memory ends short of those that left since.
        if page is None or index - start >= len(page):
            page = self._read(start, min(start + PAGE, self._base))
            if len(pages) >= PAGES:
                del pages[next(iter(pages))]
        pages[start] = page
        return page[index - start]

    def __iter__(self) -> Iterator[Event]:
        return self._range(0, len(self))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (list, EventLog)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # unhashable (equal by contents); typeshed has a method

    def __repr__(self) -> str:
        return f"<EventLog of {len(self)} events, {len(self._mem)} in memory>"

    def __reversed__(self) -> Iterator[Event]:
        yield from reversed(self._mem)
        for i in range(self._base - 1, -1, -1):
            yield self[i]

    def _range(self, start: int, stop: int) -> Iterator[Event]:
        base = self._base
        pos = start
        while pos < min(stop, base):
            end = min(stop, base, pos + 1024)
            yield from self._read(pos, end)
            pos = end
            base = self._base
        mem = self._mem
        # The list may grow while a caller iterates (a listener replaying the past):
        # re-read its bounds each step, as iterating a list does.
        while pos < stop:
            at = pos - self._base
            if at < 0:
                yield self[pos]
            elif at < len(mem):
                yield mem[at]
            else:
                return
            pos += 1

    def _read(self, start: int, stop: int) -> list[Event]:
        if self._store is None or not self._store.keeps:
            raise EventGone(
                f"event {start + 1} is no longer kept (the session keeps the newest {len(self._mem)} events)"
            )
        return self._store.read(start, stop)

    def index(self, event: Event) -> int:
        """The position of ``event`` (by seq), searching memory first."""
        mem = self._mem
        if mem and mem[0].seq <= event.seq:
            lo, hi = 0, len(mem)
            while lo < hi:
                mid = (lo + hi) // 2
                if mem[mid].seq < event.seq:
                    lo = mid + 1
                else:
                    hi = mid
            if lo < len(mem) and mem[lo].seq == event.seq:
                return self._base + lo
        for i, other in enumerate(self):
            if other.seq == event.seq:
                return i
        raise ValueError("event not in the log")


class Session:
    """Append-only. Events get a sequence number and a monotonic timestamp relative to
    the session's start; listeners are called synchronously, in subscription order.

    ``keep``: how many events to hold in memory (None: all). Past that, the oldest go to
    ``store`` in batches: a ``SpillStore`` (a private temporary file) by default, or
    None to let them go (a command that has printed them and needs only what the
    projections fold). ``len(session)`` and ``session.events`` still count them all.

    ``keep_bytes`` (with ``keep``): at most about this much text held (``held_size``);
    past it, the oldest events go too, until the newest held carry half of it."""

    def __init__(
        self,
        *,
        clock: Callable[[], float] = time.monotonic,
        wall_clock: Callable[[], float] = time.time,
        keep: int | None = None,
        store: EventStore | str | None = "spill",
        keep_bytes: int | None = None,
    ) -> None:
        self._clock = clock
        self._wall_clock = wall_clock
        self._t0 = clock()
        self.started_wall = wall_clock()
        if store == "spill":
            from .spill import SpillStore

            store = SpillStore() if keep is not None else None
        self.keep = keep
        self.keep_bytes = keep_bytes if keep is not None else None
        #: held_size of the events in memory, counted while keep_bytes is set.
        self._held = 0
        self.store: EventStore | None = store  # type: ignore[assignment]  # "spill" is the one string taken
        self.events = EventLog(self.store)
        self._listeners: list[Listener] = []
        self._exchanges = 0
        self._seq = 0
        #: The newest event (None before the first).
        self.last: Event | None = None

    def subscribe(self, listener: Listener, *, replay: bool = False) -> None:
        """Call ``listener`` for every new event (and, with ``replay``, the past ones)."""
        if replay:
            for event in self.events:
                listener(event)
        self._listeners.append(listener)

    def unsubscribe(self, listener: Listener) -> None:
        self._listeners.remove(listener)

    def new_exchange(self) -> int:
        self._exchanges += 1
        return self._exchanges

    @property
    def bounded(self) -> bool:
        """Some events are no longer held in memory."""
        return self.events._base > 0

    def append(self, kind: Kind, data: dict[str, Any], *, exchange: int = 0, payload: Any = None) -> Event:
        self._seq += 1
        event = Event(self._seq, self._clock() - self._t0, kind, exchange, data, self._wall_clock(), payload)
        self._publish(event)
        return event

    def append_sse(self, raw: str, payload: Any, codec: Callable[[Event], Any], exchange: int) -> Event:
        """A complete, UTF-8 SSE event in its compact form: only ``raw`` is kept, and
        ``payload`` only while the listeners run (``codec`` derives it again)."""
        self._seq += 1
        # raw stands in for the data dict: the compact form, as in Event.sse.
        event = Event(
            self._seq,
            self._clock() - self._t0,
            _SSE,
            exchange,
            raw,  # type: ignore[arg-type]
            self._wall_clock(),
            payload,
            codec,
        )
        # _publish, inlined: this runs once per event of every stream.
        mem = self.events._mem
        mem.append(event)
        self.last = event
        for listener in self._listeners:
            listener(event)
        event._payload = _LAZY
        keep = self.keep
        if keep is not None:
            if len(mem) >= keep + EVICT_BATCH:
                self._evict(len(mem) - keep)
            if self.keep_bytes is not None:
                self._count_held(event)
        return event

    def append_lazy(
        self, kind: Kind, data: dict[str, Any], payload: Any, codec: Callable[[Event], Any], exchange: int
    ) -> Event:
        """An event whose payload ``codec`` derives again from ``data`` (a gRPC stream's
        message): ``payload`` is kept only while the listeners run."""
        self._seq += 1
        event = Event(self._seq, self._clock() - self._t0, kind, exchange, data, self._wall_clock(), payload, codec)
        self._publish(event)
        event._payload = _LAZY
        return event

    def extend(self, event: Event) -> Event:
        """Append an event that already has its timing (replay, recordings)."""
        if event.exchange > self._exchanges:
            self._exchanges = event.exchange
        if event.seq > self._seq:
            self._seq = event.seq
        self._publish(event)
        return event

    def _publish(self, event: Event) -> None:
        log = self.events
        mem = log._mem
        mem.append(event)
        self.last = event
        for listener in self._listeners:
            listener(event)
        keep = self.keep
        if keep is not None:
            if len(mem) >= keep + EVICT_BATCH:
                self._evict(len(mem) - keep)
            if self.keep_bytes is not None:
                self._count_held(event)

    def _count_held(self, event: Event) -> None:
        self._held += held_size(event)
        assert self.keep_bytes is not None and self.keep is not None  # called only with both set
        if self._held <= self.keep_bytes:
            return
        # Over: hold the newest events that carry half the budget (at most ``keep``), so
        # that the walk back over them is paid once per half a budget of new text.
        mem = self.events._mem
        room = self.keep_bytes // 2
        held = count = 0
        for kept in reversed(mem):
            size = held_size(kept)
            if held + size > room or count >= self.keep:
                break
            held += size
            count += 1
        self._evict(len(mem) - count, counted=False)
        self._held = held

    def _evict(self, count: int, *, counted: bool = True) -> None:
        log = self.events
        gone = log._mem[:count]
        if counted and self.keep_bytes is not None:
            self._held -= sum(map(held_size, gone))
        if self.store is not None:
            self.store.add(log._base, gone)
        del log._mem[:count]
        log._base += count

    def shrink(self, keep: int) -> None:
        """Hold at most ``keep`` events in memory from now on (when the store can give
        the others back): a session about to be replaced need not hold on to its events."""
        if self.store is None or not self.store.keeps:
            return
        self.keep = keep
        excess = len(self.events._mem) - keep
        if excess > 0:
            self._evict(excess)

    def close(self) -> None:
        """Let go of the store's file (a spill file is deleted)."""
        if self.store is not None:
            self.store.close()

    def __len__(self) -> int:
        return len(self.events)
