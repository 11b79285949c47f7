"""Carry session events to the UI at most once per frame.

A stream can deliver thousands of events a second; posting a Textual message per event
would flood the message queue and redraw per chunk. The pump collects events (cheap:
one list append per event, called synchronously by the session) and the app drains
it on a ~30 fps timer, posting one ``SessionAdvanced`` per connection per frame.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..session import Event
    from .connection import AgentConnection


class EventPump:
    def __init__(self) -> None:
        self._pending: dict[int, tuple[AgentConnection, list[Event]]] = {}

    def watch(self, conn: AgentConnection) -> None:
        def listener(event: Event, conn: AgentConnection = conn) -> None:
            entry = self._pending.get(conn.id)
            if entry is None:
                self._pending[conn.id] = (conn, [event])
            else:
                entry[1].append(event)

        conn.session.subscribe(listener)
        conn._pump_listener = listener  # type: ignore[attr-defined]  # kept to unwatch

    def unwatch(self, conn: AgentConnection) -> None:
        listener = getattr(conn, "_pump_listener", None)
        if listener is not None:
            try:
                conn.session.unsubscribe(listener)
            except ValueError:
                pass
        self._pending.pop(conn.id, None)

    def drain(self) -> list[tuple[AgentConnection, list[Event]]]:
        if not self._pending:
            return []
        batches = list(self._pending.values())
        self._pending = {}
        return batches
