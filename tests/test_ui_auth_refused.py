"""Pilot tests: a 401 in the TUI says which credential the card asks for and where to
set it, as the command line's hint does; the bar names the credential sent (issue 28
item 9)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from inspector import store
from inspector.ui.app import InspectorApp
from inspector.ui.widgets.composer import Composer
from mock_agent import MockAgent
from ui_helpers import record_notifications, screen_text, wait_until

SIZE = (140, 40)
#: A card that asks for a bearer token, and an agent that refuses every call.
LOCKED = {
    "name": "locked",
    "card": {
        "name": "Locked Agent",
        "securitySchemes": {"bearerAuth": {"type": "http", "scheme": "bearer"}},
        "security": [{"bearerAuth": []}],
    },
    "rules": [{"script": [{"http": {"status": 401, "body": "no token", "content_type": "text/plain"}}]}],
}
#: A card that asks for an API key in a header of its own, and an agent that answers.
KEYED = {
    "name": "keyed",
    "card": {
        "name": "Keyed Agent",
        "securitySchemes": {"key": {"type": "apiKey", "in": "header", "name": "X-Team-Key"}},
        "security": [{"key": []}],
    },
    "rules": [{"script": [{"status": "completed", "message": "ok"}]}],
}


async def ready(pilot: Any, app: InspectorApp) -> Any:
    return await wait_until(
        pilot, lambda: app.active if app.active and app.active.state == "ready" else None, 15, "connected"
    )


async def send(pilot: Any, app: InspectorApp, text: str) -> None:
    composer = app.screen.query_one(Composer)
    composer.text_area.focus()
    composer.set_text(text)
    await pilot.press("ctrl+s")


async def test_a_401_says_which_credential_the_card_asks_for_and_where_to_set_it() -> None:
    async with MockAgent(LOCKED, dialect="1.0") as mock:
        app = InspectorApp(url=mock.url)
        said = record_notifications(app)
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot, app)
            await send(pilot, app, "hi")
            await wait_until(pilot, lambda: app.errors, 10, "the refusal")
            hint = (
                "refused (401); the card asks for a bearer token in scheme 'bearerAuth': set it in a saved "
                "agent (ctrl+b, then s saves this agent, its auth prefilled from the card)"
            )
            # In the toast, and in ctrl+e's list, on screen.
            assert any(hint in n.message for n in said)
            assert hint in app.errors[-1][2]
            await pilot.press("ctrl+e")
            await wait_until(
                pilot,
                lambda: "scheme 'bearerAuth': set it in a saved" in screen_text(app),
                3,
                "the hint in the error details",
            )


async def test_a_refused_credential_is_named_and_the_saved_agents_edit_is_the_place(tmp_path: Path) -> None:
    async with MockAgent(LOCKED, dialect="1.0") as mock:
        agents = store.AgentStore(tmp_path / "agents.json")
        saved = store.SavedAgent(
            name="locked",
            url=mock.url,
            auth="api-key",
            auth_header="X-Team-Key",
            secret="k",
            secret_headers={"X-Trace": "t"},
        )
        app = InspectorApp(agent_store=agents)
        async with app.run_test(size=SIZE) as pilot:
            app.connect_to(mock.url, saved=saved)
            await ready(pilot, app)
            # The bar names what is sent: never "custom" for an API key with a secret header.
            await wait_until(
                pilot,
                lambda: "auth: api key in header X-Team-Key + secret header X-Trace" in screen_text(app),
                3,
                "the bar's auth",
            )
            await send(pilot, app, "hi")
            await wait_until(pilot, lambda: app.errors, 10, "the refusal")
            assert (
                "refused (401) with api key in header X-Team-Key + secret header X-Trace sent; the card asks "
                "for a bearer token in scheme 'bearerAuth': check it (ctrl+b, then e edits the saved agent's "
                "auth)"
            ) in app.errors[-1][2]


async def test_an_api_key_agent_that_answers_gets_no_hint_and_its_scheme_in_the_bar(tmp_path: Path) -> None:
    async with MockAgent(KEYED, dialect="1.0") as mock:
        saved = store.SavedAgent(name="keyed", url=mock.url, auth="api-key", auth_header="X-Team-Key", secret="k")
        app = InspectorApp(agent_store=store.AgentStore(tmp_path / "agents.json"))
        async with app.run_test(size=SIZE) as pilot:
            app.connect_to(mock.url, saved=saved)
            conn = await ready(pilot, app)
            await wait_until(pilot, lambda: "auth: api key in header X-Team-Key" in screen_text(app), 3, "the bar")
            await send(pilot, app, "hi")
            await wait_until(
                pilot,
                lambda: any(t.state and t.state.value == "completed" for t in conn.tracker.tasks.values()),
                10,
                "the answer",
            )
            assert app.errors == []
