"""What the traffic view shows, without Textual: the filter, and an incremental index
over a session's events.

The index never copies events: ``rows`` holds positions in ``session.events`` that pass
the filter, appended as the session grows, as runs of consecutive positions
(``Positions``): with no filter, a million events are one run, where an ``array`` of
them would take 8 MB. ``catch_up`` works through new events in
time-boxed slices, so a frame never pays for 100k events at once: a new filter restarts
the scan from the first event and the view fills in over a few frames, while the
per-exchange facts (the request of each exchange, its events) are indexed once and kept
across filter changes.

Filter syntax (terms are ANDed; ``-term`` negates; quote phrases with "..."):

    kind:sse,resp      event kinds (request/req, response/resp, sse, comment/heartbeat/beat,
                       end/stream-end, error, note, push, ws/frame: a hub's WebSocket frames)
    method:stream      the exchange's A2A or JSON-RPC method (substring)
    ex:12  ex:3-7      exchange numbers (also ``exchange:``, ``#12``)
    status:4xx         HTTP status, or the event's state/label (``status:working``)
    task:abc           events of exchanges that concern a task (and pushes about it): its
                       id or any prefix of it (the 8 characters the views show); a prefix
                       of several tasks' ids is said to be ambiguous
    client:ADDR        exchanges a proxied client made (its address or user agent, substring)
    anything else      text in the URL, body, SSE data, note or error (smart case)
"""

from __future__ import annotations

import shlex
import time
from array import array
from bisect import bisect_right
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from ...protocol.errors import JsonRpcError, ProtocolError
from ...protocol.models import (
    Message,
    Task,
    TaskArtifactUpdateEvent,
    TaskStatusUpdateEvent,
)
from ...session import Event, Kind, Session
from ...session.describe import event_summary
from ...session.log import EventLog
from ...textsafe import shorten, visible

KIND_LABEL: dict[Kind, str] = {
    Kind.REQUEST: "req",
    Kind.RESPONSE: "resp",
    Kind.SSE: "sse",
    Kind.COMMENT: "beat",
    Kind.STREAM_END: "end",
    Kind.ERROR: "error",
    Kind.NOTE: "note",
    Kind.PUSH: "push",
    Kind.WS: "ws",
    Kind.MESSAGE: "msg",
}
DIRECTION: dict[Kind, str] = {
    Kind.REQUEST: "→",
    Kind.RESPONSE: "←",
    Kind.SSE: "←",
    Kind.COMMENT: "←",
    Kind.STREAM_END: "←",
    Kind.PUSH: "←",
    Kind.ERROR: "·",
    Kind.NOTE: "·",
    Kind.MESSAGE: "←",
}
#: A WebSocket frame's direction at the hub: to the agent, from it, the hub's own word.
WS_DIRECTION: dict[str | None, str] = {"out": "→", "in": "←", "hub": "·"}
KIND_WORDS: dict[str, Kind] = {
    "request": Kind.REQUEST,
    "req": Kind.REQUEST,
    "response": Kind.RESPONSE,
    "resp": Kind.RESPONSE,
    "res": Kind.RESPONSE,
    "sse": Kind.SSE,
    "event": Kind.SSE,
    "comment": Kind.COMMENT,
    "heartbeat": Kind.COMMENT,
    "beat": Kind.COMMENT,
    "hb": Kind.COMMENT,
    "end": Kind.STREAM_END,
    "stream-end": Kind.STREAM_END,
    "stream_end": Kind.STREAM_END,
    "error": Kind.ERROR,
    "err": Kind.ERROR,
    "note": Kind.NOTE,
    "push": Kind.PUSH,
    "ws": Kind.WS,
    "frame": Kind.WS,
    "websocket": Kind.WS,
    "message": Kind.MESSAGE,
    "msg": Kind.MESSAGE,
}

#: Events examined per slice before the clock is checked again.
SLICE = 1024


def direction(event: Event) -> str:
    """The arrow of an event's row: to the agent, from it, or neither."""
    if event.kind is Kind.WS:
        return WS_DIRECTION.get(event.data.get("dir"), "·")
    return DIRECTION.get(event.kind, " ")


def frame_label(event: Event) -> str:
    """A WebSocket event's status word: what its frame decoded to, else what it is."""
    data = event.data
    op = data.get("op")
    if op != "text":
        return str(op or "")
    frame = event.payload
    item = getattr(frame, "item", None)
    label = payload_label(item)
    if label:
        return label
    role = getattr(frame, "role", None)
    return role if role in ("result", "invalid") else ""


