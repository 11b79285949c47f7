"""TaskTracker: task projection, artifact assembly and violations, per dialect.

Events are built the way the live client builds them: wire JSON in each dialect's
spelling, decoded by the real codecs into payloads. So these tests also pin that the
tracker understands what each codec actually produces.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest

from captures import parse
from inspector.protocol.dialects import get_dialect
from inspector.protocol.errors import JsonRpcError, ProtocolError
from inspector.protocol.methods import Method
from inspector.protocol.models import Message, TaskState
from inspector.protocol.wire import capture, decode_response_body, decode_sse_data
from inspector.session import VIOLATION_CODES, Event, Kind, Session, TaskTracker
from shared_paths import CAPTURES

S = TaskState


class Script:
    """A session fed like the live client feeds it, with a tracker attached."""

    def __init__(self, dialect: str = "0.3") -> None:
        ticks = itertools.count(0, 0.5)
        self.session = Session(clock=lambda: next(ticks), wall_clock=lambda: 1_700_000_000.0)
        self.tracker = TaskTracker(self.session)
        self.dialect = get_dialect(dialect)
        self.methods: dict[int, Method] = {}
        self.changed: list[set[str]] = []

    def call(self, method: Method, params: dict[str, Any]) -> int:
        ex = self.session.new_exchange()
        wire = self.dialect.wire_method(method)
        body = json.dumps({"jsonrpc": "2.0", "id": ex, "method": wire, "params": params})
        payload = self.dialect.decode_request(json.loads(body)).params
        self.methods[ex] = method
        self.session.append(
            Kind.REQUEST,
            {
                "method": "POST",
                "url": "http://agent.test/",
                "headers": {"content-type": "application/json"},
                "body": body,
                "body_encoding": "utf-8",
                "dialect": self.dialect.name,
                "a2a_method": method.value,
                "rpc_method": wire,
                "rpc_id": ex,
            },
            exchange=ex,
            payload=payload,
        )
        return ex

    def reply(
        self,
        ex: int,
        result: Any = None,
        *,
        error: dict | None = None,
        raw: str | None = None,
        status: int = 200,
        reason: str = "OK",
        content_type: str = "application/json",
    ) -> Event:
        if raw is None:
            obj = {"jsonrpc": "2.0", "id": ex}
            obj.update({"error": error} if error is not None else {"result": result})
            raw = json.dumps(obj)
        payload = capture(decode_response_body, self.dialect, self.methods[ex], raw)
        return self.session.append(
            Kind.RESPONSE,
            {
                "status": status,
                "reason": reason,
                "headers": {"content-type": content_type},
                "body": raw,
                "body_encoding": "utf-8",
                "body_size": len(raw),
                "elapsed_ms": 1.0,
                "streaming": False,
                "content_type": content_type,
            },
            exchange=ex,
            payload=payload,
        )

    def fail(self, ex: int, type_: str, message: str) -> Event:
        """The ERROR event the client logs after a response it cannot use."""
        return self.session.append(Kind.ERROR, {"type": type_, "message": message}, exchange=ex)

    def open(self, ex: int) -> Event:
        return self.session.append(
            Kind.RESPONSE,
            {
                "status": 200,
                "reason": "OK",
                "headers": {"content-type": "text/event-stream"},
                "body": None,
                "body_encoding": None,
                "body_size": None,
                "elapsed_ms": 1.0,
                "streaming": True,
                "content_type": "text/event-stream",
            },
            exchange=ex,
        )

    def event(self, ex: int, result: Any = None, *, raw: str | None = None, sse_id: str | None = None) -> Event:
        if raw is None:
            raw = json.dumps({"jsonrpc": "2.0", "id": ex, "result": result})
        payload = capture(decode_sse_data, self.dialect, raw)
        event = self.session.append(
            Kind.SSE,
            {"raw": f"data: {raw}", "event": None, "data": raw, "id": sse_id, "retry": None},
            exchange=ex,
            payload=payload,
        )
        return event

    def end(self, ex: int, reason: str = "complete") -> Event:
        return self.session.append(
            Kind.STREAM_END, {"reason": reason, "events": 0, "elapsed_ms": 1.0, "terminal": None}, exchange=ex
        )

    def stream(self, params: dict[str, Any], *results: Any) -> tuple[int, list[Event]]:
        ex = self.call(Method.STREAM, params)
        self.open(ex)
        return ex, [self.event(ex, r) for r in results]

    @property
    def codes(self) -> list[tuple[str, int]]:
        return [(v.code, v.seq) for v in self.tracker.violations]


# ----------------------------------------------------------------- 0.3 wire builders


def msg(
    text: str, role: str = "agent", mid: str | None = None, task: str | None = None, ctx: str | None = None
) -> dict[str, Any]:
    out: dict[str, Any] = {
        "kind": "message",
        "role": role,
        "messageId": mid or f"m-{text}",
        "parts": [{"kind": "text", "text": text}],
    }
    if task:
        out["taskId"] = task
    if ctx:
        out["contextId"] = ctx
    return out


def send(text: str, mid: str | None = None, task: str | None = None, **config: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"message": msg(text, "user", mid or f"u-{text}", task)}
    if config:
        out["configuration"] = config
    return out


def task(
    tid: str,
    state: str,
    ctx: str = "c1",
    history: list | None = None,
    artifacts: list | None = None,
    message: dict | None = None,
) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": "task", "id": tid, "contextId": ctx, "status": {"state": state}}
    if message:
        out["status"]["message"] = message
    if history is not None:
        out["history"] = history
    if artifacts is not None:
        out["artifacts"] = artifacts
    return out


def status(
    tid: str, state: str, final: bool | None = None, ctx: str = "c1", message: dict | None = None
) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": "status-update", "taskId": tid, "contextId": ctx, "status": {"state": state}}
    if final is not None:
        out["final"] = final
    if message:
        out["status"]["message"] = message
    return out


def chunk(
    tid: str, aid: str, text: str, append: bool | None = None, last: bool | None = None, ctx: str = "c1"
) -> dict[str, Any]:
    out: dict[str, Any] = {
        "kind": "artifact-update",
        "taskId": tid,
        "contextId": ctx,
        "artifact": {"artifactId": aid, "parts": [{"kind": "text", "text": text}]},
    }
    if append is not None:
        out["append"] = append
    if last is not None:
        out["lastChunk"] = last
    return out


def artifact(aid: str, *texts: str) -> dict[str, Any]:
    return {"artifactId": aid, "parts": [{"kind": "text", "text": t} for t in texts]}


def states(view) -> list[TaskState]:
    return [c.state for c in view.timeline]


def texts(messages: list[Message]) -> list[str]:
    return ["".join(p.text for p in m.parts) for m in messages]


# ----------------------------------------------------------------- per dialect


def test_v01_index_keyed_chunks_with_flags_on_the_artifact() -> None:
    s = Script("0.1")
    params = {
        "id": "t1",
        "sessionId": "s1",
        "message": {"role": "user", "parts": [{"type": "text", "text": "write two files"}]},
    }
    ex = s.call(Method.STREAM, params)
    # 0.1: the client picks the task id, so the user's turn is on the task at once.
    view = s.tracker.task("t1")
    assert view is not None and texts(view.history) == ["write two files"]
    assert view.context_id == "s1" and view.state is None
    s.open(ex)

    def art(index: int, text: str, **flags: bool) -> dict[str, Any]:
        return {"id": "t1", "artifact": {"index": index, "parts": [{"type": "text", "text": text}], **flags}}

    s.event(ex, {"id": "t1", "status": {"state": "working"}, "final": False})
    s.event(ex, art(0, "alpha ", append=False, lastChunk=False))
    s.event(ex, art(1, "one"))
    s.event(ex, art(0, "beta ", append=True))
    s.event(ex, art(0, "gamma", append=True, lastChunk=True))
    s.event(
        ex,
        {
            "id": "t1",
            "status": {"state": "completed", "message": {"role": "agent", "parts": [{"type": "text", "text": "ok"}]}},
            "final": True,
        },
    )
    s.end(ex)

    assert s.tracker.violations == []
    assert list(view.artifacts) == ["[0]", "[1]"]
    first, second = view.artifacts["[0]"], view.artifacts["[1]"]
    assert first.text() == "alpha beta gamma" and first.closed and first.chunked
    assert [c.append for c in first.chunks] == [False, True, True]
    assert [c.last_chunk for c in first.chunks] == [False, None, True]
    assert first.index == 0 and first.artifact_id is None
    assert second.text() == "one" and not second.chunked and second.complete
    assert states(view) == [S.WORKING, S.COMPLETED] and view.terminal
    assert texts(view.history) == ["write two files", "ok"]
    assert view.status_message is not None and texts([view.status_message]) == ["ok"]
    assert s.tracker.exchange_task(ex) == "t1" and view.exchanges == [ex]


def test_v03_artifact_id_keyed_stream_from_a_real_capture() -> None:
    cap = parse(CAPTURES / "03_v03_message_stream.txt")
    s = Script("0.3")
    ex = s.call(Method.STREAM, cap.request_json()["params"])
    s.open(ex)
    for sse in cap.events():
        s.event(ex, raw=sse.data)
    s.end(ex)

    tid = "fddfc16e-4547-44b0-a295-074c971048af"
    assert list(s.tracker.tasks) == [tid]
    view = s.tracker.task(tid)
    assert s.tracker.violations == []
    assert states(view) == [S.SUBMITTED, S.WORKING, S.COMPLETED]
    # The user's message from the request and the snapshot's copy of it are one message.
    assert texts(view.history) == ["stream me please now", "echoing...", "done"]
    echo = view.artifacts["echo-fddfc16e"]
    assert echo.text() == "echo: stream me please now"
    assert echo.name == "echo" and echo.closed and len(echo.chunks) == 3
    assert echo.chunks[1].size == len("me please ")
    assert view.context_id == "2374da57-ee0b-4950-b18d-82f8924f2a88"
    # First seen when the stream named it (seq 3), not at the request.
    assert view.first_seq == 3 and view.last_seq == s.session.events[-2].seq


def test_v10_stream_without_final_from_a_real_capture() -> None:
    cap = parse(CAPTURES / "06_v10_stream.txt")
    s = Script("1.0")
    ex = s.call(Method.STREAM, cap.request_json()["params"])
    s.open(ex)
    for sse in cap.events():
        s.event(ex, raw=sse.data)
    end = s.end(ex)

    view = s.tracker.task("8d2a4519-7d2b-4dc3-8678-233a626c1475")
    assert s.tracker.violations == [], "1.0 has no final: the terminal state ends the stream"
    assert states(view) == [S.SUBMITTED, S.WORKING, S.COMPLETED]
    art = view.artifacts["echo-8d2a4519"]
    # 1.0's first chunk has neither flag; the later append=true ones make it a chunked artifact.
    assert art.text() == "echo: stream in one oh" and art.chunked and art.closed
    assert s.tracker.exchanges[ex].ended == "complete" and end.seq == len(s.session)


def test_v10_stream_that_stops_at_working_is_flagged() -> None:
    s = Script("1.0")
    ex, _ = s.stream(
        {"message": {"role": "ROLE_USER", "messageId": "m", "parts": [{"text": "hi"}]}},
        {"task": {"id": "t", "contextId": "c", "status": {"state": "TASK_STATE_WORKING"}}},
        {
            "artifactUpdate": {
                "taskId": "t",
                "contextId": "c",
                "artifact": {"artifactId": "a", "parts": [{"text": "x"}]},
                "append": False,
                "lastChunk": False,
            }
        },
    )
    end = s.end(ex, "eof")
    assert s.codes == [("stream-no-terminal", end.seq), ("artifact-not-closed", end.seq)]


def test_repeated_status_updates_of_one_state_are_counted_on_its_timeline_entry() -> None:
    # An agent streaming its answer in status messages: one "working" entry, counted.
    s = Script()
    s.stream(
        send("go", "u1"),
        task("t", "submitted"),
        *(status("t", "working", message=msg(f"tok{i} ", mid=f"a{i}")) for i in range(5)),
        status("t", "completed", final=True),
    )
    view = s.tracker.task("t")
    assert states(view) == [S.SUBMITTED, S.WORKING, S.COMPLETED]
    assert [c.updates for c in view.timeline] == [1, 5, 1]
    assert texts(view.history) == ["go", *(f"tok{i} " for i in range(5))]


# ----------------------------------------------------------------- conversations


def test_multi_turn_input_required_on_the_same_task() -> None:
    s = Script("0.3")
    ex1, _ = s.stream(
        send("book a table", "u1"),
        task("t", "submitted", history=[msg("book a table", "user", "u1", "t", "c1")]),
        status("t", "input-required", final=True, message=msg("for how many?", mid="q1")),
    )
    s.end(ex1)
    view = s.tracker.task("t")
    assert view.interrupted and view.status_message.message_id == "q1"

    # The answer names the task, so it joins the conversation before the agent replies.
    ex2 = s.call(Method.STREAM, send("four", "u2", task="t"))
    assert texts(view.history) == ["book a table", "for how many?", "four"]
    s.open(ex2)
    s.event(ex2, status("t", "working", final=False))
    s.event(ex2, status("t", "input-required", final=True, message=msg("what time?", mid="q2")))
    s.end(ex2)
    ex3 = s.call(Method.STREAM, send("eight", "u3", task="t"))
    s.open(ex3)
    s.event(ex3, status("t", "working"))
    s.event(ex3, chunk("t", "booking", "table for 4 at 8", last=True))
    s.event(ex3, status("t", "completed", final=True, message=msg("booked", mid="done")))
    s.end(ex3)

    assert s.tracker.violations == []
    assert list(s.tracker.tasks) == ["t"] and view.exchanges == [ex1, ex2, ex3]
    assert texts(view.history) == ["book a table", "for how many?", "four", "what time?", "eight", "booked"]
    assert states(view) == [S.SUBMITTED, S.INPUT_REQUIRED, S.WORKING, S.INPUT_REQUIRED, S.WORKING, S.COMPLETED]
    durations = view.durations()
    assert [d for _, d in durations[:-1]] == [c2.t - c1.t for c1, c2 in itertools.pairwise(view.timeline)]
    assert all(d > 0 for _, d in durations[:-1])
    assert durations[-1] == (S.COMPLETED, None)
    assert view.timeline[-1].duration(now=view.timeline[-1].t + 2) == 2


def test_continuation_stream_that_says_nothing_is_flagged_even_if_the_task_was_waiting() -> None:
    s = Script("0.3")
    ex1, _ = s.stream(send("q", "u1"), task("t", "input-required"))
    s.end(ex1)
    ex2 = s.call(Method.STREAM, send("a", "u2", task="t"))
    s.open(ex2)
    end = s.end(ex2)
    assert s.codes == [("stream-no-terminal", end.seq)]


def test_snapshots_do_not_duplicate_history() -> None:
    s = Script("0.3")
    ex = s.call(Method.SEND, send("hello", "u1"))
    user = msg("hello", "user", "u1", "t", "c1")
    s.reply(ex, task("t", "completed", history=[user, msg("thinking", mid="a1")], message=msg("hi there", mid="a2")))
    view = s.tracker.task("t")
    assert texts(view.history) == ["hello", "thinking", "hi there"]
    # A later get repeats everything and adds one message the tracker never saw.
    get = s.call(Method.GET, {"id": "t"})
    s.reply(
        get,
        task(
            "t",
            "completed",
            history=[user, msg("thinking", mid="a1"), msg("hi there", mid="a2"), msg("p.s.", mid="a3")],
            message=msg("hi there", mid="a2"),
        ),
    )
    assert texts(view.history) == ["hello", "thinking", "hi there", "p.s."]
    assert s.tracker.violations == []
    assert s.tracker.exchange_task(get) == "t"


def test_snapshot_messages_missing_from_the_middle_are_inserted_in_place() -> None:
    s = Script("0.3")
    ex, _ = s.stream(send("go", "u1"), status("t", "working", message=msg("late", mid="a3")))
    get = s.call(Method.GET, {"id": "t"})
    s.reply(get, task("t", "working", history=[msg("go", "user", "u1"), msg("early", mid="a1"), msg("late", mid="a3")]))
    assert texts(s.tracker.task("t").history) == ["go", "early", "late"]


def test_v01_messages_without_ids_are_matched_by_content() -> None:
    s = Script("0.1")

    def turn(text: str) -> int:
        return s.call(
            Method.SEND,
            {"id": "t", "sessionId": "s", "message": {"role": "user", "parts": [{"type": "text", "text": text}]}},
        )

    def m01(role: str, text: str) -> dict[str, Any]:
        return {"role": role, "parts": [{"type": "text", "text": text}]}

    ex = turn("yes")
    s.reply(
        ex,
        {
            "id": "t",
            "sessionId": "s",
            "status": {"state": "input-required", "message": m01("agent", "sure?")},
            "history": [m01("user", "yes"), m01("agent", "sure?")],
        },
    )
    ex = turn("yes")
    s.reply(
        ex,
        {
            "id": "t",
            "sessionId": "s",
            "status": {"state": "completed", "message": m01("agent", "done")},
            "history": [m01("user", "yes"), m01("agent", "sure?"), m01("user", "yes"), m01("agent", "done")],
        },
    )
    view = s.tracker.task("t")
    # The same words said twice are two turns; the snapshots' copies are not new ones.
    assert texts(view.history) == ["yes", "sure?", "yes", "done"]
    assert [m.role.value for m in view.history] == ["user", "agent", "user", "agent"]
    assert s.tracker.violations == []


def _v01_turn(s: Script, text: str) -> int:
    ex = s.call(
        Method.STREAM,
        {"id": "t", "sessionId": "s", "message": {"role": "user", "parts": [{"type": "text", "text": text}]}},
    )
    s.open(ex)
    return ex


def _v01_status(state: str, text: str | None = None, final: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {"id": "t", "status": {"state": state}, "final": final}
    if text is not None:
        out["status"]["message"] = {"role": "agent", "parts": [{"type": "text", "text": text}]}
    return out


def test_v01_resubscribe_to_a_waiting_task_does_not_repeat_its_question() -> None:
    s = Script("0.1")
    ex = _v01_turn(s, "book a table")
    s.event(ex, _v01_status("working"))
    s.event(ex, _v01_status("input-required", "for how many?", final=True))
    s.end(ex)
    # 0.1 answers a resubscribe with the task's current status, question included.
    again = s.call(Method.RESUBSCRIBE, {"id": "t"})
    s.open(again)
    s.event(again, _v01_status("input-required", "for how many?", final=True))
    s.end(again)
    view = s.tracker.task("t")
    assert texts(view.history) == ["book a table", "for how many?"]
    assert texts([view.status_message]) == ["for how many?"] and states(view) == [S.WORKING, S.INPUT_REQUIRED]
    assert s.tracker.violations == []
    # The question answered and asked again (no working between) is a new turn.
    ex2 = _v01_turn(s, "four")
    s.event(ex2, _v01_status("input-required", "for how many?", final=True))
    s.end(ex2)
    assert texts(view.history) == ["book a table", "for how many?", "four", "for how many?"]


def test_v01_the_same_progress_message_twice_in_one_stream_is_two_turns() -> None:
    s = Script("0.1")
    ex = _v01_turn(s, "go")
    s.event(ex, _v01_status("working", "still working"))
    s.event(ex, _v01_status("working", "still working"))
    s.event(ex, _v01_status("completed", final=True))
    s.end(ex)
    assert texts(s.tracker.task("t").history) == ["go", "still working", "still working"]


def test_direct_message_replies_belong_to_no_task() -> None:
    s = Script("0.3")
    ex = s.call(Method.SEND, send("what time is it?", "u1"))
    s.reply(ex, msg("noon", mid="r1"))
    ex2, _ = s.stream(send("and now?", "u2"), msg("one pm", mid="r2"))
    s.end(ex2)
    assert s.tracker.tasks == {}
    assert texts(s.tracker.replies) == ["noon", "one pm"]
    assert s.tracker.exchanges[ex].reply.message_id == "r1"
    assert texts([s.tracker.exchanges[ex2].request_message]) == ["and now?"]
    assert s.tracker.violations == []


def test_message_reply_naming_a_task_joins_its_history() -> None:
    s = Script("0.3")
    ex = s.call(Method.SEND, send("status?", "u1"))
    s.reply(ex, msg("still going", mid="r1", task="t", ctx="c1"))
    assert s.tracker.replies == []
    assert texts(s.tracker.task("t").history) == ["status?", "still going"]


def test_a_json_rpc_error_leaves_the_users_message_on_the_exchange() -> None:
    s = Script("0.3")
    ex = s.call(Method.SEND, send("hello", "u1"))
    s.reply(ex, error={"code": -32603, "message": "boom"})
    info = s.tracker.exchanges[ex]
    assert isinstance(info.error, JsonRpcError) and info.error.code == -32603
    assert info.pending and texts([info.request_message]) == ["hello"]
    assert s.tracker.tasks == {} and s.tracker.violations == []


def test_error_event_in_a_stream_ends_it_without_a_violation() -> None:
    cap = parse(CAPTURES / "39_v03_resubscribe_completed.txt")
    s = Script("0.3")
    ex = s.call(Method.RESUBSCRIBE, cap.request_json()["params"])
    s.open(ex)
    for sse in cap.events():
        s.event(ex, raw=sse.data)
    s.end(ex)
    assert s.tracker.violations == []
    assert s.tracker.exchanges[ex].error.code == -32004


def test_stream_closed_by_the_user_is_not_the_agents_fault() -> None:
    s = Script("0.3")
    ex, _ = s.stream(send("go"), task("t", "working"))
    s.end(ex, "closed")
    assert s.tracker.violations == []


def test_snapshot_fills_artifacts_never_streamed() -> None:
    s = Script("0.3")
    ex = s.call(Method.SEND, send("go"))
    s.reply(ex, task("t", "completed", artifacts=[artifact("a", "hello ", "world"), artifact("b", "x")]))
    view = s.tracker.task("t")
    assert list(view.artifacts) == ["a", "b"]
    assert view.artifacts["a"].text() == "hello world" and view.artifacts["a"].chunks == []
    assert view.artifacts["a"].complete and view.artifacts["a"].snapshot is not None
    assert view.snapshot is not None and view.snapshot.id == "t"


def test_snapshot_agreeing_with_chunks_in_other_part_boundaries_is_fine() -> None:
    s = Script("0.3")
    ex, _ = s.stream(
        send("go"),
        task("t", "working"),
        chunk("t", "a", "ab", append=False, last=False),
        chunk("t", "a", "c", append=True, last=True),
        status("t", "completed", final=True),
    )
    s.end(ex)
    get = s.call(Method.GET, {"id": "t"})
    s.reply(get, task("t", "completed", artifacts=[artifact("a", "abc")]))
    assert s.tracker.violations == []
    # What streamed stays what is shown; the snapshot is kept beside it.
    view = s.tracker.task("t").artifacts["a"]
    assert [p.text for p in view.parts] == ["ab", "c"] and [p.text for p in view.snapshot.parts] == ["abc"]


def test_snapshot_that_extends_the_chunks_is_adopted_after_a_dropped_stream() -> None:
    # The stream broke off mid-artifact; the task went on and get returns all of it.
    s = Script("0.3")
    ex, _ = s.stream(send("go"), task("t", "working"), chunk("t", "a", "half of the answer", append=False, last=False))
    s.end(ex, "closed")
    get = s.call(Method.GET, {"id": "t"})
    s.reply(get, task("t", "completed", artifacts=[artifact("a", "half of the answer", " and the other half")]))
    view = s.tracker.task("t").artifacts["a"]
    assert s.tracker.violations == []
    assert view.text() == "half of the answer and the other half"
    assert view.size == len("half of the answer and the other half")
    assert [[p.text for p in c.parts] for c in view.chunks] == [["half of the answer"]]
    # No lastChunk arrived, but a completed task's snapshot is final: nothing more to come.
    assert view.closed and view.complete


def test_snapshot_extending_chunks_across_part_boundaries_is_adopted() -> None:
    # Compared like any snapshot: adjacent text joined, so "ab"+"c" is a prefix of "abcde".
    s = Script("0.3")
    ex, _ = s.stream(
        send("go"),
        task("t", "working"),
        chunk("t", "a", "ab", append=False, last=False),
        chunk("t", "a", "c", append=True, last=False),
    )
    s.end(ex, "closed")
    get = s.call(Method.GET, {"id": "t"})
    s.reply(
        get,
        task(
            "t",
            "completed",
            artifacts=[
                {"artifactId": "a", "parts": [{"kind": "text", "text": "abcde"}, {"kind": "data", "data": {"n": 1}}]}
            ],
        ),
    )
    view = s.tracker.task("t").artifacts["a"]
    assert s.tracker.violations == []
    assert view.text() == "abcde" and len(view.parts) == 2 and view.parts[1].data == {"n": 1}
    assert len(view.chunks) == 2


def test_resubscribe_snapshot_ahead_of_the_chunks_then_live_chunks_append_to_it() -> None:
    # The client hung up after "echo: ", missed "slow ", and resubscribed: the snapshot
    # carries what was missed, and the live chunks go on from there.
    s = Script("0.3")
    ex, _ = s.stream(send("slow hello"), task("t", "working"), chunk("t", "echo", "echo: ", append=False, last=False))
    s.end(ex, "closed")
    again = s.call(Method.RESUBSCRIBE, {"id": "t"})
    s.open(again)
    s.event(again, task("t", "working", artifacts=[artifact("echo", "echo: ", "slow ")]))
    view = s.tracker.task("t").artifacts["echo"]
    assert view.text() == "echo: slow "
    s.event(again, chunk("t", "echo", "hello", append=True, last=True))
    s.event(again, status("t", "completed", final=True))
    s.end(again)
    assert view.text() == "echo: slow hello" and view.closed
    assert s.tracker.violations == []


def test_get_during_a_live_stream_leaves_the_artifact_to_the_stream() -> None:
    # The get saw chunks the open stream has not delivered yet; the stream still will.
    s = Script("0.3")
    ex, _ = s.stream(send("go"), task("t", "working"), chunk("t", "a", "ab", append=False, last=False))
    get = s.call(Method.GET, {"id": "t"})
    s.reply(get, task("t", "working", artifacts=[artifact("a", "abcd")]))
    s.event(ex, chunk("t", "a", "cd", append=True, last=True))
    s.event(ex, status("t", "completed", final=True))
    s.end(ex)
    assert s.tracker.task("t").artifacts["a"].text() == "abcd"
    assert s.tracker.violations == []


@pytest.mark.parametrize(
    ("streamed", "snapshot"),
    [
        (["abc"], ["abXdef"]),  # longer, but says something else
        (["abc", "def"], ["abc"]),  # shorter than what streamed
    ],
)
def test_snapshot_that_contradicts_the_chunks_is_flagged_and_not_adopted(
    streamed: list[str], snapshot: list[str]
) -> None:
    s = Script("0.3")
    chunks = [chunk("t", "a", text, append=i > 0, last=i == len(streamed) - 1) for i, text in enumerate(streamed)]
    ex, _ = s.stream(send("go"), task("t", "working"), *chunks, status("t", "completed", final=True))
    s.end(ex)
    get = s.call(Method.GET, {"id": "t"})
    reply = s.reply(get, task("t", "completed", artifacts=[artifact("a", *snapshot)]))
    assert s.codes == [("snapshot-mismatch", reply.seq)]
    assert s.tracker.task("t").artifacts["a"].text() == "".join(streamed)


def test_artifact_restart_replaces_parts_but_keeps_every_chunk() -> None:
    s = Script("0.3")
    ex, _ = s.stream(
        send("go"),
        task("t", "working"),
        chunk("t", "a", "draft", last=True),
        chunk("t", "a", "final ", append=False, last=False),
        chunk("t", "a", "text", append=True, last=True),
        status("t", "completed", final=True),
    )
    s.end(ex)
    view = s.tracker.task("t").artifacts["a"]
    assert view.text() == "final text" and len(view.chunks) == 3 and view.closed
    assert s.tracker.violations == []


def test_artifact_size_follows_growth_and_restarts_when_read_between_chunks() -> None:
    # size is kept incrementally; reading it mid-stream must not freeze a stale sum.
    s = Script("0.3")
    ex, _ = s.stream(send("go"), task("t", "working"), chunk("t", "a", "draft!", last=True))
    view = s.tracker.task("t").artifacts["a"]
    assert view.size == len("draft!")
    s.event(ex, chunk("t", "a", "ab", append=False, last=False))
    assert view.size == 2
    s.event(ex, chunk("t", "a", "cde", append=True, last=False))
    assert view.size == 5
    s.event(ex, chunk("t", "a", "é\n", append=True, last=True))
    assert view.size == 7 and view.text() == "abcdeé\n"


def test_single_shot_artifact_without_last_chunk_is_not_unclosed() -> None:
    s = Script("0.3")
    ex, _ = s.stream(send("go"), task("t", "working"), chunk("t", "a", "whole"), status("t", "completed", final=True))
    s.end(ex)
    assert s.tracker.violations == []
    assert s.tracker.task("t").artifacts["a"].complete


def _cut_short(s: Script, end_state: TaskState) -> int:
    """A stream in ``s``'s dialect: two chunks of one artifact, no lastChunk=true, then
    ``end_state``. Returns the STREAM_END's seq."""
    name = s.dialect.name
    if name == "0.1":

        def part(text: str, **flags: bool) -> dict[str, Any]:
            return {"id": "t", "artifact": {"index": 0, "parts": [{"type": "text", "text": text}], **flags}}

        params = {"id": "t", "sessionId": "c1", "message": {"role": "user", "parts": [{"type": "text", "text": "go"}]}}
        events = [
            {"id": "t", "status": {"state": "working"}, "final": False},
            part("alpha ", append=False, lastChunk=False),
            part("beta", append=True, lastChunk=False),
            {"id": "t", "status": {"state": end_state.value}, "final": True},
        ]
    elif name == "1.0":

        def part(text: str, **flags: bool) -> dict[str, Any]:
            return {
                "artifactUpdate": {
                    "taskId": "t",
                    "contextId": "c1",
                    **flags,
                    "artifact": {"artifactId": "a", "parts": [{"text": text}]},
                }
            }

        params = {"message": {"role": "ROLE_USER", "messageId": "m", "parts": [{"text": "go"}]}}
        state = "TASK_STATE_" + end_state.name
        events = [
            {"task": {"id": "t", "contextId": "c1", "status": {"state": "TASK_STATE_WORKING"}}},
            part("alpha "),
            part("beta", append=True),
            {"statusUpdate": {"taskId": "t", "contextId": "c1", "status": {"state": state}}},
        ]
    else:
        params = send("go")
        events = [
            task("t", "working"),
            chunk("t", "a", "alpha ", append=False, last=False),
            chunk("t", "a", "beta", append=True, last=False),
            status("t", end_state.value, final=True),
        ]
    ex, _ = s.stream(params, *events)
    assert s.tracker.task("t").state is end_state
    return s.end(ex).seq


