"""Reader: recordings back into sessions, payloads re-derived, damage survived."""

from __future__ import annotations

import base64
import itertools
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from captures import parse
from inspector.protocol.dialects import get_dialect
from inspector.protocol.errors import JsonRpcError, ProtocolError
from inspector.protocol.models import AgentCard, SendParams, Task, TaskArtifactUpdateEvent
from inspector.session import (
    Event,
    Kind,
    Recorder,
    RecordingError,
    Session,
    TaskTracker,
    iter_recording,
    load_recording,
    payloads,
)
from shared_paths import CAPTURES

REPO = Path(__file__).resolve().parents[1]


class Client:
    """Appends events exactly as the live client does: data, plus the payload the
    client's own payload functions derive. What the reader derives must match this."""

    def __init__(self) -> None:
        ticks = itertools.count(0.125, 0.333333333)
        walls = itertools.count(1_700_000_000.0, 0.5)
        self.session = Session(clock=lambda: next(ticks), wall_clock=lambda: next(walls))
        self.requests: dict[int, dict[str, Any]] = {}

    def request(
        self,
        dialect: str | None,
        a2a_method: str,
        obj: Any = None,
        *,
        method: str = "POST",
        url: str = "http://agent.test/",
        headers: dict | None = None,
    ) -> int:
        ex = self.session.new_exchange()
        d = get_dialect(dialect) if dialect else None
        body = json.dumps(obj) if obj is not None else None
        # The live client logs the params it encoded; decoding its body gives them back.
        payload = d.decode_request(obj).params if d is not None and obj is not None else None
        data = {
            "method": method,
            "url": url,
            "headers": headers or {"accept": "application/json"},
            "body": body,
            "body_encoding": "utf-8",
            "dialect": dialect,
            "a2a_method": a2a_method,
            "rpc_method": obj.get("method") if isinstance(obj, dict) else None,
            "rpc_id": obj.get("id") if isinstance(obj, dict) else None,
        }
        self.requests[ex] = data
        self.session.append(Kind.REQUEST, data, exchange=ex, payload=payload)
        return ex

    def response(self, ex: int, body: bytes | str | None, *, status: int = 200) -> Event:
        if isinstance(body, bytes):
            try:
                text, enc = body.decode("utf-8"), "utf-8"
            except UnicodeDecodeError:
                text, enc = base64.b64encode(body).decode("ascii"), "base64"
        else:
            text, enc = body, "utf-8"
        data = {
            "status": status,
            "reason": "OK",
            "headers": {"content-type": "application/json"},
            "body": text,
            "body_encoding": enc,
            "body_size": len(body) if body is not None else None,
            "elapsed_ms": 3.5,
            "streaming": body is None,
            "content_type": "text/event-stream" if body is None else "application/json",
        }
        payload = payloads.response_payload(self.requests[ex], data)
        return self.session.append(Kind.RESPONSE, data, exchange=ex, payload=payload)

    def sse(self, ex: int, data: str | None, **extra: Any) -> Event:
        fields = {"raw": f"data: {data}", "event": None, "data": data, "id": None, "retry": None, **extra}
        payload = payloads.sse_payload(self.requests[ex]["dialect"], fields)
        return self.session.append(Kind.SSE, fields, exchange=ex, payload=payload)

    def other(self, kind: Kind, data: dict[str, Any], ex: int = 0, payload: Any = None) -> Event:
        return self.session.append(kind, data, exchange=ex, payload=payload)


