"""The mock agent's ASGI app: agent cards, JSON-RPC, SSE streams, the task store.

Starlette routes the requests; the JSON-RPC endpoint is a raw ASGI callable because a
mock under load should cost less than the agent it stands in for: bodies are read
once, results are encoded by the dialect codec and framed by splicing bytes, and a
blocking send waits on one future instead of a queue.

``--dialect all`` answers each request in the dialect it was asked in: a 1.0 method
name is 1.0, ``message/*`` is 0.3, ``tasks/send*`` is 0.1, and a name several dialects
share (``tasks/get``) is answered in the dialect the task was created in.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import uuid
from collections import deque
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from inspector.protocol import models as m
from inspector.protocol import rest
from inspector.protocol.dialects import DIALECTS
from inspector.protocol.dialects.base import Dialect, RpcRequest, check_envelope
from inspector.protocol.errors import JsonRpcError, ProtocolError
from inspector.protocol.methods import Method
from inspector.safejson import loads
from inspector.serving.runner import LOOPBACK, url_at

from . import construct as new
from . import errors, framing
from .call import HANDLED as _HANDLED
from .call import Call as _Call
from .call import Dropped as _Dropped
from .endpoints import DIALECT_CHOICES as DIALECT_CHOICES
from .endpoints import REST_PREFIX as REST_PREFIX
from .engine import DONE, Canceled, Comment, Drop, Engine, HttpFault, Malformed, RpcFault, Run, now
from .loader import resolve
from .profiles import Profile, get_profile
from .push import PushSender, refusal
from .request_check import check_request, parse_timestamp
from .scenario import Scenario
from .store import DEFAULT_LIMIT, TaskRecord, TaskStore

if TYPE_CHECKING:
    from .grpc_server import GrpcFront

DEFAULT_MAX_BODY = 1024 * 1024
#: The card extension that says how the mock checks requests (strict or lenient).
MODE_EXTENSION = "urn:a2a-mock:request-validation"
_REST_JSON = {"1.0": rest.MEDIA_TYPE.encode(), "0.3": rest.JSON_TYPE.encode()}

_EVENTS = (m.Task, m.Message, m.TaskStatusUpdateEvent, m.TaskArtifactUpdateEvent)
_GONE = object()  # the client hung up
_TICK = object()  # a heartbeat is due


class _QuietDrops(logging.Filter):
    # uvicorn logs any exception that escapes the app with a traceback; an intended
    # drop is not an error, and a mock that prints tracebacks looks broken.
    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        for _ in range(8):  # the drop may be wrapped by middleware
            if exc is None:
                break
            if isinstance(exc, _Dropped):
                return False
            exc = exc.__cause__ or exc.__context__
        return True


log = logging.getLogger("a2a-mock")
_quiet = _QuietDrops()
logging.getLogger("uvicorn.error").addFilter(_quiet)


class _Endpoint:
    """Starlette treats a bound method as a request/response function; an object with
    ``__call__`` is mounted as a raw ASGI app."""

    __slots__ = ("handle",)

    def __init__(self, handle: Any) -> None:
        self.handle = handle

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await self.handle(scope, receive, send)


def _merge_card(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """``new`` into ``old``: new values win, except that two objects merge key by key and
    two equally long lists of objects item by item (a2a-sdk's agent_card_to_dict)."""
    for key, value in new.items():
        mine = old.get(key)
        if isinstance(mine, dict) and isinstance(value, dict):
            _merge_card(mine, value)
        elif (
            isinstance(mine, list)
            and isinstance(value, list)
            and len(mine) == len(value)
            and all(isinstance(a, dict) and isinstance(b, dict) for a, b in zip(mine, value, strict=True))
        ):
            for a, b in zip(mine, value, strict=True):
                _merge_card(a, b)
        else:
            old[key] = value
    return old


def _slug(name: str | None) -> str:
    return re.sub(r"[^a-z0-9]+", "-", (name or "agent").lower()).strip("-") or "agent"


class MockServer:
    """A scenario served as an A2A agent: ``.app`` is the ASGI app to run.

    ``MockAgent`` (api.py) runs one on a free port; the CLI runs one in the foreground.
    Options are those of ``MockAgent``/``a2a-mock``; ``store_limit`` is the number of
    tasks kept (``--max-tasks``), ``lenient`` turns request validation off.
    """

    def __init__(
        self,
        scenario: str | Scenario | dict[str, Any] | Any = None,
        *,
        dialect: str | None = None,
        profile: str | Profile | None = None,
        max_body: int | None = None,
        heartbeat: float | None = None,
        time_scale: float = 1.0,
        seed: int | None = None,
        allow_remote_push: bool = False,
        store_limit: int | None = None,
        lenient: bool | None = None,
        grpc_port: int | None = None,
    ) -> None:
        self.profile = get_profile(profile) if isinstance(profile, str) else profile
        if scenario is None:
            scenario = self.profile.scenario if self.profile else "echo"
        self.scenario: Scenario = resolve(scenario)
        self.dialects = self._served(dialect)
        self.dialect_name = "all" if len(self.dialects) > 1 else next(iter(self.dialects))
        #: Answers what no dialect claims, and tasks/get for unknown tasks under "all".
        self.primary = self.dialects.get("0.3") or next(iter(self.dialects.values()))
        p = self.profile
        self.max_body = max_body or (p.max_body if p else None) or self.scenario.max_body or DEFAULT_MAX_BODY
        if heartbeat is not None:
            self.heartbeat: float | None = heartbeat or None
        else:
            self.heartbeat = self.scenario.heartbeat or (p.heartbeat if p else None)
        self.heartbeat_comment = p.heartbeat_comment if p else "heartbeat"
        self.sse_event = p.sse_event.encode() if p and p.sse_event else None
        f = self.scenario.framing
        self.framer = framing.Framer(f.writes, f.split, f.line_endings, f.comments) if f else framing.DEFAULT_FRAMER
        #: Strict (the default) refuses requests the dialect's schema does not allow;
        #: lenient takes what it can (request_check.py).
        self.strict = not (lenient if lenient is not None else bool(self.scenario.lenient))
        self.store = TaskStore(store_limit or self.scenario.max_tasks or DEFAULT_LIMIT)
        self.engine = Engine(self.scenario, self.store, time_scale=time_scale, seed=seed)
        self.engine.full_task_events = bool(p and p.full_task_events)
        self.engine.listener = self._on_update
        self.push = PushSender(allow_remote=allow_remote_push)
        #: The last requests as parsed, oldest first: for tests that assert on them.
        self.requests: deque[Any] = deque(maxlen=100)
        self.rpc_paths = p.endpoints if p else ("/",)
        self.card_paths = tuple(dict.fromkeys(path for d in self.dialects.values() for path in d.card_paths))
        self.systems = {_slug(self.scenario.card.name)}
        self._cards: dict[str, bytes] = {}
        #: (host, port) of the HTTP server, for what a gRPC call's answer points at
        #: (the extended card's interfaces); whoever starts the server sets it.
        self.http_server: tuple[str, int] = (LOOPBACK, 80)
        if grpc_port is not None and not self.rest_dialects:
            raise ValueError(
                f"the {self.dialect_name} dialect has no gRPC binding (1.0 and 0.3 have one)"
                if self.profile is None
                else f"profile {self.profile.name} speaks JSON-RPC only"
            )
        #: The gRPC server (grpc_server.py), started with the app on ``grpc_port``.
        self.grpc = None if grpc_port is None else _grpc_front(self, grpc_port)
        self.app = self._build_app()

    # ------------------------------------------------------------------ setup

    def _served(self, name: str | None) -> dict[str, Dialect]:
        if self.profile is not None:
            if name not in (None, self.profile.dialect):
                raise ValueError(f"profile {self.profile.name} speaks the {self.profile.dialect} dialect only")
            return {self.profile.dialect: self.profile.codec()}
        name = name or self.scenario.dialect or "all"
        if name == "all":
            return {"1.0": DIALECTS["1.0"], "0.3": DIALECTS["0.3"], "0.1": DIALECTS["0.1"]}
        if name not in DIALECTS:
            raise ValueError(f"unknown dialect {name!r}; choose one of {', '.join(DIALECT_CHOICES)}")
        return {name: DIALECTS[name]}

    def _build_app(self) -> Starlette:
        endpoint = _Endpoint(self.handle_rpc)
        routes = [Route(path, self._card, methods=["GET"]) for path in self.card_paths]
        routes += [Route(path, endpoint, methods=["POST"]) for path in self.rpc_paths]
        if self.profile is not None and self.profile.agent_systems:
            routes += [
                Route(path, endpoint, methods=["POST"])
                for path in ("/v1/agent-systems/{system}/a2a", "/v1/agents/{system}/a2a")
            ]
        if self.rest_dialects:
            # Every verb reaches handle_rest: one the route does not take (PUT, PATCH)
            # is answered there as a google.rpc.Status, like the binding's other errors,
            # not with Starlette's plain-text 405.
            routes.append(Route(REST_PREFIX + "/{route:path}", _Endpoint(self.handle_rest)))

        @contextlib.asynccontextmanager
        async def lifespan(app: Starlette) -> AsyncIterator[None]:
            # gRPC runs in the HTTP server's event loop: one engine, one task store.
            if self.grpc is not None:
                await self.grpc.start()
            try:
                yield
            finally:
                if self.grpc is not None:
                    await self.grpc.stop()
                await self.push.aclose()

        return Starlette(routes=routes, lifespan=lifespan)

    @property
    def rest_dialects(self) -> list[str]:
        """The dialects served over HTTP+JSON/REST: 1.0 and 0.3, unless a seed profile
        (those systems speak JSON-RPC only)."""
        if self.profile is not None:
            return []
        return [name for name in ("1.0", "0.3") if name in self.dialects]

    @property
    def grpc_address(self) -> str | None:
        """``127.0.0.1:PORT`` of the gRPC server once started (None: not served)."""
        return self.grpc.address if self.grpc is not None and self.grpc.server is not None else None

    @property
    def card_path(self) -> str:
        return self.card_paths[0]

    @property
    def rpc_path(self) -> str:
        return self.rpc_paths[0]

    # ------------------------------------------------------------------ cards

    def card_for(self, base_url: str, dialect: str | None = None) -> m.AgentCard:
        """The scenario's card, pointing at this server."""
        card = self.scenario.card.model_copy(deep=True)
        url = url_at(base_url, self.rpc_path)
        served = [dialect] if dialect else list(self.dialects)
        card.url = url
        if "0.3" in served:
            card.preferred_transport = "JSONRPC"
            if card.protocol_version is None:
                card.protocol_version = "0.3.0"
        card.additional_interfaces = None
        rest_url = url_at(base_url, REST_PREFIX)
        # A gRPC interface's url is the channel's target, host:port (the 1.0 spec's
        # AgentInterface; a2a-sdk dials it as given).
        grpc_url = self.grpc_address
        card.supported_interfaces = [
            m.AgentInterface(url=where, protocol_binding=binding, protocol_version=v)
            for v in ("1.0", "0.3")
            if v in served
            for where, binding in ((url, "JSONRPC"), (rest_url, "HTTP+JSON"), (grpc_url, "GRPC"))
            if where is not None and (binding == "JSONRPC" or v in self.rest_dialects)
        ] or None
        if self.profile is None and self.scenario.mode_on_card is not False:
            # Say on the card how requests are checked: a client author reading it knows
            # whether a mistake of theirs would have been caught. (0.1 cards have no
            # extensions: their encoder leaves this out.)
            caps = card.capabilities or m.AgentCapabilities()
            caps.extensions = [*(caps.extensions or []), self.mode_extension()]
            card.capabilities = caps
        return card

    def mode_extension(self) -> m.AgentExtension:
        mode = "strict" if self.strict else "lenient"
        what = (
            "refuses requests its dialect's schema does not allow (a2a-mock --lenient accepts them)"
            if self.strict
            else "accepts requests its dialect's schema does not allow (started with --lenient)"
        )
        return m.AgentExtension(
            uri=MODE_EXTENSION,
            description=f"a2a-mock request validation: {mode}; it {what}",
            required=False,
            params={"mode": mode},
        )

    def encoded_card(self, base_url: str) -> bytes:
        cached = self._cards.get(base_url)
        if cached is not None:
            return cached
        card = self.card_for(base_url)
        merged: dict[str, Any] = {}
        # Oldest first, so the newer spelling wins a value both have; objects merge key by
        # key, as a2a-sdk merges its compat card, so that 0.3's stateTransitionHistory
        # survives next to 1.0's capabilities and a security scheme keeps 0.3's
        # {type, scheme} next to 1.0's httpAuthSecurityScheme (readable by both).
        for name in ("0.1", "0.3", "1.0"):
            if name in self.dialects:
                _merge_card(merged, self.dialects[name].encode_card(card))
        if self.profile is not None and self.profile.shape_card is not None:
            merged = self.profile.shape_card(merged)
        body = self._cards[base_url] = framing.dumps(merged)
        return body

    async def _card(self, request: Request) -> Response:
        return Response(self.encoded_card(str(request.base_url)), media_type="application/json")

    # ------------------------------------------------------------------ JSON-RPC

    async def handle_rpc(self, scope: Any, receive: Any, send: Any) -> None:
        version, length = _rpc_headers(scope)
        # Until the body is read, the A2A-Version header is all that says the dialect.
        dialect = self.dialects.get("1.0") if version == "1.0" else None
        dialect = dialect or self.primary
        obj = await self._read_json(receive, send, dialect, length)
        if obj is _HANDLED:
            return
        notify = (
            isinstance(obj, dict)
            and "id" not in obj
            and obj.get("jsonrpc") == "2.0"
            and isinstance(obj.get("method"), str)
        )
        rid = obj.get("id") if isinstance(obj, dict) else None
        if not isinstance(rid, (str, int)) or isinstance(rid, bool):
            rid = None
        try:
            dialect = self._pick(obj, version)
            req = self._decode(dialect, obj, version, scope)
        except JsonRpcError as err:
            await self._refuse(send, dialect, err, rid, notify)
            return
        call = _Call(dialect, req, framing.id_json(rid), send, receive, version)
        call.scope = scope
        try:
            result = await self._dispatch(call, notify)
        except JsonRpcError as err:
            if not notify and req.method.streams and dialect.name == "0.3":
                # a2a-sdk answers a 0.3 stream request's error as an SSE event.
                await self._sse_error(call, err)
            else:
                await self._refuse(send, dialect, err, rid, notify)
            return
        if result is _HANDLED:
            return
        if notify:
            await self._no_content(send)
            return
        try:
            encoded = dialect.encode_result(req.method, result)
            if self.profile is not None and self.profile.shape_task is not None and type(result) is m.Task:
                encoded = self.profile.shape_task(encoded)
            body = framing.result_envelope(call.rid, framing.dumps(encoded))
        except Exception as exc:  # MemoryError included: an answer, not a traceback
            await self._error(send, dialect, self._unsent(exc, "answer"), rid)
            return
        await _send_body(send, 200, body)

    async def _read_json(self, receive: Any, send: Any, dialect: Dialect, length: int | None) -> Any:
        """The request's body as parsed JSON, or _HANDLED once the client has had its
        answer: a body too large, cut off, not JSON (or nested too deeply), a batch."""
        if length is not None and length > self.max_body:
            await self._too_large(send, dialect, length)
            return _HANDLED
        body = await self._read(receive, send, dialect)
        if body is None:
            return _HANDLED
        try:
            obj = loads(body)
        except ValueError as exc:  # not JSON, or nested too deeply (safejson.MAX_JSON_DEPTH)
            await self._error(send, dialect, self._recoded(JsonRpcError(-32700, str(exc)), None), None)
            return _HANDLED
        self.requests.append(obj)
        if isinstance(obj, list):
            await self._error(
                send, dialect, self._recoded(errors.error(-32600, "Batch requests are not supported"), None), None
            )
            return _HANDLED
        return obj

    def _decode(self, dialect: Dialect, obj: Any, version: str | None, scope: Any) -> RpcRequest:
        """``obj`` as a request of ``dialect``, checked as strictly as the mock is set to;
        raises the JsonRpcError to answer with."""
        wire = obj.get("method") if isinstance(obj, dict) else None
        wire = wire if isinstance(wire, str) else None
        try:
            # The envelope before anything else: a request that is not one is -32600,
            # whatever its version header or params (JSON-RPC 2.0; a2a-sdk answers so).
            check_envelope(obj)
        except JsonRpcError as err:
            raise self._recoded(self._shaped(err), None) from None
        method = dialect.method_for(wire) if wire is not None else None
        try:
            self._check_version(dialect, obj, version)
        except JsonRpcError as err:
            raise self._recoded(err, method) from None
        try:
            obj = check_request(dialect, obj, strict=self.strict)
            req = dialect.decode_request(obj)
        except JsonRpcError as err:
            raise self._recoded(self._shaped(err, method=wire), method) from None
        system = scope.get("path_params", {}).get("system")
        if system is not None and system not in self.systems:
            raise self.fail(-32003, data={"agent_system": system})
        return req

    async def _refuse(self, send: Any, dialect: Dialect, err: JsonRpcError, rid: Any, notify: bool) -> None:
        # A notification gets no body, not even an error's.
        if notify:
            await self._no_content(send)
        else:
            await self._error(send, dialect, err, rid)

    # ------------------------------------------------------------------ HTTP+JSON/REST

    async def handle_rest(self, scope: Any, receive: Any, send: Any) -> None:
        """One HTTP+JSON/REST request: the route says the method, the path and query
        the ids, the body the rest; the answer is the dialect's ProtoJSON (see
        inspector/protocol/rest.py), errors are google.rpc.Status bodies."""
        version, length = _rpc_headers(scope)
        path = scope["path"][len(REST_PREFIX) :] or "/"
        served = self.rest_dialects
        name = "0.3" if path.startswith("/v1/") and "0.3" in served else "1.0" if "1.0" in served else None
        if name is None:
            await self._rest_error(send, errors.error(-32601, f"Not found: {REST_PREFIX}{path}"))
            return
        dialect = self.dialects[name]
        verb = scope["method"]
        found = rest.match_route(name, verb, path)
        if found is None:
            await self._rest_error(send, errors.error(-32601, f"Not found: {verb} {REST_PREFIX}{path}"))
            return
        if isinstance(found, str):
            await self._rest_error(
                send, errors.error(-32601, f"Method {verb} not allowed on {REST_PREFIX}{path}"), status=405
            )
            return
        if length is not None and length > self.max_body:
            await self._rest_too_large(send, length)
            return
        body = await self._read(receive, send, dialect, rest_form=True)
        if body is None:
            return
        try:
            obj = None
            if body.strip():
                try:
                    obj = loads(body)
                except ValueError as exc:
                    raise errors.error(-32600, f"Failed to load JSON: {exc}") from None
            query = _query_pairs(scope.get("query_string", b""))
            self.requests.append({"binding": "rest", "route": f"{verb} {path}", "query": dict(query), "body": obj})
            req = self.rest_request(name, found, f"{verb} {path}", query, obj, version)
        except JsonRpcError as err:
            await self._rest_error(send, self._shaped(err))
            return
        call = _Call(dialect, req, b"null", send, receive, version)
        call.scope = scope
        call.rest = True
        try:
            encoded = await self.rest_answer(call)
        except JsonRpcError as err:
            await self._rest_error(send, self._shaped(err))
            return
        if encoded is not _HANDLED:
            try:
                body = framing.dumps(encoded)
            except Exception as exc:  # MemoryError included: an answer, not a traceback
                await self._rest_error(send, self._unsent(exc, "answer"))
                return
            await _send_body(send, 200, body, _REST_JSON[name])

    def rest_request(
        self, name: str, found: rest.RouteMatch, route: str, query: list[tuple[str, str]], obj: Any, version: str | None
    ) -> RpcRequest:
        """A REST request (the route matched, its query and parsed body) as the request
        to dispatch; raises the JsonRpcError to answer with. gRPC requests come here too,
        as the REST request their proto's HTTP annotation makes of them."""
        try:
            return self._rest_request(name, found, route, query, obj, version)
        except JsonRpcError as err:
            raise self._recoded(err, found.method) from None

    def _rest_request(
        self, name: str, found: rest.RouteMatch, route: str, query: list[tuple[str, str]], obj: Any, version: str | None
    ) -> RpcRequest:
        dialect = self.dialects[name]
        if name == "1.0" and version != "1.0":
            # As a2a-sdk 1.3.0 answers (wire capture 43).
            raise errors.error(
                -32009, f"A2A version '{version or '0.3'}' is not supported by this handler. Expected version '1.0'."
            )
        if name == "1.0":
            # Strict mode checks a 1.0 request against the 1.0 schema, as over JSON-RPC:
            # the REST request's parts are the JSON-RPC params' fields (both are the
            # proto's JSON), so the same check and the same field paths serve.
            params = _jsonrpc_params(found, query, obj)
            if params is not None:
                check_request(
                    dialect,
                    {"jsonrpc": "2.0", "id": 0, "method": dialect.wire_method(found.method), "params": params},
                    strict=self.strict,
                )
        try:
            params = rest.decode_request(name, found, query, obj)
        except ProtocolError as exc:
            raise errors.error(-32602, f"Invalid params: {exc}", {"path": exc.path, "reason": exc.reason}) from None
        return RpcRequest(found.method, params, None, route)

    async def rest_answer(self, call: _Call) -> Any:
        """Run a REST (or gRPC) call: the result's ProtoJSON, or _HANDLED when the call
        has had its answer (a stream; a fault). Raises the JsonRpcError to answer with."""
        result = await self._dispatch(call, False)
        if result is _HANDLED:
            return _HANDLED
        return rest.encode_result(call.dialect.name, call.req.method, result) if result is not None else {}

    def _rest_frame(self, call: _Call, item: Any) -> Any:
        kind = type(item)
        if call.grpc is not None:
            # gRPC's sink takes the event's ProtoJSON, the error, the bad bytes.
            if kind in _EVENTS:
                return rest.encode_event(call.dialect.name, item)
            if kind is RpcFault:
                return errors.for_dialect(self._shaped(item.error), "1.0")
            return item if kind is Malformed else None
        if kind in _EVENTS:
            return self.framer.data(framing.dumps(rest.encode_event(call.dialect.name, item)))
        if kind is Comment:
            return self.framer.comment(item.text)
        if kind is Malformed:
            return self.framer.data(item.body)
        if kind is RpcFault:
            # a2a-sdk sends an error after the stream has started as an "error" event.
            _status, body = rest.encode_error(errors.for_dialect(self._shaped(item.error), "1.0"))
            return self.framer.data(framing.dumps(body), b"error")
        raise TypeError(f"cannot frame {item!r}")  # pragma: no cover

    async def _http_fault(self, call: _Call, fault: HttpFault) -> None:
        if call.grpc is not None:
            call.grpc.fault(fault)
            return
        await _send_body(
            call.send,
            fault.status,
            fault.body,
            fault.content_type.encode("latin-1"),
            [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in fault.headers.items()],
        )

    async def _binding_error(self, call: _Call, err: JsonRpcError) -> None:
        if call.grpc is not None:
            call.grpc.error(errors.for_dialect(err, "1.0"))
            return
        await self._rest_error(call.send, err)

    async def _rest_error(self, send: Any, err: JsonRpcError, status: int | None = None) -> None:
        http, body = rest.encode_error(errors.for_dialect(err, "1.0"))
        if status is not None:
            # The Status's code is the HTTP status it came with (405 said 404 in its body).
            body["error"]["code"] = http = status
        await _send_body(send, http, framing.dumps(body))

    async def _rest_too_large(self, send: Any, size: int) -> None:
        err = errors.error(
            -32600,
            "Request payload too large",
            {"reason": f"body of {size} bytes exceeds the limit of {self.max_body} bytes"},
        )
        _status, body = rest.encode_error(errors.for_dialect(err, "1.0"))
        await _send_body(send, 413, framing.dumps(body), extra=[(b"connection", b"close")])

    def _pick(self, obj: Any, version: str | None) -> Dialect:
        dialects = self.dialects
        if len(dialects) == 1:
            return self.primary
        wire = obj.get("method") if isinstance(obj, dict) else None
        if not isinstance(wire, str):
            return dialects["1.0"] if version == "1.0" else self.primary
        hits = [d for d in dialects.values() if d.method_for(wire) is not None]
        if len(hits) == 1:
            return hits[0]
        if not hits:
            return dialects["1.0"] if version == "1.0" else self.primary
        params = obj.get("params")
        task_id = params.get("id") if isinstance(params, dict) else None
        record = self.store.get(task_id) if isinstance(task_id, str) else None
        if record is not None and record.dialect in (d.name for d in hits):
            return dialects[record.dialect]
        return self.primary if self.primary in hits else hits[0]

    def _check_version(self, dialect: Dialect, obj: Any, version: str | None) -> None:
        # a2a-sdk 1.3.0 checks A2A-Version per handler: a 1.0 method without the header
        # is -32009, a 0.3 method with "1.0" is -32603 (wire captures 04 and 25).
        wire = obj.get("method") if isinstance(obj, dict) else None
        if not isinstance(wire, str) or dialect.method_for(wire) is None:
            return
        if dialect.name == "1.0" and version != "1.0":
            raise errors.error(
                -32009, f"A2A version '{version or '0.3'}' is not supported by this handler. Expected version '1.0'."
            )
        if dialect.name == "0.3" and version == "1.0":
            raise errors.error(-32603, "A2A version '1.0' is not supported by this handler. Expected version '0.3'.")

    def fail(
        self, code: int, message: str | None = None, data: Any = None, *, task_id: str | None = None
    ) -> JsonRpcError:
        return self._shaped(errors.error(code, message, data), task_id=task_id)

    def _shaped(self, err: JsonRpcError, *, method: str | None = None, task_id: str | None = None) -> JsonRpcError:
        return self.profile.error(err, method=method, task_id=task_id) if self.profile else err

    def _recoded(self, err: JsonRpcError, method: Method | None) -> JsonRpcError:
        """``err`` as the scenario's ``recode`` says this agent answers it (a wrong code,
        on purpose), else as it is."""
        for rule in self.scenario.recode:
            if rule.code != err.code:
                continue
            if rule.methods is None or (method is not None and method.value in rule.methods):
                spec = rule.as_
                return errors.error(spec.code, spec.message, spec.data)
        return err

    async def _dispatch(self, call: _Call, notify: bool) -> Any:
        try:
            return await self._dispatch_method(call, notify)
        except JsonRpcError as err:
            raise self._recoded(err, call.req.method) from None

    async def _dispatch_method(self, call: _Call, notify: bool) -> Any:
        method = call.req.method
        if method is Method.SEND or method is Method.STREAM:
            return await self._on_send(call, notify)
        if method is Method.GET:
            params = call.req.params
            return self._task(params.id).snapshot(params.history_length)
        if method is Method.CANCEL:
            return self._on_cancel(call.req.params.id)
        if method is Method.RESUBSCRIBE:
            return await self._on_resubscribe(call)
        if method is Method.LIST:
            return self._on_list(call.req.params, call.dialect.name)
        if method is Method.EXTENDED_CARD:
            return self._on_extended_card(call)
        return self._on_push(call)

    # ------------------------------------------------------------------ send / stream

    def _task(self, task_id: str) -> TaskRecord:
        record = self.store.get(task_id)
        if record is None:
            raise self.fail(-32001, data=None, task_id=task_id)
        return record

    def _record_for(self, dialect: Dialect, params: m.SendParams) -> TaskRecord:
        msg = params.message
        task_id = msg.task_id
        if task_id:
            record = self.store.get(task_id)
            if record is None:
                if dialect.name != "0.1":
                    raise self.fail(-32001, f"Task {task_id} not found", task_id=task_id)
                # 0.1 clients pick the task id themselves.
                return self._create(dialect, params, task_id)
            if record.run is not None:
                if record.follow_up is not None:
                    return record  # held until a follow-up message: this one
                raise self.fail(-32004, f"Task {task_id} is still working on the previous message")
            if record.terminal and dialect.name != "0.1":
                raise self.fail(-32004, f"Task {task_id} is in terminal state: {errors.state_name(record.state)}")
            return record
        return self._create(dialect, params, str(uuid.uuid4()))

    def _create(self, dialect: Dialect, params: m.SendParams, task_id: str) -> TaskRecord:
        metadata = None
        if self.profile is not None and self.profile.task_metadata is not None:
            metadata = self.profile.task_metadata(params, self.scenario.card)
        return self.store.create(task_id, params.message.context_id or str(uuid.uuid4()), dialect.name, metadata)

    async def _on_send(self, call: _Call, notify: bool) -> Any:
        dialect = call.dialect
        params: m.SendParams = call.req.params
        record = self._record_for(dialect, params)
        msg = params.message
        msg.task_id = record.task.id
        msg.context_id = record.task.context_id
        if msg.message_id is None and dialect.name != "0.1":
            msg.message_id = str(uuid.uuid4())
        conf = params.configuration
        if conf is not None and conf.push_notification_config is not None and self._push_supported():
            self._add_push(record, conf.push_notification_config, "$.params.configuration.pushNotificationConfig")
        stream = call.req.method is Method.STREAM
        method = "stream" if stream else "send"
        if record.run is not None:
            return await self._follow_up(call, record, msg, method, params, notify)
        run = self.engine.begin_turn(record, msg, method, dialect.name, params.metadata)
        if notify:
            run.start()
            return None
        if stream:
            await self._stream_turn(call, record, run)
            return _HANDLED
        history_length = conf.history_length if conf is not None else None
        run.start()
        return await self._outcome(call, record, run, conf, history_length)

    async def _follow_up(
        self, call: _Call, record: TaskRecord, msg: m.Message, method: str, params: m.SendParams, notify: bool
    ) -> Any:
        """A message to a task held at ``hold ... until: message``: the held run goes on.
        A stream carries what the run does next, and nothing it did before: the client
        knows the task already, and a snapshot of it (still working) could reach it after
        the run's final event on the task's first stream. A blocking send waits for the
        run's outcome."""
        run = self.engine.follow_up(record, msg, method, call.dialect.name, params.metadata)
        if notify:
            return None
        if method == "stream":
            queue: asyncio.Queue[Any] = asyncio.Queue()
            record.subscribers.append(queue)
            await self._serve(call, record, queue, [], live=True)
            return _HANDLED
        conf = params.configuration
        return await self._outcome(call, record, run, conf, conf.history_length if conf is not None else None)

    async def _outcome(self, call: _Call, record: TaskRecord, run: Run, conf: Any, history_length: int | None) -> Any:
        """A blocking send's answer: what the run settles on."""
        dialect = call.dialect
        if conf is not None and conf.blocking is False and dialect.name != "0.1":
            return record.snapshot(history_length)
        timeout = self.profile.request_timeout if self.profile else None
        try:
            outcome = await (asyncio.wait_for(asyncio.shield(run.outcome), timeout) if timeout else run.outcome)
        except TimeoutError:
            raise self.fail(-32603, f"request timed out after {timeout:g} s") from None
        if outcome is None:
            return record.snapshot(history_length)
        kind = type(outcome)
        if kind is m.Message:
            return outcome
        if kind is RpcFault:
            raise self._shaped(outcome.error, task_id=record.task.id)
        if kind is HttpFault:
            await self._http_fault(call, outcome)
            return _HANDLED
        if kind is Malformed:
            await _send_body(call.send, 200, outcome.body)
            return _HANDLED
        await _drop_blocking(call.send)
        return _HANDLED  # pragma: no cover - _drop_blocking raises

    def _first_event(self, dialect: Dialect, record: TaskRecord, final: bool = False) -> Any:
        if dialect.name == "0.1":
            # 0.1 streams carry only status and artifact events.
            task = record.task
            return new.TaskStatusUpdateEvent(
                task_id=task.id, context_id=task.context_id, status=task.status, final=final, metadata=None
            )
        return record.snapshot()

    async def _stream_turn(self, call: _Call, record: TaskRecord, run: Run) -> None:
        queue: asyncio.Queue[Any] = asyncio.Queue()
        record.subscribers.append(queue)
        head = []
        # A new task is announced first; a continuation (an answer to a question) starts
        # with what the agent does next, as a2a-sdk's agents do: the waiting state again
        # would be a transition the agent never made.
        if record.turn == 1 and (self.profile is None or self.profile.initial_event):
            head.append(self._frame(call, self._first_event(call.dialect, record)))
        run.start()
        await self._serve(call, record, queue, head, live=True)

    async def _on_resubscribe(self, call: _Call) -> Any:
        dialect = call.dialect
        record = self._task(call.req.params.id)
        if record.terminal:
            if dialect.name != "0.1":
                raise self.fail(
                    -32004, f"Task {record.task.id} is in terminal state: {errors.state_name(record.state)}"
                )
            await self._serve(
                call, record, None, [self._frame(call, self._first_event(dialect, record, True))], live=False
            )
            return _HANDLED
        queue: asyncio.Queue[Any] = asyncio.Queue()
        record.subscribers.append(queue)
        snapshot = (
            record.snapshot()
            if dialect.name != "0.1" or self.engine.full_task_events
            else self._first_event(dialect, record, record.settled)
        )
        # The task as it stands goes out at once, as real agents send it; only a send's
        # own stream waits for the run's first item (which may be a fault instead).
        await self._serve(call, record, queue, [self._frame(call, snapshot)], live=record.run is not None, start=True)
        return _HANDLED

    # ------------------------------------------------------------------ SSE

    def _frame(self, call: _Call, item: Any) -> bytes:
        kind = type(item)
        dialect = call.dialect
        if call.rest:
            framed: bytes = self._rest_frame(call, item)  # a stream's: always framed
            return framed
        if kind in _EVENTS:
            encoded = dialect.encode_event(item)
            if self.engine.full_task_events:
                # Orloj: the task itself is the event's data, no JSON-RPC envelope.
                if kind is m.Task and self.profile is not None and self.profile.shape_task is not None:
                    encoded = self.profile.shape_task(encoded)
                return self.framer.data(framing.dumps(encoded), self.sse_event)
            return self.framer.data(framing.result_envelope(call.rid, framing.dumps(encoded)), self.sse_event)
        if kind is Comment:
            return self.framer.comment(item.text)
        if kind is Malformed:
            return self.framer.data(item.body, self.sse_event)
        if kind is RpcFault:
            err = errors.for_dialect(self._shaped(item.error), dialect.name)
            return self.framer.data(framing.dumps(dialect.encode_error(err, call.rid_value)), self.sse_event)
        raise TypeError(f"cannot frame {item!r}")  # pragma: no cover

    async def _serve(
        self,
        call: _Call,
        record: TaskRecord,
        queue: asyncio.Queue[Any] | None,
        head: list[bytes],
        live: bool,
        start: bool = False,
    ) -> None:
        """Stream ``head``, then the run's items from ``queue`` until the run ends.

        Unless ``start``, the response starts with the run's first item, so a script
        that opens with an HTTP fault (or, in 1.0, an error) answers with a plain
        response instead."""
        send = call.send
        loop = asyncio.get_running_loop()
        started = False
        timer = None
        watcher = None
        heartbeat = self.heartbeat
        write = self._write
        try:
            if not live or queue is None:
                await _start_sse(send)
                await write(call, head, False)
                return
            watcher = loop.create_task(_watch(call.receive, queue))
            if start:
                await _start_sse(send)
                await write(call, head, True)
                started = True
            if heartbeat:
                timer = loop.call_later(heartbeat, queue.put_nowait, _TICK)
            while True:
                item = await queue.get()
                if item is _GONE:
                    return
                frames: list[bytes] = []
                if not started:
                    opened = await self._open(call, item, head)
                    if opened is None:
                        return
                    frames, started = opened, True
                ended = await self._take(call, item, queue, frames)
                if ended is None:
                    return
                await write(call, frames, not ended)
                if ended:
                    return
                if timer is not None and heartbeat:  # (a timer runs only with a heartbeat)
                    timer.cancel()
                    timer = loop.call_later(heartbeat, queue.put_nowait, _TICK)
        finally:
            if queue is not None:
                with contextlib.suppress(ValueError):
                    record.subscribers.remove(queue)
            if timer is not None:
                timer.cancel()
            if watcher is not None:
                watcher.cancel()

    async def _open(self, call: _Call, item: Any, head: list[bytes]) -> list[bytes] | None:
        """Start the response with the run's first ``item``: None when that answered it
        whole (an HTTP fault; a 1.0 error), else the stream is open and this is what
        goes before ``item``."""
        send = call.send
        kind = type(item)
        if kind is HttpFault:
            await self._http_fault(call, item)
            return None
        if kind is RpcFault and call.rest:
            await self._binding_error(call, self._shaped(item.error))
            return None
        if kind is RpcFault and call.dialect.name == "1.0":
            await self._error(send, call.dialect, self._shaped(item.error), call.rid_value)
            return None
        await _start_sse(send)
        # A cancel that came before anything was sent has made the head (read when the
        # request came in) stale: the canceled status stands alone.
        return list(head) if kind is not RpcFault and kind is not Canceled else []

    async def _take(self, call: _Call, item: Any, queue: asyncio.Queue[Any], frames: list[bytes]) -> bool | None:
        """Frame ``item`` and everything else the run has already produced into ``frames``
        (the framer decides how many writes carry them). True when the run ended, None when
        the client went away; a drop sends what came before it and raises _Dropped."""
        while True:
            ended = False
            if item is _TICK:
                frames.append(self.framer.comment(self.heartbeat_comment))
            elif item is DONE:
                ended = True
            elif item is _GONE:
                return None
            else:
                kind = type(item)
                if kind is Canceled:
                    item = item.item
                    kind = type(item)
                if kind is Drop or kind is HttpFault:
                    if frames:
                        await self._write(call, frames, True)
                    raise _Dropped(item if kind is HttpFault else None)
                try:
                    frames.append(self._frame(call, item))
                except Exception as exc:  # MemoryError included
                    # Escaping the app would have uvicorn cut the stream wherever its
                    # writes had got to, with a traceback and no word to the client: end
                    # at this event's boundary with an error event instead.
                    frames.append(self._frame(call, RpcFault(self._unsent(exc))))
                    return True
                ended = kind is RpcFault
            if ended or queue.empty():
                return ended
            item = queue.get_nowait()

    @staticmethod
    def _unsent(exc: BaseException, what: str = "event") -> JsonRpcError:
        why = (
            f"a2a-mock: could not send the next event ({type(exc).__name__}: {exc}); the stream ends here"
            if what == "event"
            else f"a2a-mock: could not encode the answer ({type(exc).__name__}: {exc})"
        )
        log.warning("%s", why)
        return JsonRpcError(-32603, why)

    async def _write(self, call: _Call, frames: list[Any], more: bool) -> None:
        """Send ``frames`` (SSE events and comments) as the framer cuts them; the last
        write closes the response unless ``more``."""
        if call.grpc is not None:
            await call.grpc.write(frames, more)
            return
        send = call.send
        if not frames and more:
            return
        if len(frames) == 1 and self.framer.split is None:
            await send({"type": "http.response.body", "body": frames[0], "more_body": more})
            return
        pending = None
        for piece in self.framer.writes(frames):
            if pending is not None:
                await send({"type": "http.response.body", "body": pending, "more_body": True})
            pending = piece
        await send({"type": "http.response.body", "body": pending or b"", "more_body": more})

    async def _sse_error(self, call: _Call, err: JsonRpcError) -> None:
        await _start_sse(call.send)
        await self._write(call, [self._frame(call, RpcFault(err))], False)

    # ------------------------------------------------------------------ other methods

    def _on_cancel(self, task_id: str) -> m.Task:
        record = self._task(task_id)
        if record.terminal:
            raise self.fail(-32002, task_id=task_id)
        if self.scenario.cancel == "ignore":
            return record.snapshot()
        message = new.Message(
            role=m.Role.AGENT,
            parts=[new.TextPart(kind="text", text="canceled by request", metadata=None)],
            message_id=str(uuid.uuid4()),
            task_id=record.task.id,
            context_id=record.task.context_id,
        )
        status = new.TaskStatus(state=m.TaskState.CANCELED, message=message, timestamp=now())
        if self.scenario.cancel == "pretend":
            # Said, not done: the store (and so a get, a stream, the script) goes on.
            return record.snapshot().model_copy(update={"status": status})
        record.pending = None
        if record.run is not None:
            record.run.cancel(status)
        else:
            self.engine.set_idle_status(record, status)
        return record.snapshot()

    def _on_list(self, params: m.ListTasksParams, dialect: str) -> m.ListTasksResult:
        state = params.status
        if state is m.TaskState.UNKNOWN and dialect == "1.0":
            state = None  # TASK_STATE_UNSPECIFIED, the proto's "not set": no filter
        records = self.store.records(params.context_id, state)
        after = (params.model_extra or {}).get("statusTimestampAfter")
        since = parse_timestamp(after) if isinstance(after, str) else None
        if since is not None:
            # Strict mode has refused a timestamp that does not parse; lenient ignores it.
            records = [r for r in records if _status_at_or_after(r, since)]
        # Out-of-range sizes were refused unless lenient, where they are clamped.
        size = min(max(params.page_size or 50, 1), 100)
        try:
            start = int(params.page_token) if params.page_token else 0
        except ValueError:
            raise self.fail(
                -32602, "Invalid page token", {"path": "$.params.pageToken", "reason": "not a token this agent issued"}
            ) from None
        page = records[start : start + size]
        tasks = []
        for record in page:
            task = record.snapshot(params.history_length)
            if not params.include_artifacts and "1.0" in self.dialects:
                task.artifacts = None
            tasks.append(task)
        more = start + size < len(records)
        return new.ListTasksResult(
            tasks=tasks, next_page_token=str(start + size) if more else None, page_size=size, total_size=len(records)
        )

    def _on_extended_card(self, call: _Call) -> m.AgentCard:
        card = self.scenario.card
        declared = card.supports_authenticated_extended_card or (
            card.capabilities and card.capabilities.extended_agent_card
        )
        if not declared:
            raise self.fail(-32004, "The agent does not support authenticated extended cards")
        if self.scenario.extended_card is None:
            raise self.fail(-32007)
        extended = self.scenario.extended_card.model_copy(deep=True)
        base = self.card_for(call.base_url, call.dialect.name)
        extended.url = base.url
        extended.supported_interfaces = base.supported_interfaces
        return extended

    def _push_supported(self) -> bool:
        caps = self.scenario.card.capabilities
        return bool(caps and caps.push_notifications)

    def _add_push(self, record: TaskRecord, config: m.PushNotificationConfig, path: str) -> m.PushNotificationConfig:
        if not self.push.allowed(config.url):
            raise self.fail(-32602, refusal(config.url), {"path": path + ".url", "reason": refusal(config.url)})
        config_id = config.id or record.task.id
        stored = config.model_copy(update={"id": config_id})
        if record.dialect == "0.1":
            record.push.clear()  # the draft has one config per task
        record.push[config_id] = stored
        return stored

    def _on_push(self, call: _Call) -> Any:
        method = call.req.method
        params = call.req.params
        if not self._push_supported():
            raise self.fail(-32003)
        if method is Method.PUSH_SET:
            record = self._task(params.task_id)
            path = "$.params" if call.dialect.name == "1.0" else "$.params.pushNotificationConfig"
            stored = self._add_push(record, params.push_notification_config, path)
            if call.dialect.name == "0.1":
                stored = stored.model_copy(update={"id": None})
            return new.TaskPushNotificationConfig(task_id=record.task.id, push_notification_config=stored)
        record = self._task(params.id)
        if method is Method.PUSH_LIST:
            return [
                new.TaskPushNotificationConfig(task_id=record.task.id, push_notification_config=c)
                for c in record.push.values()
            ]
        config_id = params.push_notification_config_id
        if config_id is None:
            config = next(iter(record.push.values()), None)
        else:
            config = record.push.get(config_id)
        if config is None:
            # (An empty id, which 0.3 clients converting from 1.0 send, is an id like any.)
            named = config_id is not None
            what = f"push notification config {config_id!r}" if named else "no push notification config"
            raise self.fail(
                -32602,
                f"Invalid params: {what} for task {record.task.id}"
                if named
                else f"Invalid params: {what} is set for task {record.task.id}",
            )
        if method is Method.PUSH_DELETE:
            assert config.id is not None  # stored with one (_add_push)
            del record.push[config.id]
            return None
        if call.dialect.name == "0.1":
            config = config.model_copy(update={"id": None})
        return new.TaskPushNotificationConfig(task_id=record.task.id, push_notification_config=config)

    def _on_update(self, record: TaskRecord, event: Any) -> None:
        dialect = self.dialects.get(record.dialect) or self.primary
        self.push.notify(dialect, record, event)

    # ------------------------------------------------------------------ plain replies

    async def _read(self, receive: Any, send: Any, dialect: Dialect, rest_form: bool = False) -> bytes | None:
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return None
            chunk = message.get("body", b"")
            if chunk:
                size += len(chunk)
                if size > self.max_body:
                    if rest_form:
                        await self._rest_too_large(send, size)
                    else:
                        await self._too_large(send, dialect, size)
                    return None
                chunks.append(chunk)
            if not message.get("more_body", False):
                break
        return chunks[0] if len(chunks) == 1 else b"".join(chunks)

    async def _too_large(self, send: Any, dialect: Dialect, size: int) -> None:
        err = JsonRpcError(
            -32600,
            "Request payload too large",
            {"reason": f"body of {size} bytes exceeds the limit of {self.max_body} bytes"},
        )
        body = framing.dumps(dialect.encode_error(errors.for_dialect(err, dialect.name), None))
        await _send_body(send, 413, body, extra=[(b"connection", b"close")])

    async def _error(self, send: Any, dialect: Dialect, err: JsonRpcError, rid: Any) -> None:
        err = errors.for_dialect(err, dialect.name)
        await _send_body(send, 200, framing.dumps(dialect.encode_error(err, rid)))

    @staticmethod
    async def _no_content(send: Any) -> None:
        # A notification gets no reply (JSON-RPC 2.0 §4.1), not even an error.
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})


