"""Who may use the web UI's server: the browser that opened the printed link first.

Loopback is shared by every user of the machine, so a port alone protects nothing. The
printed link carries a random token; the first request that brings it spends it and gets
a session cookie (HttpOnly, SameSite=Strict) in a redirect to the bare ``/``, so the token
leaves the address bar and the history. From then on only requests carrying that cookie
are served: the page, its scripts, and the WebSocket that starts an app process. A token
seen again (read from a process list, a shell history, a screen) opens nothing.

Before the token and the cookie, the loopback servers' browser guard
(serving.browser_guard) checks Host and Origin: a DNS-rebinding page, or a page on
another local port (the same site, so SameSite does not keep the cookie from it), is
refused even where the browser would attach the cookie.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..serving.browser_guard import BrowserGuard

#: The query parameter of the printed link.
TOKEN_PARAM = "token"
#: Shown to whoever is refused: what to do, without saying anything worth knowing.
REFUSED = (
    "refused: open the link a2a-inspect web printed; it works once, in the first browser that "
    "opens it (start a2a-inspect web again for a new one)"
)


@dataclass(frozen=True)
class Verdict:
    """``allow``; or ``redirect`` to ``location`` setting ``cookie`` (name, value); or
    refuse with a 403 and ``reason`` (one line)."""

    allow: bool = False
    location: str | None = None
    cookie: tuple[str, str] | None = None
    reason: str | None = None


class Gate:
    """The token and the session of one ``a2a-inspect web`` server on ``port``."""

    def __init__(self, port: int) -> None:
        self.token = secrets.token_urlsafe(32)
        self.port = port
        # Cookies are per host, not per port: two servers on 127.0.0.1 keep theirs apart.
        self.cookie_name = f"a2a-inspect-web-{port}"
        self._session: str | None = None
        self._guard = BrowserGuard(None)

    @property
    def spent(self) -> bool:
        return self._session is not None

    def link(self) -> str:
        return f"http://127.0.0.1:{self.port}/?{TOKEN_PARAM}={self.token}"

    def check(
        self, path: str, query: Mapping[str, str], cookies: Mapping[str, str], headers: list[tuple[bytes, bytes]]
    ) -> Verdict:
        problem = self._guard.problem({"headers": headers, "server": ("127.0.0.1", self.port)})
        if problem is not None:
            # This server has no --allow-host: the guard's advice to use it does not apply.
            return Verdict(reason=problem.split("; to accept that name")[0])
        session = cookies.get(self.cookie_name)
        if (
            self._session is not None
            and session is not None
            and hmac.compare_digest(session.encode(), self._session.encode())
        ):
            if TOKEN_PARAM in query:  # the link opened again in the same browser: clean the address
                return Verdict(location="/")
            return Verdict(allow=True)
        token = query.get(TOKEN_PARAM)
        if (
            path == "/"
            and token is not None
            and self._session is None
            and hmac.compare_digest(token.encode(), self.token.encode())
        ):
            self._session = secrets.token_urlsafe(32)
            return Verdict(location="/", cookie=(self.cookie_name, self._session))
        return Verdict(reason=REFUSED)


def cookie_attributes() -> dict[str, Any]:
    """How the session cookie is set: for this server's pages only, out of scripts' reach,
    never sent along from another site's page, gone when the browser closes."""
    return {"path": "/", "httponly": True, "samesite": "Strict"}
