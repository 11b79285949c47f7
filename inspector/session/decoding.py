"""Deriving an event's payload from its recorded data, in any order.

A payload depends on more than its event: a response or an SSE event is decoded in its
exchange's dialect, for its exchange's method; a push body in the dialect the agent was
last spoken to in. ``ExchangeFacts`` keeps exactly that much of each REQUEST (a few
short strings per exchange), so an event read back from a spill file or from the middle
of a recording decodes as it did live, without the events before it.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import Any

from ..protocol.dialects import get_dialect
from . import payloads
from .events import Event, Kind

#: The REQUEST fields a payload depends on.
_REQUEST_KEYS = ("a2a_method", "dialect", "rpc_method", "binding")


class ExchangeFacts:
    """What decoding needs of each exchange's REQUEST, fed in event order (``note``)."""

    __slots__ = ("requests", "_dialect_seqs", "_dialects", "_known", "notes", "codec")

    def __init__(self) -> None:
        #: exchange -> the REQUEST's a2a_method, dialect and rpc_method.
        self.requests: dict[int, dict[str, Any]] = {}
        # The dialect of each REQUEST that named a usable one, by seq (for pushes).
        self._dialect_seqs: list[int] = []
        self._dialects: list[str] = []
        self._known: dict[str, bool] = {}
        #: Remarks (a dialect this version does not know), for the reader to report.
        self.notes: list[str] = []
        #: ``decode``, bound once: events share it (a bound method per event is 64 bytes).
        self.codec = self.decode

    def note(self, event: Event) -> None:
        if event.kind is not Kind.REQUEST:
            return
        data = event.data
        self.requests[event.exchange] = {k: data.get(k) for k in _REQUEST_KEYS}
        name = self.usable(data.get("dialect"))
        if name is not None and event.seq not in self._dialect_seqs[-1:]:
            self._dialect_seqs.append(event.seq)
            self._dialects.append(name)

    def usable(self, name: Any) -> str | None:
        """``name`` if this version has that dialect; otherwise None, noted once."""
        if not isinstance(name, str) or not name:
            return None
        ok = self._known.get(name)
        if ok is None:
            try:
                get_dialect(name)
                ok = True
            except ValueError as exc:
                ok = False
                self.notes.append(f"{exc}; events in that dialect keep no decoded payload")
            self._known[name] = ok
        return name if ok else None

    def dialect_before(self, seq: int) -> str | None:
        """The dialect of the latest REQUEST before ``seq`` that named a usable one."""
        i = bisect_left(self._dialect_seqs, seq)
        return self._dialects[i - 1] if i else None

    def decode(self, event: Event) -> Any:
        """The payload of ``event``, as the live client derived it."""
        kind = event.kind
        if kind is Kind.SSE:
            request = self.requests.get(event.exchange)
            name = self.usable(request.get("dialect")) if request is not None else None
            if name is not None and request is not None and request.get("binding"):
                return payloads.sse_payload(payloads.codec_for(name, request["binding"]), event.data)
            return payloads.sse_payload(name, event.data)
        if kind is Kind.MESSAGE:
            request = self.requests.get(event.exchange)
            name = self.usable(request.get("dialect")) if request is not None else None
            return payloads.message_payload(name, event.data)
        if kind is Kind.REQUEST:
            data = event.data
            if self.usable(data.get("dialect")) is None:
                return None
            # A request the user hand-edited into something invalid has no params.
            return payloads.request_payload(data)
        if kind is Kind.RESPONSE:
            request = self.requests.get(event.exchange)
            if request is None:
                return None
            if request.get("a2a_method") != payloads.CARD and not self.usable(request.get("dialect")):
                return None
            return payloads.response_payload(request, event.data)
        if kind is Kind.PUSH:
            return payloads.push_payload(self.dialect_before(event.seq), event.data)
        if kind is Kind.WS:
            # A hub frame says what it is by itself: no exchange or dialect to look up.
            return payloads.ws_payload(event.data)
        return None
