"""Pilot tests: the agents panel (saved agents across restarts, several open
connections) and the store's problems as notifications."""

from __future__ import annotations

import json
from typing import Any

from inspector import store
from inspector.session.events import Kind
from inspector.ui.app import InspectorApp
from inspector.ui.screens.agent_form import AgentForm
from inspector.ui.screens.confirm import ConfirmScreen
from inspector.ui.widgets.agents_panel import AgentsPanel
from inspector.ui.widgets.composer import Composer
from mock_agent import MockAgent
from ui_helpers import preview, record_notifications, screen_text, wait_until

SIZE = (120, 36)


def panel(app: InspectorApp) -> AgentsPanel:
    return app.screen.query_one(AgentsPanel)


async def focus_panel(pilot: Any, app: InspectorApp) -> AgentsPanel:
    p = panel(app)
    p.option_list.focus()
    await pilot.pause()
    return p


def highlight(p: AgentsPanel, option_id: str) -> None:
    ids = [o.id for o in p.option_list.options]
    p.option_list.highlighted = ids.index(option_id)


async def fill_form(pilot: Any, app: InspectorApp, **values: str) -> AgentForm:
    form = await wait_until(pilot, lambda: isinstance(app.screen, AgentForm) and app.screen, 3, "the form")
    for name, value in values.items():
        widget = form.query_one(f"#agent-{name}")
        widget.value = value
    await pilot.pause()
    return form


async def test_add_agent_survives_restart_then_rename_and_remove() -> None:
    async with MockAgent("echo", dialect="all") as mock:
        app = InspectorApp()
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: "SAVED (0)" in screen_text(app), 3, "the empty list")
            await focus_panel(pilot, app)
            await pilot.press("a")
            await fill_form(pilot, app, name="", url=mock.url)
            await pilot.press("ctrl+s")  # refused: no name
            assert isinstance(app.screen, AgentForm)
            assert "give the agent a name" in screen_text(app)
            await fill_form(pilot, app, name="local echo", dialect="0.3", auth="bearer", secret="s3cret")
            await pilot.press("ctrl+s")
            await wait_until(pilot, lambda: not isinstance(app.screen, AgentForm), 3, "the form to close")
            await wait_until(pilot, lambda: "local echo" in screen_text(app), 3, "the saved agent listed")
            assert "SAVED (1)" in screen_text(app)
        saved = json.loads((store.config_dir() / "agents.json").read_text())
        assert saved == [
            {
                "name": "local echo",
                "url": mock.url,
                "dialect": "0.3",
                "headers": {},
                "auth": "bearer",
                "secret": "s3cret",
            }
        ]

        # A new run, same user directories: the agent is there.
        app = InspectorApp()
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: "local echo" in screen_text(app), 3, "the saved agent")
            p = await focus_panel(pilot, app)
            highlight(p, "saved:local echo")
            await pilot.press("enter")
            conn = await wait_until(
                pilot,
                lambda: app.active if app.active and app.active.state == "ready" else None,
                10,
                "the saved agent to connect",
            )
            assert conn.saved_as == "local echo" and conn.dialect_name == "0.3"
            await wait_until(pilot, lambda: "local echo (open)" in screen_text(app), 3, "shown as open")
            assert "auth: bearer" in screen_text(app)
            card_request = next(e for e in conn.session.events if e.kind is Kind.REQUEST)
            assert card_request.data["headers"].get("Authorization") == "Bearer s3cret"
            # enter on the saved agent again switches to its connection instead of opening another
            highlight(p, "saved:local echo")
            await pilot.press("enter")
            await pilot.pause()
            assert len(app.connections) == 1

            highlight(p, "saved:local echo")
            await pilot.press("r")
            form = await fill_form(pilot, app, name="echo agent")
            assert form.query_one("#agent-url").disabled  # renaming changes the name only
            await pilot.press("enter")
            await wait_until(pilot, lambda: app.agent_store.find("echo agent"), 3, "the rename")
            assert app.agent_store.find("local echo") is None
            assert conn.saved_as == "echo agent" and conn.name == "echo agent"
            await wait_until(pilot, lambda: "echo agent (open)" in screen_text(app), 3, "the new name shown")

            highlight(p, "saved:echo agent")
            await pilot.press("d")
            await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), 3, "the confirmation")
            await pilot.press("n")
            assert app.agent_store.find("echo agent") is not None
            await pilot.press("d")
            await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), 3, "the confirmation")
            await pilot.press("y")
            await wait_until(pilot, lambda: not app.agent_store.agents, 3, "the removal")
            assert conn.saved_as is None
        assert store.AgentStore().agents == []


async def test_save_the_active_connection() -> None:
    async with MockAgent("echo", dialect="all") as mock:
        app = InspectorApp(url=mock.url)
        async with app.run_test(size=SIZE) as pilot:
            conn = await wait_until(pilot, lambda: app.active, 5, "a connection")
            await focus_panel(pilot, app)
            await pilot.press("s")
            form = await fill_form(pilot, app)
            assert form.query_one("#agent-url").value == mock.url
            assert form.query_one("#agent-name").value == "Echo Agent"  # the card's name
            await fill_form(pilot, app, name="[bold]mine[/bold]")
            await pilot.press("ctrl+s")
            await wait_until(pilot, lambda: conn.saved_as == "[bold]mine[/bold]", 3, "saved")
            await wait_until(pilot, lambda: "[bold]mine[/bold] (open)" in screen_text(app), 3, "listed literally")
            assert store.AgentStore().find("[bold]mine[/bold]").url == mock.url
            # saving again updates the same entry (here: under a new name)
            await pilot.press("s")
            await fill_form(pilot, app, name="mine")
            await pilot.press("ctrl+s")
            await wait_until(pilot, lambda: conn.saved_as == "mine", 3, "saved again")
            assert [a.name for a in store.AgentStore().agents] == ["mine"]


