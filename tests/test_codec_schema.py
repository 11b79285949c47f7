"""What each codec emits validates against the official schema of its version.

Schemas are read at test time from shared/a2a-schemas: 0.1 -> a2a-v0.1.0.json,
0.3 -> a2a-v0.3.0.json (and 0.2.6 where the shapes agree), 1.0 -> the a2a-v1.0.1.json
bundle (data model only, unknown keys forbidden). Objects come from the ``strict``
strategies: every field some schema requires is filled, no unknown keys.
"""

from __future__ import annotations

import json
from functools import cache

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT7, DRAFT202012

import codec_strategies as cs
from inspector.protocol import models as m
from inspector.protocol.dialects import v01, v03, v10
from inspector.protocol.errors import JsonRpcError
from inspector.protocol.methods import Method
from shared_paths import SCHEMAS

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@cache
def _bundle(version: str) -> dict:
    return json.loads((SCHEMAS / f"a2a-{version}.json").read_text(encoding="utf-8"))


@cache
def validator(version: str, name: str):
    bundle = _bundle(version)
    if version.startswith("v1."):
        # The published 1.0.x bundle refers to its own entries by file-style names
        # ("lf.a2a.v1.Task.jsonschema.json") it does not define; register each entry
        # under that name so the references resolve.
        defs = bundle["definitions"]
        resources = []
        for key, schema in defs.items():
            short = key.replace(" ", "")
            package = "google.protobuf" if short in ("Struct", "Timestamp", "Value") else "lf.a2a.v1"
            resources.append((f"{package}.{short}.jsonschema.json", Resource(schema, DRAFT202012)))
        registry = Registry().with_resources(resources)
        return jsonschema.Draft202012Validator(defs[name], registry=registry)
    key = "$defs" if "$defs" in bundle else "definitions"
    schema = {"$ref": f"#/{key}/{name}", key: bundle[key]}
    return jsonschema.Draft7Validator(schema, registry=Registry().with_resource("", Resource(schema, DRAFT7)))


def assert_valid(version: str, name: str, instance) -> None:
    # Through JSON and back: the codec's output must be JSON, and this is what is sent.
    instance = json.loads(json.dumps(instance))
    errors = sorted(validator(version, name).iter_errors(instance), key=lambda e: list(e.absolute_path))
    if errors:
        first = errors[0]
        where = "/".join(map(str, first.absolute_path)) or "<root>"
        pytest.fail(f"{version} {name}: {where}: {first.message[:300]}\n{json.dumps(instance)[:2000]}")


def test_a_broken_document_is_rejected() -> None:
    """The validators are live: a task without a status fails each version's schema."""
    for version, name, doc in [
        ("v0.1.0", "Task", {"id": "t"}),
        ("v0.3.0", "Task", {"id": "t", "contextId": "c", "kind": "task"}),
        ("v1.0.1", "Task", {"id": "t", "status": {"state": "TASK_STATE_WORKING"}, "kind": "task"}),
    ]:
        assert list(validator(version, name).iter_errors(doc)), (version, name)


# ---------------------------------------------------------------------- 0.1

V01_REQUESTS = {
    Method.SEND: "SendTaskRequest",
    Method.STREAM: "SendTaskStreamingRequest",
    Method.GET: "GetTaskRequest",
    Method.CANCEL: "CancelTaskRequest",
    Method.RESUBSCRIBE: "TaskResubscriptionRequest",
    Method.PUSH_SET: "SetTaskPushNotificationRequest",
    Method.PUSH_GET: "GetTaskPushNotificationRequest",
}
# The codec passes 0.2+ states through (Orloj sends "rejected"); the schema has these.
V01_STATES = {"submitted", "working", "input-required", "completed", "canceled", "failed", "unknown"}


def _v01_state(obj) -> bool:
    return obj.status.state.value in V01_STATES


v01_tasks = cs.tasks(strict=True).filter(_v01_state)
# 0.1 answers send/get/cancel with a Task (there are no Message results in 0.1).
V01_RESPONSES = {
    Method.SEND: ("SendTaskResponse", v01_tasks),
    Method.GET: ("GetTaskResponse", v01_tasks),
    Method.CANCEL: ("CancelTaskResponse", v01_tasks),
    Method.PUSH_SET: ("SetTaskPushNotificationResponse", cs.task_push_configs(strict=True)),
    Method.PUSH_GET: ("GetTaskPushNotificationResponse", cs.task_push_configs(strict=True)),
}


