"""Several sources telling of one task: a stream, a resubscribe beside it, push
notifications, a get. Each chunk is assembled once, and a status that arrives after
newer news is a late report, not the agent walking backwards. Duplicates within one
stream are flagged only when provably the same event."""

from __future__ import annotations

from typing import Any

import pytest

from inspector.protocol.methods import Method
from inspector.protocol.models import TaskState
from inspector.session import Kind
from inspector.session.tracker import AGENT_ERROR, LATE
from test_tracker import Script, artifact, chunk, send, states, status, task

S = TaskState
T1, T2, T3 = "2025-01-01T10:00:01Z", "2025-01-01T10:00:02Z", "2025-01-01T10:00:03Z"


def stamped(tid: str, state: str, when: str | None, **kw: Any) -> dict[str, Any]:
    out = status(tid, state, **kw)
    if when is not None:
        out["status"]["timestamp"] = when
    return out


def snap(tid: str, state: str, when: str | None, **kw: Any) -> dict[str, Any]:
    out = task(tid, state, **kw)
    if when is not None:
        out["status"]["timestamp"] = when
    return out


def push(s: Script, result: dict[str, Any]) -> Any:
    payload = (
        s.dialect.decode_event(result, "$")
        if result.get("kind") != "task"
        else s.dialect.decode_result(Method.GET, result, "$")
    )
    return s.session.append(Kind.PUSH, {"headers": {}, "body": "", "url": "/push"}, payload=payload)


def finished_stream(s: Script, completed_at: str | None = T3) -> int:
    ex, _ = s.stream(
        send("go"),
        snap("t", "submitted", T1),
        stamped("t", "working", T2),
        chunk("t", "a", "one "),
        chunk("t", "a", "two", append=True, last=True),
        stamped("t", "completed", completed_at, final=True),
    )
    s.end(ex)
    return ex


# ----------------------------------------------------------------- late news


@pytest.mark.parametrize("kind", ["status-update", "task"])
def test_a_push_older_than_the_final_state_is_a_late_report(kind: str) -> None:
    s = Script("0.3")
    finished_stream(s)
    body = (
        stamped("t", "working", T2)
        if kind == "status-update"
        else snap("t", "working", T2, artifacts=[artifact("a", "one ")])
    )
    event = push(s, body)
    view = s.tracker.task("t")
    assert s.tracker.violations == []
    assert view.state is S.COMPLETED and states(view) == [S.SUBMITTED, S.WORKING, S.COMPLETED]
    assert view.artifacts["a"].text() == "one two"
    (remark,) = view.remarks
    assert (remark.kind, remark.seq, remark.state) == (LATE, event.seq, S.WORKING)
    assert "timestamp is older" in remark.text


def test_a_push_of_unknown_order_that_would_break_the_rules_is_late_not_a_violation() -> None:
    s = Script("0.3")
    finished_stream(s, completed_at=None)
    push(s, stamped("t", "working", None))
    view = s.tracker.task("t")
    assert s.tracker.violations == [] and view.state is S.COMPLETED
    assert [r.kind for r in view.remarks] == [LATE] and "no timestamp" in view.remarks[0].text


def test_a_push_of_unknown_order_that_is_a_legal_move_moves_the_task() -> None:
    s = Script("0.3")
    ex, _ = s.stream(send("go"), task("t", "working"))
    push(s, stamped("t", "input-required", None, final=True))
    assert s.tracker.task("t").state is S.INPUT_REQUIRED and s.tracker.violations == []


def test_a_push_newer_than_the_final_state_is_the_agent_walking_back() -> None:
    s = Script("0.3")
    finished_stream(s, completed_at=T2)
    event = push(s, stamped("t", "working", T3))
    assert s.codes == [("transition-after-terminal", event.seq)]
    assert s.tracker.task("t").remarks == []


