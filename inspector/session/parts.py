"""An artifact's parts, with all its text held once.

A streamed artifact is thousands of text parts of a few dozen characters each; held as
models, each would cost about 700 bytes beside its text, and the artifact's text joined
for the views would be a second copy. ``PartList`` keeps the text of every text part in
blocks of about 64 K characters (``text()`` joins them into one string, kept and
shared; the TUI reads ``slice`` instead) and, per part, only where its text ends (8
bytes). A part that is more than plain text (a file, data, a text part with metadata or
keys of its own) is kept as it came. Reading a part builds it again: equal to the one
that arrived, not the same object.

A block is held as UTF-8 when that is smaller than the string: a Python string takes 2
bytes a character once one character is past U+00FF (a curly quote, a dash) and 4 past
U+FFFF (an emoji), where UTF-8 takes 1 for ASCII. A million chunks of typical model
text were 92 MB as strings; as UTF-8, about 55.

Given a ``SpillFile`` (a command that prints the text once, at its end), each block goes
there as UTF-8 once it is closed, and memory holds only where it went: a million chunks
then take their parts' ends (8 bytes each) and one open block.
"""

from __future__ import annotations

import builtins
import json
import sys
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator
from typing import Any, cast, overload

from ..protocol.models import DataPart, FilePart, TextPart
from .spill import SpillFile


def content_size(part: Any) -> int:
    """Characters of text, decoded bytes of an inline file, JSON length of data."""
    if isinstance(part, TextPart):
        return len(part.text)
    if isinstance(part, FilePart):
        return len(part.file.bytes) * 3 // 4 if part.file.bytes else 0
    if isinstance(part, DataPart):
        return len(json.dumps(part.data, default=str))
    return 0


#: Pending text is joined into a block past this many characters.
BLOCK = 1 << 16


def _compact(block: str) -> str | bytes:
    """``block``, or its UTF-8 when that takes less memory (see the module's doc)."""
    if block.isascii():
        return block
    encoded = block.encode("utf-8", "surrogatepass")
    # (The sizes of the objects: the string's says how wide its characters are stored,
    # at no cost, where max() over the characters cost about 1 µs a chunk.)
    return encoded if sys.getsizeof(encoded) < sys.getsizeof(block) else block


