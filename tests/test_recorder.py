"""Recorder: JSONL as it happens, redaction, attach mid-session, disk errors."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path
from typing import Any

import pytest

import inspector
from inspector.session import (
    FORMAT,
    REDACTED,
    VERSION,
    Kind,
    Recorder,
    Redaction,
    Session,
    TaskTracker,
    redact_body,
)


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]


def request(
    session: Session, headers: dict[str, str], body: str | None = None, url: str = "http://agent.test/"
) -> None:
    ex = session.new_exchange()
    session.append(
        Kind.REQUEST,
        {
            "method": "POST",
            "url": url,
            "headers": headers,
            "body": body,
            "body_encoding": "utf-8",
            "dialect": "0.3",
            "a2a_method": "send",
            "rpc_method": "message/send",
            "rpc_id": 1,
        },
        exchange=ex,
    )


def note(session: Session, text: str) -> None:
    session.append(Kind.NOTE, {"text": text})


# ----------------------------------------------------------------- format


def test_header_then_one_event_per_line(tmp_path: Path) -> None:
    session = Session()
    path = tmp_path / "rec.jsonl"
    with Recorder.attach(session, path):
        note(session, "hello")
        session.append(Kind.COMMENT, {"text": " heartbeat"}, exchange=3)
    header, *events = lines(path)
    assert header["format"] == FORMAT and header["version"] == VERSION
    assert header["tool_version"] == inspector.__version__
    assert header["session_started"] == pytest.approx(session.started_wall)
    assert header["redaction"]["enabled"] is True
    assert [e["kind"] for e in events] == ["note", "comment"]
    assert events == [e.to_json() for e in session.events]


def test_every_line_is_ascii_even_for_text_with_line_separators(tmp_path: Path) -> None:
    session = Session()
    path = tmp_path / "rec.jsonl"
    with Recorder.attach(session, path):
        # A lone surrogate (from a broken decode upstream) must not stop the write either.
        note(session, "caf\u00e9 \u2028 next\nline \U0001f600 lone \udc80")
    raw = path.read_bytes()
    assert raw.isascii() and raw.count(b"\n") == 2
    assert lines(path)[1]["text"] == "caf\u00e9 \u2028 next\nline \U0001f600 lone \udc80"


def test_flushes_every_event_while_still_open(tmp_path: Path) -> None:
    session = Session()
    path = tmp_path / "rec.jsonl"
    rec = Recorder.attach(session, path)
    try:
        for i in range(5):
            note(session, f"n{i}")
            # Another reader sees the event on disk without the recorder closing.
            with open(path, encoding="utf-8") as f:
                seen = f.read().splitlines()
            assert len(seen) == i + 2
            assert json.loads(seen[-1])["text"] == f"n{i}"
        assert rec.events_written == 5 and rec.active
    finally:
        rec.close()


def test_attach_mid_session_records_everything_so_far(tmp_path: Path) -> None:
    session = Session()
    for i in range(3):
        note(session, f"before {i}")
    path = tmp_path / "rec.jsonl"
    with Recorder.attach(session, path):
        note(session, "after")
    events = lines(path)[1:]
    assert [e["seq"] for e in events] == [1, 2, 3, 4]
    assert [e["text"] for e in events] == ["before 0", "before 1", "before 2", "after"]


def test_close_stops_recording_and_is_idempotent(tmp_path: Path) -> None:
    session = Session()
    path = tmp_path / "rec.jsonl"
    rec = Recorder.attach(session, path)
    note(session, "in")
    rec.close()
    rec.close()
    note(session, "out")
    assert [e["text"] for e in lines(path)[1:]] == ["in"]
    assert not rec.active


def test_refuses_to_replace_an_existing_recording(tmp_path: Path) -> None:
    path = tmp_path / "rec.jsonl"
    path.write_text("precious\n")
    with pytest.raises(FileExistsError):
        Recorder.attach(Session(), path)
    assert path.read_text() == "precious\n"
    Recorder.attach(Session(), path, overwrite=True).close()
    assert lines(path)[0]["format"] == FORMAT


def test_unserialisable_data_keeps_its_place_in_the_log(tmp_path: Path) -> None:
    session = Session()
    path = tmp_path / "rec.jsonl"
    loop: dict[str, Any] = {}
    loop["self"] = loop
    with Recorder.attach(session, path):
        note(session, "a")
        session.append(Kind.NOTE, {"text": "b", "weird": loop})
        session.append(Kind.NOTE, {"text": "c", "raw": b"\x00\xff", "tags": {"x"}})
        note(session, "d")
    events = lines(path)[1:]
    assert [e["seq"] for e in events] == [1, 2, 3, 4]
    assert "not serialisable" in events[1]["text"] and events[1]["original_kind"] == "note"
    assert events[2]["raw"] == "AP8=" and events[2]["tags"] == ["x"]


# ----------------------------------------------------------------- disk errors


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_full_disk_is_reported_once_and_the_session_goes_on() -> None:
    session = Session()
    tracker = TaskTracker(session)
    reports: list[Exception] = []
    rec = Recorder.attach(session, "/dev/full", overwrite=True, on_error=reports.append)
    for i in range(3):
        note(session, f"n{i}")
    assert isinstance(rec.error, OSError) and rec.error.errno == errno.ENOSPC
    assert len(reports) == 1 and reports[0] is rec.error
    assert not rec.active and len(session) == 3 and tracker.tasks == {}
    rec.close()


class BreaksAfter:
    """A file whose writes start failing after ``n`` lines (disk yanked mid-session)."""

    def __init__(self, real: Any, n: int) -> None:
        self.real, self.n = real, n

    def write(self, text: str) -> int:
        if self.n <= 0:
            raise OSError(errno.EIO, "Input/output error")
        self.n -= 1
        return self.real.write(text)

    def flush(self) -> None:
        self.real.flush()

    def close(self) -> None:
        self.real.close()


def test_a_write_error_mid_session_stops_the_recorder_not_the_session(tmp_path: Path) -> None:
    session = Session()
    path = tmp_path / "rec.jsonl"
    seen: list[int] = []
    reports: list[Exception] = []
    rec = Recorder.attach(session, path, on_error=reports.append)
    rec._file = BreaksAfter(rec._file, 2)
    session.subscribe(lambda e: seen.append(e.seq))
    for i in range(5):
        note(session, f"n{i}")
    assert seen == [1, 2, 3, 4, 5], "listeners after the recorder still get every event"
    assert [e["text"] for e in lines(path)[1:]] == ["n0", "n1"]
    assert rec.events_written == 2 and len(reports) == 1 and rec.error.errno == errno.EIO
    rec.close()


def test_a_failing_error_callback_does_not_reach_the_session(tmp_path: Path) -> None:
    session = Session()

    def explode(exc: Exception) -> None:
        raise RuntimeError("ui gone")

    rec = Recorder.attach(session, tmp_path / "r.jsonl", on_error=explode)
    rec._file = BreaksAfter(rec._file, 0)
    note(session, "x")
    assert rec.error is not None and len(session) == 1


def test_a_path_that_cannot_be_opened_raises_at_once(tmp_path: Path) -> None:
    with pytest.raises(OSError):
        Recorder.attach(Session(), tmp_path / "missing-dir" / "r.jsonl")


# ----------------------------------------------------------------- redaction


SECRET_HEADERS = {
    "Authorization": "Bearer sk-live-123",
    "proxy-authorization": "Basic dXNlcjpwYXNz",
    "X-API-Key": "k-1",
    "api-key": "k-2",
    "Cookie": "session=abc",
    "X-A2A-Notification-Token": "tok",
    "X-Tenant-Secret": "mine",
    "Content-Type": "application/json",
    "User-Agent": "a2a-inspect",
}


def test_headers_are_redacted_case_insensitively_keeping_the_auth_scheme(tmp_path: Path) -> None:
    session = Session()
    path = tmp_path / "rec.jsonl"
    with Recorder.attach(session, path, extra_secret_headers=["x-tenant-secret"]):
        request(session, SECRET_HEADERS)
        session.append(
            Kind.RESPONSE,
            {
                "status": 200,
                "headers": {"Set-Cookie": "id=1, other=2", "content-type": "application/json"},
                "body": "{}",
                "body_encoding": "utf-8",
                "streaming": False,
            },
            exchange=1,
        )
        session.append(
            Kind.PUSH,
            {"headers": {"x-a2a-notification-token": "tok", "AUTHORIZATION": "token"}, "body": "{}", "url": "/push"},
        )
    header, req, resp, push = lines(path)
    assert req["headers"] == {
        "Authorization": "Bearer [redacted]",
        "proxy-authorization": "Basic [redacted]",
        "X-API-Key": REDACTED,
        "api-key": REDACTED,
        "Cookie": REDACTED,
        "X-A2A-Notification-Token": REDACTED,
        "X-Tenant-Secret": REDACTED,
        "Content-Type": "application/json",
        "User-Agent": "a2a-inspect",
    }
    assert resp["headers"] == {"Set-Cookie": REDACTED, "content-type": "application/json"}
    # A bare token has no scheme to keep.
    assert push["headers"] == {"x-a2a-notification-token": REDACTED, "AUTHORIZATION": REDACTED}
    assert "x-tenant-secret" in header["redaction"]["headers"]
    # The live session keeps the real values: only the recording is redacted.
    assert session.events[0].data["headers"]["Authorization"] == "Bearer sk-live-123"
    assert "sk-live-123" not in path.read_text() and "dXNlcjpwYXNz" not in path.read_text()


def test_redaction_can_be_turned_off(tmp_path: Path) -> None:
    session = Session()
    path = tmp_path / "rec.jsonl"
    with Recorder.attach(session, path, redact=False):
        request(session, SECRET_HEADERS, url="http://agent.test/?api_key=abc")
    header, req = lines(path)
    assert header["redaction"] == {"enabled": False}
    assert req["headers"] == SECRET_HEADERS and req["url"].endswith("api_key=abc")


def test_secret_query_parameters_are_redacted(tmp_path: Path) -> None:
    session = Session()
    path = tmp_path / "rec.jsonl"
    with Recorder.attach(session, path):
        request(session, {}, url="http://agent.test/a2a?tenant=t1&API_KEY=s3cret&x=1")
        request(session, {}, url="http://agent.test/a2a?tenant=t1")
    _, first, second = lines(path)
    assert first["url"] == "http://agent.test/a2a?tenant=t1&API_KEY=[redacted]&x=1"
    assert second["url"] == "http://agent.test/a2a?tenant=t1"


PUSH_BODIES = {
    # 0.3: push config with the send, and push set.
    "0.3 send": {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "message/send",
        "params": {
            "message": {"role": "user", "parts": []},
            "configuration": {
                "pushNotificationConfig": {
                    "url": "https://me/hook",
                    "token": "T1",
                    "authentication": {"schemes": ["Bearer"], "credentials": "C1"},
                }
            },
        },
    },
    "0.3 set": {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tasks/pushNotificationConfig/set",
        "params": {"taskId": "t", "pushNotificationConfig": {"url": "https://me/hook", "token": "T2"}},
    },
    # 0.1: ``pushNotification`` on the send params.
    "0.1 send": {
        "jsonrpc": "2.0",
        "id": 3,
        "method": "tasks/send",
        "params": {
            "id": "t",
            "message": {"role": "user", "parts": []},
            "pushNotification": {"url": "https://me/hook", "token": "T3"},
        },
    },
    # 1.0: the params are the config itself.
    "1.0 create": {
        "jsonrpc": "2.0",
        "id": 4,
        "method": "CreateTaskPushNotificationConfig",
        "params": {
            "taskId": "t",
            "url": "https://me/hook",
            "token": "T4",
            "authentication": {"scheme": "Bearer", "credentials": "C4"},
        },
    },
    # An answer echoing the config (push get).
    "0.3 get result": {
        "jsonrpc": "2.0",
        "id": 5,
        "result": {"taskId": "t", "pushNotificationConfig": {"url": "https://me/hook", "token": "T5"}},
    },
}


@pytest.mark.parametrize("name", sorted(PUSH_BODIES))
def test_push_notification_tokens_in_bodies_are_redacted(name: str) -> None:
    body = json.dumps(PUSH_BODIES[name])
    out = redact_body(body)
    assert not any(s in out for s in ("T1", "T2", "T3", "T4", "T5", "C1", "C4"))
    assert REDACTED in out
    # Everything else survives.
    assert json.loads(out)["id"] == PUSH_BODIES[name]["id"] and "https://me/hook" in out


def test_bodies_without_secrets_stay_byte_exact() -> None:
    body = '{"jsonrpc": "2.0",  "id": 1, "result": {"token": "not a push config", "n": 1.50}}'
    assert redact_body(body) is body
    assert redact_body('not json, but with "token"') == 'not json, but with "token"'


def test_request_and_response_bodies_are_redacted_in_the_recording(tmp_path: Path) -> None:
    session = Session()
    path = tmp_path / "rec.jsonl"
    with Recorder.attach(session, path):
        request(session, {}, body=json.dumps(PUSH_BODIES["0.3 set"]))
        session.append(
            Kind.RESPONSE,
            {
                "status": 200,
                "headers": {},
                "body": json.dumps(PUSH_BODIES["0.3 get result"]),
                "body_encoding": "utf-8",
                "streaming": False,
            },
            exchange=1,
        )
    # The secrets' own fields, not the whole file: its header holds a timestamp, and a
    # short token such as "T2" can appear in one (2026-...T22:...).
    sent, answered = (json.loads(event["body"]) for event in lines(path)[1:])
    assert sent["params"]["pushNotificationConfig"]["token"] == REDACTED
    assert answered["result"]["pushNotificationConfig"]["token"] == REDACTED
    assert sent["params"]["pushNotificationConfig"]["url"] == "https://me/hook"


def test_redaction_settings_are_configurable_objects() -> None:
    r = Redaction(extra_names=("X-Custom",))
    assert r.headers({"x-custom": "v", "other": "w"}) == {"x-custom": REDACTED, "other": "w"}
    assert r.headers([["X-Custom", "v"], ["Cookie", "c"], ["a", "b"]]) == [
        ["X-Custom", REDACTED],
        ["Cookie", REDACTED],
        ["a", "b"],
    ]
    assert Redaction(enabled=False).settings() == {"enabled": False}
