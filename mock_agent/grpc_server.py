"""a2a-mock over gRPC: the A2AService of each dialect that has one (1.0, 0.3).

A thin adapter over the HTTP+JSON/REST path, not a third codec: the REST binding is
the proto's own HTTP transcoding, so a gRPC request is decoded to ProtoJSON, turned into
the REST request its ``google.api.http`` annotation names, and run by the same code
(``MockServer.rest_request`` / ``rest_answer``) with the same engine and task store; each
answer's ProtoJSON is parsed back into the response message. A task made over gRPC
can be fetched over JSON-RPC and the other way round.

How the scenario's forms come out over gRPC:
  A2A errors        the status of grpc_errors.py with a google.rpc.Status (ErrorInfo,
                    BadRequest) in grpc-status-details-bin, as a2a-sdk sends them;
  ``http`` faults   the step's ``grpc`` status, else what a gRPC client reports for
                    that HTTP status (grpc_errors.status_for_http), the body as message;
                    mid-stream too (a gRPC status needs no status line);
  ``drop``          the call ends UNAVAILABLE after what came before it;
  ``malformed``     a message whose bytes do not parse (a field claiming more bytes
                    than follow, then the step's text);
  heartbeats        nothing (HTTP/2 keeps the stream alive).
"""

from __future__ import annotations

import asyncio
import re
from typing import TYPE_CHECKING, Any

from inspector.protocol import grpc_codec, grpc_errors, grpc_schema, rest
from inspector.protocol.errors import JsonRpcError
from inspector.protocol.methods import Method

from . import errors
from .call import HANDLED, Call, Dropped
from .engine import HttpFault, Malformed

if TYPE_CHECKING:  # pragma: no cover
    import grpc.aio

    from .server import MockServer

_NAME = re.compile(r"tasks/(?P<id>[^/]+)(?:/pushNotificationConfigs(?:/(?P<config>[^/]+))?)?")
_QUERY_INTS = ("historyLength", "pageSize")


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def as_rest(dialect: str, method: Method, obj: dict[str, Any]) -> tuple[rest.RouteMatch, list[tuple[str, str]], Any]:
    """A gRPC request's ProtoJSON as the REST request its HTTP annotation makes of it:
    (route matched, query, body). Path fields leave the body; a GET's other fields are
    its query."""
    obj = dict(obj)
    ids: dict[str, str] = {}
    tenant = obj.pop("tenant", None) or None if dialect == "1.0" else None
    if dialect == "0.3":
        named = obj.pop("parent", None) if method in (Method.PUSH_SET, Method.PUSH_LIST) else obj.pop("name", None)
        found = _NAME.fullmatch(named) if isinstance(named, str) else None
        if found is not None:
            ids = {k: v for k, v in found.groupdict().items() if v is not None}
        elif method not in (Method.SEND, Method.STREAM, Method.EXTENDED_CARD):
            ids = {"id": ""}  # no task by that name: not found, as over REST
        if method is Method.PUSH_SET:
            obj["parent"] = named  # a2a-sdk's 0.3 REST body is the whole request
    elif method in (Method.GET, Method.CANCEL, Method.RESUBSCRIBE):
        ids["id"] = str(obj.pop("id", ""))
    elif method in (Method.PUSH_SET, Method.PUSH_GET, Method.PUSH_LIST, Method.PUSH_DELETE):
        ids["id"] = str(obj.pop("taskId", ""))
        if method in (Method.PUSH_GET, Method.PUSH_DELETE):
            ids["config"] = str(obj.pop("id", ""))
    query: list[tuple[str, str]] = []
    body: Any = None
    if method in (Method.SEND, Method.STREAM, Method.CANCEL, Method.PUSH_SET):
        body = obj
    else:
        query = [(k, _text(v)) for k, v in obj.items() if not isinstance(v, (dict, list))]
    return rest.RouteMatch(method, ids, tenant), query, body


def _serialize(message: Any) -> bytes:
    return message if isinstance(message, bytes) else message.SerializeToString()