@pytest.mark.parametrize("dialect", ["0.1", "0.3", "1.0"])
def test_canceled_task_may_leave_its_artifact_unclosed(dialect: str) -> None:
    s = Script(dialect)
    _cut_short(s, S.CANCELED)
    assert s.tracker.violations == []
    view = next(iter(s.tracker.task("t").artifacts.values()))
    assert view.text() == "alpha beta" and view.chunked and not view.closed


@pytest.mark.parametrize("dialect", ["0.1", "0.3", "1.0"])
@pytest.mark.parametrize("end_state", [S.FAILED, S.COMPLETED])
def test_a_task_that_ends_otherwise_with_an_unclosed_artifact_is_flagged(dialect: str, end_state: TaskState) -> None:
    s = Script(dialect)
    end = _cut_short(s, end_state)
    assert s.codes == [("artifact-not-closed", end)]


def test_rejected_task_with_an_unclosed_artifact_is_flagged() -> None:
    # 0.3's rejected: the agent refused the task mid-artifact, which is still flagged.
    s = Script("0.3")
    ex, _ = s.stream(
        send("go"),
        task("t", "working"),
        chunk("t", "a", "x", append=False, last=False),
        status("t", "rejected", final=True),
    )
    end = s.end(ex)
    assert s.codes == [("artifact-not-closed", end.seq)]


