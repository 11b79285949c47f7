"""Saved agents kept as chosen (issue 28 item 7): saving keeps the name shown (the
card's, or the one typed) instead of renaming the open agent to host:port; the binding
chosen with shift+F8 and the dialect are saved and used when the agent is opened again;
``e`` edits every field of a saved agent; files written before the binding was saved
still load. And (item 11) a saved secret can be ``$VAR``: read from the environment, a
missing variable said by name."""

from __future__ import annotations

import json
from typing import Any

from inspector import store
from inspector.session.events import Kind
from inspector.ui.app import InspectorApp
from inspector.ui.screens.binding_menu import BindingMenu
from inspector.ui.widgets.connection_bar import connection_label
from mock_agent import MockAgent
from test_ui_agents import SIZE, fill_form, focus_panel, highlight
from ui_helpers import record_notifications, screen_text, wait_until


async def ready(pilot: Any, app: InspectorApp) -> Any:
    return await wait_until(
        pilot, lambda: app.active if app.active and app.active.state == "ready" else None, 10, "the agent to be ready"
    )


async def test_save_keeps_the_name_and_the_binding_then_edit_every_field() -> None:
    async with MockAgent("echo", dialect="all") as mock:
        app = InspectorApp(url=mock.url)
        async with app.run_test(size=SIZE) as pilot:
            conn = await ready(pilot, app)
            await pilot.press("shift+f8")
            await wait_until(pilot, lambda: isinstance(app.screen, BindingMenu), 3, "the binding menu")
            await pilot.press("down", "down", "enter")  # auto, jsonrpc, [rest]
            await wait_until(pilot, lambda: conn.binding_name == "rest" and conn.state == "ready", 10, "rest")
            await focus_panel(pilot, app)
            await pilot.press("s")
            form = await fill_form(pilot, app)
            assert form.query_one("#agent-name").value == "Echo Agent"
            assert form.query_one("#agent-binding").value == "rest"
            await pilot.press("ctrl+s")
            await wait_until(pilot, lambda: conn.saved_as == "Echo Agent", 3, "saved")
            # Still shown by the name it was saved under, not as host:port.
            assert connection_label(conn) == "Echo Agent"
            await wait_until(pilot, lambda: "Echo Agent (open)" in screen_text(app), 3, "listed as open")
            opened = screen_text(app).split("OPEN (1)")[1].split("SAVED")[0]
            assert "Echo Agent" in opened and "127.0.0.1:" not in opened.split("\n")[1], opened
        (saved,) = json.loads((store.config_dir() / "agents.json").read_text())
        assert (saved["name"], saved["binding"], saved["dialect"]) == ("Echo Agent", "rest", "auto")

        # Reopened in a new run: over REST from its first call; then edited with e.
        app = InspectorApp()
        said = record_notifications(app)
        async with app.run_test(size=SIZE) as pilot:
            p = await focus_panel(pilot, app)
            await wait_until(pilot, lambda: "Echo Agent" in screen_text(app), 3, "the saved agent")
            highlight(p, "saved:Echo Agent")
            await pilot.press("enter")
            conn = await ready(pilot, app)
            assert conn.requested_binding == "rest" and conn.binding_name == "rest"
            assert conn.binding_source == "user"

            highlight(p, "saved:Echo Agent")
            await pilot.press("e")
            form = await fill_form(pilot, app)
            assert not form.query_one("#agent-url").disabled  # every field, not the name only
            assert form.query_one("#agent-name").value == "Echo Agent"
            await fill_form(
                pilot,
                app,
                name="echo (1.0)",
                dialect="1.0",
                binding="jsonrpc",
                auth="bearer",
                secret="$A2A_TEST_ECHO_TOKEN",
                **{"hname-0": "X-Trace", "hvalue-0": "t-1"},
            )
            assert not form.query_one("#agent-secret").password  # $VAR is shown as typed
            await pilot.press("ctrl+s")
            await wait_until(pilot, lambda: app.agent_store.find("echo (1.0)"), 3, "the edit saved")
            assert conn.saved_as == "echo (1.0)" and connection_label(conn) == "echo (1.0)"
            assert any("keeps its settings" in n for n in said)
        (saved,) = json.loads((store.config_dir() / "agents.json").read_text())
        assert saved == {
            "name": "echo (1.0)",
            "url": mock.url,
            "dialect": "1.0",
            "binding": "jsonrpc",
            "headers": {"X-Trace": "t-1"},
            "auth": "bearer",
            "secret": {"env": "A2A_TEST_ECHO_TOKEN"},
        }


