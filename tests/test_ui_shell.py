"""The app shell: connections open and close cleanly, whatever is in flight."""

from __future__ import annotations

import uuid

import pytest

from inspector.protocol import models as m
from inspector.session import Kind, Session
from inspector.ui.app import InspectorApp
from inspector.ui.connection import AgentConnection
from mock_agent import MockAgent
from ui_helpers import record_notifications, screen_text, wait_until


def _params(text: str) -> m.SendParams:
    return m.SendParams(
        message=m.Message(role=m.Role.USER, parts=[m.TextPart(text=text)], message_id=str(uuid.uuid4()))
    )


async def test_closing_a_connection_mid_stream_stops_the_stream_without_an_error() -> None:
    # The stream stays open until the connection is closed: the agent waits at a gate.
    waits = {
        "name": "waits",
        "card": {"name": "Waits", "capabilities": {"streaming": True}},
        "rules": [{"script": [{"status": "working"}, {"hold": "never"}, {"status": "completed"}]}],
    }
    async with MockAgent(waits, dialect="1.0") as mock:
        app = InspectorApp(url=mock.url)
        async with app.run_test(size=(120, 36)) as pilot:
            conn = await wait_until(
                pilot, lambda: app.active if app.active and app.active.state == "ready" else None, what="connected"
            )
            app.send_message(conn, _params("slow one two three"), stream=True)
            await wait_until(
                pilot, lambda: any(e.kind is Kind.SSE for e in conn.session.events), what="the stream to start"
            )
            await app.close_connection(conn)
            await pilot.pause(0.1)
            assert conn not in app.connections
            assert app.active is None
            assert app.errors == []
            assert not [w for w in app.workers if w.group == f"conn-{conn.id}" and not w.is_finished]


