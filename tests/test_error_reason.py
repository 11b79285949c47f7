"""An HTTP error says why it happened: the reason the body gives is in the CLI's error
line and in ``-o json``'s ``error.detail`` (issue 27 item 6a), not only in the traffic.

The agent (tests/failing_agent.py) is a real Starlette app on 127.0.0.1 whose card lists
JSON-RPC and HTTP+JSON at ``/{shape}``; every call answers 500 with the body ``shape``
names.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import jsonschema
import pytest

from cli_helpers import Cli, assert_one_error_line, cli  # noqa: F401 - cli is a fixture
from failing_agent import LEAKS, SHAPES, build_app
from inspector.client.error_reason import REASON_CHARS, body_reason, excerpt
from inspector.serving.runner import BackgroundServer

SCHEMA = Path(__file__).resolve().parents[1] / "docs" / "output.schema.json"


@pytest.fixture(scope="module")
def agent() -> Iterator[str]:
    with BackgroundServer(build_app()) as srv:
        yield srv.url


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text()))


@pytest.mark.parametrize("binding", ["jsonrpc", "rest"])
@pytest.mark.parametrize("shape", [s for s in SHAPES if s != "google-status"])
def test_the_error_line_says_what_the_body_says(cli: Cli, agent: str, shape: str, binding: str) -> None:
    # (A google.rpc.Status is an A2A error on HTTP+JSON, and a JSON-RPC error object
    # one on JSON-RPC: their messages were shown before.)
    if shape == "jsonrpc-error" and binding == "jsonrpc":
        r = cli("send", f"{agent}/{shape}", "hi")
        assert_one_error_line(r, 3, "JSON-RPC error -32603 (Internal error): the model fell over [HTTP 500]")
        return
    reason = SHAPES[shape][2]
    r = cli("send", f"{agent}/{shape}", "hi", "--binding", binding)
    line = assert_one_error_line(r, 3, "HTTP 500 Internal Server Error (")
    assert line.endswith("): " + reason.replace("\n", "\\n")), line


@pytest.mark.parametrize("shape", list(SHAPES))
def test_json_output_has_the_reason_in_a_field(
    cli: Cli, agent: str, validator: jsonschema.Draft202012Validator, shape: str
) -> None:
    r = cli("send", f"{agent}/{shape}", "hi", "--binding", "rest", "-o", "json")
    assert r.code == 3, r
    doc = r.json()
    assert list(validator.iter_errors(doc)) == [], r
    error = doc["error"]
    if shape == "google-status":  # the HTTP+JSON binding's own error shape: an A2A error
        assert error["type"] == "rpc" and error["message"] == "backend unavailable", error
        assert error["httpStatus"] == 500 and error["status"] == "INTERNAL", error
        return
    assert error["type"] == "http", error
    assert error["httpStatus"] == 500, error
    assert error["detail"] == SHAPES[shape][2], error
    assert error["message"].endswith(": " + SHAPES[shape][2]), error


def test_ndjson_error_record_has_the_reason(cli: Cli, agent: str) -> None:
    r = cli("send", f"{agent}/detail", "hi", "--stream", "-o", "ndjson")
    assert r.code == 3, r
    records = r.ndjson()
    assert records[-1]["kind"] == "error" and records[-1]["detail"] == "model quota exhausted", r


def test_a_hostile_body_is_shown_bounded_and_literal(
    cli: Cli, agent: str, validator: jsonschema.Draft202012Validator
) -> None:
    r = cli("send", f"{agent}/hostile", "hi")
    line = assert_one_error_line(
        r,
        3,
        "HTTP 500 Internal Server Error (JSON, 1.0 MiB): [bold red]boom[/] "
        "\\x1b]0;pwned\\x07 \\x1b[2J \\u202egnp.exe xxx",
    )
    assert not any(leak in r.stderr_bytes for leak in LEAKS), r
    assert b"\x07" not in r.stderr_bytes, r
    assert line.endswith("x…"), line
    assert len(line) < 400, len(line)
    doc = cli("send", f"{agent}/hostile", "hi", "-o", "json").json()
    assert list(validator.iter_errors(doc)) == []
    detail = doc["error"]["detail"]
    assert detail.startswith("[bold red]boom[/] \x1b]0;pwned\x07") and detail.endswith("x…"), detail
    assert len(detail) == REASON_CHARS + 1


def test_a_card_that_fails_says_why(cli: Cli, agent: str) -> None:
    # Under /detail/x the card's paths answer 500 with a reason; at the origin, 500 with
    # a bare "Internal Server Error", which is the reason phrase again.
    r = cli("card", f"{agent}/detail/x")
    line = assert_one_error_line(r, 3, "no agent card found: tried ")
    assert f"{agent}/detail/x/.well-known/agent-card.json (HTTP 500: model quota exhausted)" in line, line
    assert f"{agent}/.well-known/agent-card.json (HTTP 500)" in line, line


# ------------------------------------------------------------ the excerpt itself


@pytest.mark.parametrize(
    ("ctype", "raw", "reason"),
    [
        (
            "application/json",
            b'{"error": "invalid_token", "error_description": "the token expired"}',
            "invalid_token: the token expired",
        ),
        (
            "application/json",
            b'{"detail": [{"loc": ["body"], "msg": "field required", "type": "missing"}]}',
            "field required",
        ),
        ("application/json", b'{"errors": [{"message": "not allowed"}]}', "not allowed"),
        ("application/json", b'"just a string"', "just a string"),
        ("application/json", b'{"unknown": 1}', '{"unknown": 1}'),  # no known key: the body's start
        ("application/json", b'{"error": ', '{"error":'),  # not JSON after all: its text
        ("text/plain", b"\n\n  one\n\ntwo\nthree\nfour\n", "one\ntwo\nthree…"),
        ("text/html", b"<html><title>Oops</title></html>", None),  # the title is named already
        ("application/octet-stream", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", None),
        ("application/json", b"", None),
        ("text/plain", b" \n\t\n", None),
    ],
)
def test_body_reason(ctype: str, raw: bytes, reason: str | None) -> None:
    assert body_reason(ctype, raw) == reason


def test_the_reason_phrase_again_is_not_a_reason() -> None:
    assert body_reason("text/plain", b"Not Found", "Not Found") is None
    assert body_reason("application/json", b'{"detail": "Not Found"}', "Not Found") is None
    assert body_reason("application/json", b'{"detail": "no task t-1"}', "Not Found") == "no task t-1"


def test_an_excerpt_is_bounded() -> None:
    assert excerpt("a" * 1000) == "a" * REASON_CHARS + "…"
    assert excerpt("one line") == "one line"
    assert body_reason("application/json", json.dumps({"error": "y" * (1 << 20)}).encode()).endswith("y…")