# ---------------------------------------------------------------------- helpers


def _query_pairs(raw: bytes) -> list[tuple[str, str]]:
    from urllib.parse import parse_qsl

    return parse_qsl(raw.decode("latin-1"), keep_blank_values=True)


_QUERY_INTS = ("historyLength", "pageSize")


def _query_value(key: str, text: str) -> Any:
    # Typed where the text says the type, else left a string for the check to refuse.
    if key in _QUERY_INTS and re.fullmatch(r"-?\d+", text):
        return int(text)
    if key == "includeArtifacts" and text in ("true", "false"):
        return text == "true"
    return text


def _jsonrpc_params(found: rest.RouteMatch, query: list[tuple[str, str]], body: Any) -> dict[str, Any] | None:
    """A 1.0 REST request as the params of the JSON-RPC request saying the same (None:
    a body that is not an object, which decoding refuses)."""
    method = found.method
    ids = found.ids
    typed = {key: _query_value(key, value) for key, value in query}
    if method in (Method.SEND, Method.STREAM):
        return body if isinstance(body, dict) else None
    if method in (Method.GET, Method.RESUBSCRIBE):
        return {**typed, "id": ids.get("id", "")}
    if method is Method.CANCEL:
        return {**(body if isinstance(body, dict) else {}), "id": ids.get("id", "")}
    if method is Method.LIST:
        return typed
    if method is Method.PUSH_SET:
        return {**body, "taskId": ids.get("id", "")} if isinstance(body, dict) else None
    if method is Method.PUSH_LIST:
        return {**typed, "taskId": ids.get("id", "")}
    if method in (Method.PUSH_GET, Method.PUSH_DELETE):
        return {"taskId": ids.get("id", ""), "id": ids.get("config", "")}
    return {}


