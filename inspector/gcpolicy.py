"""How the cyclic garbage collector runs in a long-lived inspector process.

A live session keeps its newest events (a million by default), one GC-tracked object
each (the Event; its raw text and numbers are not tracked), and the tracker keeps its
projections in arrays and strings, so far fewer objects outlive an event than the ten
or so of before (the event, three pydantic models with their field dicts and sets, the
parts list, the tracker's chunk). CPython's collector (3.11, 3.12) still rescans the
*whole* heap every time it has grown by a quarter, and every event of a stream makes
short-lived models. Measured again on bench/ingest's 1.0 stream (50,000 events kept,
CPU µs an event): this policy 8.5, CPython's settings 11.7, only the raised threshold
9.4. Its young collections' share: 0.1 µs an event with the skipping below, 0.3 without
it, 0.4 also without the raised threshold. Every part of the policy still pays.

The policy (``install()``):

* **Freeze after each collection.** Once a collection has run, ``gc.freeze()`` moves the
  survivors to the permanent generation, which collections skip. Cycles among new
  objects are still found and freed as usual, since an object is frozen only after a
  collection has looked at it; reference counting frees everything that is not in a
  cycle, frozen or not.
* **Skip the young collections while they find nothing.** When the last ``QUIET``
  young collections freed nothing, the program is not making garbage cycles at the
  moment, and the next young collections are skipped by freezing first: only one in
  ``SAMPLE`` still looks. As soon as one that looks finds garbage, every young
  collection looks again. A long stream makes no cycles, so its objects are then
  frozen unlooked-at.
* **Whole-heap collections on a budget.** A frozen object is never looked at again, so
  an object that was alive when frozen and later became part of an unreachable cycle
  (a closed connection, removed widgets, a dropped Session whose listeners point back
  at it), or a cycle frozen by a skipped collection, stays in memory until the policy
  unfreezes everything and lets the next full collection look at the whole heap. It
  does that when the heap (pymalloc blocks) has doubled (``GROWTH``) since the last
  whole-heap collection, or ``MAX_CPU`` seconds of CPU time have passed since, and in
  either case only once enough CPU time has passed for the collection (its cost is
  estimated from the last one, scaled by the heap) to take at most ``BUDGET`` (2%) of
  it. Then it freezes again.

  So whole-heap collections take at most about 2% of the CPU time, and frozen garbage
  waits until the heap has doubled, or a minute of CPU time has passed, whichever
  comes first (and the budget allows). That is the price of the policy: garbage
  cycles can occupy up to about as much memory as was alive at the last whole-heap
  collection, for a while. ``reclaim()`` collects the whole heap at once, for moments
  known to leave big garbage behind (the app closing a connection whose session was
  big: ui/app.py RECLAIM_AFTER_EVENTS).
  A whole-heap collection is one pause, as long as CPython's own full collections;
  it just comes far less often.
* The young threshold is raised from 700 to ``GEN0`` allocations: fewer collections,
  and short-lived cycles get longer to die before their objects are frozen.

``install()`` is process-wide and idempotent; the CLI and the TUI call it at start-up,
and bench/ingest calls it too, so that it measures what the app runs. ``uninstall()``
restores CPython's settings (tests).
"""

from __future__ import annotations

import gc
import sys
import time
from typing import Any

#: Young-generation threshold (CPython's default is 700).
GEN0 = 2000
#: Young collections skipped after this many in a row found no garbage ...
QUIET = 4
#: ... except one in this many, which looks (and ends the skipping if it finds some).
SAMPLE = 8
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

_state: _Policy | None = None


class _Policy:
    __slots__ = (
        "saved",
        "growth",
        "budget",
        "max_cpu",
        "sample",
        "pending",
        "t_start",
        "cost",
        "blocks",
        "rate",
        "since",
        "next_check",
        "quiet",
        "young",
        "skipping",
        "counts",
    )

    def __init__(self, saved: tuple[int, int, int]) -> None:
        self.saved = saved
        self.growth, self.budget, self.max_cpu, self.sample = GROWTH, BUDGET, MAX_CPU, SAMPLE
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
        #: Young collections in a row (of those that looked) that found no garbage.
        self.quiet = 0
        self.young = 0
        #: This collection was skipped (everything frozen before it started).
        self.skipping = False
        self.counts = {"whole_heap": 0, "young_skipped": 0, "young_looked": 0, "found": 0}

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        generation = info["generation"]
        if phase == "start":
            self.skipping = False
            if self.pending:
                if generation == 2:
                    self.t_start = _process_time()
            elif generation == 0 and self.quiet >= QUIET:
                self.young += 1
                if self.young % self.sample:
                    _freeze()
                    self.skipping = True
            return
        if self.pending:
            if generation == 2:
                self._whole_heap_done()
            return
        counts = self.counts
        if self.skipping:
            counts["young_skipped"] += 1
        else:
            counts["young_looked"] += 1
            if info["collected"]:
                counts["found"] += info["collected"]
                self.quiet = 0
            else:
                self.quiet += 1
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
        self.quiet = 0


def install(
    *, gen0: int = GEN0, growth: float = GROWTH, budget: float = BUDGET, max_cpu: float = MAX_CPU, sample: int = SAMPLE
) -> None:
    """Apply the policy to this process (calling it again only changes the settings)."""
    global _state
    if gen0 < 1 or growth < 1 or not 0 < budget <= 1 or max_cpu < 0 or sample < 1:
        raise ValueError("need gen0 >= 1, growth >= 1, 0 < budget <= 1, max_cpu >= 0 and sample >= 1")
    if _state is None:
        _state = _Policy(gc.get_threshold())
        gc.callbacks.append(_state)
    _state.growth, _state.budget, _state.max_cpu, _state.sample = growth, budget, max_cpu, sample
    _, gen1, gen2 = _state.saved
    gc.set_threshold(gen0, gen1, gen2)


def installed() -> bool:
    return _state is not None


def reclaim() -> int:
    """Collect the whole heap now, frozen objects included, then go on freezing; returns
    gc.collect()'s count. It pauses the process for a time that grows with the objects
    alive (one per event a session holds)."""
    if _state is not None:
        _state.release()
    return gc.collect()


_held = False


def hold() -> None:
    """No collections until ``resume()``: for the TUI's start-up. Until its first frame
    it makes ~100k objects that live as long as the process (modules, classes, the
    screen's widgets) and next to no garbage cycles; the ~110 young collections that ran
    meanwhile found little, and took ~40 ms of that frame."""
    global _held
    if gc.isenabled():
        gc.disable()
        _held = True


def resume() -> None:
    """Collections again after ``hold()`` (else nothing). What start-up made is frozen
    first, not looked at: nearly all of it lives for good. The policy's whole-heap
    collections (and ``reclaim()``) unfreeze it, as anything frozen."""
    global _held
    if _held:
        _held = False
        gc.freeze()
        gc.enable()


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
    return {
        "installed": True,
        "threshold": gc.get_threshold(),
        **state.counts,
        "last_whole_heap_cpu_s": round(state.cost, 4),
        "pending": state.pending,
    }
