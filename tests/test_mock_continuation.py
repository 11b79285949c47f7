"""A stream that continues a task (an answer to a question, a follow-up to a held task)
starts with what the agent does next, and a finished stream sends nothing more, on
every binding a2a-mock serves (issue 28, item 4).

The mock used to open such a stream with the task as it stood: the waiting state again
(``input-required → working → completed`` where the recorded agent said ``working →
completed``), so a multi-turn stream did not survive record → export → a2a-mock →
replay --against; and in ``long-running`` the follow-up's snapshot (still working)
could reach a client after the first stream's ``completed``.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from binding_matrix import message, until_held
from cli_helpers import Cli, cli  # noqa: F401  (fixture)
from inspector.client import A2AClient
from inspector.protocol import models as m
from mock_agent import MockAgent

BINDINGS = ["jsonrpc", "rest", "grpc"]


def _target(sdk: tuple[str, str], binding: str) -> tuple[str, tuple[str, ...]]:
    base, grpc_target = sdk
    return (grpc_target, ()) if binding == "grpc" else (base, ("--binding", binding))


@pytest.mark.parametrize("binding", BINDINGS)
def test_a_multi_turn_stream_round_trips_through_export_and_the_mock(
    cli: Cli, sdk_agent_grpc: tuple[str, str], tmp_path: Path, binding: str
) -> None:
    recording = tmp_path / "turns.jsonl"
    target, how = _target(sdk_agent_grpc, binding)
    first = cli("send", target, "ask me", *how, "--stream", "--record", str(recording), "-o", "json")
    assert first.code == 4, first  # input-required
    task = first.json()["task"]
    second = cli(
        "send",
        target,
        "the answer",
        *how,
        "--stream",
        "--task-id",
        task["id"],
        "--context-id",
        task["contextId"],
        "--record",
        str(recording),
        "--append",
        "-o",
        "json",
    )
    assert second.code == 0, second
    scenario = tmp_path / "agent.yaml"
    exported = cli("export", str(recording), "--scenario", str(scenario))
    assert exported.code == 0, exported
    with MockAgent(scenario, grpc_port=0 if binding == "grpc" else None, time_scale=0.01) as mock:
        against = mock.grpc_url if binding == "grpc" else mock.url
        diff = cli("replay", str(recording), "--against", str(against), "-o", "json")
    report = diff.json()
    streams = [d for d in report["exchanges"] if d["method"] == "stream"]
    assert [d["same"] for d in streams] == [True, True], diff.out[-3000:]
    assert streams[1]["live"]["states"] == ["working", "completed"]
    if binding == "grpc":
        # Over gRPC the client read the SDK agent's card with GetExtendedAgentCard, an
        # A2A call the exported scenario does not script (a2a-mock answers -32004): the
        # one difference left, and not this test's.
        rest = [d for d in report["exchanges"] if not d["same"]]
        assert {d["method"] for d in rest} == {"extended-card"}, diff.out[-3000:]
        return
    assert diff.code == 0, diff.out[-3000:]
    assert report["equivalent"] is True and report["compared"] == 2, report


async def _collect(stream: Any) -> list[Any]:
    return [event async for event in stream]


def _states(events: list[Any]) -> list[str]:
    out = []
    for e in events:
        if isinstance(e, m.Task | m.TaskStatusUpdateEvent):
            out.append(e.status.state.value)
        elif isinstance(e, m.TaskArtifactUpdateEvent):
            out.append("artifact")
    return out


@pytest.mark.parametrize(
    ("binding", "dialect"),
    [
        ("jsonrpc", "0.1"),
        ("jsonrpc", "0.3"),
        ("jsonrpc", "1.0"),
        ("rest", "0.3"),
        ("rest", "1.0"),
        ("grpc", "0.3"),
        ("grpc", "1.0"),
    ],
)
async def test_long_running_streams_end_with_their_final_state(binding: str, dialect: str) -> None:
    async with MockAgent("long-running", grpc_port=0 if binding == "grpc" else None) as mock:
        url = mock.grpc_url if binding == "grpc" else mock.url
        async with A2AClient(url, dialect=dialect, binding=binding) as client:
            params = message("build the report")
            if dialect == "0.1":
                params.message.task_id = "t-long-1"  # a 0.1 client names its task
            first = asyncio.ensure_future(_collect(client.stream(params)))
            await until_held(mock, gate="long-running")
            (record,) = mock.tasks
            task = m.Task(
                id=record.task.id, context_id=record.task.context_id, status=m.TaskStatus(state=m.TaskState.WORKING)
            )
            follow = await _collect(client.stream(message("ship it", task)))
            opened = await asyncio.wait_for(first, 20)
    # The first stream: the task announced, its work, its end; nothing after the end.
    assert _states(opened) == ["submitted", "working", "artifact", "artifact", "completed"]
    # The follow-up's stream: only what the agent did after the message.
    assert _states(follow) == ["artifact", "completed"], follow
    assert follow[-1].status.message.parts[0].text == "done (ship it)"


@pytest.mark.parametrize(
    ("binding", "dialect"),
    [
        ("jsonrpc", "0.1"),
        ("jsonrpc", "0.3"),
        ("jsonrpc", "1.0"),
        ("rest", "0.3"),
        ("rest", "1.0"),
        ("grpc", "0.3"),
        ("grpc", "1.0"),
    ],
)
async def test_an_answer_streams_what_the_agent_does_next(binding: str, dialect: str) -> None:
    async with MockAgent("input-required", grpc_port=0 if binding == "grpc" else None) as mock:
        url = mock.grpc_url if binding == "grpc" else mock.url
        async with A2AClient(url, dialect=dialect, binding=binding) as client:
            params = message("ask me")
            if dialect == "0.1":
                params.message.task_id = "t-ask-1"
            asked = await _collect(client.stream(params))
            assert _states(asked)[-1] == "input-required"
            last = asked[-1]
            task_id = last.id if isinstance(last, m.Task) else last.task_id
            task = m.Task(id=task_id, context_id=last.context_id, status=last.status)
            answered = await _collect(client.stream(message("blue", task)))
    assert _states(answered) == ["working", "artifact", "completed"], json.dumps(_states(answered))
