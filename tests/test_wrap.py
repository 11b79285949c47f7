"""WrappedText: appends cost what they add, and give the rows a whole re-wrap gives."""

from __future__ import annotations

import random

import pytest

from inspector.textsafe import visible
from inspector.ui.widgets import wrap
from inspector.ui.widgets.wrap import TAB, WrappedText, wrap_rows

ALPHABET = ["ab", "word", " ", " ", "é", "“q”", "—", "日本", "\t", "e\u0301", "\x1b[1m", "🙂", "xyzzy"]


def reference_rows(text: str, width: int) -> list[str]:
    """Each line of ``text`` wrapped on its own, from scratch."""
    rows = []
    for line in text.split("\n"):
        rows.extend(line[a:b] for a, b in wrap_rows(line, 0, width))
    return rows


def rows_of(wrapped: WrappedText, width: int) -> list[str]:
    return [wrapped.row(i) for i in range(wrapped.wrap(width))]


@pytest.mark.parametrize("seed", range(6))
def test_appends_give_the_rows_of_a_whole_rewrap(seed: int) -> None:
    rng = random.Random(seed)
    newline = 0.0 if seed % 2 else 0.02  # one long line, or lines
    pieces = [
        "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 6))) + ("\n" if rng.random() < newline else "")
        for _ in range(3000)
    ]
    width = rng.randint(1, 50)
    growing = WrappedText()
    growing.wrap(width)
    for i, piece in enumerate(pieces):
        growing.append(piece)
        if i % 997 == 0:  # rows read while it grows, as a widget draws them
            assert rows_of(growing, width)[-1] == reference_rows(growing.text, width)[-1]
    expected = "".join(visible(p).replace("\t", TAB) for p in pieces)
    assert growing.text == expected
    assert growing.chars == len(expected)
    assert rows_of(growing, width) == reference_rows(expected, width)
    # A new width re-wraps everything; back again gives the same rows.
    other = max(1, width // 2)
    assert rows_of(growing, other) == reference_rows(expected, other)
    assert rows_of(growing, width) == reference_rows(expected, width)


def test_text_appended_before_a_width_is_known_is_one_row_a_line() -> None:
    text = WrappedText("one\ntwo")
    text.append(" three\n")
    assert [text.row(i) for i in range(text.row_count)] == ["one", "two three", ""]
    assert text.wrap(4) == 5
    assert rows_of(text, 4) == ["one", "two", "thre", "e", ""]


class Counting(WrappedText):
    """Counts the characters read back from storage (the work an append does)."""

    __slots__ = ("read",)

    def __init__(self) -> None:
        self.read = 0
        super().__init__()

    def _slice(self, a: int, b: int) -> str:
        self.read += max(0, b - a)
        return super()._slice(a, b)


def work(pieces: int, newline: bool, monkeypatch: pytest.MonkeyPatch) -> tuple[int, int]:
    """Characters read back and characters wrap_rows measured, for ``pieces`` appends
    of a word each to one line (or to lines of ten words)."""
    measured = [0]
    original = wrap.wrap_rows

    def counting_wrap_rows(line: str, start: int, width: int, end: int | None = None):  # type: ignore[no-untyped-def]
        measured[0] += (len(line) if end is None else end) - start
        return original(line, start, width, end)

    monkeypatch.setattr(wrap, "wrap_rows", counting_wrap_rows)
    text = Counting()
    text.wrap(80)
    rng = random.Random(3)
    for i in range(pieces):
        text.append(
            rng.choice(["the ", "quick ", "brün ", "fox—", "日本 "]) + ("\n" if newline and i % 10 == 9 else "")
        )
    monkeypatch.setattr(wrap, "wrap_rows", original)
    return text.read, measured[0]


def test_appends_to_one_long_line_cost_what_they_add(monkeypatch: pytest.MonkeyPatch) -> None:
    # 20k appends to a line with no newline once read the whole line back each time
    # (quadratic: ~100k characters a time here). Now an append reads back at most the
    # last row and what it adds, so the work per append stays flat as the line grows.
    small_read, small_measured = work(2_000, False, monkeypatch)
    big_read, big_measured = work(20_000, False, monkeypatch)
    assert big_read <= 11 * small_read and big_measured <= 11 * small_measured
    per_append = (big_read + big_measured) / 20_000
    assert per_append < 2 * (80 + 8)  # a row's width and a piece, read and measured once each
    # Short lines (a newline every ~60 characters) never need a re-wrap at all.
    assert work(20_000, True, monkeypatch) == (0, 0)


def test_the_text_is_stored_in_blocks_not_one_string() -> None:
    text = WrappedText()
    for _ in range(3 * wrap.BLOCK // 10):
        text.append("0123456789")
    assert len(text._blocks) >= 2
    assert all(len(block) <= wrap.BLOCK + 10 for block in text._blocks)
    assert text.text == "0123456789" * (3 * wrap.BLOCK // 10)
    # A row across a block boundary reads both.
    rows = rows_of(text, 7)
    assert "".join(rows) == text.text


def test_text_shown_as_sent_can_be_handed_to_the_string_it_came_from() -> None:
    pieces = ["alpha beta ", "gamma\ndelta ", "epsilon " * 50]
    assembled = "[before]" + "".join(pieces)
    text = WrappedText()
    for piece in pieces:
        text.append(piece)
    rows = rows_of(text, 9)
    assert text.adopt(lambda a, b: assembled[a:b], len("[before]"))
    assert text.adopted and not text._blocks and not text._open  # no copy kept
    assert rows_of(text, 9) == rows and rows_of(text, 13) == reference_rows("".join(pieces), 13)
    assert text.text == "".join(pieces)
    # More text: it keeps its own copy again.
    text.append(" zeta")
    assert not text.adopted and text.text == "".join(pieces) + " zeta"
    assert rows_of(text, 9)[-1] == reference_rows(text.text, 9)[-1]


def test_text_can_follow_its_source_from_the_start_and_copies_once_shown_otherwise() -> None:
    # The artifact view's text runs: the tracker holds the text, the run only its rows.
    source: list[str] = ["[before]"]
    text = WrappedText()
    text.follow(lambda a, b: "".join(source)[a:b], len("[before]"))
    pieces = ["alpha beta ", "gamma\ndelta ", "epsilon " * 50, "\n", "x" * 300]
    for piece in pieces:
        source.append(piece)  # the tracker has it before the view appends it
        text.append(piece)
        assert not text._blocks and not text._open  # no copy kept
    shown = "".join(pieces)
    assert text.text == shown and text.chars == len(shown)
    assert rows_of(text, 9) == reference_rows(shown, 9) and rows_of(text, 13) == reference_rows(shown, 13)
    # A piece shown otherwise than sent (a tab): it keeps its own copy from then on.
    source.append("tab\there")
    text.append("tab\there")
    assert not text.adopted and text.text == shown + "tab" + TAB + "here"
    assert rows_of(text, 9) == reference_rows(text.text, 9)
    with pytest.raises(ValueError):
        WrappedText("not empty").follow(lambda a, b: "", 0)


def test_text_shown_otherwise_than_sent_is_not_handed_over() -> None:
    for piece in ("tab\there", "esc\x1b[1m", "zero\u200bwidth"):
        text = WrappedText(piece)
        assert not text.adopt(lambda a, b, piece=piece: piece[a:b], 0)
        assert not text.adopted and text.text == visible(piece).replace("\t", TAB)
    # ... nor a string that says something else.
    text = WrappedText("same")
    assert not text.adopt(lambda a, b: "diff"[a:b], 0)


def test_rows_take_about_5_bytes_each_and_give_back_every_offset() -> None:
    rows = wrap.Rows()
    expected: list[tuple[int, int]] = []
    pos = 0
    rng = random.Random(7)
    for i in range(20_000):
        # A row ending at the next start (a cut word), one short (a dropped space or
        # newline), or, which no wrap makes, further short or past it: all kept exactly.
        length = rng.randint(0, 40)
        gap = (0, 1, 1, 1, 300, -2)[i % 6] if i % 97 else 1
        expected.append((pos, pos + length))
        rows.append(pos, pos + length)
        pos = max(0, pos + length + gap)
    assert len(rows) == len(expected)
    assert [rows[i] for i in range(len(rows))] == expected and rows[-1] == expected[-1]
    for _ in range(50):  # as the last row is wrapped again
        assert rows.pop() == expected.pop()
        assert rows[-1] == expected[-1] and len(rows) == len(expected)
    rows.append(1 << 33, (1 << 33) + 5)  # past 4 G characters: the starts widen
    expected.append((1 << 33, (1 << 33) + 5))
    assert [rows[i] for i in range(len(rows))] == expected

    text = WrappedText("".join(f"line {i} of a long artifact\n" for i in range(50_000)))
    assert text.wrap(10) == 150_001
    kept = text._rows
    size = len(kept._starts) * kept._starts.itemsize + len(kept._short)
    assert size / len(kept) <= 5.1


@pytest.mark.parametrize("seed", range(4))
def test_a_rewrap_reads_the_text_a_window_at_a_time_and_gives_the_same_rows(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(wrap, "WINDOW", 50)
    rng = random.Random(seed)
    newline = (0.0, 0.01, 0.2, 0.5)[seed]  # one long line ... many short ones
    source = "".join(
        "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 6))) + ("\n" if rng.random() < newline else "")
        for _ in range(2000)
    )
    source = visible(source).replace("\t", TAB)  # as shown: the text can be read from its source
    asked: list[int] = []

    def slicer(a: int, b: int) -> str:
        asked.append(b - a)
        return source[a:b]

    text = WrappedText()
    text.follow(slicer, 0)
    for at in range(0, len(source), 97):
        text.append(source[at : at + 97])
    for width in (7, 1, 33, 120):
        asked.clear()
        assert rows_of(text, width) == reference_rows(source, width)
        assert max(asked) <= max(50, 2 * width + 2)
