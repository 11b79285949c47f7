"""The gRPC fast path's log: a copy of a connection's HTTP/2 bytes, both ways, read
into the Session off the relay's path (grpc_front.py relays the bytes themselves).

The frames are cut as they come (9-byte header; PADDED and PRIORITY stripped; a header
block and its CONTINUATIONs joined), every header block is decoded in order by an HPACK
decoder per direction (the ``hpack`` package: a block left undecoded would leave the
dynamic table out of step), the streams are followed (path, metadata, the agent's
initial metadata, status, message and trailers; RST_STREAM is a cancel), and the gRPC
length-prefixed messages are put together per stream. Each call writes the records
the grpc.aio relay writes (grpc_relay.CallRecords and MessageLog build both).

Everything here is the peers' to say, and bounded: a header block (MAX_HEADER_BLOCK,
MAX_CONTINUATIONS), the streams followed at once (MAX_STREAMS), a message held (the
proxy's --max-event for a stream, --max-body for an answer, the request bound for a
request: larger ones are logged by their size). What cannot be read (not HTTP/2, a
header block that does not decode) stops this connection's log with a NOTE; the bytes
go on regardless.
"""

from __future__ import annotations

import base64
import binascii
import struct
from typing import Any
from urllib.parse import unquote

from ..client.grpc_transport import status_fields
from ..protocol import grpc_errors
from ..protocol.sizes import format_size
from ..session.events import Kind
from .grpc_records import CallRecords, MessageLog, forwardable, known_paths

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

DATA, HEADERS, PRIORITY, RST_STREAM, SETTINGS, PUSH_PROMISE, PING, GOAWAY, WINDOW_UPDATE, CONTINUATION = range(10)
END_STREAM, ACK, END_HEADERS, PADDED, PRIORITY_FLAG = 0x1, 0x1, 0x4, 0x8, 0x20
#: HTTP/2 error codes used here.
NO_ERROR, CANCEL, REFUSED_STREAM = 0x0, 0x8, 0x7

#: Bytes of one header block (HEADERS and its CONTINUATIONs) the log reads, at most.
MAX_HEADER_BLOCK = 256 * 1024
#: CONTINUATION frames of one header block, at most.
MAX_CONTINUATIONS = 64
#: Streams of one connection followed at once; later ones are relayed, not logged.
MAX_STREAMS = 1000
#: The largest dynamic table a peer may have the log's decoder keep (it keeps what the
#: other side's SETTINGS_HEADER_TABLE_SIZE allows, up to this).
MAX_TABLE = 64 * 1024

CLIENT, AGENT = 0, 1

_U32 = struct.Struct(">I").unpack_from

#: Response header names grpcio keeps out of a call's metadata (besides pseudo-headers).
_NOT_METADATA = frozenset({"content-type", "te", "user-agent"})


class StopLog(Exception):
    """This connection's bytes cannot be read further (said once, in a NOTE)."""


def frame(kind: int, flags: int, stream: int, payload: bytes = b"") -> bytes:
    return len(payload).to_bytes(3, "big") + bytes((kind, flags)) + stream.to_bytes(4, "big") + payload


def _literal(name: bytes, value: bytes) -> bytes:
    # HPACK's "literal header field never indexed" with a literal name (RFC 7541 6.2.3):
    # read without touching either side's dynamic table.
    return b"\x10" + _length(name) + name + _length(value) + value


def _length(data: bytes) -> bytes:
    size = len(data)
    if size < 127:
        return bytes((size,))
    out = bytearray((127,))
    size -= 127
    while size >= 128:
        out.append((size % 128) + 128)
        size //= 128
    out.append(size)
    return bytes(out)


def trailers_only(stream: int, code: int, message: str) -> bytes:
    """A HEADERS frame ending ``stream`` with a gRPC status and no message, encoded so
    that no HPACK dynamic table changes (the client's decoder stays in step)."""
    block = b"".join(
        _literal(name, value)
        for name, value in (
            (b":status", b"200"),
            (b"content-type", b"application/grpc"),
            (b"grpc-status", str(code).encode()),
            (b"grpc-message", _percent(message)),
        )
    )
    return frame(HEADERS, END_STREAM | END_HEADERS, stream, block)


