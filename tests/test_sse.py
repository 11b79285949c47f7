"""The SSE reader: every framing edge case, chunking independence, real captured bytes."""

from __future__ import annotations

import base64
import re
from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.client.sse import SSEComment, SSEEvent, SSEParser, aiter_sse

BOM = b"\xef\xbb\xbf"


def parse(*chunks: bytes) -> list[SSEEvent | SSEComment]:
    parser = SSEParser()
    out: list[SSEEvent | SSEComment] = []
    for chunk in chunks:
        out += parser.feed(chunk)
    return out + parser.close()


def events(items: list) -> list[SSEEvent]:
    return [i for i in items if isinstance(i, SSEEvent)]


def comments(items: list) -> list[str]:
    return [i.text for i in items if isinstance(i, SSEComment)]


def key(item: SSEEvent | SSEComment) -> tuple:
    if isinstance(item, SSEComment):
        return ("comment", item.text)
    return (
        "event",
        item.raw,
        item.event,
        item.data,
        item.id,
        item.retry,
        item.incomplete,
        str(item.error) if item.error else None,
        item.raw_encoding,
    )


def keys(items: list) -> list[tuple]:
    return [key(i) for i in items]


# --------------------------------------------------------------------- line endings


@pytest.mark.parametrize("nl", [b"\n", b"\r\n", b"\r"])
def test_each_line_ending_gives_the_same_events(nl: bytes) -> None:
    stream = nl.join([b"event: status", b"data: one", b"data: two", b"", b"data: three", b"", b""])
    got = parse(stream)
    assert [(e.event, e.data) for e in events(got)] == [("status", "one\ntwo"), (None, "three")]
    # raw keeps the bytes as received, terminators included
    assert events(got)[0].raw == nl.decode().join(["event: status", "data: one", "data: two"])
    assert not any(e.incomplete for e in events(got))


def test_mixed_line_endings_in_one_stream() -> None:
    got = parse(b"data: a\r\ndata: b\n\rdata: c\r\r\ndata: d\n\n")
    assert [e.data for e in events(got)] == ["a\nb", "c", "d"]


def test_cr_at_chunk_end_then_lf_is_one_line_break() -> None:
    got = parse(b"data: a\r", b"\ndata: b\r\n\r", b"\ndata: c\r\n\r\n")
    assert [e.data for e in events(got)] == ["a\nb", "c"]
    assert events(got)[0].raw == "data: a\r\ndata: b"


def test_cr_ending_a_block_dispatches_without_waiting_for_more_bytes() -> None:
    parser = SSEParser()
    # A lone CR ends a line, so CR CR is a blank line: the event is complete now.
    assert [e.data for e in events(parser.feed(b"data: x\r\r"))] == ["x"]
    # The LF that may follow is just another (empty) line.
    assert parser.feed(b"\ndata: y\r\r") == [SSEEvent("data: y", None, "y")]


def test_line_separators_inside_json_do_not_split_lines() -> None:
    text = '{"t": "a\u2028b\u2029c\x85d\x0be\x0cf\x1cg\x1dh\x1ei"}'
    got = parse(b"data: " + text.encode() + b"\n\n")
    assert [e.data for e in events(got)] == [text]


# --------------------------------------------------------------------- fields


def test_named_events_ids_and_retry() -> None:
    parser = SSEParser()
    got = parser.feed(b"event: status\nid: 7\nretry: 1500\ndata: {}\n\ndata: 2\n\n")
    assert [(e.event, e.id, e.retry) for e in events(got)] == [("status", "7", 1500), (None, None, None)]
    # the spec's last event id carries over blocks; each event reports only its own
    assert parser.last_event_id == "7"


def test_invalid_retry_and_nul_in_id_are_ignored() -> None:
    parser = SSEParser()
    got = parser.feed(b"retry: 15s\nid: a\x00b\ndata: x\n\nretry: \xd9\xa3\ndata: y\n\n")
    assert [(e.id, e.retry) for e in events(got)] == [(None, None), (None, None)]
    assert parser.last_event_id is None


def test_only_one_leading_space_is_stripped_from_values() -> None:
    got = parse(b"data:no-space\ndata:  two-spaces\nevent:  spaced\n\n")
    assert events(got)[0].data == "no-space\n two-spaces"
    assert events(got)[0].event == " spaced"


