"""One request in flight, whichever binding it came by: what the server's handlers pass
between them (server.py), and what the gRPC front (grpc_server.py) hands in."""

from __future__ import annotations

from typing import Any

from inspector.protocol.dialects.base import Dialect, RpcRequest

from .engine import HttpFault

#: A handler's result when it has sent the response itself.
HANDLED = object()


class Dropped(Exception):
    """Raised to make uvicorn close the connection mid-response, as a script asked.
    ``fault``: the HTTP fault that came too late for its status line (gRPC can still
    send it as the call's status)."""

    def __init__(self, fault: HttpFault | None = None) -> None:
        super().__init__()
        self.fault = fault


class Call:
    __slots__ = ("dialect", "req", "rid", "rid_value", "send", "receive", "version", "scope", "rest", "grpc")

    def __init__(self, dialect: Dialect, req: RpcRequest, rid: bytes, send: Any, receive: Any, version: str | None):
        self.dialect = dialect
        self.req = req
        #: The request id, pre-encoded for splicing into every response frame.
        self.rid = rid
        self.rid_value = req.id
        self.send = send
        self.receive = receive
        self.version = version
        self.scope: Any = None
        #: Asked over HTTP+JSON/REST: answers and errors take that binding's form.
        self.rest = False
        #: Asked over gRPC (grpc_server.py): a REST call whose answers go to this sink.
        self.grpc: Any = None

    @property
    def base_url(self) -> str:
        scope = self.scope
        host = next((v.decode("latin-1") for k, v in scope["headers"] if k == b"host"), None)
        if host is None:
            server = scope.get("server") or ("127.0.0.1", 80)
            host = f"{server[0]}:{server[1]}"
        return f"{scope.get('scheme', 'http')}://{host}"