class _Sink:
    """Where a call's answers go: stream messages straight to the client; the outcome
    (an error, a fault, a plain HTTP answer) kept for the handler to end the call with."""

    def __init__(self, context: Any, dialect: str, response: str) -> None:
        self.context = context
        self.dialect = dialect
        self.response = response
        self.outcome: JsonRpcError | HttpFault | None = None
        self.status: int | None = None  # a plain HTTP answer (the ASGI send below)
        self.body = bytearray()

    # What goes through ``send`` is an answer written for HTTP: a blocking send's
    # malformed body, the start of a dropped one.
    async def send(self, message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            self.status = message["status"]
        elif message["type"] == "http.response.body":
            self.body += message.get("body", b"")

    async def receive(self) -> dict[str, Any]:
        # The client going away cancels the handler's task, and with it the stream.
        await asyncio.get_running_loop().create_future()
        return {"type": "http.disconnect"}  # pragma: no cover - never resolves

    def error(self, err: JsonRpcError) -> None:
        self.outcome = err

    def fault(self, fault: HttpFault) -> None:
        self.outcome = fault

    async def write(self, frames: list[Any], more: bool) -> None:
        for frame in frames:
            if frame is None or isinstance(frame, (bytes, bytearray)):
                continue  # comments and heartbeats: SSE-only
            if isinstance(frame, JsonRpcError):
                self.outcome = frame  # an error event ends the stream with its status
                return
            if isinstance(frame, Malformed):
                await self.context.write(grpc_codec.garbled(frame.body))
                continue
            await self.context.write(self.message(frame))

    def message(self, obj: Any) -> Any:
        try:
            return grpc_schema.from_json(self.dialect, self.response, obj)
        except ValueError as exc:
            raise JsonRpcError(-32603, f"the mock could not encode its answer as {self.response}: {exc}") from None


class ServiceFront:
    """A gRPC server serving the A2AService of ``dialects`` in the running event loop;
    each call goes to ``_call(dialect, rpc, method, request, context)``. The live mock
    (GrpcFront) and the replay (replay_grpc.ReplayGrpc) differ only there."""

    def __init__(self, host: str, port: int, dialects: list[str], max_body: int) -> None:
        self.host = host
        self.port = port
        self.dialects = dialects
        self.max_body = max_body
        self.server: Any = None

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    async def start(self) -> None:
        import grpc

        self._codes = {c.value[0]: c for c in grpc.StatusCode}
        self.server = new_server(self.max_body)
        for dialect in self.dialects:
            add_service(self.server, dialect, lambda rpc, method, d=dialect: self._handler(d, rpc, method))
        self.port = await listen(self.server, self.host, self.port)

    async def stop(self) -> None:
        if self.server is not None:
            await self.server.stop(None)
            self.server = None

    def _handler(self, dialect: str, rpc: grpc_schema.Rpc, method: Method) -> Any:
        async def handle(request: Any, context: Any) -> Any:
            if isinstance(request, Undecodable):
                # The client's bytes are at fault, not the mock: INVALID_ARGUMENT with
                # the reason. (a2a-sdk's grpcio server answers UNKNOWN naming the parser's
                # exception class, @a2a-js/sdk INTERNAL; gRPC's code table allows both.)
                await context.abort(
                    self._codes[grpc_errors.CODES["INVALID_ARGUMENT"]],
                    f"the request is not a valid {rpc.request}: {request.reason}",
                )
            return await self._call(dialect, rpc, method, request, context)

        return handle

    async def _call(
        self, dialect: str, rpc: grpc_schema.Rpc, method: Method, request: Any, context: Any
    ) -> Any:  # pragma: no cover - each front has its own
        raise NotImplementedError


class GrpcFront(ServiceFront):
    """The gRPC server beside a MockServer's HTTP one, in the same event loop."""

    def __init__(self, mock: MockServer, host: str, port: int) -> None:
        super().__init__(host, port, mock.rest_dialects, mock.max_body)
        self.mock = mock

    # ------------------------------------------------------------------ one call

    async def _call(self, dialect: str, rpc: grpc_schema.Rpc, method: Method, request: Any, context: Any) -> Any:
        mock = self.mock
        metadata = {k: v for k, v in (context.invocation_metadata() or ()) if isinstance(v, str)}
        version = metadata.get(grpc_codec.VERSION_KEY)
        obj = grpc_schema.to_json(request)
        mock.requests.append({"binding": "grpc", "rpc": rpc.name, "metadata": metadata, "body": obj})
        sink = _Sink(context, dialect, rpc.response)
        found, query, body = as_rest(dialect, method, obj)
        try:
            req = mock.rest_request(dialect, found, rpc.path, query, body, version)
            call = Call(mock.dialects[dialect], req, b"null", sink.send, sink.receive, version)
            call.scope = {"headers": [], "scheme": "http", "server": mock.http_server, "path_params": {}}
            call.rest = True
            call.grpc = sink
            answer = await mock.rest_answer(call)
        except JsonRpcError as err:
            await self._abort_error(context, dialect, errors.for_dialect(err, "1.0"))
            return None
        except Dropped as dropped:
            if dropped.fault is not None:
                await self._abort_fault(context, dropped.fault)
            await context.abort(
                self._codes[grpc_errors.CODES["UNAVAILABLE"]], "stream dropped (the scenario's drop step)"
            )
            return None
        if answer is not HANDLED:
            return sink.message(answer)
        outcome = sink.outcome
        if isinstance(outcome, JsonRpcError):
            await self._abort_error(context, dialect, outcome)
        elif isinstance(outcome, HttpFault):
            await self._abort_fault(context, outcome)
        elif sink.status is not None and not rpc.server_streaming:
            return grpc_codec.garbled(bytes(sink.body))  # a blocking send answered with bad bytes
        return None

    async def _abort_error(self, context: Any, dialect: str, err: JsonRpcError) -> None:
        """End the call as a2a-sdk does an A2A error: the status with a google.rpc.Status
        (code, message, ErrorInfo and any other details) in grpc-status-details-bin."""
        code = grpc_errors.status_for_rpc_code(err.code)
        # 0.3 names the error in the message, as a2a-sdk's 0.3 handler does (its client
        # reads the type from there); the rich status beside it costs a 0.3 client nothing.
        text = grpc_errors.message_03(err.code, err.message) if dialect == "0.3" else err.message
        details = err.data if isinstance(err.data, list) else rest.encode_error(err)[1]["error"]["details"]
        await context.abort(
            self._codes[code],
            text,
            trailing_metadata=((grpc_errors.STATUS_DETAILS_KEY, status_bin(dialect, code, text, details)),),
        )

    async def _abort_fault(self, context: Any, fault: HttpFault) -> None:
        code = fault.grpc if fault.grpc is not None else grpc_errors.status_for_http(fault.status)
        text = fault.body.decode("utf-8", "replace").strip() or f"HTTP {fault.status}"
        await context.abort(self._codes[code], text)


class Undecodable:
    """What a request's bytes became when they do not parse as the RPC's request message:
    grpcio would end such a call UNKNOWN, naming only the exception's class."""

    __slots__ = ("reason",)

    def __init__(self, reason: str) -> None:
        self.reason = reason


def _decoder(message_class: Any) -> Any:
    from google.protobuf.message import DecodeError

    def decode(data: bytes) -> Any:
        try:
            return message_class.FromString(data)
        except (DecodeError, ValueError) as exc:
            return Undecodable(" ".join(str(exc).split())[:200] or "its bytes do not parse")

    return decode


def new_server(max_body: int) -> Any:
    """A grpc.aio server taking requests up to ``max_body`` bytes (the HTTP side's limit)."""
    import grpc

    return grpc.aio.server(options=[("grpc.max_receive_message_length", max_body), ("grpc.so_reuseport", 0)])


def add_service(server: Any, dialect: str, handler_for: Any) -> None:
    """Serve ``dialect``'s A2AService on ``server``: each RPC the inspector knows is
    answered by ``handler_for(rpc, method)`` (an async (request, context) function; for a
    streaming RPC, one that writes with ``context.write``)."""
    import grpc

    handlers = {}
    for name, rpc in grpc_schema.rpcs(dialect).items():
        method = grpc_codec.METHODS[dialect].get(name)
        if method is None:
            continue
        behaviour = handler_for(rpc, method)
        request = grpc_schema.message_class(dialect, rpc.request)
        make = grpc.unary_stream_rpc_method_handler if rpc.server_streaming else grpc.unary_unary_rpc_method_handler
        handlers[name] = make(behaviour, request_deserializer=_decoder(request), response_serializer=_serialize)
    service = f"{grpc_schema.PACKAGES[dialect]}.{grpc_schema.SERVICE}"
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(service, handlers),))


