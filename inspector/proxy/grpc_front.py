"""The gRPC listener's public port: a loopback TCP server that decides, once per client
connection, which way the connection's calls go.

- **Fast path** (the default): the upstream speaks plain HTTP/2 (not ``grpcs``), no
  enabled fault rule could match a call of this listener's route, and a TCP connection
  to the upstream opens. The bytes go through both ways as they are read, one write per
  read, in the transports' protocol callbacks (no task woken per read: with asyncio
  streams the relay's reads cost a unary call 15-40 µs more of the proxy's CPU); a
  copy of each direction goes to a log task of the connection's own
  (grpc_frames.ConnectionLog: HTTP/2 frames, HPACK, gRPC messages -> the same records
  the grpc.aio relay writes), which gives the relay a turn every relaying.SLICE.
- **Slow path**: the bytes are piped unchanged to the listener's grpc.aio server on an
  internal loopback port (grpc_relay.py), which relays each message itself: fault
  rules, holds, TLS to the agent, and the UNAVAILABLE a client gets when the agent
  cannot be reached are its work.

The fast path still reads the frames the relay moves (their 9-byte headers; the
client's DATA as far as gRPC's length prefixes), for three things it must do itself:
- the agent's bytes are written to the client in whole frames, so the proxy can put a
  frame of its own between two of them;
- a client's message past the proxy's request bound is refused as grpc.aio refuses it
  (RESOURCE_EXHAUSTED, "Received message larger than max (N vs. M)"): the stream is
  reset toward the agent and answered toward the client with a header block that
  leaves both HPACK tables as they are; what the client still sends of it is dropped
  (and given back to its flow-control window);
- a rule enabled while a client holds a fast connection (the console, the TUI's F10)
  applies to its next call: the proxy sends the client a GOAWAY naming the last call
  it relayed and refuses later calls (REFUSED_STREAM: the client retries them on a new
  connection, which takes the slow path); calls under way finish.
"""

from __future__ import annotations

import asyncio
import struct
import time
from typing import Any

from ..protocol.sizes import format_size
from . import relaying
from .grpc_frames import (
    AGENT,
    CANCEL,
    CLIENT,
    CONTINUATION,
    DATA,
    END_HEADERS,
    END_STREAM,
    GOAWAY,
    HEADERS,
    NO_ERROR,
    PADDED,
    PREFACE,
    REFUSED_STREAM,
    RST_STREAM,
    WINDOW_UPDATE,
    ConnectionLog,
    Pending,
    frame,
    trailers_only,
)
from .relaying import BEHIND, SLICE, Backlog

_U32 = struct.Struct(">I").unpack_from
#: The log's control items (after CLIENT and AGENT): a stream the relay refused.
_REFUSED = 2
RESOURCE_EXHAUSTED = 8


class Wire(Backlog):
    """Both directions' bytes in the order the relay read them, for the log."""

    def put_side(self, side: int, chunk: bytes, at: float, held: float) -> None:
        self.items.append((side, chunk, at, held))  # type: ignore[arg-type]
        self.size += len(chunk)
        self._more.set()

    def take_side(self) -> tuple[int, bytes, float, float] | None:
        if not self.items:
            return None
        item: Any = self.items.popleft()
        self.size -= len(item[1])
        if self.size <= relaying.BACKLOG // 2:
            self._less.set()
        return item


def boundary(data: bytes) -> int:
    """Where the last whole HTTP/2 frame of ``data`` ends."""
    at, end = 0, len(data)
    while end - at >= 9:
        nxt = at + 9 + (_U32(data, at)[0] >> 8)
        if nxt > end:
            break
        at = nxt
    return at


