"""A violation is a claim that someone else's agent broke the spec. Every code has a
sequence that raises it (test_tracker.VIOLATIONS) and, here, a well-behaved sequence
that comes close to its rule without breaking it; and whole sessions with well-behaved
peers (the a2a-sdk agent in both modes, every built-in mock scenario in each dialect it
serves) must raise nothing at all, except the findings a fault scenario declares."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from typing import Any

import pytest

import test_tracker as tt
from captures import parse
from inspector.client import A2AClient, TransportError
from inspector.client.client import id_problem
from inspector.client.push_receiver import PushReceiver
from inspector.protocol import models as m
from inspector.protocol.errors import JsonRpcError, ProtocolError
from inspector.protocol.methods import Method
from inspector.session import VIOLATION_CODES, Kind, Session, TaskTracker
from mock_agent import MockAgent
from mock_agent.loader import builtins, load_builtin
from mock_agent.profiles import PROFILES
from peers.sdk_agent import release, wait_parked
from shared_paths import CAPTURES
from test_client_calls import MemoryDialectCache
from test_tracker_sources import push, snap, stamped

S = m.TaskState
CALL_ERRORS = (JsonRpcError, ProtocolError, TransportError)


# ------------------------------------------------------------------ near misses, per code


def _late_push(s: tt.Script) -> None:
    ex, _ = s.stream(
        tt.send("go"),
        snap("t", "working", "2025-01-01T10:00:01Z"),
        stamped("t", "completed", "2025-01-01T10:00:03Z", final=True),
    )
    s.end(ex)
    push(s, stamped("t", "working", "2025-01-01T10:00:02Z"))


def _legal_loops(s: tt.Script) -> None:
    ex, _ = s.stream(tt.send("go"), tt.task("t", "submitted"), tt.status("t", "completed", final=True))
    s.end(ex)
    ex, _ = s.stream(tt.send("ask"), tt.task("u", "working"), tt.status("u", "input-required", final=True))
    s.end(ex)
    ex, _ = s.stream(tt.send("yes", task="u"), tt.status("u", "working"), tt.status("u", "completed", final=True))
    s.end(ex)


def _resubscribe_beside(s: tt.Script) -> None:
    ex, _ = s.stream(tt.send("go"), tt.task("t", "working"), tt.chunk("t", "a", "ha"))
    again = s.call(Method.RESUBSCRIBE, {"id": "t"})
    s.open(again)
    rest = [
        tt.task("t", "working", artifacts=[tt.artifact("a", "ha")]),
        tt.chunk("t", "a", "ha", append=True),
        tt.chunk("t", "a", "!", append=True, last=True),
        tt.status("t", "completed", final=True),
    ]
    for result in rest:
        s.event(again, result)
    for result in rest[1:]:
        s.event(ex, result)
    s.end(again)
    s.end(ex)
    get = s.call(Method.GET, {"id": "t"})
    s.reply(get, tt.task("t", "completed", artifacts=[tt.artifact("a", "ha", "ha", "!")]))


def _joins_late(s: tt.Script) -> None:
    again = s.call(Method.RESUBSCRIBE, {"id": "t"})
    s.open(again)
    s.event(again, tt.status("t", "working"))
    s.event(again, tt.chunk("t", "a", "…rest", append=True, last=True))
    s.event(again, tt.status("t", "completed", final=True))
    s.end(again)


def _ends_where_it_may(s: tt.Script) -> None:
    ex, _ = s.stream(tt.send("go"), tt.task("t", "working"), tt.chunk("t", "a", "x", last=False))
    s.end(ex, "closed")  # the user closed it
    ex, _ = s.stream(
        tt.send("ask"),
        tt.task("u", "working"),
        tt.chunk("u", "b", "x", last=False),
        tt.status("u", "input-required", final=True),
    )
    s.end(ex)
    ex, _ = s.stream(
        tt.send("stop"),
        tt.task("v", "working"),
        tt.chunk("v", "c", "x", last=False),
        tt.status("v", "canceled", final=True),
    )
    s.end(ex)
    ex, _ = s.stream(
        tt.send("once"), tt.task("w", "working"), tt.chunk("w", "d", "whole"), tt.status("w", "completed", final=True)
    )
    s.end(ex)


def _v10_ends_by_state(s: tt.Script) -> None:
    s.dialect = tt.get_dialect("1.0")
    ex, _ = s.stream(
        {"message": {"role": "ROLE_USER", "messageId": "m", "parts": [{"text": "go"}]}},
        {"task": {"id": "t", "contextId": "c", "status": {"state": "TASK_STATE_WORKING"}}},
        {"statusUpdate": {"taskId": "t", "contextId": "c", "status": {"state": "TASK_STATE_COMPLETED"}}},
    )
    s.end(ex)


def _resubscribe_to_a_waiting_task(s: tt.Script) -> None:
    # A new stream after the first one's final=true is not an event after final.
    ex, _ = s.stream(tt.send("go"), tt.task("t", "working"), tt.status("t", "input-required", final=True))
    s.end(ex)
    again = s.call(Method.RESUBSCRIBE, {"id": "t"})
    s.open(again)
    s.event(again, tt.status("t", "input-required", final=True))
    s.end(again)


def _repeat_by_get(s: tt.Script) -> None:
    ex, _ = s.stream(tt.send("go"), tt.task("t", "working"), tt.status("t", "completed", final=True))
    s.end(ex)
    get = s.call(Method.GET, {"id": "t"})
    s.reply(get, tt.task("t", "completed"))


def _message_reply(s: tt.Script) -> None:
    ex, _ = s.stream(tt.send("hi"), tt.msg("hello", mid="r1"))
    s.end(ex)


def _two_tasks_same_context(s: tt.Script) -> None:
    ex, _ = s.stream(tt.send("one"), tt.task("t", "working", ctx="c1"), tt.status("t", "completed", True, ctx="c1"))
    s.end(ex)
    ex, _ = s.stream(tt.send("two"), tt.task("u", "working", ctx="c1"), tt.status("u", "completed", True, ctx="c1"))
    s.end(ex)


def _http_error_is_not_a_decode_error(s: tt.Script) -> None:
    ex = s.call(Method.SEND, tt.send("go"))
    s.reply(ex, raw="Internal Server Error", status=500, reason="Internal Server Error", content_type="text/plain")
    s.fail(ex, "http", "HTTP 500 Internal Server Error")


def _merged_snapshot(s: tt.Script) -> None:
    ex, _ = s.stream(
        tt.send("go"),
        tt.task("t", "working"),
        tt.chunk("t", "a", "ab"),
        tt.chunk("t", "a", "c", append=True, last=True),
        tt.status("t", "completed", final=True),
    )
    s.end(ex)
    get = s.call(Method.GET, {"id": "t"})
    s.reply(get, tt.task("t", "completed", artifacts=[tt.artifact("a", "abc")]))


def _echoed_message(s: tt.Script) -> None:
    ex = s.call(Method.SEND, tt.send("hello", "u1"))
    s.reply(
        ex,
        tt.task("t", "completed", history=[tt.msg("hello", "user", "u1", "t", "c1")], message=tt.msg("hi", mid="a1")),
    )
    get = s.call(Method.GET, {"id": "t"})
    s.reply(
        get,
        tt.task(
            "t",
            "completed",
            history=[tt.msg("hello", "user", "u1", "t", "c1"), tt.msg("hi", mid="a1", task="t", ctx="c1")],
        ),
    )


def _blocking_until_input(s: tt.Script) -> None:
    ex = s.call(Method.SEND, tt.send("go", blocking=True))
    s.reply(ex, tt.task("t", "input-required"))


def _token_stream(s: tt.Script) -> None:
    ex = s.call(Method.STREAM, tt.send("laugh"))
    s.open(ex)
    s.event(ex, tt.task("t", "working"), sse_id="1")
    for i, text in enumerate(["ha", "ha", "\n", "\n"]):
        s.event(ex, tt.chunk("t", "a", text, append=i > 0, last=i == 3), sse_id=str(i + 2))
    s.event(ex, tt.status("t", "completed", final=True), sse_id="6")
    s.end(ex)


def _ids_of_real_captures(_s: tt.Script) -> list[str]:
    """The a2a-sdk's own answers carry the request's id (its own position: last)."""
    problems = []
    for name in (
        "02_v03_message_send",
        "03_v03_message_stream",
        "05_v10_send",
        "06_v10_stream",
        "09_v10_GetTask",
        "14_v03_get_unknown_task",
        "15_v10_GetTask_unknown",
    ):
        cap = parse(CAPTURES / f"{name}.txt")
        rid = cap.request_json()["id"]
        bodies = [e.data for e in cap.events()] if cap.is_sse else [cap.response_body]
        problems += [f"{name}: {p}" for b in bodies if (p := id_problem(rid, b, '"error"' in b))]
    return problems


def _own_task_frames(s: tt.Script) -> list[str]:
    """The agent a task was sent to reports on it, after the relay's exchange ended too."""
    ex = tt.hub_task_sent_to_a(s)
    tt.hub_frame(
        s,
        "in",
        "a",
        {
            "jsonrpc": "2.0",
            "method": "task.artifact",
            "params": {"id": "t", "artifact": {"parts": [{"type": "text", "text": "real"}]}},
        },
        ex,
    )
    tt.hub_frame(
        s,
        "in",
        "a",
        {"jsonrpc": "2.0", "method": "task.complete", "params": {"id": "t", "status": {"state": "completed"}}},
        ex,
    )
    s.session.append(
        Kind.STREAM_END, {"reason": "complete", "events": 2, "elapsed_ms": 1.0, "terminal": True}, exchange=ex
    )
    task = s.tracker.task("t")
    return [] if task.text() == "real" else [f"the task's text is {task.text()!r}"]


