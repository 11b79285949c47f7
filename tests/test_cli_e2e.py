"""``a2a-inspect`` end to end: the real CLI (in-process, a few runs as a subprocess: see
tests/cli_helpers.py) against the real a2a-sdk 1.3
Echo Agent (tests/peers/sdk_agent.py), in every dialect the agent speaks.

Dialects: the compat agent (1.0 with 0.3 compatibility) with ``--dialect 1.0``,
``--dialect 0.3`` and ``auto``; the pure 1.0 agent with ``1.0`` and ``auto``. ``auto``
must land on 1.0 for both (their cards list 1.0 first), which the recordings confirm by
the wire method names.
"""

from __future__ import annotations

import base64
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from cli_helpers import Cli, CliResult, assert_one_error_line, cli, finish, read_line  # noqa: F401 - cli is a fixture
from inspector.session import Kind, TaskTracker, load_recording
from peers.sdk_agent import (
    CANCELED_TEXT,
    DONE_TEXT,
    FAILED_TEXT,
    QUESTION,
    WORKING_TEXT,
    release,
    wait_parked,
)

# (agent mode, --dialect): every dialect each agent speaks, plus detection. The basic
# flows run in all five; the rest in one per wire dialect (0.3, and 1.0 as detected),
# since each CLI run costs a real exchange with the agent.
DIALECTS = [("compat", "1.0"), ("compat", "0.3"), ("compat", "auto"), ("v10", "1.0"), ("v10", "auto")]
WIRE_DIALECTS = [("compat", "0.3"), ("v10", "auto")]

WIRE_METHODS = {
    "1.0": {
        "send": "SendMessage",
        "stream": "SendStreamingMessage",
        "get": "GetTask",
        "cancel": "CancelTask",
        "resubscribe": "SubscribeToTask",
    },
    "0.3": {
        "send": "message/send",
        "stream": "message/stream",
        "get": "tasks/get",
        "cancel": "tasks/cancel",
        "resubscribe": "tasks/resubscribe",
    },
}

TEXT = "hello there inspector"
ECHO = "echo: hello there inspector"
#: A task the peer holds before each chunk until the test releases it: still running when
#: a second CLI process reaches it, however loaded the machine is.
HOLD_TEXT = "hold one two three"
HOLD_ECHO = "echo: hold one two three"


@dataclass(frozen=True)
class Peer:
    mode: str
    url: str
    dialect: str

    @property
    def wire(self) -> str:
        """The dialect the CLI must end up speaking."""
        return "1.0" if self.dialect == "auto" else self.dialect

    @property
    def args(self) -> list[str]:
        return ["--dialect", self.dialect]


def _ids(param: tuple[str, str]) -> str:
    return f"{param[0]}-{param[1]}"


@pytest.fixture(params=DIALECTS, ids=_ids)
def peer(request: pytest.FixtureRequest) -> Peer:
    mode, dialect = request.param
    return Peer(mode, request.getfixturevalue(f"sdk_agent_{mode}"), dialect)


@pytest.fixture(params=WIRE_DIALECTS, ids=_ids)
def wire_peer(request: pytest.FixtureRequest) -> Peer:
    mode, dialect = request.param
    return Peer(mode, request.getfixturevalue(f"sdk_agent_{mode}"), dialect)


@pytest.fixture(params=WIRE_DIALECTS, ids=_ids)
def held_peer(request: pytest.FixtureRequest) -> Peer:
    """A peer for HOLD_TEXT tasks (the session's peers hold them like any other)."""
    mode, dialect = request.param
    return Peer(mode, request.getfixturevalue(f"sdk_agent_{mode}"), dialect)


# ------------------------------------------------------------------------- helpers


def field(result: CliResult, label: str) -> str:
    """The value of a ``label    value`` line of the text output."""
    for line in result.out.splitlines():
        if line.startswith(label + " "):
            return line[len(label) :].strip()
    raise AssertionError(f"no {label!r} line in\n{result}")


def task_id_of(result: CliResult) -> str:
    return field(result, "task")


def rpc_requests(path: Path) -> list[dict[str, Any]]:
    """Each JSON-RPC request of a recording: its event data with the body parsed."""
    rec = load_recording(path)
    assert not rec.problems and not rec.truncated
    out = []
    for event in rec.session.events:
        if event.kind is Kind.REQUEST and event.data.get("rpc_method"):
            out.append({**event.data, "json": json.loads(event.data["body"])})
    return out


