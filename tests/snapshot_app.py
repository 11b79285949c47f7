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
``drive(pilot)`` plays the session; ``show(pilot, screen)`` brings up one of ``SCREENS``
or ``MODALS``.

Two more apps, on the same clock: ``make_replay_app`` opens the demo session as recorded
(``DEMO_RECORDING``, made by ``record_demo``); ``make_proxy_app`` runs ``a2a-inspect proxy``
inside ``in_process_proxy()``, where the proxy answers at a fixed URL without a socket
and relays to a mock's ASGI app, and ``drive_proxy`` has two clients call it;
``make_hub_app`` runs ``a2a-inspect hub`` inside ``in_process_hub()`` the same way, and
``connect_agent`` plays a2a-mock's ws-agent on it through an in-memory WebSocket.
"""

from __future__ import annotations

import contextlib
import os
import random
import time
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
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
#: The modals, each opened over the task view after the session as a user opens it: the
#: agent form (a new agent, and editing a saved one), the JSON editor on a data part
#: with a mistake in it, the file picker with a URI typed, and the errors (ctrl+e).
MODALS = ("agent-new", "agent-edit", "json", "file", "errors")

DEMO_YAML = Path(__file__).resolve().parents[1] / "mock_agent" / "scenarios" / "demo.yaml"

#: A rule added in front of the demo's own: the streamed story of the "stories" skill,
#: then a clarifying question, in one task. One Task tab then shows a streamed answer,
#: its artifacts and an input-required question waiting for the user.
TOUR_RULE: dict[str, Any] = {
    "name": "tour",
    "when": {"text": "(?i)\\bthen ask\\b"},
    "script": [
        {"status": "working", "message": "writing..."},
        {
            "chunks": {
                "id": "story",
                "name": "story.txt",
                "delay": 0.3,
                "texts": [
                    "The lighthouse keeper counted ships. ",
                    "One night the sea was empty, ",
                    "so she counted stars instead, ",
                    "and lost count at the first comet.",
                ],
            }
        },
        {"artifact": {"id": "stats", "name": "stats.json", "parts": [{"data": {"words": 22, "chunks": 4}}]}},
        {
            "ask": "Another story? What should the next one be about?",
            "then": [
                {"status": "working", "message": "writing about {text}..."},
                {"artifact": {"name": "next.txt", "text": "A very short story about {text}."}},
                {"status": "completed", "message": "The end."},
            ],
        },
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
        stamp = datetime.fromtimestamp(EPOCH + self.tick(), UTC)
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


def _ticking_time(clock: VirtualClock) -> SimpleNamespace:
    """The time module, its perf_counter the virtual clock's (one tick a call)."""
    fake = SimpleNamespace(**{name: getattr(time, name) for name in dir(time) if not name.startswith("_")})
    fake.perf_counter = clock.tick
    return fake


@contextlib.contextmanager
def _patched(patches: list[tuple[Any, str, Any]]) -> Iterator[None]:
    """Each (object, name, value) set for the block, and put back after it."""
    saved = [(obj, name, obj.__dict__[name]) for obj, name, _ in patches]
    try:
        for obj, name, value in patches:
            setattr(obj, name, value)
        yield
    finally:
        for obj, name, value in saved:
            setattr(obj, name, value)


