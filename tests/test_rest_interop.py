"""The HTTP+JSON/REST binding end to end: a2a-inspect's client against the real a2a-sdk
1.3.0 agent (1.0, and its 0.3 compat routes under /v1) and against a2a-mock, the same
matrix on each: card, send, stream, get, cancel, subscribe, push config, input-required
continued on the same task, errors (HTTP status + ErrorInfo, mapped to JSON-RPC codes).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest

from binding_matrix import DIALECTS, HOOK, MOCK_SCENARIO, mock_matrix, msg, requests, sdk_matrix, until_held
from inspector.client import A2AClient
from inspector.protocol.rest import RestError
from inspector.session import TaskTracker
from inspector.session.events import Kind
from mock_agent import MockAgent
from test_mock_sdk_interop import SCENARIO


@asynccontextmanager
async def rest_client(url: str, dialect: str) -> AsyncIterator[A2AClient]:
    async with A2AClient(url, dialect=dialect, binding="rest") as client:
        yield client


# ---------------------------------------------------------------------- the a2a-sdk agent


@pytest.mark.parametrize("dialect", DIALECTS)
async def test_sdk_agent_over_rest(sdk_agent_compat: str, dialect: str) -> None:
    async with rest_client(sdk_agent_compat, dialect) as client:
        task, _ = await sdk_matrix(client, sdk_agent_compat)
        assert client.binding == "rest" and client.endpoint == sdk_agent_compat + "/rest"

        # Errors: the REST form, mapped onto the JSON-RPC codes, both kept.
        with pytest.raises(RestError) as raised:
            await client.get_task("no-such-task")
        assert (raised.value.code, raised.value.http_status, raised.value.reason) == (-32001, 404, "TASK_NOT_FOUND")
        with pytest.raises(RestError) as raised:
            await client.cancel(task.id)
        assert (raised.value.code, raised.value.reason) == (-32002, "TASK_NOT_CANCELABLE")
        # The agent's card says no push notifications: the agent refuses, in the REST form.
        with pytest.raises(RestError) as raised:
            await client.set_push(task.id, {"url": HOOK, "id": "c1"})
        assert raised.value.code == -32003 and raised.value.http_status == 400

    # A well-behaved agent over REST: nothing to report (the refusals above are answers).
    assert [v.code for v in TaskTracker(client.session).violations] == []
    sent = requests(client)
    assert {r["binding"] for r in sent} == {"rest"}
    prefix = sdk_agent_compat + ("/rest/v1/" if dialect == "0.3" else "/rest/")
    assert all(r["url"].startswith(prefix) for r in sent)
    get = next(r for r in sent if r["a2a_method"] == "get")
    assert get["method"] == "GET" and get["url"].endswith("?historyLength=1")


async def test_sdk_agent_rest_push_config_and_list_route(sdk_agent_v10: str) -> None:
    """ListTasks exists only in 1.0's REST routes; the pure 1.0 agent answers it."""
    async with rest_client(sdk_agent_v10, "1.0") as client:
        task = await client.send(msg("hello list"))
        listed = await client.list_tasks({"contextId": task.context_id, "pageSize": 5})
        assert [t.id for t in listed.tasks] == [task.id]
    (listing,) = [r for r in requests(client) if r["a2a_method"] == "list"]
    assert listing["method"] == "GET" and "pageSize=5" in listing["url"] and "contextId=" in listing["url"]


async def test_auto_binding_follows_the_card_and_says_why(sdk_agent_compat: str) -> None:
    # The card lists JSON-RPC first: auto takes it; asked for REST, the card's REST URL.
    async with A2AClient(sdk_agent_compat) as client:
        await client.resolve_dialect()
        assert client.binding == "jsonrpc" and client.binding_source == "card"
        assert "first 1.0 interface" in (client.binding_reason or "")
    async with A2AClient(sdk_agent_compat, binding="rest") as client:
        await client.resolve_dialect()
        assert (client.binding, client.endpoint) == ("rest", sdk_agent_compat + "/rest")
        notes = [e.data for e in client.session.events if e.kind is Kind.NOTE and e.data.get("binding")]
        assert notes and notes[-1]["binding_source"] == "user" and "HTTP+JSON" in notes[-1]["text"]


