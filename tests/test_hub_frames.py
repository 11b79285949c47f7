"""The hub's frames (docs/hub.md): lenient decoding, and the tracker folding them into the
same task views as HTTP, live and from a recording."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from inspector.protocol import hub as proto
from inspector.protocol.errors import JsonRpcError, ProtocolError
from inspector.protocol.models import (
    Message,
    SendParams,
    Task,
    TaskArtifactUpdateEvent,
    TaskState,
    TaskStatusUpdateEvent,
)
from inspector.session import Kind, Recorder, Session, TaskTracker, load_recording
from inspector.session.payloads import ws_payload

S = TaskState


def frame(doc: Any) -> proto.Frame:
    return proto.decode_frame(doc if isinstance(doc, str) else json.dumps(doc))


def note(method: str, params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": method, "params": params}


# ---------------------------------------------------------------------- decoding


def test_status_takes_either_task_id_spelling_and_keeps_unknown_keys() -> None:
    a = frame(
        note(
            "task.status",
            {"id": "t1", "sessionId": "s1", "status": {"state": "working"}, "final": False, "progress": 0.5},
        )
    )
    b = frame(note("task.status", {"taskId": "t1", "contextId": "s1", "status": {"state": "working"}}))
    for f in (a, b):
        assert f.role == "notification" and f.method == "task.status"
        assert isinstance(f.item, TaskStatusUpdateEvent)
        assert (f.item.task_id, f.item.context_id, f.item.status.state) == ("t1", "s1", S.WORKING)
    assert a.item.model_extra == {"progress": 0.5}
    assert a.item.final is False and b.item.final is None


def test_status_as_a_bare_state_and_cancelled_spelling() -> None:
    f = frame(note("task.status", {"id": 7, "status": "cancelled"}))
    assert f.item.task_id == "7" and f.item.status.state is S.CANCELED


def test_artifact_with_its_keys_at_the_top_level() -> None:
    f = frame(
        note("task.artifact", {"id": "t1", "parts": [{"type": "text", "text": "hi"}], "index": 0, "append": True})
    )
    assert isinstance(f.item, TaskArtifactUpdateEvent)
    assert f.item.artifact.parts[0].text == "hi" and f.item.append is True and f.item.artifact.index == 0


def test_complete_without_status_is_completed_and_keeps_metadata() -> None:
    f = frame(note("task.complete", {"taskId": "t1", "metadata": {"cost": {"usd": 0.01}, "executor": {"name": "a"}}}))
    assert isinstance(f.item, Task) and f.item.status.state is S.COMPLETED
    assert f.item.metadata == {"cost": {"usd": 0.01}, "executor": {"name": "a"}}


def test_register_finds_the_name_and_card_where_agents_put_them() -> None:
    card = {"name": "research", "skills": [{"id": "r", "tags": ["papers"]}]}
    for params in ({"name": "research", "card": card}, {"agent_card": card}, card):
        f = frame({"jsonrpc": "2.0", "id": 1, "method": "agent.register", "params": params})
        assert isinstance(f.item, proto.Registration)
        assert f.item.name == "research" and f.item.card is not None and f.item.card_raw == card


def test_send_task_names_target_and_parent_in_several_spellings() -> None:
    msg = {"role": "user", "parts": [{"type": "text", "text": "find papers"}]}
    for params in (
        {"agent": "b", "message": msg, "metadata": {"parent_task_id": "p1"}},
        {"executor": {"name": "b"}, "message": msg, "parentTaskId": "p1"},
        {"metadata": {"executor": {"name": "b"}, "parent_task_id": "p1"}, "text": "find papers"},
    ):
        f = frame({"jsonrpc": "2.0", "id": 2, "method": "agent.send_task", "params": params})
        assert isinstance(f.item, proto.Delegation), f.item
        assert (f.item.target, f.item.parent_task_id) == ("b", "p1")
        assert f.item.params.message.parts[0].text == "find papers"


def test_answers_decode_to_tasks_messages_and_errors() -> None:
    assert isinstance(
        frame({"jsonrpc": "2.0", "id": "h", "result": {"id": "t", "status": {"state": "completed"}}}).item, Task
    )
    assert isinstance(frame({"jsonrpc": "2.0", "id": "h", "result": {"role": "agent", "parts": []}}).item, Message)
    assert frame({"jsonrpc": "2.0", "id": "h", "result": {"ok": True}}).item == {"ok": True}
    err = frame({"jsonrpc": "2.0", "id": "h", "error": {"code": -32001, "message": "Task not found"}}).item
    assert isinstance(err, JsonRpcError) and err.code == -32001


@pytest.mark.parametrize(
    "text, why",
    [
        ("not json", "invalid JSON"),
        ("[1, 2]", "got array"),
        ('{"jsonrpc": "2.0", "id": {"a": 1}, "method": "heartbeat"}', "id must be"),
        ('{"jsonrpc": "2.0"}', "neither method, result nor error"),
    ],
)
def test_what_is_not_json_rpc_is_invalid_never_an_exception(text: str, why: str) -> None:
    f = proto.decode_frame(text)
    assert f.role == "invalid" and isinstance(f.item, ProtocolError) and why in str(f.item)


def test_bad_params_of_a_known_method_are_a_protocol_error_with_a_path() -> None:
    f = frame(note("task.status", {"status": {"state": "working"}}))
    assert isinstance(f.item, ProtocolError) and f.item.path == "$.params.id"
    f = frame(note("task.artifact", {"id": "t", "artifact": {"parts": "nope"}}))
    assert isinstance(f.item, ProtocolError) and "parts" in f.item.path


def test_encoding_round_trips_through_decoding() -> None:
    ev = TaskStatusUpdateEvent(task_id="t", context_id="s", status={"state": "input-required"}, final=True)
    again = frame(note("task.status", proto.status_params(ev))).item
    assert (again.task_id, again.context_id, again.status.state, again.final) == ("t", "s", S.INPUT_REQUIRED, True)
    params = SendParams(
        message={"role": "user", "parts": [{"kind": "text", "text": "q"}], "taskId": "t", "contextId": "s"},
        metadata={"skill_used": "x"},
    )
    req = frame(proto.send_request(params, stream=True, rpc_id="hub-1"))
    assert req.method == "tasks/sendSubscribe" and req.item.message.task_id == "t"
    assert req.item.metadata == {"skill_used": "x"}


# ---------------------------------------------------------------------- the tracker


class Hubbed:
    """A session fed as the hub feeds it."""

    def __init__(self) -> None:
        ticks = itertools.count(0, 0.25)
        self.session = Session(clock=lambda: next(ticks), wall_clock=lambda: 1_700_000_000.0)
        self.tracker = TaskTracker(self.session)

    def ws(self, direction: str, doc: Any, exchange: int = 0, op: str = "text") -> None:
        text = doc if isinstance(doc, str) else json.dumps(doc)
        data = {"conn": 1, "dir": direction, "op": op, "agent": "a", "text": text, "size": len(text)}
        self.session.append(Kind.WS, data, exchange=exchange, payload=ws_payload(data))

    def send(self, task_id: str, text: str = "hi", stream: bool = True, metadata: Any = None) -> int:
        ex = self.session.new_exchange()
        params = SendParams(
            message={"role": "user", "parts": [{"kind": "text", "text": text}], "taskId": task_id, "contextId": "s1"},
            metadata=metadata,
        )
        self.ws("out", proto.send_request(params, stream=stream, rpc_id=f"hub-{ex}"), ex)
        return ex

    def end(self, ex: int, reason: str = "complete", terminal: bool = True) -> None:
        self.session.append(
            Kind.STREAM_END, {"reason": reason, "events": 0, "elapsed_ms": 1.0, "terminal": terminal}, exchange=ex
        )


def status(task_id: str, state: str, final: bool | None = None, text: str | None = None) -> dict[str, Any]:
    params: dict[str, Any] = {"id": task_id, "sessionId": "s1", "status": {"state": state}}
    if text is not None:
        params["status"]["message"] = {"role": "agent", "parts": [{"type": "text", "text": text}]}
    if final is not None:
        params["final"] = final
    return note("task.status", params)


def chunk(task_id: str, text: str, append: bool, last: bool = False) -> dict[str, Any]:
    return note(
        "task.artifact",
        {
            "id": task_id,
            "artifact": {
                "index": 0,
                "name": "out",
                "parts": [{"type": "text", "text": text}],
                "append": append,
                "lastChunk": last,
            },
        },
    )


def well_behaved(h: Hubbed) -> None:
    ex = h.send("t1", "tell me")
    h.ws("in", status("t1", "working", False))
    for i, piece in enumerate(("a", "b", "c")):
        h.ws("in", chunk("t1", piece, append=i > 0, last=i == 2), ex)
    h.ws(
        "in",
        note(
            "task.complete",
            {"id": "t1", "sessionId": "s1", "status": {"state": "completed"}, "metadata": {"cost": {"usd": 0.0}}},
        ),
        ex,
    )
    h.end(ex)
    # The agent also answers the request, after its task.complete: the same task.
    h.ws(
        "in",
        {
            "jsonrpc": "2.0",
            "id": f"hub-{ex}",
            "result": {
                "id": "t1",
                "sessionId": "s1",
                "status": {"state": "completed"},
                "artifacts": [{"index": 0, "name": "out", "parts": [{"type": "text", "text": "abc"}]}],
            },
        },
        ex,
    )


def test_a_well_behaved_agents_frames_fold_into_a_task_with_no_violation() -> None:
    h = Hubbed()
    h.ws("in", {"jsonrpc": "2.0", "method": "heartbeat", "params": {}})
    well_behaved(h)
    task = h.tracker.task("t1")
    assert task is not None
    assert [c.state for c in task.timeline] == [S.WORKING, S.COMPLETED]
    assert task.text() == "abc" and task.artifacts["[0]"].closed
    assert task.history[0].parts[0].text == "tell me"
    assert task.metadata == {"cost": {"usd": 0.0}}
    assert h.tracker.violations == []


def test_frames_on_exchange_zero_still_reach_their_task() -> None:
    h = Hubbed()
    h.send("t1")
    h.ws("in", status("t1", "working"))  # exchange 0: the hub had no relay for it
    assert h.tracker.task("t1").state is S.WORKING


def test_an_invalid_frame_and_bad_params_are_decode_errors() -> None:
    h = Hubbed()
    ex = h.send("t1")
    h.ws("in", "{oops", ex)
    h.ws("in", note("task.status", {"status": "working"}), ex)
    codes = [(v.code, v.task_id) for v in h.tracker.violations]
    assert codes == [("decode-error", "t1"), ("decode-error", "t1")]


def test_a_stream_the_agent_walked_away_from_is_flagged() -> None:
    h = Hubbed()
    ex = h.send("t1")
    h.ws("in", status("t1", "working", False), ex)
    h.end(ex, "eof", terminal=False)
    assert [v.code for v in h.tracker.violations] == ["stream-no-terminal"]


def test_an_agent_error_answer_is_the_tasks_latest_word() -> None:
    h = Hubbed()
    ex = h.send("t1")
    h.ws("in", status("t1", "working", False), ex)
    h.ws("in", {"jsonrpc": "2.0", "id": f"hub-{ex}", "error": {"code": -32603, "message": "boom"}}, ex)
    h.end(ex, "error", terminal=False)
    task = h.tracker.task("t1")
    assert task.error is not None and task.error.error.code == -32603
    assert h.tracker.violations == []


def test_input_required_then_the_next_turn_on_the_same_task() -> None:
    h = Hubbed()
    ex = h.send("t1", "weather?")
    h.ws("in", status("t1", "input-required", True, "Which city?"), ex)
    h.end(ex)
    ex2 = h.send("t1", "Paris")
    h.ws(
        "in",
        note(
            "task.complete",
            {
                "id": "t1",
                "status": {
                    "state": "completed",
                    "message": {"role": "agent", "parts": [{"type": "text", "text": "sunny"}]},
                },
            },
        ),
        ex2,
    )
    h.end(ex2)
    task = h.tracker.task("t1")
    assert [c.state for c in task.timeline] == [S.INPUT_REQUIRED, S.COMPLETED]
    assert [p.parts[0].text for p in task.history] == ["weather?", "Which city?", "Paris", "sunny"]
    assert task.exchanges == [ex, ex2] and h.tracker.violations == []


def test_delegation_links_parent_and_child_from_either_side() -> None:
    h = Hubbed()
    h.send("parent")
    h.send("child", metadata={proto.PARENT_KEY: "parent", "requester": {"name": "a"}})
    assert h.tracker.task("child").parent == "parent"
    assert h.tracker.children == {"parent": ["child"]}
    # The delegating agent's side: its agent.send_task, and the hub's answer.
    side = Hubbed()
    d = side.session.new_exchange()
    side.ws(
        "in",
        {
            "jsonrpc": "2.0",
            "id": 9,
            "method": "agent.send_task",
            "params": {"agent": "b", "message": {"role": "user", "parts": [{"type": "text", "text": "q"}]}},
        },
        d,
    )
    side.ws(
        "out",
        {
            "jsonrpc": "2.0",
            "id": 9,
            "result": {"id": "child", "status": {"state": "completed"}, "metadata": {proto.PARENT_KEY: "parent"}},
        },
        d,
    )
    assert side.tracker.children == {"parent": ["child"]}
    assert side.tracker.delegated["child"].status.state is S.COMPLETED
    assert side.tracker.task("child") is None  # told about, not folded as this agent's task


def test_a_hub_recording_replays_into_the_same_picture(tmp_path: Path) -> None:
    h = Hubbed()
    rec = Recorder.attach(h.session, tmp_path / "hub.jsonl")
    well_behaved(h)
    h.ws("in", "{broken", 0)
    rec.close()
    loaded = load_recording(tmp_path / "hub.jsonl")
    assert loaded.problems == []
    again = TaskTracker(loaded.session)
    task, live = again.task("t1"), h.tracker.task("t1")
    assert [c.state for c in task.timeline] == [c.state for c in live.timeline]
    assert task.text() == live.text() == "abc"
    assert [v.code for v in again.violations] == [v.code for v in h.tracker.violations] == ["decode-error"]


def test_recording_redacts_push_tokens_and_card_credentials_in_frames(tmp_path: Path) -> None:
    h = Hubbed()
    rec = Recorder.attach(h.session, tmp_path / "hub.jsonl")
    h.ws(
        "in",
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "agent.register",
            "params": {
                "name": "a",
                "card": {
                    "name": "a",
                    "url": "ws-agent://a",
                    "authentication": {"schemes": ["bearer"], "credentials": "sekrit-123"},
                },
            },
        },
    )
    h.ws(
        "out",
        {
            "jsonrpc": "2.0",
            "id": "h",
            "method": "tasks/send",
            "params": {
                "id": "t",
                "message": {"role": "user", "parts": []},
                "pushNotification": {"url": "http://127.0.0.1:9/hook", "token": "tok-abcdef"},
            },
        },
    )
    rec.close()
    text = (tmp_path / "hub.jsonl").read_text()
    assert "sekrit-123" not in text and "tok-abcdef" not in text
    events = text.splitlines()[1:]
    assert ["[redacted]" in line for line in events] == [True, True]
