"""The client's side judged through a live proxy: a hand-written client that breaks each
rule raises its ``client-*`` code (the official a2a-sdk client, through the same proxy,
raises none: tests/test_proxy_sdk.py)."""

from __future__ import annotations

from typing import Any

import httpx

from mock_agent import MockAgent
from proxy_helpers import MOCK_SCENARIO, proxy_to

V10 = {"A2A-Version": "1.0"}


def send(text: str, parts: Any = None, **extra: Any) -> dict[str, Any]:
    msg = {
        "messageId": f"m-{text}",
        "role": "ROLE_USER",
        "parts": [{"text": text}] if parts is None else parts,
        **extra,
    }
    return {"jsonrpc": "2.0", "id": text, "method": "SendMessage", "params": {"message": msg}}


async def test_each_client_fault_is_found_and_attributed_to_the_client() -> None:
    async with MockAgent(MOCK_SCENARIO, dialect="1.0") as mock, proxy_to(("", mock.base_url)) as (proxy, server):
        async with httpx.AsyncClient(base_url=server.base_url, timeout=20) as http:
            await http.post("/", json=send("no-version"))
            await http.post("/", json=send("empty", parts=[]), headers=V10)
            await http.post("/", content=b'{"jsonrpc": "2.0", "id": 1, "method": ', headers=V10)
            await http.post(
                "/", json={"jsonrpc": "1.0", "id": 1, "method": "GetTask", "params": {"id": "x"}}, headers=V10
            )
            asked = (await http.post("/", json=send("ask"), headers=V10)).json()["result"]["task"]
            assert asked["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
            await http.post("/", json=send("Paris", contextId=asked["contextId"]), headers=V10)
    found = [(v.code, v.exchange) for v in proxy.tracker.violations]
    assert [code for code, _ in found] == [
        "client-no-version",
        "client-empty-parts",
        "client-bad-envelope",
        "client-bad-envelope",
        "client-continuation-without-task",
    ]
    waiting = next(v for v in proxy.tracker.violations if v.code == "client-continuation-without-task")
    assert waiting.task_id == asked["id"]


def test_a_context_s_waiting_task_is_found_without_a_pass_over_every_task() -> None:
    """client-continuation-without-task names the newest waiting task of the message's
    context, read from the tracker's index of contexts (TaskTracker.in_context): a pass
    over every task the proxy had seen cost each such request more the longer it ran."""
    from inspector.protocol import models as m
    from inspector.proxy.checks import check_request
    from inspector.proxy.detect import Parsed
    from inspector.session import Kind, Session, TaskTracker

    session = Session()
    tracker = TaskTracker(session)
    S = m.TaskState

    def answer(task_id: str, context: str | None, state: m.TaskState) -> None:
        task = m.Task(id=task_id, context_id=context, status=m.TaskStatus(state=state))
        session.append(Kind.RESPONSE, {"status": 200}, exchange=session.new_exchange(), payload=task)

    answer("old", "c1", S.INPUT_REQUIRED)
    for i in range(50):
        answer(f"t{i}", f"other-{i}", S.INPUT_REQUIRED)
    answer("new", "c1", S.AUTH_REQUIRED)
    answer("done", "c1", S.COMPLETED)
    # A task first seen without its context, told it later: found by it all the same.
    answer("late", None, S.WORKING)
    answer("late", "c2", S.INPUT_REQUIRED)

    class NoPass(dict[str, Any]):
        def values(self) -> Any:
            raise AssertionError("a pass over every task")

        def __iter__(self) -> Any:
            raise AssertionError("a pass over every task")

        def items(self) -> Any:
            raise AssertionError("a pass over every task")

    tracker.tasks = NoPass(tracker.tasks)
    info = {"dialect": "1.0", "binding": "grpc", "a2a_method": "send"}

    def found(context: str) -> list[tuple[str, str | None]]:
        message = m.Message(role="user", parts=[m.TextPart(text="Paris")], message_id="m", context_id=context)
        params = m.SendParams(message=message)
        return [(code, task) for code, _text, task in check_request(Parsed(info), {}, params, tracker)]

    assert found("c1") == [("client-continuation-without-task", "new")]
    assert found("c2") == [("client-continuation-without-task", "late")]
    assert found("other-7") == [("client-continuation-without-task", "t7")]
    assert found("nowhere") == []
    assert [t.id for t in tracker.in_context("c1")] == ["old", "new", "done"]
