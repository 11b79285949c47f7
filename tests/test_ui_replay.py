"""Replay in the UI: a recording of a real client session against the mock agent, opened
read-only under a cursor; stepping, state-change jumps, playing at max speed, seeking
back (a rebuilt session), and every view showing the state at the cursor."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest

from inspector.client import A2AClient
from inspector.protocol import models as m
from inspector.session import Kind, Recorder, Session, TaskTracker, load_recording
from inspector.ui.connection import AgentConnection
from inspector.ui.replay import ReplayController, format_t, parse_target
from inspector.ui.replay_app import ReplayApp, launch_replay, open_replay
from inspector.ui.widgets.artifacts_view import ArtifactsView
from inspector.ui.widgets.card_view import CardView
from inspector.ui.widgets.replay_bar import ReplayBar
from inspector.ui.widgets.state_diagram import StateDiagram
from inspector.ui.widgets.traffic_view import TrafficView
from mock_agent import MockAgent
from ui_helpers import record_notifications, screen_text, wait_until

SIZE = (120, 36)


def params(text: str, task_id: str | None = None, context_id: str | None = None) -> m.SendParams:
    return m.SendParams(
        message=m.Message(
            role=m.Role.USER,
            parts=[m.TextPart(text=text)],
            message_id=str(uuid.uuid4()),
            task_id=task_id,
            context_id=context_id,
        )
    )


async def record(
    path: Path,
    scenario: Any = "streaming",
    dialect: str = "1.0",
    texts: tuple[str, ...] = ("hi",),
    time_scale: float = 0.05,
) -> Path:
    """Run a real client session against the mock agent, recorded to ``path``."""
    async with MockAgent(scenario, dialect=dialect, time_scale=time_scale) as mock:
        session = Session()
        recorder = Recorder.attach(session, path)
        try:
            async with A2AClient(mock.base_url, session=session) as client:
                await client.resolve_dialect()
                for text in texts:
                    async for _ in client.stream(params(text)):
                        pass
        finally:
            recorder.close()
    return path


def controller_of(app: ReplayApp) -> ReplayController:
    return app.replay_controller


def view(app: ReplayApp, cls: type) -> Any:
    return app.main.query_one(cls)


def task_of(app: ReplayApp) -> Any:
    conn = app.active
    return conn.tracker.task(app.task_id) if conn is not None and app.task_id else None


def artifact_text(events: list[Any], key: str = "story") -> str:
    """The artifact's text as its chunks in ``events`` assemble it (append-only streams)."""
    out = []
    for event in events:
        payload = event.payload
        if isinstance(payload, m.TaskArtifactUpdateEvent):
            art = payload.artifact
            if (art.artifact_id or art.name) == key or art.artifact_id is None:
                out.extend(p.text for p in art.parts if isinstance(p, m.TextPart))
    return "".join(out)


def diagram_state(app: ReplayApp) -> str | None:
    """The state the state diagram marks as current (``▸ state`` in its path list)."""
    plain = view(app, StateDiagram).render().plain
    for line in plain.splitlines():
        line = line.strip()
        if line.startswith("▸ "):
            return line[2:].split()[0]
    return None


async def settled(pilot: Any, app: ReplayApp, what: str = "the replay to settle") -> ReplayController:
    c = controller_of(app)
    await wait_until(pilot, lambda: c._pending is None and not c.settling, 10, what)
    await pilot.pause(0.1)  # one frame: the pump delivers, the views redraw
    return c


# --------------------------------------------------------------------- the controller


