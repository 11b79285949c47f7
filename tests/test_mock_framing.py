"""How a2a-mock writes a stream, seen from a raw socket, and the inspector reading every framing.

A real server (a2a-sdk over sse-starlette) writes each SSE event with its own ASGI send,
so a client meets events split across reads and reads that hold several. The mock does
the same by default; a scenario's ``framing:`` buffers instead, or plays framing faults
(writes cut at any byte, CR-only / LF-only line endings, comments between fields). Over
HTTP/1.1 chunked encoding each write is one chunk, which is what the raw-socket tests
read: the chunk boundaries are the server's writes, whatever TCP did with them.
"""

from __future__ import annotations

import json
import socket
import uuid
from typing import Any

import httpx
import pytest

from inspector.client import A2AClient, MemoryDialectCache
from inspector.protocol import models as m
from inspector.session import Session, TaskTracker
from mock_agent import MockAgent
from mock_agent.engine import FLUSH_EVERY
from mock_agent.loader import ScenarioError, load_text

CHUNKS = 200


def story(count: int = CHUNKS) -> str:
    return "".join(f"word {i} é\n" for i in range(count))


def scenario(framing: dict[str, Any] | None = None, count: int = CHUNKS) -> dict[str, Any]:
    out: dict[str, Any] = {
        "card": {"name": "Framed", "capabilities": {"streaming": True}},
        "rules": [
            {
                "script": [
                    {"status": "working", "message": "writing"},
                    {"chunks": {"id": "story", "name": "story", "text": "word {i} é\n", "count": count}},
                    {"status": "completed", "message": "done"},
                ]
            }
        ],
    }
    if framing is not None:
        out["framing"] = framing
    return out


def raw_stream(mock: MockAgent) -> list[bytes]:
    """POST a 1.0 SendStreamingMessage over a plain socket; return the HTTP chunks of the
    response body, one per server write."""
    body = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "SendStreamingMessage",
            "params": {"message": {"role": "ROLE_USER", "messageId": str(uuid.uuid4()), "parts": [{"text": "go"}]}},
        }
    ).encode()
    host, port = mock.base_url.removeprefix("http://").rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        sock.sendall(
            b"POST / HTTP/1.1\r\nhost: %b\r\ncontent-type: application/json\r\na2a-version: 1.0\r\n"
            b"accept: text/event-stream\r\nconnection: close\r\ncontent-length: %d\r\n\r\n%b"
            % (host.encode(), len(body), body)
        )
        data = b""
        while True:
            got = sock.recv(65536)
            if not got:
                break
            data += got
    head, _, rest = data.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200"), head
    assert b"transfer-encoding: chunked" in head.lower()
    chunks = []
    while True:
        size_line, _, rest = rest.partition(b"\r\n")
        size = int(size_line.split(b";")[0], 16)
        if size == 0:
            return chunks
        chunks.append(rest[:size])
        assert rest[size : size + 2] == b"\r\n"
        rest = rest[size + 2 :]


def events_in(data: bytes) -> list[Any]:
    """The JSON of every event in an SSE body, whatever its line endings."""
    text = data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
    out = []
    for block in text.split("\n\n"):
        lines = [line[5:].lstrip(" ") for line in block.split("\n") if line.startswith("data:")]
        if lines:
            out.append(json.loads("\n".join(lines)))
    return out


def chunk_text(events: list[Any]) -> str:
    return "".join(
        p["text"]
        for e in events
        if "artifactUpdate" in e["result"]
        for p in e["result"]["artifactUpdate"]["artifact"]["parts"]
    )


# ---------------------------------------------------------------------- writes, as a socket sees them


def test_each_event_is_its_own_write_by_default() -> None:
    with MockAgent(scenario(), dialect="1.0") as mock:
        chunks = raw_stream(mock)
    # task, working, 200 chunks, completed: one write each, nothing merged or cut.
    assert len(chunks) == CHUNKS + 3
    for chunk in chunks:
        assert chunk.startswith(b"data: ") and chunk.endswith(b"\r\n\r\n") and chunk.count(b"\r\n\r\n") == 1
    events = [json.loads(chunk[6:-4]) for chunk in chunks]
    assert list(events[0]["result"]) == ["task"] and chunk_text(events) == story()


def test_buffered_writes_put_several_events_in_one_write() -> None:
    # The engine produces the first 64 chunks before the server gets to write (engine.py
    # FLUSH_EVERY), so a buffered stream's first write after the head holds them all.
    with MockAgent(scenario({"writes": "buffered"}), dialect="1.0") as mock:
        chunks = raw_stream(mock)
    assert len(chunks) < CHUNKS + 3
    assert max(chunk.count(b"\r\n\r\n") for chunk in chunks) >= FLUSH_EVERY
    assert chunk_text(events_in(b"".join(chunks))) == story()


