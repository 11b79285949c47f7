"""a2a-mock over gRPC (``--grpc-port``), called with plain grpcio and the schema's own
messages: the card's GRPC interface, every method of 1.0 and 0.3, input-required turns,
A2A errors as status + google.rpc.Status details, the scenario's faults, and one task
store shared with JSON-RPC."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import grpc
import httpx
import pytest

from grpc_raw import Raw, kinds
from mock_agent import MockAgent

SCENARIO: dict[str, Any] = {
    "name": "grpc-matrix",
    "card": {
        "name": "gRPC Agent",
        "description": "Every feature, over gRPC.",
        "version": "1.0.0",
        "capabilities": {"streaming": True, "pushNotifications": True, "extendedAgentCard": True},
        "supportsAuthenticatedExtendedCard": True,
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "echo", "name": "Echo", "description": "Echoes.", "tags": ["echo"]}],
    },
    "extended_card": {"name": "gRPC Agent (extended)", "description": "More.", "version": "1.0.0"},
    "rules": [
        {
            "when": {"text": "^hold"},
            "script": [
                {"status": "working", "message": "holding"},
                {"hold": "g", "until": "message", "timeout": 60},
                {"artifact": {"id": "echo", "name": "echo", "text": "echo: {text}"}},
                {"status": "completed", "message": "done"},
            ],
        },
        {
            "when": {"text": "^ask"},
            "script": [
                {"status": "working", "message": "thinking"},
                {"ask": "Which city?", "then": [{"status": "completed", "message": "Weather for {text}: sunny"}]},
            ],
        },
        {"when": {"text": "^boom"}, "script": [{"error": {"code": -32603, "message": "boom"}}]},
        {
            "when": {"text": "^late error"},
            "script": [{"status": "working"}, {"error": {"code": -32004, "message": "gave up"}}],
        },
        {"when": {"text": "^http 503"}, "script": [{"http": {"status": 503, "body": "busy"}}]},
        {
            "when": {"text": "^http 429"},
            "script": [{"http": {"status": 429, "body": "slow down", "grpc": "RESOURCE_EXHAUSTED"}}],
        },
        {"when": {"text": "^late fault"}, "script": [{"status": "working"}, {"http": {"status": 500, "body": "late"}}]},
        {"when": {"text": "^malformed"}, "script": [{"status": "working"}, {"malformed": "not a message"}]},
        {
            "when": {"text": "^drop"},
            "script": [
                {"status": "working"},
                {"artifact": {"name": "partial", "text": "half"}},
                {"drop": True},
                {"status": "completed"},
            ],
        },
        {
            "when": {"text": "^beat"},
            "script": [{"status": "working"}, {"heartbeat": {"every": 0.001, "for": 0.005}}, {"status": "completed"}],
        },
        {
            "script": [
                {"status": "working", "message": "echoing"},
                {"delay": 0.001},
                {"chunks": {"id": "echo", "name": "echo", "texts": ["echo: ", "{text}"]}},
                {"status": "completed", "message": "done"},
            ]
        },
    ],
}
HOOK = "http://127.0.0.1:9/hook"


def send(text: str, task_id: str | None = None, dialect: str = "1.0", **config: Any) -> dict[str, Any]:
    """A SendMessageRequest's ProtoJSON."""
    msg: dict[str, Any] = {"messageId": f"m-{uuid.uuid4()}", "parts": [{"text": text}]}
    if dialect == "1.0":
        msg["role"] = "ROLE_USER"
    else:
        msg.update(role="ROLE_USER", content=msg.pop("parts"))
    if task_id:
        msg["taskId"] = task_id
    out: dict[str, Any] = {"message": msg}
    if config:
        out["configuration"] = config
    return out


async def until_held(mock: MockAgent, count: int = 1) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 20
    while mock.held("g") != count:
        assert loop.time() < deadline, "the task never reached its gate"
        await asyncio.sleep(0.005)


def state(task: dict[str, Any]) -> str:
    return task["status"]["state"]


def artifact_text(task: dict[str, Any], dialect: str = "1.0") -> str:
    return "".join(p.get("text", "") for a in task.get("artifacts", []) for p in a.get("parts", []))


@pytest.fixture
async def mock() -> Any:
    async with MockAgent(SCENARIO, grpc_port=0) as agent:
        yield agent


@pytest.fixture
async def raw(mock: MockAgent) -> Any:
    async with Raw(mock.grpc_address, "1.0") as client:
        yield client


# ---------------------------------------------------------------------- the card


