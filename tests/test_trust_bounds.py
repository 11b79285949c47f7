"""Everything an agent, a file or a client controls is bounded: size after decompression,
nesting depth, time, count, YAML aliases, and how slowly a request may arrive.

Each hostile case ends in one clear line (the CLI: exit code, one stderr line, no
traceback) with memory bounded: the CLI's and the TUI's peak RSS is measured in a
process of their own (tests/trust_agents.py, tests/trust_tui.py). The hostile agents
are real loopback servers (trust_agents.build_app); the gzip bomb is 2 MiB that
inflates to 2 GiB.
"""

from __future__ import annotations

import asyncio
import gzip
import json
import logging
import random
import sys
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

import trust_agents as ta
from cli_helpers import COMMAND, REPO, Cli, CliResult, assert_one_error_line, cli  # noqa: F401 - cli is a fixture
from inspector.client import A2AClient, Limits, SSEParser
from inspector.client.limits import PIECE, BodyDecoder, DecodeFailed
from inspector.client.push_receiver import PushReceiver
from inspector.client.sse import EventTooLarge
from inspector.protocol.errors import ProtocolError
from inspector.protocol.sizes import parse_size
from inspector.protocol.wire import parse_json
from inspector.safejson import MAX_JSON_DEPTH, TooDeep, loads
from inspector.safeyaml import MAX_ALIAS_NODES, YAMLLimit
from inspector.safeyaml import load as load_yaml
from inspector.serving.deadline import REQUEST_TIMEOUT
from inspector.serving.runner import BackgroundServer, _config
from inspector.session import Kind, Recorder, Session, TaskTracker, load_recording
from mock_agent.replay import ReplayServer
from mock_agent.server import MockServer

#: Generous: the CLI peaks near 180 MiB on a bomb (a 64 MiB body kept as bytes and as
#: text), the TUI near 200 MiB; without the limits both grow until memory runs out.
RSS_BOUND_MIB = 350
LIMIT_64M = "is larger than 64 MiB after decompression (--max-body); stopped reading"
EVENT_16M = "is larger than 16 MiB after decompression (--max-event); stopped reading"
TOO_DEEP = f"nested more than {MAX_JSON_DEPTH} levels deep"


@pytest.fixture(scope="module")
def agents() -> Iterator[str]:
    ta.gzip_bomb()  # built once per process, before any timing matters
    with BackgroundServer(ta.build_app()) as srv:
        yield srv.url


def measured(cli: Cli, *args: str, timeout: float = 120.0) -> tuple[CliResult, float]:
    """The CLI as a subprocess of a fresh process, with its peak RSS in MiB."""
    proc, peak = ta.peak_rss_mib([*COMMAND, *args], env=cli.env, cwd=cli.home, timeout=timeout)
    return CliResult(tuple(args), proc.returncode, proc.stdout, proc.stderr), peak


def events_of(path: Path) -> list[Any]:
    return load_recording(path).session.events


# ============================================================ size, after decompression

BOMBS = [
    ("card", ("card", "{url}/card-bomb/"), "response from {url}/card-bomb/.well-known/agent-card.json " + LIMIT_64M),
    ("send", ("send", "{url}/send-bomb/", "hi", "--dialect", "0.3"), "response from {url}/send-bomb/ " + LIMIT_64M),
    (
        "stream",
        ("send", "{url}/stream-bomb/", "hi", "--dialect", "0.3", "--stream"),
        "an event of the stream from {url}/stream-bomb/ " + EVENT_16M,
    ),
]


@pytest.mark.parametrize(("args", "needle"), [b[1:] for b in BOMBS], ids=[b[0] for b in BOMBS])
def test_a_gzip_bomb_ends_at_the_size_limit_with_memory_bounded(
    cli: Cli, agents: str, args: tuple[str, ...], needle: str
) -> None:
    result, peak = measured(cli, *(a.format(url=agents) for a in args))
    assert_one_error_line(result, 3, needle.format(url=agents))
    assert "MemoryError" not in result.err
    # The cut is the client's limit, not the agent's A2A: no verdict against it.
    assert "decode-error" not in result.out, result
    assert peak < RSS_BOUND_MIB, f"peak RSS {peak:.0f} MiB"