# ---------------------------------------------------------------------- a2a-mock


@pytest.mark.parametrize("dialect", DIALECTS)
async def test_mock_over_rest(dialect: str) -> None:
    async with MockAgent(MOCK_SCENARIO, dialect=dialect) as mock:
        async with rest_client(mock.base_url, dialect) as client:
            task = await mock_matrix(client, mock)
            assert client.endpoint == mock.base_url + "/rest"

            with pytest.raises(RestError) as raised:
                await client.get_task("no-such-task")
            assert (raised.value.code, raised.value.http_status, raised.value.status) == (-32001, 404, "NOT_FOUND")
            with pytest.raises(RestError) as raised:
                await client.cancel(task.id)
            assert (raised.value.code, raised.value.reason) == (-32002, "TASK_NOT_CANCELABLE")
            # A scripted error reaches the client in the REST form, on a send and on a stream.
            with pytest.raises(RestError) as raised:
                await client.send(msg("boom"))
            assert (raised.value.code, raised.value.http_status, raised.value.message) == (-32004, 400, "not today")
            with pytest.raises(RestError) as raised:
                [e async for e in client.stream(msg("boom again"))]
            assert raised.value.reason == "UNSUPPORTED_OPERATION"
            assert [v.code for v in TaskTracker(client.session).violations] == []
        routes = {r["route"] for r in mock.server.requests if isinstance(r, dict) and r.get("binding") == "rest"}
        v1 = "/v1" if dialect == "0.3" else ""
        assert f"POST {v1}/message:send" in routes and f"GET {v1}/tasks/{task.id}" in routes


async def test_mock_rest_refuses_1_0_without_version_header_as_the_sdk_does() -> None:
    import httpx

    async with MockAgent("echo", dialect="1.0") as mock:
        async with httpx.AsyncClient() as http:
            body = {"message": {"role": "ROLE_USER", "messageId": "r-2", "parts": [{"text": "x"}]}}
            r = await http.post(mock.base_url + "/rest/message:send", json=body)
            assert r.status_code == 400
            error = r.json()["error"]
            assert error["status"] == "FAILED_PRECONDITION"
            assert error["details"][0]["reason"] == "VERSION_NOT_SUPPORTED"
            r = await http.get(mock.base_url + "/rest/nowhere", headers={"A2A-Version": "1.0"})
            assert r.status_code == 404 and r.json()["error"]["details"][0]["reason"] == "METHOD_NOT_FOUND"
            r = await http.delete(mock.base_url + "/rest/message:send", headers={"A2A-Version": "1.0"})
            assert r.status_code == 405


async def test_mock_rest_http_fault_and_dropped_stream() -> None:
    from inspector.client import TransportError

    scenario = {
        "name": "faults",
        "card": {"name": "Faulty", "capabilities": {"streaming": True}},
        "rules": [
            {"when": {"text": "^http"}, "script": [{"http": {"status": 503, "body": "try later"}}]},
            {"when": {"text": "^drop"}, "script": [{"status": "working", "message": "going"}, {"drop": True}]},
        ],
    }
    async with MockAgent(scenario, dialect="1.0") as mock:
        async with rest_client(mock.base_url, "1.0") as client:
            with pytest.raises(TransportError) as raised:
                await client.send(msg("http please"))
            assert raised.value.kind == "http" and raised.value.status == 503
            seen: list[Any] = []
            with pytest.raises(TransportError) as raised:
                async for event in client.stream(msg("drop it")):
                    seen.append(event)
            assert raised.value.kind == "stream"
            assert [type(e).__name__ for e in seen] == ["Task", "TaskStatusUpdateEvent"]


# ---------------------------------------------------------------------- the a2a-sdk client


