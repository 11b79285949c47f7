"""A deterministic demo of the inspector, for the snapshot tests and scripts/screenshots.py.

The app is the real ``InspectorApp`` talking to the real mock agent (``MockServer``, the
demo scenario's card and rules), driven through the composer the way a user would. Only
what would differ from run to run is pinned:

* **No socket.** The mock's ASGI app is reached through ``httpx.ASGITransport`` at a fixed
  URL (``URL``), so no port shows anywhere (bar, card, requests, Host headers) and no
  server date header either. ASGITransport hands over a stream's body when the stream
  ends, which is all a snapshot taken after the stream needs.
* **One virtual clock** (``VirtualClock``) behind the session's timestamps, the client's
  latencies (``inspector.client.transport``'s ``perf_counter``), the mock's status
  timestamps (``mock_agent.engine.now``) and the tasks list's ages. It ticks a little at
  every reading, and the drive advances it between user actions, so times look real.
* **Seeded ids**: ``uuid.uuid4`` of the mock (task, context and message ids), of the
  composer (message ids) and of card discovery (probe ids), each from its own seeded
  generator, so the order in which they interleave does not matter.
* **TZ=UTC** (the traffic detail prints wall times), a dialect cache that remembers
  nothing, default settings, and no blinking cursors.

``deterministic()`` installs all of that (and undoes it); ``SnapshotApp`` is the app;
``drive(pilot)`` plays the session; ``show(pilot, screen)`` brings up one of ``SCREENS``.
"""

from __future__ import annotations

import contextlib
import os
import random
import time
import uuid
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import yaml

SIZE = (120, 36)
#: Where the demo agent seems to live (no socket: see the module docstring).
URL = "http://demo-agent/"
#: 2026-01-15 09:30:00 UTC: the virtual wall clock starts here.
EPOCH = 1768469400.0

#: Every screen the snapshots and screenshots show, in README order.
#: The port the push screen shows for the receiver, which listens on a free port (a
#: fixed one would collide with another run of the tests on the same machine). Five
#: digits, as every port of Linux's ephemeral range (32768-60999), so nothing moves.
SHOWN_PUSH_PORT = 49152
SCREENS = ("task", "card", "tasks", "traffic", "push", "help", "palette", "light", "split")

DEMO_YAML = Path(__file__).resolve().parents[1] / "mock_agent" / "scenarios" / "demo.yaml"

#: A rule added in front of the demo's own: the streamed story of the "stories" skill,
#: then a clarifying question, in one task. One Task tab then shows a streamed answer,
#: its artifacts and an input-required question waiting for the user.
TOUR_RULE: dict[str, Any] = {
    "name": "tour",
    "when": {"text": "(?i)\\bthen ask\\b"},
    "script": [
        {"status": "working", "message": "writing..."},
        {"chunks": {"id": "story", "name": "story.txt", "delay": 0.3, "texts": [
            "The lighthouse keeper counted ships. ",
            "One night the sea was empty, ",
            "so she counted stars instead, ",
            "and lost count at the first comet.",
        ]}},
        {"artifact": {"id": "stats", "name": "stats.json",
                      "parts": [{"data": {"words": 22, "chunks": 4}}]}},
        {"ask": "Another story? What should the next one be about?",
         "then": [
             {"status": "working", "message": "writing about {text}..."},
             {"artifact": {"name": "next.txt", "text": "A very short story about {text}."}},
             {"status": "completed", "message": "The end."},
         ]},
    ],
}

#: What the user types, in order (see ``drive``).
TURNS = (
    "hello there",
    "ask me what to write",
    "a lighthouse",
    "trigger an error",
    "stream a story about a lighthouse, then ask me for the next one",
)


def scenario() -> dict[str, Any]:
    """The demo scenario with ``TOUR_RULE`` first."""
    data = yaml.safe_load(DEMO_YAML.read_text(encoding="utf-8"))
    data["rules"] = [TOUR_RULE, *data["rules"]]
    return data


