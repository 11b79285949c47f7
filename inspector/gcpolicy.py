"""How the cyclic garbage collector runs in a long-lived inspector process.

A live session keeps its newest events (a million by default), one GC-tracked object
each (the Event: its raw text, numbers and payload-less slots are not tracked), and the
tracker keeps its projections in arrays and strings. CPython's collector (3.11, 3.12)
still rescans the *whole* heap every time it has grown by a quarter, so a long stream
pays again and again for objects that are plainly alive: under CPython's settings,
bench/ingest ran 37% slower (11.7 against 8.5 µs an event, 50,000 events kept). The
streaming path itself makes no garbage cycles at all.

The policy (``install()``):

* **Freeze after each collection.** Once a collection has run, ``gc.freeze()`` moves the
  survivors to the permanent generation, which collections skip. Cycles among new
  objects are still found and freed as usual, since an object is frozen only after a
  collection has looked at it; reference counting frees everything that is not in a
  cycle, frozen or not. (Young collections then look only at what is new: measured, it
  made no difference to skip some of them, or to raise their threshold, so neither is
  done.)
* **Whole-heap collections on a budget.** A frozen object is never looked at again, so
  an object that was alive when frozen and later became part of an unreachable cycle
  (a closed connection, removed widgets, a dropped Session whose listeners point back
  at it) stays in memory until the policy unfreezes everything and lets the next full
  collection look at the whole heap. It does that when the heap (pymalloc blocks) has
  doubled (``GROWTH``) since the last whole-heap collection, or ``MAX_CPU`` seconds of
  CPU time have passed since, and in either case only once enough CPU time has passed
  for the collection (its cost is estimated from the last one, scaled by the heap) to
  take at most ``BUDGET`` (2%) of it. Then it freezes again.

  So whole-heap collections take at most about 2% of the CPU time, and frozen garbage
  waits until the heap has doubled, or a minute of CPU time has passed, whichever
  comes first (and the budget allows). That is the price of the policy: garbage
  cycles can occupy up to about as much memory as was alive at the last whole-heap
  collection, for a while. ``reclaim()`` collects the whole heap at once, for moments
  known to leave big garbage behind (the app closing a session or a connection).

``install()`` is process-wide and idempotent; the CLI and the TUI call it at start-up,
and bench/ingest calls it too, so that it measures what the app runs. ``uninstall()``
restores CPython's settings (tests).
"""

from __future__ import annotations

import gc
import sys
import time
from typing import Any

#: A whole-heap collection once the heap (pymalloc blocks) has grown by this factor ...
GROWTH = 2.0
#: ... or this much CPU time has passed since the last one ...
MAX_CPU = 60.0
#: ... and only if it takes at most this share of the CPU time since the last one.
BUDGET = 0.02

# Bound once: the callback may run late in interpreter shutdown.
_process_time = time.process_time
_blocks = sys.getallocatedblocks
_freeze = gc.freeze
_unfreeze = gc.unfreeze

_state: "_Policy | None" = None


class _Policy:
    __slots__ = ("saved", "growth", "budget", "max_cpu", "pending", "t_start", "cost",
                 "blocks", "rate", "since", "next_check", "counts")

    def __init__(self, saved: tuple[int, int, int]) -> None:
        self.saved = saved
        self.growth, self.budget, self.max_cpu = GROWTH, BUDGET, MAX_CPU
        #: Waiting for a whole-heap collection (nothing is frozen meanwhile).
        self.pending = True
        self.t_start = 0.0
        #: The last whole-heap collection: its CPU seconds, the heap's size after it
        #: (blocks), and when it ended (process time).
        self.cost = 0.0
        self.blocks = 1
        self.since = 0.0
        #: CPU seconds per block of a whole-heap collection, the highest seen: a big
        #: heap is colder than a small one, so the estimate errs on the side of waiting.
        self.rate = 0.0
        #: No need to look at the heap's size before this (process time).
        self.next_check = 0.0
        self.counts = {"whole_heap": 0, "young": 0, "found": 0}

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        generation = info["generation"]
        if phase == "start":
            if self.pending and generation == 2:
                self.t_start = _process_time()
            return
        if self.pending:
            if generation == 2:
                self._whole_heap_done()
            return
        counts = self.counts
        counts["young"] += 1
        counts["found"] += info["collected"]
        _freeze()
        now = _process_time()
        if now >= self.next_check:
            self._consider(now)

    def _whole_heap_done(self) -> None:
        now = _process_time()
        self.pending = False
        self.counts["whole_heap"] += 1
        self.cost = now - self.t_start
        self.blocks = max(_blocks(), 1)
        self.rate = max(self.rate, self.cost / self.blocks)
        self.since = now
        self.next_check = now + self.cost / self.budget
        _freeze()

    def _consider(self, now: float) -> None:
        blocks = _blocks()
        allowed = self.since + self.rate * blocks / self.budget
        due = blocks >= self.blocks * self.growth or now - self.since >= self.max_cpu
        if due and now >= allowed:
            self.release()
        else:
            # Look again once the budget could allow it (the heap only matters then).
            self.next_check = max(allowed, now + self.cost / self.budget)

    def release(self) -> None:
        """Unfreeze: the next full collection looks at the whole heap."""
        _unfreeze()
        self.pending = True


def install(*, growth: float = GROWTH, budget: float = BUDGET, max_cpu: float = MAX_CPU) -> None:
    """Apply the policy to this process (calling it again only changes the settings)."""
    global _state
    if growth < 1 or not 0 < budget <= 1 or max_cpu < 0:
        raise ValueError("need growth >= 1, 0 < budget <= 1 and max_cpu >= 0")
    if _state is None:
        _state = _Policy(gc.get_threshold())  # type: ignore[arg-type]
        gc.callbacks.append(_state)
    _state.growth, _state.budget, _state.max_cpu = growth, budget, max_cpu


def installed() -> bool:
    return _state is not None


def reclaim() -> int:
    """Collect the whole heap now, frozen objects included, then go on freezing; returns
    gc.collect()'s count. It pauses the process: about a third of a second of CPU per
    50,000 events in the logs alive (cold memory, measured on 2 busy cores)."""
    if _state is not None:
        _state.release()
    return gc.collect()


def uninstall() -> None:
    """CPython's behaviour again: nothing frozen, the thresholds as they were."""
    global _state
    if _state is None:
        return
    state, _state = _state, None
    gc.callbacks.remove(state)
    gc.unfreeze()
    gc.set_threshold(*state.saved)


def stats() -> dict[str, Any]:
    """What the policy has done so far (for the bench and diagnostics)."""
    state = _state
    if state is None:
        return {"installed": False, "threshold": gc.get_threshold()}
    return {"installed": True, "threshold": gc.get_threshold(), **state.counts,
            "last_whole_heap_cpu_s": round(state.cost, 4), "pending": state.pending}
