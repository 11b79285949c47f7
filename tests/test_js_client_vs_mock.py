"""The official JS SDK's client (@a2a-js/sdk 1.3.0, tests/peers/js/client.mjs) against
a2a-mock: over each binding the mock serves (JSON-RPC, HTTP+JSON/REST, gRPC), in 1.0
and in 0.3 (the SDK's legacy transports, chosen by its factories from the mock's 0.3
card); and against recordings a2a-inspect made, served back by ``a2a-mock --replay``.

Each call is a real node process on the SDK's own ClientFactory, talking to the mock
over loopback. The tasks that must be live while the SDK acts on them (cancel,
resubscribe) wait at a scenario gate: the test goes on once the mock holds them there.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from cli_helpers import Cli, cli  # noqa: F401 - cli is a fixture
from inspector.serving.runner import BackgroundServer
from mock_agent import MockAgent
from mock_agent.replay import ReplayServer
from peers import js_client, js_peers
from peers.js_client import TRANSPORTS, artifact_text

DIALECTS = ["1.0", "0.3"]
BINDINGS = ["jsonrpc", "rest", "grpc"]
GATE = "js"
#: @a2a-js/sdk 1.3.0's 0.3 REST and gRPC transports read each artifact update through
#: its _FromProto.taskArtifactUpdateEvent, which leaves out ``append`` (it keeps
#: ``lastChunk``): every chunk reaches the caller as a new artifact, although the mock
#: sent ``append: true`` (as it does on JSON-RPC, where the same SDK keeps it). Here the
#: tests check the chunks arrive in order, and that the SDK still drops the flag, so
#: they say when a new SDK fixes it.
SDK_DROPS_APPEND = {("0.3", "rest"), ("0.3", "grpc")}

SCENARIO: dict[str, Any] = {
    "name": "js-client",
    "card": {
        "name": "JS Interop Agent",
        "description": "For the JS SDK's client.",
        "version": "1.0.0",
        "capabilities": {"streaming": True},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "echo", "name": "Echo", "description": "Echoes.", "tags": ["echo"]}],
    },
    "rules": [
        {
            "when": {"text": "^hold"},
            "script": [
                {"status": "working", "message": "holding"},
                {"hold": GATE, "until": "message", "timeout": 60},
                {"status": "completed", "message": "released"},
            ],
        },
        {
            "when": {"text": "^ask"},
            "script": [{"ask": "Which city?", "then": [{"status": "completed", "message": "got {text}"}]}],
        },
        {
            "script": [
                {"status": "working", "message": "echoing"},
                {"chunks": {"id": "echo", "name": "echo", "texts": ["echo: ", "{text}", "!"]}},
                {"status": "completed", "message": "done"},
            ]
        },
    ],
}


def state(obj: dict[str, Any]) -> str:
    return obj["status"]["state"]


def texts(message: dict[str, Any] | None) -> str:
    return "".join(p.get("text", "") for p in (message or {}).get("parts", []))


def assert_chunks(streamed: js_client.JsRun, dialect: str, binding: str) -> None:
    """The echo artifact came in its three chunks, assembled as A2A says."""
    chunks = streamed.payloads("artifactUpdate")
    assert ["".join(p["text"] for p in c["artifact"]["parts"]) for c in chunks] == ["echo: ", "hello js", "!"]
    assert chunks[-1].get("lastChunk") is True
    if (dialect, binding) in SDK_DROPS_APPEND:
        assert not any(c.get("append") for c in chunks), "the SDK now keeps append: drop SDK_DROPS_APPEND"
    else:
        assert artifact_text(chunks, "echo") == "echo: hello js!"


def until_held(mock: MockAgent, count: int) -> None:
    deadline = time.monotonic() + 20
    while mock.held(GATE) != count:
        assert time.monotonic() < deadline, f"the mock never held {count} task(s) at its gate"
        time.sleep(0.005)


@pytest.fixture(scope="module")
def mocks() -> Any:
    js_peers.require()
    agents = {d: MockAgent(SCENARIO, dialect=d, grpc_port=0).start() for d in DIALECTS}
    try:
        yield agents
    finally:
        for agent in agents.values():
            agent.stop()


# ---------------------------------------------------------------------- live mock


@pytest.mark.parametrize("binding", BINDINGS)
@pytest.mark.parametrize("dialect", DIALECTS)
def test_send_stream_multi_turn_and_get(mocks: dict[str, MockAgent], dialect: str, binding: str) -> None:
    url = mocks[dialect].base_url
    streamed = js_client.run(url, binding, "stream", "hello js")
    assert streamed.code == 0, streamed
    # The SDK's own choice, from the mock's card: its 0.3 transports for the 0.3 card.
    assert streamed.transport == TRANSPORTS[dialect, binding], streamed.client
    assert streamed.client["protocolVersion"] == dialect
    assert [next(iter(line)) for line in streamed.lines] == [
        "task",
        "statusUpdate",
        "artifactUpdate",
        "artifactUpdate",
        "artifactUpdate",
        "statusUpdate",
    ]
    assert_chunks(streamed, dialect, binding)
    assert state(streamed.payloads("statusUpdate")[-1]) == "TASK_STATE_COMPLETED"

    asked = js_client.run(url, binding, "send", "ask me").task
    assert state(asked) == "TASK_STATE_INPUT_REQUIRED" and texts(asked["status"].get("message")) == "Which city?"
    answered = js_client.run(url, binding, "send", "Oslo", task=asked["id"], context=asked["contextId"]).task
    assert answered["id"] == asked["id"] and answered["contextId"] == asked["contextId"]
    assert state(answered) == "TASK_STATE_COMPLETED" and texts(answered["status"]["message"]) == "got Oslo"

    got = js_client.run(url, binding, "get", task=asked["id"]).task
    assert got["id"] == asked["id"] and state(got) == "TASK_STATE_COMPLETED"
    assert [texts(m) for m in got["history"] if m["role"] == "ROLE_USER"] == ["ask me", "Oslo"]

    missing = js_client.run(url, binding, "get", task="no-such-task")
    assert missing.code == 1 and missing.error is not None and "not found" in missing.error["message"].lower()


@pytest.mark.parametrize("binding", BINDINGS)
@pytest.mark.parametrize("dialect", DIALECTS)
def test_resubscribe_then_cancel(mocks: dict[str, MockAgent], dialect: str, binding: str) -> None:
    mock = mocks[dialect]
    url = mock.base_url
    held = js_client.run(url, binding, "send", "hold on", return_immediately=True).task
    assert state(held) in ("TASK_STATE_SUBMITTED", "TASK_STATE_WORKING")
    until_held(mock, 1)
    with js_client.started(url, binding, "resubscribe", task=held["id"]) as watching:
        head = watching.next_line()
        # Subscribed: the stream opens with the task as it is now.
        assert head["task"]["id"] == held["id"] and state(head["task"]) == "TASK_STATE_WORKING"
        canceled = js_client.run(url, binding, "cancel", task=held["id"]).task
        assert canceled["id"] == held["id"] and state(canceled) == "TASK_STATE_CANCELED"
        watched = watching.finish()
    assert watched.code == 0, watched
    assert state(watched.payloads("statusUpdate")[-1]) == "TASK_STATE_CANCELED"
    until_held(mock, 0)
    record = mock.task(held["id"])
    assert record is not None and record.task.status.state.value == "canceled"


@pytest.mark.parametrize("dialect", DIALECTS)
def test_auto_takes_the_cards_preference_and_a_missing_binding_is_one_error_line(dialect: str) -> None:
    js_peers.require()
    with MockAgent(SCENARIO, dialect=dialect) as mock:  # no gRPC: its card lists none
        auto = js_client.run(mock.base_url, "auto", "send", "hi")
        assert auto.code == 0 and auto.transport == TRANSPORTS[dialect, "jsonrpc"], auto
        missing = js_client.run(mock.base_url, "grpc", "send", "hi")
    assert missing.code == 1 and len(missing.lines) == 1, missing
    assert "the card lists no GRPC interface" in missing.error["message"]
    usage = js_client.run(mock.base_url, "carrier-pigeon", "send", "hi")
    assert (
        usage.code == 1 and usage.error["name"] == "UsageError" and "transport must be one of" in usage.error["message"]
    )


# ---------------------------------------------------------------------- a recording, served back


def _record(cli: Cli, url: str, binding: str, path: Path) -> dict[str, Any]:
    """a2a-inspect's own recording of a stream and a two-turn task, as a user makes it."""
    # Exit 4: the task waits for input.
    for args, code in ((("--stream", url, "hello js"), 0), ((url, "ask me"), 4)):
        result = cli("send", *args, "--binding", binding, "--record", str(path), "--append", "-o", "json")
        assert result.code == code, result
    asked = result.json()
    result = cli(
        "send",
        url,
        "Oslo",
        "--task-id",
        asked["task"]["id"],
        "--context-id",
        asked["task"]["contextId"],
        "--binding",
        binding,
        "--record",
        str(path),
        "--append",
        "-o",
        "json",
    )
    assert result.code == 0, result
    return asked


