"""TaskTracker's shortcut for the next chunk of an open artifact (_next_chunk) against
its general path: the same sessions, folded with and without the shortcut, must leave
the same tasks, artifacts, chunks, exchanges and violations, and report the same
changed tasks for every event. So must the same sessions with each chunk's payload as
a drained stream hands it over (a TextChunk where protocol/lean.py reads one, folded by
_lean_chunk or, failing that, as its model)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import test_tracker as tt
from inspector.protocol.dialects import get_dialect
from inspector.protocol.lean import TextChunk, lean_reader
from inspector.protocol.methods import Method
from inspector.session import Event, Kind, TaskTracker


def fold(events: list[Any], shortcut: bool) -> tuple[TaskTracker, list[set[str]]]:
    tracker = TaskTracker()
    if not shortcut:
        tracker._next_chunk = lambda *args: False  # type: ignore[method-assign]
    return tracker, [tracker.apply(event) for event in events]


def state(tracker: TaskTracker) -> Any:
    return (
        {k: dataclasses.asdict(v) for k, v in tracker.tasks.items()},
        [dataclasses.asdict(v) for v in tracker.violations],
        {k: dataclasses.asdict(v) for k, v in tracker.exchanges.items()},
        tracker.replies,
        tracker._once,
    )


def leaned(events: list[Any]) -> tuple[list[Any], int]:
    """The events with each SSE payload as a drained stream's client decodes it live
    (payload kept, as while the listeners run), and how many are TextChunks."""
    readers: dict[int, Any] = {}
    out = []
    lean = 0
    for ev in events:
        if ev.kind is Kind.REQUEST and isinstance(ev.data.get("dialect"), str):
            readers[ev.exchange] = lean_reader(get_dialect(ev.data["dialect"]))
        payload = ev.payload
        read = readers.get(ev.exchange)
        if ev.kind is Kind.SSE and read is not None and isinstance(ev.data.get("data"), str):
            try:
                payload = read(ev.data["data"])
            except Exception as exc:  # noqa: BLE001 - the errors the client keeps as payloads
                payload = exc
            lean += payload.__class__ is TextChunk
        out.append(Event(ev.seq, ev.t, ev.kind, ev.exchange, ev.data, ev.wall, payload))
    return out, lean


def same_either_way(events: list[Any]) -> int:
    """Fold both ways (and lean), compare; returns how many events the shortcut took."""
    fast, fast_changed = fold(events, True)
    slow, slow_changed = fold(events, False)
    assert fast_changed == slow_changed
    assert state(fast) == state(slow)
    lean_events, _ = leaned(events)
    lean, lean_changed = fold(lean_events, True)
    assert lean_changed == slow_changed
    assert state(lean) == state(slow)
    taken = 0
    probe = TaskTracker()
    for event in events:
        before = len(probe.violations)
        if event.payload.__class__.__name__ == "TaskArtifactUpdateEvent" and event.kind.value == "sse":
            probe._changed = set()
            if probe._next_chunk(event, event.payload, probe._changed):
                taken += 1
                assert len(probe.violations) == before
                continue
        probe.apply(event)
    return taken


@pytest.mark.parametrize("code", sorted(tt.VIOLATIONS))
def test_every_violation_sequence(code: str) -> None:
    s = tt.Script("0.3")
    tt.VIOLATIONS[code](s)
    same_either_way(s.session.events)


def test_a_long_stream_takes_the_shortcut() -> None:
    s = tt.Script("0.3")
    chunks = [tt.chunk("t1", "a", "first ")] + [tt.chunk("t1", "a", f"{i} ", append=True) for i in range(20)]
    chunks.append(tt.chunk("t1", "a", "end", append=True, last=True))
    s.stream(
        tt.send("hi"),
        tt.task("t1", "submitted"),
        tt.status("t1", "working"),
        *chunks,
        tt.status("t1", "completed", final=True),
    )
    assert same_either_way(s.session.events) == 21
    lean_events, lean = leaned(s.session.events)
    assert lean == 21  # the appended chunks: a silent fallback would lose the speed
    probe = TaskTracker()
    for event in lean_events:
        if event.payload.__class__ is TextChunk:
            probe._changed = set()
            assert probe._lean_chunk(event, event._payload, probe._changed)
        else:
            probe.apply(event)
    view = s.tracker.task("t1").artifacts["a"]
    assert view.closed and len(view.chunks) == 22 and view.text().startswith("first 0 1 ")


def _open_stream(s: tt.Script) -> int:
    ex, _ = s.stream(
        tt.send("hi"),
        tt.task("t1", "submitted"),
        tt.status("t1", "working"),
        tt.chunk("t1", "a", "one "),
        tt.chunk("t1", "a", "two ", append=True),
    )
    return ex


def _more(s: tt.Script, ex: int) -> None:
    for i in range(3):
        s.event(ex, tt.chunk("t1", "a", f"more{i} ", append=True))


BREAKS = {
    "other context": lambda s, ex: s.event(ex, tt.chunk("t1", "a", "x", append=True, ctx="c2")),
    "no context": lambda s, ex: s.event(
        ex, {k: v for k, v in tt.chunk("t1", "a", "x", append=True).items() if k != "contextId"}
    ),
    "after completed": lambda s, ex: s.event(ex, tt.status("t1", "completed")),
    "after failed, a continuation stream": lambda s, ex: (
        s.event(ex, tt.status("t1", "failed")),
        _more(s, s.stream(tt.send("again", task="t1"))[0]),
    ),
    "after canceled, a resubscribe": lambda s, ex: (s.event(ex, tt.status("t1", "canceled")), _resubscribe_beside(s)),
    "after final": lambda s, ex: s.event(ex, tt.status("t1", "working", final=True)),
    "after input-required": lambda s, ex: s.event(ex, tt.status("t1", "input-required")),
    "after a message reply": lambda s, ex: s.event(ex, tt.msg("hello")),
    "after a task message": lambda s, ex: s.event(ex, tt.msg("hello", task="t1")),
    "other task": lambda s, ex: s.event(ex, tt.chunk("t2", "a", "x", append=True)),
    "after lastChunk": lambda s, ex: s.event(ex, tt.chunk("t1", "a", "x", append=True, last=True)),
    "lastChunk false": lambda s, ex: s.event(ex, tt.chunk("t1", "a", "x", append=True, last=False)),
    "restart": lambda s, ex: s.event(ex, tt.chunk("t1", "a", "x", append=False)),
    "unknown artifact": lambda s, ex: s.event(ex, tt.chunk("t1", "b", "x", append=True)),
    "flags on the artifact": lambda s, ex: s.event(
        ex, {**tt.chunk("t1", "a", "x"), "artifact": {**tt.artifact("a", "x"), "append": True}}
    ),
    "no artifact id": lambda s, ex: s.event(
        ex,
        {**tt.chunk("t1", "a", "x", append=True), "artifact": {"index": 0, "parts": [{"kind": "text", "text": "x"}]}},
    ),
    "name, description, metadata": lambda s, ex: s.event(
        ex,
        {
            **tt.chunk("t1", "a", "x", append=True),
            "artifact": {**tt.artifact("a", "x", "y"), "name": "n", "description": "d", "metadata": {"m": 1}},
        },
    ),
    "data part": lambda s, ex: s.event(
        ex,
        {
            **tt.chunk("t1", "a", "x", append=True),
            "artifact": {"artifactId": "a", "parts": [{"kind": "data", "data": {"k": [1, 2]}}]},
        },
    ),
    "snapshot": lambda s, ex: s.event(ex, tt.task("t1", "working", artifacts=[tt.artifact("a", "one two ")])),
    "continuation stream": lambda s, ex: _more(s, s.stream(tt.send("again", task="t1"))[0]),
    "other stream, new task": lambda s, ex: _more(s, s.stream(tt.send("new"), tt.task("t9", "working"))[0]),
    "stream end": lambda s, ex: s.end(ex, "eof"),
    "a push of a chunk": lambda s, ex: _push(s, tt.chunk("t1", "a", "more0 ", append=True)),
    "a resubscribe beside it": lambda s, ex: _resubscribe_beside(s),
    "numbered events": lambda s, ex: s.event(ex, tt.chunk("t1", "a", "x", append=True), sse_id="7"),
}


def _push(s: tt.Script, body: dict[str, Any]) -> None:
    from inspector.session import Kind

    s.session.append(Kind.PUSH, {"headers": {}, "body": "", "url": "/p"}, payload=s.dialect.decode_event(body, "$"))


def _resubscribe_beside(s: tt.Script) -> None:
    again = s.call(Method.RESUBSCRIBE, {"id": "t1"})
    s.open(again)
    s.event(again, tt.task("t1", "working", artifacts=[tt.artifact("a", "one ", "two ")]))
    _more(s, again)


@pytest.mark.parametrize("what", sorted(BREAKS))
def test_every_precondition(what: str) -> None:
    # A stream well into its chunks, one event that breaks some condition of the
    # shortcut, then more chunks.
    s = tt.Script("0.3")
    ex = _open_stream(s)
    BREAKS[what](s, ex)
    _more(s, ex)
    same_either_way(s.session.events)


def test_chunks_after_the_task_ended_take_the_shortcut_once_flagged() -> None:
    # An agent that goes on with an artifact after the task completed is flagged once
    # per stream (artifact-after-terminal); the chunks after that fold as any other,
    # on the same stream and on a later one.
    s = tt.Script("0.3")
    ex = _open_stream(s)
    s.event(ex, tt.status("t1", "completed"))
    _more(s, ex)
    s.end(ex)
    _more(s, s.stream(tt.send("again", task="t1"))[0])
    # The open stream's second chunk, then two of the three after each flag.
    assert same_either_way(s.session.events) == 1 + 2 + 2
    assert [code for code, _seq in s.codes].count("artifact-after-terminal") == 2
    assert s.tracker.task("t1").artifacts["a"].text() == "one two more0 more1 more2 more0 more1 more2 "


@pytest.mark.parametrize("dialect", ["0.1", "1.0"])
def test_other_dialects(dialect: str) -> None:
    # 0.1 keeps the chunk flags on the artifact and keys by index; 1.0 has no final.
    s = tt.Script(dialect)
    enc = s.dialect.encode_stream_event
    from inspector.protocol import models as m

    def art(text: str, **flags: Any) -> Any:
        a = m.Artifact(artifact_id="a", index=0, parts=[m.TextPart(text=text)], **flags)
        return enc(m.TaskArtifactUpdateEvent(task_id="t1", context_id="c1", artifact=a), 1)["result"]

    user = m.Message(
        role=m.Role.USER, parts=[m.TextPart(text="hi")], message_id="u1", task_id="t1" if dialect == "0.1" else None
    )
    ex = s.call(Method.STREAM, s.dialect.encode_params(Method.STREAM, m.SendParams(message=user)))
    s.open(ex)
    s.event(
        ex,
        enc(m.TaskStatusUpdateEvent(task_id="t1", context_id="c1", status=m.TaskStatus(state=m.TaskState.WORKING)), 1)[
            "result"
        ],
    )
    for i in range(6):
        s.event(ex, art(f"{i} ", append=i > 0, last_chunk=i == 5))
    s.event(ex, art("late", append=True))
    same_either_way(s.session.events)


# ---------------------------------------------------------------------- random sessions

steps = st.lists(
    st.one_of(
        st.tuples(
            st.just("chunk"),
            st.sampled_from(["t1", "t2"]),
            st.sampled_from(["a", "b"]),
            st.sampled_from([None, True, False]),
            st.sampled_from([None, True, False]),
            st.sampled_from(["c1", "c2"]),
            st.integers(1, 3),
        ),
        st.tuples(
            st.just("status"),
            st.sampled_from(["t1", "t2"]),
            st.sampled_from(["working", "input-required", "completed"]),
            st.sampled_from([None, True, False]),
        ),
        st.tuples(st.just("message"), st.sampled_from([None, "t1"])),
        st.tuples(st.just("task"), st.sampled_from(["t1", "t2"]), st.sampled_from(["submitted", "working"])),
        st.tuples(st.just("stream"), st.sampled_from([None, "t1"])),
        st.tuples(st.just("end"), st.sampled_from(["complete", "eof", "closed"])),
        st.tuples(st.just("push"), st.sampled_from(["a", "b"]), st.sampled_from([None, True]), st.integers(0, 2)),
        st.tuples(st.just("resubscribe"), st.booleans()),
    ),
    max_size=40,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps)
def test_random_sessions(plan: list[tuple[Any, ...]]) -> None:
    s = tt.Script("0.3")
    ex = s.call(Method.STREAM, tt.send("go"))
    s.open(ex)
    for n, step in enumerate(plan, 1):
        kind = step[0]
        if kind == "chunk":
            _, tid, aid, append, last, ctx, nparts = step
            body = tt.chunk(tid, aid, f"x{n % 4} ", append, last, ctx)
            body["artifact"]["parts"] *= nparts
            if nparts == 3:
                body["artifact"]["name"], body["artifact"]["metadata"] = "name", {"k": n}
            s.event(ex, body)
        elif kind == "status":
            s.event(ex, tt.status(step[1], step[2], step[3]))
        elif kind == "message":
            s.event(ex, tt.msg(f"m{n}", task=step[1]))
        elif kind == "task":
            s.event(ex, tt.task(step[1], step[2]))
        elif kind == "stream":
            ex = s.call(Method.STREAM, tt.send(f"more{n}", task=step[1]))
            s.open(ex)
        elif kind == "push":
            _push(s, tt.chunk("t1", step[1], f"x{step[3]} ", step[2]))
        elif kind == "resubscribe":
            ex = s.call(Method.RESUBSCRIBE, {"id": "t1"})
            s.open(ex)
            if step[1]:
                s.event(ex, tt.task("t1", "working", artifacts=[tt.artifact("a", "x1 ", "x2 ")]))
        else:
            s.end(ex, step[1])
    same_either_way(s.session.events)


def test_add_next_folds_a_plain_text_chunk_and_its_parts_alike() -> None:
    """ArtifactView.add_next, the one fold behind both shortcuts: a chunk given as its
    text and the same chunk given as its parts leave the same artifact and chunks."""
    from inspector.protocol import models as m
    from inspector.session.tracker import ArtifactView

    by_text, by_parts = ArtifactView("a", "a", None), ArtifactView("a", "a", None)
    pieces = [("Hel", None), ("lo", False), ("!", True)]
    for seq, (text, last) in enumerate(pieces, 1):
        by_text.add_next(seq, seq / 2, 7, text, None, last, "story" if seq == 1 else None, None, None)
        by_parts.add_next(
            seq, seq / 2, 7, None, [m.TextPart(text=text)], last, "story" if seq == 1 else None, None, None
        )
    for view in (by_text, by_parts):
        assert view.text() == "Hello!" and view.closed and view.chunked and view.name == "story"
        assert [(c.seq, c.t, c.append, c.last_chunk, c.size, c.exchange, c.pos) for c in view.chunks] == [
            (1, 0.5, True, None, 3, 7, 0),
            (2, 1.0, True, False, 2, 7, 1),
            (3, 1.5, True, True, 1, 7, 2),
        ]
        assert (view.last_seq, view.last_t) == (3, 1.5)
    assert list(by_text.chunks) == list(by_parts.chunks)
    assert list(by_text.parts) == list(by_parts.parts)


def test_parts_compare_with_adjacent_texts_joined_once() -> None:
    # A task snapshot's artifact is compared with the chunks it assembled; text runs are
    # joined in one go (a `+=` per part made the comparison quadratic in the chunk count).
    from inspector.protocol import models as m
    from inspector.session.tracker import _normal

    parts = [
        m.TextPart(text="a"),
        m.TextPart(text="b"),
        m.DataPart(data={"k": 1}),
        m.TextPart(text="c"),
        m.TextPart(text="d"),
        m.TextPart(text="e"),
    ]
    assert _normal(parts) == ["ab", {"kind": "data", "data": {"k": 1}}, "cde"]
    many = [m.TextPart(text="x" * 45) for _ in range(100_000)]
    assert _normal(many) == ["x" * 4_500_000]
