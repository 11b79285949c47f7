"""The Check view (F7, or the palette's "Check the agent against the spec"): the probes
run against the active agent; failures first, skips grouped by reason and folded
(s unfolds them), passes folded into one line (p); enter on a failure opens the
exchange that shows it in the traffic view; o sets the --ask text, the --running-text
and the groups, remembered for the agent; r runs again. The view shows the active
agent's last run, and says when one is in progress."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from inspector.ui.app import InspectorApp
from inspector.ui.screens.check import CheckScreen, CheckTree
from inspector.ui.screens.check_options import CheckOptionsScreen
from inspector.ui.widgets.connection_bar import connection_label
from inspector.ui.widgets.traffic_view import TrafficView
from mock_agent import MockAgent
from test_ui_palette_themes import run_from_palette
from ui_helpers import screen_text, wait_until

SIZE = (140, 40)
FIXTURES = Path(__file__).parent / "fixtures" / "check"
NO_FINAL = FIXTURES / "stream-no-final.yaml"
#: Streams end without a final event (the failure); "hold…" holds a task, "ask…" asks,
#: "wait…" waits for the gate "test", then asks.
ASKING = FIXTURES / "no-final-asks-holds.yaml"


@pytest.fixture(scope="module")
def asking() -> Iterator[MockAgent]:
    with MockAgent(str(ASKING)) as mock:
        yield mock


async def ready(pilot: Any, app: InspectorApp) -> Any:
    return await wait_until(
        pilot, lambda: app.active if app.active and app.active.state == "ready" else None, 10, "the agent to be ready"
    )


async def check_view(pilot: Any, app: InspectorApp) -> CheckScreen:
    return await wait_until(
        pilot, lambda: app.screen if isinstance(app.screen, CheckScreen) else None, 5, "the Check view"
    )


async def finished(pilot: Any, app: InspectorApp, number: int = 1) -> CheckScreen:
    screen = await check_view(pilot, app)
    await wait_until(
        pilot,
        lambda: screen.run is not None and screen.run.number == number and screen.report is not None,
        # A run is ~3 s of probes on a quiet machine; under a CPU hog with the suite's
        # workers beside it, one took longer than 30 s.
        90,
        f"check run {number} to finish",
    )
    await pilot.pause()
    return screen


def outcome(screen: CheckScreen, probe: str) -> str:
    found = {r.outcome for r in screen.results if r.probe.id == probe}
    assert len(found) == 1, (probe, found)
    return found.pop()


async def set_options(
    pilot: Any, app: InspectorApp, ask: str | None = None, running: str | None = None, off: tuple[str, ...] = ()
) -> None:
    """o, then the form: the texts typed over what was there, every group but those in
    ``off`` switched on (space), ctrl+s to run."""
    await pilot.press("o")
    form = await wait_until(
        pilot, lambda: app.screen if isinstance(app.screen, CheckOptionsScreen) else None, 5, "the options form"
    )
    for value in (ask, running):
        if value is not None:
            typed = ["space" if c == " " else c for c in value]
            await pilot.press("ctrl+a", "ctrl+k", *typed)  # home, delete to the end, type
        await pilot.press("tab")
    from inspector.check import GROUPS

    chosen = set(form.query_one("#check-groups").selected)
    for group in GROUPS:
        if (group in chosen) == (group in off):
            await pilot.press("space")
        await pilot.press("down")
    await pilot.pause()
    assert form.query_one("#check-groups").selected == [g for g in GROUPS if g not in off]
    await pilot.press("ctrl+s")
    await wait_until(pilot, lambda: not isinstance(app.screen, CheckOptionsScreen), 5, "the form closed")


async def test_a_failure_opens_its_exchange_in_the_traffic_view() -> None:
    with MockAgent(str(NO_FINAL)) as mock:
        app = InspectorApp(url=mock.base_url, binding="jsonrpc")
        async with app.run_test(size=SIZE) as pilot:
            conn = await ready(pilot, app)
            await pilot.press("f7")
            screen = await finished(pilot, app)
            text = screen_text(app)
            assert re.search(r"1 failed · \d+ passed · \d+ skipped", text) and "✗" in text
            assert "messages.stream-text" in text
            failed = screen.results[0]
            assert failed.outcome == "fail" and failed.probe.id == "messages.stream-text"
            assert "The stream should complete" in text  # the rule, under the list
            await pilot.press("enter")
            view = await wait_until(
                pilot,
                lambda: (
                    next(iter(app.screen.query(TrafficView)), None) if not isinstance(app.screen, CheckScreen) else None
                ),
                5,
                "the traffic view",
            )
            await wait_until(
                pilot,
                lambda: view.current() is not None and view.current().seq == failed.seq,
                5,
                "the failure's event selected",
            )
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


async def test_failures_first_skips_grouped_by_reason_and_folded_passes_in_one_line(asking: MockAgent) -> None:
    app = InspectorApp(url=asking.base_url, binding="jsonrpc")
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await pilot.press("f7")
        screen = await finished(pilot, app)
        o = screen.run
        skipped = [r for r in o.results if r.outcome == "skip"]
        reasons = {r.reason for r in skipped}
        passed = sum(1 for r in o.results if r.outcome == "pass")
        text = screen_text(app)
        # The summary line counts each outcome, and the reasons the skips share.
        assert f"1 failed · {passed} passed · {len(skipped)} skipped ({len(reasons)} reasons)" in text
        rows = [node for node in screen.query_one(CheckTree).root.children]
        # The rows: the failure, one per skip reason (folded), one for every pass (folded).
        assert len(rows) == 1 + len(reasons) + 1
        assert rows[0].data[1].outcome == "fail" and not rows[0].children
        assert all(not row.is_expanded for row in rows[1:])
        assert "2 skipped: the card does not declare capabilities.pushNotifications" in text
        lines = text.splitlines()
        where = {
            what: next(i for i, line in enumerate(lines) if what in line)
            for what in (
                "✗ messages.stream-text",
                "skipped: the card does not declare an extended card",
                f"✓ {passed} passed",
            )
        }
        assert (
            where["✗ messages.stream-text"]
            < where["skipped: the card does not declare an extended card"]
            < where[f"✓ {passed} passed"]
        )
        # Folded: the probes a reason skipped, and the passes, one to a line, are not shown.
        assert "push.config  [jsonrpc]" not in text and "✓ card.lint  [agent]" not in text
        # The cursor starts on the failure; its rule is below the list.
        assert "rule: 0.3 StreamResponse" in text
        await pilot.press("s")
        await pilot.pause()
        text = screen_text(app)
        assert "push.config  [jsonrpc]  a push config is set" in text
        assert "✓ card.lint  [agent]" not in text
        rows = list(screen.query_one(CheckTree).root.children)
        assert all(row.is_expanded for row in rows[1:-1]) and not rows[-1].is_expanded
        await pilot.press("p")
        await pilot.pause()
        assert "✓ card.lint  [agent]  the card has no lint errors" in screen_text(app)
        await pilot.press("s")
        await pilot.pause()
        assert "push.config  [jsonrpc]" not in screen_text(app)
        # F7 on the open view (the app's key, priority) opens no second view, runs nothing.
        depth = len(app.screen_stack)
        await pilot.press("f7")
        await pilot.pause()
        assert len(app.screen_stack) == depth and app.screen is screen and screen.run is o
        # A skip group highlighted says what skipped and why, and which option helps.
        tree = screen.query_one(CheckTree)
        group = next(n for n in tree.root.children if n.data[0].startswith("skip:no --ask"))
        tree.move_cursor(group)
        await pilot.pause()
        assert "o sets the ask these probes need" in screen_text(app)


async def test_options_make_the_ask_and_running_probes_run_and_are_kept_for_the_agent(asking: MockAgent) -> None:
    app = InspectorApp(url=asking.base_url, binding="jsonrpc")
    async with app.run_test(size=SIZE) as pilot:
        conn = await ready(pilot, app)
        await pilot.press("f7")
        screen = await finished(pilot, app)
        assert outcome(screen, "multi-turn.continue") == "skip"
        # The ask text and the running text typed in the form, and two groups left on:
        # the probes the texts enable run, and only those groups' probes.
        await set_options(
            pilot, app, ask="ask me", running="hold on", off=("card", "messages", "errors", "push", "bindings")
        )
        screen = await finished(pilot, app, 2)
        assert {r.probe.group for r in screen.results} == {"tasks", "multi-turn"}
        assert outcome(screen, "multi-turn.continue") == "pass"
        assert outcome(screen, "tasks.subscribe-running") == "pass"
        assert outcome(screen, "tasks.cancel-running") == "pass"
        assert "ask: 'ask me' · running text: 'hold on' · groups: tasks, multi-turn" in screen_text(app)
        # Only multi-turn now; the texts stay as they were (the form shows them).
        from inspector.check import GROUPS

        await set_options(pilot, app, off=tuple(g for g in GROUPS if g != "multi-turn"))
        screen = await finished(pilot, app, 3)
        assert {r.probe.group for r in screen.results} == {"multi-turn"}
        assert outcome(screen, "multi-turn.continue") == "pass"  # the ask text was kept
        # Closed and opened again: the last run and the options are still the agent's.
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, CheckScreen), 5, "closed")
        await pilot.press("f7")
        screen = await finished(pilot, app, 3)
        assert "run 3" in screen_text(app) and "groups: multi-turn" in screen_text(app)
        await pilot.press("o")
        form = await wait_until(
            pilot, lambda: app.screen if isinstance(app.screen, CheckOptionsScreen) else None, 5, "the options form"
        )
        assert form.query_one("#check-ask").value == "ask me"
        assert form.query_one("#check-running").value == "hold on"
        assert form.query_one("#check-groups").selected == ["multi-turn"]
        await pilot.press("escape")  # changes nothing, runs nothing
        await wait_until(pilot, lambda: isinstance(app.screen, CheckScreen), 5, "back to the view")
        assert app.checks.run_for(conn).number == 3


async def test_a_run_in_progress_says_so_and_a_rerun_replaces_the_results(asking: MockAgent) -> None:
    app = InspectorApp(url=asking.base_url, binding="jsonrpc")
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot, app)
        await pilot.press("f7")
        screen = await finished(pilot, app)
        first = list(screen.results)
        first_failure = first[0]
        # "wait…" holds the multi-turn probe's task at the gate: the run is in progress.
        # (Two groups: the failure's and the held probe's, to keep the test short.)
        await set_options(pilot, app, ask="wait for me", off=("card", "errors", "tasks", "push", "bindings"))
        await wait_until(pilot, lambda: asking.held("test") == 1, 20, "the probe held at the gate")
        await pilot.pause()
        text = screen_text(app)
        assert "· run 2" in text and re.search(r"running… \d+ probes so far", text), text
        assert not {id(r) for r in first} & {id(r) for r in screen.results}  # nothing of run 1 on screen
        # Closed and opened again while it runs: the same run, still in progress.
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, CheckScreen), 5, "closed")
        await pilot.press("f7")
        screen = await check_view(pilot, app)
        await pilot.pause()
        assert "· run 2" in screen_text(app) and "running…" in screen_text(app)
        assert asking.release("test") == 1
        screen = await finished(pilot, app, 2)
        text = screen_text(app)
        assert "· run 2 · 1.0 · jsonrpc" in text and "1 failed ·" in text and "running…" not in text
        assert outcome(screen, "multi-turn.continue") == "pass"
        # r: run 3, with the same options; enter opens run 3's failure, not run 1's.
        await pilot.press("r")
        await wait_until(pilot, lambda: asking.held("test") == 1, 20, "the probe held at the gate")
        asking.release("test")
        screen = await finished(pilot, app, 3)
        failure = screen.results[0]
        assert failure.outcome == "fail" and failure.seq != first_failure.seq
        await pilot.press("enter")
        view = await wait_until(
            pilot,
            lambda: (
                next(iter(app.screen.query(TrafficView)), None) if not isinstance(app.screen, CheckScreen) else None
            ),
            5,
            "the traffic view",
        )
        await wait_until(
            pilot,
            lambda: view.current() is not None and view.current().seq == failure.seq,
            5,
            "run 3's failure selected",
        )


async def test_another_agent_never_shows_the_first_agents_results() -> None:
    with MockAgent(str(NO_FINAL)) as broken, MockAgent("echo") as good:
        app = InspectorApp(url=broken.base_url, binding="jsonrpc")
        async with app.run_test(size=SIZE) as pilot:
            first = await ready(pilot, app)
            await pilot.press("f7")
            await finished(pilot, app)
            assert "1 failed" in screen_text(app)
            await pilot.press("escape")
            await wait_until(pilot, lambda: not isinstance(app.screen, CheckScreen), 5, "closed")
            second = app.connect_to(good.base_url, binding="jsonrpc")
            await wait_until(pilot, lambda: app.active is second and second.state == "ready", 10, "agent 2")
            await pilot.press("f7")
            screen = await finished(pilot, app)
            text = screen_text(app)
            assert f"Check of {connection_label(second)} · run 1" in text and "0 failed ·" in text
            assert "messages.stream-text" not in text
            # The active agent changes under the open view: it shows that agent's run.
            app.active = first
            await pilot.pause()
            text = screen_text(app)
            assert f"Check of {connection_label(first)} · run 1" in text and "1 failed ·" in text
            assert "✗ messages.stream-text" in text
            assert screen.run is app.checks.run_for(first)
            # An agent not checked yet: nothing of another agent's, and r runs its check.
            third = app.connect_to(good.base_url, binding="rest", name="third")
            await wait_until(pilot, lambda: third.state == "ready", 10, "agent 3")
            app.active = third
            await pilot.pause()
            text = screen_text(app)
            assert "Check of third" in text and "· run 1" not in text and "not checked yet: r runs the check" in text
            assert "failed" not in text and "passed" not in text
            await pilot.press("r")
            await finished(pilot, app)
            assert "Check of third · run 1" in screen_text(app) and "0 failed ·" in screen_text(app)


MARKUP = "[bold red]boom[/] [link=http://example.invalid]here[/link]"
#: An agent that answers every message with an error whose text is Rich markup.
ERRING = {
    "name": "markup-errors",
    "card": {
        "name": "Erring Agent",
        "description": "Errs.",
        "version": "1.0.0",
        "capabilities": {"streaming": True},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "err", "name": "Err", "description": "Errs", "tags": ["err"]}],
    },
    "fallback": [{"error": {"code": -32603, "message": MARKUP}}],
}


async def test_the_agents_words_are_shown_literally() -> None:
    with MockAgent(ERRING) as mock:
        app = InspectorApp(url=mock.base_url, binding="jsonrpc")
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot, app)
            await pilot.press("f7")
            screen = await finished(pilot, app)
            failed = next(r for r in screen.results if r.probe.id == "messages.send-text")
            assert failed.outcome == "fail" and MARKUP in failed.reason
            tree = screen.query_one(CheckTree)
            tree.move_cursor(next(n for n in tree.root.children if n.data[1] is failed))
            await pilot.pause()
            text = screen_text(app)
            assert "[bold red]boom[/] [link=http://example.invalid]here[/link]" in text


async def test_an_agent_gone_is_one_line_and_r_tries_again() -> None:
    mock = MockAgent("echo").start()
    try:
        app = InspectorApp(url=mock.base_url, binding="jsonrpc")
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot, app)
            mock.stop()
            await pilot.press("f7")
            screen = await finished(pilot, app)
            assert screen.report.unreachable and screen.results == []
            text = screen_text(app)
            assert "the agent could not be reached: " in text and "Traceback" not in text
            await pilot.press("r")
            await finished(pilot, app, 2)
            assert "· run 2" in screen_text(app) and "the agent could not be reached: " in screen_text(app)
    finally:
        mock.stop()


async def test_the_title_names_the_agent_as_the_bar_does() -> None:
    # The card's name, not the host:port the connection was opened with.
    with MockAgent("echo") as good:
        app = InspectorApp(url=good.base_url, binding="jsonrpc")
        async with app.run_test(size=SIZE) as pilot:
            conn = await ready(pilot, app)
            assert conn.card is not None and conn.card.name and conn.card.name != conn.name
            await pilot.press("f7")
            await finished(pilot, app)
            assert f"Check of {conn.card.name} · run 1" in screen_text(app)