def rpc_methods(path: Path) -> list[str]:
    return [r["rpc_method"] for r in rpc_requests(path)]


def history_texts(doc: dict[str, Any]) -> list[str]:
    return [p["text"] for msg in doc["task"]["history"] for p in msg["parts"] if p["kind"] == "text"]


# ---------------------------------------------------------------------------- card


def test_card_text_shows_the_card_and_the_detected_dialect(cli: Cli, peer: Peer) -> None:
    r = cli("card", peer.url, *peer.args)
    assert r.code == 0, r
    assert r.err == "", r
    assert field(r, "  name") == "Echo Agent"
    assert field(r, "  version") == "0.1.0"
    assert field(r, "  dialect") == peer.wire
    assert field(r, "  endpoint") == f"{peer.url}/"
    assert field(r, "  card url") == f"{peer.url}/.well-known/agent-card.json"
    assert field(r, "  streaming") == "yes"
    assert "  [0] echo — Echo" in r.out.splitlines()
    assert "      e.g. ask me" in r.out.splitlines()
    assert r.out.splitlines()[-1].startswith("lint: 0 error(s), 0 warning(s)")


def test_card_json(cli: Cli, wire_peer: Peer) -> None:
    peer = wire_peer
    r = cli("card", peer.url, "--json", *peer.args)
    assert r.code == 0, r
    doc = r.json()
    assert doc["dialect"] == peer.wire
    assert doc["cardUrl"] == f"{peer.url}/.well-known/agent-card.json"
    assert doc["endpoint"] == f"{peer.url}/"
    assert doc["card"]["name"] == "Echo Agent"
    assert doc["card"]["skills"][0]["id"] == "echo"
    versions = {i["protocolVersion"] for i in doc["card"]["supportedInterfaces"]}
    assert versions == ({"1.0", "0.3"} if peer.mode == "compat" else {"1.0"})
    assert not [f for f in doc["findings"] if f["severity"] == "error"]
    assert all(set(f) == {"severity", "code", "path", "message"} for f in doc["findings"])


def test_card_of_a_pure_1_0_agent_read_as_0_3_has_lint_errors(cli: Cli, sdk_agent_v10: str) -> None:
    r = cli("card", sdk_agent_v10, "--dialect", "0.3")
    assert r.code == 1, r
    assert field(r, "  dialect") == "0.3"
    assert any(line.startswith("  ✗ error $.url: ") for line in r.out.splitlines()), r
    assert re.search(r"^lint: [1-9]\d* error\(s\)", r.out, re.M), r


# ---------------------------------------------------------------------------- send


def test_send_blocking(cli: Cli, peer: Peer, tmp_path: Path) -> None:
    rec = tmp_path / "send.jsonl"
    # A real process, as a user runs it (most tests here run the CLI in-process).
    r = cli("send", peer.url, TEXT, *peer.args, "--record", str(rec), process=True)
    assert r.code == 0, r
    assert r.err == ""
    assert re.fullmatch(r"[0-9a-f-]{36}", task_id_of(r))
    assert field(r, "state").split()[0] == "completed"
    assert field(r, "message") == DONE_TEXT
    lines = r.out.splitlines()
    assert lines[-2].startswith("artifact echo (echo-")
    assert lines[-1] == f"  {ECHO}"
    assert rpc_methods(rec) == [WIRE_METHODS[peer.wire]["send"]]


def test_send_stream_and_its_recording(cli: Cli, peer: Peer, tmp_path: Path) -> None:
    path = tmp_path / "stream.jsonl"
    r = cli("send", peer.url, TEXT, "--stream", *peer.args, "--record", str(path))
    assert r.code == 0, r
    assert r.err == ""
    lines = r.out.splitlines()
    progress = [re.sub(r"^\[\s*\d+\.\d\ds\] ", "", x) for x in lines if x.startswith("[")]
    task_id = task_id_of(r)
    assert progress == [
        f"task {task_id} submitted",
        f"working: {WORKING_TEXT}",
        "artifact echo +12 chars",
        "artifact echo +6 chars (append)",
        "artifact echo +9 chars (append, last)",
        f"completed: {DONE_TEXT}",
    ]
    assert field(r, "state").startswith("completed   (submitted → working → completed")
    assert lines[-2].startswith("artifact echo (echo-") and lines[-2].endswith(", 3 chunks")
    assert lines[-1] == f"  {ECHO}"

    # The recording loads back into the same task.
    assert rpc_methods(path) == [WIRE_METHODS[peer.wire]["stream"]]
    rec = load_recording(path)
    assert rec.header["format"] == "a2a-inspect-recording"
    view = TaskTracker(rec.session).tasks[task_id]
    assert view.state.value == "completed"
    assert view.context_id == field(r, "context")
    assert view.text() == ECHO
    assert [c.state.value for c in view.timeline] == ["submitted", "working", "completed"]
    assert all(json.loads(line) for line in path.read_text(encoding="utf-8").splitlines())


