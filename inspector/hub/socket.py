"""One agent's WebSocket at the hub: every frame in and out goes into the session, then
is acted on.

Everything the agent controls is bounded here or below: a frame's size (the WebSocket
layer refuses one over the limit before reading it: close code 1009), the rate of
frames the agent sends unasked (a token bucket) and the frames about any one task (a
count; either flood closes the socket, 1008), the time to register, and
what a frame may make the hub do (each method answers once; unknown ones get -32601).
A frame that is not JSON-RPC is answered with an error and noted; the socket stays.
"""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..protocol import hub as proto
from ..protocol.errors import JsonRpcError, ProtocolError
from ..protocol.sizes import format_size
from .relay import RelayFailed

if TYPE_CHECKING:
    from .core import Hub

#: Close codes (RFC 6455 section 7.4.1).
POLICY = 1008
TOO_BIG = 1009
TRY_LATER = 1013
#: Binary frames are stored as base64 up to this many bytes (they are never JSON-RPC).
BINARY_KEPT = 64 * 1024
LATE_KEPT = 1024


class AgentSocket:
    """The hub's side of one agent's socket. ``send_text``/``close_socket`` are the
    transport (a Starlette WebSocket in the server; anything with those two in tests)."""

    def __init__(self, hub: Hub, number: int, transport: Any, peer: str | None = None) -> None:
        self.hub = hub
        self.number = number
        self.transport = transport
        self.peer = peer
        #: The registered name (None until agent.register succeeds).
        self.name: str | None = None
        self.closed = False
        #: Requests the hub sent and waits an answer to: rpc id -> (exchange, on_answer(frame),
        #: on_failure(RelayFailed)).
        self.pending: dict[Any, Any] = {}
        #: Requests whose task settled before their answer came: rpc id -> exchange. An
        #: agent may answer its tasks/send after its task.complete; the answer is logged
        #: with its exchange. The oldest are forgotten past LATE_KEPT.
        self.late: dict[Any, int] = {}
        self._ids = 0
        limits = hub.limits
        self._tokens = float(limits.burst)
        self._last = hub.clock()
        self._tasks: set[asyncio.Task[Any]] = set()

    # ------------------------------------------------------------------ out

    def next_id(self) -> str:
        self._ids += 1
        return f"hub-{self.number}-{self._ids}"

    async def send(self, doc: dict[str, Any], exchange: int = 0) -> bool:
        """Log ``doc`` as an outgoing frame, then send it; False if the socket is gone."""
        text = proto.dumps(doc)
        self.hub.frame(self, "out", "text", text=text, exchange=exchange)
        if self.closed:
            return False
        try:
            await self.transport.send_text(text)
            return True
        except Exception:  # the socket went away under us: its disconnect says why
            return False

    async def close(self, code: int, reason: str) -> None:
        if self.closed:
            return
        self.hub.frame(self, "out", "close", code=code, reason=reason)
        self.closed = True
        try:
            await self.transport.close_socket(code, reason)
        except Exception:
            pass

    # ------------------------------------------------------------------ in

    def _flooding(self) -> bool:
        limits = self.hub.limits
        now = self.hub.clock()
        self._tokens = min(float(limits.burst), self._tokens + (now - self._last) * limits.rate)
        self._last = now
        self._tokens -= 1
        return self._tokens < 0

    async def received(self, message: Mapping[str, Any]) -> bool:
        """One ASGI websocket message; False once the socket is done."""
        kind = message.get("type")
        if kind == "websocket.disconnect":
            self.disconnected(message.get("code"), message.get("reason"))
            return False
        if kind != "websocket.receive" or self.closed:
            return not self.closed
        text = message.get("text")
        frame = proto.decode_frame(text) if text is not None else None
        too_many = self._too_many(frame)
        if too_many is not None:
            note, code, reason = too_many
            self.hub.note(note, self, code=code)
            await self.close(POLICY, reason)
            self.disconnected(POLICY, reason, ours=True)
            return False
        if text is None:
            data = message.get("bytes") or b""
            self._binary(data)
            await self.send(
                proto.error(
                    None,
                    JsonRpcError(
                        -32600, "Invalid Request", {"reason": "binary frame: the hub takes JSON-RPC in text frames"}
                    ),
                )
            )
            return True
        assert frame is not None
        await self._text(text, frame)
        return True

    def _too_many(self, frame: proto.Frame | None) -> tuple[str, str, str] | None:
        """(note, code, close reason) when ``frame`` is one too many, else None.

        What the hub asked for is not charged to the flood bucket: an answer to a request
        the hub sent (each is answered once), and a frame about a task the hub sent this
        agent and still relays, which is bounded per task instead. So one agent may work
        on as many tasks at once as the hub gives it. Everything else (heartbeats,
        searches, delegations, junk, frames about tasks not its own or already settled)
        is what an agent can send unasked, and that is what the bucket limits."""
        limits = self.hub.limits
        if frame is not None and self.name is not None:
            if frame.role in ("result", "error") and _hashable(frame.rpc_id) and frame.rpc_id in self.pending:
                return None
            if frame.method in proto.TASK_UPDATES and not isinstance(frame.item, ProtocolError):
                task_id = frame.task_id
                relays = self.hub.relays_for(self, task_id) if task_id else []
                if relays:
                    if relays[-1].events < limits.max_task_frames:
                        return None
                    return (
                        f"ws socket #{self.number}{self._who()} sent more than {limits.max_task_frames} frames "
                        f"about task {task_id}: closed it as a flood",
                        "hub-task-flood",
                        "too many frames for one task",
                    )
        if not self._flooding():
            return None
        return (
            f"ws socket #{self.number}{self._who()} sent more than {limits.burst} frames unasked in a burst "
            f"(more than {limits.rate:g} a second after it): closed it as a flood",
            "hub-flood",
            "frame flood",
        )

    def _binary(self, data: bytes) -> None:
        kept = data[:BINARY_KEPT]
        extra: dict[str, Any] = {"encoding": "base64"}
        if len(data) > BINARY_KEPT:
            extra["cut"] = True
        self.hub.frame(self, "in", "binary", text=base64.b64encode(kept).decode("ascii"), size=len(data), **extra)

    def _who(self) -> str:
        return f" ({self.name})" if self.name else ""

    async def _text(self, text: str, frame: proto.Frame) -> None:
        hub = self.hub
        entry = hub.agents.get(self.name) if self.name else None
        if entry is not None:
            hub.heard(entry)
        role = frame.role
        if role == "invalid":
            exchange = hub.single_exchange(self)
            hub.frame(self, "in", "text", text=text, exchange=exchange, payload=frame)
            reason = frame.item.reason if isinstance(frame.item, ProtocolError) else str(frame.item)
            code = -32700 if "JSON" in reason or "empty" in reason else -32600
            await self.send(
                proto.error(
                    None, JsonRpcError(code, "Parse error" if code == -32700 else "Invalid Request", {"reason": reason})
                )
            )
            return
        if role in ("result", "error"):
            rid = frame.rpc_id if _hashable(frame.rpc_id) else None
            waiter = self.pending.pop(rid, None)
            late = self.late.pop(rid, None) if waiter is None else None
            exchange = waiter[0] if waiter is not None else (late or 0)
            hub.frame(self, "in", "text", text=text, exchange=exchange, payload=frame)
            if late is not None:
                return
            if waiter is None:
                hub.note(
                    f"ws socket #{self.number}{self._who()} answered id {frame.rpc_id!r}, which the hub never sent",
                    self,
                )
                return
            waiter[1](frame)
            return
        method = frame.method or ""
        if method in proto.TASK_UPDATES:
            await self._update(text, frame)
            return
        if method == proto.SEND_TASK:
            exchange = hub.session.new_exchange() if self.name else 0
            hub.frame(self, "in", "text", text=text, exchange=exchange, payload=frame)
            if self._registered(frame):
                self._spawn(hub.delegate(self, frame, exchange))
            else:
                await self._refuse_unregistered(frame)
            return
        hub.frame(self, "in", "text", text=text, payload=frame)
        if method == proto.REGISTER:
            await hub.register(self, frame)
        elif method == proto.HEARTBEAT:
            if frame.has_id:
                await self.send(proto.result(frame.rpc_id, {"ok": True}))
        elif not self._registered(frame):
            await self._refuse_unregistered(frame)
        elif method == proto.SEARCH:
            await hub.search(self, frame)
        elif method in proto.A2A_METHODS:
            if frame.has_id:
                await self.send(
                    proto.error(
                        frame.rpc_id,
                        JsonRpcError(
                            -32601,
                            "Method not found",
                            {
                                "method": method,
                                "reason": "the hub sends tasks to agents; to delegate, use agent.send_task",
                            },
                        ),
                    )
                )
        elif frame.has_id:
            await self.send(proto.error(frame.rpc_id, JsonRpcError(-32601, "Method not found", {"method": method})))

    def _registered(self, frame: proto.Frame) -> bool:
        return self.name is not None

    async def _refuse_unregistered(self, frame: proto.Frame) -> None:
        if frame.has_id:
            await self.send(
                proto.error(
                    frame.rpc_id,
                    JsonRpcError(
                        proto.NOT_REGISTERED,
                        "Not registered",
                        {"reason": f"register first (agent.register) before {frame.method}"},
                    ),
                )
            )

    async def _update(self, text: str, frame: proto.Frame) -> None:
        hub = self.hub
        item = frame.item
        task_id = frame.task_id if not isinstance(item, ProtocolError) else None
        relays = hub.relays_for(self, task_id) if task_id else []
        exchange = relays[-1].exchange if relays else (hub.single_exchange(self) if task_id is None else 0)
        owner = hub.task_agent.get(task_id) if task_id is not None else None
        # Only the agent a task was sent to may report on it: anyone else's frame is kept
        # (the tracker shows it as a violation) but marked refused, so nothing folds it
        # into the task, live or from a recording.
        foreign = task_id is not None and not relays and (self.name is None or owner != self.name)
        refused: dict[str, Any] = {}
        if foreign:
            sent = f"which the hub sent to {owner}" if owner else "which the hub never sent"
            refused["refused"] = (
                f"ws-agent {self.name or '#' + str(self.number)} sent {frame.method} about task "
                f"{task_id}, {sent}: refused, not applied"
            )
        hub.frame(self, "in", "text", text=text, exchange=exchange, payload=frame, **refused)
        if self.name is None:
            await self._refuse_unregistered(frame)
            return
        if isinstance(item, ProtocolError):
            if frame.has_id:
                await self.send(
                    proto.error(
                        frame.rpc_id, JsonRpcError(-32602, "Invalid params", {"path": item.path, "reason": item.reason})
                    )
                )
            return
        if foreign:
            hub.note(refused["refused"], self, code="hub-foreign-task")
            if frame.has_id:
                await self.send(
                    proto.error(frame.rpc_id, JsonRpcError(proto.UNKNOWN_TASK, "Task not found", {"id": task_id}))
                )
            return
        for relay in relays:
            relay.feed(item)
        if task_id is not None:
            hub.tell(task_id, item)
        if frame.has_id:
            await self.send(proto.result(frame.rpc_id, {"ok": True}), exchange)

    def settled(self, rid: Any, exchange: int) -> None:
        """The task of request ``rid`` settled: its answer may still come (see ``late``)."""
        if self.pending.pop(rid, None) is None:
            return
        self.late[rid] = exchange
        if len(self.late) > LATE_KEPT:
            del self.late[next(iter(self.late))]

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # ------------------------------------------------------------------ end

    def disconnected(self, code: Any, reason: Any, ours: bool = False) -> None:
        if getattr(self, "_gone", False):
            return
        self._gone = True
        self.closed = True
        hub = self.hub
        if not ours:
            extra: dict[str, Any] = {"code": code if isinstance(code, int) else None}
            if isinstance(reason, str) and reason:
                extra["reason"] = reason
            # 1009 is the hub's own WebSocket layer refusing a frame over the size limit.
            hub.frame(self, "out" if code == TOO_BIG else "in", "close", **extra)
            if code == TOO_BIG:
                hub.note(
                    f"ws socket #{self.number}{self._who()} sent a frame over the "
                    f"{format_size(hub.limits.max_frame)} limit (--max-frame): the hub refused it unread and "
                    "closed the socket (1009)",
                    self,
                    code="hub-frame-too-large",
                )
        # Running tasks first: the hub fails each with its own status, which their
        # callers get; then whatever else waited for an answer (a cancel) fails.
        hub.socket_gone(self, code, reason)
        for rid, waiter in list(self.pending.items()):
            self.pending.pop(rid, None)
            waiter[2](
                RelayFailed(
                    f"ws-agent {self.name or '#' + str(self.number)} disconnected "
                    f"({close_words(code, reason)}) before answering",
                    reason="eof",
                )
            )
        for task in list(self._tasks):
            task.cancel()


def _hashable(value: Any) -> bool:
    return isinstance(value, (str, int, float)) or value is None


def close_words(code: Any, reason: Any) -> str:
    """How a socket ended, in a few words."""
    if code in (1005, 1006, None):
        # uvicorn reports a connection lost without a close frame as 1005.
        return "the connection dropped"
    text = f"close code {code}"
    if isinstance(reason, str) and reason:
        text += f": {reason}"
    return text
