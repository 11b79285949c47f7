"""The binding axis: how a request travels (JSON-RPC, HTTP+JSON/REST, gRPC), apart from
what it says (the dialect). Names, the card's spellings, and the interfaces a card lists.

A binding is a transport adapter over the same normalised model: the dialect codecs
say what the payloads hold, a binding says where they go and how they are framed.
"""

from __future__ import annotations

from dataclasses import dataclass

from .card import dialect_name, is_v03_version, is_v10_version
from .models import AgentCard

JSONRPC = "jsonrpc"
REST = "rest"
GRPC = "grpc"
AUTO = "auto"

#: Every binding A2A defines, in the order the 1.0 spec lists them.
ALL = (JSONRPC, GRPC, REST)
#: The bindings this version of the inspector speaks.
SPOKEN = (JSONRPC, REST, GRPC)
#: The dialects each binding exists in (0.1 has JSON-RPC only).
DIALECTS = {JSONRPC: ("0.1", "0.3", "1.0"), REST: ("0.3", "1.0"), GRPC: ("0.3", "1.0")}

#: How cards spell them (0.3 ``transport``, 1.0 ``protocolBinding``).
CARD_NAMES = {JSONRPC: "JSONRPC", REST: "HTTP+JSON", GRPC: "GRPC"}
_FROM_CARD = {
    "JSONRPC": JSONRPC,
    "JSON-RPC": JSONRPC,
    "HTTP+JSON": REST,
    "HTTP+JSON/REST": REST,
    "REST": REST,
    "HTTP": REST,
    "GRPC": GRPC,
}

LABELS = {JSONRPC: "JSON-RPC", REST: "HTTP+JSON/REST", GRPC: "gRPC"}


def get_binding(name: str) -> str:
    """``jsonrpc`` / ``rest`` / ``grpc`` (also the card spellings, any case) -> the name.

    ValueError for anything else, naming the choices."""
    key = (name or "").strip()
    if key.lower() in (JSONRPC, REST, GRPC, AUTO):
        return key.lower()
    found = _FROM_CARD.get(key.upper())
    if found is None:
        raise ValueError(f"unknown binding {name!r}; choose one of: auto, jsonrpc, rest (HTTP+JSON), grpc")
    return found


def from_card(spelled: str | None) -> str | None:
    """A card's ``protocolBinding``/``transport`` -> the binding name; None when unknown.
    A missing value is JSON-RPC (the default in both 0.3 and 1.0)."""
    if spelled is None:
        return JSONRPC
    return _FROM_CARD.get(spelled.strip().upper())


@dataclass(frozen=True)
class Interface:
    """One endpoint a card lists: its binding (None: one we do not know), the dialect it
    speaks, its URL as written, and (1.0) its tenant."""

    binding: str | None
    spelled: str
    dialect: str
    url: str
    tenant: str | None = None

    def describe(self) -> str:
        return f"{self.spelled} {self.dialect} at {self.url}"


def card_interfaces(card: AgentCard) -> list[Interface]:
    """Every interface the card lists, in its own order: 1.0 ``supportedInterfaces``
    first, then the 0.3 ``url`` + ``preferredTransport`` and ``additionalInterfaces``.
    A 0.3 top level is read only when the card says 0.3 somewhere."""
    out: list[Interface] = []
    seen: set[tuple[str | None, str, str]] = set()

    def add(spelled: str | None, dialect: str, url: str | None, tenant: str | None = None) -> None:
        if not url:
            return
        binding = from_card(spelled)
        key = (binding, dialect, url)
        if key in seen:
            return
        seen.add(key)
        out.append(Interface(binding, spelled or CARD_NAMES[JSONRPC], dialect, url, tenant or None))

    for interface in card.supported_interfaces or ():
        version = interface.protocol_version
        if version is None or is_v10_version(version):
            dialect = "1.0"
        elif is_v03_version(version):
            dialect = "0.3"
        else:
            try:
                dialect = dialect_name(version)
            except ValueError:
                continue
        add(interface.protocol_binding, dialect, interface.url, interface.tenant)
    says_v03 = (
        is_v03_version(card.protocol_version)
        or card.preferred_transport is not None
        or bool(card.additional_interfaces)
    )
    if says_v03:
        add(card.preferred_transport, "0.3", card.url)
        for interface in card.additional_interfaces or ():
            add(interface.protocol_binding, "0.3", interface.url)
    return out