def test_input_required_then_answer_on_the_same_task(cli: Cli, peer: Peer) -> None:
    ask = cli("send", peer.url, "ask me", *peer.args)
    assert ask.code == 4, ask
    assert field(ask, "state").split()[0] == "input-required"
    assert field(ask, "question") == QUESTION
    task_id, context_id = task_id_of(ask), field(ask, "context")

    answer = cli("send", peer.url, "the answer", "--task-id", task_id, "-o", "json", *peer.args)
    assert answer.code == 0, answer
    task = answer.json()["task"]
    assert task["id"] == task_id and task["contextId"] == context_id
    assert task["state"] == "completed"
    assert task["artifacts"][0]["text"] == "echo: the answer"
    # Both turns on the one task, as the agent returned it to a process that never saw the first.
    texts = history_texts(answer.json())
    assert texts.index("ask me") < texts.index(QUESTION) < texts.index("the answer")


@pytest.mark.parametrize("stream", [False, True], ids=["blocking", "stream"])
def test_send_json_document(cli: Cli, wire_peer: Peer, stream: bool) -> None:
    peer = wire_peer
    r = cli("send", peer.url, TEXT, "--output", "json", *peer.args, *(["--stream"] if stream else []))
    assert r.code == 0, r
    doc = r.json()
    assert doc["exitCode"] == 0 and doc["error"] is None and doc["message"] is None
    assert doc["violations"] == []
    task = doc["task"]
    assert re.fullmatch(r"[0-9a-f-]{36}", task["id"]) and re.fullmatch(r"[0-9a-f-]{36}", task["contextId"])
    assert task["state"] == "completed"
    assert task["statusMessage"]["parts"] == [{"kind": "text", "text": DONE_TEXT}]
    (artifact,) = task["artifacts"]
    assert artifact["text"] == ECHO and artifact["name"] == "echo"
    assert artifact["artifactId"] == f"echo-{task['id'][:8]}"
    if stream:
        assert artifact["chunks"] == 3 and artifact["closed"] is True
        assert [c["state"] for c in task["timeline"]] == ["submitted", "working", "completed"]
    user = task["history"][0]
    assert user["role"] == "user" and user["parts"] == [{"kind": "text", "text": TEXT}]
    assert WORKING_TEXT in history_texts(doc)


def test_send_ndjson_stream_is_one_event_per_line(cli: Cli, wire_peer: Peer) -> None:
    peer = wire_peer
    r = cli("send", peer.url, TEXT, "--stream", "--output", "ndjson", *peer.args)
    assert r.code == 0, r
    assert r.out.endswith("\n") and all(line.startswith("{") for line in r.out.splitlines())
    events = r.ndjson()
    assert [e["kind"] for e in events] == [
        "task",
        "status-update",
        "artifact-update",
        "artifact-update",
        "artifact-update",
        "status-update",
    ]
    task_id = events[0]["id"]
    assert all(e["taskId"] == task_id for e in events[1:])
    assert events[0]["status"]["state"] == "submitted"
    assert events[1]["status"]["state"] == "working" and not events[1].get("final")
    chunks = events[2:5]
    assert "".join(e["artifact"]["parts"][0]["text"] for e in chunks) == ECHO
    assert [bool(e.get("append")) for e in chunks] == [False, True, True]
    assert [bool(e.get("lastChunk")) for e in chunks] == [False, False, True]
    # 1.0 has no "final" flag: the state says it.
    assert events[5]["status"]["state"] == "completed" and events[5].get("final", True) is True


