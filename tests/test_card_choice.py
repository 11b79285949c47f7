"""A --binding or --dialect the card does not list is a guess, and the CLI says so
(issue 27 item 6b): a warning line before the call, and on failure a hint after the
error line (``error.hint`` in ``-o json``). Against well-behaved peers whose cards
list what is chosen, nothing is said.

Peers: a2a-mock speaking the 0.1 draft (its card has only its ``url``, JSON-RPC),
a2a-mock speaking 0.3 (JSON-RPC and HTTP+JSON, no gRPC), and the a2a-sdk Echo Agent
(tests/peers/sdk_agent.py, compat: 1.0 and 0.3 over JSON-RPC and HTTP+JSON, no gRPC).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import jsonschema
import pytest

from cli_helpers import Cli, cli  # noqa: F401 - cli is a fixture
from mock_agent import MockAgent

SCHEMA = Path(__file__).resolve().parents[1] / "docs" / "output.schema.json"
WARNING = "a2a-inspect: warning: "


@pytest.fixture(scope="module")
def mock_01() -> Iterator[str]:
    with MockAgent("echo", dialect="0.1") as mock:
        yield mock.url


@pytest.fixture(scope="module")
def mock_03() -> Iterator[str]:
    with MockAgent("echo", dialect="0.3") as mock:
        yield mock.url


def _base(url: str) -> str:
    return url.rstrip("/")


# (peer fixture, options, the warning's start, the error line's words, the hint)
GUESSES = [
    (
        "mock_01",
        ("--binding", "rest"),
        "the card lists no HTTP+JSON/REST interface (it lists: JSONRPC at {url}/, its url); trying {url} anyway",
        "HTTP 404 Not Found",
        "the card lists no HTTP+JSON/REST interface, so {url} was a guess: --binding auto uses one it lists",
    ),
    (
        "mock_01",
        ("--binding", "grpc"),
        "the card lists no gRPC interface (it lists: JSONRPC at {url}/, its url); trying {url} anyway"
        " (gRPC to an HTTP endpoint: expect an HTTP/2 error)",
        "cannot connect to 127.0.0.1:",
        "the card lists no gRPC interface, so {url} was a guess: --binding auto uses one it lists",
    ),
    (
        "mock_03",
        ("--binding", "grpc"),
        "the card lists no gRPC interface for 0.2/0.3 (it lists: JSONRPC 0.3 at {url}/, HTTP+JSON 0.3 at "
        "{url}/rest); trying {url} anyway"
        " (gRPC to an HTTP endpoint: expect an HTTP/2 error)",
        "cannot connect to 127.0.0.1:",
        "the card lists no gRPC interface for 0.2/0.3, so {url} was a guess: --binding auto uses one it lists",
    ),
    (
        "mock_03",
        ("--dialect", "0.1"),
        "the card lists no 0.1 draft interface (it lists: JSONRPC 0.3 at {url}/, HTTP+JSON 0.3 at {url}/rest); "
        "trying {url}/ anyway",
        "JSON-RPC error -32601",
        "the card lists no 0.1 draft interface, so {url}/ was a guess: --dialect auto uses one it lists",
    ),
    (
        "sdk_agent_compat",
        ("--binding", "grpc"),
        "the card lists no gRPC interface for 1.0 (it lists: JSONRPC 1.0 at {url}/, HTTP+JSON 1.0 at {url}/rest, "
        "JSONRPC 0.3 at {url}/, HTTP+JSON 0.3 at {url}/rest); trying {url} anyway"
        " (gRPC to an HTTP endpoint: expect an HTTP/2 error)",
        "cannot connect to 127.0.0.1:",
        "the card lists no gRPC interface for 1.0, so {url} was a guess: --binding auto uses one it lists",
    ),
    (
        "sdk_agent_compat",
        ("--dialect", "0.1"),
        "the card lists no 0.1 draft interface (it lists: JSONRPC 1.0 at {url}/, HTTP+JSON 1.0 at {url}/rest, "
        "JSONRPC 0.3 at {url}/, HTTP+JSON 0.3 at {url}/rest); trying {url}/ anyway",
        "JSON-RPC error -32601",
        "the card lists no 0.1 draft interface, so {url}/ was a guess: --dialect auto uses one it lists",
    ),
]


@pytest.mark.parametrize(
    ("peer", "options", "warning", "error", "hint"), GUESSES, ids=[f"{g[0]}{''.join(g[1])}" for g in GUESSES]
)
def test_a_guess_is_said_before_and_on_failure(
    cli: Cli, request: pytest.FixtureRequest, peer: str, options: tuple[str, ...], warning: str, error: str, hint: str
) -> None:
    url = _base(request.getfixturevalue(peer))
    r = cli("send", url, "hi", *options, "--timeout", "10")
    assert r.code == 3, r
    lines = r.err_lines
    assert len(lines) == 3, r
    assert lines[0] == WARNING + warning.format(url=url), r
    assert lines[1].startswith("a2a-inspect: ") and error in lines[1], r
    assert lines[2] == "a2a-inspect: " + hint.format(url=url), r


def test_json_output_has_the_hint(cli: Cli, mock_01: str) -> None:
    url = _base(mock_01)
    r = cli("send", url, "hi", "--binding", "rest", "-o", "json")
    assert r.code == 3, r
    doc = r.json()
    assert list(jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text())).iter_errors(doc)) == []
    assert doc["error"]["httpStatus"] == 404, doc
    assert doc["error"]["hint"] == (
        f"the card lists no HTTP+JSON/REST interface, so {url} was a guess: --binding auto uses one it lists"
    ), doc
    assert r.err_lines[0].startswith(WARNING + "the card lists no HTTP+JSON/REST interface"), r


# Choices the card lists: nothing to say, and the call works.
LISTED = [
    ("mock_01", ()),
    ("mock_01", ("--binding", "jsonrpc")),
    ("mock_03", ("--binding", "rest")),
    ("mock_03", ("--dialect", "0.2")),
    ("sdk_agent_compat", ()),
    ("sdk_agent_compat", ("--binding", "rest", "--dialect", "0.3")),
    ("sdk_agent_compat", ("--binding", "jsonrpc", "--dialect", "1.0")),
]


@pytest.mark.parametrize(("peer", "options"), LISTED, ids=[f"{p}{''.join(o) or '-auto'}" for p, o in LISTED])
def test_a_choice_the_card_lists_says_nothing(
    cli: Cli, request: pytest.FixtureRequest, peer: str, options: tuple[str, ...]
) -> None:
    r = cli("send", request.getfixturevalue(peer), "hi", *options)
    assert r.code == 0, r
    assert r.err == "", r


@pytest.fixture(scope="module")
def half_grpc() -> Iterator[str]:
    """An agent whose card lists JSON-RPC for 1.0 and 0.3 but gRPC for 1.0 only: the
    mock serves every call; a loopback server serves this card in front of it."""
    from starlette.applications import Starlette
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    from inspector.serving.runner import BackgroundServer

    with MockAgent("echo", dialect="all", grpc_port=0) as mock:
        base = _base(mock.url)
        card = {
            "name": "Half gRPC",
            "description": "gRPC for 1.0 only",
            "version": "1",
            "skills": [],
            "capabilities": {"streaming": True},
            "defaultInputModes": ["text/plain"],
            "defaultOutputModes": ["text/plain"],
            "supportedInterfaces": [
                {"url": f"{base}/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
                {"url": f"{base}/", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"},
                {"url": mock.grpc_address, "protocolBinding": "GRPC", "protocolVersion": "1.0"},
            ],
        }

        async def served(request: object) -> JSONResponse:
            return JSONResponse(card)

        with BackgroundServer(Starlette(routes=[Route("/.well-known/agent-card.json", served)])) as srv:
            yield _base(srv.url)


def test_grpc_listed_for_another_dialect_is_named_with_the_way_to_it(cli: Cli, half_grpc: str) -> None:
    r = cli("send", half_grpc, "hi", "--dialect", "0.3", "--binding", "grpc", "--timeout", "10")
    assert r.code == 3, r
    warning, error, hint = r.err_lines
    grpc_at = warning.split("gRPC only for 1.0 (at ")[1].split(")")[0]
    assert grpc_at.startswith("127.0.0.1:"), r
    assert warning.startswith(
        WARNING + f"the card lists gRPC only for 1.0 (at {grpc_at}), not for 0.2/0.3 (it lists: "
    ), r
    assert warning.endswith(f"trying {half_grpc} anyway (gRPC to an HTTP endpoint: expect an HTTP/2 error)"), r
    assert "HTTP/2" in error, r
    assert hint == (
        f"a2a-inspect: the card lists gRPC only for 1.0 (at {grpc_at}), not for 0.2/0.3, so "
        f"{half_grpc} was a guess: --dialect 1.0 uses it"
    ), r
    # What the hint says works: the card's gRPC interface, no warning.
    ok = cli("send", half_grpc, "hi", "--dialect", "1.0", "--binding", "grpc", "--timeout", "10")
    assert ok.code == 0 and ok.err == "", ok
