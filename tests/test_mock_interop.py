"""Interop: real clients against a2a-mock, end to end over HTTP.

1. The inspector's own stack (A2AClient, a Session, a TaskTracker on it) against every
   built-in scenario served in every dialect (0.1, 0.3, 1.0, and ``all``; the client
   detects the dialect itself each time) and against every profile: send, stream,
   get, cancel, resubscribe and the second turn of an input-required task, asserting on
   states, the artifacts the tracker assembled and the tracker's violations (none for
   well-behaved scripts, exactly the expected ones for faults). Then each scenario's own
   paths: every error of ``errors``, the seeded faults of ``flaky``, running-task cancel
   and resubscribe on ``slow``, part kinds, large artifacts, the demo's error.
2. The official a2a-sdk 1.3.0 client (ClientFactory, JSON-RPC) against the mock in 1.0
   and through its 0.3 compat transport: send, stream, get, cancel, multi-turn.
3. The card of every scenario and profile lints clean in each dialect it is served in,
   but for the few deliberate findings named in known_findings().

The mocks (uvicorn threads) are pooled per (scenario, dialect) for the module and stopped
together at the end; every test uses its own client, session and tracker, and only
touches tasks it created.
"""

from __future__ import annotations

import asyncio
import base64
import ssl
import uuid
from collections.abc import AsyncIterator, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

import mock_agent
from inspector.client import (
    AUTO,
    A2AClient,
    JsonRpcError,
    MemoryDialectCache,
    ProtocolError,
    Timeouts,
    TransportError,
)
from inspector.protocol import models as m
from inspector.protocol.card import decode_card
from inspector.protocol.lint import lint_card
from inspector.session import Kind, Session, TaskTracker
from mock_agent import MockAgent

SCENARIOS = Path(mock_agent.__file__).resolve().parent / "scenarios"

S = m.TaskState
DIALECTS = ("0.1", "0.3", "1.0", "all")
#: What the client must detect for a mock serving each dialect ("all": the card's best).
DETECTED = {"0.1": "0.1", "0.3": "0.3", "1.0": "1.0", "all": "1.0"}
CANCELED_TEXT = "canceled by request"
SETTLED = {S.COMPLETED, S.FAILED, S.CANCELED, S.REJECTED, S.INPUT_REQUIRED, S.AUTH_REQUIRED}


# ---------------------------------------------------------------------- what each target does


@dataclass(frozen=True)
class Turns:
    """An ask and its answer: the first message, the question, the answer, the outcome."""

    first: str
    state: m.TaskState
    question: str
    answer: str
    artifacts: dict[str, str]
    done: str | None = None  # the final status message's text, when the script sets one


@dataclass(frozen=True)
class Target:
    id: str
    scenario: str | None
    profile: str | None = None
    #: The main path: this text, this final state, these artifacts (name -> text).
    text: str = "hello world"
    state: m.TaskState = S.COMPLETED
    artifacts: dict[str, str] = field(default_factory=dict)
    turns: Turns | None = None
    #: The generic paths this target cannot take, with the reason (a skip, not a failure).
    cannot: dict[str, str] = field(default_factory=dict)

    @property
    def dialects(self) -> tuple[str, ...]:
        return ("0.1",) if self.profile else DIALECTS


STORY = "".join(f"chunk {i} of 20: hi\n" for i in range(20))
LARGE_LINE = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde\n"
DEMO_STORY = (
    "The lighthouse keeper counted ships. One night the sea was empty, so she counted stars "
    "instead, and lost count at the first comet. (stream a story about a lighthouse)"
)
REPORT = "## Findings on {}\n1. First source agrees.\n2. Second source disagrees.\n"
NOT_STREAMING = "the card says streaming: false (Society's agent has tasks/send only)"
SOCIETY_ONLY_SEND = "the society profile serves tasks/send only (anything else is -32601)"

SOCIETY = dict(text="hi", artifacts={"response": "Hello! I'm the agent. You said: hi"})
SOCIETY_AI = dict(
    text="quantum computing",
    artifacts={"report": REPORT.format("quantum computing")},
    turns=Turns(
        "clarify the scope",
        S.INPUT_REQUIRED,
        "Which aspect should the research focus on?",
        "qubits",
        {"report": REPORT.format("qubits")},
        "Research complete.",
    ),
)
DRAFT = dict(
    text="tell me a joke",
    artifacts={"joke": "Why did the chicken cross the road? To get to the other side!"},
    turns=Turns(
        "request a new phone for me",
        S.INPUT_REQUIRED,
        "Select a phone type (iPhone/Android)",
        "iPhone",
        {"order-confirmation": "I have ordered a new iPhone device for you. Your request number is R12443"},
    ),
)
ORLOJ = dict(text="Summarize this document", artifacts={"summary": "Here is the summary of: Summarize this document"})

TARGETS = [
    Target("echo", "echo", artifacts={"echo": "echo: hello world"}),
    Target("streaming", "streaming", text="hi", artifacts={"story": STORY}),
    Target(
        "input-required",
        "input-required",
        text="ask me something",
        state=S.INPUT_REQUIRED,
        turns=Turns(
            "ask me something",
            S.INPUT_REQUIRED,
            "What should I echo? Reply on this task.",
            "bananas",
            {"echo": "echo: bananas"},
            "done",
        ),
    ),
    Target(
        "errors",
        "errors",
        text="fail",
        state=S.FAILED,
        turns=Turns(
            "auth", S.AUTH_REQUIRED, "Please authenticate, then reply on this task.", "token-123", {}, "authenticated"
        ),
    ),
    Target("slow", "slow", text="slow hello", artifacts={"echo": "echo: slow hello (done)"}),
    Target(
        "large-artifact", "large-artifact", text="give me a lot of text", artifacts={"large.txt": LARGE_LINE * 32768}
    ),
    Target(
        "files-and-data",
        "files-and-data",
        text="show me every part kind",
        artifacts={"summary": "text part: show me every part kind", "table.csv": "", "report": ""},
    ),
    Target(
        "demo",
        "demo",
        text="stream a story about a lighthouse",
        artifacts={"story.txt": DEMO_STORY, "stats.json": ""},
        turns=Turns(
            "ask me what to write",
            S.INPUT_REQUIRED,
            "What should the story be about?",
            "a lighthouse",
            {"answer.txt": "A very short story about a lighthouse."},
            "done",
        ),
    ),
    # The profiles' scenarios, served as plain scenarios in every dialect.
    Target("society", "society", **SOCIETY, cannot={"stream": NOT_STREAMING}),
    Target("society-ai", "society-ai", **SOCIETY_AI),
    Target("draft", "draft", **DRAFT),
    Target("orloj", "orloj", **ORLOJ),
    # The profiles: the seed systems' own surface, 0.1 only.
    Target(
        "profile-society",
        None,
        "society",
        **SOCIETY,
        cannot={path: SOCIETY_ONLY_SEND for path in ("stream", "get", "cancel", "resubscribe")},
    ),
    Target(
        "profile-society-ai",
        None,
        "society-ai",
        **SOCIETY_AI,
        cannot={
            "resubscribe": "society-ai spells it task/resubscribe, which a client sends only when asked "
            "(method_names; see test_society_ai_resubscribe_with_its_spelling)"
        },
    ),
    Target("profile-draft", None, "draft", **DRAFT),
    Target(
        "profile-orloj",
        None,
        "orloj",
        **ORLOJ,
        cannot={"resubscribe": "Orloj serves tasks/send, tasks/sendSubscribe, tasks/get and tasks/cancel only"},
    ),
]
# (flaky is not in the table: its outcome is random by design; it has its own test below.)