@pytest.mark.parametrize("binding", BINDINGS)
@pytest.mark.parametrize("dialect", DIALECTS)
def test_a_recording_served_by_replay_answers_the_js_client(
    cli: Cli, tmp_path: Path, dialect: str, binding: str
) -> None:
    """The JS SDK's requests are not a2a-inspect's (a text part's mediaType, empty
    metadata, a 0.3 ``blocking: true``, an ``A2A-Version: 0.3`` header): the replay
    must read them as the same requests, and its card must point the SDK's gRPC
    transport at the replay's own gRPC server."""
    js_peers.require()
    path = tmp_path / "session.jsonl"
    # The recorded agent is gone when the replay serves: nothing but the replay can answer.
    with MockAgent(SCENARIO, dialect=dialect, grpc_port=0) as mock:
        _record(cli, mock.base_url, binding, path)
    server = ReplayServer([path], speed=0, grpc_port=0)
    with BackgroundServer(server.app) as replay:
        streamed = js_client.run(replay.url, binding, "stream", "hello js")
        assert streamed.code == 0, streamed
        assert streamed.transport == TRANSPORTS[dialect, binding]
        assert_chunks(streamed, dialect, binding)
        assert state(streamed.payloads("statusUpdate")[-1]) == "TASK_STATE_COMPLETED"

        asked = js_client.run(replay.url, binding, "send", "ask me")
        assert asked.code == 0, asked
        assert state(asked.task) == "TASK_STATE_INPUT_REQUIRED"
        answered = js_client.run(
            replay.url, binding, "send", "Oslo", task=asked.task["id"], context=asked.task["contextId"]
        ).task
        # The recorded second turn, in the ids the replay gave this client.
        assert answered["id"] == asked.task["id"] and state(answered) == "TASK_STATE_COMPLETED"
        assert texts(answered["status"]["message"]) == "got Oslo"

        # What the recording does not hold is still refused, and said.
        other = js_client.run(replay.url, binding, "send", "something else")
        assert other.code == 1 and "no recorded request matches" in other.error["message"], other
