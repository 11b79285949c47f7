"""Agent cards: read any mix of dialects into one AgentCard, write it out as one dialect.

Decoding does not pick a dialect, because real cards mix them: a2a-sdk 1.3.0 serves the
1.0 ``supportedInterfaces`` next to the 0.3 ``url``/``protocolVersion``/
``preferredTransport``/``additionalInterfaces``. Every spelling we know is read into the
normalised model; the caller keeps the raw dict if it wants to show the card as sent.

``encode_card`` writes exactly one dialect's spelling, so that the result validates
against that version's official AgentCard schema. To get there it drops:

- keys that another dialect defines and the target does not (``url`` and friends in
  1.0, ``supportedInterfaces`` in 0.3, ``authentication`` in 0.3/1.0, ...). The target's
  own fields are derived from them instead. 1.0's schema (additionalProperties: false)
  rejects such keys outright; for 0.1/0.3 a card mixing spellings would only mislead.
- what the target cannot say: 0.1 has no security schemes (their kinds, or the http
  scheme such as "bearer", become ``authentication.schemes``), skill security, signatures, icon, extensions or extended
  card; 1.0 has no ``capabilities.stateTransitionHistory``; 1.0 cannot wrap a security
  scheme whose ``type`` is not one of the five kinds; 0.3/1.0 keep a 0.1
  ``authentication`` only for the HTTP schemes (basic, bearer, digest), the others
  (OAuth2, jwt, ...) lack what a scheme object requires.

Keys no dialect defines (an agent's private fields) are carried over in every dialect,
even into 1.0, whose strict schema then rejects them: showing and serving the card as
configured beats hiding data. Required fields the card lacks are filled with empty
values ("" / [] / {}), so the output parses everywhere; ``lint_card`` on the raw card is
where their absence is reported.
"""

from __future__ import annotations

import re
from typing import Any

from .errors import ProtocolError
from .models import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentSkill,
    SecurityScheme,
)
from .validation import type_name, validate

DIALECTS = ("0.1", "0.3", "1.0")

#: Top-level card keys each dialect's schema defines.
CARD_KEYS: dict[str, frozenset[str]] = {
    "0.1": frozenset(
        {
            "name",
            "description",
            "url",
            "provider",
            "version",
            "documentationUrl",
            "capabilities",
            "authentication",
            "defaultInputModes",
            "defaultOutputModes",
            "skills",
        }
    ),
    "0.3": frozenset(
        {
            "name",
            "description",
            "url",
            "provider",
            "version",
            "documentationUrl",
            "iconUrl",
            "capabilities",
            "securitySchemes",
            "security",
            "defaultInputModes",
            "defaultOutputModes",
            "skills",
            "supportsAuthenticatedExtendedCard",
            "protocolVersion",
            "preferredTransport",
            "additionalInterfaces",
            "signatures",
        }
    ),
    "1.0": frozenset(
        {
            "name",
            "description",
            "supportedInterfaces",
            "provider",
            "version",
            "documentationUrl",
            "iconUrl",
            "capabilities",
            "securitySchemes",
            "securityRequirements",
            "defaultInputModes",
            "defaultOutputModes",
            "skills",
            "signatures",
        }
    ),
}
CAPABILITY_KEYS: dict[str, frozenset[str]] = {
    "0.1": frozenset({"streaming", "pushNotifications", "stateTransitionHistory"}),
    "0.3": frozenset({"streaming", "pushNotifications", "stateTransitionHistory", "extensions"}),
    "1.0": frozenset({"streaming", "pushNotifications", "extensions", "extendedAgentCard"}),
}
SKILL_KEYS: dict[str, frozenset[str]] = {
    "0.1": frozenset({"id", "name", "description", "tags", "examples", "inputModes", "outputModes"}),
    "0.3": frozenset({"id", "name", "description", "tags", "examples", "inputModes", "outputModes", "security"}),
    "1.0": frozenset(
        {
            "id",
            "name",
            "description",
            "tags",
            "examples",
            "inputModes",
            "outputModes",
            "securityRequirements",
        }
    ),
}
INTERFACE_KEYS: dict[str, frozenset[str]] = {
    "0.3": frozenset({"url", "transport"}),
    "1.0": frozenset({"url", "protocolBinding", "protocolVersion", "tenant"}),
}