def cases(path: str) -> list[Any]:
    out = []
    for target in TARGETS:
        if path == "turns" and target.turns is None:
            continue  # nothing to do: the scenario never asks for input
        for dialect in target.dialects:
            marks = []
            reason = target.cannot.get(path)
            if reason:
                marks.append(pytest.mark.skip(reason=reason))
            out.append(pytest.param(target, dialect, id=f"{target.id}-{dialect}", marks=marks))
    return out


# ---------------------------------------------------------------------- the mocks


class Pool:
    """Started mocks, one per (key); all stopped in parallel at the end (a stop waits for
    uvicorn's 0.1 s tick, which adds up over dozens of mocks)."""

    def __init__(self) -> None:
        self._mocks: dict[tuple[Any, ...], MockAgent] = {}

    def get(self, key: tuple[Any, ...], scenario: Any = None, **options: Any) -> MockAgent:
        mock = self._mocks.get(key)
        if mock is None:
            mock = self._mocks[key] = MockAgent(scenario, **options).start()
        return mock

    def scenario(self, name: str, dialect: str) -> MockAgent:
        """A built-in scenario in one dialect; delays at 1/100 (slow's 4 s take 40 ms)."""
        return self.get((name, dialect), name, dialect=dialect, time_scale=0.01)

    def profile(self, name: str) -> MockAgent:
        return self.get(("profile", name), profile=name, time_scale=0.01)

    def target(self, target: Target, dialect: str) -> MockAgent:
        if target.profile:
            return self.profile(target.profile)
        assert target.scenario is not None
        return self.scenario(target.scenario, dialect)

    def close(self) -> None:
        mocks = list(self._mocks.values())
        self._mocks.clear()
        if mocks:
            with ThreadPoolExecutor(len(mocks)) as pool:
                list(pool.map(lambda mock: mock.stop(), mocks))


@pytest.fixture(scope="module")
def pool() -> Iterator[Pool]:
    p = Pool()
    try:
        yield p
    finally:
        p.close()


# ---------------------------------------------------------------------- the inspector side


@dataclass
class Inspector:
    client: A2AClient
    session: Session
    tracker: TaskTracker

    def violations(self) -> list[tuple[str, str]]:
        return [(v.code, v.message) for v in self.tracker.violations]

    def codes(self) -> set[str]:
        return {v.code for v in self.tracker.violations}

    def view(self, task_id: str) -> Any:
        view = self.tracker.tasks.get(task_id)
        assert view is not None, f"the tracker never saw task {task_id}"
        return view

    def stream_ends(self) -> list[str]:
        return [e.data["reason"] for e in self.session.events if e.kind is Kind.STREAM_END]


#: One TLS context for every client: building one costs ~40 ms, more than a whole test
#: against a loopback mock (which is plain HTTP anyway).
TLS = ssl.create_default_context()


@asynccontextmanager
async def inspector(mock: MockAgent, dialect: str = AUTO) -> AsyncIterator[Inspector]:
    session = Session()
    tracker = TaskTracker(session)
    async with (
        httpx.AsyncClient(verify=TLS, timeout=Timeouts().for_request(False)) as http,
        A2AClient(mock.url, session=session, dialect=dialect, http=http, dialect_cache=MemoryDialectCache()) as client,
    ):
        yield Inspector(client, session, tracker)


def msg(text: str = "", *, parts: list[Any] | None = None, **ids: Any) -> m.SendParams:
    return m.SendParams(
        message=m.Message(
            role=m.Role.USER, parts=parts or [m.TextPart(text=text)], message_id=f"m-{uuid.uuid4()}", **ids
        )
    )


def texts(parts: list[Any]) -> str:
    return "".join(p.text for p in parts if isinstance(p, m.TextPart))


def artifacts_of(task: m.Task) -> dict[str, str]:
    return {a.name: texts(a.parts) for a in task.artifacts or []}


def assembled(view: Any) -> dict[str, str]:
    """The tracker's artifacts (name -> text), checking each is complete."""
    out = {}
    for art in view.artifacts.values():
        assert art.complete, f"artifact {art.key!r} never got its lastChunk"
        out[art.name] = art.text()
    return out


def state_of(event: Any) -> m.TaskState | None:
    status = getattr(event, "status", None)
    return status.state if status is not None else None


def task_id_of(event: Any) -> str:
    return event.id if isinstance(event, m.Task) else event.task_id


async def drain(stream: Any) -> list[Any]:
    return [event async for event in stream]