@pytest.mark.parametrize("method", list(V01_REQUESTS), ids=lambda x: x.value)
@SETTINGS
@given(data=st.data())
def test_v01_requests_validate(method: Method, data) -> None:
    params = data.draw(cs.params_for(method, strict=True))
    assert_valid("v0.1.0", V01_REQUESTS[method], v01.encode_request(method, params, 7))


@pytest.mark.parametrize("method", list(V01_RESPONSES), ids=lambda x: x.value)
@SETTINGS
@given(data=st.data())
def test_v01_responses_validate(method: Method, data) -> None:
    name, strategy = V01_RESPONSES[method]
    assert_valid("v0.1.0", name, v01.encode_response(method, data.draw(strategy), "r-1"))


@SETTINGS
@given(event=st.one_of(cs.status_events(strict=True).filter(_v01_state), cs.artifact_events(strict=True)))
def test_v01_stream_events_validate(event) -> None:
    assert_valid("v0.1.0", "SendTaskStreamingResponse", v01.encode_stream_event(event, 3))
    # The schema's anyOf would also accept a status event without final (it is
    # optional there); 0.1 readers need it to tell an event from a whole task.
    wire = v01.encode_event(event)
    assert ("final" in wire) == isinstance(event, m.TaskStatusUpdateEvent)


@pytest.mark.parametrize("code", sorted(v01.error_codes))
def test_v01_errors_validate(code: int) -> None:
    out = v01.encode_error(JsonRpcError(code, v01.error_codes[code], {"taskId": "t"}), 1)
    assert_valid("v0.1.0", "SendTaskResponse", out)
    assert_valid("v0.1.0", "JSONRPCError", out["error"])


# ---------------------------------------------------------------------- 0.3 (and 0.2.6)

V03_REQUESTS = {
    Method.SEND: "SendMessageRequest",
    Method.STREAM: "SendStreamingMessageRequest",
    Method.GET: "GetTaskRequest",
    Method.CANCEL: "CancelTaskRequest",
    Method.RESUBSCRIBE: "TaskResubscriptionRequest",
    Method.PUSH_SET: "SetTaskPushNotificationConfigRequest",
    Method.PUSH_GET: "GetTaskPushNotificationConfigRequest",
    Method.PUSH_LIST: "ListTaskPushNotificationConfigRequest",
    Method.PUSH_DELETE: "DeleteTaskPushNotificationConfigRequest",
    Method.EXTENDED_CARD: "GetAuthenticatedExtendedCardRequest",
}
V03_RESPONSES = {
    Method.SEND: "SendMessageSuccessResponse",
    Method.STREAM: "SendStreamingMessageSuccessResponse",
    Method.RESUBSCRIBE: "SendStreamingMessageSuccessResponse",
    Method.GET: "GetTaskSuccessResponse",
    Method.CANCEL: "CancelTaskSuccessResponse",
    Method.PUSH_SET: "SetTaskPushNotificationConfigSuccessResponse",
    Method.PUSH_GET: "GetTaskPushNotificationConfigSuccessResponse",
    Method.PUSH_LIST: "ListTaskPushNotificationConfigSuccessResponse",
    Method.PUSH_DELETE: "DeleteTaskPushNotificationConfigSuccessResponse",
}
# 0.2.6 has the same request and response shapes, minus the extended-card method.
V026 = {m_: n for m_, n in V03_REQUESTS.items() if m_ is not Method.EXTENDED_CARD}


@pytest.mark.parametrize("method", list(V03_REQUESTS), ids=lambda x: x.value)
@SETTINGS
@given(data=st.data())
def test_v03_requests_validate(method: Method, data) -> None:
    params = data.draw(cs.params_for(method, strict=True))
    request = v03.encode_request(method, params, "req-1")
    assert_valid("v0.3.0", V03_REQUESTS[method], request)
    if method in V026:
        assert_valid("v0.2.6", V026[method], request)


@pytest.mark.parametrize("method", list(V03_RESPONSES), ids=lambda x: x.value)
@SETTINGS
@given(data=st.data())
def test_v03_responses_validate(method: Method, data) -> None:
    result = data.draw(cs.results_for(method, strict=True))
    response = v03.encode_response(method, result, 5)
    assert_valid("v0.3.0", V03_RESPONSES[method], response)
    assert_valid("v0.2.6", V03_RESPONSES[method], response)


