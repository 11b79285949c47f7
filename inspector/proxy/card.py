"""The upstream's card with its addresses moved to the proxy, so that a client that
discovers the agent through the proxy keeps talking through it.

Rewritten: the top-level ``url`` (0.x), 1.0's ``supportedInterfaces[].url`` and 0.3's
``additionalInterfaces[].url``. An address under one of the proxy's upstreams becomes
the same address under that route of the proxy; any other address (another host the
agent names) is left alone and reported. A gRPC interface (``host:port``,
``grpc://host:port``) moves to the proxy's gRPC listener for that target, in the same form.

Everything else is kept byte for byte where that can be done: each rewritten address
is replaced in the card's text as the JSON string it was. Only when the same string
also appears where it must not change (a description quoting it) is the card
re-serialised from its parsed form, unknown fields and key order still kept.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..safejson import loads

_INTERFACE_LISTS = ("supportedInterfaces", "additionalInterfaces")
_GRPC = ("GRPC", "grpc")


@dataclass
class Rewritten:
    body: bytes
    #: (old, new) for each address moved, in card order.
    moved: list[tuple[str, str]] = field(default_factory=list)
    #: Addresses left pointing elsewhere, each with why.
    kept: list[tuple[str, str]] = field(default_factory=list)


def _binding(node: dict[str, Any]) -> str | None:
    value = node.get("protocolBinding", node.get("transport"))
    return value if isinstance(value, str) else None


def grpc_addresses(body: bytes) -> list[str]:
    """The addresses of the card's GRPC interfaces, in card order."""
    try:
        card = loads(body)
    except ValueError:
        return []
    if not isinstance(card, dict):
        return []
    out: list[str] = []
    top = card.get("preferredTransport")
    if isinstance(top, str) and top in _GRPC and isinstance(card.get("url"), str):
        out.append(card["url"])
    for key in _INTERFACE_LISTS:
        items = card.get(key)
        for item in items if isinstance(items, list) else ():
            if isinstance(item, dict) and _binding(item) in _GRPC and isinstance(item.get("url"), str):
                if item["url"] not in out:
                    out.append(item["url"])
    return out


def rewrite_card(
    body: bytes, move: Callable[[str], str | None], move_grpc: Callable[[str], str | None] | None = None
) -> Rewritten | None:
    """The card in ``body`` with every address ``move`` maps (None: not under any
    upstream) rewritten, and each GRPC interface's address ``move_grpc`` maps (None:
    no listener for it); None when the body is not a JSON object (passed on as is)."""
    try:
        card = loads(body)
    except ValueError:
        return None
    if not isinstance(card, dict):
        return None
    out = Rewritten(body)
    places: list[tuple[dict[str, Any], str, str]] = []

    def visit(node: dict[str, Any], grpc: bool) -> None:
        url = node.get("url")
        if not isinstance(url, str):
            return
        if grpc:
            new = move_grpc(url) if move_grpc is not None else None
            if new is None:
                out.kept.append((url, "a gRPC interface: the proxy has no gRPC listener for it"))
            elif new != url:
                places.append((node, url, new))
            return
        new = move(url)
        if new is None:
            out.kept.append((url, "not under any upstream of this proxy"))
        elif new != url:
            places.append((node, url, new))

    top_binding = card.get("preferredTransport")
    visit(card, isinstance(top_binding, str) and top_binding in _GRPC)
    for key in _INTERFACE_LISTS:
        items = card.get(key)
        if isinstance(items, list):
            for item in items:
                if isinstance(item, dict):
                    visit(item, _binding(item) in _GRPC)
    if not places:
        return out
    text = body.decode("utf-8", "surrogateescape")
    counts: dict[str, int] = {}
    for _node, old, _new in places:
        counts[old] = counts.get(old, 0) + 1
    faithful = True
    for old, wanted in counts.items():
        spelled = json.dumps(old, ensure_ascii=False)
        # Only the exact string, as a value (after a colon): never inside another string.
        if text.count(spelled) != wanted:
            faithful = False
            break
    for node, old, new in places:
        node["url"] = new
        out.moved.append((old, new))
    if faithful:
        for old, _ in counts.items():
            new = next(n for o, n in out.moved if o == old)
            text = text.replace(json.dumps(old, ensure_ascii=False), json.dumps(new, ensure_ascii=False))
        out.body = text.encode("utf-8", "surrogateescape")
    else:
        out.body = json.dumps(card, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return out
