"""Strict by default: every request the dialect's schema does not allow is refused, with
the code a2a-sdk 1.3.0 answers and the field's JSON path in ``data``; ``lenient`` takes
them as the mock used to. Plus ProtoJSON names (snake_case) in every method, and the
ListTasks filters. docs/mock.md's validation table lists the same rules.
"""

from __future__ import annotations

import subprocess
import sys
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from mock_agent import MockAgent
from mock_agent.server import MODE_EXTENSION

V10 = {"A2A-Version": "1.0"}
HEADERS = {"0.1": {}, "0.3": {}, "1.0": V10}


@pytest.fixture(scope="module")
def strict() -> Iterator[MockAgent]:
    with MockAgent("echo", dialect="all") as agent:
        yield agent


@pytest.fixture(scope="module")
def by_dialect() -> Iterator[dict[str, MockAgent]]:
    # Single-dialect mocks: under "all", a method name several dialects share
    # (tasks/get, tasks/cancel) of an unknown task is answered as 0.3.
    agents = {d: MockAgent("echo", dialect=d).start() for d in ("0.1", "0.3", "1.0")}
    try:
        yield agents
    finally:
        for agent in agents.values():
            agent.stop()


@pytest.fixture(scope="module")
def lenient() -> Iterator[MockAgent]:
    with MockAgent("echo", dialect="all", lenient=True) as agent:
        yield agent


@pytest.fixture(scope="module")
def client() -> Iterator[httpx.Client]:
    with httpx.Client(timeout=10) as c:
        yield c


def rpc(client: httpx.Client, mock: MockAgent, dialect: str, method: str, params: Any = ...) -> dict[str, Any]:
    body: dict[str, Any] = {"jsonrpc": "2.0", "id": 1, "method": method}
    if params is not ...:
        body["params"] = params
    response = client.post(mock.url, json=body, headers=HEADERS[dialect])
    assert response.status_code == 200, response.text
    return response.json()


def mid() -> str:
    return f"m-{uuid.uuid4().hex[:8]}"


def msg10(**over: Any) -> dict[str, Any]:
    return {"role": "ROLE_USER", "messageId": mid(), "parts": [{"text": "hi"}], **over}


def msg03(**over: Any) -> dict[str, Any]:
    return {"kind": "message", "role": "user", "messageId": mid(), "parts": [{"kind": "text", "text": "hi"}], **over}


def msg01(**over: Any) -> dict[str, Any]:
    return {"role": "user", "parts": [{"type": "text", "text": "hi"}], **over}


