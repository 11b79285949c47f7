"""The errors the mock answers with, worded and shaped as an a2a-sdk 1.3.0 agent words them.

The dialect codecs put ``{code, message, data}`` on the wire as given; what the message
says and what ``data`` holds is the agent's choice, and clients are tested against
real agents, so the mock copies the reference SDK: plain messages for 0.x, and for 1.0
the ``google.rpc.ErrorInfo`` list the 1.0 spec puts in ``data``.
"""

from __future__ import annotations

import json
from typing import Any

from inspector.protocol.errors import JSONRPC_CODES, JsonRpcError

#: What a2a-sdk says for each code when the handler gives no message of its own.
MESSAGES: dict[int, str] = {
    **JSONRPC_CODES,
    -32001: "Task not found",
    -32002: "Task cannot be canceled",
    -32003: "Push notifications are not supported by the agent",
    -32004: "This operation is not supported",
    -32005: "Incompatible content types",
    -32006: "Invalid agent response",
    -32007: "The agent does not support authenticated extended cards",
    -32008: "A required extension is not supported by the client",
    -32009: "This protocol version is not supported",
}

#: google.rpc.ErrorInfo reasons (a2a-sdk's A2A_ERROR_MAPPING). -32601 and -32700 get
#: no ``data`` from the SDK, so they have no entry.
REASONS: dict[int, str] = {
    -32001: "TASK_NOT_FOUND",
    -32002: "TASK_NOT_CANCELABLE",
    -32003: "PUSH_NOTIFICATION_NOT_SUPPORTED",
    -32004: "UNSUPPORTED_OPERATION",
    -32005: "CONTENT_TYPE_NOT_SUPPORTED",
    -32006: "INVALID_AGENT_RESPONSE",
    -32007: "EXTENDED_AGENT_CARD_NOT_CONFIGURED",
    -32008: "EXTENSION_SUPPORT_REQUIRED",
    -32009: "VERSION_NOT_SUPPORTED",
    -32600: "INVALID_REQUEST",
    -32602: "INVALID_PARAMS",
    -32603: "INTERNAL_ERROR",
}

ERROR_INFO = "type.googleapis.com/google.rpc.ErrorInfo"
BAD_REQUEST = "type.googleapis.com/google.rpc.BadRequest"


def error(code: int, message: str | None = None, data: Any = None) -> JsonRpcError:
    return JsonRpcError(code, message or MESSAGES.get(code, "Error"), data)


def for_dialect(err: JsonRpcError, dialect: str) -> JsonRpcError:
    """The error as ``dialect`` carries it: 1.0 wraps detail in ErrorInfo entries."""
    message = err.message or MESSAGES.get(err.code, "Error")
    if dialect != "1.0":
        if message is err.message:
            return err
        return JsonRpcError(err.code, message, err.data)
    data = err.data
    if isinstance(data, list):  # already a details list (a scenario may write one)
        return JsonRpcError(err.code, message, data)
    reason = REASONS.get(err.code)
    if reason is None:
        return JsonRpcError(err.code, message, data)
    metadata: dict[str, str] = {}
    details: list[dict[str, Any]] = []
    if isinstance(data, dict):
        # ErrorInfo.metadata is map<string, string>.
        metadata = {str(k): v if isinstance(v, str) else _text(v) for k, v in data.items()}
        if err.code == -32602 and "path" in data:
            details.append(
                {
                    "@type": BAD_REQUEST,
                    "fieldViolations": [{"field": str(data["path"]), "description": str(data.get("reason", message))}],
                }
            )
    elif data is not None:
        metadata = {"detail": _text(data)}
    return JsonRpcError(
        err.code,
        message,
        [{"@type": ERROR_INFO, "reason": reason, "domain": "a2a-protocol.org", "metadata": metadata}, *details],
    )


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def state_name(state: Any) -> str:
    """a2a-sdk names states the 1.0 way in messages, whatever the dialect."""
    value = getattr(state, "value", state)
    return "TASK_STATE_" + str(value).upper().replace("-", "_") if value != "unknown" else "TASK_STATE_UNSPECIFIED"
