"""The event: one fact seen on (or about) the wire. Everything the UI shows derives from these.

``data`` holds only JSON-serialisable wire facts and is what a recording stores.
``payload`` holds what the protocol layer decoded from those facts (a Task, a stream
event, a JsonRpcError, a ProtocolError...). It is never stored: a recording's reader
re-derives it with the same decoder the live client used, so replay and live agree.
An SSE event, the bulk of any long session, keeps neither: only its raw text, from
which both are derived when asked (see ``Event``).
"""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum
from typing import Any

from ..protocol.lean import TextChunk
from .sse_block import sse_data


class Kind(str, Enum):
    #: An HTTP request (or a gRPC call: binding "grpc", headers are its metadata, body its
    #: message as ProtoJSON, body_size its bytes on the wire).
    #: data: method, url, headers, body, dialect, rpc_method, a2a_method, rpc_id
    REQUEST = "request"
    #: An HTTP response head, with its body unless it is a stream.
    #: data: status, headers, body (None for streams), elapsed_ms, streaming. A gRPC
    #: call's also has grpc_code, grpc_status, grpc_message, grpc_details, trailers.
    RESPONSE = "response"
    #: One SSE event block. data: raw (the lines as received), event, data, id, retry
    SSE = "sse"
    #: One message of a gRPC server stream. data: json (the message as ProtoJSON, its
    #: text kept once), size (its bytes on the wire)
    MESSAGE = "message"
    #: One SSE comment line (heartbeats). data: text
    COMMENT = "comment"
    #: A stream closed. data: reason ("complete" | "eof" | "error" | "closed": the client
    #: stopped reading | "timeout": the agent went quiet too long | "limit": it sent more
    #: than a limit allows | "stopped": the proxy relaying it stopped), events, elapsed_ms;
    #: a gRPC stream's also its status and trailers
    STREAM_END = "stream-end"
    #: A transport or protocol failure. data: type, message, [path]
    ERROR = "error"
    #: The tool's own remark: dialect detected, recording started, user action. data: text
    NOTE = "note"
    #: A push notification received by the local receiver. data: headers, body, url
    PUSH = "push"
    #: One WebSocket frame, or the opening or closing of a socket, at Society AI's hub
    #: (inspector/hub; docs/hub.md). data: conn, dir ("in": from the agent, "out": to
    #: it, "hub": the hub's own word, never on the wire), op ("open" | "text" |
    #: "binary" | "close"), agent, text, size, rpc_method, rpc_id, code, reason
    WS = "ws"


#: Marks a payload not kept with its event: derived from the event's text when asked.
_LAZY: Any = object()


class Event:
    """One event. ``data`` and ``payload`` may be derived on demand rather than kept:
    a long stream is mostly SSE events, and an event in memory holds its raw text once.

    * An SSE event logged in its compact form (``Event.sse``) keeps only the block's
      raw text; ``data`` is read from it on each access (``sse_block.sse_data``), a
      new dict each time: change it and the change is lost. Other events keep the
      ``data`` dict they were given.
    * ``payload`` is kept when given. An event logged with a ``codec`` keeps its
      payload only while the session's listeners run; after that, reading ``payload``
      decodes the event again (``codec(event)``), a new object each time. Nothing is
      cached: a cache per event would be one more copy of it. A payload kept as a
      ``TextChunk`` (protocol/lean.py: what the tracker folds) reads as its model.
    """

    __slots__ = ("seq", "t", "kind", "exchange", "_data", "wall", "_payload", "codec")

    def __init__(
        self,
        seq: int,
        t: float,
        kind: Kind,
        exchange: int,
        data: dict[str, Any],
        wall: float = 0.0,
        payload: Any = None,
        codec: Callable[[Event], Any] | None = None,
    ) -> None:
        self.seq = seq
        #: Seconds since the session started, from a monotonic clock.
        self.t = t
        self.kind = kind
        #: Which HTTP exchange (request + its response/stream) this belongs to; 0 for none.
        self.exchange = exchange
        self._data: Any = data
        #: Wall-clock time (Unix seconds) the event was seen; for display and recordings.
        self.wall = wall
        self._payload = payload
        #: Derives the payload from the event again, for events that do not keep it.
        self.codec = codec

    @classmethod
    def sse(
        cls, seq: int, t: float, exchange: int, raw: str, wall: float = 0.0, codec: Callable[[Event], Any] | None = None
    ) -> Event:
        """A complete, UTF-8 SSE event kept as its raw block text alone."""
        # The raw text stands in for the data dict (the compact form __init__ does not offer).
        event = cls(seq, t, Kind.SSE, exchange, raw, wall, _LAZY, codec=codec)  # type: ignore[arg-type]
        return event

    @property
    def data(self) -> dict[str, Any]:
        data = self._data
        if data.__class__ is str:
            return sse_data(data)
        kept: dict[str, Any] = data
        return kept

    @data.setter
    def data(self, value: dict[str, Any]) -> None:
        self._data = value

    @property
    def compact(self) -> bool:
        """Kept as raw text only (see ``Event.sse``)."""
        return self._data.__class__ is str

    @property
    def raw(self) -> str | None:
        """An SSE event's raw block text (base64 for a block that was not UTF-8)."""
        data = self._data
        if data.__class__ is str:
            return data
        raw = data.get("raw")
        return raw if isinstance(raw, str) else None

    @property
    def sse_id(self) -> str | None:
        """An SSE event's ``id`` field. A compact event of one line is a lone data line
        (an event with data; a lone ``id:`` line has none): no id, and no dict built."""
        data = self._data
        sid: str | None  # as the agent sent it
        if data.__class__ is str:
            if "\n" not in data and "\r" not in data and data.startswith("data:"):
                return None
            sid = sse_data(data)["id"]
            return sid
        sid = data.get("id")
        return sid

    @property
    def payload(self) -> Any:
        payload = self._payload
        if payload is not _LAZY:
            if payload.__class__ is TextChunk:
                # What the client decoded for the tracker alone: the model, as any later read gets it.
                return payload.model()
            return payload
        codec = self.codec
        return codec(self) if codec is not None else None

    @payload.setter
    def payload(self, value: Any) -> None:
        self._payload = value

    @property
    def payload_kept(self) -> bool:
        """The payload is held, not derived on access."""
        return self._payload is not _LAZY

    def forget_payload(self) -> None:
        """Drop a payload that the codec can derive again."""
        if self.codec is not None:
            self._payload = _LAZY

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not Event:
            return NotImplemented
        return (
            self.seq == other.seq
            and self.t == other.t
            and self.kind is other.kind
            and self.exchange == other.exchange
            and self.wall == other.wall
            and self.data == other.data
        )

    __hash__ = None  # type: ignore[assignment]  # unhashable (equal by contents); typeshed has a method

    def __repr__(self) -> str:
        return (
            f"Event(seq={self.seq!r}, t={self.t!r}, kind={self.kind!r}, exchange={self.exchange!r}, "
            f"data={self.data!r}, wall={self.wall!r})"
        )

    def to_json(self) -> dict[str, Any]:
        # The fixed fields go last so that no data key can shadow them.
        return {
            **self.data,
            "seq": self.seq,
            "t": round(self.t, 6),
            "wall": round(self.wall, 6),
            "kind": self.kind.value,
            "exchange": self.exchange,
        }

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Event:
        obj = dict(obj)
        seq, t, wall = obj.pop("seq"), obj.pop("t"), obj.pop("wall", 0.0)
        kind, exchange = Kind(obj.pop("kind")), obj.pop("exchange", 0)
        return cls(seq=seq, t=t, kind=kind, exchange=exchange, data=obj, wall=wall)