def test_an_artifact_left_open_across_an_input_required_turn_is_judged_when_the_task_ends() -> None:
    # The agent pauses mid-artifact to ask; the next turn may carry on with it.
    s = Script("0.3")
    ex, _ = s.stream(
        send("go"),
        task("t", "working"),
        chunk("t", "a", "part one ", append=False, last=False),
        status("t", "input-required", final=True),
    )
    s.end(ex)
    assert s.codes == []
    ex, _ = s.stream(
        send("more", task="t"),
        chunk("t", "a", "part two", append=True, last=True),
        status("t", "completed", final=True),
    )
    s.end(ex)
    assert s.codes == [] and s.tracker.task("t").artifacts["a"].text() == "part one part two"
    # Left open to the end: flagged when the task's last stream ends.
    s = Script("0.3")
    ex, _ = s.stream(
        send("go"),
        task("t", "working"),
        chunk("t", "a", "x", append=False, last=False),
        status("t", "input-required", final=True),
    )
    s.end(ex)
    ex, _ = s.stream(send("more", task="t"), status("t", "completed", final=True))
    end = s.end(ex)
    assert s.codes == [("artifact-not-closed", end.seq)]


def test_apply_reports_changed_tasks() -> None:
    s = Script("0.3")
    ex = s.call(Method.STREAM, send("go"))
    resp = s.open(ex)
    tracker = TaskTracker()
    changed = [tracker.apply(e) for e in s.session.events]
    assert changed == [set(), set()] and resp.seq == 2
    e1 = s.event(ex, task("t1", "working"))
    e2 = s.event(ex, msg("aside", mid="x"))
    assert tracker.apply(e1) == {"t1"}
    assert tracker.apply(e2) == set()


