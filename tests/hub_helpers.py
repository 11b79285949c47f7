"""A hub on loopback in the test's own event loop, and a raw ws-agent to drive it frame by
frame (the real ``websockets`` client: what a hostile or hand-written agent sends)."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

from inspector.hub import Hub, HubLimits, HubServer

#: Generous: only stops a broken test from hanging the suite.
WAIT = 15.0

CARD = {
    "name": "helper",
    "description": "Helps with research papers",
    "version": "1.0.0",
    "capabilities": {"streaming": True},
    "skills": [
        {
            "id": "papers",
            "name": "Papers",
            "description": "Finds research papers",
            "tags": ["research", "citations"],
            "examples": ["find papers on A2A"],
        }
    ],
}


@contextlib.asynccontextmanager
async def running_hub(**kwargs: Any) -> AsyncIterator[tuple[Hub, HubServer]]:
    limits = kwargs.pop("limits", None) or HubLimits()
    sweep_every = kwargs.pop("sweep_every", None)
    request_timeout = kwargs.pop("request_timeout", None)
    hub = Hub(limits=limits, **kwargs)
    server = HubServer(hub, sweep_every=sweep_every, request_timeout=request_timeout)
    await server.start()
    try:
        yield hub, server
    finally:
        await server.stop()


async def until(check: Callable[[], Any], what: str = "the condition") -> Any:
    """Poll ``check`` until it is true (it will be: this waits for an outcome, not a race)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT
    while True:
        value = check()
        if value:
            return value
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.01)


class RawAgent:
    """One socket to the hub; frames are dicts (or raw text) in and out."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.ws: Any = None
        self._ids = 0

    async def __aenter__(self) -> RawAgent:
        from websockets.asyncio.client import connect

        self.ws = await connect(self.url, compression=None, max_size=None, ping_interval=None)
        return self

    async def __aexit__(self, *exc: Any) -> None:
        with contextlib.suppress(Exception):
            await self.ws.close()

    def next_id(self) -> int:
        self._ids += 1
        return self._ids

    async def send(self, doc: Any) -> None:
        await self.ws.send(doc if isinstance(doc, (str, bytes)) else json.dumps(doc))

    async def recv(self) -> dict[str, Any]:
        text = await asyncio.wait_for(self.ws.recv(), WAIT)
        return json.loads(text)

    async def call(self, method: str, params: Any = None) -> dict[str, Any]:
        """A request; returns its answer (skipping frames that are not it)."""
        rid = self.next_id()
        await self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        while True:
            doc = await self.recv()
            if doc.get("id") == rid and "method" not in doc:
                return doc

    async def notify(self, method: str, params: Any) -> None:
        await self.send({"jsonrpc": "2.0", "method": method, "params": params})

    async def register(self, name: str = "helper", card: Any = None) -> dict[str, Any]:
        return await self.call("agent.register", {"name": name, "card": {**(card or CARD), "name": name}})

    async def next_request(self) -> dict[str, Any]:
        """The next request the hub sends (tasks/send, tasks/sendSubscribe, tasks/cancel)."""
        while True:
            doc = await self.recv()
            if "method" in doc:
                return doc

    async def closed(self) -> tuple[int | None, str]:
        """Wait for the hub to close the socket: (code, reason)."""
        from websockets.exceptions import ConnectionClosed

        try:
            while True:
                await asyncio.wait_for(self.ws.recv(), WAIT)
        except ConnectionClosed as exc:
            rcvd = exc.rcvd
            return (rcvd.code if rcvd else None), (rcvd.reason if rcvd else "")


def text_parts(text: str) -> list[dict[str, Any]]:
    return [{"type": "text", "text": text}]
