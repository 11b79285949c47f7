"""What the proxy's HTTP and gRPC relays share: the time a relay held something, when a
stream is complete, the queue between relaying and logging, and rules acting as one."""

from __future__ import annotations

import asyncio
import time
from collections import deque
from typing import Any

from ..protocol import models as m
from ..protocol.errors import JsonRpcError
from ..protocol.sizes import format_size
from ..protocol.states import INTERRUPTED, TERMINAL
from .faults import Fault

SETTLED = TERMINAL | INTERRUPTED
#: The states a hold_working rule lets through.
HOLDS = frozenset({m.TaskState.SUBMITTED, m.TaskState.WORKING})


def ms(since: float) -> float:
    return round((time.perf_counter() - since) * 1000, 3)


def settles(payload: Any) -> bool:
    """The stream event after which an agent's stream is complete."""
    if isinstance(payload, m.TaskStatusUpdateEvent):
        return bool(payload.final) or payload.status.state in SETTLED
    if isinstance(payload, m.Task):
        return payload.status.state in SETTLED
    return isinstance(payload, (m.Message, JsonRpcError))


#: Bytes of a stream relayed but not yet logged, at most (then the relay waits).
BACKLOG = 16 * 1024 * 1024
#: The log gives the relay a turn after this much work (seconds): the relay needs a
#: few turns of the loop per chunk, and each turn may cost it one slice.
SLICE = 0.0002


#: Said once per stream, the first time its log is BACKLOG behind and the relay waits.
BEHIND = (
    "the proxy's log of this stream fell {size} behind the relay: the relay waits for it from here "
    "(the stream goes at the log's pace; nothing is dropped)"
)


class Backlog:
    """Chunks relayed and waiting to be logged, with the time the proxy held each."""

    def __init__(self) -> None:
        self.items: deque[tuple[bytes, float]] = deque()
        self.size = 0
        self.closed = False
        #: Times the relay waited for the log (drained), and for how long in all (s).
        self.waits = 0
        self.waited = 0.0
        self._more = asyncio.Event()
        self._less = asyncio.Event()
        self._linger: asyncio.Future[None] | None = None

    def put(self, chunk: bytes, added: float) -> None:
        self.items.append((chunk, added))
        self.size += len(chunk)
        self._more.set()

    def close(self) -> None:
        self.closed = True
        self._more.set()
        if self._linger is not None and not self._linger.done():
            self._linger.set_result(None)

    def take(self) -> tuple[bytes, float] | None:
        if not self.items:
            return None
        chunk, added = self.items.popleft()
        self.size -= len(chunk)
        if self.size <= BACKLOG // 2:
            self._less.set()
        return chunk, added

    async def more(self, linger: float = 0.0) -> None:
        """Wait for something to take; with ``linger``, that long more once it came
        (not past close()), so that the taker wakes once for a batch, not per item."""
        self._more.clear()
        if not self.items and not self.closed:
            await self._more.wait()
        if linger and not self.closed:
            loop = asyncio.get_running_loop()
            self._linger = waited = loop.create_future()
            timer = loop.call_later(linger, _settle, waited)
            try:
                await waited
            finally:
                timer.cancel()
                self._linger = None

    async def drained(self, note: Any = None) -> None:
        """Wait until the log is back to half of BACKLOG behind; the first wait of the
        stream is said (``note(text)``), the waits counted for its STREAM_END."""
        self._less.clear()
        if self.size > BACKLOG // 2:
            if not self.waits and note is not None:
                note(BEHIND.format(size=format_size(BACKLOG)))
            began = time.perf_counter()
            await self._less.wait()
            self.waits += 1
            self.waited += time.perf_counter() - began

    def waited_fields(self) -> dict[str, Any]:
        """For the STREAM_END: how often and how long the relay waited for the log."""
        if not self.waits:
            return {}
        return {"log_waits": self.waits, "log_wait_ms": round(self.waited * 1000, 3)}


def _settle(waited: asyncio.Future[None]) -> None:
    if not waited.done():
        waited.set_result(None)


async def wait_release(rules: Any, rule_indexes: list[int], gone: asyncio.Event | None = None) -> bool:
    """Wait until every matched hold_working rule is switched off (F10, from another
    thread); False if the client hung up first (``gone``)."""
    loop = asyncio.get_running_loop()
    released = asyncio.Event()

    def wake() -> None:
        loop.call_soon_threadsafe(released.set)

    indexes = [i for i in rule_indexes if rules.rules[i].fault.hold_working]
    for i in indexes:
        rules.on_release(i, wake)
    try:
        if all(rules.rules[i].enabled for i in indexes):
            waits = {asyncio.ensure_future(released.wait())}
            if gone is not None:
                waits.add(asyncio.ensure_future(gone.wait()))
            try:
                await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for waiting in waits:
                    waiting.cancel()
        return gone is None or not gone.is_set()
    finally:
        for i in indexes:
            rules.forget(i, wake)


#: The note logged when a held answer or stream goes on.
RELEASED = "the hold_working rule was switched off: relaying what it held"


def combine(faults: list[Fault]) -> Fault | None:
    """Several matching rules act as one: the first rule's word wins for each key."""
    if not faults:
        return None
    if len(faults) == 1:
        return faults[0]
    merged: dict[str, Any] = {}
    for fault in faults:
        for key, value in fault.model_dump(exclude_defaults=True).items():
            merged.setdefault(key, value)
    if "error" in merged and "http" in merged:
        merged.pop("http")
    return Fault.model_validate(merged)