def test_tracker_given_a_session_replays_what_it_already_holds() -> None:
    s = Script("0.3")
    ex, _ = s.stream(send("go"), task("t", "working"), status("t", "completed", final=True))
    late = TaskTracker(s.session)
    assert late.task("t").state is S.COMPLETED
    s.end(ex)
    assert late.exchanges[ex].ended == "complete"


def test_list_result_snapshots_every_task() -> None:
    s = Script("1.0")
    ex = s.call(Method.LIST, {})
    s.reply(
        ex,
        {
            "tasks": [
                {"id": "a", "contextId": "c", "status": {"state": "TASK_STATE_COMPLETED"}},
                {"id": "b", "contextId": "c", "status": {"state": "TASK_STATE_WORKING"}},
            ]
        },
    )
    assert {k: v.state for k, v in s.tracker.tasks.items()} == {"a": S.COMPLETED, "b": S.WORKING}


def test_push_notification_updates_its_task() -> None:
    s = Script("0.3")
    ex, _ = s.stream(send("go"), task("t", "working"))
    s.end(ex, "closed")
    push = s.session.append(
        Kind.PUSH,
        {"headers": {}, "body": "", "url": "/push"},
        payload=s.dialect.decode_event(status("t", "completed", final=True), "$"),
    )
    assert s.tracker.task("t").state is S.COMPLETED
    assert s.tracker.task("t").timeline[-1].seq == push.seq