def test_an_answer_asked_before_the_end_arrived_may_be_older() -> None:
    s = Script("0.3")
    ex, _ = s.stream(send("go"), task("t", "working"))
    get = s.call(Method.GET, {"id": "t"})
    s.event(ex, status("t", "completed", final=True))
    s.end(ex)
    s.reply(get, task("t", "working"))
    assert s.tracker.violations == [] and s.tracker.task("t").state is S.COMPLETED
    # Asked after the end was known: the agent says it is working again. That is a finding.
    again = s.call(Method.GET, {"id": "t"})
    reply = s.reply(again, task("t", "working"))
    assert s.codes == [("transition-after-terminal", reply.seq)]


# ----------------------------------------------------------------- one chunk, two deliveries


def _open(s: Script) -> int:
    ex, _ = s.stream(send("go"), task("t", "submitted"), status("t", "working"), chunk("t", "a", "echo: "))
    return ex


@pytest.mark.parametrize("original_first", [True, False])
def test_a_resubscribe_beside_the_stream_assembles_each_chunk_once(original_first: bool) -> None:
    s = Script("0.3")
    ex = _open(s)
    again = s.call(Method.RESUBSCRIBE, {"id": "t"})
    s.open(again)
    s.event(again, task("t", "working", artifacts=[artifact("a", "echo: ")]))
    rest = [
        chunk("t", "a", "ha", append=True),
        chunk("t", "a", "ha", append=True),
        chunk("t", "a", "!", append=True, last=True),
        status("t", "completed", final=True),
    ]
    first, second = (ex, again) if original_first else (again, ex)
    for result in rest:
        s.event(first, result)
    for result in rest:
        s.event(second, result)
    s.end(first)
    s.end(second)
    view = s.tracker.task("t")
    art = view.artifacts["a"]
    assert s.tracker.violations == []
    assert art.text() == "echo: haha!" and art.closed
    assert [c.dup for c in art.chunks] == [False] + [False] * 3 + [True] * 3
    assert states(view) == [S.SUBMITTED, S.WORKING, S.COMPLETED]
    # A get afterwards agrees with what was assembled.
    get = s.call(Method.GET, {"id": "t"})
    s.reply(get, task("t", "completed", artifacts=[artifact("a", "echo: ", "ha", "ha", "!")]))
    assert s.tracker.violations == []


def test_interleaved_streams_with_a_snapshot_ahead_of_the_original() -> None:
    s = Script("0.3")
    ex = _open(s)
    again = s.call(Method.RESUBSCRIBE, {"id": "t"})
    s.open(again)
    # The agent had made "ha" before the resubscribe; the original has not delivered it yet.
    s.event(again, task("t", "working", artifacts=[artifact("a", "echo: ", "ha")]))
    s.event(ex, chunk("t", "a", "ha", append=True))
    s.event(again, chunk("t", "a", "ha", append=True))
    s.event(ex, chunk("t", "a", "ha", append=True))
    s.event(again, chunk("t", "a", "!", append=True, last=True))
    s.event(again, status("t", "completed", final=True))
    s.event(ex, chunk("t", "a", "!", append=True, last=True))
    s.event(ex, status("t", "completed", final=True))
    s.end(again)
    s.end(ex)
    assert s.tracker.task("t").artifacts["a"].text() == "echo: haha!"
    assert s.tracker.violations == []


def test_a_resubscribe_without_a_snapshot_joins_where_its_request_was_sent() -> None:
    s = Script("0.1")

    def art(text: str, append: bool | None = None, last: bool | None = None) -> dict[str, Any]:
        body: dict[str, Any] = {"index": 0, "parts": [{"type": "text", "text": text}]}
        if append is not None:
            body["append"] = append
        if last is not None:
            body["lastChunk"] = last
        return {"id": "t", "artifact": body}

    ex = s.call(
        Method.STREAM,
        {"id": "t", "sessionId": "s", "message": {"role": "user", "parts": [{"type": "text", "text": "go"}]}},
    )
    s.open(ex)
    s.event(ex, {"id": "t", "status": {"state": "working"}})
    s.event(ex, art("ha", append=False))
    s.event(ex, art("ha", append=True))
    again = s.call(Method.RESUBSCRIBE, {"id": "t"})
    s.open(again)
    s.event(ex, art("ha", append=True))  # made after the resubscribe: both get it
    s.event(again, art("ha", append=True))
    s.event(again, art("!", append=True, last=True))
    s.event(ex, art("!", append=True, last=True))
    for stream in (ex, again):
        s.event(stream, {"id": "t", "status": {"state": "completed"}, "final": True})
        s.end(stream)
    assert s.tracker.task("t").artifacts["[0]"].text() == "hahaha!"
    assert s.tracker.violations == []


