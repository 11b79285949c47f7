"""An agent whose every piece of text tries to drive the terminal (issue 25).

Each string it sends is ``hostile(tag)``: a short tag naming the field (so a leak found
in the terminal's bytes points at the field it came from), then Rich/Textual markup, an
OSC 52 clipboard write, bidi controls, an OSC 8 hyperlink, CSI sequences (clear screen,
colour, cursor up) and C1 controls as code points. The fields: the card's (name,
description, version, URLs, provider, extensions, security scheme, input modes, skills),
task and context ids, status messages, artifact ids, names, descriptions and text
(sent, and streamed in chunks that split an escape sequence in two), file part names,
mime types and URIs, data part keys and values, metadata, JSON-RPC error messages and
data, a plain-text HTTP 500 body, and push notifications.

The agent speaks 0.3 JSON-RPC at ``/``; what it answers depends on the message text:

- ``boom``: a JSON-RPC error (hostile message and data);
- ``crash``: HTTP 500 with a text/plain body holding the raw escape bytes;
- anything else: a completed task carrying every kind of part.

``message/stream`` streams a task whose artifact arrives in two chunks; ``tasks/get``
fails (Task not found).
``tasks/pushNotificationConfig/set`` is accepted, and a hostile task is then POSTed to
the registered URL with the registered token.
"""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

# ----------------------------------------------------------------- the payloads

#: Clipboard write: a terminal honouring it puts "evil" on the user's clipboard.
OSC52 = "\x1b]52;c;ZXZpbA==\x07"
#: A hyperlink to http://evil.example/ over the letter L, then the link's end.
OSC8 = "\x1b]8;;http://evil.example/\x1b\\L\x1b]8;;\x1b\\"
#: Clear the screen, switch to red, move the cursor up five lines.
CSI = "\x1b[2J\x1b[31mR\x1b[5A"
#: C1 controls as code points: CSI (U+009B), OSC (U+009D) and ST (U+009C).
C1 = "\x9b7m\x9d0;t\x9c"
#: Right-to-left override, then a left-to-right isolate and its end.
BIDI = "\u202e\u2066b\u2069"
#: Markup Rich or Textual would interpret: a style, a click action, a link.
BOLD = "[bold red]x[/]"
CLICK = "[@click=app.quit]q[/]"
LINK = "[link=http://evil.example/]k[/link]"


#: A window title (OSC 0) first: a view that shows only an id's first few characters
#: still gets an escape sequence.
TITLE = "\x1b]0;P\x07"


def hostile(tag: str) -> str:
    """The text this agent puts in the field ``tag`` stands for. Markup, the OSC 52 and
    the bidi controls come early: a field cut short on screen still shows them."""
    return f"{TITLE}{tag}{BOLD}{OSC52}{BIDI}{CLICK}{OSC8}{CSI}{C1}{LINK}"


#: The fields, by tag (two letters each).
TAGS = {
    "NM": "card name",
    "DS": "card description",
    "VR": "card version",
    "DU": "documentation URL",
    "IC": "icon URL",
    "PO": "provider organization",
    "PU": "provider URL",
    "EX": "extension URI",
    "SN": "security scheme name",
    "SH": "security scheme header",
    "SD": "security scheme description",
    "SS": "security scheme name (a finding's path)",
    "ST": "security scheme type",
    "IM": "input mode",
    "PF": "preferred transport",
    "IU": "interface URL",
    "IT": "interface transport",
    "SI": "skill id",
    "SK": "skill name",
    "SX": "skill description",
    "TG": "skill tag",
    "EG": "skill example",
    "TI": "task id (sent)",
    "CX": "context id",
    "SM": "status message (sent)",
    "MK": "metadata key",
    "MV": "metadata value",
    "AI": "artifact id",
    "AN": "artifact name",
    "AD": "artifact description",
    "AT": "artifact text",
    "FN": "file name",
    "FM": "file mime type",
    "FU": "file URI",
    "DK": "data key",
    "DV": "data value",
    "DL": "data list item",
    "TS": "task id (streamed)",
    "WM": "status message (working)",
    "CI": "streamed artifact id",
    "CN": "streamed artifact name",
    "CK": "streamed artifact text",
    "DM": "status message (streamed, final)",
    "ER": "JSON-RPC error message",
    "ED": "JSON-RPC error data",
    "HB": "HTTP 500 body",
    "PS": "pushed status message",
    "PT": "pushed task id",
}