@SETTINGS
@given(message=cs.messages(strict=True))
def test_v03_message_without_id_gets_one(message: m.Message) -> None:
    message.message_id = None
    wire = v03.encode_params(Method.SEND, m.SendParams(message=message))
    assert wire["message"]["kind"] == "message" and len(wire["message"]["messageId"]) == 36
    assert_valid("v0.3.0", "MessageSendParams", wire)


@SETTINGS
@given(event=cs.status_events(strict=True))
def test_v03_status_event_from_10_gets_final(event: m.TaskStatusUpdateEvent) -> None:
    """An event decoded from 1.0 has no final; 0.3 requires one."""
    event.final = None
    out = v03.encode_event(event)
    assert out["final"] is (event.status.state.value in ("completed", "canceled", "failed", "rejected"))
    assert_valid("v0.3.0", "TaskStatusUpdateEvent", out)


@pytest.mark.parametrize("code", sorted(v03.error_codes))
def test_v03_errors_validate(code: int) -> None:
    out = v03.encode_error(JsonRpcError(code, v03.error_codes[code]), "x")
    assert_valid("v0.3.0", "JSONRPCErrorResponse", out)


# ---------------------------------------------------------------------- 1.0

V10_PARAMS = {
    Method.SEND: "Send Message Request",
    Method.STREAM: "Send Message Request",
    Method.GET: "Get Task Request",
    Method.CANCEL: "Cancel Task Request",
    Method.RESUBSCRIBE: "Subscribe To Task Request",
    Method.PUSH_SET: "Task Push Notification Config",
    Method.PUSH_GET: "Get Task Push Notification Config Request",
    Method.PUSH_LIST: "List Task Push Notification Configs Request",
    Method.PUSH_DELETE: "Delete Task Push Notification Config Request",
    Method.LIST: "List Tasks Request",
    Method.EXTENDED_CARD: "Get Extended Agent Card Request",
}
V10_RESULTS = {
    Method.SEND: "Send Message Response",
    Method.STREAM: "Stream Response",
    Method.RESUBSCRIBE: "Stream Response",
    Method.GET: "Task",
    Method.CANCEL: "Task",
    Method.PUSH_SET: "Task Push Notification Config",
    Method.PUSH_GET: "Task Push Notification Config",
    Method.PUSH_LIST: "List Task Push Notification Configs Response",
    Method.LIST: "List Tasks Response",
}


@pytest.mark.parametrize("method", list(V10_PARAMS), ids=lambda x: x.value)
@SETTINGS
@given(data=st.data())
def test_v10_params_validate(method: Method, data) -> None:
    params = data.draw(cs.params_for(method, strict=True))
    request = v10.encode_request(method, params, 1)
    assert request["method"] == v10.methods[method]
    assert_valid("v1.0.1", V10_PARAMS[method], request.get("params", {}))


@pytest.mark.parametrize("method", list(V10_RESULTS), ids=lambda x: x.value)
@SETTINGS
@given(data=st.data())
def test_v10_results_validate(method: Method, data) -> None:
    result = data.draw(cs.results_for(method, strict=True))
    assert_valid("v1.0.1", V10_RESULTS[method], v10.encode_result(method, result))


@SETTINGS
@given(event=st.one_of(cs.status_events(strict=True), cs.artifact_events(strict=True)))
def test_v10_drops_fields_10_does_not_have(event) -> None:
    """final and the artifact's index/append/lastChunk have no place in 1.0 (whose
    schema forbids unknown keys); the chunk flags move to the event."""
    wire = v10.encode_event(event)
    assert_valid("v1.0.1", "Stream Response", wire)
    if isinstance(event, m.TaskStatusUpdateEvent):
        assert "final" not in wire["statusUpdate"]
    else:
        update = wire["artifactUpdate"]
        assert not {"index", "append", "lastChunk"} & set(update["artifact"])
        expected = event.append if event.append is not None else event.artifact.append
        assert update.get("append") == expected


def test_v10_delete_answers_empty_object() -> None:
    assert v10.encode_result(Method.PUSH_DELETE, None) == {}
    assert v10.decode_result(Method.PUSH_DELETE, {}) is None


def test_v10_request_header() -> None:
    assert v10.request_headers() == {"A2A-Version": "1.0"}
    assert v03.request_headers() == {} and v01.request_headers() == {}
