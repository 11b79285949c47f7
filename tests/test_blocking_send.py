"""The blocking rule (blocking-not-final) as 1.0 states it: a SendMessage without
``returnImmediately: true`` MUST be answered once the task is terminal or interrupted.

Raised on every binding against an agent that answers early on purpose (a2a-mock's
``errors`` scenario, "no final": working, then the script ends); never raised against
the well-behaved peers (the a2a-sdk Echo Agent on JSON-RPC, HTTP+JSON and gRPC, and
every built-in a2a-mock scenario on all three: JSON-RPC in test_verdicts_clean), nor
when the client asked for the early answer (``--return-immediately``), nor on a 0.2/0.3
send that did not ask to block."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from cli_helpers import Cli, assert_one_error_line, cli  # noqa: F401 - cli is a fixture
from inspector.client import A2AClient, TransportError
from inspector.protocol import models as m
from inspector.protocol.errors import JsonRpcError, ProtocolError
from inspector.session import TaskTracker
from mock_agent import MockAgent
from mock_agent.loader import builtins, load_builtin
from peers import sdk_agent

BINDINGS = ("jsonrpc", "rest", "grpc")
EARLY = "no final"  # errors.yaml: working, an artifact, and the script ends there
RULE_WORDS = (
    'A2A 1.0: returnImmediately "false (default), the operation MUST wait until the task reaches '
    'a terminal … or interrupted … state before returning"'
)


def params(text: str, *, early: bool | None = None, blocking: bool | None = None) -> m.SendParams:
    conf = None
    if early is not None or blocking is not None:
        conf = m.SendConfiguration(blocking=blocking if blocking is not None else not early)
    return m.SendParams(
        message=m.Message(role=m.Role.USER, parts=[m.TextPart(text=text)], message_id=str(uuid.uuid4())),
        configuration=conf,
    )


@pytest.fixture(scope="module")
def errors_agent() -> Iterator[MockAgent]:
    with MockAgent("errors", dialect="all", grpc_port=0, time_scale=0.01) as mock:
        yield mock


def url_for(mock: MockAgent, binding: str) -> str:
    return mock.grpc_url if binding == "grpc" else mock.base_url  # type: ignore[return-value]


async def send_once(url: str, p: m.SendParams, *, dialect: str, binding: str) -> tuple[Any, list[Any]]:
    async with A2AClient(url, dialect=dialect, binding=binding) as client:
        tracker = TaskTracker(client.session)
        result = await client.send(p)
    return result, tracker.violations


# --------------------------------------------------------------------- raised


@pytest.mark.parametrize("binding", BINDINGS)
async def test_a_plain_1_0_send_answered_working_is_a_violation(errors_agent: MockAgent, binding: str) -> None:
    task, violations = await send_once(url_for(errors_agent, binding), params(EARLY), dialect="1.0", binding=binding)
    assert task.status.state is m.TaskState.WORKING
    (v,) = violations
    assert (v.code, v.severity, v.task_id) == ("blocking-not-final", "error", task.id)
    assert v.message == f"blocking send answered with state working; {RULE_WORDS}"
    # returnImmediately false, said out loud, is the same request.
    _, said = await send_once(
        url_for(errors_agent, binding), params(EARLY, early=False), dialect="1.0", binding=binding
    )
    assert [v.code for v in said] == ["blocking-not-final"]


@pytest.mark.parametrize("binding", BINDINGS)
async def test_the_early_answer_asked_for_is_no_violation(errors_agent: MockAgent, binding: str) -> None:
    for dialect in ("1.0", "0.3"):
        task, violations = await send_once(
            url_for(errors_agent, binding), params(EARLY, early=True), dialect=dialect, binding=binding
        )
        assert task.status.state in (m.TaskState.SUBMITTED, m.TaskState.WORKING)
        assert violations == [], (dialect, violations)


async def test_0_3_judges_only_an_explicit_blocking_true(errors_agent: MockAgent) -> None:
    # 0.2/0.3 give blocking no default: a send that does not ask may be answered early.
    task, violations = await send_once(errors_agent.base_url, params(EARLY), dialect="0.3", binding="jsonrpc")
    assert task.status.state is m.TaskState.WORKING and violations == []
    _, asked = await send_once(errors_agent.base_url, params(EARLY, blocking=True), dialect="0.3", binding="jsonrpc")
    (v,) = asked
    assert v.code == "blocking-not-final"
    assert v.message == (
        'blocking send answered with state working; A2A 0.3: blocking "true, the message '
        'will be blocking until the task is completed"'
    )


@pytest.mark.parametrize("binding", BINDINGS)
def test_the_cli_exits_3_on_it_and_0_when_it_asked_for_the_early_answer(
    cli: Cli, errors_agent: MockAgent, binding: str
) -> None:
    url = url_for(errors_agent, binding)
    r = cli("send", url, EARLY, "--dialect", "1.0", "--binding", binding)
    assert r.code == 3, r
    assert f"✗ blocking-not-final: blocking send answered with state working; {RULE_WORDS}" in r.out.splitlines(), r
    assert "Traceback" not in r.err
    doc = cli("send", url, EARLY, "--dialect", "1.0", "--binding", binding, "-o", "json").json()
    assert doc["exitCode"] == 3 and [v["code"] for v in doc["violations"]] == ["blocking-not-final"]
    assert doc["task"]["state"] == "working"

    early = cli("send", url, EARLY, "--dialect", "1.0", "--binding", binding, "--return-immediately", "-o", "json")
    assert early.code == 0, early
    doc = early.json()
    assert doc["violations"] == [] and doc["exitCode"] == 0
    assert doc["task"]["state"] in ("submitted", "working")
    assert doc["notice"].startswith(
        f"still running: the task is {doc['task']['state']}; follow it with "
        f"a2a-inspect resubscribe {url} {doc['task']['id']} --dialect 1.0 "
        f"--binding {binding}"
    )


def test_return_immediately_is_refused_where_the_dialect_has_no_such_option(cli: Cli) -> None:
    with MockAgent("echo", dialect="0.1") as mock:
        r = cli("send", mock.url, "hello", "--return-immediately")
        assert_one_error_line(r, 2, "--return-immediately: the 0.1 draft's tasks/send has no option to answer early")
        # Detection probes with empty params; no message went out.
        assert [q for q in mock.requests if isinstance(q, dict) and (q.get("params") or {}).get("message")] == []
    r = cli("send", "http://127.0.0.1:9", "hello", "--return-immediately", "--stream")
    assert_one_error_line(r, 2, "--return-immediately is for a send without --stream")


# --------------------------------------------------------------- well-behaved


SDK_TEXTS = ("hello there", "ask me something", "fail now", "msg hi")


@pytest.mark.parametrize(
    ("peer", "dialect", "binding"),
    [
        ("sdk_agent_v10", "1.0", "jsonrpc"),
        ("sdk_agent_v10", "1.0", "rest"),
        ("sdk_agent_compat", "1.0", "jsonrpc"),
        ("sdk_agent_compat", "0.3", "jsonrpc"),
        ("sdk_agent_compat", "0.3", "rest"),
        ("sdk_agent_grpc", "1.0", "grpc"),
        ("sdk_agent_grpc", "0.3", "grpc"),
    ],
)
async def test_the_a2a_sdk_agent_never_raises_it(
    request: pytest.FixtureRequest, peer: str, dialect: str, binding: str
) -> None:
    import asyncio

    served = request.getfixturevalue(peer)
    base, url = served if isinstance(served, tuple) else (served, served)
    async with A2AClient(url, dialect=dialect, binding=binding) as client:
        tracker = TaskTracker(client.session)
        for text in SDK_TEXTS:
            await client.send(params(text))
            await client.send(params(text, blocking=True))
        # Held at its first chunk, asked to answer early: still no finding.
        held = await client.send(params("hold on", early=True))
        assert held.status.state in (m.TaskState.SUBMITTED, m.TaskState.WORKING)
        await asyncio.to_thread(sdk_agent.wait_parked, base, held.id)
        await asyncio.to_thread(sdk_agent.release, base, held.id)
    assert tracker.violations == []


#: Triggers that break the rule on purpose (errors.yaml: "this stream ends without a
#: final event"), or fail the exchange itself (a fault is no answer at all).
BREAKS = {("errors", EARLY)}


def _texts(name: str) -> list[str]:
    card = load_builtin(name).card
    examples = [e for skill in card.skills or () for e in skill.examples or ()]
    return [*dict.fromkeys([*examples, "hello"])]


@pytest.fixture(scope="module")
def scenario_agents() -> Iterator[dict[str, MockAgent]]:
    agents: dict[str, MockAgent] = {}
    try:
        for name in builtins():
            agents[name] = MockAgent(name, dialect="1.0", grpc_port=0, time_scale=0.001).start()
        yield agents
    finally:
        for agent in agents.values():
            agent.stop()


# JSON-RPC: test_verdicts_clean sends every example in 1.0 there, streamed and not.
@pytest.mark.parametrize("binding", ("rest", "grpc"))
async def test_no_built_in_a2a_mock_scenario_raises_it(scenario_agents: dict[str, MockAgent], binding: str) -> None:
    sent = 0
    for name, mock in scenario_agents.items():
        async with A2AClient(url_for(mock, binding), dialect="1.0", binding=binding) as client:
            tracker = TaskTracker(client.session)
            for text in _texts(name):
                if (name, text) in BREAKS or text.startswith("heartbeat"):
                    continue  # heartbeat: a second of comments, unscaled, for nothing new here
                try:
                    await client.send(params(text))
                except (JsonRpcError, ProtocolError, TransportError):
                    pass  # the scenario's scripted errors and faults
                sent += 1
        found = [(name, v.message) for v in tracker.violations if v.code == "blocking-not-final"]
        assert found == [], found
    assert sent >= 50  # every example on every card