def without(d: dict[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in d.items() if k != key}


def path_of(error: dict[str, Any]) -> str:
    data = error["data"]
    if isinstance(data, list):  # 1.0: ErrorInfo (+ BadRequest)
        return data[0]["metadata"]["path"]
    return data["path"]


URL = "http://127.0.0.1:9/hook"
T = "strict-task"  # a task id; refusals come before the task is looked up

# (dialect, method, params, code, JSON path of the field named in data)
REFUSED = [
    # ---- 1.0: the lf.a2a.v1 proto, REQUIRED fields and ProtoJSON types; all -32602
    ("1.0", "SendMessage", ..., -32602, "$.params.message"),
    ("1.0", "SendMessage", {}, -32602, "$.params.message"),
    ("1.0", "SendMessage", {"message": without(msg10(), "messageId")}, -32602, "$.params.message.messageId"),
    ("1.0", "SendMessage", {"message": msg10(messageId="")}, -32602, "$.params.message.messageId"),
    ("1.0", "SendMessage", {"message": msg10(messageId=None)}, -32602, "$.params.message.messageId"),
    ("1.0", "SendMessage", {"message": msg10(messageId=7)}, -32602, "$.params.message.messageId"),
    ("1.0", "SendMessage", {"message": without(msg10(), "role")}, -32602, "$.params.message.role"),
    ("1.0", "SendMessage", {"message": msg10(role="ROLE_UNSPECIFIED")}, -32602, "$.params.message.role"),
    ("1.0", "SendMessage", {"message": msg10(role="user")}, -32602, "$.params.message.role"),
    ("1.0", "SendMessage", {"message": msg10(parts=[])}, -32602, "$.params.message.parts"),
    ("1.0", "SendMessage", {"message": without(msg10(), "parts")}, -32602, "$.params.message.parts"),
    (
        "1.0",
        "SendMessage",
        {"message": msg10(parts=[{"text": "a", "url": "http://x.invalid/a"}])},
        -32602,
        "$.params.message.parts[0]",
    ),
    ("1.0", "SendMessage", {"message": msg10(parts=[{"filename": "a.txt"}])}, -32602, "$.params.message.parts[0]"),
    ("1.0", "SendMessage", {"message": msg10(parts=[{"raw": "not base64!"}])}, -32602, "$.params.message.parts[0].raw"),
    ("1.0", "SendMessage", {"message": msg10(parts=[{"text": 5}])}, -32602, "$.params.message.parts[0].text"),
    ("1.0", "SendMessage", {"message": msg10(metadata=[1])}, -32602, "$.params.message.metadata"),
    (
        "1.0",
        "SendMessage",
        {"message": msg10(), "configuration": {"historyLength": -1}},
        -32602,
        "$.params.configuration.historyLength",
    ),
    (
        "1.0",
        "SendMessage",
        {"message": msg10(), "configuration": {"returnImmediately": "yes"}},
        -32602,
        "$.params.configuration.returnImmediately",
    ),
    (
        "1.0",
        "SendMessage",
        {"message": msg10(), "configuration": {"taskPushNotificationConfig": {"token": "t"}}},
        -32602,
        "$.params.configuration.taskPushNotificationConfig.url",
    ),
    (
        "1.0",
        "SendMessage",
        {
            "message": msg10(),
            "configuration": {"taskPushNotificationConfig": {"url": URL, "authentication": {"credentials": "c"}}},
        },
        -32602,
        "$.params.configuration.taskPushNotificationConfig.authentication.scheme",
    ),
    ("1.0", "SendMessage", {"message": {**msg10(), "message_id": "again"}}, -32602, "$.params.message.messageId"),
    ("1.0", "SendStreamingMessage", {"message": without(msg10(), "messageId")}, -32602, "$.params.message.messageId"),
    ("1.0", "SendStreamingMessage", {"message": msg10(parts=[])}, -32602, "$.params.message.parts"),
    ("1.0", "GetTask", {}, -32602, "$.params.id"),
    ("1.0", "GetTask", {"id": ""}, -32602, "$.params.id"),
    ("1.0", "GetTask", {"id": T, "historyLength": -1}, -32602, "$.params.historyLength"),
    ("1.0", "GetTask", {"id": T, "historyLength": "two"}, -32602, "$.params.historyLength"),
    ("1.0", "GetTask", {"id": T, "historyLength": 2**31}, -32602, "$.params.historyLength"),
    ("1.0", "CancelTask", {}, -32602, "$.params.id"),
    ("1.0", "SubscribeToTask", ..., -32602, "$.params.id"),
    ("1.0", "ListTasks", {"pageSize": 0}, -32602, "$.params.pageSize"),
    ("1.0", "ListTasks", {"pageSize": 101}, -32602, "$.params.pageSize"),
    ("1.0", "ListTasks", {"pageSize": -1}, -32602, "$.params.pageSize"),
    ("1.0", "ListTasks", {"page_size": "0"}, -32602, "$.params.pageSize"),
    ("1.0", "ListTasks", {"historyLength": -1}, -32602, "$.params.historyLength"),
    ("1.0", "ListTasks", {"statusTimestampAfter": "yesterday"}, -32602, "$.params.statusTimestampAfter"),
    ("1.0", "ListTasks", {"statusTimestampAfter": "2026-01-02"}, -32602, "$.params.statusTimestampAfter"),
    ("1.0", "ListTasks", {"statusTimestampAfter": "2026-01-02T03:04:05"}, -32602, "$.params.statusTimestampAfter"),
    ("1.0", "ListTasks", {"statusTimestampAfter": 1767322800}, -32602, "$.params.statusTimestampAfter"),
    ("1.0", "ListTasks", {"status": "TASK_STATE_BOGUS"}, -32602, "$.params.status"),
    ("1.0", "ListTasks", {"status": "working"}, -32602, "$.params.status"),
    ("1.0", "ListTasks", {"status": 9}, -32602, "$.params.status"),
    ("1.0", "ListTasks", {"includeArtifacts": "true"}, -32602, "$.params.includeArtifacts"),
    ("1.0", "CreateTaskPushNotificationConfig", {"taskId": T}, -32602, "$.params.url"),
    (
        "1.0",
        "CreateTaskPushNotificationConfig",
        {"taskId": T, "url": URL, "authentication": {}},
        -32602,
        "$.params.authentication.scheme",
    ),
    ("1.0", "GetTaskPushNotificationConfig", {"taskId": T}, -32602, "$.params.id"),
    ("1.0", "GetTaskPushNotificationConfig", {"id": "c"}, -32602, "$.params.taskId"),
    ("1.0", "ListTaskPushNotificationConfigs", {}, -32602, "$.params.taskId"),
    ("1.0", "DeleteTaskPushNotificationConfig", {"taskId": T}, -32602, "$.params.id"),
    ("1.0", "DeleteTaskPushNotificationConfig", {"id": "c"}, -32602, "$.params.taskId"),
    ("1.0", "GetExtendedAgentCard", {"tenant": 5}, -32602, "$.params.tenant"),
    # ---- 0.3: the v0.3.0 JSON Schema; a request that does not match it is -32600, as
    # a2a-sdk's 0.3 layer answers; an empty message and ranges are -32602
    ("0.3", "message/send", ..., -32600, "$.params"),
    ("0.3", "message/send", {}, -32600, "$.params.message"),
    ("0.3", "message/send", {"message": without(msg03(), "messageId")}, -32600, "$.params.message.messageId"),
    ("0.3", "message/send", {"message": msg03(messageId=None)}, -32600, "$.params.message.messageId"),
    ("0.3", "message/send", {"message": without(msg03(), "role")}, -32600, "$.params.message.role"),
    ("0.3", "message/send", {"message": msg03(role="ROLE_USER")}, -32600, "$.params.message.role"),
    ("0.3", "message/send", {"message": without(msg03(), "kind")}, -32600, "$.params.message.kind"),
    ("0.3", "message/send", {"message": without(msg03(), "parts")}, -32600, "$.params.message.parts"),
    ("0.3", "message/send", {"message": msg03(parts=[])}, -32602, "$.params.message.parts"),
    ("0.3", "message/send", {"message": msg03(parts=[{"text": "hi"}])}, -32600, "$.params.message.parts[0].kind"),
    (
        "0.3",
        "message/send",
        {"message": msg03(parts=[{"kind": "image", "text": "hi"}])},
        -32600,
        "$.params.message.parts[0].kind",
    ),
    ("0.3", "message/send", {"message": msg03(parts=[{"kind": "text"}])}, -32600, "$.params.message.parts[0].text"),
    (
        "0.3",
        "message/send",
        {"message": msg03(parts=[{"kind": "file", "file": {"name": "a"}}])},
        -32600,
        "$.params.message.parts[0].file",
    ),
    (
        "0.3",
        "message/send",
        {"message": msg03(parts=[{"kind": "data", "data": [1, 2]}])},
        -32600,
        "$.params.message.parts[0].data",
    ),
    (
        "0.3",
        "message/send",
        {"message": msg03(), "configuration": {"historyLength": -1}},
        -32602,
        "$.params.configuration.historyLength",
    ),
    (
        "0.3",
        "message/send",
        {"message": msg03(), "configuration": {"pushNotificationConfig": {"token": "t"}}},
        -32600,
        "$.params.configuration.pushNotificationConfig.url",
    ),
    ("0.3", "message/stream", {"message": without(msg03(), "messageId")}, -32600, "$.params.message.messageId"),
    ("0.3", "message/stream", {"message": msg03(parts=[])}, -32602, "$.params.message.parts"),
    ("0.3", "tasks/get", {}, -32600, "$.params.id"),
    ("0.3", "tasks/get", {"id": T, "historyLength": -1}, -32602, "$.params.historyLength"),
    ("0.3", "tasks/get", {"id": T, "historyLength": "2"}, -32600, "$.params.historyLength"),
    ("0.3", "tasks/cancel", {"id": 5}, -32600, "$.params.id"),
    ("0.3", "tasks/resubscribe", {}, -32600, "$.params.id"),
    ("0.3", "tasks/pushNotificationConfig/set", {"taskId": T}, -32600, "$.params.pushNotificationConfig"),
    ("0.3", "tasks/pushNotificationConfig/set", {"pushNotificationConfig": {"url": URL}}, -32600, "$.params.taskId"),
    (
        "0.3",
        "tasks/pushNotificationConfig/set",
        {"taskId": T, "pushNotificationConfig": {"url": URL, "authentication": {"credentials": "c"}}},
        -32600,
        "$.params.pushNotificationConfig.authentication.schemes",
    ),
    ("0.3", "tasks/pushNotificationConfig/get", {}, -32600, "$.params.id"),
    ("0.3", "tasks/pushNotificationConfig/list", {}, -32600, "$.params.id"),
    ("0.3", "tasks/pushNotificationConfig/delete", {"id": T}, -32600, "$.params.pushNotificationConfigId"),
    # ---- 0.1: the v0.1.0 JSON Schema; invalid params are -32602
    ("0.1", "tasks/send", ..., -32602, "$.params"),
    ("0.1", "tasks/send", {"message": msg01()}, -32602, "$.params.id"),
    ("0.1", "tasks/send", {"id": T}, -32602, "$.params.message"),
    ("0.1", "tasks/send", {"id": T, "message": without(msg01(), "role")}, -32602, "$.params.message.role"),
    ("0.1", "tasks/send", {"id": T, "message": without(msg01(), "parts")}, -32602, "$.params.message.parts"),
    (
        "0.1",
        "tasks/send",
        {"id": T, "message": msg01(parts=[{"text": "hi"}])},
        -32602,
        "$.params.message.parts[0].type",
    ),
    (
        "0.1",
        "tasks/send",
        {"id": T, "message": msg01(parts=[{"type": "data", "data": "x"}])},
        -32602,
        "$.params.message.parts[0].data",
    ),
    ("0.1", "tasks/send", {"id": T, "message": msg01(), "historyLength": -1}, -32602, "$.params.historyLength"),
    ("0.1", "tasks/sendSubscribe", {"id": T, "message": without(msg01(), "role")}, -32602, "$.params.message.role"),
    ("0.1", "tasks/get", {"id": T, "historyLength": -3}, -32602, "$.params.historyLength"),
    ("0.1", "tasks/cancel", {}, -32602, "$.params.id"),
    ("0.1", "tasks/resubscribe", {}, -32602, "$.params.id"),
    ("0.1", "tasks/pushNotification/set", {"id": T}, -32602, "$.params.pushNotificationConfig"),
    (
        "0.1",
        "tasks/pushNotification/set",
        {"id": T, "pushNotificationConfig": {"url": URL, "authentication": {}}},
        -32602,
        "$.params.pushNotificationConfig.authentication.schemes",
    ),
    ("0.1", "tasks/pushNotification/get", {}, -32602, "$.params.id"),
]


def _case_id(case: tuple[Any, ...]) -> str:
    dialect, method, _params, _code, path = case
    return f"{dialect}-{method}-{path.removeprefix('$.params').lstrip('.') or 'params'}"


@pytest.mark.parametrize("case", REFUSED, ids=[_case_id(c) for c in REFUSED])
def test_strict_refuses(by_dialect: dict[str, MockAgent], client: httpx.Client, case: tuple[Any, ...]) -> None:
    dialect, method, params, code, path = case
    body = rpc(client, by_dialect[dialect], dialect, method, params)
    error = body["error"]
    assert error["code"] == code and path_of(error) == path, error
    assert path in error["message"]  # the field is named in the message too
    if dialect == "1.0":
        info, bad = error["data"]
        assert info["reason"] == "INVALID_PARAMS" and bad["fieldViolations"][0]["field"] == path
    else:
        assert error["data"]["reason"]


def test_every_method_of_every_dialect_has_a_refusal() -> None:
    from mock_agent.request_shapes import METHODS

    covered = {(d, m) for d, m, *_ in REFUSED}
    for dialect, methods in METHODS.items():
        for method, shape in methods.items():
            if shape.params is None or method == "task/resubscribe":
                continue  # nothing to require (or Society AI's alias of tasks/resubscribe)
            assert (dialect, method) in covered, (dialect, method)


def test_a_notification_is_not_answered_even_when_refused(strict: MockAgent, client: httpx.Client) -> None:
    before = len(strict.tasks)
    response = client.post(
        strict.url,
        json={"jsonrpc": "2.0", "method": "message/send", "params": {"message": without(msg03(), "messageId")}},
    )
    assert response.status_code == 204 and response.content == b""
    assert len(strict.tasks) == before


# ---------------------------------------------------------------------- valid requests pass


ACCEPTED = [
    (
        "1.0",
        "SendMessage",
        {
            "message": msg10(
                parts=[
                    {"raw": "aGk=", "filename": "hi.txt", "mediaType": "text/plain"},
                    {"url": "http://x.invalid/a"},
                    {"data": [1, "two"]},
                    {"text": "hi", "metadata": {"k": 1}},
                ]
            ),
            "configuration": {"historyLength": 0, "returnImmediately": False, "acceptedOutputModes": ["text/plain"]},
            "metadata": {"a": 1},
        },
    ),
    ("1.0", "SendMessage", {"message": msg10(role=1, parts=[{"raw": "aGk"}])}),  # enum number, unpadded base64
    (
        "1.0",
        "ListTasks",
        {
            "pageSize": 1,
            "historyLength": 0,
            "status": "TASK_STATE_COMPLETED",
            "statusTimestampAfter": "2000-01-01T00:00:00.5+02:00",
            "includeArtifacts": True,
        },
    ),
    ("1.0", "ListTasks", {"pageSize": "100", "status": "TASK_STATE_UNSPECIFIED"}),
    ("1.0", "ListTasks", ...),
    ("1.0", "GetExtendedAgentCard", ...),
    (
        "0.3",
        "message/send",
        {
            "message": msg03(
                parts=[{"kind": "file", "file": {"uri": "http://x.invalid/a"}}, {"kind": "data", "data": {"rows": 2}}],
                contextId=None,
            ),
            "configuration": {"historyLength": 0, "blocking": True},
        },
    ),
    ("0.3", "agent/getAuthenticatedExtendedCard", ...),
    (
        "0.1",
        "tasks/send",
        {"id": f"t-{uuid.uuid4().hex[:8]}", "sessionId": "s", "historyLength": 0, "message": msg01(parts=[])},
    ),  # the 0.1 schema has no minItems
]


@pytest.mark.parametrize("case", ACCEPTED, ids=[f"{c[0]}-{c[1]}-{i}" for i, c in enumerate(ACCEPTED)])
def test_strict_accepts_what_the_schema_allows(
    by_dialect: dict[str, MockAgent], client: httpx.Client, case: tuple[Any, ...]
) -> None:
    dialect, method, params = case
    body = rpc(client, by_dialect[dialect], dialect, method, params)
    if method in ("GetExtendedAgentCard", "agent/getAuthenticatedExtendedCard"):
        assert body["error"]["code"] == -32004  # validated; the echo card declares no extended card
    else:
        assert "result" in body, body


# ---------------------------------------------------------------------- lenient


def test_lenient_takes_what_strict_refuses(lenient: MockAgent, client: httpx.Client) -> None:
    # A message without messageId gets one; an empty message is echoed as empty.
    sent = rpc(client, lenient, "1.0", "SendMessage", {"message": without(msg10(), "messageId")})["result"]["task"]
    (user,) = [h for h in sent["history"] if h["role"] == "ROLE_USER"]
    assert user["messageId"]
    empty = rpc(client, lenient, "0.3", "message/send", {"message": msg03(parts=[])})["result"]
    assert empty["status"]["state"] == "completed"
    assert rpc(client, lenient, "0.3", "message/send", {"message": without(msg03(), "kind")})["result"]["id"]
    # Out-of-range page sizes are clamped, a bad timestamp ignored, a negative history ok.
    for given, used in ((0, 50), (-1, 1), (101, 100)):
        assert rpc(client, lenient, "1.0", "ListTasks", {"pageSize": given})["result"]["pageSize"] == used
    assert "result" in rpc(client, lenient, "1.0", "ListTasks", {"statusTimestampAfter": "yesterday"})
    assert "result" in rpc(client, lenient, "1.0", "GetTask", {"id": sent["id"], "historyLength": -1})


def test_lenient_still_refuses_what_the_codec_cannot_read(lenient: MockAgent, client: httpx.Client) -> None:
    body = rpc(client, lenient, "0.3", "message/send", {"message": {"role": "robot"}})
    assert body["error"]["code"] == -32602 and body["error"]["data"]["path"].startswith("$.params.message")


def test_lenient_from_the_scenario_and_overridden(client: httpx.Client) -> None:
    scenario = {"card": {"name": "Lax"}, "lenient": True, "rules": [{"script": [{"status": "completed"}]}]}
    params = {"message": without(msg10(), "messageId")}
    with MockAgent(scenario) as lax:
        assert "result" in rpc(client, lax, "1.0", "SendMessage", params)
    with MockAgent(scenario, lenient=False) as strict_anyway:
        assert rpc(client, strict_anyway, "1.0", "SendMessage", params)["error"]["code"] == -32602


@pytest.mark.parametrize(("lenient_", "mode"), [(None, "strict"), (True, "lenient")])
def test_the_card_says_which_mode_is_on(client: httpx.Client, lenient_: bool | None, mode: str) -> None:
    with MockAgent("echo", dialect="all", lenient=lenient_) as agent:
        card = client.get(agent.card_url).json()
    (ext,) = [e for e in card["capabilities"]["extensions"] if e["uri"] == MODE_EXTENSION]
    assert ext["params"] == {"mode": mode} and ext["required"] is False and mode in ext["description"]


def test_the_cli_help_names_the_lenient_switch() -> None:
    text = subprocess.run(
        [sys.executable, "-m", "mock_agent.cli", "--help"], capture_output=True, text=True, check=True
    ).stdout
    assert "--lenient" in text and "urn:a2a-mock:request-validation" in " ".join(text.split())


# ---------------------------------------------------------------------- ProtoJSON names


def test_proto_field_names_are_accepted_in_every_10_method(strict: MockAgent, client: httpx.Client) -> None:
    sent = rpc(
        client,
        strict,
        "1.0",
        "SendMessage",
        {
            "message": {
                "role": "ROLE_USER",
                "message_id": mid(),
                "parts": [{"text": "hi", "media_type": "text/plain"}],
                "reference_task_ids": [],
                "metadata": {"skill_id": "kept", "nested": {"page_size": 1}},
            },
            "configuration": {
                "history_length": 5,
                "return_immediately": False,
                "accepted_output_modes": ["text/plain"],
                "task_push_notification_config": {"url": URL, "token": "tok"},
            },
        },
    )["result"]["task"]
    task_id = sent["id"]
    user = sent["history"][0]
    assert user["metadata"] == {"skill_id": "kept", "nested": {"page_size": 1}}  # free-form values untouched
    assert user["parts"][0] == {"text": "hi", "mediaType": "text/plain"}
    assert rpc(client, strict, "1.0", "GetTask", {"id": task_id, "history_length": 0})["result"].get("history") is None
    listed = rpc(
        client,
        strict,
        "1.0",
        "ListTasks",
        {
            "page_size": 1,
            "context_id": sent["contextId"],
            "include_artifacts": True,
            "history_length": 1,
            "status_timestamp_after": "2000-01-01T00:00:00Z",
        },
    )["result"]
    assert [t["id"] for t in listed["tasks"]] == [task_id] and listed["pageSize"] == 1
    made = rpc(
        client, strict, "1.0", "CreateTaskPushNotificationConfig", {"task_id": task_id, "id": "cfg", "url": URL}
    )["result"]
    assert made["taskId"] == task_id and made["id"] == "cfg"
    got = rpc(client, strict, "1.0", "GetTaskPushNotificationConfig", {"task_id": task_id, "id": "cfg"})["result"]
    assert got["url"] == URL
    configs = rpc(client, strict, "1.0", "ListTaskPushNotificationConfigs", {"task_id": task_id})["result"]
    assert {c["id"] for c in configs["configs"]} == {"cfg", task_id}
    assert (
        rpc(client, strict, "1.0", "DeleteTaskPushNotificationConfig", {"task_id": task_id, "id": "cfg"})["result"]
        == {}
    )


def test_proto_field_names_are_accepted_in_03(strict: MockAgent, client: httpx.Client) -> None:
    sent = rpc(
        client,
        strict,
        "0.3",
        "message/send",
        {
            "message": {
                "kind": "message",
                "role": "user",
                "message_id": mid(),
                "parts": [{"kind": "text", "text": "x"}],
            },
            "configuration": {"history_length": 1},
        },
    )["result"]
    assert len(sent["history"]) == 1
    task_id = sent["id"]
    rpc(
        client,
        strict,
        "0.3",
        "tasks/pushNotificationConfig/set",
        {"task_id": task_id, "push_notification_config": {"url": URL, "id": "c1"}},
    )
    got = rpc(
        client, strict, "0.3", "tasks/pushNotificationConfig/get", {"id": task_id, "push_notification_config_id": "c1"}
    )["result"]
    assert got["pushNotificationConfig"]["id"] == "c1"


# ---------------------------------------------------------------------- ListTasks filters


def test_status_timestamp_after_filters_at_or_after(strict: MockAgent, client: httpx.Client) -> None:
    context = f"ctx-{uuid.uuid4().hex[:8]}"
    task = rpc(client, strict, "1.0", "SendMessage", {"message": msg10(contextId=context)})["result"]["task"]
    stamp = task["status"]["timestamp"]

    def listed(after: str) -> list[str]:
        return [
            t["id"]
            for t in rpc(client, strict, "1.0", "ListTasks", {"contextId": context, "statusTimestampAfter": after})[
                "result"
            ]["tasks"]
        ]

    assert listed(stamp) == [task["id"]]  # greater than or equal
    assert listed("1999-12-31T23:00:00-01:00") == [task["id"]]
    assert listed("9999-01-01T00:00:00Z") == []


def test_list_status_filter_and_unspecified(strict: MockAgent, client: httpx.Client) -> None:
    context = f"ctx-{uuid.uuid4().hex[:8]}"
    task = rpc(client, strict, "1.0", "SendMessage", {"message": msg10(contextId=context)})["result"]["task"]

    def listed(status: Any) -> list[str]:
        return [
            t["id"]
            for t in rpc(client, strict, "1.0", "ListTasks", {"contextId": context, "status": status})["result"][
                "tasks"
            ]
        ]

    assert listed("TASK_STATE_COMPLETED") == [task["id"]] == listed(3)
    assert listed("TASK_STATE_WORKING") == []
    assert listed("TASK_STATE_UNSPECIFIED") == [task["id"]] == listed(0)  # the proto's "not set"
