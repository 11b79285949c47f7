"""An agent whose every call fails with HTTP 500 and a body that says why, in one of the
shapes servers use (issue 27 item 6a): for tests/test_error_reason.py (the CLI) and
tests/test_screen_error_reason.py (the TUI).

Its card at ``/{shape}/.well-known/agent-card.json`` lists JSON-RPC and HTTP+JSON at
``/{shape}``. Under ``/by-text`` the first word of the message's text names the shape
(the TUI sends text, not URLs).
"""

from __future__ import annotations

import json

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

#: A body that means harm: markup, a window title (OSC 0), a clear screen, a bidi
#: override, then a megabyte.
HOSTILE = "[bold red]boom[/] \x1b]0;pwned\x07 \x1b[2J \u202egnp.exe " + "x" * (1 << 20)
#: What reaches a terminal only if the body was written to it as it came.
LEAKS = (b"\x1b]0;pwned", b"\x1b[2J", "\u202e".encode())

# shape: (content type, body, the reason an error must show)
SHAPES: dict[str, tuple[str, bytes, str]] = {
    "error-string": ("application/json", b'{"error": "database down"}', "database down"),
    "detail": ("application/json", b'{"detail": "model quota exhausted"}', "model quota exhausted"),
    "message": ("application/json", b'{"message": "upstream timed out", "code": 17}', "upstream timed out"),
    "google-status": (
        "application/json",
        b'{"error": {"code": 500, "message": "backend unavailable", "status": "INTERNAL"}}',
        "backend unavailable",
    ),
    "jsonrpc-error": (
        "application/json",
        b'{"jsonrpc": "2.0", "id": "other", "error": {"code": -32603, "message": "the model fell over"}}',
        "the model fell over",
    ),
    "problem": (
        "application/problem+json",
        b'{"type": "about:blank", "title": "Service Unavailable", "detail": "try again at noon"}',
        "try again at noon",
    ),
    "plain-text": (
        "text/plain",
        b"upstream connect error or disconnect\nreset reason: overflow\n",
        "upstream connect error or disconnect\nreset reason: overflow",
    ),
}


def _first_word(body: bytes) -> str:
    try:
        params = json.loads(body).get("params") or {}
        return str(params["message"]["parts"][0]["text"]).split()[0]
    except (ValueError, KeyError, IndexError, TypeError, AttributeError):
        return ""


def build_app() -> Starlette:
    async def card(request: Request) -> Response:
        base = f"{str(request.base_url).rstrip('/')}/{request.path_params['shape']}"
        return JSONResponse(
            {
                "name": "Failing Agent",
                "description": "Answers every call with HTTP 500.",
                "version": "1",
                "protocolVersion": "0.3.0",
                "url": base,
                "preferredTransport": "JSONRPC",
                "additionalInterfaces": [
                    {"url": base, "transport": "JSONRPC"},
                    {"url": base, "transport": "HTTP+JSON"},
                ],
                "capabilities": {},
                "defaultInputModes": ["text/plain"],
                "defaultOutputModes": ["text/plain"],
                "skills": [{"id": "s", "name": "s", "description": "s", "tags": ["t"]}],
            }
        )

    async def fail(request: Request) -> Response:
        shape = request.path_params["shape"]
        if shape == "by-text":
            shape = _first_word(await request.body())
        if shape == "hostile":
            return Response(json.dumps({"error": HOSTILE}), status_code=500, media_type="application/json")
        if shape not in SHAPES:  # the origin's own paths: a bare 500, as many servers answer
            return Response(b"Internal Server Error", status_code=500, media_type="text/plain")
        ctype, body, _reason = SHAPES[shape]
        return Response(body, status_code=500, media_type=ctype)

    return Starlette(
        routes=[
            Route("/{shape}/.well-known/agent-card.json", card),
            Route("/{shape}", fail, methods=["POST"]),
            Route("/{shape}/{rest:path}", fail, methods=["GET", "POST"]),
        ]
    )
