"""An artifact's parts, with all its text held once, as one string.

A streamed artifact is thousands of text parts of a few dozen characters each; held as
models, each would cost about 700 bytes beside its text, and the artifact's text joined
for the views would be a second copy. ``PartList`` keeps the text of every text part in
one string (``text()``, which the views read and share) and, per part, only where its
text ends (8 bytes). A part that is more than plain text (a file, data, a text part with
metadata or keys of its own) is kept as it came. Reading a part builds it again: equal
to the one that arrived, not the same object.
"""

from __future__ import annotations

import json
from array import array
from collections.abc import Iterable, Iterator
from typing import Any, overload

from ..protocol.models import DataPart, FilePart, TextPart


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


class PartList:
    """A list of parts (``len``, indexing, slices, iteration, ``==``) that appends."""

    __slots__ = ("_blocks", "_pending", "_pending_size", "_length", "_ends", "_kept", "_other_size")

    def __init__(self, parts: Iterable[Any] = ()) -> None:
        #: The text so far: pieces of about BLOCK characters (one, after text()) ...
        self._blocks: list[str] = []
        #: ... and what arrived since, not yet joined into a block (a string object per
        #: chunk costs more than most chunks' text).
        self._pending: list[str] = []
        self._pending_size = 0
        self._length = 0
        #: Per part: the length of the text up to and including its own.
        self._ends = array("q")
        #: Index -> a part kept whole (anything but plain text).
        self._kept: dict[int, Any] = {}
        self._other_size = 0
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
                    self._blocks.append("".join(self._pending))
                    self._pending, self._pending_size = [], 0
                if part.__dict__["metadata"] is not None or part.__pydantic_extra__:
                    self._kept[len(ends)] = part
            else:
                self._kept[len(ends)] = part
                self._other_size += content_size(part)
            ends.append(self._length)

    def append(self, part: Any) -> None:
        self.extend((part,))

    def add_text(self, text: str) -> None:
        """Append a plain text part (no metadata, no keys of its own) given by its text:
        the commonest chunk, without the checks extend makes."""
        self._pending.append(text)
        n = len(text)
        self._length += n
        pending = self._pending_size + n
        if pending > BLOCK:
            self._blocks.append("".join(self._pending))
            self._pending, pending = [], 0
        self._pending_size = pending
        self._ends.append(self._length)

    def text(self) -> str:
        """Every text part's text, in order, as one string (kept: no copy per call)."""
        blocks = self._blocks
        if self._pending:
            blocks.append("".join(self._pending))
            self._pending, self._pending_size = [], 0
        if len(blocks) > 1:
            blocks[:] = ["".join(blocks)]
        return blocks[0] if blocks else ""

    @property
    def text_length(self) -> int:
        return self._length

    def size(self) -> int:
        """Content size of all parts (see content_size)."""
        return self._length + self._other_size

    def __len__(self) -> int:
        return len(self._ends)

    def _part(self, i: int, text: str) -> Any:
        kept = self._kept.get(i)
        if kept is not None:
            return kept
        ends = self._ends
        return TextPart(text=text[ends[i - 1] if i else 0:ends[i]])

    @overload
    def __getitem__(self, index: int) -> Any: ...

    @overload
    def __getitem__(self, index: slice) -> list[Any]: ...

    def __getitem__(self, index: Any) -> Any:
        n = len(self._ends)
        if index.__class__ is slice:
            return PartRange(self, range(*index.indices(n)))
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError("part index out of range")
        return self._part(index, self.text())

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
        pos = 0    # text consumed so far
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

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (list, PartList, PartRange)):
            if len(self) != len(other):
                return False
            return all(a == b for a, b in zip(self, other))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

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
        text = parts.text()
        for i in self._range:
            yield parts._part(i, text)

    def __getitem__(self, index: Any) -> Any:
        if index.__class__ is slice:
            return PartRange(self._parts, self._range[index])
        return self._parts._part(self._range[index], self._parts.text())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (list, PartList, PartRange)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(list(self))
