"""Word-wrapped text that grows at the end cheaply (no Textual import).

Appending re-wraps only the last row of the last line: greedy wrapping never changes
an earlier row because of text after it. The line-API widgets use this to draw
artifacts of megabytes streamed in thousands of chunks, one visible row at a time.
"""

from __future__ import annotations

from rich.cells import cell_len, get_character_cell_size

from ...textsafe import visible

TAB = "    "

# Code points that are often in model output and may all be one cell wide: Latin with
# accents, Greek, Cyrillic, general punctuation (dashes, curly quotes, ellipsis), arrows
# and box drawing. Only those rich also measures as one cell are kept (built on first use).
_NARROW_RANGES = ((0x20, 0x7E), (0xA0, 0x2FF), (0x370, 0x482), (0x2010, 0x205E), (0x2190, 0x21FF),
                  (0x2500, 0x25FF))
_narrow: frozenset[str] | None = None


def _all_narrow(text: str) -> bool:
    """True if every character of ``text`` is one cell wide (so cells == characters)."""
    global _narrow
    if _narrow is None:
        _narrow = frozenset(ch for lo, hi in _NARROW_RANGES for ch in map(chr, range(lo, hi + 1))
                            if get_character_cell_size(ch) == 1)
    return _narrow.issuperset(text)


def wrap_rows(line: str, start: int, width: int) -> list[tuple[int, int]]:
    """Greedy word wrap of ``line[start:]`` to ``width`` cells: ``(start, end)`` offsets.

    A break at a space drops that space; a word longer than the width is cut."""
    width = max(1, width)
    rows: list[tuple[int, int]] = []
    n = len(line)
    pos = start
    # Where every character is one cell, a row is found by offsets, in C; only a row
    # holding a wide or zero-width character is measured character by character.
    narrow = line.isascii() or _all_narrow(line[start:] if start else line)
    while True:
        # i: where the row must end at the latest; space: its last space after pos.
        if narrow or _all_narrow(line[pos:pos + width + 1]):
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
            end = i if i > pos else i + 1  # a glyph wider than the width still takes a row
            rows.append((pos, end))
            pos = end


def cells(text: str) -> int:
    return len(text) if text.isascii() else cell_len(text)


class WrappedText:
    """Append-only text, split into lines and wrapped to a width on demand.

    Agent text goes in as is: control characters and escape sequences are made
    visible (``\\x1b``), tabs become spaces."""

    __slots__ = ("_lines", "_rows", "_width", "chars")

    def __init__(self, text: str = "") -> None:
        self._lines: list[str] = [""]
        #: Wrapped rows (line index, start, end); None until a width is known.
        self._rows: list[tuple[int, int, int]] | None = None
        self._width = 0
        self.chars = 0
        if text:
            self.append(text)

    @property
    def text(self) -> str:
        """Everything appended, as shown (escapes visible, tabs expanded)."""
        return "\n".join(self._lines)

    def append(self, text: str) -> None:
        if not text:
            return
        safe = visible(text).replace("\t", TAB)
        self.chars += len(safe)
        pieces = safe.split("\n")
        lines = self._lines
        lines[-1] += pieces[0]
        rows = self._rows
        if rows is not None:
            index, start, _ = rows.pop()
            rows.extend((index, s, e) for s, e in wrap_rows(lines[index], start, self._width))
        for piece in pieces[1:]:
            lines.append(piece)
            if rows is not None:
                index = len(lines) - 1
                rows.extend((index, s, e) for s, e in wrap_rows(piece, 0, self._width))

    def wrap(self, width: int) -> int:
        """Wrap to ``width`` (kept until the width changes); returns the row count."""
        width = max(1, width)
        if self._rows is None or width != self._width:
            self._width = width
            rows: list[tuple[int, int, int]] = []
            for index, line in enumerate(self._lines):
                rows.extend((index, s, e) for s, e in wrap_rows(line, 0, width))
            self._rows = rows
        return len(self._rows)

    @property
    def row_count(self) -> int:
        return len(self._rows) if self._rows is not None else len(self._lines)

    def row(self, index: int) -> str:
        """Row ``index`` at the last width given to :meth:`wrap`."""
        if self._rows is None:
            return self._lines[index]
        line, start, end = self._rows[index]
        return self._lines[line][start:end]
