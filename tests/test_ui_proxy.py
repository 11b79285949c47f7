"""``a2a-inspect proxy`` in the terminal UI (Pilot): the proxy's traffic opens as one
connection, and the tasks, task and traffic views show what the official a2a-sdk client
sends through it; each client is told apart and can be filtered; F10 lists the fault
rules, each switched on and off live."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from inspector.headless.proxy_cmd import ProxyOptions
from inspector.protocol import models as m
from inspector.ui.app import InspectorApp
from inspector.ui.widgets.traffic_model import Filter, TrafficIndex
from proxy_helpers import message, sdk_client
from ui_helpers import screen_text, wait_until

SIZE = (140, 42)


@contextlib.asynccontextmanager
async def proxy_app(upstream: str, faults: str | None = None) -> AsyncIterator[tuple[InspectorApp, Any, Any]]:
    app = InspectorApp(proxy=ProxyOptions(upstream=upstream, port=0, faults=faults))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.proxy is not None, 10, "the proxy to listen")
        yield app, pilot, app.proxy[1]


async def test_intercepted_traffic_fills_the_tasks_task_and_traffic_views(sdk_agent_compat: str) -> None:
    async with proxy_app(sdk_agent_compat) as (app, pilot, server):
        conn = app.active
        assert conn is not None and conn.state == "proxy" and conn.read_only
        async with sdk_client(server.base_url, streaming=True) as client:
            events = [e async for e in client.send_message(message("stream me please now"))]
        assert events
        task = await wait_until(pilot, lambda: next(iter(conn.tracker.tasks.values()), None), 10, "the task")
        await wait_until(pilot, lambda: task.state is m.TaskState.COMPLETED, 10, "the task completed")
        assert next(iter(task.artifacts.values())).text() == "echo: stream me please now"
        # The card the agent served, read from the intercepted card GET.
        await wait_until(pilot, lambda: conn.card is not None, 10, "the card")
        assert conn.card.name == "Echo Agent"

        app.action_view("tasks")
        await wait_until(pilot, lambda: task.id[:8] in screen_text(app), 5, "the task in the tasks view")
        app.select_task(task.id)
        app.action_view("task")
        await wait_until(pilot, lambda: "completed" in screen_text(app), 5, "the state diagram")
        # The message is the client's, not the reader's.
        user = await wait_until(
            pilot,
            lambda: [v for v in app.screen.query("MessageView") if v.kind == "user"],
            5,
            "the client's message in the conversation",
        )
        assert [v.label for v in user] == ["client"] and "stream me please now" in user[0].plain
        app.action_view("traffic")
        await wait_until(pilot, lambda: "127.0.0.1:" in screen_text(app), 5, "the client in the traffic view")
        assert "proxy" in screen_text(app)

        index = TrafficIndex(conn.session, conn.tracker.exchange_task)
        index.set_filter(Filter.parse("client:127.0.0.1 kind:req"))
        index.catch_up(budget=10)
        assert len(index.rows) == 2  # the card GET and the stream
        index.set_filter(Filter.parse("client:nobody"))
        index.catch_up(budget=10)
        assert len(index.rows) == 0
        assert conn.tracker.violations == []


async def test_two_clients_are_told_apart_and_filtered_by_user_agent(sdk_agent_v10: str) -> None:
    import httpx

    async with proxy_app(sdk_agent_v10) as (app, pilot, server):
        conn = app.active
        async with httpx.AsyncClient(headers={"User-Agent": "orchestrator/2.1"}) as http:
            await http.get(f"{server.base_url}/.well-known/agent-card.json")
        async with sdk_client(server.base_url, streaming=False) as client:
            [r async for r in client.send_message(message("hello there"))]
        await wait_until(pilot, lambda: any(t.terminal for t in conn.tracker.tasks.values()), 10, "the task")
        index = TrafficIndex(conn.session, conn.tracker.exchange_task)
        index.set_filter(Filter.parse("client:orchestrator kind:req"))
        index.catch_up(budget=10)
        assert len(index.rows) == 1
        index.set_filter(Filter.parse("-client:orchestrator kind:req"))
        index.catch_up(budget=10)
        assert len(index.rows) == 2  # the SDK's card GET and its send
        app.action_view("traffic")
        await wait_until(pilot, lambda: "orchestrator/2.1" in screen_text(app), 5, "the user agent on screen")


async def test_f10_lists_the_fault_rules_and_switches_them(sdk_agent_v10: str, tmp_path: Any) -> None:
    faults = tmp_path / "faults.yaml"
    faults.write_text(
        "- name: slow sends\n  match: {method: SendMessage}\n  fault: {delay: 10ms}\n"
        "- match: {method: GetTask}\n  fault: {error: -32001}\n  enabled: false\n"
    )
    async with proxy_app(sdk_agent_v10, str(faults)) as (app, pilot, server):
        rules = app.proxy[0].rules
        await pilot.press("f10")
        await wait_until(pilot, lambda: "slow sends" in screen_text(app), 5, "the rules listed")
        text = screen_text(app)
        assert "● on" in text and "○ off" in text and "error=-32001" in text
        await pilot.press("space")
        await wait_until(pilot, lambda: not rules.rules[0].enabled, 5, "rule 1 off")
        await pilot.press("down", "space")
        await wait_until(pilot, lambda: rules.rules[1].enabled, 5, "rule 2 on")
        await pilot.press("escape")
        async with sdk_client(server.base_url, streaming=False) as client:
            [r async for r in client.send_message(message("hello there"))]
        conn = app.active
        await wait_until(pilot, lambda: any(t.terminal for t in conn.tracker.tasks.values()), 10, "the task")
        # Rule 1 was off: nothing injected into the send.
        assert not any(e.data.get("injected") for e in conn.session.events)


async def test_the_task_view_shows_the_likely_caller_with_the_reason() -> None:
    from inspector.serving.runner import BackgroundServer
    from mock_agent import MockAgent
    from proxy_helpers import MOCK_SCENARIO
    from test_proxy_routes import _ask_orchestrator, orchestrator

    sub: dict[str, str] = {}
    async with MockAgent(MOCK_SCENARIO, dialect="1.0") as mock:
        with BackgroundServer(orchestrator(sub, pass_context=True)) as orch:
            app = InspectorApp(proxy=ProxyOptions(port=0, routes=[("/orch", orch.url), ("/sub", mock.base_url)]))
            async with app.run_test(size=SIZE) as pilot:
                await wait_until(pilot, lambda: app.proxy is not None, 10, "the proxy to listen")
                server = app.proxy[1]
                sub["url"] = f"{server.base_url}/sub/"
                top = await _ask_orchestrator(server.base_url, "weather", "ctx-9")
                conn = app.active
                child = await wait_until(
                    pilot,
                    lambda: next((t for t in conn.tracker.tasks.values() if t.parent == top["id"]), None),
                    10,
                    "the link",
                )
                app.action_view("task")
                # The caller's side first (the view follows the newest task), then the callee's.
                await wait_until(pilot, lambda: "likely called  task" in screen_text(app), 5, "the callee shown")
                app.select_task(child.id)
                await wait_until(pilot, lambda: "likely called by" in screen_text(app), 5, "the caller shown")
                assert "same contextId ctx-9" in screen_text(app).replace("\n", " ")


async def test_proxied_grpc_rows_in_the_traffic_view_and_the_bar(sdk_agent_grpc: tuple[str, str]) -> None:
    from test_proxy_grpc import grpc_client

    base, _target = sdk_agent_grpc
    async with proxy_app(base) as (app, pilot, server):
        conn = app.active
        await wait_until(pilot, lambda: "dialect per exchange" in screen_text(app), 5, "the proxy's bar")
        assert "(recording)" not in screen_text(app)
        async with grpc_client(server.base_url, streaming=True) as client:
            events = [e async for e in client.send_message(message("stream me over grpc"))]
        assert events
        task = await wait_until(pilot, lambda: next(iter(conn.tracker.tasks.values()), None), 10, "the task")
        await wait_until(pilot, lambda: task.state is m.TaskState.COMPLETED, 10, "the task completed")
        assert next(iter(task.artifacts.values())).text() == "echo: stream me over grpc"
        await pilot.press("f5")
        await wait_until(pilot, lambda: "(application/grpc)" in screen_text(app), 5, "the gRPC stream's row")
        assert "grpc-python" in screen_text(app)  # the gRPC client, by its user agent
        await wait_until(pilot, lambda: "dialect per exchange: 1.0" in screen_text(app), 5, "the dialect seen")
        index = TrafficIndex(conn.session, conn.tracker.exchange_task)
        index.set_filter(Filter.parse("kind:req"))
        index.catch_up(budget=10)
        assert len(index.rows) == 2  # the card GET (HTTP) and the gRPC stream
        assert conn.tracker.violations == []


async def test_f10_s_rules_wrap_whole_at_80_columns(tmp_path: Any) -> None:
    """At 80x24 the rules table cut each rule at the dialog's edge, and with it the
    fault (the rule said "→ duplicate" and "→ http=5"). The rule column wraps now."""
    from pathlib import Path

    from inspector.proxy import load_rules
    from inspector.ui.screens.fault_rules import FaultRulesScreen, rule_text

    rules = load_rules(Path(__file__).parent / "fixtures" / "proxy" / "faults.yaml")
    app = InspectorApp()
    async with app.run_test(size=(80, 24)) as pilot:
        app.push_screen(FaultRulesScreen(rules))
        await wait_until(pilot, lambda: isinstance(app.screen, FaultRulesScreen), 5, "the fault rules")
        await pilot.pause()
        await pilot.pause()
        region = app.screen.query_one("#fault-rules-table").region
        lines = screen_text(app).split("\n")[region.y : region.bottom]
        shown = " ".join(" ".join(line[region.x : region.right] for line in lines).split())
        for i, rule in enumerate(rules.rules):
            assert " ".join(rule_text(i, rule).split()) in shown
