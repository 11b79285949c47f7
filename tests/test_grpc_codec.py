"""The gRPC binding's pure part: each method's RPC and request message (1.0 and 0.3),
read back to the same params (replay and diff rely on that), and status -> error model."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from inspector.protocol import grpc_codec, grpc_schema
from inspector.protocol import models as m
from inspector.protocol.dialects import get_dialect
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
    details = [
        {
            "@type": "type.googleapis.com/google.rpc.ErrorInfo",
            "reason": "TASK_NOT_CANCELABLE",
            "domain": "a2a-protocol.org",
        }
    ]
    err = grpc_codec.decode_status(9, "no", details)
    assert (err.code, err.grpc_code, err.status, err.reason) == (
        -32002,
        9,
        "FAILED_PRECONDITION",
        "TASK_NOT_CANCELABLE",
    )
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
    assert details[0] == {
        "@type": "type.googleapis.com/google.rpc.ErrorInfo",
        "reason": "TASK_NOT_FOUND",
        "domain": "a2a-protocol.org",
    }
    assert details[1] == {"@type": "type.googleapis.com/google.rpc.Unknown", "value": "AQ=="}
    with pytest.raises(ValueError):
        grpc_codec.status_details("1.0", b"\xff\xff")


def _chunk_messages() -> Any:
    """A 1.0 StreamResponse for every combination of the fields the plain chunk reader
    looks at, one part at a time (each kind, each extra a part may carry)."""
    part_kinds = [
        [],
        [{"text": 'x é "q"\n\\ \u2028\x01\x7f\t😀'}],
        [{"text": ""}],
        [{"text": "a"}, {"text": "b"}],
        [{"raw": "eA=="}],
        [{"url": "http://127.0.0.1:9/f"}],
        [{"data": {"k": 1}}],
        [{"text": "x", "metadata": {"k": 1}}],
        [{"text": "x", "filename": "f.txt"}],
        [{"text": "x", "mediaType": "text/plain"}],
    ]
    yield grpc_schema.from_json(
        "1.0", "StreamResponse", {"statusUpdate": {"taskId": "t", "status": {"state": "TASK_STATE_WORKING"}}}
    )
    for task_id, context_id, append, last, meta in itertools.product(
        ("", "t"), ("", "c"), (False, True), (False, True), (False, True)
    ):
        update: dict[str, Any] = {
            "taskId": task_id,
            "contextId": context_id,
            "append": append,
            "lastChunk": last,
            **({"metadata": {"k": "v"}} if meta else {}),
        }
        yield grpc_schema.from_json("1.0", "StreamResponse", {"artifactUpdate": update})
        for artifact_id, name, description, ameta, ext, parts in itertools.product(
            ("", "a"), ("", "n"), ("", "d"), (False, True), (False, True), part_kinds
        ):
            artifact: dict[str, Any] = {
                "artifactId": artifact_id,
                "name": name,
                "description": description,
                "parts": parts,
                **({"metadata": {"k": 1}} if ameta else {}),
                **({"extensions": ["urn:x"]} if ext else {}),
            }
            yield grpc_schema.from_json("1.0", "StreamResponse", {"artifactUpdate": {**update, "artifact": artifact}})


def test_the_plain_chunk_reader_is_stream_json_and_the_lean_shape_test() -> None:
    """The gRPC client's shortcut for a drained stream's plain chunk (fields read by
    name) gives exactly the ProtoJSON stream_json and json_format give, and the facts the
    lean shape test reads from it; and it takes exactly the messages that test takes."""
    from pydantic_core import to_json

    from inspector.protocol.errors import JsonRpcError, ProtocolError
    from inspector.protocol.lean import TextChunk, lean_reader
    from inspector.protocol.rest import codec as rest_codec

    read = lean_reader(rest_codec(get_dialect("1.0")))  # the HTTP+JSON binding's lean reader

    def shape(text: str) -> TextChunk | None:
        try:
            event = read(text)
        except (JsonRpcError, ProtocolError):
            return None
        return event if event.__class__ is TextChunk else None

    plain = grpc_codec.plain_chunk_reader("1.0")
    assert plain is not None and grpc_codec.plain_chunk_reader("0.3") is None
    taken = 0
    for message in _chunk_messages():
        obj = grpc_codec.stream_json(message)
        text = to_json(obj).decode()
        lean = shape(text)
        got = plain(message)
        assert (got is None) == (lean is None), obj
        if got is None:
            continue
        taken += 1
        assert got[0] == text == to_json(grpc_schema.to_json(message)).decode()
        assert got[1] == (
            lean.task_id,
            lean.context_id,
            lean.artifact_id,
            lean.name,
            lean.description,
            lean.text,
            lean.last_chunk,
        ), obj
    assert taken == 2 * 2 * 4 * 2  # context, last chunk, name x description, two texts alone


@pytest.mark.parametrize("dialect", ["1.0", "0.3"])
def test_stream_json_is_json_format_s_protojson(dialect: str) -> None:
    """The artifact-update shortcut gives exactly what json_format gives, and anything
    it does not know goes the long way."""
    name = "StreamResponse"
    samples = [
        {
            "artifactUpdate": {
                "taskId": "t",
                "contextId": "c",
                "append": True,
                "lastChunk": False,
                "artifact": {"artifactId": "a", "name": "n", "parts": [{"text": 'é "x"'}, {"text": ""}]},
            }
        },
        {"artifactUpdate": {"taskId": "t", "artifact": {"artifactId": "a", "parts": []}}},
        {
            "artifactUpdate": {
                "taskId": "t",
                "artifact": {"artifactId": "a", "parts": [{"text": "x"}], "metadata": {"k": 1}},
            }
        },
        {
            "artifactUpdate": {
                "taskId": "t",
                "metadata": {"k": "v"},
                "artifact": {"artifactId": "a", "parts": [{"text": "x"}]},
            }
        },
        {"statusUpdate": {"taskId": "t", "contextId": "c", "status": {"state": "TASK_STATE_WORKING"}}},
    ]
    for obj in samples:
        message = grpc_schema.from_json(dialect, name, obj, ignore_unknown=True)
        assert grpc_codec.stream_json(message) == grpc_schema.to_json(message), obj
    data = grpc_schema.from_json(
        dialect,
        name,
        {
            "artifactUpdate": {
                "taskId": "t",
                "artifact": {
                    "artifactId": "a",
                    "parts": [{"data": {"a": 1}} if dialect == "1.0" else {"data": {"data": {"a": 1}}}],
                },
            }
        },
    )
    assert grpc_codec.stream_json(data) == grpc_schema.to_json(data)