def rich_session() -> Session:
    """Every kind of event, every dialect, failures included."""
    c = Client()
    c.other(Kind.NOTE, {"text": "session started", "agent": "http://agent.test/"})
    ex = c.request(None, "card", method="GET", url="http://agent.test/.well-known/agent-card.json")
    c.response(
        ex,
        json.dumps(
            {
                "name": "Echo",
                "url": "http://agent.test/",
                "protocolVersion": "0.3.0",
                "capabilities": {"streaming": True},
                "skills": [],
            }
        ),
    )
    # 0.3 stream, from a real capture, with heartbeats.
    cap = parse(CAPTURES / "03_v03_message_stream.txt")
    ex = c.request("0.3", "stream", cap.request_json())
    c.response(ex, None)
    for i, sse in enumerate(cap.events()):
        c.sse(ex, sse.data)
        if i == 1:
            c.other(Kind.COMMENT, {"text": " heartbeat"}, ex)
    c.sse(ex, '{"jsonrpc": "2.0", "id": 2, "result": {"kind": "status-update"')  # malformed
    c.sse(ex, None)  # a block with no data line
    c.sse(ex, '{"jsonrpc": "2.0", "id": 2, "res', incomplete=True)  # cut off by the end of the stream
    c.sse(ex, None, raw=base64.b64encode(b"data: \xff").decode(), raw_encoding="base64")
    c.other(Kind.STREAM_END, {"reason": "complete", "events": 7, "elapsed_ms": 1040.0, "terminal": True}, ex)
    # 1.0 send, from a real capture.
    cap = parse(CAPTURES / "05_v10_send.txt")
    ex = c.request("1.0", "send", cap.request_json(), headers={"A2A-Version": "1.0"})
    c.response(ex, cap.response_body)
    # 0.1 send, and a JSON-RPC error.
    ex = c.request(
        "0.1",
        "send",
        {
            "jsonrpc": "2.0",
            "id": 9,
            "method": "tasks/send",
            "params": {
                "id": "t01",
                "sessionId": "s01",
                "message": {"role": "user", "parts": [{"type": "text", "text": "hi"}]},
            },
        },
    )
    c.response(
        ex,
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 9,
                "result": {
                    "id": "t01",
                    "sessionId": "s01",
                    "status": {"state": "completed"},
                    "artifacts": [{"index": 0, "parts": [{"type": "text", "text": "hello"}]}],
                },
            }
        ),
    )
    ex = c.request("0.3", "get", {"jsonrpc": "2.0", "id": 10, "method": "tasks/get", "params": {"id": "nope"}})
    c.response(
        ex, json.dumps({"jsonrpc": "2.0", "id": 10, "error": {"code": -32001, "message": "Task not found"}}), status=200
    )
    # A body that is not UTF-8 (recorded as base64) and a probe.
    ex = c.request("0.3", "get", {"jsonrpc": "2.0", "id": 11, "method": "tasks/get", "params": {"id": "t01"}})
    c.response(ex, b'{"jsonrpc": "2.0", "result": "\xff\xfe"}', status=502)
    ex = c.request(
        "0.3",
        "probe",
        {
            "jsonrpc": "2.0",
            "id": 12,
            "method": "message/send",
            "params": {"message": {"kind": "message", "role": "user", "messageId": "p", "parts": []}},
        },
    )
    c.response(
        ex,
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 12,
                "result": {
                    "kind": "message",
                    "role": "agent",
                    "messageId": "r",
                    "parts": [{"kind": "text", "text": "pong"}],
                },
            }
        ),
    )
    ex = c.request(
        "0.3",
        "send",
        {
            "jsonrpc": "2.0",
            "id": 13,
            "method": "message/send",
            "params": {"message": {"kind": "message", "role": "user", "messageId": "q", "parts": []}},
        },
    )
    c.other(Kind.ERROR, {"type": "connect", "message": "connection refused"}, ex)
    push_body = json.dumps(
        {"kind": "status-update", "taskId": "t01", "contextId": "s01", "final": True, "status": {"state": "completed"}}
    )
    c.other(
        Kind.PUSH,
        {"headers": {"content-type": "application/json"}, "body": push_body, "url": "/push"},
        payload=get_dialect("0.3").decode_event(json.loads(push_body), "$"),
    )
    return c.session


def record(session: Session, path: Path, **kw: Any) -> Path:
    Recorder.attach(session, path, **kw).close()
    return path


def wire_facts(e: Event) -> tuple[Any, ...]:
    return (e.seq, round(e.t, 6), round(e.wall, 6), e.kind, e.exchange, e.data)


def same_payload(a: Any, b: Any) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, JsonRpcError):
        return (a.code, a.message, a.data) == (b.code, b.message, b.data)
    if isinstance(a, ProtocolError):
        return (a.reason, a.path) == (b.reason, b.path)
    return a == b