async def test_the_card_lists_the_grpc_interface_of_each_dialect(mock: MockAgent) -> None:
    assert mock.grpc_address.startswith("127.0.0.1:") and mock.grpc_url == f"grpc://{mock.grpc_address}"
    async with httpx.AsyncClient() as http:
        card10 = (await http.get(mock.base_url + "/.well-known/agent-card.json", headers={"A2A-Version": "1.0"})).json()
        grpcs = [i for i in card10["supportedInterfaces"] if i["protocolBinding"] == "GRPC"]
        assert [(i["url"], i["protocolVersion"]) for i in grpcs] == [
            (mock.grpc_address, "1.0"),
            (mock.grpc_address, "0.3"),
        ]
        assert {"transport": "GRPC", "url": mock.grpc_address} in card10["additionalInterfaces"]


async def test_without_a_grpc_port_the_card_has_no_grpc_interface() -> None:
    async with MockAgent(SCENARIO) as agent, httpx.AsyncClient() as http:
        card = (await http.get(agent.card_url)).json()
    assert agent.grpc_address is None
    assert all(i["protocolBinding"] != "GRPC" for i in card["supportedInterfaces"])


def test_a_dialect_without_grpc_refuses_a_grpc_port() -> None:
    with pytest.raises(ValueError, match="no gRPC binding"):
        MockAgent("echo", dialect="0.1", grpc_port=0)
    with pytest.raises(ValueError, match="JSON-RPC only"):
        MockAgent(profile="orloj", grpc_port=0)


# ---------------------------------------------------------------------- every method, 1.0


async def test_send_get_and_list_share_the_store_with_json_rpc(mock: MockAgent, raw: Raw) -> None:
    sent = await raw.unary("SendMessage", send("hi there"))
    task = sent["task"]
    assert state(task) == "TASK_STATE_COMPLETED" and artifact_text(task) == "echo: hi there"
    got = await raw.unary("GetTask", {"id": task["id"], "historyLength": 1})
    assert got["id"] == task["id"] and len(got["history"]) == 1
    listed = await raw.unary(
        "ListTasks", {"contextId": task["contextId"], "status": "TASK_STATE_COMPLETED", "pageSize": 10}
    )
    assert [t["id"] for t in listed["tasks"]] == [task["id"]]
    async with httpx.AsyncClient() as http:  # the same task, asked for over JSON-RPC
        reply = (
            await http.post(
                mock.url,
                headers={"A2A-Version": "1.0"},
                json={"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": task["id"]}},
            )
        ).json()
    assert reply["result"]["status"]["state"] == "TASK_STATE_COMPLETED"
    assert [r["rpc"] for r in mock.requests if r.get("binding") == "grpc"] == ["SendMessage", "GetTask", "ListTasks"]


async def test_stream_sends_each_event_as_a_stream_response(raw: Raw) -> None:
    events, failed = await raw.stream("SendStreamingMessage", send("streamed"))
    assert failed is None
    assert kinds(events) == ["task", "statusUpdate", "artifactUpdate", "artifactUpdate", "statusUpdate"]
    chunks = [p["text"] for e in events[2:4] for p in e["artifactUpdate"]["artifact"]["parts"]]
    assert "".join(chunks) == "echo: streamed"
    assert events[3]["artifactUpdate"]["append"] and events[3]["artifactUpdate"]["lastChunk"]
    assert state(events[-1]["statusUpdate"]) == "TASK_STATE_COMPLETED"


async def test_cancel_a_live_task(mock: MockAgent, raw: Raw) -> None:
    held = await raw.unary("SendMessage", send("hold for cancel", returnImmediately=True))
    await until_held(mock)
    canceled = await raw.unary("CancelTask", {"id": held["task"]["id"]})
    assert state(canceled) == "TASK_STATE_CANCELED"
    await until_held(mock, 0)
    again = await raw.unary_failure("CancelTask", {"id": held["task"]["id"]})
    assert again.code is grpc.StatusCode.FAILED_PRECONDITION and again.reason == "TASK_NOT_CANCELABLE"