# ----------------------------------------------------------------- violations


def _transition_after_terminal(s: Script) -> int:
    _, evs = s.stream(send("go"), task("t", "completed"), status("t", "working"))
    return evs[-1].seq


def _illegal_transition(s: Script) -> int:
    _, evs = s.stream(send("go"), task("t", "working"), status("t", "submitted"))
    return evs[-1].seq


def _artifact_after_terminal(s: Script) -> int:
    s.dialect = get_dialect("1.0")
    ex, evs = s.stream(
        {"message": {"role": "ROLE_USER", "messageId": "m", "parts": [{"text": "go"}]}},
        {"statusUpdate": {"taskId": "t", "contextId": "c", "status": {"state": "TASK_STATE_COMPLETED"}}},
        {
            "artifactUpdate": {
                "taskId": "t",
                "contextId": "c",
                "artifact": {"artifactId": "a", "parts": [{"text": "late"}]},
            }
        },
    )
    return evs[-1].seq


def _chunk_after_close(s: Script) -> int:
    _, evs = s.stream(
        send("go"), task("t", "working"), chunk("t", "a", "x", last=True), chunk("t", "a", "y", append=True)
    )
    return evs[-1].seq


def _append_unknown_artifact(s: Script) -> int:
    _, evs = s.stream(send("go"), task("t", "working"), chunk("t", "a", "y", append=True))
    return evs[-1].seq


