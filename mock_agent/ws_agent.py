"""``a2a-mock --ws-agent``: the mock as a Society AI ws-agent, connected to a hub.

    a2a-mock --ws-agent ws://127.0.0.1:8765/ws --name helper --scenario streaming

It connects, registers (agent.register with the scenario's card), heartbeats, and runs
its scenario for every task the hub sends it (tasks/send or tasks/sendSubscribe),
reporting back in frames: each status as task.status (a terminal one as task.complete,
with the whole task), each chunk as task.artifact, and the turn's outcome as the answer
to the hub's request. The frames are those of docs/hub.md (inspector/protocol/hub.py).

The scenario's faults keep their meaning where a socket has one: ``error`` answers the
request with that JSON-RPC error, ``malformed`` sends its text as a frame, ``drop``
cuts the socket without a close frame (the mock then reconnects and registers again,
as a real agent does, and forgets the tasks that were running), ``heartbeat`` steps
send heartbeat frames, and ``http`` (no HTTP here) answers with -32603 naming the
status. ``--heartbeat 0`` sends no heartbeats, so the hub marks the agent stale.

A socket that drops otherwise (the hub restarts, closes it, or the connection breaks)
is opened again after a backoff (0.5 s, doubling to 30 s; one line on stderr for each
attempt), as a real agent's would be; the mock gives up after 30 attempts in a row that
do not register. Only the first connection failing ends the mock at once (a wrong URL).

Uses the ``websockets`` library directly: mock_agent never imports the inspector's
client or hub.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
import uuid
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from inspector.protocol import hub as proto
from inspector.protocol import models as m
from inspector.protocol.card import encode_card
from inspector.protocol.errors import JsonRpcError, ProtocolError
from inspector.protocol.states import INTERRUPTED, TERMINAL

from . import construct as new
from .engine import DONE, Canceled, Comment, Drop, Engine, HttpFault, Malformed, RpcFault, now
from .loader import resolve
from .profiles import get_profile
from .store import TaskRecord, TaskStore

_SETTLING = TERMINAL | INTERRUPTED
#: Largest frame the mock reads from the hub.
MAX_FRAME = 16 * 1024 * 1024
#: Reconnections after scripted drops, at most (a script that drops on every task
#: must not reconnect for ever).
MAX_RECONNECTS = 1000
#: After a socket drops that the script did not drop: the first wait before connecting
#: again (doubled at each attempt that does not register, up to the largest), and the
#: attempts in a row before the mock gives up.
RECONNECT_DELAY = 0.5
RECONNECT_MAX_DELAY = 30.0
RECONNECT_ATTEMPTS = 30
_LOOPBACK = ("127.0.0.1", "localhost", "::1")


class Refused(Exception):
    """The hub refused to register the agent (the name is taken, say)."""

    def __init__(self, message: str, code: int | None = None, reason: str = "") -> None:
        super().__init__(message)
        self.code = code
        self.reason = reason


class GaveUp(Exception):
    """The socket dropped and every attempt to come back failed."""


class WsAgent:
    """A scenario played as a ws-agent. ``await agent.run()`` until the hub goes away
    (or ``stop()``); ``held``/``release`` work as on MockAgent."""

    def __init__(
        self,
        url: str,
        name: str,
        scenario: Any = None,
        *,
        time_scale: float = 1.0,
        seed: int | None = None,
        heartbeat: float | None = None,
        max_tasks: int | None = None,
        allow_public: bool = False,
        log: Callable[[str], None] | None = None,
        warn: Callable[[str], None] | None = None,
        reconnect_delay: float = RECONNECT_DELAY,
    ) -> None:
        """``log``: what the agent does (registered, a scripted drop); ``warn``: what went
        wrong (a socket that dropped, each attempt to reconnect)."""
        host = urlsplit(url).hostname or ""
        if host not in _LOOPBACK and not allow_public:
            raise ValueError(
                f"refusing to connect to {host!r}: the mock talks to a hub on loopback only "
                "(pass --allow-public to reach another host)"
            )
        self.url = url
        self.name = name
        self.scenario = resolve(scenario or "echo")
        self.store = TaskStore(max_tasks or 1000)
        self.engine = Engine(self.scenario, self.store, time_scale=time_scale, seed=seed)
        #: Seconds between heartbeats (None: what the hub asks for; 0: none at all).
        self.heartbeat = heartbeat
        self.log = log or (lambda text: None)
        self.warn = warn or (lambda text: None)
        self.reconnect_delay = reconnect_delay
        self.registered = asyncio.Event()
        self.connections = 0
        self._ws: Any = None
        self._ids = 0
        #: Task id -> request ids to answer when its turn settles.
        self._waiting: dict[str, list[Any]] = {}
        self._pumps: dict[str, asyncio.Task[None]] = {}
        self._stopping = False
        self._stopped = asyncio.Event()
        self._drop = asyncio.Event()
        #: The close begun by stop(): held so the loop cannot collect it half done.
        self._closing: asyncio.Future[None] | None = None

    # ------------------------------------------------------------------ for tests

    def held(self, gate: str) -> int:
        return self.engine.gates.held(gate)

    def release(self, gate: str) -> int:
        return self.engine.gates.release(gate)

    def task(self, task_id: str) -> TaskRecord | None:
        return self.store.get(task_id)

    @property
    def stopping(self) -> bool:
        return self._stopping

    def stop(self) -> None:
        self._stopping = True
        self._stopped.set()
        ws = self._ws
        if ws is not None and self._closing is None:
            self._closing = asyncio.ensure_future(ws.close())

    # ------------------------------------------------------------------ the card

    def card(self) -> dict[str, Any]:
        card = self.scenario.card.model_copy(deep=True)
        card.url = proto.agent_url(self.name)
        if card.name is None:
            card.name = self.name
        return encode_card(card, "0.1")

    # ------------------------------------------------------------------ connection

    async def run(self) -> None:
        """Connect and serve until stop(). When the socket drops, connect and register
        again: at once after a scripted drop, else after a backoff that doubles (one
        ``warn`` line per attempt). Raises Refused when the hub will not register the
        agent, OSError when the hub cannot be reached at all (the first attempt), GaveUp
        after RECONNECT_ATTEMPTS attempts in a row that did not register."""
        from websockets.asyncio.client import connect

        scripted = 0
        failed = 0  # attempts in a row that ended without registering
        first = True
        while True:
            self._drop.clear()
            why: str
            opened = False
            try:
                async with connect(
                    self.url, max_size=MAX_FRAME, compression=None, open_timeout=10, ping_interval=None
                ) as ws:
                    opened = True
                    self._ws = ws
                    self.connections += 1
                    try:
                        await self._serve(ws)
                    finally:
                        self._ws = None
                        got_in = self.registered.is_set()
                        self.registered.clear()
                    why = _ended(ws.close_code, ws.close_reason)
            except Refused as exc:
                # On a reconnect the name may still be held by the socket that dropped
                # (the hub has not seen it go yet): that clears, so try again.
                if first or exc.code != proto.NAME_TAKEN:
                    raise
                got_in, why = False, f"was refused ({exc.reason})"
            except Exception as exc:
                if first:
                    raise
                got_in, why = False, f"{'dropped' if opened else 'could not be opened'} ({_reason(exc)})"
            first = False
            if self._stopping:
                return
            if self._drop.is_set():
                if scripted >= MAX_RECONNECTS:
                    raise GaveUp(f"dropped the socket as scripted {MAX_RECONNECTS} times: not reconnecting again")
                scripted += 1
                self.log(f"a2a-mock: dropped the socket as scripted; reconnecting to {self.url}")
                continue
            failed = 0 if got_in else failed
            failed += 1
            if failed > RECONNECT_ATTEMPTS:
                raise GaveUp(
                    f"gave up on the hub at {self.url} after {RECONNECT_ATTEMPTS} attempts in a row (the last {why})"
                )
            delay = min(self.reconnect_delay * 2 ** (failed - 1), RECONNECT_MAX_DELAY)
            self.warn(
                f"a2a-mock: the socket to {self.url} {why}; reconnecting in {delay:g} s "
                f"(attempt {failed} of {RECONNECT_ATTEMPTS})"
            )
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopped.wait(), delay)
            if self._stopping:
                return

    async def _serve(self, ws: Any) -> None:
        from websockets.exceptions import ConnectionClosed

        rid = self._next_id()
        await ws.send(proto.dumps(proto.request(proto.REGISTER, {"name": self.name, "card": self.card()}, rid)))
        beats: asyncio.Task[None] | None = None
        try:
            async for text in ws:
                frame = proto.decode_frame(text if isinstance(text, str) else None)
                if frame.role in ("result", "error") and frame.rpc_id == rid and not self.registered.is_set():
                    if frame.role == "error":
                        err = frame.item
                        reason = (err.data or {}).get("reason") if isinstance(err.data, dict) else None
                        raise Refused(
                            f"the hub refused to register {self.name!r}: {reason or err.message}",
                            err.code,
                            str(reason or err.message),
                        )
                    self.registered.set()
                    interval = self.heartbeat
                    if interval is None:
                        told = frame.item.get("heartbeat_interval") if isinstance(frame.item, dict) else None
                        interval = float(told) if isinstance(told, (int, float)) and told > 0 else 15.0
                    if interval > 0:
                        beats = asyncio.ensure_future(self._heartbeats(ws, interval))
                    self.log(f"a2a-mock: registered as ws-agent://{self.name} at {self.url}")
                    continue
                await self._on_frame(ws, frame)
        except ConnectionClosed:
            pass
        finally:
            if beats is not None:
                beats.cancel()
            for task_id in list(self._pumps):
                self._abandon(task_id)

    def _next_id(self) -> str:
        self._ids += 1
        return f"{self.name}-{self._ids}"

    async def _send(self, doc: Any) -> None:
        ws = self._ws
        if ws is None:
            return
        with contextlib.suppress(Exception):
            await ws.send(doc if isinstance(doc, str) else proto.dumps(doc))

    async def _heartbeats(self, ws: Any, interval: float) -> None:
        while True:
            await asyncio.sleep(interval)
            await self._send(proto.notification(proto.HEARTBEAT, {"name": self.name, "timestamp": now()}))

    # ------------------------------------------------------------------ the hub's requests

    async def _on_frame(self, ws: Any, frame: proto.Frame) -> None:
        if frame.role not in ("request", "notification"):
            return  # answers to our own heartbeats, or the hub's complaints
        rid = frame.rpc_id if frame.has_id else None
        item = frame.item
        method = frame.method
        if isinstance(item, ProtocolError):
            if rid is not None:
                await self._send(
                    proto.error(rid, JsonRpcError(-32602, "Invalid params", {"path": item.path, "reason": item.reason}))
                )
            return
        try:
            if method in (proto.SEND, proto.STREAM):
                self._on_send(item, rid, "stream" if method == proto.STREAM else "send")
            elif method == proto.CANCEL:
                await self._on_cancel(item.id, rid)
            elif method == proto.GET:
                record = self._record(item.id)
                if rid is not None:
                    await self._send(proto.result(rid, proto.encode_task(record.snapshot(item.history_length))))
            elif rid is not None:
                raise JsonRpcError(-32601, "Method not found", {"method": method})
        except JsonRpcError as err:
            if rid is not None:
                await self._send(proto.error(rid, err))

    def _record(self, task_id: str) -> TaskRecord:
        record = self.store.get(task_id)
        if record is None:
            raise JsonRpcError(-32001, "Task not found", {"id": task_id})
        return record

    def _on_send(self, params: m.SendParams, rid: Any, method: str) -> None:
        msg = params.message
        task_id = msg.task_id or str(uuid.uuid4())
        record = self.store.get(task_id)
        held = False
        if record is None:
            # society-ai's profile has a task_metadata (other profiles may not: it is optional).
            metadata = get_profile("society-ai").task_metadata(params, self.scenario.card)  # type: ignore[misc]
            record = self.store.create(task_id, msg.context_id or str(uuid.uuid4()), "0.1", metadata)
        elif record.run is not None:
            if record.follow_up is None:
                raise JsonRpcError(-32004, f"Task {task_id} is still working on the previous message")
            held = True
        msg.task_id = record.task.id
        msg.context_id = record.task.context_id
        if rid is not None:
            self._waiting.setdefault(task_id, []).append(rid)
        if held:
            self.engine.follow_up(record, msg, method, "0.1", params.metadata)
            return
        run = self.engine.begin_turn(record, msg, method, "0.1", params.metadata)
        queue: asyncio.Queue[Any] = asyncio.Queue()
        record.subscribers.append(queue)
        self._pumps[task_id] = asyncio.ensure_future(self._pump(record, queue))
        run.start()

    async def _on_cancel(self, task_id: str, rid: Any) -> None:
        record = self._record(task_id)
        if record.terminal:
            raise JsonRpcError(-32002, "Task cannot be canceled", {"id": task_id, "state": record.state.value})
        message = new.Message(
            role=m.Role.AGENT,
            parts=[new.TextPart(kind="text", text="canceled by request", metadata=None)],
            message_id=None,
            task_id=task_id,
            context_id=record.task.context_id,
        )
        status = new.TaskStatus(state=m.TaskState.CANCELED, message=message, timestamp=now())
        record.pending = None
        if record.run is not None:
            record.run.cancel(status)
        else:
            record.set_status(status)
            await self._send(proto.notification(proto.COMPLETE, proto.encode_task(record.snapshot())))
        if rid is not None:
            await self._send(proto.result(rid, proto.encode_task(record.snapshot())))

    # ------------------------------------------------------------------ a run's frames

    async def _pump(self, record: TaskRecord, queue: asyncio.Queue[Any]) -> None:
        task_id = record.task.id
        try:
            while True:
                item = await queue.get()
                if item is DONE:
                    break
                kind = type(item)
                if kind is Canceled:
                    item = item.item
                    kind = type(item)
                if kind is m.TaskStatusUpdateEvent or isinstance(item, m.TaskStatusUpdateEvent):
                    await self._status(record, item)
                elif isinstance(item, m.TaskArtifactUpdateEvent):
                    await self._send(proto.notification(proto.ARTIFACT, proto.artifact_params(item)))
                elif isinstance(item, m.Message):
                    await self._answer(task_id, lambda rid, item=item: proto.result(rid, proto.encode_message(item)))
                elif kind is RpcFault:
                    await self._answer(task_id, lambda rid, err=item.error: proto.error(rid, err))
                elif kind is HttpFault:
                    err = JsonRpcError(
                        -32603,
                        "Internal error",
                        {
                            "reason": f"scripted HTTP {item.status} (a ws-agent has no HTTP status to send)",
                            "http_status": item.status,
                        },
                    )
                    await self._answer(task_id, lambda rid, err=err: proto.error(rid, err))
                elif kind is Malformed:
                    await self._send(item.body.decode("utf-8", "replace"))
                elif kind is Drop:
                    self._drop.set()
                    ws = self._ws
                    if ws is not None:
                        ws.transport.abort()
                    return
                elif kind is Comment:
                    await self._send(proto.notification(proto.HEARTBEAT, {"name": self.name, "comment": item.text}))
        finally:
            with contextlib.suppress(ValueError):
                record.subscribers.remove(queue)
            if self._pumps.get(task_id) is asyncio.current_task():
                del self._pumps[task_id]
        # The script ran out: whoever still waits gets the task as it stands.
        await self._answer(task_id, lambda rid: proto.result(rid, proto.encode_task(record.snapshot())))

    async def _status(self, record: TaskRecord, event: m.TaskStatusUpdateEvent) -> None:
        state = event.status.state
        if state in TERMINAL:
            await self._send(proto.notification(proto.COMPLETE, proto.encode_task(record.snapshot())))
        else:
            await self._send(proto.notification(proto.STATUS, proto.status_params(event)))
        if state in _SETTLING:
            snapshot = record.snapshot()
            await self._answer(record.task.id, lambda rid: proto.result(rid, proto.encode_task(snapshot)))

    async def _answer(self, task_id: str, make: Callable[..., Any]) -> None:
        # make(rid) -> the frame; "...": the callers' lambdas bind their values as defaults.
        for rid in self._waiting.pop(task_id, []):
            await self._send(make(rid))

    def _abandon(self, task_id: str) -> None:
        """The socket is gone: the hub has failed the task; stop its script."""
        pump = self._pumps.pop(task_id, None)
        if pump is not None:
            pump.cancel()
        self._waiting.pop(task_id, None)
        record = self.store.get(task_id)
        if record is not None and record.run is not None and record.run._task is not None:
            record.run._task.cancel()


def _ended(code: int | None, reason: str | None) -> str:
    """How a socket ended, in a few words (after "the socket to URL")."""
    if code in (None, 1005, 1006):
        return "dropped"
    return f"was closed by the hub (code {code}{': ' + reason if reason else ''})"


def _reason(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or type(exc).__name__


async def run_agent(
    url: str,
    name: str,
    scenario: Any,
    *,
    time_scale: float = 1.0,
    seed: int | None = None,
    heartbeat: float | None = None,
    max_tasks: int | None = None,
    allow_public: bool = False,
) -> int:
    """The command: one line on start, one on each reconnect, one on the way out."""

    def say(text: str) -> None:
        print(text, flush=True)

    def warn(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    try:
        agent = WsAgent(
            url,
            name,
            scenario,
            time_scale=time_scale,
            seed=seed,
            heartbeat=heartbeat,
            max_tasks=max_tasks,
            allow_public=allow_public,
            log=say,
            warn=warn,
        )
    except ValueError as exc:
        print(f"a2a-mock: {exc}", file=sys.stderr)
        return 1
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):  # not on this platform
            loop.add_signal_handler(sig, agent.stop)
    try:
        await agent.run()
    except (Refused, GaveUp) as exc:
        print(f"a2a-mock: {exc}", file=sys.stderr)
        return 1
    except (OSError, TimeoutError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        print(f"a2a-mock: cannot reach the hub at {url}: {reason}", file=sys.stderr)
        return 1
    except Exception as exc:  # the websockets library's handshake errors, say: one line
        print(f"a2a-mock: the hub at {url}: {exc}", file=sys.stderr)
        return 1
    say(f"a2a-mock: stopped; ws-agent://{name} left the hub")
    return 0


def main(url: str, name: str, scenario: Any, **kwargs: Any) -> int:
    try:
        return asyncio.run(run_agent(url, name, scenario, **kwargs))
    except KeyboardInterrupt:
        return 0


__all__ = ["GaveUp", "WsAgent", "Refused", "main", "run_agent"]
