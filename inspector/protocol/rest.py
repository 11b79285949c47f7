"""The HTTP+JSON/REST binding, pure: routes, query parameters, bodies and error bodies.

Both sides use it: the client encodes a request into (HTTP method, path, query, body)
and decodes the answer; the mock (and the recording reader) decode a request back into
(method, params) and encode answers. Payloads are the dialect's ProtoJSON: 1.0's for
1.0, 0.3's proto (see proto03.py) for 0.3, both read and written by the 1.0 codec.

Routes (from each version's ``google.api.http`` annotations):

  1.0  POST /message:send, /message:stream; GET /tasks/{id}, /tasks;
       POST /tasks/{id}:cancel; GET /tasks/{id}:subscribe;
       POST|GET /tasks/{id}/pushNotificationConfigs; GET|DELETE .../{configId};
       GET /extendedAgentCard; each also under an optional /{tenant} prefix.
  0.3  the same under /v1, without ListTasks, and GET /v1/card for the extended card.

Errors are ``{"error": google.rpc.Status}``: an HTTP status, the gRPC status name, a
message and ``details`` holding a ``google.rpc.ErrorInfo`` whose ``reason`` names the
A2A error. They map onto the JSON-RPC codes, so one error model serves every binding.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, unquote

from . import models as m
from . import proto03
from .dialects import get_dialect
from .dialects.base import Dialect
from .errors import JsonRpcError, ProtocolError
from .methods import Method
from .validation import type_name

#: The media type the 1.0 spec names for HTTP+JSON bodies (0.3 used application/json).
MEDIA_TYPE = "application/a2a+json"
JSON_TYPE = "application/json"
ERROR_INFO = "type.googleapis.com/google.rpc.ErrorInfo"
DOMAIN = "a2a-protocol.org"

_V10: dict[Method, tuple[str, str]] = {
    Method.SEND: ("POST", "/message:send"),
    Method.STREAM: ("POST", "/message:stream"),
    Method.GET: ("GET", "/tasks/{id}"),
    Method.LIST: ("GET", "/tasks"),
    Method.CANCEL: ("POST", "/tasks/{id}:cancel"),
    Method.RESUBSCRIBE: ("GET", "/tasks/{id}:subscribe"),
    Method.PUSH_SET: ("POST", "/tasks/{id}/pushNotificationConfigs"),
    Method.PUSH_GET: ("GET", "/tasks/{id}/pushNotificationConfigs/{config}"),
    Method.PUSH_LIST: ("GET", "/tasks/{id}/pushNotificationConfigs"),
    Method.PUSH_DELETE: ("DELETE", "/tasks/{id}/pushNotificationConfigs/{config}"),
    Method.EXTENDED_CARD: ("GET", "/extendedAgentCard"),
}
_V03: dict[Method, tuple[str, str]] = {
    **{k: (verb, "/v1" + path) for k, (verb, path) in _V10.items() if k is not Method.LIST},
    Method.EXTENDED_CARD: ("GET", "/v1/card"),
}
ROUTES: dict[str, dict[Method, tuple[str, str]]] = {"1.0": _V10, "0.3": _V03}

# (JSON-RPC code, HTTP status, google.rpc.Code name, ErrorInfo reason), as the 1.0 spec
# maps them (section 5.4) and a2a-sdk 1.3.0 sends them.
_ERRORS: tuple[tuple[int, int, str, str], ...] = (
    (-32001, 404, "NOT_FOUND", "TASK_NOT_FOUND"),
    (-32002, 400, "FAILED_PRECONDITION", "TASK_NOT_CANCELABLE"),
    (-32003, 400, "FAILED_PRECONDITION", "PUSH_NOTIFICATION_NOT_SUPPORTED"),
    (-32004, 400, "FAILED_PRECONDITION", "UNSUPPORTED_OPERATION"),
    (-32005, 400, "INVALID_ARGUMENT", "CONTENT_TYPE_NOT_SUPPORTED"),
    (-32006, 500, "INTERNAL", "INVALID_AGENT_RESPONSE"),
    (-32007, 400, "FAILED_PRECONDITION", "EXTENDED_AGENT_CARD_NOT_CONFIGURED"),
    (-32008, 400, "FAILED_PRECONDITION", "EXTENSION_SUPPORT_REQUIRED"),
    (-32009, 400, "FAILED_PRECONDITION", "VERSION_NOT_SUPPORTED"),
    (-32600, 400, "INVALID_ARGUMENT", "INVALID_REQUEST"),
    (-32601, 404, "NOT_FOUND", "METHOD_NOT_FOUND"),
    (-32602, 400, "INVALID_ARGUMENT", "INVALID_PARAMS"),
    (-32603, 500, "INTERNAL", "INTERNAL_ERROR"),
    (-32700, 400, "INVALID_ARGUMENT", "PARSE_ERROR"),
)
_BY_CODE = {code: (http, status, reason) for code, http, status, reason in _ERRORS}
_BY_REASON = {reason: code for code, _h, _s, reason in _ERRORS}
# With no ErrorInfo to say which A2A error it is, the status alone is a guess at the
# nearest code; the error keeps the status and HTTP code for display.
_BY_STATUS = {
    "NOT_FOUND": -32001,
    "INVALID_ARGUMENT": -32602,
    "FAILED_PRECONDITION": -32004,
    "UNIMPLEMENTED": -32004,
    "INTERNAL": -32603,
    "UNAUTHENTICATED": -32603,
    "PERMISSION_DENIED": -32603,
}


class RestError(JsonRpcError):
    """An error answered in the REST form, carried as the JSON-RPC code it maps to.
    ``http_status``/``status``/``reason``: what the agent sent (shown beside the code)."""

    def __init__(
        self,
        code: int,
        message: str,
        data: Any = None,
        *,
        http_status: int | None = None,
        status: str | None = None,
        reason: str | None = None,
    ) -> None:
        super().__init__(code, message, data)
        self.http_status = http_status
        self.status = status
        self.reason = reason

    def describe(self) -> str:
        head = " ".join(
            str(x) for x in (f"HTTP {self.http_status}" if self.http_status else None, self.status, self.reason) if x
        )
        return f"{head} (JSON-RPC {self.code})" if head else f"JSON-RPC {self.code}"


def supports(dialect: str) -> bool:
    return dialect in ROUTES


def has(dialect: str, method: Method) -> bool:
    return method in ROUTES.get(dialect, {})


def route(dialect: str, method: Method) -> tuple[str, str]:
    """(HTTP method, path template) of ``method`` in ``dialect``'s REST binding."""
    routes = ROUTES.get(dialect)
    if routes is None:
        raise ProtocolError(f"the {dialect} dialect has no HTTP+JSON/REST binding")
    try:
        return routes[method]
    except KeyError:
        raise ProtocolError(f"the {dialect} REST binding has no {method.value} route") from None