def _stream_no_terminal(s: Script) -> int:
    ex, _ = s.stream(send("go"), task("t", "working"))
    return s.end(ex, "eof").seq


def _artifact_not_closed(s: Script) -> int:
    ex, _ = s.stream(
        send("go"),
        task("t", "working"),
        chunk("t", "a", "x", append=False, last=False),
        status("t", "completed", final=True),
    )
    return s.end(ex).seq


def _final_not_terminal(s: Script) -> int:
    _, evs = s.stream(send("go"), task("t", "submitted"), status("t", "working", final=True))
    return evs[-1].seq


def _terminal_not_final(s: Script) -> int:
    _, evs = s.stream(send("go"), task("t", "working"), status("t", "completed", final=False))
    return evs[-1].seq


def _event_after_final(s: Script) -> int:
    _, evs = s.stream(
        send("go"), task("t", "working"), status("t", "input-required", final=True), status("t", "working")
    )
    return evs[-1].seq


def _event_after_terminal(s: Script) -> int:
    s.dialect = get_dialect("1.0")
    upd = {"statusUpdate": {"taskId": "t", "contextId": "c", "status": {"state": "TASK_STATE_COMPLETED"}}}
    _, evs = s.stream({"message": {"role": "ROLE_USER", "messageId": "m", "parts": [{"text": "go"}]}}, upd, upd)
    return evs[-1].seq