def projection(tracker: TaskTracker) -> Any:
    """The tracker's picture as plain data (what the UI would show)."""

    def art(a: Any) -> Any:
        return (a.key, a.text(), a.closed, a.chunked, [(c.seq, c.append, c.last_chunk, c.size) for c in a.chunks])

    return {
        "tasks": [
            (
                t.id,
                t.context_id,
                t.state,
                [(c.state, round(c.t, 6), c.seq) for c in t.timeline],
                [m.model_dump() for m in t.history],
                [art(a) for a in t.artifacts.values()],
                t.exchanges,
                t.first_seq,
                t.last_seq,
            )
            for t in tracker.tasks.values()
        ],
        "replies": [m.model_dump() for m in tracker.replies],
        "violations": [(v.seq, v.task_id, v.code, v.severity, v.message) for v in tracker.violations],
        "exchanges": {k: (x.task_id, x.method, x.ended, x.error is not None) for k, x in tracker.exchanges.items()},
    }


# ----------------------------------------------------------------- round trip


def test_round_trip_gives_the_same_events_payloads_and_projection(tmp_path: Path) -> None:
    original = rich_session()
    rec = load_recording(record(original, tmp_path / "r.jsonl", redact=False))
    assert rec.problems == [] and not rec.truncated
    assert [wire_facts(e) for e in rec.session.events] == [wire_facts(e) for e in original.events]
    for before, after in zip(original.events, rec.session.events, strict=True):
        assert same_payload(before.payload, after.payload), (before.seq, before.payload, after.payload)
    assert projection(TaskTracker(rec.session)) == projection(TaskTracker(original))
    assert rec.session.started_wall == pytest.approx(original.started_wall)


def test_round_trip_payloads_are_really_decoded(tmp_path: Path) -> None:
    # Guards the comparison above against two sessions that agree on nothing but None.
    rec = load_recording(record(rich_session(), tmp_path / "r.jsonl"))
    kinds = {type(e.payload) for e in rec.session.events}
    assert {AgentCard, SendParams, Task, TaskArtifactUpdateEvent, JsonRpcError, ProtocolError} <= kinds
    base64_response = next(e for e in rec.session.events if e.data.get("body_encoding") == "base64")
    assert isinstance(base64_response.payload, ProtocolError) and "UTF-8" in str(base64_response.payload)
    push = rec.session.events[-1]
    assert push.kind is Kind.PUSH and push.payload.status.state.value == "completed"


def test_a_redacted_recording_still_loads_and_decodes(tmp_path: Path) -> None:
    original = rich_session()
    rec = load_recording(record(original, tmp_path / "r.jsonl"))
    assert rec.header["redaction"]["enabled"] and rec.problems == []
    assert projection(TaskTracker(rec.session)) == projection(TaskTracker(original))
    v10 = next(e for e in rec.session.events if e.kind is Kind.REQUEST and e.data["dialect"] == "1.0")
    assert v10.data["headers"] == {"A2A-Version": "1.0"}


def test_loaded_session_feeds_listeners_like_a_live_one(tmp_path: Path) -> None:
    rec = load_recording(record(rich_session(), tmp_path / "r.jsonl"))
    tracker = TaskTracker(rec.session)
    # Replay indistinguishable from live: new events continue the same log.
    before = len(rec.session)
    rec.session.append(Kind.NOTE, {"text": "replay finished"})
    assert rec.session.events[-1].seq == before + 1
    assert tracker.task("fddfc16e-4547-44b0-a295-074c971048af").terminal


def test_decode_false_keeps_only_wire_facts(tmp_path: Path) -> None:
    rec = load_recording(record(rich_session(), tmp_path / "r.jsonl"), decode=False)
    assert all(e.payload is None for e in rec.session.events) and len(rec.session) > 20


def test_iter_recording_streams_events(tmp_path: Path) -> None:
    path = record(rich_session(), tmp_path / "r.jsonl")
    with iter_recording(path) as events:
        assert events.header["format"] == "a2a-inspect-recording"
        first = next(events)
        assert first.seq == 1 and first.kind is Kind.NOTE
        rest = list(events)
    assert len(rest) + 1 == len(load_recording(path).session)
    assert events.problems == []