# ---------------------------------------------------------------------- determinism


class VirtualClock:
    """Seconds since the session started; every reading moves it on by ``step``."""

    def __init__(self, step: float = 0.0007) -> None:
        self.now = 0.0
        self.step = step

    def tick(self) -> float:
        self.now += self.step
        return self.now

    def wall(self) -> float:
        return EPOCH + self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds

    def iso(self) -> str:
        stamp = datetime.fromtimestamp(EPOCH + self.tick(), timezone.utc)
        return stamp.isoformat(timespec="microseconds").replace("+00:00", "Z")


class _SeededUuid:
    """Stands in for the ``uuid`` module in one module: ``uuid4`` from a seeded RNG."""

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)

    def uuid4(self) -> uuid.UUID:
        return uuid.UUID(int=self._rng.getrandbits(128), version=4)

    def __getattr__(self, name: str) -> Any:
        return getattr(uuid, name)


class _SeededSecrets:
    """Stands in for the ``secrets`` module in one module: tokens from a seeded RNG, of
    the real length (the receiver's URL and the push configs' sizes stay the same)."""

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)

    def token_urlsafe(self, nbytes: int = 32) -> str:
        import base64

        raw = bytes(self._rng.getrandbits(8) for _ in range(nbytes))
        return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")

    def __getattr__(self, name: str) -> Any:
        import secrets

        return getattr(secrets, name)


class _NoDialectCache:
    """A dialect cache that remembers nothing: every run detects the dialect afresh."""

    def get(self, url: str) -> None:
        return None

    def set(self, url: str, dialect: str) -> None:
        pass


#: The clock of the current ``deterministic()`` block.
CLOCK = VirtualClock()


@contextlib.contextmanager
def deterministic() -> Iterator[VirtualClock]:
    """Pin ids, clocks and the time zone (see the module docstring); undo on exit."""
    import inspector.client.discovery as discovery
    import inspector.client.push_receiver as push_receiver
    import inspector.client.transport as transport
    import inspector.ui.widgets.composer as composer
    import mock_agent.engine as engine
    import mock_agent.server as server
    from inspector.ui.widgets.state_diagram import StateDiagram
    from inspector.ui.widgets.tasks_view import TasksView

    global CLOCK
    clock = CLOCK = VirtualClock()
    fake_time = SimpleNamespace(**{name: getattr(time, name) for name in dir(time) if not name.startswith("_")})
    fake_time.perf_counter = clock.tick
    patches: list[tuple[Any, str, Any]] = [
        (server, "uuid", _SeededUuid(1)),
        (engine, "uuid", _SeededUuid(2)),
        (composer, "uuid", _SeededUuid(3)),
        (discovery, "uuid", _SeededUuid(4)),
        (push_receiver, "secrets", _SeededSecrets(5)),
        (engine, "now", clock.iso),
        (server, "now", clock.iso),
        (transport, "time", fake_time),
        (TasksView, "clock", staticmethod(lambda: clock.wall() + 90)),
        # The running state's time runs to the agent's latest event, not on with the clock.
        (StateDiagram, "clock", staticmethod(lambda: 0.0)),
    ]
    saved = [(obj, name, obj.__dict__[name]) for obj, name, _ in patches]
    old_tz = os.environ.get("TZ")
    try:
        for obj, name, value in patches:
            setattr(obj, name, value)
        os.environ["TZ"] = "UTC"
        time.tzset()
        yield clock
    finally:
        for obj, name, value in saved:
            setattr(obj, name, value)
        if old_tz is None:
            os.environ.pop("TZ", None)
        else:
            os.environ["TZ"] = old_tz
        time.tzset()


# ---------------------------------------------------------------------- the app