#: 1.0's oneof member name -> the normalised ``type`` (0.3's spelling).
SCHEME_WRAPPERS: dict[str, str] = {
    "apiKeySecurityScheme": "apiKey",
    "httpAuthSecurityScheme": "http",
    "oauth2SecurityScheme": "oauth2",
    "openIdConnectSecurityScheme": "openIdConnect",
    "mtlsSecurityScheme": "mutualTLS",
}
_WRAPPER_FOR = {kind: wrapper for wrapper, kind in SCHEME_WRAPPERS.items()}
_SCHEME_KEYS = frozenset(
    {
        "type",
        "description",
        "name",
        "in",
        "location",
        "scheme",
        "bearerFormat",
        "flows",
        "oauth2MetadataUrl",
        "openIdConnectUrl",
        *SCHEME_WRAPPERS,
    }
)

_ALL_CARD_KEYS = frozenset().union(*CARD_KEYS.values())
_ALL_CAPABILITY_KEYS = frozenset().union(*CAPABILITY_KEYS.values())
_ALL_SKILL_KEYS = frozenset().union(*SKILL_KEYS.values())
_ALL_INTERFACE_KEYS = frozenset().union(*INTERFACE_KEYS.values())

#: 0.1 scheme names that map onto an OpenAPI http scheme without further information.
_LEGACY_HTTP_SCHEMES = ("basic", "bearer", "digest")

_VERSION = re.compile(r"v?(\d+)\.(\d+)(?:\.(\d+))?(?:[-+][0-9A-Za-z.+-]*)?")
_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


# --------------------------------------------------------------------------- helpers


def dialect_name(name: str) -> str:
    """ "0.1" / "0.3" / "1.0"; "0.2" is the 0.3 dialect (same wire names)."""
    canonical = "0.3" if name == "0.2" else name
    if canonical not in DIALECTS:
        raise ValueError(f"unknown dialect {name!r} (expected 0.1, 0.3 or 1.0)")
    return canonical


def version_tuple(text: Any) -> tuple[int, int, int] | None:
    """ "0.3.0" -> (0, 3, 0); "1.0" -> (1, 0, 0); None for anything not version-shaped."""
    if not isinstance(text, str):
        return None
    match = _VERSION.fullmatch(text.strip())
    if match is None:
        return None
    major, minor, patch = match.groups()
    return int(major), int(minor), int(patch or 0)


def is_v03_version(text: Any) -> bool:
    """0.2.x and 0.3.x share the 0.3 dialect's wire."""
    version = version_tuple(text)
    return version is not None and (0, 2) <= version[:2] <= (0, 3)


def is_v10_version(text: Any) -> bool:
    version = version_tuple(text)
    return version is not None and version[0] == 1


def is_jsonrpc(binding: str | None) -> bool:
    return isinstance(binding, str) and binding.strip().upper() == "JSONRPC"


