"""The session: an append-only event log that projections and recorders subscribe to."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from .events import Event, Kind

Listener = Callable[[Event], None]


class Session:
    """Append-only. Events get a sequence number and a monotonic timestamp relative to
    the session's start; listeners are called synchronously, in subscription order."""

    def __init__(self, *, clock: Callable[[], float] = time.monotonic,
                 wall_clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._wall_clock = wall_clock
        self._t0 = clock()
        self.started_wall = wall_clock()
        self.events: list[Event] = []
        self._listeners: list[Listener] = []
        self._exchanges = 0

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

    def append(self, kind: Kind, data: dict[str, Any], *, exchange: int = 0,
               payload: Any = None) -> Event:
        # Once per SSE event: _publish is inlined.
        events = self.events
        event = Event(events[-1].seq + 1 if events else 1, self._clock() - self._t0, kind, exchange,
                      data, self._wall_clock(), payload)
        events.append(event)
        for listener in self._listeners:
            listener(event)
        return event

    def extend(self, event: Event) -> Event:
        """Append an event that already has its timing (replay, recordings)."""
        if event.exchange > self._exchanges:
            self._exchanges = event.exchange
        self._publish(event)
        return event

    def _publish(self, event: Event) -> None:
        self.events.append(event)
        for listener in self._listeners:
            listener(event)

    def __len__(self) -> int:
        return len(self.events)
