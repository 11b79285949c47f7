"""The chunks an artifact arrived in, kept as columns of numbers.

A streamed artifact has one chunk per event; a ``Chunk`` object per chunk (with its
parts list) would cost about 300 bytes beside the text, which the artifact's parts hold
already. ``ChunkLog`` keeps each chunk's facts as numbers in typed columns, each as
narrow as its values allow (about 22 bytes a chunk: a million-chunk stream is one of
the larger things a session holds), and builds a ``Chunk`` when one is read, its parts
taken from the artifact (a duplicate's parts are, by definition, the ones already at
its position). Before an artifact starts over, the chunks that came before keep their
parts themselves (``detach``).
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, overload

if TYPE_CHECKING:
    from .parts import PartList

_FLAG = {None: 0, False: 1, True: 2}
#: Whole numbers kept per chunk: seq, flags (append + 3 * last_chunk + 9 * dup, each
#: None/False/True as 0/1/2), size, exchange, pos, part count.
WIDTH = 6
_UNFLAG = (None, False, True)
#: Chunks appended to the tail (one ``extend`` each, the cheapest append) before they
#: move to the narrow columns together.
TAIL = 1024
#: The first type of each column (seq, flags, size, exchange, pos, count), widened
#: along WIDER when a value does not fit.
_NARROW = ("I", "B", "H", "H", "I", "B")
WIDER = {"B": "H", "H": "I", "I": "q"}


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
    """A list of ``Chunk`` (``len``, indexing, slices, iteration, ``==``) that appends.

    Appending is ``tail.extend((seq, flags, size, exchange, pos, count))`` and
    ``times.append(t)``, then ``settle()`` once the tail holds ``TAIL`` chunks (the
    tracker's ``ArtifactView.add_next`` inlines this for the commonest chunk)."""

    __slots__ = ("tail", "times", "_cols", "_settled", "_parts", "_source")

    def __init__(self, source: PartList | None = None) -> None:
        #: The newest chunks' whole numbers, WIDTH a chunk (see _NARROW for the order).
        self.tail = array("q")
        #: Every chunk's time (the event's t, exactly).
        self.times = array("d")
        #: The older chunks' whole numbers: a column each, as narrow as its values allow.
        self._cols = [array(code) for code in _NARROW]
        self._settled = 0
        #: Index -> parts, for chunks whose parts are no longer in the artifact's list.
        self._parts: dict[int, Any] = {}
        #: The artifact's parts (where a chunk's parts are read from).
        self._source = source

    def add(
        self,
        seq: int,
        t: float,
        append: bool | None,
        last_chunk: bool | None,
        parts: Any,
        size: int,
        exchange: int,
        pos: int,
        dup: bool = False,
    ) -> None:
        self.tail.extend(
            (seq, _FLAG[append] + 3 * _FLAG[last_chunk] + (9 if dup else 0), size, exchange, pos, len(parts))
        )
        self.times.append(t)
        if len(self.tail) >= TAIL * WIDTH:
            self.settle()

    def settle(self) -> None:
        """Move the tail's chunks to the narrow columns."""
        tail = self.tail
        if not tail:
            return
        cols = self._cols
        for k in range(WIDTH):
            col = cols[k]
            values = tail[k::WIDTH]
            while True:
                try:
                    col.extend(array(col.typecode, values))
                    break
                except OverflowError:
                    # A value too big (or negative) for this width: the column widens
                    # for good, its values as they were.
                    col = cols[k] = array(WIDER.get(col.typecode, "q"), col)
                    if col.typecode == "q":
                        col.extend(values)
                        break
        self._settled += len(tail) // WIDTH
        self.tail = array("q")

    def append(self, chunk: Chunk) -> None:
        self.add(
            chunk.seq,
            chunk.t,
            chunk.append,
            chunk.last_chunk,
            chunk.parts,
            chunk.size,
            chunk.exchange,
            chunk.pos,
            chunk.dup,
        )
        self._parts[len(self) - 1] = list(chunk.parts)

    def attach(self, source: PartList) -> None:
        """Read the parts of chunks added from now on from ``source``."""
        self._source = source

    def detach(self) -> None:
        """The artifact is about to start over: chunks so far keep their parts themselves."""
        source = self._source
        if source is None:
            return
        parts = self._parts
        n = len(source)
        for i in range(len(self)):
            if i not in parts:
                pos, count = self._int(i, 4), self._int(i, 5)
                parts[i] = source[pos : pos + count] if pos + count <= n else []

    # ------------------------------------------------------------------ reading

    def __len__(self) -> int:
        return len(self.times)

    def __bool__(self) -> bool:
        return len(self.times) > 0

    def _int(self, i: int, k: int) -> int:
        """Whole number ``k`` (see _NARROW) of chunk ``i``."""
        at = i - self._settled
        if at >= 0:
            return self.tail[at * WIDTH + k]
        return self._cols[k][i]

    def seq(self, i: int) -> int:
        return self._int(i, 0)

    def exchange(self, i: int) -> int:
        return self._int(i, 3)

    def dup(self, i: int) -> bool:
        return self._int(i, 1) >= 9

    def end(self, i: int) -> int:
        """Where chunk ``i``'s parts end in the artifact."""
        return self._int(i, 4) + self._int(i, 5)

    def _chunk(self, i: int) -> Chunk:
        at = i - self._settled
        if at >= 0:
            seq, flags, size, exchange, pos, count = self.tail[at * WIDTH : (at + 1) * WIDTH]
        else:
            seq, flags, size, exchange, pos, count = (col[i] for col in self._cols)
        parts = self._parts.get(i)
        if parts is None:
            parts = self._source[pos : pos + count] if self._source is not None else []
        return Chunk(
            seq, self.times[i], _UNFLAG[flags % 3], _UNFLAG[flags // 3 % 3], parts, size, exchange, pos, flags >= 9
        )

    @overload
    def __getitem__(self, index: int) -> Chunk: ...

    @overload
    def __getitem__(self, index: slice) -> list[Chunk]: ...

    def __getitem__(self, index: Any) -> Any:
        n = len(self)
        if index.__class__ is slice:
            return [self._chunk(i) for i in range(*index.indices(n))]
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError("chunk index out of range")
        return self._chunk(index)

    def __iter__(self) -> Iterator[Chunk]:
        for i in range(len(self)):
            yield self._chunk(i)

    def __reversed__(self) -> Iterator[Chunk]:
        for i in range(len(self) - 1, -1, -1):
            yield self._chunk(i)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (list, ChunkLog)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # unhashable (equal by contents); typeshed has a method

    def __repr__(self) -> str:
        return f"<ChunkLog of {len(self)} chunks>"
