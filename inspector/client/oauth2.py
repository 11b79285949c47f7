"""OAuth 2.0 client credentials (RFC 6749 section 4.4), from the card's security schemes.

The client id and secret are the user's; the token is fetched from the flow's tokenUrl,
sent as a bearer token, and fetched again when it expires (``expires_in``) or when the
agent answers 401. Where the secret may go is the point of this module:

* a token URL the user gave (``--oauth2-token-url``) is theirs to choose;
* otherwise the card names it, and only a card served from an origin the user named (not
  one reached through a redirect to another origin) is believed; its token URL must be
  https, or on the card's own origin. Anything else is refused in words before a byte is
  sent: a card cannot send the secret in clear text to a third place.

Neither the secret nor the token is written by this module: the session gets a NOTE
saying where the token came from and for how long, never the exchange's bodies. A token
is handed to ``on_token`` callbacks as soon as it exists, for whatever redacts by value
(a recording).
"""

from __future__ import annotations

import base64
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urljoin

import httpx

from ..protocol.sizes import format_size
from ..protocol.wire import parse_json
from .errors import TransportError
from .transport import same_origin

#: A token response is a few hundred bytes; more is not one.
MAX_TOKEN_RESPONSE = 64 * 1024
#: A token is fetched again this long before it expires (or a tenth of its life, if shorter).
EARLY = 30.0


@dataclass(frozen=True)
class ClientCredentials:
    client_id: str
    client_secret: str
    #: --oauth2-scope; None: the scopes the card asks for.
    scopes: tuple[str, ...] | None = None
    #: --oauth2-token-url: the user's choice, used whatever the card says.
    token_url: str | None = None

    def __repr__(self) -> str:
        return f"ClientCredentials({self.client_id!r}, scopes={self.scopes!r})"


@dataclass(frozen=True)
class Flow:
    """The card's client-credentials flow: its scheme's name, token URL and scopes."""

    scheme: str
    token_url: str
    scopes: tuple[str, ...]


def card_flow(card: Any) -> Flow | None:
    """The first oauth2 scheme of ``card`` (those its ``security`` requires first) with a
    client-credentials flow (0.3 ``flows.clientCredentials.tokenUrl``, 1.0 the same inside
    ``oauth2SecurityScheme``; ProtoJSON's snake_case spellings too)."""
    schemes = getattr(card, "security_schemes", None) or {}
    required: dict[str, list[str]] = {}
    for requirement in getattr(card, "security", None) or []:
        for name, scopes in requirement.items():
            required.setdefault(name, list(scopes or []))
    for name in [n for n in required if n in schemes] + [n for n in schemes if n not in required]:
        scheme = schemes[name]
        if (scheme.type or "").lower() != "oauth2" or not isinstance(scheme.flows, Mapping):
            continue
        flow = scheme.flows.get("clientCredentials") or scheme.flows.get("client_credentials")
        if not isinstance(flow, Mapping):
            continue
        url = flow.get("tokenUrl") or flow.get("token_url")
        if not isinstance(url, str) or not url:
            continue
        offered = scopes_in if isinstance(scopes_in := flow.get("scopes"), Mapping) else {}
        scopes = required.get(name) or [str(s) for s in offered]
        return Flow(name, url, tuple(s for s in scopes if isinstance(s, str)))
    return None


def token_url_problem(token_url: str, card_url: str | None, given: Iterable[str | None]) -> str | None:
    """Why the client secret may not go to ``token_url``, named by the card served from
    ``card_url``, when the user named the URLs ``given``; None when it may."""
    try:
        target = httpx.URL(token_url)
        card = httpx.URL(card_url) if card_url else None
        named = [httpx.URL(u) for u in given if u]
    except httpx.InvalidURL:
        return f"the card's token URL {token_url!r} is not a URL"
    if target.scheme not in ("http", "https") or not target.host:
        return f"the card's token URL {token_url} is not an http(s) URL"
    if card is None or not any(same_origin(g, card) for g in named):
        return (
            f"the card naming the token URL {token_url} was not served from an address you gave "
            f"(it came from {card_url or 'nowhere'})"
        )
    if target.scheme != "https" and not same_origin(card, target):
        return (
            f"the card's token URL {token_url} is plain http on another origin than the card's: "
            "the client secret would travel in clear text to a place you did not name"
        )
    return None