async def test_closing_a_connection_collects_the_whole_heap_only_after_a_big_session(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A whole-heap collection at every close took ~0.3-1.6 s of CPU in a test process (it
    # looks at everything alive) for the few frozen cycles a short session leaves.
    from inspector import gcpolicy
    from inspector.ui import app as app_module

    reclaimed: list[int] = []
    monkeypatch.setattr(gcpolicy, "installed", lambda: True)  # as the CLI and conftest have it
    monkeypatch.setattr(gcpolicy, "reclaim", lambda: reclaimed.append(1) or 0)
    async with MockAgent("echo", dialect="all") as mock:
        app = InspectorApp(url=mock.url)
        async with app.run_test(size=(120, 36)) as pilot:
            small = await wait_until(
                pilot, lambda: app.active if app.active and app.active.state == "ready" else None, what="connected"
            )
            held = len(small.session.events)
            await app.close_connection(small)
            assert reclaimed == [], "a short session's close collected the whole heap"
            assert 0 < held < app_module.RECLAIM_AFTER_EVENTS
            # The same with a session counted big: its objects are collected at once.
            monkeypatch.setattr(app_module, "RECLAIM_AFTER_EVENTS", 1)
            big = app.connect_to(mock.url)
            await wait_until(pilot, lambda: big.state == "ready", what="connected again")
            await app.close_connection(big)
            assert reclaimed == [1]
            assert app.connections == [] and app.errors == []


VIEW_KEYS = {"card": "f2", "task": "f3", "tasks": "f4", "traffic": "f5", "push": "f6"}


def _tour(pairs: dict[str, list[tuple[object, str]]], start: str) -> list[tuple[str, object, str]]:
    """An order for checking every (source tab, widget focused there, target tab) once,
    where each check's key press lands on the next check's source tab whenever one is
    left there: about half the tab switches of going back to the source every time.
    Returns (tab to go to first, widget, target); the tab is the current one except
    after a tab whose checks are all done."""
    left = {tab: list(items) for tab, items in pairs.items()}
    order: list[tuple[str, object, str]] = []
    at = start
    while any(left.values()):
        if not left[at]:
            at = max(left, key=lambda tab: len(left[tab]))
        # Go on to the target with the most checks left, so that the tour rarely
        # lands on a tab with none.
        item = max(left[at], key=lambda pair: len(left[pair[1]]))
        left[at].remove(item)
        order.append((at, *item))
        at = item[1]
    return order


# About 50 checks, at ~0.1-0.4 s of rendering per tab switch: a tour (_tour) rather
# than a return to the source tab before each check.
async def test_view_keys_switch_from_every_focusable_of_every_view() -> None:
    # Hiding a tab whose focused widget has a focusable sibling made Textual move focus
    # to that (also hidden) sibling, and the tabs followed focus straight back.
    from textual.widgets import TabbedContent

    keys = VIEW_KEYS
    async with MockAgent("echo", dialect="all") as mock:
        app = InspectorApp(url=mock.url)
        async with app.run_test(size=(120, 36)) as pilot:
            await wait_until(pilot, lambda: app.active is not None and app.active.state == "ready", 10, "connected")
            tabs = app.screen.query_one("#views", TabbedContent)
            pairs: dict[str, list[tuple[object, str]]] = {}
            for source, key in keys.items():
                await pilot.press(key)
                await wait_until(pilot, lambda source=source: tabs.active == source, 5, f"the {source} tab")
                pane = tabs.get_pane(source)
                focusables = [w for w in app.screen.focus_chain if pane in w.ancestors]
                assert focusables, f"nothing to focus on the {source} tab"
                pairs[source] = [(widget, target) for widget in focusables for target in keys if target != source]
            checked = 0
            for source, widget, target in _tour(pairs, tabs.active):
                if tabs.active != source:
                    app.action_view(source)
                    await pilot.pause()
                assert tabs.active == source
                widget.focus()
                await pilot.pause()
                await pilot.press(keys[target])
                await pilot.pause()
                where = f"{keys[target]} with {widget!r} focused on the {source} tab"
                assert tabs.active == target, where
                focused = app.screen.focused
                assert focused is None or all(node.display for node in focused.ancestors_with_self), (
                    f"{where}: focus left on hidden {focused!r}"
                )
                checked += 1
            assert checked == sum(len(items) for items in pairs.values())


async def test_a_json_rpc_error_is_a_notification_with_its_code_one_key_from_the_detail() -> None:
    from textual.widgets import Static

    from inspector.ui.screens.errors import ErrorsScreen
    from inspector.ui.widgets.traffic_view import TrafficView

    async with MockAgent("demo", dialect="all", time_scale=0.01) as mock:
        app = InspectorApp(url=mock.url)
        said = record_notifications(app)
        async with app.run_test(size=(120, 36)) as pilot:
            await wait_until(pilot, lambda: app.active is not None and app.active.state == "ready", 10, "connected")
            app.send_message(app.active, _params("trigger an error"), stream=True)
            # The notification is a message the app handles after recording the error:
            # wait for both, or a loaded machine sees the first without the second.
            await wait_until(
                pilot,
                lambda: app.errors and any(n.severity == "error" for n in said),
                10,
                "the error and its notification",
            )
            _, title, detail = app.errors[-1]
            assert "-32603" in detail and "The demo agent failed on purpose." in detail
            notes = [n for n in said if n.severity == "error"]
            assert notes and "-32603" in notes[-1].message and "ctrl+e" in notes[-1].message
            # ctrl+e: every error in full, the scripted data included.
            await pilot.press("ctrl+e")
            await wait_until(pilot, lambda: isinstance(app.screen, ErrorsScreen), 5, "the errors screen")
            shown = "\n".join(str(s.render()) for s in app.screen.query(Static))
            assert "-32603" in shown and "this error was scripted by the demo scenario" in shown
            await pilot.press("escape")
            await wait_until(pilot, lambda: not isinstance(app.screen, ErrorsScreen), 5, "back")
            # The traffic view names the code on the event that carried it.
            await pilot.press("f5")
            app.screen.query_one(TrafficView)
            await wait_until(pilot, lambda: "rpc -32603" in screen_text(app), 5, "the error code on screen, whole")


async def test_a_view_on_its_way_out_gets_no_more_updates() -> None:
    """A view removed (the app quitting as the hidden tabs' views mount: a removed view's
    mount handler sets nothing up) is no longer told about connections, tasks and new
    events: here each late view in turn is gone while a message is sent and its task runs
    to the end (one app for the four: the start is not what is tested)."""
    async with MockAgent("echo", dialect="all") as mock:
        app = InspectorApp(url=mock.url)
        async with app.run_test(size=(120, 36)) as pilot:
            await wait_until(pilot, lambda: app.active is not None and app.active.state == "ready", 10, "the agent")
            conn = app.active
            for view_id in ("card-view", "tasks-view", "traffic-view", "push-panel"):
                await wait_until(pilot, lambda view_id=view_id: app.screen.query(f"#{view_id}"), 10, view_id)
                await app.screen.query_one(f"#{view_id}").remove()
                before = set(conn.tracker.tasks)
                app.send_message(
                    conn,
                    m.SendParams(
                        message=m.Message(
                            role=m.Role.USER, parts=[m.TextPart(text="still here?")], message_id=str(uuid.uuid4())
                        )
                    ),
                    stream=True,
                )
                await wait_until(
                    pilot,
                    lambda before=before: (
                        set(conn.tracker.tasks) - before and all(t.terminal for t in conn.tracker.tasks.values())
                    ),
                    10,
                    f"the task to end without the {view_id}",
                )
                await pilot.pause()
                assert app.is_running and not app.errors, (view_id, app.errors)
        assert app.return_code in (0, None)


async def test_a_view_removed_as_it_mounts_does_nothing() -> None:
    """The Card, Tasks, Traffic and Push views mount after the first frame; quitting in
    that moment removes one as it mounts. Its mount handler then finds its children on
    their way out: it must do nothing rather than fail (the app's exit would show a
    traceback). Here the removal comes before each view's mount is handled, every time."""
    from textual.containers import Container

    from inspector.ui.screens.main import hidden_tab_view

    app = InspectorApp()
    async with app.run_test(size=(100, 30)) as pilot:
        app.open_connection(AgentConnection("http://127.0.0.1:9/", session=Session(), read_only=True))
        await pilot.pause()
        for name in ("card", "tasks", "traffic", "push"):
            holder = Container()
            await app.screen.mount(holder)
            view = hidden_tab_view(name)
            holder.mount(view)  # not awaited: the removal below is flagged before the view's Mount runs
            await holder.remove()
            await pilot.pause()
            assert not view.is_attached, name
            assert app.return_code is None, f"the app ended after the {name} view was removed as it mounted"
    assert app.return_code in (0, None)