class Positions:
    """Event positions in increasing order, as a sequence of ints (``len``, indexing,
    iteration, ``bisect_left``), kept as runs of consecutive positions: a row (or an
    exchange's event) that follows the one before costs nothing. A run is its first row
    and its first position (16 bytes); the first run is two ints, so an exchange's few
    events cost no arrays. At worst (every other event) that is 8 bytes an event, as
    an array of positions was."""

    __slots__ = ("_n", "_first", "_rows", "_firsts")

    def __init__(self) -> None:
        self._n = 0
        #: The first position, while there is one run.
        self._first = 0
        #: With more runs: each run's first row and first position.
        self._rows: array | None = None
        self._firsts: array | None = None

    def __len__(self) -> int:
        return self._n

    def __bool__(self) -> bool:
        return self._n > 0

    def _run_end(self, run: int) -> int:
        """The row after run ``run``."""
        rows = self._rows
        assert rows is not None
        return rows[run + 1] if run + 1 < len(rows) else self._n

    def last(self) -> int:
        """The last position (the list must not be empty)."""
        if self._rows is None:
            return self._first + self._n - 1
        return self._firsts[-1] + self._n - self._rows[-1] - 1  # type: ignore[index]

    def append(self, position: int) -> None:
        self.extend_run(position, position + 1)

    def extend_run(self, start: int, stop: int) -> None:
        """Append positions ``start`` to ``stop`` (exclusive), all after the last."""
        if stop <= start:
            return
        n = self._n
        if not n:
            self._first = start
        elif start != self.last() + 1:
            if start <= self.last():
                raise ValueError("positions must increase")
            if self._rows is None:
                self._rows, self._firsts = array("q", (0,)), array("q", (self._first,))
            self._rows.append(n)
            self._firsts.append(start)  # type: ignore[union-attr]
        self._n = n + stop - start

    def extend(self, positions: Any) -> None:
        if positions.__class__ is range and positions.step == 1:
            self.extend_run(positions.start, positions.stop)
            return
        for position in positions:
            self.extend_run(position, position + 1)

    def __getitem__(self, row: int) -> int:
        n = self._n
        if row < 0:
            row += n
        if not 0 <= row < n:
            raise IndexError("row out of range")
        rows = self._rows
        if rows is None:
            return self._first + row
        run = bisect_right(rows, row) - 1
        return self._firsts[run] + row - rows[run]  # type: ignore[index]

    def __iter__(self) -> Any:
        rows, firsts = self._rows, self._firsts
        if rows is None or firsts is None:
            yield from range(self._first, self._first + self._n)
            return
        for run in range(len(rows)):
            yield from range(firsts[run], firsts[run] + self._run_end(run) - rows[run])

    def bisect_left(self, position: int) -> int:
        """How many positions are less than ``position`` (the row it has, or would have)."""
        rows, firsts = self._rows, self._firsts
        if rows is None or firsts is None:
            return min(max(position - self._first, 0), self._n)
        run = bisect_right(firsts, position) - 1
        if run < 0:
            return 0
        return rows[run] + min(position - firsts[run], self._run_end(run) - rows[run])

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (Positions, list, array, range)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<Positions: {self._n} in {1 if self._rows is None else len(self._rows)} runs>"


def positions() -> Positions:
    """An empty, compact list of event positions."""
    return Positions()


def payload_label(payload: Any) -> str:
    """A word or two on what an event decoded to: the state, 'artifact', 'rpc -32001'..."""
    if payload is None:
        return ""
    if isinstance(payload, TaskStatusUpdateEvent):
        return payload.status.state.value
    if isinstance(payload, TaskArtifactUpdateEvent):
        return "artifact"
    if isinstance(payload, Task):
        return payload.status.state.value
    if isinstance(payload, Message):
        return "message"
    if isinstance(payload, JsonRpcError):
        return f"rpc {payload.code}"
    if isinstance(payload, ProtocolError):
        return "invalid"
    return ""


def format_ms(ms: float | None) -> str:
    if ms is None:
        return ""
    if ms < 1000:
        return f"{ms:.0f} ms"
    if ms < 10_000:
        return f"{ms / 1000:.2f} s"
    return f"{ms / 1000:.1f} s"


# ---------------------------------------------------------------------- the filter


@dataclass
class _Term:
    field: str  # "kind" | "method" | "ex" | "status" | "task" | "text"
    value: Any
    negate: bool = False


