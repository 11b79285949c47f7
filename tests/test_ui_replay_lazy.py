"""Replay of a recording read lazily: the first frame comes before the index has read the
file, the timeline moves while it reads, a seek past what it has read waits for it, a
long seek builds in the background, and a replayed session holds few events in memory
while the views read older ones back from the file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from inspector.protocol import models as m
from inspector.session import index as index_mod
from inspector.session import load_recording
from inspector.session import log as log_mod
from inspector.session.index import RecordingIndex
from inspector.ui import replay as replay_mod
from inspector.ui import replay_app
from inspector.ui.replay import ReplayController
from inspector.ui.replay_app import open_replay
from inspector.ui.widgets.replay_bar import ReplayBar
from test_ui_replay import SIZE, artifact_text, record, wait_until

CHUNKS = 3000


async def big_recording(tmp_path: Path, chunks: int = CHUNKS) -> Path:
    """A real recording (the mock's streaming scenario) with its first appended chunk
    repeated ``chunks`` times, each with its own text, renumbered."""
    small = await record(tmp_path / "small.jsonl")
    lines = small.read_text().splitlines()
    header, objs = lines[0], [json.loads(line) for line in lines[1:]]
    first = next(
        i
        for i, e in enumerate(objs)
        if e["kind"] == "sse" and '"append":true' in (e.get("data") or "").replace(" ", "")
    )
    data = json.loads(objs[first]["data"])
    out = objs[:first]
    for i in range(chunks):
        data["result"]["artifactUpdate"]["artifact"]["parts"] = [{"text": f"chunk {i}; "}]
        text = json.dumps(data, separators=(",", ":"))
        out.append({**objs[first], "raw": f"data: {text}", "data": text})
    out += objs[first + 1 :]
    t = 0.0
    for seq, obj in enumerate(out, 1):
        t = max(t, obj["t"]) + 1e-4
        obj.pop("seq"), obj.pop("t")
        wall, kind, exchange = obj.pop("wall"), obj.pop("kind"), obj.pop("exchange")
        # The recorder's key order: the fixed fields last.
        obj.update(seq=seq, t=round(t, 6), wall=wall, kind=kind, exchange=exchange)
    path = tmp_path / "big.jsonl"
    path.write_text("\n".join([header, *(json.dumps(o, separators=(",", ":")) for o in out)]) + "\n")
    return path


def bar_text(app: Any) -> str:
    return app.main.query_one(ReplayBar).status_text()


async def test_the_first_frame_comes_before_the_index_and_the_timeline_moves_meanwhile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = await big_recording(tmp_path)
    monkeypatch.setattr(replay_app, "SYNC_INDEX_BYTES", 64 * 1024)  # a head only before the first frame
    monkeypatch.setattr(index_mod, "BLOCK", 64 * 1024)  # the file is read in many slices
    app = open_replay(path, background=False)  # the test reads the file on, slice by slice
    c = app.replay_controller
    index = c.source
    assert isinstance(index, RecordingIndex) and c.loading and 0 < c.total < CHUNKS
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        # The first frame: the timeline at the start, saying the file is still being read.
        assert c.cursor == 0 and "indexing" in bar_text(app)
        first_total = c.total
        # The timeline is usable meanwhile: step into what is indexed.
        await pilot.press("right", "right", "right")
        await wait_until(pilot, lambda: c.cursor == 3, 5, "three steps")
        assert len(app.active.session) == 3
        while not index.scan():
            pass
        await wait_until(pilot, lambda: "indexing" not in bar_text(app), 5, "the bar to see the end")
        assert c.total > first_total and c.total == len(load_recording(path).session)
        assert not c.loading and len(c.marks) >= 3


async def test_a_seek_past_what_is_indexed_waits_for_it_then_lands(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = await big_recording(tmp_path)
    monkeypatch.setattr(replay_app, "SYNC_INDEX_BYTES", 64 * 1024)
    monkeypatch.setattr(index_mod, "BLOCK", 64 * 1024)
    app = open_replay(path, background=False)
    c = app.replay_controller
    index = c.source
    target = CHUNKS - 10
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert c.total < target
        c.seek(target)
        # Not there yet: the target is kept, the cursor stays, the bar says so.
        assert c.position == target and c.cursor == 0 and c.seeking
        await pilot.pause(0.1)
        assert "seeking" in bar_text(app) and c.cursor == 0
        while not index.scan():
            pass
        await wait_until(pilot, lambda: c.cursor == target and not c.seeking, 10, "the target")
        await pilot.pause(0.1)
        # The session holds exactly the events up to the target, as recorded.
        events = load_recording(path).session.events
        session = app.active.session
        assert len(session) == target
        task = next(iter(app.active.tracker.tasks.values()))
        assert task.artifacts["story"].text() == artifact_text(events[:target])


async def test_a_long_seek_builds_in_the_background_and_old_events_are_read_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = await big_recording(tmp_path)
    monkeypatch.setattr(replay_mod, "SYNC_BUILD", 100)  # builds past 100 events in a thread
    monkeypatch.setattr(replay_mod, "FAR_FORWARD", 100)  # and far forward is a rebuild too
    monkeypatch.setattr(replay_mod, "REPLAY_KEPT", 50)  # the session holds few events
    monkeypatch.setattr(log_mod, "EVICT_BATCH", 64)
    monkeypatch.setattr(replay_app, "SYNC_INDEX_BYTES", path.stat().st_size)  # indexed before the first frame
    app = open_replay(path)
    c = app.replay_controller
    assert not c.loading and c.cursor == c.total  # indexed at once: opens at the end, as before
    events = load_recording(path).session.events
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("home")
        await wait_until(pilot, lambda: c.cursor == 0 and not c.seeking and not c.settling, 10, "the start")
        rebuilds = c.rebuilds
        c.seek(2000)
        await wait_until(
            pilot, lambda: c.cursor == 2000 and not c.seeking and not c.settling, 10, "the background build"
        )
        assert c.rebuilds == rebuilds + 1
        session = app.active.session
        assert len(session) == 2000 and session.bounded and len(session.events._mem) < 50 + 64
        # Old events come back from the recording, equal to what it holds, payloads too.
        for i in (0, 5, 1000, 1999):
            assert session.events[i] == events[i]
            assert session.events[i].payload == events[i].payload
        task = next(iter(app.active.tracker.tasks.values()))
        assert task.artifacts["story"].text() == artifact_text(events[:2000])
        assert isinstance(session.events[1500].payload, m.TaskArtifactUpdateEvent)


def test_the_index_reads_the_fixed_fields_and_reports_damage_like_the_reader(tmp_path: Path) -> None:
    import asyncio

    path = asyncio.run(record(tmp_path / "r.jsonl"))
    lines = path.read_text().splitlines(keepends=True)
    lines.insert(5, "this is not json\n")
    lines.append('{"raw": "cut off')
    path.write_text("".join(lines))
    index = RecordingIndex(path)
    while not index.scan(100):
        pass
    loaded = load_recording(path)
    assert index.count == len(loaded.session)
    assert [(p.line, p.message) for p in index.problems] == [(p.line, p.message) for p in loaded.problems]
    assert index.truncated and loaded.truncated
    assert list(index.events) == list(loaded.session.events)
    assert [round(t, 6) for t in index.times] == [e.t for e in loaded.session.events]
    index.close()


def test_a_controller_over_an_index_sees_what_one_over_a_loaded_recording_sees(tmp_path: Path) -> None:
    import asyncio

    path = asyncio.run(record(tmp_path / "r.jsonl", texts=("hi", "again")))
    index = RecordingIndex(path)
    while not index.scan():
        pass
    lazy, loaded = ReplayController(index), ReplayController(load_recording(path))
    assert lazy.total == loaded.total and lazy.cursor == loaded.cursor == lazy.total
    assert lazy.marks == loaded.marks and lazy.lanes == loaded.lanes
    assert lazy.first_position == loaded.first_position
    assert (lazy.url, lazy.card_url) == (loaded.url, loaded.card_url)
    assert list(lazy._times) == list(loaded._times)
    index.close()


def test_a_recording_opens_at_its_end_or_its_start_by_its_size_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # By size, not by how long the index took: the same file opens the same way on a
    # quiet machine and a loaded one.
    import asyncio

    path = asyncio.run(record(tmp_path / "r.jsonl"))
    events = load_recording(path).session.events
    size = path.stat().st_size
    assert size < replay_app.SYNC_INDEX_BYTES  # the default takes a small recording whole
    monkeypatch.setattr(replay_app, "SYNC_INDEX_BYTES", size)
    c = open_replay(path, background=False).replay_controller
    assert not c.loading and c.cursor == c.total == len(events)
    c.source.close()
    monkeypatch.setattr(replay_app, "SYNC_INDEX_BYTES", size - 1)
    app = open_replay(path)
    c = app.replay_controller
    assert c.loading and c.cursor == 0 and c.total > 0 and app.index_in_background
    c.source.close()
