"""The gRPC binding's pure part: each method's RPC and request message (1.0 and 0.3),
read back to the same params (replay and diff rely on that), and status -> error model."""

from __future__ import annotations

import pytest

from inspector.protocol import grpc_codec, grpc_schema
from inspector.protocol import models as m
from inspector.protocol.methods import Method

MESSAGE = m.Message(role="user", message_id="m1", parts=[m.TextPart(text="hi")], task_id="t1", context_id="c1")
CONFIG = m.PushNotificationConfig(url="http://127.0.0.1:9/hook", id="cfg", token="tok")
PARAMS = {
    Method.SEND: m.SendParams(message=MESSAGE),
    Method.STREAM: m.SendParams(message=MESSAGE),
    Method.GET: m.TaskQueryParams(id="t1", history_length=2),
    Method.CANCEL: m.TaskIdParams(id="t1"),
    Method.RESUBSCRIBE: m.TaskIdParams(id="t1"),
    Method.PUSH_SET: m.TaskPushNotificationConfig(task_id="t1", push_notification_config=CONFIG),
    Method.PUSH_GET: m.PushConfigParams(id="t1", push_notification_config_id="cfg"),
    Method.PUSH_LIST: m.PushConfigParams(id="t1"),
    Method.PUSH_DELETE: m.PushConfigParams(id="t1", push_notification_config_id="cfg"),
    Method.EXTENDED_CARD: m.ExtendedCardParams(),
}


@pytest.mark.parametrize("dialect", ["1.0", "0.3"])
@pytest.mark.parametrize("method", list(PARAMS), ids=lambda x: x.value)
def test_each_request_is_a_valid_message_and_reads_back(dialect: str, method: Method) -> None:
    params = PARAMS[method]
    obj = grpc_codec.encode_request(dialect, method, params)
    rpc = grpc_schema.rpcs(dialect)[grpc_codec.rpc_name(dialect, method)]
    assert rpc.path == grpc_codec.rpc_path(dialect, method)
    message = grpc_schema.from_json(dialect, rpc.request, obj)  # the proto takes it as it is
    assert rpc.server_streaming == method.streams
    again = grpc_codec.decode_request(dialect, method, grpc_schema.to_json(message))
    assert again == params


def test_list_tasks_is_1_0_only() -> None:
    assert grpc_codec.has("1.0", Method.LIST) and not grpc_codec.has("0.3", Method.LIST)
    assert grpc_codec.method_for("0.3", "/a2a.v1.A2AService/TaskSubscription") is Method.RESUBSCRIBE


def test_status_with_error_info_maps_to_the_json_rpc_code() -> None:
    details = [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "TASK_NOT_CANCELABLE",
                "domain": "a2a-protocol.org"}]
    err = grpc_codec.decode_status(9, "no", details)
    assert (err.code, err.grpc_code, err.status, err.reason) == (-32002, 9, "FAILED_PRECONDITION", "TASK_NOT_CANCELABLE")
    assert err.describe() == "gRPC 9 FAILED_PRECONDITION TASK_NOT_CANCELABLE (JSON-RPC -32002)"
    # Without details: the status alone, or 0.3's error name at the head of the message.
    assert grpc_codec.decode_status(5, "gone", None).code == -32001
    assert grpc_codec.decode_status(9, "TaskNotCancelableError: Task cannot be canceled", None).code == -32002
    assert grpc_codec.decode_status(2, "boom", None).code == -32603


def test_status_details_bin_is_read_in_the_private_pool() -> None:
    status = grpc_schema.message_class("1.0", "google.rpc.Status")(code=5, message="gone")
    info = grpc_schema.message_class("1.0", "google.rpc.ErrorInfo")(reason="TASK_NOT_FOUND", domain="a2a-protocol.org")
    status.details.add().Pack(info)
    unknown = status.details.add()
    unknown.type_url, unknown.value = "type.googleapis.com/google.rpc.Unknown", b"\x01"
    details = grpc_codec.status_details("1.0", status.SerializeToString())
    assert details[0] == {"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "TASK_NOT_FOUND",
                          "domain": "a2a-protocol.org"}
    assert details[1] == {"@type": "type.googleapis.com/google.rpc.Unknown", "value": "AQ=="}
    with pytest.raises(ValueError):
        grpc_codec.status_details("1.0", b"\xff\xff")


@pytest.mark.parametrize("dialect", ["1.0", "0.3"])
def test_stream_json_is_json_format_s_protojson(dialect: str) -> None:
    """The artifact-update shortcut gives exactly what json_format gives, and anything
    it does not know goes the long way."""
    name = "StreamResponse"
    samples = [
        {"artifactUpdate": {"taskId": "t", "contextId": "c", "append": True, "lastChunk": False,
                            "artifact": {"artifactId": "a", "name": "n", "parts": [{"text": "é \"x\""}, {"text": ""}]}}},
        {"artifactUpdate": {"taskId": "t", "artifact": {"artifactId": "a", "parts": []}}},
        {"artifactUpdate": {"taskId": "t", "artifact": {"artifactId": "a", "parts": [{"text": "x"}],
                                                        "metadata": {"k": 1}}}},
        {"artifactUpdate": {"taskId": "t", "metadata": {"k": "v"},
                            "artifact": {"artifactId": "a", "parts": [{"text": "x"}]}}},
        {"statusUpdate": {"taskId": "t", "contextId": "c", "status": {"state": "TASK_STATE_WORKING"}}},
    ]
    for obj in samples:
        message = grpc_schema.from_json(dialect, name, obj, ignore_unknown=True)
        assert grpc_codec.stream_json(message) == grpc_schema.to_json(message), obj
    data = grpc_schema.from_json(dialect, name, {"artifactUpdate": {"taskId": "t", "artifact": {
        "artifactId": "a", "parts": [{"data": {"a": 1}} if dialect == "1.0" else {"data": {"data": {"a": 1}}}]}}})
    assert grpc_codec.stream_json(data) == grpc_schema.to_json(data)