@contextlib.contextmanager
def deterministic() -> Iterator[VirtualClock]:
    """Pin ids, clocks and the time zone (see the module docstring); undo on exit."""
    import inspector.client.discovery as discovery
    import inspector.client.push_receiver as push_receiver
    import inspector.client.transport as transport
    import inspector.ui.app as inspector_app
    import inspector.ui.widgets.composer as composer
    import mock_agent.engine as engine
    import mock_agent.server as server
    from inspector.ui.widgets.state_diagram import StateDiagram
    from inspector.ui.widgets.tasks_view import TasksView

    global CLOCK
    clock = CLOCK = VirtualClock()
    fake_time = _ticking_time(clock)
    # The app stamps each error it lists (ctrl+e) with the wall clock.
    app_time = SimpleNamespace(**vars(fake_time))
    app_time.time = clock.wall
    patches: list[tuple[Any, str, Any]] = [
        (server, "uuid", _SeededUuid(1)),
        (engine, "uuid", _SeededUuid(2)),
        (composer, "uuid", _SeededUuid(3)),
        (discovery, "uuid", _SeededUuid(4)),
        (push_receiver, "secrets", _SeededSecrets(5)),
        (engine, "now", clock.iso),
        (server, "now", clock.iso),
        (transport, "time", fake_time),
        (inspector_app, "time", app_time),
        (TasksView, "clock", staticmethod(lambda: clock.wall() + 90)),
        # The running state's time runs to the agent's latest event, not on with the clock.
        (StateDiagram, "clock", staticmethod(lambda: 0.0)),
    ]
    old_tz = os.environ.get("TZ")
    try:
        with _patched(patches):
            os.environ["TZ"] = "UTC"
            time.tzset()
            yield clock
    finally:
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
            super().__init__(
                url, session=Session(clock=CLOCK.tick, wall_clock=CLOCK.wall), dialect_cache=_NoDialectCache(), **kwargs
            )

        def _new_client(self, dialect: str) -> A2AClient:
            http = httpx.AsyncClient(transport=httpx.ASGITransport(app=self._server.app))
            return A2AClient(
                self.url,
                session=self.session,
                dialect=dialect,
                card_url=self.card_url,
                headers=self.headers,
                auth=self.auth,
                timeouts=self.timeouts,
                http=http,
                dialect_cache=self._dialect_cache,
            )

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
    for selector, attrs in (
        ("#connection-bar", ("_progress_shown",)),
        ("#state-diagram", ("_trailing",)),
        ("#traffic-view", ("_catch_up_timer", "_detail_timer", "_filter_timer")),
        ("#composer", ("_preview_timer",)),
    ):
        found = main.query(selector)
        if not found and selector == "#composer" and app.replay is not None:
            continue  # a recording is read, not written to
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


async def say(pilot: Any, text: str, then: tuple[Callable[[], bool], str] | None = None) -> None:
    """Type ``text`` in the composer and send it (ctrl+s), then wait for the answer (and
    for ``then``: what else the answer sets off, with what it is) before the clock moves."""
    from inspector.ui.widgets.composer import Composer

    composer = pilot.app.main.query_one(Composer)
    composer.text_area.focus()
    composer.set_text(text)
    await pilot.pause()
    await pilot.press("ctrl+s")
    await _wait(pilot, lambda: composer.text == "", f"{text!r} to be sent")
    await _wait(pilot, lambda: _network_idle(pilot.app), f"the answer to {text!r}")
    if then is not None:
        await _wait(pilot, *then)
        await _wait(pilot, lambda: _network_idle(pilot.app), f"what {then[1]} set off to be shown")
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
        for e in receiver.received
    )


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
    await _wait(pilot, lambda: app.active is not None and app.active.state == "ready", "the demo agent to be ready")
    await settle(pilot, "the card")
    CLOCK.advance(1.5)
    for n, text in enumerate(TURNS):
        # The pushes are waited for before the clock moves on: one arriving after it (a
        # loaded machine) showed a time 2.5 s later on the push and traffic screens.
        pushes = (lambda: _pushed(app, "completed"), "the push of the completed task")
        await say(pilot, text, then=pushes if n == PUSH_AFTER_TURN + 1 else None)
        if n == PUSH_AFTER_TURN:
            await register_push(pilot)
    app.clear_notifications()  # the scripted error's toast would cover the views
    conn = app.active
    task = conn.tracker.task(app.task_id) if app.task_id else None
    state = task.state.value if task is not None else None
    if state != "input-required":
        raise AssertionError(f"the tour task should wait for input, not be {state}")
    await settle(pilot)


#: What has focus on each screen: where a user's keys would be.
FOCUS = {
    "task": "#composer-text",
    "light": "#composer-text",
    "help": "#composer-text",
    "split": "#composer-text",
    "palette": "#composer-text",
    "tasks": "#tasks-table",
    "traffic": "#traffic-list",
    "push": "#push-table",
    "card": "#card-view",
}
#: Typed in the command palette.
PALETTE_QUERY = "task"


