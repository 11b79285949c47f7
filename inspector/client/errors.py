"""Failures below the protocol: the agent could not be reached, did not answer in time,
answered with an HTTP error, or broke a stream off.

JSON-RPC errors (the agent answered, with an error) and malformed A2A (ProtocolError)
come from the protocol layer unchanged; they are re-exported here so callers can catch
everything from one place.
"""

from __future__ import annotations

from ..protocol.errors import JsonRpcError, ProtocolError

__all__ = ["TransportError", "UnsupportedMethod", "JsonRpcError", "ProtocolError", "TRANSPORT_KINDS"]

#: connect: no response at all; timeout: none in time; http: a non-2xx (or unreadable)
#: response; stream: a stream that broke off or ended too early; limit: more than the
#: client accepts (a body, an event, a stream's events; see limits.Limits).
TRANSPORT_KINDS = ("connect", "timeout", "http", "stream", "limit")


class TransportError(Exception):
    """One clear line saying what went wrong on the wire; ``kind`` is one of TRANSPORT_KINDS."""

    def __init__(
        self, kind: str, message: str, *, status: int | None = None, url: str | None = None, detail: str | None = None
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        #: The HTTP status, when there was a response.
        self.status = status
        self.url = url
        #: What the error response's body says went wrong, an excerpt as the agent wrote
        #: it (error_reason.body_reason; also at the end of ``message``), or None.
        self.detail = detail


class UnsupportedMethod(Exception):
    """The chosen dialect has no such method; raised before anything is sent."""

    def __init__(self, dialect: str, method: str, text: str | None = None) -> None:
        super().__init__(text or f"the {dialect} dialect has no {method} method")
        self.dialect = dialect
        self.method = method
