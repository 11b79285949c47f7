"""A hostile agent: one Starlette app whose routes each misbehave in one way.

Every route is a JSON-RPC endpoint (POST /<behaviour>) speaking the 0.3 dialect, except
``/orloj`` (0.1, Orloj's framing). Tests point a client at ``<url>/<behaviour>`` with an
explicit dialect and endpoint, so no card or probe traffic gets in the way. The app
records each request's path, headers and body in ``app.state.requests``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

TASK_ID = "t-hostile"
CONTEXT_ID = "c-hostile"

#: Agent text that a careless UI would interpret: Rich markup and a terminal escape.
MARKUP_TEXT = "[bold]not bold[/bold] \x1b[31mnot red\x1b[0m [link=http://x]y[/link]"
#: Text with the Unicode line/paragraph separators inside (str.splitlines splits on them).
SEPARATOR_TEXT = "one\u2028two\u2029three"
BIG_TEXT_SIZE = 10 * 1024 * 1024
HTML_500 = (
    "<!DOCTYPE html><html><head><title>Internal Server Error</title></head><body>"
    "<h1>Oops</h1><p>" + "Something went wrong. " * 50 + "</p></body></html>"
)


def task(state: str, *, text: str | None = None, artifacts: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    status: dict[str, Any] = {"state": state}
    if text is not None:
        status["message"] = {
            "kind": "message",
            "role": "agent",
            "messageId": f"m-{state}",
            "parts": [{"kind": "text", "text": text}],
        }
    out: dict[str, Any] = {"kind": "task", "id": TASK_ID, "contextId": CONTEXT_ID, "status": status}
    if artifacts is not None:
        out["artifacts"] = artifacts
    return out


def status_update(state: str, final: bool = False, text: str | None = None) -> dict[str, Any]:
    status: dict[str, Any] = {"state": state}
    if text is not None:
        status["message"] = {
            "kind": "message",
            "role": "agent",
            "messageId": f"m-{state}",
            "parts": [{"kind": "text", "text": text}],
        }
    return {"kind": "status-update", "taskId": TASK_ID, "contextId": CONTEXT_ID, "status": status, "final": final}


def artifact_update(text: str, *, append: bool = False, last: bool = False) -> dict[str, Any]:
    return {
        "kind": "artifact-update",
        "taskId": TASK_ID,
        "contextId": CONTEXT_ID,
        "artifact": {"artifactId": "a1", "parts": [{"kind": "text", "text": text}]},
        "append": append,
        "lastChunk": last,
    }


def ok(rpc_id: Any, result: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rpc_id, "result": result}


def err(rpc_id: Any, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rpc_id, "error": {"code": code, "message": message}}


def sse(obj: Any, *, nl: str = "\n", event: str | None = None) -> bytes:
    head = f"event: {event}{nl}" if event else ""
    return f"{head}data: {json.dumps(obj)}{nl}{nl}".encode()


def json_response(obj: Any, status: int = 200) -> Response:
    return Response(json.dumps(obj), status_code=status, media_type="application/json")


def event_stream(chunks: AsyncIterator[bytes]) -> StreamingResponse:
    return StreamingResponse(chunks, media_type="text/event-stream")


async def one_chunk(chunk: bytes) -> AsyncIterator[bytes]:
    yield chunk


# --------------------------------------------------------------------- behaviours
# Each takes the request's JSON-RPC id and returns a response.

Behaviour = Callable[[Any], Any]  # -> Response, or an awaitable of one


def invalid_json(rid: Any) -> Response:
    return Response('{"jsonrpc": "2.0", "id": 1, "result": {"kind": "task", "id": ', media_type="application/json")


def wrong_state(rid: Any) -> Response:
    body = ok(rid, task("completed"))
    body["result"]["status"]["state"] = 42
    return json_response(body)


def parts_not_a_list(rid: Any) -> Response:
    body = ok(rid, task("completed", text="hi"))
    body["result"]["status"]["message"]["parts"] = "hello"
    return json_response(body)


def big_body(rid: Any) -> Response:
    art = [{"artifactId": "big", "parts": [{"kind": "text", "text": "x" * BIG_TEXT_SIZE}]}]
    return json_response(ok(rid, task("completed", artifacts=art)))


def not_utf8(rid: Any) -> Response:
    body = json.dumps(ok(rid, task("completed", text="caf__"))).encode().replace(b"caf__", b"caf\xe9")
    return Response(body, media_type="application/json")


def html_500(rid: Any) -> Response:
    return Response(HTML_500, status_code=500, media_type="text/html")


def rpc_error_500(rid: Any) -> Response:
    return json_response(err(rid, -32603, "Internal error: the model fell over"), status=500)


def markup(rid: Any) -> Response:
    return json_response(ok(rid, task("completed", text=MARKUP_TEXT)))


async def slow(rid: Any, request: Request | None = None) -> Response:
    """Answers only once the client has hung up (or after a minute): a client's timeout
    never races the answer, however loaded the machine."""
    for _ in range(600):
        if request is not None and await request.is_disconnected():
            break
        await asyncio.sleep(0.1)
    return json_response(ok(rid, task("completed")))


def stalled_body(rid: Any) -> Response:
    """The head and a few bytes, then nothing (Starlette ends the stream when the client
    hangs up; the minute is a bound, far beyond any client timeout under any load)."""

    async def gen() -> AsyncIterator[bytes]:
        yield b'{"jsonrpc": "2.0", '
        await asyncio.sleep(60.0)
        yield b'"id": 1, "result": {}}'

    return StreamingResponse(gen(), media_type="application/json")


def cut_body(rid: Any) -> Response:
    """Content-Length promises more than is sent before the connection closes."""

    async def gen() -> AsyncIterator[bytes]:
        yield b'{"jsonrpc": "2.0", '

    return StreamingResponse(gen(), media_type="application/json", headers={"content-length": "1000"})


def plain_json_for_stream(rid: Any) -> Response:
    return json_response(ok(rid, task("completed", text="no stream for you")))


def plain_error_for_stream(rid: Any) -> Response:
    return json_response(err(rid, -32001, "Task does-not-exist not found"))


def truncated_mid_event(rid: Any) -> Response:
    async def gen() -> AsyncIterator[bytes]:
        yield sse(ok(rid, task("submitted")))
        yield sse(ok(rid, status_update("working")))
        yield b'data: {"jsonrpc": "2.0", "id": 1, "result": {"kind": "status-upd'

    return event_stream(gen())


def truncated_no_final(rid: Any) -> Response:
    async def gen() -> AsyncIterator[bytes]:
        yield sse(ok(rid, task("submitted")))
        yield sse(ok(rid, status_update("working")))
        yield sse(ok(rid, artifact_update("partial")))

    return event_stream(gen())


def broken_stream(rid: Any) -> Response:
    async def gen() -> AsyncIterator[bytes]:
        yield sse(ok(rid, status_update("working")))
        await asyncio.sleep(0.05)
        raise RuntimeError("hostile agent drops the connection")

    return event_stream(gen())


def rpc_error_in_stream(rid: Any) -> Response:
    async def gen() -> AsyncIterator[bytes]:
        yield sse(ok(rid, status_update("working")))
        yield sse(err(rid, -32603, "Internal error mid-stream"))
        yield sse(ok(rid, status_update("completed", final=True)))

    return event_stream(gen())


def fancy_stream(rid: Any) -> Response:
    """Named events, heartbeats, CRLF, multi-line data and U+2028 — all legal SSE."""

    async def gen() -> AsyncIterator[bytes]:
        yield b": welcome\r\n\r\n"
        yield sse(ok(rid, task("submitted")), nl="\r\n", event="status")
        yield b": heartbeat\r\n\r\n"
        # One JSON document spread over several data lines (joined with "\n": still JSON).
        doc = json.dumps(ok(rid, artifact_update(SEPARATOR_TEXT)), indent=1, ensure_ascii=False)
        yield (
            b"event: artifact\r\n" + b"".join(b"data: " + line.encode() + b"\r\n" for line in doc.split("\n")) + b"\r\n"
        )
        yield sse(ok(rid, artifact_update(MARKUP_TEXT, append=True, last=True)), nl="\r\n")
        yield b": heartbeat\r\n\r\n"
        yield sse(ok(rid, status_update("completed", final=True)), nl="\r\n", event="status")

    return event_stream(gen())


BAD_UTF8_EVENT = (
    b'data: {"jsonrpc":"2.0","id":1,"result":{"kind":"status-update","taskId":"t","status":{"state":"caf\xe9"}}}'
)


def bad_events_stream(rid: Any) -> Response:
    """Three broken events between good ones: the stream must go on past each."""

    async def gen() -> AsyncIterator[bytes]:
        yield sse(ok(rid, status_update("working")))
        yield b'data: {"jsonrpc": "2.0", "result": \n\n'
        yield BAD_UTF8_EVENT + b"\n\n"
        bad = ok(rid, status_update("working"))
        bad["result"]["status"]["state"] = 42
        yield sse(bad)
        yield sse(ok(rid, status_update("completed", final=True)))

    return event_stream(gen())


def heartbeat_only(rid: Any) -> Response:
    """Quiet for longer than the test's read timeout, but with heartbeats in between."""

    async def gen() -> AsyncIterator[bytes]:
        yield sse(ok(rid, status_update("working")))
        # 1.6 s in all, never more than 0.1 s without a byte: a test's read timeout of 1 s
        # lies far from both, so the outcome does not depend on scheduling.
        for _ in range(16):
            await asyncio.sleep(0.1)
            yield b": heartbeat\n\n"
        yield sse(ok(rid, status_update("completed", final=True)))

    return event_stream(gen())


