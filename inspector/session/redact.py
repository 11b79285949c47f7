"""Keeping secrets out of recordings.

Recordings get shared (attached to bug reports, diffed, served by the mock), so by
default they never hold credentials. Redaction works on a copy of each event's recorded
form; the live session keeps the real values, since the user already has them.

What is replaced with ``[redacted]``:
  * headers, by name, case-insensitively, in requests, responses and push notifications:
    Authorization and Proxy-Authorization keep their scheme ("Bearer [redacted]") because
    which scheme was used is often the bug; X-API-Key, Api-Key, Cookie, Set-Cookie,
    X-A2A-Notification-Token and any names the user adds are replaced whole;
  * URL query parameters with the usual secret names (api_key, access_token, ...) and any
    user-added names, in request and push URLs;
  * push notification secrets inside JSON bodies (requests and non-streamed responses,
    since push set/get answers echo them): ``token`` and ``authentication.credentials``
    of any push notification config, whichever dialect spelled it.

A body is rewritten only when it held such a secret; every other body stays byte-exact.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from .events import Event, Kind

REDACTED = "[redacted]"

#: Headers whose value is replaced, but whose auth scheme (first word) is kept.
SCHEME_HEADERS = frozenset({"authorization", "proxy-authorization"})
#: Headers whose whole value is replaced.
SECRET_HEADERS = frozenset({"x-api-key", "api-key", "cookie", "set-cookie", "x-a2a-notification-token"})
#: Query parameters whose value is replaced.
SECRET_PARAMS = frozenset({"api_key", "apikey", "api-key", "x-api-key", "key", "access_token", "token"})

# Keys under which dialects nest a push notification config: 0.1 ``pushNotification``
# (send params), 0.2+ ``pushNotificationConfig``, 1.0 ``taskPushNotificationConfig``.
_PUSH_KEYS = frozenset({"pushNotification", "pushNotificationConfig", "taskPushNotificationConfig"})

_HEADER_KINDS = (Kind.REQUEST, Kind.RESPONSE, Kind.PUSH)


@dataclass(frozen=True)
class Redaction:
    """Which secrets to remove from recorded events. ``Redaction(enabled=False)`` records
    everything verbatim."""

    enabled: bool = True
    #: More header names (and query parameter names) to treat as secret.
    extra_names: tuple[str, ...] = ()
    _headers: frozenset[str] = field(init=False, repr=False, compare=False)
    _params: frozenset[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        extra = frozenset(n.strip().lower() for n in self.extra_names if n.strip())
        object.__setattr__(self, "_headers", (SECRET_HEADERS | extra) - SCHEME_HEADERS)
        object.__setattr__(self, "_params", SECRET_PARAMS | extra)

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
            "body_fields": ["push notification config token", "push notification config authentication.credentials"],
        }

    def event_json(self, event: Event) -> dict[str, Any]:
        """``event.to_json()`` with secrets removed; the event itself is not touched."""
        out = event.to_json()
        if not self.enabled or event.kind not in _HEADER_KINDS:
            return out
        headers = out.get("headers")
        if headers:
            out["headers"] = self.headers(headers)
        url = out.get("url")
        if isinstance(url, str) and "?" in url:
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
        if low in self._headers:
            return REDACTED
        return value

    def url(self, url: str) -> str:
        parts = urlsplit(url)
        if not parts.query:
            return url
        pairs = parse_qsl(parts.query, keep_blank_values=True)
        if not any(k.lower() in self._params for k, _ in pairs):
            return url
        pairs = [(k, REDACTED if k.lower() in self._params else v) for k, v in pairs]
        return urlunsplit(parts._replace(query=urlencode(pairs, safe="[]")))


def redact_body(body: str) -> str:
    """A JSON body with push notification secrets replaced; unchanged if it had none."""
    # Cheap test first: almost no body carries either key.
    if '"token"' not in body and '"credentials"' not in body:
        return body
    try:
        obj = json.loads(body)
    except (ValueError, RecursionError):
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

