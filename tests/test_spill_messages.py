"""A gRPC stream's messages in a spill file (inspector/session/spill.py): the usual
message (data ``json``, ``size``, and the proxy's ``added_ms``) is kept as a header and
its ProtoJSON text, not as a JSON line; any other is a JSON line as before. Either way
an event comes back exactly as it left: its data's keys in their order, each value of
its type, its times to the bit."""

from __future__ import annotations

import json
import random
from typing import Any

from inspector.session import Event, Kind, Session
from inspector.session.spill import SpillStore

TEXT = '{"artifactUpdate":{"taskId":"t","artifact":{"artifactId":"a","parts":[{"text":"x"}]},"append":true}}'


def message(i: int) -> Event:
    """The proxy's message, the client's, and every kind of near miss in turn."""
    t, wall = i / 3, 1000.5 + i
    text = TEXT.replace('"x"', json.dumps(f"é\n“{i}” \ud800 \x00 m[1,2]\n"))
    data: dict[str, Any]
    match i % 10:
        case 0:
            data = {"json": text, "size": 40 + i}  # the client's
        case 1:
            data = {"size": 40, "json": text, "added_ms": 0.1}  # keys in another order: a JSON line
        case 2:
            data = {"json": text, "size": 40, "added_ms": float("nan")}  # not finite: a JSON line
        case 3:
            data = {"json": text, "size": 40, "added_ms": 2}  # an int stays an int
        case 4:
            data = {"json": None, "size": 40, "cut": True, "added_ms": 0.5}  # a message past the limit
        case 5:
            data = {"json": text, "size": True, "added_ms": 0.5}  # a bool is no size
        case 6:
            return Event(i + 1, float("inf"), Kind.MESSAGE, 1, {"json": text, "size": 4, "added_ms": 0.5}, wall)
        case 7:
            return Event(i + 1, t, Kind.NOTE, 0, {"text": f"note {i}"}, wall)
        case _:
            data = {"json": text, "size": 40 + i, "added_ms": round(i * 0.0137, 3)}  # the proxy's
    return Event(i + 1, t, Kind.MESSAGE, 1 + i % 3, data, wall)


def exactly(events: list[Event]) -> list[Any]:
    return [
        (e.seq, e.t, e.wall, e.kind, e.exchange, [(k, v.__class__, repr(v)) for k, v in e.data.items()]) for e in events
    ]


def test_messages_come_back_from_a_spill_file_exactly() -> None:
    events = [message(i) for i in range(700)]
    store = SpillStore()
    rng = random.Random(7)
    at = 0
    while at < len(events):
        size = rng.randint(1, 90)
        store.add(at, events[at : at + size])
        at += size
    assert exactly(store.read(0, len(events))) == exactly(events)
    for _ in range(100):
        a = rng.randrange(len(events))
        b = rng.randint(a, min(len(events), a + 150))
        assert exactly(store.read(a, b)) == exactly(events[a:b])
    store.close()


def test_the_usual_message_is_not_written_as_a_json_line() -> None:
    store = SpillStore()
    data = {"json": TEXT, "size": 91, "added_ms": 0.012}
    store.add(0, [Event(1, 0.25, Kind.MESSAGE, 3, data, 1700000000.5)])
    written = store._file.read(0, store._file.end)
    assert written == b"m[1,0.25,1700000000.5,3,91,0.012,%d]\n%s\n" % (len(TEXT), TEXT.encode())
    (back,) = store.read(0, 1)
    assert back.data == data and back.payload_kept is False
    store.close()


def test_a_session_reads_spilled_messages_with_their_payloads() -> None:
    # Through a session, as the proxy spills: the payload is derived again from the
    # exchange's request once the message is read back.
    session = Session(keep=10)
    request = {
        "method": "POST",
        "url": "grpc://a/lf.a2a.v1.A2AService/SendStreamingMessage",
        "body": None,
        "dialect": "1.0",
        "binding": "grpc",
        "a2a_method": "stream",
    }
    ex = session.new_exchange()
    session.append(Kind.REQUEST, request, exchange=ex)
    for i in range(5000):
        session.append(Kind.MESSAGE, {"json": TEXT, "size": 40, "added_ms": i / 1000}, exchange=ex)
    assert session.events.first_kept > 0
    first = session.events[1]
    assert first.data == {"json": TEXT, "size": 40, "added_ms": 0.0}
    assert first.payload.artifact.parts[0].text == "x"
    session.close()


def test_any_other_event_is_the_json_line_json_dumps_writes() -> None:
    # The spill's encoders are made once; each line must be what json.dumps gives.
    class Odd:
        def __repr__(self) -> str:
            return "Odd()"

    data = {"body": 'é "q" \\ \x00 \u2028', "headers": {"a": "b"}, "nan": float("nan"), "odd": Odd(), "n": 2**70}
    store = SpillStore()
    store.add(0, [Event(1, 0.25, Kind.REQUEST, 3, data, 1700000000.5)])
    written = store._file.read(0, store._file.end)
    line = {"kind": "request", "seq": 1, "t": 0.25, "wall": 1700000000.5, "exchange": 3, "data": data}
    expected = json.dumps(line, ensure_ascii=False, separators=(",", ":"), default=repr)
    assert written == expected.encode("utf-8", "surrogatepass") + b"\n"
    store.close()


def test_a_plain_record_reads_back_as_the_json_dumps_line_does() -> None:
    # A record of nothing but dicts, lists, strings and numbers is written by
    # pydantic-core's encoder (its floats may be spelled otherwise: 1e-7 for 1e-07);
    # read back, each value is what json.dumps's line gives, of its type, to the bit.
    # A value it would write its own way (bytes, a tuple, a lone surrogate) takes the
    # json module's line.
    values: list[Any] = [
        {"body": 'é "q" \\ \x00 \u2028 \x7f', "headers": {"a": "b"}, "size": 74, "code": None, "ok": True},
        {"floats": [0.1, 1e-7, 1e16, 1e300, 5e-324, -0.0, float("inf"), float("-inf"), float("nan")]},
        {"ints": [2**70, -(2**63), 0], "deep": [[{"a": [[[{}]]]}]]},
        {"lone": "\ud800 x"},
        {"raw": b"\x00\xff"},
        {"pair": (1, "a")},
        {"set": {1}},
    ]
    events = [Event(i + 1, i / 3, Kind.RESPONSE, 1, data, 1700000000.5 + i) for i, data in enumerate(values)]
    store = SpillStore()
    store.add(0, events)
    back = store.read(0, len(events))
    lines = store._file.read(0, store._file.end).split(b"\n")
    for event, got, line in zip(events, back, lines, strict=False):
        record = {"kind": "response", "seq": event.seq, "t": event.t, "wall": event.wall, "exchange": 1}
        expected = json.loads(json.dumps({**record, "data": event.data}, ensure_ascii=False, default=repr))
        assert repr(json.loads(line.decode("utf-8", "surrogatepass"))) == repr(expected)
        assert repr(got.data) == repr(expected["data"])
        assert (got.seq, got.t, got.wall) == (event.seq, event.t, event.wall)
    store.close()