#: code -> a well-behaved sequence near its rule (for id-mismatch: real a2a-sdk answers).
def _clean_client(s: tt.Script, body: Any, headers: dict[str, str] | None = None) -> list[int]:
    return tt.client_request(s, body, headers=headers)


def _continuation_named(s: tt.Script) -> list[int]:
    # The answer names the waiting task; a new message in the context of a task that
    # completed names none, and needs none.
    ex = s.call(Method.SEND, tt.send("ask"))
    s.reply(ex, tt.task("t", "input-required", ctx="c1"))
    found = tt.client_request(s, tt._v10_send("Paris", contextId="c1", taskId="t"), headers={"A2A-Version": "1.0"})
    ex = s.call(Method.SEND, tt.send("go"))
    s.reply(ex, tt.task("u", "completed", ctx="c2"))
    return found + tt.client_request(s, tt._v10_send("again", contextId="c2"), headers={"A2A-Version": "1.0"})


NEAR_MISSES: dict[str, Callable[[tt.Script], Any]] = {
    "transition-after-terminal": _late_push,
    "illegal-transition": _legal_loops,
    "artifact-after-terminal": _resubscribe_beside,
    "chunk-after-close": _resubscribe_beside,
    "append-unknown-artifact": _joins_late,
    "stream-no-terminal": _ends_where_it_may,
    "artifact-not-closed": _ends_where_it_may,
    "final-not-terminal": _ends_where_it_may,
    "terminal-not-final": _v10_ends_by_state,
    "event-after-final": _resubscribe_to_a_waiting_task,
    "event-after-terminal": _repeat_by_get,
    "event-after-message": _message_reply,
    "task-mismatch": _two_tasks_same_context,
    "context-mismatch": _two_tasks_same_context,
    "decode-error": _http_error_is_not_a_decode_error,
    "snapshot-mismatch": _merged_snapshot,
    "message-id-reused": _echoed_message,
    "blocking-not-final": _blocking_until_input,
    "id-mismatch": _ids_of_real_captures,
    "duplicate-chunk": _token_stream,
    "client-bad-envelope": lambda s: _clean_client(
        s, {"jsonrpc": "2.0", "id": "r-1", "method": "tasks/get", "params": {"id": "t"}}
    ),
    "client-no-version": lambda s: _clean_client(s, tt._v10_send("go"), headers={"A2A-Version": "1.0"}),
    "client-empty-parts": lambda s: _clean_client(
        s, tt._v10_send("go", parts=[{"text": ""}]), headers={"A2A-Version": "1.0"}
    ),
    "client-continuation-without-task": _continuation_named,
    "foreign-task-frame": _own_task_frames,
}