def test_a_cut_body_stays_on_record_up_to_the_limit(cli: Cli, agents: str, tmp_path: Path) -> None:
    record = tmp_path / "bomb.jsonl"
    result, peak = measured(
        cli, "send", f"{agents}/send-bomb/", "hi", "--dialect", "0.3", "--max-body", "1M", "--record", str(record)
    )
    assert_one_error_line(result, 3, "is larger than 1 MiB after decompression (--max-body)")
    assert peak < RSS_BOUND_MIB
    events = events_of(record)
    cut = [e for e in events if e.data.get("cut")]
    assert [e.kind for e in cut] == [Kind.RESPONSE]
    response = cut[0]
    assert response.data["body_size"] == 1024 * 1024 and len(response.data["body"]) == 1024 * 1024
    assert response.data["body"] == "\0" * (1024 * 1024)  # what arrived, decompressed, as text
    assert isinstance(response.payload, ProtocolError) and "cut at the size limit" in str(response.payload)
    after = events[events.index(response) + 1]
    assert after.kind is Kind.ERROR and after.data["type"] == "limit"


def test_max_body_applies_to_a_plain_body_and_keeps_its_text_whole(cli: Cli, agents: str, tmp_path: Path) -> None:
    record = tmp_path / "big.jsonl"
    result = cli(
        "send", f"{agents}/big-answer/", "hi", "--dialect", "0.3", "--max-body", "100K", "--record", str(record)
    )
    line = assert_one_error_line(
        result, 3, f"response from {agents}/big-answer/ is larger than 100 KiB (--max-body); stopped reading"
    )
    assert "decompression" not in line  # it was not compressed
    (response,) = [e for e in events_of(record) if e.data.get("cut")]
    # The cut fell inside a two-byte "é": the half character is dropped, the rest stays text.
    assert response.data["body_encoding"] == "utf-8"
    assert 100 * 1024 - 1 <= response.data["body_size"] <= 100 * 1024
    assert response.data["body"].endswith("é")


def test_max_event_cuts_one_event_and_keeps_the_ones_before(cli: Cli, agents: str, tmp_path: Path) -> None:
    record = tmp_path / "event.jsonl"
    result = cli(
        "send",
        f"{agents}/big-event/",
        "hi",
        "--dialect",
        "0.3",
        "--stream",
        "--max-event",
        "100K",
        "--record",
        str(record),
    )
    assert_one_error_line(
        result,
        3,
        f"an event of the stream from {agents}/big-event/ is larger than 100 KiB (--max-event); stopped reading",
    )
    assert "task t-trust working" in result.out  # the first event arrived and was shown
    sse = [e for e in events_of(record) if e.kind is Kind.SSE]
    assert len(sse) == 2 and not sse[0].data.get("cut") and sse[1].data["cut"] is True
    assert len(sse[1].data["raw"]) == 100 * 1024
    assert sse[1].data["raw"].startswith('data: {"jsonrpc"')
    # The client stopped reading, not the agent: no verdict that it walked away.
    (end,) = [e for e in events_of(record) if e.kind is Kind.STREAM_END]
    assert end.data["reason"] == "limit"
    assert end.data["limit"] == "an event larger than 100 KiB (--max-event)"  # what the TUI shows
    assert "stream-no-terminal" not in {v.code for v in TaskTracker(load_recording(record).session).violations}


def test_max_stream_events_ends_a_flood_of_comments(cli: Cli, agents: str, tmp_path: Path) -> None:
    record = tmp_path / "flood.jsonl"
    result, peak = measured(
        cli,
        "send",
        f"{agents}/comment-flood/",
        "hi",
        "--dialect",
        "0.3",
        "--stream",
        "--max-stream-events",
        "1000",
        "--record",
        str(record),
    )
    assert_one_error_line(
        result,
        3,
        f"stream from {agents}/comment-flood/ sent more than 1000 events and "
        "comments (--max-stream-events); stopped reading",
    )
    kinds = [e.kind for e in events_of(record)]
    assert kinds.count(Kind.SSE) + kinds.count(Kind.COMMENT) == 1000
    (end,) = [e for e in events_of(record) if e.kind is Kind.STREAM_END]
    assert (end.data["reason"], end.data["limit"]) == (
        "limit",
        "more than 1000 events and comments (--max-stream-events)",
    )
    assert peak < RSS_BOUND_MIB


