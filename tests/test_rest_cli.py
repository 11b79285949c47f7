"""--binding on the command line: REST against the real a2a-sdk agent, the choice and
its reason in ``card``, REST errors shown with both forms, gRPC and REST refused on 0.1."""

from __future__ import annotations

import json
from pathlib import Path

from cli_helpers import Cli, assert_one_error_line, cli  # noqa: F401 - cli is a fixture


def test_send_and_stream_over_rest(cli: Cli, sdk_agent_compat: str, tmp_path: Path) -> None:
    result = cli("send", sdk_agent_compat, "hello rest world", "--binding", "rest", "-o", "json")
    assert result.code == 0, result
    assert result.json()["task"]["state"] == "completed"
    record = tmp_path / "s.jsonl"
    result = cli(
        "send",
        sdk_agent_compat,
        "stream me now",
        "--stream",
        "--binding",
        "rest",
        "--dialect",
        "0.3",
        "-o",
        "ndjson",
        "--record",
        str(record),
    )
    assert result.code == 0, result
    assert [e["kind"] for e in result.ndjson()][-1] == "status-update"
    lines = [json.loads(line) for line in record.read_text().splitlines()]
    (request,) = [e for e in lines if e.get("kind") == "request" and e.get("a2a_method") == "stream"]
    assert request["url"] == sdk_agent_compat + "/rest/v1/message:stream" and request["binding"] == "rest"


def test_card_says_which_binding_and_why(cli: Cli, sdk_agent_compat: str) -> None:
    auto = cli("card", sdk_agent_compat, "-o", "json").json()
    assert auto["binding"] == "jsonrpc" and "card's first 1.0 interface" in auto["bindingReason"]
    rest = cli("card", sdk_agent_compat, "--binding", "rest")
    assert rest.code == 0, rest
    (line,) = [ln for ln in rest.out.splitlines() if ln.strip().startswith("binding ")]
    assert "HTTP+JSON/REST chosen by the user" in line


def test_rest_errors_show_the_http_form_and_the_json_rpc_code(cli: Cli, sdk_agent_compat: str) -> None:
    result = cli("get", sdk_agent_compat, "no-such-task", "--binding", "rest")
    assert_one_error_line(result, 3, "HTTP 404 NOT_FOUND TASK_NOT_FOUND", "JSON-RPC -32001")


def test_grpc_and_rest_on_0_1_are_refused_in_one_line(cli: Cli) -> None:
    # (gRPC itself was refused here until the client spoke it: tests/test_grpc_cli.py.)
    result = cli("get", "http://127.0.0.1:9", "t1", "--binding", "grpc", "--dialect", "0.1")
    assert_one_error_line(result, 2, "0.1 draft has no gRPC binding")
    result = cli("get", "http://127.0.0.1:9", "t1", "--binding", "rest", "--dialect", "0.1")
    assert_one_error_line(result, 2, "0.1 draft has no HTTP+JSON/REST binding")
