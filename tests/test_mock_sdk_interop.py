"""The official a2a-sdk 1.3.0 client against the strict mock, in 1.0 and through its 0.3
compat transports, over each binding (JSON-RPC, HTTP+JSON/REST, gRPC): every method the
SDK offers is accepted as the SDK sends it, its errors reach the caller typed, and every
refusal of test_mock_strict.py's table reaches the SDK's caller as its typed
error (InvalidParamsError for -32602, InvalidRequestError for -32600).

The SDK builds valid requests, so for the refusals its outgoing request is rewritten on
the way (a buggy client, in effect): an httpx transport swaps in the table's params
before the request goes to the real mock over loopback.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest

from inspector.protocol.methods import Method
from inspector.protocol.rest import ROUTES as REST_ROUTES
from mock_agent import MockAgent
from test_mock_strict import REFUSED

DIALECTS = ["1.0", "0.3"]
BINDINGS = ["JSONRPC", "HTTP+JSON", "GRPC"]
#: What the SDK's client cannot send over a binding (it raises NotImplementedError).
SDK_LACKS = {("0.3", "HTTP+JSON"): {Method.PUSH_LIST, Method.PUSH_DELETE}}
TRANSPORT = {
    ("1.0", "JSONRPC"): "JsonRpcTransport",
    ("0.3", "JSONRPC"): "CompatJsonRpcTransport",
    ("1.0", "HTTP+JSON"): "RestTransport",
    ("0.3", "HTTP+JSON"): "CompatRestTransport",
    ("1.0", "GRPC"): "GrpcTransport",
    ("0.3", "GRPC"): "CompatGrpcTransport",
}
HOOK = "http://127.0.0.1:9/hook"

SCENARIO: dict[str, Any] = {
    "name": "sdk-interop",
    "card": {
        "name": "Interop Agent",
        "description": "Every method, for the a2a-sdk client.",
        "version": "1.0.0",
        "capabilities": {"streaming": True, "pushNotifications": True, "extendedAgentCard": True},
        "supportsAuthenticatedExtendedCard": True,
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "echo", "name": "Echo", "description": "Echoes.", "tags": ["echo"]}],
    },
    "extended_card": {"name": "Interop Agent (extended)", "description": "More.", "version": "1.0.0"},
    "rules": [
        {
            "when": {"text": "^hold"},
            "script": [
                {"status": "working", "message": "holding"},
                {"hold": "sdk", "until": "message", "timeout": 60},
                {"artifact": {"id": "echo", "name": "echo", "text": "echo: {text}"}},
                {"status": "completed", "message": "done"},
            ],
        },
        {
            "script": [
                {"status": "working", "message": "echoing"},
                {"chunks": {"id": "echo", "name": "echo", "texts": ["echo: ", "{text}"]}},
                {"status": "completed", "message": "done"},
            ]
        },
    ],
}


class Rewrite(httpx.AsyncBaseTransport):
    """Forwards to the real mock, after ``edit`` has changed each JSON-RPC request."""

    def __init__(self, edit: Callable[[dict[str, Any]], None] | None = None) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.edit = edit
        self.methods: list[str] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.method == "POST" and self.edit is not None:
            body = json.loads(await request.aread())
            self.methods.append(body.get("method"))
            self.edit(body)
            content = json.dumps(body).encode()
            headers = [(k, v) for k, v in request.headers.items() if k.lower() != "content-length"]
            request = httpx.Request(
                "POST", request.url, headers=[*headers, ("content-length", str(len(content)))], content=content
            )
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


@asynccontextmanager
async def sdk_client(
    mock: MockAgent, *, streaming: bool, rewrite: Rewrite | None = None, binding: str = "JSONRPC"
) -> AsyncIterator[Any]:
    """The SDK's client for ``mock``, made as its users make it: from the card, the
    interface of ``binding`` picked by the SDK's own factory."""
    import grpc
    from a2a.client import ClientConfig, ClientFactory

    _sdk_compat_grpc()
    async with httpx.AsyncClient(timeout=30, transport=rewrite or httpx.AsyncHTTPTransport()) as http:
        config = ClientConfig(
            streaming=streaming,
            httpx_client=http,
            supported_protocol_bindings=[binding],
            grpc_channel_factory=grpc.aio.insecure_channel,
        )
        client = await ClientFactory(config).create_from_url(mock.base_url)
        try:
            yield client
        finally:
            await client.close()