def test_send_ndjson_blocking_is_the_task(cli: Cli, sdk_agent_compat: str) -> None:
    r = cli("send", sdk_agent_compat, TEXT, "-o", "ndjson")
    assert r.code == 0, r
    (task,) = r.ndjson()
    assert task["kind"] == "task" and task["status"]["state"] == "completed"
    assert "".join(p["text"] for p in task["artifacts"][0]["parts"]) == ECHO


def test_failed_task_exits_1_with_the_reason(cli: Cli, wire_peer: Peer) -> None:
    r = cli("send", wire_peer.url, "fail", *wire_peer.args, process=True)  # the exit code a shell sees
    assert r.code == 1, r
    assert field(r, "state").split()[0] == "failed"
    assert field(r, "reason") == FAILED_TEXT
    assert r.err == ""


def test_message_reply_exits_0_and_is_printed(cli: Cli, wire_peer: Peer) -> None:
    r = cli("send", wire_peer.url, "msg hi", *wire_peer.args)
    assert r.code == 0, r
    assert r.out.splitlines() == ["agent:", "  echo: msg hi"]
    assert r.err == ""


def test_message_reply_as_json(cli: Cli, sdk_agent_v10: str) -> None:
    r = cli("send", sdk_agent_v10, "msg hi", "-o", "json")
    assert r.code == 0, r
    doc = r.json()
    assert doc["task"] is None and doc["exitCode"] == 0 and doc["error"] is None
    assert doc["message"]["kind"] == "message" and doc["message"]["role"] == "agent"
    assert doc["message"]["parts"] == [{"kind": "text", "text": "echo: msg hi"}]


def test_message_reply_on_a_stream(cli: Cli, sdk_agent_compat: str) -> None:
    r = cli("send", sdk_agent_compat, "msg hi", "--stream", "--dialect", "0.3", "-o", "ndjson")
    assert r.code == 0, r
    (message,) = r.ndjson()
    assert message["kind"] == "message" and message["parts"] == [{"kind": "text", "text": "echo: msg hi"}]


# ------------------------------------------------------------------------------ get


def test_get_with_history_length(cli: Cli, wire_peer: Peer, tmp_path: Path) -> None:
    peer = wire_peer
    sent = cli("send", peer.url, TEXT, "-o", "json", *peer.args)
    assert sent.code == 0, sent
    task_id = sent.json()["task"]["id"]

    rec = tmp_path / "get.jsonl"
    r = cli("get", peer.url, task_id, "--history-length", "1", "-o", "json", *peer.args, "--record", str(rec))
    assert r.code == 0, r
    (request,) = rpc_requests(rec)
    assert request["rpc_method"] == WIRE_METHODS[peer.wire]["get"]
    assert request["json"]["params"] == {"id": task_id, "historyLength": 1}
    task = r.json()["task"]
    assert task["id"] == task_id and task["state"] == "completed"
    assert task["artifacts"][0]["text"] == ECHO
    # The agent returned only its last history message: the user's text is gone.
    texts = history_texts(r.json())
    assert TEXT not in texts and WORKING_TEXT in texts


def test_get_unknown_task_is_a_json_rpc_error(cli: Cli, sdk_agent_compat: str) -> None:
    r = cli("get", sdk_agent_compat, "no-such-task")
    assert_one_error_line(r, 3, "agent returned JSON-RPC error -32001", "not found")


# ------------------------------------------------------------------ cancel, resubscribe


def test_cancel_a_task_started_without_waiting(cli: Cli, held_peer: Peer, tmp_path: Path) -> None:
    started = cli("send", held_peer.url, HOLD_TEXT, "--no-wait", "-o", "json", *held_peer.args)
    assert started.code == 0, started
    task = started.json()["task"]
    assert task["state"] in ("submitted", "working")
    wait_parked(held_peer.url, task["id"])

    rec = tmp_path / "cancel.jsonl"
    r = cli("cancel", held_peer.url, task["id"], *held_peer.args, "--record", str(rec))
    assert r.code == 0, r
    assert rpc_methods(rec) == [WIRE_METHODS[held_peer.wire]["cancel"]]
    assert task_id_of(r) == task["id"]
    assert field(r, "state").split()[0] == "canceled"
    assert field(r, "message") == CANCELED_TEXT
    assert r.err == ""