async def show(pilot: Any, screen: str) -> None:
    """Bring up ``screen`` (one of ``SCREENS`` or ``MODALS``) after ``drive``."""
    if screen not in SCREENS + MODALS:
        raise ValueError(f"unknown screen {screen!r}; choose one of {', '.join(SCREENS + MODALS)}")
    app = pilot.app
    if screen in MODALS:
        await _show_modal(pilot, screen)
        await settle(pilot, f"the {screen} modal")
        freeze(app)
        await pilot.pause()
        return
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
    await _wait(
        pilot,
        lambda: len(traffic.index.rows) == len(app.active.session.events),
        "the traffic list to index every event",
    )
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


#: The saved agent the edit form shows: every kind of field filled, its secrets kept in
#: environment variables (the form shows ``$VAR``), a TLS path that need not exist.
EDITED_AGENT = {
    "name": "staging travel agent",
    "url": "https://travel.staging.example/a2a/",
    "dialect": "1.0",
    "binding": "rest",
    "auth": "bearer",
    "secret": {"env": "TRAVEL_TOKEN"},
    "headers": {"X-Tenant": "acme"},
    "secret_headers": {"X-Api-Key": {"env": "TRAVEL_KEY"}},
    "cacert": "~/certs/staging-ca.pem",
}
#: Typed in the JSON editor: a data part whose trailing comma the editor points at.
JSON_TYPED = '{\n  "city": "Lisbon",\n  "days": 3,\n  "interests": ["tiles", "trams"],\n}'
#: Typed in the file picker: a URI (a local path would show this machine's files).
FILE_TYPED = "https://files.example/itinerary.pdf"


async def _show_modal(pilot: Any, name: str) -> None:
    """Open modal ``name`` (one of ``MODALS``) over the task view, the way a user does."""
    from textual.widgets import Input

    from inspector.store import SavedAgent
    from inspector.ui.messages import OpenModal
    from inspector.ui.screens.agent_form import AgentForm
    from inspector.ui.screens.errors import ErrorsScreen
    from inspector.ui.screens.file_pick import FilePickScreen
    from inspector.ui.screens.json_edit import JsonEditScreen
    from inspector.ui.widgets.agents_panel import AgentsPanel

    app = pilot.app
    app.set_focus(None)
    app.action_view("task")
    await pilot.pause()
    app.main.query_one("#composer-text").focus()
    await pilot.pause()
    if name == "agent-new":
        app.main.query_one(AgentsPanel).action_add()  # "a" in the sidebar
        opened: type = AgentForm
    elif name == "agent-edit":
        # What the sidebar's "e" posts for a highlighted saved agent (the snapshot's
        # store holds none: the sidebar behind stays as the other screens show it).
        agent = SavedAgent(**EDITED_AGENT)
        app.post_message(OpenModal("agent_form", f"Edit {agent.name}", agent))
        opened = AgentForm
    elif name == "json":
        await pilot.press("ctrl+g")  # +Data
        opened = JsonEditScreen
    elif name == "file":
        await pilot.press("ctrl+f")  # +File
        opened = FilePickScreen
    else:
        await pilot.press("ctrl+e")
        opened = ErrorsScreen
    await _wait(pilot, lambda: isinstance(app.screen, opened), f"the {name} modal")
    # Before the text goes in: Textual's TextArea caches a line drawn while its cursor
    # blinked off under the key a still cursor has, and would show it without the cursor.
    freeze(app)
    await pilot.pause()
    if name == "json":
        app.screen.text_area.text = JSON_TYPED
    elif name == "file":
        app.screen.query_one("#file-path", Input).value = FILE_TYPED
    await pilot.pause()


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


# ---------------------------------------------------------------------- replay

#: The demo session as recorded (``record_demo``): what the replay snapshots open.
#: Made again with ``python tests/snapshot_app.py record`` after a change to the demo.
DEMO_RECORDING = Path(__file__).resolve().parent / "fixtures" / "recordings" / "demo.jsonl"
#: The replay is shown stopped here: the story's second chunk has just arrived.
REPLAY_AT = "One night the sea was empty"