def _percent(text: str) -> bytes:
    # gRPC's percent-encoding of grpc-message: printable ASCII but '%' as is.
    return b"".join(
        bytes((b,)) if 0x20 <= b <= 0x7E and b != 0x25 else f"%{b:02X}".encode() for b in text.encode("utf-8")
    )


def metadata(headers: list[tuple[str, Any]], *, request: bool = False) -> list[tuple[str, Any]]:
    """HTTP/2 header fields -> the metadata pairs grpcio gives a call: pseudo-headers
    and gRPC's own fields out (grpc-status-details-bin stays, the agent's), ``-bin``
    values base64-decoded."""
    out: list[tuple[str, Any]] = []
    for name, value in headers:
        if name.startswith(":") or (name in _NOT_METADATA and not request):
            continue
        if name.startswith("grpc-") and name != grpc_errors.STATUS_DETAILS_KEY:
            continue
        if name.endswith("-bin"):
            if value.startswith("\x00"):  # grpc-core's "true binary" form, when both ends allow it
                out.append((name, value[1:].encode("latin-1")))
                continue
            try:
                out.append((name, base64.b64decode(value + "=" * (-len(value) % 4))))
            except (binascii.Error, ValueError):
                out.append((name, value.encode("latin-1", "replace")))
        else:
            out.append((name, value))
    return out


class Block(list[tuple[str, str]]):
    """A decoded header block's fields (name, value), and what the log reads of them,
    worked out once: the decoder's cache (_Frames.known) gives the same Block for the
    same bytes, call after call, so its metadata is not worked out again either. What
    these give is never changed by whoever reads it."""

    __slots__ = ("_named", "_forwarded", "_metadata")

    def __init__(self, fields: Any) -> None:
        super().__init__(fields)
        self._named: dict[str, str] | None = None
        self._forwarded: list[tuple[str, Any]] | None = None
        self._metadata: list[tuple[str, Any]] | None = None

    def named(self) -> dict[str, str]:
        """The fields by name (the last of a repeated name)."""
        if self._named is None:
            self._named = dict(self)
        return self._named

    def forwarded(self) -> list[tuple[str, Any]]:
        """A request's metadata as a relayed call carries it: forwardable(metadata(...))."""
        if self._forwarded is None:
            self._forwarded = forwardable(metadata(self, request=True))
        return self._forwarded

    def metadata(self) -> list[tuple[str, Any]]:
        """An answer's metadata (its initial metadata or trailers): metadata(...)."""
        if self._metadata is None:
            self._metadata = metadata(self)
        return self._metadata


class Pending:
    """Bytes put aside until a whole frame or message is there: kept as the pieces read
    and joined once, not joined again on each read (a 4 MiB frame, what grpcio allows,
    comes in dozens of reads: joining on each copied it quadratically)."""

    __slots__ = ("need", "pieces", "size")

    def __init__(self) -> None:
        self.pieces: list[bytes] = []
        self.size = 0
        self.need = 0

    def add(self, data: bytes) -> bytes | None:
        """``data`` behind what was put aside, once ``need`` bytes are there; else None."""
        if not self.pieces:
            return data
        self.pieces.append(data)
        self.size += len(data)
        if self.size < self.need:
            return None
        joined = b"".join(self.pieces)
        self.pieces, self.size = [], 0
        return joined

    def keep(self, rest: bytes, head: int) -> None:
        """Put ``rest`` aside: a unit whose ``head``-byte header ends in its length (a
        frame's is 9 bytes, its first 3 the length; a message's 5, its last 4)."""
        if not rest:
            return
        self.pieces, self.size = [rest], len(rest)
        if len(rest) < head:
            self.need = head
        elif head == 9:
            self.need = 9 + int.from_bytes(rest[:3], "big")
        else:
            self.need = 5 + int.from_bytes(rest[1:5], "big")


