"""a2a-inspect's gRPC client against a2a-mock's gRPC server (``--grpc-port``), 1.0 and
0.3: the matrix every binding runs (binding_matrix.py), the card's GRPC interface chosen
by name and by URL, every A2A error the mock can script read back as its JSON-RPC code
with its gRPC status, and the scenario's faults (drop, HTTP/gRPC status, malformed,
delays) as the client reports them; through A2AClient and through the CLI."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from binding_matrix import DIALECTS, MOCK_SCENARIO, mock_matrix, msg, requests
from cli_helpers import Cli, assert_one_error_line, cli  # noqa: F401 - cli is a fixture
from inspector.client import A2AClient
from inspector.protocol import grpc_errors
from inspector.protocol import models as m
from inspector.protocol.errors import describe_rpc_error
from inspector.protocol.grpc_codec import GrpcError
from inspector.session import TaskTracker
from inspector.session.events import Kind
from mock_agent import MockAgent

#: Every A2A error code the mock can script, one rule each ("err -32001" ...).
CODES = sorted(grpc_errors.ERROR_NAMES_03)
FAULTS: dict[str, Any] = {
    **MOCK_SCENARIO,
    "extended_card": {**MOCK_SCENARIO["card"], "name": "Interop Agent (extended)"},
    "rules": [
        *(
            {"when": {"text": f"^err {code}$"}, "script": [{"error": {"code": code, "message": f"scripted {code}"}}]}
            for code in CODES
        ),
        {
            "when": {"text": "^late error"},
            "script": [{"status": "working"}, {"error": {"code": -32004, "message": "gave up"}}],
        },
        {"when": {"text": "^http 503"}, "script": [{"http": {"status": 503, "body": "busy"}}]},
        {
            "when": {"text": "^http 429"},
            "script": [{"http": {"status": 429, "body": "slow down", "grpc": "RESOURCE_EXHAUSTED"}}],
        },
        {"when": {"text": "^late fault"}, "script": [{"status": "working"}, {"http": {"status": 500, "body": "late"}}]},
        {
            "when": {"text": "^malformed"},
            "script": [{"status": "working"}, {"malformed": "not a message"}, {"status": "completed"}],
        },
        {
            "when": {"text": "^drop"},
            "script": [
                {"status": "working"},
                {"artifact": {"name": "partial", "text": "half"}},
                {"drop": True},
                {"status": "completed"},
            ],
        },
        {
            "when": {"text": "^slow"},
            "script": [{"status": "working"}, {"delay": 0.05}, {"status": "completed", "message": "late"}],
        },
        *MOCK_SCENARIO["rules"],
    ],
}


@pytest.mark.parametrize("dialect", DIALECTS)
async def test_the_matrix_against_the_mock_over_grpc(dialect: str) -> None:
    async with MockAgent(MOCK_SCENARIO, dialect=dialect, grpc_port=0) as mock:
        async with A2AClient(mock.base_url, dialect=dialect, binding="grpc") as client:
            task = await mock_matrix(client, mock)
            assert (client.binding, client.endpoint) == ("grpc", mock.grpc_address)

            with pytest.raises(GrpcError) as raised:
                await client.get_task("no-such-task")
            assert (raised.value.code, raised.value.grpc_code, raised.value.status) == (-32001, 5, "NOT_FOUND")
            with pytest.raises(GrpcError) as raised:
                await client.cancel(task.id)
            assert (raised.value.code, raised.value.status) == (-32002, "FAILED_PRECONDITION")
            # A scripted error reaches the client as a gRPC status, on a send and on a stream.
            with pytest.raises(GrpcError) as raised:
                await client.send(msg("boom"))
            assert (raised.value.code, raised.value.status) == (-32004, "FAILED_PRECONDITION")
            assert raised.value.message.endswith("not today")
            with pytest.raises(GrpcError) as raised:
                [e async for e in client.stream(msg("boom again"))]
            assert raised.value.code == -32004
        assert [v.code for v in TaskTracker(client.session).violations] == []
        package = "lf.a2a.v1" if dialect == "1.0" else "a2a.v1"
        sent = requests(client)
        assert {r["binding"] for r in sent} == {"grpc"}
        assert all(r["url"].startswith(f"{mock.grpc_url}/{package}.A2AService/") for r in sent)
        served = {r["rpc"] for r in mock.requests if isinstance(r, dict) and r.get("binding") == "grpc"}
        assert {"SendMessage", "SendStreamingMessage", "GetTask", "CancelTask"} <= served


async def test_the_card_lists_grpc_and_auto_takes_the_first_interface() -> None:
    async with MockAgent(MOCK_SCENARIO, dialect="1.0", grpc_port=0) as mock:
        # The mock lists JSON-RPC first: auto takes it, and says why.
        async with A2AClient(mock.base_url) as client:
            await client.send(msg("hi auto"))
            assert (client.binding, client.binding_source) == ("jsonrpc", "card")
        async with A2AClient(mock.base_url, binding="grpc") as client:
            task = await client.send(msg("hi picked"))
            assert task.status.state is m.TaskState.COMPLETED
            assert (client.binding, client.endpoint) == ("grpc", mock.grpc_address)
        # A bare grpc:// URL: no HTTP card to read; the card RPC answers, the dialect follows.
        async with A2AClient(mock.grpc_url) as client:
            task = await client.send(msg("hi bare"))
            assert task.status.state is m.TaskState.COMPLETED
            assert client.dialect is not None and client.dialect.name == "1.0" and client.binding == "grpc"


@pytest.mark.parametrize("dialect", DIALECTS)
async def test_every_scripted_error_reads_back_as_its_code(dialect: str) -> None:
    """The mock maps each JSON-RPC code to a gRPC status + ErrorInfo (0.3: + the error's
    name in the message); the client maps it back: the same code, both shown."""
    async with MockAgent(FAULTS, dialect=dialect, grpc_port=0) as mock:
        async with A2AClient(mock.grpc_url, dialect=dialect) as client:
            for code in CODES:
                with pytest.raises(GrpcError) as raised:
                    await client.send(msg(f"err {code}"))
                err = raised.value
                assert (err.code, err.grpc_code) == (code, grpc_errors.status_for_rpc_code(code)), code
                assert err.message.endswith(f"scripted {code}")
                line = describe_rpc_error(err)
                assert f"gRPC {err.grpc_code} {err.status}" in line and f"JSON-RPC {code}" in line


@pytest.mark.parametrize("dialect", DIALECTS)
async def test_faults_over_grpc_as_the_client_reports_them(dialect: str) -> None:
    async with MockAgent(FAULTS, dialect=dialect, grpc_port=0) as mock:
        async with A2AClient(mock.grpc_url, dialect=dialect) as client:
            # An HTTP status fault: the status a gRPC client reports for it, or the step's own.
            with pytest.raises(GrpcError) as raised:
                await client.send(msg("http 503"))
            assert (raised.value.status, raised.value.message) == ("UNAVAILABLE", "busy")
            with pytest.raises(GrpcError) as raised:
                await client.send(msg("http 429"))
            assert raised.value.status == "RESOURCE_EXHAUSTED"
            # Mid-stream: the events before it, then the status ends the call.
            seen: list[Any] = []
            with pytest.raises(GrpcError) as raised:
                async for event in client.stream(msg("late fault")):
                    seen.append(event)
            assert raised.value.status == "UNKNOWN" and [type(e).__name__ for e in seen] == [
                "Task",
                "TaskStatusUpdateEvent",
            ]
            with pytest.raises(GrpcError) as raised:
                [e async for e in client.stream(msg("late error"))]
            assert (raised.value.code, raised.value.status) == (-32004, "FAILED_PRECONDITION")
            # A dropped stream ends UNAVAILABLE after what came before it.
            seen = []
            with pytest.raises(GrpcError) as raised:
                async for event in client.stream(msg("drop it")):
                    seen.append(event)
            assert raised.value.status == "UNAVAILABLE"
            assert [type(e).__name__ for e in seen] == ["Task", "TaskStatusUpdateEvent", "TaskArtifactUpdateEvent"]
            # A message that does not parse is skipped, said, and the stream goes on.
            events = [e async for e in client.stream(msg("malformed one"))]
            assert events[-1].status.state is m.TaskState.COMPLETED
            bad = [e for e in client.session.events if e.kind is Kind.MESSAGE and e.data.get("error")]
            assert len(bad) == 1 and bad[0].data["raw"] and "not a valid" in bad[0].data["error"]
            # A delay is only a delay.
            slow = await client.send(msg("slow down please"))
            assert slow.status.state is m.TaskState.COMPLETED
        ends = [e.data for e in client.session.events if e.kind is Kind.STREAM_END]
        assert [d["grpc_status"] for d in ends if d["reason"] == "error"] == [
            "UNKNOWN",
            "FAILED_PRECONDITION",
            "UNAVAILABLE",
        ]


# ---------------------------------------------------------------------- the CLI


@pytest.fixture
def grpc_mock() -> Any:
    with MockAgent(FAULTS, dialect="1.0", grpc_port=0) as mock:
        yield mock


def test_cli_against_the_mock_over_grpc(cli: Cli, grpc_mock: Any, tmp_path: Path) -> None:
    mock = grpc_mock
    card = cli("card", mock.grpc_url)
    assert card.code == 0, card
    # No card over HTTP at a grpc:// URL: the card RPC's (1.0: the extended card), linted as served.
    assert "Interop Agent (extended)" in card.out and "lint: 0 error(s)" in card.out
    chosen = cli("card", mock.base_url, "--binding", "grpc", "-o", "json").json()
    assert chosen["binding"] == "grpc"
    sent = cli("send", "--binding", "grpc", mock.base_url, "hi there", "-o", "json")
    assert sent.code == 0, sent
    assert sent.json()["task"]["state"] == "completed"
    streamed = cli("send", "--stream", mock.grpc_url, "streamed", "-o", "ndjson")
    assert streamed.code == 0, streamed
    assert [e["kind"] for e in streamed.ndjson()][-1] == "status-update"
    asked = cli("send", mock.grpc_url, "ask me", "-o", "json").json()["task"]
    assert asked["state"] == "input-required"
    answered = cli(
        "send", mock.grpc_url, "blue", "--task-id", asked["id"], "--context-id", asked["contextId"], "-o", "json"
    )
    assert answered.code == 0, answered
    assert (answered.json()["task"]["id"], answered.json()["task"]["state"]) == (asked["id"], "completed")
    got = cli("get", mock.grpc_url, asked["id"], "-o", "json")
    assert got.code == 0 and got.json()["task"]["state"] == "completed", got
    assert_one_error_line(
        cli("get", mock.grpc_url, "no-such-task"), 3, "gRPC 5 NOT_FOUND TASK_NOT_FOUND", "JSON-RPC -32001"
    )
    assert_one_error_line(
        cli("send", mock.grpc_url, "err -32007"),
        3,
        "gRPC 9 FAILED_PRECONDITION EXTENDED_AGENT_CARD_NOT_CONFIGURED",
        "JSON-RPC -32007",
    )
    assert_one_error_line(cli("send", mock.grpc_url, "http 503"), 3, "gRPC 14 UNAVAILABLE")


def test_card_of_a_grpc_url_without_an_extended_card_says_what_the_rpc_answered(cli: Cli) -> None:
    # The built-in echo scenario declares no extended card: the card RPC refuses, as a2a-sdk's does.
    with MockAgent("echo", grpc_port=0) as mock:
        url = mock.grpc_url
        result = cli("card", url)
    assert_one_error_line(
        result,
        3,
        f"no agent card from {url}",
        "GetExtendedAgentCard answered gRPC 9",
        "(JSON-RPC -32004)",
        "give its http:// URL",
    )
