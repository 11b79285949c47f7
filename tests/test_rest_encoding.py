"""The pure HTTP+JSON/REST encoding (inspector/protocol/rest.py, proto03.py, bindings.py):
routes, query parameters, tenant prefix, the round trip through the server-side decoder,
error bodies both ways, 0.3's proto JSON, and a2a-sdk's own REST bytes (wire captures)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from captures import parse
from inspector.protocol import bindings as b
from inspector.protocol import models as m
from inspector.protocol import proto03, rest
from inspector.protocol.card import decode_card
from inspector.protocol.errors import JsonRpcError, ProtocolError
from inspector.protocol.methods import Method
from shared_paths import CAPTURES

TEXT = m.TextPart(text="hi")


def send_params(**config: Any) -> m.SendParams:
    conf = m.SendConfiguration(**config) if config else None
    return m.SendParams(message=m.Message(role=m.Role.USER, parts=[TEXT], message_id="m1"), configuration=conf)


CASES: list[tuple[Method, Any, str, str, str, list[tuple[str, str]]]] = [
    # method, params, verb, 1.0 path, 0.3 path, query
    (Method.SEND, send_params(), "POST", "/message:send", "/v1/message:send", []),
    (Method.STREAM, send_params(), "POST", "/message:stream", "/v1/message:stream", []),
    (
        Method.GET,
        m.TaskQueryParams(id="t/1", history_length=3),
        "GET",
        "/tasks/t%2F1",
        "/v1/tasks/t%2F1",
        [("historyLength", "3")],
    ),
    (Method.CANCEL, m.TaskIdParams(id="t1"), "POST", "/tasks/t1:cancel", "/v1/tasks/t1:cancel", []),
    (Method.RESUBSCRIBE, m.TaskIdParams(id="t1"), "GET", "/tasks/t1:subscribe", "/v1/tasks/t1:subscribe", []),
    (
        Method.PUSH_SET,
        m.TaskPushNotificationConfig(
            task_id="t1",
            push_notification_config=m.PushNotificationConfig(id="c1", url="http://127.0.0.1:9/hook", token="tok"),
        ),
        "POST",
        "/tasks/t1/pushNotificationConfigs",
        "/v1/tasks/t1/pushNotificationConfigs",
        [],
    ),
    (
        Method.PUSH_GET,
        m.PushConfigParams(id="t1", push_notification_config_id="c1"),
        "GET",
        "/tasks/t1/pushNotificationConfigs/c1",
        "/v1/tasks/t1/pushNotificationConfigs/c1",
        [],
    ),
    (
        Method.PUSH_LIST,
        m.PushConfigParams(id="t1"),
        "GET",
        "/tasks/t1/pushNotificationConfigs",
        "/v1/tasks/t1/pushNotificationConfigs",
        [],
    ),
    (
        Method.PUSH_DELETE,
        m.PushConfigParams(id="t1", push_notification_config_id="c1"),
        "DELETE",
        "/tasks/t1/pushNotificationConfigs/c1",
        "/v1/tasks/t1/pushNotificationConfigs/c1",
        [],
    ),
    (Method.EXTENDED_CARD, m.ExtendedCardParams(), "GET", "/extendedAgentCard", "/v1/card", []),
]


@pytest.mark.parametrize("dialect", ["1.0", "0.3"])
@pytest.mark.parametrize("case", CASES, ids=[c[0].value for c in CASES])
def test_each_route_encodes_and_decodes_back(dialect: str, case: tuple[Any, ...]) -> None:
    method, params, verb, path10, path03, query = case
    req = rest.encode_request(dialect, method, params)
    assert (req.verb, req.path, req.query) == (verb, path10 if dialect == "1.0" else path03, query)
    found = rest.match_route(dialect, req.verb, req.path)
    assert isinstance(found, rest.RouteMatch) and found.method is method
    back = rest.decode_request(dialect, found, req.query, json.loads(json.dumps(req.body)))
    assert back.wire() == params.wire()


def test_list_tasks_is_1_0_only_and_puts_its_fields_in_the_query() -> None:
    params = m.ListTasksParams(context_id="c1", status=m.TaskState.WORKING, page_size=5, include_artifacts=True)
    req = rest.encode_request("1.0", Method.LIST, params)
    assert (req.verb, req.path) == ("GET", "/tasks")
    assert dict(req.query) == {
        "contextId": "c1",
        "status": "TASK_STATE_WORKING",
        "pageSize": "5",
        "includeArtifacts": "true",
    }
    found = rest.match_route("1.0", "GET", "/tasks")
    assert rest.decode_request("1.0", found, req.query, None).wire() == params.wire()
    assert not rest.has("0.3", Method.LIST)
    with pytest.raises(ProtocolError):
        rest.encode_request("0.3", Method.LIST, params)
    with pytest.raises(ProtocolError):
        rest.decode_request("1.0", found, [("pageSize", "many")], None)


def test_tenant_prefix_and_route_matching() -> None:
    req = rest.encode_request("1.0", Method.GET, m.TaskQueryParams(id="t1"), tenant="acme")
    assert req.path == "/acme/tasks/t1"
    found = rest.match_route("1.0", "GET", "/acme/tasks/t1")
    assert isinstance(found, rest.RouteMatch) and (found.tenant, found.ids["id"]) == ("acme", "t1")
    assert rest.match_route("1.0", "DELETE", "/message:send") == "verb"
    assert rest.match_route("1.0", "GET", "/nowhere/at/all") is None
    # a2a-sdk's client subscribes with POST; servers it talks to accept that.
    assert rest.match_route("1.0", "POST", "/tasks/t1:subscribe").method is Method.RESUBSCRIBE


def test_headers_name_the_media_type_and_version() -> None:
    assert rest.request_headers("1.0", True, False) == {
        "Accept": "application/a2a+json, application/json",
        "Content-Type": "application/a2a+json",
        "A2A-Version": "1.0",
    }
    assert rest.request_headers("0.3", False, True) == {"Accept": "text/event-stream"}


@pytest.mark.parametrize(
    "code, http, status, reason",
    [
        (-32001, 404, "NOT_FOUND", "TASK_NOT_FOUND"),
        (-32002, 400, "FAILED_PRECONDITION", "TASK_NOT_CANCELABLE"),
        (-32003, 400, "FAILED_PRECONDITION", "PUSH_NOTIFICATION_NOT_SUPPORTED"),
        (-32006, 500, "INTERNAL", "INVALID_AGENT_RESPONSE"),
        (-32009, 400, "FAILED_PRECONDITION", "VERSION_NOT_SUPPORTED"),
        (-32602, 400, "INVALID_ARGUMENT", "INVALID_PARAMS"),
        (-32601, 404, "NOT_FOUND", "METHOD_NOT_FOUND"),
    ],
)
def test_errors_map_both_ways(code: int, http: int, status: str, reason: str) -> None:
    got_http, body = rest.encode_error(JsonRpcError(code, "words", {"taskId": "t1"}))
    assert got_http == http and body["error"]["status"] == status
    (info,) = body["error"]["details"]
    assert (info["reason"], info["domain"], info["metadata"]) == (reason, "a2a-protocol.org", {"taskId": "t1"})
    back = rest.decode_error(body)
    assert (back.code, back.message, back.http_status, back.status, back.reason) == (
        code,
        "words",
        http,
        status,
        reason,
    )


def test_an_error_body_without_error_info_maps_by_its_status() -> None:
    err = rest.decode_error({"error": {"code": 404, "status": "NOT_FOUND", "message": "gone"}}, 404)
    assert (err.code, err.reason, err.describe()) == (-32001, None, "HTTP 404 NOT_FOUND (JSON-RPC -32001)")
    assert rest.decode_error({"error": "just words"}) is None
    assert rest.decode_error({"task": {}, "error": {"code": 1}}) is None


def test_0_3_proto_json_round_trip() -> None:
    wire = {
        "message": {
            "role": "ROLE_USER",
            "messageId": "m1",
            "parts": [
                {"text": "t"},
                {"url": "https://x/y.png", "mediaType": "image/png", "filename": "y.png"},
                {"raw": "aGk=", "mediaType": "text/plain"},
                {"data": {"k": 1}},
            ],
        },
        "configuration": {"returnImmediately": True, "historyLength": 2},
    }
    old = proto03.send_to03(wire)
    assert old["message"]["content"][1] == {
        "file": {"fileWithUri": "https://x/y.png", "mimeType": "image/png", "name": "y.png"}
    }
    assert old["message"]["content"][3] == {"data": {"data": {"k": 1}}}
    assert old["configuration"] == {"historyLength": 2, "blocking": False}
    assert proto03.send_from03(old) == {**wire, "configuration": {"historyLength": 2, "returnImmediately": True}}
    # A configuration without "blocking" is non-blocking (a proto3 bool left out is false).
    assert proto03.send_from03({"message": {}, "configuration": {}})["configuration"] == {"returnImmediately": True}
    status = {"statusUpdate": {"taskId": "t", "status": {"state": "TASK_STATE_CANCELED"}}}
    assert proto03.event_to03(status, final=True)["statusUpdate"] == {
        "taskId": "t",
        "status": {"state": "TASK_STATE_CANCELLED"},
        "final": True,
    }
    assert proto03.push_from03(
        {
            "name": "tasks/t1/pushNotificationConfigs/c1",
            "pushNotificationConfig": {"url": "u", "authentication": {"schemes": ["Bearer"]}},
        }
    ) == {"url": "u", "authentication": {"scheme": "Bearer"}, "taskId": "t1", "id": "c1"}


def load(name: str) -> Any:
    return parse(CAPTURES / name)


def test_the_rest_codec_reads_a2a_sdk_bytes() -> None:
    """Wire captures 42-47: a2a-sdk 1.3.0's REST answers, 1.0 and 0.3."""
    v10, v03 = rest.codec("1.0"), rest.codec("0.3")
    task = v10.decode_response(Method.SEND, json.loads(load("42_rest_v10_send.txt").response_body))
    assert task.status.state is m.TaskState.COMPLETED and task.artifacts[0].parts[0].text == "echo: "
    old = v03.decode_response(Method.SEND, json.loads(load("44_rest_v03_send.txt").response_body))
    assert old.history[0].parts[0].text == "rest old" and old.status.message.parts[0].text == "done"
    with pytest.raises(rest.RestError) as raised:
        v10.decode_response(Method.GET, json.loads(load("45_rest_v10_get_unknown.txt").response_body))
    assert (raised.value.code, raised.value.reason) == (-32001, "TASK_NOT_FOUND")
    missing_header = rest.decode_error(json.loads(load("43_rest_v10_send_nohdr.txt").response_body), 400)
    assert missing_header.code == -32009
    events = [v03.decode_stream_event(json.loads(e.data)) for e in load("44b_rest_v03_stream.txt").events()]
    assert [type(e).__name__ for e in events] == [
        "Task",
        "TaskStatusUpdateEvent",
        *["TaskArtifactUpdateEvent"] * 3,
        "TaskStatusUpdateEvent",
    ]
    assert events[-1].final is True
    with pytest.raises(rest.RestError):
        v10.decode_stream_event({"error": {"code": 500, "status": "INTERNAL", "message": "boom"}})


def test_a_cards_interfaces_in_order_with_their_bindings() -> None:
    card = decode_card(
        {
            "name": "x",
            "protocolVersion": "0.3.0",
            "url": "http://h/rpc",
            "preferredTransport": "JSONRPC",
            "additionalInterfaces": [
                {"url": "http://h/rest", "transport": "HTTP+JSON"},
                {"url": "h:50051", "transport": "GRPC"},
            ],
            "supportedInterfaces": [
                {"url": "http://h/v1rest", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0", "tenant": "acme"},
                {"url": "http://h/odd", "protocolBinding": "CARRIER-PIGEON"},
            ],
        }
    )
    found = [(i.binding, i.dialect, i.url, i.tenant) for i in b.card_interfaces(card)]
    assert found == [
        ("rest", "1.0", "http://h/v1rest", "acme"),
        (None, "1.0", "http://h/odd", None),
        ("jsonrpc", "0.3", "http://h/rpc", None),
        ("rest", "0.3", "http://h/rest", None),
        ("grpc", "0.3", "h:50051", None),
    ]
    assert b.get_binding("HTTP+JSON") == "rest" and b.get_binding("grpc") == "grpc"
    with pytest.raises(ValueError):
        b.get_binding("carrier-pigeon")