class _Frames:
    """One direction's bytes cut into frames, header blocks joined and decoded."""

    def __init__(self) -> None:
        from hpack import Decoder, HPACKError

        #: What a header block that does not decode raises.
        self.errors = (HPACKError, ValueError, IndexError)
        self.pending = Pending()
        self.decoder = Decoder(max_header_list_size=4 * MAX_HEADER_BLOCK)
        self.decoder.max_allowed_table_size = 4096
        self.block: list[bytes] = []
        self.block_size = 0
        self.block_stream = 0
        self.block_flags = 0
        self.block_kind = HEADERS
        self.continuations = 0
        #: Blocks decoded since the dynamic table last changed -> their fields: a client
        #: or agent sends the same block for call after call (every field indexed), and
        #: decoding it again cost as much as logging the call.
        self.known: dict[bytes, Block] = {}
        self.table: tuple[int, Any] = self._table()

    def feed(self, chunk: bytes) -> list[tuple[int, int, int, Any]]:
        """The frames ``chunk`` completes: (type, flags, stream, payload), a header
        block's payload being its decoded fields (name, value) and its flags the
        HEADERS frame's (END_STREAM)."""
        buf = self.pending.add(chunk)
        out: list[tuple[int, int, int, Any]] = []
        if buf is None:
            return out
        at, end = 0, len(buf)
        u32 = _U32
        while end - at >= 9:
            word = u32(buf, at)[0]  # the length (24 bits), then the type
            size = word >> 8
            if end - at < 9 + size:
                break
            kind, flags = word & 0xFF, buf[at + 4]
            stream = u32(buf, at + 5)[0] & 0x7FFFFFFF
            payload = buf[at + 9 : at + 9 + size]
            at += 9 + size
            if self.block:
                if kind != CONTINUATION or stream != self.block_stream:
                    raise StopLog("a header block was not followed by its CONTINUATION")
                self.continuations += 1
                if self.continuations > MAX_CONTINUATIONS:
                    raise StopLog(f"a header block of more than {MAX_CONTINUATIONS} CONTINUATION frames")
                self._add(payload)
                if flags & END_HEADERS:
                    out.append(self._decoded())
                continue
            if kind == DATA and flags & PADDED:
                payload = payload[1 : len(payload) - payload[0]] if payload else b""
            elif kind in (HEADERS, PUSH_PROMISE):
                if flags & PADDED:
                    payload = payload[1 : len(payload) - payload[0]] if payload else b""
                if kind == HEADERS and flags & PRIORITY_FLAG:
                    payload = payload[5:]
                if kind == PUSH_PROMISE:
                    payload = payload[4:]
                self.block_stream, self.block_flags, self.block_kind, self.continuations = stream, flags, kind, 0
                self._add(payload)
                if flags & END_HEADERS:
                    out.append(self._decoded())
                continue
            elif kind == CONTINUATION:
                raise StopLog("a CONTINUATION frame without a header block")
            out.append((kind, flags, stream, payload))
        if at < end:
            self.pending.keep(buf[at:], 9)
        return out

    def _add(self, payload: bytes) -> None:
        self.block_size += len(payload)
        if self.block_size > MAX_HEADER_BLOCK:
            raise StopLog(f"a header block larger than {format_size(MAX_HEADER_BLOCK)}")
        self.block.append(payload)

    def _decoded(self) -> tuple[int, int, int, Any]:
        block = b"".join(self.block)
        self.block, self.block_size = [], 0
        decoded = self.known.get(block)
        if decoded is None:
            try:
                fields = self.decoder.decode(block, raw=True)
            except self.errors as exc:
                raise StopLog(f"a header block that does not decode ({type(exc).__name__})") from None
            decoded = Block((bytes(k).decode("latin-1"), bytes(v).decode("latin-1")) for k, v in fields)
            table = self._table()
            if table[0] != self.table[0] or table[1] is not self.table[1]:
                self.known.clear()  # the table changed: the same bytes may mean other fields now
                self.table = table
            elif len(self.known) < 64:
                self.known[block] = decoded
        return self.block_kind, self.block_flags, self.block_stream, decoded

    def _table(self) -> tuple[int, Any]:
        # Each insertion puts a new tuple first (hpack's HeaderTable.add): its identity
        # (held here, so never reused) and the length tell a changed table.
        entries = self.decoder.header_table.dynamic_entries
        return len(entries), entries[0] if entries else None


