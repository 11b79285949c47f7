"""``a2a-mock --replay`` with a recording of gRPC exchanges: recorded by the inspector
against a2a-mock over gRPC, served back over gRPC (``--grpc-port``), the inspector
pointed at it, and ``replay --against`` finding it equivalent."""

from __future__ import annotations

from pathlib import Path

import pytest

from binding_matrix import MOCK_SCENARIO, message
from cli_helpers import Cli, cli  # noqa: F401 - cli is a fixture
from inspector.client import A2AClient
from inspector.headless.resend import diff_against
from inspector.protocol import models as m
from inspector.protocol.errors import JsonRpcError
from inspector.protocol.grpc_codec import GrpcError
from inspector.serving.runner import BackgroundServer
from inspector.session import Kind, Recorder, Session, load_recording
from mock_agent import MockAgent
from mock_agent.replay import ReplayServer
from test_replay_serve import mock_process


async def record(target: str, path: Path, dialect: str) -> None:
    session = Session()
    with Recorder.attach(session, path):
        async with A2AClient(target, session=session, dialect=dialect) as client:
            [e async for e in client.stream(message("hello stream"))]
            asked = await client.send(message("ask me"))
            await client.send(message("blue", asked))
            await client.get_task(asked.id, history_length=2)
            with pytest.raises(GrpcError):
                await client.get_task("no-such-task")


@pytest.mark.parametrize("dialect", ["1.0", "0.3"])
async def test_a_grpc_recording_is_served_back_over_grpc(tmp_path: Path, dialect: str) -> None:
    path = tmp_path / "grpc.jsonl"
    async with MockAgent(MOCK_SCENARIO, dialect=dialect, grpc_port=0) as mock:
        await record(mock.grpc_url, path, dialect)
    server = ReplayServer([path], speed=0, grpc_port=0)
    async with BackgroundServer(server.app):
        target = f"grpc://{server.grpc_address}"
        async with A2AClient(target, dialect=dialect) as client:
            events = [e async for e in client.stream(message("hello stream"))]
            assert events[-1].status.state is m.TaskState.COMPLETED
            asked = await client.send(message("ask me"))
            assert asked.status.state is m.TaskState.INPUT_REQUIRED
            answered = await client.send(message("blue", asked))
            assert answered.id == asked.id and answered.status.state is m.TaskState.COMPLETED
            assert (await client.get_task(asked.id, history_length=2)).id == asked.id
            with pytest.raises(GrpcError) as raised:
                await client.get_task("no-such-task")
            assert (raised.value.code, raised.value.status) == (-32001, "NOT_FOUND")
            # A request the recording never made: said, as a gRPC status.
            with pytest.raises(GrpcError) as raised:
                await client.cancel(asked.id)
            assert "no recorded request matches" in raised.value.message
        # Two clients replaying the same conversation get two different tasks.
        async with A2AClient(target, dialect=dialect) as other:
            again = await other.send(message("ask me"))
            assert again.id != asked.id

        live = Session()
        report = await diff_against(load_recording(path), target, session=live)
        assert report.equivalent, [d.to_json() for d in report.exchanges]
        assert [d.recorded.method for d in report.exchanges][-5:] == ["stream", "send", "send", "get", "get"]
        assert {e.data.get("binding") for e in live.events if e.kind is Kind.REQUEST} == {"grpc"}


def test_replay_cli_serves_grpc_and_diff_says_equivalent(cli: Cli, tmp_path: Path) -> None:
    """As a user does it: record with --record, replay with a2a-mock --replay --grpc-port,
    diff with a2a-inspect replay --against."""
    path = tmp_path / "grpc.jsonl"
    with MockAgent(MOCK_SCENARIO, dialect="1.0", grpc_port=0) as mock:
        result = cli("send", "--stream", mock.grpc_url, "hello stream", "--record", str(path))
        assert result.code == 0, result
        result = cli("send", mock.grpc_url, "hi there", "--record", str(path), "--append")
        assert result.code == 0, result
    with mock_process("--replay", str(path), "--grpc-port", "0", "--speed", "0") as (_url, proc):
        assert proc.stdout is not None
        # The rest of the banner, printed at once with its first line: (card lines,) gRPC, Ctrl-C.
        grpc_line = ""
        while "gRPC (" not in grpc_line and "Ctrl-C" not in grpc_line:
            grpc_line = proc.stdout.readline()
        assert "gRPC (1.0)" in grpc_line, grpc_line
        target = grpc_line.split("): ", 1)[1].strip()
        assert target.startswith("grpc://127.0.0.1:")
        result = cli("replay", str(path), "--against", target)
    assert result.code == 0, result
    assert "equivalent" in result.out, result


async def test_a_json_rpc_client_is_told_the_recording_is_grpc(tmp_path: Path) -> None:
    path = tmp_path / "grpc.jsonl"
    async with MockAgent(MOCK_SCENARIO, dialect="1.0", grpc_port=0) as mock:
        await record(mock.grpc_url, path, "1.0")
    server = ReplayServer([path], speed=0)
    async with BackgroundServer(server.app) as srv:
        async with A2AClient(srv.url, dialect="1.0", binding="jsonrpc") as client:
            with pytest.raises(JsonRpcError) as raised:
                await client.send(message("ask me"))
    assert raised.value.code == -32601
    assert "holds no JSON-RPC request, only gRPC ones; serve it with --grpc-port" in raised.value.message