def child(path: str, key: str | int) -> str:
    """The JSON path of ``key`` under ``path``; odd keys are quoted."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    if _PLAIN_KEY.fullmatch(key):
        return f"{path}.{key}"
    escaped = key.replace("\\", "\\\\").replace('"', '\\"')
    return f'{path}["{escaped}"]'


def _object(value: Any, path: str, what: str = "an object") -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ProtocolError(f"expected {what}, got {type_name(value)}", path)
    return value


def _array(value: Any, path: str) -> list[Any]:
    if not isinstance(value, list):
        raise ProtocolError(f"expected an array, got {type_name(value)}", path)
    return value


def _strings(value: Any, path: str) -> list[str]:
    items = _array(value, path)
    for i, item in enumerate(items):
        if not isinstance(item, str):
            raise ProtocolError(f"expected a string, got {type_name(item)}", child(path, i))
    return items


# --------------------------------------------------------------------------- decode


def decode_card(raw: Any, path: str = "$") -> AgentCard:
    """A parsed agent card of any dialect, or any mix of them -> AgentCard.

    Raises ProtocolError naming the JSON path of the first malformed field."""
    data = dict(_object(raw, path, "an agent card object"))
    for key in ("additionalInterfaces", "supportedInterfaces"):
        if data.get(key) is not None:
            where = child(path, key)
            data[key] = [decode_interface(e, child(where, i)) for i, e in enumerate(_array(data[key], where))]
    if data.get("securitySchemes") is not None:
        where = child(path, "securitySchemes")
        schemes = _object(data["securitySchemes"], where)
        data["securitySchemes"] = {
            name: decode_security_scheme(scheme, child(where, name)) for name, scheme in schemes.items()
        }
    _take_requirements(data, path)
    if data.get("skills") is not None:
        where = child(path, "skills")
        data["skills"] = [_decode_skill(s, child(where, i)) for i, s in enumerate(_array(data["skills"], where))]
    if data.get("authentication") is not None:
        _check_authentication(data["authentication"], child(path, "authentication"))
    return validate(AgentCard, data, path)


def decode_interface(raw: Any, path: str) -> AgentInterface:
    """0.3 ``{url, transport}`` or 1.0 ``{url, protocolBinding, protocolVersion, tenant}``."""
    data = dict(_object(raw, path))
    if "protocolBinding" not in data and "transport" in data:
        transport = data.pop("transport")
        if transport is not None and not isinstance(transport, str):
            raise ProtocolError(f"expected a string, got {type_name(transport)}", child(path, "transport"))
        data["protocolBinding"] = transport
    return validate(AgentInterface, data, path)


def decode_security_scheme(raw: Any, path: str) -> SecurityScheme:
    """0.2/0.3 ``{type: apiKey, in, name}`` or 1.0 ``{apiKeySecurityScheme: {location, name}}``."""
    obj = _object(raw, path)
    if "type" in obj:
        data = dict(obj)
        if not isinstance(data["type"], str):
            raise ProtocolError(f"expected a string, got {type_name(data['type'])}", child(path, "type"))
        if "in" in data:
            data["location"] = data.pop("in")
        return validate(SecurityScheme, data, path)
    kinds = [key for key in obj if key in SCHEME_WRAPPERS]
    if not kinds:
        raise ProtocolError("security scheme has no type and none of " + ", ".join(SCHEME_WRAPPERS), path)
    if len(kinds) > 1:
        raise ProtocolError(f"security scheme sets more than one kind: {', '.join(kinds)}", path)
    kind = kinds[0]
    inner = _object(obj[kind], child(path, kind))
    outer = {key: value for key, value in obj.items() if key != kind}
    return validate(SecurityScheme, {**outer, **inner, "type": SCHEME_WRAPPERS[kind]}, child(path, kind))


def decode_requirements(raw: Any, path: str, *, wrapped: bool) -> list[dict[str, list[str]]]:
    """0.3 ``[{name: [scopes]}]`` or, when ``wrapped``, 1.0 ``[{schemes: {name: {list: [scopes]}}}]``
    -> the 0.3 shape."""
    out: list[dict[str, list[str]]] = []
    for i, entry in enumerate(_array(raw, path)):
        where = child(path, i)
        entry = _object(entry, where)
        if wrapped:
            where = child(where, "schemes")
            entry = _object(entry.get("schemes", {}), where)
        requirement: dict[str, list[str]] = {}
        for name, scopes in entry.items():
            at = child(where, name)
            if wrapped and isinstance(scopes, dict):
                at = child(at, "list")
                scopes = scopes.get("list", [])
            requirement[name] = list(_strings(scopes, at))
        out.append(requirement)
    return out


def _take_requirements(data: dict[str, Any], path: str) -> None:
    """Fold 1.0 ``securityRequirements`` into ``security``; when a card has both, the
    0.3 list wins and the 1.0 one (the same thing, by every server seen) is dropped."""
    wrapped = data.pop("securityRequirements", None)
    if data.get("security") is not None:
        data["security"] = decode_requirements(data["security"], child(path, "security"), wrapped=False)
    elif wrapped is not None:
        data["security"] = decode_requirements(wrapped, child(path, "securityRequirements"), wrapped=True)


def _decode_skill(raw: Any, path: str) -> Any:
    data = dict(_object(raw, path))
    _take_requirements(data, path)
    return data


def _check_authentication(raw: Any, path: str) -> None:
    # The model's ``list[str] | str`` union would report errors under pydantic's branch
    # labels; check here so the path stays a JSON path.
    auth = _object(raw, path)
    schemes = auth.get("schemes")
    if schemes is not None and not isinstance(schemes, str):
        _strings(schemes, child(path, "schemes"))


# --------------------------------------------------------------------------- dialects


def card_dialects(card: AgentCard) -> list[str]:
    """The dialects the card itself says it speaks over JSON-RPC, best first.

    Empty when it cannot tell: a 0.1 or early-0.2 card names neither a protocol version
    nor a transport."""
    out = []
    if jsonrpc_url(card, "1.0") is not None:
        out.append("1.0")
    if _says_v03(card) and jsonrpc_url(card, "0.3") is not None:
        out.append("0.3")
    return out


def _says_v03(card: AgentCard) -> bool:
    if is_v03_version(card.protocol_version):
        return True
    # preferredTransport/additionalInterfaces arrived in 0.2.4, already on the 0.3 wire.
    if card.preferred_transport is not None or card.additional_interfaces:
        return True
    return any(
        is_jsonrpc(i.protocol_binding) and is_v03_version(i.protocol_version) for i in card.supported_interfaces or ()
    )


def jsonrpc_url(card: AgentCard, dialect: str) -> str | None:
    """The URL the card names for ``dialect``'s JSON-RPC binding, as written (may be relative)."""
    dialect = dialect_name(dialect)
    if dialect == "0.1":
        return card.url or None
    if dialect == "1.0":
        for interface in card.supported_interfaces or ():
            if is_jsonrpc(interface.protocol_binding) and is_v10_version(interface.protocol_version) and interface.url:
                return interface.url
        return None
    if card.url and (card.preferred_transport is None or is_jsonrpc(card.preferred_transport)):
        return card.url
    for interface in card.additional_interfaces or ():
        if is_jsonrpc(interface.protocol_binding) and interface.url:
            return interface.url
    for interface in card.supported_interfaces or ():
        if is_jsonrpc(interface.protocol_binding) and is_v03_version(interface.protocol_version) and interface.url:
            return interface.url
    return None