@asynccontextmanager
async def sdk_rest_client(mock: MockAgent, *, streaming: bool) -> AsyncIterator[Any]:
    import httpx
    from a2a.client import ClientConfig, ClientFactory

    async with httpx.AsyncClient(timeout=30) as http:
        config = ClientConfig(streaming=streaming, httpx_client=http, supported_protocol_bindings=["HTTP+JSON"])
        client = await ClientFactory(config).create_from_url(mock.base_url)
        try:
            yield client
        finally:
            await client.close()


@pytest.mark.parametrize("dialect", DIALECTS)
async def test_the_sdk_rest_client_against_the_mock(dialect: str) -> None:
    from a2a.types import a2a_pb2 as pb

    from test_mock_sdk_interop import message, texts

    S = pb.TaskState
    async with MockAgent(SCENARIO, dialect=dialect) as mock:
        async with sdk_rest_client(mock, streaming=False) as client:
            assert "Rest" in type(client._transport).__name__
            (sent,) = [r async for r in client.send_message(message("hi there"))]
            task = sent.task
            assert task.status.state == S.TASK_STATE_COMPLETED and texts(task.artifacts[0].parts) == "echo: hi there"
            got = await client.get_task(pb.GetTaskRequest(id=task.id, history_length=1))
            assert got.id == task.id and len(got.history) == 1
            if dialect == "1.0":
                listed = await client.list_tasks(pb.ListTasksRequest(page_size=10, context_id=task.context_id))
                assert [t.id for t in listed.tasks] == [task.id]
            made = await client.create_task_push_notification_config(
                pb.TaskPushNotificationConfig(task_id=task.id, id="cfg-1", url=HOOK, token="tok")
            )
            assert (made.task_id, made.id, made.url) == (task.id, "cfg-1", HOOK)
            fetched = await client.get_task_push_notification_config(
                pb.GetTaskPushNotificationConfigRequest(task_id=task.id, id="cfg-1")
            )
            assert fetched.url == HOOK and fetched.token == "tok"
            if dialect == "1.0":  # (a2a-sdk's 0.3 REST client has no list or delete)
                configs = await client.list_task_push_notification_configs(
                    pb.ListTaskPushNotificationConfigsRequest(task_id=task.id)
                )
                assert [c.id for c in configs.configs] == ["cfg-1"]
                await client.delete_task_push_notification_config(
                    pb.DeleteTaskPushNotificationConfigRequest(task_id=task.id, id="cfg-1")
                )
            (held,) = [r async for r in client.send_message(message("hold for cancel", return_immediately=True))]
            await until_held(mock)
            canceled = await client.cancel_task(pb.CancelTaskRequest(id=held.task.id))
            assert canceled.status.state == S.TASK_STATE_CANCELED
            await until_held(mock, 0)
            from a2a.utils.errors import MethodNotFoundError, TaskNotFoundError

            # a2a-sdk's 0.3 REST client reads any 404 as "method not found", whatever the body
            # (its own 0.3 server sends the same TASK_NOT_FOUND body, wire capture 46).
            with pytest.raises(TaskNotFoundError if dialect == "1.0" else MethodNotFoundError):
                await client.get_task(pb.GetTaskRequest(id="no-such-task"))
        async with sdk_rest_client(mock, streaming=True) as client:
            events = [e async for e in client.send_message(message("streamed"))]
            kinds = [e.WhichOneof("payload") for e in events]
            assert kinds == ["task", "status_update", "artifact_update", "artifact_update", "status_update"]
            stream = client.send_message(message("hold for subscribe"))
            first = await anext(stream)
            await stream.aclose()
            await until_held(mock)
            subscribed = client.subscribe(pb.SubscribeToTaskRequest(id=first.task.id))
            head = await anext(subscribed)
            assert head.task.status.state == S.TASK_STATE_WORKING
            async with sdk_rest_client(mock, streaming=False) as other:
                (done,) = [r async for r in other.send_message(message("finish", task_id=first.task.id))]
            rest = [e async for e in subscribed]
            assert rest[-1].status_update.status.state == S.TASK_STATE_COMPLETED
            assert done.task.status.state == S.TASK_STATE_COMPLETED
    assert {r["binding"] for r in mock.server.requests if isinstance(r, dict) and "binding" in r} == {"rest"}