@dataclass
class Filter:
    text: str = ""
    terms: list[_Term] = field(default_factory=list)
    #: What could not be understood (shown under the filter; the rest still applies).
    problem: str | None = None

    @property
    def empty(self) -> bool:
        return not self.terms

    @classmethod
    def parse(cls, text: str) -> Filter:
        text = text.strip()
        if not text:
            return cls()
        try:
            words = shlex.split(text)
        except ValueError:
            words = text.split()
        terms: list[_Term] = []
        problems: list[str] = []
        for word in words:
            negate = word.startswith("-") and len(word) > 1
            if negate:
                word = word[1:]
            key, sep, value = word.partition(":")
            key = key.lower()
            if word.startswith("#") and word[1:].isdigit():
                key, sep, value = "ex", ":", word[1:]
            if sep and key in ("kind", "k"):
                kinds = set()
                for name in value.lower().split(","):
                    if name in KIND_WORDS:
                        kinds.add(KIND_WORDS[name])
                    elif name:
                        problems.append(f"unknown kind {name!r}")
                if kinds:
                    terms.append(_Term("kind", kinds, negate))
            elif sep and key in ("method", "m"):
                terms.append(_Term("method", value.lower(), negate))
            elif sep and key in ("ex", "exchange", "x"):
                numbers = _exchanges(value)
                if numbers is None:
                    problems.append(f"not an exchange number: {value!r}")
                else:
                    terms.append(_Term("ex", numbers, negate))
            elif sep and key in ("status", "s"):
                terms.append(_Term("status", value.lower(), negate))
            elif sep and key in ("task", "t"):
                terms.append(_Term("task", value, negate))
            elif sep and key in ("client", "c"):
                terms.append(_Term("client", value.lower(), negate))
            elif word:
                terms.append(_Term("text", word, negate))
        return cls(text, terms, "; ".join(problems) or None)

    def has_exchange(self, number: int) -> bool:
        return any(t.field == "ex" and not t.negate and t.value == [(number, number)] for t in self.terms)

    def match(self, event: Event, index: TrafficIndex) -> bool:
        return all(_matches(term, event, index) != term.negate for term in self.terms)


def _ambiguous_tasks(flt: Filter, task_ids: Iterable[str]) -> str | None:
    """What to say of ``task:`` terms whose prefix starts several known tasks' ids (the
    events of all of them are shown)."""
    prefixes = [t.value for t in flt.terms if t.field == "task"]
    if not prefixes:
        return None
    ids = list(task_ids)
    out = []
    for prefix in prefixes:
        hits = [i for i in ids if i.startswith(prefix)]
        if len(hits) > 1 and prefix not in hits:
            # Short: it shares the count's line (at most 60 columns).
            shown = ", ".join(visible(i[: len(prefix) + 4], single_line=True) + "…" for i in hits[:2])
            more = ", …" if len(hits) > 2 else ""
            out.append(f"task:{shorten(prefix, 12)} is ambiguous: {shown}{more}")
    return "; ".join(out) or None


def _exchanges(value: str) -> list[tuple[int, int]] | None:
    out = []
    for part in value.split(","):
        lo, dash, hi = part.partition("-")
        if not lo.isdigit() or (dash and not hi.isdigit()):
            return None
        out.append((int(lo), int(hi) if dash else int(lo)))
    return out


def _matches(term: _Term, event: Event, index: TrafficIndex) -> bool:
    f = term.field
    if f == "kind":
        return event.kind in term.value
    if f == "ex":
        return any(lo <= event.exchange <= hi for lo, hi in term.value)
    if f == "method":
        return term.value in index.method_words(event)
    if f == "status":
        return index.status(event).lower().startswith(term.value.rstrip("x")) if term.value else True
    if f == "task":
        task = index.task_of(event)
        return task is not None and task.startswith(term.value)
    if f == "client":
        return term.value in index.client_of(event)
    return _text_hit(term.value, event, index)


_TEXT_KEYS = ("data", "body", "text", "message", "url", "raw", "type", "reason", "path")


def _text_hit(needle: str, event: Event, index: TrafficIndex) -> bool:
    # Smart case: a needle without capitals matches any case.
    fold = needle.islower() or not any(c.isalpha() for c in needle)
    data = event.data
    for key in _TEXT_KEYS:
        value = data.get(key)
        if value.__class__ is str and value and needle in (value.lower() if fold else value):
            return True
    for value in (index.method(event), index.status(event)):
        if value and needle in (value.lower() if fold else value):
            return True
    headers = data.get("headers")
    if isinstance(headers, dict) and headers:
        joined = " ".join(f"{k}: {v}" for k, v in headers.items())
        return needle in (joined.lower() if fold else joined)
    return False


