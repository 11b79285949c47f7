"""Finding an agent: where its card is, where its JSON-RPC endpoint is, which dialect it
speaks. Every GET and probe goes through the Wire, so discovery is on the record too.

Detection order: the card's own fields, then what an earlier session remembered, then a
probe chain whose requests cannot change anything on the agent, then a guess from the
card's path (said out loud in a NOTE).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin, urlsplit, urlunsplit

from ..protocol import rest
from ..protocol.card import jsonrpc_url
from ..protocol.dialects import Dialect, get_dialect
from ..protocol.errors import ProtocolError
from ..protocol.methods import Method
from ..protocol.models import AgentCard
from ..protocol.wire import parse_json
from ..session import payloads
from ..session.events import Kind
from .error_reason import body_reason
from .errors import TransportError
from .transport import Wire, describe_body, reason_phrase

CARD_FILE = "agent-card.json"
LEGACY_CARD_FILE = "agent.json"
WELL_KNOWN = "/.well-known/"

VERSION_HEADER = "A2A-Version"
VERSION_NOT_SUPPORTED = -32009

#: Statuses that mean "no card at this path, try the next".
_NOT_HERE = frozenset({404, 405, 410})


def _at(url: str, path: str) -> str:
    """``url`` with another path; its query is kept (it may be what the agent needs,
    e.g. a version or a tenant), the fragment is dropped."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, path, parts.query, ""))


def is_card_url(url: str) -> bool:
    return urlsplit(url).path.endswith(".json")


def card_candidates(url: str, card_url: str | None = None) -> list[str]:
    """Where to look for the card, in order. A query on ``url`` stays on each."""
    if card_url:
        return [card_url]
    if is_card_url(url):
        return [url]
    path = urlsplit(url).path.rstrip("/")
    out = [_at(url, f"{path}{WELL_KNOWN}{CARD_FILE}"), _at(url, f"{path}{WELL_KNOWN}{LEGACY_CARD_FILE}")]
    # An endpoint URL with a path (Orloj's /a2a): the well-known URI lives at the origin.
    if path:
        out += [_at(url, f"{WELL_KNOWN}{CARD_FILE}"), _at(url, f"{WELL_KNOWN}{LEGACY_CARD_FILE}")]
    return out


def agent_base(url: str) -> str:
    """The URL to fall back on as the endpoint: the URL given, or for a card URL the
    part before ``/.well-known/`` (else its directory), with the card URL's query."""
    if not is_card_url(url):
        return url
    path = urlsplit(url).path
    cut = path.find(WELL_KNOWN)
    path = path[:cut] if cut >= 0 else path[: path.rfind("/")]
    return _at(url, path or "/")


@dataclass
class CardResult:
    card: AgentCard | None = None
    #: The parsed JSON as served (kept when it does not decode, for lint and display).
    raw: Any = None
    url: str | None = None
    #: (url, status) for each place tried that had no card.
    misses: list[tuple[str, int]] = field(default_factory=list)
    #: What a miss's error body said, by URL (error_reason.body_reason), where it said anything.
    reasons: dict[str, str] = field(default_factory=dict)
    error: ProtocolError | None = None


async def fetch_card(
    wire: Wire, candidates: list[str], headers: dict[str, str], bound: frozenset[str] = frozenset()
) -> CardResult:
    """GET each candidate until one answers 2xx, following redirects (``bound``: the
    headers that do not follow one to another origin; see Wire.send). The card's URL is
    where it was served from, after redirects. Connect and timeout failures raise: an
    agent that cannot be reached cannot be probed either."""
    result = CardResult()
    queue = list(candidates)
    asked: set[str] = set()
    while queue:
        candidate = queue.pop(0)
        sent = {**headers, VERSION_HEADER: "1.0"} if candidate in asked else headers
        info = {"dialect": None, "a2a_method": payloads.CARD, "rpc_method": None, "rpc_id": None}
        ex = await wire.send("GET", candidate, headers=sent, info=info, follow_redirects=True, bound=bound)
        url = ex.url
        raw = await ex.read()
        assert ex.response is not None  # as read() asserts: the head came first
        status = ex.response.status_code
        data = ex.response_data(raw)
        payload = payloads.response_payload(info, data)
        ex.log(Kind.RESPONSE, data, payload)
        if not 200 <= status < 300 and candidate not in asked and _version_refused(sent, raw):
            # An absent A2A-Version means 0.3; an agent whose card lists no 0.3 interface
            # (@a2a-js/sdk with its 0.3 layer on, as in its own compat sample) refuses
            # that with -32009 and serves its card to a 1.0 client only.
            ex.note(
                f"the card at {url} was refused to a request without {VERSION_HEADER} (read as 0.3, "
                f"-32009): asked again as 1.0"
            )
            asked.add(candidate)
            queue.insert(0, candidate)
            continue
        if not 200 <= status < 300:
            result.misses.append((url, status))
            if status not in _NOT_HERE:  # a failure, not a path without a card: why, if it says
                ctype = ex.response.headers.get("content-type")
                why = body_reason(ctype, raw, reason_phrase(ex.response))
                if why:
                    result.reasons[url] = why
                ex.note(
                    f"no agent card at {url}: HTTP {status} {reason_phrase(ex.response)} "
                    f"({describe_body(ctype, raw)})" + (f": {why}" if why else "")
                )
            continue
        result.url = url
        try:
            result.raw = parse_json(raw)
        except ProtocolError:
            result.raw = None
        if isinstance(payload, ProtocolError):
            result.error = payload
            ex.error("protocol", f"agent card does not decode: {payload.reason}", payload.path)
        else:
            result.card = payload
        return result
    return result