def _event_after_message(s: Script) -> int:
    _, evs = s.stream(send("go"), msg("done already", mid="r"), status("t", "working"))
    return evs[-1].seq


def _task_mismatch(s: Script) -> int:
    ex = s.call(Method.RESUBSCRIBE, {"id": "t"})
    s.open(ex)
    return s.event(ex, status("other", "working")).seq


def _context_mismatch(s: Script) -> int:
    _, evs = s.stream(send("go"), task("t", "working", ctx="c1"), status("t", "completed", True, ctx="c2"))
    return evs[-1].seq


def _decode_error(s: Script) -> int:
    ex, _ = s.stream(send("go"), task("t", "working"))
    return s.event(ex, raw='{"jsonrpc": "2.0", "id": 1, "result": {"kind": "status-update"').seq


def _snapshot_mismatch(s: Script) -> int:
    ex, _ = s.stream(
        send("go"), task("t", "working"), chunk("t", "a", "abc", last=True), status("t", "completed", final=True)
    )
    s.end(ex)
    get = s.call(Method.GET, {"id": "t"})
    return s.reply(get, task("t", "completed", artifacts=[artifact("a", "abX")])).seq


def _message_id_reused(s: Script) -> int:
    _, evs = s.stream(
        send("go"),
        task("t", "working"),
        status("t", "working", message=msg("one", mid="m1")),
        status("t", "working", message=msg("two", mid="m1")),
    )
    return evs[-1].seq


def _blocking_not_final(s: Script) -> int:
    ex = s.call(Method.SEND, send("go", blocking=True))
    return s.reply(ex, task("t", "working")).seq


def _id_mismatch(s: Script) -> int:
    # The client's NOTE for a response whose id is not the request's (see A2AClient).
    ex = s.call(Method.SEND, send("go"))
    s.reply(ex, task("t", "completed"))
    note = s.session.append(
        Kind.NOTE,
        {
            "text": "JSON-RPC id mismatch: the response carries id 7, but the request's id is 1",
            "code": "id-mismatch",
            "expected": 1,
            "got": 7,
        },
        exchange=ex,
    )
    return note.seq


def _duplicate_chunk(s: Script) -> int:
    # Event ids one per event, then event 3 again, word for word.
    ex = s.call(Method.STREAM, send("go"))
    s.open(ex)
    sent = [
        task("t", "working"),
        chunk("t", "a", "ha"),
        chunk("t", "a", "ha", append=True),
        chunk("t", "a", "!", append=True),
    ]
    for i, result in enumerate(sent, 1):
        s.event(ex, result, sse_id=str(i))
    return s.event(ex, sent[2], sse_id="3").seq


def hub_frame(s: Script, direction: str, agent: str, doc: dict[str, Any], exchange: int = 0, **extra: Any) -> Event:
    """A frame at the hub (a ``ws`` event) as the hub logs it."""
    from inspector.session.payloads import ws_payload

    text = json.dumps(doc)
    data = {
        "conn": 1 if agent == "a" else 2,
        "dir": direction,
        "op": "text",
        "agent": agent,
        "text": text,
        "size": len(text),
        **extra,
    }
    return s.session.append(Kind.WS, data, exchange=exchange, payload=ws_payload(data))


def hub_task_sent_to_a(s: Script) -> int:
    """The hub's tasks/send of task "t" to agent a; returns its exchange."""
    ex = s.session.new_exchange()
    hub_frame(
        s,
        "out",
        "a",
        {
            "jsonrpc": "2.0",
            "id": "hub-1",
            "method": "tasks/send",
            "params": {
                "id": "t",
                "sessionId": "c",
                "message": {"role": "user", "parts": [{"type": "text", "text": "go"}]},
            },
        },
        ex,
    )
    return ex


def _foreign_task_frame(s: Script) -> int:
    # Agent b's artifact about the task the hub sent agent a: the hub marked it refused.
    hub_task_sent_to_a(s)
    return hub_frame(
        s,
        "in",
        "b",
        {
            "jsonrpc": "2.0",
            "method": "task.artifact",
            "params": {"id": "t", "artifact": {"parts": [{"type": "text", "text": "forged"}]}},
        },
        refused="ws-agent b sent task.artifact about task t, which the hub sent to a: refused, not applied",
    ).seq


def client_request(
    s: Script, body: Any, *, headers: dict[str, str] | None = None, verb: str = "POST", path: str = "/"
) -> list[int]:
    """A request as the proxy sees one from a client: judged by the proxy's own checks,
    each finding logged as the NOTE the proxy logs. Returns the notes' seqs."""
    from inspector.proxy.checks import check_request
    from inspector.proxy.detect import classify
    from inspector.session import payloads

    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    lower = {k.lower(): v for k, v in (headers or {}).items()}
    parsed = classify(verb, path, lower, raw)
    ex = s.session.new_exchange()
    text = raw.decode("utf-8", "replace")
    data = {
        "method": verb,
        "url": f"http://agent.test{path}",
        "headers": headers or {},
        "body": text,
        "body_encoding": "utf-8",
        **parsed.info,
        "client": "127.0.0.1:1",
        "user_agent": "test",
    }
    params = payloads.request_payload(data) if parsed.info.get("dialect") else None
    s.session.append(Kind.REQUEST, data, exchange=ex, payload=params)
    seqs = []
    for code, message, task_id in check_request(parsed, lower, params, s.tracker):
        extra = {"task_id": task_id} if task_id else {}
        seqs.append(
            s.session.append(Kind.NOTE, {"text": message, "code": code, "side": "client", **extra}, exchange=ex).seq
        )
    return seqs


