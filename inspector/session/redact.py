"""Keeping secrets out of recordings.

Recordings get shared (attached to bug reports, diffed, served by the mock), so by
default they never hold credentials. Redaction works on a copy of each event's recorded
form; the live session keeps the real values, since the user already has them.

What is replaced with ``[redacted]``:
  * headers, by name, case-insensitively, in requests, responses and push notifications:
    Authorization and Proxy-Authorization keep their scheme ("Bearer [redacted]") because
    which scheme was used is often the bug; X-API-Key, Api-Key, Cookie, Set-Cookie,
    X-A2A-Notification-Token, any names the user adds, and any name that looks like a
    credential's (holding token, auth, key, secret, session, cookie, password or
    credential: X-Auth-Token, X-Session-Id) are replaced whole, unless the user listed
    the name as plain;
  * URL query parameters with the usual secret names (api_key, access_token, ...), any
    user-added names and any name that looks like a credential's, and the password of a
    ``user:password@`` URL, in request and push URLs;
  * push notification secrets inside JSON bodies (requests and non-streamed responses,
    since push set/get answers echo them): ``token`` and ``authentication.credentials``
    of any push notification config, whichever dialect spelled it.

  * URLs (of any scheme: http, grpc, ws...) inside the tool's own free-text NOTE and
    ERROR lines ("dialect 1.0 remembered for http://...?token=..."), by the same query
    parameter names and their ``user:password@``;
  * every occurrence of a secret *value* the user gave (a token, a key, a password, a
    secret header's or query parameter's value, at least ``MIN_VALUE`` characters long)
    in any string written: an agent that echoes a token back, a note quoting it.

A body is rewritten only when it held such a secret; every other body stays byte-exact.

What reaches a terminal (the CLI's stdout and stderr, which CI logs keep) goes through
``Redaction.shown``: the URLs in it and the secret values, as in a recording.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, unquote, unquote_plus, urlsplit, urlunsplit

from ..safejson import loads
from .events import Event, Kind

REDACTED = "[redacted]"
_REDACTED_USERINFO = "%5Bredacted%5D"
#: What a screen shows in place of a secret until the user asks to see it.
MASK = "••••••"
#: Characters a masked secret keeps at its end (of one this long at least), to tell two
#: tokens apart; a shorter one is masked whole.
MASK_KEEPS, MASK_KEEPS_FROM = 4, 20

#: Headers whose value is replaced, but whose auth scheme (first word) is kept.
SCHEME_HEADERS = frozenset({"authorization", "proxy-authorization"})
#: Headers whose whole value is replaced.
SECRET_HEADERS = frozenset({"x-api-key", "api-key", "cookie", "set-cookie", "x-a2a-notification-token"})
#: Query parameters whose value is replaced.
SECRET_PARAMS = frozenset({"api_key", "apikey", "api-key", "x-api-key", "key", "access_token", "token"})
#: A header or query parameter whose name holds one of these words is taken for a
#: credential, whatever the service called it (X-Auth-Token, X-Goog-Api-Key, sessionKey):
#: a custom credential header is the usual way agents are secured, and the user should
#: not have to list each one before a recording can be shared. ``:authority`` (gRPC's
#: Host) is no credential.
CREDENTIAL_WORDS = ("token", "auth", "key", "secret", "session", "cookie", "password", "passwd", "credential")
_CREDENTIAL_NAME = re.compile(r"token|auth(?!ority)|key|secret|session|cookie|passw(?:or)?d|credential", re.I)
#: Names the words match that carry no secret: a challenge naming the scheme to use, the
#: WebSocket handshake's nonce, CORS's yes or no, a page cursor.
PLAIN_NAMES = frozenset(
    {
        "www-authenticate",
        "proxy-authenticate",
        "sec-websocket-key",
        "access-control-allow-credentials",
        "pagetoken",
        "page_token",
        "nextpagetoken",
        "next_page_token",
    }
)

# Keys under which dialects nest a push notification config: 0.1 ``pushNotification``
# (send params), 0.2+ ``pushNotificationConfig``, 1.0 ``taskPushNotificationConfig``.
_PUSH_KEYS = frozenset({"pushNotification", "pushNotificationConfig", "taskPushNotificationConfig"})

_HEADER_KINDS = (Kind.REQUEST, Kind.RESPONSE, Kind.PUSH)
_TEXT_KINDS = (Kind.NOTE, Kind.ERROR)


#: Shorter secret values are redacted where they are named (a header, a parameter), not
#: wherever they occur: a two-letter password would blank out every word holding it.
MIN_VALUE = 8

# A URL in free text: up to whitespace or a quote; trailing punctuation is the sentence's.
# The scheme is bounded: unbounded, "a.a.a.…://" in an agent's text is a scan from every
# dot to the end (quadratic: 16 KB took 2 s).
_URL_IN_TEXT = re.compile(r"(?<![a-z0-9+.-])[a-z][a-z0-9+.-]{0,31}://[^\s\"'<>]+", re.IGNORECASE)
_TRAILING = ".,;:!?)]}"
_USERINFO = re.compile(r"//([^/:@?#]*):[^/@?#]*@")
_PARAM = re.compile(r"(?<=[?&])([^=&#]+)=([^&#]*)")


@dataclass(frozen=True)
class Redaction:
    """Which secrets to remove from recorded events. ``Redaction(enabled=False)`` records
    everything verbatim."""

    enabled: bool = True
    #: More header names (and query parameter names) to treat as secret.
    extra_names: tuple[str, ...] = ()
    #: Secret values to replace wherever they occur (see MIN_VALUE).
    values: tuple[str, ...] = ()
    #: Names that look like a credential's but are not (the settings' ``plain_headers``):
    #: shown as sent. The built-in and user-added secret names stay secret.
    plain_names: tuple[str, ...] = ()
    _headers: frozenset[str] = field(init=False, repr=False, compare=False)
    _plain: frozenset[str] = field(init=False, repr=False, compare=False)
    _params: frozenset[str] = field(init=False, repr=False, compare=False)
    #: (value, its form inside a JSON string as the recorder writes it), longest first.
    _values: tuple[tuple[str, str], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        extra = frozenset(n.strip().lower() for n in self.extra_names if n.strip())
        object.__setattr__(self, "_headers", (SECRET_HEADERS | extra) - SCHEME_HEADERS)
        object.__setattr__(self, "_params", SECRET_PARAMS | extra)
        object.__setattr__(self, "_plain", PLAIN_NAMES | {n.strip().lower() for n in self.plain_names if n.strip()})
        kept = sorted(
            {v for v in self.values if isinstance(v, str) and len(v) >= MIN_VALUE and v != REDACTED},
            key=len,
            reverse=True,
        )
        object.__setattr__(self, "_values", tuple((v, json.dumps(v)[1:-1]) for v in kept))

    @classmethod
    def for_connection(
        cls,
        *,
        enabled: bool = True,
        extra_names: Iterable[str] = (),
        credentials: Mapping[str, str] | None = None,
        headers: Mapping[str, str] | None = None,
        urls: Iterable[str | None] = (),
        values: Iterable[str | None] = (),
        plain_names: Iterable[str] = (),
    ) -> Redaction:
        """What to redact for one agent connection. ``credentials``: headers the user
        gave as credentials (--bearer, --api-key under any name, --secret-header...): their
        names become secret names and their values secret values. ``headers``: the user's
        other headers, whose values are secret when their names are. ``urls``: the URLs
        the user gave, whose secret query parameters' values are secret. ``values``:
        other secrets the user gave (a push notification token). ``plain_names``: names
        that look like a credential's but are not."""
        credentials = dict(credentials or {})
        names = tuple(extra_names) + tuple(credentials)
        plain = tuple(plain_names)
        probe = cls(True, names, plain_names=plain)
        secrets = [v for v in values if v]
        for name, value in [*credentials.items(), *(headers or {}).items()]:
            if name in credentials or probe.is_secret_header(name):
                secrets += _header_secrets(name, value)
        for url in urls:
            try:
                parts = urlsplit(url or "")
                password = parts.password
            except ValueError:  # not a URL: whoever sends to it will say so
                continue
            secrets += [v for k, v in parse_qsl(parts.query, keep_blank_values=True) if probe.is_secret_param(k)]
            if password:
                # Sent as Basic credentials: the password, and the token they make.
                pair = f"{unquote(parts.username or '')}:{unquote(password)}"
                secrets += [unquote(password), base64.b64encode(pair.encode()).decode("ascii")]
        return cls(enabled, names, tuple(secrets), plain)

    def is_secret_header(self, name: str) -> bool:
        low = name.lower()
        if low in SCHEME_HEADERS or low in self._headers:
            return True
        return low not in self._plain and _CREDENTIAL_NAME.search(low) is not None

    def is_secret_param(self, name: str) -> bool:
        low = name.lower()
        if low in self._params:
            return True
        return low not in self._plain and _CREDENTIAL_NAME.search(low) is not None

    def settings(self) -> dict[str, Any]:
        """What a recording's header says about how it was redacted."""
        if not self.enabled:
            return {"enabled": False}
        return {
            "enabled": True,
            "replacement": REDACTED,
            "scheme_headers": sorted(SCHEME_HEADERS),
            "headers": sorted(self._headers),
            "query_params": sorted(self._params),
            "names_holding": list(CREDENTIAL_WORDS),
            "plain_names": sorted(self._plain),
            "body_fields": ["push notification config token", "push notification config authentication.credentials"],
            "text": "URLs in notes and errors",
            # How many, never which: the values themselves are what must not be written.
            "secret_values": len(self._values),
        }

    def event_json(self, event: Event) -> dict[str, Any]:
        """``event.to_json()`` with secrets removed; the event itself is not touched."""
        out = event.to_json()
        if not self.enabled:
            return out
        if event.kind in _TEXT_KINDS:
            for key, value in out.items():
                if value.__class__ is str and ("?" in value or "@" in value) and "://" in value:
                    out[key] = self.text(value)
            return out
        if event.kind is Kind.WS:
            # A frame's text is JSON like a body: push configs (tasks/send) and a card's
            # credentials (agent.register) are redacted the same way; the socket's
            # opening handshake has headers.
            headers = out.get("headers")
            if headers:
                out["headers"] = self.headers(headers)
            text = out.get("text")
            if isinstance(text, str) and out.get("encoding", "utf-8") == "utf-8":
                out["text"] = redact_body(text)
            return out
        trailers = out.get("trailers")
        if trailers:
            # A gRPC call's trailing metadata (RESPONSE, STREAM_END): headers by another name.
            out["trailers"] = self.headers(trailers)
        if event.kind not in _HEADER_KINDS:
            return out
        headers = out.get("headers")
        if headers:
            out["headers"] = self.headers(headers)
        url = out.get("url")
        if isinstance(url, str) and ("?" in url or "@" in url):
            out["url"] = self.url(url)
        if event.kind is not Kind.PUSH and out.get("body_encoding", "utf-8") == "utf-8":
            body = out.get("body")
            if isinstance(body, str):
                out["body"] = redact_body(body)
        return out

    def headers(self, headers: Any) -> Any:
        """Headers as a mapping or a list of [name, value] pairs, secrets replaced."""
        if isinstance(headers, dict):
            return {k: self._header(k, v) for k, v in headers.items()}
        if isinstance(headers, list):
            out = []
            for pair in headers:
                if isinstance(pair, (list, tuple)) and len(pair) == 2:
                    out.append([pair[0], self._header(pair[0], pair[1])])
                else:
                    out.append(pair)
            return out
        return headers

    def _header(self, name: Any, value: Any) -> Any:
        if not isinstance(name, str) or not isinstance(value, str):
            return value
        low = name.lower()
        if low in SCHEME_HEADERS:
            scheme, sep, _ = value.strip().partition(" ")
            return f"{scheme} {REDACTED}" if sep else REDACTED
        if self.is_secret_header(low):
            return REDACTED
        return value

    def text(self, text: str) -> str:
        """Free text with the secret query parameters of every URL in it replaced."""

        def one(match: re.Match[str]) -> str:
            url = match.group()
            tail = len(url) - len(url.rstrip(_TRAILING))
            return self.url(url[: len(url) - tail]) + url[len(url) - tail :]

        return _URL_IN_TEXT.sub(one, text)

    def shown(self, text: str, mask: str = REDACTED) -> str:
        """Text for a terminal: the URLs in it redacted, and every secret value (as
        ``mask``)."""
        if not self.enabled:
            return text
        if "://" in text:
            text = self.text(text)
            if mask != REDACTED:
                text = text.replace(_REDACTED_USERINFO, mask).replace(REDACTED, mask)
        for value, _escaped in self._values:
            if value in text:
                text = text.replace(value, mask)
        return text

    def may_change(self, pieces: Iterable[str]) -> bool:
        """Whether ``shown`` could change the text these pieces make when joined, read a
        piece at a time (a URL or a secret value may straddle two pieces): a long
        artifact's text is printed whole only when this says it must be."""
        if not self.enabled:
            return False
        # Enough of the previous piece to hold all but the last character of a match.
        reach = max([len(value) for value, _escaped in self._values] + [len("://")]) - 1
        tail = ""
        for piece in pieces:
            window = tail + piece
            if "://" in window or any(value in window for value, _escaped in self._values):
                return True
            tail = window[-reach:]
        return False

    def masked_header(self, name: str, value: str) -> str:
        """A header's value as a screen shows it: a secret one as MASK (its scheme kept,
        and the last few characters of a long one), any other as it is."""
        if not self.enabled or not self.is_secret_header(name):
            return self.shown(value, MASK)
        scheme, sep, secret = value.strip().partition(" ")
        if not (sep and name.lower() in SCHEME_HEADERS):
            scheme, secret = "", value.strip()
        tail = secret[-MASK_KEEPS:] if len(secret) >= MASK_KEEPS_FROM else ""
        return f"{scheme} {MASK}{tail}" if scheme else MASK + tail

    def shown_json(self, node: Any) -> Any:
        """A JSON value for a terminal: ``shown`` applied to every string in it."""
        if not self.enabled:
            return node
        if isinstance(node, str):
            return self.shown(node)
        if isinstance(node, dict):
            return {self.shown_json(k): self.shown_json(v) for k, v in node.items()}
        if isinstance(node, (list, tuple)):
            return [self.shown_json(v) for v in node]
        return node

    def line(self, line: str, obj: Any, source: str | None = None) -> str:
        """A recorded line (``obj`` serialised with ensure_ascii) with every secret value
        replaced. Runs once per event: one substring test per value when none is there,
        on ``source`` when given (an SSE event's raw text, which holds every other field
        of the event and is about half the line)."""
        if source is not None:
            for value, _escaped in self._values:
                if value in source:
                    break
            else:
                return line
        hit = False
        for _value, escaped in self._values:
            if escaped in line:
                hit = True
                line = line.replace(escaped, REDACTED)
        if not hit:
            return line
        try:
            json.loads(line)
            return line
        except ValueError:
            # The value also matched across JSON syntax (a value like "1,2" in a list of
            # numbers): replace it string by string instead.
            return json.dumps(self._scrub(obj), ensure_ascii=True, separators=(",", ":"), default=str)

    def _scrub(self, node: Any) -> Any:
        if isinstance(node, str):
            for value, _escaped in self._values:
                if value in node:
                    node = node.replace(value, REDACTED)
            return node
        if isinstance(node, dict):
            return {self._scrub(k): self._scrub(v) for k, v in node.items()}
        if isinstance(node, (list, tuple)):
            return [self._scrub(v) for v in node]
        return node

    def url(self, url: str) -> str:
        try:
            return self._url(url)
        except ValueError:
            # Not a URL urllib can read (a bracket in the host part): replace by pattern.
            url = _USERINFO.sub(rf"//\1:{_REDACTED_USERINFO}@", url)
            return _PARAM.sub(lambda mt: f"{mt[1]}={REDACTED}" if self.is_secret_param(mt[1]) else mt[0], url)

    def _url(self, url: str) -> str:
        parts = urlsplit(url)
        if "@" in parts.netloc:
            # http://user:password@host: the password is a credential (httpx sends it as Basic).
            userinfo, _, host = parts.netloc.rpartition("@")
            user, sep, _password = userinfo.partition(":")
            if sep and _password != _REDACTED_USERINFO:
                # Brackets would read as an IPv6 address: the placeholder is percent-encoded.
                parts = parts._replace(netloc=f"{user}:{_REDACTED_USERINFO}@{host}")
                url = urlunsplit(parts)
        if not parts.query:
            return url
        # Piece by piece, the others left as written: decoding and encoding the query
        # again would turn %20 into +, and the recorded URL would not be the one sent.
        pieces = parts.query.split("&")
        secret = [self.is_secret_param(unquote_plus(piece.partition("=")[0])) for piece in pieces]
        if not any(secret):
            return url
        query = "&".join(
            f"{piece.partition('=')[0]}={REDACTED}" if hidden else piece
            for piece, hidden in zip(pieces, secret, strict=True)
        )
        return urlunsplit(parts._replace(query=query))


