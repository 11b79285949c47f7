"""TLS in saved agents (issue 28 item 12): the form takes a CA file, a client certificate
and key, and "insecure"; the file keeps their paths (never what they hold); opening the
agent uses them; an insecure agent is marked in the connection bar and noted in its
session; a file gone missing is said by name instead of connecting."""

from __future__ import annotations

import json
from typing import Any

from inspector import store
from inspector.session.events import Kind
from inspector.ui.app import InspectorApp
from inspector.ui.widgets.connection_bar import INSECURE_MARK
from test_ui_agents import SIZE, fill_form, focus_panel, highlight
from tls_peers import Pki, https_agent, mtls_agent, pki  # noqa: F401 - fixtures
from ui_helpers import record_notifications, screen_text, wait_until


async def _open(pilot: Any, app: InspectorApp, name: str) -> None:
    p = await focus_panel(pilot, app)
    await wait_until(pilot, lambda: name in screen_text(app), 3, "the saved agent")
    highlight(p, f"saved:{name}")
    await pilot.press("enter")


async def _settled(pilot: Any, app: InspectorApp) -> Any:
    return await wait_until(
        pilot,
        lambda: app.active if app.active and app.active.state in ("ready", "error") else None,
        15,
        "the agent to answer",
    )


async def test_the_form_saves_tls_paths_and_opening_uses_them(mtls_agent: str, pki: Pki) -> None:
    app = InspectorApp()
    async with app.run_test(size=SIZE) as pilot:
        await focus_panel(pilot, app)
        await pilot.press("a")
        await fill_form(pilot, app, name="mtls", url=mtls_agent, key=str(pki.client_key))
        await pilot.press("ctrl+s")  # a key without its certificate is refused
        assert "give the cert file too" in screen_text(app)
        await fill_form(pilot, app, cacert=str(pki.ca), cert=str(pki.client_cert))
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: app.agent_store.find("mtls"), 3, "saved")
        await _open(pilot, app, "mtls")
        conn = await _settled(pilot, app)
        assert conn.state == "ready", conn.error
        assert INSECURE_MARK not in screen_text(app)
    (saved,) = json.loads((store.config_dir() / "agents.json").read_text())
    assert (saved["cacert"], saved["cert"], saved["key"]) == (str(pki.ca), str(pki.client_cert), str(pki.client_key))
    text = (store.config_dir() / "agents.json").read_text()
    assert "PRIVATE KEY" not in text and "BEGIN CERTIFICATE" not in text and "insecure" not in text


async def test_an_untrusted_agent_fails_in_words_and_insecure_connects_marked(https_agent: str) -> None:
    agents = store.AgentStore()
    agents.add(store.SavedAgent(name="plain", url=https_agent))
    agents.add(store.SavedAgent(name="unchecked", url=https_agent, insecure=True))
    app = InspectorApp()
    async with app.run_test(size=SIZE) as pilot:
        await _open(pilot, app, "plain")
        conn = await _settled(pilot, app)
        assert conn.state == "error" and "CA file" in str(conn.error), conn.error
        assert INSECURE_MARK not in screen_text(app)

        await _open(pilot, app, "unchecked")
        conn = await wait_until(
            pilot,
            lambda: (
                app.active
                if app.active and app.active.saved_as == "unchecked" and app.active.state == "ready"
                else None
            ),
            15,
            "the insecure agent ready",
        )
        await wait_until(pilot, lambda: INSECURE_MARK in screen_text(app), 3, "the bar's mark")
        assert any(e.kind is Kind.NOTE and e.data.get("code") == "tls-insecure" for e in conn.session.events)


async def test_a_missing_tls_file_is_named_instead_of_connecting(tmp_path: Any) -> None:
    gone = tmp_path / "gone.pem"
    store.AgentStore().add(store.SavedAgent(name="lost ca", url="https://127.0.0.1:9", cacert=str(gone)))
    app = InspectorApp()
    said = record_notifications(app)
    async with app.run_test(size=SIZE) as pilot:
        await _open(pilot, app, "lost ca")
        await wait_until(
            pilot,
            lambda: any("CA file: cannot read" in n and str(gone) in n for n in said),
            3,
            "the file named",
        )
        assert not app.connections and app.is_running


async def test_the_command_lines_tls_options_reach_the_agent_opened_with_the_ui(https_agent: str, pki: Pki) -> None:
    from inspector.cli import build_tui_parser
    from inspector.headless.tls_args import tls_options

    args = build_tui_parser().parse_args([https_agent, "--cacert", str(pki.ca)])
    app = InspectorApp(url=args.url, tls=tls_options(args))
    async with app.run_test(size=SIZE) as pilot:
        conn = await _settled(pilot, app)
        assert conn.state == "ready", conn.error