def _v10_send(text: str, parts: list[Any] | None = None, **message: Any) -> dict[str, Any]:
    msg = {
        "messageId": f"u-{text}",
        "role": "ROLE_USER",
        "parts": [{"text": text}] if parts is None else parts,
        **message,
    }
    return {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": msg}}


def _client_bad_envelope(s: Script) -> int:
    (seq,) = client_request(
        s, {"jsonrpc": "2.0", "id": {"no": "objects"}, "method": "message/send", "params": send("go")}
    )
    return seq


def _client_no_version(s: Script) -> int:
    (seq,) = client_request(s, _v10_send("go"))
    return seq


def _client_empty_parts(s: Script) -> int:
    (seq,) = client_request(s, _v10_send("go", parts=[]), headers={"A2A-Version": "1.0"})
    return seq


def _client_continuation_without_task(s: Script) -> int:
    ex = s.call(Method.SEND, send("ask"))
    s.reply(ex, task("t", "input-required", ctx="c1"))
    (seq,) = client_request(s, _v10_send("Paris", contextId="c1"), headers={"A2A-Version": "1.0"})
    return seq


VIOLATIONS = {
    "client-bad-envelope": _client_bad_envelope,
    "client-no-version": _client_no_version,
    "client-empty-parts": _client_empty_parts,
    "client-continuation-without-task": _client_continuation_without_task,
    "duplicate-chunk": _duplicate_chunk,
    "id-mismatch": _id_mismatch,
    "transition-after-terminal": _transition_after_terminal,
    "illegal-transition": _illegal_transition,
    "artifact-after-terminal": _artifact_after_terminal,
    "chunk-after-close": _chunk_after_close,
    "append-unknown-artifact": _append_unknown_artifact,
    "stream-no-terminal": _stream_no_terminal,
    "artifact-not-closed": _artifact_not_closed,
    "final-not-terminal": _final_not_terminal,
    "terminal-not-final": _terminal_not_final,
    "event-after-final": _event_after_final,
    "event-after-terminal": _event_after_terminal,
    "event-after-message": _event_after_message,
    "task-mismatch": _task_mismatch,
    "context-mismatch": _context_mismatch,
    "decode-error": _decode_error,
    "snapshot-mismatch": _snapshot_mismatch,
    "message-id-reused": _message_id_reused,
    "blocking-not-final": _blocking_not_final,
    "foreign-task-frame": _foreign_task_frame,
}


def test_every_violation_code_has_a_failing_sequence() -> None:
    assert set(VIOLATIONS) == set(VIOLATION_CODES)


@pytest.mark.parametrize("code", sorted(VIOLATIONS))
def test_violation(code: str) -> None:
    s = Script("0.3")
    seq = VIOLATIONS[code](s)
    found = [v for v in s.tracker.violations if v.code == code]
    assert [(v.code, v.seq) for v in found] == [(code, seq)], s.codes
    violation = found[0]
    assert violation.severity == VIOLATION_CODES[code][0]
    assert violation.message
    if violation.task_id is not None and violation.task_id in s.tracker.tasks:
        assert violation in s.tracker.task(violation.task_id).violations


def test_decode_error_is_attached_to_the_exchanges_task() -> None:
    s = Script("0.3")
    _decode_error(s)
    (v,) = s.tracker.violations
    assert v.task_id == "t" and s.tracker.task("t").violations == [v]
    assert "$" in v.message or "JSON" in v.message


def test_decode_error_of_a_get_names_the_requested_task() -> None:
    s = Script("0.3")
    ex = s.call(Method.GET, {"id": "t9"})
    s.reply(ex, raw="<html>502 Bad Gateway</html>")
    (v,) = s.tracker.violations
    assert (v.code, v.task_id) == ("decode-error", "t9") and "HTML" in v.message


@pytest.mark.parametrize("method", [Method.SEND, Method.STREAM, Method.GET])
def test_plain_text_http_error_is_an_http_failure_not_a_decode_error(method: Method) -> None:
    s = Script("0.3")
    ex = s.call(method, {"id": "t9"} if method is Method.GET else send("go"))
    # What the live client logs: the response, then its verdict on it.
    s.reply(ex, raw="Internal Server Error", status=500, reason="Internal Server Error", content_type="text/plain")
    s.fail(ex, "http", "HTTP 500 Internal Server Error (text/plain, 21 bytes)")
    info = s.tracker.exchanges[ex]
    assert s.tracker.violations == []
    assert info.http_status == 500 and info.failure.startswith("HTTP 500") and info.error is None


def test_http_error_status_with_a_json_rpc_error_keeps_the_error() -> None:
    s = Script("0.3")
    ex = s.call(Method.SEND, send("go"))
    s.reply(ex, error={"code": -32603, "message": "the model fell over"}, status=500, reason="Internal Server Error")
    info = s.tracker.exchanges[ex]
    assert info.error is not None and info.error.code == -32603 and s.tracker.violations == []


def test_repeated_problems_in_one_stream_are_reported_once() -> None:
    s = Script("0.3")
    ex, _ = s.stream(send("go"), task("t", "working", ctx="c1"), *[status("t", "working", ctx="c2") for _ in range(50)])
    assert [v.code for v in s.tracker.violations] == ["context-mismatch"]


def test_a_clean_stream_flags_nothing_and_illegal_events_are_still_applied() -> None:
    s = Script("0.3")
    _chunk_after_close(s)
    # Whatever the agent sent is shown, legal or not.
    assert s.tracker.task("t").artifacts["a"].text() == "xy"


def test_payload_that_is_a_protocol_error_instance_outside_exchanges() -> None:
    s = Script("0.3")
    s.session.append(Kind.PUSH, {"headers": {}, "body": "{", "url": "/push"}, payload=ProtocolError("invalid JSON"))
    (v,) = s.tracker.violations
    assert v.code == "decode-error" and v.task_id is None and "push" in v.message


def test_transport_failures_are_kept_on_their_exchange() -> None:
    s = Script("0.3")
    ex = s.call(Method.SEND, send("go"))
    s.session.append(Kind.ERROR, {"type": "connect", "message": "connection refused"}, exchange=ex)
    assert s.tracker.exchanges[ex].failure == "connection refused"
    assert s.tracker.violations == []


def test_a_task_polled_over_many_exchanges_lists_each_once_without_scanning_the_list() -> None:
    """GetTask in a loop (or a proxy's thousands of unary calls about one task) linked
    each exchange to the task after a scan of every exchange before it: quadratic. The
    list is still each exchange once, in order; no lookup goes through it."""

    class Watched(list):  # type: ignore[type-arg]  # a list that counts scans of itself
        scans = 0

        def __contains__(self, item: object) -> bool:
            Watched.scans += 1
            return super().__contains__(item)

    s = Script()
    first = s.call(Method.GET, {"id": "t"})
    s.reply(first, task("t", "working"))
    view = s.tracker.task("t")
    view.exchanges = Watched(view.exchanges)
    polls = [s.call(Method.GET, {"id": "t"}) for _ in range(50)]
    for ex in polls:
        s.reply(ex, task("t", "working"))
        s.reply(ex, task("t", "working"))  # (a second answer on one exchange: still listed once)
    assert view.exchanges == [first, *polls]
    assert Watched.scans == 0
