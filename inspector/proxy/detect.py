"""What one intercepted request is: its binding, dialect and A2A method, read from the
request alone (path, headers, body), so that its answer decodes as the client's would.

The proxy did not build the request, so nothing is known in advance: a JSON-RPC body
names its method, and the method's spelling names the dialect (``SendMessage`` is 1.0,
``message/send`` 0.2/0.3, ``tasks/send`` the 0.1 draft). A name several dialects share
(``tasks/get``) takes the ``A2A-Version`` header's word, else the dialect this route
last spoke, else 0.3. An HTTP+JSON request is known by its route (inspector/protocol/
rest.py), 0.3's under ``/v1``. A card GET is known by its well-known path.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..protocol import rest
from ..protocol.bindings import JSONRPC, REST
from ..protocol.dialects import ALL, get_dialect
from ..safejson import loads

#: Paths of a card, every dialect's (0.1 and 0.2: agent.json; 0.3 and 1.0: agent-card.json).
CARD_FILES = ("/.well-known/agent-card.json", "/.well-known/agent.json")
#: Where a REST route starts inside a path (what precedes it is the interface's base).
_REST_MARKS = ("/v1/", "/message:", "/tasks", "/extendedAgentCard")


@dataclass
class Parsed:
    """A request, read. ``info`` holds the REQUEST event's fields above HTTP (dialect,
    binding, a2a_method, rpc_method, rpc_id; route and rest_base for REST), as the
    client logs them; ``body`` the JSON body when it parsed (None otherwise)."""

    info: dict[str, Any]
    body: Any = None
    #: The body was present but is not JSON (or is nested too deeply).
    not_json: str | None = None
    card: bool = False


def header(headers: dict[str, str], name: str) -> str | None:
    """A header by lower-case name, from a dict whose names are lower-case."""
    value = headers.get(name)
    return value.strip() if isinstance(value, str) else None


def dialect_of(wire: str, version: str | None, remembered: str | None) -> str | None:
    """The dialect a JSON-RPC method name belongs to (see the module's docstring)."""
    hits = [d.name for d in ALL if d.method_for(wire) is not None]
    if len(hits) == 1:
        return hits[0]
    if not hits:
        return "1.0" if version == "1.0" else remembered
    if version == "1.0" and "1.0" in hits:
        return "1.0"
    if remembered in hits:
        return remembered
    return "0.3" if "0.3" in hits else hits[0]


def classify(verb: str, path: str, headers: dict[str, str], body: bytes, remembered: str | None = None) -> Parsed:
    """``path``: the request's path as the upstream will get it (after the route's prefix
    is taken off); ``headers``: lower-case names."""
    version = header(headers, "a2a-version")
    if verb == "GET" and path.endswith(CARD_FILES):
        return Parsed({"dialect": None, "a2a_method": "card", "rpc_method": None, "rpc_id": None}, card=True)
    found = _rest(verb, path)
    if found is not None:
        dialect, match, base = found
        obj, problem = _json(body)
        info: dict[str, Any] = {
            "dialect": dialect,
            "binding": REST,
            "a2a_method": match.method.value,
            "rpc_method": None,
            "rpc_id": None,
            "route": f"{verb} {rest.route(dialect, match.method)[1]}",
            "rest_base": base,
        }
        return Parsed(info, obj, problem)
    obj, problem = _json(body)
    info = {"dialect": None, "binding": JSONRPC, "a2a_method": None, "rpc_method": None, "rpc_id": None}
    if verb == "POST" and isinstance(obj, dict):
        wire = obj.get("method")
        rid = obj.get("id")
        if isinstance(rid, (str, int)) and not isinstance(rid, bool):
            info["rpc_id"] = rid
        if isinstance(wire, str):
            info["rpc_method"] = wire
            name = dialect_of(wire, version, remembered)
            info["dialect"] = name
            if name is not None:
                method = get_dialect(name).method_for(wire)
                info["a2a_method"] = method.value if method is not None else None
    elif verb != "POST" or (not body and obj is None):
        # Neither A2A JSON-RPC nor a REST route: plain HTTP, passed on as it is.
        info["binding"] = None
    return Parsed(info, obj, problem if verb == "POST" else None)


def _json(body: bytes) -> tuple[Any, str | None]:
    if not body:
        return None, None
    try:
        return loads(body), None
    except ValueError as exc:
        return None, str(exc) or "not JSON"


def _rest(verb: str, path: str) -> tuple[str, Any, str] | None:
    """(dialect, RouteMatch, the path of the interface's base) for a REST route."""
    for mark in _REST_MARKS:
        cut = path.find(mark)
        if cut < 0:
            continue
        base, tail = path[:cut], path[cut:]
        for dialect in ("0.3", "1.0") if tail.startswith("/v1/") else ("1.0",):
            found = rest.match_route(dialect, verb, tail)
            if found is not None and not isinstance(found, str):
                return dialect, found, base or "/"
    return None