class FrontServer:
    """One listener's public TCP port."""

    #: False: every connection takes the slow path (the grpc.aio relay).
    fast = True

    def __init__(self, listener: Any) -> None:
        self.listener = listener
        self.proxy = listener.proxy
        self.server: asyncio.Server | None = None
        #: The internal side's "127.0.0.1:PORT" of a slow connection -> its client's.
        self.peers: dict[str, str] = {}
        self.tasks: set[asyncio.Task[Any]] = set()
        #: Connections still sending their preface (closed by stop() too).
        self.waiting: set[Any] = set()
        self.not_http2 = False
        #: Client connections taken each way so far.
        self.taken = {"fast": 0, "slow": 0}

    async def start(self, port: int) -> int:
        loop = asyncio.get_running_loop()
        try:
            self.server = await loop.create_server(lambda: _Accepted(self), "127.0.0.1", port)
        except OSError as exc:
            raise OSError(f"cannot listen for gRPC on 127.0.0.1:{port}: {exc.strerror or exc}") from None
        return int(self.server.sockets[0].getsockname()[1])

    async def stop(self) -> None:
        if self.server is not None:
            server, self.server = self.server, None
            server.close()
        for transport in list(self.waiting):
            transport.close()
        for task in list(self.tasks):
            task.cancel()
        if self.tasks:
            await asyncio.wait(list(self.tasks), timeout=5)

    def accepted(self, transport: Any, rest: bytes, client: str | None) -> None:
        """A client sent the HTTP/2 preface (``rest``: what came after it)."""
        task = asyncio.ensure_future(self._connection(transport, rest, client))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def not_http(self, client: str | None) -> None:
        if not self.not_http2:  # said once a listener: anyone may connect to it
            self.not_http2 = True
            self.proxy.note(
                f"a connection to the gRPC listener {self.listener.address} from {client} did not speak "
                "HTTP/2 (no client preface): closed",
                code="proxy-grpc-not-http2",
                proxy=self.listener.address,
            )

    def takes_fast_path(self) -> bool:
        return self.fast and not self.listener.secure and not self.proxy.rules.armed(self.listener.route)

    async def _connection(self, transport: Any, rest: bytes, client: str | None) -> None:
        try:
            fast = _Fast(self, transport, client) if self.takes_fast_path() else None
            if fast is not None and not await fast.open():
                fast = None  # the slow path says why, as it always has
            self.taken["slow" if fast is None else "fast"] += 1
            if fast is None:
                await self._slow(transport, rest, client)
            else:
                await fast.run(rest)
        except (ConnectionError, OSError):
            pass
        finally:
            transport.close()

    async def _slow(self, transport: Any, rest: bytes, client: str | None) -> None:
        loop = asyncio.get_running_loop()
        outer = _Pipe(transport)
        inner_transport, inner = await loop.create_connection(
            lambda: _Pipe(transport), "127.0.0.1", self.listener.inner_port
        )
        outer.peer = inner_transport
        local = inner_transport.get_extra_info("sockname")
        key = f"{local[0]}:{local[1]}"
        if client is not None:
            self.peers[key] = client
        transport.set_protocol(outer)
        inner_transport.write(PREFACE + rest)
        if transport.is_closing():
            outer.connection_lost(None)
        else:
            transport.resume_reading()
        try:
            await asyncio.wait([outer.done, inner.done])
        finally:
            self.peers.pop(key, None)
            inner_transport.close()


class _Accepted(asyncio.Protocol):
    """A client connection until its HTTP/2 preface is read; then the connection's way
    (_Fast, or a _Pipe to the slow path) takes the transport over."""

    def __init__(self, front: FrontServer) -> None:
        self.front = front
        self.head = b""
        self.transport: Any = None
        self.client: str | None = None

    def connection_made(self, transport: Any) -> None:
        self.transport = transport
        self.front.waiting.add(transport)
        peer = transport.get_extra_info("peername")
        self.client = f"{peer[0]}:{peer[1]}" if isinstance(peer, tuple) else None

    def data_received(self, data: bytes) -> None:
        self.head += data
        if len(self.head) < len(PREFACE):
            return
        self.transport.pause_reading()
        self.front.waiting.discard(self.transport)
        if not self.head.startswith(PREFACE):
            self.front.not_http(self.client)
            self.transport.close()
            return
        rest, self.head = self.head[len(PREFACE) :], b""
        self.front.accepted(self.transport, rest, self.client)

    def eof_received(self) -> bool | None:
        return None  # closed: no preface came

    def connection_lost(self, exc: Exception | None) -> None:
        # (Gone while its way was being decided: the way finds its transport closing.)
        self.front.waiting.discard(self.transport)


class _Pipe(asyncio.Protocol):
    """One side of a slow connection's pipe: what it reads is written to ``peer``."""

    def __init__(self, peer: Any) -> None:
        self.peer = peer
        self.transport: Any = None
        self.done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def connection_made(self, transport: Any) -> None:
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        if not self.peer.is_closing():
            self.peer.write(data)

    def eof_received(self) -> bool | None:
        return None

    def pause_writing(self) -> None:
        self.peer.pause_reading()

    def resume_writing(self) -> None:
        if not self.peer.is_closing():
            self.peer.resume_reading()

    def connection_lost(self, exc: Exception | None) -> None:
        self.peer.close()
        if not self.done.done():
            self.done.set_result(None)