# ----------------------------------------------------------------- damage


def test_truncated_last_line_loads_everything_before_it(tmp_path: Path) -> None:
    original = rich_session()
    path = record(original, tmp_path / "r.jsonl")
    data = path.read_bytes()
    path.write_bytes(data[:-15])  # cut inside the last event, as kill -9 mid-write would
    n_lines = data.count(b"\n")
    rec = load_recording(path)
    assert rec.truncated
    assert [p.line for p in rec.problems] == [n_lines]
    assert "cut off" in rec.problems[0].message
    assert [wire_facts(e) for e in rec.session.events] == [wire_facts(e) for e in original.events[:-1]]


def test_last_line_missing_only_its_newline_loses_nothing(tmp_path: Path) -> None:
    original = rich_session()
    path = record(original, tmp_path / "r.jsonl")
    path.write_bytes(path.read_bytes()[:-1])
    rec = load_recording(path)
    assert len(rec.session) == len(original) and not rec.truncated and rec.problems == []


def test_corrupted_middle_line_is_reported_with_its_number(tmp_path: Path) -> None:
    original = rich_session()
    path = record(original, tmp_path / "r.jsonl")
    raw = path.read_bytes().split(b"\n")
    bad = 7  # line numbers count the header as line 1
    raw[bad - 1] = raw[bad - 1][: len(raw[bad - 1]) // 2] + b"\x00garbage"
    raw.insert(10, b'{"seq": "x", "kind": "note"}')
    raw.insert(12, b'{"seq": 9999, "t": 1, "kind": "from-the-future"}')
    path.write_bytes(b"\n".join(raw))
    rec = load_recording(path)
    assert [p.line for p in rec.problems] == [bad, 11, 13]
    assert "seq" in rec.problems[1].message and "from-the-future" in rec.problems[2].message
    assert not rec.truncated
    lost = original.events[bad - 2]
    assert [e.seq for e in rec.session.events] == [e.seq for e in original.events if e is not lost]
    # Later events of the same exchange are still decoded.
    after = [e for e in rec.session.events if e.kind is Kind.SSE and e.seq > lost.seq]
    assert after and all(e.payload is not None for e in after if e.data["data"] is not None)


@pytest.mark.parametrize(
    "content, message",
    [
        (b"", "empty"),
        (b'{"seq": 1, "t": 0, "kind": "note", "text": "no header"}\n', "no format header"),
        (b'{"format": "har", "version": 1}\n', "'har'"),
        (b'{"format": "a2a-inspect-recording", "version": 99}\n', "newer"),
        (b"GIF89a\x00\x01", "not a JSON header"),
        (b'{"format": "a2a-inspect-rec', "incomplete"),
    ],
)
def test_missing_or_foreign_header_is_a_clear_error(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "r.jsonl"
    path.write_bytes(content)
    with pytest.raises(RecordingError, match=message):
        load_recording(path)


def test_unknown_dialect_is_noted_and_the_rest_loads(tmp_path: Path) -> None:
    session = Session()
    session.append(
        Kind.REQUEST,
        {
            "method": "POST",
            "url": "u",
            "headers": {},
            "body": "{}",
            "body_encoding": "utf-8",
            "dialect": "9.9",
            "a2a_method": "send",
            "rpc_method": "x",
            "rpc_id": 1,
        },
        exchange=1,
    )
    session.append(
        Kind.RESPONSE,
        {"status": 200, "headers": {}, "body": "{}", "body_encoding": "utf-8", "streaming": False},
        exchange=1,
    )
    rec = load_recording(record(session, tmp_path / "r.jsonl"))
    assert len(rec.session) == 2 and [p.line for p in rec.problems] == [2]
    assert "9.9" in rec.problems[0].message
    assert all(e.payload is None for e in rec.session.events)


# ----------------------------------------------------------------- kill -9

CHILD = textwrap.dedent("""
    import json, sys
    from inspector.session import Kind, Recorder, Session

    session = Session()
    Recorder.attach(session, sys.argv[1])
    ex = session.new_exchange()
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "message/stream", "params": {"message": {
        "kind": "message", "role": "user", "messageId": "m", "parts": [{"kind": "text", "text": "go"}]}}})
    session.append(Kind.REQUEST, {"method": "POST", "url": "http://a/", "headers": {}, "body": body,
                                  "body_encoding": "utf-8", "dialect": "0.3", "a2a_method": "stream",
                                  "rpc_method": "message/stream", "rpc_id": 1}, exchange=ex)
    session.append(Kind.RESPONSE, {"status": 200, "headers": {}, "body": None, "streaming": True}, exchange=ex)
    filler = "x" * 4000
    i = 0
    while True:
        i += 1
        data = json.dumps({"jsonrpc": "2.0", "id": 1, "result": {
            "kind": "artifact-update", "taskId": "t", "contextId": "c", "append": i > 1,
            "artifact": {"artifactId": "a", "parts": [{"kind": "text", "text": f"{i} {filler}"}]}}})
        event = session.append(Kind.SSE, {"raw": "data: " + data, "event": None, "data": data,
                                          "id": None, "retry": None}, exchange=ex)
        print(event.seq, flush=True)
""")


def test_a_process_killed_mid_recording_loses_at_most_the_event_in_flight(tmp_path: Path) -> None:
    path = tmp_path / "killed.jsonl"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen([sys.executable, "-c", CHILD, str(path)], stdout=subprocess.PIPE, env=env)
    printed = 0
    deadline = time.monotonic() + 60
    try:
        assert proc.stdout is not None
        while printed < 400:
            line = proc.stdout.readline()
            assert line, f"child died early: {proc.wait()}"
            printed = int(line)
            assert time.monotonic() < deadline
        os.kill(proc.pid, signal.SIGKILL)
        # Whatever it printed before dying was appended, hence recorded.
        for line in proc.stdout:
            printed = int(line)
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == -signal.SIGKILL

    rec = load_recording(path)
    seqs = [e.seq for e in rec.session.events]
    assert seqs == list(range(1, len(seqs) + 1)), "no gaps"
    assert printed <= len(seqs) <= printed + 1
    assert rec.truncated == bool(rec.problems)
    tracker = TaskTracker(rec.session)
    assert tracker.task("t").artifacts["a"].text().startswith("1 x")
    assert len(tracker.task("t").artifacts["a"].chunks) == len(seqs) - 2


# ----------------------------------------------------------------- against the live client


@pytest.mark.parametrize("dialect", ["0.3", "1.0", "auto"])
async def test_live_client_session_replays_identically(sdk_agent_compat: str, dialect: str, tmp_path: Path) -> None:
    """The real client against the real SDK agent, recorded and loaded back: what the
    reader derives is what the client logged, and the tracker cannot tell them apart."""
    from inspector.client import A2AClient, MemoryDialectCache
    from inspector.protocol import models as m

    path = tmp_path / "live.jsonl"
    session = Session()
    live = TaskTracker(session)
    recorder = Recorder.attach(session, path, redact=False)
    async with A2AClient(sdk_agent_compat, session=session, dialect=dialect, dialect_cache=MemoryDialectCache()) as c:
        await c.get_card()
        params = m.SendParams(message=m.Message(role="user", parts=[m.TextPart(text="replay me")], message_id="m-live"))
        async with c.stream(params) as events:
            async for _ in events:
                pass
        sent = await c.send(
            m.SendParams(message=m.Message(role="user", parts=[m.TextPart(text="again")], message_id="m-live-2"))
        )
        await c.get_task(sent.id)
    recorder.close()

    rec = load_recording(path)
    assert rec.problems == [] and not rec.truncated
    assert [wire_facts(e) for e in rec.session.events] == [wire_facts(e) for e in session.events]
    for before, after in zip(session.events, rec.session.events, strict=True):
        assert same_payload(before.payload, after.payload), (before.kind, before.payload, after.payload)
    assert projection(TaskTracker(rec.session)) == projection(live)
    assert live.violations == []
    assert len(live.tasks) == 2 and all(t.terminal for t in live.tasks.values())
    assert any(a.chunked and a.closed for t in live.tasks.values() for a in t.artifacts.values())