async def listen(server: grpc.aio.Server, host: str, port: int) -> int:
    """Bind ``server`` to ``host:port`` and start it; the port bound (OSError if none)."""
    try:
        bound = server.add_insecure_port(f"{host}:{port}")
    except RuntimeError as exc:  # grpcio raises when it cannot bind
        raise OSError(f"cannot listen for gRPC on {host}:{port}: {exc}") from None
    if not bound:
        raise OSError(f"cannot listen for gRPC on {host}:{port}")
    await server.start()
    return bound


def status_bin(dialect: str, code: int, text: str, details: Any) -> bytes:
    """The ``grpc-status-details-bin`` trailer: a google.rpc.Status of ``code``, ``text``
    and the ProtoJSON ``details`` the schema knows (others left out)."""
    # Any: the class is built from the schema at run time, its fields unknown to the type checker.
    status: Any = grpc_schema.message_class(dialect, "google.rpc.Status")(code=code, message=text)
    for detail in details if isinstance(details, list) else ():
        packed = _detail(dialect, detail)
        if packed is not None:
            status.details.add().Pack(packed)
    wire: bytes = status.SerializeToString()
    return wire


def _detail(dialect: str, detail: Any) -> Any:
    """A ProtoJSON detail (``{"@type": ..., ...}``) as its message, None if not one the
    schema knows."""
    if not isinstance(detail, dict) or not isinstance(detail.get("@type"), str):
        return None
    name = detail["@type"].rsplit("/", 1)[-1]
    try:
        return grpc_schema.from_json(dialect, name, {k: v for k, v in detail.items() if k != "@type"})
    except (ValueError, KeyError):
        return None