async def test_a_tenant_on_the_card_prefixes_every_route() -> None:
    """1.0 interfaces may name a tenant: it goes first in the path ({tenant}/message:send)."""
    import httpx

    seen: list[str] = []
    card = {
        "name": "Tenanted",
        "version": "1",
        "description": "",
        "capabilities": {"streaming": True},
        "defaultInputModes": [],
        "defaultOutputModes": [],
        "skills": [],
        "supportedInterfaces": [
            {"url": "http://agent.test/api", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0", "tenant": "acme"}
        ],
    }
    task = {"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_COMPLETED"}}

    class Body(httpx.AsyncByteStream):
        def __init__(self, doc: Any) -> None:
            self.raw = json.dumps(doc).encode()

        async def __aiter__(self) -> AsyncIterator[bytes]:
            yield self.raw

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(f"{request.method} {request.url.path}")
        if request.url.path.endswith("agent-card.json"):
            return httpx.Response(200, stream=Body(card), headers={"content-type": "application/json"})
        return httpx.Response(
            200,
            stream=Body({"task": task} if request.method == "POST" else task),
            headers={"content-type": "application/a2a+json"},
        )

    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as http:
        async with A2AClient("http://agent.test/", http=http) as client:
            sent = await client.send(msg("hi"))
            got = await client.get_task("t1")
            assert sent.id == got.id == "t1"
            assert (client.binding, client.tenant) == ("rest", "acme")
            assert "first 1.0 interface" in (client.binding_reason or "")
    assert seen[-2:] == ["POST /api/acme/message:send", "GET /api/acme/tasks/t1"]


class _Body(httpx.AsyncByteStream):
    def __init__(self, raw: bytes) -> None:
        self.raw = raw

    async def __aiter__(self) -> AsyncIterator[bytes]:
        yield self.raw


class _TenantCard(httpx.AsyncBaseTransport):
    """Forwards everything to the real mock; only the card gains a tenant on its 1.0
    HTTP+JSON and GRPC interfaces (the mock serves any tenant: the prefix is routing)."""

    def __init__(self, tenant: str) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.tenant = tenant
        self.paths: list[str] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.paths.append(f"{request.method} {request.url.path}")
        response = await self.inner.handle_async_request(request)
        if not request.url.path.endswith("agent-card.json"):
            return response
        card = json.loads(await response.aread())
        for interface in card.get("supportedInterfaces", []):
            if interface["protocolBinding"] != "JSONRPC" and interface["protocolVersion"] == "1.0":
                interface["tenant"] = self.tenant
        return httpx.Response(
            200, stream=_Body(json.dumps(card).encode()), headers={"content-type": "application/json"}
        )

    async def aclose(self) -> None:
        await self.inner.aclose()