async def wait_for(predicate: Any, what: str, timeout: float = 10.0) -> None:
    """Poll until predicate() holds: server-side facts, no sleeps tuned to timing."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        assert loop.time() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.01)


# ---------------------------------------------------------------------- generic paths


@pytest.mark.parametrize(("target", "dialect"), cases("send"))
async def test_send(pool: Pool, target: Target, dialect: str) -> None:
    mock = pool.target(target, dialect)
    async with inspector(mock) as i:
        task = await i.client.send(msg(target.text))
        assert i.client.dialect is not None and i.client.dialect.name == DETECTED[dialect]
        assert isinstance(task, m.Task) and task.status.state is target.state
        assert artifacts_of(task) == target.artifacts
        view = i.view(task.id)
        assert view.state is target.state and assembled(view) == target.artifacts
        if target.turns is not None and target.text == target.turns.first:
            assert texts(task.status.message.parts) == target.turns.question
        assert view.history and texts(view.history[0].parts) == target.text
    assert i.violations() == []


@pytest.mark.parametrize(("target", "dialect"), cases("stream"))
async def test_stream(pool: Pool, target: Target, dialect: str) -> None:
    mock = pool.target(target, dialect)
    async with inspector(mock) as i:
        events = await drain(i.client.stream(msg(target.text)))
        assert events, "no events"
        task_id = task_id_of(events[0])
        assert all(task_id_of(e) == task_id for e in events)
        assert state_of(events[-1]) is target.state
        view = i.view(task_id)
        assert view.state is target.state
        assert assembled(view) == target.artifacts
        # The chunks arrived in order: each artifact's chunk texts join to its text.
        # (Orloj streams whole tasks: no chunks there.)
        for art in view.artifacts.values():
            if art.chunks:
                assert "".join(texts(c.parts) for c in art.chunks) == target.artifacts[art.name]
        assert i.stream_ends() == ["complete"]
        # What the stream built is what the mock holds.
        if "get" not in target.cannot:
            again = await i.client.get_task(task_id)
            assert again.status.state is target.state and artifacts_of(again) == target.artifacts
    assert i.violations() == []


@pytest.mark.parametrize(("target", "dialect"), cases("get"))
async def test_get(pool: Pool, target: Target, dialect: str) -> None:
    mock = pool.target(target, dialect)
    async with inspector(mock) as i:
        task = await i.client.send(msg(target.text))
        got = await i.client.get_task(task.id)
        assert got.id == task.id and got.status.state is target.state
        assert artifacts_of(got) == target.artifacts
        if got.history:
            assert texts(got.history[0].parts) == target.text
        short = await i.client.get_task(task.id, history_length=1)
        assert len(short.history or []) <= 1
        with pytest.raises(JsonRpcError) as missing:
            await i.client.get_task(f"no-such-task-{uuid.uuid4()}")
        assert missing.value.code == -32001
    assert i.violations() == []


@pytest.mark.parametrize(("target", "dialect"), cases("turns"))
@pytest.mark.parametrize("how", ["send", "stream"])
async def test_second_turn_on_the_same_task(pool: Pool, target: Target, dialect: str, how: str) -> None:
    turns = target.turns
    assert turns is not None
    if how == "stream" and "stream" in target.cannot:
        pytest.skip(target.cannot["stream"])
    mock = pool.target(target, dialect)
    async with inspector(mock) as i:
        if how == "send":
            first = await i.client.send(msg(turns.first))
            task_id, context_id, asked = first.id, first.context_id, first.status
        else:
            events = await drain(i.client.stream(msg(turns.first)))
            last = events[-1]
            task_id, context_id, asked = task_id_of(last), last.context_id, last.status
        assert asked.state is turns.state and texts(asked.message.parts) == turns.question
        assert i.view(task_id).interrupted
        answer = msg(turns.answer, task_id=task_id, context_id=context_id)
        if how == "send":
            second = await i.client.send(answer)
            assert second.id == task_id
            done = second.status
        else:
            events = await drain(i.client.stream(answer))
            assert {task_id_of(e) for e in events} == {task_id}
            done = events[-1].status
        assert done.state is S.COMPLETED
        if turns.done is not None:
            assert texts(done.message.parts) == turns.done
        view = i.view(task_id)
        assert view.state is S.COMPLETED and assembled(view) == turns.artifacts
        states = [c.state for c in view.timeline]
        assert turns.state in states and states[-1] is S.COMPLETED
        assert states.index(turns.state) < len(states) - 1
        said = [texts(h.parts) for h in view.history if h.role is m.Role.USER]
        assert said == [turns.first, turns.answer]
        final = await i.client.get_task(task_id)
        assert final.status.state is S.COMPLETED and artifacts_of(final) == turns.artifacts
    assert i.violations() == []


@pytest.mark.parametrize(("target", "dialect"), cases("cancel"))
async def test_cancel(pool: Pool, target: Target, dialect: str) -> None:
    """A task waiting for input is canceled ("canceled by request"); a finished one cannot
    be (-32002). A running task: test_slow_running_task_cancel."""
    mock = pool.target(target, dialect)
    async with inspector(mock) as i:
        if target.turns is not None:
            waiting = await i.client.send(msg(target.turns.first))
            assert waiting.status.state is target.turns.state
            canceled = await i.client.cancel(waiting.id)
            assert canceled.id == waiting.id and canceled.status.state is S.CANCELED
            assert texts(canceled.status.message.parts) == CANCELED_TEXT
            assert i.view(waiting.id).state is S.CANCELED
            assert (await i.client.get_task(waiting.id)).status.state is S.CANCELED
            finished = waiting.id
        else:
            task = await i.client.send(msg(target.text))
            assert task.status.state in SETTLED
            finished = task.id
        with pytest.raises(JsonRpcError) as refused:
            await i.client.cancel(finished)
        assert refused.value.code == -32002
        with pytest.raises(JsonRpcError) as missing:
            await i.client.cancel(f"no-such-task-{uuid.uuid4()}")
        assert missing.value.code == -32001
    assert i.violations() == []


@pytest.mark.parametrize(("target", "dialect"), cases("resubscribe"))
async def test_resubscribe(pool: Pool, target: Target, dialect: str) -> None:
    """To a task that has settled: 0.1 answers with its current state and ends, 0.3 and
    1.0 refuse a terminal task (-32004) and send an interrupted one's snapshot. A task
    still running: test_slow_running_task_resubscribe, test_errors_drop_then_resubscribe."""
    mock = pool.target(target, dialect)
    async with inspector(mock) as i:
        task = await i.client.send(msg(target.text))
        if DETECTED[dialect] == "0.1" or target.state in (S.INPUT_REQUIRED, S.AUTH_REQUIRED):
            events = await drain(i.client.resubscribe(task.id))
            assert [state_of(e) for e in events] == [target.state]
            if isinstance(events[0], m.Task):
                assert artifacts_of(events[0]) == target.artifacts
            assert i.stream_ends() == ["complete"]
        else:
            with pytest.raises(JsonRpcError) as refused:
                await drain(i.client.resubscribe(task.id))
            assert refused.value.code == -32004
        assert i.view(task.id).state is target.state
    assert i.violations() == []


# ---------------------------------------------------------------------- slow: a running task


def running_slow() -> dict[str, Any]:
    """The built-in ``slow``, running at once, and waiting at the gate ``next`` before
    each chunk after the first: a cancel or a resubscribe meant for a running task lands
    while it runs, however slow the machine (the steps are otherwise the built-in's)."""
    scenario = yaml.safe_load((SCENARIOS / "slow.yaml").read_text(encoding="utf-8"))
    script = scenario["rules"][0]["script"]
    assert script[0] == {"delay": 2} and "chunks" in script[2]
    working, chunks, done = script[1], script[2]["chunks"], script[3]
    steps = [working]
    for i, text in enumerate(chunks["texts"]):
        if i:
            steps.append({"hold": "next"})
        steps.append(
            {
                "artifact": {
                    "name": chunks["name"],
                    "text": text,
                    "append": i > 0,
                    "last_chunk": i == len(chunks["texts"]) - 1,
                }
            }
        )
    script[:] = [*steps, done]
    return scenario


async def open_gates(mock: MockAgent, gate: str = "next", times: int = 2) -> None:
    """Let a running_slow() task go on, one gate at a time, to its end."""
    for _ in range(times):
        await wait_for(lambda: mock.held(gate) == 1, f"the task at the gate {gate!r}")
        mock.release(gate)


@pytest.mark.parametrize("dialect", DIALECTS)
async def test_slow_running_task_cancel(dialect: str) -> None:
    async with MockAgent(running_slow(), dialect=dialect) as mock, inspector(mock) as i:
        stream = i.client.stream(msg("cancel me"))
        seen = []
        async for event in stream:
            seen.append(event)
            if isinstance(event, m.TaskArtifactUpdateEvent):
                break
        task_id = task_id_of(event)
        assert i.view(task_id).state is S.WORKING
        # Keep reading while the cancel goes out: every event is logged as it arrives.
        rest = asyncio.create_task(drain(stream))
        canceled = await i.client.cancel(task_id)
        assert canceled.status.state is S.CANCELED and texts(canceled.status.message.parts) == CANCELED_TEXT
        events = seen + await asyncio.wait_for(rest, 10)
        assert state_of(events[-1]) is S.CANCELED
        chunks = [texts(e.artifact.parts) for e in events if isinstance(e, m.TaskArtifactUpdateEvent)]
        assert chunks == ["echo: ", "slow hello"][: len(chunks)]  # the script stopped there
        view = i.view(task_id)
        assert view.state is S.CANCELED and [c.state for c in view.timeline][-2:] == [S.WORKING, S.CANCELED]
        assert i.stream_ends() == ["complete"]
        assert (await i.client.get_task(task_id)).status.state is S.CANCELED
        with pytest.raises(JsonRpcError) as again:
            await i.client.cancel(task_id)
        assert again.value.code == -32002
    # The artifact was cut short by the cancel, which is what a cancel does: no
    # artifact-not-closed, in any dialect.
    assert i.violations() == []


@pytest.mark.parametrize("dialect", DIALECTS)
async def test_slow_running_task_resubscribe(dialect: str) -> None:
    """Read up to the first chunk, hang up, resubscribe: the task's state comes first
    (0.3/1.0: the task with its artifact so far), then the rest live."""
    async with MockAgent(running_slow(), dialect=dialect) as mock, inspector(mock) as i:
        stream = i.client.stream(msg("slow hello"))
        async for event in stream:
            if isinstance(event, m.TaskArtifactUpdateEvent):
                break
        await stream.aclose()
        task_id = task_id_of(event)
        resubscribed = i.client.resubscribe(task_id)
        head = await anext(resubscribed)
        # The task waits at its gate: only once the resubscribe has its head may it go on.
        opened = asyncio.create_task(open_gates(mock))
        live = await drain(resubscribed)
        await opened
        assert state_of(head) is S.WORKING and state_of(live[-1]) is S.COMPLETED
        chunks = [texts(e.artifact.parts) for e in live if isinstance(e, m.TaskArtifactUpdateEvent)]
        if isinstance(head, m.Task):
            assert artifacts_of(head)["echo"] == "echo: "
        assert "".join(chunks) == "slow hello (done)"
        view = i.view(task_id)
        assert view.state is S.COMPLETED
        assert assembled(view) == {"echo": "echo: slow hello (done)"}
        assert i.stream_ends() == ["closed", "complete"]
        assert artifacts_of(await i.client.get_task(task_id)) == {"echo": "echo: slow hello (done)"}
    assert i.violations() == []


# ---------------------------------------------------------------------- errors


ERROR_CODES = (
    -32700,
    -32600,
    -32601,
    -32602,
    -32603,
    -32001,
    -32002,
    -32003,
    -32004,
    -32005,
    -32006,
    -32007,
    -32008,
    -32009,
)


@pytest.mark.parametrize("dialect", DIALECTS)
async def test_errors_every_scripted_code(pool: Pool, dialect: str) -> None:
    mock = pool.scenario("errors", dialect)
    card = httpx.get(mock.card_url).json()
    examples = card["skills"][0]["examples"]
    assert [f"error {code}" for code in ERROR_CODES] == [e for e in examples if e.startswith("error ")]
    async with inspector(mock) as i:
        for code in ERROR_CODES:
            with pytest.raises(JsonRpcError) as sent:
                await i.client.send(msg(f"error {code}"))
            assert sent.value.code == code and sent.value.http_status == 200
            with pytest.raises(JsonRpcError) as streamed:
                await drain(i.client.stream(msg(f"error {code}")))
            assert streamed.value.code == code
        errors = [
            ex.error.code
            for ex in i.tracker.exchanges.values()
            if ex.error is not None and ex.method in ("send", "stream")
        ]
        assert errors == [code for code in ERROR_CODES for _ in ("send", "stream")]
        # A code the scenario has no canned error for fails the task instead.
        task = await i.client.send(msg("error -1"))
        assert task.status.state is S.FAILED and "no canned error for -1" in texts(task.status.message.parts)
    assert i.violations() == []


@pytest.mark.parametrize("dialect", DIALECTS)
async def test_errors_from_the_protocol(pool: Pool, dialect: str) -> None:
    """-32001 unknown task, -32002 not cancelable, -32003 no push, -32004 unsupported."""
    mock = pool.scenario("errors", dialect)
    async with inspector(mock) as i:
        with pytest.raises(JsonRpcError) as unknown:
            await i.client.get_task("no-such-task")
        assert unknown.value.code == -32001
        done = await i.client.send(msg("fail"))
        with pytest.raises(JsonRpcError) as finished:
            await i.client.cancel(done.id)
        assert finished.value.code == -32002
        with pytest.raises(JsonRpcError) as no_push:
            await i.client.set_push(done.id, {"url": "http://127.0.0.1:9/hook", "token": "t"})
        assert no_push.value.code == -32003
        if DETECTED[dialect] != "0.1":  # the 0.1 draft lets a client reopen a task
            with pytest.raises(JsonRpcError) as closed:
                await i.client.send(msg("again", task_id=done.id, context_id=done.context_id))
            assert closed.value.code == -32004
            with pytest.raises(JsonRpcError) as no_card:
                await i.client.extended_card()
            assert no_card.value.code == -32004  # not declared on this card, as a2a-sdk answers
    assert i.violations() == []


@pytest.mark.parametrize("dialect", DIALECTS)
async def test_errors_http_faults(pool: Pool, dialect: str) -> None:
    mock = pool.scenario("errors", dialect)
    async with inspector(mock) as i:
        for status in (500, 503):
            with pytest.raises(TransportError) as sent:
                await i.client.send(msg(f"http {status}"))
            assert (sent.value.kind, sent.value.status) == ("http", status)
            with pytest.raises(TransportError) as streamed:
                await drain(i.client.stream(msg(f"http {status}")))
            assert (streamed.value.kind, streamed.value.status) == ("http", status)
    # The plain-text error bodies are HTTP failures (the client's http errors), not an
    # agent sending bad A2A: no decode-error.
    assert i.violations() == []


@pytest.mark.parametrize("dialect", DIALECTS)
async def test_errors_malformed(pool: Pool, dialect: str) -> None:
    mock = pool.scenario("errors", dialect)
    async with inspector(mock) as i:
        with pytest.raises(ProtocolError):
            await i.client.send(msg("malformed"))
        assert [code for code, _ in i.violations()] == ["decode-error"]
        # In a stream one event is bad JSON; the client skips it and the stream goes on.
        events = await drain(i.client.stream(msg("malformed")))
        assert state_of(events[-1]) is S.COMPLETED
        assert i.view(task_id_of(events[-1])).state is S.COMPLETED
        assert i.stream_ends() == ["complete"]
    assert [code for code, _ in i.violations()] == ["decode-error", "decode-error"]


@pytest.mark.parametrize("dialect", DIALECTS)
async def test_errors_drop_then_resubscribe(pool: Pool, dialect: str) -> None:
    """The connection is cut mid-stream; the script runs on, so the task completes with
    the whole artifact, which get (and a 0.1 resubscribe) then show."""
    mock = pool.scenario("errors", dialect)
    async with inspector(mock) as i:
        seen: list[Any] = []
        with pytest.raises(TransportError) as cut:
            async for event in i.client.stream(msg("drop")):
                seen.append(event)
        assert cut.value.kind == "stream"
        task_id = task_id_of(seen[0])
        assert [texts(e.artifact.parts) for e in seen if isinstance(e, m.TaskArtifactUpdateEvent)] == [
            "half of the answer"
        ]
        assert [code for code, _ in i.violations()] == ["stream-no-terminal"]
        await wait_for(lambda: mock.task(task_id).task.status.state is S.COMPLETED, "the script to finish")
        task = await i.client.get_task(task_id)
        assert task.status.state is S.COMPLETED
        assert artifacts_of(task) == {"partial": "half of the answer and the other half"}
        if DETECTED[dialect] == "0.1":
            assert [state_of(e) for e in await drain(i.client.resubscribe(task_id))] == [S.COMPLETED]
        else:
            with pytest.raises(JsonRpcError) as over:
                await drain(i.client.resubscribe(task_id))
            assert over.value.code == -32004
        assert i.view(task_id).state is S.COMPLETED
    # The stream broke off before the task settled; the task from get carries the rest of
    # the artifact, which the tracker adopts (what streamed is a prefix of it).
    assert [code for code, _ in i.violations()] == ["stream-no-terminal"]
    # No lastChunk arrived, but the snapshot is the completed task's final record: the
    # artifact is whole and closed.
    assert [(a.text(), a.closed) for a in i.view(task_id).artifacts.values()] == [
        ("half of the answer and the other half", True)
    ]


@pytest.mark.parametrize("dialect", DIALECTS)
async def test_errors_no_final_event(pool: Pool, dialect: str) -> None:
    mock = pool.scenario("errors", dialect)
    async with inspector(mock) as i:
        with pytest.raises(TransportError) as ended:
            await drain(i.client.stream(msg("no final")))
        assert ended.value.kind == "stream" and "before the task reached a final state" in str(ended.value)
        assert i.stream_ends() == ["eof"]
        (task_id,) = i.tracker.tasks
        view = i.view(task_id)
        assert view.state is S.WORKING and assembled(view) == {"unfinished": "this stream ends without a final event"}
        # A send gets the task as the script left it: in 1.0, where every send without
        # returnImmediately blocks, that answer breaks the rule too.
        task = await i.client.send(msg("no final"))
        assert task.status.state is S.WORKING
    blocking = ["blocking-not-final"] if DETECTED[dialect] == "1.0" else []
    assert [code for code, _ in i.violations()] == ["stream-no-terminal", *blocking]


@pytest.mark.parametrize("dialect", DIALECTS)
async def test_errors_states_and_heartbeats(pool: Pool, dialect: str) -> None:
    mock = pool.scenario("errors", dialect)
    async with inspector(mock) as i:
        for trigger, state, said in (
            ("fail", S.FAILED, "failed on request"),
            ("reject", S.REJECTED, "rejected on request"),
        ):
            task = await i.client.send(msg(trigger))
            assert task.status.state is state and texts(task.status.message.parts) == said
            events = await drain(i.client.stream(msg(trigger)))
            assert state_of(events[-1]) is state
        # heartbeat: ": heartbeat" comments while the script waits (every 0.2 s for 1 s, unscaled)
        events = await drain(i.client.stream(msg("heartbeat")))
        assert state_of(events[-1]) is S.COMPLETED
        comments = [e.data["text"] for e in i.session.events if e.kind is Kind.COMMENT]
        assert comments and all(c.strip() == "heartbeat" for c in comments)
        # An unknown trigger falls back to a failed task.
        task = await i.client.send(msg("something else"))
        assert task.status.state is S.FAILED
    assert i.violations() == []


# ---------------------------------------------------------------------- flaky


async def flaky_outcome(i: Inspector, n: int) -> str:
    """Send (even n) or stream (odd n) "try n" and name what came back; a fault must
    surface as the documented error type."""
    text = f"try {n}"
    try:
        if n % 2:
            result = (await drain(i.client.stream(msg(text))))[-1]
        else:
            result = await i.client.send(msg(text))
    except TransportError as exc:
        if exc.status == 503:
            assert exc.kind == "http"
            return "503"
        # A cut connection; or, in a stream, a bad event skipped and then no final one.
        assert (exc.kind, exc.status) in {("http", 200), ("stream", 200)}, exc
        return "cut"
    except ProtocolError:
        return "malformed"  # a blocking send's whole body
    except JsonRpcError as exc:
        assert exc.code == -32603
        return "-32603"
    assert state_of(result) is S.COMPLETED, result
    task = result if isinstance(result, m.Task) else await i.client.get_task(task_id_of(result))
    assert texts(task.artifacts[0].parts) in (f"echo: {text}", f"echo (late): {text}")
    return "ok"


@pytest.mark.parametrize("dialect", DIALECTS)
async def test_flaky_faults_surface_as_the_right_errors(dialect: str) -> None:
    """Seeded faults: each outcome is a completed echo or one of the documented faults,
    surfaced as the right error type; the tracker flags only the broken exchanges; and
    the same requests meet the same faults on a fresh mock."""
    runs = []
    for _ in range(2):
        async with MockAgent("flaky", dialect=dialect, time_scale=0.01) as mock, inspector(mock) as i:
            runs.append([await flaky_outcome(i, n) for n in range(24)])
            assert i.codes() <= {"decode-error", "stream-no-terminal"}, i.violations()
            if all(outcome == "ok" for outcome in runs[-1]):
                assert i.violations() == []
    outcomes, again = runs
    assert outcomes.count("ok") >= 6, outcomes
    assert len(set(outcomes) - {"ok"}) >= 2, outcomes  # seed 42 meets several kinds of fault
    assert again == outcomes


# ---------------------------------------------------------------------- part kinds and sizes


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("how", ["send", "stream"])
async def test_files_and_data_every_part_kind(pool: Pool, dialect: str, how: str) -> None:
    mock = pool.scenario("files-and-data", dialect)
    async with inspector(mock) as i:
        if how == "send":
            task_id = (await i.client.send(msg("show me"))).id
        else:
            task_id = task_id_of((await drain(i.client.stream(msg("show me"))))[-1])
        arts = {a.name: a.parts for a in i.view(task_id).artifacts.values()}
        summary_text, summary_data = arts["summary"]
        assert summary_text.text == "text part: show me"
        assert summary_data.data == {"rows": 2, "columns": ["name", "score"], "values": [["ada", 1], ["grace", 2]]}
        (csv,) = arts["table.csv"]
        assert isinstance(csv, m.FilePart) and csv.file.name == "table.csv" and csv.file.mime_type == "text/csv"
        assert base64.b64decode(csv.file.bytes) == b"name,score\nada,1\ngrace,2\n"
        (pdf,) = arts["report"]
        assert pdf.file.uri == "https://example.invalid/report.pdf" and pdf.file.mime_type == "application/pdf"
        # ... and the parts the user sends are read back.
        upload = m.FilePart(
            file=m.FileContent(name="a.csv", mime_type="text/csv", bytes=base64.b64encode(b"a,b\n1,2\n").decode())
        )
        got = await i.client.send(msg(parts=[m.TextPart(text="here"), upload]))
        assert texts(got.artifacts[0].parts) == "received 1 file(s): a.csv"
        got = await i.client.send(msg(parts=[m.DataPart(data={"k": [1, 2]})]))
        assert texts(got.artifacts[0].parts) == 'received 1 data part(s), the first: {"k": [1, 2]}'
    assert i.violations() == []


@pytest.mark.parametrize("dialect", DIALECTS)
async def test_large_artifact_chunks(pool: Pool, dialect: str) -> None:
    mock = pool.scenario("large-artifact", dialect)
    async with inspector(mock) as i:
        events = await drain(i.client.stream(msg("big")))
        (art,) = i.view(task_id_of(events[-1])).artifacts.values()
        assert len(art.chunks) == 64 and {c.size for c in art.chunks} == {32 * 1024}
        assert art.closed and art.size == 2 * 1024 * 1024
        assert [bool(c.append) for c in art.chunks] == [False] + [True] * 63
        assert [bool(c.last_chunk) for c in art.chunks] == [False] * 63 + [True]
    assert i.violations() == []


@pytest.mark.parametrize("dialect", DIALECTS)
async def test_streaming_chunks_in_order(pool: Pool, dialect: str) -> None:
    mock = pool.scenario("streaming", dialect)
    async with inspector(mock) as i:
        events = await drain(i.client.stream(msg("hi")))
        kinds = [type(e).__name__ for e in events]
        head = "TaskStatusUpdateEvent" if DETECTED[dialect] == "0.1" else "Task"
        assert kinds[:2] == [head, "TaskStatusUpdateEvent"] and kinds[-1] == "TaskStatusUpdateEvent"
        assert kinds[2:-1] == ["TaskArtifactUpdateEvent"] * 20
        (art,) = i.view(task_id_of(events[-1])).artifacts.values()
        assert [texts(c.parts) for c in art.chunks] == [f"chunk {n} of 20: hi\n" for n in range(20)]
    assert i.violations() == []


@pytest.mark.parametrize("dialect", DIALECTS)
async def test_demo_scripted_error(pool: Pool, dialect: str) -> None:
    mock = pool.scenario("demo", dialect)
    async with inspector(mock) as i:
        with pytest.raises(JsonRpcError) as sent:
            await i.client.send(msg("trigger an error"))
        assert sent.value.code == -32603 and sent.value.message == "The demo agent failed on purpose."
        seen: list[Any] = []
        with pytest.raises(JsonRpcError) as streamed:
            async for event in i.client.stream(msg("trigger an error")):
                seen.append(event)
        assert streamed.value.code == -32603
        assert [state_of(e) for e in seen][-1] is S.WORKING  # the error came mid-stream
        assert i.stream_ends() == ["error"]
    assert i.violations() == []


@pytest.mark.parametrize("dialect", ["0.3", "1.0", "all"])
async def test_push_configs_and_list_tasks(pool: Pool, dialect: str) -> None:
    mock = pool.scenario("echo", dialect)
    async with inspector(mock) as i:
        task = await i.client.send(msg("push me"))
        hook = {"id": "cfg-1", "url": "http://127.0.0.1:9/hook", "token": "tok"}
        made = await i.client.set_push(task.id, hook)
        assert made.task_id == task.id and made.push_notification_config.url == hook["url"]
        got = await i.client.get_push(task.id, "cfg-1")
        assert got.push_notification_config.token == "tok"
        listed = await i.client.list_push(task.id)
        assert [c.push_notification_config.id for c in listed] == ["cfg-1"]
        await i.client.delete_push(task.id, "cfg-1")
        assert await i.client.list_push(task.id) == []
        if DETECTED[dialect] == "1.0":
            page = await i.client.list_tasks({"page_size": 50})
            assert task.id in [t.id for t in page.tasks]
    assert i.violations() == []


@pytest.mark.parametrize("client_dialect", ["0.1", "0.3", "1.0"])
async def test_all_dialects_mock_answers_each_dialect_asked(pool: Pool, client_dialect: str) -> None:
    """One mock serving every dialect: a client forced to each gets its own spelling back."""
    mock = pool.scenario("input-required", "all")
    async with inspector(mock, client_dialect) as i:
        first = await i.client.send(msg("ask"))
        assert first.status.state is S.INPUT_REQUIRED
        events = await drain(i.client.stream(msg("answer", task_id=first.id, context_id=first.context_id)))
        assert state_of(events[-1]) is S.COMPLETED
        got = await i.client.get_task(first.id)
        assert artifacts_of(got) == {"echo": "echo: answer"}
        assert mock.task(first.id).task.status.state is S.COMPLETED
    assert i.violations() == []


# ---------------------------------------------------------------------- profile specifics


async def test_profile_society_refuses_everything_but_tasks_send(pool: Pool) -> None:
    mock = pool.profile("society")
    async with inspector(mock) as i:
        task = await i.client.send(msg("hi"))
        for call in (
            lambda: drain(i.client.stream(msg("hi"))),
            lambda: i.client.get_task(task.id),
            lambda: i.client.cancel(task.id),
            lambda: drain(i.client.resubscribe(task.id)),
        ):
            with pytest.raises(JsonRpcError) as refused:
                await call()
            assert refused.value.code == -32601 and refused.value.message.startswith("method not found: tasks/")
    assert i.violations() == []


async def test_profile_society_ai_resubscribe_spelling(pool: Pool) -> None:
    """society-ai spells resubscribe ``task/resubscribe``: the standard 0.1 name is not found."""
    mock = pool.profile("society-ai")
    async with inspector(mock) as i:
        task = await i.client.send(msg("quantum"))
        with pytest.raises(JsonRpcError) as refused:
            await drain(i.client.resubscribe(task.id))
        assert refused.value.code == -32601
        # Its task metadata carries the extended fields.
        assert {"cost"} <= set((await i.client.get_task(task.id)).metadata or {})
    assert i.violations() == []


async def test_profile_orloj_rejects_and_sends_whole_tasks() -> None:
    async with MockAgent(profile="orloj", time_scale=0.01, heartbeat=0.05) as mock, inspector(mock) as i:
        task = await i.client.send(msg("reject this one"))
        assert task.status.state is S.REJECTED
        assert texts(task.status.message.parts) == "The AgentSystem rejected this task."
        assert i.client.endpoint == mock.url and mock.url.endswith("/a2a")
        events = await drain(i.client.stream(msg("slow summary please")))
        assert all(isinstance(e, m.Task) for e in events)  # "event: status" with the whole task
        assert state_of(events[-1]) is S.COMPLETED
        assert any(e.kind is Kind.COMMENT for e in i.session.events)  # heartbeats while it waits
        with pytest.raises(JsonRpcError) as missing:
            await i.client.get_task("nope")
        assert missing.value.code == -32001 and missing.value.data == {"task_id": "nope"}
    assert i.violations() == []


async def test_profile_draft_push_configs(pool: Pool) -> None:
    mock = pool.profile("draft")
    async with inspector(mock) as i:
        task = await i.client.send(msg("tell me a joke"))
        made = await i.client.set_push(task.id, {"url": "http://127.0.0.1:9/hook", "token": "t-1"})
        assert made.push_notification_config.url == "http://127.0.0.1:9/hook"
        got = await i.client.get_push(task.id)
        assert got.task_id == task.id and got.push_notification_config.token == "t-1"
    assert i.violations() == []


# ---------------------------------------------------------------------- the official a2a-sdk client


def sdk_message(text: str, task_id: str | None = None, context_id: str | None = None) -> Any:
    from a2a.types.a2a_pb2 import Message, Part, Role, SendMessageRequest

    message = Message(message_id=f"m-{uuid.uuid4()}", role=Role.ROLE_USER, parts=[Part(text=text)])
    if task_id:
        message.task_id = task_id
    if context_id:
        message.context_id = context_id
    return SendMessageRequest(message=message)


@asynccontextmanager
async def sdk_client(mock: MockAgent, *, streaming: bool) -> AsyncIterator[Any]:
    from a2a.client import ClientConfig, ClientFactory

    async with httpx.AsyncClient(timeout=10, verify=TLS) as http:
        client = await ClientFactory(ClientConfig(streaming=streaming, httpx_client=http)).create_from_url(
            mock.base_url
        )
        try:
            yield client
        finally:
            await client.close()


def sdk_texts(parts: Any) -> str:
    return "".join(p.text for p in parts)


SDK_DIALECTS = ["1.0", "0.3", "all"]
#: The transport a2a-sdk picks from the mock's card: the 0.3 compat one for a 0.3 card.
SDK_TRANSPORT = {"1.0": "JsonRpcTransport", "0.3": "CompatJsonRpcTransport", "all": "JsonRpcTransport"}


@pytest.mark.parametrize("dialect", SDK_DIALECTS)
async def test_sdk_client_send_and_get(pool: Pool, dialect: str) -> None:
    from a2a.types.a2a_pb2 import GetTaskRequest, TaskState

    mock = pool.scenario("streaming", dialect)
    async with sdk_client(mock, streaming=False) as client:
        assert type(client._transport).__name__ == SDK_TRANSPORT[dialect]
        (reply,) = [r async for r in client.send_message(sdk_message("hi"))]
        task = reply.task
        assert task.status.state == TaskState.TASK_STATE_COMPLETED
        assert sdk_texts(task.status.message.parts) == "done"
        (art,) = task.artifacts
        assert (art.artifact_id, art.name, sdk_texts(art.parts)) == ("story", "story", STORY)
        got = await client.get_task(GetTaskRequest(id=task.id))
        assert got.id == task.id and got.status.state == TaskState.TASK_STATE_COMPLETED
        assert sdk_texts(got.artifacts[0].parts) == STORY
        assert [m.role for m in got.history][:1] == [1]  # ROLE_USER first
        short = await client.get_task(GetTaskRequest(id=task.id, history_length=1))
        assert len(short.history) == 1


@pytest.mark.parametrize("dialect", SDK_DIALECTS)
async def test_sdk_client_stream(pool: Pool, dialect: str) -> None:
    from a2a.types.a2a_pb2 import TaskState

    mock = pool.scenario("streaming", dialect)
    async with sdk_client(mock, streaming=True) as client:
        events = [r async for r in client.send_message(sdk_message("hi"))]
    kinds = [e.WhichOneof("payload") for e in events]
    assert kinds == ["task", "status_update"] + ["artifact_update"] * 20 + ["status_update"]
    chunks = [e.artifact_update for e in events if e.HasField("artifact_update")]
    assert "".join(sdk_texts(c.artifact.parts) for c in chunks) == STORY
    assert [c.append for c in chunks] == [False] + [True] * 19
    assert [c.last_chunk for c in chunks] == [False] * 19 + [True]
    assert {c.artifact.artifact_id for c in chunks} == {"story"}
    assert events[1].status_update.status.state == TaskState.TASK_STATE_WORKING
    assert events[-1].status_update.status.state == TaskState.TASK_STATE_COMPLETED
    assert {e.status_update.task_id for e in events if e.HasField("status_update")} == {events[0].task.id}


@pytest.mark.parametrize("dialect", SDK_DIALECTS)
@pytest.mark.parametrize("streaming", [False, True], ids=["send", "stream"])
async def test_sdk_client_multi_turn_and_cancel(pool: Pool, dialect: str, streaming: bool) -> None:
    from a2a.types.a2a_pb2 import CancelTaskRequest, GetTaskRequest, TaskState

    def last_status(events: list[Any]) -> Any:
        last = events[-1]
        return last.task.status if last.HasField("task") else last.status_update.status

    mock = pool.scenario("input-required", dialect)
    async with sdk_client(mock, streaming=streaming) as client:
        first = [r async for r in client.send_message(sdk_message("ask me something"))]
        asked = last_status(first)
        assert asked.state == TaskState.TASK_STATE_INPUT_REQUIRED
        assert sdk_texts(asked.message.parts) == "What should I echo? Reply on this task."
        head = first[0].task
        second = [r async for r in client.send_message(sdk_message("bananas", head.id, head.context_id))]
        assert last_status(second).state == TaskState.TASK_STATE_COMPLETED
        done = await client.get_task(GetTaskRequest(id=head.id))
        assert done.status.state == TaskState.TASK_STATE_COMPLETED
        assert sdk_texts(done.artifacts[0].parts) == "echo: bananas"
        users = [sdk_texts(h.parts) for h in done.history if h.role == 1]
        assert users == ["ask me something", "bananas"]
        # cancel: a waiting task ends canceled; a finished one is refused.
        replies = [r async for r in client.send_message(sdk_message("ask again"))]
        waiting = replies[0].task
        canceled = await client.cancel_task(CancelTaskRequest(id=waiting.id))
        assert canceled.status.state == TaskState.TASK_STATE_CANCELED
        assert sdk_texts(canceled.status.message.parts) == CANCELED_TEXT
        with pytest.raises(Exception) as refused:
            await client.cancel_task(CancelTaskRequest(id=waiting.id))
        assert type(refused.value).__name__ == "TaskNotCancelableError", refused.value
        with pytest.raises(Exception) as missing:
            await client.get_task(GetTaskRequest(id="no-such-task"))
        assert type(missing.value).__name__ == "TaskNotFoundError", missing.value


@pytest.mark.parametrize("dialect", SDK_DIALECTS)
async def test_sdk_client_subscribe_to_a_running_task(dialect: str) -> None:
    from a2a.types.a2a_pb2 import SubscribeToTaskRequest, TaskState

    async with MockAgent(running_slow(), dialect=dialect) as mock, sdk_client(mock, streaming=True) as client:
        stream = client.send_message(sdk_message("slow hello"))
        head = await anext(stream)
        task_id = head.task.id
        await stream.aclose()
        subscribed = client.subscribe(SubscribeToTaskRequest(id=task_id))
        events = [await anext(subscribed)]
        opened = asyncio.create_task(open_gates(mock))
        events += [r async for r in subscribed]
        await opened
    assert events[0].HasField("task") and events[0].task.id == task_id
    assert events[-1].status_update.status.state == TaskState.TASK_STATE_COMPLETED
    snapshot = "".join(sdk_texts(a.parts) for a in events[0].task.artifacts)
    live = "".join(sdk_texts(e.artifact_update.artifact.parts) for e in events if e.HasField("artifact_update"))
    assert snapshot + live == "echo: slow hello (done)"


# ---------------------------------------------------------------------- cards lint clean


def no_modes(lint_as: str) -> set[tuple[str, str, str]]:
    """The modes a seed's card leaves out, served as [] where a dialect requires them: legal
    but empty in 0.3, an empty REQUIRED array in 1.0 (§5.7)."""
    if lint_as == "1.0":
        return {
            ("error", "$.defaultInputModes", "empty-required-array"),
            ("error", "$.defaultOutputModes", "empty-required-array"),
        }
    return {
        ("warning", "$.defaultInputModes", "empty-default-input-modes"),
        ("warning", "$.defaultOutputModes", "empty-default-output-modes"),
    }


def known_findings(scenario: str, served: str, lint_as: str) -> set[tuple[str, str, str]]:
    """Findings that are deliberate. The seed systems' cards are reproduced as they are:
    Society's has no version and a skill with neither description nor tags, Society AI's
    no default modes (written as [] where a dialect requires them). Every other built-in,
    the demo's included, lints without an error or a warning. (A compat card's security
    scheme carries both spellings, as a2a-sdk's does: that is no finding in either version.)"""
    out: set[tuple[str, str, str]] = set()
    if scenario == "society":
        out.add(("error", "$.version", "empty-version"))
        if lint_as != "0.1":
            out.add(("error", "$.skills[0].description", "skill-missing-description"))
        if lint_as == "1.0":
            out.add(("error", "$.skills[0].tags", "empty-required-array"))
    if scenario in ("society", "society-ai") and served != "0.1":
        out |= no_modes(lint_as)
    return out


CARD_SCENARIOS = [
    "echo",
    "streaming",
    "input-required",
    "errors",
    "slow",
    "flaky",
    "large-artifact",
    "files-and-data",
    "demo",
    "society",
    "society-ai",
    "draft",
    "orloj",
]


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("scenario", CARD_SCENARIOS)
def test_card_lints_clean(pool: Pool, scenario: str, dialect: str) -> None:
    mock = pool.scenario(scenario, dialect)
    served = ("0.1", "0.3", "1.0") if dialect == "all" else (dialect,)
    for url in mock.card_urls:
        raw = httpx.get(url).json()
        decode_card(raw)
        for lint_as in served:
            found = {
                (f.severity, f.path, f.code) for f in lint_card(raw, lint_as, card_url=url) if f.severity != "info"
            }
            assert found == known_findings(scenario, dialect, lint_as), (url, lint_as)


@pytest.mark.parametrize("profile", ["society", "society-ai", "draft", "orloj"])
def test_profile_card_lints_clean(pool: Pool, profile: str) -> None:
    mock = pool.profile(profile)
    (url,) = mock.card_urls
    raw = httpx.get(url).json()
    found = {(f.severity, f.path, f.code) for f in lint_card(raw, "0.1", card_url=url) if f.severity != "info"}
    # Society's own card, exactly: no version at all (which 0.1 lint calls a warning: the
    # draft's schema lists it, its agents left it out).
    assert found == ({("warning", "$.version", "missing-version")} if profile == "society" else set())
