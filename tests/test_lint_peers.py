"""Card lint against the cards well-behaved implementations serve: none of them may get
an error, and ``a2a-inspect card`` must exit 0 on them (issue 27, items 1 to 3).

The JS SDK's cards are static fixtures (tests/fixtures/cards/js-sdk-1.3.0/): what an
agent on @a2a-js/sdk 1.3.0 serves at /.well-known/agent-card.json from the SDK's own
``agentCardHandler`` (express), with a card written the way the SDK's samples write
one (``tenant: ""``, ``documentationUrl: ""``, empty ``extensions``, ...), for all three
bindings, for HTTP+JSON only and for gRPC only. With ``legacyCompat: {enabled: true}``
the handler answers a request without ``A2A-Version`` (0.3, by 1.0 §3.6.2) with
``toCompatAgentCard``: the 0.3 fields (``url``, ``preferredTransport``,
``protocolVersion``, ``additionalInterfaces``, ``supportsAuthenticatedExtendedCard``)
taken from the interfaces whose version is in [0.3, 1.0), plus every
``supportedInterfaces`` entry; with ``A2A-Version: 1.0`` it serves the card as written.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from cli_helpers import Cli, cli  # noqa: F401  (fixture)
from inspector.protocol.lint import infer_dialect, lint_card
from inspector.serving.runner import BackgroundServer
from mock_agent.loader import builtins
from mock_agent.server import MockServer
from shared_paths import SCHEMAS
from test_codec_schema import assert_valid

JS_CARDS = Path(__file__).resolve().parent / "fixtures" / "cards" / "js-sdk-1.3.0"
#: The origin the fixtures were captured at; served, it becomes the test server's own.
JS_ORIGIN = "http://127.0.0.1:41251"
CARD_PATH = "/.well-known/agent-card.json"


def js_card(name: str) -> dict[str, Any]:
    return json.loads((JS_CARDS / f"{name}.json").read_text(encoding="utf-8"))


JS_NAMES = sorted(p.stem for p in JS_CARDS.glob("*.json"))
#: The cards of pure 1.0 shape, which the official v1.0.1 schema must accept as they are.
JS_PURE_V10 = ["all-bindings", "rest-only", "grpc-only", "legacy-compat-v1.0-request"]


def errors_and_warnings(raw: dict[str, Any], dialect: str | None = None) -> list[tuple[str, str, str]]:
    return [(f.severity, f.path, f.code) for f in lint_card(raw, dialect) if f.severity != "info"]


def test_the_js_fixtures_are_there() -> None:
    assert set(JS_PURE_V10) < set(JS_NAMES) and "legacy-compat-v0.3-request" in JS_NAMES


@pytest.mark.parametrize("name", JS_PURE_V10)
def test_js_sdk_cards_are_valid_1_0_cards(name: str) -> None:
    if not SCHEMAS.is_dir():
        pytest.skip(f"official schemas not found at {SCHEMAS}")
    assert_valid("v1.0.1", "Agent Card", js_card(name))


@pytest.mark.parametrize("name", JS_NAMES)
def test_js_sdk_cards_lint_clean(name: str) -> None:
    raw = js_card(name)
    assert infer_dialect(raw) == "1.0"
    assert errors_and_warnings(raw) == []
    assert errors_and_warnings(raw, "1.0") == []


def test_js_sdk_compat_card_lints_clean_as_0_3_too() -> None:
    # What a 0.3 client is served: its own fields must hold up by 0.3's rules.
    assert errors_and_warnings(js_card("legacy-compat-v0.3-request"), "0.3") == []


@pytest.fixture(scope="module")
def js_agent() -> Iterator[str]:
    """The fixtures served on loopback at /<name>/.well-known/agent-card.json, their HTTP
    interfaces rewritten to this server (nothing is ever sent to them: ``card`` only reads)."""

    async def serve(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in JS_NAMES:
            return Response(status_code=404)
        body = (JS_CARDS / f"{name}.json").read_text(encoding="utf-8")
        return Response(body.replace(JS_ORIGIN, str(request.base_url).rstrip("/")), media_type="application/json")

    app = Starlette(routes=[Route("/{name}" + CARD_PATH, serve, methods=["GET"])])
    with BackgroundServer(app) as srv:
        yield srv.url


@pytest.mark.parametrize("name", JS_NAMES)
def test_card_command_exits_0_on_js_sdk_cards(cli: Cli, js_agent: str, name: str) -> None:
    url = f"{js_agent}/{name}{CARD_PATH}"
    result = cli("card", url, "--json")
    assert result.code == 0, result
    doc = json.loads(result.out)
    assert [f for f in doc["findings"] if f["severity"] == "error"] == []
    text = cli("card", url)
    assert text.code == 0, text
    assert "Traceback" not in text.out + text.err


# ------------------------------------------------------------------ the Python a2a-sdk


def _sdk_dict(interfaces: list[tuple[str, str, str]]) -> dict[str, Any]:
    """A card built with a2a-sdk's own types, as its card route serves it."""
    a2a_pb2 = pytest.importorskip("a2a.types.a2a_pb2")
    helpers = pytest.importorskip("a2a.server.request_handlers.response_helpers")
    card = a2a_pb2.AgentCard(
        name="SDK Agent",
        description="Built with a2a-sdk's types.",
        version="1.0.0",
        supported_interfaces=[
            a2a_pb2.AgentInterface(url=url, protocol_binding=binding, protocol_version=version)
            for url, binding, version in interfaces
        ],
        provider=a2a_pb2.AgentProvider(url="https://example.invalid", organization="a2a-inspect tests"),
        capabilities=a2a_pb2.AgentCapabilities(streaming=True),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[a2a_pb2.AgentSkill(id="echo", name="Echo", description="Echoes.", tags=["echo"])],
    )
    return helpers.agent_card_to_dict(card)


