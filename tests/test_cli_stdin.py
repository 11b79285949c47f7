"""``a2a-inspect send URL -`` and ``--data @-``: what a pipeline gives, sent as written."""

from __future__ import annotations

import json
from pathlib import Path

from cli_helpers import Cli, assert_one_error_line, cli  # noqa: F401 - cli is a fixture
from inspector.session import Kind, load_recording
from mock_agent import MockAgent


def sent_message(path: Path) -> dict:
    (request,) = [e for e in load_recording(path).session.events if e.kind is Kind.REQUEST and e.data.get("rpc_method")]
    return json.loads(request.data["body"])["params"]["message"]


def test_the_text_comes_from_standard_input(cli: Cli, tmp_path: Path) -> None:
    with MockAgent("echo", dialect="0.3") as mock:
        rec = tmp_path / "r.jsonl"
        text = "line one\nline two ✓ — [bold]literal[/bold]"
        r = cli("send", mock.url, "-", "--record", str(rec), input=(text + "\n").encode())
    assert r.code == 0, r
    # One trailing newline is the pipeline's (echo, a here-doc), not the message's.
    assert sent_message(rec)["parts"] == [{"kind": "text", "text": text}]


def test_data_comes_from_standard_input(cli: Cli, tmp_path: Path) -> None:
    with MockAgent("echo", dialect="0.3") as mock:
        rec = tmp_path / "r.jsonl"
        r = cli("send", mock.url, "with data", "--data", "@-", "--record", str(rec), input=b'{"rows": [1, 2, 3]}\n')
    assert r.code == 0, r
    assert sent_message(rec)["parts"] == [
        {"kind": "text", "text": "with data"},
        {"kind": "data", "data": {"rows": [1, 2, 3]}},
    ]


def test_standard_input_feeds_one_thing_only(cli: Cli) -> None:
    r = cli("send", "http://127.0.0.1:1", "-", "--data", "@-", input=b"hi\n")
    assert_one_error_line(r, 2, "--data @-", "standard input is already read by the message text (-)")


def test_empty_or_undecodable_standard_input_is_a_usage_error(cli: Cli) -> None:
    assert_one_error_line(cli("send", "http://127.0.0.1:1", "-", input=b""), 2, "standard input was empty")
    assert_one_error_line(
        cli("send", "http://127.0.0.1:1", "-", input=b"caf\xe9\n"),
        2,
        "standard input is not UTF-8 (byte 0xe9 at offset 3)",
    )
    assert_one_error_line(
        cli("send", "http://127.0.0.1:1", "x", "--data", "@-", input=b"{nope"), 2, "--data: invalid JSON"
    )
