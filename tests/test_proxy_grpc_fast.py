"""The gRPC fast path (inspector/proxy/grpc_front.py, grpc_frames.py): HTTP/2 bytes
relayed as read, a copy read into the Session. It must write what the grpc.aio relay
writes, read frames however the bytes were cut, hand a connection to the grpc.aio relay
as soon as a fault rule could apply, and bound what a peer controls. The agent here is a
deterministic loopback grpc.aio server (answers built in advance, no sleeps)."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest

from inspector.protocol import grpc_schema
from inspector.protocol.grpc_schema import protojson_text
from inspector.proxy import Proxy, ProxyServer, Route, Rules, grpc_frames
from inspector.proxy.faults import Rule
from inspector.proxy.grpc_front import FrontServer
from inspector.proxy.grpc_records import forwardable
from inspector.proxy.grpc_relay import GrpcListener
from inspector.session import Kind
from proxy_helpers import grpc_agent, until

SEND = "/lf.a2a.v1.A2AService/SendMessage"
STREAM = "/lf.a2a.v1.A2AService/SendStreamingMessage"
GET = "/lf.a2a.v1.A2AService/GetTask"
OTHER = "/acme.Other/Echo"
#: What differs from run to run whatever the path: times and the client's port.
TIMING = {"elapsed_ms", "added_ms", "added_max_ms", "client", "log_waits", "log_wait_ms"}


def update(i: int) -> bytes:
    cls = grpc_schema.message_class("1.0", "StreamResponse")
    message = cls(
        artifact_update={
            "task_id": "t",
            "context_id": "c",
            "append": i > 0,
            "artifact": {"artifact_id": "a", "parts": [{"text": f"part {i}"}]},
        }
    )
    return message.SerializeToString()


def request(text: str = "go") -> bytes:
    return grpc_schema.from_json(
        "1.0", "SendMessageRequest", {"message": {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": text}]}}
    ).SerializeToString()


ANSWER = grpc_schema.from_json(
    "1.0",
    "SendMessageResponse",
    {"task": {"id": "t-1", "contextId": "c-1", "status": {"state": "TASK_STATE_COMPLETED"}}},
).SerializeToString()
STATUS = grpc_schema.message_class("1.0", "google.rpc.Status")(code=5, message="Task not found").SerializeToString()


@contextlib.asynccontextmanager
async def agent(seen: list[str] | None = None) -> AsyncIterator[str]:
    """SendMessage answers a task (with initial and trailing metadata); GetTask fails
    NOT_FOUND with details; SendStreamingMessage sends five messages, then fails
    after two when asked "fail"; any other path echoes."""

    async def unary(req: bytes, context: Any) -> bytes:
        if seen is not None:
            seen.append("send")
        await context.send_initial_metadata((("x-agent", "a"), ("x-agent-bin", b"\x00\xff")))
        context.set_trailing_metadata((("x-trailer", "b"),))
        return ANSWER

    async def missing(_req: bytes, context: Any) -> bytes:
        await context.abort(
            grpc.StatusCode.NOT_FOUND, "Task not found é%", trailing_metadata=(("grpc-status-details-bin", STATUS),)
        )
        return b""  # pragma: no cover

    async def stream(req: bytes, context: Any) -> Any:
        failing = b"fail" in req
        for i in range(2 if failing else 5):
            yield update(i)
        context.set_trailing_metadata((("x-trailer", "s"),))
        if failing:
            await context.abort(grpc.StatusCode.INTERNAL, "agent broke")

    async def echo(req: bytes, _context: Any) -> bytes:
        return req

    class Handler(grpc.GenericRpcHandler):
        def service(self, details: Any) -> Any:
            if details.method == SEND:
                return grpc.unary_unary_rpc_method_handler(unary)
            if details.method == GET:
                return grpc.unary_unary_rpc_method_handler(missing)
            if details.method == STREAM:
                return grpc.unary_stream_rpc_method_handler(stream)
            return grpc.unary_unary_rpc_method_handler(echo)

    async with grpc_agent(Handler()) as address:
        yield address


@contextlib.asynccontextmanager
async def relay(upstream: str, **options: Any) -> AsyncIterator[tuple[Proxy, GrpcListener]]:
    proxy = Proxy([Route("", "http://127.0.0.1:9")], **options)
    async with ProxyServer(proxy, grpc_upstream=upstream):
        (listener,) = proxy.grpc.listeners.values()
        yield proxy, listener


async def calls(address: str) -> list[Any]:
    """Every kind of call once, on one channel: what each returned."""
    out: list[Any] = []
    metadata = (("a2a-version", "1.0"), ("x-client", "c"), ("x-client-bin", b"\x01\x02"))
    async with grpc.aio.insecure_channel(address) as channel:
        out.append(await channel.unary_unary(SEND)(request(), metadata=metadata))
        try:
            await channel.unary_unary(GET)(b"\x0a\x01x", metadata=metadata)
        except grpc.aio.AioRpcError as exc:
            out.append((exc.code(), exc.details(), exc.trailing_metadata()))
        out.append([raw async for raw in channel.unary_stream(STREAM)(request(), metadata=metadata)])
        got: list[bytes] = []
        try:
            async for raw in channel.unary_stream(STREAM)(request("fail"), metadata=metadata):
                got.append(raw)
        except grpc.aio.AioRpcError as exc:
            out.append((got, exc.code(), exc.details()))
        out.append(await channel.unary_unary(OTHER)(b"anything", metadata=metadata))
    return out


def records(proxy: Proxy, upstream: str = "") -> list[tuple[str, int, dict[str, Any]]]:
    """The session's records of calls, without what differs from run to run (times, the
    client's and the agent's ports)."""
    out = []
    for e in proxy.session.events:
        if e.exchange:
            data = {k: v for k, v in e.data.items() if k not in TIMING}
            if upstream and "url" in data:
                data["url"] = data["url"].replace(upstream, "AGENT")
            out.append((e.kind.value, e.exchange, data))
    return out


async def run_calls(monkeypatch: pytest.MonkeyPatch, fast: bool) -> tuple[list[Any], list[Any], dict[str, int]]:
    monkeypatch.setattr(FrontServer, "fast", fast)
    async with agent() as upstream, relay(upstream) as (proxy, listener):
        answers = await calls(listener.address)
        await until(lambda: len([e for e in proxy.session.events if e.kind is Kind.STREAM_END]) == 2, "both ends")
        await until(lambda: len([e for e in proxy.session.events if e.kind is Kind.RESPONSE]) == 5, "every answer")
        return answers, records(proxy, upstream), dict(listener.front_server.taken)


async def test_the_fast_and_slow_paths_write_the_same_records(monkeypatch: pytest.MonkeyPatch) -> None:
    fast_answers, fast, fast_taken = await run_calls(monkeypatch, True)
    slow_answers, slow, slow_taken = await run_calls(monkeypatch, False)
    assert fast_taken == {"fast": 1, "slow": 0} and slow_taken == {"fast": 0, "slow": 1}
    assert fast_answers == slow_answers
    for i, (one, other) in enumerate(zip(fast, slow, strict=True)):
        assert one == other, i
    # And they are the records a reader expects (not two paths equally wrong).
    kinds = [kind for kind, _n, _data in fast]
    assert kinds.count("request") == 5 and kinds.count("message") == 7 and kinds.count("stream-end") == 2
    by_kind = {(kind, data.get("a2a_method") or data.get("grpc_status")): data for kind, _n, data in fast}
    sent = by_kind[("request", "send")]
    assert sent["headers"] == {"a2a-version": "1.0", "x-client": "c", "x-client-bin": "AQI="}
    assert "grpc-python" in sent["user_agent"] and json.loads(sent["body"])["message"]["messageId"] == "m-1"
    missing = by_kind[("response", "NOT_FOUND")]
    assert missing["grpc_message"] == "Task not found é%" and "grpc-status-details-bin" in missing["trailers"]
    assert "grpc_details" in missing and "grpc_details_error" not in missing
    ends = [data for kind, _n, data in fast if kind == "stream-end"]
    assert [(e["reason"], e["events"], e["grpc_code"]) for e in ends] == [("eof", 5, 0), ("error", 2, 13)]
    assert ends[0]["trailers"] == {"x-trailer": "s"}


# ---------------------------------------------------------------------- the frame log


async def capture(upstream: str, run: Any = None) -> list[tuple[int, bytes]]:
    """The bytes of ``calls`` (or ``run``'s) as they crossed a plain TCP relay: (side, chunk)."""
    host, port = upstream.rsplit(":", 1)
    seen: list[tuple[int, bytes]] = []
    done = asyncio.Event()

    async def pump(side: int, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65536):
                seen.append((side, data))
                writer.write(data)
                await writer.drain()
        except ConnectionError:
            pass
        finally:
            writer.close()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        agent_r, agent_w = await asyncio.open_connection(host, int(port))
        await asyncio.gather(pump(grpc_frames.CLIENT, reader, agent_w), pump(grpc_frames.AGENT, agent_r, writer))
        done.set()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    try:
        await (run or calls)(f"127.0.0.1:{server.sockets[0].getsockname()[1]}")
        await asyncio.wait_for(done.wait(), 20)
    finally:
        server.close()
    return seen


def read_back(upstream: str, chunks: list[tuple[int, bytes]]) -> list[Any]:
    proxy = Proxy([Route("", "http://127.0.0.1:9")])
    log = grpc_frames.ConnectionLog(GrpcListener(proxy.grpc, upstream, "/"), "127.0.0.1:1")
    for side, chunk in chunks:
        log.feed(side, chunk, 0.0, 0.0)
    log.close(grpc_frames.CLIENT, 0.0)
    return records(proxy)


def recut(chunks: list[tuple[int, bytes]], sizes: list[int]) -> list[tuple[int, bytes]]:
    """The same bytes read in pieces of the given sizes (in turn), each side in order."""
    out: list[tuple[int, bytes]] = []
    turn = 0
    for side, chunk in chunks:
        at = 0
        while at < len(chunk):
            size = sizes[turn % len(sizes)]
            turn += 1
            out.append((side, chunk[at : at + size]))
            at += size
    return out


async def test_the_frame_log_reads_a_real_grpcio_connection_however_it_is_cut() -> None:
    async with agent() as upstream:
        chunks = await capture(upstream)
    # The log reads the client's side after its preface, as the front hands it over.
    first = next(i for i, (side, _chunk) in enumerate(chunks) if side == grpc_frames.CLIENT)
    assert chunks[first][1].startswith(grpc_frames.PREFACE)
    chunks[first] = (grpc_frames.CLIENT, chunks[first][1][len(grpc_frames.PREFACE) :])
    whole = read_back(upstream, chunks)
    kinds = [kind for kind, _n, _data in whole]
    assert kinds.count("request") == 5 and kinds.count("message") == 7 and kinds.count("stream-end") == 2
    assert read_back(upstream, recut(chunks, [1])) == whole
    assert read_back(upstream, recut(chunks, [9, 1, 5, 4, 17, 3, 100])) == whole


def test_a_header_block_past_the_bounds_stops_the_log_with_a_note() -> None:
    proxy = Proxy([Route("", "http://127.0.0.1:9")])
    listener = GrpcListener(proxy.grpc, "127.0.0.1:1", "/")
    big = grpc_frames.ConnectionLog(listener, "c")
    block = b"\x00" * (grpc_frames.MAX_HEADER_BLOCK + 1)
    big.feed(grpc_frames.CLIENT, grpc_frames.frame(grpc_frames.HEADERS, 0, 1, block[:16384]), 0.0, 0.0)
    rest = block[16384:]
    while rest and not big.stopped:
        piece, rest = rest[:16384], rest[16384:]
        big.feed(grpc_frames.CLIENT, grpc_frames.frame(grpc_frames.CONTINUATION, 0, 1, piece), 0.0, 0.0)
    assert big.stopped
    many = grpc_frames.ConnectionLog(listener, "c")
    many.feed(grpc_frames.CLIENT, grpc_frames.frame(grpc_frames.HEADERS, 0, 1, b""), 0.0, 0.0)
    for _ in range(grpc_frames.MAX_CONTINUATIONS + 1):
        many.feed(grpc_frames.CLIENT, grpc_frames.frame(grpc_frames.CONTINUATION, 0, 1, b""), 0.0, 0.0)
    assert many.stopped
    garbled = grpc_frames.ConnectionLog(listener, "c")
    garbled.feed(grpc_frames.CLIENT, grpc_frames.frame(grpc_frames.HEADERS, 0x4, 1, b"\xff\xff\xff\xff"), 0.0, 0.0)
    assert garbled.stopped
    notes = [e.data["text"] for e in proxy.session.events if e.data.get("code") == "proxy-grpc-log-stopped"]
    assert len(notes) == 3
    assert "256 KiB" in notes[0] and "CONTINUATION" in notes[1] and "does not decode" in notes[2]


def test_a_message_claiming_4_gib_is_logged_by_its_size_never_held() -> None:
    messages = grpc_frames._Messages(1000)
    claimed = 2**32 - 1
    assert messages.feed(b"\x00" + claimed.to_bytes(4, "big") + b"x" * 100_000) == []
    assert messages.pending.size == 0 and messages.skip == claimed - 100_000
    # A large message in many small pieces comes out whole, once.
    big = bytes(range(256)) * 4096
    framed = b"\x00" + len(big).to_bytes(4, "big") + big
    pieces = grpc_frames._Messages(2**20)
    got = [m for i in range(0, len(framed), 1000) for m in pieces.feed(framed[i : i + 1000])]
    assert got == [big] and pieces.pending.size == 0
    small = grpc_frames._Messages(1000)
    assert small.feed(b"\x00\x00\x00\x00\x03ab") == [] and small.feed(b"c\x00\x00") == [b"abc"]
    assert small.feed(b"\x00\x00\x00") == [b""]


def test_streams_past_the_bound_are_relayed_unlogged_with_one_note() -> None:
    from hpack import Encoder

    proxy = Proxy([Route("", "http://127.0.0.1:9")])
    log = grpc_frames.ConnectionLog(GrpcListener(proxy.grpc, "127.0.0.1:1", "/"), "c")
    encoder = Encoder()
    for i in range(grpc_frames.MAX_STREAMS + 5):
        block = encoder.encode([(":method", "POST"), (":path", OTHER), ("x-n", str(i))])
        log.feed(grpc_frames.CLIENT, grpc_frames.frame(grpc_frames.HEADERS, 0x4, 2 * i + 1, block), 0.0, 0.0)
    assert len(log.calls) == grpc_frames.MAX_STREAMS and not log.stopped
    notes = [e for e in proxy.session.events if e.data.get("code") == "proxy-grpc-streams"]
    assert len(notes) == 1


# ---------------------------------------------------------------------- the front


async def test_a_connection_that_does_not_speak_http2_is_closed_with_a_note() -> None:
    async with agent() as upstream, relay(upstream) as (proxy, listener):
        for _ in range(2):
            reader, writer = await asyncio.open_connection("127.0.0.1", listener.port)
            writer.write(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            assert await asyncio.wait_for(reader.read(), 20) == b""
            writer.close()
        answers = await calls(listener.address)  # still serving
    notes = [e.data for e in proxy.session.events if e.data.get("code") == "proxy-grpc-not-http2"]
    assert len(notes) == 1 and "did not speak HTTP/2" in notes[0]["text"]
    assert answers[0] == ANSWER


async def test_a_rule_enabled_mid_connection_applies_to_the_next_call() -> None:
    rules = Rules(
        [Rule.model_validate({"match": {"method": "SendMessage"}, "fault": {"error": -32001}, "enabled": False})]
    )
    seen: list[str] = []
    async with agent(seen) as upstream, relay(upstream, rules=rules) as (proxy, listener):
        async with grpc.aio.insecure_channel(listener.address) as channel:
            first = await channel.unary_unary(SEND)(request(), metadata=(("a2a-version", "1.0"),))
            rules.toggle(0, True)
            with pytest.raises(grpc.aio.AioRpcError) as faulted:
                await channel.unary_unary(SEND)(request(), metadata=(("a2a-version", "1.0"),))
        taken = dict(listener.front_server.taken)
    assert first == ANSWER and seen == ["send"]  # the second call never reached the agent
    assert faulted.value.code() is grpc.StatusCode.NOT_FOUND
    assert taken == {"fast": 1, "slow": 1}
    injected = [e.data["injected"] for e in proxy.session.events if e.kind is Kind.RESPONSE and e.data.get("injected")]
    assert injected == ["error=-32001"]
    assert [e.data["a2a_method"] for e in proxy.session.events if e.kind is Kind.REQUEST] == ["send", "send"]


def test_a_spent_rule_no_longer_sends_connections_down_the_slow_path() -> None:
    rules = Rules([Rule.model_validate({"match": {"method": "SendMessage", "times": 1}, "fault": {"error": -32001}})])
    assert rules.armed("/")  # it could still match a call
    info = {"dialect": "1.0", "binding": "grpc", "a2a_method": "send", "rpc_method": "SendMessage"}
    assert [i for i, _rule in rules.match(info, "/", b"")] == [0]
    assert rules.match(info, "/", b"") == []  # spent
    assert not rules.armed("/")


async def test_a_request_past_the_bound_is_refused_on_the_fast_path_and_the_connection_goes_on() -> None:
    """Refused without reaching the agent (RESOURCE_EXHAUSTED, as grpc.aio refuses it),
    and the same channel's next calls work: the proxy's own frames left both HPACK
    tables in step, and what it dropped of the client's was given back to its window."""
    seen: list[str] = []
    bound = 100_000
    async with agent(seen) as upstream, relay(upstream, max_request=bound) as (proxy, listener):
        async with grpc.aio.insecure_channel(listener.address) as channel:
            send = channel.unary_unary(SEND)
            metadata = (("a2a-version", "1.0"), ("x-fresh", "one"))
            for round_ in range(3):
                with pytest.raises(grpc.aio.AioRpcError) as refused:
                    await send(request("x" * 1_000_000), metadata=metadata)
                assert refused.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
                assert "larger than max" in refused.value.details() and f"vs. {bound})" in refused.value.details()
                metadata = (("a2a-version", "1.0"), ("x-fresh", f"value {round_}"))  # new table entries
                assert await send(request(), metadata=metadata) == ANSWER
        taken = dict(listener.front_server.taken)
    assert taken == {"fast": 1, "slow": 0} and seen == ["send"] * 3
    notes = [e.data["text"] for e in proxy.session.events if e.data.get("code") == "proxy-grpc-too-large"]
    assert len(notes) == 3 and "past the proxy's request bound" in notes[0]
    assert [e.data["headers"]["x-fresh"] for e in proxy.session.events if e.kind is Kind.REQUEST] == [
        "value 0",
        "value 1",
        "value 2",
    ]


async def test_a_client_deadline_reaches_the_agent_on_the_fast_path() -> None:
    """grpc-timeout goes through with the bytes: the agent's call has the client's
    deadline and ends with it; the log ends the stream (by the client's reset or the
    agent's status, whichever the proxy reads first)."""
    remaining: list[float | None] = []
    ended = asyncio.Event()

    async def stream(_request: bytes, context: Any) -> Any:
        remaining.append(context.time_remaining())
        yield update(0)
        try:
            await asyncio.Event().wait()
        finally:
            ended.set()  # cancelled by grpc.aio when the deadline passes

    class Handler(grpc.GenericRpcHandler):
        def service(self, details: Any) -> Any:
            return grpc.unary_stream_rpc_method_handler(stream)

    server = grpc.aio.server()
    server.add_generic_rpc_handlers((Handler(),))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        async with relay(f"127.0.0.1:{port}") as (proxy, listener):
            async with grpc.aio.insecure_channel(listener.address) as channel:
                got: list[bytes] = []
                with pytest.raises(grpc.aio.AioRpcError) as late:
                    async for raw in channel.unary_stream(STREAM)(request(), timeout=0.5):
                        got.append(raw)
                await asyncio.wait_for(ended.wait(), 20)
            end = await until(lambda: [e for e in proxy.session.events if e.kind is Kind.STREAM_END], "the end")
            taken = dict(listener.front_server.taken)
    finally:
        await server.stop(None)
    assert taken == {"fast": 1, "slow": 0}
    assert late.value.code() is grpc.StatusCode.DEADLINE_EXCEEDED and got == [update(0)]
    assert remaining[0] is not None and 0 < remaining[0] <= 0.5
    assert end[0].data["events"] == 1 and end[0].data["reason"] in ("closed", "error")


def test_padded_and_prioritised_frames_are_read_as_their_content() -> None:
    """grpcio sends neither padding nor priority, other HTTP/2 stacks may: a HEADERS frame
    with both (and its block split into a CONTINUATION) and a padded DATA frame are read
    as what they carry."""
    from hpack import Encoder

    proxy = Proxy([Route("", "http://127.0.0.1:9")])
    log = grpc_frames.ConnectionLog(GrpcListener(proxy.grpc, "127.0.0.1:1", "/"), "c")
    block = Encoder().encode(
        [(":method", "POST"), (":path", SEND), ("content-type", "application/grpc"), ("x-padded", "yes")]
    )
    pad = b"\x00" * 7
    head = bytes((len(pad),)) + b"\x00\x00\x00\x00" + b"\x10" + block[:5] + pad  # pad length, priority, 5 bytes
    body = request("padded")
    data = bytes((3,)) + b"\x00" + len(body).to_bytes(4, "big") + body + b"\x00\x00\x00"
    wire = (
        grpc_frames.frame(grpc_frames.HEADERS, grpc_frames.PADDED | grpc_frames.PRIORITY_FLAG, 1, head)
        + grpc_frames.frame(grpc_frames.CONTINUATION, grpc_frames.END_HEADERS, 1, block[5:])
        + grpc_frames.frame(grpc_frames.DATA, grpc_frames.PADDED | grpc_frames.END_STREAM, 1, data)
    )
    log.feed(grpc_frames.CLIENT, wire, 0.0, 0.0)
    assert not log.stopped
    (sent,) = [e.data for e in proxy.session.events if e.kind is Kind.REQUEST]
    assert sent["grpc_path"] == SEND and sent["headers"] == {"x-padded": "yes"}
    assert json.loads(sent["body"])["message"]["parts"] == [{"text": "padded"}]


def header_blocks(chunks: list[tuple[int, bytes]], side: int) -> list[bytes]:
    """Each header block ``side`` sent (HEADERS and its CONTINUATIONs), in order."""
    data = b"".join(chunk for s, chunk in chunks if s == side)
    blocks: list[bytes] = []
    at = 0
    while at + 9 <= len(data):
        size = int.from_bytes(data[at : at + 3], "big")
        kind, payload = data[at + 3], data[at + 9 : at + 9 + size]
        if kind == grpc_frames.HEADERS:
            blocks.append(payload)  # (grpcio pads no header block, nor marks a priority)
        elif kind == grpc_frames.CONTINUATION:
            blocks[-1] += payload
        at += 9 + size
    return blocks


async def test_a_header_block_given_again_by_the_log_s_cache_is_what_decoding_it_gives() -> None:
    """Once its HPACK table is warm a grpcio peer sends the same block bytes call after
    call, every field indexed (RFC 7541 6.1: no table change), and the log's decoder
    gives the Block it decoded before, its metadata worked out once: each must be what
    decoding every block afresh, in order, gives."""
    from hpack import Decoder

    async def again(address: str) -> None:
        async with grpc.aio.insecure_channel(address) as channel:
            for _ in range(4):
                await channel.unary_unary(SEND)(request(), metadata=(("a2a-version", "1.0"), ("x-client-bin", b"\x01")))

    async with agent() as upstream:
        connections = [await capture(upstream, again), await capture(upstream)]
    listener = GrpcListener(Proxy([Route("", "http://127.0.0.1:9")]).grpc, upstream, "/")
    for side in (grpc_frames.CLIENT, grpc_frames.AGENT):
        got: list[grpc_frames.Block] = []
        expected: list[list[tuple[str, str]]] = []
        for chunks in connections:  # each read by a log of its own, and a fresh decoder
            ours = [chunk for s, chunk in chunks if s == side]
            if side == grpc_frames.CLIENT:
                ours[0] = ours[0].removeprefix(grpc_frames.PREFACE)
            frames = grpc_frames.ConnectionLog(listener, "c").frames[side]
            for chunk in ours:
                got += [payload for _kind, _flags, _stream, payload in frames.feed(chunk) if isinstance(payload, list)]
            reference = Decoder()
            for block in header_blocks([(side, b"".join(ours))], side):
                fields = reference.decode(block, raw=True)
                expected.append([(bytes(k).decode("latin-1"), bytes(v).decode("latin-1")) for k, v in fields])
        assert [list(block) for block in got] == expected
        assert len({id(block) for block in got}) < len(got)  # some came from the cache
        for block, fields in zip(got, expected, strict=True):
            assert block.named() == dict(fields)
            assert block.metadata() == grpc_frames.metadata(fields)
            assert block.forwarded() == forwardable(grpc_frames.metadata(fields, request=True))


def test_protojson_text_is_json_dumps_with_the_log_s_options() -> None:
    for obj in [
        {"text": 'é\u2028\x00\x1f"\\/', "n": 3, "big": 2**70, "f": 1.5, "nan": float("nan"), "list": [True, None]},
        {"nested": {"a": [{"b": "ünï"}]}, "": ""},
    ]:
        assert protojson_text(obj) == json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


async def test_a_connection_still_sending_its_preface_is_closed_when_the_proxy_stops() -> None:
    async with agent() as upstream:
        proxy = Proxy([Route("", "http://127.0.0.1:9")])
        server = await ProxyServer(proxy, grpc_upstream=upstream).start()
        (listener,) = proxy.grpc.listeners.values()
        front = listener.front_server
        host, port = next(iter(server.grpc_addresses.values())).rsplit(":", 1)
        reader, writer = await asyncio.open_connection(host, int(port))
        try:
            writer.write(grpc_frames.PREFACE[:10])
            await until(lambda: front.waiting, "the proxy has the connection")
            await server.stop()
            assert await asyncio.wait_for(reader.read(), 10) == b""
        finally:
            writer.close()