def _status_at_or_after(record: TaskRecord, since: Any) -> bool:
    stamp = record.task.status.timestamp
    when = parse_timestamp(stamp) if isinstance(stamp, str) else None
    return when is not None and when >= since


def _rpc_headers(scope: Any) -> tuple[str | None, int | None]:
    """The request's A2A-Version and Content-Length headers (JSON-RPC and REST alike)."""
    version = None
    length = None
    for key, value in scope["headers"]:
        if key == b"a2a-version":
            version = value.decode("latin-1").strip()
        elif key == b"content-length":
            with contextlib.suppress(ValueError):
                length = int(value)
    return version, length


async def _send_body(
    send: Any,
    status: int,
    body: bytes,
    content_type: bytes = framing.JSON_TYPE,
    extra: list[tuple[bytes, bytes]] | None = None,
) -> None:
    headers = [(b"content-type", content_type), (b"content-length", str(len(body)).encode())]
    if extra:
        headers += extra
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _start_sse(send: Any) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": framing.SSE_HEADERS})


async def _drop_blocking(send: Any) -> None:
    # Promise a body and close after part of it: the client sees a connection cut
    # mid-response, not a clean error.
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [(b"content-type", framing.JSON_TYPE), (b"content-length", b"1024")],
        }
    )
    await send({"type": "http.response.body", "body": b'{"jsonrpc":"2.0",', "more_body": True})
    raise _Dropped()


async def _watch(receive: Any, queue: asyncio.Queue[Any]) -> None:
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            queue.put_nowait(_GONE)
            return


def _grpc_front(server: MockServer, port: int) -> GrpcFront:
    # Imported here: the gRPC codecs and descriptor sets cost a mock without --grpc-port
    # ~20 ms of CPU at start.
    from .grpc_server import GrpcFront

    return GrpcFront(server, LOOPBACK, port)
