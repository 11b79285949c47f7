"""The gRPC status of each A2A error, and back (inspector/protocol/grpc_errors.py),
checked against the spec's table of error mappings (A2A 1.0), which a2a-sdk 1.3.0's
gRPC server answers with, and against a2a-sdk's public tables of codes and reasons."""

from __future__ import annotations

import grpc
import pytest

from inspector.protocol import grpc_errors

#: The gRPC status of each A2A error (A2A 1.0, "error code mappings"), by a2a-sdk's
#: name for the error.
SPEC_STATUS = {
    "InvalidRequestError": grpc.StatusCode.INVALID_ARGUMENT,
    "MethodNotFoundError": grpc.StatusCode.NOT_FOUND,
    "InvalidParamsError": grpc.StatusCode.INVALID_ARGUMENT,
    "InternalError": grpc.StatusCode.INTERNAL,
    "TaskNotFoundError": grpc.StatusCode.NOT_FOUND,
    "TaskNotCancelableError": grpc.StatusCode.FAILED_PRECONDITION,
    "PushNotificationNotSupportedError": grpc.StatusCode.FAILED_PRECONDITION,
    "UnsupportedOperationError": grpc.StatusCode.FAILED_PRECONDITION,
    "ContentTypeNotSupportedError": grpc.StatusCode.INVALID_ARGUMENT,
    "InvalidAgentResponseError": grpc.StatusCode.INTERNAL,
    "ExtendedAgentCardNotConfiguredError": grpc.StatusCode.FAILED_PRECONDITION,
    "ExtensionSupportRequiredError": grpc.StatusCode.FAILED_PRECONDITION,
    "VersionNotSupportedError": grpc.StatusCode.FAILED_PRECONDITION,
}


def test_each_a2a_error_has_the_status_and_reason_a2a_sdk_sends() -> None:
    from a2a.utils.errors import A2A_ERROR_REASONS, JSON_RPC_ERROR_CODE_MAP

    by_name = {cls.__name__: cls for cls in JSON_RPC_ERROR_CODE_MAP}
    assert set(SPEC_STATUS) <= set(by_name)
    for name, status in SPEC_STATUS.items():
        cls = by_name[name]
        code = JSON_RPC_ERROR_CODE_MAP[cls]
        assert grpc_errors.status_for_rpc_code(code) == status.value[0], cls.__name__
        assert grpc_errors.reason_for_rpc_code(code) == A2A_ERROR_REASONS[cls], cls.__name__
        # and back: the reason says which error, whatever the status
        assert grpc_errors.rpc_code_for_status(status.value[0], A2A_ERROR_REASONS[cls]) == code


def test_without_a_reason_the_status_gives_the_nearest_code() -> None:
    nearest = {
        grpc.StatusCode.NOT_FOUND: -32001,
        grpc.StatusCode.INVALID_ARGUMENT: -32602,
        grpc.StatusCode.FAILED_PRECONDITION: -32004,
        grpc.StatusCode.INTERNAL: -32603,
        grpc.StatusCode.UNAVAILABLE: -32603,
        grpc.StatusCode.UNKNOWN: -32603,
    }
    for status, code in nearest.items():
        assert grpc_errors.rpc_code_for_status(status.value[0], None) == code, status
    assert grpc_errors.rpc_code_for_status(5, "NOT_AN_A2A_REASON") == -32001
    assert grpc_errors.status_for_rpc_code(-1) == grpc.StatusCode.INTERNAL.value[0]


def test_the_names_are_grpcs_own() -> None:
    assert {c.name: c.value[0] for c in grpc.StatusCode} == grpc_errors.CODES


def test_http_statuses_as_a_grpc_client_reports_them() -> None:
    # grpc's doc/http-grpc-status-mapping.md
    expected = {
        400: "INTERNAL",
        401: "UNAUTHENTICATED",
        403: "PERMISSION_DENIED",
        404: "UNIMPLEMENTED",
        429: "UNAVAILABLE",
        502: "UNAVAILABLE",
        503: "UNAVAILABLE",
        504: "UNAVAILABLE",
        500: "UNKNOWN",
        418: "UNKNOWN",
    }
    for http, name in expected.items():
        assert grpc_errors.status_for_http(http) == grpc_errors.CODES[name], http


def test_code_of_takes_a_name_or_a_number() -> None:
    assert grpc_errors.code_of("resource_exhausted") == 8 == grpc_errors.code_of(8)
    for bad in ("NOPE", 17, -1, True):
        with pytest.raises(ValueError):
            grpc_errors.code_of(bad)


def test_0_3_names_the_error_in_the_message_as_a2a_sdk_does() -> None:
    from a2a.utils.errors import JSON_RPC_ERROR_CODE_MAP

    assert {cls.__name__: code for cls, code in JSON_RPC_ERROR_CODE_MAP.items()} == {
        name: code for code, name in grpc_errors.ERROR_NAMES_03.items()
    }
    text = grpc_errors.message_03(-32001, "Task not found: t-1")
    assert text == "TaskNotFoundError: Task not found: t-1"
    assert grpc_errors.parse_message_03(text) == (-32001, "Task not found: t-1")
    assert grpc_errors.parse_message_03("Task: not a type") == (None, "Task: not a type")
    assert grpc_errors.parse_message_03("plain") == (None, "plain")


def test_every_a2a_error_the_mock_sends_reads_back_as_its_code() -> None:
    """The mock's mapping (status_for_rpc_code, reason_for_rpc_code, message_03) and the
    client's (grpc_codec.decode_status) are one table read both ways: 1.0 by ErrorInfo,
    0.3 by the message's error name alone."""
    from inspector.protocol import grpc_codec

    assert len(grpc_errors.ERROR_NAMES_03) == 14
    for code in grpc_errors.ERROR_NAMES_03:
        status = grpc_errors.status_for_rpc_code(code)
        assert grpc_errors.rpc_code_for_status(status, grpc_errors.reason_for_rpc_code(code)) == code
        info = [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": grpc_errors.reason_for_rpc_code(code)}]
        assert grpc_codec.decode_status(status, "x", info).code == code
        assert grpc_codec.decode_status(status, grpc_errors.message_03(code, "x"), None).code == code


def test_0_3_takes_the_specs_name_for_the_extended_card_error_too() -> None:
    # a2a-sdk 1.3.0 sends its 1.0 class name; the 0.3 spec names -32007 otherwise.
    assert grpc_errors.parse_message_03("AuthenticatedExtendedCardNotConfiguredError: no") == (-32007, "no")
    assert grpc_errors.parse_message_03("TaskNotFoundError:t-1") == (-32001, "t-1")


def test_errors_survive_copy_and_pickle_whole() -> None:
    """A GrpcError (keyword-only fields beyond JSON-RPC's three) copies and pickles with
    every field, as the tracker's exchange views and the plain JSON-RPC error do."""
    import copy
    import pickle

    from inspector.protocol.errors import JsonRpcError
    from inspector.protocol.grpc_codec import GrpcError

    for error in (
        GrpcError(-32001, "no task", [{"reason": "TASK_NOT_FOUND"}], grpc_code=5, reason="TASK_NOT_FOUND"),
        JsonRpcError(-32600, "bad request", {"at": "params"}),
    ):
        for again in (copy.deepcopy(error), pickle.loads(pickle.dumps(error))):
            assert type(again) is type(error) and vars(again) == vars(error) and str(again) == str(error)
