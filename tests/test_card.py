"""Agent card decode/encode against real cards and the official per-version schemas.

The cards and schemas are read from /work/shared at test time (never copied here)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from inspector.protocol.card import (
    DIALECTS,
    card_dialects,
    decode_card,
    encode_card,
    jsonrpc_url,
)
from inspector.protocol.errors import ProtocolError
from inspector.protocol.models import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentProvider,
    AgentSkill,
    SecurityScheme,
)

SHARED = Path(__file__).resolve().parents[2] / "shared"
pytestmark = pytest.mark.skipif(not SHARED.is_dir(), reason=f"reference material not found at {SHARED}")


# --------------------------------------------------------------------------- fixtures


def card_in(text: str, marker: str) -> dict[str, Any]:
    """The JSON object around the first ``marker`` in a doc page; drops ``//`` comment lines
    (seed 002's card carries one)."""
    start = text.rindex("{", 0, text.index(marker))
    body = "\n".join(line for line in text[start:].splitlines() if not line.strip().startswith("//"))
    return json.JSONDecoder().raw_decode(body)[0]


@cache
def seed_card(name: str) -> dict[str, Any]:
    file, marker = {
        "000": ("000_397570004ad1ae23.txt", '"name": "claude"'),
        "001": ("001_11a9c2fbb1af15dc.txt", '"name": "research-agent"'),
        "002": ("002_83c6fe7e09a9fa25.txt", '"name": "Google Maps Agent"'),
        "004": ("004_36ede42b19092461.txt", '"name": "Code Review Agent"'),
    }[name]
    return card_in((SHARED / "seeds" / file).read_text(encoding="utf-8"), marker)


@cache
def capture_card() -> dict[str, Any]:
    text = (SHARED / "wire-captures" / "01_card_legacy_path.txt").read_text(encoding="utf-8")
    body = next(line[4:] for line in text.splitlines() if line.startswith("<<< {"))
    return json.loads(body)


ALL_CARDS = ["seed-000", "seed-001", "seed-002", "seed-004", "capture-01"]


def raw_card(which: str) -> dict[str, Any]:
    return capture_card() if which == "capture-01" else seed_card(which.removeprefix("seed-"))


@cache
def schema_validator(dialect: str) -> jsonschema.protocols.Validator:
    """The official AgentCard schema of each dialect."""
    if dialect == "1.0":
        bundle = json.loads((SHARED / "a2a-schemas" / "a2a-v1.0.1.json").read_text())
        defs = bundle["definitions"]
        # The published 1.0.1 bundle refers to its own entries by file-style names.
        registry = Registry()
        for key, definition in defs.items():
            short = key.replace(" ", "")
            package = "google.protobuf" if short in ("Struct", "Timestamp", "Value") else "lf.a2a.v1"
            registry = registry.with_resource(
                f"{package}.{short}.jsonschema.json",
                Resource.from_contents(definition, default_specification=DRAFT202012),
            )
        return jsonschema.Draft202012Validator(defs["Agent Card"], registry=registry)
    file = {"0.1": "a2a-v0.1.0.json", "0.3": "a2a-v0.3.0.json"}[dialect]
    bundle = json.loads((SHARED / "a2a-schemas" / file).read_text())
    key = "$defs" if "$defs" in bundle else "definitions"
    return jsonschema.Draft7Validator({"$ref": f"#/{key}/AgentCard", key: bundle[key]})


def schema_errors(dialect: str, instance: Any) -> list[str]:
    return [
        f"{'/'.join(map(str, e.absolute_path)) or '<root>'}: {e.message[:200]}"
        for e in schema_validator(dialect).iter_errors(instance)
    ]


def test_schema_validators_reject_what_they_should() -> None:
    # Guards the schema tests below against a validator that accepts anything.
    assert schema_errors("0.1", {"name": "x"})
    assert schema_errors("0.3", {**encode_card(decode_card(capture_card()), "0.3"), "protocolVersion": 3})
    assert any(
        "url" in e for e in schema_errors("1.0", {**encode_card(decode_card(capture_card()), "1.0"), "url": "x"})
    )


# --------------------------------------------------------------------------- decode: real cards


def test_decode_capture_reads_both_dialects() -> None:
    card = decode_card(capture_card())
    assert card.name == "Echo Agent"
    assert card.protocol_version == "0.3"
    assert card.url == "http://127.0.0.1:9999/"
    assert card.preferred_transport == "JSONRPC"
    assert [(i.url, i.protocol_binding, i.protocol_version) for i in card.supported_interfaces] == [
        ("http://127.0.0.1:9999/", "JSONRPC", "1.0"),
        ("http://127.0.0.1:9999/rest", "HTTP+JSON", "1.0"),
        ("http://127.0.0.1:9999/", "JSONRPC", "0.3"),
        ("http://127.0.0.1:9999/rest", "HTTP+JSON", "0.3"),
    ]
    # 0.3's "transport" lands in the same field as 1.0's "protocolBinding".
    assert [(i.url, i.protocol_binding) for i in card.additional_interfaces] == [
        ("http://127.0.0.1:9999/rest", "HTTP+JSON")
    ]
    assert "transport" not in (card.additional_interfaces[0].model_extra or {})
    assert card.provider == AgentProvider(organization="a2aproto test", url="https://example.invalid")
    assert card.capabilities.streaming is True and card.capabilities.push_notifications is False
    assert [(s.id, s.name, s.tags) for s in card.skills] == [("echo", "Echo", ["echo", "test"])]
    assert card.skills[0].examples[-1] == "slow hello"
    assert card.security_schemes is None and card.authentication is None
    assert card_dialects(card) == ["1.0", "0.3"]
    assert jsonrpc_url(card, "1.0") == jsonrpc_url(card, "0.3") == "http://127.0.0.1:9999/"


def test_decode_seed_000_minimal_card() -> None:
    card = decode_card(seed_card("000"))
    assert (card.name, card.description, card.url) == ("claude", "Claude Code agent", "http://localhost:8003")
    assert card.version is None
    assert [(s.id, s.name, s.description) for s in card.skills] == [("code", "Code Assistant", None)]
    assert card.capabilities == AgentCapabilities(streaming=False, push_notifications=False)
    assert card_dialects(card) == []
    assert jsonrpc_url(card, "0.1") == "http://localhost:8003"
    assert jsonrpc_url(card, "1.0") is None


def test_decode_seed_001_legacy_authentication() -> None:
    card = decode_card(seed_card("001"))
    assert card.name == "research-agent"
    assert card.authentication.schemes == ["bearer"]
    assert card.authentication.credentials is None
    assert card.capabilities.state_transition_history is True
    assert card.skills[0].examples == ["Research the latest advances in quantum computing"]
    # 0.1 cards say nothing about their dialect.
    assert card_dialects(card) == []


def test_decode_seed_002_keeps_string_schemes() -> None:
    card = decode_card(seed_card("002"))
    assert card.name == "Google Maps Agent"
    assert card.authentication.schemes == "OAuth2"
    assert card.provider.organization == "Google"
    assert [s.id for s in card.skills] == ["route-planner", "custom-map"]
    assert card.skills[0].output_modes == ["application/html", "video/mp4"]
    assert card.default_output_modes == ["text/plain", "application/html"]


def test_decode_seed_004_oauth_credentials() -> None:
    card = decode_card(seed_card("004"))
    assert card.authentication.schemes == ["oauth2"]
    assert card.authentication.credentials.startswith("https://auth.devtools.example.com/")
    assert card.default_input_modes == ["text", "file"]
    assert [s.id for s in card.skills] == ["security-review", "style-review"]
    assert card.skills[1].examples is None


# --------------------------------------------------------------------------- decode: shapes


V10_SCHEMES = {
    "key": {"apiKeySecurityScheme": {"location": "header", "name": "X-Key", "description": "k"}},
    "bearer": {"httpAuthSecurityScheme": {"scheme": "bearer", "bearerFormat": "JWT"}},
    "oauth": {
        "oauth2SecurityScheme": {
            "flows": {"clientCredentials": {"tokenUrl": "https://t.example", "scopes": {"r": "read"}}},
            "oauth2MetadataUrl": "https://t.example/.well-known/oauth-authorization-server",
        }
    },
    "oidc": {
        "openIdConnectSecurityScheme": {"openIdConnectUrl": "https://id.example/.well-known/openid-configuration"}
    },
    "mtls": {"mtlsSecurityScheme": {}},
}
V03_SCHEMES = {
    "key": {"type": "apiKey", "in": "header", "name": "X-Key", "description": "k"},
    "bearer": {"type": "http", "scheme": "bearer", "bearerFormat": "JWT"},
    "oauth": {
        "type": "oauth2",
        "flows": {"clientCredentials": {"tokenUrl": "https://t.example", "scopes": {"r": "read"}}},
        "oauth2MetadataUrl": "https://t.example/.well-known/oauth-authorization-server",
    },
    "oidc": {"type": "openIdConnect", "openIdConnectUrl": "https://id.example/.well-known/openid-configuration"},
    "mtls": {"type": "mutualTLS"},
}
NORMALISED_SCHEMES = {
    "key": SecurityScheme(type="apiKey", location="header", name="X-Key", description="k"),
    "bearer": SecurityScheme(type="http", scheme="bearer", bearer_format="JWT"),
    "oauth": SecurityScheme(
        type="oauth2",
        flows={"clientCredentials": {"tokenUrl": "https://t.example", "scopes": {"r": "read"}}},
        oauth2_metadata_url="https://t.example/.well-known/oauth-authorization-server",
    ),
    "oidc": SecurityScheme(
        type="openIdConnect", open_id_connect_url="https://id.example/.well-known/openid-configuration"
    ),
    "mtls": SecurityScheme(type="mutualTLS"),
}


@pytest.mark.parametrize("spelling", [V10_SCHEMES, V03_SCHEMES], ids=["1.0", "0.3"])
def test_security_schemes_normalise_from_either_spelling(spelling: dict[str, Any]) -> None:
    card = decode_card({"securitySchemes": spelling})
    assert card.security_schemes == NORMALISED_SCHEMES


def test_security_requirements_normalise_to_the_03_shape() -> None:
    card = decode_card(
        {
            "securitySchemes": V10_SCHEMES,
            "securityRequirements": [
                {"schemes": {"oauth": {"list": ["r"]}, "mtls": {"list": []}}},
                {"schemes": {"key": {}}},
            ],
            "skills": [{"id": "s", "securityRequirements": [{"schemes": {"bearer": {"list": []}}}]}],
        }
    )
    assert card.security == [{"oauth": ["r"], "mtls": []}, {"key": []}]
    assert card.skills[0].security == [{"bearer": []}]
    assert "securityRequirements" not in (card.model_extra or {})
    assert "securityRequirements" not in (card.skills[0].model_extra or {})
    assert decode_card({"security": [{"key": ["a", "b"]}]}).security == [{"key": ["a", "b"]}]


def test_both_extended_card_flags_are_kept() -> None:
    card = decode_card({"capabilities": {"extendedAgentCard": True}, "supportsAuthenticatedExtendedCard": False})
    assert card.capabilities.extended_agent_card is True
    assert card.supports_authenticated_extended_card is False


def test_unknown_keys_are_kept_everywhere() -> None:
    card = decode_card(
        {
            "name": "x",
            "x-owner": {"team": "a"},
            "capabilities": {"streaming": True, "x-cap": 1},
            "skills": [{"id": "s", "x-skill": [1]}],
            "supportedInterfaces": [{"url": "https://a.example", "protocolBinding": "JSONRPC", "x-if": "y"}],
            "securitySchemes": {"k": {"apiKeySecurityScheme": {"location": "query", "name": "k", "x-in": 2}}},
        }
    )
    assert card.model_extra == {"x-owner": {"team": "a"}}
    assert card.capabilities.model_extra == {"x-cap": 1}
    assert card.skills[0].model_extra == {"x-skill": [1]}
    assert card.supported_interfaces[0].model_extra == {"x-if": "y"}
    assert card.security_schemes["k"].model_extra == {"x-in": 2}


@pytest.mark.parametrize(
    ("raw", "path"),
    [
        (42, "$"),
        ([{"name": "x"}], "$"),
        ({"name": 3}, "$.name"),
        ({"skills": {"id": "s"}}, "$.skills"),
        ({"skills": ["s"]}, "$.skills[0]"),
        ({"skills": [{"id": "a"}, {"id": 1}]}, "$.skills[1].id"),
        ({"capabilities": []}, "$.capabilities"),
        ({"capabilities": {"streaming": [True]}}, "$.capabilities.streaming"),
        ({"additionalInterfaces": [{"url": "https://a", "transport": 5}]}, "$.additionalInterfaces[0].transport"),
        ({"supportedInterfaces": [{"url": 1}]}, "$.supportedInterfaces[0].url"),
        ({"supportedInterfaces": {"url": "u"}}, "$.supportedInterfaces"),
        ({"securitySchemes": []}, "$.securitySchemes"),
        ({"securitySchemes": {"k": {}}}, "$.securitySchemes.k"),
        (
            {"securitySchemes": {"k": {"apiKeySecurityScheme": {"name": 5}}}},
            "$.securitySchemes.k.apiKeySecurityScheme.name",
        ),
        ({"securitySchemes": {"k": {"apiKeySecurityScheme": {}, "mtlsSecurityScheme": {}}}}, "$.securitySchemes.k"),
        ({"securitySchemes": {"k": {"type": 7}}}, "$.securitySchemes.k.type"),
        ({"securitySchemes": {"odd key": "x"}}, '$.securitySchemes["odd key"]'),
        ({"security": [{"k": "scope"}]}, "$.security[0].k"),
        ({"securityRequirements": [{"schemes": {"k": {"list": [1]}}}]}, "$.securityRequirements[0].schemes.k.list[0]"),
        ({"skills": [{"id": "s", "security": {"k": []}}]}, "$.skills[0].security"),
        ({"authentication": {"schemes": [1]}}, "$.authentication.schemes[0]"),
        ({"authentication": "Bearer"}, "$.authentication"),
    ],
)
def test_malformed_cards_raise_with_a_path(raw: Any, path: str) -> None:
    with pytest.raises(ProtocolError) as info:
        decode_card(raw)
    assert info.value.path == path


def test_decode_roots_paths_where_told() -> None:
    with pytest.raises(ProtocolError) as info:
        decode_card({"skills": [{"name": 3}]}, "$.result")
    assert info.value.path == "$.result.skills[0].name"


# --------------------------------------------------------------------------- dialect queries


@pytest.mark.parametrize(
    ("raw", "dialects", "urls"),
    [
        ({"url": "https://a", "protocolVersion": "0.2.5"}, ["0.3"], {"0.3": "https://a", "1.0": None}),
        (
            {"url": "https://a", "protocolVersion": "0.3.0", "preferredTransport": "JSONRPC"},
            ["0.3"],
            {"0.3": "https://a"},
        ),
        # 0.2.4 had transports but no protocolVersion; it already spoke message/send.
        ({"url": "https://a", "preferredTransport": "JSONRPC"}, ["0.3"], {"0.3": "https://a"}),
        (
            {
                "url": "grpc.example:443",
                "protocolVersion": "0.3.0",
                "preferredTransport": "GRPC",
                "additionalInterfaces": [{"url": "https://a/rpc", "transport": "JSONRPC"}],
            },
            ["0.3"],
            {"0.3": "https://a/rpc"},
        ),
        ({"url": "grpc.example:443", "protocolVersion": "0.3.0", "preferredTransport": "GRPC"}, [], {"0.3": None}),
        (
            {
                "supportedInterfaces": [
                    {"url": "grpc:443", "protocolBinding": "GRPC", "protocolVersion": "1.0"},
                    {"url": "https://a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
                ]
            },
            ["1.0"],
            {"1.0": "https://a", "0.3": None},
        ),
        (
            {"supportedInterfaces": [{"url": "https://b", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"}]},
            ["0.3"],
            {"0.3": "https://b", "1.0": None},
        ),
        (
            {"supportedInterfaces": [{"url": "grpc:443", "protocolBinding": "GRPC", "protocolVersion": "1.0"}]},
            [],
            {"1.0": None},
        ),
        ({"url": "https://a", "authentication": {"schemes": ["Bearer"]}}, [], {"0.1": "https://a"}),
        # protocolVersion alone is no endpoint.
        ({"protocolVersion": "0.3.0"}, [], {"0.3": None, "0.1": None}),
    ],
)
def test_card_dialects_and_jsonrpc_url(raw: dict[str, Any], dialects: list[str], urls: dict[str, str | None]) -> None:
    card = decode_card(raw)
    assert card_dialects(card) == dialects
    for dialect, url in urls.items():
        assert jsonrpc_url(card, dialect) == url


def test_unknown_dialect_is_refused() -> None:
    with pytest.raises(ValueError):
        encode_card(AgentCard(name="x"), "0.4")
    with pytest.raises(ValueError):
        jsonrpc_url(AgentCard(name="x"), "2.0")


# --------------------------------------------------------------------------- encode


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("which", ALL_CARDS)
def test_real_cards_encode_to_schema_valid_cards(which: str, dialect: str) -> None:
    encoded = encode_card(decode_card(raw_card(which)), dialect)
    assert schema_errors(dialect, encoded) == []
    assert encoded["name"] == raw_card(which)["name"]


def test_capture_encodes_to_each_dialect_without_the_others_fields() -> None:
    card = decode_card(capture_card())
    v10 = encode_card(card, "1.0")
    assert not {"url", "preferredTransport", "protocolVersion", "additionalInterfaces"} & set(v10)
    assert v10["supportedInterfaces"] == capture_card()["supportedInterfaces"]
    v03 = encode_card(card, "0.3")
    assert "supportedInterfaces" not in v03
    assert {k: v03[k] for k in ("url", "preferredTransport", "protocolVersion", "additionalInterfaces")} == {
        k: capture_card()[k] for k in ("url", "preferredTransport", "protocolVersion", "additionalInterfaces")
    }
    v01 = encode_card(card, "0.1")
    assert v01["url"] == "http://127.0.0.1:9999/"
    assert not {"protocolVersion", "preferredTransport", "supportedInterfaces", "additionalInterfaces"} & set(v01)


def test_legacy_bearer_becomes_an_http_scheme() -> None:
    card = decode_card(seed_card("001"))
    v03 = encode_card(card, "0.3")
    assert v03["securitySchemes"] == {"bearer": {"type": "http", "scheme": "bearer"}}
    assert v03["security"] == [{"bearer": []}]
    assert "authentication" not in v03
    v10 = encode_card(card, "1.0")
    assert v10["securitySchemes"] == {"bearer": {"httpAuthSecurityScheme": {"scheme": "bearer"}}}
    assert v10["securityRequirements"] == [{"schemes": {"bearer": {"list": []}}}]
    # 0.1's own spelling survives untouched, null credentials aside.
    assert encode_card(card, "0.1")["authentication"] == {"schemes": ["bearer"]}


def test_legacy_oauth_cannot_be_expressed_in_03() -> None:
    v03 = encode_card(decode_card(seed_card("004")), "0.3")
    assert "securitySchemes" not in v03 and "security" not in v03


def test_string_schemes_become_a_list_in_01() -> None:
    assert encode_card(decode_card(seed_card("002")), "0.1")["authentication"] == {"schemes": ["OAuth2"]}


def test_security_schemes_become_01_scheme_names() -> None:
    card = decode_card({"securitySchemes": V03_SCHEMES, "security": [{"bearer": []}]})
    v01 = encode_card(card, "0.1")
    assert v01["authentication"] == {"schemes": ["apiKey", "bearer", "oauth2", "openIdConnect", "mutualTLS"]}
    assert "securitySchemes" not in v01 and "security" not in v01


@pytest.mark.parametrize("source", [V03_SCHEMES, V10_SCHEMES], ids=["from-0.3", "from-1.0"])
def test_security_schemes_encode_in_each_spelling(source: dict[str, Any]) -> None:
    card = decode_card(
        {"securitySchemes": source, "security": [{"oauth": ["r"]}], "skills": [{"id": "s", "security": [{"key": []}]}]}
    )
    v03 = encode_card(card, "0.3")
    assert v03["securitySchemes"] == V03_SCHEMES
    assert v03["skills"][0]["security"] == [{"key": []}]
    v10 = encode_card(card, "1.0")
    assert v10["securitySchemes"] == V10_SCHEMES
    assert v10["securityRequirements"] == [{"schemes": {"oauth": {"list": ["r"]}}}]
    assert v10["skills"][0]["securityRequirements"] == [{"schemes": {"key": {"list": []}}}]
    assert "security" not in v10["skills"][0]
    assert schema_errors("0.3", v03) == [] and schema_errors("1.0", v10) == []


def test_unknown_scheme_type_is_dropped_from_10_only() -> None:
    card = AgentCard(security_schemes={"odd": SecurityScheme(type="hmac", name="sig")})
    assert encode_card(card, "0.3")["securitySchemes"] == {"odd": {"type": "hmac", "name": "sig"}}
    assert encode_card(card, "1.0")["securitySchemes"] == {}


def test_extended_card_flag_moves_between_dialects() -> None:
    v10_card = decode_card({"capabilities": {"extendedAgentCard": True}})
    assert encode_card(v10_card, "0.3")["supportsAuthenticatedExtendedCard"] is True
    assert "extendedAgentCard" not in encode_card(v10_card, "0.3")["capabilities"]
    v03_card = decode_card({"supportsAuthenticatedExtendedCard": True, "capabilities": {}})
    v10 = encode_card(v03_card, "1.0")
    assert v10["capabilities"] == {"extendedAgentCard": True}
    assert "supportsAuthenticatedExtendedCard" not in v10
    assert "supportsAuthenticatedExtendedCard" not in encode_card(v03_card, "0.1")


def test_state_transition_history_is_not_10() -> None:
    card = decode_card({"capabilities": {"streaming": True, "stateTransitionHistory": True}})
    assert encode_card(card, "1.0")["capabilities"] == {"streaming": True}
    assert encode_card(card, "0.3")["capabilities"] == {"streaming": True, "stateTransitionHistory": True}


def test_03_card_served_as_10_synthesises_interfaces() -> None:
    card = decode_card(
        {
            "url": "https://a.example/rpc",
            "preferredTransport": "JSONRPC",
            "protocolVersion": "0.3.0",
            "additionalInterfaces": [
                {"url": "https://a.example/rpc", "transport": "JSONRPC"},
                {"url": "https://a.example/rest", "transport": "HTTP+JSON"},
            ],
        }
    )
    assert encode_card(card, "1.0")["supportedInterfaces"] == [
        {"url": "https://a.example/rpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
        {"url": "https://a.example/rest", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"},
    ]
    assert encode_card(decode_card({"url": "https://b"}), "1.0")["supportedInterfaces"] == [
        {"url": "https://b", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
    ]


def test_10_card_served_as_03_picks_a_jsonrpc_main_url() -> None:
    card = decode_card(
        {
            "supportedInterfaces": [
                {"url": "grpc.example:443", "protocolBinding": "GRPC", "protocolVersion": "1.0"},
                {"url": "https://a.example/rpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
            ]
        }
    )
    v03 = encode_card(card, "0.3")
    assert (v03["url"], v03["preferredTransport"], v03["protocolVersion"]) == (
        "https://a.example/rpc",
        "JSONRPC",
        "0.3.0",
    )
    assert v03["additionalInterfaces"] == [
        {"url": "https://a.example/rpc", "transport": "JSONRPC"},
        {"url": "grpc.example:443", "transport": "GRPC"},
    ]
    # Where the card marks 0.x interfaces, those are the ones 0.3 gets.
    mixed = decode_card(capture_card()).model_copy(update={"url": None, "additional_interfaces": None})
    assert encode_card(mixed, "0.3")["additionalInterfaces"] == [
        {"url": "http://127.0.0.1:9999/", "transport": "JSONRPC"},
        {"url": "http://127.0.0.1:9999/rest", "transport": "HTTP+JSON"},
    ]


def test_private_keys_carry_over_and_foreign_keys_do_not() -> None:
    card = AgentCard.model_validate(
        {
            "name": "x",
            "url": "https://a",
            "x-owner": "me",
            # Known to some dialect, so never treated as private:
            "securityRequirements": [{"schemes": {}}],
            "tenant": "t",
            "capabilities": {"x-cap": 1},
            "skills": [{"id": "s", "x-skill": 2, "securityRequirements": []}],
        }
    )
    for dialect in DIALECTS:
        out = encode_card(card, dialect)
        assert out["x-owner"] == "me" and out["tenant"] == "t"
        assert out["capabilities"]["x-cap"] == 1 and out["skills"][0]["x-skill"] == 2
        assert "securityRequirements" not in out and "securityRequirements" not in out["skills"][0]


def test_missing_required_fields_are_filled_so_output_parses() -> None:
    for dialect in DIALECTS:
        out = encode_card(AgentCard(), dialect)
        assert schema_errors(dialect, out) == []
        assert out["name"] == "" and out["skills"] == []
    assert encode_card(AgentCard(), "0.3")["protocolVersion"] == "0.3.0"
    assert encode_card(AgentCard(protocol_version="0.2.5"), "0.3")["protocolVersion"] == "0.2.5"
    assert encode_card(AgentCard(protocol_version="1.0"), "0.3")["protocolVersion"] == "0.3.0"


# --------------------------------------------------------------------------- properties


def _text() -> st.SearchStrategy[str]:
    return st.text(st.characters(min_codepoint=0x20, max_codepoint=0x2FF), min_size=1, max_size=12).filter(str.strip)


URLS = st.sampled_from(
    ["https://a.example/", "https://a.example/rpc", "http://127.0.0.1:9999/", "https://b.example/v1"]
)
MODES = st.lists(st.sampled_from(["text/plain", "application/json", "image/png"]), min_size=1, max_size=3, unique=True)
SCHEME_NAMES = list(NORMALISED_SCHEMES)


@st.composite
def cards(draw: st.DrawFn) -> AgentCard:
    scheme_names = draw(st.lists(st.sampled_from(SCHEME_NAMES), unique=True, max_size=5))
    requirement = (
        st.dictionaries(st.sampled_from(scheme_names), st.lists(_text(), max_size=2), min_size=1, max_size=2)
        if scheme_names
        else st.nothing()
    )
    requirements = st.none() | st.lists(requirement, min_size=1, max_size=2) if scheme_names else st.none()
    interface = st.builds(
        AgentInterface,
        url=URLS,
        protocol_binding=st.sampled_from(["JSONRPC", "HTTP+JSON", "GRPC"]),
        protocol_version=st.sampled_from(["1.0", "0.3"]),
    )
    skill = st.builds(
        AgentSkill,
        id=_text(),
        name=_text(),
        description=_text(),
        tags=st.lists(_text(), max_size=3),
        examples=st.none() | st.lists(_text(), max_size=2),
        input_modes=st.none() | MODES,
        output_modes=st.none() | MODES,
        security=requirements,
    )
    skills = draw(st.lists(skill, max_size=3, unique_by=lambda s: s.id))
    return AgentCard(
        name=draw(_text()),
        description=draw(_text()),
        version=draw(_text()),
        url=draw(st.none() | URLS),
        protocol_version=draw(st.none() | st.sampled_from(["0.3.0", "0.2.5", "0.3"])),
        preferred_transport=draw(st.none() | st.sampled_from(["JSONRPC", "HTTP+JSON"])),
        additional_interfaces=draw(
            st.none() | st.lists(interface.map(lambda i: i.model_copy(update={"protocol_version": None})), max_size=2)
        ),
        supported_interfaces=draw(st.none() | st.lists(interface, min_size=1, max_size=3)),
        provider=draw(st.none() | st.builds(AgentProvider, organization=_text(), url=URLS)),
        capabilities=draw(
            st.builds(
                AgentCapabilities,
                streaming=st.none() | st.booleans(),
                push_notifications=st.none() | st.booleans(),
                state_transition_history=st.none() | st.booleans(),
                extended_agent_card=st.none() | st.booleans(),
            )
        ),
        security_schemes={name: NORMALISED_SCHEMES[name] for name in scheme_names} or None,
        security=draw(requirements),
        default_input_modes=draw(MODES),
        default_output_modes=draw(MODES),
        skills=skills,
        supports_authenticated_extended_card=draw(st.none() | st.booleans()),
    )


PROPERTY = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY
@given(card=cards(), dialect=st.sampled_from(DIALECTS))
def test_encoded_cards_validate_against_the_official_schema(card: AgentCard, dialect: str) -> None:
    encoded = encode_card(card, dialect)
    assert schema_errors(dialect, encoded) == []


@PROPERTY
@given(card=cards(), dialect=st.sampled_from(DIALECTS))
def test_decoding_an_encoded_card_is_a_fixpoint(card: AgentCard, dialect: str) -> None:
    encoded = encode_card(card, dialect)
    assert encode_card(decode_card(encoded), dialect) == encoded


def _skill_view(card: AgentCard, with_security: bool) -> list[tuple[Any, ...]]:
    return [
        (
            s.id,
            s.name,
            s.description,
            s.tags or [],
            s.examples,
            s.input_modes,
            s.output_modes,
            s.security if with_security else None,
        )
        for s in card.skills or ()
    ]


@PROPERTY
@given(card=cards(), dialect=st.sampled_from(DIALECTS))
def test_round_trip_keeps_what_the_dialect_can_say(card: AgentCard, dialect: str) -> None:
    back = decode_card(encode_card(card, dialect))
    assert (back.name, back.version) == (card.name, card.version)
    assert back.capabilities.streaming == card.capabilities.streaming
    assert back.capabilities.push_notifications == card.capabilities.push_notifications
    assert back.default_input_modes == card.default_input_modes
    assert _skill_view(back, dialect != "0.1") == _skill_view(card, dialect != "0.1")
    if dialect == "0.1":
        if card.url:
            assert back.url == card.url
        else:
            assert back.url in {i.url for i in card.supported_interfaces or ()} | {""}
            assert (back.url == "") == (not card.supported_interfaces)
        return
    assert back.description == card.description
    assert back.provider == card.provider
    assert back.security_schemes == card.security_schemes
    assert back.security == card.security
    extended = (
        card.capabilities.extended_agent_card
        if dialect == "1.0" and card.capabilities.extended_agent_card is not None
        else card.supports_authenticated_extended_card
        if card.supports_authenticated_extended_card is not None
        else card.capabilities.extended_agent_card
    )
    if dialect == "1.0":
        assert back.capabilities.extended_agent_card == extended
        if card.supported_interfaces:
            assert back.supported_interfaces == card.supported_interfaces
        assert ("1.0" in card_dialects(back)) == (jsonrpc_url(back, "1.0") is not None)
    else:
        assert back.supports_authenticated_extended_card == extended
        assert back.capabilities.state_transition_history == card.capabilities.state_transition_history
        if card.url:
            assert (back.url, back.preferred_transport) == (card.url, card.preferred_transport)
            assert back.additional_interfaces == card.additional_interfaces or card.additional_interfaces is None
        assert "0.3" in card_dialects(back) or jsonrpc_url(back, "0.3") is None