def test_no_limit_option_means_the_default_limits() -> None:
    # The flood above shows a count ends a stream in flat memory; here, that a command
    # given no limit option gets the defaults (10 million events, for agents that stream
    # tokens for an hour). A flood to 10 million takes the CLI about a minute: the
    # million-chunk figures are bench/tui_stream's.
    import argparse

    from inspector.headless.commands import client_bounds

    _, limits = client_bounds(argparse.Namespace())
    assert limits == Limits()
    assert (limits.max_stream_events, limits.max_stream_body) == (10_000_000, 4 * 2**30)


@pytest.mark.a2a_mock(
    {
        "name": "long",
        "card": {"name": "long", "capabilities": {"streaming": True}},
        "rules": [
            {
                "script": [
                    {"status": "working"},
                    {"chunks": {"id": "a", "text": "token {i} ", "count": 1000}},
                    {"status": "completed"},
                ]
            }
        ],
    }
)
def test_a_streams_whole_body_has_its_own_bound(cli: Cli, a2a_mock: Any, tmp_path: Path) -> None:
    # 1,000 events of some 200 bytes: over 100K in all, each far under it.
    fine = cli("send", a2a_mock.url, "hi", "--stream", "--max-body", "100K")
    assert fine.code == 0 and "completed" in fine.out, fine  # --max-body bounds plain bodies only
    record = tmp_path / "long.jsonl"
    cut = cli("send", a2a_mock.url, "hi", "--stream", "--max-stream-body", "100K", "--record", str(record))
    assert_one_error_line(
        cut, 3, f"stream from {a2a_mock.url} is larger than 100 KiB (--max-stream-body); stopped reading"
    )
    events = events_of(record)
    (end,) = [e for e in events if e.kind is Kind.STREAM_END]
    assert (end.data["reason"], end.data["limit"]) == ("limit", "larger than 100 KiB (--max-stream-body)")
    assert 100 < sum(e.kind is Kind.SSE for e in events) < 1000


def test_a_body_that_does_not_decompress_is_one_line(cli: Cli, agents: str) -> None:
    result = cli("send", f"{agents}/bad-gzip/", "hi", "--dialect", "0.3")
    assert_one_error_line(result, 3, f"response from {agents}/bad-gzip/: gzip body does not decompress")


@pytest.mark.parametrize(
    ("option", "value", "needle"),
    [
        ("--max-body", "12Q", "not a size: '12Q'"),
        ("--max-body", "0", "at least 1 byte"),
        ("--max-event", "-1", "not a size"),
        ("--max-stream-events", "many", "not a count"),
        ("--max-stream-body", "lots", "not a size"),
        ("--max-time", "0", "more than 0"),
        ("--timeout", "soon", "not a number of seconds"),
    ],
)
def test_limit_options_refuse_nonsense(cli: Cli, option: str, value: str, needle: str) -> None:
    result = cli("send", "http://127.0.0.1:1/", "hi", option, value)
    assert_one_error_line(result, 2, option, needle)


def test_sizes_are_bytes_or_powers_of_1024() -> None:
    assert [parse_size(t) for t in ("65536", "64K", "64k", "16M", "16MiB", "1G", "1.5M")] == [
        65536,
        65536,
        65536,
        16 << 20,
        16 << 20,
        1 << 30,
        3 << 19,
    ]


# ------------------------------------------------------------ the decoder and the parser


def _decode_all(decoder: BodyDecoder, raw: bytes, split: int) -> list[bytes]:
    out = []
    for start in range(0, len(raw), split):
        out += list(decoder.feed(raw[start : start + split]))
    return out + list(decoder.flush())


@pytest.mark.parametrize("encoding", ["gzip", "deflate", "deflate-raw", "gzip, gzip", "identity", "br"])
def test_the_body_decoder_gives_bounded_pieces_of_the_right_bytes(encoding: str) -> None:
    data = bytes(random.Random(7).choices(b"ab \n", k=300_000)) + bytes(3 * PIECE)
    if encoding == "gzip":
        raw = gzip.compress(data)
    elif encoding == "deflate":
        raw = zlib.compress(data)
    elif encoding == "deflate-raw":
        c = zlib.compressobj(6, zlib.DEFLATED, -15)
        raw, encoding = c.compress(data) + c.flush(), "deflate"
    elif encoding == "gzip, gzip":
        raw = gzip.compress(gzip.compress(data))
    else:
        raw = data
    decoder = BodyDecoder(encoding)
    pieces = _decode_all(decoder, raw, 4096)
    assert all(len(p) <= PIECE for p in pieces)
    assert b"".join(pieces) == data
    assert decoder.skipped == (["br"] if encoding == "br" else [])


