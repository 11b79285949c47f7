"""The errors group: what an agent answers to a request it cannot take, each with the
code its version requires. The malformed requests go to a JSON-RPC endpoint as raw
bytes (the client would never send them); unknown ids go through every binding, whose
error forms (an HTTP+JSON error body, a gRPC status) the client maps to these codes."""

from __future__ import annotations

import base64
import json
import uuid
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from ..client import JsonRpcError, ProtocolError, TransportError
from ..protocol import models as m
from ..protocol import rest
from ..protocol.methods import Method
from .context import ProbeContext, error_text, quoted
from .probe import Failed, Skipped, probe

JSONRPC_SECTION = "JSON-RPC 2.0 §5.1 Error object (A2A: the JSON-RPC binding's standard errors)"


def _error_code(answer: Any) -> Any:
    if isinstance(answer, dict) and isinstance(answer.get("error"), dict):
        return answer["error"].get("code")
    return None


async def _expect_raw(
    ctx: ProbeContext, body: bytes, codes: tuple[int, ...], what: str, rpc_method: str | None = None
) -> None:
    status, answer = await ctx.post_raw(body, rpc_method=rpc_method)
    code = _error_code(answer)
    if code in codes:
        return
    want = " or ".join(str(c) for c in codes)
    if answer is None:
        raise ctx.fail(f"{what} was answered with HTTP {status} and a body that is not JSON, not error {want}")
    if code is None:
        shown = "a result" if isinstance(answer, dict) and "result" in answer else "no JSON-RPC error"
        raise ctx.fail(f"{what} was answered with {shown} (HTTP {status}), not error {want}")
    raise ctx.fail(f"{what} was answered with error {quoted(code)}, not {want}")


def _get_request(ctx: ProbeContext, **envelope: Any) -> bytes:
    assert ctx.client.dialect is not None
    method = ctx.client.dialect.methods[Method.GET]
    doc = {"jsonrpc": "2.0", "id": 1, "method": method, "params": {"id": f"a2a-inspect-check-{uuid.uuid4()}"}}
    doc.update(envelope)
    return json.dumps(doc).encode()


@probe(
    "errors.invalid-json",
    "errors",
    "a body that is not JSON is answered -32700",
    section=JSONRPC_SECTION,
    rule='-32700 Parse error: "Invalid JSON was received by the server. An error occurred on the server '
    'while parsing the JSON text."',
    bindings=("jsonrpc",),
    skips="the HTTP+JSON and gRPC bindings (no JSON-RPC envelope)",
)
async def invalid_json(ctx: ProbeContext) -> None:
    await _expect_raw(ctx, b'{"jsonrpc": "2.0", "id": 1, "method": ', (-32700,), "a request that is not JSON")


@probe(
    "errors.wrong-envelope",
    "errors",
    "a request that is not JSON-RPC 2.0 is answered -32600",
    section=JSONRPC_SECTION,
    rule='-32600 Invalid Request: "The JSON sent is not a valid Request object."',
    bindings=("jsonrpc",),
    skips="the HTTP+JSON and gRPC bindings (no JSON-RPC envelope)",
)
async def wrong_envelope(ctx: ProbeContext) -> None:
    await _expect_raw(ctx, _get_request(ctx, jsonrpc="1.0"), (-32600,), 'a request with "jsonrpc": "1.0"')


@probe(
    "errors.unknown-method",
    "errors",
    "an unknown method is answered -32601",
    section=JSONRPC_SECTION,
    rule='-32601 Method not found: "The method does not exist / is not available."',
    bindings=("jsonrpc",),
    skips="the HTTP+JSON and gRPC bindings (no method names)",
)
async def unknown_method(ctx: ProbeContext) -> None:
    await _expect_raw(
        ctx,
        _get_request(ctx, method="a2a-inspect/no-such-method"),
        (-32601,),
        "the method a2a-inspect/no-such-method",
        rpc_method="a2a-inspect/no-such-method",
    )


@probe(
    "errors.invalid-params",
    "errors",
    "a send whose message is not an object is answered -32602",
    section=JSONRPC_SECTION + '; 0.3 InvalidRequestError ("Request payload validation error")',
    rule='-32602 Invalid params: "Invalid method parameter(s)." (0.3 agents built on a2a-sdk answer '
    "params that fail the schema with -32600, which the 0.3 schema's InvalidRequestError allows)",
    bindings=("jsonrpc",),
    skips="the HTTP+JSON and gRPC bindings (no JSON-RPC envelope)",
)
async def invalid_params(ctx: ProbeContext) -> None:
    codes = (-32602, -32600) if ctx.dialect == "0.3" else (-32602,)
    assert ctx.client.dialect is not None
    method = ctx.client.dialect.methods[Method.SEND]
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": {"message": 42}}).encode()
    await _expect_raw(ctx, body, codes, f"a {method} whose message is the number 42", rpc_method=method)


