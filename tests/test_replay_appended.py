"""A recording of several sessions (``--record FILE --append``) read through the lazy
index exactly as the reader reads it: one session, the later ones renumbered after the
earlier ones, a NOTE where each begins. The TUI's replay, the diff and the exports all
go through the index, so each is checked against ``load_recording``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cli_helpers import Cli
from inspector.protocol import models as m
from inspector.session import Kind, TaskTracker, load_recording
from inspector.session import index as index_mod
from inspector.session import log as log_mod
from inspector.session.export_har import to_har
from inspector.session.index import RecordingIndex, open_recording
from inspector.ui import replay as replay_mod
from inspector.ui import replay_app
from inspector.ui.replay import ReplayController
from inspector.ui.replay_app import open_replay
from inspector.ui.widgets.replay_bar import ReplayBar
from mock_agent import MockAgent
from ui_helpers import screen_text, wait_until

SIZE = (120, 36)
#: (text, dialect) of each session: the second one speaks another dialect, so an event
#: decoded with another session's exchange facts would come out wrong.
SESSIONS = (("one", "1.0"), ("two", "0.3"), ("three", "1.0"))


@pytest.fixture(scope="module")
def appended(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    """Three sessions of the real CLI streaming from the real mock into one file, the
    later two with --append; (the file, the mock's URL, still serving)."""
    home = tmp_path_factory.mktemp("appended")
    cli = Cli(home / "home")
    path = home / "day.jsonl"
    with MockAgent("streaming", dialect="all", time_scale=0.05) as mock:
        for i, (text, dialect) in enumerate(SESSIONS):
            more = ("--append",) if i else ()
            result = cli("send", mock.url, text, "--stream", "--dialect", dialect, "--record", str(path), *more)
            assert result.code == 0, result
        yield path, mock.url


def tracker_state(tracker: TaskTracker) -> Any:
    """What the views show of the tracker: every task's states, artifacts, exchanges and
    history; the findings; the exchanges' methods."""
    tasks = {}
    for task_id, task in tracker.tasks.items():
        tasks[task_id] = (
            task.state,
            [(c.state, c.t, c.seq, c.exchange, c.updates) for c in task.timeline],
            {key: (a.text(), a.closed, len(a.chunks), a.first_seq, a.last_seq) for key, a in task.artifacts.items()},
            list(task.exchanges),
            len(task.history),
            task.first_seq,
            task.last_seq,
            task.origin,
        )
    return (
        tasks,
        [(v.seq, v.code, v.exchange, v.task_id) for v in tracker.violations],
        {n: ex.method for n, ex in tracker.exchanges.items()},
    )


def fed(events: Any) -> TaskTracker:
    tracker = TaskTracker()
    for event in events:
        tracker.apply(event)
    return tracker


def session_starts(events: list[Any]) -> list[int]:
    """Positions (0-based) of the NOTEs that begin the later sessions."""
    return [i for i, e in enumerate(events) if e.kind is Kind.NOTE and "session" in e.data]


def test_the_recording_holds_three_sessions_the_reader_renumbers(appended: tuple[Path, str]) -> None:
    path, _url = appended
    assert sum(1 for line in path.read_text().splitlines() if '"format"' in line and '"seq"' not in line) == 3
    loaded = load_recording(path)
    events = loaded.session.events
    assert loaded.problems == [] and len(session_starts(events)) == 2
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    # Each session's stream decoded in its own dialect: every task completes with its text.
    tracker = fed(events)
    assert sorted(t.state.value for t in tracker.tasks.values()) == ["completed"] * 3
    assert all(t.text().count("chunk") == 20 for t in tracker.tasks.values())


@pytest.mark.parametrize("slice_bytes", [None, 300, 4096])
def test_the_index_reads_several_sessions_as_the_reader_does(
    appended: tuple[Path, str], slice_bytes: int | None
) -> None:
    path, _url = appended
    loaded = load_recording(path)
    events = loaded.session.events
    index = RecordingIndex(path)
    try:
        while not index.scan(slice_bytes):  # headers land anywhere in a slice, or across two
            pass
        assert index.problems == [] and not index.truncated
        assert index.count == len(events)
        assert index.headers == [
            json.loads(line) for line in path.read_text().splitlines() if '"format"' in line and '"seq"' not in line
        ]
        assert index.session_positions == session_starts(events)
        # Every event as the reader has it: renumbered seq, exchange and t; the NOTEs;
        # payloads decoded with the right session's exchange facts.
        read = list(index.events)
        assert read == events
        assert [e.payload for e in read] == [e.payload for e in events]
        assert list(index.times) == replay_mod._monotonic_times(events)
        # Pages that start at, end at and straddle a session's start read the same.
        for start in session_starts(events):
            for a, b in (
                (start - 1, start),
                (start, start + 1),
                (start - 2, start + 3),
                (0, start + 1),
                (start, len(events)),
            ):
                assert index.read(a, b) == events[a:b], (a, b)
        # The marks, lanes and URLs a controller shows: the same from both.
        lazy, whole = ReplayController(index), ReplayController(loaded)
        assert lazy.total == whole.total and lazy.marks == whole.marks and lazy.lanes == whole.lanes
        assert lazy.first_position == whole.first_position and len(lazy.lanes) == 3
        assert (lazy.url, lazy.card_url) == (whole.url, whole.card_url)
        assert tracker_state(lazy.conn.tracker) == tracker_state(whole.conn.tracker) == tracker_state(fed(events))
    finally:
        index.close()


def test_damage_and_a_newer_session_are_reported_at_the_lines_the_reader_names(
    appended: tuple[Path, str], tmp_path: Path
) -> None:
    path, _url = appended
    lines = path.read_text().splitlines(keepends=True)
    headers = [i for i, line in enumerate(lines) if '"format"' in line and '"seq"' not in line]
    # The third session's header says a newer version wrote it; a line of the second
    # session is damaged; the last line is cut off.
    third = json.loads(lines[headers[2]])
    lines[headers[2]] = json.dumps({**third, "version": 99}) + "\n"
    lines.insert(headers[1] + 3, "not json at all\n")
    lines[-1] = lines[-1][:40]
    damaged = tmp_path / "damaged.jsonl"
    damaged.write_text("".join(lines))
    loaded = load_recording(damaged)
    index = RecordingIndex(damaged)
    try:
        while not index.scan(500):
            pass
        assert [(p.line, p.message) for p in index.problems] == [(p.line, p.message) for p in loaded.problems]
        assert len(loaded.problems) == 3 and index.truncated and loaded.truncated
        assert list(index.events) == list(loaded.session.events)
    finally:
        index.close()


def test_diff_and_export_read_every_session(appended: tuple[Path, str], tmp_path: Path) -> None:
    path, url = appended
    loaded = load_recording(path)
    paged = open_recording(path, keep=16)  # what diff and export read: pages from the file
    assert list(paged.session.events) == list(loaded.session.events)
    assert paged.problems == [] and paged.session._exchanges == max(e.exchange for e in loaded.session.events)

    cli = Cli(tmp_path / "home")
    diff = cli("replay", str(path), "--against", url, "-o", "json")
    assert diff.code == 0, diff
    assert "note:" not in diff.err  # no line of the file reported as damaged or out of order
    doc = diff.json()
    sends = [e for e in loaded.session.events if e.kind is Kind.REQUEST and e.data.get("a2a_method") == "stream"]
    assert [x["exchange"] for x in doc["exchanges"]] == [e.exchange for e in sends]
    assert [x["text"] for x in doc["exchanges"]] == [text for text, _ in SESSIONS]
    assert all(x["same"] for x in doc["exchanges"]) and doc["problems"] == []

    har = cli("export", str(path), "--har", "-")
    assert har.code == 0 and "note:" not in har.err, har
    expected = to_har(loaded.session, comment=f"exported from {path.name} by a2a-inspect")
    assert json.loads(har.out) == json.loads(json.dumps(expected))
    scenario = cli("export", str(path), "--scenario", "-")
    assert scenario.code == 0 and all(text in scenario.out for text, _ in SESSIONS), scenario


async def test_the_tui_replays_every_session_through_the_index(
    appended: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path, _url = appended
    # The replayed session keeps few events in memory: the views read the rest back
    # from the file, across the sessions' starts.
    monkeypatch.setattr(replay_mod, "REPLAY_KEPT", 8)
    monkeypatch.setattr(log_mod, "EVICT_BATCH", 4)
    loaded = load_recording(path)
    events = loaded.session.events
    whole = ReplayController(load_recording(path))
    app = open_replay(path)
    c = app.replay_controller
    assert isinstance(c.source, RecordingIndex) and not c.loading and c.cursor == c.total == len(events)
    assert c.marks == whole.marks and c.lanes == whole.lanes
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.active is c.conn, 10, "the replay's connection")
        assert list(app.active.session.events) == events
        assert tracker_state(app.active.tracker) == tracker_state(fed(events))
        # Back into the second session, at its NOTE: a rebuilt connection holds exactly
        # the events before it, from the index, with the tracker's state at that point.
        second = session_starts(events)[0] + 1
        c.seek(second)
        await wait_until(
            pilot, lambda: c.cursor == second and c._pending is None and not c.settling, 10, "the second session"
        )
        assert c.event_at().data["text"].startswith("session 2 of this file")
        assert list(app.active.session.events) == events[:second]
        assert tracker_state(app.active.tracker) == tracker_state(fed(events[:second]))
        await pilot.press("f5")
        await wait_until(pilot, lambda: "session 2 of this file" in screen_text(app), 5, "the NOTE in the traffic list")
        # The second session's stream decodes in its own dialect as the cursor moves on.
        third = session_starts(events)[1]
        c.seek(third)
        await wait_until(
            pilot, lambda: c.cursor == third and c._pending is None and not c.settling, 10, "the third session's start"
        )
        task = app.active.tracker.tasks[list(c.lanes)[1]]
        assert task.state is m.TaskState.COMPLETED and task.text().count("chunk") == 20
        assert tracker_state(app.active.tracker) == tracker_state(fed(events[:third]))
        assert f"event {third}/{len(events)}" in app.main.query_one(ReplayBar).status_text()


async def test_a_big_file_of_several_sessions_opens_at_its_start_and_indexes_on(
    appended: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path, _url = appended
    loaded = load_recording(path)
    events = loaded.session.events
    first_start = session_starts(events)[0]
    # Only a head before the first frame: the sessions' headers come in later slices.
    monkeypatch.setattr(replay_app, "SYNC_INDEX_BYTES", 2048)
    monkeypatch.setattr(index_mod, "BLOCK", 2048)
    app = open_replay(path, background=False)
    c = app.replay_controller
    index = c.source
    assert isinstance(index, RecordingIndex) and c.loading and c.cursor == 0 and c.total < first_start
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.active is c.conn, 10, "the replay's connection")
        c.seek(len(events))  # past what is indexed: kept until it is
        while not index.scan():
            pass
        await wait_until(pilot, lambda: c.cursor == len(events) and not c.seeking and not c.settling, 10, "the end")
        assert list(app.active.session.events) == events
        assert tracker_state(app.active.tracker) == tracker_state(fed(events))
        assert c.marks == ReplayController(loaded).marks
