"""A served card that does not decode is reported in the TUI as what it is ("invalid agent
card: ..."), not as "this agent serves no card"; an agent with no card at all still is."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from inspector.serving.runner import BackgroundServer
from inspector.ui.app import InspectorApp
from inspector.ui.widgets.card_view import CardView
from ui_helpers import screen_text, wait_until

BODIES = {
    "array": (b"[1, 2]", "expected an agent card object, got array"),
    "too-deep": (b"[" * 100_000 + b"]" * 100_000, "nested more than 200"),  # (the line wraps after this)
    "wrong-types": (b'{"name": 5, "url": 7}', "$.name: Input should be a valid string"),
}


def card_app() -> Starlette:
    async def card(request: Request) -> Response:
        what = request.path_params["what"]
        if what not in BODIES:
            return Response("not here", status_code=404)
        return Response(BODIES[what][0], media_type="application/json")

    async def rpc(request: Request) -> Response:
        return Response(
            '{"jsonrpc": "2.0", "id": null, "error": {"code": -32601, "message": "no"}}', media_type="application/json"
        )

    return Starlette(routes=[Route("/{what}/.well-known/{name}", card), Route("/{what}", rpc, methods=["POST"])])


@pytest.fixture(scope="module")
def agent() -> Iterator[str]:
    with BackgroundServer(card_app()) as srv:
        yield srv.url


async def card_text(url: str) -> tuple[str, CardView]:
    app = InspectorApp(url=url)
    async with app.run_test(size=(160, 40)) as pilot:
        await wait_until(
            pilot, lambda: app.active is not None and app.active.state in ("ready", "error"), 15, "connected"
        )
        await pilot.press("f2")
        view = app.screen.query_one(CardView)
        await wait_until(pilot, lambda: "fetching the card" not in screen_text(app), 5, "the card view")
        await pilot.pause()
        return screen_text(app), view


@pytest.mark.parametrize("what", sorted(BODIES))
async def test_an_invalid_card_is_reported_as_invalid(agent: str, what: str) -> None:
    text, _view = await card_text(f"{agent}/{what}")
    assert f"invalid agent card at {agent}/{what}/.well-known/agent-card.json:" in text
    assert BODIES[what][1] in text
    assert "serves no card" not in text


async def test_an_agent_without_a_card_serves_none(agent: str) -> None:
    text, _view = await card_text(f"{agent}/none")
    assert "this agent serves no card" in text
    assert "invalid agent card" not in text