# --------------------------------------------------------------------------- encode


def encode_card(card: AgentCard, dialect: str) -> dict[str, Any]:
    """The card as ``dialect`` spells it (see the module docstring for what is dropped)."""
    dialect = dialect_name(dialect)
    if dialect == "0.1":
        return _encode_v01(card)
    if dialect == "0.3":
        return _encode_v03(card)
    return _encode_v10(card)


def _put(out: dict[str, Any], key: str, value: Any) -> None:
    if value is not None:
        out[key] = value


def _extras(model: Any, known: frozenset[str]) -> dict[str, Any]:
    """The model's private keys, JSON-ready; keys some dialect defines are never private."""
    extra = model.model_extra or {}
    if not extra:
        return {}
    wire = model.wire()
    return {key: wire[key] for key in extra if key in wire and key not in known}


def _common_head(card: AgentCard, out: dict[str, Any]) -> None:
    out["name"] = card.name or ""
    out["description"] = card.description or ""


def _provider(card: AgentCard, dialect: str) -> dict[str, Any] | None:
    if card.provider is None:
        return None
    out = card.provider.wire()
    out.setdefault("organization", "")
    if dialect != "0.1":
        out.setdefault("url", "")
    return out


def _capabilities(card: AgentCard, dialect: str) -> dict[str, Any]:
    caps = card.capabilities or AgentCapabilities()
    out: dict[str, Any] = {}
    _put(out, "streaming", caps.streaming)
    _put(out, "pushNotifications", caps.push_notifications)
    if dialect in ("0.1", "0.3"):
        _put(out, "stateTransitionHistory", caps.state_transition_history)
    if dialect in ("0.3", "1.0") and caps.extensions is not None:
        out["extensions"] = [e.wire() for e in caps.extensions]
    if dialect == "1.0":
        _put(out, "extendedAgentCard", _extended_card(card))
    out.update(_extras(caps, _ALL_CAPABILITY_KEYS))
    return out


