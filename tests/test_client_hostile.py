"""The client against the hostile corpus (tests/hostile.py) on a real loopback server:
each failure has its exact class, kind and one-line message, and the log keeps it all."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from typing import Any

import pytest

import hostile
from inspector.client import (
    A2AClient,
    JsonRpcError,
    MemoryDialectCache,
    ProtocolError,
    Timeouts,
    TransportError,
)
from inspector.protocol import models as m
from inspector.protocol.sizes import format_size
from inspector.serving.runner import BackgroundServer
from inspector.session import TaskTracker
from inspector.session.events import Kind
from ports import refused_port


@pytest.fixture(scope="module")
def agent() -> Iterator[tuple[str, Any]]:
    app = hostile.build_app()
    with BackgroundServer(app) as srv:
        yield srv.url, app


def client(agent: tuple[str, Any], behaviour: str, dialect: str = "0.3", **kw: Any) -> A2AClient:
    url, _ = agent
    return A2AClient(url, dialect=dialect, endpoint=f"{url}/{behaviour}", dialect_cache=MemoryDialectCache(), **kw)


def send_params(text: str = "hi") -> m.SendParams:
    return m.SendParams(message=m.Message(role="user", parts=[m.TextPart(text=text)], message_id="m-1"))


def kinds(c: A2AClient) -> list[Kind]:
    return [e.kind for e in c.session.events]


def of(c: A2AClient, kind: Kind) -> list[Any]:
    return [e for e in c.session.events if e.kind is kind]


def one_exchange(c: A2AClient) -> int:
    exchanges = {e.exchange for e in c.session.events if e.kind is not Kind.NOTE or e.exchange}
    assert len(exchanges) == 1, exchanges
    return exchanges.pop()


async def collect(stream: Any) -> tuple[list[Any], BaseException | None]:
    got: list[Any] = []
    try:
        async for event in stream:
            got.append(event)
    except Exception as exc:  # noqa: BLE001 - the test inspects it
        return got, exc
    return got, None


# ------------------------------------------------------------------ single responses


async def test_invalid_json_is_a_protocol_error_and_the_body_is_kept(agent) -> None:
    async with client(agent, "invalid-json") as c:
        with pytest.raises(ProtocolError) as info:
            await c.send(send_params())
    assert info.value.reason.startswith("invalid JSON: ")
    assert "\n" not in str(info.value)
    assert kinds(c) == [Kind.NOTE, Kind.REQUEST, Kind.RESPONSE, Kind.ERROR]
    response = of(c, Kind.RESPONSE)[0]
    assert response.data["body"] == hostile.invalid_json(1).body.decode()
    assert response.payload is info.value
    assert of(c, Kind.ERROR)[0].data == {"type": "protocol", "message": info.value.reason, "path": "$"}
    one_exchange(c)


@pytest.mark.parametrize(
    ("behaviour", "path"),
    [
        ("wrong-state", "$.result.status.state"),
        ("parts-not-a-list", "$.result.status.message.parts"),
    ],
)
async def test_wrong_types_name_the_json_path(agent, behaviour: str, path: str) -> None:
    async with client(agent, behaviour) as c:
        with pytest.raises(ProtocolError) as info:
            await c.send(send_params())
    assert info.value.path == path
    assert str(info.value).startswith(f"{path}: ")
    error = of(c, Kind.ERROR)[0].data
    assert error["type"] == "protocol" and error["path"] == path


async def test_ten_megabyte_body_decodes_and_is_stored_once(agent) -> None:
    async with client(agent, "big-body") as c:
        result = await c.send(send_params())
    assert isinstance(result, m.Task)
    assert len(result.artifacts[0].parts[0].text) == hostile.BIG_TEXT_SIZE
    response = of(c, Kind.RESPONSE)[0].data
    assert response["body_size"] > hostile.BIG_TEXT_SIZE
    assert len(response["body"]) == response["body_size"]
    big = [e.kind for e in c.session.events if any(isinstance(v, str) and len(v) > 1_000_000 for v in e.data.values())]
    assert big == [Kind.RESPONSE]


async def test_non_utf8_body_is_an_error_and_kept_as_base64(agent) -> None:
    served = hostile.not_utf8(1).body
    async with client(agent, "not-utf8") as c:
        with pytest.raises(ProtocolError) as info:
            await c.send(send_params())
    offset = served.index(b"\xe9")
    assert str(info.value) == f"body is not UTF-8 (byte 0xe9 at offset {offset})"
    response = of(c, Kind.RESPONSE)[0].data
    assert response["body_encoding"] == "base64"
    assert base64.b64decode(response["body"]) == served


async def test_html_500_is_one_clear_line(agent) -> None:
    async with client(agent, "html-500") as c:
        with pytest.raises(TransportError) as info:
            await c.send(send_params())
    size = format_size(len(hostile.HTML_500))
    assert str(info.value) == f'HTTP 500 Internal Server Error (HTML page "Internal Server Error", {size})'
    assert info.value.kind == "http" and info.value.status == 500
    response = of(c, Kind.RESPONSE)[0].data
    assert response["status"] == 500 and response["body"] == hostile.HTML_500
    assert response["content_type"].startswith("text/html")
    assert of(c, Kind.ERROR)[0].data == {"type": "http", "message": str(info.value)}


async def test_http_500_with_a_json_rpc_error_raises_that_error(agent) -> None:
    async with client(agent, "rpc-error-500") as c:
        with pytest.raises(JsonRpcError) as info:
            await c.send(send_params())
    assert info.value.code == -32603
    assert info.value.message == "Internal error: the model fell over"
    assert info.value.http_status == 500
    assert of(c, Kind.RESPONSE)[0].payload is info.value


async def test_markup_and_escapes_in_agent_text_arrive_literally(agent) -> None:
    async with client(agent, "markup") as c:
        result = await c.send(send_params())
    assert result.status.message.parts[0].text == hostile.MARKUP_TEXT
    assert of(c, Kind.RESPONSE)[0].payload.status.message.parts[0].text == hostile.MARKUP_TEXT


async def test_connection_refused(agent) -> None:
    with refused_port() as port:
        url = f"http://127.0.0.1:{port}/rpc"
        async with A2AClient(url, dialect="0.3", endpoint=url, dialect_cache=MemoryDialectCache()) as c:
            with pytest.raises(TransportError) as info:
                await c.send(send_params())
    assert str(info.value) == f"cannot connect to {url}: connection refused"
    assert info.value.kind == "connect"
    assert kinds(c) == [Kind.NOTE, Kind.REQUEST, Kind.ERROR]
    assert of(c, Kind.ERROR)[0].data == {"type": "connect", "message": str(info.value)}
    one_exchange(c)


# ------------------------------------------------------------------ streams


async def test_plain_json_where_a_stream_was_expected_is_one_event(agent) -> None:
    async with client(agent, "plain-json-for-stream") as c:
        got, exc = await collect(c.stream(send_params()))
    assert exc is None
    assert [type(e) for e in got] == [m.Task]
    assert got[0].status.state is m.TaskState.COMPLETED
    notes = [e.data["text"] for e in of(c, Kind.NOTE) if e.exchange]
    assert notes == ["expected an SSE stream, got application/json: read it as one response"]
    assert of(c, Kind.STREAM_END) == []


async def test_plain_json_error_where_a_stream_was_expected_raises(agent) -> None:
    async with client(agent, "plain-error-for-stream") as c:
        got, exc = await collect(c.stream(send_params()))
    assert got == []
    assert isinstance(exc, JsonRpcError) and exc.code == -32001


async def test_stream_cut_mid_event(agent) -> None:
    async with client(agent, "truncated-mid-event") as c:
        got, exc = await collect(c.stream(send_params()))
    assert [type(e) for e in got] == [m.Task, m.TaskStatusUpdateEvent]
    assert isinstance(exc, TransportError) and exc.kind == "stream"
    assert str(exc) == "stream ended before the task reached a final state (3 events received)"
    last = of(c, Kind.SSE)[-1]
    assert last.data["incomplete"] is True
    assert last.data["raw"].endswith('"kind": "status-upd')
    assert isinstance(last.payload, ProtocolError)
    assert of(c, Kind.STREAM_END)[0].data["reason"] == "eof"
    assert of(c, Kind.STREAM_END)[0].data["terminal"] is False
    assert [e.data["type"] for e in of(c, Kind.ERROR)] == ["protocol", "stream"]
    # the end is logged before the error it leads to
    assert kinds(c)[-2:] == [Kind.STREAM_END, Kind.ERROR]
    one_exchange(c)


async def test_stream_without_a_final_state(agent) -> None:
    async with client(agent, "truncated-no-final") as c:
        got, exc = await collect(c.stream(send_params()))
    assert len(got) == 3
    assert isinstance(exc, TransportError) and exc.kind == "stream"
    end = of(c, Kind.STREAM_END)[0].data
    assert end["reason"] == "eof" and end["events"] == 3 and end["terminal"] is False
    assert end["elapsed_ms"] >= 0


async def test_broken_stream(agent) -> None:
    async with client(agent, "broken-stream") as c:
        got, exc = await collect(c.stream(send_params()))
    assert [type(e) for e in got] == [m.TaskStatusUpdateEvent]
    assert isinstance(exc, TransportError) and exc.kind == "stream"
    assert str(exc).startswith(f"stream from {agent[0]}/broken-stream broken off: ")
    assert "\n" not in str(exc)
    assert of(c, Kind.STREAM_END)[0].data["reason"] == "error"


async def test_json_rpc_error_inside_a_stream_raises_after_logging(agent) -> None:
    async with client(agent, "rpc-error-in-stream") as c:
        got, exc = await collect(c.stream(send_params()))
    assert [type(e) for e in got] == [m.TaskStatusUpdateEvent]
    assert isinstance(exc, JsonRpcError) and exc.code == -32603
    # The logged event decodes to the same error (derived again: the log keeps raw text).
    assert any(
        isinstance(e.payload, JsonRpcError) and (e.payload.code, e.payload.message) == (exc.code, exc.message)
        for e in of(c, Kind.SSE)
    )
    assert of(c, Kind.STREAM_END)[0].data["reason"] == "error"


async def test_named_events_heartbeats_crlf_multiline_and_separators(agent) -> None:
    async with client(agent, "fancy-stream") as c:
        got, exc = await collect(c.stream(send_params()))
    assert exc is None
    assert [type(e) for e in got] == [
        m.Task,
        m.TaskArtifactUpdateEvent,
        m.TaskArtifactUpdateEvent,
        m.TaskStatusUpdateEvent,
    ]
    assert got[1].artifact.parts[0].text == hostile.SEPARATOR_TEXT
    assert got[2].artifact.parts[0].text == hostile.MARKUP_TEXT
    assert [e.data["text"] for e in of(c, Kind.COMMENT)] == [" welcome", " heartbeat", " heartbeat"]
    sse = of(c, Kind.SSE)
    assert [e.data["event"] for e in sse] == ["status", "artifact", None, "status"]
    assert "\r\n" in sse[1].data["raw"] and "\n" in sse[1].data["data"]
    assert set(sse[0].data) == {"raw", "event", "data", "id", "retry"}
    end = of(c, Kind.STREAM_END)[0].data
    assert end["reason"] == "complete" and end["terminal"] is True and end["events"] == 4
    assert of(c, Kind.ERROR) == []


async def test_bad_events_are_reported_and_the_stream_goes_on(agent) -> None:
    async with client(agent, "bad-events-stream") as c:
        got, exc = await collect(c.stream(send_params()))
    assert exc is None
    assert [e.status.state for e in got] == [m.TaskState.WORKING, m.TaskState.COMPLETED]
    errors = [e.data for e in of(c, Kind.ERROR)]
    assert [e["type"] for e in errors] == ["protocol"] * 3
    assert errors[0]["message"].startswith("event 2 skipped: invalid JSON")
    offset = hostile.BAD_UTF8_EVENT.index(b"\xe9")
    assert errors[1]["message"] == f"event 3 skipped: event is not UTF-8 (byte 0xe9 at offset {offset})"
    assert errors[2]["path"] == "$.result.status.state"
    bad = of(c, Kind.SSE)[2].data
    assert bad["raw_encoding"] == "base64" and base64.b64decode(bad["raw"]) == hostile.BAD_UTF8_EVENT
    assert of(c, Kind.STREAM_END)[0].data["reason"] == "complete"


async def test_heartbeats_keep_a_quiet_stream_alive(agent) -> None:
    async with client(agent, "heartbeat-only", timeouts=Timeouts(stream_read=1.0)) as c:
        got, exc = await collect(c.stream(send_params()))
    assert exc is None and len(got) == 2
    assert len(of(c, Kind.COMMENT)) == 16


async def test_a_silent_stream_times_out(agent) -> None:
    async with client(agent, "silent-stream", timeouts=Timeouts(stream_read=0.4)) as c:
        got, exc = await collect(c.stream(send_params()))
    assert len(got) == 1
    assert isinstance(exc, TransportError) and exc.kind == "timeout"
    assert str(exc) == f"stream from {agent[0]}/silent-stream went quiet for 0.4 s (read timeout)"
    # The client gave up on a quiet agent; the agent did not end the stream early.
    assert of(c, Kind.STREAM_END)[0].data["reason"] == "timeout"
    assert "stream-no-terminal" not in {v.code for v in TaskTracker(c.session).violations}


async def test_an_agent_that_keeps_the_stream_open_after_final_is_left(agent) -> None:
    async with client(agent, "open-after-final", timeouts=Timeouts(linger=0.2)) as c:
        got, exc = await collect(c.stream(send_params()))
    assert exc is None and len(got) == 1
    end = of(c, Kind.STREAM_END)[0].data
    assert end["reason"] == "closed" and end["terminal"] is True
    assert end["elapsed_ms"] < 5000
    assert any("kept the stream open" in e.data["text"] for e in of(c, Kind.NOTE))


async def test_orloj_named_status_events_with_bare_tasks(agent) -> None:
    async with client(agent, "orloj", dialect="0.1") as c:
        got, exc = await collect(c.stream(send_params()))
    assert exc is None
    assert [e.status.state for e in got] == [m.TaskState.WORKING, m.TaskState.COMPLETED]
    assert [e.data["event"] for e in of(c, Kind.SSE)] == ["status", "status"]
    assert [e.data["text"] for e in of(c, Kind.COMMENT)] == [" heartbeat"]


async def test_consumer_stopping_early_closes_the_stream(agent) -> None:
    async with client(agent, "heartbeat-only") as c:
        stream = c.stream(send_params())
        async for _ in stream:
            break
        await stream.aclose()
        end = of(c, Kind.STREAM_END)[0].data
        assert end["reason"] == "closed" and end["terminal"] is False


async def test_closing_the_client_closes_open_streams(agent) -> None:
    c = client(agent, "silent-stream")
    stream = c.stream(send_params())
    assert isinstance(await stream.__anext__(), m.TaskStatusUpdateEvent)
    await c.aclose()
    assert of(c, Kind.STREAM_END)[0].data["reason"] == "closed"


async def test_a_slow_answer_times_out(agent) -> None:
    async with client(agent, "slow", timeouts=Timeouts(read=0.3)) as c:
        with pytest.raises(TransportError) as info:
            await c.send(send_params())
    assert info.value.kind == "timeout"
    assert str(info.value) == f"no response from {agent[0]}/slow within 0.3 s (read timeout)"
    assert kinds(c) == [Kind.NOTE, Kind.REQUEST, Kind.ERROR]


async def test_a_body_that_stalls_after_the_head_times_out_and_keeps_the_head(agent) -> None:
    async with client(agent, "stalled-body", timeouts=Timeouts(read=0.3)) as c:
        with pytest.raises(TransportError) as info:
            await c.send(send_params())
    assert info.value.kind == "timeout"
    assert str(info.value) == f"{agent[0]}/stalled-body stopped sending its response for 0.3 s (read timeout)"
    assert kinds(c) == [Kind.NOTE, Kind.REQUEST, Kind.RESPONSE, Kind.ERROR]
    head = of(c, Kind.RESPONSE)[0].data
    assert head["status"] == 200 and head["body"] is None and head["streaming"] is False


async def test_a_body_shorter_than_its_content_length(agent) -> None:
    async with client(agent, "cut-body") as c:
        with pytest.raises(TransportError) as info:
            await c.send(send_params())
    assert info.value.kind == "http"
    assert str(info.value).startswith(f"response from {agent[0]}/cut-body broken off: ")
    assert of(c, Kind.RESPONSE)[0].data["status"] == 200
