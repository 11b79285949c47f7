"""The one parser of a recording's lines that the reader and the lazy index share."""

from __future__ import annotations

from inspector.session.lines import RecordingLines, is_header
from inspector.session.recorder import FORMAT, VERSION

HEADER = {"format": FORMAT, "version": VERSION, "session_started": 100.0}


def _messages(lines: RecordingLines) -> list[tuple[int, str]]:
    return [(p.line, p.message) for p in lines.problems]


def test_each_kind_of_damage_is_one_numbered_problem_and_no_object() -> None:
    lines = RecordingLines(HEADER)
    damaged = [
        b"this is not json\n",
        b"[1, 2]\n",
        b'{"seq": true, "t": 0, "kind": "note"}\n',
        b'{"seq": 3, "t": "x", "kind": "note"}\n',
        b'{"seq": 4, "t": 0, "kind": "telepathy"}\n',
        b'{"seq": 5, "t": 0, "kind": "note", "exchange": "1"}\n',
        b'{"seq": 6, "t": 0, "kind": "note", "wall": null}\n',
    ]
    for raw in damaged:
        lines.line += 1
        assert lines.parse(raw) is None
    assert not lines.truncated
    assert _messages(lines) == [
        (2, "not a valid event line (invalid JSON: Expecting value at column 1); skipped"),
        (3, "not a JSON object; skipped"),
        (4, "event without a valid seq; skipped"),
        (5, "seq 3: no valid t; skipped"),
        (6, "seq 4: unknown event kind 'telepathy' (written by a newer a2a-inspect?); skipped"),
        (7, "seq 5: exchange is not a number; skipped"),
        (8, "seq 6: wall is not a number; skipped"),
    ]


def test_a_cut_off_last_line_marks_the_recording_truncated() -> None:
    lines = RecordingLines(HEADER)
    lines.line += 1
    assert lines.parse(b'{"seq": 1, "t": 0, "ki') is None
    assert lines.truncated
    assert _messages(lines) == [
        (2, "incomplete last line: the recording was cut off (process killed?); the event being written then is lost")
    ]


def test_events_and_headers_parse_and_a_later_session_continues_the_numbers() -> None:
    lines = RecordingLines(HEADER)
    event = lines.parse(b'{"seq": 1, "t": 0.5, "wall": 100.5, "kind": "note", "exchange": 0}\n')
    assert event is not None and not is_header(event)
    lines.follow(1, 0.5, 0)
    lines.follow(2, 1.0, 3)
    lines.line = 9
    lines.follow(2, 1.5, 0)  # a seq that does not go up
    assert _messages(lines) == [(9, "seq 2 does not follow seq 2")]
    header = lines.parse(b'{"format": "%s", "version": %d, "session_started": 160.0}\n' % (FORMAT.encode(), VERSION))
    assert header is not None and is_header(header)
    start = lines.begin(header)
    assert (start.number, start.seq, start.exchange, start.t) == (2, 3, 3, 60.0)
    assert lines.session is start and lines.last_seq == 3 and len(lines.headers) == 2
    assert start.note().data["text"] == "session 2 of this file"