async def record_demo(path: Path = DEMO_RECORDING) -> Path:
    """Play the demo session (``drive``) and record it to ``path`` (replacing it)."""
    from inspector.session import Recorder

    with deterministic():
        app = make_app()
        async with app.run_test(size=SIZE) as pilot:
            await drive(pilot)
            path.parent.mkdir(parents=True, exist_ok=True)
            Recorder.attach(app.active.session, path, overwrite=True).close()
    # The push receiver's port was a free one: pinned as the push screen pins it.
    import re

    text = path.read_text(encoding="utf-8")
    path.write_text(re.sub(r"127\.0\.0\.1:\d{5}\b", f"127.0.0.1:{SHOWN_PUSH_PORT}", text), encoding="utf-8")
    return path


def make_replay_app(path: Path = DEMO_RECORDING) -> Any:
    """``a2a-inspect replay`` on ``path``, with default settings and no saved agents
    (call inside ``deterministic()``)."""
    from inspector import store
    from inspector.ui.replay_app import open_replay

    class _NoAgents(store.AgentStore):
        def __init__(self) -> None:
            super().__init__(Path("/nonexistent/a2a-inspect-snapshot/agents.json"))

    app = open_replay(path, background=False, settings=store.Settings(), agent_store=_NoAgents())
    app.animation_level = "none"
    return app


async def show_replay(pilot: Any) -> str:
    """The replay stopped on the story's second chunk (``REPLAY_AT``), in the task view
    with the timeline focused, as ``g`` then the event's number leaves it: the SVG."""
    from inspector.ui.widgets.replay_bar import ReplayBar

    app = pilot.app
    await _wait(
        pilot,
        lambda: app.main is not None and app.active is not None and app.main.query(ReplayBar),
        "the recording to open",
    )
    controller = app.replay_controller
    await _wait(pilot, lambda: not controller.seeking and not controller.loading, "the recording to load")
    # Position n shows the events up to the n-th.
    target = next(
        n for n in range(1, controller.total + 1) if REPLAY_AT in (getattr(controller.event_at(n), "raw", None) or "")
    )
    controller.seek(target)
    await _wait(pilot, lambda: controller.position == target and not controller.seeking, "the seek")
    app.set_focus(None)
    app.action_view("task")
    await pilot.pause()
    app.main.query_one(ReplayBar).focus()
    await settle(pilot, "the replay")
    freeze(app)
    await pilot.pause()
    return app.export_screenshot(title="a2a-inspect · replay")


# ---------------------------------------------------------------------- proxy

#: Where the proxied agent and the proxy seem to live: neither listens on a socket.
PROXY_UPSTREAM = "http://story-agent"
PROXY_URL = "http://127.0.0.1:8790"
#: The clients' addresses (as a proxy's traffic names them) and user agents.
PROXY_CLIENTS = {"inspector": ("127.0.0.1", 40960), "orchestrator": ("127.0.0.1", 40970)}
PROXY_FAULTS = Path(__file__).resolve().parent / "fixtures" / "proxy" / "faults.yaml"
#: The agent behind the proxy: a card, and a story told in four chunks.
PROXY_SCENARIO: dict[str, Any] = {
    "name": "proxied",
    "card": {
        "name": "Story Agent",
        "description": "Tells short stories.",
        "version": "1.0.0",
        "capabilities": {"streaming": True},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "story", "name": "Story", "description": "A short story.", "tags": ["story"]}],
    },
    "rules": [
        {
            "script": [
                {"status": "working", "message": "writing..."},
                {
                    "chunks": {
                        "id": "story",
                        "name": "story.txt",
                        "delay": 0.05,
                        "texts": ["Once upon a time, ", "a proxy sat between ", "two agents ", "and saw everything."],
                    }
                },
                {"status": "completed", "message": "done"},
            ]
        }
    ],
}


