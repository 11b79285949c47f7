"""Keep web pages out of the servers the product runs on loopback (the proxy, the hub's
bridge and sockets, the mock).

A page open in the user's browser can send a "simple" request (a POST with a
``text/plain`` body needs no CORS preflight) to any address, loopback included: the
server acts on it (the proxy relays it to the real agent, with the credentials it adds)
even though the page cannot read the answer. With DNS rebinding, the page's own name
comes to resolve to 127.0.0.1, the request is same-origin to the browser, and the page
reads the answer too. Two checks close both:

* ``Host`` must name this server: a loopback name or address (127.0.0.1, localhost,
  [::1]) or the address the connection came in on, with the port it came in on; or a
  name the user allowed. A rebinding page's requests carry its own name.
* A browser request (one with ``Origin``) must come from this server's own origin,
  by the same rule; ``Origin: null`` (sandboxed frames, files) never does. Requests the
  browser marks ``Sec-Fetch-Site: cross-site`` or ``same-site`` (another port on
  localhost is the same site) are refused too unless they are a top-level navigation,
  which is how the user opens a card in the address bar and which a page cannot read:
  that covers the requests that carry no ``Origin`` (an ``<img>``'s GET).

Programs (httpx, SDKs, curl, ws-agents) send no ``Origin`` and keep working. A request
with no ``Host`` (HTTP/1.0) does not come from a browser, which always sends one.
Refusals are ``403`` with a one-line body saying which header and how to allow it; a
WebSocket upgrade is refused (403, no body) before it is accepted.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

#: The names and addresses a loopback server answers for, on its own port.
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})

#: ``host`` or ``host:port`` as a Host header or an allowed name spells it: a DNS name or
#: IPv4 address, or an IPv6 address in brackets. Nothing else (no user@, no path).
_HOST = re.compile(r"(?:\[(?P<v6>[0-9A-Fa-f:.]+)\]|(?P<name>[A-Za-z0-9._-]+))(?::(?P<port>[0-9]{1,5}))?")
_ORIGIN = re.compile(r"(?P<scheme>https?)://(?P<host>[^/?#]*)")
_DEFAULT_PORT = {"http": 80, "https": 443}
#: Shown in a refusal: an attacker's header, kept short and printable.
_SHOWN = 80


def parse_host(text: str) -> tuple[str, int | None]:
    """``(name, port)`` of ``host[:port]`` (port None when absent); names lowercased,
    IPv6 without brackets. ValueError if it is not a host."""
    match = _HOST.fullmatch(text.strip())
    if match is None:
        raise ValueError(f"not a host name or address (NAME, NAME:PORT or [IPv6]:PORT): {text!r}")
    port = match["port"]
    if port is not None and not 0 < int(port) < 65536:
        raise ValueError(f"port out of range in {text!r}")
    name = (match["v6"] or match["name"]).lower()
    return name, None if port is None else int(port)


def allowed_host(text: str) -> str:
    """Check one ``--allow-host`` value (``*``, NAME or NAME:PORT); returns it as given."""
    if text.strip() != "*":
        parse_host(text)
    return text.strip()


def _shown(value: str) -> str:
    text = "".join(ch if " " <= ch <= "~" else "?" for ch in value[:_SHOWN])
    return repr(text + ("..." if len(value) > _SHOWN else ""))


class BrowserGuard:
    """ASGI middleware: ``BrowserGuard(app, allow_hosts=["box.lan", "localhost:9000"])``.

    ``allow_hosts``: more names this server answers for, each ``NAME`` (any port: a
    tunnel or a container's mapped port changes it), ``NAME:PORT``, or ``*`` (any Host,
    which gives up the guard against rebinding; an Origin must still be the server's own:
    the loopback one, an allowed name, or the Host the request names)."""

    def __init__(self, app: Any, allow_hosts: Iterable[str] = ()) -> None:
        self.app = app
        self.any_host = False
        self.allowed: set[tuple[str, int | None]] = set()
        for text in allow_hosts:
            if text.strip() == "*":
                self.any_host = True
            else:
                self.allowed.add(parse_host(text))

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] in ("http", "websocket"):
            problem = self.problem(scope)
            if problem is not None:
                await _refuse(scope, receive, send, problem)
                return
        await self.app(scope, receive, send)

    def _ours(self, name: str, port: int | None, server: Any) -> bool:
        """Whether ``name:port`` names this server, whose socket is ``server`` ((address, port) or None),
        ``*`` aside."""
        if (name, None) in self.allowed or (name, port) in self.allowed:
            return True
        own_port = server[1] if server else None
        # A Host without a port names no other server of ours (HTTP/1.1 clients written
        # by hand send just the address); a rebinding page's Host still carries its name.
        if own_port is not None and port is not None and port != own_port:
            return False
        # The address the connection came in on is ours whatever it is (a server bound
        # beyond loopback with --allow-public); a rebinding page cannot spell an address.
        return name in LOOPBACK_HOSTS or (bool(server) and name == str(server[0]).lower())

    def problem(self, scope: dict[str, Any]) -> str | None:
        """Why this request is refused (one line), or None."""
        headers: dict[bytes, list[bytes]] = {}
        for key, value in scope.get("headers") or ():
            if key in (b"host", b"origin", b"sec-fetch-site", b"sec-fetch-mode"):
                headers.setdefault(key, []).append(value)
        server = scope.get("server")
        here = _here(server)
        hosts = headers.get(b"host", [])
        if len(hosts) > 1:
            return "refused: more than one Host header"
        named: tuple[str, int | None] | None = None
        if hosts:
            host = hosts[0].decode("latin-1")
            try:
                name, port = parse_host(host)
            except ValueError:
                return f"refused: Host {_shown(host)} is not a host name"
            named = (name, port)
            if not self.any_host and not self._ours(name, port, server):
                return (
                    f"refused: this server is {here}, not Host {_shown(host)} (a guard against DNS "
                    f"rebinding); to accept that name, start it with --allow-host {name}"
                )
        origins = headers.get(b"origin", [])
        if len(origins) > 1:
            return "refused: more than one Origin header"
        if origins:
            origin = origins[0].decode("latin-1")
            if not self._same_origin(origin, server, named):
                return (
                    f"refused: a browser request from origin {_shown(origin)}: only pages of {here} "
                    "itself may call this server"
                )
            return None
        site = b"".join(headers.get(b"sec-fetch-site", [])).lower()
        mode = b"".join(headers.get(b"sec-fetch-mode", [])).lower()
        if site in (b"cross-site", b"same-site") and mode != b"navigate":
            return f"refused: a browser request from another site (Sec-Fetch-Site: {site.decode('latin-1')})"
        return None

    def _same_origin(self, origin: str, server: Any, named: tuple[str, int | None] | None) -> bool:
        """``named``: the request's Host, which under ``*`` is whatever the client said."""
        match = _ORIGIN.fullmatch(origin.strip())
        if match is None:
            return False  # "null" (a sandboxed frame, a file) and anything malformed
        try:
            name, port = parse_host(match["host"])
        except ValueError:
            return False
        default = _DEFAULT_PORT[match["scheme"]]
        if self._ours(name, default if port is None else port, server):
            return True
        # A Host without a port (behind a TLS front, say) has the scheme's default one.
        return self.any_host and named is not None and named[0] == name and named[1] in (None, port or default)


def _here(server: Any) -> str:
    if not server:
        return "a loopback server"
    host = str(server[0])
    return f"http://{'[' + host + ']' if ':' in host else host}:{server[1]}"


async def _refuse(scope: dict[str, Any], receive: Any, send: Any, problem: str) -> None:
    body = (problem + "\n").encode("utf-8")
    headers = [
        (b"content-type", b"text/plain; charset=utf-8"),
        (b"content-length", str(len(body)).encode()),
        (b"x-content-type-options", b"nosniff"),
    ]
    if scope["type"] == "http":
        await send({"type": "http.response.start", "status": 403, "headers": headers})
        await send({"type": "http.response.body", "body": body})
        return
    # Closing before accepting is answered 403. Not the denial-response extension, which
    # would carry the line: uvicorn (0.54, both WebSocket implementations) logs every such
    # answer as an error, so a page could fill stderr; and a browser shows a page nothing
    # of a failed upgrade anyway.
    await receive()  # websocket.connect
    await send({"type": "websocket.close", "code": 1008})
