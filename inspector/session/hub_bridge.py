"""A hub recording seen from its HTTP bridge: each task call the hub relayed to a
ws-agent, rebuilt as the HTTP exchange the bridge's caller had.

A hub's session holds what is on the wire between the hub and its agents (``ws``
events: every frame), not the bridge's HTTP; the callers' own clients record that.
``a2a-mock --replay``, ``replay --against`` and the exports work on HTTP exchanges, so
for them each relay (its request frame, the agent's task.* frames and answer, the
hub's STREAM_END) becomes the 0.1 JSON-RPC exchange the bridge made of it:

* ``tasks/send``: a JSON body, the task as the frames built it (what the bridge
  answers: see ``task_snapshot``), the agent's direct message, or its error;
* ``tasks/sendSubscribe``: an SSE stream of the status and artifact updates the
  bridge sent (a ``task.complete`` becomes its unstreamed artifacts and a final
  status), an error as the stream's last event;
* ``tasks/cancel``: the agent's answer;
* each registration: a card GET at ``/agents/NAME/.well-known/agent.json``.

The request is the hub's frame as the agent got it (with the ``id``, ``sessionId`` and
metadata the hub added), sent to ``BRIDGE/agents/NAME``; BRIDGE is the address the hub
noted when it started (``hub-listening``), else the Host a socket opened with.
Rebuilt events are marked ``"rebuilt": "hub-bridge"`` in their data.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ..protocol import hub as proto
from ..protocol import models as m
from ..protocol.dialects import get_dialect
from ..protocol.errors import JsonRpcError
from ..protocol.methods import Method
from ..protocol.states import INTERRUPTED, TERMINAL
from .events import Event, Kind
from .exchange import RecordedExchange
from .log import Session
from .task_snapshot import task_from_view
from .tracker import TaskTracker

_METHODS = {proto.SEND: Method.SEND, proto.STREAM: Method.STREAM, proto.CANCEL: Method.CANCEL}
_SETTLED = TERMINAL | INTERRUPTED
_JSON = {"content-type": "application/json"}
_SSE = {"content-type": "text/event-stream", "cache-control": "no-cache"}
MARK = {"rebuilt": "hub-bridge"}
_DEFAULT_BRIDGE = "http://127.0.0.1"


def _dump(doc: Any) -> str:
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":"))


def _settles(item: Any) -> bool:
    if isinstance(item, m.TaskStatusUpdateEvent):
        return bool(item.final) or item.status.state in _SETTLED
    if isinstance(item, m.Task):
        return item.status.state in _SETTLED
    return isinstance(item, (m.Message, JsonRpcError))


@dataclass
class _Relay:
    number: int
    method: Method
    rpc_id: Any
    agent: str
    request: Event
    task_id: str | None
    #: (item, the event that carried it) in order, until the turn settled.
    items: list[tuple[Any, Event]] = field(default_factory=list)
    settled: bool = False
    answered: bool = False


class _Rebuilder:
    def __init__(self, numbers: set[int], first_free: int) -> None:
        self.numbers = numbers
        self.next_number = first_free
        self.dialect = get_dialect("0.1")
        self.bridge: str | None = None
        self.cards: dict[Any, Any] = {}
        self.session = Session()
        self.tracker = TaskTracker(self.session)
        self.relays: dict[int, _Relay] = {}
        self.out: list[RecordedExchange] = []

    # ------------------------------------------------------------------ events

    def feed(self, event: Event) -> None:
        kind = event.kind
        if kind is Kind.WS and event.data.get("op") == "text" and not isinstance(event.payload, proto.Frame):
            # Read without decoding (a2a-mock --replay): the frame says what it is.
            event = Event(
                event.seq,
                event.t,
                kind,
                event.exchange,
                event.data,
                event.wall,
                proto.decode_frame(event.data.get("text")),
            )
        if kind is Kind.WS or kind is Kind.NOTE or kind is Kind.STREAM_END or kind is Kind.ERROR:
            self.session.extend(event)
        if kind is Kind.NOTE:
            self._note(event)
        elif kind is Kind.WS:
            self._frame(event)
        elif kind is Kind.STREAM_END:
            relay = self.relays.pop(event.exchange, None)
            if relay is not None:
                self._finish(relay, event)

    def _note(self, event: Event) -> None:
        data = event.data
        code = data.get("code")
        if code == "hub-listening" and isinstance(data.get("bridge"), str):
            self.bridge = data["bridge"]
        elif code == "hub-registered" and isinstance(data.get("agent"), str):
            self._card(event, data["agent"], self.cards.get(data.get("conn")))

    def _frame(self, event: Event) -> None:
        data = event.data
        op = data.get("op")
        if op == "open" and self.bridge is None:
            headers = data.get("headers")
            host = headers.get("host") if isinstance(headers, dict) else None
            if isinstance(host, str) and host:
                self.bridge = f"http://{host}"
            return
        if op != "text":
            return
        frame = event.payload
        if not isinstance(frame, proto.Frame):
            return
        if frame.method == proto.REGISTER and isinstance(frame.item, proto.Registration):
            reg = frame.item
            self.cards[data.get("conn")] = reg.card_raw if isinstance(reg.card_raw, dict) else None
            return
        number = event.exchange
        if number not in self.numbers:
            return
        relay = self.relays.get(number)
        if relay is None:
            if data.get("dir") == "out" and frame.method in _METHODS:
                self._start(event, frame)
            return
        if relay.settled:
            return
        if frame.role in ("result", "error") and frame.rpc_id == relay.rpc_id:
            relay.answered = True
            item = frame.item
            if isinstance(item, (m.Task, m.Message, JsonRpcError)):
                self._add(relay, item, event)
            elif relay.method is Method.CANCEL:
                self._add(relay, None, event)  # an acknowledgement: the task as it stands
            if relay.method is Method.CANCEL:
                self.relays.pop(number, None)
                self._finish(relay, None)
            return
        if frame.role == "notification" and frame.method in (proto.STATUS, proto.ARTIFACT, proto.COMPLETE):
            item = frame.item
            if isinstance(item, (m.TaskStatusUpdateEvent, m.TaskArtifactUpdateEvent, m.Task)):
                self._add(relay, item, event)

    def _add(self, relay: _Relay, item: Any, event: Event) -> None:
        relay.items.append((item, event))
        if item is None or _settles(item):
            relay.settled = True

    # ------------------------------------------------------------------ building

    def _url(self, agent: str) -> str:
        return f"{self.bridge or _DEFAULT_BRIDGE}/agents/{agent}"

    def _number(self) -> int:
        self.next_number += 1
        return self.next_number - 1

    def _card(self, event: Event, agent: str, raw: Any) -> None:
        card = dict(raw) if isinstance(raw, dict) else {"name": agent}
        card.setdefault("name", agent)
        card["url"] = proto.agent_url(agent)
        card["hubBridge"] = self._url(agent)
        number = self._number()
        request = Event(
            event.seq,
            event.t,
            Kind.REQUEST,
            number,
            {
                "method": "GET",
                "url": f"{self._url(agent)}/.well-known/agent.json",
                "headers": {},
                "body": None,
                "dialect": None,
                "a2a_method": "card",
                "rpc_method": None,
                "rpc_id": None,
                **MARK,
            },
            event.wall,
        )
        body = _dump(card)
        response = Event(event.seq, event.t, Kind.RESPONSE, number, self._head(200, _JSON, body, 0.0), event.wall)
        self.out.append(RecordedExchange(number, request, response))

    def _start(self, event: Event, frame: proto.Frame) -> None:
        method = _METHODS[frame.method]  # type: ignore[index]  # a frame with one of these methods (see the caller)
        try:
            params = json.loads(event.data.get("text") or "{}").get("params")
        except (ValueError, AttributeError):
            return
        number = event.exchange
        body = _dump({"jsonrpc": "2.0", "id": number, "method": frame.method, "params": params})
        request = Event(
            event.seq,
            event.t,
            Kind.REQUEST,
            number,
            {
                "method": "POST",
                "url": self._url(str(event.data.get("agent") or "")),
                "headers": dict(_JSON),
                "body": body,
                "dialect": "0.1",
                "a2a_method": method.value,
                "rpc_method": frame.method,
                "rpc_id": number,
                **MARK,
            },
            event.wall,
            frame.item,
        )
        self.relays[number] = _Relay(
            number, method, frame.rpc_id, str(event.data.get("agent") or ""), request, frame.task_id
        )

    @staticmethod
    def _head(status: int, headers: dict[str, str], body: str | None, elapsed: float) -> dict[str, Any]:
        return {
            "status": status,
            "reason": "OK" if status == 200 else "",
            "headers": dict(headers),
            "body": body,
            "body_encoding": None,
            "body_size": len(body.encode("utf-8")) if body is not None else None,
            "elapsed_ms": round(elapsed * 1000, 3),
            "streaming": body is None,
            "content_type": headers["content-type"],
            **MARK,
        }

    def _finish(self, relay: _Relay, end: Event | None) -> None:
        request = relay.request
        rid = relay.number
        ex = RecordedExchange(relay.number, request)
        if relay.method is Method.STREAM:
            first = relay.items[0][1] if relay.items else (end or request)
            ex.response = Event(
                request.seq, first.t, Kind.RESPONSE, rid, self._head(200, _SSE, None, first.t - request.t), request.wall
            )
            streamed: set[Any] = set()
            for item, event in relay.items:
                for out in as_stream_events(item, streamed):
                    doc = (
                        self.dialect.encode_error(out, rid)
                        if isinstance(out, JsonRpcError)
                        else self.dialect.encode_stream_event(out, rid)
                    )
                    ex.stream.append(self._sse(event, rid, doc, out))
            last = end or (relay.items[-1][1] if relay.items else request)
            ex.end = Event(
                last.seq,
                last.t,
                Kind.STREAM_END,
                rid,
                {
                    "reason": "complete",
                    "events": len(ex.stream),
                    "elapsed_ms": round((last.t - request.t) * 1000, 3),
                    **MARK,
                },
                last.wall,
            )
            self.out.append(ex)
            return
        if not relay.items:
            if end is None:
                return  # the recording ends before the answer
            item = JsonRpcError(
                -32603,
                "Internal error",
                {"reason": f"the relay ended ({end.data.get('reason')}) without the task settling"},
            )
            at = end
        else:
            item, at = relay.items[-1]
        if item is None or (relay.method is Method.SEND and not isinstance(item, (m.Message, JsonRpcError))):
            view = self.tracker.task(relay.task_id) if relay.task_id else None
            if view is not None:
                item = task_from_view(view)
        if isinstance(item, JsonRpcError):
            doc = self.dialect.encode_error(item, rid)
        elif isinstance(item, (m.Task, m.Message)):
            doc = self.dialect.encode_response(relay.method, item, rid)
        else:
            return
        body = _dump(doc)
        ex.response = Event(
            at.seq, at.t, Kind.RESPONSE, rid, self._head(200, _JSON, body, at.t - request.t), at.wall, item
        )
        self.out.append(ex)

    def _sse(self, source: Event, rid: int, doc: Any, payload: Any) -> Event:
        text = _dump(doc)
        return Event(
            source.seq,
            source.t,
            Kind.SSE,
            rid,
            {"raw": f"data: {text}", "event": None, "data": text, "id": None, "retry": None, **MARK},
            source.wall,
            payload,
        )


def as_stream_events(item: Any, streamed: set[Any]) -> list[Any]:
    """As the bridge streams (0.1 streams carry status and artifact events): a task
    becomes its artifacts not streamed yet (``streamed``: their keys so far, updated),
    then its status; anything else goes as it is. The live bridge (inspector/hub) and the
    rebuilt recording use this one conversion."""
    if isinstance(item, m.TaskArtifactUpdateEvent):
        art = item.artifact
        streamed.add(art.artifact_id if art.artifact_id is not None else art.index)
        return [item]
    if isinstance(item, (m.Message, JsonRpcError)) or not isinstance(item, m.Task):
        return [item] if item is not None else []
    out: list[Any] = []
    for pos, art in enumerate(item.artifacts or ()):
        key = art.artifact_id if art.artifact_id is not None else (art.index if art.index is not None else pos)
        if key in streamed:
            continue
        streamed.add(key)
        if art.index is None and art.artifact_id is None:
            art = art.model_copy(update={"index": pos})
        out.append(
            m.TaskArtifactUpdateEvent(
                task_id=item.id, context_id=item.context_id, artifact=art, append=False, last_chunk=True
            )
        )
    out.append(
        m.TaskStatusUpdateEvent(
            task_id=item.id,
            context_id=item.context_id,
            status=item.status,
            final=_settles(item),
            metadata=item.metadata,
        )
    )
    return out


def bridge_exchanges(events: Iterable[Event], numbers: set[int], first_free: int) -> list[RecordedExchange]:
    """The bridge exchanges of a hub recording: a card GET per registration (numbered
    from ``first_free``) and the relays whose exchange numbers are in ``numbers``."""
    rebuilder = _Rebuilder(numbers, first_free)
    for event in events:
        rebuilder.feed(event)
    for relay in list(rebuilder.relays.values()):  # the recording ends before they did
        rebuilder._finish(relay, None)
    rebuilder.out.sort(key=lambda ex: (ex.request.seq, ex.number))
    return rebuilder.out


def is_rebuilt(ex: RecordedExchange) -> bool:
    return ex.request.data.get("rebuilt") == MARK["rebuilt"]


__all__ = ["bridge_exchanges", "is_rebuilt"]