@contextlib.contextmanager
def in_process_proxy() -> Iterator[None]:
    """``a2a-inspect proxy`` as the app starts it (ui/proxy_mode.py), with no socket: the
    server answers at ``PROXY_URL`` without listening, relays to the mock's ASGI app, and
    its session and timings run on the virtual clock. Inside ``deterministic()``."""
    import httpx

    import inspector.proxy as proxy_package
    import inspector.proxy.core as proxy_core
    import inspector.proxy.relaying as relaying
    import inspector.session as session_package
    from inspector.proxy import ProxyServer
    from inspector.session import Session
    from mock_agent import MockServer

    clock = CLOCK
    upstream = MockServer(PROXY_SCENARIO, dialect="1.0", time_scale=0)

    class _NoSocket:
        """Stands in for the server's uvicorn thread: the same app, at a fixed URL."""

        def __init__(self, app: Any) -> None:
            self.app = app
            self.url = PROXY_URL
            self.port = int(PROXY_URL.rsplit(":", 1)[1])

        async def astart(self) -> None:
            pass

        async def astop(self) -> None:
            pass

    class InProcessProxyServer(ProxyServer):
        def __init__(self, proxy: Any, **kwargs: Any) -> None:
            super().__init__(proxy, **kwargs)
            self._server = _NoSocket(self._server.app)
            # The proxy's own client, to the upstream's ASGI app (made before start() asks).
            proxy._http = httpx.AsyncClient(transport=httpx.ASGITransport(app=upstream.app), follow_redirects=False)

        @property
        def app(self) -> Any:
            """What clients call: the proxy behind its Host/Origin guard."""
            return self._server.app

    class VirtualSession(Session):
        def __init__(self, **kwargs: Any) -> None:
            kwargs.setdefault("clock", clock.tick)
            kwargs.setdefault("wall_clock", clock.wall)
            super().__init__(**kwargs)

    fake_time = _ticking_time(clock)
    patches: list[tuple[Any, str, Any]] = [
        (proxy_package, "ProxyServer", InProcessProxyServer),
        (session_package, "Session", VirtualSession),
        (proxy_core, "time", fake_time),
        (relaying, "time", fake_time),
    ]
    with _patched(patches):
        yield


def make_proxy_app() -> Any:
    """The inspector as ``a2a-inspect proxy PROXY_UPSTREAM --faults PROXY_FAULTS``
    (call inside ``deterministic()`` and ``in_process_proxy()``)."""
    from inspector import store
    from inspector.headless.proxy_cmd import ProxyOptions
    from inspector.ui.app import InspectorApp

    class _NoAgents(store.AgentStore):
        def __init__(self) -> None:
            super().__init__(Path("/nonexistent/a2a-inspect-snapshot/agents.json"))

    app = InspectorApp(
        proxy=ProxyOptions(upstream=PROXY_UPSTREAM, port=0, faults=str(PROXY_FAULTS)),
        settings=store.Settings(),
        agent_store=_NoAgents(),
    )
    app.animation_level = "none"
    return app


async def drive_proxy(pilot: Any) -> None:
    """Two clients call the proxy: a2a-inspect's own client (as "story-reader/1.0")
    streams a story (the first fault rule repeats its third event), and a hand-written
    client forgets the 1.0 A2A-Version header, which the proxy judges."""
    import httpx

    from inspector.client import A2AClient
    from inspector.protocol import models as m

    app = pilot.app
    await _wait(pilot, lambda: app.proxy is not None and app.active is not None, "the proxy to start")
    server = app.proxy[1]

    def client(name: str, **kwargs: Any) -> httpx.AsyncClient:
        return httpx.AsyncClient(transport=httpx.ASGITransport(app=server.app, client=PROXY_CLIENTS[name]), **kwargs)

    CLOCK.advance(1.5)
    # A user agent of its own: httpx's names httpx's version, which an upgrade changes.
    async with A2AClient(
        PROXY_URL, dialect="1.0", http=client("inspector", headers={"User-Agent": "story-reader/1.0"})
    ) as a2a:
        params = m.SendParams(
            message=m.Message(role=m.Role.USER, message_id="m-1", parts=[m.TextPart(text="tell me a story")])
        )
        [e async for e in a2a.stream(params)]
    CLOCK.advance(2.5)
    async with client("orchestrator", headers={"User-Agent": "orchestrator/2.1"}) as http:
        await http.post(
            PROXY_URL + "/",
            json={
                "jsonrpc": "2.0",
                "id": 7,
                "method": "SendMessage",
                "params": {"message": {"messageId": "o-1", "role": "ROLE_USER", "parts": [{"text": "another"}]}},
            },
        )
    conn = app.active
    await _wait(
        pilot,
        lambda: any(t.terminal for t in conn.tracker.tasks.values()) and conn.tracker.violations,
        "the story told, and the forgetful client judged",
    )
    app.clear_notifications()
    await settle(pilot, "the proxy's traffic")