async def test_subscribe_to_a_live_task_then_finish_it_with_a_follow_up(mock: MockAgent, raw: Raw) -> None:
    opened = raw.open_stream("SendStreamingMessage", send("hold for subscribe"))
    first = grpc_json(await opened.read())
    opened.cancel()
    await until_held(mock)
    task_id = first["task"]["id"]
    subscribed = raw.open_stream("SubscribeToTask", {"id": task_id})
    head = grpc_json(await subscribed.read())
    assert state(head["task"]) == "TASK_STATE_WORKING"
    done = await raw.unary("SendMessage", send("finish", task_id=task_id))
    rest = []
    while (reply := await subscribed.read()) is not grpc.aio.EOF:
        rest.append(grpc_json(reply))
    assert state(rest[-1]["statusUpdate"]) == "TASK_STATE_COMPLETED"
    assert state(done["task"]) == "TASK_STATE_COMPLETED" and artifact_text(done["task"]) == "echo: finish"


def grpc_json(message: Any) -> dict[str, Any]:
    from inspector.protocol import grpc_schema

    return grpc_schema.to_json(message)


async def test_input_required_continues_on_the_same_task(raw: Raw) -> None:
    first = (await raw.unary("SendMessage", send("ask me")))["task"]
    assert state(first) == "TASK_STATE_INPUT_REQUIRED"
    assert first["status"]["message"]["parts"][0]["text"] == "Which city?"
    events, failed = await raw.stream("SendStreamingMessage", send("Oslo", task_id=first["id"]))
    assert failed is None and {e[k]["taskId" if k != "task" else "id"] for e in events for k in e} == {first["id"]}
    final = events[-1]["statusUpdate"]["status"]
    assert (
        final["state"] == "TASK_STATE_COMPLETED" and final["message"]["parts"][0]["text"] == "Weather for Oslo: sunny"
    )


async def test_push_configs_and_the_extended_card(raw: Raw) -> None:
    task = (await raw.unary("SendMessage", send("hi")))["task"]
    made = await raw.unary(
        "CreateTaskPushNotificationConfig", {"taskId": task["id"], "id": "cfg-1", "url": HOOK, "token": "tok"}
    )
    assert (made["taskId"], made["id"], made["url"]) == (task["id"], "cfg-1", HOOK)
    fetched = await raw.unary("GetTaskPushNotificationConfig", {"taskId": task["id"], "id": "cfg-1"})
    assert fetched["token"] == "tok"
    listed = await raw.unary("ListTaskPushNotificationConfigs", {"taskId": task["id"]})
    assert [c["id"] for c in listed["configs"]] == ["cfg-1"]
    assert await raw.unary("DeleteTaskPushNotificationConfig", {"taskId": task["id"], "id": "cfg-1"}) == {}
    assert (await raw.unary("ListTaskPushNotificationConfigs", {"taskId": task["id"]})).get("configs") is None
    gone = await raw.unary_failure("GetTaskPushNotificationConfig", {"taskId": task["id"], "id": "cfg-1"})
    assert gone.code is grpc.StatusCode.INVALID_ARGUMENT and gone.reason == "INVALID_PARAMS"
    card = await raw.unary("GetExtendedAgentCard", {})
    assert card["name"] == "gRPC Agent (extended)"
    assert any(i["protocolBinding"] == "GRPC" for i in card["supportedInterfaces"])


async def test_heartbeats_send_nothing_over_grpc(raw: Raw) -> None:
    events, failed = await raw.stream("SendStreamingMessage", send("beat"))
    assert failed is None and kinds(events) == ["task", "statusUpdate", "statusUpdate"]


async def test_a_client_deadline_leaves_the_task_running(mock: MockAgent, raw: Raw) -> None:
    # The gate holds the task until released, so the deadline surely passes first.
    late = await raw.unary_failure("SendMessage", send("hold past the deadline"), timeout=0.2)
    assert late.code is grpc.StatusCode.DEADLINE_EXCEEDED
    await until_held(mock)
    (record,) = mock.tasks
    assert mock.release("g") == 1
    assert await asyncio.wait_for(_settled(record), 20) == "completed"
    assert state(await raw.unary("GetTask", {"id": record.task.id})) == "TASK_STATE_COMPLETED"


# ---------------------------------------------------------------------- errors


async def test_a2a_errors_are_statuses_with_error_info(raw: Raw) -> None:
    missing = await raw.unary_failure("GetTask", {"id": "nope"})
    assert missing.code is grpc.StatusCode.NOT_FOUND and missing.reason == "TASK_NOT_FOUND"
    # The rich status repeats the call's (grpcio-status refuses one that does not).
    assert missing.status == {"code": grpc.StatusCode.NOT_FOUND.value[0], "message": missing.message}
    info = missing.details[0]
    assert info["domain"] == "a2a-protocol.org"
    scripted = await raw.unary_failure("SendMessage", send("boom"))
    assert (scripted.code, scripted.message, scripted.reason) == (grpc.StatusCode.INTERNAL, "boom", "INTERNAL_ERROR")