class PartList:
    """A list of parts (``len``, indexing, slices, iteration, ``==``) that appends."""

    __slots__ = (
        "_blocks",
        "_starts",
        "_blocked",
        "_pending",
        "_pending_size",
        "_length",
        "_ends",
        "_kept",
        "_kept_at",
        "_other_size",
        "_decoded",
        "_spill",
    )

    def __init__(self, parts: Iterable[Any] = (), spill: SpillFile | None = None) -> None:
        #: The text so far: pieces of about BLOCK characters (one, after text()), each a
        #: string or its UTF-8 (_compact), or, with a spill file, where its UTF-8 went
        #: there (offset, bytes); where each starts, and how many characters they hold ...
        self._blocks: list[str | bytes | tuple[int, int]] = []
        self._spill = spill
        self._starts: list[int] = []
        self._blocked = 0
        #: ... and what arrived since, not yet joined into a block (a string object per
        #: chunk costs more than most chunks' text).
        self._pending: list[str] = []
        self._pending_size = 0
        self._length = 0
        #: Per part: the length of the text up to and including its own.
        self._ends = array("q")
        #: Index -> a part kept whole (anything but plain text), and those indexes in order.
        self._kept: dict[int, Any] = {}
        self._kept_at = array("q")
        self._other_size = 0
        #: The UTF-8 block read last and its text: a view draws rows of one block.
        self._decoded: tuple[bytes | tuple[int, int], str] | None = None
        self.extend(parts)

    def extend(self, parts: Iterable[Any]) -> None:
        ends = self._ends
        for part in parts:
            if part.__class__ is TextPart:
                text = part.__dict__["text"]
                self._pending.append(text)
                self._length += len(text)
                self._pending_size += len(text)
                if self._pending_size > BLOCK:
                    self._close_block()
                if part.__dict__["metadata"] is not None or part.__pydantic_extra__:
                    self._kept[len(ends)] = part
                    self._kept_at.append(len(ends))
            else:
                self._kept[len(ends)] = part
                self._kept_at.append(len(ends))
                self._other_size += content_size(part)
            ends.append(self._length)

    def append(self, part: Any) -> None:
        self.extend((part,))

    def add_text(self, text: str) -> int:
        """Append a plain text part (no metadata, no keys of its own) given by its text:
        the commonest chunk, without the checks extend makes. Returns its position."""
        self._pending.append(text)
        n = len(text)
        self._length += n
        self._pending_size += n
        if self._pending_size > BLOCK:
            self._close_block()
        ends = self._ends
        ends.append(self._length)
        return len(ends) - 1

    def _close_block(self) -> None:
        block = "".join(self._pending)
        self._starts.append(self._blocked)
        spill = self._spill
        if spill is None:
            self._blocks.append(_compact(block))
        else:
            data = block.encode("utf-8", "surrogatepass")
            self._blocks.append((spill.write(data), len(data)))
        self._blocked += len(block)
        self._pending, self._pending_size = [], 0

    def _block(self, index: int) -> str:
        """Block ``index`` as a string."""
        block = self._blocks[index]
        if block.__class__ is str:
            return block
        decoded = self._decoded
        if decoded is None or decoded[0] is not block:
            # Not a str: _compact's UTF-8, or (offset, length) in the spill file.
            stored = cast("bytes | tuple[int, int]", block)
            if isinstance(stored, tuple):
                assert self._spill is not None  # a block spilled has a file to be read from
                data = self._spill.read(*stored)
            else:
                data = stored
            decoded = self._decoded = (stored, data.decode("utf-8", "surrogatepass"))
        return decoded[1]

    def text(self) -> str:
        """Every text part's text, in order, as one string (kept: no copy per call).
        This joins what arrived since the last call to all before it: a view that reads
        a growing artifact again and again reads :meth:`slice` instead."""
        blocks = self._blocks
        if self._pending:
            self._close_block()
        if len(blocks) > 1 or (blocks and blocks[0].__class__ is not str):
            blocks[:] = ["".join([self._block(i) for i in range(len(blocks))])]
            self._starts[:] = [0]
            self._decoded = None
        return cast(str, blocks[0]) if blocks else ""  # joined just above: one block, a str

    def slice(self, a: int, b: int) -> str:
        """``text()[a:b]``, without joining the whole text: what is new since the last
        frame costs what it holds."""
        a = max(0, a)
        b = min(b, self._length)
        if a >= b:
            return ""
        blocked = self._blocked
        if a >= blocked:
            pending = self._pending
            if len(pending) > 1:
                pending[:] = ["".join(pending)]
            return pending[0][a - blocked : b - blocked]
        blocks, starts = self._blocks, self._starts
        index = bisect_right(starts, a) - 1
        out: list[str] = []
        pos = a
        while pos < b and index < len(blocks):
            start = starts[index]
            block = self._block(index)
            out.append(block[pos - start : b - start])
            pos = start + len(block)
            index += 1
        if pos < b:
            out.append(self.slice(pos, b))
        return out[0] if len(out) == 1 else "".join(out)

    def pieces(self, a: int = 0, b: int | None = None, size: int = BLOCK) -> Iterator[str]:
        """``text()[a:b]`` in order, in pieces of at most ``size`` characters, without
        joining the whole text: what prints a long artifact holds one piece at a time."""
        b = self._length if b is None else min(b, self._length)
        for at in range(max(0, a), b, size):
            yield self.slice(at, min(at + size, b))

    def each(self, window: int = 4096) -> Iterator[Any]:
        """Every part, in order, like iterating, but reading the text ``window`` parts at
        a time: iterating joins the whole text once (and keeps it), this holds a
        window's."""
        n = len(self._ends)
        for first in range(0, n, window):
            yield from PartRange(self, range(first, min(first + window, n)))

    @property
    def spill(self) -> SpillFile | None:
        """Where closed blocks of text go, if anywhere (an artifact that starts over keeps it)."""
        return self._spill

    @property
    def text_length(self) -> int:
        return self._length

    def size(self) -> int:
        """Content size of all parts (see content_size)."""
        return self._length + self._other_size

    def __len__(self) -> int:
        return len(self._ends)

    def _part(self, i: int, text: str, offset: int = 0) -> Any:
        """Part ``i``; ``text`` is the text from ``offset`` on (enough to hold part i's)."""
        kept = self._kept.get(i)
        if kept is not None:
            return kept
        ends = self._ends
        return TextPart(text=text[(ends[i - 1] if i else 0) - offset : ends[i] - offset])

    def _span(self, first: int, stop: int) -> tuple[str, int]:
        """The text of parts ``first`` to ``stop`` (exclusive) and where it starts."""
        ends = self._ends
        a = ends[first - 1] if first else 0
        return self.slice(a, ends[stop - 1] if stop > first else a), a

    @overload
    def __getitem__(self, index: int) -> Any: ...

    @overload
    def __getitem__(self, index: builtins.slice) -> list[Any]: ...

    def __getitem__(self, index: Any) -> Any:
        n = len(self._ends)
        if index.__class__ is slice:
            return PartRange(self, range(*index.indices(n)))
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError("part index out of range")
        return self._part(index, *self._span(index, index + 1))

    def __iter__(self) -> Iterator[Any]:
        text = self.text()
        for i in range(len(self._ends)):
            yield self._part(i, text)

    def runs(self) -> Iterator[Any]:
        """The parts with every run of consecutive text parts as one string (a slice of
        text()): what a reader sees, without building a part per chunk."""
        text = self.text()
        ends = self._ends
        kept = self._kept
        start = 0  # where the current text run starts in text
        pos = 0  # text consumed so far
        for i in range(len(ends)):
            part = kept.get(i)
            if part is None or part.__class__ is TextPart:
                pos = ends[i]
                continue
            if pos > start:
                yield text[start:pos]
            yield part
            start = pos
        if pos > start:
            yield text[start:pos]

    def spans(self, first: int, stop: int) -> Iterator[Any]:
        """Parts ``first`` to ``stop`` (exclusive) as a reader sees them, without building
        a part per chunk: each run of text parts as the ``(start, end)`` of its text in
        text(), each other part as it came."""
        ends = self._ends
        stop = min(stop, len(ends))
        a = ends[first - 1] if first else 0
        kept_at = self._kept_at
        kept = self._kept
        at = bisect_left(kept_at, first)
        while at < len(kept_at) and kept_at[at] < stop:
            i = kept_at[at]
            at += 1
            part = kept[i]
            if part.__class__ is TextPart:
                continue  # its text is in text(): part of the run
            start = ends[i - 1] if i else 0
            if start > a:
                yield (a, start)
            yield part
            a = ends[i]
        end = ends[stop - 1] if stop > first else a
        if end > a:
            yield (a, end)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (list, PartList, PartRange)):
            if len(self) != len(other):
                return False
            return all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # unhashable (equal by contents); typeshed has a method

    def __repr__(self) -> str:
        return f"PartList({list(self)!r})"


class PartRange:
    """A slice of a PartList, read lazily: iterating over the parts of a long artifact
    builds one part at a time, not a list of them all. ``==`` compares with lists."""

    __slots__ = ("_parts", "_range")

    def __init__(self, parts: PartList, positions: range) -> None:
        self._parts = parts
        self._range = positions

    def __len__(self) -> int:
        return len(self._range)

    def __iter__(self) -> Iterator[Any]:
        parts = self._parts
        positions = self._range
        if not positions:
            return
        if positions.step == 1:
            # Only this range's text: the new parts of a growing artifact, read each frame.
            text, offset = parts._span(positions.start, positions.stop)
        else:
            text, offset = parts.text(), 0
        for i in positions:
            yield parts._part(i, text, offset)

    def __getitem__(self, index: Any) -> Any:
        if index.__class__ is slice:
            return PartRange(self._parts, self._range[index])
        i = self._range[index]
        return self._parts._part(i, *self._parts._span(i, i + 1))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (list, PartList, PartRange)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # unhashable (equal by contents); typeshed has a method

    def __repr__(self) -> str:
        return repr(list(self))