@pytest.mark.parametrize("code", sorted(VIOLATION_CODES))
def test_every_code_has_a_raising_case_and_a_clean_near_miss(code: str) -> None:
    assert code in tt.VIOLATIONS, f"{code}: no sequence in test_tracker.VIOLATIONS raises it"
    assert code in NEAR_MISSES, f"{code}: no well-behaved near miss here"
    s = tt.Script("0.3")
    problems = NEAR_MISSES[code](s)
    assert s.tracker.violations == [] and not problems, (s.codes, problems)


# ------------------------------------------------------------------ the a2a-sdk peer


def params(text: str, task_id: str | None = None, context_id: str | None = None) -> m.SendParams:
    return m.SendParams(
        message=m.Message(
            role=m.Role.USER,
            parts=[m.TextPart(text=text)],
            message_id=str(uuid.uuid4()),
            task_id=task_id,
            context_id=context_id,
        )
    )


def _task_id(event: Any) -> str:
    return event.id if isinstance(event, m.Task) else event.task_id


async def _sdk_flows(c: A2AClient, url: str) -> None:
    sent = await c.send(params("hello there"))
    await c.get_task(sent.id)
    [e async for e in c.stream(params("stream me please"))]
    asked = [e async for e in c.stream(params("ask me"))]
    tid = _task_id(asked[-1])
    ctx = asked[-1].context_id
    [e async for e in c.stream(params("the answer", tid, ctx))]
    asked = await c.send(params("ask again"))
    await c.send(params("answered", asked.id, asked.context_id))
    assert isinstance(await c.send(params("msg hi")), m.Message)
    [e async for e in c.stream(params("msg there"))]
    await c.send(params("fail now"))
    # Cancel a held task while its stream is open.
    stream = c.stream(params("hold to cancel"))
    tid = _task_id(await stream.__anext__())
    await asyncio.to_thread(wait_parked, url, tid, 0)
    await c.cancel(tid)
    [e async for e in stream]
    # Resubscribe to a held task beside its own stream; both read to the end.
    stream = c.stream(params("hold one two three four"))
    tid = _task_id(await stream.__anext__())
    await asyncio.to_thread(wait_parked, url, tid, 0)
    await asyncio.to_thread(release, url, tid, 1)
    await asyncio.to_thread(wait_parked, url, tid, 1)
    again = c.resubscribe(tid)
    await again.__anext__()
    await asyncio.to_thread(release, url, tid, "all")
    [e async for e in again]
    [e async for e in stream]
    await c.get_task(tid)


