"""A local webhook for push notifications: every POST becomes a ``Kind.PUSH`` event.

    receiver = PushReceiver(conn.session)
    url = await receiver.start()          # http://127.0.0.1:PORT/<secret>/
    config = PushNotificationConfig(url=receiver.url_for(task_id), token=receiver.issue_token(task_id))
    ...
    await receiver.stop()

The receiver listens on loopback only, on a port the OS picks, under a random path
segment (``/<secret>/``): anything else on that port is a 404, so a stray process that
finds the port cannot feed the session. Every request under the secret path is
recorded, whatever its body: the inspector is there to show what the agent sent,
including what is wrong with it. The answer is always 200 (a receiver that refused a
bad notification would hide the agent's behaviour behind its retries).

The PUSH event's ``data`` holds wire facts only (method, url, path, headers, body,
body_encoding, body_size, client); ``payload`` is the body decoded in the dialect the
agent was last spoken to in, the same rule the recording reader applies on replay, so
a replayed push decodes exactly like the live one.

A GET carrying ``validationToken`` (the URL check some agents make before using a
webhook) is answered with the token and noted in the session.

Headless: no textual import (the CLI and tests use it as is).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlsplit, urlunsplit

from ..protocol.sizes import format_size
from ..session.events import Event, Kind
from ..session.log import Session
from ..session.payloads import push_payload

if TYPE_CHECKING:
    from ..serving.runner import BackgroundServer
from .transport import body_text

#: The header agents put the config's token in (a2a-sdk, the mock).
TOKEN_HEADER = "x-a2a-notification-token"
#: Bodies above this are answered 413 and noted, not recorded whole.
MAX_BODY = 16 * 1024 * 1024

DialectSource = str | Callable[[], str | None] | None


def latest_dialect(session: Session) -> str | None:
    """The dialect of the session's latest A2A request: what the agent is spoken to in."""
    for event in reversed(session.events):
        if event.kind is Kind.REQUEST:
            name = event.data.get("dialect")
            if isinstance(name, str) and name:
                return name
    return None


def token_of(headers: dict[str, str]) -> str | None:
    """The notification token a PUSH event's headers carry, if any."""
    for name, value in headers.items():
        if name.lower() == TOKEN_HEADER:
            return value
    return None