async def test_a_strict_refusal_carries_a_bad_request(raw: Raw) -> None:
    bad = send("hi")
    bad["message"]["parts"] = []
    refused = await raw.unary_failure("SendMessage", bad)
    assert refused.code is grpc.StatusCode.INVALID_ARGUMENT and refused.reason == "INVALID_PARAMS"
    violations = [d for d in refused.details if d["@type"].endswith("BadRequest")]
    assert violations and violations[0]["fieldViolations"][0]["field"].startswith("$.params.message.parts")


async def test_strict_checks_every_1_0_call_as_over_json_rpc(raw: Raw) -> None:
    for name, body, field in (
        ("GetTask", {"id": "t", "historyLength": -1}, "$.params.historyLength"),
        ("ListTasks", {"pageSize": 101}, "$.params.pageSize"),
        ("CreateTaskPushNotificationConfig", {"taskId": "t"}, "$.params.url"),
    ):
        refused = await raw.unary_failure(name, body)
        assert refused.code is grpc.StatusCode.INVALID_ARGUMENT and refused.reason == "INVALID_PARAMS", name
        (bad,) = [d for d in refused.details if d["@type"].endswith("BadRequest")]
        assert bad["fieldViolations"][0]["field"] == field


async def test_1_0_calls_need_the_a2a_version_metadata(raw: Raw) -> None:
    for version in (None, "0.3"):
        refused = await raw.unary_failure("GetTask", {"id": "x"}, version=version)
        assert refused.code is grpc.StatusCode.FAILED_PRECONDITION and refused.reason == "VERSION_NOT_SUPPORTED"
        events, failed = await raw.stream("SendStreamingMessage", send("hi"), version=version)
        assert events == [] and failed.reason == "VERSION_NOT_SUPPORTED"


async def test_an_error_mid_stream_ends_the_call_with_its_status(raw: Raw) -> None:
    events, failed = await raw.stream("SendStreamingMessage", send("late error"))
    assert kinds(events) == ["task", "statusUpdate"]
    assert failed.code is grpc.StatusCode.FAILED_PRECONDITION and failed.reason == "UNSUPPORTED_OPERATION"
    assert failed.message == "gave up"


async def test_an_error_before_a_stream_starts_is_its_status(raw: Raw) -> None:
    events, failed = await raw.stream("SendStreamingMessage", send("boom"))
    assert events == [] and failed.code is grpc.StatusCode.INTERNAL and failed.message == "boom"
    events, failed = await raw.stream("SubscribeToTask", {"id": "nope"})
    assert events == [] and failed.reason == "TASK_NOT_FOUND"


# ---------------------------------------------------------------------- faults


async def test_http_faults_are_the_status_a_grpc_client_would_report(raw: Raw) -> None:
    for call in ("unary", "stream"):
        for text, code, message in (
            ("http 503", grpc.StatusCode.UNAVAILABLE, "busy"),
            ("http 429", grpc.StatusCode.RESOURCE_EXHAUSTED, "slow down"),
        ):
            if call == "unary":
                failed = await raw.unary_failure("SendMessage", send(text))
            else:
                events, failed = await raw.stream("SendStreamingMessage", send(text))
                assert events == []
            assert (failed.code, failed.message, failed.status) == (code, message, None), (call, text)


async def test_a_fault_mid_stream_ends_it_with_the_faults_status(raw: Raw) -> None:
    events, failed = await raw.stream("SendStreamingMessage", send("late fault"))
    assert kinds(events) == ["task", "statusUpdate"]
    assert (failed.code, failed.message) == (grpc.StatusCode.UNKNOWN, "late")  # HTTP 500: no gRPC mapping


async def test_a_drop_ends_the_stream_unavailable_and_the_script_goes_on(mock: MockAgent, raw: Raw) -> None:
    events, failed = await raw.stream("SendStreamingMessage", send("drop"))
    assert kinds(events) == ["task", "statusUpdate", "artifactUpdate"]
    assert failed.code is grpc.StatusCode.UNAVAILABLE
    task_id = events[0]["task"]["id"]
    unary = await raw.unary_failure("SendMessage", send("drop"))
    assert unary.code is grpc.StatusCode.UNAVAILABLE
    record = mock.task(task_id)
    assert record is not None and await asyncio.wait_for(_settled(record), 20) == "completed"


