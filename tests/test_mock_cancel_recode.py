"""a2a-mock's faults outside a script: a cancel it accepts but does not carry out
(``cancel: ignore | pretend``), and its own errors answered with wrong codes (``recode``).
Over JSON-RPC in 0.3; tests/test_check.py runs both on every binding and dialect."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from mock_agent import MockAgent, ScenarioError


def scenario(**faults: Any) -> dict[str, Any]:
    return {
        "name": "faults",
        "card": {"name": "t", "capabilities": {"streaming": True}},
        **faults,
        "rules": [
            {
                "script": [
                    {"status": "working"},
                    {"hold": "work", "timeout": 60},
                    {"status": "completed", "message": "done"},
                ]
            }
        ],
    }


def call(mock: MockAgent, method: str, params: dict[str, Any]) -> dict[str, Any]:
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    return httpx.post(mock.url, json=body, timeout=10).json()


def start(mock: MockAgent) -> str:
    """A task left working at the hold (a send that does not wait)."""
    message = {
        "kind": "message",
        "role": "user",
        "messageId": str(uuid.uuid4()),
        "parts": [{"kind": "text", "text": "work"}],
    }
    answer = call(mock, "message/send", {"message": message, "configuration": {"blocking": False}})
    wait_until(lambda: mock.held("work") == 1, "the task never reached its hold")
    return answer["result"]["id"]


def wait_until(done: Callable[[], bool], what: str) -> None:
    # What is awaited is the engine's next step, which nothing else holds up: the bound
    # is there only so that a broken mock fails the test instead of hanging it.
    deadline = time.monotonic() + 10
    while not done():
        assert time.monotonic() < deadline, what
        time.sleep(0.01)


def state(mock: MockAgent, task_id: str) -> str:
    return call(mock, "tasks/get", {"id": task_id})["result"]["status"]["state"]


@pytest.mark.parametrize(("mode", "answered"), [("ignore", "working"), ("pretend", "canceled")])
def test_a_cancel_accepted_but_not_carried_out(mode: str, answered: str) -> None:
    with MockAgent(scenario(cancel=mode)) as mock:
        task_id = start(mock)
        assert call(mock, "tasks/cancel", {"id": task_id})["result"]["status"]["state"] == answered
        # The task goes on as if no cancel had come: still held, then completed.
        assert state(mock, task_id) == "working"
        assert mock.release("work") == 1
        wait_until(lambda: state(mock, task_id) == "completed", "the released task never completed")
        # A cancel of the finished task is refused as ever.
        assert call(mock, "tasks/cancel", {"id": task_id})["error"]["code"] == -32002


def test_the_default_cancel_ends_the_task_canceled() -> None:
    with MockAgent(scenario()) as mock:
        task_id = start(mock)
        assert call(mock, "tasks/cancel", {"id": task_id})["result"]["status"]["state"] == "canceled"
        assert state(mock, task_id) == "canceled"


def test_recode_answers_the_mocks_own_errors_with_other_codes() -> None:
    recode = [
        {"code": -32001, "methods": ["get"], "as": {"code": -32603, "message": "Internal error"}},
        {"code": -32601, "as": -32600},
        {"code": -32009, "as": -32602},
    ]
    with MockAgent(scenario(recode=recode)) as mock:
        unknown = {"id": f"missing-{uuid.uuid4()}"}
        got = call(mock, "tasks/get", unknown)["error"]
        assert (got["code"], got["message"]) == (-32603, "Internal error")
        # Only for the methods named: a cancel of the same unknown id keeps -32001.
        assert call(mock, "tasks/cancel", unknown)["error"]["code"] == -32001
        # A rule without methods covers a request that names no method the mock knows.
        assert call(mock, "tasks/frobnicate", {})["error"]["code"] == -32600
        # A 1.0 method without its A2A-Version header (-32009), refused before dispatch.
        assert call(mock, "GetTask", unknown)["error"]["code"] == -32602


def test_faults_spelled_wrong_are_refused_by_name() -> None:
    with pytest.raises(ScenarioError, match=r"recode\[0\]\.as: missing required field 'as'"):
        MockAgent(scenario(recode=[{"code": -32001}]))
    with pytest.raises(ScenarioError, match="cancel: Input should be 'cancel', 'ignore' or 'pretend'"):
        MockAgent(scenario(cancel="sometimes"))
