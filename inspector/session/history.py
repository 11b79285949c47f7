"""A task's conversation, with its older messages on disk when it grows long.

An agent that streams tokens as status messages sends one message per token: a task
can hold hundreds of thousands of them, about 2 KB each as models. ``MessageLog`` holds
the newest ``keep`` in memory and writes older ones, as JSON, to a private spill file
shared by the tracker's tasks (``HistorySpill``); reading one back decodes it again (an
equal message, not the same object). Without a spill it is a plain list.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator
from typing import Any, overload

from ..protocol.models import Message
from .spill import SpillFile

#: How many messages beyond ``keep`` pile up before the oldest go to disk in one batch.
SPILL_BATCH = 1024


class HistorySpill:
    """Where the tracker's tasks put the messages they no longer hold: ``keep`` is how
    many each task holds in memory."""

    def __init__(self, keep: int) -> None:
        self.keep = keep
        self.file = SpillFile()

    def close(self) -> None:
        self.file.close()


class MessageLog:
    """A list of messages (``len``, indexing, slices, iteration, ``append``, ``==``)."""

    __slots__ = ("_mem", "_offsets", "_lengths", "_spill")

    def __init__(self, messages: Iterable[Message] = (), spill: HistorySpill | None = None) -> None:
        self._mem: list[Message] = []
        #: Where each spilled message starts in the spill file (they are the oldest).
        self._offsets = array("q")
        self._lengths = array("l")
        self._spill = spill
        for msg in messages:
            self.append(msg)

    def append(self, msg: Message) -> None:
        mem = self._mem
        mem.append(msg)
        spill = self._spill
        if spill is not None and len(mem) >= spill.keep + SPILL_BATCH:
            self._write(len(mem) - spill.keep)

    def _write(self, count: int) -> None:
        spill = self._spill
        assert spill is not None
        out = self._mem[:count]
        lines = [msg.model_dump_json().encode("utf-8", "surrogatepass") + b"\n" for msg in out]
        at = spill.file.write(b"".join(lines))
        # Tasks share the file: a task's batches are not next to each other.
        for line in lines:
            self._offsets.append(at)
            self._lengths.append(len(line))
            at += len(line)
        del self._mem[:count]

    def _read(self, i: int) -> Message:
        assert self._spill is not None
        return Message.model_validate_json(self._spill.file.read(self._offsets[i], self._lengths[i]))

    @property
    def in_memory(self) -> int:
        return len(self._mem)

    def __len__(self) -> int:
        return len(self._offsets) + len(self._mem)

    def __bool__(self) -> bool:
        return bool(self._mem) or bool(self._offsets)

    @overload
    def __getitem__(self, index: int) -> Message: ...

    @overload
    def __getitem__(self, index: slice) -> list[Message]: ...

    def __getitem__(self, index: Any) -> Any:
        n = len(self)
        if index.__class__ is slice:
            return [self[i] for i in range(*index.indices(n))]
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError("message index out of range")
        spilled = len(self._offsets)
        return self._mem[index - spilled] if index >= spilled else self._read(index)

    def __iter__(self) -> Iterator[Message]:
        for i in range(len(self._offsets)):
            yield self._read(i)
        yield from list(self._mem)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (list, MessageLog)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # unhashable (equal by contents); typeshed has a method

    def __repr__(self) -> str:
        return f"MessageLog({list(self)!r})"