def silent_stream(rid: Any) -> Response:
    async def gen() -> AsyncIterator[bytes]:
        yield sse(ok(rid, status_update("working")))
        await asyncio.sleep(30)
        yield sse(ok(rid, status_update("completed", final=True)))

    return event_stream(gen())


def open_after_final(rid: Any) -> Response:
    async def gen() -> AsyncIterator[bytes]:
        yield sse(ok(rid, status_update("completed", final=True)))
        await asyncio.sleep(30)

    return event_stream(gen())


def orloj(rid: Any, task_id: Any = "a2a-task-xyz") -> Response:
    """Orloj (seed 003): ``event: status`` carrying whole 0.1 tasks, ``: heartbeat``
    comments, no ``final`` flag (the terminal state ends the stream); the task is the
    one the client named ("Client-provided task ID")."""

    async def gen() -> AsyncIterator[bytes]:
        working = {"id": task_id, "status": {"state": "working"}}
        done = {
            "id": task_id,
            "status": {
                "state": "completed",
                "message": {"role": "agent", "parts": [{"type": "text", "text": "Done."}]},
            },
            "artifacts": [],
        }
        yield sse(ok(rid, working), event="status")
        yield b": heartbeat\n\n"
        yield sse(ok(rid, done), event="status")

    return event_stream(gen())