@pytest.mark.parametrize(
    "interfaces",
    [
        [
            ("https://a.example/", "JSONRPC", "1.0"),
            ("https://a.example/rest", "HTTP+JSON", "1.0"),
            ("a.example:443", "GRPC", "1.0"),
        ],
        [("https://a.example/rest", "HTTP+JSON", "1.0")],
        [("a.example:443", "GRPC", "1.0")],
        [("https://a.example/", "JSONRPC", "1.0"), ("https://a.example/", "JSONRPC", "0.3")],
        [("a.example:443", "GRPC", "1.0"), ("a.example:443", "GRPC", "0.3")],
    ],
    ids=["all", "rest-only", "grpc-only", "jsonrpc-compat", "grpc-compat"],
)
def test_a2a_sdk_cards_built_with_its_types_lint_clean(interfaces: list[tuple[str, str, str]]) -> None:
    raw = _sdk_dict(interfaces)
    assert infer_dialect(raw) == "1.0"
    assert errors_and_warnings(raw) == []


@pytest.mark.parametrize("mode", ["compat", "v10", "grpc"])
def test_card_command_exits_0_on_the_a2a_sdk_peer(cli: Cli, request: pytest.FixtureRequest, mode: str) -> None:
    served = request.getfixturevalue(f"sdk_agent_{mode}")
    base = served[0] if isinstance(served, tuple) else served
    raw = httpx.get(base + CARD_PATH).json()
    assert errors_and_warnings(raw) == []
    result = cli("card", base, "--json")
    assert result.code == 0, result
    assert [f for f in json.loads(result.out)["findings"] if f["severity"] == "error"] == []


# ------------------------------------------------------------------ a2a-mock's built-ins


@pytest.mark.parametrize("served", [None, "0.1", "0.3", "1.0"])
def test_the_demo_card_has_no_error(served: str | None) -> None:
    # It used to leave provider.url empty on purpose, so that the TUI had a lint error to
    # show: a mock that fails its own lint.
    raw = json.loads(MockServer("demo", dialect=served).encoded_card("http://127.0.0.1:9/"))
    assert [f for f in lint_card(raw) if f.severity == "error"] == []


#: What lint says of each seed-mimicking built-in's card on purpose: the seeds' own cards
#: are reproduced as they are (Society's has an empty version and a skill with neither
#: description nor tags; both leave out the modes), and serving them as 0.3 or 1.0 fills
#: the missing fields with empty values.
SEED_ERRORS: dict[tuple[str, str], set[str]] = {
    ("society", "0.1"): {"empty-version"},
    ("society", "0.3"): {"empty-version", "skill-missing-description"},
    ("society", "1.0"): {"empty-version", "skill-missing-description", "empty-required-array"},
    ("society-ai", "1.0"): {"empty-required-array"},
}


@pytest.mark.parametrize("served", ["0.1", "0.3", "1.0"])
@pytest.mark.parametrize("name", sorted(builtins()))
def test_builtin_cards_have_no_error_but_the_seeds_own(name: str, served: str) -> None:
    raw = json.loads(MockServer(name, dialect=served).encoded_card("http://127.0.0.1:9/"))
    assert infer_dialect(raw) == served
    errors = {f.code for f in lint_card(raw) if f.severity == "error"}
    assert errors == SEED_ERRORS.get((name, served), set())


def test_a_card_whose_url_is_no_url_is_shown_with_its_finding(cli: Cli) -> None:
    """``url: "http://[x"`` does not parse at all: ``card`` shows the card and the lint's
    finding (exit 1), not a traceback."""
    card = {**js_card("all-bindings"), "url": "http://[x", "protocolVersion": "0.3.0", "preferredTransport": "JSONRPC"}
    card.pop("supportedInterfaces", None)

    async def serve(request: Request) -> Response:
        return Response(json.dumps(card), media_type="application/json")

    app = Starlette(routes=[Route(CARD_PATH, serve, methods=["GET"])])
    with BackgroundServer(app) as srv:
        result = cli("card", srv.url)
    assert "Traceback" not in result.out + result.err, result
    assert result.code == 1, result
    assert "http://[x" in result.out
