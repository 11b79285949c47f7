"""Findings about an agent card, each pinned to the JSON path of the field concerned.

Linting reads the raw dict rather than the decoded model: the model normalises away
exactly the things worth pointing at (0.1's string ``schemes``, 0.3's ``transport``
versus 1.0's ``protocolBinding``, a scheme spelled for the wrong version).

Severity: ``error`` breaks the card for that version's schema or for any client;
``warning`` is legal but likely wrong or unusable; ``info`` is worth knowing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import SplitResult, urljoin, urlsplit

from .card import (
    CAPABILITY_KEYS,
    CARD_KEYS,
    DIALECTS,
    SCHEME_WRAPPERS,
    SKILL_KEYS,
    child,
    decode_card,
    dialect_name,
    is_v03_version,
    is_v10_version,
    version_tuple,
)
from .errors import ProtocolError
from .validation import type_name

Severity = Literal["error", "warning", "info"]

_SEVERITY_RANK = {"error": 0, "warning": 1, "info": 2}
_BINDINGS = ("JSONRPC", "GRPC", "HTTP+JSON")
#: URL schemes a gRPC client dials (besides a bare ``host:port``); ``dns:///host:port`` is
#: gRPC's own name syntax, ``https://host/path`` how the 1.0 spec's examples write one.
_GRPC_SCHEMES = ("grpc", "grpcs", "http", "https", "dns")
#: gRPC's local socket targets, which have no host.
_GRPC_LOCAL = ("unix:", "unix-abstract:")
#: ``host:port`` with nothing else: how gRPC interfaces are written, never an HTTP URL.
_HOST_PORT = re.compile(r"(?:\[[0-9A-Fa-f:.]+\]|[\w.-]+):\d+")
_API_KEY_LOCATIONS = ("header", "query", "cookie")

#: What each security scheme kind must name (0.3 spelling first, 1.0's where it differs).
_SCHEME_REQUIRED: dict[str, tuple[tuple[str, str], ...]] = {
    "apiKey": (("in", "location"), ("name", "name")),
    "http": (("scheme", "scheme"),),
    "oauth2": (("flows", "flows"),),
    "openIdConnect": (("openIdConnectUrl", "openIdConnectUrl"),),
    "mutualTLS": (),
}

_TOP_LEVEL_TYPES: dict[str, type | tuple[type, ...]] = {
    "name": str,
    "description": str,
    "version": str,
    "url": str,
    "protocolVersion": str,
    "preferredTransport": str,
    "documentationUrl": str,
    "iconUrl": str,
    "capabilities": dict,
    "provider": dict,
    "authentication": dict,
    "securitySchemes": dict,
    "security": list,
    "securityRequirements": list,
    "defaultInputModes": list,
    "defaultOutputModes": list,
    "skills": list,
    "supportedInterfaces": list,
    "additionalInterfaces": list,
    "supportsAuthenticatedExtendedCard": bool,
    "signatures": list,
}
_JSON_TYPE = {str: "a string", dict: "an object", list: "an array", bool: "a boolean"}

#: 0.3 keys that a2a-sdk 1.3.0 serves next to 1.0's supportedInterfaces.
_V03_TRANSPORT_KEYS = ("url", "preferredTransport", "protocolVersion", "additionalInterfaces")

#: The identity fields that get a ``missing-<key>`` / ``empty-<key>`` finding each.
_IDENTITY_KEYS = ("name", "version", "description")
#: Mode lists and the stem of their ``missing-<stem>`` / ``empty-<stem>`` codes.
_MODE_KEYS = (("defaultInputModes", "default-input-modes"), ("defaultOutputModes", "default-output-modes"))


@dataclass(frozen=True, slots=True)
class Finding:
    severity: Severity
    #: JSON path of the field concerned, e.g. ``$.skills[1].id``.
    path: str
    message: str
    #: Stable kebab-case id, e.g. ``missing-protocol-version``.
    code: str


#: Every code a Finding can carry, with what it means. Users read these codes in the TUI
#: and in ``card --json``; docs/lint.md explains each, and tests/test_docs_lint.py keeps
#: this table, the linter's source and that page in step.
LINT_CODES: dict[str, str] = {
    # the card as a whole, and field types
    "not-an-object": "the card is not a JSON object",
    "wrong-type": "a field has the wrong JSON type, or the card does not decode at that path",
    # identity
    "missing-name": "the card has no name",
    "missing-version": "the card has no version (the agent's own version, not A2A's)",
    "missing-description": "the card has no description (0.2 and later require one)",
    "empty-name": "the card's name is an empty string",
    "empty-version": "the card's version is an empty string",
    "empty-description": "the card's description is an empty string",
    "missing-field": "a required string of the provider or of a capabilities extension is missing or empty",
    # URLs and interfaces
    "missing-url": "a 0.1/0.3 card has no url, or an empty one, so there is nowhere to send requests",
    "relative-url": "an endpoint URL has no scheme; clients need an absolute URL",
    "non-http-url": "a JSONRPC or HTTP+JSON endpoint URL is not http(s) or names no host",
    "invalid-grpc-target": "a GRPC endpoint is not a target a gRPC client can dial",
    "unknown-protocol-binding": "a transport or protocolBinding is not JSONRPC, GRPC or HTTP+JSON",
    "interface-missing-url": "an additionalInterfaces or supportedInterfaces entry has no url",
    "interface-missing-transport": "an additionalInterfaces entry has no transport",
    "interface-missing-protocol-binding": "a supportedInterfaces entry has no protocolBinding",
    "interface-missing-protocol-version": "a supportedInterfaces entry has no protocolVersion",
    "missing-supported-interfaces": "a 1.0 card has no supportedInterfaces",
    "duplicate-interface": "a supportedInterfaces entry repeats an earlier one",
    "main-interface-not-listed": "a 0.3 card's additionalInterfaces leaves out the main url and transport",
    "no-interface-for-version": "no endpoint offers the card's version over a binding A2A defines",
    # protocol version
    "missing-protocol-version": "a 0.3 card has no protocolVersion",
    "invalid-protocol-version": "a protocolVersion does not look like a version number",
    "protocol-version-mismatch": "protocolVersion disagrees with the dialect or with supportedInterfaces",
    "protocol-version-unreachable": (
        "protocolVersion claims 1.0 or later on a card with 0.3's shape and no interface for it"
    ),
    # capabilities and modes
    "missing-capabilities": "the card has no capabilities object",
    "streaming-grpc-only": "streaming is claimed but every endpoint is gRPC",
    "push-notifications-grpc-only": "push notifications are claimed but every endpoint is gRPC",
    "extended-card-flag-mismatch": "supportsAuthenticatedExtendedCard and capabilities.extendedAgentCard disagree",
    "missing-default-input-modes": "a 0.3/1.0 card has no defaultInputModes",
    "missing-default-output-modes": "a 0.3/1.0 card has no defaultOutputModes",
    "empty-default-input-modes": "defaultInputModes is an empty list, so no input media type is accepted",
    "empty-default-output-modes": "defaultOutputModes is an empty list, so no output media type is offered",
    # skills
    "missing-skills": "the card has no skills list",
    "no-skills": "the skills list is empty (0.1/0.3: legal)",
    "empty-required-array": "a 1.0 card leaves an array 1.0 marks REQUIRED empty",
    "skill-missing-id": "a skill has no id, or an empty one",
    "skill-missing-name": "a skill has no name, or an empty one",
    "skill-missing-description": "a 0.3/1.0 skill has no description, or an empty one",
    "skill-missing-tags": "a 0.3/1.0 skill has no tags",
    "duplicate-skill-id": "two skills share an id",
    # security
    "security-scheme-shape": "a security scheme is spelled for the other version, or its two spellings disagree",
    "invalid-security-scheme": "a security scheme has no kind, an unknown kind, or more than one",
    "security-scheme-missing-field": "a security scheme lacks a field its kind needs",
    "invalid-api-key-location": "an apiKey scheme's location is not header, query or cookie",
    "unknown-security-scheme": "a security requirement names a scheme securitySchemes does not declare",
    "missing-auth-schemes": "0.1's authentication object has no schemes",
    "legacy-schemes-string": "0.1's authentication.schemes is a string instead of a list",
    "null-credentials": "0.1's authentication.credentials is null instead of a string or absent",
    # version mix-ups
    "foreign-field": "a field belongs to another A2A version's card",
    "mixed-dialect-card": "the card carries both 1.0 and 0.3 endpoint fields",
}


#: Card keys that came with A2A 0.2 or later: a card with none of them, and no version
#: of its own, has the shape of a 0.1 draft card.
_LATER_KEYS = (
    "protocolVersion",
    "preferredTransport",
    "additionalInterfaces",
    "supportedInterfaces",
    "securitySchemes",
    "security",
    "securityRequirements",
    "iconUrl",
    "supportsAuthenticatedExtendedCard",
    "signatures",
)


def infer_dialect(raw: Any) -> str:
    """The dialect to lint a card as when nobody said, from the card's shape and every
    interface it lists, whatever their binding:

    - 1.0 when a ``supportedInterfaces`` entry says 1.x, or when the card names its
      endpoints only there (no 0.3 ``url``, ``preferredTransport`` or
      ``additionalInterfaces``), even if no entry's version parses;
    - 0.3 when it says 0.2/0.3 (top-level ``protocolVersion``, an interface entry) or has
      0.3's endpoint fields;
    - 1.0 for a ``protocolVersion`` of 1.x with no ``url`` either;
    - 0.1 for a card with 0.1's ``authentication`` or none of the keys later versions
      added; else 0.3."""
    if not isinstance(raw, dict):
        return "0.3"
    listed = raw.get("supportedInterfaces")
    versions = [e.get("protocolVersion") for e in listed if isinstance(e, dict)] if isinstance(listed, list) else []
    if any(is_v10_version(v) for v in versions):
        return "1.0"
    says_v03 = (
        is_v03_version(raw.get("protocolVersion")) or "preferredTransport" in raw or "additionalInterfaces" in raw
    )
    if isinstance(listed, list) and not raw.get("url") and not says_v03:
        return "1.0"
    if says_v03 or any(is_v03_version(v) for v in versions):
        return "0.3"
    if is_v10_version(raw.get("protocolVersion")) and not raw.get("url"):
        return "1.0"
    if "authentication" in raw or not any(k in raw for k in _LATER_KEYS):
        return "0.1"
    return "0.3"


def lint_card(raw: Any, dialect: str | None = None, *, card_url: str | None = None) -> list[Finding]:
    """Everything worth telling about ``raw`` read as ``dialect`` (inferred when None),
    errors first, then by path. ``card_url`` is where the card was fetched from; relative
    URLs are resolved against it in the messages."""
    if not isinstance(raw, dict):
        return [Finding("error", "$", f"expected an agent card object, got {type_name(raw)}", "not-an-object")]
    try:
        decode_card(raw)
        failure = None
    except ProtocolError as exc:
        failure = exc
    linter = _Linter(raw, dialect_name(dialect) if dialect else infer_dialect(raw), card_url)
    linter.run()
    if failure is not None and not any(f.severity == "error" and f.path == failure.path for f in linter.findings):
        # Anything the rules below did not foresee still surfaces, where decoding stopped.
        linter.add("error", failure.path, "wrong-type", failure.reason)
    return sorted(linter.findings, key=_order)


def _order(finding: Finding) -> tuple[Any, ...]:
    return (_SEVERITY_RANK[finding.severity], _path_key(finding.path), finding.code)


_PATH_STEP = re.compile(r'\.([^.\[]+)|\[(\d+)\]|\["((?:[^"\\]|\\.)*)"\]')


def _path_key(path: str) -> tuple[tuple[int, Any], ...]:
    """Sorts ``$.skills[2]`` before ``$.skills[10]``."""
    steps = []
    for key, index, quoted in _PATH_STEP.findall(path):
        steps.append((0, int(index)) if index else (1, key or quoted))
    return tuple(steps)


class _Linter:
    def __init__(self, raw: dict[str, Any], dialect: str, card_url: str | None) -> None:
        self.raw = raw
        self.dialect = dialect
        self.card_url = card_url
        self.findings: list[Finding] = []
        self.v03 = dialect == "0.3"
        self.v10 = dialect == "1.0"

    def add(self, severity: Severity, path: str, code: str, message: str) -> None:
        self.findings.append(Finding(severity, path, message, code))

    def run(self) -> None:
        self.top_level_types()
        self.identity()
        self.endpoints()
        self.protocol_version()
        self.capabilities()
        self.modes()
        self.skills()
        self.security()
        self.provider()
        self.dialect_mix()

    # -------------------------------------------------------------- raw access

    def top_level_types(self) -> None:
        for key, expected in _TOP_LEVEL_TYPES.items():
            value = self.raw.get(key)
            if value is not None and not _is(value, expected):
                self.wrong_type(child("$", key), value, expected)

    def get(self, key: str) -> Any:
        """The top-level value if it has the expected type (else top_level_types said so)."""
        value = self.raw.get(key)
        return value if value is not None and _is(value, _TOP_LEVEL_TYPES[key]) else None

    def wrong_type(self, path: str, value: Any, expected: type | tuple[type, ...]) -> None:
        want = _JSON_TYPE.get(expected, "a value") if isinstance(expected, type) else "a value"
        self.add("error", path, "wrong-type", f"expected {want}, got {type_name(value)}")

    def strings(self, value: Any, path: str) -> list[str] | None:
        """``value`` if it is a list of strings, else a wrong-type finding."""
        if not isinstance(value, list):
            self.wrong_type(path, value, list)
            return None
        ok = True
        for i, item in enumerate(value):
            if not isinstance(item, str):
                self.wrong_type(child(path, i), item, str)
                ok = False
        return value if ok else None

    def required(self, obj: dict[str, Any], key: str, path: str, code: str, what: str) -> Any:
        """The string at ``obj[key]``; a finding under ``code`` if missing, empty or not a string."""
        value = obj.get(key)
        at = child(path, key)
        if value is None:
            self.add("error", at, code, f"{what} is missing")
        elif not isinstance(value, str):
            self.wrong_type(at, value, str)
        elif not value.strip():
            self.add("error", at, code, f"{what} is empty")
        else:
            return value
        return None

    # -------------------------------------------------------------- identity

    def identity(self) -> None:
        for key in _IDENTITY_KEYS:
            value = self.raw.get(key)
            required = key != "description" or self.dialect != "0.1"
            if value is None:
                if required:
                    if key == "version" and self.dialect == "0.1":
                        # The draft's schema lists it, and the agents of its time left it
                        # out (Society AI's): worth knowing, not a broken card.
                        self.add(
                            "warning",
                            "$.version",
                            "missing-version",
                            "version is listed as required by the A2A 0.1 draft; agents of that "
                            "time often leave it out",
                        )
                    else:
                        self.add("error", child("$", key), f"missing-{key}", f"{key} is required by A2A {self.dialect}")
            elif isinstance(value, str) and not value.strip():
                if key != "description":
                    self.add("error", child("$", key), f"empty-{key}", f"{key} is empty")
                elif self.v10:
                    # 1.0's REQUIRED is the proto's: an empty string is its default, which
                    # ProtoJSON leaves out, so to a 1.0 client the description is missing.
                    self.add(
                        "error",
                        "$.description",
                        "empty-description",
                        "description is empty; A2A 1.0 marks it REQUIRED, and an empty string is the proto "
                        "default that 1.0 clients read as not set",
                    )
                else:
                    self.add(
                        "warning",
                        "$.description",
                        "empty-description",
                        "description is empty: legal, but it tells a client nothing",
                    )

    # -------------------------------------------------------------- endpoints

    def endpoints(self) -> None:
        url = self.raw.get("url")
        if not self.v10:
            if url is None or (isinstance(url, str) and not url.strip()):
                self.add(
                    "error",
                    "$.url",
                    "missing-url",
                    f"url is {'empty' if url is not None else 'missing'}; A2A {self.dialect} sends requests there",
                )
        if isinstance(url, str) and url.strip():
            self.endpoint_url("$.url", url, self.get("preferredTransport") or "JSONRPC")
        preferred = self.get("preferredTransport")
        if preferred is not None:
            self.binding_name("$.preferredTransport", preferred)
        self.additional_interfaces()
        self.supported_interfaces()
        self.interface_for_version()

    def endpoint_url(self, path: str, url: str, binding: Any) -> None:
        """Judged by the rules of the interface's binding: a gRPC target, or an absolute
        http(s) URL for JSONRPC and HTTP+JSON (also when the binding is missing, which
        both versions read as JSONRPC). A binding no version defines has no rules here."""
        name = "JSONRPC" if binding is None else binding.strip().upper() if isinstance(binding, str) else None
        if name == "GRPC":
            self.grpc_target(path, url)
            return
        if name not in _BINDINGS:
            return
        parts = _split(url.strip())
        if parts is None:
            self.add("error", path, "non-http-url", f"{url!r} is not a URL (a host in brackets that is not an IP)")
            return
        if parts.scheme.lower() == "ws-agent" and parts.netloc and self.dialect == "0.1":
            return  # a Society AI ws-agent (seed 001, a 0.1 system), reached through its hub
        if _HOST_PORT.fullmatch(url.strip()):
            self.add(
                "error",
                path,
                "non-http-url",
                f"{url!r} is a gRPC-style host:port target; a {name} interface needs an absolute http(s) URL",
            )
        elif not parts.scheme:
            where = (
                f"; resolves to {urljoin(self.card_url, url)!r} against the card's URL"
                if self.card_url
                else "; clients need an absolute URL"
            )
            self.add("error", path, "relative-url", f"relative URL {url!r}{where}")
        elif parts.scheme.lower() not in ("http", "https"):
            self.add("error", path, "non-http-url", f"URL scheme {parts.scheme!r} is not http or https")
        elif not parts.netloc:
            self.add("error", path, "non-http-url", f"URL {url!r} names no host")

    def grpc_target(self, path: str, url: str) -> None:
        """``host:port``, ``grpc(s)://host:port``, ``http(s)://host[:port][/path]``,
        ``dns:///host:port`` or a unix socket: what a gRPC client dials."""
        text = url.strip()
        if text.startswith(_GRPC_LOCAL):
            return
        scheme = text.partition("://")[0].lower() if "://" in text else ""
        if scheme and scheme not in _GRPC_SCHEMES:
            self.add(
                "error",
                path,
                "invalid-grpc-target",
                f"{scheme!r} is not a gRPC URL scheme; a GRPC interface is host:port, "
                "grpc(s)://host:port or http(s)://host:port",
            )
            return
        if scheme == "dns":
            # dns:///host:port keeps the target in the path (the authority is the resolver's).
            text = "//" + text.split("://", 1)[1].lstrip("/").partition("/")[0]
        elif not scheme:
            text = "//" + text
        parts = _split(text)
        if parts is None or not parts.hostname:
            self.add(
                "error",
                path,
                "invalid-grpc-target",
                f"{url!r} names no host to dial; a GRPC interface is host:port, grpc(s)://host:port "
                "or http(s)://host:port",
            )
        elif not _port_ok(parts):
            self.add("error", path, "invalid-grpc-target", f"{url!r} has a port that is not a number from 0 to 65535")

    def binding_name(self, path: str, binding: str) -> None:
        if binding not in _BINDINGS:
            self.add("warning", path, "unknown-protocol-binding", f"{binding!r} is not one of {', '.join(_BINDINGS)}")

    def interfaces(self, key: str) -> list[tuple[str, dict[str, Any]]]:
        """(path, entry) for each well-formed entry of an interface list."""
        value = self.get(key)
        out = []
        for i, entry in enumerate(value or ()):
            path = child(child("$", key), i)
            if isinstance(entry, dict):
                out.append((path, entry))
            else:
                self.wrong_type(path, entry, dict)
        return out

    def additional_interfaces(self) -> None:
        entries = self.interfaces("additionalInterfaces")
        for path, entry in entries:
            url = self.required(entry, "url", path, "interface-missing-url", "interface url")
            transport = entry.get("transport")
            if transport is None:
                hint = " (protocolBinding is 1.0's spelling)" if "protocolBinding" in entry else ""
                self.add(
                    "error",
                    child(path, "transport"),
                    "interface-missing-transport",
                    f"interface transport is missing{hint}",
                )
            elif not isinstance(transport, str):
                self.wrong_type(child(path, "transport"), transport, str)
            else:
                self.binding_name(child(path, "transport"), transport)
            if url is not None:
                self.endpoint_url(child(path, "url"), url, transport)
        url = self.get("url")
        if self.v03 and entries and url:
            main = (self.get("preferredTransport") or "JSONRPC").upper()
            listed = any(e.get("url") == url and str(e.get("transport", "")).upper() == main for _, e in entries)
            if not listed:
                self.add(
                    "info",
                    "$.additionalInterfaces",
                    "main-interface-not-listed",
                    f"additionalInterfaces should also list the main url with {main}",
                )

    def supported_interfaces(self) -> None:
        value = self.raw.get("supportedInterfaces")
        if self.v10 and value is None:
            self.add(
                "error",
                "$.supportedInterfaces",
                "missing-supported-interfaces",
                "supportedInterfaces is required by A2A 1.0: it is where a 1.0 client finds the endpoints",
            )
        elif self.v10 and value == []:
            self.empty_required("$.supportedInterfaces", "supportedInterfaces")
        seen: dict[tuple[Any, ...], str] = {}
        for path, entry in self.interfaces("supportedInterfaces"):
            url = self.required(entry, "url", path, "interface-missing-url", "interface url")
            binding = entry.get("protocolBinding")
            if binding is None:
                hint = " (transport is 0.3's spelling)" if "transport" in entry else ""
                self.add(
                    "error",
                    child(path, "protocolBinding"),
                    "interface-missing-protocol-binding",
                    f"interface protocolBinding is missing{hint}",
                )
            elif not isinstance(binding, str):
                self.wrong_type(child(path, "protocolBinding"), binding, str)
            elif not binding.strip():
                self.add(
                    "error",
                    child(path, "protocolBinding"),
                    "interface-missing-protocol-binding",
                    "interface protocolBinding is empty (1.0 marks it REQUIRED)",
                )
            else:
                self.binding_name(child(path, "protocolBinding"), binding)
            version = entry.get("protocolVersion")
            if version is None:
                self.add(
                    "error",
                    child(path, "protocolVersion"),
                    "interface-missing-protocol-version",
                    "interface protocolVersion is missing",
                )
            elif not isinstance(version, str):
                self.wrong_type(child(path, "protocolVersion"), version, str)
            elif version_tuple(version) is None:
                self.add(
                    "error",
                    child(path, "protocolVersion"),
                    "invalid-protocol-version",
                    f"{version!r} is not a version number: clients pick the dialect to speak at this "
                    'interface from it; write the major.minor it serves, such as "1.0" or "0.3"',
                )
            tenant = entry.get("tenant")
            if tenant is not None and not isinstance(tenant, str):
                self.wrong_type(child(path, "tenant"), tenant, str)
            if url is not None:
                self.endpoint_url(child(path, "url"), url, binding)
            key = (url, binding, version, tenant)
            if url is not None and key in seen:
                self.add("warning", path, "duplicate-interface", f"same interface as {seen[key]}")
            seen.setdefault(key, path)

    def interface_for_version(self) -> None:
        """Some endpoint must offer the linted version over a binding A2A defines, or no
        client of that version has anything to call. Raised only once the card names an
        endpoint, and not over versions or bindings already reported as missing."""
        if self.v10:
            entries = [e for _, e in self.interfaces_quietly("supportedInterfaces")]
            versions = [e.get("protocolVersion") for e in entries]
            if not entries or any(version_tuple(v) is None for v in versions):
                return
            if not any(is_v10_version(e.get("protocolVersion")) and _known(e.get("protocolBinding")) for e in entries):
                listed = ", ".join(f"{e.get('protocolBinding')} {e.get('protocolVersion')}" for e in entries)
                self.add(
                    "warning",
                    "$.supportedInterfaces",
                    "no-interface-for-version",
                    f"no entry offers A2A 1.x over JSONRPC, GRPC or HTTP+JSON (listed: {listed}); "
                    "a 1.0 client finds nothing to call",
                )
        elif self.v03 and self.get("url"):
            main = self.get("preferredTransport") or "JSONRPC"
            others = [e.get("transport") for _, e in self.interfaces_quietly("additionalInterfaces")]
            if not _known(main) and not any(_known(t) for t in others):
                self.add(
                    "warning",
                    "$.preferredTransport",
                    "no-interface-for-version",
                    "neither the main url nor any additionalInterfaces entry uses JSONRPC, GRPC or HTTP+JSON",
                )

    # -------------------------------------------------------------- versions

    def protocol_version(self) -> None:
        value = self.raw.get("protocolVersion")
        if value is None:
            if self.v03:
                self.add(
                    "error",
                    "$.protocolVersion",
                    "missing-protocol-version",
                    'protocolVersion is required since A2A 0.2.5 (e.g. "0.3.0")',
                )
            return
        if not isinstance(value, str):
            return
        parsed = version_tuple(value)
        if parsed is None:
            self.add(
                "error",
                "$.protocolVersion",
                "invalid-protocol-version",
                f"{value!r} does not look like a version such as 0.3.0",
            )
            return
        major = parsed[0]
        if (
            self.v03
            and major >= 1
            and not any(
                (version_tuple(e.get("protocolVersion")) or (0,))[0] == major
                for _, e in self.interfaces_quietly("supportedInterfaces")
            )
        ):
            shape = ", ".join(k for k in ("url", "preferredTransport", "additionalInterfaces") if k in self.raw)
            self.add(
                "error",
                "$.protocolVersion",
                "protocol-version-unreachable",
                f"protocolVersion {value} claims A2A {major}.x, but the card has 0.3's shape "
                f"({shape or 'no url'}) and no supportedInterfaces entry for {major}.x: a {major}.x client "
                "finds its endpoints only in supportedInterfaces, so none can reach this agent; list them "
                'there, or claim the 0.3 the card is written in ("0.3.0")',
            )
            return
        if self.v03 and not is_v03_version(value):
            self.add(
                "warning",
                "$.protocolVersion",
                "protocol-version-mismatch",
                f"protocolVersion {value} is not a 0.2/0.3 version",
            )
            return
        self.version_matches_interfaces(value)

    def version_matches_interfaces(self, value: str) -> None:
        """A card listing its main endpoint in supportedInterfaces should list it for the
        version its top-level protocolVersion claims."""
        url = self.get("url")
        if not url:
            return
        binding = (self.get("preferredTransport") or "JSONRPC").upper()
        same = [
            entry
            for _, entry in self.interfaces_quietly("supportedInterfaces")
            if entry.get("url") == url and str(entry.get("protocolBinding", "")).upper() == binding
        ]
        wanted = (version_tuple(value) or ())[:2]
        versions = [entry.get("protocolVersion") for entry in same]
        if same and not any((version_tuple(v) or ())[:2] == wanted for v in versions):
            listed = ", ".join(str(v) for v in versions)
            self.add(
                "warning",
                "$.protocolVersion",
                "protocol-version-mismatch",
                f"protocolVersion {value} but supportedInterfaces lists {url} ({binding}) for {listed}",
            )

    def interfaces_quietly(self, key: str) -> list[tuple[str, dict[str, Any]]]:
        value = self.get(key)
        return [(child(child("$", key), i), e) for i, e in enumerate(value or ()) if isinstance(e, dict)]

    # -------------------------------------------------------------- capabilities

    def capabilities(self) -> None:
        if self.raw.get("capabilities") is None:
            self.add(
                "error",
                "$.capabilities",
                "missing-capabilities",
                f"capabilities is required by A2A {self.dialect} (may be {{}})",
            )
            return
        caps = self.get("capabilities")
        if caps is None:
            return
        for key in ("streaming", "pushNotifications", "stateTransitionHistory", "extendedAgentCard"):
            value = caps.get(key)
            if value is not None and not isinstance(value, bool):
                self.wrong_type(child("$.capabilities", key), value, bool)
        extensions = caps.get("extensions")
        if extensions is not None:
            if not isinstance(extensions, list):
                self.wrong_type("$.capabilities.extensions", extensions, list)
            else:
                for i, ext in enumerate(extensions):
                    path = child("$.capabilities.extensions", i)
                    if not isinstance(ext, dict):
                        self.wrong_type(path, ext, dict)
                    else:
                        self.required(ext, "uri", path, "missing-field", "extension uri")
        bindings = self.bindings()
        if bindings and bindings <= {"GRPC"}:
            if caps.get("streaming") is True:
                self.add(
                    "info",
                    "$.capabilities.streaming",
                    "streaming-grpc-only",
                    "streaming is only offered over gRPC; there is no JSONRPC or HTTP+JSON (SSE) interface",
                )
            if caps.get("pushNotifications") is True:
                self.add(
                    "info",
                    "$.capabilities.pushNotifications",
                    "push-notifications-grpc-only",
                    "push notification configs can only be set over gRPC here",
                )
        flag = caps.get("extendedAgentCard")
        legacy = self.raw.get("supportsAuthenticatedExtendedCard")
        if isinstance(flag, bool) and isinstance(legacy, bool) and flag != legacy:
            self.add(
                "warning",
                "$.supportsAuthenticatedExtendedCard",
                "extended-card-flag-mismatch",
                f"supportsAuthenticatedExtendedCard is {str(legacy).lower()} but "
                f"capabilities.extendedAgentCard is {str(flag).lower()}",
            )

    def bindings(self) -> set[str]:
        """The bindings of the endpoints this dialect reads from the card."""
        if self.dialect == "0.1":
            return {"JSONRPC"} if self.get("url") else set()
        if self.v10:
            entries = self.interfaces_quietly("supportedInterfaces")
            return {str(e.get("protocolBinding", "")).upper() for _, e in entries}
        out = {str(e.get("transport", "")).upper() for _, e in self.interfaces_quietly("additionalInterfaces")}
        if self.get("url"):
            out.add((self.get("preferredTransport") or "JSONRPC").upper())
        return out

    # -------------------------------------------------------------- modes

    def modes(self) -> None:
        for key, code in _MODE_KEYS:
            value = self.raw.get(key)
            if value is None:
                if self.dialect != "0.1":
                    self.add("error", child("$", key), f"missing-{code}", f"{key} is required by A2A {self.dialect}")
                continue
            if not isinstance(value, list):
                continue
            if self.strings(value, child("$", key)) is not None and not value:
                if self.v10:
                    self.empty_required(child("$", key), key)
                else:
                    # 0.2/0.3's schema sets no minimum: legal, and yet nothing is accepted.
                    self.add("warning", child("$", key), f"empty-{code}", f"{key} is empty: no media type is accepted")

    def empty_required(self, path: str, key: str) -> None:
        self.add(
            "error",
            path,
            "empty-required-array",
            f"{key} is empty; A2A 1.0 marks it REQUIRED, and arrays marked as required MUST contain "
            "at least one element (1.0 §5.7)",
        )

    # -------------------------------------------------------------- skills

    def skills(self) -> None:
        value = self.raw.get("skills")
        if value is None:
            self.add(
                "error",
                "$.skills",
                "missing-skills",
                f"skills is required by A2A {self.dialect}"
                + (" with at least one skill" if self.v10 else " (may be [])"),
            )
            return
        if not isinstance(value, list):
            return
        if not value:
            if self.v10:
                self.empty_required("$.skills", "skills")
            else:
                self.add("info", "$.skills", "no-skills", "the card lists no skills")
        ids: dict[str, str] = {}
        full = self.dialect != "0.1"
        for i, skill in enumerate(value):
            path = child("$.skills", i)
            if not isinstance(skill, dict):
                self.wrong_type(path, skill, dict)
                continue
            skill_id = self.required(skill, "id", path, "skill-missing-id", "skill id")
            if skill_id is not None:
                if skill_id in ids:
                    self.add(
                        "error",
                        child(path, "id"),
                        "duplicate-skill-id",
                        f"skill id {skill_id!r} is already used by {ids[skill_id]}",
                    )
                ids.setdefault(skill_id, path)
            self.required(skill, "name", path, "skill-missing-name", "skill name")
            if full:
                self.required(skill, "description", path, "skill-missing-description", "skill description")
            tags = skill.get("tags")
            if tags is None:
                if full:
                    self.add(
                        "error",
                        child(path, "tags"),
                        "skill-missing-tags",
                        f"skill tags are required by A2A {self.dialect}",
                    )
            elif self.strings(tags, child(path, "tags")) is not None and not tags and self.v10:
                self.empty_required(child(path, "tags"), "tags")
            for key in ("examples", "inputModes", "outputModes"):
                if skill.get(key) is not None:
                    self.strings(skill[key], child(path, key))
            self.foreign(skill, path, SKILL_KEYS)

    # -------------------------------------------------------------- security

    def security(self) -> None:
        self.authentication()
        schemes = self.get("securitySchemes")
        for name, scheme in (schemes or {}).items():
            self.security_scheme(child("$.securitySchemes", name), scheme)
        if self.raw.get("securitySchemes") is not None and schemes is None:
            return  # malformed schemes (reported): every reference would look unknown
        known = set(schemes or ())
        self.requirements(self.raw, "$", known)
        skills = self.get("skills") or ()
        for i, skill in enumerate(skills):
            if isinstance(skill, dict):
                self.requirements(skill, child("$.skills", i), known)

    def security_scheme(self, path: str, scheme: Any) -> None:
        if not isinstance(scheme, dict):
            self.wrong_type(path, scheme, dict)
            return
        kinds = [key for key in scheme if key in SCHEME_WRAPPERS]
        if "type" in scheme and kinds:
            self.dual_scheme(path, scheme, kinds)
            return
        if "type" in scheme:
            if self.v10:
                self.add(
                    "warning",
                    path,
                    "security-scheme-shape",
                    "0.3 spelling ({type: ...}); 1.0 wraps schemes, e.g. {apiKeySecurityScheme: {...}}",
                )
            self.flat_scheme(path, scheme)
            return
        if not kinds:
            self.add(
                "error",
                path,
                "invalid-security-scheme",
                "security scheme has no type and none of " + ", ".join(SCHEME_WRAPPERS),
            )
            return
        if self.v03 and len(kinds) == 1:
            self.add(
                "warning",
                path,
                "security-scheme-shape",
                f"1.0 spelling ({kinds[0]}); 0.3 uses {{type: {SCHEME_WRAPPERS[kinds[0]]}, ...}}",
            )
        self.wrapped_scheme(path, scheme, kinds)

    def dual_scheme(self, path: str, scheme: dict[str, Any], kinds: list[str]) -> None:
        """A scheme in both spellings at once, as a2a-sdk 1.x serves every scheme so that
        0.3 clients can read a 1.0 card. Each client reads its own version's spelling and
        ignores the other's keys, so only the linted version's spelling has to hold up."""
        flat = self.collect(self.flat_scheme, path, scheme)
        wrapped = self.collect(self.wrapped_scheme, path, scheme, kinds)
        own, other = (wrapped, flat) if self.v10 else (flat, wrapped)
        if own:
            self.findings.extend(own)
            mine, theirs = ("1.0", "0.3") if self.v10 else ("0.3", "1.0")
            self.add(
                "warning",
                path,
                "security-scheme-shape",
                f"carries the 0.3 and 1.0 spellings, but the {mine} one is not valid"
                + (f" (only the {theirs} one is)" if not other else ""),
            )
            return
        kind = scheme["type"]
        if len(kinds) == 1 and isinstance(kind, str) and SCHEME_WRAPPERS[kinds[0]] != kind:
            # Each spelling is fine on its own, but 0.3 and 1.0 clients would be told
            # to authenticate differently.
            self.add(
                "warning",
                path,
                "security-scheme-shape",
                f"the 0.3 spelling says type {kind!r} but the 1.0 one is {kinds[0]}",
            )

    def collect(self, check: Callable[..., None], *args: Any) -> list[Finding]:
        """The findings ``check`` would add, kept apart from the card's."""
        kept, self.findings = self.findings, []
        try:
            check(*args)
            return self.findings
        finally:
            self.findings = kept

    def flat_scheme(self, path: str, scheme: dict[str, Any]) -> None:
        """0.3's ``{type: apiKey, in, name}``."""
        kind = scheme["type"]
        if not isinstance(kind, str):
            self.wrong_type(child(path, "type"), kind, str)
            return
        if kind not in _SCHEME_REQUIRED:
            self.add("error", child(path, "type"), "invalid-security-scheme", f"unknown security scheme type {kind!r}")
            return
        self.scheme_fields(path, scheme, kind, 0)

    def wrapped_scheme(self, path: str, scheme: dict[str, Any], kinds: list[str]) -> None:
        """1.0's ``{apiKeySecurityScheme: {location, name}}``."""
        if len(kinds) > 1:
            self.add("error", path, "invalid-security-scheme", f"more than one scheme kind: {', '.join(kinds)}")
            return
        inner = scheme[kinds[0]]
        if not isinstance(inner, dict):
            self.wrong_type(child(path, kinds[0]), inner, dict)
            return
        self.scheme_fields(child(path, kinds[0]), inner, SCHEME_WRAPPERS[kinds[0]], 1)

    def scheme_fields(self, path: str, scheme: dict[str, Any], kind: str, spelling: int) -> None:
        for names in _SCHEME_REQUIRED[kind]:
            key = names[spelling]
            if scheme.get(key) in (None, ""):
                self.add(
                    "error", child(path, key), "security-scheme-missing-field", f"a {kind} security scheme needs {key}"
                )
        if kind == "apiKey":
            key = _SCHEME_REQUIRED["apiKey"][0][spelling]
            location = scheme.get(key)
            if location not in (None, "") and location not in _API_KEY_LOCATIONS:
                self.add(
                    "error",
                    child(path, key),
                    "invalid-api-key-location",
                    f"{location!r} is not one of {', '.join(_API_KEY_LOCATIONS)}",
                )
        if kind == "oauth2" and scheme.get("flows") is not None and not isinstance(scheme["flows"], dict):
            self.wrong_type(child(path, "flows"), scheme["flows"], dict)

    def requirements(self, owner: dict[str, Any], path: str, known: set[str]) -> None:
        """0.3 ``security`` and 1.0 ``securityRequirements`` must name declared schemes."""
        for key, wrapped in (("security", False), ("securityRequirements", True)):
            value = owner.get(key)
            if value is None:
                continue
            at = child(path, key)
            if not isinstance(value, list):
                if path != "$":  # top-level types are reported once, by top_level_types
                    self.wrong_type(at, value, list)
                continue
            for i, entry in enumerate(value):
                where = child(at, i)
                if not isinstance(entry, dict):
                    self.wrong_type(where, entry, dict)
                    continue
                if wrapped:
                    where = child(where, "schemes")
                    entry = entry.get("schemes", {})
                    if not isinstance(entry, dict):
                        self.wrong_type(where, entry, dict)
                        continue
                for name in entry:
                    if name not in known:
                        self.add(
                            "error",
                            child(where, name),
                            "unknown-security-scheme",
                            f"{name!r} is not declared in securitySchemes",
                        )

    def authentication(self) -> None:
        auth = self.get("authentication")
        if auth is None:
            return
        schemes = auth.get("schemes")
        if schemes is None:
            self.add(
                "error",
                "$.authentication.schemes",
                "missing-auth-schemes",
                'authentication needs schemes (e.g. ["Bearer"])',
            )
        elif isinstance(schemes, str):
            self.add(
                "warning",
                "$.authentication.schemes",
                "legacy-schemes-string",
                f"schemes is the string {schemes!r}; the 0.1 schema wants a list, e.g. [{schemes!r}]",
            )
        else:
            self.strings(schemes, "$.authentication.schemes")
        credentials = auth.get("credentials")
        if "credentials" in auth and credentials is None:
            # Seed 001's page writes "no credentials" this way; the first draft's schema
            # (April 2025) allowed it, v0.1.0's wants a string or no key.
            self.add(
                "warning",
                "$.authentication.credentials",
                "null-credentials",
                "credentials is null; the A2A 0.1 schema makes it an optional string: leave the key out "
                "when there are none (only the first draft, of April 2025, allowed null)",
            )
        elif credentials is not None and not isinstance(credentials, str):
            self.wrong_type("$.authentication.credentials", credentials, str)

    # -------------------------------------------------------------- provider

    def provider(self) -> None:
        provider = self.get("provider")
        if provider is None:
            return
        keys = ("organization",) if self.dialect == "0.1" else ("organization", "url")
        for key in keys:
            self.required(provider, key, "$.provider", "missing-field", f"provider {key}")

    # -------------------------------------------------------------- dialect mix

    def dialect_mix(self) -> None:
        self.foreign(self.raw, "$", CARD_KEYS)
        caps = self.get("capabilities")
        if caps is not None:
            self.foreign(caps, "$.capabilities", CAPABILITY_KEYS)
        if "supportedInterfaces" in self.raw and any(k in self.raw for k in _V03_TRANSPORT_KEYS):
            self.add(
                "info",
                "$",
                "mixed-dialect-card",
                "card serves both 1.0 and 0.3 fields (as a2a-sdk 1.3 does), for clients of either",
            )

    def foreign(self, obj: dict[str, Any], path: str, keys: dict[str, frozenset[str]]) -> None:
        own = keys[self.dialect]
        for key in obj:
            if key in own:
                continue
            others = [d for d in DIALECTS if key in keys[d]]
            if others:
                self.add(
                    "info",
                    child(path, key),
                    "foreign-field",
                    f"{key} is an A2A {'/'.join(others)} field, not {self.dialect}",
                )


def _split(url: str) -> SplitResult | None:
    """``urlsplit``, or None for what it refuses (``http://[x``: brackets around a host
    that is not an IPv6 address): an agent's URL must not crash the linter."""
    try:
        return urlsplit(url)
    except ValueError:
        return None


def _port_ok(parts: SplitResult) -> bool:
    try:
        parts.port  # noqa: B018 - the property parses it: ValueError when not a number from 0 to 65535
    except ValueError:
        return False
    return True


def _known(binding: Any) -> bool:
    """Whether ``binding`` is one A2A defines (any case: clients match it loosely; the exact
    spelling is unknown-protocol-binding's business)."""
    return isinstance(binding, str) and binding.strip().upper() in _BINDINGS


def _is(value: Any, expected: type | tuple[type, ...]) -> bool:
    # bool is an int in Python, and JSON numbers never stand for booleans.
    if expected is bool:
        return isinstance(value, bool)
    return isinstance(value, expected)
