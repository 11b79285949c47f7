"""The Check view (F7, or the palette's "Check the agent against the spec"): the probes
run against the active agent, results listed failures first, and enter on a failure
opens the exchange that shows it in the traffic view."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from inspector.ui.app import InspectorApp
from inspector.ui.screens.check import CheckScreen
from inspector.ui.widgets.traffic_view import TrafficView
from mock_agent import MockAgent
from test_ui_palette_themes import run_from_palette
from ui_helpers import screen_text, wait_until

SIZE = (140, 40)
NO_FINAL = Path(__file__).parent / "fixtures" / "check" / "stream-no-final.yaml"


async def ready(pilot: Any, app: InspectorApp) -> Any:
    return await wait_until(pilot, lambda: app.active if app.active and app.active.state == "ready" else None,
                            10, "the agent to be ready")


async def finished(pilot: Any, app: InspectorApp) -> CheckScreen:
    screen = await wait_until(pilot, lambda: app.screen if isinstance(app.screen, CheckScreen) else None,
                              5, "the Check view")
    await wait_until(pilot, lambda: screen.report is not None, 20, "the check to finish")
    await pilot.pause()
    return screen


async def test_a_failure_opens_its_exchange_in_the_traffic_view() -> None:
    with MockAgent(str(NO_FINAL)) as mock:
        app = InspectorApp(url=mock.base_url, binding="jsonrpc")
        async with app.run_test(size=SIZE) as pilot:
            conn = await ready(pilot, app)
            await pilot.press("f7")
            screen = await finished(pilot, app)
            text = screen_text(app)
            assert "1 failed" in text and "✗" in text and "messages.stream-text" in text
            failed = screen.results[0]
            assert failed.outcome == "fail" and failed.probe.id == "messages.stream-text"
            assert "The stream should complete" in text  # the rule, under the list
            await pilot.press("enter")
            view = await wait_until(pilot, lambda: next(iter(app.screen.query(TrafficView)), None)
                                    if not isinstance(app.screen, CheckScreen) else None, 5, "the traffic view")
            await wait_until(pilot, lambda: view.current() is not None and view.current().seq == failed.seq, 5,
                             "the failure's event selected")
            # The check's exchanges are the agent's session's, like any other.
            assert view.current().exchange in failed.exchanges
            assert any(e.seq == failed.seq for e in conn.session.events)


async def test_the_palette_runs_the_check_and_escape_closes_it() -> None:
    with MockAgent("echo") as mock:
        app = InspectorApp(url=mock.base_url, binding="rest")
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot, app)
            await run_from_palette(pilot, "Check the agent")
            screen = await finished(pilot, app)
            assert screen.report.count("fail") == 0 and screen.report.bindings == ["rest"]
            assert "0 failed" in screen_text(app)
            await pilot.press("escape")
            await wait_until(pilot, lambda: not isinstance(app.screen, CheckScreen), 5, "closed")
