"""The matrix every binding runs (issue 15): card, send, stream, get, input-required
continued on the same task, cancel, subscribe, push config, against the real a2a-sdk
agent and against a2a-mock. One copy, called by test_rest_interop.py,
test_grpc_interop.py and test_grpc_mock.py with a client already on its binding; each
caller then checks the errors in its binding's own form (HTTP status or gRPC status)."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

from inspector.client import A2AClient
from inspector.protocol import models as m
from inspector.session.events import Kind
from mock_agent import MockAgent
from peers import sdk_agent
from test_mock_sdk_interop import SCENARIO

DIALECTS = ["1.0", "0.3"]
HOOK = "http://127.0.0.1:9/hook"

#: a2a-mock's side of the matrix: test_mock_sdk_interop's scenario (its ``hold`` gate is
#: "sdk"), with an input-required turn and a scripted error.
MOCK_SCENARIO: dict[str, Any] = {
    **SCENARIO,
    "rules": [
        {
            "when": {"text": "^ask"},
            "script": [{"ask": "what?", "then": [{"status": "completed", "message": "got {text}"}]}],
        },
        {"when": {"text": "^boom"}, "script": [{"error": {"code": -32004, "message": "not today"}}]},
        *SCENARIO["rules"],
    ],
}


def msg(text: str, task: m.Task | None = None, **config: Any) -> dict[str, Any]:
    message: dict[str, Any] = {
        "role": "user",
        "messageId": f"m-{uuid.uuid4()}",
        "parts": [{"kind": "text", "text": text}],
    }
    if task is not None:
        message.update(taskId=task.id, contextId=task.context_id)
    out: dict[str, Any] = {"message": message}
    if config:
        out["configuration"] = config
    return out


def message(text: str, task: m.Task | None = None) -> m.SendParams:
    """``msg`` as the typed params the client also takes."""
    return m.SendParams(
        message=m.Message(
            role=m.Role.USER,
            parts=[m.TextPart(text=text)],
            message_id=str(uuid.uuid4()),
            task_id=task.id if task else None,
            context_id=task.context_id if task else None,
        )
    )


def text_of(task: m.Task) -> str:
    return "".join(p.text for a in task.artifacts or () for p in a.parts if isinstance(p, m.TextPart))


def requests(client: A2AClient) -> list[dict[str, Any]]:
    """The client's requests to the agent (the card's GET left out)."""
    return [e.data for e in client.session.events if e.kind is Kind.REQUEST and e.data.get("a2a_method") != "card"]


async def until_held(mock: MockAgent, count: int = 1, gate: str = "sdk") -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 20
    while mock.held(gate) != count:
        assert loop.time() < deadline, "the task never reached its gate"
        await asyncio.sleep(0.005)


async def sdk_matrix(client: A2AClient, base: str) -> tuple[m.Task, m.Task]:
    """The a2a-sdk Echo Agent (tests/peers) at ``base``, over the client's binding.
    Returns (a completed task, the input-required task answered)."""
    card = await client.get_card()
    assert card.name == sdk_agent.AGENT_NAME
    task = await client.send(msg("hello there inspector"))
    assert task.status.state is m.TaskState.COMPLETED and text_of(task) == "echo: hello there inspector"

    events = [e async for e in client.stream(msg("stream me please now"))]
    assert [type(e).__name__ for e in events] == [
        "Task",
        "TaskStatusUpdateEvent",
        *["TaskArtifactUpdateEvent"] * 3,
        "TaskStatusUpdateEvent",
    ]
    assert events[-1].status.state is m.TaskState.COMPLETED

    got = await client.get_task(task.id, history_length=1)
    assert got.id == task.id and len(got.history or []) == 1

    asked = await client.send(msg("ask me something"))
    assert asked.status.state is m.TaskState.INPUT_REQUIRED
    answered = await client.send(msg("the answer", asked))
    assert answered.id == asked.id and answered.status.state is m.TaskState.COMPLETED
    assert text_of(answered) == "echo: the answer"

    pending = await client.send(msg("ask again"))
    canceled = await client.cancel(pending.id)
    assert canceled.status.state is m.TaskState.CANCELED

    # Subscribe to a live task, held at its first chunk until the test lets it go.
    stream = client.stream(msg("hold these words"))
    first = await anext(stream)
    await stream.aclose()
    await asyncio.to_thread(sdk_agent.wait_parked, base, first.id)
    subscribed = client.resubscribe(first.id)
    head = await anext(subscribed)
    assert isinstance(head, m.Task) and head.status.state is m.TaskState.WORKING
    await asyncio.to_thread(sdk_agent.release, base, first.id)
    rest = [e async for e in subscribed]
    assert rest[-1].status.state is m.TaskState.COMPLETED
    return task, answered


async def mock_matrix(client: A2AClient, mock: MockAgent) -> m.Task:
    """a2a-mock running MOCK_SCENARIO, over the client's binding. Returns a completed task."""
    card = await client.get_card()
    assert card.name == "Interop Agent"
    task = await client.send(msg("hi there"))
    assert task.status.state is m.TaskState.COMPLETED and text_of(task) == "echo: hi there"
    events = [e async for e in client.stream(msg("streamed"))]
    assert [type(e).__name__ for e in events] == [
        "Task",
        "TaskStatusUpdateEvent",
        "TaskArtifactUpdateEvent",
        "TaskArtifactUpdateEvent",
        "TaskStatusUpdateEvent",
    ]
    got = await client.get_task(task.id, history_length=1)
    assert got.id == task.id and len(got.history or []) == 1

    asked = await client.send(msg("ask me"))
    assert asked.status.state is m.TaskState.INPUT_REQUIRED
    answered = await client.send(msg("blue", asked))
    assert answered.id == asked.id and answered.status.state is m.TaskState.COMPLETED

    made = await client.set_push(task.id, {"url": HOOK, "id": "cfg-1", "token": "tok"})
    assert (made.task_id, made.push_notification_config.id) == (task.id, "cfg-1")
    fetched = await client.get_push(task.id, "cfg-1")
    assert fetched.push_notification_config.url == HOOK and fetched.push_notification_config.token == "tok"
    assert [c.push_notification_config.id for c in await client.list_push(task.id)] == ["cfg-1"]
    assert await client.delete_push(task.id, "cfg-1") is None
    assert await client.list_push(task.id) == []

    extended = await client.extended_card()
    assert extended.name == "Interop Agent (extended)"

    held = await client.send(msg("hold for cancel", blocking=False))
    await until_held(mock)
    assert (await client.cancel(held.id)).status.state is m.TaskState.CANCELED
    await until_held(mock, 0)

    stream = client.stream(msg("hold for subscribe"))
    first = await anext(stream)
    await stream.aclose()
    await until_held(mock)
    subscribed = client.resubscribe(first.id)
    head = await anext(subscribed)
    assert isinstance(head, m.Task) and head.status.state is m.TaskState.WORKING
    done = await client.send(msg("finish", first))
    assert done.status.state is m.TaskState.COMPLETED
    rest = [e async for e in subscribed]
    assert rest[-1].status.state is m.TaskState.COMPLETED
    return task