async def _settled(record: Any) -> str:
    while record.run is not None:
        await asyncio.sleep(0.005)
    return record.task.status.state.value


async def test_malformed_is_a_message_that_does_not_parse(raw: Raw) -> None:
    events, failed = await raw.stream("SendStreamingMessage", send("malformed"))
    assert kinds(events) == ["task", "statusUpdate", "unparsed"] and failed is None
    assert events[-1]["unparsed"].endswith(b"not a message")
    unary = await raw.unary("SendMessage", send("malformed"))
    assert unary["unparsed"].endswith(b"not a message")


async def test_a_request_over_the_body_limit_is_resource_exhausted() -> None:
    async with MockAgent(SCENARIO, grpc_port=0, max_body=2048) as agent, Raw(agent.grpc_address) as raw:
        failed = await raw.unary_failure("SendMessage", send("x" * 4096))
    assert failed.code is grpc.StatusCode.RESOURCE_EXHAUSTED


# ---------------------------------------------------------------------- 0.3


async def test_0_3_names_its_tasks_by_resource_name(mock: MockAgent) -> None:
    async with Raw(mock.grpc_address, "0.3") as raw:
        sent = await raw.unary("SendMessage", send("hi", dialect="0.3"))
        task = sent["task"]
        assert state(task) == "TASK_STATE_COMPLETED"
        assert "".join(p["text"] for a in task["artifacts"] for p in a["parts"]) == "echo: hi"
        got = await raw.unary("GetTask", {"name": f"tasks/{task['id']}"})
        assert got["id"] == task["id"]
        events, failed = await raw.stream("SendStreamingMessage", send("streamed", dialect="0.3"))
        assert failed is None and kinds(events)[0] == "task" and "final" in events[-1]["statusUpdate"]
        made = await raw.unary(
            "CreateTaskPushNotificationConfig",
            {
                "parent": f"tasks/{task['id']}",
                "configId": "c1",
                "config": {"pushNotificationConfig": {"id": "c1", "url": HOOK}},
            },
        )
        assert made["name"] == f"tasks/{task['id']}/pushNotificationConfigs/c1"
        listed = await raw.unary("ListTaskPushNotificationConfig", {"parent": f"tasks/{task['id']}"})
        assert [c["pushNotificationConfig"]["url"] for c in listed["configs"]] == [HOOK]
        fetched = await raw.unary(
            "GetTaskPushNotificationConfig", {"name": f"tasks/{task['id']}/pushNotificationConfigs/c1"}
        )
        assert fetched["pushNotificationConfig"]["id"] == "c1"
        assert (
            await raw.unary(
                "DeleteTaskPushNotificationConfig", {"name": f"tasks/{task['id']}/pushNotificationConfigs/c1"}
            )
            == {}
        )
        missing = await raw.unary_failure("GetTask", {"name": "tasks/nope"})
        assert missing.code is grpc.StatusCode.NOT_FOUND and missing.reason == "TASK_NOT_FOUND"
        assert missing.message.startswith("TaskNotFoundError: ")  # as a2a-sdk's 0.3 handler names it
        card = await raw.unary("GetAgentCard", {})
        assert card["name"] == "gRPC Agent (extended)"


async def test_0_3_needs_no_version_metadata(mock: MockAgent) -> None:
    async with Raw(mock.grpc_address, "0.3", version=None) as raw:
        sent = await raw.unary("SendMessage", send("hi", dialect="0.3"))
    assert state(sent["task"]) == "TASK_STATE_COMPLETED"


# ---------------------------------------------------------------------- the sync form


def test_the_sync_mock_agent_serves_grpc_from_its_thread() -> None:
    with MockAgent(SCENARIO, grpc_port=0) as agent:

        async def go() -> dict[str, Any]:
            async with Raw(agent.grpc_address) as raw:
                return await raw.unary("SendMessage", send("threaded"))

        sent = asyncio.run(go())
        assert agent.task(sent["task"]["id"]) is not None
    assert artifact_text(sent["task"]) == "echo: threaded"


def test_an_http_steps_grpc_status_must_be_one() -> None:
    from mock_agent.loader import ScenarioError, resolve

    good = {**SCENARIO, "rules": [{"script": [{"http": {"status": 503, "grpc": 14}}]}]}
    assert resolve(good).rules
    bad = {**SCENARIO, "rules": [{"script": [{"http": {"status": 503, "grpc": "SLOW"}}]}]}
    with pytest.raises(ScenarioError, match="no gRPC status 'SLOW'"):
        resolve(bad)