def test_the_body_decoder_refuses_garbage_and_ignores_what_follows_the_end() -> None:
    with pytest.raises(DecodeFailed, match="gzip body does not decompress"):
        _decode_all(BodyDecoder("gzip"), b"not gzip at all", 4)
    # Bytes after a complete gzip stream are dropped, not hoarded (zlib's unused_data).
    decoder = BodyDecoder("gzip")
    out = _decode_all(decoder, gzip.compress(b"hello") + b"x" * 100_000, 1000)
    assert b"".join(out) == b"hello"


def _stream_bytes() -> bytes:
    small = b"data: one\n\n: ping\n"
    big = b": lead\ndata: " + b"x" * 5000 + b"\n\n"
    return small * 3 + big + small


@pytest.mark.parametrize("seed", range(6))
def test_an_event_over_the_limit_is_refused_the_same_for_every_chunking(seed: int) -> None:
    data = _stream_bytes()
    rng = random.Random(seed)
    parser = SSEParser(max_event=4000)
    seen: list[Any] = []
    pos = 0
    with pytest.raises(EventTooLarge) as caught:
        while pos < len(data):
            step = rng.randint(1, 3000)
            seen += parser.feed(data[pos : pos + step])
            assert len(parser._buf) <= 4000  # never more than one limit pending
            pos += step
        seen += parser.close()
    seen += caught.value.items
    assert [getattr(i, "data", None) for i in seen if hasattr(i, "data")] == ["one"] * 3
    assert [i.text for i in seen if not hasattr(i, "data")] == [" ping"] * 3 + [" lead"]
    assert caught.value.head == b"data: " + b"x" * 3994


def test_an_event_at_the_limit_passes() -> None:
    block = b"data: " + b"x" * 3994
    items = SSEParser(max_event=4000).feed(block + b"\n\n")
    assert [len(i.raw) for i in items] == [4000]


# ====================================================================== time


def test_max_time_ends_a_stream_of_heartbeats(cli: Cli, agents: str, tmp_path: Path) -> None:
    record = tmp_path / "beats.jsonl"
    result = cli(
        "send",
        f"{agents}/heartbeats/",
        "hi",
        "--dialect",
        "0.3",
        "--stream",
        "--max-time",
        "1",
        "--record",
        str(record),
    )
    assert_one_error_line(result, 3, "gave up after 1 s (--max-time)")
    events = events_of(record)
    assert Kind.COMMENT in [e.kind for e in events]  # the heartbeats kept it alive until then
    assert events[-1].kind is Kind.NOTE and events[-1].data["text"] == "gave up after 1 s (--max-time)"


def test_an_explicit_timeout_bounds_a_stalled_stream(cli: Cli, agents: str, tmp_path: Path) -> None:
    record = tmp_path / "stalled.jsonl"
    result = cli(
        "send", f"{agents}/stalled/", "hi", "--dialect", "0.3", "--stream", "--timeout", "0.5", "--record", str(record)
    )
    assert_one_error_line(result, 3, f"stream from {agents}/stalled/ went quiet for 0.5 s (read timeout)")
    (end,) = [e for e in events_of(record) if e.kind is Kind.STREAM_END]
    assert (end.data["reason"], end.data["limit"]) == ("timeout", "went quiet for 0.5 s (read timeout)")
    # The task it followed: still working as far as anyone knows, no longer followed.
    task = TaskTracker(load_recording(record).session).task("t-trust")
    assert task is not None and task.state.value == "working"
    assert task.cut is not None and task.cut.text == "went quiet for 0.5 s (read timeout)"


def test_stream_timeout_still_wins_over_timeout_for_streams(cli: Cli, agents: str) -> None:
    # Silent for longer than --timeout: only --max-time ends it, so --timeout did not.
    result = cli(
        "send",
        f"{agents}/stalled/",
        "hi",
        "--dialect",
        "0.3",
        "--stream",
        "--timeout",
        "2",
        "--stream-timeout",
        "120",
        "--max-time",
        "4",
    )
    assert_one_error_line(result, 3, "gave up after 4 s (--max-time)")