class _Side(asyncio.Protocol):
    """One transport of a fast connection, handing what it reads to the _Fast."""

    def __init__(self, fast: _Fast, side: int) -> None:
        self.fast = fast
        self.side = side
        self.transport: Any = None

    def connection_made(self, transport: Any) -> None:
        self.transport = transport
        if self.side == AGENT:  # read from once the connection's way is settled (run)
            self.fast.agent = transport
            transport.pause_reading()

    def data_received(self, data: bytes) -> None:
        self.fast.received(self.side, data)

    def eof_received(self) -> bool | None:
        self.fast.ended(self.side)
        return None

    def pause_writing(self) -> None:
        self.fast.pause(1 - self.side, "writing")

    def resume_writing(self) -> None:
        self.fast.resume(1 - self.side, "writing")

    def connection_lost(self, exc: Exception | None) -> None:
        self.fast.ended(self.side)


class _Fast:
    """One client connection on the fast path: both transports' protocols hand their
    reads here, relayed at once (no task wakes up per read), a copy queued for the log."""

    def __init__(self, front: FrontServer, client: Any, client_name: str | None) -> None:
        self.front = front
        self.proxy = front.proxy
        self.client: Any = client
        self.agent: Any = None
        self.wire = Wire()
        self.log = ConnectionLog(front.listener, client_name, self.wire)
        self.bound = min(self.proxy.max_request, 2**31 - 1)
        #: The highest client stream relayed to the agent.
        self.highest = 0
        self.went_away = False
        #: Client streams not relayed (past the bound, after the GOAWAY): their frames are dropped.
        self.refused: dict[int, None] = {}
        #: A refused stream whose header block ends in a CONTINUATION still to come.
        self.reset_after = 0
        #: Client stream -> [bytes left of its current message, its length prefix so far].
        self.sizes: dict[int, list[Any]] = {}
        self.first_closed: int | None = None
        self.carry = (Pending(), Pending())
        #: Why each side's reading is paused ("writing": the other side's buffer is
        #: full; "log": the log is BACKLOG behind).
        self.paused: tuple[set[str], set[str]] = (set(), set())
        #: The task resuming both sides once the log caught up, while it waits.
        self.catching: asyncio.Task[None] | None = None
        self.failure: BaseException | None = None
        self.done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    async def open(self) -> bool:
        """Connect to the agent; False when it cannot be reached."""
        host, _, port = self.front.listener.target.rpartition(":")
        loop = asyncio.get_running_loop()
        try:
            await asyncio.wait_for(
                loop.create_connection(lambda: _Side(self, AGENT), host.strip("[]"), int(port)),
                self.proxy.connect_timeout,
            )
        except (OSError, ValueError, TimeoutError):
            if self.agent is not None:  # connected as the time ran out
                self.agent.close()
            return False
        return True

    async def run(self, rest: bytes) -> None:
        self.agent.write(PREFACE)
        logger = asyncio.ensure_future(self._log())
        try:
            self.client.set_protocol(_Side(self, CLIENT))
            if rest:
                self.received(CLIENT, rest)
            if self.client.is_closing():
                self.ended(CLIENT)
            for side in (CLIENT, AGENT):
                self.resume(side, "")
            await self.done
            if self.failure is not None:  # a defect of ours: said in one line, the connection closed
                self.proxy.note(
                    f"the proxy's gRPC relay of a connection from {self.log.client} failed "
                    f"({type(self.failure).__name__}: {self.failure}); the connection was closed",
                    code="proxy-grpc-relay-failed",
                    proxy=self.front.listener.address,
                )
        finally:
            if self.catching is not None:
                self.catching.cancel()
            self.agent.close()
            self.client.close()
            self.wire.close()
            try:
                await asyncio.shield(logger)
            finally:
                self.log.close(self.first_closed, time.perf_counter())

    def ended(self, side: int) -> None:
        """``side`` closed (or sent its end): the connection ends, both ways."""
        if self.first_closed is None:
            self.first_closed = side
        if self.agent is not None:
            self.agent.close()
        self.client.close()
        if not self.done.done():
            self.done.set_result(None)

    def _transport(self, side: int) -> Any:
        return self.client if side == CLIENT else self.agent

    def pause(self, side: int, why: str) -> None:
        """Stop reading ``side`` (for ``why``) until resume()."""
        if not self.paused[side]:
            transport = self._transport(side)
            if not transport.is_closing():
                transport.pause_reading()
        self.paused[side].add(why)

    def resume(self, side: int, why: str) -> None:
        """Read ``side`` again once nothing else holds it (``why`` "": the first time)."""
        reasons = self.paused[side]
        if why in reasons or not why:
            reasons.discard(why)
            transport = self._transport(side)
            if not reasons and not transport.is_closing():
                transport.resume_reading()

    def received(self, side: int, chunk: bytes) -> None:
        try:
            if side == CLIENT:
                self._upward(chunk)
            else:
                self._downward(chunk)
        except Exception as exc:  # noqa: BLE001 - a defect of ours: the connection ends, said once
            self.failure = exc
            self.ended(side)
            return
        if self.wire.size > relaying.BACKLOG and self.catching is None:
            self.pause(CLIENT, "log")
            self.pause(AGENT, "log")
            self.catching = asyncio.ensure_future(self._caught_up())

    async def _caught_up(self) -> None:
        try:
            await self.wire.drained()
        finally:
            self.catching = None
            self.resume(CLIENT, "log")
            self.resume(AGENT, "log")

    # ------------------------------------------------------------------ the log

    async def _log(self) -> None:
        from .grpc_records import _LINGER

        wire, log = self.wire, self.log
        clock = time.perf_counter
        started = clock()
        while True:
            while True:
                behind = wire.size > relaying.BACKLOG
                taken = wire.take_side()
                if taken is None:
                    break
                side, chunk, at, held = taken
                try:
                    if side == _REFUSED:
                        log.refuse(int.from_bytes(chunk, "big"))
                    else:
                        log.feed(side, chunk, at, held)
                    if behind:
                        log.behind(BEHIND.format(size=format_size(relaying.BACKLOG)))
                except Exception as exc:  # noqa: BLE001 - the log's fault must not end the relay
                    if not log.stopped:
                        log.stop(f"the log failed ({type(exc).__name__}: {exc})")
                if clock() - started > SLICE:
                    await asyncio.sleep(0)
                    started = clock()
            if wire.closed and not wire.items:
                return
            await wire.more(_LINGER)

    # ------------------------------------------------------------------ agent -> client

    def _downward(self, chunk: bytes) -> None:
        at = time.perf_counter()
        carry = self.carry[AGENT]
        data = carry.add(chunk)
        if data is None:
            return
        end = boundary(data)
        if end:
            out = data if end == len(data) else data[:end]
            if not self.client.is_closing():
                self.client.write(out)
            self.wire.put_side(AGENT, out, at, round((time.perf_counter() - at) * 1000, 3))
        if end < len(data):
            carry.keep(data[end:], 9)

    # ------------------------------------------------------------------ client -> agent

    def _upward(self, chunk: bytes) -> None:
        at = time.perf_counter()
        carry = self.carry[CLIENT]
        data = carry.add(chunk)
        if data is None:
            return
        out, rest, refused = self._scan(data)
        carry.keep(rest, 9)
        wire = self.wire
        for stream in refused:
            wire.put_side(_REFUSED, stream.to_bytes(4, "big"), at, 0.0)
        if out:
            if not self.agent.is_closing():
                self.agent.write(out)
            wire.put_side(CLIENT, out, at, round((time.perf_counter() - at) * 1000, 3))

    def _scan(self, data: bytes) -> tuple[bytes, bytes, list[int]]:
        """The client's whole frames in ``data`` -> (what goes to the agent, the rest
        for the next read, streams refused here)."""
        at, end = 0, len(data)
        pieces: list[bytes] = []
        kept = 0  # the start of the frames kept since the last piece
        refused: list[int] = []
        credit = 0
        while end - at >= 9:
            word = _U32(data, at)[0]
            nxt = at + 9 + (word >> 8)
            if nxt > end:
                break
            kind, flags = word & 0xFF, data[at + 4]
            stream = _U32(data, at + 5)[0] & 0x7FFFFFFF
            inject = b""
            drop = False
            if not stream:
                pass
            elif stream in self.refused:
                if kind == DATA:
                    credit += nxt - at - 9
                if kind == CONTINUATION and stream == self.reset_after:
                    if flags & END_HEADERS:
                        self.reset_after = 0
                        inject = frame(RST_STREAM, 0, stream, CANCEL.to_bytes(4, "big"))
                elif kind != HEADERS:  # (a header block is relayed all the same: HPACK)
                    drop = True
            elif kind == HEADERS and stream > self.highest:
                if self.went_away or self.proxy.rules.armed(self.front.listener.route):
                    self._go_away(stream)
                    refused.append(stream)
                    # Relayed, for the agent's HPACK table, and reset at once.
                    if flags & END_HEADERS:
                        inject = frame(RST_STREAM, 0, stream, CANCEL.to_bytes(4, "big"))
                    else:
                        self.reset_after = stream
                else:
                    self.highest = stream
                    if flags & END_STREAM:
                        self.sizes.pop(stream, None)
            elif kind == DATA:
                length = self._too_large(stream, data, at + 9, nxt, flags)
                if length is not None:
                    drop = True
                    credit += nxt - at - 9
                    refused.append(stream)
                    self._refuse(stream, length)
                    inject = frame(RST_STREAM, 0, stream, CANCEL.to_bytes(4, "big"))
                elif flags & END_STREAM:
                    self.sizes.pop(stream, None)
            elif kind == RST_STREAM or (kind == HEADERS and flags & END_STREAM):
                self.sizes.pop(stream, None)
            if drop or inject:
                pieces.append(data[kept : nxt if not drop else at])
                if inject:
                    pieces.append(inject)
                kept = nxt
            at = nxt
        if credit:
            self.client.write(frame(WINDOW_UPDATE, 0, 0, credit.to_bytes(4, "big")))
        if pieces:
            pieces.append(data[kept:at])
            out = b"".join(pieces)
        else:
            out = data if at == end else data[:at]
        return out, (data[at:] if at < end else b""), refused

    def _too_large(self, stream: int, data: bytes, start: int, end: int, flags: int) -> int | None:
        """The length a message of ``stream`` claims, when past the bound (DATA payload
        ``data[start:end]``); its gRPC framing followed otherwise."""
        if flags & PADDED and end > start:
            end -= data[start]
            start += 1
        state = self.sizes.get(stream)
        if state is None:
            state = self.sizes[stream] = [0, b""]
        pos = start
        while pos < end:
            if state[0]:
                taken = min(state[0], end - pos)
                state[0] -= taken
                pos += taken
                continue
            if not state[1] and end - pos >= 5:  # a whole length prefix here (the usual case)
                length = _U32(data, pos + 1)[0]
                pos += 5
            else:
                head = state[1] + data[pos : pos + 5 - len(state[1])]
                pos += len(head) - len(state[1])
                if len(head) < 5:
                    state[1] = head
                    break
                state[1] = b""
                length = _U32(head, 1)[0]
            if length > self.bound:
                self.sizes.pop(stream, None)
                return length
            state[0] = length
        return None

    def _refuse(self, stream: int, length: int) -> None:
        """Answer the client's stream as grpc.aio refuses a message past its bound."""
        self.refused[stream] = None
        self._forget()
        self.client.write(
            trailers_only(stream, RESOURCE_EXHAUSTED, f"Received message larger than max ({length} vs. {self.bound})")
            + frame(RST_STREAM, 0, stream, NO_ERROR.to_bytes(4, "big"))
        )
        self.proxy.note(
            f"a gRPC client's message of {format_size(length)} is past the proxy's request bound "
            f"({format_size(self.bound)}): answered RESOURCE_EXHAUSTED, not relayed",
            code="proxy-grpc-too-large",
            proxy=self.front.listener.address,
            client=self.log.client,
        )

    def _go_away(self, stream: int) -> None:
        """A rule could match now: no more calls on this connection (in-flight ones finish)."""
        if not self.went_away:
            self.went_away = True
            self.client.write(frame(GOAWAY, 0, 0, self.highest.to_bytes(4, "big") + NO_ERROR.to_bytes(4, "big")))
        self.refused[stream] = None
        self._forget()
        self.client.write(frame(RST_STREAM, 0, stream, REFUSED_STREAM.to_bytes(4, "big")))

    def _forget(self) -> None:
        while len(self.refused) > 1000:
            del self.refused[next(iter(self.refused))]
