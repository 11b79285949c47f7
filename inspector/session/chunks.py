"""The chunks an artifact arrived in, kept as columns of numbers.

A streamed artifact has one chunk per event; a ``Chunk`` object per chunk (with its
parts list) would cost about 300 bytes beside the text, which the artifact's parts hold
already. ``ChunkLog`` keeps each chunk's facts in arrays (about 45 bytes a chunk) and
builds a ``Chunk`` when one is read, its parts taken from the artifact (a duplicate's
parts are, by definition, the ones already at its position). Before an artifact starts
over, the chunks that came before keep their parts themselves (``detach``).
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, overload

if TYPE_CHECKING:
    from .parts import PartList
    from .tracker import Chunk

_FLAG = {None: 0, False: 1, True: 2}
_UNFLAG = (None, False, True)


class ChunkLog:
    """A list of ``Chunk`` (``len``, indexing, slices, iteration, ``==``) that appends."""

    __slots__ = ("_seq", "_t", "_flags", "_size", "_exchange", "_pos", "_count", "_parts", "_source")

    def __init__(self, source: "PartList | None" = None) -> None:
        self._seq = array("q")
        self._t = array("d")
        #: append + 3 * last_chunk + 9 * dup (each None/False/True as 0/1/2).
        self._flags = array("B")
        self._size = array("q")
        self._exchange = array("q")
        self._pos = array("q")
        self._count = array("l")
        #: Index -> parts, for chunks whose parts are no longer in the artifact's list.
        self._parts: dict[int, list[Any]] = {}
        #: The artifact's parts (where a chunk's parts are read from).
        self._source = source

    def add(self, seq: int, t: float, append: bool | None, last_chunk: bool | None, parts: list[Any],
            size: int, exchange: int, pos: int, dup: bool = False) -> None:
        self._seq.append(seq)
        self._t.append(t)
        self._flags.append(_FLAG[append] + 3 * _FLAG[last_chunk] + (9 if dup else 0))
        self._size.append(size)
        self._exchange.append(exchange)
        self._pos.append(pos)
        self._count.append(len(parts))

    def append(self, chunk: "Chunk") -> None:
        self.add(chunk.seq, chunk.t, chunk.append, chunk.last_chunk, chunk.parts, chunk.size,
                 chunk.exchange, chunk.pos, chunk.dup)
        self._parts[len(self._seq) - 1] = list(chunk.parts)

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
        for i in range(len(self._seq)):
            if i not in parts:
                pos, count = self._pos[i], self._count[i]
                parts[i] = source[pos:pos + count] if pos + count <= n else []

    # ------------------------------------------------------------------ reading

    def __len__(self) -> int:
        return len(self._seq)

    def __bool__(self) -> bool:
        return len(self._seq) > 0

    def seq(self, i: int) -> int:
        return self._seq[i]

    def exchange(self, i: int) -> int:
        return self._exchange[i]

    def dup(self, i: int) -> bool:
        return self._flags[i] >= 9

    def end(self, i: int) -> int:
        """Where chunk ``i``'s parts end in the artifact."""
        return self._pos[i] + self._count[i]

    def _chunk(self, i: int) -> "Chunk":
        from .tracker import Chunk

        parts = self._parts.get(i)
        if parts is None:
            pos, count = self._pos[i], self._count[i]
            parts = self._source[pos:pos + count] if self._source is not None else []
        flags = self._flags[i]
        return Chunk(self._seq[i], self._t[i], _UNFLAG[flags % 3], _UNFLAG[flags // 3 % 3], parts,
                     self._size[i], self._exchange[i], self._pos[i], flags >= 9)

    @overload
    def __getitem__(self, index: int) -> "Chunk": ...

    @overload
    def __getitem__(self, index: slice) -> list["Chunk"]: ...

    def __getitem__(self, index: Any) -> Any:
        n = len(self._seq)
        if index.__class__ is slice:
            return [self._chunk(i) for i in range(*index.indices(n))]
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError("chunk index out of range")
        return self._chunk(index)

    def __iter__(self) -> Iterator["Chunk"]:
        for i in range(len(self._seq)):
            yield self._chunk(i)

    def __reversed__(self) -> Iterator["Chunk"]:
        for i in range(len(self._seq) - 1, -1, -1):
            yield self._chunk(i)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (list, ChunkLog)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<ChunkLog of {len(self)} chunks>"
