"""Credentials as HTTP headers. The inspector only ever sends them, and only to the
origin they were given for; it never stores them (a recording keeps the headers as sent,
so whoever writes one decides what to redact: ``Auth.header_names`` says which names
carry secrets, and session.redact.Redaction.for_connection takes ``headers()``)."""

from __future__ import annotations

import base64
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Auth:
    _headers: dict[str, str] = field(default_factory=dict)
    #: What each credential is, in words and never the secret ("api key in header
    #: X-API-Key"): kept apart from the headers, which cannot tell an API key in a
    #: custom header from any other secret header once two are combined.
    _labels: tuple[str, ...] = ()

    @classmethod
    def bearer(cls, token: str) -> Auth:
        return cls({"Authorization": f"Bearer {token}"}, ("bearer",))

    @classmethod
    def api_key(cls, value: str, header: str = "X-API-Key") -> Auth:
        return cls({header: value}, (f"api key in header {header}",))

    @classmethod
    def basic(cls, user: str, password: str) -> Auth:
        token = base64.b64encode(f"{user}:{password}".encode()).decode("ascii")
        return cls({"Authorization": f"Basic {token}"}, ("basic",))

    @classmethod
    def custom(cls, headers: dict[str, str]) -> Auth:
        """Headers the user marked as credentials (``--secret-header``)."""
        names = ", ".join(sorted(headers))
        return cls(dict(headers), (f"secret header{'s' if len(headers) > 1 else ''} {names}",) if headers else ())

    def __add__(self, other: Auth) -> Auth:
        return Auth({**self._headers, **other._headers}, self._labels + other._labels)

    @property
    def description(self) -> str:
        """What is sent, in words: ``bearer``, ``api key in header X-API-Key``, ``basic +
        secret header X-Trace``... never the secret."""
        return " + ".join(self._labels) if self._labels else self.kind

    def headers(self) -> dict[str, str]:
        return dict(self._headers)

    @property
    def kind(self) -> str:
        """``bearer``, ``basic``, ``api-key`` or ``custom``: what it is, never the secret."""
        value = self._headers.get("Authorization", "")
        if value.startswith("Bearer "):
            return "bearer"
        if value.startswith("Basic "):
            return "basic"
        return "api-key" if len(self._headers) == 1 else "custom"

    @property
    def header_names(self) -> frozenset[str]:
        """Lower-cased names of the headers this carries (for redaction)."""
        return frozenset(name.lower() for name in self._headers)

    def __repr__(self) -> str:
        # Never print the secret itself.
        return f"Auth({', '.join(sorted(self._headers))})"


#: CardAuth.detail of an oauth2 scheme with a client-credentials flow (--oauth2-client-id).
CLIENT_CREDENTIALS = "OAuth 2.0 client credentials"


@dataclass(frozen=True)
class CardAuth:
    """One way a card says to authenticate, in the terms the inspector's options use.

    ``kind``: ``bearer``, ``basic``, ``api-key`` (``header`` names it; ``location`` is
    header, query or cookie), or ``other`` (OAuth 2, OpenID Connect, mutual TLS: a
    token obtained elsewhere usually goes as a bearer token)."""

    name: str
    kind: str
    header: str | None = None
    location: str = "header"
    detail: str = ""

    def option(self) -> str:
        """The command-line option that sends such a credential."""
        if self.kind == "basic":
            return "--basic USER:PASSWORD"
        if self.kind == "api-key":
            if self.location != "header":
                return f"the {self.location} parameter {self.header or '?'} (put it in the URL)"
            return f"--api-key KEY --api-key-header {self.header or 'X-API-Key'}"
        if self.detail == CLIENT_CREDENTIALS:
            return "--oauth2-client-id ID --oauth2-client-secret-env VAR"
        return "--bearer TOKEN"


def card_auth(card: object) -> list[CardAuth]:
    """What ``card`` (an AgentCard) declares: its security schemes (0.2+), or 0.1's
    ``authentication.schemes``; the ones its ``security`` requirements name first."""
    out: list[CardAuth] = []
    schemes = getattr(card, "security_schemes", None) or {}
    required = [name for req in (getattr(card, "security", None) or []) for name in req]
    order = [n for n in required if n in schemes] + [n for n in schemes if n not in required]
    for name in order:
        scheme = schemes[name]
        kind = (scheme.type or "").lower()
        if kind == "http":
            http = (scheme.scheme or "").lower()
            out.append(CardAuth(name, "basic" if http == "basic" else "bearer", detail=scheme.bearer_format or http))
        elif kind == "apikey":
            out.append(CardAuth(name, "api-key", header=scheme.name, location=(scheme.location or "header").lower()))
        elif (
            kind == "oauth2"
            and isinstance(scheme.flows, dict)
            and any(k in scheme.flows for k in ("clientCredentials", "client_credentials"))
        ):
            out.append(CardAuth(name, "other", detail=CLIENT_CREDENTIALS))
        else:
            out.append(CardAuth(name, "other", detail=scheme.type or ""))
    legacy = getattr(card, "authentication", None)
    if not out and legacy is not None:
        names = legacy.schemes if isinstance(legacy.schemes, list) else [legacy.schemes]
        for name in names:
            low = str(name).lower()
            kind = "basic" if low == "basic" else "api-key" if low in ("apikey", "api-key", "api_key") else "bearer"
            out.append(CardAuth(str(name), kind, header="X-API-Key" if kind == "api-key" else None))
    return out


def card_asks(card: object) -> tuple[str, CardAuth, int] | None:
    """(what the card asks for first, in words; that way; how many ways it lists), or
    None when the card declares no way to authenticate."""
    ways = card_auth(card) if card is not None else []
    if not ways:
        return None
    first = ways[0]
    what = {
        "bearer": "a bearer token",
        "basic": "basic auth",
        "api-key": f"an API key ({first.header or '?'})",
        "other": f"{first.detail} (a token)"
        if first.detail == CLIENT_CREDENTIALS
        else f"{first.detail or 'its own'} auth",
    }[first.kind]
    return f"the card asks for {what} in scheme {first.name!r}", first, len(ways)


def refusal(status: int | None) -> str | None:
    """``refused (401)`` or ``forbidden (403)``; None for any other status."""
    return {401: "refused (401)", 403: "forbidden (403)"}.get(status or 0)


def auth_hint(card: object, status: int | None) -> str | None:
    """One line for a 401/403 from an agent whose card declares how to authenticate."""
    refused = refusal(status)
    asks = card_asks(card) if refused else None
    if asks is None:
        return None
    what, first, count = asks
    if first.kind == "other" and first.detail != CLIENT_CREDENTIALS:
        what += " (a token from it goes as --bearer)"
    more = f" (or {count - 1} more: see 'a2a-inspect card')" if count > 1 else ""
    return f"hint: {refused}; {what}: try {first.option()}{more}"