async def test_the_tenant_prefix_against_the_mock() -> None:
    """A 1.0 tenant goes first in every REST path ({tenant}/message:send): the mock
    routes it, and both the inspector's client and a2a-sdk's put it there (a2a-sdk's
    gRPC client in the request messages' tenant field)."""
    import grpc
    from a2a.client import ClientConfig, ClientFactory
    from a2a.types import a2a_pb2 as pb

    from test_mock_sdk_interop import message

    async with MockAgent(SCENARIO, dialect="1.0", grpc_port=0) as mock:
        async with httpx.AsyncClient() as http:  # the routes themselves
            body = {"message": {"role": "ROLE_USER", "messageId": "t-1", "parts": [{"text": "hi"}]}}
            sent = await http.post(mock.base_url + "/rest/acme/message:send", json=body, headers={"A2A-Version": "1.0"})
            task_id = sent.json()["task"]["id"]
            got = await http.get(f"{mock.base_url}/rest/acme/tasks/{task_id}", headers={"A2A-Version": "1.0"})
            assert got.status_code == 200 and got.json()["id"] == task_id
        tenanted = _TenantCard("acme")
        async with httpx.AsyncClient(transport=tenanted) as http:
            async with A2AClient(mock.base_url, http=http, binding="rest") as client:
                task = await client.send(msg("inspector"))
                assert (await client.get_task(task.id)).id == task.id
                assert client.tenant == "acme"
        assert [p for p in tenanted.paths if "/rest/" in p] == [
            "POST /rest/acme/message:send",
            f"GET /rest/acme/tasks/{task.id}",
        ]
        for binding in ("HTTP+JSON", "GRPC"):
            tenanted = _TenantCard("acme")
            async with httpx.AsyncClient(transport=tenanted) as http:
                config = ClientConfig(
                    streaming=False,
                    httpx_client=http,
                    supported_protocol_bindings=[binding],
                    grpc_channel_factory=grpc.aio.insecure_channel,
                )
                client = await ClientFactory(config).create_from_url(mock.base_url)
                try:
                    (reply,) = [r async for r in client.send_message(message("sdk"))]
                    got = await client.get_task(pb.GetTaskRequest(id=reply.task.id))
                    assert got.id == reply.task.id
                finally:
                    await client.close()
            if binding == "HTTP+JSON":
                assert [p for p in tenanted.paths if "/rest/" in p] == [
                    "POST /rest/acme/message:send",
                    f"GET /rest/acme/tasks/{reply.task.id}",
                ]
        grpc_calls = [r for r in mock.requests if isinstance(r, dict) and r.get("binding") == "grpc"]
        assert [(r["rpc"], r["body"].get("tenant")) for r in grpc_calls] == [
            ("SendMessage", "acme"),
            ("GetTask", "acme"),
        ]


REST_REFUSED = [
    ("GET", "/tasks/t?historyLength=-1", None, "$.params.historyLength"),
    ("GET", "/tasks/t?historyLength=two", None, "$.params.historyLength"),
    ("GET", "/tasks?pageSize=0", None, "$.params.pageSize"),
    ("GET", "/tasks?pageSize=101", None, "$.params.pageSize"),
    ("GET", "/tasks?statusTimestampAfter=yesterday", None, "$.params.statusTimestampAfter"),
    ("GET", "/tasks?status=TASK_STATE_BOGUS", None, "$.params.status"),
    ("GET", "/tasks?includeArtifacts=maybe", None, "$.params.includeArtifacts"),
    ("POST", "/tasks/t/pushNotificationConfigs", {"token": "t"}, "$.params.url"),
    ("POST", "/tasks/t/pushNotificationConfigs", {"url": HOOK, "authentication": {}}, "$.params.authentication"),
    ("POST", "/tasks/t:cancel", {"metadata": [1]}, "$.params.metadata"),
]


@pytest.mark.parametrize("case", REST_REFUSED, ids=[f"{c[0]} {c[1]} {c[3]}" for c in REST_REFUSED])
async def test_the_strict_mock_checks_every_1_0_rest_method(case: tuple[Any, ...]) -> None:
    """Strict mode checks each 1.0 REST request against the 1.0 schema, as over JSON-RPC
    (test_mock_strict.py's table): 400 INVALID_PARAMS naming the field; lenient takes it."""
    verb, path, body, field = case
    headers = {"A2A-Version": "1.0"}
    async with MockAgent(SCENARIO, dialect="1.0") as strict, MockAgent(SCENARIO, dialect="1.0", lenient=True) as lax:
        async with httpx.AsyncClient() as http:
            r = await http.request(verb, strict.base_url + "/rest" + path, json=body, headers=headers)
            assert r.status_code == 400, r.text
            error = r.json()["error"]
            assert error["status"] == "INVALID_ARGUMENT" and error["details"][0]["reason"] == "INVALID_PARAMS"
            assert field in json.dumps(error["details"])
            r = await http.request(verb, lax.base_url + "/rest" + path, json=body, headers=headers)
            assert not (r.status_code == 400 and field in r.text), r.text  # not the strict refusal