#: Byte strings that reach a terminal only if the agent's text was written as it came.
#: Textual writes OSC 52 and OSC 8 itself (copy to clipboard, links), so the payload's
#: own bytes are what is looked for, and any OSC 8 to the evil host.
LEAKS: dict[str, bytes] = {
    "OSC 0 window title": b"\x1b]0;P",
    "OSC 52 clipboard write": b"\x1b]52;c;ZXZpbA==",
    "OSC 8 hyperlink": b"\x1b]8;;http://evil.example/",
    "CSI clear screen + red": b"\x1b[2J\x1b[31mR",
    "CSI cursor up": b"R\x1b[5A",
    "C1 CSI (U+009B)": "\x9b".encode(),
    "C1 OSC (U+009D)": "\x9d".encode(),
    "C1 ST (U+009C)": "\x9c".encode(),
    "right-to-left override (U+202E)": "\u202e".encode(),
    "left-to-right isolate (U+2066)": "\u2066".encode(),
    "pop directional isolate (U+2069)": "\u2069".encode(),
}
#: A hyperlink Textual would write for interpreted ``[link=...]`` markup.
LINK_LEAK = rb"\x1b\]8;[^\x1b\x07]*;http://evil\.example"

STREAM_TASK = hostile("TS")
STREAMED_ARTIFACT = hostile("CK")
#: Where the streamed artifact's text is cut into two chunks: right after the ESC that
#: starts its OSC 52, so the sequence is whole only once the chunks are put together.
SPLIT_AT = STREAMED_ARTIFACT.index(OSC52) + 1

FILE_BYTES = base64.b64encode(b"hello").decode()


def _text_part(text: str) -> dict[str, Any]:
    return {"kind": "text", "text": text}


def _message(text: str, message_id: str) -> dict[str, Any]:
    return {"kind": "message", "role": "agent", "messageId": message_id, "parts": [_text_part(text)]}


def card(base: str) -> dict[str, Any]:
    return {
        "protocolVersion": "0.3.0",
        "name": hostile("NM"),
        "description": hostile("DS"),
        "version": hostile("VR"),
        "url": f"{base}/",
        # Not a binding: the client skips it (and says so) for the JSON-RPC one below.
        "preferredTransport": hostile("PF"),
        "additionalInterfaces": [
            {"url": f"{base}/", "transport": "JSONRPC"},
            {"url": hostile("IU"), "transport": hostile("IT")},
        ],
        "documentationUrl": hostile("DU"),
        "iconUrl": hostile("IC"),
        "provider": {"organization": hostile("PO"), "url": hostile("PU")},
        "capabilities": {"streaming": True, "pushNotifications": True, "extensions": [{"uri": hostile("EX")}]},
        "securitySchemes": {
            hostile("SN"): {"type": "apiKey", "in": "header", "name": hostile("SH"), "description": hostile("SD")},
            # Not a kind of scheme: a lint finding whose JSON path holds the name.
            hostile("SS"): {"type": hostile("ST")},
        },
        "defaultInputModes": ["text/plain", hostile("IM")],
        "defaultOutputModes": ["text/plain"],
        "skills": [
            {
                "id": hostile("SI"),
                "name": hostile("SK"),
                "description": hostile("SX"),
                "tags": [hostile("TG")],
                "examples": [hostile("EG")],
            }
        ],
    }


def sent_task() -> dict[str, Any]:
    """The answer to message/send: completed, with every kind of part."""
    return {
        "kind": "task",
        "id": hostile("TI"),
        "contextId": hostile("CX"),
        "status": {"state": "completed", "message": _message(hostile("SM"), "m-status")},
        "metadata": {hostile("MK"): hostile("MV")},
        "artifacts": [
            {
                "artifactId": hostile("AI"),
                "name": hostile("AN"),
                "description": hostile("AD"),
                "parts": [
                    _text_part(hostile("AT")),
                    {"kind": "file", "file": {"name": hostile("FN"), "mimeType": hostile("FM"), "bytes": FILE_BYTES}},
                    {"kind": "file", "file": {"name": "by-uri", "uri": hostile("FU")}},
                    {"kind": "data", "data": {hostile("DK"): hostile("DV"), "list": [hostile("DL")]}},
                ],
            }
        ],
    }


