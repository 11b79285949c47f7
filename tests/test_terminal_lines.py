"""The screen harness's own text of the emulated screen (tests/terminal.py ``Lines``)
is pyte's, after every kind of change a program makes: it renders again only the lines
that changed, so a line it missed would show a test an old screen."""

from __future__ import annotations

import pyte

from terminal import Lines

#: What full-screen programs write: text, colours, cursor moves, erasing, scrolling in
#: a region, inserting and deleting lines and characters, wide and combining
#: characters (one joined to the end of the line above), wrapping at the right edge.
WRITES = [
    b"\x1b[2J\x1b[Hhello \x1b[1;31mworld\x1b[0m\r\n",
    "日本語 wide │ box ─╭╮ ▸ ●\r\n".encode(),
    b"\x1b[5;10Hplaced\x1b[3;1Hthird line",
    b"\x1b[3;5H\x1b[K",
    b"\x1b[2;3H\x1b[2P\x1b[4@",
    b"\x1b[2;1H\x1b[1L\x1b[6;1H\x1b[2M",
    b"\x1b[2;6r\x1b[6;1H\n\n\x1b[r",
    b"\x1b[8;1H" + b"x" * 30 + b"wrapped",
    b"\x1b[9;24He",
    "\x1b[10;1H\u0301".encode(),
    b"\x1b[1;1H\x1b[1J\x1b[12;1Hend",
    "\x1b[11;1H日本".encode() + b"\x1b[11;1Hab",
    b"\x1b[H\x1b[J",
]


def test_the_lines_are_pyte_s_after_each_write() -> None:
    screen = pyte.Screen(24, 12)
    stream = pyte.ByteStream(screen)
    lines = Lines(screen)
    for data in WRITES:
        stream.feed(data)
        expected = screen.display
        assert lines.get() == expected, data
        assert lines.text() == "\n".join(line.rstrip() for line in expected), data


def test_a_resized_screen_is_rendered_whole() -> None:
    screen = pyte.Screen(30, 10)
    stream = pyte.ByteStream(screen)
    lines = Lines(screen)
    stream.feed(b"\x1b[2J\x1b[Hone\r\ntwo\r\nthree" + b"\x1b[10;1Hlast line of ten")
    assert lines.get()[9].startswith("last line of ten")
    for cols, rows in ((12, 5), (40, 14)):
        screen.resize(rows, cols)
        stream.feed(b"\x1b[1;1Hnew")
        assert lines.get() == screen.display, (cols, rows)
        assert all(len(line) == cols for line in lines.get())