def _sdk_compat_grpc() -> None:
    """a2a-sdk 1.3.0's client factory imports its 0.3 gRPC transport in a try block; when
    a2a.server.routes is imported first (tests/peers/sdk_agent.py is, by conftest), that
    import runs inside an import cycle (a2a.compat.v0_3.extension_headers, partially
    initialised), fails, and the factory silently falls back to the 1.0 transport for 0.3
    gRPC interfaces. Imported again now, outside the cycle, it loads: give it back."""
    import a2a.client.client_factory as factory

    if factory.CompatGrpcTransport is None:
        from a2a.compat.v0_3.grpc_transport import CompatGrpcTransport

        factory.CompatGrpcTransport = CompatGrpcTransport


def message(text: str, task_id: str | None = None, **config: Any) -> Any:
    from a2a.types import a2a_pb2 as pb

    msg = pb.Message(message_id=f"m-{uuid.uuid4()}", role=pb.Role.ROLE_USER, parts=[pb.Part(text=text)])
    if task_id:
        msg.task_id = task_id
    return pb.SendMessageRequest(message=msg, configuration=pb.SendMessageConfiguration(**config) if config else None)


def texts(parts: Any) -> str:
    return "".join(p.text for p in parts)


async def until_held(mock: MockAgent, count: int = 1) -> None:
    import asyncio

    loop = asyncio.get_running_loop()
    deadline = loop.time() + 20
    while mock.held("sdk") != count:
        assert loop.time() < deadline, "the task never reached its gate"
        await asyncio.sleep(0.005)


# ---------------------------------------------------------------------- every method, accepted


@pytest.mark.parametrize("binding", BINDINGS)
@pytest.mark.parametrize("dialect", DIALECTS)
async def test_every_method_the_sdk_sends_is_accepted(dialect: str, binding: str) -> None:
    from a2a.types import a2a_pb2 as pb

    S = pb.TaskState
    async with MockAgent(SCENARIO, dialect=dialect, grpc_port=0) as mock:
        async with sdk_client(mock, streaming=False, binding=binding) as client:
            assert type(client._transport).__name__ == TRANSPORT[dialect, binding]
            (sent,) = [r async for r in client.send_message(message("hi there"))]
            task = sent.task
            assert task.status.state == S.TASK_STATE_COMPLETED and texts(task.artifacts[0].parts) == "echo: hi there"
            got = await client.get_task(pb.GetTaskRequest(id=task.id, history_length=1))
            assert got.id == task.id and len(got.history) == 1
            if dialect == "1.0":
                listed = await client.list_tasks(
                    pb.ListTasksRequest(page_size=10, status=S.TASK_STATE_COMPLETED, context_id=task.context_id)
                )
                assert [t.id for t in listed.tasks] == [task.id]
            made = await client.create_task_push_notification_config(
                pb.TaskPushNotificationConfig(task_id=task.id, id="cfg-1", url=HOOK, token="tok")
            )
            assert (made.task_id, made.id, made.url) == (task.id, "cfg-1", HOOK)
            fetched = await client.get_task_push_notification_config(
                pb.GetTaskPushNotificationConfigRequest(task_id=task.id, id="cfg-1")
            )
            assert fetched.url == HOOK and fetched.token == "tok"
            lacks = SDK_LACKS.get((dialect, binding), set())
            if Method.PUSH_LIST not in lacks:
                configs = await client.list_task_push_notification_configs(
                    pb.ListTaskPushNotificationConfigsRequest(task_id=task.id)
                )
                assert [c.id for c in configs.configs] == ["cfg-1"]
            if Method.PUSH_DELETE not in lacks:
                await client.delete_task_push_notification_config(
                    pb.DeleteTaskPushNotificationConfigRequest(task_id=task.id, id="cfg-1")
                )
            extended = await client.get_extended_agent_card(pb.GetExtendedAgentCardRequest())
            assert extended.name == "Interop Agent (extended)"
            # A live task: cancel it.
            (held,) = [r async for r in client.send_message(message("hold for cancel", return_immediately=True))]
            await until_held(mock)
            canceled = await client.cancel_task(pb.CancelTaskRequest(id=held.task.id))
            assert canceled.status.state == S.TASK_STATE_CANCELED
            await until_held(mock, 0)
        async with sdk_client(mock, streaming=True, binding=binding) as client:
            events = [e async for e in client.send_message(message("streamed"))]
            kinds = [e.WhichOneof("payload") for e in events]
            assert kinds == ["task", "status_update", "artifact_update", "artifact_update", "status_update"]
            assert texts(p for e in events[2:4] for p in e.artifact_update.artifact.parts) == "echo: streamed"
            # Subscribe to a live task, then finish it with a follow-up message.
            stream = client.send_message(message("hold for subscribe"))
            first = await anext(stream)
            await stream.aclose()
            await until_held(mock)
            subscribed = client.subscribe(pb.SubscribeToTaskRequest(id=first.task.id))
            head = await anext(subscribed)
            assert head.task.status.state == S.TASK_STATE_WORKING
            (done,) = [r async for r in _blocking(mock, message("finish", task_id=first.task.id), binding)]
            rest = [e async for e in subscribed]
            assert rest[-1].status_update.status.state == S.TASK_STATE_COMPLETED
            assert done.task.status.state == S.TASK_STATE_COMPLETED
            assert texts(done.task.artifacts[0].parts) == "echo: finish"
        requests = mock.requests
    from inspector.protocol.grpc_codec import METHODS as RPCS
    from mock_agent.request_shapes import METHODS

    # Every method of the dialect, each answered with a result above.
    if binding == "JSONRPC":
        assert {r["method"] for r in requests} == set(METHODS[dialect])
    elif binding == "GRPC":
        assert {r["rpc"] for r in requests} == set(RPCS[dialect])
    else:
        # (The SDK subscribes with POST.)
        expected = {
            f"{'POST' if method is Method.RESUBSCRIBE else verb} {_route(path)}"
            for method, (verb, path) in REST_ROUTES[dialect].items()
            if method not in lacks
        }
        assert {f"{r['route'].split(' ')[0]} {_route(r['route'].split(' ')[1])}" for r in requests} == expected


