"""The errors group on the gRPC binding: what an agent answers to a call it cannot take,
sent as raw bytes (the client would never build them): a request whose bytes are not the
RPC's request message, and a method the service does not have."""

from __future__ import annotations

from ..protocol import grpc_errors, grpc_schema
from .context import ProbeContext, quoted
from .probe import probe

#: Not a protobuf message: field 1 with wire type 7, which does not exist, so every
#: conforming parser stops at the first byte.
NOT_A_MESSAGE = b"\x0f\xff\xff"
NO_SUCH_METHOD = "A2AInspectCheckNoSuchMethod"
#: How a server may refuse bytes it cannot parse. INVALID_ARGUMENT is A2A's validation
#: error; INTERNAL is what gRPC's own status-code table gives a request it cannot parse
#: (grpc-js answers it); UNKNOWN is what grpcio's server answers (a2a-sdk), an exception
#: it did not map. None of them takes the call as a request.
UNPARSED = ("INVALID_ARGUMENT", "INTERNAL", "UNKNOWN")
STATUS_CODES = "gRPC status codes (doc/statuscodes.md)"


def _path(ctx: ProbeContext, rpc: str) -> str:
    return f"/{grpc_schema.PACKAGES[ctx.dialect]}.{grpc_schema.SERVICE}/{rpc}"


def _answer(code: int, message: str) -> str:
    name = grpc_errors.NAMES.get(code, str(code))
    return f"{name} {quoted(message)}" if message else name


@probe(
    "errors.grpc-unparsable",
    "errors",
    "a gRPC send whose bytes are not a request message is refused",
    section="1.0 §3.3.2 Error Handling (validation errors: gRPC INVALID_ARGUMENT); " + STATUS_CODES,
    rule='1.0 §3.3.2: "Servers MUST validate all input parameters before processing" (a validation '
    "error is gRPC INVALID_ARGUMENT); gRPC's status codes: \"Error parsing request proto | INTERNAL | "
    'Server" (grpcio servers answer UNKNOWN, their code for an exception in the server). A call whose '
    "bytes are not a SendMessageRequest is refused, never taken with OK.",
    bindings=("grpc",),
    dialects=("0.3", "1.0"),
    skips="the JSON-RPC and HTTP+JSON bindings (their forms: errors.invalid-json, "
    "errors.rest-invalid-json); the 0.1 draft (no gRPC binding)",
)
async def grpc_unparsable(ctx: ProbeContext) -> None:
    code, message = await ctx.client.grpc_raw_call(_path(ctx, "SendMessage"), NOT_A_MESSAGE)
    name = grpc_errors.NAMES.get(code)
    if name in UNPARSED:
        return
    what = "a SendMessage whose bytes are not a SendMessageRequest"
    if code == 0:
        raise ctx.fail(f"{what} was answered OK, as if it were a request")
    raise ctx.fail(f"{what} was answered {_answer(code, message)}, not {' or '.join(UNPARSED)}")


@probe(
    "errors.grpc-unknown-method",
    "errors",
    "a gRPC call of a method the service lacks is UNIMPLEMENTED",
    section=STATUS_CODES + "; 1.0 §10 gRPC Protocol Binding (the A2AService)",
    rule='gRPC\'s status codes: "Method not found at server | UNIMPLEMENTED | Server" (the gRPC library '
    "answers it itself, before any handler of the agent's).",
    bindings=("grpc",),
    dialects=("0.3", "1.0"),
    skips="the JSON-RPC and HTTP+JSON bindings (errors.unknown-method is JSON-RPC's); the 0.1 draft (no gRPC binding)",
)
async def grpc_unknown_method(ctx: ProbeContext) -> None:
    path = _path(ctx, NO_SUCH_METHOD)
    code, message = await ctx.client.grpc_raw_call(path, b"")
    if grpc_errors.NAMES.get(code) == "UNIMPLEMENTED":
        return
    what = f"the method {path}"
    if code == 0:
        raise ctx.fail(f"{what}, which the A2AService does not have, was answered OK")
    raise ctx.fail(f"{what} was answered {_answer(code, message)}, not UNIMPLEMENTED")