async def test_controller_paces_by_recorded_time_and_rebuilds_going_back(tmp_path: Path) -> None:
    path = await record(tmp_path / "r.jsonl")
    recording = load_recording(path)
    now = [0.0]
    c = ReplayController(recording, name="r", cursor=0, clock=lambda: now[0])
    events = c.events
    assert c.cursor == 0 and len(c.conn.session) == 0 and c.total == len(events)

    # 1x: after dt seconds, exactly the events recorded up to t=dt are in the session.
    c.play()
    c.tick(now[0])
    horizon = events[len(events) // 2].t
    now[0] += horizon
    c.tick(now[0])
    assert c.cursor == sum(1 for e in events if e.t <= horizon)
    assert c.conn.session.events == events[: c.cursor]

    # 10x covers ten times the recorded time per second.
    c.set_speed(10.0)
    conn = c.conn
    now[0] += (events[-1].t - horizon) / 10 + 0.001
    c.tick(now[0])
    assert c.cursor == c.total and not c.playing
    assert c.conn is conn  # forward never rebuilds

    # Back: a new connection whose session and tracker hold events[:cursor] only.
    swaps: list[tuple[AgentConnection, AgentConnection]] = []
    c.on_swap = lambda old, new: swaps.append((old, new))
    working = next(mark.position for mark in c.marks if mark.state is m.TaskState.WORKING)
    c.seek(working)
    assert swaps and swaps[-1][0] is conn and c.conn is swaps[-1][1] and c.conn.read_only
    assert c.conn.session.events == events[:working]
    fresh = TaskTracker()
    for event in events[:working]:
        fresh.apply(event)
    (task_id,) = fresh.tasks
    assert c.conn.tracker.task(task_id).state is m.TaskState.WORKING
    assert c.state_at(task_id) is m.TaskState.WORKING
    c.settled()

    # State-change jumps, both ways; time and number targets.
    assert c.next_mark(1) is not None and c.next_mark(1) > working
    assert c.next_mark(-1) is not None and c.next_mark(-1) < working
    assert parse_target("0", c) == 0 and parse_target(str(c.total), c) == c.total
    assert parse_target(f"{events[-1].t + 1}s", c) == c.total
    with pytest.raises(ValueError):
        parse_target(str(c.total + 1), c)
    with pytest.raises(ValueError):
        parse_target("soon", c)
    assert format_t(75.5) == "1:15.500"


async def test_replayed_connection_shows_the_recorded_card_and_dialect(tmp_path: Path) -> None:
    path = await record(tmp_path / "r.jsonl")
    recording = load_recording(path)
    conn = AgentConnection("http://agent.invalid/", session=recording.session, read_only=True)
    assert conn.client is None and conn.state == "replay"
    assert conn.card is not None and conn.card.name == "Streaming Agent"
    assert isinstance(conn.card_raw, dict) and conn.card_raw["name"] == "Streaming Agent"
    assert conn.card is conn.card  # stable identity: views compare by id
    assert conn.dialect_name == "1.0" and conn.dialect_source == "card"
    assert conn.card_url is not None and conn.card_url.endswith(".json")
    # An empty session knows nothing yet.
    empty = AgentConnection("http://agent.invalid/", session=Session(), read_only=True)
    assert empty.card is None and empty.card_raw is None and empty.dialect_name is None


# --------------------------------------------------------------------- the UI


async def test_step_to_state_changes_and_back_shows_the_state_at_the_cursor(tmp_path: Path) -> None:
    path = await record(tmp_path / "r.jsonl")
    app = open_replay(path)
    async with app.run_test(size=SIZE) as pilot:
        c = await settled(pilot, app)
        bar = view(app, ReplayBar)
        # Opens at the end: the whole recording is shown. A recording cannot send: no composer.
        assert c.cursor == c.total
        assert not app.screen.query("#composer")
        await wait_until(pilot, lambda: diagram_state(app) == "completed", 5, "the final state")
        assert f"{c.total}/{c.total}" in bar.status_text()

        await pilot.press("home")
        c = await settled(pilot, app)
        assert c.cursor == 0 and len(app.active.session) == 0 and app.task_id is None

        # shift+right: to each state change in turn, until the task is working.
        for _ in range(4):
            await pilot.press("shift+right")
            c = await settled(pilot, app)
            if diagram_state(app) == "working":
                break
        working_at = c.cursor
        mark = c.event_at()
        assert mark is not None and diagram_state(app) == "working"
        assert task_of(app) is not None and task_of(app).state is m.TaskState.WORKING
        assert f"event {working_at:>{len(str(c.total))}}/{c.total}" in bar.status_text()

        # Step into the stream: the artifact shows the chunks up to the cursor, no more.
        artifacts = view(app, ArtifactsView)
        for _ in range(5):
            await pilot.press("right")
        c = await settled(pilot, app)
        assert c.cursor == working_at + 5
        partial = artifact_text(c.events[: c.cursor])
        assert partial and partial != artifact_text(c.events)
        await wait_until(pilot, lambda: artifacts.text_of("story") == partial, 5, "the partial artifact")

        # One step back: a rebuilt session, one chunk fewer, still working.
        rebuilds = c.rebuilds
        conn = app.active
        await pilot.press("left")
        c = await settled(pilot, app)
        assert c.cursor == working_at + 4 and c.rebuilds == rebuilds + 1
        assert app.active is not conn and app.active in app.connections and conn not in app.connections
        assert len(app.active.session) == c.cursor
        shorter = artifact_text(c.events[: c.cursor])
        assert len(shorter) < len(partial)
        await wait_until(pilot, lambda: artifacts.text_of("story") == shorter, 5, "one chunk fewer")
        assert diagram_state(app) == "working"

        # shift+left: back to the state before working.
        await pilot.press("shift+left")
        c = await settled(pilot, app)
        assert c.cursor == working_at
        await pilot.press("shift+left")
        c = await settled(pilot, app)
        assert c.cursor < working_at
        await wait_until(
            pilot, lambda: diagram_state(app) not in (None, "working", "completed"), 5, "the earlier state"
        )
        assert artifacts.text_of("story") in (None, "")


async def test_play_at_max_speed_to_the_end(tmp_path: Path) -> None:
    path = await record(tmp_path / "r.jsonl")
    app = open_replay(path)
    async with app.run_test(size=SIZE) as pilot:
        c = await settled(pilot, app)
        full = artifact_text(c.events)
        assert full.count("chunk") == 20
        await pilot.press("home")
        c = await settled(pilot, app)
        for _ in range(8):
            await pilot.press("plus")
        assert c.speed is None and "max" in view(app, ReplayBar).status_text()
        await pilot.press("minus")
        assert c.speed == 50.0
        await pilot.press("plus")
        rebuilds = c.rebuilds
        await pilot.press("space")
        await wait_until(pilot, lambda: c.cursor == c.total and not c.playing, 10, "the end")
        c = await settled(pilot, app)
        artifacts = view(app, ArtifactsView)
        await wait_until(pilot, lambda: artifacts.text_of("story") == full, 5, "all 20 chunks")
        await wait_until(pilot, lambda: diagram_state(app) == "completed", 5, "the final state")
        assert "■ end" in view(app, ReplayBar).status_text()
        # Played forward only: the connection was never rebuilt after home.
        assert c.rebuilds == rebuilds and len(app.active.session) == c.total


async def test_play_at_recorded_speed_is_paced(tmp_path: Path) -> None:
    path = await record(tmp_path / "r.jsonl", time_scale=0.5)  # 20 chunks, 25 ms apart
    # The play head follows this clock only: frames come as they will, however loaded
    # the machine is, and the head is exactly where the clock says.
    now = [0.0]
    app = ReplayApp(ReplayController(load_recording(path), name=path.name, clock=lambda: now[0]))
    async with app.run_test(size=SIZE) as pilot:
        c = await settled(pilot, app)
        await pilot.press("home")
        c = await settled(pilot, app)
        c.set_speed(0.25)
        await pilot.press("space")
        assert c.playing and c.cursor == 0
        await wait_until(pilot, lambda: c._last_tick is not None, 5, "a frame while playing")
        start = c.head_t
        # Where to stop the head: halfway between two events in the middle of the
        # recording, whatever times they were recorded at (a loaded machine records
        # the card fetch and the first chunks later than a quiet one).
        times = [e.t for e in c.events]
        i = next(i for i in range(len(times) // 2, len(times) - 1) if times[i] < times[i + 1])
        horizon = (times[i] + times[i + 1]) / 2
        now[0] += (horizon - start) / 0.25
        await wait_until(pilot, lambda: c.head_t > start, 5, "the play head to move")
        # At a quarter of the recorded speed, play moves the head a quarter as far as the
        # clock, and every event recorded up to the head (none after it) has been applied.
        head = c.head_t
        assert head == pytest.approx(horizon)
        assert c.playing and c.cursor == i + 1 < c.total
        assert c.cursor == sum(1 for e in c.events if e.t <= head)
        await pilot.press("space")
        assert not c.playing
        paused_at = c.cursor
        now[0] += 10
        await pilot.pause(0.2)
        assert c.cursor == paused_at and c.head_t == head


async def test_traffic_lists_exactly_the_events_up_to_the_cursor(tmp_path: Path) -> None:
    path = await record(tmp_path / "r.jsonl")
    app = open_replay(path)
    async with app.run_test(size=SIZE) as pilot:
        c = await settled(pilot, app)
        await pilot.press("f5")
        traffic = view(app, TrafficView)
        await wait_until(
            pilot, lambda: traffic.index.done and len(traffic.index.rows) == c.total, 5, "every event listed"
        )

        # g: go to an event number (f7 first: the timeline has the keys, whatever has focus).
        await pilot.press("f7")
        assert app.focused is view(app, ReplayBar)
        await pilot.press("g")
        await pilot.pause(0.1)
        await pilot.press(*"10", "enter")
        c = await settled(pilot, app)
        assert c.cursor == 10

        def listed() -> list[int]:
            index = traffic.index
            return [index.events[i].seq for i in index.rows] if index.done else []

        expected = [e.seq for e in c.events[:10]]
        await wait_until(pilot, lambda: listed() == expected, 5, "the first 10 events")
        assert traffic.index.events is app.active.session.events

        await pilot.press("right", "right")
        c = await settled(pilot, app)
        await wait_until(pilot, lambda: listed() == [e.seq for e in c.events[:12]], 5, "12 events")
        await pilot.press("left")
        c = await settled(pilot, app)
        await wait_until(pilot, lambda: listed() == [e.seq for e in c.events[:11]], 5, "11 events")
        last = c.events[10]
        await wait_until(
            pilot,
            lambda: f"#{last.seq} " in view(app, ReplayBar).status_text(),
            5,
            "the bar naming the event at the cursor",
        )


async def test_card_view_shows_the_card_as_recorded_at_the_cursor(tmp_path: Path) -> None:
    path = await record(tmp_path / "r.jsonl")
    app = open_replay(path)
    async with app.run_test(size=SIZE) as pilot:
        c = await settled(pilot, app)
        await pilot.press("f2")
        card = view(app, CardView)
        await wait_until(pilot, lambda: "Streaming Agent" in screen_text(app), 5, "the card")
        # F2 gave the card the keys (home scrolls it): the timeline takes them back (F7).
        await pilot.press("f7", "home")
        await settled(pilot, app)
        await wait_until(
            pilot, lambda: "a recording: no card to show" in screen_text(app), 5, "no card before the card GET"
        )
        # The card GET's response is the second event: step to it and the card is back.
        answer = next(
            i for i, e in enumerate(c.events, 1) if e.kind is Kind.RESPONSE and isinstance(e.payload, m.AgentCard)
        )
        for _ in range(answer):
            await pilot.press("right")
        await settled(pilot, app)
        await wait_until(pilot, lambda: "Streaming Agent" in screen_text(app), 5, "the card again")
        assert card is view(app, CardView)
        # The dialect comes with the client's note after the card: one more step.
        assert "dialect ? (recording)" in screen_text(app)
        await pilot.press("right")
        await settled(pilot, app)
        await wait_until(pilot, lambda: "dialect 1.0 (recording)" in screen_text(app), 5, "the dialect")


async def test_a_truncated_recording_opens_with_a_notification(tmp_path: Path) -> None:
    path = await record(tmp_path / "r.jsonl")
    whole = load_recording(path)
    data = path.read_bytes()
    path.write_bytes(data[:-25])  # the process was killed while writing the last event
    app = open_replay(path)
    said = record_notifications(app)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        c = await settled(pilot, app)
        assert c.total == len(whole.session) - 1
        notes = [(n.title, n.message) for n in said]
        assert any(title == "recording cut off" and "incomplete line" in text for title, text in notes)
        await wait_until(pilot, lambda: "recording cut off" in screen_text(app), 5, "the toast")
        # Still replayable: the task got as far as the recording did.
        await pilot.press("home")
        await settled(pilot, app)
        await pilot.press("end")
        c = await settled(pilot, app)
        assert c.cursor == c.total


async def test_damaged_lines_are_reported_and_the_rest_replays(tmp_path: Path) -> None:
    path = await record(tmp_path / "r.jsonl")
    lines = path.read_text().splitlines(keepends=True)
    lines.insert(5, "{not json\n")
    path.write_text("".join(lines))
    app = open_replay(path)
    said = record_notifications(app)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot, app)
        notes = [(n.title, n.message) for n in said]
        assert any("problem" in title and "line 6" in text for title, text in notes)
        assert any("line 6" in detail for _, _, detail in app.errors)  # ctrl+e has them all


@pytest.mark.parametrize("dialect", ["0.1", "0.3", "1.0"])
async def test_replay_works_for_each_dialect(tmp_path: Path, dialect: str) -> None:
    path = await record(tmp_path / f"r{dialect}.jsonl", dialect=dialect)
    app = open_replay(path)
    async with app.run_test(size=SIZE) as pilot:
        c = await settled(pilot, app)
        full = artifact_text(c.events)
        assert full.count("chunk") == 20
        artifacts = view(app, ArtifactsView)
        await wait_until(pilot, lambda: diagram_state(app) == "completed", 5, "completed")
        task = task_of(app)
        assert task is not None
        (key,) = task.artifacts
        await wait_until(pilot, lambda: artifacts.text_of(key) == full, 5, "the whole artifact")
        assert app.active.dialect_name == dialect

        # Back to the start and through the state changes to the end.
        await pilot.press("home")
        await settled(pilot, app)
        states = []
        for _ in range(6):
            await pilot.press("shift+right")
            c = await settled(pilot, app)
            await wait_until(pilot, lambda: task_of(app) is not None, 5, "the task")
            states.append(task_of(app).state.value)
            if states[-1] == "completed":
                break
        assert states[-1] == "completed" and "working" in states
        assert artifacts.text_of(key) == artifact_text(c.events[: c.cursor])


async def test_several_tasks_get_lanes_and_the_selection_survives_going_back(tmp_path: Path) -> None:
    path = await record(tmp_path / "r.jsonl", texts=("one", "two", "three"))
    app = open_replay(path)
    async with app.run_test(size=SIZE) as pilot:
        c = await settled(pilot, app)
        bar = view(app, ReplayBar)
        assert len(c.first_position) == 3 and len(bar.lane_tasks()) == 3
        lanes = bar.render().plain.splitlines()[2:]
        assert len(lanes) == 3 and all("completed" in lane for lane in lanes)
        # The newest task is followed, as live; going back keeps it while it exists.
        newest = max(c.first_position, key=lambda t: c.first_position[t])
        await wait_until(pilot, lambda: app.task_id == newest, 5, "the newest task")
        await pilot.press("shift+left")  # to the newest task's last state change (completed)
        await settled(pilot, app)
        await pilot.press("shift+left")  # the one before it: it started working
        await settled(pilot, app)
        assert c.rebuilds >= 2 and app.task_id == newest
        await wait_until(pilot, lambda: diagram_state(app) == "working", 5, "its earlier state")
        # The lane colours come from the $state-* variables.
        lane = bar._lane(newest, 60)
        working = bar.get_component_rich_style("replay-bar--working", partial=True)
        assert any(span.style.color == working.color for span in lane.spans if hasattr(span.style, "color"))


async def test_seeking_back_in_a_large_recording_rebuilds_at_the_target(tmp_path: Path) -> None:
    # How long it takes is measured by bench/replay.py, not asserted here.
    path = await record(tmp_path / "r.jsonl")
    big = inflate(path, tmp_path / "big.jsonl", chunks=10_000)
    recording = load_recording(big)
    assert len(recording.session) > 10_000
    now = [0.0]
    c = ReplayController(recording, name="big", clock=lambda: now[0])
    c.on_swap = lambda old, new: None
    c.seek(c.total - 1)
    c.settled()
    c.seek(c.total // 2)
    assert c.rebuilds == 1 and c.position == c.total // 2  # a key repeat's rebuild waits ...
    now[0] += 1
    c.tick()  # ... for the next frame
    assert c.rebuilds == 2 and len(c.conn.session) == c.total // 2


def inflate(source: Path, target: Path, *, chunks: int) -> Path:
    """``source`` with one of its stream's appended chunks repeated ``chunks`` times (seq
    and t renumbered): a large recording without a long mock run."""
    lines = source.read_text().splitlines()
    header, events = lines[0], [json.loads(line) for line in lines[1:]]
    first = next(
        i for i, e in enumerate(events) if e["kind"] == "sse" and '"append":true' in e.get("data", "").replace(" ", "")
    )
    out = [*events[: first + 1], *(dict(events[first]) for _ in range(chunks)), *events[first + 1 :]]
    t = 0.0
    for seq, event in enumerate(out, 1):
        t = max(t, event["t"]) + 1e-5
        event["seq"], event["t"] = seq, round(t, 6)
    target.write_text("\n".join([header, *(json.dumps(e) for e in out)]) + "\n")
    return target


# --------------------------------------------------------------------- the command


def test_launch_replay_refuses_a_missing_or_foreign_file(tmp_path: Path, capsys: Any) -> None:
    assert launch_replay(tmp_path / "nope.jsonl") == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nope.jsonl" in err and "No such file" in err

    foreign = tmp_path / "notes.txt"
    foreign.write_text("hello\n")
    assert launch_replay(foreign) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not an a2a-inspect recording" in err

    assert launch_replay(tmp_path) == 2  # a directory
    assert capsys.readouterr().err.count("\n") == 1


async def test_an_empty_recording_opens_and_the_keys_do_nothing_harmful(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    Recorder.attach(Session(), path).close()  # the header alone
    app = open_replay(path)
    async with app.run_test(size=SIZE) as pilot:
        c = await settled(pilot, app)
        assert c.total == 0
        await pilot.press("space", "right", "left", "shift+right", "shift+left", "plus", "minus", "home", "end")
        c = await settled(pilot, app)
        assert c.cursor == 0 and not c.playing
        assert "event 0/0" in view(app, ReplayBar).status_text()
