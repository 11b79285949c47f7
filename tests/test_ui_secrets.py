"""The TUI's traffic view masks secrets until ``v`` (a bearer token, a header whose name
says it is a credential, a URL's token, the user's token echoed in a body), and an
agent's 5 MB error message opens in ctrl+e as its start and its size."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from inspector.client import Auth
from inspector.protocol import models as m
from inspector.serving.runner import BackgroundServer
from inspector.session import Kind
from inspector.ui.app import InspectorApp
from inspector.ui.connection import AgentConnection
from test_terminal_secrets import HUGE, reflecting_agent
from ui_helpers import screen_text, wait_until

BEARER = "UI-bearer-s3cret-0001"
HEADER = "UI-header-s3cret-0002"
QUERY = "UI-query-s3cret-0003"
#: What the screen shows for a secret (session.redact.MASK), and how much of an error's
#: detail ctrl+e shows (ui.app.ERROR_DETAIL_LIMIT): spelled out, so that this test also
#: runs, and fails, against a tree without them.
MASK = "••••••"
ERROR_DETAIL_LIMIT = 8192


@pytest.fixture(scope="module")
def agent() -> Iterator[str]:
    with BackgroundServer(reflecting_agent()) as srv:
        yield srv.url


def _params(text: str) -> m.SendParams:
    return m.SendParams(
        message=m.Message(role=m.Role.USER, parts=[m.TextPart(text=text)], message_id=str(uuid.uuid4()))
    )


async def test_the_traffic_detail_masks_secrets_until_v(agent: str) -> None:
    from inspector.ui.widgets.traffic_view import TrafficView

    app = InspectorApp()
    async with app.run_test(size=(160, 50)) as pilot:
        conn = AgentConnection(
            f"{agent}/?token={QUERY}&v=1", headers={"X-Auth-Token": HEADER}, auth=Auth.bearer(BEARER)
        )
        app.open_connection(conn)
        app.connect(conn)
        await wait_until(pilot, lambda: conn.state == "ready", 10, "connected")
        # The agent echoes the text: the token comes back in the answer's body.
        app.send_message(conn, _params(f"my token is {BEARER}"), stream=False)
        await wait_until(
            pilot,
            lambda: any(e.kind is Kind.RESPONSE and e.exchange == 2 for e in conn.session.events),
            10,
            "the answer",
        )
        await pilot.press("f5")
        view = app.screen.query_one(TrafficView)
        detail = view.detail
        # The card's GET, the send, and the answer echoing the token.
        exchanges = [e for e in conn.session.events if e.kind in (Kind.REQUEST, Kind.RESPONSE)]
        assert len(exchanges) >= 4
        for event in exchanges:
            detail.show_event(event, view.index)
            await pilot.pause()
            text = detail.text()
            for secret in (BEARER, HEADER, QUERY):
                assert secret not in text, f"#{event.seq}: {secret} shown:\n{text}"
            assert MASK in text, text
        request = conn.session.events[0]
        assert request.kind is Kind.REQUEST
        detail.show_event(request, view.index)
        await pilot.pause()
        text = detail.text()
        assert f"Authorization: Bearer {MASK}0001" in text and f"X-Auth-Token: {MASK}0002" in text
        assert f"token={MASK}" in text and "v=1" in text
        assert QUERY not in screen_text(app)  # the list's row of the GET too
        view.traffic_list.focus()
        await pilot.press("v")
        await wait_until(pilot, lambda: BEARER in detail.text(), 5, "the secrets shown")
        assert HEADER in detail.text() and QUERY in detail.text()
        await pilot.press("v")
        await wait_until(pilot, lambda: BEARER not in detail.text(), 5, "the secrets masked again")


async def test_a_huge_error_message_opens_bounded_in_ctrl_e(agent: str) -> None:
    from textual.widgets import Static

    from inspector.ui.screens.errors import ErrorsScreen

    app = InspectorApp(url=agent)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: app.active is not None and app.active.state == "ready", 10, "connected")
        app.send_message(app.active, _params("huge"), stream=False)
        await wait_until(pilot, lambda: app.errors, 10, "the error")
        _, title, detail = app.errors[-1]
        assert len(detail) < ERROR_DETAIL_LIMIT + 200, f"{len(detail):,} characters kept for ctrl+e"
        assert "-32603" in detail and "more characters; the traffic view has it whole" in detail
        await pilot.press("ctrl+e")
        await wait_until(pilot, lambda: isinstance(app.screen, ErrorsScreen), 5, "the errors screen")
        shown = sum(len(str(s.render())) for s in app.screen.query(Static))
        assert shown < ERROR_DETAIL_LIMIT + 1000
        # The whole message is still in the session (and any recording of it).
        assert any("E" * HUGE in (e.data.get("body") or "") for e in app.active.session.events)