#: The proxy's screens: its traffic (the README's proxy.png), and its fault rules (F10).
PROXY_SCREENS = ("proxy", "faults")


async def proxy_screenshots(pilot: Any) -> dict[str, str]:
    """``drive_proxy``, then each of ``PROXY_SCREENS``' SVG."""
    from inspector.ui.screens.fault_rules import FaultRulesScreen
    from inspector.ui.widgets.traffic_list import TrafficList

    app = pilot.app
    await drive_proxy(pilot)
    out: dict[str, str] = {}
    app.set_focus(None)
    app.action_view("traffic")
    await pilot.pause()
    traffic = app.main.query_one(TrafficList)
    traffic.focus()
    conn = app.active
    await _wait(pilot, lambda: len(traffic.index.rows) == len(conn.session.events), "every event in the list")
    await settle(pilot, "the proxy screen")
    freeze(app)
    await pilot.pause()
    out["proxy"] = app.export_screenshot(title="a2a-inspect · proxy")
    await pilot.press("f10")
    await _wait(pilot, lambda: isinstance(app.screen, FaultRulesScreen), "the fault rules")
    await settle(pilot, "the fault rules")
    out["faults"] = app.export_screenshot(title="a2a-inspect · faults")
    return out


# ---------------------------------------------------------------------- hub

#: Where the hub seems to listen (nothing does), and the agent's socket's address.
HUB_URL = "http://127.0.0.1:8791"
HUB_AGENT_PEER = "127.0.0.1:40980"
HUB_AGENT = "helper"
#: What the user asks the ws-agent (tests/hub_scenario.py streams a story for it).
HUB_TURN = "stream it"


class _AgentEnd:
    """The agent's end of an in-memory WebSocket: what WsAgent needs of a websockets
    connection (send, async iteration, close); what it sends waits in ``to_hub``."""

    def __init__(self) -> None:
        import asyncio

        self.to_hub: Any = asyncio.Queue()
        self.inbox: Any = asyncio.Queue()

    async def send(self, text: str) -> None:
        self.to_hub.put_nowait({"type": "websocket.receive", "text": text})

    def __aiter__(self) -> _AgentEnd:
        return self

    async def __anext__(self) -> str:
        text = await self.inbox.get()
        if text is None:
            raise StopAsyncIteration
        return text

    async def close(self) -> None:
        self.to_hub.put_nowait({"type": "websocket.disconnect", "code": 1000, "reason": ""})


class _HubEnd:
    """The hub's end: what AgentSocket needs of a Starlette WebSocket."""

    def __init__(self, agent: _AgentEnd) -> None:
        self.agent = agent

    async def send_text(self, text: str) -> None:
        self.agent.inbox.put_nowait(text)

    async def close_socket(self, code: int, reason: str) -> None:
        self.agent.inbox.put_nowait(None)


@contextlib.contextmanager
def in_process_hub() -> Iterator[None]:
    """``a2a-inspect hub`` as the app starts it (``start_hub``), with no socket: the hub
    answers at ``HUB_URL`` without listening (``connect_agent`` plays an agent on it), its
    sessions, task ids and timestamps on the virtual clock. Inside ``deterministic()``."""
    import inspector.hub as hub_package
    import inspector.hub.core as hub_core
    import inspector.hub.relay as hub_relay
    from inspector.hub import Hub, HubServer
    from inspector.session import Session

    clock = CLOCK

    class _NoSocket:
        def __init__(self, app: Any) -> None:
            self.app = app
            self.url = HUB_URL
            self.host, self.port = "127.0.0.1", int(HUB_URL.rsplit(":", 1)[1])

        async def astart(self) -> None:
            pass

        async def astop(self) -> None:
            pass

    class InProcessHubServer(HubServer):
        def __init__(self, hub: Any, **kwargs: Any) -> None:
            super().__init__(hub, **kwargs)
            self._server = _NoSocket(self._server.app)

    class VirtualHub(Hub):
        def __init__(self, **kwargs: Any) -> None:
            kwargs.setdefault("clock", clock.tick)
            super().__init__(**kwargs)

    class VirtualSession(Session):
        def __init__(self, **kwargs: Any) -> None:
            kwargs.setdefault("clock", clock.tick)
            kwargs.setdefault("wall_clock", clock.wall)
            super().__init__(**kwargs)

    fake_time = _ticking_time(clock)
    patches: list[tuple[Any, str, Any]] = [
        (hub_package, "HubServer", InProcessHubServer),
        (hub_package, "Hub", VirtualHub),
        (hub_core, "Session", VirtualSession),
        (hub_core, "uuid", _SeededUuid(6)),
        (hub_core, "_now", clock.iso),
        (hub_relay, "time", fake_time),
    ]
    with _patched(patches):
        yield


