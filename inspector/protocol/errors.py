"""The errors the protocol layer raises. One type for malformed input, naming where."""

from __future__ import annotations

import copyreg
from typing import Any


def json_path(loc: tuple[Any, ...] | list[Any]) -> str:
    """``("result", "parts", 0, "text")`` -> ``$.result.parts[0].text``."""
    out = "$"
    for key in loc:
        out += f"[{key}]" if isinstance(key, int) else f".{key}"
    return out


class ProtocolError(ValueError):
    """Input that is not valid A2A: bad JSON, wrong types, missing fields, unknown tags.

    ``path`` is a JSON path into the document that was being decoded.
    """

    def __init__(self, message: str, path: str = "$") -> None:
        super().__init__(f"{path}: {message}" if path and path != "$" else message)
        self.reason = message
        self.path = path

    def at(self, prefix: str) -> ProtocolError:
        """The same error, its path re-rooted under ``prefix`` (e.g. ``$.result``)."""
        tail = self.path[1:] if self.path.startswith("$") else self.path
        return ProtocolError(self.reason, prefix + tail)


def from_validation_error(exc: Exception, root: str = "$") -> ProtocolError:
    """Turn a pydantic ValidationError into a ProtocolError naming the first bad path."""
    errors = getattr(exc, "errors", None)
    if not callable(errors):
        return ProtocolError(str(exc), root)
    first = errors(include_url=False)[0]
    # Drop pydantic's union-branch labels (e.g. 'TextPart') from the location.
    loc = [k for k in first.get("loc", ()) if not (isinstance(k, str) and k[:1].isupper())]
    path = json_path(loc)
    if root != "$":
        path = root + path[1:]
    msg = first.get("msg", "invalid")
    more = len(errors()) - 1
    if more > 0:
        msg += f" (and {more} more problem{'s' if more > 1 else ''})"
    return ProtocolError(msg, path)


#: JSON-RPC 2.0's own codes; every dialect shares them.
JSONRPC_CODES: dict[int, str] = {
    -32700: "Parse error",
    -32600: "Invalid Request",
    -32601: "Method not found",
    -32602: "Invalid params",
    -32603: "Internal error",
}


class JsonRpcError(Exception):
    """A JSON-RPC error object: one the agent sent us (client side), or one the mock is
    about to send (server side). ``code``/``message``/``data`` as on the wire."""

    #: The HTTP status of the response that carried it, once the client has seen one.
    http_status: int | None = None

    def __init__(self, code: int, message: str = "", data: Any = None) -> None:
        super().__init__(f"{code} {message}".strip())
        self.code = code
        self.message = message
        self.data = data

    def __reduce__(self) -> Any:
        # Rebuilt from its attributes, not by calling __init__ again with ``args`` (one
        # string): a subclass's own keyword-only fields survive copy and pickle too.
        # copyreg.__newobj__ is what pickle's protocol 2 itself uses; typeshed leaves it out.
        return (copyreg.__newobj__, (type(self), *self.args), self.__dict__)  # type: ignore[attr-defined]

    def to_wire(self) -> dict[str, Any]:
        out: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            out["data"] = self.data
        return out


def describe_rpc_error(exc: JsonRpcError, dialect: Any = None) -> str:
    """One line for an agent's JSON-RPC error, as the CLI and the TUI both show it: the
    code with its name (the dialect's own name first), the agent's message, the HTTP
    status when it was an error."""
    name = None
    if dialect is not None:
        name = dialect.error_name(exc.code)
    name = name or JSONRPC_CODES.get(exc.code)
    label = f"{exc.code} ({name})" if name else str(exc.code)
    reason = getattr(exc, "reason", None)
    rest_status = getattr(exc, "status", None) if hasattr(exc, "reason") else None
    if rest_status is not None or reason:
        # An HTTP+JSON error (rest.RestError): what the agent sent, and the code it maps to.
        http = getattr(exc, "http_status", None)
        grpc_code = getattr(exc, "grpc_code", None)
        # A gRPC status (grpc_codec.GrpcError) names its number beside its name.
        head = f"gRPC {grpc_code}" if grpc_code is not None else f"HTTP {http}" if http else None
        sent = " ".join(str(x) for x in (head, rest_status, reason) if x)
        text = f"agent returned error {sent} (JSON-RPC {label})"
        if exc.message and exc.message != name:
            text += f": {exc.message}"
        return text
    text = f"agent returned JSON-RPC error {label}"
    if exc.message and exc.message != name:
        text += f": {exc.message}"
    status = getattr(exc, "http_status", None)
    if status and status >= 400:
        text += f" [HTTP {status}]"
    return text
