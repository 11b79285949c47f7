"""Tasks that stay WORKING: ``hold: GATE`` with ``until: message``, and the built-in
``long-running`` scenario made of it.

The task waits at the gate until a follow-up message on it, a cancel, a release by the
test, or the step's timeout: a client's list / get / cancel / subscribe meet a task that
is surely live. Tests wait for ``held`` (a server fact) before acting, never for time.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from inspector.protocol import models as m
from inspector.protocol.methods import Method
from mock_agent import MockAgent
from test_mock_support import DIALECT_NAMES, Wire, wire_state

GATE = "long-running"


@pytest.fixture(scope="module")
def client() -> Iterator[httpx.Client]:
    with httpx.Client(timeout=30) as c:
        yield c


@pytest.fixture(scope="module", params=DIALECT_NAMES)
def long_running(request: pytest.FixtureRequest) -> Iterator[tuple[MockAgent, str]]:
    with MockAgent("long-running", dialect=request.param) as agent:
        yield agent, request.param


def until(predicate: Callable[[], bool], what: str, timeout: float = 20.0) -> None:
    """Poll a server-side fact; the deadline only stops a broken test from hanging."""
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.005)


def start(w: Wire, mock: MockAgent, text: str) -> dict[str, Any]:
    """A long-running task, parked at its gate: the task as the mock holds it now."""
    before = mock.held(GATE)
    if w.name == "0.1":
        # tasks/send always blocks (there is no returnImmediately in 0.1): start the task
        # with a notification, which is processed and answered at once with a 204.
        task_id = f"t-{uuid.uuid4().hex[:8]}"
        request = w.request(Method.SEND, m.SendParams(message=w.message(text, task_id=task_id)))
        del request["id"]
        assert w.post(request).status_code == 204
        until(lambda: mock.held(GATE) == before + 1, "the task at its gate")
        return w.get(task_id)["result"]
    task = w.task_of(w.send(text, configuration={"blocking": False}))
    until(lambda: mock.held(GATE) == before + 1, "the task at its gate")
    return task


def test_the_task_stays_working_until_a_follow_up(long_running: tuple[MockAgent, str], client: httpx.Client) -> None:
    mock, dialect = long_running
    w = Wire(client, mock.url, dialect)
    task = start(w, mock, "build the report")
    got = w.get(task["id"])["result"]
    assert w.state_of(got) == wire_state(dialect, "working")
    assert w.artifact_text(got) == "started: build the report\n"
    # A follow-up on the task lets it go on; a blocking send waits for the end.
    done = w.task_of(w.send("ship it", task_id=task["id"], context_id=task.get("contextId")))
    assert w.state_of(done) == wire_state(dialect, "completed")
    assert w.artifact_text(done) == "started: build the report\nfinished after: ship it\n"
    history = w.get(task["id"])["result"]["history"]
    texts = [w.text_parts(h)[0] for h in history]
    assert texts == [
        "build the report",
        "working on: build the report (send a follow-up message on this task to finish it, or cancel it)",
        "ship it",
    ]


@pytest.mark.parametrize("dialect", ["0.3", "1.0"])
def test_list_get_subscribe_and_cancel_a_live_task(client: httpx.Client, dialect: str) -> None:
    with MockAgent("long-running", dialect=dialect) as mock:
        w = Wire(client, mock.url, dialect)
        task = start(w, mock, "watch me")
        if dialect == "1.0":
            listed = w.post(w.codec.encode_request(Method.LIST, m.ListTasksParams(status=m.TaskState.WORKING), 1))
            assert [t["id"] for t in listed.json()["result"]["tasks"]] == [task["id"]]
        canceled = w.cancel(task["id"])["result"]
        assert w.state_of(canceled) == wire_state(dialect, "canceled")
        until(lambda: mock.held(GATE) == 0, "the cancel to take the task off its gate")
        assert w.get(task["id"])["result"]["status"]["state"] == wire_state(dialect, "canceled")


@pytest.mark.parametrize("dialect", ["0.3", "1.0"])
def test_a_subscriber_sees_the_follow_up_finish_it(client: httpx.Client, dialect: str) -> None:
    with MockAgent("long-running", dialect=dialect) as mock:
        w = Wire(client, mock.url, dialect)
        task = start(w, mock, "first")
        # A follow-up sent as a stream: what the task does after it, live (the client
        # knows the task already: no snapshot of it first).
        response, events = w.stream("second", task_id=task["id"], context_id=task.get("contextId"))
        decoded = [w.decode(e) for e in events]
        assert not any(isinstance(e, m.Task) for e in decoded)
        assert isinstance(decoded[-1], m.TaskStatusUpdateEvent)
        assert decoded[-1].status.state is m.TaskState.COMPLETED
        chunks = [e for e in decoded if isinstance(e, m.TaskArtifactUpdateEvent)]
        assert [p.text for c in chunks for p in c.artifact.parts] == ["finished after: second\n"]
        assert chunks[0].last_chunk


def test_a_release_or_the_timeout_also_ends_the_wait(client: httpx.Client) -> None:
    with MockAgent("long-running", dialect="1.0") as mock:
        w = Wire(client, mock.url, "1.0")
        task = start(w, mock, "released")
        assert mock.release(GATE) == 1
        until(lambda: mock.task(task["id"]).state is m.TaskState.COMPLETED, "the task to complete")
        assert w.artifact_text(w.get(task["id"])["result"]).endswith("finished after: released\n")
    quick = {
        "card": {"name": "Quick"},
        "rules": [
            {
                "script": [
                    {"status": "working"},
                    {"hold": "g", "until": "message", "timeout": 0.01},
                    {"status": "completed"},
                ]
            }
        ],
    }
    with MockAgent(quick, dialect="1.0") as mock:
        w = Wire(client, mock.url, "1.0")
        # Blocking: answered once the timeout has let the task go on.
        assert w.state_of(w.task_of(w.send("wait"))) == "TASK_STATE_COMPLETED"


def test_without_until_a_message_to_a_held_task_is_still_refused(client: httpx.Client) -> None:
    holds = {
        "card": {"name": "Holds"},
        "rules": [{"script": [{"status": "working"}, {"hold": "plain"}, {"status": "completed"}]}],
    }
    with MockAgent(holds, dialect="0.3") as mock:
        w = Wire(client, mock.url, "0.3")
        task = w.task_of(w.send("x", configuration={"blocking": False}))
        until(lambda: mock.held("plain") == 1, "the task at its gate")
        body = w.send("again", task_id=task["id"], context_id=task["contextId"])
        assert body["error"]["code"] == -32004
        mock.release("plain")


def test_until_is_checked_when_the_scenario_loads() -> None:
    from mock_agent.loader import ScenarioError, load_text

    with pytest.raises(ScenarioError, match="until"):
        load_text("card: {name: x}\nrules: [{script: [{hold: g, until: reply}]}]\n", "held.yaml")
