"""Word-wrapped text that grows at the end cheaply (no Textual import).

Appending re-wraps only the last row: greedy wrapping never changes an earlier row
because of text after it. The line-API widgets use this to draw artifacts of megabytes
streamed in thousands of chunks, one visible row at a time.

Every append costs what it adds, also on one long line without newlines (a model
that streams a paragraph a token at a time): the text is kept in blocks of bounded
size rather than as one string per line (which each append would copy whole), and the
rows are two arrays of offsets into it rather than a tuple each.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Callable

from rich.cells import cell_len, get_character_cell_size

from ...textsafe import visible

TAB = "    "

# Code points that are often in model output and may all be one cell wide: Latin with
# accents, Greek, Cyrillic, general punctuation (dashes, curly quotes, ellipsis), arrows
# and box drawing. Only those rich also measures as one cell are kept (built on first use).
_NARROW_RANGES = ((0x20, 0x7E), (0xA0, 0x2FF), (0x370, 0x482), (0x2010, 0x205E), (0x2190, 0x21FF), (0x2500, 0x25FF))
_narrow: frozenset[str] | None = None

#: Characters per block of stored text: what reading a row near the end may join.
BLOCK = 1 << 15
#: The width while none is known: every line is one row.
UNWRAPPED = 1 << 62
#: Characters a re-wrap reads at a time (at least twice the width).
WINDOW = 1 << 16


def _all_narrow(text: str) -> bool:
    """True if every character of ``text`` is one cell wide (so cells == characters)."""
    global _narrow
    if _narrow is None:
        _narrow = frozenset(
            ch for lo, hi in _NARROW_RANGES for ch in map(chr, range(lo, hi + 1)) if get_character_cell_size(ch) == 1
        )
    return _narrow.issuperset(text)


def _row_cells(text: str) -> int:
    """Cells of ``text`` measured as wrap_rows measures them (character by character)."""
    if text.isascii() or _all_narrow(text):
        return len(text)
    return sum(map(get_character_cell_size, text))


def wrap_rows(line: str, start: int, width: int, end: int | None = None) -> list[tuple[int, int]]:
    """Greedy word wrap of ``line[start:end]`` to ``width`` cells: ``(start, end)`` offsets.

    A break at a space drops that space; a word longer than the width is cut."""
    width = max(1, width)
    rows: list[tuple[int, int]] = []
    n = len(line) if end is None else end
    pos = start
    # Where every character is one cell, a row is found by offsets, in C; only a row
    # holding a wide or zero-width character is measured character by character.
    narrow = line.isascii() or _all_narrow(line[start:n] if start or n != len(line) else line)
    while True:
        # i: where the row must end at the latest; space: its last space after pos.
        if narrow or _all_narrow(line[pos : min(n, pos + width + 1)]):
            if n - pos <= width:
                rows.append((pos, n))
                return rows
            i = pos + width
            space = line.rfind(" ", pos + 1, i)
        else:
            used = 0
            i = pos
            space = -1
            while i < n:
                cells = get_character_cell_size(line[i])
                if used + cells > width:
                    break
                if line[i] == " ":
                    space = i
                used += cells
                i += 1
            if i >= n:
                rows.append((pos, n))
                return rows
        if line[i] == " ":
            rows.append((pos, i))
            pos = i + 1
        elif space > pos:
            rows.append((pos, space))
            pos = space + 1
        else:
            end_ = i if i > pos else i + 1  # a glyph wider than the width still takes a row
            rows.append((pos, end_))
            pos = end_


def cells(text: str) -> int:
    return len(text) if text.isascii() else cell_len(text)


class Rows:
    """Rows as ``(start, end)`` offsets into a text, in about 5 bytes a row.

    A row ends where the next one starts, or one character before it (the space or
    newline a break drops), so each row keeps its start (4 bytes while the text is under
    4 G characters) and a byte saying how far its end falls short of the next start;
    the last row's end is kept as it is (``last_end``). The artifact of a million-chunk
    stream has millions of rows: two 8-byte offsets each were 16 MB a million."""

    __slots__ = ("_starts", "_short", "_far", "last_end")

    def __init__(self) -> None:
        self._starts = array("I")
        self._short = bytearray()
        #: Row -> its end, for the rare row that ends further before the next (never, as
        #: wrap_rows and WrappedText break): kept exactly all the same.
        self._far: dict[int, int] = {}
        self.last_end = 0

    def __len__(self) -> int:
        return len(self._starts)

    def append(self, start: int, end: int) -> None:
        starts = self._starts
        if starts:
            short = start - self.last_end
            if 0 <= short < 255:
                self._short.append(short)
            else:
                self._short.append(255)
                self._far[len(starts) - 1] = self.last_end
        try:
            starts.append(start)
        except OverflowError:
            starts = self._starts = array("q", starts)
            starts.append(start)
        self.last_end = end

    def pop(self) -> tuple[int, int]:
        """Remove the last row; its (start, end)."""
        row = (self._starts.pop(), self.last_end)
        if self._starts:
            i = len(self._starts) - 1
            short = self._short.pop()
            self.last_end = self._far.pop(i) if short == 255 else row[0] - short
        return row

    def __getitem__(self, index: int) -> tuple[int, int]:
        starts = self._starts
        n = len(starts)
        if index < 0:
            index += n
        if index == n - 1:
            return starts[index], self.last_end
        short = self._short[index]
        return starts[index], self._far[index] if short == 255 else starts[index + 1] - short


class WrappedText:
    """Append-only text, split into lines and wrapped to a width on demand.

    Agent text goes in as is: control characters and escape sequences are made
    visible (``\\x1b``), tabs become spaces.

    Rows are ``(start, end)`` offsets into the whole text (``Rows``); until a width is
    given every line is one row. The last row's cells are kept, so an
    append that still fits it only moves its end.

    Text that is shown exactly as it came (no escapes, no tabs) can be read from where
    it came from instead of kept here: the tracker's assembled artifact text, through a
    slicer (``source(a, b)`` is that text's ``[a:b]``). :meth:`follow` does that from the
    start (what is appended is taken to be what the source holds next), :meth:`adopt`
    after the fact (it checks). Then only the rows are kept here, not a second copy; the
    first append that is not shown as sent takes a copy again."""

    __slots__ = (
        "_blocks",
        "_block_starts",
        "_open",
        "_open_start",
        "_rows",
        "_width",
        "_tail_cells",
        "chars",
        "_as_sent",
        "_source",
        "_base",
        "_following",
    )

    def __init__(self, text: str = "") -> None:
        #: The text: closed blocks (each about BLOCK characters) and where each starts,
        #: then the open block's pieces, joined only when read.
        self._blocks: list[str] = []
        self._block_starts: list[int] = []
        self._open: list[str] = []
        self._open_start = 0
        self._rows = Rows()
        self._rows.append(0, 0)
        self._width = UNWRAPPED
        self._tail_cells = 0
        self.chars = 0
        #: Everything appended is shown as it came (so it can be adopted).
        self._as_sent = True
        #: Where the text is read from once adopted: source(base, base + chars).
        self._source: Callable[[int, int], str] | None = None
        self._base = 0
        #: Appends shown as sent are the source's next text (see follow).
        self._following = False
        if text:
            self.append(text)

    # ------------------------------------------------------------------ sharing

    @property
    def adopted(self) -> bool:
        return self._source is not None

    def follow(self, source: Callable[[int, int], str], base: int) -> None:
        """Read the text from ``source(base + a, base + b)``: what is appended from now
        on, when shown as sent, must be what the source holds next, and is not kept
        here. For an empty text (the caller appends what it reads from the source)."""
        if self.chars:
            raise ValueError("follow() is for an empty text; adopt() checks what is there")
        self._source, self._base, self._following = source, base, True

    def adopt(self, source: Callable[[int, int], str], base: int) -> bool:
        """Read the text from ``source(base + a, base + b)`` from now on and drop this
        copy, if that is exactly what was appended and shown. Returns whether it was."""
        if self._source is not None:
            return True
        if not self._as_sent:
            return False
        pos = base
        for piece in (*self._blocks, *self._open):  # piece by piece: no second copy
            if source(pos, pos + len(piece)) != piece:
                return False
            pos += len(piece)
        if pos - base != self.chars:
            return False
        self._source, self._base = source, base
        self._blocks, self._block_starts, self._open = [], [], []
        self._open_start = self.chars
        return True

    def _own(self) -> None:
        """Keep a copy again (text not shown as sent, or appended after adopt())."""
        source = self._source
        if source is not None:
            text = source(self._base, self._base + self.chars)
            self._source = None
            self._following = False
            self._blocks, self._block_starts, self._open, self._open_start = [], [], [text], 0

    # ------------------------------------------------------------------ storage

    def _store(self, piece: str) -> None:
        if self._source is not None:
            self._own()
        self._open.append(piece)
        self.chars += len(piece)
        size = self.chars - self._open_start
        if size >= BLOCK:
            self._blocks.append("".join(self._open) if len(self._open) > 1 else self._open[0])
            self._block_starts.append(self._open_start)
            self._open = []
            self._open_start = self.chars

    def _slice(self, a: int, b: int) -> str:
        """The text from offset ``a`` to ``b``."""
        if a >= b:
            return ""
        source = self._source
        if source is not None:
            base = self._base
            return source(base + a, base + b)
        open_start = self._open_start
        if a >= open_start:
            pieces = self._open
            if b == self.chars and len(pieces) > 1:
                # The end of the text (the last row, mostly): the last few pieces do.
                need = b - a
                got = 0
                for k in range(len(pieces) - 1, max(-1, len(pieces) - 65), -1):
                    got += len(pieces[k])
                    if got >= need:
                        tail = "".join(pieces[k:])
                        return tail[len(tail) - need :]
            if len(pieces) > 1:
                pieces[:] = ["".join(pieces)]
            return pieces[0][a - open_start : b - open_start] if pieces else ""
        blocks = self._blocks
        index = bisect_right(self._block_starts, a) - 1
        start = self._block_starts[index]
        block = blocks[index]
        if b - start <= len(block):
            return block[a - start : b - start]
        out = [block[a - start :]]
        pos = start + len(block)
        index += 1
        while pos < b and index < len(blocks):
            block = blocks[index]
            out.append(block[: b - pos])
            pos += len(block)
            index += 1
        if pos < b:
            out.append(self._slice(pos, b))
        return "".join(out)

    @property
    def text(self) -> str:
        """Everything appended, as shown (escapes visible, tabs expanded)."""
        source = self._source
        if source is not None:
            return source(self._base, self._base + self.chars)
        return "".join(self._blocks) + "".join(self._open)

    # ------------------------------------------------------------------ appending

    def append(self, text: str) -> None:
        if not text:
            return
        safe = visible(text)
        if "\t" in safe:
            safe = safe.replace("\t", TAB)
        if safe is not text:
            self._as_sent = False
        pos = self.chars
        if self._following and safe is text:
            self.chars += len(safe)  # the source's next text: read from there
        else:
            self._store(safe)
        first = True
        for piece in safe.split("\n") if "\n" in safe else (safe,):
            if not first:
                pos += 1  # the newline: a new line starts a new row
                self._rows.append(pos, pos)
                self._tail_cells = 0
            first = False
            if piece:
                self._extend_last_row(pos, piece)
                pos += len(piece)

    def _extend_last_row(self, pos: int, piece: str) -> None:
        """``piece``, stored at ``pos``, continues the last row's line."""
        width = self._width
        added = _row_cells(piece) if width != UNWRAPPED else 0
        if self._tail_cells + added <= width:
            self._rows.last_end = pos + len(piece)
            self._tail_cells += added
            return
        start, _ = self._rows.pop()
        tail = self._slice(start, pos + len(piece))
        rows = wrap_rows(tail, 0, width)
        append = self._rows.append
        for a, b in rows:
            append(start + a, start + b)
        last = rows[-1]
        self._tail_cells = _row_cells(tail[last[0] : last[1]])

    # ------------------------------------------------------------------ rows

    def wrap(self, width: int) -> int:
        """Wrap to ``width`` (kept until the width changes); returns the row count."""
        width = max(1, width)
        if width != self._width:
            self._rewrap(width)
        return len(self._rows)

    def _rewrap(self, width: int) -> None:
        """Every row again at ``width``, reading the text a window at a time: the text
        of a million-chunk artifact read whole was some 180 MB more at the moment of a
        resize (the string, and the blocks it was joined from)."""
        self._width = width
        rows = Rows()
        append = rows.append
        n = self.chars
        span = max(WINDOW, 2 * width + 2)
        pos = 0  # where the text not wrapped yet starts: a line's start, or a row's in it
        while True:
            end = min(n, pos + span)
            text = self._slice(pos, end)
            last = end >= n
            narrow = text.isascii()
            size = len(text)
            i = 0
            while True:
                stop = text.find("\n", i)
                if stop < 0:
                    if not last:
                        break
                    stop = size
                if stop == i:
                    append(pos + i, pos + i)
                elif narrow and stop - i <= width:  # most lines of prose and code
                    append(pos + i, pos + stop)
                else:
                    for a, b in wrap_rows(text, i, width, stop):
                        append(pos + a, pos + b)
                if stop >= size:
                    break
                i = stop + 1
            if last:
                break
            if i < size:
                # A line runs on past the window: its rows but the last are what the
                # whole line gives (a row depends only on the text from its start to one
                # character past the width); the last is wrapped again with what follows.
                line_rows = wrap_rows(text, i, width)
                for a, b in line_rows[:-1]:
                    append(pos + a, pos + b)
                i = line_rows[-1][0]
            pos += i
        self._rows = rows
        self._tail_cells = _row_cells(self._slice(*rows[-1])) if width != UNWRAPPED else 0

    @property
    def row_count(self) -> int:
        return len(self._rows)

    def row(self, index: int) -> str:
        """Row ``index`` at the last width given to :meth:`wrap`."""
        return self._slice(*self._rows[index])