def _connection_class() -> type:
    import httpx

    from inspector.client import A2AClient
    from inspector.session import Session
    from inspector.ui.connection import AgentConnection

    class InProcessConnection(AgentConnection):
        """A live connection whose HTTP goes to the mock's ASGI app, on the virtual clock."""

        def __init__(self, url: str, server: Any, **kwargs: Any) -> None:
            self._server = server
            super().__init__(url, session=Session(clock=CLOCK.tick, wall_clock=CLOCK.wall),
                             dialect_cache=_NoDialectCache(), **kwargs)

        def _new_client(self, dialect: str) -> A2AClient:
            http = httpx.AsyncClient(transport=httpx.ASGITransport(app=self._server.app))
            return A2AClient(self.url, session=self.session, dialect=dialect, card_url=self.card_url,
                             headers=self.headers, auth=self.auth, timeouts=self.timeouts, http=http,
                             dialect_cache=self._dialect_cache)

        async def aclose(self) -> None:
            client = self.client
            await super().aclose()
            if client is not None:
                await client.http.aclose()

    return InProcessConnection


def make_app() -> Any:
    """The inspector in demo mode against the in-process mock (call inside ``deterministic()``)."""
    from inspector import store
    from inspector.ui import app as inspector_app
    from inspector.ui.app import InspectorApp
    from mock_agent import MockServer

    connection_class = _connection_class()

    class _NoAgents(store.AgentStore):
        """No saved agents, and nothing is ever saved."""

        def __init__(self) -> None:
            super().__init__(Path("/nonexistent/a2a-inspect-snapshot/agents.json"))

        def save(self) -> None:
            pass

    class SnapshotApp(InspectorApp):
        # A relative CSS_PATH is read next to the subclass's module: point at the app's own.
        CSS_PATH = str(Path(inspector_app.__file__).with_name("inspector.tcss"))

        def __init__(self) -> None:
            super().__init__(demo=True, settings=store.Settings(), agent_store=_NoAgents())
            self.mock_server: Any = None
            # Tab underlines would slide; a snapshot wants the end state, at once.
            self.animation_level = "none"

        def watch_theme(self, theme: str) -> None:
            pass  # a snapshot never saves settings

        def start_demo(self) -> None:  # not a worker: nothing to wait for
            self.mock_server = MockServer(scenario(), dialect="all", time_scale=0)
            conn = connection_class(URL, self.mock_server, name="demo agent")
            self.open_connection(conn)
            self.connect(conn)

    return SnapshotApp()


# ---------------------------------------------------------------------- the session


def _network_idle(app: Any) -> bool:
    """Nothing waits on the agent, and the pump has handed every event to the views."""
    busy = [w for w in app.workers if not w.is_finished]
    return not app.waiting and not busy and not app.pump._pending


def _quiet(app: Any) -> bool:
    """Network idle, and no view has a redraw still scheduled: the bar's spinner is gone,
    the state diagram's trailing redraw, the traffic view's catch-up and detail timers."""
    if not _network_idle(app):
        return False
    main = app.main
    for selector, attrs in (("#connection-bar", ("_progress_shown",)),
                            ("#state-diagram", ("_trailing",)),
                            ("#traffic-view", ("_catch_up_timer", "_detail_timer", "_filter_timer")),
                            ("#composer", ("_preview_timer",))):
        found = main.query(selector)
        if not found:
            return False  # a hidden tab's view mounts after the first frame
        widget = found.first()
        for attr in attrs:
            value = getattr(widget, attr, None)
            if value is None or value is False:
                continue
            task = getattr(value, "_task", False)
            if task is None or (task and task.done()):
                continue  # a timer that fired or was stopped
            return False
    return True


async def settle(pilot: Any, what: str = "the app to settle", timeout: float = 10.0) -> None:
    """Wait until the app is quiet (see ``_quiet``) for two checks a frame apart."""
    app = pilot.app
    await _wait(pilot, lambda: _quiet(app), what, timeout)
    await pilot.pause(0.05)
    await _wait(pilot, lambda: _quiet(app), what, timeout)
    await pilot.pause()