# ---------------------------------------------------------------------- the index


class TrafficIndex:
    """Rows of a session's events that pass a filter, kept up to date incrementally."""

    def __init__(
        self,
        session: Session | None = None,
        task_of_exchange: Callable[[int], str | None] | None = None,
        task_ids: Callable[[], Iterable[str]] | None = None,
    ) -> None:
        self.session = session
        self.events: EventLog | list[Event] = session.events if session is not None else []
        self.task_of_exchange = task_of_exchange
        #: The ids of the tasks known so far, to tell a unique ``task:`` prefix from an
        #: ambiguous one.
        self.task_ids = task_ids
        self.filter = Filter()
        #: Positions in ``events`` that pass the filter, in order.
        self.rows = positions()
        #: Events examined by the filter so far.
        self.scanned = 0
        #: Events indexed (per-exchange facts) so far.
        self.indexed = 0
        #: exchange -> position of its REQUEST event.
        self.requests: dict[int, int] = {}
        #: exchange -> positions of all its events.
        self.exchanges: dict[int, Positions] = {}
        self._method_words: dict[int, str] = {}

    # -------------------------------------------------------------- upkeep

    @property
    def done(self) -> bool:
        return self.scanned >= len(self.events)

    def set_filter(self, flt: Filter) -> None:
        if self.task_ids is not None:
            ambiguous = _ambiguous_tasks(flt, self.task_ids())
            if ambiguous:
                flt.problem = "; ".join(p for p in (flt.problem, ambiguous) if p)
        self.filter = flt
        self.rows = positions()
        self.scanned = 0

    def catch_up(self, budget: float = 0.008) -> bool:
        """Index and filter new events for about ``budget`` seconds; True when caught up."""
        events = self.events
        n = len(events)
        deadline = time.perf_counter() + budget
        while self.scanned < n:
            start = self.scanned
            end = min(n, start + SLICE)
            self._index_to(end)
            if self.filter.empty:
                self.rows.extend(range(start, end))
            else:
                match = self.filter.match
                self.rows.extend(i for i in range(start, end) if match(events[i], self))
            self.scanned = end
            if time.perf_counter() > deadline:
                break
        return self.done

    def _index_to(self, end: int) -> None:
        start = self.indexed
        if start >= end:
            return
        events = self.events
        requests = self.requests
        exchanges = self.exchanges
        request = Kind.REQUEST
        # A stream's events come one after the other: each run of one exchange is
        # added at once.
        run_number, run_start = 0, start
        for i in range(start, end):
            event = events[i]
            number = event.exchange
            if number != run_number:
                if run_number:
                    exchanges[run_number].extend_run(run_start, i)
                run_number, run_start = number, i
                if number and number not in exchanges:
                    exchanges[number] = Positions()
            if number and event.kind is request:
                requests[number] = i
        if run_number:
            exchanges[run_number].extend_run(run_start, end)
        self.indexed = end

    # -------------------------------------------------------------- per event facts

    def request_of(self, event: Event) -> Event | None:
        pos = self.requests.get(event.exchange) if event.exchange else None
        return self.events[pos] if pos is not None else None

    def method(self, event: Event) -> str:
        """The JSON-RPC method (or the A2A method / 'card' / 'probe') of the event's exchange."""
        if event.kind is Kind.WS:
            return str(event.data.get("rpc_method") or "")
        request = event if event.kind is Kind.REQUEST else self.request_of(event)
        if request is None:
            return ""
        data = request.data
        return data.get("a2a_method") or data.get("rpc_method") or data.get("method") or ""

    def method_words(self, event: Event) -> str:
        """Every name of the exchange's method, lower case (for ``method:``); cached."""
        number = event.exchange
        if event.kind is Kind.WS:
            return str(event.data.get("rpc_method") or "").lower()
        words = self._method_words.get(number) if number else None
        if words is not None:
            return words
        request = event if event.kind is Kind.REQUEST else self.request_of(event)
        if request is None:
            return ""
        data = request.data
        words = " ".join(str(data.get(k) or "") for k in ("rpc_method", "a2a_method", "method")).lower()
        if number:
            self._method_words[number] = words
        return words

    def status(self, event: Event) -> str:
        kind = event.kind
        data = event.data
        if kind is Kind.RESPONSE:
            # A gRPC answer has no HTTP status to show (grpcio does not give it): its gRPC one.
            status = data.get("status")
            if status is None:
                status = data.get("grpc_status")
            return str(status) if status is not None else ""
        if kind is Kind.SSE or kind is Kind.PUSH or kind is Kind.MESSAGE:
            return payload_label(event.payload)
        if kind is Kind.STREAM_END:
            return str(data.get("reason") or "")
        if kind is Kind.ERROR:
            return str(data.get("type") or "")
        if kind is Kind.REQUEST:
            return str(data.get("method") or "")
        if kind is Kind.WS:
            return frame_label(event)
        return ""

    def size(self, event: Event) -> int | None:
        data = event.data
        kind = event.kind
        if kind is Kind.RESPONSE or kind is Kind.PUSH:
            size = data.get("body_size")
            if isinstance(size, int):
                return size
        if kind is Kind.SSE:
            raw = data.get("raw")
            return len(raw) if isinstance(raw, str) else None
        if kind is Kind.REQUEST and isinstance(data.get("body_size"), int):
            return data["body_size"]  # a gRPC message: its bytes on the wire, not its ProtoJSON's
        if kind is Kind.WS or kind is Kind.MESSAGE:
            size = data.get("size")
            return size if isinstance(size, int) else None
        body = data.get("body")
        if isinstance(body, str):
            if data.get("body_encoding") == "base64":
                return len(body) * 3 // 4
            return len(body.encode("utf-8", "surrogatepass")) if not body.isascii() else len(body)
        return None

    def latency_ms(self, event: Event) -> float | None:
        kind = event.kind
        data = event.data
        if kind is Kind.RESPONSE or kind is Kind.STREAM_END:
            ms = data.get("elapsed_ms")
            if isinstance(ms, (int, float)):
                return float(ms)
        if kind in (Kind.SSE, Kind.MESSAGE, Kind.COMMENT, Kind.ERROR, Kind.NOTE) and event.exchange:
            request = self.request_of(event)
            if request is not None:
                return max(0.0, (event.t - request.t) * 1000)
        return None

    def summary(self, event: Event) -> str:
        return event_summary(event)

    def client_of(self, event: Event) -> str:
        """The proxied client of the event's exchange: address and user agent, lower case."""
        request = event if event.kind is Kind.REQUEST else self.request_of(event)
        if request is None:
            return ""
        data = request.data
        return f"{data.get('client') or ''} {data.get('user_agent') or ''}".lower()

    def task_of(self, event: Event) -> str | None:
        if event.kind is Kind.PUSH:
            payload = event.payload
            task = getattr(payload, "task_id", None) or getattr(payload, "id", None)
            return task if isinstance(task, str) else None
        if event.exchange and self.task_of_exchange is not None:
            return self.task_of_exchange(event.exchange)
        return None

    # -------------------------------------------------------------- navigation

    def row_of(self, position: int) -> int | None:
        """The row showing ``events[position]``, if it passes the filter."""
        rows = self.rows
        row = rows.bisect_left(position)
        return row if row < len(rows) and rows[row] == position else None

    def row_at_or_after(self, position: int) -> int:
        return min(self.rows.bisect_left(position), max(0, len(self.rows) - 1))

    def row_of_seq(self, seq: int) -> int | None:
        events = self.events
        # Live sessions number events 1, 2, 3...; recordings may skip: search.
        pos = seq - 1
        if not (0 <= pos < len(events) and events[pos].seq == seq):
            lo, hi = 0, len(events)
            while lo < hi:
                mid = (lo + hi) // 2
                if events[mid].seq < seq:
                    lo = mid + 1
                else:
                    hi = mid
            pos = lo
            if pos >= len(events) or events[pos].seq != seq:
                return None
        return self.row_of(pos)

    def exchange_step(self, row: int, step: int) -> int | None:
        """The next (step=1) or previous (-1) shown row of the same exchange as ``row``."""
        if not 0 <= row < len(self.rows):
            return None
        position = self.rows[row]
        number = self.events[position].exchange
        members = self.exchanges.get(number) if number else None
        if not members:
            return None
        at = members.bisect_left(position)
        for k in range(at + 1, len(members)) if step > 0 else range(at - 1, -1, -1):
            found = self.row_of(members[k])
            if found is not None:
                return found
        return None
