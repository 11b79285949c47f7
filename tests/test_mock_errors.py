"""The bad-request corpus: each malformed or impossible request and the code it gets."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from inspector.protocol import models as m
from inspector.protocol.methods import Method
from mock_agent import MockAgent
from test_mock_support import DIALECT_NAMES, Wire

V10 = {"A2A-Version": "1.0"}


@pytest.fixture(scope="module")
def mock() -> Iterator[MockAgent]:
    with MockAgent("echo", dialect="all", max_body=64 * 1024) as agent:
        yield agent


@pytest.fixture(scope="module")
def no_push() -> Iterator[MockAgent]:
    with MockAgent("errors", dialect="all") as agent:
        yield agent


@pytest.fixture(scope="module")
def client() -> Iterator[httpx.Client]:
    with httpx.Client(timeout=10) as c:
        yield c


def post_raw(client: httpx.Client, url: str, body: bytes, headers: dict[str, str] | None = None) -> httpx.Response:
    return client.post(url, content=body, headers={"content-type": "application/json", **(headers or {})})


def error_of(response: httpx.Response) -> dict:
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["jsonrpc"] == "2.0" and "result" not in body
    return body


# ----------------------------------------------------------------------- envelope


def test_invalid_json_is_a_parse_error_with_null_id(mock: MockAgent, client: httpx.Client) -> None:
    body = error_of(post_raw(client, mock.url, b'{"jsonrpc":"2.0","id":8,"method":'))
    assert body["id"] is None and body["error"]["code"] == -32700
    assert body["error"]["message"] == "Expecting value: line 1 column 34 (char 33)"  # as a2a-sdk says it


def test_empty_body_is_a_parse_error(mock: MockAgent, client: httpx.Client) -> None:
    assert error_of(post_raw(client, mock.url, b""))["error"]["code"] == -32700


def test_batch_is_refused(mock: MockAgent, client: httpx.Client) -> None:
    body = error_of(post_raw(client, mock.url, b'[{"jsonrpc":"2.0","id":13,"method":"tasks/get","params":{"id":"x"}}]'))
    assert body["id"] is None
    assert body["error"] == {"code": -32600, "message": "Batch requests are not supported"}


@pytest.mark.parametrize("raw", [b'"just a string"', b"42", b"null"])
def test_non_object_request_is_invalid(mock: MockAgent, client: httpx.Client, raw: bytes) -> None:
    assert error_of(post_raw(client, mock.url, raw))["error"]["code"] == -32600


def test_missing_jsonrpc_member_is_invalid_request(mock: MockAgent, client: httpx.Client) -> None:
    body = error_of(post_raw(client, mock.url, b'{"id":12,"method":"message/send"}'))
    assert body["id"] == 12 and body["error"]["code"] == -32600
    assert body["error"]["data"]["path"] == "$.jsonrpc"


def test_bad_id_type_is_invalid_request(mock: MockAgent, client: httpx.Client) -> None:
    body = error_of(
        post_raw(client, mock.url, b'{"jsonrpc":"2.0","id":{"a":1},"method":"tasks/get","params":{"id":"x"}}')
    )
    assert body["id"] is None and body["error"]["code"] == -32600


@pytest.mark.parametrize("headers", [{}, V10])
def test_unknown_method(mock: MockAgent, client: httpx.Client, headers: dict) -> None:
    body = error_of(
        client.post(mock.url, json={"jsonrpc": "2.0", "id": 7, "method": "foo/bar", "params": {}}, headers=headers)
    )
    assert body["id"] == 7 and body["error"]["code"] == -32601 and body["error"]["message"] == "Method not found"


def test_get_on_the_rpc_path_is_405(mock: MockAgent, client: httpx.Client) -> None:
    response = client.get(mock.url)
    assert response.status_code == 405 and response.headers["allow"] == "POST"


# ----------------------------------------------------------------------- params


def test_invalid_params_03(mock: MockAgent, client: httpx.Client) -> None:
    # A 0.3 request that does not match the schema is -32600, as a2a-sdk 1.3.0 answers
    # (its 0.3 layer validates the whole request); lenient mode: test_mock_strict.py.
    body = error_of(
        client.post(
            mock.url,
            json={"jsonrpc": "2.0", "id": 14, "method": "message/send", "params": {"message": {"role": "robot"}}},
        )
    )
    assert body["error"]["code"] == -32600 and body["error"]["data"]["path"].startswith("$.params.message")


def test_invalid_params_10_carries_error_info_and_field_violations(mock: MockAgent, client: httpx.Client) -> None:
    body = error_of(
        client.post(
            mock.url,
            headers=V10,
            json={"jsonrpc": "2.0", "id": 15, "method": "SendMessage", "params": {"message": {"role": 42}}},
        )
    )
    error = body["error"]
    assert error["code"] == -32602
    info, bad = error["data"]
    assert info["@type"].endswith("google.rpc.ErrorInfo") and info["reason"] == "INVALID_PARAMS"
    assert bad["@type"].endswith("google.rpc.BadRequest") and bad["fieldViolations"][0]["field"].startswith("$.params")


def test_invalid_params_01_needs_the_task_id(mock: MockAgent, client: httpx.Client) -> None:
    body = error_of(
        client.post(
            mock.url,
            json={
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tasks/send",
                "params": {"message": {"role": "user", "parts": []}},
            },
        )
    )
    assert body["error"]["code"] == -32602 and body["error"]["data"]["path"] == "$.params.id"


# ----------------------------------------------------------------------- versions


def test_10_method_without_version_header_is_32009(mock: MockAgent, client: httpx.Client) -> None:
    body = error_of(
        client.post(
            mock.url,
            json={
                "jsonrpc": "2.0",
                "id": 3,
                "method": "SendMessage",
                "params": {"message": {"role": "ROLE_USER", "messageId": "m-3", "parts": [{"text": "hi"}]}},
            },
        )
    )
    assert body["error"]["code"] == -32009
    assert body["error"]["message"] == "A2A version '0.3' is not supported by this handler. Expected version '1.0'."
    assert body["error"]["data"][0]["reason"] == "VERSION_NOT_SUPPORTED"


def test_03_method_with_10_header_is_refused_as_a2a_sdk_does(mock: MockAgent, client: httpx.Client) -> None:
    body = error_of(
        client.post(
            mock.url, headers=V10, json={"jsonrpc": "2.0", "id": 16, "method": "tasks/get", "params": {"id": "nope"}}
        )
    )
    assert body["error"]["code"] == -32603 and "Expected version '0.3'" in body["error"]["message"]


# ----------------------------------------------------------------------- tasks


@pytest.mark.parametrize("dialect", DIALECT_NAMES)
@pytest.mark.parametrize("method", [Method.GET, Method.CANCEL])
def test_unknown_task(mock: MockAgent, client: httpx.Client, dialect: str, method: Method) -> None:
    w = Wire(client, mock.url, dialect)
    params = m.TaskQueryParams(id="nope") if method is Method.GET else m.TaskIdParams(id="nope")
    body = w.call(method, params)
    assert body["error"]["code"] == -32001 and body["error"]["message"] == "Task not found"


def test_unknown_task_on_a_03_stream_is_an_sse_error_event(mock: MockAgent, client: httpx.Client) -> None:
    w = Wire(client, mock.url, "0.3")
    response, [event] = w.stream("x", task_id="does-not-exist")
    assert response.headers["content-type"].startswith("text/event-stream")
    assert event.json()["error"] == {"code": -32001, "message": "Task does-not-exist not found"}


def test_unknown_task_on_a_10_stream_is_a_json_error(mock: MockAgent, client: httpx.Client) -> None:
    w = Wire(client, mock.url, "1.0")
    response, events = w.stream("x", task_id="does-not-exist")
    assert events == [] and response.json()["error"]["code"] == -32001


@pytest.mark.parametrize("dialect", ["0.3", "1.0"])
def test_resubscribe_to_a_finished_task_is_32004(mock: MockAgent, client: httpx.Client, dialect: str) -> None:
    w = Wire(client, mock.url, dialect)
    task_id = w.task_of(w.send("done soon"))["id"]
    response, events = w.stream_call(Method.RESUBSCRIBE, m.TaskIdParams(id=task_id))
    error = (events[0].json() if events else response.json())["error"]
    assert error["code"] == -32004 and "TASK_STATE_COMPLETED" in error["message"]


@pytest.mark.parametrize("dialect", DIALECT_NAMES)
def test_cancel_of_a_completed_task_is_32002(mock: MockAgent, client: httpx.Client, dialect: str) -> None:
    w = Wire(client, mock.url, dialect)
    task_id = w.task_of(w.send("finish"))["id"]
    body = w.cancel(task_id)
    assert body["error"]["code"] == -32002 and body["error"]["message"] == "Task cannot be canceled"


@pytest.mark.parametrize("dialect", DIALECT_NAMES)
def test_push_config_on_a_card_without_push_is_32003(no_push: MockAgent, client: httpx.Client, dialect: str) -> None:
    w = Wire(client, no_push.url, dialect)
    params = m.TaskPushNotificationConfig(
        task_id="x", push_notification_config=m.PushNotificationConfig(url="http://127.0.0.1:1/cb")
    )
    assert w.call(Method.PUSH_SET, params)["error"]["code"] == -32003


def test_extended_card_not_declared_is_32004(mock: MockAgent, client: httpx.Client) -> None:
    body = error_of(
        client.post(mock.url, json={"jsonrpc": "2.0", "id": 19, "method": "agent/getAuthenticatedExtendedCard"})
    )
    assert body["error"] == {"code": -32004, "message": "The agent does not support authenticated extended cards"}


def test_extended_card_declared_but_missing_is_32007_and_configured_is_served(client: httpx.Client) -> None:
    scenario = {
        "card": {"name": "x", "capabilities": {"extendedAgentCard": True}},
        "rules": [{"script": [{"status": "completed"}]}],
    }
    with MockAgent(scenario, dialect="all") as agent:
        body = error_of(
            client.post(agent.url, headers=V10, json={"jsonrpc": "2.0", "id": 1, "method": "GetExtendedAgentCard"})
        )
        assert body["error"]["code"] == -32007
    with MockAgent({**scenario, "extended_card": {"name": "x (extended)", "description": "more"}}) as agent:
        body = client.post(
            agent.url, headers=V10, json={"jsonrpc": "2.0", "id": 1, "method": "GetExtendedAgentCard"}
        ).json()
        assert body["result"]["name"] == "x (extended)"
        assert body["result"]["supportedInterfaces"][0]["url"] == agent.url


# ----------------------------------------------------------------------- limits, notifications


def test_oversize_body_is_rejected_with_413(mock: MockAgent, client: httpx.Client) -> None:
    w = Wire(client, mock.url, "0.3")
    request = w.request(Method.SEND, m.SendParams(message=w.message("x" * 70_000)))
    response = client.post(mock.url, json=request)
    assert response.status_code == 413
    assert response.json()["error"]["code"] == -32600 and "65536" in response.json()["error"]["data"]["reason"]
    assert w.send("small")["result"]["status"]["state"] == "completed"  # the mock is fine afterwards


def test_oversize_chunked_body_without_length_is_rejected(mock: MockAgent, client: httpx.Client) -> None:
    def chunks() -> Iterator[bytes]:
        yield b'{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"'
        for _ in range(100):
            yield b"x" * 1024
        yield b'"}}'

    response = client.post(mock.url, content=chunks(), headers={"content-type": "application/json"})
    assert response.status_code == 413


def test_default_body_limit_is_one_megabyte(client: httpx.Client) -> None:
    with MockAgent("echo") as agent:
        w = Wire(client, agent.url, "0.3")
        near = w.request(Method.SEND, m.SendParams(message=w.message("x" * (1024 * 1024 - 500))))
        assert client.post(agent.url, json=near).status_code == 200
        over = w.request(Method.SEND, m.SendParams(message=w.message("x" * (1024 * 1024))))
        assert client.post(agent.url, json=over).status_code == 413


@pytest.mark.parametrize("dialect", DIALECT_NAMES)
def test_notification_gets_no_body_but_is_processed(mock: MockAgent, client: httpx.Client, dialect: str) -> None:
    w = Wire(client, mock.url, dialect)
    request = w.request(Method.SEND, m.SendParams(message=w.message(f"notify {dialect}")))
    del request["id"]
    before = len(mock.tasks)
    response = w.post(request)
    assert response.status_code == 204 and response.content == b""
    assert len(mock.tasks) == before + 1


def test_notification_with_an_unknown_method_still_gets_no_body(mock: MockAgent, client: httpx.Client) -> None:
    response = client.post(mock.url, json={"jsonrpc": "2.0", "method": "foo/bar"})
    assert response.status_code == 204 and response.content == b""


def test_a_message_for_a_running_task_is_refused(client: httpx.Client) -> None:
    waits = {
        "card": {"name": "Waits"},
        "rules": [{"script": [{"status": "working"}, {"hold": "done"}, {"status": "completed"}]}],
    }
    with MockAgent(waits) as agent:
        w = Wire(client, agent.url, "0.3")
        task = w.task_of(w.send("slow", configuration={"blocking": False}))
        # Still running for sure: the task waits at the gate until the mock stops.
        body = w.send("again", task_id=task["id"], context_id=task["contextId"])
        assert body["error"]["code"] == -32004 and "still working" in body["error"]["message"]
