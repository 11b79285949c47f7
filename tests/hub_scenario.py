"""One scenario for the hub tests: a ws-agent that streams, asks, waits at a gate, fails,
drops its socket or sends junk, depending on the first word of the message."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

SCENARIO: dict[str, Any] = {
    "name": "hub-tests",
    "card": {
        "name": "Hub Test Agent",
        "description": "Streams, asks, waits, fails and drops on demand.",
        "version": "1.0.0",
        "capabilities": {"streaming": True},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [
            {
                "id": "faults",
                "name": "Faults",
                "description": "Does what the first word says.",
                "tags": ["testing"],
                "examples": ["stream it", "ask me", "wait", "fail", "drop", "junk"],
            }
        ],
    },
    "rules": [
        {
            "when": {"text": "^stream"},
            "script": [
                {"status": "working", "message": "streaming"},
                {"chunks": {"name": "story", "texts": ["Once ", "upon ", "a time."]}},
                {"status": "completed", "message": "done"},
            ],
        },
        {
            "when": {"text": "^ask"},
            "script": [
                {"status": "working"},
                {
                    "ask": "Which city?",
                    "then": [{"artifact": {"name": "weather", "text": "sunny in {text}"}}, {"status": "completed"}],
                },
            ],
        },
        {
            "when": {"text": "^wait"},
            "script": [
                {"status": "working", "message": "waiting at the gate"},
                {"hold": "work", "until": "message", "timeout": 120},
                {"status": "completed", "message": "released"},
            ],
        },
        {
            "when": {"text": "^fail"},
            "script": [{"status": "working"}, {"error": {"code": -32603, "message": "the model is down"}}],
        },
        {
            "when": {"text": "^drop"},
            "script": [
                {"status": "working", "message": "about to drop"},
                {"hold": "drop", "timeout": 120},
                {"drop": True},
            ],
        },
        {
            "when": {"text": "^junk"},
            "script": [
                {"status": "working"},
                {"malformed": '{"jsonrpc": "2.0", "method": "task.status", '},
                {"status": "completed"},
            ],
        },
    ],
    "fallback": [{"artifact": {"name": "echo", "text": "echo: {text}"}}, {"status": "completed"}],
}


@contextlib.asynccontextmanager
async def ws_agent(url: str, name: str = "helper", **kwargs: Any) -> AsyncIterator[Any]:
    """A2A mock ws-agent in this event loop, registered before the block runs."""
    from mock_agent.ws_agent import WsAgent

    agent = WsAgent(url, name, kwargs.pop("scenario", SCENARIO), **kwargs)
    task = asyncio.ensure_future(agent.run())
    registered = asyncio.ensure_future(agent.registered.wait())
    done, _ = await asyncio.wait({task, registered}, timeout=15, return_when=asyncio.FIRST_COMPLETED)
    if registered not in done:
        registered.cancel()
        if task.done():
            task.result()  # raises what stopped it
        raise AssertionError("the ws-agent did not register")
    try:
        yield agent
    finally:
        agent.stop()
        task.cancel()
        with contextlib.suppress(BaseException):
            await task