@probe(
    "errors.rest-invalid-json",
    "errors",
    "an HTTP+JSON send whose body is not JSON is answered HTTP 400",
    section="1.0 HTTP+JSON/REST binding, error handling (google.rpc.Status); 0.3 HTTP+JSON/REST transport",
    rule="A request the agent cannot parse is a client error: HTTP 400; in 1.0 the body is a "
    "google.rpc.Status whose status is INVALID_ARGUMENT (the binding's mapping of -32700 and "
    "-32602, as a2a-sdk and @a2a-js/sdk write it).",
    bindings=("rest",),
    dialects=("0.3", "1.0"),
    skips="the JSON-RPC and gRPC bindings",
)
async def rest_invalid_json(ctx: ProbeContext) -> None:
    client = ctx.client
    assert client.endpoint is not None
    req = rest.encode_request(ctx.dialect, Method.SEND, ctx.params(ctx.message(ctx.options.text)), client.tenant)
    base = urlsplit(client.endpoint)
    url = urlunsplit((base.scheme, base.netloc, base.path.rstrip("/") + req.path, base.query, ""))
    headers = rest.request_headers(ctx.dialect, True, False)
    status, answer = await ctx.post_raw(b'{"message": ', url=url, headers=headers)
    if status != 400:
        raise ctx.fail(f"a send whose body is not JSON was answered with HTTP {status}, not 400")
    if ctx.dialect == "1.0":
        err = answer.get("error") if isinstance(answer, dict) else None
        state = err.get("status") if isinstance(err, dict) else None
        if state != "INVALID_ARGUMENT":
            shown = f"status {quoted(state)}" if state else "a body that is not a google.rpc.Status"
            raise ctx.fail(f"a send whose body is not JSON was answered HTTP 400 with {shown}, not INVALID_ARGUMENT")


#: A media type no agent declares: the part the content-type probe sends.
UNSUPPORTED_TYPE = "application/x-a2a-inspect-unsupported"
#: How a refusal for a part's media type may come: ContentTypeNotSupportedError (-32005;
#: HTTP 415, gRPC INVALID_ARGUMENT with its reason), or the validation error 1.0 §3.3.2
#: names for "unsupported content type" (-32602; HTTP 400; gRPC INVALID_ARGUMENT).
CONTENT_TYPE_CODES = (-32005, -32602)


def _file_part(media_type: str) -> m.FilePart:
    data = base64.b64encode(b"hello from a2a-inspect check\n").decode()
    return m.FilePart(file=m.FileContent(name="hello.bin", mime_type=media_type, bytes=data))


async def _refusal(ctx: ProbeContext, media_type: str) -> JsonRpcError | None:
    """The A2A error a message with a file part of ``media_type`` is refused with; None
    when the agent takes it (a task or a message)."""
    ctx.ignore("blocking-not-final")  # messages.blocking's
    msg = ctx.message(ctx.options.text, parts=[m.TextPart(text=ctx.options.text), _file_part(media_type)])
    try:
        await ctx.client.send(ctx.params(msg))
    except JsonRpcError as exc:
        return exc
    except (ProtocolError, TransportError) as exc:
        raise ctx.fail(f"a message with a {media_type} file was answered with {error_text(exc)}") from None
    return None


@probe(
    "errors.content-type",
    "errors",
    "a part refused for its media type is refused with -32005 (or -32602)",
    section="1.0 §3.3.2 ContentTypeNotSupportedError, §5.4 Error Code Mappings; 0.3 ContentTypeNotSupportedError",
    rule='1.0 §5.4: "All A2A-specific errors defined in Section 3.3.2 MUST be mapped to binding-specific '
    'error representations": ContentTypeNotSupportedError ("A Media Type provided in the request\'s '
    'message parts ... is not supported by the agent") is -32005, gRPC INVALID_ARGUMENT, HTTP 415 '
    "(0.3: -32005). §3.3.2 also allows a validation error (-32602, INVALID_ARGUMENT, HTTP 400) "
    "for an unsupported content type. An agent may take any media type.",
    dialects=("0.3", "1.0"),
    skips="the 0.1 draft (its schema has no content-type error); an agent that takes a part of a media "
    "type made up for the check (A2A lets it: nothing to judge); an agent that refuses the same "
    "file as text/plain too (the refusal is not about the media type)",
)
async def content_type(ctx: ProbeContext) -> None:
    refused = await _refusal(ctx, UNSUPPORTED_TYPE)
    if refused is None:
        raise Skipped(
            f"the agent takes a file part of {UNSUPPORTED_TYPE}, a type made up for the check: "
            "A2A lets an agent take any media type, so there is no refusal to judge"
        )
    if refused.code in CONTENT_TYPE_CODES:
        return
    shown = ctx.last_exchange
    # Refused, but was it the media type? The same file as text/plain tells.
    if await _refusal(ctx, "text/plain") is not None:
        raise Skipped(
            f"the agent refuses a message with a file part of any media type (text/plain too: "
            f"{error_text(refused)}): the refusal is not about the media type"
        )
    raise Failed(
        f"a file part of {UNSUPPORTED_TYPE} was refused with {error_text(refused)}, where the same "
        "file as text/plain was taken: a refusal for a media type is ContentTypeNotSupportedError "
        "(-32005) or a validation error (-32602)",
        shown,
    )