def test_field_lines_without_a_colon() -> None:
    got = parse(b"data\n\nevent\ndata\ndata\n\n")
    assert [(e.event, e.data) for e in events(got)] == [(None, ""), ("", "\n")]


def test_unknown_fields_are_ignored_but_kept_in_raw() -> None:
    got = parse(b"foo: bar\ndata: x\n\n")
    assert events(got) == [SSEEvent("foo: bar\ndata: x", None, "x")]


def test_block_without_data_is_reported_with_data_none() -> None:
    got = parse(b"id: 5\n\nevent: ping\n\nretry: 10\n\n")
    assert [(e.raw, e.data, e.id, e.event, e.retry) for e in events(got)] == [
        ("id: 5", None, "5", None, None),
        ("event: ping", None, None, "ping", None),
        ("retry: 10", None, None, None, 10),
    ]


def test_extra_blank_lines_dispatch_nothing() -> None:
    assert keys(parse(b"\n\n\r\n\ndata: a\n\n\n\n\n")) == keys([SSEEvent("data: a", None, "a")])
    assert parse(b"\n\n\n") == []


# --------------------------------------------------------------------- comments


def test_comments_are_reported_as_heartbeats() -> None:
    got = parse(b": heartbeat\n\n:\n\n:no-space\r\n\r\n")
    assert got == [SSEComment(" heartbeat"), SSEComment(""), SSEComment("no-space")]


def test_comment_inside_a_block_comes_before_its_event() -> None:
    got = parse(b"event: status\n: heartbeat\ndata: x\n\n")
    assert got == [SSEComment(" heartbeat"), SSEEvent("event: status\n: heartbeat\ndata: x", "status", "x")]


@pytest.mark.parametrize("nl", [b"\n", b"\r\n", b"\r"])
def test_a_leading_comment_is_not_part_of_the_event_raw(nl: bytes) -> None:
    # Whether the comment arrives with its block or before it, it is split off the same way.
    stream = b": hb" + nl + b"data: x" + nl + nl
    assert parse(stream) == [SSEComment(" hb"), SSEEvent("data: x", None, "x")]


def test_a_comment_line_is_reported_when_its_line_ends() -> None:
    parser = SSEParser()
    # No blank line yet: the heartbeat must still show now, not when the next event lands.
    assert parser.feed(b": ping\n") == [SSEComment(" ping")]
    assert parser.feed(b": ping 2\r") == [SSEComment(" ping 2")]
    assert parser.feed(b"\ndata: x") == []
    assert parser.feed(b"\n\n") == [SSEEvent("data: x", None, "x")]


def test_a_partial_comment_line_waits_for_its_end() -> None:
    parser = SSEParser()
    assert parser.feed(b": pi") == []
    assert parser.feed(b"ng\n") == [SSEComment(" ping")]


# --------------------------------------------------------------------- BOM


def test_leading_bom_is_dropped_and_first_event_kept() -> None:
    assert events(parse(BOM + b"data: first\n\n"))[0].data == "first"


def test_bom_split_across_chunks() -> None:
    assert [e.data for e in events(parse(b"\xef", b"\xbb", b"\xbfdata: first\n\n"))] == ["first"]


def test_bom_later_in_the_stream_is_data() -> None:
    got = parse(b"data: a\n\n" + BOM + b"data: b\n\n")
    assert [e.raw for e in events(got)] == ["data: a", "\ufeffdata: b"]
    assert events(got)[1].data is None  # "\ufeffdata" is an unknown field name


# --------------------------------------------------------------------- bad input


def test_non_utf8_event_is_one_error_and_the_stream_goes_on() -> None:
    got = parse(b"data: ok\n\ndata: caf\xe9\n\ndata: fine\n\n")
    assert [e.data for e in events(got)] == ["ok", None, "fine"]
    bad = events(got)[1]
    assert str(bad.error) == "event is not UTF-8 (byte 0xe9 at offset 9)"
    assert bad.raw_encoding == "base64"
    assert base64.b64decode(bad.raw) == b"data: caf\xe9"


def test_non_utf8_in_the_fast_path_region_does_not_poison_neighbours() -> None:
    chunk = b"".join(b"data: %d\r\n\r\n" % i for i in range(5)) + b"data: \xff\r\n\r\n" + b"data: 6\r\n\r\n"
    got = events(parse(chunk))
    assert [e.data for e in got] == ["0", "1", "2", "3", "4", None, "6"]
    assert got[5].error is not None


