"""The gRPC listener's public port: a loopback TCP server that decides, once per client
connection, which way the connection's calls go.

- **Fast path** (the default): the upstream speaks plain HTTP/2 (not ``grpcs``), no
  enabled fault rule could match a call of this listener's route, and a TCP connection
  to the upstream opens. The bytes go through both ways as they are read, one write per
  read; a copy of each direction goes to a log task of the connection's own
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
_READ = 65536
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
        self.not_http2 = False
        #: Client connections taken each way so far.
        self.taken = {"fast": 0, "slow": 0}

    async def start(self, port: int) -> int:
        try:
            self.server = await asyncio.start_server(self._accepted, "127.0.0.1", port)
        except OSError as exc:
            raise OSError(f"cannot listen for gRPC on 127.0.0.1:{port}: {exc.strerror or exc}") from None
        return int(self.server.sockets[0].getsockname()[1])

    async def stop(self) -> None:
        if self.server is not None:
            server, self.server = self.server, None
            server.close()
        for task in list(self.tasks):
            task.cancel()
        if self.tasks:
            await asyncio.wait(list(self.tasks), timeout=5)

    def _accepted(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.ensure_future(self._connection(reader, writer))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def takes_fast_path(self) -> bool:
        return self.fast and not self.listener.secure and not self.proxy.rules.armed(self.listener.route)

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = writer.get_extra_info("peername")
        client = f"{peer[0]}:{peer[1]}" if isinstance(peer, tuple) else None
        try:
            try:
                preface = await reader.readexactly(len(PREFACE))
            except (asyncio.IncompleteReadError, ConnectionError):
                return
            if preface != PREFACE:
                if not self.not_http2:  # said once a listener: anyone may connect to it
                    self.not_http2 = True
                    self.proxy.note(
                        f"a connection to the gRPC listener {self.listener.address} from {client} did not speak "
                        "HTTP/2 (no client preface): closed",
                        code="proxy-grpc-not-http2",
                        proxy=self.listener.address,
                    )
                return
            agent = await self._open_fast() if self.takes_fast_path() else None
            self.taken["slow" if agent is None else "fast"] += 1
            if agent is None:
                await self._slow(reader, writer, preface, client)
            else:
                await _Fast(self, reader, writer, agent[0], agent[1], client).run(preface)
        except (ConnectionError, OSError):
            pass
        finally:
            writer.close()

    async def _open_fast(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter] | None:
        host, _, port = self.listener.target.rpartition(":")
        try:
            return await asyncio.wait_for(
                asyncio.open_connection(host.strip("[]"), int(port)), self.proxy.connect_timeout
            )
        except (OSError, ValueError, TimeoutError):
            return None  # the slow path says why, as it always has

    async def _slow(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, first: bytes, client: Any
    ) -> None:
        inner_r, inner_w = await asyncio.open_connection("127.0.0.1", self.listener.inner_port)
        local = inner_w.get_extra_info("sockname")
        key = f"{local[0]}:{local[1]}"
        if client is not None:
            self.peers[key] = client
        inner_w.write(first)
        try:
            await asyncio.gather(_pipe(reader, inner_w), _pipe(inner_r, writer))
        finally:
            self.peers.pop(key, None)
            inner_w.close()


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(_READ):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        writer.close()


class _Fast:
    """One client connection on the fast path."""

    def __init__(
        self,
        front: FrontServer,
        client_r: asyncio.StreamReader,
        client_w: asyncio.StreamWriter,
        agent_r: asyncio.StreamReader,
        agent_w: asyncio.StreamWriter,
        client: str | None,
    ) -> None:
        self.front = front
        self.proxy = front.proxy
        self.client_r, self.client_w, self.agent_r, self.agent_w = client_r, client_w, agent_r, agent_w
        self.wire = Wire()
        self.log = ConnectionLog(front.listener, client, self.wire)
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

    async def run(self, preface: bytes) -> None:
        self.agent_w.write(preface)
        logger = asyncio.ensure_future(self._log())
        pumps = [asyncio.ensure_future(self._upward()), asyncio.ensure_future(self._downward())]
        try:
            await asyncio.wait(pumps)
            for pump in pumps:
                failure = pump.exception()
                if failure is not None:  # a defect of ours: said in one line, the connection closed
                    self.proxy.note(
                        f"the proxy's gRPC relay of a connection from {self.log.client} failed "
                        f"({type(failure).__name__}: {failure}); the connection was closed",
                        code="proxy-grpc-relay-failed",
                        proxy=self.front.listener.address,
                    )
        finally:
            for pump in pumps:
                pump.cancel()
            self.agent_w.close()
            self.client_w.close()
            self.wire.close()
            try:
                await asyncio.shield(logger)
            finally:
                self.log.close(self.first_closed, time.perf_counter())

    def _closed(self, side: int) -> None:
        if self.first_closed is None:
            self.first_closed = side

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

    async def _downward(self) -> None:
        reader, writer, wire = self.agent_r, self.client_w, self.wire
        clock = time.perf_counter
        carry = Pending()
        try:
            while chunk := await reader.read(_READ):
                at = clock()
                data = carry.add(chunk)
                if data is None:
                    continue
                end = boundary(data)
                if end:
                    out = data if end == len(data) else data[:end]
                    writer.write(out)
                    wire.put_side(AGENT, out, at, round((clock() - at) * 1000, 3))
                if end < len(data):
                    carry.keep(data[end:], 9)
                if wire.size > relaying.BACKLOG:
                    await wire.drained()
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            self._closed(AGENT)
            writer.close()

    # ------------------------------------------------------------------ client -> agent

    async def _upward(self) -> None:
        reader, writer, wire = self.client_r, self.agent_w, self.wire
        clock = time.perf_counter
        carry = Pending()
        try:
            while chunk := await reader.read(_READ):
                at = clock()
                data = carry.add(chunk)
                if data is None:
                    continue
                out, rest, refused = self._scan(data)
                carry.keep(rest, 9)
                for stream in refused:
                    wire.put_side(_REFUSED, stream.to_bytes(4, "big"), at, 0.0)
                if out:
                    writer.write(out)
                    wire.put_side(CLIENT, out, at, round((clock() - at) * 1000, 3))
                if wire.size > relaying.BACKLOG:
                    await wire.drained()
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            self._closed(CLIENT)
            writer.close()

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
            self.client_w.write(frame(WINDOW_UPDATE, 0, 0, credit.to_bytes(4, "big")))
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
        self.client_w.write(
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
            self.client_w.write(frame(GOAWAY, 0, 0, self.highest.to_bytes(4, "big") + NO_ERROR.to_bytes(4, "big")))
        self.refused[stream] = None
        self._forget()
        self.client_w.write(frame(RST_STREAM, 0, stream, REFUSED_STREAM.to_bytes(4, "big")))

    def _forget(self) -> None:
        while len(self.refused) > 1000:
            del self.refused[next(iter(self.refused))]