@dataclass(frozen=True)
class RestRequest:
    verb: str
    #: The path below the interface's URL, ids percent-encoded, tenant prefix included.
    path: str
    query: list[tuple[str, str]] = field(default_factory=list)
    #: The JSON body (None: no body).
    body: Any = None
    #: "POST /tasks/{id}:cancel": the route, for people.
    route: str = ""


def _seg(value: Any) -> str:
    return quote(str(value), safe="")


def _query_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def encode_request(dialect: str, method: Method, params: Any, tenant: str | None = None) -> RestRequest:
    """The normalised params of ``method`` -> the REST request. ``tenant``: the
    interface's tenant, put in the path (1.0 only)."""
    verb, template = route(dialect, method)
    wire = get_dialect("1.0").encode_params(method, params)
    wire = dict(wire) if isinstance(wire, dict) else {}
    ids: dict[str, Any] = {}
    body: Any = None
    query: list[tuple[str, str]] = []
    if method in (Method.SEND, Method.STREAM):
        body = proto03.send_to03(wire) if dialect == "0.3" else wire
    elif method in (Method.GET, Method.CANCEL, Method.RESUBSCRIBE):
        ids["id"] = wire.pop("id", "")
        wire.pop("tenant", None)
        if method is Method.GET and wire.get("historyLength") is not None:
            query.append(("historyLength", _query_value(wire["historyLength"])))
        if method is Method.CANCEL:
            body = {k: v for k, v in wire.items() if k == "metadata"} if dialect == "1.0" else {}
    elif method is Method.PUSH_SET:
        ids["id"] = wire.pop("taskId", "")
        if dialect == "0.3":
            # a2a-sdk's 0.3 handler reads the whole CreateTaskPushNotificationConfigRequest
            # (its 0.3 client sends that), not only the ``config`` the proto names as body.
            config = proto03.push_to03({**wire, "taskId": ids["id"]})
            body = {"parent": f"tasks/{ids['id']}", "configId": wire.get("id", ""), "config": config}
        else:
            wire.pop("tenant", None)
            body = wire
    elif method in (Method.PUSH_GET, Method.PUSH_DELETE, Method.PUSH_LIST):
        ids["id"] = wire.pop("taskId", "")
        if method is not Method.PUSH_LIST:
            ids["config"] = wire.pop("id", "")
        for key in ("pageSize", "pageToken"):
            if wire.get(key) is not None:
                query.append((key, _query_value(wire[key])))
    elif method is Method.LIST:
        for key, value in wire.items():
            if key not in ("tenant", "metadata") and value is not None:
                query.append((key, _query_value(value)))
    path = template.replace("{id}", _seg(ids.get("id", ""))).replace("{config}", _seg(ids.get("config", "")))
    if tenant and dialect == "1.0":
        path = f"/{_seg(tenant)}{path}"
    return RestRequest(verb, path, query, body, f"{verb} {template}")