def _extended_card(card: AgentCard) -> bool | None:
    flag = card.capabilities.extended_agent_card if card.capabilities else None
    return flag if flag is not None else card.supports_authenticated_extended_card


def _skill(skill: AgentSkill, dialect: str) -> dict[str, Any]:
    out: dict[str, Any] = {"id": skill.id or "", "name": skill.name or ""}
    if dialect == "0.1":
        _put(out, "description", skill.description)
        _put(out, "tags", skill.tags)
    else:
        out["description"] = skill.description or ""
        out["tags"] = list(skill.tags or [])
    _put(out, "examples", skill.examples)
    _put(out, "inputModes", skill.input_modes)
    _put(out, "outputModes", skill.output_modes)
    if skill.security is not None:
        if dialect == "0.3":
            out["security"] = skill.security
        elif dialect == "1.0":
            out["securityRequirements"] = _wrap_requirements(skill.security)
    out.update(_extras(skill, _ALL_SKILL_KEYS))
    return out


def _skills(card: AgentCard, dialect: str) -> list[dict[str, Any]]:
    return [_skill(s, dialect) for s in card.skills or ()]


def _wrap_requirements(requirements: list[dict[str, list[str]]]) -> list[dict[str, Any]]:
    return [{"schemes": {name: {"list": list(scopes)} for name, scopes in r.items()}} for r in requirements]


def _tail(card: AgentCard, out: dict[str, Any], dialect: str) -> dict[str, Any]:
    """Modes and skills (required everywhere but 0.1's modes), then private keys."""
    if dialect == "0.1":
        _put(out, "defaultInputModes", card.default_input_modes)
        _put(out, "defaultOutputModes", card.default_output_modes)
    else:
        out["defaultInputModes"] = list(card.default_input_modes or [])
        out["defaultOutputModes"] = list(card.default_output_modes or [])
    out["skills"] = _skills(card, dialect)
    out.update(_extras(card, _ALL_CARD_KEYS))
    return out


# security ------------------------------------------------------------------------


def _security(card: AgentCard) -> tuple[dict[str, SecurityScheme] | None, list[dict[str, list[str]]] | None]:
    """The card's schemes and requirements, falling back to what a 0.1
    ``authentication`` block can say in OpenAPI terms."""
    if card.security_schemes is not None or card.authentication is None:
        return card.security_schemes, card.security
    names = card.authentication.schemes
    names = [names] if isinstance(names, str) else names
    schemes = {
        name.lower(): SecurityScheme(type="http", scheme=name.lower())
        for name in names
        if name.lower() in _LEGACY_HTTP_SCHEMES
    }
    if not schemes:
        return None, card.security
    # 0.1 lists alternatives; OpenAPI spells "any one of these" as one entry per scheme.
    return schemes, card.security if card.security is not None else [{name: []} for name in schemes]


