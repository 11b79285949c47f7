"""One line on an event, from one UI-free module (issue 30 item 3): the traffic view's
rows, the proxy's console and the hub's console all say it through session.describe."""

from __future__ import annotations

import subprocess
import sys

from inspector.protocol import models as m
from inspector.protocol.errors import JsonRpcError
from inspector.protocol.hub import Frame
from inspector.session import Event, Kind
from inspector.session.describe import (
    describe_frame,
    describe_payload,
    describe_ws,
    event_summary,
    proxy_line,
)


def _status(state: str, final: bool) -> m.TaskStatusUpdateEvent:
    return m.TaskStatusUpdateEvent(
        task_id="t-1", context_id="c-1", final=final, status=m.TaskStatus(state=m.TaskState(state))
    )


def test_a_stream_event_reads_the_same_in_the_rows_and_in_the_proxy_console() -> None:
    event = Event(1, 0.0, Kind.SSE, 3, {"added_ms": 2}, payload=_status("completed", True))
    assert event_summary(event) == "task t-1 completed (final) (+2 ms proxy)"
    assert proxy_line(event) == "#3 ← task t-1 completed (final) (+2 ms)"


def test_a_request_row_masks_a_secret_in_its_url() -> None:
    event = Event(1, 0.0, Kind.REQUEST, 1, {"method": "POST", "url": "http://127.0.0.1:9/?api_key=s3cret"})
    assert "s3cret" not in event_summary(event)
    assert "s3cret" in (proxy_line(event) or "")  # the console redacts it as it prints


def test_socket_events_read_without_the_hub_command() -> None:
    opened = Event(1, 0.0, Kind.WS, 0, {"op": "open", "peer": "127.0.0.1:5"})
    closed = Event(2, 0.0, Kind.WS, 0, {"op": "close", "code": 1000, "reason": "bye"})
    assert describe_ws(opened) == event_summary(opened) == "socket opened from 127.0.0.1:5"
    assert event_summary(closed) == "close 1000 (bye)"


def test_the_describer_loads_neither_textual_nor_a_command_module() -> None:
    code = (
        "import sys, inspector.session.describe; "
        "print(sorted(n for n in sys.modules if n == 'textual' or n.endswith('_cmd')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def _artifact() -> m.TaskArtifactUpdateEvent:
    return m.TaskArtifactUpdateEvent(
        task_id="t-1",
        context_id="c-1",
        append=True,
        last_chunk=True,
        artifact=m.Artifact(artifact_id="a-1", name="answer", parts=[m.TextPart(text="hello")]),
    )


def test_one_payload_reads_the_same_in_rows_proxy_console_and_hub_console() -> None:
    long_id = "0123456789abcdef-task"
    status = m.TaskStatusUpdateEvent(
        task_id=long_id,
        context_id="c-1",
        final=False,
        status=m.TaskStatus(
            state=m.TaskState("input-required"),
            message=m.Message(role=m.Role("agent"), message_id="m-1", parts=[m.TextPart(text="which city?")]),
        ),
    )
    for payload, words in [
        (status, f"task {long_id} input-required: which city?"),
        (_artifact(), "answer+|: hello"),
        (JsonRpcError(-32001, "Task not found"), "error -32001 Task not found"),
    ]:
        assert describe_payload(payload, full_ids=True) == words
        row = event_summary(Event(1, 0.0, Kind.SSE, 3, {}, payload=payload))
        assert row == words.replace(long_id, "01234567…")  # the rows' column shortens ids
        assert proxy_line(Event(1, 0.0, Kind.SSE, 3, {"added_ms": 0}, payload=payload)) == f"#3 ← {words} (+0 ms)"
        assert (
            describe_frame(Frame(role="event", item=payload), "tasks/sendSubscribe") == f"tasks/sendSubscribe {words}"
        )