class PushReceiver:
    """Receives push notifications for one session (one agent connection)."""

    def __init__(
        self,
        session: Session,
        *,
        dialect: DialectSource = None,
        host: str = "127.0.0.1",
        port: int = 0,
        request_timeout: float | None = None,
    ) -> None:
        """``dialect``: the connection's dialect (a name, or a callable giving it), used
        when the session holds no request yet to take it from. ``request_timeout``:
        seconds a notification may take to arrive (default: inspector.serving.deadline's)."""
        self.session = session
        self.dialect = dialect
        self.host = host
        self.port = port
        self.request_timeout = request_timeout
        self.secret = secrets.token_urlsafe(12)
        #: Tokens handed out per task (issue_token), to judge what arrives.
        self.tokens: dict[str, str] = {}
        #: PUSH events recorded by this receiver, oldest first.
        self.received: list[Event] = []
        self._server: BackgroundServer | None = None

    # ------------------------------------------------------------------ addresses

    @property
    def running(self) -> bool:
        return self._server is not None

    @property
    def url(self) -> str:
        """The base URL (ends with ``/``); valid once started."""
        if self._server is None:
            raise RuntimeError("the push receiver is not running")
        return self._at(f"/{self.secret}/")

    def url_for(self, task_id: str) -> str:
        """A URL for one task's notifications (the path names the task, for reading logs)."""
        return self._at(f"/{self.secret}/{quote(task_id, safe='')}")

    def _at(self, path: str) -> str:
        if self._server is None:
            raise RuntimeError("the push receiver is not running")
        parts = urlsplit(self._server.url)
        return urlunsplit((parts.scheme, parts.netloc, path, "", ""))

    def issue_token(self, task_id: str) -> str:
        """A fresh random token for ``task_id``'s config; remembered to check arrivals."""
        token = secrets.token_urlsafe(18)
        self.tokens[task_id] = token
        return token

    def check_token(self, event: Event) -> str:
        """'ok', 'missing', 'wrong', or 'unknown' (no token issued for the task)."""
        got = token_of(event.data.get("headers") or {})
        payload = event.payload
        task_id = getattr(payload, "task_id", None) or getattr(payload, "id", None)
        expected = self.tokens.get(task_id) if isinstance(task_id, str) else None
        if expected is None:
            if got is not None and got in self.tokens.values():
                return "ok"
            return "unknown" if self.tokens or got is None else "wrong"
        if got is None:
            return "missing"
        return "ok" if secrets.compare_digest(got, expected) else "wrong"

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> str:
        """Listen (in the running event loop); returns the base URL."""
        if self._server is None:
            from ..serving.runner import BackgroundServer

            # log_config=None: uvicorn must not reconfigure logging inside a running TUI.
            extra = {"request_timeout": self.request_timeout} if self.request_timeout else {}
            server = BackgroundServer(self._app(), host=self.host, port=self.port, log_config=None, **extra)
            try:
                await server.astart()
            except BaseException:
                # A start cut short (its connection closing meanwhile) leaves nothing listening.
                await server.astop()
                raise
            self._server = server
        return self.url

    async def stop(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            await server.astop()

    # ------------------------------------------------------------------ the app

    def _current_dialect(self) -> str | None:
        name = latest_dialect(self.session)
        if name:
            return name
        source = self.dialect
        return source() if callable(source) else source

    def record(
        self, method: str, url: str, path: str, headers: dict[str, str], raw: bytes, client: str | None = None
    ) -> Event:
        """Append one received notification to the session (public for tests and replay tools)."""
        text, encoding = body_text(raw)
        data: dict[str, Any] = {
            "method": method,
            "url": url,
            "path": path,
            "headers": headers,
            "body": text,
            "body_encoding": encoding,
            "body_size": len(raw),
        }
        if client:
            data["client"] = client
        event = self.session.append(Kind.PUSH, data, payload=push_payload(self._current_dialect(), data))
        self.received.append(event)
        return event

    def _app(self) -> Any:
        from starlette.applications import Starlette
        from starlette.requests import ClientDisconnect, Request
        from starlette.responses import PlainTextResponse, Response
        from starlette.routing import Route

        prefix = f"/{self.secret}"

        async def hook(request: Request) -> Response:
            path = request.url.path
            if path != prefix and not path.startswith(prefix + "/"):
                return PlainTextResponse("not found", status_code=404)
            validation = request.query_params.get("validationToken")
            if request.method == "GET" and validation is not None:
                self.session.append(
                    Kind.NOTE, {"text": "push receiver: answered a URL validation request", "url": str(request.url)}
                )
                return PlainTextResponse(validation)
            if request.method != "POST":
                return PlainTextResponse("POST notifications here", status_code=405)
            declared = request.headers.get("content-length")
            if declared is not None and declared.isdigit() and int(declared) > MAX_BODY:
                self.session.append(
                    Kind.NOTE,
                    {"text": f"push receiver: refused a {declared}-byte notification (limit {format_size(MAX_BODY)})"},
                )
                return PlainTextResponse("too large", status_code=413)
            chunks: list[bytes] = []
            size = 0
            try:
                async for chunk in request.stream():
                    size += len(chunk)
                    if size > MAX_BODY:
                        self.session.append(
                            Kind.NOTE, {"text": f"push receiver: refused a notification over {format_size(MAX_BODY)}"}
                        )
                        return PlainTextResponse("too large", status_code=413)
                    chunks.append(chunk)
            except ClientDisconnect:
                # Gone, or cut off for sending too slowly (mock_agent/deadline.py).
                self.session.append(
                    Kind.NOTE,
                    {
                        "text": f"push receiver: a notification broke off after "
                        f"{format_size(size)} of its body; not recorded"
                    },
                )
                return Response(status_code=408)
            headers = _raw_headers(request.scope.get("headers") or [])
            client = request.client.host if request.client else None
            self.record("POST", str(request.url), path, headers, b"".join(chunks), client)
            return Response(status_code=200)

        return Starlette(routes=[Route("/{path:path}", hook, methods=["GET", "POST", "PUT", "DELETE", "PATCH"])])


def _raw_headers(raw: list[tuple[bytes, bytes]]) -> dict[str, str]:
    out: dict[str, str] = {}
    for key, value in raw:
        name = key.decode("latin-1")
        text = value.decode("latin-1")
        out[name] = f"{out[name]}, {text}" if name in out else text
    return out
