"""gRPC on the command line, against the real a2a-sdk agent's gRPC server: a grpc://
URL, --binding grpc, the card's interface chosen by auto, errors in one line with the
gRPC status and the JSON-RPC code, and a recording replayed against it."""

from __future__ import annotations

import json
from pathlib import Path

from cli_helpers import Cli, assert_one_error_line, cli  # noqa: F401 - cli is a fixture


def test_send_and_stream_to_a_grpc_url(cli: Cli, sdk_agent_grpc: tuple[str, str], tmp_path: Path) -> None:
    _, target = sdk_agent_grpc
    result = cli("send", target, "hello grpc world", "-o", "json")
    assert result.code == 0, result
    assert result.json()["task"]["state"] == "completed"
    record = tmp_path / "s.jsonl"
    result = cli(
        "send", target, "stream me now", "--stream", "--dialect", "0.3", "-o", "ndjson", "--record", str(record)
    )
    assert result.code == 0, result
    assert [e["kind"] for e in result.ndjson()][-1] == "status-update"
    lines = [json.loads(line) for line in record.read_text().splitlines()]
    (request,) = [e for e in lines if e.get("kind") == "request" and e.get("a2a_method") == "stream"]
    assert request["url"] == target + "/a2a.v1.A2AService/SendStreamingMessage" and request["binding"] == "grpc"
    assert sum(1 for e in lines if e.get("kind") == "message") == 6

    replayed = cli("replay", str(record), "--against", target)
    assert replayed.code == 0, replayed


def test_card_over_http_picks_the_grpc_interface(cli: Cli, sdk_agent_grpc: tuple[str, str]) -> None:
    base, target = sdk_agent_grpc
    # A bare grpc:// URL: the card comes from the agent's card RPC, linted as served.
    bare = cli("card", target)
    assert bare.code == 0, bare
    assert "Echo Agent" in bare.out and "lint: 0 error(s)" in bare.out
    auto = cli("card", base, "-o", "json").json()
    assert auto["binding"] == "grpc" and "GRPC" in auto["bindingReason"]
    chosen = cli("send", base, "hello", "--binding", "grpc", "-o", "json")
    assert chosen.code == 0, chosen


def test_grpc_errors_show_the_status_and_the_json_rpc_code(cli: Cli, sdk_agent_grpc: tuple[str, str]) -> None:
    _, target = sdk_agent_grpc
    result = cli("get", target, "no-such-task", "--dialect", "1.0")
    assert_one_error_line(result, 3, "gRPC 5 NOT_FOUND TASK_NOT_FOUND", "JSON-RPC -32001")
    result = cli("get", target, "t1", "--binding", "rest")
    assert_one_error_line(result, 2, "is a gRPC URL")