@pytest.mark.parametrize("push_first", [True, False])
def test_v10_push_beside_the_stream_delivers_each_chunk_once(push_first: bool) -> None:
    s = Script("1.0")
    params = {
        "message": {"role": "ROLE_USER", "messageId": "m", "parts": [{"text": "go"}]},
        "configuration": {"pushNotificationConfig": {"url": "http://127.0.0.1:9/p"}},
    }
    ex = s.call(Method.STREAM, params)
    s.open(ex)
    s.event(ex, {"task": {"id": "t", "contextId": "c", "status": {"state": "TASK_STATE_SUBMITTED"}}})

    def upd(text: str, append: bool, last: bool) -> dict[str, Any]:
        body: dict[str, Any] = {
            "taskId": "t",
            "contextId": "c",
            "artifact": {"artifactId": "a", "parts": [{"text": text}]},
        }
        if append:
            body["append"] = True
        if last:
            body["lastChunk"] = True
        return {"artifactUpdate": body}

    updates = [
        upd("ha", False, False),
        upd("ha", True, False),
        upd("!", True, True),
        {"statusUpdate": {"taskId": "t", "contextId": "c", "status": {"state": "TASK_STATE_COMPLETED"}}},
    ]
    for u in updates:
        if push_first:
            s.session.append(
                Kind.PUSH, {"headers": {}, "body": "", "url": "/p"}, payload=s.dialect.decode_event(u, "$")
            )
        s.event(ex, u)
        if not push_first:
            s.session.append(
                Kind.PUSH, {"headers": {}, "body": "", "url": "/p"}, payload=s.dialect.decode_event(u, "$")
            )
    s.end(ex)
    assert s.tracker.task("t").artifacts["a"].text() == "haha!"
    assert s.tracker.violations == []


# ----------------------------------------------------------------- duplicates within a stream


def test_the_same_text_twice_in_a_row_is_a_token_stream_not_a_duplicate() -> None:
    s = Script("0.3")
    ex, _ = s.stream(
        send("laugh"),
        task("t", "working"),
        chunk("t", "a", "ha"),
        chunk("t", "a", "ha", append=True),
        chunk("t", "a", "\n", append=True),
        chunk("t", "a", "\n", append=True, last=True),
        status("t", "completed", final=True),
    )
    s.end(ex)
    assert s.tracker.task("t").artifacts["a"].text() == "haha\n\n"
    assert s.tracker.violations == []


@pytest.mark.parametrize("ids", [["x"] * 5, ["a", "a", "a", "a", "a"], ["1", "2", "2", "3", "4"]])
def test_event_ids_that_do_not_name_events_prove_nothing(ids: list[str]) -> None:
    s = Script("0.3")
    ex = s.call(Method.STREAM, send("laugh"))
    s.open(ex)
    s.event(ex, task("t", "working"))
    results = [
        chunk("t", "a", "ha"),
        chunk("t", "a", "ha", append=True),
        chunk("t", "a", "ha", append=True),
        chunk("t", "a", "ha", append=True),
        chunk("t", "a", "ha", append=True, last=True),
    ]
    for sse_id, result in zip(ids, results, strict=True):
        s.event(ex, result, sse_id=sse_id)
    assert s.tracker.task("t").artifacts["a"].text() == "ha" * 5
    assert s.tracker.violations == []


def test_a_resent_event_is_flagged_and_assembled_once() -> None:
    s = Script("0.3")
    ex = s.call(Method.STREAM, send("go"))
    s.open(ex)
    sent = [chunk("t", "a", "one "), chunk("t", "a", "two ", append=True), chunk("t", "a", "three", append=True)]
    s.event(ex, task("t", "working"))
    for i, result in enumerate(sent, 1):
        s.event(ex, result, sse_id=str(i))
    again = s.event(ex, sent[1], sse_id="2")
    s.event(ex, chunk("t", "a", "!", append=True, last=True), sse_id="4")
    s.event(ex, status("t", "completed", final=True), sse_id="5")
    s.end(ex)
    art = s.tracker.task("t").artifacts["a"]
    assert art.text() == "one two three!"
    assert s.codes == [("duplicate-chunk", again.seq)]
    assert [c.dup for c in art.chunks] == [False, False, False, True, False]