async def _wait(pilot: Any, predicate: Any, what: str, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        await pilot.pause(0.02)


async def say(pilot: Any, text: str) -> None:
    """Type ``text`` in the composer and send it (ctrl+s), then wait for the answer."""
    from inspector.ui.widgets.composer import Composer

    composer = pilot.app.main.query_one(Composer)
    composer.text_area.focus()
    composer.set_text(text)
    await pilot.pause()
    await pilot.press("ctrl+s")
    await _wait(pilot, lambda: composer.text == "", f"{text!r} to be sent")
    await _wait(pilot, lambda: _network_idle(pilot.app), f"the answer to {text!r}")
    await pilot.pause()
    CLOCK.advance(2.5)  # the user reads, then types the next message


#: The push receiver is registered for the task that asked (TURNS[1]); answering it
#: (TURNS[2]) makes the agent push the task's updates.
PUSH_AFTER_TURN = 1


def _push_panel(app: Any) -> Any:
    from inspector.ui.widgets.push_panel import PushPanel

    return app.main.query_one(PushPanel)


def _pushed(app: Any, state: str) -> bool:
    receiver = next(iter(_push_panel(app).receivers.values()), None)
    return receiver is not None and any(
        getattr(getattr(getattr(e.payload, "status", None), "state", None), "value", None) == state
        for e in receiver.received)


def _pin_push_port(app: Any) -> None:
    """Show the receiver's URL with ``SHOWN_PUSH_PORT`` for its real (free) port."""
    import re

    from textual.widgets import Static

    status = _push_panel(app).query_one("#push-status", Static)
    text = str(status.content)
    pinned = re.sub(r"127\.0\.0\.1:\d{5}/", f"127.0.0.1:{SHOWN_PUSH_PORT}/", text)
    if pinned == text:
        raise AssertionError(f"no receiver URL to pin in the push status: {text!r}")
    status.update(pinned)


async def register_push(pilot: Any) -> None:
    """Start the push receiver and register it for the selected task, as ``r`` does."""
    app = pilot.app
    panel = _push_panel(app)
    panel.action_register_push()
    await _wait(pilot, lambda: panel.registered, "the push registration")
    await _wait(pilot, lambda: _network_idle(app), "the registration's answer")
    app.clear_notifications()
    CLOCK.advance(1.0)


async def drive(pilot: Any) -> None:
    """Connect, then play ``TURNS``: an echo, a question answered on the same task, a
    scripted JSON-RPC error, and the tour (a streamed story, then a question)."""
    app = pilot.app
    await _wait(pilot, lambda: app.active is not None and app.active.state == "ready",
                "the demo agent to be ready")
    await settle(pilot, "the card")
    CLOCK.advance(1.5)
    for n, text in enumerate(TURNS):
        await say(pilot, text)
        if n == PUSH_AFTER_TURN:
            await register_push(pilot)
        elif n == PUSH_AFTER_TURN + 1:
            await _wait(pilot, lambda: _pushed(app, "completed"), "the push of the completed task")
            await _wait(pilot, lambda: _network_idle(app), "the pushes to be shown")
    app.clear_notifications()  # the scripted error's toast would cover the views
    conn = app.active
    task = conn.tracker.task(app.task_id) if app.task_id else None
    state = task.state.value if task is not None else None
    if state != "input-required":
        raise AssertionError(f"the tour task should wait for input, not be {state}")
    await settle(pilot)


#: What has focus on each screen: where a user's keys would be.
FOCUS = {"task": "#composer-text", "light": "#composer-text", "help": "#composer-text", "split": "#composer-text",
         "palette": "#composer-text", "tasks": "#tasks-table", "traffic": "#traffic-list",
         "push": "#push-table", "card": "#card-view"}
#: Typed in the command palette.
PALETTE_QUERY = "task"


async def show(pilot: Any, screen: str) -> None:
    """Bring up ``screen`` (one of ``SCREENS``) after ``drive``."""
    if screen not in SCREENS:
        raise ValueError(f"unknown screen {screen!r}; choose one of {', '.join(SCREENS)}")
    app = pilot.app
    view = "task" if screen in ("light", "help", "palette", "split") else screen
    # Nothing focused while the tab changes: a focused widget in the old tab would hand
    # focus to a sibling there, which takes its tab back (F5, tab into the list, F6: still Traffic).
    app.set_focus(None)
    app.action_view(view)
    await pilot.pause()
    app.main.query_one(FOCUS[screen]).focus()
    await pilot.pause()
    if screen == "light":
        app.theme = "a2a-light"
    elif screen == "traffic":
        await _select_traffic_event(pilot)
    elif screen == "push":
        _pin_push_port(app)
    elif screen == "help":
        await pilot.press("f1")
    elif screen == "split":
        # The first task (the echo of "hello there") beside the tour's task.
        from inspector.ui.widgets.task_beside import TaskBeside

        conn = app.active
        first = next(iter(conn.tracker.tasks))
        app.main.query_one(TaskBeside).pin(conn, first)
    elif screen == "palette":
        await pilot.press("ctrl+p")
        await pilot.press(*PALETTE_QUERY)
        await _wait(pilot, lambda: _palette_ready(app), "the command palette's list")
    await pilot.pause()
    await settle(pilot, f"the {screen} screen")
    freeze(app)
    await pilot.pause()


async def _select_traffic_event(pilot: Any) -> None:
    """Put the traffic cursor on the tour's input-required status event."""
    from inspector.protocol.models import TaskState
    from inspector.session import Kind
    from inspector.ui.widgets.traffic_list import TrafficList

    app = pilot.app
    traffic = app.main.query_one(TrafficList)
    await _wait(pilot, lambda: len(traffic.index.rows) == len(app.active.session.events),
                "the traffic list to index every event")
    target = None
    for row, position in enumerate(traffic.index.rows):
        event = traffic.index.events[position]
        status = getattr(event.payload, "status", None)
        if event.kind is Kind.SSE and getattr(status, "state", None) is TaskState.INPUT_REQUIRED:
            target = row
    if target is None:
        raise AssertionError("no input-required SSE event in the traffic list")
    traffic.move_to(target)
    await pilot.pause(0.1)  # the detail pane follows the cursor after a short delay


def _palette_ready(app: Any) -> bool:
    from textual.command import CommandPalette

    screen = app.screen
    if not isinstance(screen, CommandPalette):
        return False
    try:
        options = screen.query_one("CommandList")
        busy = screen.query_one("LoadingIndicator").has_class("--visible")
        typed = screen.query_one("CommandInput").value
    except Exception:
        return False
    return typed == PALETTE_QUERY and options.option_count > 0 and not busy


def freeze(app: Any) -> None:
    """Stop every cursor from blinking (a snapshot must not catch it half-way)."""
    from textual.widgets import Input, TextArea

    for screen in app.screen_stack:
        for widget in screen.query("*"):
            if isinstance(widget, (Input, TextArea)):
                widget.cursor_blink = False


async def screenshots(pilot: Any, screens: tuple[str, ...] = SCREENS) -> dict[str, str]:
    """``drive`` once, then each screen's SVG (the run_test way of the screenshot script)."""
    app = pilot.app
    await drive(pilot)
    out: dict[str, str] = {}
    for screen in screens:
        await show(pilot, screen)
        out[screen] = app.export_screenshot(title=f"a2a-inspect · {screen}")
        while len(app.screen_stack) > 2:  # the default screen, then MainScreen
            app.pop_screen()
        from inspector.ui.widgets.task_beside import TaskBeside

        app.main.query_one(TaskBeside).pin(None, None)
        app.theme = "a2a-dark"
        await pilot.pause()
    return out