class _Messages:
    """One stream direction's gRPC length-prefixed messages, put together from DATA;
    a message past ``limit`` is skipped and given as its size."""

    __slots__ = ("limit", "pending", "skip", "skipped")

    def __init__(self, limit: int) -> None:
        self.pending = Pending()
        self.limit = limit
        self.skip = 0
        self.skipped = 0

    def feed(self, data: bytes) -> list[bytes | int]:
        out: list[bytes | int] = []
        if self.skip:
            taken = min(self.skip, len(data))
            self.skip -= taken
            data = data[taken:]
            if not self.skip:
                out.append(self.skipped)
        buf = self.pending.add(data) if data else None
        if buf is None:
            return out
        at, end = 0, len(buf)
        while end - at >= 5:
            length = int.from_bytes(buf[at + 1 : at + 5], "big")
            if length > self.limit:
                rest = end - at - 5
                if rest >= length:
                    out.append(length)
                    at += 5 + length
                    continue
                self.skip, self.skipped = length - rest, length
                at = end
                break
            if end - at - 5 < length:
                break
            out.append(buf[at + 5 : at + 5 + length])
            at += 5 + length
        if at < end:
            self.pending.keep(buf[at:], 5)
        return out


class FrameCall(CallRecords):
    """One call on a fast connection, as its frames tell it."""

    def __init__(self, conn: ConnectionLog, stream: int, headers: Block, at: float) -> None:
        fields = headers.named()
        path = fields.get(":path", "")
        found = conn.known.get(path)
        super().__init__(
            conn.listener,
            path,
            found,
            headers.forwarded(),
            conn.client,
            fields.get("user-agent"),
        )
        self.conn = conn
        self.stream = stream
        self.arrived = at
        self.sent = at
        self.requests = _Messages(self.proxy.max_request)
        self.request: bytes | int | None = None
        self.info: dict[str, Any] | None = None
        self.initial: list[tuple[str, Any]] = []
        self.held = 0.0
        self.started = False
        self.answer: bytes | int | None = None
        self.log_: MessageLog | None = None
        self.noted_behind = False
        self.waits = 0
        self.waited_at = conn.waited()
        if self.rpc is None:
            self.info = self.begin(None)
        else:
            limit = self.proxy.limits.max_event if self.rpc.server_streaming else self.proxy.limits.max_body
            self.answers = _Messages(limit)
            if self.rpc.server_streaming:
                self.log_ = MessageLog(self)

    # ------------------------------------------------------------------ the client's side

    def client_data(self, data: bytes) -> None:
        if self.rpc is not None and self.request is None:
            for message in self.requests.feed(data):
                self.request = message
                break

    def client_done(self, at: float, held: float) -> None:
        self.sent, self.held = at, held
        if self.info is None:
            self.info = self.begin(self.request if isinstance(self.request, bytes) else None)

    # ------------------------------------------------------------------ the agent's side

    def agent_headers(self, headers: Block, end: bool, at: float) -> None:
        if not end:
            if not self.initial:
                self.initial = headers.metadata()
            return
        fields = headers.named()
        code = fields.get("grpc-status")
        if code is None or not code.isdigit():
            status = (grpc_errors.CODES["UNKNOWN"], "the agent ended the call without a gRPC status")
        else:
            status = (int(code), unquote(fields.get("grpc-message", ""), errors="replace"))
        self.finish(status, headers.metadata(), at)

    def agent_data(self, data: bytes, held: float, at: float) -> None:
        if self.rpc is None:
            return
        for message in self.answers.feed(data):
            if self.log_ is None:
                if self.answer is None:
                    self.answer = message
                continue
            if not self.started:
                self._started(at)
            self.log_.one(message, held)

    def _started(self, at: float) -> None:
        self.started = True
        self._ensure_begun()
        self.log(Kind.RESPONSE, self._head(self.initial, self._elapsed(at), streaming=True, added=self.held))

    def _ensure_begun(self) -> None:
        if self.info is None:  # the agent answered before the request was whole
            self.info = self.begin(self.request if isinstance(self.request, bytes) else None)

    def _elapsed(self, at: float) -> float:
        return round((at - self.sent) * 1000, 3)

    def finish(self, status: tuple[int, str], trailing: list[tuple[str, Any]], at: float) -> None:
        """The call's end with the agent's status: its last records."""
        self._ensure_begun()
        info = self.info or {}
        code, message = status
        fields = status_fields(self.dialect, code, message, trailing)
        elapsed = self._elapsed(at)
        head = {"added": self.held}
        log = self.log_
        if self.rpc is None:
            self.passed_record(self.initial, elapsed, fields, **head)
        elif log is None:
            if code == 0 and self.answer is not None:
                data, payload = self.unary_record(info, self.initial, elapsed, fields, self.answer, **head)
                self.log(Kind.RESPONSE, data, payload)
            else:
                self.failed_record(info, self.initial, elapsed, fields, **head)
        elif code != 0 and not self.started:
            self.failed_record(info, self.initial, elapsed, fields, **head)
        else:
            reason = "eof"
            if code != 0:
                reason = "error"
                log.errors.append(
                    f"stream ended with gRPC {fields['grpc_code']} {fields['grpc_status']}: {fields['grpc_message']}"
                )
            elif not self.started:
                self.log(Kind.RESPONSE, self._head(self.initial, elapsed, streaming=True, added=self.held))
            self._end(log, reason, fields, elapsed)
        self.proxy.chain.closed(self.number)

    def cancelled(self, at: float) -> None:
        """The client reset the stream (a cancel, its deadline) or went away."""
        if self.info is not None:
            if self.log_ is not None and self.started:
                self.log_.closed_by_client = True
                self._end(self.log_, "closed", {}, self._elapsed(at))
            self.proxy.chain.closed(self.number)

    def _end(self, log: MessageLog, reason: str, fields: dict[str, Any], elapsed: float) -> None:
        waited, _total = self.conn.waited()
        if self.waits:
            log.backlog.waits = self.waits
            log.backlog.waited = max(0.0, waited - self.waited_at[0])
        log.end(reason, fields, elapsed, self.injected)

    def behind(self, text: str) -> None:
        self.waits += 1
        if not self.noted_behind:
            self.noted_behind = True
            super().behind(text)