def _ok(rid: Any, result: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "result": result}


def _json(obj: Any, status: int = 200) -> Response:
    # ensure_ascii=False: the C1 and bidi characters go out as raw UTF-8, as a careless
    # agent sends them; the C0 ones (ESC, BEL) are \u001b escapes, as JSON requires.
    return Response(json.dumps(obj, ensure_ascii=False), status_code=status, media_type="application/json")


def _sse(obj: Any) -> bytes:
    return f"data: {json.dumps(obj, ensure_ascii=False)}\n\n".encode()


def _stream(rid: Any) -> StreamingResponse:
    tid, cid = STREAM_TASK, hostile("CX")
    art = {"artifactId": hostile("CI"), "name": hostile("CN")}

    async def gen() -> AsyncIterator[bytes]:
        yield _sse(_ok(rid, {"kind": "task", "id": tid, "contextId": cid, "status": {"state": "submitted"}}))
        yield _sse(
            _ok(
                rid,
                {
                    "kind": "status-update",
                    "taskId": tid,
                    "contextId": cid,
                    "final": False,
                    "status": {"state": "working", "message": _message(hostile("WM"), "m-working")},
                },
            )
        )
        for i, piece in enumerate((STREAMED_ARTIFACT[:SPLIT_AT], STREAMED_ARTIFACT[SPLIT_AT:])):
            yield _sse(
                _ok(
                    rid,
                    {
                        "kind": "artifact-update",
                        "taskId": tid,
                        "contextId": cid,
                        "artifact": {**art, "parts": [_text_part(piece)]},
                        "append": i > 0,
                        "lastChunk": i > 0,
                    },
                )
            )
        yield _sse(
            _ok(
                rid,
                {
                    "kind": "status-update",
                    "taskId": tid,
                    "contextId": cid,
                    "final": True,
                    "status": {"state": "completed", "message": _message(hostile("DM"), "m-done")},
                },
            )
        )

    return StreamingResponse(gen(), media_type="text/event-stream")


async def _push(url: str, token: str | None) -> None:
    """What the agent pushes once registered: a task with a hostile id and message."""
    body = {
        "kind": "task",
        "id": hostile("PT"),
        "contextId": hostile("CX"),
        "status": {"state": "completed", "message": _message(hostile("PS"), "m-push")},
    }
    headers = {"content-type": "application/json"}
    if token:
        headers["x-a2a-notification-token"] = token
    await asyncio.sleep(0.05)  # after the set call's answer
    async with httpx.AsyncClient() as client:
        await client.post(url, content=json.dumps(body, ensure_ascii=False).encode(), headers=headers)


def build_app() -> Starlette:
    pushes: set[asyncio.Task[None]] = set()

    async def card_endpoint(request: Request) -> Response:
        return _json(card(str(request.base_url).rstrip("/")))

    async def rpc(request: Request) -> Response:
        body = json.loads(await request.body())
        rid, method, params = body.get("id"), body.get("method"), body.get("params") or {}
        if method == "message/send":
            parts = (params.get("message") or {}).get("parts") or [{}]
            text = parts[0].get("text", "")
            if text == "boom":
                return _json(
                    {
                        "jsonrpc": "2.0",
                        "id": rid,
                        "error": {"code": -32000, "message": hostile("ER"), "data": {"detail": hostile("ED")}},
                    }
                )
            if text == "crash":
                return Response(hostile("HB").encode(), status_code=500, media_type="text/plain")
            return _json(_ok(rid, sent_task()))
        if method == "message/stream":
            return _stream(rid)
        if method == "tasks/get":
            # An error: the app names the task in the error's title ("get <id> failed").
            return _json({"jsonrpc": "2.0", "id": rid, "error": {"code": -32001, "message": "Task not found"}})
        if method == "tasks/pushNotificationConfig/set":
            config = params.get("pushNotificationConfig") or {}
            job = asyncio.create_task(_push(config.get("url", ""), config.get("token")))
            pushes.add(job)
            job.add_done_callback(pushes.discard)
            return _json(_ok(rid, params))
        return _json({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "Method not found"}})

    return Starlette(
        routes=[
            Route("/.well-known/agent-card.json", card_endpoint, methods=["GET"]),
            Route("/", rpc, methods=["POST"]),
        ]
    )
