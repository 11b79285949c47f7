"""A time limit on receiving each request, for every server the product runs.

uvicorn closes a connection that sits idle after a response (``timeout_keep_alive``),
but has no limit on how long a request may take to arrive: a client that sends one
header byte every few seconds (slowloris), or promises a body and dribbles it, holds a
connection and a task for ever. The mock, the push receiver and replay serving all
listen for clients we do not control, so each request's head and body must arrive
within ``timeout`` seconds of its first byte (or of the connection opening); past that
the server answers ``408 Request Timeout`` if it has not started an answer, and closes
the connection.

It is a subclass of the HTTP protocol uvicorn would pick itself (``httptools`` when
installed, else ``h11``): both keep the current request in ``cycle`` and mark its body
complete with ``cycle.more_body = False``, which is all this needs. The app sees a
request cut off this way as a client disconnect (``http.disconnect``).

A request that upgrades the connection to a WebSocket (the hub's agents) has arrived
once its head has: from then on the socket belongs to the WebSocket protocol, which
has its own liveness (the hub's heartbeats), so the timer stops there. Left running,
it wrote a 408 into the middle of the WebSocket stream and closed it.
"""

from __future__ import annotations

import asyncio
import functools
from typing import Any

from uvicorn.protocols.http.auto import AutoHTTPProtocol

#: Seconds a request's head and body may take to arrive.
REQUEST_TIMEOUT = 30.0

_408 = (
    b"HTTP/1.1 408 Request Timeout\r\ncontent-type: text/plain; charset=utf-8\r\n"
    b"connection: close\r\ncontent-length: 38\r\n\r\nthe request did not arrive in time\r\n\r\n"
)


class _RequestDeadline(AutoHTTPProtocol):  # type: ignore[misc, valid-type]
    request_timeout: float = REQUEST_TIMEOUT

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)
        #: The request whose body has arrived in full (the timer is off until the next).
        self._arrived: Any = None
        self._timer: asyncio.TimerHandle | None = None
        self._arm()

    def _arm(self) -> None:
        self._timer = self.loop.call_later(self.request_timeout, self._expire)

    def data_received(self, data: bytes) -> None:
        cycle = self.cycle
        if self._timer is None and (cycle is None or cycle.response_complete):
            self._arm()  # the first bytes of the next request on this connection
        super().data_received(data)
        cycle = self.cycle
        if self._timer is not None and cycle is not None and cycle is not self._arrived and not cycle.more_body:
            self._arrived = cycle
            self._timer.cancel()
            self._timer = None

    def _disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def handle_websocket_upgrade(self, *args: Any) -> None:
        # Both of uvicorn's HTTP protocols hand the transport over here (h11's with the
        # request event, httptools' with none).
        self._disarm()
        super().handle_websocket_upgrade(*args)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _expire(self) -> None:
        self._timer = None
        transport = self.transport
        # Another protocol owns the transport (an upgrade this class was not told of):
        # its bytes are not HTTP any more.
        if transport.is_closing() or transport.get_protocol() is not self:
            return
        cycle = self.cycle
        if cycle is None or cycle is self._arrived or not cycle.response_started:
            transport.write(_408)
        transport.close()


@functools.cache
def protocol(timeout: float = REQUEST_TIMEOUT) -> type[asyncio.Protocol]:
    """The protocol class to pass as uvicorn's ``Config(http=...)``."""
    return type("RequestDeadlineProtocol", (_RequestDeadline,), {"request_timeout": timeout})