class TokenSource:
    """Fetches, keeps and renews one bearer token for one client."""

    def __init__(
        self, credentials: ClientCredentials, http: httpx.AsyncClient, note: Callable[..., None], timeout: float
    ) -> None:
        self.credentials = credentials
        self._http = http
        self._note = note
        self._timeout = timeout
        self.token: str | None = None
        self._expires: float | None = None
        self.flow: Flow | None = None
        #: Called with each new token (the redaction of a recording, say).
        self.on_token: list[Callable[[str], None]] = []

    def fresh(self) -> bool:
        return self.token is not None and (self._expires is None or time.monotonic() < self._expires)

    def choose(self, card: Any, card_url: str | None, given: Iterable[str | None]) -> Flow:
        """Where to ask for a token: the user's --oauth2-token-url, else the card's flow,
        if the rule above lets the secret go there. Raises TransportError("http")."""
        found = card_flow(card) if card is not None else None
        scopes = self.credentials.scopes
        if self.credentials.token_url:
            flow = Flow(
                found.scheme if found else "--oauth2-token-url",
                self.credentials.token_url,
                scopes if scopes is not None else (found.scopes if found else ()),
            )
        elif found is None:
            raise TransportError(
                "http",
                "--oauth2-client-id: the card declares no OAuth 2.0 client-credentials "
                "flow (securitySchemes ... flows.clientCredentials.tokenUrl); give the "
                "token URL with --oauth2-token-url URL",
            )
        else:
            url = urljoin(card_url, found.token_url) if card_url else found.token_url
            problem = token_url_problem(url, card_url, given)
            if problem:
                raise TransportError(
                    "http",
                    f"OAuth 2.0 token not requested: {problem}; if it is right, give it with --oauth2-token-url URL",
                )
            flow = Flow(found.scheme, url, scopes if scopes is not None else found.scopes)
        self.flow = flow
        return flow

    async def fetch(self, why: str) -> str:
        """A new token from the flow's token URL (``choose`` first)."""
        flow = self.flow
        assert flow is not None
        creds = self.credentials
        # RFC 6749 2.3.1: the id and secret form-encoded, then as HTTP Basic credentials.
        pair = f"{quote(creds.client_id, safe='')}:{quote(creds.client_secret, safe='')}"
        headers = {
            "Authorization": "Basic " + base64.b64encode(pair.encode()).decode("ascii"),
            "Accept": "application/json",
        }
        form = {"grant_type": "client_credentials"}
        if flow.scopes:
            form["scope"] = " ".join(flow.scopes)
        where = f"the token URL {flow.token_url}"
        try:
            async with self._http.stream(
                "POST", flow.token_url, data=form, headers=headers, timeout=self._timeout, follow_redirects=False
            ) as resp:
                raw = bytearray()
                async for piece in resp.aiter_bytes():
                    raw += piece
                    if len(raw) > MAX_TOKEN_RESPONSE:
                        raise TransportError(
                            "http",
                            f"OAuth 2.0: {where} answered more than "
                            f"{format_size(MAX_TOKEN_RESPONSE)}: not a token response",
                        )
                status = resp.status_code
        except httpx.HTTPError as exc:
            raise TransportError("http", f"OAuth 2.0: no token from {where}: {exc or type(exc).__name__}") from None
        try:
            body = parse_json(bytes(raw))
        except ValueError:
            body = None
        if status != 200:
            said = ""
            if isinstance(body, dict) and isinstance(body.get("error"), str):
                said = f": {body['error'][:100]}"
                if isinstance(body.get("error_description"), str):
                    said += f" ({body['error_description'][:200]})"
            raise TransportError(
                "http", f"OAuth 2.0: {where} refused the client credentials: HTTP {status}{said}", status=status
            )
        token = body.get("access_token") if isinstance(body, dict) else None
        if not isinstance(token, str) or not token or any(ord(c) < 33 or ord(c) == 127 for c in token):
            raise TransportError("http", f"OAuth 2.0: {where} answered 200 without a usable access_token")
        kind = body.get("token_type")
        if isinstance(kind, str) and kind.lower() != "bearer":
            raise TransportError(
                "http", f"OAuth 2.0: {where} gave a {kind[:40]!r} token; only bearer tokens are supported"
            )
        lifetime = body.get("expires_in")
        lifetime = (
            float(lifetime)
            if isinstance(lifetime, (int, float)) and not isinstance(lifetime, bool) and lifetime > 0
            else None
        )
        self.token = token
        self._expires = None if lifetime is None else time.monotonic() + lifetime - min(EARLY, lifetime / 10)
        for sink in self.on_token:
            sink(token)
        life = f"expires in {lifetime:g} s" if lifetime is not None else "no expiry given"
        scopes = f", scopes {' '.join(flow.scopes)}" if flow.scopes else ""
        self._note(
            f"OAuth 2.0 token ({why}) from {flow.token_url} for scheme {flow.scheme!r}{scopes}: {life}",
            code="oauth2-token",
        )
        return token