def _route(path: str) -> str:
    """A REST path with its ids as *: /tasks/abc:cancel -> /tasks/*:cancel."""
    import re

    path = path.removeprefix("/v1")
    path = re.sub(r"/tasks/[^/:]+", "/tasks/*", path)
    return re.sub(r"/pushNotificationConfigs/[^/:]+", "/pushNotificationConfigs/*", path)


async def _blocking(mock: MockAgent, request: Any, binding: str = "JSONRPC") -> AsyncIterator[Any]:
    async with sdk_client(mock, streaming=False, binding=binding) as client:
        async for reply in client.send_message(request):
            yield reply


# ---------------------------------------------------------------------- every refusal, typed


CALLS = {
    "SendMessage": "send",
    "message/send": "send",
    "SendStreamingMessage": "stream",
    "message/stream": "stream",
    "GetTask": "get",
    "tasks/get": "get",
    "CancelTask": "cancel",
    "tasks/cancel": "cancel",
    "SubscribeToTask": "subscribe",
    "tasks/resubscribe": "subscribe",
    "ListTasks": "list",
    "CreateTaskPushNotificationConfig": "push-set",
    "tasks/pushNotificationConfig/set": "push-set",
    "GetTaskPushNotificationConfig": "push-get",
    "tasks/pushNotificationConfig/get": "push-get",
    "ListTaskPushNotificationConfigs": "push-list",
    "tasks/pushNotificationConfig/list": "push-list",
    "DeleteTaskPushNotificationConfig": "push-delete",
    "tasks/pushNotificationConfig/delete": "push-delete",
    "GetExtendedAgentCard": "card",
}


async def call(client: Any, what: str) -> None:
    """Make the SDK send ``what`` (its params are replaced on the way)."""
    from a2a.types import a2a_pb2 as pb

    if what in ("send", "stream"):
        [r async for r in client.send_message(message("x"))]
    elif what == "get":
        await client.get_task(pb.GetTaskRequest(id="x"))
    elif what == "cancel":
        await client.cancel_task(pb.CancelTaskRequest(id="x"))
    elif what == "subscribe":
        [r async for r in client.subscribe(pb.SubscribeToTaskRequest(id="x"))]
    elif what == "list":
        await client.list_tasks(pb.ListTasksRequest())
    elif what == "push-set":
        await client.create_task_push_notification_config(pb.TaskPushNotificationConfig(task_id="x", url=HOOK))
    elif what == "push-get":
        await client.get_task_push_notification_config(pb.GetTaskPushNotificationConfigRequest(task_id="x", id="c"))
    elif what == "push-list":
        await client.list_task_push_notification_configs(pb.ListTaskPushNotificationConfigsRequest(task_id="x"))
    elif what == "push-delete":
        await client.delete_task_push_notification_config(
            pb.DeleteTaskPushNotificationConfigRequest(task_id="x", id="c")
        )
    else:
        await client.get_extended_agent_card(pb.GetExtendedAgentCardRequest())