def test_incomplete_last_event_is_reported_not_dropped() -> None:
    got = parse(b'data: one\n\ndata: {"half": ')
    assert [(e.data, e.incomplete) for e in events(got)] == [("one", False), ('{"half": ', True)]


def test_last_event_without_its_blank_line_is_incomplete() -> None:
    got = parse(b"data: one\n")
    assert [(e.raw, e.data, e.incomplete) for e in events(got)] == [("data: one\n", "one", True)]


def test_trailing_comment_at_eof_is_a_comment_not_an_incomplete_event() -> None:
    assert parse(b"data: a\n\n: bye") == [SSEEvent("data: a", None, "a"), SSEComment(" bye")]


def test_huge_event_arriving_in_small_chunks() -> None:
    big = b"x" * 300_000
    stream = b"data: " + big + b"\r\n\r\ndata: after\r\n\r\n"
    got = events(parse(*[stream[i : i + 1000] for i in range(0, len(stream), 1000)]))
    assert [len(e.data) for e in got] == [len(big), 5]


@pytest.mark.asyncio
async def test_aiter_sse_reports_the_incomplete_tail() -> None:
    async def chunks():
        yield b": hi\n\ndata: a\n"
        yield b"\ndata: b"

    got = [item async for item in aiter_sse(chunks())]
    assert keys(got) == keys(
        [SSEComment(" hi"), SSEEvent("data: a", None, "a"), SSEEvent("data: b", None, "b", incomplete=True)]
    )


# --------------------------------------------------------------------- chunking

EVERYTHING = (
    BOM
    + b": hello\r\n\r\n"
    + b'event: status\r\ndata: {"state": "working", "t": "\xe2\x80\xa8"}\r\nid: 1\r\n\r\n'
    + b"data: line1\ndata: line2\n\n"
    + b"data: cr\r\rretry: 20\r\r"
    + b": heartbeat\n\n"
    + b"data: caf\xe9\n\n"
    + b"event: status\n: inside\ndata: x\n\n"
    + b"id: only\n\n"
    + b"data\n\n\n\n"
    + b"data: \xf0\x9f\x98\x80 emoji\r\n\r\n"
    + b"data: tail-without-blank-line\r"
)


def test_every_two_way_split_gives_identical_output() -> None:
    whole = keys(parse(EVERYTHING))
    assert len(events(parse(EVERYTHING))) == 10
    for i in range(1, len(EVERYTHING)):
        assert keys(parse(EVERYTHING[:i], EVERYTHING[i:])) == whole, f"split at byte {i}"


def test_byte_at_a_time_gives_identical_output() -> None:
    assert keys(parse(*[EVERYTHING[i : i + 1] for i in range(len(EVERYTHING))])) == keys(parse(EVERYTHING))


# A line-by-line reading of the spec (plus our documented choices), written to be
# obviously right rather than fast: the parser must agree with it on any stream.
_TERM = re.compile(rb"(\r\n|\r|\n)")


def reference(stream: bytes) -> list[tuple]:
    if stream.startswith(BOM):
        stream = stream[3:]
    pieces = _TERM.split(stream)
    lines = list(zip(pieces[0::2], [*pieces[1::2], b""], strict=True))  # (line, its terminator)
    out: list[tuple] = []
    block: list[tuple[bytes, bytes]] = []

    def flush(incomplete: bool) -> None:
        while block and block[0][0].startswith(b":"):
            out.append(("comment", block.pop(0)[0][1:].decode("utf-8", "replace")))
        if not block:
            return
        raw = b"".join(line + term for line, term in block[:-1]) + block[-1][0]
        if incomplete:
            raw += block[-1][1]
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            out.append(
                (
                    "event",
                    base64.b64encode(raw).decode(),
                    None,
                    None,
                    None,
                    None,
                    incomplete,
                    f"event is not UTF-8 (byte 0x{raw[exc.start]:02x} at offset {exc.start})",
                    "base64",
                )
            )
            return
        event = id_ = retry = None
        data: list[str] = []
        fields = False
        for line, _ in block:
            text = line.decode("utf-8")
            if text.startswith(":"):
                out.append(("comment", text[1:]))
                continue
            fields = True
            name, colon, value = text.partition(":")
            if colon and value.startswith(" "):
                value = value[1:]
            if name == "data":
                data.append(value)
            elif name == "event":
                event = value
            elif name == "id" and "\0" not in value:
                id_ = value
            elif name == "retry" and value.isascii() and value.isdigit():
                retry = int(value)
        has_data = any(line.decode().partition(":")[0] == "data" for line, _ in block)
        if fields:
            out.append(
                (
                    "event",
                    raw.decode(),
                    event,
                    "\n".join(data) if has_data else None,
                    id_,
                    retry,
                    incomplete,
                    None,
                    "utf-8",
                )
            )

    for index, (line, term) in enumerate(lines):
        last = index == len(lines) - 1
        if last and not line:
            break
        if not line and not last:
            flush(False)
            block = []
        else:
            block.append((line, term))
    flush(True)
    return out