def request_headers(dialect: str, has_body: bool, stream: bool) -> dict[str, str]:
    """The headers a REST request carries besides the user's: the media type the spec
    names (1.0: application/a2a+json), the version header, Accept."""
    media = MEDIA_TYPE if dialect == "1.0" else JSON_TYPE
    out = {"Accept": "text/event-stream" if stream else f"{media}, {JSON_TYPE}" if media != JSON_TYPE else media}
    if has_body:
        out["Content-Type"] = media
    if dialect == "1.0":
        out["A2A-Version"] = "1.0"
    return out


# ---------------------------------------------------------------------- server side


def _pattern(template: str) -> re.Pattern[str]:
    out = re.escape(template).replace(r"\{id\}", r"(?P<id>[^/:]+)").replace(r"\{config\}", r"(?P<config>[^/:]+)")
    return re.compile(out)


_MATCHERS: dict[str, list[tuple[str, re.Pattern[str], Method]]] = {
    dialect: [(verb, _pattern(template), method) for method, (verb, template) in routes.items()]
    for dialect, routes in ROUTES.items()
}
#: Verbs a2a-sdk also accepts (its client subscribes with POST).
_ALSO = {(Method.RESUBSCRIBE, "POST")}


@dataclass(frozen=True)
class RouteMatch:
    method: Method
    ids: dict[str, str]
    tenant: str | None


def match_route(dialect: str, verb: str, path: str) -> RouteMatch | str | None:
    """Which route ``verb path`` is in ``dialect``: a RouteMatch; the string "verb"
    when the path is a route but not for that verb (405); None when no route has it."""
    path_only = False
    for tenant_split in (False, True):
        tenant = None
        rest = path
        if tenant_split:
            if dialect != "1.0" or path.count("/") < 2:
                break
            cut = path.index("/", 1)
            tenant, rest = unquote(path[1:cut]), path[cut:]
        for route_verb, pattern, method in _MATCHERS[dialect]:
            found = pattern.fullmatch(rest)
            if found is None:
                continue
            if route_verb != verb and (method, verb) not in _ALSO:
                path_only = True
                continue
            ids = {k: unquote(v) for k, v in found.groupdict().items()}
            return RouteMatch(method, ids, tenant)
    return "verb" if path_only else None