SDK_CASES = [c for c in REFUSED if c[0] in DIALECTS]


@pytest.fixture(scope="module")
def mocks() -> Any:
    agents = {d: MockAgent(SCENARIO, dialect=d).start() for d in DIALECTS}
    try:
        yield agents
    finally:
        for agent in agents.values():
            agent.stop()


@pytest.mark.parametrize("case", SDK_CASES, ids=[f"{c[0]}-{c[1]}-{c[4].removeprefix('$.params')}" for c in SDK_CASES])
async def test_each_refusal_is_the_sdks_typed_error(mocks: dict[str, MockAgent], case: tuple[Any, ...]) -> None:
    from a2a.utils.errors import InvalidParamsError, InvalidRequestError

    dialect, method, params, code, path = case

    def edit(body: dict[str, Any]) -> None:
        assert body["method"] == method, f"the SDK sent {body['method']}, the case is about {method}"
        if params is ...:
            body.pop("params", None)
        else:
            body["params"] = params

    rewrite = Rewrite(edit)
    what = CALLS[method]
    expected = {-32602: InvalidParamsError, -32600: InvalidRequestError}[code]
    async with sdk_client(mocks[dialect], streaming=what in ("stream", "subscribe"), rewrite=rewrite) as client:
        with pytest.raises(expected) as raised:
            await call(client, what)
    assert rewrite.methods == [method]
    assert path in str(raised.value)


@pytest.mark.parametrize("binding", BINDINGS)
@pytest.mark.parametrize("dialect", DIALECTS)
async def test_input_required_and_typed_errors_over_each_binding(dialect: str, binding: str) -> None:
    from a2a.client.errors import A2AClientError
    from a2a.types import a2a_pb2 as pb
    from a2a.utils.errors import MethodNotFoundError, TaskNotCancelableError, TaskNotFoundError

    S = pb.TaskState
    not_found, not_cancelable = TaskNotFoundError, TaskNotCancelableError
    if (dialect, binding) == ("0.3", "HTTP+JSON"):
        # The SDK's 0.3 REST client reads an error's type from a "type" field that its own
        # server (wire capture 46) and the mock do not send: any 404 is "resource not
        # found", any other status untyped.
        not_found, not_cancelable = MethodNotFoundError, A2AClientError
    async with MockAgent("input-required", dialect=dialect, grpc_port=0) as mock:
        async with sdk_client(mock, streaming=False, binding=binding) as client:
            (first,) = [r async for r in client.send_message(message("ask me"))]
            assert first.task.status.state == S.TASK_STATE_INPUT_REQUIRED
            (second,) = [r async for r in client.send_message(message("Oslo", task_id=first.task.id))]
            assert second.task.id == first.task.id and second.task.status.state == S.TASK_STATE_COMPLETED
            assert "Oslo" in texts(second.task.artifacts[0].parts)
            with pytest.raises(not_found):
                await client.get_task(pb.GetTaskRequest(id="no-such-task"))
            with pytest.raises(not_cancelable):
                await client.cancel_task(pb.CancelTaskRequest(id=first.task.id))
        async with sdk_client(mock, streaming=True, binding=binding) as client:
            events = [e async for e in client.send_message(message("ask again"))]
            assert events[-1].status_update.status.state == S.TASK_STATE_INPUT_REQUIRED
            task_id = events[0].task.id
            more = [e async for e in client.send_message(message("Bergen", task_id=task_id))]
            assert {e.status_update.task_id for e in more if e.HasField("status_update")} == {task_id}
            assert more[-1].status_update.status.state == S.TASK_STATE_COMPLETED
            with pytest.raises(not_found):
                [e async for e in client.subscribe(pb.SubscribeToTaskRequest(id="no-such-task"))]