def test_cancel_a_task_streaming_in_another_process(cli: Cli, held_peer: Peer) -> None:
    args = ("send", held_peer.url, HOLD_TEXT, "--stream", "-o", "ndjson", *held_peer.args)
    proc = cli.start(*args)
    first = b""
    try:
        first = read_line(proc)
        task = json.loads(first)
        assert task["kind"] == "task" and task["status"]["state"] == "submitted"
        wait_parked(held_peer.url, task["id"])

        r = cli("cancel", held_peer.url, task["id"], "-o", "json", *held_peer.args)
        assert r.code == 0, r
        doc = r.json()
        assert doc["task"]["state"] == "canceled" and doc["exitCode"] == 0
    finally:
        stream = finish(proc, args, already_read=first)
    # The stream saw the cancel and ended on it: for `send`, a task that did not complete.
    assert stream.code == 1, stream
    events = [e for e in stream.ndjson() if e["kind"] not in ("violation", "error")]
    assert events[0]["id"] == task["id"]
    last = events[-1]
    assert last["kind"] == "status-update" and last["status"]["state"] == "canceled", stream
    assert "Traceback" not in stream.err


def test_resubscribe_follows_a_running_task_to_the_end(cli: Cli, held_peer: Peer, tmp_path: Path) -> None:
    started = cli("send", held_peer.url, HOLD_TEXT, "--no-wait", "-o", "json", *held_peer.args)
    assert started.code == 0, started
    task_id = started.json()["task"]["id"]
    wait_parked(held_peer.url, task_id)

    rec = tmp_path / "resubscribe.jsonl"
    args = ("resubscribe", held_peer.url, task_id, *held_peer.args, "--record", str(rec))
    proc = cli.start(*args)
    first = b""
    try:
        # The task as it stands comes first; only then may it go on.
        first = read_line(proc)
        assert f"task {task_id} working" in first.decode(), first
        release(held_peer.url, task_id)
    finally:
        r = finish(proc, args, already_read=first)
    assert r.code == 0, r
    assert task_id_of(r) == task_id
    assert field(r, "state").split()[0] == "completed"
    progress = [x for x in r.out.splitlines() if x.startswith("[")]
    assert any(" artifact echo +" in x for x in progress), r
    assert progress[-1].endswith(f"completed: {DONE_TEXT}")
    assert r.out.splitlines()[-1] == f"  {HOLD_ECHO}"
    assert rpc_methods(rec) == [WIRE_METHODS[held_peer.wire]["resubscribe"]]


def test_resubscribe_to_a_finished_task_is_an_error(cli: Cli, sdk_agent_v10: str) -> None:
    sent = cli("send", sdk_agent_v10, TEXT)
    assert sent.code == 0, sent
    r = cli("resubscribe", sdk_agent_v10, task_id_of(sent))
    assert_one_error_line(r, 3, "agent returned JSON-RPC error", "terminal state")


# -------------------------------------------------------------------------- record


def test_record_redacts_the_bearer_token(cli: Cli, sdk_agent_compat: str, tmp_path: Path) -> None:
    path = tmp_path / "secret.jsonl"
    r = cli("send", sdk_agent_compat, TEXT, "--bearer", "s3cr3t-t0ken", "--record", str(path))
    assert r.code == 0, r
    assert "s3cr3t-t0ken" not in path.read_text(encoding="utf-8")
    (request,) = rpc_requests(path)
    assert request["headers"]["Authorization"] == "Bearer [redacted]"


# --------------------------------------------------------------------------- parts


def test_file_and_data_parts_reach_the_agent(cli: Cli, wire_peer: Peer, tmp_path: Path) -> None:
    peer = wire_peer
    note = tmp_path / "note.txt"
    note.write_bytes("hello file ✓\n".encode())
    data_file = tmp_path / "data.json"
    data_file.write_text(json.dumps({"from": "file", "n": [1, 2]}))
    uri = "https://example.com/files/report.pdf"
    rec = tmp_path / "parts.jsonl"

    r = cli(
        "send",
        peer.url,
        "with parts",
        "--file",
        str(note),
        "--file-uri",
        uri,
        "--data",
        '{"k":1}',
        "--data",
        f"@{data_file}",
        "-o",
        "json",
        "--record",
        str(rec),
        *peer.args,
    )
    assert r.code == 0, r
    task_id = r.json()["task"]["id"]
    assert r.json()["task"]["artifacts"][0]["text"] == "echo: with parts"

    # On the wire, in the dialect's spelling.
    (request,) = rpc_requests(rec)
    body = json.dumps(request["json"])
    assert base64.b64encode(note.read_bytes()).decode() in body
    assert uri in body and '"k": 1' in body and '"from": "file"' in body

    # And the agent stored them: a fresh process fetches the task's history.
    got = cli("get", peer.url, task_id, "-o", "json", *peer.args)
    assert got.code == 0, got
    user = got.json()["task"]["history"][0]
    assert user["role"] == "user"
    text, inline, by_uri, data1, data2 = user["parts"]
    assert text == {"kind": "text", "text": "with parts"}
    assert inline["kind"] == "file" and inline["file"]["name"] == "note.txt"
    assert inline["file"]["mimeType"] == "text/plain"
    assert base64.b64decode(inline["file"]["bytes"]) == note.read_bytes()
    assert by_uri["file"]["uri"] == uri and by_uri["file"]["name"] == "report.pdf"
    assert by_uri["file"]["mimeType"] == "application/pdf"
    assert data1 == {"kind": "data", "data": {"k": 1}}
    assert data2 == {"kind": "data", "data": {"from": "file", "n": [1, 2]}}


