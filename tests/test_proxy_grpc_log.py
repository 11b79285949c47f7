"""The proxy's log of a relayed gRPC stream (inspector/proxy/grpc_records.py MessageLog)
reads the plain next chunk of a text artifact lean: its ProtoJSON written from the
message's fields and a TextChunk for the tracker, as the client's drained stream does.
That must change nothing: the records are those the general path (a dict, its JSON,
the codec's decode) writes, and the proxy's tracker shows what a tracker folding the
recorded events the general way shows. The agent is a loopback grpc.aio server whose
streams are built in advance (no sleeps)."""

from __future__ import annotations

import contextlib
import dataclasses
import json
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest

from inspector.protocol import grpc_codec, grpc_schema
from inspector.protocol.lean import TextChunk
from inspector.proxy import Proxy, ProxyServer, Route
from inspector.session import Event, Kind, TaskTracker
from inspector.session.chunks import ChunkLog
from proxy_helpers import grpc_agent, until
from test_proxy_grpc_fast import TIMING, records, request
from test_tracker_fast import state

STREAM = "/lf.a2a.v1.A2AService/SendStreamingMessage"


def response(**fields: Any) -> bytes:
    return grpc_schema.message_class("1.0", "StreamResponse")(**fields).SerializeToString()


def chunk(text: str, *, artifact: str = "a", task: str = "t1", **more: Any) -> bytes:
    """An artifact update of ``task``; ``more``: the update's other fields, and
    ``art_*`` the artifact's."""
    art = {"artifact_id": artifact, "parts": [{"text": text}]}
    art.update({k[4:]: v for k, v in more.items() if k.startswith("art_")})
    update = {"task_id": task, "context_id": "c1", "append": True, "artifact": art}
    update.update({k: v for k, v in more.items() if not k.startswith("art_")})
    return response(artifact_update=update)


def status(state: str, task: str = "t1") -> bytes:
    return response(status_update={"task_id": task, "context_id": "c1", "status": {"state": state}})


HOSTILE = 'quote " slash \\ nul \x00 bell \x07 line\u2028sep é 😀 </script> \ud7ff'

#: Two streams of one task: every plain case the lean reader takes (names, flags, a
#: missing context, hostile text), cases it leaves to the general path (a first chunk,
#: metadata, two parts, another part kind), and chunks the tracker's shortcut refuses
#: (after lastChunk, of an unknown artifact, after the task completed: the TextChunk's
#: model is folded then).
STREAMS = {
    "one": [
        status("TASK_STATE_WORKING"),
        chunk("first ", append=False),
        *[chunk(f"{i} ") for i in range(5)],
        chunk("named ", art_name="Report", art_description="the report"),
        chunk(HOSTILE),
        response(
            artifact_update={
                "task_id": "t1",
                "append": True,
                "artifact": {"artifact_id": "a", "parts": [{"text": "no context "}]},
            }
        ),
        chunk("meta ", metadata={"k": "v"}),
        chunk("artmeta ", art_metadata={"k": 1}),
        response(
            artifact_update={
                "task_id": "t1",
                "context_id": "c1",
                "append": True,
                "artifact": {"artifact_id": "a", "parts": [{"text": "two "}, {"text": "parts "}]},
            }
        ),
        chunk("typed ", art_parts=[{"text": "typed ", "media_type": "text/markdown"}]),
        chunk("closing", last_chunk=True),
        chunk("after close "),
        chunk("unknown ", artifact="b"),
        status("TASK_STATE_COMPLETED"),
    ],
    "two": [chunk(f"late {i} ") for i in range(4)] + [chunk("late end", last_chunk=True)],
}


@contextlib.asynccontextmanager
async def agent() -> AsyncIterator[str]:
    async def stream(req: bytes, _context: Any) -> Any:
        name = "two" if b"two" in req else "one"
        for message in STREAMS[name]:
            yield message

    class Handler(grpc.GenericRpcHandler):
        def service(self, details: Any) -> Any:
            return grpc.unary_stream_rpc_method_handler(stream) if details.method == STREAM else None

    async with grpc_agent(Handler()) as address:
        yield address


async def relayed(upstream: str) -> tuple[Proxy, list[type], list[Any]]:
    """Both streams through a proxy: the proxy, the class of each MESSAGE's payload as
    the listeners had it, and the messages the client got."""
    proxy = Proxy([Route("", "http://127.0.0.1:9")])
    kinds: list[type] = []

    def seen(event: Event) -> None:
        if event.kind is Kind.MESSAGE:
            kinds.append(event._payload.__class__)

    proxy.session.subscribe(seen)
    got: list[Any] = []
    async with ProxyServer(proxy, grpc_upstream=upstream):
        (listener,) = proxy.grpc.listeners.values()
        async with grpc.aio.insecure_channel(listener.address) as channel:
            for name in STREAMS:
                call = channel.unary_stream(STREAM)(request(name), metadata=(("a2a-version", "1.0"),))
                got.append([raw async for raw in call])
        await until(lambda: len([e for e in proxy.session.events if e.kind is Kind.STREAM_END]) == 2, "both ends")
    return proxy, kinds, got


#: What differs between two runs of the same calls.
TIMES = TIMING | {"t", "first_t", "last_t", "end_t"}


def timeless(value: Any) -> Any:
    """A tracker's state without the times (which differ between two runs)."""
    if isinstance(value, dict):
        return {k: timeless(v) for k, v in value.items() if k not in TIMES}
    if isinstance(value, (list, tuple)):
        return [timeless(v) for v in value]
    if isinstance(value, ChunkLog):
        return [timeless(dataclasses.asdict(c)) for c in value]
    return value


async def test_plain_chunks_are_logged_lean_and_change_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    async with agent() as upstream:
        lean, lean_kinds, lean_got = await relayed(upstream)
        with monkeypatch.context() as patch:
            patch.setattr(grpc_codec, "plain_chunk_reader", lambda dialect: None)
            general, general_kinds, general_got = await relayed(upstream)
    assert lean_got == general_got == list(STREAMS.values())
    # The plain appended chunks were read lean (a silent fallback would lose the speed);
    # the general run read none so.
    # Stream one's: the five numbered, the named, the hostile, the context-less, the
    # closing one and the two the tracker refuses; stream two's five.
    assert lean_kinds.count(TextChunk) == 11 + 5 and TextChunk not in general_kinds
    # The same records, byte for byte but the times.
    assert records(lean) == records(general)
    messages = [e for e in lean.session.events if e.kind is Kind.MESSAGE]
    assert len(messages) == sum(map(len, STREAMS.values()))
    hostile = messages[8]
    assert json.loads(hostile.data["json"])["artifactUpdate"]["artifact"]["parts"] == [{"text": HOSTILE}]
    assert hostile.payload.artifact.parts[0].text == HOSTILE
    # The same picture: the live tracker (lean) against the general path's, and against
    # a tracker folding the recorded events, each payload decoded again from its record.
    assert timeless(state(lean.tracker)) == timeless(state(general.tracker))
    again = TaskTracker(messages_kept=10_000)
    for e in lean.session.events:
        again.apply(Event(e.seq, e.t, e.kind, e.exchange, e.data, e.wall, e.payload))
    assert state(again) == state(lean.tracker)
    task = lean.tracker.task("t1")
    assert task is not None and task.state.value == "completed"
    assert {v.code for v in lean.tracker.violations} >= {"chunk-after-close", "artifact-after-terminal"}
    assert task.artifacts["a"].text().startswith("first 0 1 2 3 4 named " + HOSTILE + "no context meta ")