@pytest.mark.parametrize(
    ("given", "read", "stream"),
    [
        ({}, 30.0, 300.0),
        ({"timeout": 5.0}, 5.0, 5.0),
        ({"stream_timeout": 60.0}, 30.0, 60.0),
        ({"timeout": 5.0, "stream_timeout": 60.0}, 5.0, 60.0),
    ],
)
def test_which_timeout_bounds_a_stream(given: dict[str, float], read: float, stream: float) -> None:
    import argparse

    from inspector.headless.commands import client_bounds

    timeouts, limits = client_bounds(argparse.Namespace(**given, max_body=1024))
    assert (timeouts.connect, timeouts.read, timeouts.stream_read) == (read, read, stream)
    assert limits == Limits(max_body=1024)


def test_help_says_which_option_bounds_what(cli: Cli) -> None:
    text = " ".join(cli("send", "--help").out.split())
    assert (
        "--timeout SECONDS longest wait to connect, and for each read of an ordinary response; "
        "also a stream's longest silence unless --stream-timeout is given (default: 30)" in text
    )
    assert (
        "--stream-timeout SECONDS longest silence on a stream, heartbeats count as activity "
        "(default: --timeout when given, else 300)" in text
    )
    assert "--max-time SECONDS give up on the whole command after this long" in text
    readme = " ".join((REPO / "README.md").read_text(encoding="utf-8").split())
    for option in (
        "--timeout S",
        "--stream-timeout S",
        "--max-time S",
        "--max-body SIZE",
        "--max-event SIZE",
        "--max-stream-events N",
        "--max-stream-body SIZE",
    ):
        assert f"`{option}`" in readme, option
    assert "--max-stream-events N most events and heartbeat comments one stream may carry (default: 10000000)" in text
    assert "--max-stream-body SIZE largest whole body of one stream, counted after decompression (default: 4G)" in text


# ====================================================================== depth

DEEP = [
    ("send", ("send", "{url}/deep/", "hi", "--dialect", "0.3")),
    ("card", ("card", "{url}/deep-card/")),
]


@pytest.mark.parametrize("args", [d[1] for d in DEEP], ids=[d[0] for d in DEEP])
def test_deep_json_from_an_agent_is_a_clear_error(cli: Cli, agents: str, args: tuple[str, ...]) -> None:
    result, peak = measured(cli, *(a.format(url=agents) for a in args))
    assert_one_error_line(result, 3, f"invalid response from the agent: invalid JSON: {TOO_DEEP}")
    assert peak < RSS_BOUND_MIB


@pytest.mark.parametrize("option", ["--data", "--metadata"])
def test_deep_json_from_a_file_is_a_usage_error(cli: Cli, option: str) -> None:
    (cli.home / "deep.json").write_bytes(b'{"a":' * 100_000 + b"1" + b"}" * 100_000)
    result = cli("send", "http://127.0.0.1:1/", "hi", option, "@deep.json")
    assert_one_error_line(result, 2, f"{option}: invalid JSON: {TOO_DEEP}")


def _nested(depth: int) -> list[str]:
    """Arrays, objects, and the two alternating, each ``depth`` levels deep."""
    half = depth // 2
    mixed = '[{"a":' * half + ("[1]" if depth % 2 else "1") + "}]" * half
    return ["[" * depth + "]" * depth, '{"a":' * depth + "1" + "}" * depth, mixed]


@pytest.mark.parametrize(("depth", "ok"), [(MAX_JSON_DEPTH, True), (MAX_JSON_DEPTH + 1, False), (100_000, False)])
def test_the_depth_limit_is_the_same_for_every_parser(depth: int, ok: bool) -> None:
    for text in _nested(depth):
        for parse in (loads, parse_json, lambda t: parse_json("\ufeff" + t), load_yaml):
            if ok:
                parse(text)
            else:
                with pytest.raises((TooDeep, ProtocolError, YAMLLimit), match=TOO_DEEP):
                    parse(text)


def test_a_deep_line_in_a_recording_is_reported_and_skipped(cli: Cli, tmp_path: Path) -> None:
    path = tmp_path / "rec.jsonl"
    Recorder.attach(Session(), path).close()
    header = path.read_text(encoding="utf-8")
    path.write_text(header + "[" * 100_000 + "]" * 100_000 + "\n", encoding="utf-8")
    result = cli("export", str(path), "--har", "-")
    assert result.code == 0 and "Traceback" not in result.err, result
    # A line wraps what it records a few levels down: it may nest 8 levels more.
    assert f"line 2: not a valid event line (nested more than {MAX_JSON_DEPTH + 8} levels deep); skipped" in result.err


