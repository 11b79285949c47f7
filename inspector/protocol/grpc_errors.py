"""gRPC status codes beside the JSON-RPC error codes: one error model for every binding.

A2A 1.0 (section 5.4, and a2a-sdk 1.3.0's grpc_handler) sends an A2A error over gRPC
as a status code plus a ``google.rpc.Status`` in the ``grpc-status-details-bin``
trailer whose ``google.rpc.ErrorInfo`` (domain ``a2a-protocol.org``) names the error by
``reason``. The codes and reasons are those of the HTTP+JSON binding (rest.py): the
status *name* there is the gRPC code's name here.

Plain ints, so that nothing here imports grpc: ``grpc.StatusCode.X.value[0]`` is the int.
"""

from __future__ import annotations

from . import rest

#: google.rpc.Code, by name (google/rpc/code.proto).
CODES: dict[str, int] = {
    "OK": 0,
    "CANCELLED": 1,
    "UNKNOWN": 2,
    "INVALID_ARGUMENT": 3,
    "DEADLINE_EXCEEDED": 4,
    "NOT_FOUND": 5,
    "ALREADY_EXISTS": 6,
    "PERMISSION_DENIED": 7,
    "RESOURCE_EXHAUSTED": 8,
    "FAILED_PRECONDITION": 9,
    "ABORTED": 10,
    "OUT_OF_RANGE": 11,
    "UNIMPLEMENTED": 12,
    "INTERNAL": 13,
    "UNAVAILABLE": 14,
    "DATA_LOSS": 15,
    "UNAUTHENTICATED": 16,
}
NAMES: dict[int, str] = {v: k for k, v in CODES.items()}
#: The ErrorInfo domain of A2A errors.
DOMAIN = rest.DOMAIN
STATUS_DETAILS_KEY = "grpc-status-details-bin"

# What a gRPC client makes of an HTTP response that is not a gRPC one (grpc's
# doc/http-grpc-status-mapping.md): the mock's HTTP status faults seen over gRPC.
_FROM_HTTP = {
    400: "INTERNAL",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "UNIMPLEMENTED",
    429: "UNAVAILABLE",
    502: "UNAVAILABLE",
    503: "UNAVAILABLE",
    504: "UNAVAILABLE",
}


def code_of(name_or_int: str | int) -> int:
    """A status given by name (``NOT_FOUND``, any case) or number; ValueError if neither."""
    if isinstance(name_or_int, int) and not isinstance(name_or_int, bool):
        if name_or_int in NAMES:
            return name_or_int
        raise ValueError(f"no gRPC status {name_or_int}: codes run 0-16")
    found = CODES.get(str(name_or_int).upper())
    if found is None:
        raise ValueError(f"no gRPC status {name_or_int!r}; one of {', '.join(CODES)}")
    return found


def status_for_rpc_code(code: int) -> int:
    """The gRPC status an A2A/JSON-RPC error ``code`` is sent with (INTERNAL if unknown)."""
    return CODES[rest.error_names(code)[1]]


def reason_for_rpc_code(code: int) -> str:
    """The ErrorInfo reason naming the A2A error ``code`` (INTERNAL_ERROR if unknown)."""
    return rest.error_names(code)[2]


def rpc_code_for_status(status: int, reason: str | None, message: str | None = None) -> int:
    """The JSON-RPC code a gRPC error stands for: the ErrorInfo ``reason`` says which
    A2A error it is; without one, a 0.3 agent's message names it (message_03); failing
    both, the status alone gives the nearest code. The inverse of status_for_rpc_code
    with reason_for_rpc_code (or message_03) for every A2A error."""
    if not reason and message:
        named, _ = parse_message_03(message)
        if named is not None:
            return named
    return rest.code_for(NAMES.get(status, "UNKNOWN"), reason)


def status_for_http(http: int) -> int:
    """The status a gRPC client reports for an HTTP ``http`` response with no gRPC status."""
    return CODES[_FROM_HTTP.get(http, "UNKNOWN")]


# 0.3 over gRPC carries no rich status: a2a-sdk's 0.3 handler (and the 1.3.0 compat one)
# puts the error's class name before its message, "TaskNotFoundError: Task not found",
# and its 0.3 client reads the type back from there.
ERROR_NAMES_03: dict[int, str] = {
    -32001: "TaskNotFoundError",
    -32002: "TaskNotCancelableError",
    -32003: "PushNotificationNotSupportedError",
    -32004: "UnsupportedOperationError",
    -32005: "ContentTypeNotSupportedError",
    -32006: "InvalidAgentResponseError",
    -32007: "ExtendedAgentCardNotConfiguredError",
    -32008: "ExtensionSupportRequiredError",
    -32009: "VersionNotSupportedError",
    -32600: "InvalidRequestError",
    -32601: "MethodNotFoundError",
    -32602: "InvalidParamsError",
    -32603: "InternalError",
    -32700: "JSONParseError",
}
# The 0.3 spec's own name for -32007, which an agent built on it (not a2a-sdk 1.3.0) sends.
_CODES_03 = {
    "AuthenticatedExtendedCardNotConfiguredError": -32007,
    **{name: code for code, name in ERROR_NAMES_03.items()},
}


def message_03(code: int, message: str) -> str:
    """The status message a 0.3 agent sends for the A2A error ``code``."""
    return f"{ERROR_NAMES_03.get(code, 'InternalError')}: {message}"


def parse_message_03(text: str) -> tuple[int | None, str]:
    """A 0.3 status message -> (the JSON-RPC code its prefix names, or None; the message)."""
    name, sep, tail = text.partition(":")
    code = _CODES_03.get(name.strip()) if sep else None
    return (code, tail.lstrip()) if code is not None else (None, text)