def _scheme_fields(scheme: SecurityScheme, out: dict[str, Any], location_key: str) -> bool:
    """A scheme's fields as both dialects name them (but where an API key goes: 0.3's
    ``in``, 1.0's ``location``), put into ``out``; False for a type without fields of
    its own here (mutualTLS, or one we do not know)."""
    _put(out, "description", scheme.description)
    kind = scheme.type
    if kind == "apiKey":
        out[location_key] = scheme.location or "header"
        out["name"] = scheme.name or ""
    elif kind == "http":
        out["scheme"] = scheme.scheme or ""
        _put(out, "bearerFormat", scheme.bearer_format)
    elif kind == "oauth2":
        out["flows"] = scheme.flows or {}
        _put(out, "oauth2MetadataUrl", scheme.oauth2_metadata_url)
    elif kind == "openIdConnect":
        out["openIdConnectUrl"] = scheme.open_id_connect_url or ""
    else:
        return False
    return True


def _scheme_v03(scheme: SecurityScheme) -> dict[str, Any]:
    out: dict[str, Any] = {"type": scheme.type}
    if not _scheme_fields(scheme, out, "in") and scheme.type != "mutualTLS":
        # A type we do not know: pass along whatever it set.
        wire = scheme.wire()
        for key in ("name", "scheme", "bearerFormat", "flows", "oauth2MetadataUrl", "openIdConnectUrl"):
            _put(out, key, wire.get(key))
        _put(out, "in", scheme.location)
    out.update(_extras(scheme, _SCHEME_KEYS))
    return out


def _scheme_v10(scheme: SecurityScheme) -> dict[str, Any] | None:
    wrapper = _WRAPPER_FOR.get(scheme.type)
    if wrapper is None:
        return None
    inner: dict[str, Any] = {}
    _scheme_fields(scheme, inner, "location")
    inner.update(_extras(scheme, _SCHEME_KEYS))
    return {wrapper: inner}


# interfaces ------------------------------------------------------------------------


def _interface_v03(interface: AgentInterface) -> dict[str, Any]:
    out = {"url": interface.url, "transport": interface.protocol_binding or "JSONRPC"}
    out.update(_extras(interface, _ALL_INTERFACE_KEYS))
    return out


def _interface_v10(interface: AgentInterface, version: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"url": interface.url}
    _put(out, "protocolBinding", interface.protocol_binding)
    _put(out, "protocolVersion", interface.protocol_version or version)
    _put(out, "tenant", interface.tenant)
    out.update(_extras(interface, _ALL_INTERFACE_KEYS))
    return out


def _unique(interfaces: list[AgentInterface]) -> list[AgentInterface]:
    seen: set[tuple[str, str]] = set()
    out = []
    for interface in interfaces:
        key = (interface.url, (interface.protocol_binding or "JSONRPC").upper())
        if key not in seen:
            seen.add(key)
            out.append(interface)
    return out


def _v03_interfaces(card: AgentCard) -> list[AgentInterface]:
    """A 1.0 card's interfaces as 0.3 sees them: the 0.x ones if it marks any, else all."""
    interfaces = list(card.supported_interfaces or ())
    older = [i for i in interfaces if i.protocol_version is None or is_v03_version(i.protocol_version)]
    ranked = sorted(older or interfaces, key=lambda i: not is_jsonrpc(i.protocol_binding))
    return _unique(ranked)


# per dialect -------------------------------------------------------------------------


def _encode_v01(card: AgentCard) -> dict[str, Any]:
    out: dict[str, Any] = {"name": card.name or ""}
    _put(out, "description", card.description)
    out["url"] = card.url or jsonrpc_url(card, "1.0") or _first_url(_v03_interfaces(card)) or ""
    _put(out, "provider", _provider(card, "0.1"))
    out["version"] = card.version or ""
    _put(out, "documentationUrl", card.documentation_url)
    out["capabilities"] = _capabilities(card, "0.1")
    auth = _authentication_v01(card)
    _put(out, "authentication", auth)
    return _tail(card, out, "0.1")