def _version_refused(sent: dict[str, str], raw: bytes) -> bool:
    """The answer is -32009 (version not supported) to a request that named no version:
    a JSON-RPC error object, bare or under ``error``, or 1.0's REST error."""
    if any(name.lower() == VERSION_HEADER.lower() for name in sent):
        return False
    try:
        body = parse_json(raw)
    except ProtocolError:
        return False
    if not isinstance(body, dict):
        return False
    error = inner if isinstance(inner := body.get("error"), dict) else body
    if error.get("code") == VERSION_NOT_SUPPORTED:
        return True
    decoded = rest.decode_error(body)
    return decoded is not None and decoded.code == VERSION_NOT_SUPPORTED


def no_card_error(result: CardResult) -> TransportError:
    tried = ", ".join(
        f"{url} (HTTP {status}{': ' + result.reasons[url] if url in result.reasons else ''})"
        for url, status in result.misses
    )
    return TransportError("http", f"no agent card found: tried {tried}")


def endpoint_for(card: AgentCard | None, card_raw: Any, dialect: str | None, card_url: str | None, base: str) -> str:
    """The card's JSON-RPC URL for ``dialect``, else its ``url``, else ``base``; a
    relative URL is taken relative to the card's own URL."""
    url = None
    if card is not None:
        url = (jsonrpc_url(card, dialect) if dialect else None) or card.url
    elif isinstance(card_raw, dict) and isinstance(card_raw.get("url"), str):
        url = card_raw["url"]
    if not url:
        return base
    if url.startswith(WS_AGENT):
        # A Society AI ws-agent is reached through a hub: its bridge (which the hub's
        # card names), else the address this card came from.
        bridge = card_raw.get("hubBridge") if isinstance(card_raw, dict) else None
        return bridge if isinstance(bridge, str) and bridge.startswith(("http://", "https://")) else base
    try:
        return urljoin(card_url or base, url)
    except ValueError:  # "http://[x": not a URL at all; the lint says so, the base still answers
        return base


#: The card ``url`` scheme of Society AI's WebSocket agents (seed 001).
WS_AGENT = "ws-agent://"


# ------------------------------------------------------------------------- probes


@dataclass(frozen=True)
class Probe:
    dialect: str
    method: Method
    #: Why a JSON-RPC answer with this error code (None: a result) means "speaks it".
    accepts: Callable[[int | None], bool]
    params: Callable[[], dict[str, Any]]


# -32601: no such method. -32009: a 1.0 handler refusing the version; a2a-sdk sends it
# for a 1.0 method without the A2A-Version header (capture 04).
_REFUSALS = frozenset({-32601, -32009})

PROBES: tuple[Probe, ...] = (
    # A random task id cannot exist, so "task not found" (-32001) is the only answer a
    # 1.0 agent can give; a 0.3 handler given the 1.0 header says -32603 (capture 25).
    Probe("1.0", Method.GET, lambda code: code == -32001, lambda: {"id": f"a2a-inspect-probe-{uuid.uuid4().hex}"}),
    # Empty params are invalid, so nothing is sent to the agent's model: an agent that
    # knows the method says -32602, one that does not says -32601.
    Probe("0.3", Method.SEND, lambda code: code not in _REFUSALS, dict),
    Probe("0.1", Method.SEND, lambda code: code not in _REFUSALS, dict),
)


def answer_code(raw: bytes) -> tuple[bool, int | None]:
    """(is a JSON-RPC response, its error code or None for a result)."""
    try:
        obj = parse_json(raw)
    except ProtocolError:
        return False, None
    if not isinstance(obj, dict):
        return False, None
    error = obj.get("error")
    if isinstance(error, dict):
        code = error.get("code")
        if isinstance(code, int) and not isinstance(code, bool):
            return True, code
        return False, None
    return ("result" in obj), None


@dataclass
class ProbeOutcome:
    dialect: str | None
    #: For the NOTE: which request answered how.
    detail: str


async def probe_dialect(
    wire: Wire,
    endpoint: Callable[[Dialect], str],
    headers: Callable[[Dialect], dict[str, str]],
    next_id: Callable[[], int],
) -> ProbeOutcome:
    tried: list[str] = []
    for probe in PROBES:
        dialect = get_dialect(probe.dialect)
        rpc_id = next_id()
        wire_name = dialect.wire_method(probe.method)
        body = json.dumps(
            {"jsonrpc": "2.0", "id": rpc_id, "method": wire_name, "params": probe.params()}, separators=(",", ":")
        ).encode("utf-8")
        info = {"dialect": dialect.name, "a2a_method": payloads.PROBE, "rpc_method": wire_name, "rpc_id": rpc_id}
        ex = await wire.send("POST", endpoint(dialect), headers=headers(dialect), body=body, info=info)
        raw = await ex.read()
        assert ex.response is not None  # as read() asserts: the head came first
        data = ex.response_data(raw)
        ex.log(Kind.RESPONSE, data, payloads.response_payload(info, data))
        is_rpc, code = answer_code(raw)
        answer = (
            ("a result" if code is None else f"{code}") if is_rpc else f"HTTP {ex.response.status_code}, not JSON-RPC"
        )
        if is_rpc and probe.accepts(code):
            return ProbeOutcome(dialect.name, f"{wire_name} answered {answer}")
        tried.append(f"{wire_name} answered {answer}")
    return ProbeOutcome(None, "; ".join(tried))


def fallback_dialect(card_url: str | None) -> tuple[str, str]:
    """(dialect, why) when nothing else could tell."""
    if card_url and urlsplit(card_url).path.endswith("/" + LEGACY_CARD_FILE):
        return "0.1", f"the card is at the 0.1 path ({LEGACY_CARD_FILE})"
    if card_url:
        return "0.3", f"the card is at the 0.3 path ({CARD_FILE})"
    return "0.3", "there is no card; 0.3 is the most widely deployed"
