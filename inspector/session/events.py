"""The event: one fact seen on (or about) the wire. Everything the UI shows derives from these.

``data`` holds only JSON-serialisable wire facts and is what a recording stores.
``payload`` holds what the protocol layer decoded from those facts (a Task, a stream
event, a JsonRpcError, a ProtocolError...). It is never stored: a recording's reader
re-derives it with the same decoder the live client used, so replay and live agree.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any


class Kind(str, Enum):
    #: An HTTP request. data: method, url, headers, body, dialect, rpc_method, a2a_method, rpc_id
    REQUEST = "request"
    #: An HTTP response head, with its body unless it is a stream.
    #: data: status, headers, body (None for streams), elapsed_ms, streaming
    RESPONSE = "response"
    #: One SSE event block. data: raw (the lines as received), event, data, id, retry
    SSE = "sse"
    #: One SSE comment line (heartbeats). data: text
    COMMENT = "comment"
    #: A stream closed. data: reason ("complete" | "eof" | "error" | "closed": the client
    #: stopped reading | "timeout": the agent went quiet too long | "limit": it sent more
    #: than a limit allows), events, elapsed_ms
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


@dataclass(slots=True)
class Event:
    seq: int
    #: Seconds since the session started, from a monotonic clock.
    t: float
    kind: Kind
    #: Which HTTP exchange (request + its response/stream) this belongs to; 0 for none.
    exchange: int
    data: dict[str, Any]
    #: Wall-clock time (Unix seconds) the event was seen; for display and recordings.
    wall: float = 0.0
    payload: Any = field(default=None, compare=False)

    def to_json(self) -> dict[str, Any]:
        # The fixed fields go last so that no data key can shadow them.
        return {**self.data, "seq": self.seq, "t": round(self.t, 6), "wall": round(self.wall, 6),
                "kind": self.kind.value, "exchange": self.exchange}

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> "Event":
        obj = dict(obj)
        seq, t, wall = obj.pop("seq"), obj.pop("t"), obj.pop("wall", 0.0)
        kind, exchange = Kind(obj.pop("kind")), obj.pop("exchange", 0)
        return cls(seq=seq, t=t, kind=kind, exchange=exchange, data=obj, wall=wall)
