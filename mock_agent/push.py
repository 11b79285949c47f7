"""Push notifications: POST each task update to the client's URL, loopback only.

The mock is a test fixture; a scenario or a client under test must not be able to make
it send traffic off the machine. A config whose URL is not loopback is refused when it
is set, and checked again before every delivery, unless the user started the mock
with ``allow_remote_push``.

Bodies are what each dialect's reference agent posts: the task as ``tasks/get`` would
return it (0.1, 0.3), or the update as a StreamResponse (1.0). Every dialect gets the
token as ``X-A2A-Notification-Token``; the 0.1 draft names no header, and its
PushNotificationConfig is the only place a token appears, so there is nothing else
to follow.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
from collections import deque
from typing import Any
from urllib.parse import urlsplit

from inspector.protocol import models as m
from inspector.protocol.dialects.base import Dialect
from inspector.protocol.methods import Method

TOKEN_HEADER = "X-A2A-Notification-Token"


def is_loopback_url(url: str) -> bool:
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return False
    host = parts.hostname
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        # A name could resolve anywhere; only "localhost" is taken on trust.
        return False


def refusal(url: str) -> str:
    return (
        f"a2a-mock sends push notifications to loopback addresses only, and {url!r} is not one "
        "(start the mock with --allow-remote-push to send elsewhere)"
    )


class PushSender:
    """Delivers in order, one request at a time, on the server's event loop."""

    def __init__(self, allow_remote: bool = False, timeout: float = 5.0) -> None:
        self.allow_remote = allow_remote
        self.timeout = timeout
        self._queue: deque[tuple[str, dict[str, str], bytes]] = deque()
        self._worker: asyncio.Task[None] | None = None
        self._client: Any = None
        #: (url, status or error text) for each delivery: what tests and users inspect.
        self.log: deque[tuple[str, str]] = deque(maxlen=1000)

    def allowed(self, url: str) -> bool:
        return self.allow_remote or is_loopback_url(url)

    def notify(self, dialect: Dialect, record: Any, event: Any) -> None:
        """Queue one notification per config of the task for this update."""
        if dialect.name == "1.0":
            payload = dialect.encode_event(event)
        else:
            payload = dialect.encode_result(Method.GET, record.snapshot())
        body = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        for config in record.push.values():
            self._queue.append((config.url, _headers(config), body))
        if self._worker is None or self._worker.done():
            self._worker = asyncio.get_running_loop().create_task(self._drain())

    async def _drain(self) -> None:
        import httpx

        if self._client is None:
            # trust_env=False: a proxy from the environment would carry loopback
            # traffic off the machine.
            self._client = httpx.AsyncClient(timeout=self.timeout, trust_env=False, follow_redirects=False)
        while self._queue:
            url, headers, body = self._queue.popleft()
            if not self.allowed(url):
                self.log.append((url, "refused: not loopback"))
                continue
            try:
                # Only the status matters: the receiver's body is never read (it could be
                # any size, compressed or not).
                async with self._client.stream("POST", url, content=body, headers=headers) as response:
                    self.log.append((url, str(response.status_code)))
            except Exception as exc:  # the receiver may be gone; the task goes on
                self.log.append((url, f"{type(exc).__name__}: {exc}"))

    async def aclose(self) -> None:
        if self._worker is not None and not self._worker.done():
            try:
                await asyncio.wait_for(asyncio.shield(self._worker), 2.0)
            except (TimeoutError, Exception):
                self._worker.cancel()
        if self._client is not None:
            await self._client.aclose()
            self._client = None


def _headers(config: m.PushNotificationConfig) -> dict[str, str]:
    headers = {"content-type": "application/json"}
    if config.token:
        headers[TOKEN_HEADER] = config.token
    auth = config.authentication
    if auth is not None and auth.credentials and auth.schemes:
        headers["authorization"] = f"{auth.schemes[0]} {auth.credentials}"
    return headers