def test_deep_json_in_the_settings_and_agents_files_is_set_aside() -> None:
    from inspector import store

    deep = "[" * 100_000 + "]" * 100_000
    store.config_dir().mkdir(parents=True, exist_ok=True)
    (store.config_dir() / "settings.json").write_text(deep, encoding="utf-8")
    (store.config_dir() / "agents.json").write_text(deep, encoding="utf-8")
    settings, problem = store.load_settings()
    assert settings == store.Settings() and problem is not None and TOO_DEEP in problem
    agents = store.AgentStore()
    assert agents.agents == [] and agents.problem is not None and TOO_DEEP in agents.problem


def _post(url: str, body: bytes) -> httpx.Response:
    return httpx.post(url, content=body, headers={"content-type": "application/json"}, timeout=30)


def test_the_mock_answers_deep_json_with_a_json_rpc_error(caplog: pytest.LogCaptureFixture) -> None:
    server = MockServer("echo")
    with caplog.at_level(logging.WARNING), BackgroundServer(server.app) as srv:
        response = _post(srv.url + "/", ta.deep_json())
        # A valid 0.3 message (kind "message", a data part's data an object), nested
        # just under the limit.
        at_limit = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "message/send",
            "params": {
                "message": {
                    "kind": "message",
                    "role": "user",
                    "messageId": "m",
                    "parts": [{"kind": "data", "data": {"deep": json.loads("[" * 189 + "]" * 189)}}],
                }
            },
        }
        fine = _post(srv.url + "/", json.dumps(at_limit).encode())
    assert response.status_code == 200 and response.headers["content-type"].startswith("application/json")
    assert response.json() == {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": TOO_DEEP}}
    assert fine.json()["result"]["status"]["state"] == "completed"
    assert "Traceback" not in caplog.text and "RecursionError" not in caplog.text


def _recording(tmp_path: Path) -> Path:
    from mock_agent import MockAgent

    path = tmp_path / "served.jsonl"

    async def run() -> None:
        session = Session()
        recorder = Recorder.attach(session, path)
        with MockAgent("echo", dialect="0.3") as mock:
            async with A2AClient(mock.url, session=session, dialect="0.3") as client:
                await client.send(
                    {"message": {"role": "user", "messageId": "m1", "parts": [{"kind": "text", "text": "hi"}]}}
                )
        recorder.close()

    asyncio.run(run())
    return path


def test_replay_serving_answers_deep_and_oversized_bodies_with_json_rpc_errors(tmp_path: Path) -> None:
    server = ReplayServer(_recording(tmp_path), speed=0)
    with BackgroundServer(server.app) as srv:
        deep = _post(srv.url + "/", ta.deep_json())
        big = _post(srv.url + "/", b"[" + b" " * (server.max_body + 10) + b"]")
    assert deep.json()["error"]["code"] == -32700 and TOO_DEEP in deep.json()["error"]["data"]["why"]
    assert big.status_code == 413 and big.json()["error"]["code"] == -32600
    assert big.json()["error"]["message"] == "Request payload too large"


def test_the_push_receiver_records_a_deep_body_as_what_it_is() -> None:
    async def run() -> Any:
        session = Session()
        receiver = PushReceiver(session, dialect="0.3")
        await receiver.start()
        try:
            async with httpx.AsyncClient() as http:
                answer = await http.post(
                    receiver.url_for("t1"), content=ta.deep_json(), headers={"content-type": "application/json"}
                )
        finally:
            await receiver.stop()
        return answer, receiver.received

    answer, received = asyncio.run(run())
    assert answer.status_code == 200
    (event,) = received
    assert isinstance(event.payload, ProtocolError) and TOO_DEEP in str(event.payload)


@pytest.mark.parametrize("announced", [True, False], ids=["content-length", "chunked"])
def test_the_push_receiver_refuses_an_oversized_body_unread(announced: bool) -> None:
    from inspector.client.push_receiver import MAX_BODY

    body = b"[" + b" " * MAX_BODY + b"]"

    async def run() -> Any:
        session = Session()
        receiver = PushReceiver(session, dialect="0.3")
        await receiver.start()

        async def chunks() -> Any:
            for start in range(0, len(body), 1 << 20):
                yield body[start : start + (1 << 20)]

        try:
            async with httpx.AsyncClient() as http:
                answer = await http.post(
                    receiver.url_for("t1"),
                    content=body if announced else chunks(),
                    headers={"content-type": "application/json"},
                )
        finally:
            await receiver.stop()
        return answer, receiver.received, session.events

    answer, received, events = asyncio.run(run())
    assert answer.status_code == 413 and received == []
    assert [e.data["text"] for e in events if e.kind is Kind.NOTE][-1].startswith("push receiver: refused a ")


# ====================================================================== YAML

LAUGHS = "card: {name: lol}\nlol:\n" + "".join(
    f"  {name}: &{name} [{', '.join([f'*{prev}'] * 9 if prev else ['lol'] * 9)}]\n"
    for prev, name in zip([None, *"abcdefgh"], "abcdefghi", strict=True)
)


@pytest.mark.parametrize(
    ("text", "line", "needle"),
    [
        (LAUGHS, 7, f"aliases repeat more than {MAX_ALIAS_NODES} nodes in all; refused at alias *d"),
        ("card: {name: x}\nloop: &a [*a]\n", 2, "alias *a is used inside its own anchor (a cycle)"),
        ("card: {name: x}\nrules: " + "[" * 100_000 + "]" * 100_000 + "\n", 2, TOO_DEEP),
    ],
    ids=["billion-laughs", "self-alias", "deep"],
)
def test_a2a_mock_check_refuses_alias_bombs_cycles_and_depth(tmp_path: Path, text: str, line: int, needle: str) -> None:
    import subprocess

    path = tmp_path / "hostile.yaml"
    path.write_text(text, encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "mock_agent.cli", "--check", "--scenario", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=REPO,
    )
    assert proc.returncode == 1, proc
    assert proc.stderr.startswith(f"{path}:{line}:") and needle in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr


def test_anchors_reused_within_the_budget_still_load() -> None:
    text = "base: &b {a: [1, 2, 3], b: {c: d}}\none: *b\ntwo: *b\nthree: [*b, *b]\n"
    assert load_yaml(text)["three"][1] == {"a": [1, 2, 3], "b": {"c": "d"}}


@pytest.mark.parametrize(
    "text", [LAUGHS, "x: &a {y: *a}\n", "[" * 100_000 + "]" * 100_000], ids=["billion-laughs", "self-alias", "deep"]
)
def test_themes_refuse_the_same_yaml(tmp_path: Path, text: str) -> None:
    from inspector.ui.themes import ThemeError, load_theme_file

    path = tmp_path / "hostile.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ThemeError, match=r"theme hostile\.yaml: line \d+: "):
        load_theme_file(path)
    with pytest.raises(YAMLLimit):
        load_yaml(text)


# ====================================================================== slow clients


@pytest.fixture(params=["mock", "push-receiver", "replay"])
def slow_server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[int, bytes]]:
    """(port, the start of a POST request that server reads) with a 0.5 s request deadline."""
    if request.param == "push-receiver":
        loop = asyncio.new_event_loop()
        receiver = PushReceiver(Session(), request_timeout=0.5)
        import threading

        ready = threading.Event()

        def run() -> None:
            asyncio.set_event_loop(loop)
            loop.run_until_complete(receiver.start())
            ready.set()
            loop.run_forever()

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        assert ready.wait(10)
        url = httpx.URL(receiver.url_for("t1"))
        yield url.port, f"POST {url.raw_path.decode()} HTTP/1.1\r\nHost: x\r\n".encode()
        asyncio.run_coroutine_threadsafe(receiver.stop(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        return
    app = MockServer("echo").app if request.param == "mock" else ReplayServer(_recording(tmp_path), speed=0).app
    with BackgroundServer(app, request_timeout=0.5) as srv:
        yield srv.port, b"POST / HTTP/1.1\r\nHost: x\r\n"


def test_a_request_dribbled_a_byte_at_a_time_is_cut_off(slow_server: tuple[int, bytes]) -> None:
    port, opening = slow_server
    answer = ta.dribble(port, opening, b"a")
    assert answer.startswith(b"HTTP/1.1 408 Request Timeout\r\n"), answer


def test_a_body_dribbled_a_byte_at_a_time_is_cut_off(slow_server: tuple[int, bytes]) -> None:
    port, opening = slow_server
    answer = ta.dribble(port, opening + b"Content-Type: application/json\r\nContent-Length: 5000\r\n\r\n{", b" ")
    assert answer.startswith(b"HTTP/1.1 408 Request Timeout\r\n"), answer


def test_a_connection_that_never_sends_is_closed(slow_server: tuple[int, bytes]) -> None:
    port, _opening = slow_server
    answer = ta.dribble(port, b"", b"")
    assert answer.startswith(b"HTTP/1.1 408 Request Timeout\r\n"), answer


def test_every_server_gets_the_request_deadline() -> None:
    from uvicorn.protocols.http.auto import AutoHTTPProtocol

    config = _config(MockServer("echo").app, "127.0.0.1", 0)
    assert issubclass(config.http, AutoHTTPProtocol) and config.http.request_timeout == REQUEST_TIMEOUT
    with BackgroundServer(MockServer("echo").app, request_timeout=0.5) as srv:
        # Keep-alive still works, and a slow request does not stop the next one.
        ta.dribble(srv.port, b"GET / HTTP/1.1\r\n")
        with httpx.Client() as http:
            card = srv.url + "/.well-known/agent-card.json"
            assert [http.get(card).status_code for _ in range(3)] == [200, 200, 200]


# ====================================================================== the TUI


TUI_BOMBS = [
    ("card", "card-bomb", "larger than 64 MiB after decompression", ("response", 64 << 20)),
    ("send", "send-bomb", "larger than 64 MiB after decompression", ("response", 64 << 20)),
    ("stream", "stream-bomb", "larger than 16 MiB after decompression", ("sse", 16 << 20)),
]


@pytest.fixture(scope="module")
def tui_bombs(agents: str, tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], float, str]:
    """The three cases run one after another in one TUI process (tests/trust_tui.py):
    (each case's result, the process's peak RSS in MiB, its stderr). One start of
    Python and Textual instead of three; the peak bounds each case's."""
    home = tmp_path_factory.mktemp("tui-bombs")
    env = Cli(home / "home").env
    pairs = [arg for case, path, _needle, _cut in TUI_BOMBS for arg in (case, f"{agents}/{path}/")]
    proc, peak = ta.peak_rss_mib([sys.executable, str(REPO / "tests" / "trust_tui.py"), *pairs], env=env, cwd=home)
    err = proc.stderr.decode()
    assert proc.returncode == 0, err[-3000:]
    return json.loads(proc.stdout), peak, err


@pytest.mark.xdist_group("trust_tui_bombs")
@pytest.mark.parametrize(("case", "path", "needle", "cut"), TUI_BOMBS)
def test_the_tui_shows_a_bomb_as_an_error_with_memory_bounded(
    tui_bombs: tuple[dict[str, Any], float, str], case: str, path: str, needle: str, cut: tuple[str, int]
) -> None:
    results, peak, err = tui_bombs
    result = results[case]
    if case == "card":
        # Not "connecting" for ever: the connection failed, and says why.
        assert result["state"] == "error" and needle in result["error"]
    else:
        assert result["state"] == "ready"
    title, detail = result["errors"][-1]
    assert title.endswith("failed") and needle in detail
    assert "MemoryError" not in json.dumps(result) + err
    # What arrived is on record, cut at the limit, and listed in the traffic view.
    assert result["cut"] == [cut[0]] and result["cut_size"] == cut[1]
    assert "invalid: " in result["traffic_screen"] and (
        "body cut" in result["traffic_screen"] or "event cut" in result["traffic_screen"]
    )
    assert peak < RSS_BOUND_MIB, f"peak RSS {peak:.0f} MiB (the largest of the three cases)"


async def test_an_unexpected_failure_is_the_connections_error_not_a_hang(monkeypatch: pytest.MonkeyPatch) -> None:
    from inspector.ui.app import InspectorApp
    from mock_agent import MockAgent
    from ui_helpers import wait_until

    # Memory running out cannot be caused safely in a test; the fault is injected where
    # it struck before the limits existed: inside the connection's first call.
    async def exhausted(self: A2AClient) -> Any:
        raise MemoryError()

    monkeypatch.setattr(A2AClient, "resolve_dialect", exhausted)
    with MockAgent("echo") as mock:
        app = InspectorApp(url=mock.url)
        async with app.run_test(size=(120, 36)) as pilot:
            await wait_until(
                pilot, lambda: app.active is not None and app.active.state == "error", 10, "the connection to fail"
            )
            assert str(app.active.error) == "unexpected MemoryError"
            assert app.errors and app.errors[-1][1].endswith("failed")
            assert app.errors[-1][2] == "unexpected MemoryError"