class ConnectionLog:
    """A fast connection's log: ``feed`` it each direction's bytes in the order the
    relay read them."""

    def __init__(self, listener: Any, client: str | None, wire: Any = None) -> None:
        self.listener = listener
        self.proxy = listener.proxy
        self.client = client
        self.wire = wire
        self.known = known_paths()
        self.frames = (_Frames(), _Frames())
        self.calls: dict[int, FrameCall] = {}
        self.refused: set[int] = set()
        self.stopped = False
        self.crowded = False

    def waited(self) -> tuple[float, int]:
        """(seconds, times) the relay has waited for this log so far."""
        wire = self.wire
        return (wire.waited, wire.waits) if wire is not None else (0.0, 0)

    def note(self, text: str, code: str) -> None:
        self.proxy.note(text, code=code, proxy=self.listener.address, client=self.client)

    def refuse(self, stream: int) -> None:
        """The relay took ``stream`` away from the agent: what follows of it is not a call."""
        call = self.calls.pop(stream, None)
        if call is not None:
            call.cancelled(0.0)
        self.refused.add(stream)
        if len(self.refused) > MAX_STREAMS:
            self.refused.discard(min(self.refused))

    def feed(self, side: int, chunk: bytes, at: float, held: float) -> None:
        if self.stopped:
            return
        try:
            frames = self.frames[side].feed(chunk)
            for kind, flags, stream, payload in frames:
                self._frame(side, kind, flags, stream, payload, at, held)
        except StopLog as exc:
            self.stop(f"{exc}")

    def stop(self, why: str) -> None:
        self.stopped = True
        self.note(
            f"the proxy stopped logging a gRPC connection from {self.client}: {why} "
            "(its bytes are still relayed as they come)",
            "proxy-grpc-log-stopped",
        )
        for call in list(self.calls.values()):
            call.cancelled(0.0)
        self.calls.clear()

    def behind(self, text: str) -> None:
        """The relay is waiting for this log: said on each call it holds up."""
        for call in self.calls.values():
            if call.info is not None:
                call.behind(text)

    def _frame(self, side: int, kind: int, flags: int, stream: int, payload: Any, at: float, held: float) -> None:
        if kind == SETTINGS and not flags & ACK:
            for i in range(0, len(payload) - 5, 6):
                if int.from_bytes(payload[i : i + 2], "big") == 1:  # SETTINGS_HEADER_TABLE_SIZE
                    # What this side lets the other's encoder keep, the other's decoder keeps.
                    size = int.from_bytes(payload[i + 2 : i + 6], "big")
                    if size > MAX_TABLE:
                        raise StopLog(f"a header table of {size} bytes")
                    self.frames[1 - side].decoder.max_allowed_table_size = size
            return
        if not stream or stream in self.refused:
            return
        call = self.calls.get(stream)
        if side == CLIENT:
            if kind == HEADERS:
                if call is None:
                    if len(self.calls) >= MAX_STREAMS:
                        if not self.crowded:
                            self.crowded = True
                            self.note(
                                f"a gRPC client opened more than {MAX_STREAMS} calls at once on one connection: "
                                "the ones past that are relayed, not logged",
                                "proxy-grpc-streams",
                            )
                        return
                    call = self.calls[stream] = FrameCall(self, stream, payload, at)
                if flags & END_STREAM:
                    call.client_done(at, held)
            elif call is None:
                return
            elif kind == DATA:
                call.client_data(payload)
                if flags & END_STREAM:
                    call.client_done(at, held)
            elif kind == RST_STREAM:
                del self.calls[stream]
                call.cancelled(at)
            return
        if call is None:
            return
        if kind == HEADERS:
            end = bool(flags & END_STREAM)
            call.agent_headers(payload, end, at)
            if end:
                del self.calls[stream]
        elif kind == DATA:
            call.agent_data(payload, held, at)
            if flags & END_STREAM:  # no trailers: grpcio reports INTERNAL
                del self.calls[stream]
                call.finish((grpc_errors.CODES["INTERNAL"], "the agent ended the stream without trailers"), [], at)
        elif kind == RST_STREAM:
            del self.calls[stream]
            code = int.from_bytes(payload[:4], "big") if len(payload) >= 4 else 0
            status = "CANCELLED" if code == CANCEL else "UNAVAILABLE" if code == REFUSED_STREAM else "INTERNAL"
            call.finish((grpc_errors.CODES[status], f"Received RST_STREAM with error code {code}"), [], at)

    def close(self, side: int | None, at: float) -> None:
        """The connection ended (``side``: who closed it first, None: the proxy)."""
        calls, self.calls = self.calls, {}
        for call in calls.values():
            if side == AGENT and call.info is not None:
                call.finish((grpc_errors.CODES["UNAVAILABLE"], "the agent closed the connection"), [], at)
            else:
                call.cancelled(at)