# ----------------------------------------------------------------- who may say "never started"


def test_append_to_an_unknown_artifact_is_not_judged_for_a_late_joiner() -> None:
    s = Script("0.3")
    # A continuation in a fresh session (turn one was elsewhere), a resubscribe without a
    # snapshot, and a push: each may join after the artifact began.
    ex = s.call(Method.STREAM, send("more", task="t"))
    s.open(ex)
    s.event(ex, status("t", "working"))
    s.event(ex, chunk("t", "a", "…rest", append=True))
    again = s.call(Method.RESUBSCRIBE, {"id": "t"})
    s.open(again)
    s.event(again, chunk("t", "b", "…more", append=True))
    push(s, chunk("t", "c", "…and more", append=True))
    assert s.tracker.violations == []


# ----------------------------------------------------------------- the agent's last word


def test_an_error_mid_stream_is_the_tasks_last_word_until_it_says_more() -> None:
    s = Script("0.3")
    ex, _ = s.stream(send("go"), task("t", "submitted"), status("t", "working"))
    err = s.event(ex, raw=f'{{"jsonrpc": "2.0", "id": {ex}, "error": {{"code": -32603, "message": "boom"}}}}')
    s.end(ex, "error")
    view = s.tracker.task("t")
    assert view.state is S.WORKING and states(view) == [S.SUBMITTED, S.WORKING]
    assert view.error is not None and view.error.error.code == -32603 and view.error.seq == err.seq
    assert view.error.state is S.WORKING and [r.kind for r in view.remarks] == [AGENT_ERROR]
    assert s.tracker.violations == []
    get = s.call(Method.GET, {"id": "t"})
    s.reply(get, task("t", "working"))
    assert view.error is None and [r.kind for r in view.remarks] == [AGENT_ERROR]


# ----------------------------------------------------------------- a new artifact


def test_an_artifact_first_seen_in_a_snapshot_is_what_restarting_an_empty_view_made() -> None:
    # The tracker makes a new view with the snapshot's parts at once; before, it made an
    # empty view and restarted it with them. Every fact of the view must be the same,
    # and so must what a later chunk and snapshot do to it.
    from inspector.session.parts import PartList
    from inspector.session.tracker import ArtifactView

    s = Script()
    parts = [
        {"kind": "text", "text": "one "},
        {"kind": "data", "data": {"n": 1}},
        {"kind": "text", "text": "two", "metadata": {"m": 1}},
    ]
    answer = task("t", "working", artifacts=[{**artifact("a"), "parts": parts, "name": "n", "description": "d"}])
    ex = s.call(Method.SEND, send("go"))
    event = s.reply(ex, answer)
    view = s.tracker.tasks["t"].artifacts["a"]
    art = event.payload.artifacts[0]
    old = ArtifactView("a", "a", None, parts=PartList(spill=view.parts.spill), first_seq=event.seq, first_t=event.t)
    old.snapshot = art
    old._restart(art.parts, ex)
    old._adopted = (event.seq, len(art.parts))
    old.name, old.description, old.metadata = art.name, art.description, art.metadata
    old.last_seq, old.last_t = event.seq, event.t

    def facts(v: ArtifactView) -> tuple[Any, ...]:
        return (
            list(v.parts),
            v.parts.text(),
            v.parts.size(),
            list(v.chunks),
            v._tail,
            v._cursor,
            v._adopted,
            v.snapshot,
            (v.name, v.description, v.metadata, v.closed, v.chunked),
            (v.first_seq, v.last_seq, v.first_t, v.last_t),
        )

    assert facts(view) == facts(old)
    s.stream(send("more", task="t"), chunk("t", "a", " three", append=True))
    assert view.parts.text() == "one two three"
    assert s.tracker.tasks["t"].violations == []
