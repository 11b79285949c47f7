"""EventStream.drain(): a stream read for its session (the TUI's way) leaves the same
session, the same tracker and the same errors as one iterated event by event, although
its plain chunks are decoded lean (protocol/lean.py) rather than into models."""

from __future__ import annotations

import asyncio
import itertools
import json
from typing import Any

import httpx
import pytest

from inspector.client import A2AClient, JsonRpcError, TransportError
from inspector.protocol import models as m
from inspector.protocol.lean import TextChunk
from inspector.session import Kind, Session, TaskTracker
from test_tracker_fast import state

URL = "http://agent.test/"


def v10_body(chunks: list[Any], *, crlf: bool = True, error_at: int | None = None) -> bytes:
    """A 1.0 message/stream answer: task, working, the chunks (dicts merged into each
    update; a str is sent as the event's data as it is), completed."""

    def event(result: Any) -> str:
        return json.dumps({"result": result, "id": 1, "jsonrpc": "2.0"})

    out = [
        event({"task": {"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_SUBMITTED"}}}),
        event({"statusUpdate": {"taskId": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_WORKING"}}}),
    ]
    for i, extra in enumerate(chunks):
        if i == error_at:
            out.append(json.dumps({"jsonrpc": "2.0", "id": 1, "error": {"code": -32603, "message": "boom"}}))
        if isinstance(extra, str):
            out.append(extra)
            continue
        upd = {
            "taskId": "t1",
            "contextId": "c1",
            "artifact": {"artifactId": "a", "name": "answer", "parts": [{"text": f"piece {i} "}]},
        }
        if i:
            upd["append"] = True
        if i == len(chunks) - 1:
            upd["lastChunk"] = True
        upd.update(extra)
        out.append(event({"artifactUpdate": upd}))
    out.append(
        event({"statusUpdate": {"taskId": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_COMPLETED"}}})
    )
    nl = "\r\n" if crlf else "\n"
    text = "".join(f"data: {d}{nl}{nl}" + (f": ping{nl}{nl}" if i == 3 else "") for i, d in enumerate(out))
    return text.encode()


def ticks() -> Any:
    # Both runs' events get the same times: their trackers can be compared whole.
    counter = itertools.count()
    return lambda: next(counter) / 1000


async def run(body: bytes, drain: bool, listener: Any = None) -> tuple[Session, TaskTracker, Any, Any]:
    session = Session(clock=ticks(), wall_clock=ticks())
    tracker = TaskTracker(session)
    if listener is not None:
        session.subscribe(listener)

    def handler(request: httpx.Request) -> httpx.Response:
        # Cut at odd places: events span the pieces.
        pieces = [body[i : i + 97] for i in range(0, len(body), 97)]
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, stream=_Pieces(pieces))

    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as http:
        client = A2AClient(URL, session=session, dialect="1.0", endpoint=URL, http=http, binding="jsonrpc")
        last, error = await read(client, drain)
        await client.aclose()
    return session, tracker, last, error


async def read(client: A2AClient, drain: bool) -> tuple[Any, Any]:
    """Stream a message and read the answer drained or iterated: (the last event, the
    JsonRpcError or TransportError it ended with)."""
    params = {"message": {"role": "user", "message_id": "m-1", "parts": [{"kind": "text", "text": "hi"}]}}
    last: Any = None
    try:
        if drain:
            last = await client.stream(params).drain()
        else:
            async for event in client.stream(params):
                last = event
    except (JsonRpcError, TransportError) as exc:
        return last, exc
    return last, None


class _Pieces(httpx.AsyncByteStream):
    def __init__(self, pieces: list[bytes]) -> None:
        self.pieces = pieces

    async def __aiter__(self):
        for piece in self.pieces:
            yield piece


def logged(session: Session) -> list[Any]:
    return [
        (
            e.kind,
            e.exchange,
            e.raw if e.kind is Kind.SSE else None,
            e.data.get("reason") if e.kind is Kind.STREAM_END else None,
            e.data.get("message") if e.kind is Kind.ERROR else None,
            repr(e.payload) if e.kind is Kind.SSE else None,
        )
        for e in session.events
    ]


def alike(body: bytes) -> tuple[Any, Any]:
    lean = asyncio.run(run(body, True))
    full = asyncio.run(run(body, False))
    assert logged(lean[0]) == logged(full[0])
    assert repr(state(lean[1])) == repr(state(full[1]))  # (errors compare by identity)
    if full[3] is None:
        assert repr(lean[2]) == repr(full[2])
    assert type(lean[3]) is type(full[3]) and str(lean[3]) == str(full[3])
    return lean, full


def test_a_drained_stream_leaves_what_an_iterated_one_does() -> None:
    lean, _ = alike(v10_body([{}] * 30))
    session, tracker, last, error = lean
    assert error is None and isinstance(last, m.TaskStatusUpdateEvent)
    view = tracker.task("t1").artifacts["a"]
    assert view.closed and view.text() == "".join(f"piece {i} " for i in range(30)) and not tracker.violations
    # Read after the stream, each event's payload is its model, as always.
    assert all(e.payload.__class__ is not TextChunk for e in session.events)


def test_listeners_see_models() -> None:
    seen: list[Any] = []

    def listener(event: Any) -> None:
        if event.kind is Kind.SSE:
            seen.append(event.payload.__class__)

    asyncio.run(run(v10_body([{}] * 5), True, listener))
    assert seen and TextChunk not in seen and m.TaskArtifactUpdateEvent in seen


def test_the_last_event_a_chunk_is_a_model() -> None:
    # A chunk after the final status (a violation) is the stream's last event.
    late = json.dumps(
        {
            "result": {
                "artifactUpdate": {
                    "taskId": "t1",
                    "contextId": "c1",
                    "append": True,
                    "artifact": {"artifactId": "a", "parts": [{"text": "late"}]},
                }
            },
            "id": 1,
            "jsonrpc": "2.0",
        }
    )
    body = v10_body([{}] * 4) + f"data: {late}\r\n\r\n".encode()
    lean, _ = alike(body)
    assert isinstance(lean[2], m.TaskArtifactUpdateEvent) and lean[2].artifact.parts[0].text == "late"
    assert {v.code for v in lean[1].violations} == {"artifact-after-terminal", "chunk-after-close"}


def test_a_stream_cut_short() -> None:
    body = v10_body([{}] * 4)
    lean, _ = alike(body[: body.rindex(b"data: ")])  # no final status
    assert isinstance(lean[3], TransportError)


@pytest.mark.parametrize(
    "odd",
    [
        {"artifact": {"artifactId": "a", "parts": [{"text": 5}]}},
        {"artifact": {"artifactId": "a", "parts": []}},
        {"artifact": {"artifactId": "a", "parts": [{"text": "x", "metadata": {"k": 1}}]}},
        {"artifact": {"parts": [{"text": "no id"}]}},
        {"append": "yes"},
        {"taskId": "t2"},
        {"contextId": "c2"},
        {"metadata": {"m": 1}},
        {"lastChunk": True},
        '{"result": {"artifactUpdate": ',
        "not json",
        "\ufeff"
        + json.dumps(
            {
                "result": {
                    "artifactUpdate": {
                        "taskId": "t1",
                        "append": True,
                        "artifact": {"artifactId": "a", "parts": [{"text": "bom "}]},
                    }
                },
                "id": 1,
                "jsonrpc": "2.0",
            }
        ),
        json.dumps(
            {
                "result": {
                    "artifactUpdate": {
                        "taskId": "t1",
                        "append": True,
                        "artifact": {"artifactId": "a", "parts": [{"text": "other id "}]},
                    }
                },
                "id": 2,
                "jsonrpc": "2.0",
            }
        ),
    ],
    ids=repr,
)
def test_an_odd_chunk_midstream(odd: Any) -> None:
    chunks: list[Any] = [{}] * 6
    chunks[3] = odd
    alike(v10_body(chunks))


def test_an_error_event_midstream() -> None:
    lean, _ = alike(v10_body([{}] * 6, error_at=4))
    assert isinstance(lean[3], JsonRpcError)


def test_drain_twice_is_a_mistake() -> None:
    async def twice() -> None:
        session = Session()

        def handler(request: httpx.Request) -> httpx.Response:
            return httpx.Response(
                200, headers={"content-type": "text/event-stream"}, stream=_Pieces([v10_body([{}] * 2)])
            )

        async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as http:
            client = A2AClient(URL, session=session, dialect="1.0", endpoint=URL, http=http, binding="jsonrpc")
            stream = client.stream(
                {"message": {"role": "user", "message_id": "m", "parts": [{"kind": "text", "text": "x"}]}}
            )
            await stream.drain()
            with pytest.raises(RuntimeError):
                await stream.drain()
            await client.aclose()

    asyncio.run(twice())


@pytest.mark.parametrize("plain", [False, True], ids=["EventStream", "plain iterator"])
def test_drain_gives_the_event_loop_back_while_it_reads_what_was_received(
    plain: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The mock transport hands the pieces over without ever waiting, as a socket does
    # with a stream already received: only drain's own turn limit lets the loop's other
    # tasks (the TUI's frames, its keys) in. DRAIN_TURN 0: give it back after every event.
    from inspector.client import client as client_module

    events = 2_000

    async def other_turns() -> int:
        turns = 0
        done = False

        async def other() -> None:
            nonlocal turns
            while not done:
                turns += 1
                await asyncio.sleep(0)

        task = asyncio.create_task(other())
        await asyncio.sleep(0)
        before = turns
        if plain:

            async def numbers() -> Any:
                for i in range(events):
                    yield i

            assert await client_module.drain_events(numbers()) == events - 1
        else:
            _session, _tracker, last, error = await run(v10_body([{}] * events), True)
            assert error is None and last.status.state is m.TaskState.COMPLETED
        during = turns - before
        done = True
        await task
        return during

    monkeypatch.setattr(client_module, "DRAIN_TURN", 0.0)
    assert asyncio.run(other_turns()) >= events
    monkeypatch.setattr(client_module, "DRAIN_TURN", float("inf"))
    assert asyncio.run(other_turns()) < 50


def test_a_drained_grpc_stream_folds_its_chunks_lean_and_as_an_iterated_one_does() -> None:
    """Over gRPC the plain chunk is read lean from the ProtoJSON the client logs (the
    HTTP+JSON binding's form): the same tracker, the same log, and models for listeners."""
    from mock_agent import MockAgent

    story = {
        "name": "grpc-chunks",
        "card": {"name": "Chunks", "capabilities": {"streaming": True}},
        "rules": [
            {
                "script": [
                    {"status": "working"},
                    {"chunks": {"name": "story", "texts": [f"piece {i} " for i in range(20)]}},
                    {"status": "completed"},
                ]
            }
        ],
    }

    async def once(mock: MockAgent, drain: bool) -> tuple[TaskTracker, Session, list[Any]]:
        session = Session()
        tracker = TaskTracker(session)
        kept: list[Any] = []
        # What the tracker was handed live (the slot, not the model the property gives).
        session.subscribe(lambda e: kept.append(e._payload.__class__) if e.kind is Kind.MESSAGE else None)
        params = {"message": {"role": "user", "message_id": "m-1", "parts": [{"kind": "text", "text": "go"}]}}
        async with A2AClient(mock.grpc_url, session=session, dialect="1.0") as client:
            if drain:
                last = await client.stream(params).drain()
            else:
                async for last in client.stream(params):  # noqa: B007 - the loop keeps the last event
                    pass
        assert isinstance(last, m.TaskStatusUpdateEvent) and last.status.state is m.TaskState.COMPLETED
        return tracker, session, kept

    async def both() -> None:
        async with MockAgent(story, dialect="1.0", grpc_port=0) as mock:
            lean = await once(mock, True)
            full = await once(mock, False)
        for tracker, session, _kept in (lean, full):
            (task,) = tracker.tasks.values()
            (view,) = task.artifacts.values()
            assert task.state is m.TaskState.COMPLETED and view.closed and not tracker.violations
            assert view.text() == "".join(f"piece {i} " for i in range(20)) and len(view.chunks) == 20
            assert all(e.payload.__class__ is not TextChunk for e in session.events)
        assert [e.kind for e in lean[1].events] == [e.kind for e in full[1].events]
        assert lean[2].count(TextChunk) == 19 and TextChunk not in full[2]  # the first chunk starts the artifact

    asyncio.run(both())


def _grpc_updates(texts: list[str], *, late: int = 0, final: bool = True) -> list[dict[str, Any]]:
    """A 1.0 SendStreamingMessage answer as ProtoJSON: task, working, one chunk per text
    (the first starts the artifact), completed (unless not ``final``), then ``late``
    more appended chunks after it."""

    def chunk(i: int, text: str) -> dict[str, Any]:
        return {
            "artifactUpdate": {
                "taskId": "t1",
                "contextId": "c1",
                "append": i > 0,
                "artifact": {"artifactId": "a", "parts": [{"text": text}]},
            }
        }

    out = [
        {"task": {"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_SUBMITTED"}}},
        {"statusUpdate": {"taskId": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_WORKING"}}},
    ]
    out += [chunk(i, text) for i, text in enumerate(texts)]
    if final:
        out.append({"statusUpdate": {"taskId": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_COMPLETED"}}})
    out += [chunk(1, f"late {i}") for i in range(late)]
    return out


async def _grpc_run(messages: list[dict[str, Any]], drain: bool) -> tuple[Session, TaskTracker, Any, Any]:
    import grpc

    from inspector.client.transport import Timeouts
    from inspector.protocol import grpc_schema

    prepared = [grpc_schema.from_json("1.0", "StreamResponse", obj).SerializeToString() for obj in messages]

    async def answer(request: bytes, context: Any) -> Any:
        for item in prepared:
            yield item

    handler = grpc.method_handlers_generic_handler(
        "lf.a2a.v1.A2AService", {"SendStreamingMessage": grpc.unary_stream_rpc_method_handler(answer)}
    )
    server = grpc.aio.server()
    server.add_generic_rpc_handlers((handler,))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    session = Session(clock=ticks(), wall_clock=ticks())
    tracker = TaskTracker(session)
    try:
        # The server ends every stream itself: the linger is never waited out.
        async with A2AClient(
            f"grpc://127.0.0.1:{port}", session=session, dialect="1.0", timeouts=Timeouts(linger=30)
        ) as client:
            last, error = await read(client, drain)
    finally:
        await server.stop(None)
    return session, tracker, last, error


def _grpc_logged(session: Session) -> list[Any]:
    return [
        (
            e.kind,
            e.exchange,
            e.data.get("json") if e.kind is Kind.MESSAGE else None,
            e.data.get("reason") if e.kind is Kind.STREAM_END else None,
            repr(e.payload) if e.kind is Kind.MESSAGE else None,
        )
        for e in session.events
    ]


@pytest.mark.parametrize("case", ["complete", "late-chunks", "no-final", "mixed"])
def test_a_drained_grpc_stream_ends_as_an_iterated_one(case: str) -> None:
    """A drained gRPC stream does not hand its plain chunks on one by one (only the
    session takes them), yet ends on the same event, with the same error, log and
    tracker as an iterated one, also when chunks come after the final status or the
    stream breaks off after a chunk."""
    texts = [f"piece {i} " for i in range(6)]
    messages = {
        "complete": _grpc_updates(texts),
        "late-chunks": _grpc_updates(texts, late=2),
        "no-final": _grpc_updates(texts, final=False),
        "mixed": _grpc_updates(texts),
    }[case]
    if case == "mixed":  # a chunk the lean reader does not take, between plain ones
        messages[4]["artifactUpdate"]["metadata"] = {"k": "v"}
    lean = asyncio.run(_grpc_run(messages, True))
    full = asyncio.run(_grpc_run(messages, False))
    assert _grpc_logged(lean[0]) == _grpc_logged(full[0])
    assert repr(state(lean[1])) == repr(state(full[1]))
    if full[3] is None:  # (drain() returns nothing when it raises)
        assert repr(lean[2]) == repr(full[2])
    assert type(lean[3]) is type(full[3]) and str(lean[3]) == str(full[3])
    if case == "late-chunks":
        assert isinstance(lean[2], m.TaskArtifactUpdateEvent) and lean[2].artifact.parts[0].text == "late 1"
        assert "artifact-after-terminal" in {v.code for v in lean[1].violations}
    elif case == "no-final":
        assert isinstance(lean[3], TransportError) and lean[2] is None
    else:
        assert isinstance(lean[2], m.TaskStatusUpdateEvent) and lean[3] is None