_LINE = st.one_of(
    st.builds(
        lambda s: b"data: " + s.encode(),
        st.text(st.characters(blacklist_characters="\r\n", blacklist_categories=("Cs",)), max_size=12),
    ),
    st.builds(lambda s: b"data:" + s.encode(), st.sampled_from(["", " ", "  x", "\u2028", "\x85"])),
    st.sampled_from(
        [
            b"data",
            b"event",
            b"event: status",
            b"id: 3",
            b"id: a\x00b",
            b"retry: 100",
            b"retry: x1",
            b"foo: bar",
            b": heartbeat",
            b":",
            b"",
            b"",
            b"",
            b"data: \xff\xfe",
            b"\xef\xbb\xbfdata: z",
            b"data: \xe2\x80\xa8",
        ]
    ),
)


@settings(max_examples=400, deadline=None)
@given(
    lines=st.lists(st.tuples(_LINE, st.sampled_from([b"\n", b"\r\n", b"\r"])), max_size=20),
    # Most real streams use one line ending throughout (the parser's fast path).
    uniform=st.sampled_from([None, b"\n", b"\r\n"]),
    bom=st.booleans(),
    tail=st.sampled_from([b"", b"data: cut", b":c", b"\r"]),
    cuts=st.lists(st.integers(min_value=0, max_value=400), max_size=8),
)
def test_parser_agrees_with_the_reference_however_the_stream_is_chunked(lines, uniform, bom, tail, cuts) -> None:
    stream = (BOM if bom else b"") + b"".join(line + (uniform or nl) for line, nl in lines) + tail
    want = reference(stream)
    assert keys(parse(stream)) == want
    points = sorted({c % (len(stream) + 1) for c in cuts} | {0, len(stream)})
    chunks = [stream[a:b] for a, b in pairwise(points)]
    assert keys(parse(*chunks)) == want


# --------------------------------------------------------------------- real bytes


def _capture_chunks(name: str) -> list[bytes]:
    captures = pytest.importorskip("captures")
    from shared_paths import CAPTURES

    path = CAPTURES / name
    if not path.exists():
        pytest.skip(f"{name} not available")
    return [c.encode("utf-8") for c in captures.parse(path).chunks]


@pytest.mark.parametrize("name", ["03_v03_message_stream.txt", "06_v10_stream.txt", "52_long_stream_pings.txt"])
def test_captured_streams_chunk_by_chunk(name: str) -> None:
    import json

    chunks = _capture_chunks(name)
    assert chunks, "capture has no stream chunks"
    got = parse(*chunks)
    data_chunks = [c for c in chunks if c.startswith(b"data:")]
    assert [e.data for e in events(got)] == [c[6:].rstrip(b"\r\n").decode() for c in data_chunks]
    assert all(json.loads(e.data)["jsonrpc"] == "2.0" for e in events(got))
    assert not any(e.incomplete or e.error for e in events(got))
    pings = [c[1:].rstrip(b"\r\n").decode() for c in chunks if c.startswith(b":")]
    assert comments(got) == pings
    # and byte by byte, the same
    whole = b"".join(chunks)
    assert keys(parse(*[whole[i : i + 1] for i in range(len(whole))])) == keys(got)


def test_captured_ping_is_a_heartbeat_comment() -> None:
    chunks = _capture_chunks("52_long_stream_pings.txt")
    assert any(text.startswith(" ping - ") for text in comments(parse(*chunks)))