def make_hub_app() -> Any:
    """The inspector as ``a2a-inspect hub`` (call inside ``deterministic()`` and
    ``in_process_hub()``)."""
    from inspector import store
    from inspector.headless.hub_cmd import HubOptions
    from inspector.ui.app import InspectorApp

    class _NoAgents(store.AgentStore):
        def __init__(self) -> None:
            super().__init__(Path("/nonexistent/a2a-inspect-snapshot/agents.json"))

    app = InspectorApp(hub=HubOptions(port=0), settings=store.Settings(), agent_store=_NoAgents())
    app.animation_level = "none"
    return app


async def connect_agent(pilot: Any) -> Any:
    """a2a-mock's ws-agent (tests/hub_scenario.py, no heartbeats) on the hub, through an
    in-memory socket; the agent, once the inspector has it open and ready."""
    import asyncio

    from hub_scenario import SCENARIO
    from mock_agent.ws_agent import WsAgent

    app = pilot.app
    await _wait(pilot, lambda: app.hub is not None, "the hub to start")
    hub = app.hub[0]
    agent_end = _AgentEnd()
    sock = hub.open_socket(
        _HubEnd(agent_end), HUB_AGENT_PEER, "/ws", {"host": HUB_URL.split("//", 1)[1], "user-agent": "a2a-mock"}
    )

    async def hub_side() -> None:  # the hub server's receive loop
        while await sock.received(await agent_end.to_hub.get()):
            pass

    agent = WsAgent(HUB_URL.replace("http", "ws") + "/ws", HUB_AGENT, SCENARIO, time_scale=0, heartbeat=0)
    agent._ws = agent_end
    app.snapshot_tasks = [asyncio.ensure_future(hub_side()), asyncio.ensure_future(agent._serve(agent_end))]
    await _wait(pilot, lambda: agent.registered.is_set(), "the ws-agent to register")
    await _wait(
        pilot,
        lambda: (conn := app.hub_connection(HUB_AGENT)) is not None and conn.state == "ready",
        "the ws-agent's connection to be ready",
    )
    return agent


async def hub_screenshot(pilot: Any) -> str:
    """The agent registers; the user streams ``HUB_TURN`` from the composer; the
    traffic view then shows every frame, the answer's last one selected: the SVG."""
    from inspector.ui.widgets.traffic_list import TrafficList

    app = pilot.app
    await connect_agent(pilot)
    CLOCK.advance(1.5)
    await settle(pilot, "the agent's card")
    await say(pilot, HUB_TURN)
    conn = app.active
    await _wait(pilot, lambda: any(t.terminal for t in conn.tracker.tasks.values()), "the story told")
    app.clear_notifications()
    app.set_focus(None)
    app.action_view("traffic")
    await pilot.pause()
    traffic = app.main.query_one(TrafficList)
    traffic.focus()
    await _wait(pilot, lambda: len(traffic.index.rows) == len(conn.session.events), "every frame in the list")
    await settle(pilot, "the hub screen")
    freeze(app)
    await pilot.pause()
    shot = app.export_screenshot(title="a2a-inspect · hub")
    for task in app.snapshot_tasks:
        task.cancel()
    return shot


if __name__ == "__main__":
    import asyncio
    import sys

    if sys.argv[1:] != ["record"]:
        sys.exit(f"usage: python {sys.argv[0]} record   (writes {DEMO_RECORDING})")
    print(asyncio.run(record_demo()))
