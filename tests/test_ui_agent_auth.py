"""The agent form's auth (issue 12): the card's security schemes prefill it, custom
headers can be added, and a header marked secret is a credential: sent, saved, and
redacted in recordings like --secret-header."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from textual.widgets import Checkbox, Input, Select

from inspector.session import Kind
from inspector.ui.app import InspectorApp
from inspector.ui.screens.agent_form import AgentForm
from mock_agent import MockAgent
from ui_helpers import screen_text, wait_until

LOCKED_CARD = {
    "name": "locked",
    "card": {
        "name": "Locked Agent",
        "securitySchemes": {"key": {"type": "apiKey", "in": "header", "name": "X-Team-Key"}},
        "security": [{"key": []}],
    },
    "rules": [{"script": [{"status": "completed", "message": "ok"}]}],
}


async def ready(pilot: Any, app: InspectorApp) -> Any:
    return await wait_until(
        pilot, lambda: app.active if app.active and app.active.state == "ready" else None, 15, "connected"
    )


async def test_saving_prefills_auth_from_the_card_and_secret_headers_are_redacted(tmp_path: Path) -> None:
    async with MockAgent(LOCKED_CARD, dialect="1.0") as mock:
        app = InspectorApp(url=mock.url)
        async with app.run_test(size=(120, 40)) as pilot:
            await ready(pilot, app)
            await pilot.press("ctrl+b")
            await wait_until(
                pilot,
                lambda: app.screen.focused is not None and app.screen.focused.id == "agents-list",
                5,
                "the sidebar",
            )
            await pilot.press("s")
            form = await wait_until(pilot, lambda: isinstance(app.screen, AgentForm) and app.screen, 5, "form")
            await pilot.pause()
            # The card asks for an API key in X-Team-Key: that is what the form proposes.
            assert form.query_one("#agent-auth", Select).value == "api-key"
            assert form.query_one("#agent-header", Input).value == "X-Team-Key"
            assert "the card asks for: key (api-key X-Team-Key)" in screen_text(app)
            form.query_one("#agent-secret", Input).value = "team-key-123456"
            form.query_one("#agent-hname-0", Input).value = "X-Tenant"
            form.query_one("#agent-hvalue-0", Input).value = "acme"
            form.query_one("#agent-hname-1", Input).value = "X-Session-Secret"
            form.query_one("#agent-hvalue-1", Input).value = "s3cret-value-42"
            form.query_one("#agent-hsecret-1", Checkbox).value = True
            await pilot.pause()
            assert form.query_one("#agent-hvalue-1", Input).password  # a secret is not shown
            await pilot.press("ctrl+s")
            await wait_until(pilot, lambda: not isinstance(app.screen, AgentForm), 5, "saved")
            (saved,) = app.agent_store.agents
            assert saved.auth == "api-key" and saved.auth_header == "X-Team-Key"
            assert saved.headers == {"X-Tenant": "acme"}
            assert saved.secret_headers == {"X-Session-Secret": "s3cret-value-42"}

    # Opened again from the saved agents: the headers go out, the secret ones redacted.
    async with MockAgent(LOCKED_CARD, dialect="1.0") as mock:
        app = InspectorApp()
        async with app.run_test(size=(120, 40)) as pilot:
            agent = replace(app.agent_store.agents[0], url=mock.url)
            conn = app.connect_to(agent.url, saved=agent)
            await ready(pilot, app)
            record = tmp_path / "r.jsonl"
            app.start_recording(conn, record)
            await pilot.press("f3", *"hi", "ctrl+s")
            await wait_until(
                pilot,
                lambda: any(e.kind is Kind.RESPONSE and e.exchange > 1 for e in conn.session.events),
                10,
                "the answer",
            )
            sent = [e for e in conn.session.events if e.kind is Kind.REQUEST][-1].data["headers"]
            assert sent.get("X-Session-Secret") == "s3cret-value-42" and sent.get("X-Tenant") == "acme"
            conn.stop_recording()
            text = record.read_text()
            assert "s3cret-value-42" not in text and "team-key-123456" not in text
            assert "acme" in text
            requests = [json.loads(line) for line in text.splitlines()[1:] if '"kind":"request"' in line]
            assert requests[-1]["headers"]["X-Session-Secret"] == "[redacted]"