async def test_a_secret_from_the_environment_is_sent_and_a_missing_one_named(monkeypatch: Any) -> None:
    async with MockAgent("echo", dialect="all") as mock:
        store.AgentStore().add(
            store.SavedAgent(
                name="env agent",
                url=mock.url,
                auth="api-key",
                auth_header="X-Key",
                secret={"env": "A2A_TEST_KEY"},
                secret_headers={"X-Team-Token": {"env": "A2A_TEST_TEAM"}},
            )
        )
        monkeypatch.delenv("A2A_TEST_KEY", raising=False)
        monkeypatch.setenv("A2A_TEST_TEAM", "team-secret-value-1234")
        app = InspectorApp()
        said = record_notifications(app)
        async with app.run_test(size=SIZE) as pilot:
            p = await focus_panel(pilot, app)
            await wait_until(pilot, lambda: "env agent" in screen_text(app), 3, "the saved agent")
            highlight(p, "saved:env agent")
            await pilot.press("enter")
            await wait_until(pilot, lambda: any("A2A_TEST_KEY is not set" in n for n in said), 3, "the variable named")
            assert not app.connections and app.is_running

            monkeypatch.setenv("A2A_TEST_KEY", "key-from-the-environment-99")
            highlight(p, "saved:env agent")
            await pilot.press("enter")
            conn = await ready(pilot, app)
            card = next(e for e in conn.session.events if e.kind is Kind.REQUEST)
            assert card.data["headers"]["X-Key"] == "key-from-the-environment-99"
            assert card.data["headers"]["X-Team-Token"] == "team-secret-value-1234"
            # The form shows where the secrets come from, not their values.
            highlight(p, "saved:env agent")
            await pilot.press("e")
            form = await fill_form(pilot, app)
            assert form.query_one("#agent-secret").value == "$A2A_TEST_KEY"
            assert form.query_one("#agent-hvalue-0").value == "$A2A_TEST_TEAM"
            assert "key-from-the-environment" not in screen_text(app)
            await pilot.press("escape")


def test_files_saved_by_older_versions_still_load(tmp_path: Any) -> None:
    path = tmp_path / "agents.json"
    path.write_text(
        json.dumps(
            [
                {
                    "name": "old",
                    "url": "http://127.0.0.1:9",
                    "dialect": "0.3",
                    "headers": {},
                    "auth": "bearer",
                    "secret": "s3cret",
                },
                {"name": "bad ref", "url": "http://127.0.0.1:9", "secret": {"file": "x"}},
            ]
        )
    )
    agents = store.AgentStore(path)
    assert [(a.name, a.binding, a.secret) for a in agents.agents] == [("old", "auto", "s3cret")]
    assert "skipped saved agent #2" in (agents.problem or "")


async def test_the_sidebar_footer_with_e_edit_fits_80_columns() -> None:
    app = InspectorApp()
    async with app.run_test(size=(80, 24)) as pilot:
        await focus_panel(pilot, app)
        footer = await wait_until(
            pilot,
            lambda: (line := screen_text(app).splitlines()[-1]) and "e Edit" in line and line,
            3,
            "the sidebar's keys in the footer",
        )
        assert "s Save" in footer and "^o Connect" in footer, footer