def _int(text: str, name: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ProtocolError(f"query parameter {name} must be an integer, got {text!r}", f"$.{name}") from None


def _bool(text: str, name: str) -> bool:
    if text.lower() in ("true", "1"):
        return True
    if text.lower() in ("false", "0"):
        return False
    raise ProtocolError(f"query parameter {name} must be true or false, got {text!r}", f"$.{name}")


_INT_QUERY = ("historyLength", "pageSize")
_CAMEL = {"config_id": "configId", "push_notification_config": "pushNotificationConfig"}
_BOOL_QUERY = ("includeArtifacts",)


def decode_request(dialect: str, found: RouteMatch, query: list[tuple[str, str]], body: Any) -> Any:
    """A matched REST request -> the method's normalised params (ProtocolError, with a
    path, when they do not decode)."""
    method = found.method
    v10 = get_dialect("1.0")
    q: dict[str, Any] = {}
    for key, value in query:
        if key in _INT_QUERY:
            q[key] = _int(value, key)
        elif key in _BOOL_QUERY:
            q[key] = _bool(value, key)
        else:
            q[key] = value
    task_id = found.ids.get("id")
    if method in (Method.SEND, Method.STREAM):
        if not isinstance(body, dict):
            raise ProtocolError(f"expected an object, got {type_name(body)}")
        wire = proto03.send_from03(body) if dialect == "0.3" else body
        return v10.decode_params(method, wire, "$")
    if method is Method.GET:
        wire = {"id": task_id}
        if "historyLength" in q:
            wire["historyLength"] = q["historyLength"]
        return v10.decode_params(method, wire, "$")
    if method in (Method.CANCEL, Method.RESUBSCRIBE):
        wire = {"id": task_id}
        if isinstance(body, dict) and isinstance(body.get("metadata"), dict):
            wire["metadata"] = body["metadata"]
        return v10.decode_params(method, wire, "$")
    if method is Method.PUSH_SET:
        if not isinstance(body, dict):
            raise ProtocolError(f"expected an object, got {type_name(body)}")
        if dialect == "0.3":
            # ProtoJSON readers take the proto's field names too; a2a-sdk's 0.3 client
            # sends them (config_id, push_notification_config).
            body = {_CAMEL.get(k, k): v for k, v in body.items()}
            config = body.get("config") if isinstance(body.get("config"), dict) else body
            config = {_CAMEL.get(k, k): v for k, v in config.items()}
            wire = proto03.push_from03(config, task_id)
            if isinstance(body.get("configId"), str) and body["configId"] and "id" not in wire:
                wire["id"] = body["configId"]
        else:
            wire = dict(body)
        wire["taskId"] = task_id
        return v10.decode_params(method, wire, "$")
    if method in (Method.PUSH_GET, Method.PUSH_DELETE, Method.PUSH_LIST):
        wire = {"taskId": task_id}
        if found.ids.get("config") is not None:
            wire["id"] = found.ids["config"]
        return v10.decode_params(method, wire, "$")
    if method is Method.LIST:
        return v10.decode_params(method, q, "$")
    return m.ExtendedCardParams()


def as_jsonrpc(method: Method, params: Any) -> dict[str, Any]:
    """A REST request's params as the 1.0 JSON-RPC request saying the same: one form in
    which recorded requests of either binding are compared (diff, a2a-mock --replay)."""
    v10 = get_dialect("1.0")
    out: dict[str, Any] = {"jsonrpc": "2.0", "id": None, "method": v10.wire_method(method)}
    encoded = v10.encode_params(method, params)
    if encoded is not None:
        out["params"] = encoded
    return out


# ---------------------------------------------------------------------- answers


def encode_result(dialect: str, method: Method, result: Any) -> Any:
    """A method's normalised result -> the REST response body."""
    v10 = get_dialect("1.0")
    if dialect == "0.3" and method is Method.EXTENDED_CARD:
        return get_dialect("0.3").encode_card(result)
    wire = v10.encode_result(method, result)
    if dialect != "0.3":
        return wire
    if method is Method.SEND:
        return proto03.event_to03(wire)
    if method in (Method.GET, Method.CANCEL):
        return proto03.task_to03(wire)
    if method in (Method.PUSH_SET, Method.PUSH_GET):
        return proto03.push_to03(wire)
    if method is Method.PUSH_LIST:
        return {"configs": [proto03.push_to03(c) for c in wire.get("configs", [])]}
    return wire


def encode_event(dialect: str, event: m.StreamEvent) -> Any:
    """A stream event -> one SSE event's JSON (a StreamResponse)."""
    wire = get_dialect("1.0").encode_event(event)
    if dialect != "0.3":
        return wire
    final = event.final if isinstance(event, m.TaskStatusUpdateEvent) else None
    return proto03.event_to03(wire, final)


def error_status(code: int) -> int:
    return _BY_CODE.get(code, (500, "INTERNAL", "INTERNAL_ERROR"))[0]


def error_names(code: int) -> tuple[int, str, str]:
    """(HTTP status, google.rpc.Code name, ErrorInfo reason) of the JSON-RPC ``code``."""
    return _BY_CODE.get(code, (500, "INTERNAL", "INTERNAL_ERROR"))


def code_for(status: str | None, reason: str | None) -> int:
    """The JSON-RPC code of an error sent as a google.rpc.Status: by ErrorInfo
    ``reason`` when it names an A2A error, else the nearest to the ``status`` name."""
    return _BY_REASON.get(reason or "") or _BY_STATUS.get(status or "") or -32603


def encode_error(err: JsonRpcError) -> tuple[int, dict[str, Any]]:
    """A JsonRpcError -> (HTTP status, ``{"error": google.rpc.Status}``). ``data`` that
    is a dict becomes the ErrorInfo's metadata (string values, as the proto has them)."""
    http, status, reason = _BY_CODE.get(err.code, (500, "INTERNAL", "INTERNAL_ERROR"))
    info: dict[str, Any] = {"@type": ERROR_INFO, "reason": reason, "domain": DOMAIN, "metadata": {}}
    data = err.data
    if isinstance(data, dict):
        info["metadata"] = {str(k): v if isinstance(v, str) else _json_text(v) for k, v in data.items()}
    details: list[Any] = [info]
    if isinstance(data, list):
        # Already google.rpc details (1.0 JSON-RPC errors carry them in data).
        details = [d for d in data if isinstance(d, dict)] or details
    return http, {"error": {"code": http, "status": status, "message": err.message, "details": details}}


def _json_text(value: Any) -> str:
    import json

    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def decode_error(obj: Any, http_status: int | None = None) -> RestError | None:
    """``{"error": google.rpc.Status}`` -> RestError; None when ``obj`` is not one."""
    if not isinstance(obj, dict) or not isinstance(obj.get("error"), dict) or len(obj) != 1:
        return None
    err = obj["error"]
    status = err.get("status") if isinstance(err.get("status"), str) else None
    message = err.get("message") if isinstance(err.get("message"), str) else ""
    http = err.get("code") if isinstance(err.get("code"), int) and not isinstance(err.get("code"), bool) else None
    details = err.get("details") if isinstance(err.get("details"), list) else None
    reason = None
    for detail in details or ():
        if (
            isinstance(detail, dict)
            and str(detail.get("@type", "")).endswith("google.rpc.ErrorInfo")
            and isinstance(detail.get("reason"), str)
        ):
            reason = detail["reason"]
            break
    code = code_for(status, reason)
    return RestError(code, message, details, http_status=http_status or http, status=status, reason=reason)


_BARE_KEYS = frozenset(("code", "message", "data"))


def decode_bare_error(obj: Any, http_status: int) -> RestError | None:
    """A 0.3 HTTP+JSON error in the JSON-RPC error object's own shape, ``{"code":
    -32001, "message": "...", ["data": ...]}`` at an HTTP error status (0.3 names no
    error body for this binding; the JS SDK's 0.3 layer answers this way): the code it
    carries. None when ``obj`` is not exactly that, or its code is outside JSON-RPC's
    reserved range (a code of some other scheme is the body's reason, not A2A's error)."""
    if http_status < 400 or not isinstance(obj, dict) or not obj.keys() <= _BARE_KEYS:
        return None
    code, message = obj.get("code"), obj.get("message")
    if not isinstance(code, int) or isinstance(code, bool) or not isinstance(message, str):
        return None
    if not -32768 <= code <= -32000:  # JSON-RPC's reserved range, where A2A's codes are
        return None
    return RestError(code, message, obj.get("data"), http_status=http_status)


class RestCodec:
    """How a REST answer decodes, in the shape the decoding paths expect of a dialect
    codec (``decode_response``, ``decode_stream_event``, ``decode_sse_fast``)."""

    binding = "rest"

    def __init__(self, dialect: Dialect) -> None:
        self.dialect = dialect
        self.name = dialect.name
        self.label = dialect.label
        self._v10 = get_dialect("1.0")
        # A 0.3 agent's REST events go through proto03 first: only 1.0's are read lean.
        self.lean = "rest" if self.name == "1.0" else None

    def decode_response(self, method: Method, obj: Any) -> Any:
        err = decode_error(obj)
        if err is not None:
            raise err
        v10 = self._v10
        if self.name != "0.3":
            return v10.decode_result(method, obj, "$")
        if method is Method.EXTENDED_CARD:
            from .card import decode_card

            return decode_card(obj, "$")
        if method is Method.SEND:
            wire = proto03.event_from03(obj)
        elif method in (Method.GET, Method.CANCEL):
            wire = proto03.task_from03(obj)
        elif method in (Method.PUSH_SET, Method.PUSH_GET):
            wire = proto03.push_from03(obj)
        elif method is Method.PUSH_LIST and isinstance(obj, dict) and "configs" in obj:
            # (ProtoJSON leaves an empty list out: a gRPC agent's no configs is ``{}``.)
            wire = {
                **obj,
                "configs": [proto03.push_from03(c) for c in obj["configs"]]
                if isinstance(obj["configs"], list)
                else obj["configs"],
            }
        else:
            wire = obj
        return v10.decode_result(method, wire, "$")

    def decode_sse_fast(self, data: str) -> Any:
        # The 1.0 codec's shortcut for the usual event (an artifact update of text parts)
        # reads a JSON-RPC envelope; a REST event is that envelope's result. Both
        # dialects spell such an update alike, so one shortcut serves both.
        if '"artifactUpdate"' not in data:
            return None
        return self._v10.decode_sse_fast('{"result":' + data + "}")

    def decode_stream_event(self, obj: Any) -> m.StreamEvent:
        err = decode_error(obj)
        if err is not None:
            raise err
        if self.name == "0.3":
            obj = proto03.event_from03(obj)
        return self._v10.decode_event(obj, "$")

    def __repr__(self) -> str:
        return f"<rest codec {self.name}>"


_CODECS: dict[str, RestCodec] = {}


def codec(dialect: str | Dialect) -> RestCodec:
    d = get_dialect(dialect) if isinstance(dialect, str) else dialect
    if d.name not in ROUTES:
        raise ProtocolError(f"the {d.label} dialect has no HTTP+JSON/REST binding")
    found = _CODECS.get(d.name)
    if found is None:
        found = _CODECS[d.name] = RestCodec(d)
    return found