# --------------------------------------------------------------- dialect mismatch


@pytest.mark.parametrize("output", ["text", "json"])
def test_pure_1_0_agent_with_dialect_0_3_is_a_clear_error(cli: Cli, sdk_agent_v10: str, output: str) -> None:
    r = cli("send", sdk_agent_v10, TEXT, "--dialect", "0.3", "-o", output)
    # Its card lists no 0.3 interface: said before the call, and again after the error.
    assert r.code == 3, r
    warning, error, hint = r.err_lines
    assert warning.startswith("a2a-inspect: warning: the card lists no 0.2/0.3 interface (it lists: JSONRPC 1.0"), r
    for needle in ("JSON-RPC error -32601", "Method not found", "A2A 0.3", "--dialect auto"):
        assert needle in error, r
    assert hint.startswith("a2a-inspect: the card lists no 0.2/0.3 interface, so "), r
    if output == "json":
        doc = r.json()
        assert doc["exitCode"] == 3 and doc["task"] is None
        assert doc["error"]["type"] == "rpc" and doc["error"]["code"] == -32601
        assert doc["error"]["hint"] == hint.removeprefix("a2a-inspect: ")
    else:
        assert r.out == ""


def test_auto_detection_is_remembered_per_agent(cli: Cli, sdk_agent_v10: str) -> None:
    r = cli("send", sdk_agent_v10, TEXT)
    assert r.code == 0, r
    assert json.loads(cli.dialect_cache.read_text()) == {sdk_agent_v10: "1.0"}


# ---------------------------------------------------------------------------- list


def test_list_shows_the_agents_tasks(cli: Cli, sdk_agent_v10: str) -> None:
    sent = cli("send", sdk_agent_v10, "fail", "-o", "json")
    assert sent.code == 1, sent
    task_id = sent.json()["task"]["id"]
    r = cli("list", sdk_agent_v10, "--state", "failed", "-o", "ndjson")
    assert r.code == 0, r
    tasks = r.ndjson()
    assert task_id in [t["id"] for t in tasks]
    assert {t["status"]["state"] for t in tasks} == {"failed"}


def test_list_in_a_dialect_without_it_is_a_usage_error(cli: Cli, sdk_agent_compat: str) -> None:
    # 0.3 has no tasks/list: nothing is sent, and the user hears why.
    r = cli("list", sdk_agent_compat, "--dialect", "0.3")
    assert_one_error_line(r, 2, "the 0.2/0.3 dialect has no list method", "--dialect")


def test_a_command_in_process_tells_what_a_process_does(cli: Cli, sdk_agent_compat: str, tmp_path: Path) -> None:
    # Most tests run the CLI in the test's process (cli_helpers): same bytes, same code.
    for args in (
        ("card", sdk_agent_compat),
        ("send", sdk_agent_compat, "fail", "-o", "json"),
        ("get", sdk_agent_compat, "no-such-task"),
        ("send", sdk_agent_compat, "hi", "--bogus"),
    ):
        here, there = cli(*args), cli(*args, process=True)
        assert (here.code, here.err) == (there.code, there.err), (here, there)
        if "fail" in args:  # ids and times differ between two sends; the shape may not
            assert here.json().keys() == there.json().keys()
            assert here.json()["task"]["state"] == there.json()["task"]["state"] == "failed"
        else:
            assert here.out == there.out, (here, there)
