"""What a stream relay holds for its reader: the agent's items in order, at most AHEAD
of them in memory, the rest in a private spill file.

An agent may stream far faster than the hub's caller reads (a client on a slow link, or
one that holds its stream open and reads nothing). Holding the agent back instead (not
reading its socket) would hold back its other tasks and its heartbeats, and the
WebSocket layer's pings would go unanswered behind the backlog; so the hub reads on, and
what the reader has not taken goes to disk as the item's JSON (about 12 bytes of memory
an item for where it is). Read back, an item is an equal model, not the same object.
"""

from __future__ import annotations

import asyncio
from array import array
from collections import deque
from typing import Any

from ..protocol import models as m
from ..session.spill import SpillFile

#: Items held in memory for the reader, and the most frame bytes they may have come
#: in (a frame may be 4 MiB); later ones wait on disk until it catches up.
AHEAD = 1024
AHEAD_BYTES = 8 * 1024 * 1024
#: The models an agent's items are, by the byte that tags them on disk.
_KINDS: tuple[type[Any], ...] = (m.TaskArtifactUpdateEvent, m.TaskStatusUpdateEvent, m.Task, m.Message)


class Backlog:
    """A FIFO queue with ``put`` and ``await get()``."""

    def __init__(self) -> None:
        #: (item, its size) held in memory, and their sizes' sum.
        self._mem: deque[tuple[Any, int]] = deque()
        self._held = 0
        #: Items on disk, oldest first: where each starts, its length, its model.
        self._offsets = array("q")
        self._lengths = array("l")
        self._kinds = array("b")
        self._next = 0
        #: Items that came while others waited on disk, kept as they are (they cannot be
        #: written: the relay's own ending, a failure): they follow the disk's.
        self._after: list[Any] = []
        self._file: SpillFile | None = None
        self._ready = asyncio.Event()

    def __len__(self) -> int:
        return len(self._mem) + len(self._offsets) - self._next + len(self._after)

    @property
    def on_disk(self) -> int:
        return len(self._offsets) - self._next

    def put(self, item: Any, size: int = 0) -> None:
        """``size``: about what the item takes (the bytes of the frame it came in)."""
        if self.on_disk or len(self._mem) >= AHEAD or self._held + size > AHEAD_BYTES:
            kind = _KINDS.index(item.__class__) if item.__class__ in _KINDS else -1
            if kind >= 0 and not self._after:
                self._write(kind, item)
            else:
                self._after.append(item)
        else:
            self._mem.append((item, size))
            self._held += size
        self._ready.set()

    def _write(self, kind: int, item: Any) -> None:
        if self._file is None:
            self._file = SpillFile()
        data = item.model_dump_json(by_alias=True).encode("utf-8", "surrogatepass")
        self._offsets.append(self._file.write(data))
        self._lengths.append(len(data))
        self._kinds.append(kind)

    async def get(self) -> Any:
        while True:
            if self._mem:
                item, size = self._mem.popleft()
                self._held -= size
                if not self._mem and self.on_disk:
                    self._refill()
                return item
            if self.on_disk:
                self._refill()
                continue
            if self._after:
                self._mem.extend((item, 0) for item in self._after)
                self._after.clear()
                continue
            self._ready.clear()
            await self._ready.wait()

    def _refill(self) -> None:
        """Up to AHEAD // 2 items (and AHEAD_BYTES // 2 of them) from disk into memory,
        in one read."""
        assert self._file is not None
        start = self._next
        stop = start + 1
        budget = self._lengths[start]
        end = min(len(self._offsets), start + max(1, AHEAD // 2))
        while stop < end and budget + self._lengths[stop] <= AHEAD_BYTES // 2:
            budget += self._lengths[stop]
            stop += 1
        first = self._offsets[start]
        blob = self._file.read(first, self._offsets[stop - 1] + self._lengths[stop - 1] - first)
        for k in range(start, stop):
            at, length = self._offsets[k] - first, self._lengths[k]
            self._mem.append((_KINDS[self._kinds[k]].model_validate_json(blob[at : at + length]), length))
            self._held += length
        self._next = stop
        if stop == len(self._offsets):
            # All read: the file starts again empty (its bytes are no longer needed).
            self._file.close()
            self._file = None
            self._offsets, self._lengths, self._kinds, self._next = array("q"), array("l"), array("b"), 0
            self._mem.extend((item, 0) for item in self._after)
            self._after.clear()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