async def test_several_connections_news_dot_switch_and_close() -> None:
    # The story waits at a gate after its first chunk until the second agent is active,
    # so its later chunks surely arrive on a connection in the background.
    story = {
        "name": "story",
        "card": {"name": "Storyteller", "capabilities": {"streaming": True}},
        "rules": [
            {
                "script": [
                    {"status": "working", "message": "writing..."},
                    {"artifact": {"id": "story", "text": "Once upon a time, ", "last_chunk": False}},
                    {"hold": "more"},
                    {"artifact": {"id": "story", "text": "there was a test.", "append": True, "last_chunk": True}},
                    {"status": "completed", "message": "done"},
                ]
            }
        ],
    }
    async with MockAgent(story, dialect="all") as first, MockAgent("echo", dialect="all") as second:
        app = InspectorApp(url=first.url)
        async with app.run_test(size=SIZE) as pilot:
            a = await wait_until(
                pilot, lambda: app.active if app.active and app.active.state == "ready" else None, 10, "the first agent"
            )
            composer = app.screen.query_one(Composer)
            composer.text_area.focus()
            composer.set_text("stream a story")
            await preview(pilot, composer)  # the composer has heard the agent is ready
            await pilot.press("ctrl+s")
            await wait_until(pilot, lambda: app.task_id, 10, "the story task")
            b = app.connect_to(second.url)
            await wait_until(pilot, lambda: b.state == "ready" and app.active is b, 10, "the second agent")
            p = panel(app)
            # the first keeps streaming in the background: a dot says it has news
            await wait_until(pilot, lambda: first.held("more") == 1, 10, "the story waiting")
            first.release("more")
            await wait_until(pilot, lambda: a.id in p.news, 10, "news on the inactive connection")
            assert " ●" in screen_text(app)
            task = a.tracker.task(next(iter(a.tracker.tasks)))
            await wait_until(pilot, lambda: task.terminal, 15, "the story to finish in the background")

            await focus_panel(pilot, app)
            highlight(p, f"conn:{a.id}")
            await pilot.press("enter")
            await wait_until(pilot, lambda: app.active is a, 3, "the first agent active again")
            assert a.id not in p.news

            # an open connection that is not saved can be renamed too
            highlight(p, f"conn:{b.id}")
            await pilot.press("r")
            await fill_form(pilot, app, name="second one")
            await pilot.press("enter")
            await wait_until(pilot, lambda: b.name == "second one", 3, "the connection renamed")
            assert "second one" in screen_text(app) and not app.agent_store.agents

            highlight(p, f"conn:{b.id}")
            await pilot.press("w")
            await wait_until(pilot, lambda: b not in app.connections, 3, "the second closed")
            assert app.active is a
            assert "OPEN (1)" in screen_text(app)


async def test_bad_saved_agents_file_is_a_notification() -> None:
    path = store.config_dir() / "agents.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("[{not json")
    app = InspectorApp()
    said = record_notifications(app)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: any("agents.json" in n for n in said), 3, "a notification about the file")
        assert "SAVED (0)" in screen_text(app)
        assert path.with_suffix(".json.corrupt").exists()

        # a file that cannot be written is a notification too
        def broken() -> None:
            raise OSError(28, "No space left on device")

        app.agent_store.save = broken
        await focus_panel(pilot, app)
        await pilot.press("a")
        await fill_form(pilot, app, name="x", url="http://127.0.0.1:9")
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: any("No space left" in n for n in said), 3, "a notification about the write")
        assert app.is_running


async def test_form_validates_url_auth_and_duplicates() -> None:
    app = InspectorApp()
    app.agent_store.add(store.SavedAgent(name="taken", url="http://127.0.0.1:9"))
    async with app.run_test(size=SIZE) as pilot:
        await focus_panel(pilot, app)
        await pilot.press("a")
        for values, problem in [
            ({"name": "TAKEN", "url": "http://h"}, "is saved already"),
            ({"name": "new", "url": "ftp://h"}, "must start with http"),
            ({"name": "new", "url": "http://h", "auth": "basic", "secret": "nocolon"}, "user:password"),
            ({"name": "new", "url": "http://h", "auth": "api-key", "secret": ""}, "needs its key"),
        ]:
            await fill_form(pilot, app, **values)
            await pilot.press("ctrl+s")
            assert isinstance(app.screen, AgentForm)
            assert problem in screen_text(app), problem
        await fill_form(pilot, app, secret="k", header="X-Key")
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: app.agent_store.find("new"), 3, "saved")
        agent = app.agent_store.find("new")
        assert (agent.auth, agent.auth_header, agent.secret) == ("api-key", "X-Key", "k")
        await pilot.press("escape")
