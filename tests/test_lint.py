"""Card lint: one small card per rule, asserting code, severity and path."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.protocol.card import DIALECTS, SCHEME_WRAPPERS, decode_card, encode_card
from inspector.protocol.lint import LINT_CODES, Finding, infer_dialect, lint_card

SHARED = Path(__file__).resolve().parents[2] / "shared"
CAPTURE = SHARED / "wire-captures" / "01_card_legacy_path.txt"

SKILL = {"id": "s", "name": "S", "description": "does s", "tags": ["t"]}
BASE: dict[str, dict[str, Any]] = {
    "0.1": {
        "name": "A",
        "url": "https://a.example/rpc",
        "version": "1",
        "capabilities": {},
        "skills": [{"id": "s", "name": "S"}],
    },
    "0.3": {
        "protocolVersion": "0.3.0",
        "name": "A",
        "description": "d",
        "url": "https://a.example/rpc",
        "version": "1",
        "capabilities": {},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [SKILL],
    },
    "1.0": {
        "name": "A",
        "description": "d",
        "version": "1",
        "supportedInterfaces": [
            {"url": "https://a.example/rpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
        ],
        "capabilities": {},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [SKILL],
    },
}


def card(dialect: str, change: Callable[[dict[str, Any]], Any] | None = None, **fields: Any) -> dict[str, Any]:
    raw = copy.deepcopy(BASE[dialect])
    raw.update(fields)
    if change is not None:
        change(raw)
    return raw


def triples(findings: list[Finding]) -> set[tuple[str, str, str]]:
    return {(f.severity, f.path, f.code) for f in findings}


@pytest.mark.parametrize("dialect", DIALECTS)
def test_base_cards_are_clean(dialect: str) -> None:
    # Every rule test below mutates one of these: a finding there comes from the mutation.
    assert lint_card(card(dialect), dialect) == []


def test_capture_card_has_no_errors_or_warnings() -> None:
    if not CAPTURE.is_file():
        pytest.skip(f"reference capture not found at {CAPTURE}")
    text = CAPTURE.read_text(encoding="utf-8")
    raw = json.loads(next(line[4:] for line in text.splitlines() if line.startswith("<<< {")))
    assert infer_dialect(raw) == "1.0"
    for dialect in (None, "1.0", "0.3"):
        findings = lint_card(raw, dialect)
        assert [f for f in findings if f.severity != "info"] == [], dialect
        assert ("info", "$", "mixed-dialect-card") in triples(findings)


def seed_card(file: str, marker: str) -> dict[str, Any]:
    """The card in a seed doc page (seed 002's carries a // comment line)."""
    path = SHARED / "seeds" / file
    if not path.is_file():
        pytest.skip(f"reference seed not found at {path}")
    text = path.read_text(encoding="utf-8")
    start = text.rindex("{", 0, text.index(marker))
    body = "\n".join(line for line in text[start:].splitlines() if not line.strip().startswith("//"))
    return json.JSONDecoder().raw_decode(body)[0]


def test_seed_cards() -> None:
    maps = seed_card("002_83c6fe7e09a9fa25.txt", '"name": "Google Maps Agent"')
    assert infer_dialect(maps) == "0.1"
    assert triples(lint_card(maps)) == {("warning", "$.authentication.schemes", "legacy-schemes-string")}
    claude = seed_card("000_397570004ad1ae23.txt", '"name": "claude"')
    # No version declared, and none of the keys later versions added: a 0.1 card by its
    # shape, linted by 0.1's rules; the draft's version field its agents left out is a warning.
    assert infer_dialect(claude) == "0.1"
    assert triples(lint_card(claude)) == {("warning", "$.version", "missing-version")}
    assert triples(lint_card(claude, "0.1")) == {("warning", "$.version", "missing-version")}
    assert ("error", "$.protocolVersion", "missing-protocol-version") in triples(lint_card(claude, "0.3"))
    research = seed_card("001_11a9c2fbb1af15dc.txt", '"name": "research-agent"')
    # "credentials": null is how the page writes "no credentials": the draft's first schema
    # allowed it, v0.1.0's wants a string or no key. Worth a warning, no more.
    assert infer_dialect(research) == "0.1"
    assert triples(lint_card(research)) == {("warning", "$.authentication.credentials", "null-credentials")}
    review = seed_card("004_36ede42b19092461.txt", '"name": "Code Review Agent"')
    assert infer_dialect(review) == "0.1"
    assert lint_card(review) == []


def test_lint_leaves_the_card_alone() -> None:
    raw = card("0.1", put({"schemes": "OAuth2"}, "authentication"), skills=[{"id": 1}])
    before = copy.deepcopy(raw)
    lint_card(raw)
    assert raw == before


def test_not_an_object() -> None:
    assert lint_card(["x"]) == [Finding("error", "$", "expected an agent card object, got array", "not-an-object")]


def mutated(dialect: str, change: Callable[[dict[str, Any]], Any], **kwargs: Any) -> set[tuple[str, str, str]]:
    return triples(lint_card(card(dialect, change), dialect, **kwargs))


def drop(*path: str | int) -> Callable[[dict[str, Any]], None]:
    def change(raw: dict[str, Any]) -> None:
        target: Any = raw
        for step in path[:-1]:
            target = target[step]
        del target[path[-1]]

    return change


def put(value: Any, *path: str | int) -> Callable[[dict[str, Any]], None]:
    def change(raw: dict[str, Any]) -> None:
        target: Any = raw
        for step in path[:-1]:
            target = target[step]
        target[path[-1]] = value

    return change


def grpc_at(url: str) -> Callable[[dict[str, Any]], None]:
    return put([{"url": url, "protocolBinding": "GRPC", "protocolVersion": "1.0"}], "supportedInterfaces")


RULES = [
    # (dialect, change, severity, path, code)
    ("0.3", put(3, "name"), "error", "$.name", "wrong-type"),
    ("0.3", put("yes", "capabilities", "streaming"), "error", "$.capabilities.streaming", "wrong-type"),
    ("0.3", put("text/plain", "defaultInputModes"), "error", "$.defaultInputModes", "wrong-type"),
    ("1.0", put([1], "skills", 0, "tags"), "error", "$.skills[0].tags[0]", "wrong-type"),
    ("0.1", drop("name"), "error", "$.name", "missing-name"),
    ("1.0", put(" ", "name"), "error", "$.name", "empty-name"),
    ("0.3", drop("version"), "error", "$.version", "missing-version"),
    ("0.1", put("", "version"), "error", "$.version", "empty-version"),
    ("0.3", drop("description"), "error", "$.description", "missing-description"),
    ("1.0", drop("description"), "error", "$.description", "missing-description"),
    ("0.3", put("", "description"), "warning", "$.description", "empty-description"),
    ("1.0", put(" ", "description"), "error", "$.description", "empty-description"),
    ("0.1", drop("url"), "error", "$.url", "missing-url"),
    ("0.3", put("", "url"), "error", "$.url", "missing-url"),
    ("0.3", put("ws-agent://openclaw-abc123", "url"), "error", "$.url", "non-http-url"),
    ("0.3", put("a.example:8080", "url"), "error", "$.url", "non-http-url"),
    (
        "1.0",
        put("localhost:8080", "supportedInterfaces", 0, "url"),
        "error",
        "$.supportedInterfaces[0].url",
        "non-http-url",
    ),
    ("0.1", put("https:///rpc", "url"), "error", "$.url", "non-http-url"),
    (
        "1.0",
        put("ftp://a.example/", "supportedInterfaces", 0, "url"),
        "error",
        "$.supportedInterfaces[0].url",
        "non-http-url",
    ),
    ("0.3", drop("protocolVersion"), "error", "$.protocolVersion", "missing-protocol-version"),
    ("0.3", put("latest", "protocolVersion"), "error", "$.protocolVersion", "invalid-protocol-version"),
    ("0.3", put("0.4", "protocolVersion"), "warning", "$.protocolVersion", "protocol-version-mismatch"),
    ("0.3", put("1.0", "protocolVersion"), "error", "$.protocolVersion", "protocol-version-unreachable"),
    (
        "0.3",
        put(
            [{"url": "https://a.example/rpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
            "supportedInterfaces",
        ),
        "warning",
        "$.protocolVersion",
        "protocol-version-mismatch",
    ),
    ("1.0", drop("supportedInterfaces"), "error", "$.supportedInterfaces", "missing-supported-interfaces"),
    ("1.0", put([], "supportedInterfaces"), "error", "$.supportedInterfaces", "empty-required-array"),
    ("1.0", drop("supportedInterfaces", 0, "url"), "error", "$.supportedInterfaces[0].url", "interface-missing-url"),
    (
        "1.0",
        drop("supportedInterfaces", 0, "protocolBinding"),
        "error",
        "$.supportedInterfaces[0].protocolBinding",
        "interface-missing-protocol-binding",
    ),
    (
        "1.0",
        put("", "supportedInterfaces", 0, "protocolBinding"),
        "error",
        "$.supportedInterfaces[0].protocolBinding",
        "interface-missing-protocol-binding",
    ),
    (
        "1.0",
        drop("supportedInterfaces", 0, "protocolVersion"),
        "error",
        "$.supportedInterfaces[0].protocolVersion",
        "interface-missing-protocol-version",
    ),
    (
        "1.0",
        put("one", "supportedInterfaces", 0, "protocolVersion"),
        "error",
        "$.supportedInterfaces[0].protocolVersion",
        "invalid-protocol-version",
    ),
    (
        "1.0",
        put("SOAP", "supportedInterfaces", 0, "protocolBinding"),
        "warning",
        "$.supportedInterfaces[0].protocolBinding",
        "unknown-protocol-binding",
    ),
    (
        "1.0",
        lambda raw: raw["supportedInterfaces"].append(dict(raw["supportedInterfaces"][0])),
        "warning",
        "$.supportedInterfaces[1]",
        "duplicate-interface",
    ),
    (
        "0.3",
        put([{"url": "https://a.example/rest"}], "additionalInterfaces"),
        "error",
        "$.additionalInterfaces[0].transport",
        "interface-missing-transport",
    ),
    (
        "0.3",
        put([{"transport": "JSONRPC"}], "additionalInterfaces"),
        "error",
        "$.additionalInterfaces[0].url",
        "interface-missing-url",
    ),
    (
        "0.3",
        put([{"url": "https://a.example/rest", "transport": "HTTP+JSON"}], "additionalInterfaces"),
        "info",
        "$.additionalInterfaces",
        "main-interface-not-listed",
    ),
    ("0.3", put("gRPC", "preferredTransport"), "warning", "$.preferredTransport", "unknown-protocol-binding"),
    ("0.3", put("SOAP", "preferredTransport"), "warning", "$.preferredTransport", "no-interface-for-version"),
    (
        "1.0",
        put("SOAP", "supportedInterfaces", 0, "protocolBinding"),
        "warning",
        "$.supportedInterfaces",
        "no-interface-for-version",
    ),
    (
        "1.0",
        put("0.3", "supportedInterfaces", 0, "protocolVersion"),
        "warning",
        "$.supportedInterfaces",
        "no-interface-for-version",
    ),
    # urlsplit refuses these (brackets around a host that is not an IP): a finding, not a crash.
    ("0.3", put("http://[x", "url"), "error", "$.url", "non-http-url"),
    ("1.0", grpc_at("grpc://[::1"), "error", "$.supportedInterfaces[0].url", "invalid-grpc-target"),
    ("1.0", grpc_at("/grpc"), "error", "$.supportedInterfaces[0].url", "invalid-grpc-target"),
    ("1.0", grpc_at("ws://a.example:443"), "error", "$.supportedInterfaces[0].url", "invalid-grpc-target"),
    ("1.0", grpc_at("a.example:http"), "error", "$.supportedInterfaces[0].url", "invalid-grpc-target"),
    ("1.0", grpc_at("grpc://:443"), "error", "$.supportedInterfaces[0].url", "invalid-grpc-target"),
    (
        "0.3",
        lambda raw: raw.update(preferredTransport="GRPC", url="ftp://a.example"),
        "error",
        "$.url",
        "invalid-grpc-target",
    ),
    (
        "0.3",
        put([{"url": "/grpc", "transport": "GRPC"}], "additionalInterfaces"),
        "error",
        "$.additionalInterfaces[0].url",
        "invalid-grpc-target",
    ),
    ("0.3", drop("capabilities"), "error", "$.capabilities", "missing-capabilities"),
    ("0.1", drop("capabilities"), "error", "$.capabilities", "missing-capabilities"),
    (
        "1.0",
        put([{"description": "no uri"}], "capabilities", "extensions"),
        "error",
        "$.capabilities.extensions[0].uri",
        "missing-field",
    ),
    ("0.3", drop("defaultInputModes"), "error", "$.defaultInputModes", "missing-default-input-modes"),
    ("1.0", drop("defaultOutputModes"), "error", "$.defaultOutputModes", "missing-default-output-modes"),
    ("0.3", put([], "defaultInputModes"), "warning", "$.defaultInputModes", "empty-default-input-modes"),
    ("0.1", put([], "defaultOutputModes"), "warning", "$.defaultOutputModes", "empty-default-output-modes"),
    ("1.0", put([], "defaultInputModes"), "error", "$.defaultInputModes", "empty-required-array"),
    ("1.0", put([], "defaultOutputModes"), "error", "$.defaultOutputModes", "empty-required-array"),
    ("0.1", drop("skills"), "error", "$.skills", "missing-skills"),
    ("0.3", put([], "skills"), "info", "$.skills", "no-skills"),
    ("1.0", put([], "skills"), "error", "$.skills", "empty-required-array"),
    ("1.0", put([], "skills", 0, "tags"), "error", "$.skills[0].tags", "empty-required-array"),
    ("0.1", drop("skills", 0, "id"), "error", "$.skills[0].id", "skill-missing-id"),
    ("0.3", put("", "skills", 0, "id"), "error", "$.skills[0].id", "skill-missing-id"),
    (
        "0.3",
        lambda raw: raw["skills"].append(dict(SKILL, name="again")),
        "error",
        "$.skills[1].id",
        "duplicate-skill-id",
    ),
    ("0.1", drop("skills", 0, "name"), "error", "$.skills[0].name", "skill-missing-name"),
    ("0.3", drop("skills", 0, "description"), "error", "$.skills[0].description", "skill-missing-description"),
    ("1.0", drop("skills", 0, "tags"), "error", "$.skills[0].tags", "skill-missing-tags"),
    ("0.3", put([{"oauth": ["read"]}], "security"), "error", "$.security[0].oauth", "unknown-security-scheme"),
    (
        "1.0",
        put([{"schemes": {"oauth": {"list": []}}}], "securityRequirements"),
        "error",
        "$.securityRequirements[0].schemes.oauth",
        "unknown-security-scheme",
    ),
    (
        "0.3",
        put([{"key": []}], "skills", 0, "security"),
        "error",
        "$.skills[0].security[0].key",
        "unknown-security-scheme",
    ),
    (
        "1.0",
        put([{"schemes": {"key": {"list": []}}}], "skills", 0, "securityRequirements"),
        "error",
        "$.skills[0].securityRequirements[0].schemes.key",
        "unknown-security-scheme",
    ),
    (
        "0.3",
        put({"k": {"type": "bearer"}}, "securitySchemes"),
        "error",
        "$.securitySchemes.k.type",
        "invalid-security-scheme",
    ),
    ("1.0", put({"k": {"bearer": {}}}, "securitySchemes"), "error", "$.securitySchemes.k", "invalid-security-scheme"),
    (
        "0.3",
        put({"k": {"type": "apiKey", "name": "X-Key"}}, "securitySchemes"),
        "error",
        "$.securitySchemes.k.in",
        "security-scheme-missing-field",
    ),
    (
        "1.0",
        put({"k": {"httpAuthSecurityScheme": {}}}, "securitySchemes"),
        "error",
        "$.securitySchemes.k.httpAuthSecurityScheme.scheme",
        "security-scheme-missing-field",
    ),
    (
        "1.0",
        put({"k": {"apiKeySecurityScheme": {"location": "body", "name": "k"}}}, "securitySchemes"),
        "error",
        "$.securitySchemes.k.apiKeySecurityScheme.location",
        "invalid-api-key-location",
    ),
    (
        "1.0",
        put({"k": {"type": "http", "scheme": "bearer"}}, "securitySchemes"),
        "warning",
        "$.securitySchemes.k",
        "security-scheme-shape",
    ),
    (
        "0.3",
        put({"k": {"mtlsSecurityScheme": {}}}, "securitySchemes"),
        "warning",
        "$.securitySchemes.k",
        "security-scheme-shape",
    ),
    (
        "0.1",
        put({"schemes": "OAuth2"}, "authentication"),
        "warning",
        "$.authentication.schemes",
        "legacy-schemes-string",
    ),
    ("0.1", put({"credentials": "x"}, "authentication"), "error", "$.authentication.schemes", "missing-auth-schemes"),
    (
        "0.1",
        put({"schemes": ["bearer"], "credentials": None}, "authentication"),
        "warning",
        "$.authentication.credentials",
        "null-credentials",
    ),
    ("0.3", put({"organization": "Org"}, "provider"), "error", "$.provider.url", "missing-field"),
    ("0.1", put({"url": "https://org.example"}, "provider"), "error", "$.provider.organization", "missing-field"),
    (
        "1.0",
        put(True, "supportsAuthenticatedExtendedCard"),
        "info",
        "$.supportsAuthenticatedExtendedCard",
        "foreign-field",
    ),
    (
        "1.0",
        put(True, "capabilities", "stateTransitionHistory"),
        "info",
        "$.capabilities.stateTransitionHistory",
        "foreign-field",
    ),
    ("0.3", put({"schemes": ["Bearer"]}, "authentication"), "info", "$.authentication", "foreign-field"),
    (
        "0.3",
        put([{"k": []}], "skills", 0, "securityRequirements"),
        "info",
        "$.skills[0].securityRequirements",
        "foreign-field",
    ),
    (
        "0.3",
        lambda raw: raw.update(supportsAuthenticatedExtendedCard=True, capabilities={"extendedAgentCard": False}),
        "warning",
        "$.supportsAuthenticatedExtendedCard",
        "extended-card-flag-mismatch",
    ),
    (
        "1.0",
        lambda raw: raw.update(url="https://a.example/rpc", protocolVersion="0.3.0"),
        "info",
        "$",
        "mixed-dialect-card",
    ),
]


@pytest.mark.parametrize(
    ("dialect", "change", "severity", "path", "code"), RULES, ids=[f"{r[0]}-{r[4]}-{r[3]}" for r in RULES]
)
def test_rule(dialect: str, change: Callable[[dict[str, Any]], Any], severity: str, path: str, code: str) -> None:
    assert (severity, path, code) in mutated(dialect, change)


# Each kind of scheme spelled both ways at once, exactly as a2a-sdk 1.x merges the 1.0
# card with its 0.3 conversion (see test_a2a_sdk_compat_card_schemes_lint_clean).
DUAL_SCHEMES = {
    "key": {
        "type": "apiKey",
        "in": "header",
        "name": "X-Key",
        "apiKeySecurityScheme": {"location": "header", "name": "X-Key"},
    },
    "bearer": {
        "type": "http",
        "scheme": "bearer",
        "bearerFormat": "JWT",
        "httpAuthSecurityScheme": {"scheme": "bearer", "bearerFormat": "JWT"},
    },
    "oauth": {
        "type": "oauth2",
        "flows": {"clientCredentials": {"tokenUrl": "https://a.example/t", "scopes": {"read": "read"}}},
        "oauth2SecurityScheme": {
            "flows": {"clientCredentials": {"tokenUrl": "https://a.example/t", "scopes": {"read": "read"}}}
        },
    },
    "oidc": {
        "type": "openIdConnect",
        "openIdConnectUrl": "https://a.example/oidc",
        "openIdConnectSecurityScheme": {"openIdConnectUrl": "https://a.example/oidc"},
    },
    "mtls": {"type": "mutualTLS", "mtlsSecurityScheme": {}},
}


def scheme_findings(scheme: dict[str, Any], dialect: str) -> set[tuple[str, str, str]]:
    raw = card(dialect, securitySchemes={"k": scheme})
    return {t for t in triples(lint_card(raw, dialect)) if t[1].startswith("$.securitySchemes")}


@pytest.mark.parametrize("dialect", ["1.0", "0.3"])
@pytest.mark.parametrize("name", sorted(DUAL_SCHEMES))
def test_a_scheme_in_both_spellings_is_clean_when_the_linted_one_is_valid(name: str, dialect: str) -> None:
    assert scheme_findings(DUAL_SCHEMES[name], dialect) == set()


SHAPE = ("warning", "$.securitySchemes.k", "security-scheme-shape")

DUAL_RULES = [
    # Only the linted version's spelling is read by its clients: the other one's faults
    # are that version's business ...
    (
        "1.0",
        {"type": "apiKey", "name": "X-Key", "apiKeySecurityScheme": {"location": "header", "name": "X-Key"}},
        set(),
    ),
    ("0.3", {"type": "http", "scheme": "bearer", "httpAuthSecurityScheme": {}}, set()),
    # ... and its own faults are reported where they are, with the shape flagged.
    (
        "1.0",
        {"type": "http", "scheme": "bearer", "httpAuthSecurityScheme": {}},
        {SHAPE, ("error", "$.securitySchemes.k.httpAuthSecurityScheme.scheme", "security-scheme-missing-field")},
    ),
    (
        "0.3",
        {"type": "apiKey", "name": "X-Key", "apiKeySecurityScheme": {"location": "header", "name": "X-Key"}},
        {SHAPE, ("error", "$.securitySchemes.k.in", "security-scheme-missing-field")},
    ),
    # Valid in neither spelling.
    (
        "1.0",
        {"type": "http", "httpAuthSecurityScheme": {}},
        {SHAPE, ("error", "$.securitySchemes.k.httpAuthSecurityScheme.scheme", "security-scheme-missing-field")},
    ),
    (
        "0.3",
        {"type": "http", "httpAuthSecurityScheme": {}},
        {SHAPE, ("error", "$.securitySchemes.k.scheme", "security-scheme-missing-field")},
    ),
    (
        "1.0",
        {"type": "bearer", "httpAuthSecurityScheme": "bearer"},
        {SHAPE, ("error", "$.securitySchemes.k.httpAuthSecurityScheme", "wrong-type")},
    ),
    (
        "0.3",
        {"type": "bearer", "httpAuthSecurityScheme": "bearer"},
        {SHAPE, ("error", "$.securitySchemes.k.type", "invalid-security-scheme")},
    ),
    # Each spelling valid, but they disagree on what the client must do.
    (
        "1.0",
        {"type": "apiKey", "in": "header", "name": "X-Key", "httpAuthSecurityScheme": {"scheme": "bearer"}},
        {SHAPE},
    ),
    (
        "0.3",
        {"type": "apiKey", "in": "header", "name": "X-Key", "httpAuthSecurityScheme": {"scheme": "bearer"}},
        {SHAPE},
    ),
    (
        "1.0",
        {"type": "http", "scheme": "bearer", "httpAuthSecurityScheme": {"scheme": "bearer"}, "mtlsSecurityScheme": {}},
        {SHAPE, ("error", "$.securitySchemes.k", "invalid-security-scheme")},
    ),
]


@pytest.mark.parametrize(
    ("dialect", "scheme", "expected"), DUAL_RULES, ids=[f"{r[0]}-{i}" for i, r in enumerate(DUAL_RULES)]
)
def test_a_scheme_in_both_spellings(dialect: str, scheme: dict[str, Any], expected: set[tuple[str, str, str]]) -> None:
    assert scheme_findings(scheme, dialect) == expected


def test_a2a_sdk_compat_card_schemes_lint_clean() -> None:
    """The captured a2a-sdk card, given security schemes and served the way a2a-sdk
    serves every card (its own agent_card_to_dict), lints clean in both versions."""
    if not CAPTURE.is_file():
        pytest.skip(f"reference capture not found at {CAPTURE}")
    json_format = pytest.importorskip("google.protobuf.json_format")
    a2a_pb2 = pytest.importorskip("a2a.types.a2a_pb2")
    helpers = pytest.importorskip("a2a.server.request_handlers.response_helpers")
    text = CAPTURE.read_text(encoding="utf-8")
    captured = json.loads(next(line[4:] for line in text.splitlines() if line.startswith("<<< {")))
    sdk_card = json_format.ParseDict(captured, a2a_pb2.AgentCard(), ignore_unknown_fields=True)
    v10_schemes = {name: {k: v for k, v in s.items() if k in SCHEME_WRAPPERS} for name, s in DUAL_SCHEMES.items()}
    json_format.ParseDict(
        {
            "securitySchemes": v10_schemes,
            "securityRequirements": [{"schemes": {"bearer": {}}}, {"schemes": {"oauth": {"list": ["read"]}}}],
        },
        sdk_card,
    )
    raw = helpers.agent_card_to_dict(sdk_card)
    # What makes this card worth linting: every scheme carries both spellings.
    for name, scheme in raw["securitySchemes"].items():
        assert "type" in scheme and any(key in scheme for key in SCHEME_WRAPPERS), (name, scheme)
    assert set(raw["securitySchemes"]) == set(DUAL_SCHEMES)
    for dialect in (None, "1.0", "0.3"):
        findings = lint_card(raw, dialect)
        assert [f for f in findings if f.code == "security-scheme-shape"] == [], dialect
        assert [f for f in findings if f.severity != "info"] == [], dialect


def test_relative_url_is_resolved_against_the_card_url() -> None:
    findings = lint_card(card("0.3", url="/rpc"), "0.3", card_url="https://a.example/.well-known/agent-card.json")
    [finding] = [f for f in findings if f.code == "relative-url"]
    assert (finding.severity, finding.path) == ("error", "$.url")
    assert "https://a.example/rpc" in finding.message
    interface = card("1.0", put("rpc", "supportedInterfaces", 0, "url"))
    assert ("error", "$.supportedInterfaces[0].url", "relative-url") in triples(lint_card(interface, "1.0"))


def test_grpc_targets_are_not_urls() -> None:
    grpc = put(
        [
            {"url": "a.example:443", "protocolBinding": "GRPC", "protocolVersion": "1.0"},
            *BASE["1.0"]["supportedInterfaces"],
        ],
        "supportedInterfaces",
    )
    assert lint_card(card("1.0", grpc), "1.0") == []


def test_streaming_over_grpc_only_is_information_not_an_error() -> None:
    # gRPC streams natively; the card is fine, it just offers no SSE to a JSON client.
    only_grpc = card(
        "1.0",
        put([{"url": "a.example:443", "protocolBinding": "GRPC", "protocolVersion": "1.0"}], "supportedInterfaces"),
        capabilities={"streaming": True, "pushNotifications": True},
    )
    found = triples(lint_card(only_grpc, "1.0"))
    assert ("info", "$.capabilities.streaming", "streaming-grpc-only") in found
    assert ("info", "$.capabilities.pushNotifications", "push-notifications-grpc-only") in found
    assert not [f for f in found if f[0] == "error"]
    with_http = card("1.0", capabilities={"streaming": True, "pushNotifications": True})
    with_http["supportedInterfaces"].append(
        {"url": "a.example:443", "protocolBinding": "GRPC", "protocolVersion": "1.0"}
    )
    assert lint_card(with_http, "1.0") == []


def test_fields_a_version_does_not_require_are_not_reported() -> None:
    v01 = card("0.1", drop("skills", 0, "name"))
    assert {f.code for f in lint_card(v01, "0.1")} == {"skill-missing-name"}
    # 0.1 has no description, tags, modes or protocolVersion requirement.
    assert lint_card(card("0.1", lambda raw: raw["skills"].append({"id": "t", "name": "T"})), "0.1") == []
    # 1.0 has no top-level url.
    assert "missing-url" not in {f.code for f in lint_card(card("1.0"), "1.0")}


def test_duplicate_skill_id_names_the_first_one() -> None:
    raw = card("0.3", lambda r: r["skills"].extend([dict(SKILL, id="x"), dict(SKILL, id="s")]))
    [finding] = [f for f in lint_card(raw, "0.3") if f.code == "duplicate-skill-id"]
    assert finding.path == "$.skills[2].id"
    assert "$.skills[0]" in finding.message


def test_findings_sort_by_severity_then_path() -> None:
    raw = card("0.3", drop("version"), description="")
    raw["skills"] = [dict(SKILL, id=f"s{i}") for i in range(11)]
    del raw["skills"][10]["name"], raw["skills"][2]["name"]
    raw["supportsAuthenticatedExtendedCard"] = True
    raw["capabilities"] = {"extendedAgentCard": False}
    raw["supportedInterfaces"] = []
    got = [(f.severity, f.path) for f in lint_card(raw, "0.3")]
    assert got == [
        ("error", "$.skills[2].name"),
        ("error", "$.skills[10].name"),
        ("error", "$.version"),
        ("warning", "$.description"),
        ("warning", "$.supportsAuthenticatedExtendedCard"),
        ("info", "$"),
        ("info", "$.capabilities.extendedAgentCard"),
        ("info", "$.supportedInterfaces"),
    ]


@pytest.mark.parametrize(
    ("raw", "dialect"),
    [
        (BASE["1.0"], "1.0"),
        (BASE["0.3"], "0.3"),
        ({"name": "x", "url": "https://a", "authentication": {"schemes": ["Bearer"]}}, "0.1"),
        # No version declared: the shape decides (no key of 0.2 or later: 0.1).
        ({"name": "x", "url": "https://a"}, "0.1"),
        ({"name": "x", "url": "https://a", "securitySchemes": {}}, "0.3"),
        # A 1.0 card decoding cannot read still lints as 1.0.
        ({"supportedInterfaces": [{"url": 5}]}, "1.0"),
        # Every interface counts, whatever its binding (it used to be JSON-RPC ones only):
        # a 1.x entry makes a 1.0 card, other versions' keys are foreign fields on it.
        (
            {
                "supportedInterfaces": [{"url": "grpc:1", "protocolBinding": "GRPC", "protocolVersion": "1.0"}],
                "authentication": {},
            },
            "1.0",
        ),
        (card("1.0", put("HTTP+JSON", "supportedInterfaces", 0, "protocolBinding")), "1.0"),
        (card("1.0", grpc_at("a.example:443")), "1.0"),
        # 1.0's shape (endpoints only in supportedInterfaces) decides when no version parses ...
        (card("1.0", put("latest", "supportedInterfaces", 0, "protocolVersion")), "1.0"),
        (card("1.0", put([], "supportedInterfaces")), "1.0"),
        # ... and a 1.x claim without supportedInterfaces or url is 1.0 too ...
        ({"name": "x", "protocolVersion": "1.0"}, "1.0"),
        # ... but a 1.x claim in 0.3's shape is a 0.3 card that claims too much.
        (card("0.3", protocolVersion="1.0"), "0.3"),
        (card("0.3", protocolVersion="1.0", preferredTransport="JSONRPC"), "0.3"),
        (
            card(
                "0.3",
                put(
                    [{"url": "https://a.example/rpc", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"}],
                    "supportedInterfaces",
                ),
            ),
            "0.3",
        ),
    ],
)
def test_dialect_inference(raw: dict[str, Any], dialect: str) -> None:
    assert infer_dialect(raw) == dialect


def test_inferred_dialect_drives_the_rules() -> None:
    assert lint_card(card("1.0")) == []
    assert ("error", "$.protocolVersion", "missing-protocol-version") in triples(
        lint_card({"name": "x", "url": "https://a", "securitySchemes": {}})
    )
    seed_like = {
        "name": "m",
        "url": "https://m",
        "version": "1",
        "capabilities": {},
        "skills": [],
        "authentication": {"schemes": "OAuth2"},
    }
    assert triples(lint_card(seed_like)) == {
        ("warning", "$.authentication.schemes", "legacy-schemes-string"),
        ("info", "$.skills", "no-skills"),
    }


def test_malformed_nested_values_surface_where_decoding_stopped() -> None:
    # No rule looks inside signatures; decoding does, and lint reports where it stopped.
    assert ("error", "$.signatures[0]", "wrong-type") in triples(lint_card(card("0.3", signatures=[5]), "0.3"))
    # Rules that do cover a field do not report it twice.
    findings = lint_card(card("0.3", name=3), "0.3")
    assert [f.path for f in findings if f.code == "wrong-type"] == ["$.name"]


def test_dialect_names() -> None:
    assert lint_card(card("0.3"), "0.2") == []
    with pytest.raises(ValueError):
        lint_card(card("0.3"), "0.4")


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=10,
)
CARD_KEYS = st.sampled_from(
    [
        "name",
        "url",
        "version",
        "description",
        "skills",
        "capabilities",
        "securitySchemes",
        "security",
        "securityRequirements",
        "supportedInterfaces",
        "additionalInterfaces",
        "authentication",
        "protocolVersion",
        "preferredTransport",
        "provider",
        "defaultInputModes",
    ]
)
KEBAB = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")


@settings(max_examples=200, deadline=None)
@given(raw=st.dictionaries(CARD_KEYS, JSON, max_size=6), dialect=st.sampled_from([None, *DIALECTS]))
def test_lint_never_raises_and_always_points_somewhere(raw: dict[str, Any], dialect: str | None) -> None:
    findings = lint_card(raw, dialect)
    for finding in findings:
        assert finding.severity in ("error", "warning", "info")
        assert finding.path.startswith("$") and finding.message
        assert KEBAB.fullmatch(finding.code), finding.code
    assert findings == sorted(findings, key=lambda f: ("error", "warning", "info").index(f.severity))


def test_encoded_cards_lint_clean_in_their_dialect() -> None:
    source = decode_card(
        {
            **BASE["0.3"],
            "securitySchemes": {"key": {"type": "apiKey", "in": "header", "name": "X-Key"}},
            "security": [{"key": []}],
            "additionalInterfaces": [
                {"url": "https://a.example/rpc", "transport": "JSONRPC"},
                {"url": "https://a.example/rest", "transport": "HTTP+JSON"},
            ],
        }
    )
    for dialect in DIALECTS:
        assert lint_card(encode_card(source, dialect), dialect) == [], dialect


# ------------------------------------------------ issue 27: per binding, per version


@pytest.mark.parametrize(
    "binding, url",
    [
        ("HTTP+JSON", "https://a.example/rest"),
        ("GRPC", "a.example:443"),
        ("GRPC", "grpcs://a.example:443"),
        ("GRPC", "https://grpc.a.example/a2a"),
        ("GRPC", "dns:///a.example:443"),
        ("GRPC", "unix:/run/a2a.sock"),
    ],
)
def test_a_1_0_card_without_jsonrpc_is_judged_as_1_0(binding: str, url: str) -> None:
    # Such a card is valid against the v1.0.1 schema; it used to be judged as 0.3 (auto),
    # with missing-url and missing-protocol-version errors, because only JSON-RPC
    # interfaces were read for the version.
    raw = card("1.0", put([{"url": url, "protocolBinding": binding, "protocolVersion": "1.0"}], "supportedInterfaces"))
    assert infer_dialect(raw) == "1.0"
    assert [f for f in lint_card(raw) if f.severity != "info"] == []


def test_an_unparsable_interface_version_is_judged_by_1_0_rules_and_named() -> None:
    raw = card("1.0", put("latest", "supportedInterfaces", 0, "protocolVersion"))
    findings = lint_card(raw)
    assert triples(findings) == {("error", "$.supportedInterfaces[0].protocolVersion", "invalid-protocol-version")}
    assert "'latest' is not a version number" in findings[0].message
    assert '"1.0"' in findings[0].message


def test_a_1_0_claim_in_the_0_3_shape_is_an_error_that_says_why() -> None:
    raw = card("0.3", protocolVersion="1.0", preferredTransport="JSONRPC")
    [finding] = lint_card(raw)  # auto: a 0.3 card by its shape
    assert (finding.severity, finding.path, finding.code) == (
        "error",
        "$.protocolVersion",
        "protocol-version-unreachable",
    )
    assert "supportedInterfaces" in finding.message and "url, preferredTransport" in finding.message
    # Listing the endpoint for 1.0 as well makes it a 1.0 card with 0.3 fields, as a2a-sdk serves.
    raw["supportedInterfaces"] = [{"url": raw["url"], "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}]
    assert [f for f in lint_card(raw) if f.severity != "info"] == []
    assert [f for f in lint_card(raw, "0.3") if f.severity == "error"] == []


def test_empty_required_arrays_follow_each_version_s_own_rules() -> None:
    # 1.0 §5.7: arrays marked as required MUST contain at least one element. 0.3's schema
    # sets no minimum (no minItems anywhere), 0.1's neither: legal there.
    def empty(raw: dict[str, Any]) -> None:
        raw.update(defaultInputModes=[], defaultOutputModes=[], skills=[dict(SKILL, tags=[])])

    v10 = {t for t in triples(lint_card(card("1.0", empty))) if t[0] == "error"}
    assert v10 == {
        ("error", "$.defaultInputModes", "empty-required-array"),
        ("error", "$.defaultOutputModes", "empty-required-array"),
        ("error", "$.skills[0].tags", "empty-required-array"),
    }
    assert [f for f in lint_card(card("0.3", empty)) if f.severity == "error"] == []
    assert [f for f in lint_card(card("0.1", empty)) if f.severity == "error"] == []


def test_credentials_as_a_string_or_absent_are_fine_in_0_1() -> None:
    for auth in ({"schemes": ["bearer"]}, {"schemes": ["bearer"], "credentials": "token-url"}):
        assert lint_card(card("0.1", authentication=auth)) == []


#: Codes whose card that raises them is in a test of its own rather than a RULES row.
RAISED_ELSEWHERE = {
    "not-an-object": "test_not_an_object",
    "relative-url": "test_relative_url_is_resolved_against_the_card_url",
    "streaming-grpc-only": "test_streaming_over_grpc_only_is_information_not_an_error",
    "push-notifications-grpc-only": "test_streaming_over_grpc_only_is_information_not_an_error",
}


def test_every_code_has_a_card_that_raises_it() -> None:
    # The valid cards that must not raise them: the BASE cards above, the seeds' and the
    # capture's, and the a2a-sdk and JS SDK cards of tests/test_lint_peers.py.
    assert {r[4] for r in RULES} | set(RAISED_ELSEWHERE) == set(LINT_CODES)
    for test in set(RAISED_ELSEWHERE.values()):
        assert callable(globals().get(test)), test