BEHAVIOURS: dict[str, Behaviour] = {
    "invalid-json": invalid_json,
    "wrong-state": wrong_state,
    "parts-not-a-list": parts_not_a_list,
    "big-body": big_body,
    "not-utf8": not_utf8,
    "html-500": html_500,
    "rpc-error-500": rpc_error_500,
    "markup": markup,
    "slow": slow,
    "stalled-body": stalled_body,
    "cut-body": cut_body,
    "plain-json-for-stream": plain_json_for_stream,
    "plain-error-for-stream": plain_error_for_stream,
    "truncated-mid-event": truncated_mid_event,
    "truncated-no-final": truncated_no_final,
    "broken-stream": broken_stream,
    "rpc-error-in-stream": rpc_error_in_stream,
    "fancy-stream": fancy_stream,
    "bad-events-stream": bad_events_stream,
    "heartbeat-only": heartbeat_only,
    "silent-stream": silent_stream,
    "open-after-final": open_after_final,
    "orloj": orloj,
}


def build_app() -> Starlette:
    requests: list[dict[str, Any]] = []

    async def endpoint(request: Request) -> Response:
        raw = await request.body()
        requests.append({"path": request.url.path, "headers": dict(request.headers), "body": raw})
        try:
            doc = json.loads(raw)
            rid = doc.get("id")
            params = doc.get("params")
            task_id = params.get("id") if isinstance(params, dict) else None
        except (ValueError, AttributeError):
            rid = task_id = None
        behaviour = BEHAVIOURS[request.path_params["behaviour"]]
        if behaviour is slow:
            response = behaviour(rid, request)
        elif behaviour is orloj and isinstance(task_id, str):
            response = orloj(rid, task_id)
        else:
            response = behaviour(rid)
        return await response if asyncio.iscoroutine(response) else response

    app = Starlette(routes=[Route("/{behaviour}", endpoint, methods=["POST"])])
    app.state.requests = requests
    return app