@pytest.mark.parametrize(("mode", "dialect"), [("compat", "0.3"), ("compat", "1.0"), ("v10", "1.0")])
async def test_the_sdk_peer_in_every_flow_raises_nothing(mode: str, dialect: str, request: Any) -> None:
    url = request.getfixturevalue(f"sdk_agent_{mode}")
    session = Session()
    tracker = TaskTracker(session)
    async with A2AClient(url, session=session, dialect=dialect, dialect_cache=MemoryDialectCache()) as c:
        await _sdk_flows(c, url)
    assert tracker.violations == [], [(v.code, v.message) for v in tracker.violations]
    texts = {t.text() for t in tracker.tasks.values()}
    assert "echo: hold one two three four" in texts
    assert any(t.state is S.CANCELED for t in tracker.tasks.values())


# ------------------------------------------------------------------ every built-in scenario

#: Scenarios that script faults on purpose: what each trigger is meant to produce.
DECLARED: dict[str, dict[str, set[str]]] = {
    "errors": {
        "malformed": {"decode-error"},
        "drop": {"stream-no-terminal"},
        # ... and a 1.0 send (blocking unless it says returnImmediately) answered working.
        "no final": {"stream-no-terminal", "blocking-not-final"},
    },
    # Seeded random faults: a bad JSON body or event, a dropped stream.
    "flaky": {"*": {"decode-error", "stream-no-terminal"}},
}