def _first_url(interfaces: list[AgentInterface]) -> str | None:
    return interfaces[0].url if interfaces else None


def _authentication_v01(card: AgentCard) -> dict[str, Any] | None:
    if card.authentication is not None:
        auth = card.authentication
        schemes = [auth.schemes] if isinstance(auth.schemes, str) else list(auth.schemes)
        out: dict[str, Any] = {"schemes": schemes}
        _put(out, "credentials", auth.credentials)
        out.update(_extras(auth, frozenset({"schemes", "credentials"})))
        return out
    if not card.security_schemes:
        return None
    names: list[str] = []
    for scheme in card.security_schemes.values():
        name = scheme.scheme if scheme.type == "http" and scheme.scheme else scheme.type
        if name not in names:
            names.append(name)
    return {"schemes": names}


def _encode_v03(card: AgentCard) -> dict[str, Any]:
    url, transport = card.url, card.preferred_transport
    derived = _v03_interfaces(card)
    if not url and derived:
        url, transport = derived[0].url, derived[0].protocol_binding
    additional = card.additional_interfaces
    if additional is None and len(derived) > 1:
        additional = derived

    version = card.protocol_version if is_v03_version(card.protocol_version) else "0.3.0"
    out: dict[str, Any] = {"protocolVersion": version}
    _common_head(card, out)
    out["url"] = url or ""
    _put(out, "preferredTransport", transport)
    if additional is not None:
        out["additionalInterfaces"] = [_interface_v03(i) for i in additional]
    _put(out, "provider", _provider(card, "0.3"))
    _put(out, "iconUrl", card.icon_url)
    out["version"] = card.version or ""
    _put(out, "documentationUrl", card.documentation_url)
    out["capabilities"] = _capabilities(card, "0.3")
    schemes, requirements = _security(card)
    if schemes is not None:
        out["securitySchemes"] = {name: _scheme_v03(s) for name, s in schemes.items()}
    _put(out, "security", requirements)
    _put(out, "supportsAuthenticatedExtendedCard", _supports_extended_v03(card))
    _put(out, "signatures", card.signatures)
    return _tail(card, out, "0.3")


def _supports_extended_v03(card: AgentCard) -> bool | None:
    if card.supports_authenticated_extended_card is not None:
        return card.supports_authenticated_extended_card
    return card.capabilities.extended_agent_card if card.capabilities else None


def _encode_v10(card: AgentCard) -> dict[str, Any]:
    out: dict[str, Any] = {}
    _common_head(card, out)
    if card.supported_interfaces:
        out["supportedInterfaces"] = [_interface_v10(i) for i in card.supported_interfaces]
    else:
        # A 0.x card served as 1.0: the same endpoints, now speaking 1.0.
        spelled: list[AgentInterface] = []
        if card.url:
            spelled.append(AgentInterface(url=card.url, protocol_binding=card.preferred_transport or "JSONRPC"))
        spelled.extend(
            i.model_copy(update={"protocol_binding": i.protocol_binding or "JSONRPC"})
            for i in card.additional_interfaces or ()
        )
        out["supportedInterfaces"] = [_interface_v10(i, "1.0") for i in _unique(spelled)]
    _put(out, "provider", _provider(card, "1.0"))
    out["version"] = card.version or ""
    _put(out, "documentationUrl", card.documentation_url)
    out["capabilities"] = _capabilities(card, "1.0")
    schemes, requirements = _security(card)
    if schemes is not None:
        wrapped = {name: _scheme_v10(s) for name, s in schemes.items()}
        out["securitySchemes"] = {name: w for name, w in wrapped.items() if w is not None}
    if requirements is not None:
        out["securityRequirements"] = _wrap_requirements(requirements)
    _put(out, "signatures", card.signatures)
    _put(out, "iconUrl", card.icon_url)
    return _tail(card, out, "1.0")