def _header_secrets(name: str, value: str) -> list[str]:
    """The secret parts of a credential header's value: the whole value; for a scheme
    header the credentials after the scheme (and for Basic, the user:password they
    encode and the password); for a cookie header each cookie's value."""
    out = [value]
    low = name.lower()
    if low in SCHEME_HEADERS:
        scheme, _, credentials = value.strip().partition(" ")
        credentials = credentials.strip()
        out.append(credentials)
        if scheme.lower() == "basic":
            try:
                pair = base64.b64decode(credentials, validate=True).decode("utf-8")
            except (binascii.Error, ValueError):
                pair = ""
            out += [pair, pair.partition(":")[2]]
    elif low == "cookie":
        out += [c.partition("=")[2].strip() for c in value.split(";")]
    return [v for v in out if v]


def redact_body(body: str) -> str:
    """A JSON body with push notification secrets replaced; unchanged if it had none."""
    # Cheap test first: almost no body carries either key.
    if '"token"' not in body and '"credentials"' not in body:
        return body
    try:
        obj = loads(body)
    except ValueError:  # not JSON, or too deep to hold a config worth redacting
        return body
    if not _walk(obj, False):
        return body
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def _walk(node: Any, in_push: bool) -> bool:
    """Redact in place; True when something was replaced."""
    changed = False
    if isinstance(node, dict):
        # A push config is recognised by where it sits, or by its shape (url + token),
        # which covers 1.0's push create params where the config is the params object.
        if in_push or ("url" in node and ("token" in node or "authentication" in node)):
            changed |= _scrub(node)
        for key, value in node.items():
            if isinstance(value, (dict, list)):
                changed |= _walk(value, key in _PUSH_KEYS)
    elif isinstance(node, list):
        for value in node:
            if isinstance(value, (dict, list)):
                changed |= _walk(value, in_push)
    return changed


def _scrub(config: dict[str, Any]) -> bool:
    changed = False
    if isinstance(config.get("token"), str) and config["token"] != REDACTED:
        config["token"] = REDACTED
        changed = True
    auth = config.get("authentication")
    if isinstance(auth, dict) and isinstance(auth.get("credentials"), str) and auth["credentials"] != REDACTED:
        auth["credentials"] = REDACTED
        changed = True
    return changed
