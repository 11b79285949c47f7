"""The chunks an artifact arrived in, kept as columns of numbers.

A streamed artifact has one chunk per event; a ``Chunk`` object per chunk (with its
parts list) would cost about 300 bytes beside the text, which the artifact's parts hold
already. ``ChunkLog`` keeps each chunk's facts as numbers in one array (56 bytes a chunk) and
builds a ``Chunk`` when one is read, its parts taken from the artifact (a duplicate's
parts are, by definition, the ones already at its position). Before an artifact starts
over, the chunks that came before keep their parts themselves (``detach``).
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, overload

if TYPE_CHECKING:
    from .parts import PartList

_FLAG = {None: 0, False: 1, True: 2}
#: Numbers kept per chunk.
WIDTH = 7
_UNFLAG = (None, False, True)


@dataclass(slots=True)
class Chunk:
    seq: int
    t: float
    append: bool | None
    last_chunk: bool | None
    parts: list[Any]
    #: Content size: characters of text, decoded bytes of inline files, JSON length of data.
    size: int
    exchange: int = 0
    #: Where its parts sit in the artifact (for a duplicate: where they already were).
    pos: int = 0
    #: Delivered before by another source (or re-sent): shown, not assembled again.
    dup: bool = False


class ChunkLog:
    """A list of ``Chunk`` (``len``, indexing, slices, iteration, ``==``) that appends."""

    __slots__ = ("_cols", "_parts", "_source")

    def __init__(self, source: "PartList | None" = None) -> None:
        #: Per chunk, WIDTH numbers: seq, t, flags (append + 3 * last_chunk + 9 * dup, each
        #: None/False/True as 0/1/2), size, exchange, pos, part count. Doubles hold them
        #: all exactly, and one extend per chunk is the cheapest append.
        self._cols = array("d")
        #: Index -> parts, for chunks whose parts are no longer in the artifact's list.
        self._parts: dict[int, Any] = {}
        #: The artifact's parts (where a chunk's parts are read from).
        self._source = source

    def add(self, seq: int, t: float, append: bool | None, last_chunk: bool | None, parts: Any,
            size: int, exchange: int, pos: int, dup: bool = False) -> None:
        self._cols.extend((seq, t, _FLAG[append] + 3 * _FLAG[last_chunk] + (9 if dup else 0), size, exchange,
                           pos, len(parts)))

    def append(self, chunk: "Chunk") -> None:
        self.add(chunk.seq, chunk.t, chunk.append, chunk.last_chunk, chunk.parts, chunk.size,
                 chunk.exchange, chunk.pos, chunk.dup)
        self._parts[len(self) - 1] = list(chunk.parts)

    def attach(self, source: "PartList") -> None:
        """Read the parts of chunks added from now on from ``source``."""
        self._source = source

    def detach(self) -> None:
        """The artifact is about to start over: chunks so far keep their parts themselves."""
        source = self._source
        if source is None:
            return
        parts = self._parts
        n = len(source)
        cols = self._cols
        for i in range(len(self)):
            if i not in parts:
                pos, count = int(cols[i * WIDTH + 5]), int(cols[i * WIDTH + 6])
                parts[i] = source[pos:pos + count] if pos + count <= n else []

    # ------------------------------------------------------------------ reading

    def __len__(self) -> int:
        return len(self._cols) // WIDTH

    def __bool__(self) -> bool:
        return len(self._cols) > 0

    def seq(self, i: int) -> int:
        return int(self._cols[i * WIDTH])

    def exchange(self, i: int) -> int:
        return int(self._cols[i * WIDTH + 4])

    def dup(self, i: int) -> bool:
        return self._cols[i * WIDTH + 2] >= 9

    def end(self, i: int) -> int:
        """Where chunk ``i``'s parts end in the artifact."""
        at = i * WIDTH
        return int(self._cols[at + 5] + self._cols[at + 6])

    def _chunk(self, i: int) -> Chunk:
        seq, t, flags, size, exchange, pos, count = self._cols[i * WIDTH:(i + 1) * WIDTH]
        pos, count, flags = int(pos), int(count), int(flags)
        parts = self._parts.get(i)
        if parts is None:
            parts = self._source[pos:pos + count] if self._source is not None else []
        return Chunk(int(seq), t, _UNFLAG[flags % 3], _UNFLAG[flags // 3 % 3], parts, int(size), int(exchange),
                     pos, flags >= 9)

    @overload
    def __getitem__(self, index: int) -> "Chunk": ...

    @overload
    def __getitem__(self, index: slice) -> list["Chunk"]: ...

    def __getitem__(self, index: Any) -> Any:
        n = len(self)
        if index.__class__ is slice:
            return [self._chunk(i) for i in range(*index.indices(n))]
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError("chunk index out of range")
        return self._chunk(index)

    def __iter__(self) -> Iterator["Chunk"]:
        for i in range(len(self)):
            yield self._chunk(i)

    def __reversed__(self) -> Iterator["Chunk"]:
        for i in range(len(self) - 1, -1, -1):
            yield self._chunk(i)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (list, ChunkLog)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<ChunkLog of {len(self)} chunks>"