@pytest.mark.parametrize("writes", ["per-event", "buffered"])
def test_split_cuts_every_write_at_any_byte(writes: str) -> None:
    with MockAgent(scenario({"writes": writes, "split": 7}), dialect="1.0") as mock:
        chunks = raw_stream(mock)
    assert all(len(chunk) <= 7 for chunk in chunks)
    body = b"".join(chunks)
    # Cuts fall inside CRLFs and inside the two bytes of "é": nothing is aligned.
    assert any(chunk.endswith(b"\r") for chunk in chunks)
    assert any(chunk.endswith("é".encode()[:1]) for chunk in chunks)
    assert chunk_text(events_in(body)) == story()


@pytest.mark.parametrize(("endings", "eol"), [("lf", b"\n"), ("cr", b"\r"), ("crlf", b"\r\n")])
def test_line_endings(endings: str, eol: bytes) -> None:
    with MockAgent(scenario({"line_endings": endings}), dialect="1.0") as mock:
        chunks = raw_stream(mock)
    assert len(chunks) == CHUNKS + 3
    for chunk in chunks:
        assert chunk.endswith(b"}" + eol + eol)
        others = {b"\r\n", b"\n", b"\r"} - {eol}
        assert not any(other in chunk.replace(eol, b"") for other in others)
    assert chunk_text(events_in(b"".join(chunks))) == story()


def test_comments_between_fields() -> None:
    with MockAgent(scenario({"comments": True}), dialect="1.0") as mock:
        chunks = raw_stream(mock)
    for chunk in chunks:
        assert chunk.startswith(b": a2a-mock framing\r\ndata: ")
        assert chunk.endswith(b"}\r\n: a2a-mock framing\r\n\r\n")
    assert chunk_text(events_in(b"".join(chunks))) == story()


def test_framing_is_checked_when_the_scenario_loads() -> None:
    text = (
        "card: {name: x}\nframing: {writes: bunched, split: 0, line_endings: crcr}\n"
        "rules: [{script: [{status: completed}]}]\n"
    )
    with pytest.raises(ScenarioError) as err:
        load_text(text, "framed.yaml")
    message = str(err.value)
    assert "framing.writes" in message and "framing.split" in message and "framing.line_endings" in message


# ---------------------------------------------------------------------- the inspector reads them all


FRAMINGS = [
    pytest.param({}, id="per-event"),
    pytest.param({"writes": "buffered"}, id="buffered"),
    pytest.param({"split": 1}, id="split-1"),
    pytest.param({"split": 7}, id="split-7"),
    pytest.param({"writes": "buffered", "split": 4096}, id="buffered-split-4096"),
    pytest.param({"line_endings": "lf"}, id="lf"),
    pytest.param({"line_endings": "cr"}, id="cr"),
    pytest.param({"line_endings": "cr", "split": 3}, id="cr-split-3"),
    pytest.param({"comments": True}, id="comments"),
    pytest.param({"comments": True, "line_endings": "lf", "split": 5}, id="comments-lf-split-5"),
]


@pytest.mark.parametrize("framing", FRAMINGS)
@pytest.mark.parametrize("dialect", ["0.3", "1.0"])
async def test_the_inspector_reads_every_framing(framing: dict[str, Any], dialect: str) -> None:
    async with MockAgent(scenario(framing, count=50), dialect=dialect) as mock:
        session = Session()
        tracker = TaskTracker(session)
        async with (
            httpx.AsyncClient(timeout=30) as http,
            A2AClient(mock.url, session=session, http=http, dialect_cache=MemoryDialectCache()) as client,
        ):
            events = [
                event
                async for event in client.stream(
                    m.SendParams(
                        message=m.Message(role=m.Role.USER, parts=[m.TextPart(text="go")], message_id=str(uuid.uuid4()))
                    )
                )
            ]
    assert isinstance(events[0], m.Task)
    view = tracker.tasks[events[0].id]
    assert view.state is m.TaskState.COMPLETED
    (art,) = view.artifacts.values()
    assert art.complete and art.text() == story(50)
    assert [v.code for v in tracker.violations] == []


def test_heartbeats_follow_the_framing() -> None:
    framed = {**scenario({"line_endings": "lf"}, count=1), "heartbeat": 0.01}
    framed["rules"][0]["script"].insert(1, {"hold": "beat", "timeout": 0.3})
    with MockAgent(framed, dialect="1.0") as mock:
        chunks = raw_stream(mock)
    beats = [chunk for chunk in chunks if chunk.startswith(b":")]
    assert beats and all(chunk == b": heartbeat\n\n" for chunk in beats)
