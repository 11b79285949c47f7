"""A recording seen as HTTP exchanges: a request and everything that answered it.

The data that the differ (diff.py), the replaying mock (mock_agent/replay.py), the
exporters and the hub's rebuilt relays (hub_bridge.py) share; ``diff.exchanges()``
groups a recording's events into them.
"""

from __future__ import annotations

import base64
import binascii
from array import array
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol
from urllib.parse import urlsplit

from ..safejson import loads
from .events import Event, Kind


@dataclass(eq=False)
class RecordedExchange:
    """One HTTP exchange of a recording: the request and everything that answered it."""

    number: int
    request: Event
    response: Event | None = None
    #: Its SSE events and comments, or its gRPC stream's MESSAGE events, in order
    #: (EventRefs: read from the log as they are gone through).
    stream: Any = field(default_factory=list)
    end: Event | None = None
    #: ERROR events (transport failures, decode errors noted by the client).
    errors: list[Event] = field(default_factory=list)
    _json: Any = field(default=None, repr=False)
    _parsed: bool = field(default=False, repr=False)

    @property
    def data(self) -> dict[str, Any]:
        return self.request.data

    @property
    def http_method(self) -> str:
        return str(self.data.get("method") or "GET").upper()

    @property
    def url(self) -> str:
        return str(self.data.get("url") or "")

    @property
    def path(self) -> str:
        return urlsplit(self.url).path or "/"

    @property
    def origin(self) -> str:
        parts = urlsplit(self.url)
        return f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else ""

    @property
    def a2a_method(self) -> str | None:
        value = self.data.get("a2a_method")
        return value if isinstance(value, str) else None

    @property
    def rpc_method(self) -> str | None:
        value = self.data.get("rpc_method")
        return value if isinstance(value, str) else None

    @property
    def dialect(self) -> str | None:
        value = self.data.get("dialect")
        return value if isinstance(value, str) else None

    @property
    def streaming(self) -> bool:
        return bool(self.response is not None and self.response.data.get("streaming"))

    @property
    def binding(self) -> str:
        value = self.data.get("binding")
        return value if isinstance(value, str) and value else "jsonrpc"

    @property
    def body_json(self) -> Any:
        """The request body parsed as JSON (None when absent or not JSON). A REST or
        gRPC request's is the 1.0 JSON-RPC request saying the same (rest.as_jsonrpc):
        the one form recorded requests of every binding are compared in."""
        if not self._parsed:
            self._parsed = True
            self._json = _rest_as_jsonrpc(self.data) if self.binding in ("rest", "grpc") else parse_body(self.data)
        return self._json

    @property
    def is_rpc(self) -> bool:
        body = self.body_json
        return (
            (self.http_method == "POST" or self.binding in ("rest", "grpc"))
            and isinstance(body, dict)
            and isinstance(body.get("method"), str)
        )

    @property
    def rpc_dialect(self) -> str | None:
        """The dialect ``body_json`` is in: the recorded one, or 1.0 for REST and gRPC."""
        return "1.0" if self.binding in ("rest", "grpc") else self.dialect

    @property
    def last_t(self) -> float:
        times = [self.request.t]
        if self.response is not None:
            times.append(self.response.t)
        if self.stream:
            times.append(max(e.t for e in self.stream))
        if self.end is not None:
            times.append(self.end.t)
        times += [e.t for e in self.errors]
        return max(times)

    def header(self, name: str, response: bool = False) -> str | None:
        """A request (or response) header, by name, case-insensitively."""
        source = self.response.data if response and self.response is not None else self.data
        return header(source.get("headers"), name)

    def text(self) -> str:
        """The user's text for a send/stream, else a short summary of the params."""
        body = self.body_json
        params = body.get("params") if isinstance(body, dict) else None
        return request_text(params)


class EventsByPosition(Protocol):
    """A log's events, read by position: a list of them, or a session's EventLog (not a
    Sequence: it reads the events it no longer holds from its store)."""

    def __len__(self) -> int: ...
    def __getitem__(self, index: int, /) -> Event: ...
    def __iter__(self) -> Iterator[Event]: ...


class EventRefs:
    """Events of a log by position (8 bytes each): a long stream's events are read from
    the log when gone through, not held (the log may keep them on disk)."""

    __slots__ = ("_log", "_positions")

    def __init__(self, log: EventsByPosition) -> None:
        self._log = log
        self._positions = array("q")

    def append(self, position: int) -> None:
        self._positions.append(position)

    def __len__(self) -> int:
        return len(self._positions)

    def __bool__(self) -> bool:
        return len(self._positions) > 0

    def __getitem__(self, i: int) -> Event:
        return self._log[self._positions[i]]

    def __iter__(self) -> Iterator[Event]:
        log = self._log
        for position in self._positions:
            yield log[position]


def header(headers: Any, name: str) -> str | None:
    low = name.lower()
    if isinstance(headers, dict):
        for key, value in headers.items():
            if isinstance(key, str) and key.lower() == low and isinstance(value, str):
                return value
    elif isinstance(headers, list):
        for pair in headers:
            if isinstance(pair, (list, tuple)) and len(pair) == 2 and str(pair[0]).lower() == low:
                return str(pair[1])
    return None


def body_bytes(data: dict[str, Any], key: str = "body") -> bytes | None:
    body = data.get(key)
    if not isinstance(body, str):
        return None
    if data.get(f"{key}_encoding") == "base64":
        try:
            return base64.b64decode(body, validate=True)
        except (binascii.Error, ValueError):
            return None
    return body.encode("utf-8")


def _rest_as_jsonrpc(data: dict[str, Any]) -> Any:
    """A REST or gRPC REQUEST's params (payloads.request_payload) as the 1.0 JSON-RPC request."""
    from ..protocol.errors import JsonRpcError, ProtocolError
    from ..protocol.methods import Method
    from ..protocol.rest import as_jsonrpc
    from .payloads import request_payload

    try:
        method = Method(data.get("a2a_method"))
    except ValueError:
        return None
    params = request_payload(data)
    if params is None:
        return None
    try:
        return as_jsonrpc(method, params)
    except (ProtocolError, JsonRpcError):
        return None


def parse_body(data: dict[str, Any]) -> Any:
    body = data.get("body")
    if not isinstance(body, str) or data.get("body_encoding") == "base64":
        return None
    try:
        return loads(body)
    except ValueError:
        return None


def sse_json(event: Event) -> Any:
    """An SSE event's data (or a gRPC stream message's ProtoJSON) parsed as JSON (None
    when absent or not JSON)."""
    if event.kind is Kind.MESSAGE:
        text = event.data.get("json")
        try:
            return loads(text) if isinstance(text, str) else None
        except ValueError:
            return None
    if event.kind is not Kind.SSE or event.data.get("raw_encoding") == "base64":
        return None
    text = event.data.get("data")
    if not isinstance(text, str):
        return None
    try:
        return loads(text)
    except ValueError:
        return None


def request_text(params: Any) -> str:
    """The text parts of a request's message, joined; else a summary of the params."""
    if not isinstance(params, dict):
        return ""
    message = params.get("message")
    if isinstance(message, dict):
        texts = [
            p["text"] for p in message.get("parts") or [] if isinstance(p, dict) and isinstance(p.get("text"), str)
        ]
        return "\n".join(texts)
    bits = []
    for key in ("id", "taskId", "contextId", "status", "state"):
        value = params.get(key)
        if isinstance(value, (str, int)):
            bits.append(f"{key}={value}")
    return " ".join(bits)