# --------------------------------------------------------------------- plain agents
# Not hostile: the smallest agent speaking a chosen set of dialects, answering the way
# a2a-sdk does where it matters for detection (captures 04, 25, 50). Used by the
# discovery and call tests.


def dialect_agent(
    speaks: tuple[str, ...],
    *,
    card: dict[str, Any] | None = None,
    card_path: str = "/.well-known/agent-card.json",
    rpc_path: str = "/",
    only: tuple[str, ...] | None = None,
) -> Starlette:
    """``speaks``: dialect names. ``card``: served at ``card_path`` with ``{base}`` in
    string values replaced by the server's base URL (no card: every GET is 404).
    ``only``: wire method names to accept (Society answers only tasks/send).

    ``app.state.requests`` records every request; ``app.state.accepted`` every call that
    got past parameter validation, i.e. could have had a side effect."""
    from inspector.protocol import models as m
    from inspector.protocol.dialects import get_dialect
    from inspector.protocol.errors import ProtocolError
    from inspector.protocol.methods import Method

    requests: list[dict[str, Any]] = []
    accepted: list[str] = []
    dialects = [get_dialect(name) for name in speaks]
    done = m.Task(
        id="t-1",
        context_id="c-1",
        status=m.TaskStatus(state=m.TaskState.COMPLETED),
        artifacts=[m.Artifact(artifact_id="a-1", index=0, parts=[m.TextPart(text="hello back")])],
    )

    def fill(value: Any, base: str) -> Any:
        if isinstance(value, str):
            return value.replace("{base}", base)
        if isinstance(value, list):
            return [fill(v, base) for v in value]
        if isinstance(value, dict):
            return {k: fill(v, base) for k, v in value.items()}
        return value

    async def card_endpoint(request: Request) -> Response:
        requests.append({"path": request.url.path, "headers": dict(request.headers), "body": b""})
        return json_response(fill(card, str(request.base_url).rstrip("/")))

    async def rpc(request: Request) -> Response:
        raw = await request.body()
        requests.append({"path": request.url.path, "headers": dict(request.headers), "body": raw})
        body = json.loads(raw)
        rid, wire = body.get("id"), body.get("method")
        version = request.headers.get("a2a-version")
        if version == "1.0" and "1.0" not in speaks:
            # a 0.3 handler refusing the 1.0 header (capture 25)
            return json_response(err(rid, -32603, "A2A version '1.0' is not supported by this handler."))
        for dialect in dialects:
            method = dialect.method_for(wire)
            if method is None or (only is not None and wire not in only):
                continue
            if dialect.name == "1.0" and version != "1.0":
                return json_response(err(rid, -32009, "A2A version '0.3' is not supported"))  # capture 04
            try:
                params = dialect.decode_params(method, body.get("params"))
            except ProtocolError as exc:
                return json_response(err(rid, -32602, f"Invalid params: {exc}"))
            if method in (Method.GET, Method.CANCEL, Method.RESUBSCRIBE):
                return json_response(err(rid, -32001, f"Task {params.id} not found"))
            accepted.append(wire)
            if method is Method.STREAM:
                event = m.TaskStatusUpdateEvent(
                    task_id="t-1", context_id="c-1", final=True, status=m.TaskStatus(state=m.TaskState.COMPLETED)
                )
                return event_stream(one_chunk(sse(dialect.encode_stream_event(event, rid))))
            return json_response(dialect.encode_response(Method.SEND, done, rid))
        return json_response(err(rid, -32601, "Method not found"))

    routes = [Route(rpc_path, rpc, methods=["POST"])]
    if card is not None:
        routes.append(Route(card_path, card_endpoint, methods=["GET"]))
    app = Starlette(routes=routes)
    app.state.requests = requests
    app.state.accepted = accepted
    return app
