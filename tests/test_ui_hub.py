"""``a2a-inspect hub`` in the terminal UI (Pilot): each ws-agent that registers opens as
``ws-agent://NAME`` with its card, and the composer, the task views and the traffic view
work with it as with an HTTP agent; the traffic view shows every frame, heartbeats too."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import AsyncIterator
from typing import Any

from hub_scenario import ws_agent
from inspector.headless.hub_cmd import HubOptions
from inspector.hub import HubLimits
from inspector.protocol import models as m
from inspector.session import Kind
from inspector.ui.app import InspectorApp
from inspector.ui.widgets.traffic_model import TrafficIndex, direction
from inspector.ui.widgets.traffic_view import TrafficView
from ui_helpers import one_read, screen_text, wait_until

SIZE = (130, 40)


def params(text: str, task_id: str | None = None) -> m.SendParams:
    return m.SendParams(
        message=m.Message(
            role=m.Role.USER, parts=[m.TextPart(text=text)], message_id=str(uuid.uuid4()), task_id=task_id
        )
    )


@contextlib.asynccontextmanager
async def hub_app(**limits: Any) -> AsyncIterator[tuple[InspectorApp, Any, Any]]:
    options = HubOptions(port=0, limits=HubLimits(**limits))
    app = InspectorApp(hub=options)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.hub is not None, 10, "the hub to listen")
        yield app, pilot, app.hub[1]


async def agent_ready(pilot: Any, name: str = "helper") -> Any:
    app = pilot.app
    conn = await wait_until(pilot, lambda: app.hub_connection(name), 10, f"ws-agent://{name} to open")
    await wait_until(pilot, lambda: conn.state == "ready", 10, "the connection to be ready")
    return conn


async def test_a_registered_agent_opens_with_its_card_and_streams_from_the_composer() -> None:
    async with hub_app() as (app, pilot, server), ws_agent(server.ws_url):
        conn = await agent_ready(pilot)
        assert conn.name == "helper" and conn.url == "ws-agent://helper"
        assert app.active is conn
        assert conn.card is not None and conn.card.name == "Hub Test Agent"
        assert conn.dialect_name == "0.1"
        app.action_view("card")
        await wait_until(pilot, lambda: "Hub Test Agent" in screen_text(app), 5, "the card on screen")

        # Compose and stream, as for an HTTP agent: the composer streams (the card says so).
        app.action_view("task")
        await pilot.pause()
        await pilot.press(*"stream it")
        await pilot.press("ctrl+s")
        await wait_until(
            pilot,
            lambda: any(
                a.text() == "Once upon a time." for t in conn.tracker.tasks.values() for a in t.artifacts.values()
            ),
            10,
            "the assembled story",
        )
        task = next(iter(conn.tracker.tasks.values()))
        await wait_until(pilot, lambda: task.terminal, 10, "the task to complete")
        assert [c.state for c in task.timeline] == [m.TaskState.WORKING, m.TaskState.COMPLETED]
        assert app.task_id == task.id
        await wait_until(pilot, lambda: "Once upon a time." in screen_text(app), 5, "the story on screen")
        assert conn.tracker.violations == []


async def test_input_required_cancel_and_get_through_the_hub() -> None:
    async with hub_app() as (app, pilot, server), ws_agent(server.ws_url) as agent:
        conn = await agent_ready(pilot)
        app.send_message(conn, params("ask me"), stream=False)
        task = await wait_until(pilot, lambda: next(iter(conn.tracker.tasks.values()), None), 10, "the task")
        await wait_until(pilot, lambda: task.state is m.TaskState.INPUT_REQUIRED, 10, "input-required")
        app.send_message(conn, params("Paris", task.id), stream=False)
        await wait_until(pilot, lambda: task.state is m.TaskState.COMPLETED, 10, "the task to complete")
        assert task.text() == "sunny in Paris"
        assert len(conn.tracker.tasks) == 1

        app.send_message(conn, params("wait"), stream=True)
        await wait_until(pilot, lambda: agent.held("work") == 1, 10, "the task to reach its gate")
        waiting = next(t for t in conn.tracker.tasks.values() if t.id != task.id)
        app.task_action(conn, "cancel", waiting.id)
        await wait_until(pilot, lambda: waiting.state is m.TaskState.CANCELED, 10, "the task canceled")

        app.task_action(conn, "get", task.id)
        await wait_until(pilot, lambda: app.task_id == task.id, 10, "the fetched task shown")
        assert conn.tracker.violations == []


async def test_traffic_shows_every_frame_both_ways_heartbeats_included() -> None:
    # A 0.3 s timeout asks the agent for a heartbeat every 0.1 s.
    async with hub_app(heartbeat_timeout=0.3) as (app, pilot, server), ws_agent(server.ws_url):
        conn = await agent_ready(pilot)
        app.send_message(conn, params("hello"), stream=False)
        await wait_until(pilot, lambda: any(t.terminal for t in conn.tracker.tasks.values()), 10, "the task")
        await wait_until(
            pilot,
            lambda: (
                sum(1 for e in conn.session.events if e.kind is Kind.WS and e.data.get("rpc_method") == "heartbeat")
                >= 2
            ),
            10,
            "heartbeats",
        )
        index = TrafficIndex(conn.session, conn.tracker.exchange_task)
        index.catch_up(budget=10)
        rows = [index.events[p] for p in index.rows]
        methods = [(direction(e), index.method(e)) for e in rows if e.kind is Kind.WS]
        assert ("←", "agent.register") in methods
        assert ("→", "tasks/send") in methods
        assert ("←", "task.complete") in methods
        assert ("←", "heartbeat") in methods
        app.action_view("traffic")
        await wait_until(pilot, lambda: app.screen.focused and app.screen.focused.id == "traffic-list", 5, "the list")
        # Found as a person finds them among a flood of heartbeats: by the filter. From the
        # first event they may be screens away: on a loaded machine the connection takes
        # seconds to open, while heartbeats (and the hub's notes of late ones) keep coming.
        view = app.screen.query_one(TrafficView)
        for arrow, method in (("→", "tasks/send"), ("←", "task.complete"), ("←", "heartbeat")):
            one_read(app, ["slash", "ctrl+u", *f"method:{method}", "enter"])
            await wait_until(pilot, lambda m=method: view.index.filter.text == f"method:{m}", 5, f"the filter {method}")
            await wait_until(
                pilot,
                lambda a=arrow, m=method: any(f"{a} ws" in row and m in row for row in screen_text(app).splitlines()),
                5,
                f"{method} frames in the traffic view",
            )


async def test_a_dropped_socket_shows_offline_and_the_task_failed() -> None:
    async with hub_app() as (app, pilot, server), ws_agent(server.ws_url) as agent:
        conn = await agent_ready(pilot)
        seen: list[tuple[str, str]] = []
        # After the app's own listener: the state the connection was given for each change.
        app.hub[0].listeners.append(lambda what, entry: seen.append((what, conn.state)))
        app.send_message(conn, params("drop it"), stream=True)
        await wait_until(pilot, lambda: agent.held("drop") == 1, 10, "the task to reach the drop")
        agent.release("drop")
        task = next(iter(conn.tracker.tasks.values()))
        await wait_until(pilot, lambda: task.state is m.TaskState.FAILED, 10, "the task failed")
        assert "disconnected" in task.status_message.parts[0].text
        # The mock comes back: the same connection, ready again.
        await wait_until(pilot, lambda: agent.connections == 2 and conn.state == "ready", 10, "back again")
        assert seen[0] == ("offline", "offline") and seen[1][0] == "registered"
        assert len([c for c in app.connections if c.name == "helper"]) == 1


async def test_the_delegation_chain_shows_parent_and_child() -> None:
    from hub_helpers import RawAgent, text_parts
    from inspector.ui.widgets.state_diagram import StateDiagram

    async with hub_app() as (app, pilot, server), ws_agent(server.ws_url), RawAgent(server.ws_url) as lead:
        helper = await agent_ready(pilot, "helper")
        await lead.register("lead")
        boss = await agent_ready(pilot, "lead")
        app.active = boss
        app.send_message(boss, params("research this"), stream=True)
        req = await lead.next_request()
        parent_id = req["params"]["id"]
        await lead.notify("task.status", {"id": parent_id, "status": {"state": "working"}, "final": False})
        # The mock helper echoes; the hub answers once its task settles.
        answer = await lead.call(
            "agent.send_task", {"agent": "helper", "message": {"role": "user", "parts": text_parts("find papers")}}
        )
        child_id = answer["result"]["id"]
        assert answer["result"]["metadata"]["parent_task_id"] == parent_id
        await lead.notify("task.complete", {"id": parent_id, "status": {"state": "completed"}})

        await wait_until(pilot, lambda: boss.tracker.children.get(parent_id) == [child_id], 10, "the child link")
        child = await wait_until(pilot, lambda: helper.tracker.task(child_id), 10, "the child at the helper")
        assert child.parent == parent_id

        app.select_task(parent_id)
        app.action_view("task")
        diagram = app.main.query_one(StateDiagram)
        await wait_until(pilot, lambda: "delegated to  task " in str(diagram.render()), 5, "the chain")
        app.active = helper
        app.select_task(child_id)
        await wait_until(pilot, lambda: "delegated by  task " in str(diagram.render()), 5, "the parent")
        assert "(lead)" in str(diagram.render())


async def test_a_hub_recording_replays_in_the_ui(tmp_path) -> None:
    from hub_helpers import running_hub
    from inspector.client import A2AClient
    from inspector.session import Recorder
    from inspector.ui.replay_app import open_replay
    from inspector.ui.widgets.state_diagram import StateDiagram

    path = tmp_path / "hub.jsonl"
    async with running_hub() as (hub, server):
        recorder = Recorder.attach(hub.session, path)
        async with ws_agent(server.ws_url), A2AClient(f"{server.base_url}/agents/helper") as client:
            events = [
                e
                async for e in client.stream(
                    {"message": {"role": "user", "parts": [{"kind": "text", "text": "stream it"}]}}
                )
            ]
        recorder.close()
    task_id = events[-1].task_id

    app = open_replay(path, background=False)
    async with app.run_test(size=SIZE) as pilot:
        conn = await wait_until(pilot, lambda: app.active, 10, "the recording to open")
        await wait_until(
            pilot,
            lambda: conn.tracker.task(task_id) is not None and conn.tracker.task(task_id).terminal,
            10,
            "the task replayed",
        )
        task = conn.tracker.task(task_id)
        assert [c.state for c in task.timeline] == [m.TaskState.WORKING, m.TaskState.COMPLETED]
        assert next(iter(task.artifacts.values())).text() == "Once upon a time."
        assert conn.card is not None and conn.card.name == "Hub Test Agent"
        app.select_task(task_id)
        app.action_view("task")
        diagram = app.main.query_one(StateDiagram)
        await wait_until(pilot, lambda: "completed" in str(diagram.render()), 5, "the diagram")
        await pilot.press("f5")
        await wait_until(pilot, lambda: "task.artifact" in screen_text(app), 5, "frames in the traffic view")


async def test_recording_the_hub_and_one_agent_from_the_ui(tmp_path) -> None:
    from inspector.session import load_recording
    from inspector.session.diff import exchanges

    whole, one = tmp_path / "hub.jsonl", tmp_path / "helper.jsonl"
    app = InspectorApp(hub=HubOptions(port=0, limits=HubLimits(), record=str(whole)))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.hub is not None, 10, "the hub to listen")
        async with ws_agent(app.hub[1].ws_url):
            conn = await agent_ready(pilot)
            app.start_recording(conn, one)  # what ctrl+r does, to a chosen file
            assert conn.recording == one
            app.send_message(conn, params("hello"), stream=False)
            await wait_until(pilot, lambda: any(t.terminal for t in conn.tracker.tasks.values()), 10, "the task")
            conn.stop_recording()
    for path in (whole, one):
        loaded = load_recording(path)
        assert loaded.problems == []
        sends = [ex for ex in exchanges(loaded.session.events) if ex.a2a_method == "send"]
        assert len(sends) == 1 and sends[0].url.endswith("/agents/helper"), path
    # The hub's recording has the sockets' openings too; the agent's, its frames.
    kinds = {e.data.get("op") for e in load_recording(whole).session.events if e.kind is Kind.WS}
    assert {"open", "text"} <= kinds
