"""The hub: registered agents, the tasks relayed to them, and one session holding every
frame both ways.

Everything is an event: each WebSocket frame (heartbeats included), each socket opening
and closing, is appended to ``hub.session`` as a ``ws`` event before the hub acts on
it, and the hub's own decisions are notes. The hub's task views are a TaskTracker over
that session, the same projection the inspector shows, so ``tasks/get`` answers with
exactly what the frames said. With ``agent_sessions`` each agent also gets a session
of its own (its sockets' frames only), for the TUI's one-connection-per-agent view.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable, Mapping
from datetime import UTC
from typing import Any

from ..protocol import hub as proto
from ..protocol import models as m
from ..protocol.errors import JsonRpcError
from ..protocol.methods import Method
from ..session import Kind, Session, TaskTracker
from ..session.payloads import ws_payload
from ..session.task_snapshot import task_from_view
from .backlog import Backlog
from .limits import HubLimits, name_problem
from .registry import AgentEntry, matches
from .relay import RelayFailed, TaskRelay
from .socket import AgentSocket, close_words

#: Listener(event, entry): "registered" | "stale" | "alive" | "offline" | "card".
AgentListener = Callable[[str, AgentEntry], None]
_UNSET: Any = object()
#: Events of a socket kept until it registers (then copied to the agent's session), and
#: the most text they may hold: 400 sockets that never register must not hold 64 frames
#: of 4 MiB each (the hub's own session has every one).
EARLY_KEPT = 64
EARLY_TEXT = 256 * 1024
#: The hub's sessions hold their newest events in memory, as the TUI's do, and at most
#: this much of their text (a frame may be 4 MiB); older ones go to a private spill file.
EVENTS_KEPT = 10_000
TEXT_KEPT = 32 * 1024 * 1024
#: Messages of each task's history held in memory (older ones: on disk, read back).
MESSAGES_KEPT = 1_000
#: Search results at most.
MAX_RESULTS = 50


class Hub:
    def __init__(
        self,
        *,
        session: Session | None = None,
        limits: HubLimits | None = None,
        clock: Callable[[], float] = time.monotonic,
        http_agents: Mapping[str, str] | None = None,
        agent_sessions: bool = False,
        requester: str = "a2a-inspect",
    ) -> None:
        """``http_agents``: name -> URL of HTTP A2A agents that agent.send_task may
        reach. ``clock``: the monotonic clock for heartbeats and flood limits (tests
        pass their own). ``requester``: who the hub says sends the tasks it relays for
        its own callers (Society AI's ``metadata.requester``)."""
        self.session = session if session is not None else _session()
        self.tracker = TaskTracker(self.session, messages_kept=MESSAGES_KEPT)
        self.limits = limits or HubLimits()
        self.clock = clock
        self.http_agents = dict(http_agents or {})
        self.agent_sessions = agent_sessions
        self.requester = requester
        self.agents: dict[str, AgentEntry] = {}
        self.sockets: dict[int, AgentSocket] = {}
        #: Task id -> its open relays, oldest first (a follow-up opens a second one).
        self.relays: dict[str, list[TaskRelay]] = {}
        #: Task id -> the agent it was sent to.
        self.task_agent: dict[str, str] = {}
        #: Task id -> queues of resubscribers (they get what the task's relays get).
        self.followers: dict[str, list[Backlog]] = {}
        self.listeners: list[AgentListener] = []
        #: The HTTP bridge's base URL (http://127.0.0.1:P), once served.
        self.bridge: str | None = None
        self._sockets_seen = 0
        self._early: dict[int, list[tuple[Kind, dict[str, Any], int, Any]]] = {}
        self._opened: dict[int, float] = {}

    # ------------------------------------------------------------------ the log

    def frame(
        self,
        sock: AgentSocket,
        direction: str,
        op: str,
        *,
        text: str | None = None,
        size: int | None = None,
        exchange: int = 0,
        payload: Any = _UNSET,
        **extra: Any,
    ) -> None:
        """Append one ``ws`` event: a frame (``op`` text/binary), an opening or a closing."""
        data: dict[str, Any] = {"conn": sock.number, "dir": direction, "op": op, "agent": sock.name}
        if text is not None:
            data["text"] = text
        if size is not None:
            data["size"] = size
        elif op == "text" and text is not None:
            data["size"] = len(text.encode("utf-8", "surrogatepass"))
        data.update(extra)
        if payload is _UNSET or op != "text":
            payload = ws_payload(data)
        # The method and id, read off the frame: the traffic view filters on them.
        if op == "text" and payload is not None and payload.role != "invalid":
            if payload.method is not None:
                data["rpc_method"] = payload.method
            if payload.has_id:
                data["rpc_id"] = payload.rpc_id
        self._append(Kind.WS, data, exchange, payload, sock)

    def note(self, text: str, sock: AgentSocket | None = None, *, exchange: int = 0, **extra: Any) -> None:
        data: dict[str, Any] = {"text": text, **extra}
        if sock is not None:
            data["conn"] = sock.number
            if sock.name:
                data["agent"] = sock.name
        self._append(Kind.NOTE, data, exchange, None, sock)

    def _append(
        self,
        kind: Kind,
        data: dict[str, Any],
        exchange: int,
        payload: Any,
        sock: AgentSocket | None,
        name: str | None = None,
    ) -> None:
        _log(self.session, kind, data, exchange, payload)
        if not self.agent_sessions:
            return
        name = name or (sock.name if sock is not None else None)
        if name is not None:
            entry = self.agents.get(name)
            if entry is not None and entry.session is not None:
                _log(entry.session, kind, data, exchange, payload)
        elif sock is not None:
            early = self._early.setdefault(sock.number, [])
            if len(early) < EARLY_KEPT and sum(_text_size(e[1]) for e in early) + _text_size(data) <= EARLY_TEXT:
                early.append((kind, data, exchange, payload))

    def _agent_log(self, name: str, kind: Kind, data: dict[str, Any], exchange: int = 0, payload: Any = None) -> None:
        self._append(kind, data, exchange, payload, None, name)

    def _tell(self, what: str, entry: AgentEntry) -> None:
        for listener in list(self.listeners):
            try:
                listener(what, entry)
            except Exception:  # a listener's bug must not stop the hub
                pass

    # ------------------------------------------------------------------ sockets

    def open_socket(
        self, transport: Any, peer: str | None, path: str, headers: dict[str, str] | None = None
    ) -> AgentSocket | None:
        """A new socket; None (and a note) when the hub holds as many as it may."""
        self._sockets_seen += 1
        sock = AgentSocket(self, self._sockets_seen, transport, peer)
        if len(self.sockets) >= self.limits.max_sockets:
            self.note(
                f"refused ws socket #{sock.number} from {peer}: {self.limits.max_sockets} sockets are open already",
                code="hub-too-many-sockets",
            )
            return None
        self.sockets[sock.number] = sock
        self._opened[sock.number] = self.clock()
        extra: dict[str, Any] = {"path": path}
        if peer:
            extra["peer"] = peer
        if headers:
            extra["headers"] = headers
        self.frame(sock, "in", "open", **extra)
        return sock

    def socket_gone(self, sock: AgentSocket, code: Any, reason: Any) -> None:
        self.sockets.pop(sock.number, None)
        self._early.pop(sock.number, None)
        self._opened.pop(sock.number, None)
        name = sock.name
        entry = self.agents.get(name) if name else None
        if entry is None or entry.socket is not sock:
            return
        entry.socket = None
        words = close_words(code, reason)
        for relays in list(self.relays.values()):
            for relay in list(relays):
                if relay.entry is entry and not relay.done:
                    self._drop(relay, words)
        self.note(f"ws-agent {name} disconnected ({words}); its name is free again", sock)
        self._tell("offline", entry)

    def _drop(self, relay: TaskRelay, words: str) -> None:
        """The agent's socket closed with ``relay``'s task still running: the hub fails
        the task (as Society AI's router marks a task whose agent is gone) and says why."""
        entry = relay.entry
        view = self.tracker.task(relay.task_id)
        state = view.state.value if view is not None and view.state is not None else "submitted"
        text = (
            f"ws-agent {entry.name} disconnected ({words}) while task {relay.task_id} was {state}: "
            "the hub failed the task"
        )
        self._agent_log(entry.name, Kind.ERROR, {"type": "stream", "message": text}, relay.exchange)
        message = m.Message(role=m.Role.AGENT, parts=[m.TextPart(text=text)], task_id=relay.task_id)
        status = m.TaskStatusUpdateEvent(
            task_id=relay.task_id,
            context_id=view.context_id if view else None,
            status=m.TaskStatus(state=m.TaskState.FAILED, message=message, timestamp=_now()),
            final=True,
        )
        doc = proto.notification(proto.STATUS, proto.status_params(status))
        text_frame = proto.dumps(doc)
        data = {
            "conn": entry.extra.get("conn"),
            "dir": "hub",
            "op": "text",
            "agent": entry.name,
            "text": text_frame,
            "size": len(text_frame.encode("utf-8")),
            "rpc_method": proto.STATUS,
        }
        frame = proto.decode_frame(text_frame)
        self._agent_log(entry.name, Kind.WS, data, relay.exchange, frame)
        for other in list(self.relays.get(relay.task_id, ())):
            other.feed(frame.item, "eof")
        self.tell(relay.task_id, frame.item)
        relay.end("eof", terminal=True)

    def heard(self, entry: AgentEntry) -> None:
        entry.last_seen = self.clock()
        if entry.stale:
            entry.stale = False
            self._agent_log(
                entry.name,
                Kind.NOTE,
                {"text": f"ws-agent {entry.name} is heard from again: no longer stale", "agent": entry.name},
            )
            self._tell("alive", entry)

    def sweep(self) -> list[AgentSocket]:
        """Mark agents stale that have sent nothing for the heartbeat timeout; return
        the sockets that never registered within it (the server closes them)."""
        now = self.clock()
        timeout = self.limits.heartbeat_timeout
        for entry in self.agents.values():
            if entry.online and not entry.stale and now - entry.last_seen > timeout:
                entry.stale = True
                self._agent_log(
                    entry.name,
                    Kind.NOTE,
                    {
                        "text": f"ws-agent {entry.name} has sent nothing for {now - entry.last_seen:.0f} s (heartbeat "
                        f"timeout {timeout:g} s): marked stale",
                        "agent": entry.name,
                        "code": "hub-stale",
                    },
                )
                self._tell("stale", entry)
        return [
            s
            for n, s in self.sockets.items()
            if s.name is None and not s.closed and now - self._opened.get(n, now) > timeout
        ]

    # ------------------------------------------------------------------ registration

    async def register(self, sock: AgentSocket, frame: proto.Frame) -> None:
        reg = frame.item
        rid = frame.rpc_id

        async def refuse(code: int, message: str, reason: str) -> None:
            self.note(f"ws socket #{sock.number}: agent.register refused: {reason}", sock, code="hub-register-refused")
            if frame.has_id:
                await sock.send(proto.error(rid, JsonRpcError(code, message, {"reason": reason})))

        if not isinstance(reg, proto.Registration):
            reason = str(reg) if reg is not None else "no params"
            await refuse(-32602, "Invalid params", reason)
            return
        problem = name_problem(reg.name)
        if problem is not None:
            await refuse(proto.BAD_NAME, "Invalid agent name", problem)
            return
        name = reg.name
        assert name is not None
        if sock.name is not None and sock.name != name:
            await refuse(
                proto.BAD_NAME,
                "Already registered",
                f"this connection is registered as {sock.name!r} already; open another to register {name!r}",
            )
            return
        entry = self.agents.get(name)
        if entry is not None and entry.socket is not None and entry.socket is not sock:
            await refuse(
                proto.NAME_TAKEN,
                "Agent name taken",
                f"the name {name!r} is registered by another connection (#{entry.socket.number}); "
                "choose another name, or close that connection first",
            )
            return
        online = sum(1 for e in self.agents.values() if e.online)
        if entry is None and online >= self.limits.max_agents:
            await refuse(
                proto.TOO_MANY_AGENTS, "Too many agents", f"{self.limits.max_agents} agents are registered already"
            )
            return
        now = self.clock()
        new = entry is None
        if entry is None:
            entry = self.agents[name] = AgentEntry(name, sock)
            if self.agent_sessions:
                entry.session = _session()
        entry.socket = sock
        entry.card, entry.card_raw, entry.card_error = reg.card, reg.card_raw, reg.card_error
        entry.registered_at = entry.last_seen = now
        entry.stale = False
        entry.registrations += 1
        entry.extra["conn"] = sock.number
        first = sock.name is None
        sock.name = name
        if first and entry.session is not None:
            for kind, data, exchange, payload in self._early.pop(sock.number, []):
                _log(entry.session, kind, {**data, "agent": name} if kind is Kind.WS else data, exchange, payload)
        again = "" if new else " again"
        card = (
            ""
            if reg.card is not None
            else (f" with a card that does not decode ({reg.card_error})" if reg.card_error else " without a card")
        )
        self.note(f"ws-agent {name} registered{again} on socket #{sock.number}{card}", sock, code="hub-registered")
        if frame.has_id:
            await sock.send(
                proto.result(
                    rid,
                    {
                        "name": name,
                        "url": entry.url,
                        "heartbeat_interval": self.limits.heartbeat_interval,
                        "heartbeat_timeout": self.limits.heartbeat_timeout,
                    },
                )
            )
        self._tell("registered", entry)

    # ------------------------------------------------------------------ search

    def find(self, search: proto.Search) -> list[dict[str, Any]]:
        """Cards of the online agents that match (and configured HTTP agents by name)."""
        out = [e.card_json(self.bridge_url(e.name)) for e in self.agents.values() if e.online and matches(e, search)]
        words = search.query.casefold().split()
        if not search.tags and not search.skill:
            for name, url in self.http_agents.items():
                if all(w in name.casefold() for w in words):
                    out.append({"name": name, "url": url})
        limit = min(search.limit or 10, MAX_RESULTS)
        return out[:limit]

    async def search(self, sock: AgentSocket, frame: proto.Frame) -> None:
        item = frame.item
        if not isinstance(item, proto.Search):
            if frame.has_id:
                await sock.send(
                    proto.error(frame.rpc_id, JsonRpcError(-32602, "Invalid params", {"reason": str(item)}))
                )
            return
        if frame.has_id:
            await sock.send(proto.result(frame.rpc_id, {"agents": self.find(item)}))

    def bridge_url(self, name: str) -> str | None:
        return f"{self.bridge}/agents/{name}" if self.bridge else None

    # ------------------------------------------------------------------ tasks

    def relays_for(self, sock: AgentSocket, task_id: str) -> list[TaskRelay]:
        return [r for r in self.relays.get(task_id, ()) if r.entry.socket is sock and not r.done]

    def single_exchange(self, sock: AgentSocket) -> int:
        """The exchange of the socket's one running task, when it has exactly one."""
        found = {r.exchange for relays in self.relays.values() for r in relays if r.entry.socket is sock and not r.done}
        return found.pop() if len(found) == 1 else 0

    def entry(self, name: str) -> AgentEntry:
        entry = self.agents.get(name)
        if entry is None or entry.socket is None:
            raise JsonRpcError(
                proto.NO_SUCH_AGENT,
                "Agent not found",
                {"agent": name, "reason": f"no ws-agent named {name!r} is connected to this hub"},
            )
        return entry

    async def start(
        self, name: str, params: m.SendParams, *, stream: bool, requester: str | None = None, parent: str | None = None
    ) -> TaskRelay:
        """Send a task (or the next turn of one) to agent ``name``; the relay follows it."""
        entry = self.entry(name)
        sock = entry.socket
        assert sock is not None
        running = sum(1 for relays in self.relays.values() for r in relays if r.entry is entry and not r.done)
        if running >= self.limits.max_running:
            raise JsonRpcError(-32603, "Too many tasks", {"reason": f"{running} tasks of {name} are running"})
        params = params.model_copy(deep=True)
        msg = params.message
        task_id = msg.task_id or str(uuid.uuid4())
        msg.task_id = task_id
        view = self.tracker.task(task_id)
        if msg.context_id is None:
            msg.context_id = (view.context_id if view is not None else None) or str(uuid.uuid4())
        meta = dict(params.metadata or {})
        meta.setdefault("requester", {"name": requester or self.requester})
        meta.setdefault("executor", {"name": name})
        if parent:
            meta.setdefault(proto.PARENT_KEY, parent)
        params.metadata = meta
        exchange = self.session.new_exchange()
        rid = sock.next_id()
        relay = TaskRelay(self, entry, task_id, stream, exchange, rid)
        self.relays.setdefault(task_id, []).append(relay)
        self.task_agent[task_id] = name
        sock.pending[rid] = (exchange, lambda frame: relay.answered(frame.item), relay.fail)
        sent = await sock.send(proto.send_request(params, stream=stream, rpc_id=rid), exchange)
        if not sent and not relay.done:
            self._drop(relay, "the socket was closed")
        return relay

    def _relay_ended(self, relay: TaskRelay, reason: str, terminal: bool) -> None:
        relays = self.relays.get(relay.task_id)
        if relays is not None and relay in relays:
            relays.remove(relay)
            if not relays:
                del self.relays[relay.task_id]
        sock = relay.entry.socket
        if sock is not None:
            sock.settled(relay.rpc_id, relay.exchange)
        end = {"reason": reason, "events": relay.events, "elapsed_ms": relay.elapsed_ms(), "terminal": terminal}
        if relay.cut is not None:
            end["limit"] = relay.cut
        self._agent_log(relay.entry.name, Kind.STREAM_END, end, relay.exchange)

    def task(self, task_id: str, history_length: int | None = None) -> m.Task:
        """The task as the hub knows it from the frames (tasks/get)."""
        view = self.tracker.task(task_id)
        if view is None or task_id not in self.task_agent:
            raise JsonRpcError(proto.UNKNOWN_TASK, "Task not found", {"id": task_id})
        return task_from_view(view, history_length)

    def tasks_of(self, name: str) -> list[m.Task]:
        return [task_from_view(v, 0) for tid, v in self.tracker.tasks.items() if self.task_agent.get(tid) == name]

    async def cancel(self, name: str, task_id: str) -> m.Task:
        """tasks/cancel, sent to the agent; its answer (or its error) is the outcome."""
        entry = self.entry(name)
        if self.task_agent.get(task_id) != name:
            raise JsonRpcError(proto.UNKNOWN_TASK, "Task not found", {"id": task_id})
        sock = entry.socket
        assert sock is not None
        exchange = self.session.new_exchange()
        rid = sock.next_id()
        answer: asyncio.Future[Any] = asyncio.get_running_loop().create_future()

        def got(frame: proto.Frame) -> None:
            if not answer.done():
                answer.set_result(frame.item)

        def failed(exc: RelayFailed) -> None:
            if not answer.done():
                answer.set_exception(exc)

        sock.pending[rid] = (exchange, got, failed)
        await sock.send(proto.task_request(Method.CANCEL, task_id, rid), exchange)
        try:
            item = await asyncio.wait_for(answer, self.limits.answer_timeout)
        except TimeoutError:
            sock.pending.pop(rid, None)
            raise JsonRpcError(
                -32603,
                "Internal error",
                {"reason": f"ws-agent {name} did not answer tasks/cancel within {self.limits.answer_timeout:g} s"},
            ) from None
        except RelayFailed as exc:
            raise JsonRpcError(-32603, "Internal error", {"reason": str(exc)}) from None
        if isinstance(item, JsonRpcError):
            raise item
        if isinstance(item, m.Task):
            return item
        # An acknowledgement: the task as the frames tell it now.
        return self.task(task_id)

    def last_frame_size(self) -> int:
        """The bytes of the frame the hub logged last: the one that carried the item
        being handed on."""
        last = self.session.last
        data = last.data if last is not None and last.kind is Kind.WS else None
        size = data.get("size") if data is not None else None
        return size if size.__class__ is int else 0

    def tell(self, task_id: str, item: Any) -> None:
        """Hand ``item`` (what the agent said about ``task_id``) to its resubscribers."""
        queues = self.followers.get(task_id)
        if queues:
            size = self.last_frame_size()
            for queue in queues:
                queue.put(item, size)

    def follow_queue(self, task_id: str) -> Backlog:
        """A resubscriber's queue: like a relay's, a slow reader's items wait on disk
        past a bound, and the agent is never held back."""
        queue = Backlog()
        self.followers.setdefault(task_id, []).append(queue)
        return queue

    def unfollow(self, task_id: str, queue: Backlog) -> None:
        queue.close()
        queues = self.followers.get(task_id)
        if queues is not None and queue in queues:
            queues.remove(queue)
            if not queues:
                del self.followers[task_id]

    async def follow(self, task_id: str) -> Any:
        """A resubscribe: the task's state now, then what its newest relay sees."""
        view = self.tracker.task(task_id)
        if view is None or task_id not in self.task_agent:
            raise JsonRpcError(proto.UNKNOWN_TASK, "Task not found", {"id": task_id})
        relays = self.relays.get(task_id) or []
        return view, (relays[-1] if relays else None)

    # ------------------------------------------------------------------ delegation

    async def delegate(self, sock: AgentSocket, frame: proto.Frame, exchange: int) -> None:
        """agent.send_task: the task goes to the named agent (registered here, or an HTTP
        agent the user configured); the answer is the task once it settles."""
        from .delegate import delegate

        await delegate(self, sock, frame, exchange)


def _text_size(data: dict[str, Any]) -> int:
    text = data.get("text")
    return len(text) if isinstance(text, str) else 0


def _session() -> Session:
    return Session(keep=EVENTS_KEPT, keep_bytes=TEXT_KEPT)


def _frame_payload(event: Any) -> Any:
    return ws_payload(event.data)


def _log(session: Session, kind: Kind, data: dict[str, Any], exchange: int, payload: Any) -> None:
    """A frame's decoded payload is held only while the session's listeners run, as a
    client's SSE event's is: decoded again when asked, never a second copy of the frame."""
    if kind is Kind.WS and payload is not None:
        session.append_lazy(kind, data, payload, _frame_payload, exchange)
    else:
        session.append(kind, data, exchange=exchange, payload=payload)


def _now() -> str:
    from datetime import datetime

    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