def _served(name: str) -> tuple[dict[str, Any], list[str]]:
    scenario = load_builtin(name)
    if name in PROFILES:
        return {"profile": name}, [scenario.dialect or "auto"]
    return {"scenario": name, "dialect": "all"}, ["0.1", "0.3", "1.0"]


async def _turn(c: A2AClient, text: str, stream: bool, pushed: m.PushNotificationConfig | None) -> Any:
    p = params(text)
    if pushed is not None:
        p.configuration = m.SendConfiguration(push_notification_config=pushed)
    last = None
    if stream:
        async for last in c.stream(p):  # noqa: B007 - the loop keeps the last event
            pass
    else:
        last = await c.send(p)
    state = getattr(getattr(last, "status", None), "state", None)
    if state in (S.INPUT_REQUIRED, S.AUTH_REQUIRED):
        answer = params("yes", _task_id(last), last.context_id)
        if stream:
            [e async for e in c.stream(answer)]
        else:
            last = await c.send(answer)
    return last


async def _drained(mock: MockAgent) -> None:
    """The mock's push sender has delivered everything queued (a condition, not a delay)."""
    sender = mock.server.push
    for _ in range(3000):
        worker = sender._worker
        if not sender._queue and (worker is None or worker.done()):
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the mock never finished delivering its push notifications")


#: long-running holds each task until a follow-up message or a minute: nothing here sends
#: the follow-up, so each of its ~20 turns waits out the minute, scaled.
TIME_SCALE = {"long-running": 0.001}


@pytest.mark.parametrize("name", sorted(builtins()))
async def test_every_builtin_scenario_raises_only_what_it_declares(name: str) -> None:
    kwargs, dialects = _served(name)
    scenario = kwargs.pop("scenario", None)
    card = load_builtin(name).card
    examples = [e for skill in (card.skills or []) for e in (skill.examples or [])] or ["hello"]
    pushes = bool(card.capabilities and card.capabilities.push_notifications)
    declared = DECLARED.get(name, {})
    unexpected: list[str] = []
    async with MockAgent(scenario, time_scale=TIME_SCALE.get(name, 0.01), **kwargs) as mock:
        for dialect in dialects:
            for text in examples:
                for stream, with_push in ((False, False), (True, False), (True, True)):
                    if with_push and not pushes:
                        continue
                    session = Session()
                    tracker = TaskTracker(session)
                    receiver = PushReceiver(session) if with_push else None
                    async with A2AClient(
                        mock.url, session=session, dialect=dialect, dialect_cache=MemoryDialectCache()
                    ) as c:
                        await c.resolve_dialect()
                        if stream and not c.dialect.has(Method.STREAM):
                            continue
                        config = None
                        if receiver is not None:
                            await receiver.start()
                            config = m.PushNotificationConfig(url=receiver.url + "t", token="t0k")
                        try:
                            last = await _turn(c, text, stream, config)
                            tid = getattr(last, "task_id", None) or getattr(last, "id", None)
                            if tid and not isinstance(last, m.Message) and c.dialect.has(Method.GET):
                                await c.get_task(tid)
                        except CALL_ERRORS:
                            pass  # a scripted error, or a method this profile does not serve
                        if receiver is not None:
                            await _drained(mock)
                            await receiver.stop()
                    allowed = declared.get(text, declared.get("*", set()))
                    unexpected += [
                        f"{dialect} {'stream' if stream else 'send'}{' +push' if with_push else ''} "
                        f"{text!r}: {v.code} ({v.message})"
                        for v in tracker.violations
                        if v.code not in allowed
                    ]
                    if with_push:
                        assert any(e.kind is Kind.PUSH for e in session.events), (name, dialect, text)
    assert unexpected == []
