"""One task call relayed to a ws-agent: the hub's tasks/send or tasks/sendSubscribe
frame, and everything the agent says about that task until it settles.

A relay is one exchange of the session: its request frame, the agent's task.* frames
and its answer carry the relay's exchange number, and the relay ends with a
STREAM_END, as an HTTP stream does. Callers (the bridge, the TUI's HubClient, a
delegating agent) read its items as they come, or wait for its outcome.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from ..protocol import models as m
from ..protocol.errors import JsonRpcError
from ..protocol.sizes import format_size
from ..protocol.states import INTERRUPTED, TERMINAL
from .backlog import Backlog

if TYPE_CHECKING:
    from .core import Hub
    from .registry import AgentEntry

_SETTLED = TERMINAL | INTERRUPTED
_END = object()


def settles(item: Any) -> bool:
    """Whether the task's turn is over after ``item``: a final or settled status, a
    settled task, a direct Message reply."""
    if isinstance(item, m.TaskStatusUpdateEvent):
        return bool(item.final) or item.status.state in _SETTLED
    if isinstance(item, m.Task):
        return item.status.state in _SETTLED
    return isinstance(item, m.Message)


class RelayFailed(Exception):
    """The relay ended without the task settling: the agent's JSON-RPC error
    (``error``) or the hub's own reason (``reason``: the socket closed, a timeout)."""

    def __init__(self, message: str, error: JsonRpcError | None = None, reason: str = "error") -> None:
        super().__init__(message)
        self.error = error
        self.reason = reason


class TaskRelay:
    def __init__(self, hub: Hub, entry: AgentEntry, task_id: str, stream: bool, exchange: int, rpc_id: str) -> None:
        self.hub = hub
        self.entry = entry
        self.task_id = task_id
        self.stream = stream
        self.exchange = exchange
        self.rpc_id = rpc_id
        self.t0 = time.perf_counter()
        #: Items the agent sent (status and artifact updates, tasks, a message), in
        #: order, for a stream's reader (a blocking call's caller waits for the
        #: outcome alone: its relay holds none).
        self._queue = Backlog()
        self.events = 0
        #: Bytes of the frames that brought the events.
        self.bytes = 0
        #: The limit the relay was stopped at, in words (None: it was not).
        self.cut: str | None = None
        self.done = False
        #: The item that settled the task (None: it has not, or the relay failed).
        self.last: Any = None
        self.failure: RelayFailed | None = None
        self._settled = asyncio.get_running_loop().create_future()

    # ------------------------------------------------------------------ fed by the hub

    def feed(self, item: Any, reason: str = "complete") -> None:
        """An item the agent sent; ``reason``: how the exchange ends if it settles the
        task ("eof" for the hub's own failed status when the socket dropped)."""
        if self.done:
            return
        self.events += 1
        size = self.hub.last_frame_size()
        self.bytes += size
        limits = self.hub.limits
        if self.events > limits.max_stream_events or self.bytes > limits.max_stream_body:
            self._over(limits)
            return
        if self.stream:
            self._queue.put(item, size)
        if settles(item):
            self.last = item
            self.end(reason, terminal=True)

    def _over(self, limits: Any) -> None:
        """Past a stream limit: the hub stops relaying the task, as a client stops
        reading a stream, and says so to the caller and in the session."""
        if self.events > limits.max_stream_events:
            self.cut = f"more than {limits.max_stream_events} events (--max-stream-events)"
        else:
            self.cut = f"more than {format_size(limits.max_stream_body)} of frames (--max-stream-body)"
        text = f"ws-agent {self.entry.name} sent {self.cut} for task {self.task_id}: the hub stopped relaying it"
        self.hub.note(text, exchange=self.exchange, code="hub-stream-limit")
        self.fail(RelayFailed(text, reason="limit"))

    def answered(self, item: Any) -> None:
        """The agent's answer to the request frame: a Task, a Message or an ack."""
        if isinstance(item, JsonRpcError):
            self.fail(
                RelayFailed(
                    f"ws-agent {self.entry.name} answered with JSON-RPC error {item.code}: {item.message}", item
                )
            )
            return
        if isinstance(item, (m.Task, m.Message)):
            self.feed(item)
            self.hub.tell(self.task_id, item)
        # Anything else is an acknowledgement: the updates follow as task.* frames.

    def fail(self, failure: RelayFailed) -> None:
        if self.done:
            return
        self.failure = failure
        self._queue.put(failure)
        self.end(failure.reason, terminal=False)

    def end(self, reason: str, terminal: bool) -> None:
        """Close the exchange (a STREAM_END in the session) and wake every reader."""
        if self.done:
            return
        self.done = True
        self.hub._relay_ended(self, reason, terminal)
        self._queue.put(_END)
        if not self._settled.done():
            self._settled.set_result(None)

    def close(self) -> None:
        """The caller stopped listening: the agent's later frames about the task are
        logged without an exchange."""
        self.end("closed", terminal=False)

    def elapsed_ms(self) -> float:
        return round((time.perf_counter() - self.t0) * 1000, 3)

    # ------------------------------------------------------------------ read by callers

    async def items(self) -> AsyncIterator[Any]:
        """The agent's items as they come; raises RelayFailed when it fails."""
        queue = self._queue
        try:
            while True:
                item = await queue.get()
                if item is _END:
                    return
                if isinstance(item, RelayFailed):
                    raise item
                yield item
        finally:
            self.close()
            queue.close()

    async def outcome(self, timeout: float | None = None) -> Any:
        """The item that settled the task (a Task, a status update, a Message); raises
        RelayFailed when the relay failed, TimeoutError after ``timeout`` seconds."""
        try:
            if timeout is None:
                await asyncio.shield(self._settled)
            else:
                await asyncio.wait_for(asyncio.shield(self._settled), timeout)
        except TimeoutError:
            self.fail(RelayFailed(f"the task did not settle within {timeout:g} s", reason="timeout"))
            raise
        finally:
            if not self.done:
                self.close()
        if self.failure is not None:
            raise self.failure
        return self.last
