"""inspector.gcpolicy: survivors are frozen, garbage cycles are still found, young
collections are skipped only while they find nothing, and frozen objects that turn into
garbage are reclaimed (at once with reclaim(), else when the heap has grown or enough
CPU time has passed, and the CPU budget allows a whole-heap collection)."""

from __future__ import annotations

import gc
import time
import weakref

import pytest

from inspector import gcpolicy


class Node:
    def __init__(self) -> None:
        self.other: Node | None = None


def cycle() -> tuple[Node, weakref.ref]:
    a, b = Node(), Node()
    a.other, b.other = b, a
    return a, weakref.ref(b)


@pytest.fixture(autouse=True)
def cpython_settings():
    """These tests start from CPython's own settings: the suite's processes run under
    the policy (tests/conftest.py), which is put back after each."""
    suite = gcpolicy.installed()
    if suite:
        gcpolicy.uninstall()
    yield
    if suite and not gcpolicy.installed():
        gcpolicy.install()


@pytest.fixture
def policy():
    before = gc.get_threshold()
    assert not gcpolicy.installed()
    gcpolicy.install()
    try:
        yield gcpolicy
    finally:
        gcpolicy.uninstall()
    assert gc.get_threshold() == before
    assert not gcpolicy.installed()


def test_install_and_uninstall(policy) -> None:
    assert gc.get_threshold()[0] == gcpolicy.GEN0
    gcpolicy.install(gen0=1234)  # again: only the settings change
    assert gc.get_threshold()[0] == 1234
    assert sum(cb is gcpolicy._state for cb in gc.callbacks) == 1
    gc.collect()  # the whole-heap collection the policy waits for, then it freezes
    assert gcpolicy.stats()["whole_heap"] >= 1
    assert gc.get_freeze_count() > 0
    gcpolicy.uninstall()
    assert gc.get_freeze_count() == 0
    assert all(cb is not gcpolicy._state for cb in gc.callbacks)
    gcpolicy.install()  # for the fixture to take down


def test_young_cycles_are_still_collected(policy) -> None:
    gc.collect()
    node, ref = cycle()
    del node
    gc.collect(0)
    assert ref() is None


def test_frozen_cycles_wait_for_reclaim(policy) -> None:
    node, ref = cycle()
    gc.collect()  # survives, and is frozen
    del node
    gc.collect()
    assert ref() is not None  # frozen: a normal full collection does not look at it
    assert gcpolicy.reclaim() >= 2
    assert ref() is None
    assert gc.get_freeze_count() > 0  # and the survivors are frozen again


def test_young_collections_are_skipped_only_while_they_find_nothing(policy) -> None:
    gc.collect()
    for _ in range(10 * gcpolicy.QUIET):
        if gcpolicy._state.quiet >= gcpolicy.QUIET:
            break
        gc.collect(0)  # nothing to find: the policy starts skipping
    assert gcpolicy._state.quiet >= gcpolicy.QUIET
    before = gcpolicy.stats()
    frozen_refs = []
    for _ in range(2 * gcpolicy.SAMPLE):
        node, ref = cycle()
        frozen_refs.append(ref)
        del node
        gc.collect(0)
        if gcpolicy.stats()["found"] > before["found"]:
            break
    after = gcpolicy.stats()
    # Skipped ones froze their cycle unlooked-at, until one that looked found garbage.
    assert after["young_skipped"] > before["young_skipped"]
    assert after["found"] > before["found"]
    # Found garbage: the next young collections look again, and free new cycles.
    node, ref = cycle()
    del node
    gc.collect(0)
    assert ref() is None
    assert any(r() is not None for r in frozen_refs)
    gcpolicy.reclaim()
    assert all(r() is None for r in frozen_refs)


def test_frozen_cycles_are_released_on_the_budget(policy) -> None:
    gcpolicy.install(growth=1.0, budget=1.0, max_cpu=0)  # a release whenever one is due at all
    gc.collect()
    node, ref = cycle()
    gc.collect()
    del node
    deadline = time.process_time() + 5
    while ref() is not None and time.process_time() < deadline:
        sum(i * i for i in range(20_000))  # CPU time passes, as the budget wants
        gc.collect()
    assert ref() is None


def test_reclaim_without_policy() -> None:
    assert not gcpolicy.installed()
    node, ref = cycle()
    del node
    assert gcpolicy.reclaim() >= 2
    assert ref() is None


def test_bad_settings() -> None:
    for kwargs in ({"gen0": 0}, {"growth": 0.5}, {"budget": 0}, {"budget": 2}, {"max_cpu": -1}, {"sample": 0}):
        with pytest.raises(ValueError):
            gcpolicy.install(**kwargs)
    assert not gcpolicy.installed()


def test_hold_until_resume_then_startup_is_frozen_and_reclaim_still_finds_its_cycles(policy) -> None:
    gcpolicy.hold()
    try:
        assert not gc.isenabled()
        _a, ref = cycle()
        del _a
        gcpolicy.resume()
        assert gc.isenabled()
        assert gc.get_freeze_count() > 0  # what start-up made, frozen unlooked-at
        gc.collect()
        assert ref() is not None  # frozen: an ordinary collection leaves it
        gcpolicy.reclaim()
        assert ref() is None
    finally:
        gc.enable()


def test_resume_without_hold_does_nothing() -> None:
    assert gc.isenabled()
    frozen = gc.get_freeze_count()
    gcpolicy.resume()
    assert gc.isenabled() and gc.get_freeze_count() == frozen
