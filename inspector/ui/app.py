"""The Textual app: a thin shell that owns the open connections, runs network work in
workers, and feeds session events to the screen once per frame."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import events, work
from textual.app import App
from textual.binding import Binding
from textual.reactive import reactive

from .. import store
from .check_runs import CheckMemory, checkable
from .commands import InspectorCommands
from .key_order import KeyOrder
from .messages import ConnectionChanged, OpenModal, SessionAdvanced, TaskSelected
from .pump import EventPump

# The protocol's models (pydantic) and the session, which the connections bring, are
# imported once the first frame is drawn (``_warm``, or a connection before that):
# they were a good part of that frame's cost.
if TYPE_CHECKING:
    from ..protocol import models as m
    from .connection import AgentConnection

FRAME = 1 / 30
#: How long an error's toast stays up (ctrl+e lists every error for longer).
ERROR_TOAST_SECONDS = 8
#: Characters of one error's detail ctrl+e shows (the traffic view has the whole body).
ERROR_DETAIL_LIMIT = 8192
#: Closing a connection whose session held at least this many events collects the whole
#: heap at once (gcpolicy.reclaim): its objects may sit frozen in cycles, megabytes of
#: them. A smaller session leaves little, and the collection costs the same pause either
#: way (it looks at everything alive: ~0.3-1.6 s in a test process, where it ran at every
#: close); its garbage waits for the policy's own whole-heap collections.
RECLAIM_AFTER_EVENTS = 10_000

#: What takes the keys when a view is shown (F2-F6): the first of these selectors
#: that is on screen. Typing after F3 lands in the composer's text box.
VIEW_FOCUS = {
    "card": ("#card-view",),
    "task": ("#composer-text", "#conversation"),
    "tasks": ("#tasks-table",),
    "traffic": ("#traffic-list",),
    "push": ("#push-table",),
}


class InspectorApp(App[int]):
    """a2a-inspect's terminal UI.

    BINDINGS (see the help screen, F1): views on F2-F6 (each also takes the keys: see
    ``VIEW_FOCUS``), the agents sidebar (ctrl+b shows/hides it), connect (ctrl+o),
    record (ctrl+r), error details (ctrl+e, from anywhere), help (f1), command palette
    (ctrl+p), quit (ctrl+q).
    """

    TITLE = "a2a-inspect"
    CSS_PATH = "inspector.tcss"
    ENABLE_COMMAND_PALETTE = True
    COMMANDS = App.COMMANDS | {InspectorCommands}

    BINDINGS = [
        Binding("f1", "help", "Help"),
        # Priority: the views are always one key away, even from a widget that binds the
        # same key (TextArea takes f6 to select a line).
        Binding("f2", "view('card')", "Card view", show=False, priority=True),
        Binding("f3", "view('task')", "Task view", show=False, priority=True),
        Binding("f4", "view('tasks')", "Tasks view", show=False, priority=True),
        Binding("f5", "view('traffic')", "Traffic view", show=False, priority=True),
        Binding("f6", "view('push')", "Push view", show=False, priority=True),
        Binding("ctrl+b", "toggle_sidebar", "Agents", priority=True),
        Binding("ctrl+o", "open_url", "Connect"),
        Binding("ctrl+r", "toggle_recording", "Record", show=False),
        # Priority: a notification says "ctrl+e: details" whatever has the keys (a text
        # box would take ctrl+e as "end of line"; End does that too).
        Binding("ctrl+e", "error_details", "Error details", show=False, priority=True),
        Binding("f8", "choose_dialect", "Dialect", show=False),
        Binding("shift+f8", "choose_binding", "Binding", show=False),
        Binding("f10", "fault_rules", "Fault rules", show=False, priority=True),
        # Priority: the composer's text box takes f7 (select all) otherwise.
        Binding("f7", "check", "Check", show=False, priority=True),
    ]

    # Neither repaints the screen itself: the views hear of a change (ConnectionChanged,
    # TaskSelected) and redraw what they show. A whole-screen repaint here landed in
    # the first frame of every new task's stream, with its layout (~30-130 ms).
    #: The connection the views show.
    active: reactive[AgentConnection | None] = reactive(None, init=False, always_update=True, repaint=False)
    #: The task the task views focus on (per active connection).
    task_id: reactive[str | None] = reactive(None, init=False, always_update=True, repaint=False)

    def __init__(
        self,
        *,
        url: str | None = None,
        dialect: str = "auto",
        binding: str = "auto",
        demo: bool = False,
        record: str | None = None,
        settings: store.Settings | None = None,
        agent_store: store.AgentStore | None = None,
        demo_scenario: str = "demo",
        replay: Any = None,
        push_port: int = 0,
        record_append: bool = False,
        hub: Any = None,
        proxy: Any = None,
        tls: Any = None,
    ) -> None:
        """``hub``: run a Society AI hub here (headless.hub_cmd.HubOptions); each agent
        that registers opens as ``ws-agent://NAME`` (see ``start_hub``). ``tls``: how
        ``url``'s certificate is checked (client.tls.TlsOptions: --cacert, --cert/--key,
        --insecure)."""
        super().__init__()
        #: Keys handled one after the other, each against the focus it was aimed at.
        self.key_order = KeyOrder(self, super().on_event)
        self.hub_options = hub
        #: (Hub, HubServer, recorder or None) once the hub runs.
        self.hub: Any = None
        #: ``a2a-inspect proxy`` (headless.proxy_cmd.ProxyOptions); see ui/proxy_mode.py.
        self.proxy_options = proxy
        #: (Proxy, ProxyServer, recorder or None) once the proxy runs.
        self.proxy: Any = None
        #: --append: --record adds this session to an existing recording.
        self.record_append = record_append
        #: Loopback port for the push receiver (0: any free port); see ui/push_actions.py.
        self.push_port = push_port
        self.start_url = url
        self.start_dialect = dialect
        self.start_binding = binding
        self.start_tls = tls
        self.demo = demo
        self.demo_scenario = demo_scenario
        self.start_record = record
        self.replay = replay
        loaded, problem = (settings, None) if settings is not None else store.load_settings()
        self.settings = loaded
        self.startup_problems: list[str] = [p for p in (problem,) if p]
        self.agent_store = agent_store or store.AgentStore()
        if self.agent_store.problem:
            self.startup_problems.append(self.agent_store.problem)
        self.connections: list[AgentConnection] = []
        self.pump = EventPump()
        #: Failures, newest last: (time, title, detail). Notifications say "ctrl+e for details".
        self.errors: list[tuple[float, str, str]] = []
        #: Operations waiting on the network: id -> (label, started).
        self.waiting: dict[int, tuple[str, float]] = {}
        self._wait_ids = 0
        self._mock: Any = None
        self.main: Any = None  # the MainScreen, once mounted
        #: The Check view's options and last run, per agent (F7; ui/check_runs.py).
        self.checks = CheckMemory()

    def to_main(self, message: Any) -> None:
        """Deliver a message to the main screen even while a modal is on top."""
        if self.main is not None:
            self.main.post_message(message)

    # ------------------------------------------------------------------ lifecycle

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key):
            if not self.screen_stack:
                # Shutting down (Pilot closes the screens while the app's loop still runs):
                # a key still queued, or bubbling back up, has no screen to go to.
                return
            # A key from the terminal (not one bubbling back up from a widget) goes through
            # KeyOrder: it waits while the key before it is still on its way.
            if not event.is_forwarded:
                await self.key_order.arrived(event)
                return
        await super().on_event(event)

    def on_mount(self) -> None:
        from .screens.main import MainScreen
        from .themes import register_themes

        for problem, said_before in register_themes(self):
            # ctrl+e always lists it; the toast is for the first start that finds it.
            self.errors.append((time.time(), "theme not loaded", problem))
            if not said_before:
                self.startup_problems.append(f"{problem} (said once: ctrl+e lists it)")
        if self.settings.theme in self.available_themes:
            self.theme = self.settings.theme
        self.main = MainScreen()
        # Pushed once this handler is done: Textual holds the app's start-up in a batch
        # update, and a screen pushed from here lays out and renders its first frame
        # inside it, where the frame is thrown away and made again later.
        self.call_later(self.push_screen, self.main)
        self.set_interval(FRAME, self._flush_frame, name="frame-pump")
        for problem in self.startup_problems:
            self.notify(problem, severity="warning", timeout=8)
        # Draw first: the client stack and the demo agent load after the first frame.
        self.call_after_first_frame(self._start)
        self.call_after_first_frame(self._warm)
        from .. import gcpolicy

        self.call_after_first_frame(gcpolicy.resume)  # held by the command line's start-up

    def call_after_first_frame(self, callback: Callable[[], Any]) -> None:
        """Call ``callback`` once the first whole frame is on screen. The first refresh
        draws the screen; the footer makes its keys after that refresh and they show at
        the next one. Work scheduled with a plain call_after_refresh runs before the
        keys are made, and holds them back."""
        self.call_after_refresh(self.call_after_refresh, callback)

    def _warm(self) -> None:
        """Import now what the first frame did without and any connection needs (the
        session, the protocol's models, pydantic): the first connect, send or recording
        does not wait for them then."""
        from ..protocol import methods  # noqa: F401
        from . import connection  # noqa: F401

    def _start(self) -> None:
        if self.replay is not None:
            self.open_connection(self.replay)
        elif self.hub_options is not None:
            self.start_hub()
        elif self.proxy_options is not None:
            self.start_proxy()
        elif self.demo:
            self.start_demo()
        elif self.start_url:
            self.connect_to(self.start_url, dialect=self.start_dialect, binding=self.start_binding, tls=self.start_tls)

    async def on_unmount(self) -> None:
        for conn in self.connections:
            try:
                await conn.aclose()
            except Exception:  # closing must not turn a quit into a traceback
                pass
        if self._mock is not None:
            await self._mock.__aexit__(None, None, None)
        if self.hub is not None:
            _hub, server, recorder = self.hub
            with contextlib.suppress(Exception):
                await server.stop()
            if recorder is not None:
                recorder.close()
        if self.proxy is not None:
            from .proxy_mode import stop_proxy

            with contextlib.suppress(Exception):
                await stop_proxy(self)

    def get_system_commands(self, screen: Any) -> Any:
        """Textual's own palette commands, less those the app has under its own name
        (quit, help): "Theme" is the one place the themes are listed."""
        for command in super().get_system_commands(screen):
            if command.title not in ("Quit", "Keys"):
                yield command

    def get_theme_variable_defaults(self) -> dict[str, str]:
        from .themes import STATE_VARIABLE_DEFAULTS

        return dict(STATE_VARIABLE_DEFAULTS)

    def get_css_variables(self) -> dict[str, str]:
        """Textual's variables, and state colours for a theme without them (Textual's
        own themes): borrowed from this theme's colours. Worked out here, for the theme
        in use only: for all ~20 registered themes at start it took ~12 ms of the first
        frame."""
        from .themes import borrowed_state_variables

        variables = super().get_css_variables()
        variables.update(borrowed_state_variables(self.current_theme, variables))
        self.theme_variables = variables
        return variables

    # ------------------------------------------------------------------ frame pump

    def _flush_frame(self) -> None:
        # Not "_flush": textual.App._flush(stderr=...) flushes captured print output.
        for conn, batch in self.pump.drain():
            changed: set[str] = set()
            tracker = conn.tracker
            for event in batch:
                task = tracker.exchange_task(event.exchange) if event.exchange else None
                if task is None and event.kind.value == "push":
                    # A push belongs to no exchange: the task it updates is named in its body.
                    task = getattr(event.payload, "task_id", None) or getattr(event.payload, "id", None)
                if isinstance(task, str) and task:
                    changed.add(task)
            self.to_main(SessionAdvanced(conn, batch, changed))

    # ------------------------------------------------------------------ connections

    def open_connection(self, conn: AgentConnection, *, activate: bool = True) -> AgentConnection:
        self.connections.append(conn)
        self.pump.watch(conn)
        if activate:
            self.active = conn
        self.to_main(ConnectionChanged(conn))
        return conn

    def connect_to(
        self,
        url: str,
        *,
        dialect: str = "auto",
        name: str | None = None,
        saved: store.SavedAgent | None = None,
        binding: str = "auto",
        tls: Any = None,
    ) -> AgentConnection:
        from .connection import AgentConnection
        from .saved_auth import saved_auth, saved_tls

        auth = saved_auth(saved) if saved is not None else None
        tls = saved_tls(saved) if saved is not None else tls
        conn = AgentConnection(
            url,
            name=name or (saved.name if saved else None),
            dialect=saved.dialect if saved else dialect,
            card_url=saved.card_url if saved else None,
            headers=saved.headers if saved else None,
            auth=auth,
            secret_names=tuple(self.settings.redact_headers),
            plain_names=tuple(self.settings.plain_headers),
            binding=saved.binding if saved is not None and binding == "auto" else binding,
            tls=tls,
        )
        conn.saved_as = saved.name if saved else None
        conn.secret_headers = dict(saved.secret_headers) if saved else {}
        self.open_connection(conn)
        if self.start_record and len(self.connections) == 1:
            self.start_recording(conn, Path(self.start_record), append=self.record_append)
        self.connect(conn)
        return conn

    @work(group="connect", exit_on_error=False)
    async def connect(self, conn: AgentConnection) -> None:
        await self.call_agent(conn, f"connecting to {conn.name}", conn.connect())
        self.warn_not_in_card(conn)
        self.to_main(ConnectionChanged(conn))

    def warn_not_in_card(self, conn: AgentConnection) -> None:
        """The binding or dialect asked for is one the card lists no interface for: the
        endpoint is a guess. Said in a toast, never silently (issue 27 item 6b)."""
        from ..textsafe import visible

        client = conn.client
        missing = getattr(client, "not_in_card", None)
        if client is None or missing is None:
            return
        key = "shift+F8" if missing.axis == "binding" else "F8"
        text = client.redaction.shown(missing.warning(client.endpoint))
        self.notify(
            f"{visible(text, single_line=True)}\n({missing.way('F8: choose {}', f'{key}: choose one it lists')})",
            title=f"{missing.axis} not in the card",
            severity="warning",
            timeout=ERROR_TOAST_SECONDS,
            markup=False,
        )

    @work(exit_on_error=False)
    async def start_demo(self) -> None:
        from mock_agent import MockAgent

        try:
            self._mock = MockAgent(self.demo_scenario, dialect="all")
            await self._mock.__aenter__()
        except Exception as exc:  # a broken embedded mock is reported, not a crash
            self.report_error("the demo agent did not start", exc)
            return
        self.connect_to(self._mock.url, name="demo agent")

    @work(exit_on_error=False)
    async def start_hub(self) -> None:
        """The hub of ``a2a-inspect hub``, in this event loop: the UI hears of its agents
        through its listeners, and each agent's frames through that agent's session."""
        from ..hub import Hub, HubServer
        from .listening import start_listening

        options = self.hub_options
        hub = Hub(limits=options.limits, http_agents=options.routes, agent_sessions=True)
        server = HubServer(hub, port=options.port, ws_path=options.ws_path, allow_hosts=options.allow_hosts)
        recorder = await start_listening(self, "hub", hub.session, options, server)
        if recorder is False:
            return
        self.hub = (hub, server, recorder)
        hub.listeners.append(self._hub_changed)
        self.sub_title = f"hub {server.ws_url}"
        self.notify(
            f"agents connect to {server.ws_url}; the bridge is {server.base_url}/agents/NAME",
            title="hub",
            timeout=10,
            markup=False,
        )

    @work(exit_on_error=False)
    async def start_proxy(self) -> None:
        from .proxy_mode import start_proxy

        await start_proxy(self, self.proxy_options)

    def action_fault_rules(self) -> None:
        if self.proxy is None:
            self.notify("fault rules are the proxy's (a2a-inspect proxy URL --faults FILE)", severity="warning")
            return
        from .screens.fault_rules import FaultRulesScreen

        self.push_screen(FaultRulesScreen(self.proxy[0].rules))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # A replay has no live agent to check, and its timeline has F7: let the key go to it.
        if action == "check" and self.replay is not None:
            return False
        return super().check_action(action, parameters)

    def action_check(self) -> None:
        """The Check view: a2a-inspect check's probes against the active agent."""
        conn = self.active
        if not checkable(conn):
            self.notify(
                "a check needs a live HTTP or gRPC agent: connect to one first (ctrl+o)",
                severity="warning",
                markup=False,
            )
            return
        from .screens.check import CheckScreen

        if any(isinstance(screen, CheckScreen) for screen in self.screen_stack):
            return  # open already (F7 from the view, or from its options)
        self.push_screen(CheckScreen(conn), self._check_closed)

    def _check_closed(self, seq: int | None) -> None:
        if seq is None:
            return
        from .widgets.traffic_view import TrafficView

        self.action_view("traffic")

        def select() -> None:
            for view in self.screen.query(TrafficView):
                if view.select_seq(seq):
                    return

        self.call_after_refresh(select)

    def hub_connection(self, name: str) -> AgentConnection | None:
        from ..hub.client import HubClient

        return next((c for c in self.connections if isinstance(c.client, HubClient) and c.client.name == name), None)

    def _hub_changed(self, what: str, entry: Any) -> None:
        """A hub listener: an agent registered, went stale, came back or left."""
        from ..hub.client import HubClient
        from .connection import AgentConnection

        conn = self.hub_connection(entry.name)
        if what == "registered":
            if conn is None:
                hub = self.hub[0]
                conn = AgentConnection(
                    entry.url, name=entry.name, session=entry.session, client=HubClient(hub, entry.name)
                )
                self.open_connection(conn, activate=self.active is None)
            else:
                self.notify(f"{entry.url} registered again", title="hub", markup=False)
            self.connect(conn)
            return
        if conn is None:
            return
        if what == "stale":
            conn.state = "stale"
            self.notify(
                f"{entry.url} has sent nothing for the heartbeat timeout: marked stale",
                title="hub",
                severity="warning",
                markup=False,
            )
        elif what == "alive":
            conn.state = "ready"
        elif what == "offline":
            conn.state = "offline"
            self.notify(f"{entry.url} disconnected", title="hub", severity="warning", markup=False)
        self.to_main(ConnectionChanged(conn))

    async def close_connection(self, conn: AgentConnection) -> None:
        # A stream still being read by a worker cannot be closed from here: cancel the
        # connection's workers and let them unwind before closing the client.
        running = [w for w in self.workers if w.group == f"conn-{conn.id}" and not w.is_finished]
        for worker in running:
            worker.cancel()
        for worker in running:
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await worker.wait()
        self.pump.unwatch(conn)
        self.checks.forget(conn)
        held = len(conn.session.events)
        if conn in self.connections:
            self.connections.remove(conn)
        await conn.aclose()
        if self.active is conn:
            self.active = self.connections[-1] if self.connections else None
        self.to_main(ConnectionChanged(None))
        from .. import gcpolicy

        if gcpolicy.installed() and held >= RECLAIM_AFTER_EVENTS:
            gcpolicy.reclaim()  # the closed session's objects may sit frozen in cycles

    # ------------------------------------------------------------------ calls

    async def call_agent(self, conn: AgentConnection, label: str, call: Awaitable[Any]) -> Any:
        """Await a network call with a progress entry; failures become notifications."""
        from .connection import UnexpectedFailure, call_errors

        self._wait_ids += 1
        wait_id = self._wait_ids
        self.waiting[wait_id] = (label, time.monotonic())
        try:
            return await call
        except call_errors() as exc:
            self.report_error(f"{label} failed", exc, conn)
            return None
        except Exception as exc:  # a bug, or memory running out: reported, not a silent worker
            self.report_error(f"{label} failed", exc if isinstance(exc, UnexpectedFailure) else UnexpectedFailure(exc))
            return None
        finally:
            self.waiting.pop(wait_id, None)

    def report_error(self, title: str, exc: BaseException, conn: AgentConnection | None = None) -> None:
        """A toast, and the error in full in ctrl+e's list; ``conn``: the connection whose
        call failed (its guesses are named as the likely cause)."""
        from ..protocol.errors import JsonRpcError, describe_rpc_error
        from ..session.redact import Redaction
        from ..textsafe import clip, visible

        client = self.active.client if self.active else None
        # A URL in an error ("cannot connect to http://...?token=...") loses its secrets,
        # as it does in a recording: people share screenshots too.
        redaction = getattr(client, "redaction", None) or Redaction()

        # The title may name the agent's data too ("cancel <task id> failed"): made
        # visible like the rest (a toast's title is drawn as it is, never as markup).
        def bounded(text: str, limit: int, whole: str = "") -> str:
            # Redacted a little past the cut, so that a secret across it is still caught,
            # and no further: a 50 MB message took seconds to scan.
            head = redaction.shown(text[: limit + 4096])
            return clip(head[:limit], limit, whole, size=len(text) - len(text[: limit + 4096]) + len(head))

        title = visible(bounded(title, 200), single_line=True)
        dialect = client.dialect if client else None
        summary = describe_rpc_error(exc, dialect) if isinstance(exc, JsonRpcError) else str(exc)
        detail = summary
        if isinstance(exc, JsonRpcError) and exc.data is not None:
            # The error's data is often the only clue to what went wrong: shown here, up
            # to a bound (an agent's 50 MB message took seconds to lay out).
            import json

            detail += "\ndata: " + json.dumps(exc.data, indent=2, ensure_ascii=False, default=str)
        guessed = conn.client if conn is not None else None
        missing = getattr(guessed, "not_in_card", None)
        if missing is not None and guessed is not None:  # the endpoint was a guess: the likely cause
            key = "shift+F8" if missing.axis == "binding" else "F8"
            way = missing.way("F8 chooses {}", f"{key} chooses one it lists")
            detail += f"\n{missing.text}, so {guessed.endpoint} was a guess: {way}"
        from .auth_hint import refused_hint

        # A refusal says which credential the card asks for and where to set it, as the
        # command line's hint does: "unauthorized" alone left the user guessing.
        hint = refused_hint(conn, exc)
        if hint:
            detail += f"\nhint: {hint}"
        detail = bounded(detail, ERROR_DETAIL_LIMIT, "the traffic view has it whole")
        self.errors.append((time.time(), title, visible(detail)))
        summary = bounded(summary, 200)
        shown = visible(summary, single_line=True)
        if hint:
            shown += "\n" + visible(redaction.shown(hint), single_line=True)
        self.notify(
            f"{shown}\n(ctrl+e: details)", title=title, severity="error", timeout=ERROR_TOAST_SECONDS, markup=False
        )

    def _conn_worker(self, conn: AgentConnection, coro: Awaitable[Any], name: str) -> Any:
        # Grouped per connection so closing a connection can stop its streams first.
        return self.run_worker(coro, name=name, group=f"conn-{conn.id}", exit_on_error=False)

    def send_message(self, conn: AgentConnection, params: m.SendParams, stream: bool) -> Any:
        verb = "streaming" if stream else "sending"
        return self._conn_worker(
            conn, self.call_agent(conn, f"{verb} to {conn.name}", conn.send(params, stream=stream)), "send"
        )

    def task_action(self, conn: AgentConnection, action: str, task_id: str) -> Any:
        calls: dict[str, Callable[[], Awaitable[Any]]] = {
            "get": lambda: conn.get_task(task_id),
            "cancel": lambda: conn.cancel(task_id),
            "resubscribe": lambda: conn.resubscribe(task_id),
        }

        async def run() -> Any:
            from ..protocol import models as m

            result = await self.call_agent(conn, f"{action} {task_id[:8]}", calls[action]())
            if action == "get" and isinstance(result, m.Task) and conn in self.connections:
                # What was fetched is shown: that task, in the Task view.
                if self.active is not conn:
                    self.active = conn
                self.select_task(result.id)
                self.action_view("task")
            return result

        return self._conn_worker(conn, run(), action)

    def action_get_task_by_id(self) -> None:
        """Ask for a task id and get that task from the active agent."""
        from .screens.prompt import PromptScreen

        conn = self.active
        if conn is None or conn.read_only:
            self.notify("no live agent: connect first (ctrl+o)", severity="warning")
            return

        def chosen(task_id: str | None) -> None:
            if task_id and task_id.strip() and self.active is conn:
                self.task_action(conn, "get", task_id.strip())

        self.push_screen(PromptScreen("Get a task by id", self.task_id or "", placeholder="task id"), chosen)

    @work(group="dialect", exclusive=True, exit_on_error=False)
    async def switch_dialect(self, conn: AgentConnection, dialect: str) -> None:
        await self.call_agent(conn, f"switching to dialect {dialect}", conn.switch_dialect(dialect))
        self.warn_not_in_card(conn)
        self.to_main(ConnectionChanged(conn))

    @work(group="binding", exclusive=True, exit_on_error=False)
    async def switch_binding(self, conn: AgentConnection, binding: str) -> None:
        from ..protocol.bindings import LABELS

        if binding in ("rest", "grpc") and conn.requested_dialect == "0.1":
            self.notify(
                f"the 0.1 draft has no {LABELS[binding]} binding: switch the dialect first (f8)",
                title="binding not switched",
                severity="warning",
                markup=False,
            )
            return
        await self.call_agent(conn, f"switching to binding {binding}", conn.switch_binding(binding))
        self.warn_not_in_card(conn)
        self.to_main(ConnectionChanged(conn))

    # ------------------------------------------------------------------ recording

    def start_recording(self, conn: AgentConnection, path: Path | None = None, *, append: bool = False) -> None:
        path = path or store.default_recording_path(conn.url, self.settings)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            conn.start_recording(
                path,
                redact=self.settings.redact,
                extra_secret_headers=tuple(self.settings.redact_headers),
                append=append,
            )
        except FileExistsError:
            self.report_error(
                f"cannot record to {path}",
                OSError(f"{path.name} exists: start with --append to add this session to it"),
            )
            return
        except (OSError, ValueError) as exc:
            self.report_error(f"cannot record to {path}", exc)
            return
        self.notify(f"recording to {path}", title="recording", markup=False)
        self.to_main(ConnectionChanged(conn))

    def action_toggle_recording(self) -> None:
        conn = self.active
        if conn is None or conn.read_only:
            self.notify("no live agent to record", severity="warning")
            return
        if conn.recording is not None:
            path = conn.stop_recording()
            self.notify(f"recording saved to {path}", title="recording", markup=False)
            self.to_main(ConnectionChanged(conn))
        else:
            self.start_recording(conn)

    # ------------------------------------------------------------------ actions

    def select_task(self, task_id: str | None) -> None:
        self.task_id = task_id
        if self.active is not None:
            self.to_main(TaskSelected(self.active, task_id))

    def action_view(self, name: str) -> None:
        """Show view ``name`` and give it the keys (``VIEW_FOCUS``), even when it is the
        view already shown: after F3, what you type goes into the composer."""
        from textual.widgets import TabbedContent

        screen = self.screen
        try:
            tabs = screen.query_one("#views", TabbedContent)
        except Exception:  # another screen (help, a dialog) is on top
            return
        mount_view = getattr(screen, "mount_view", None)
        if mount_view is not None:  # the hidden tabs' views may not have mounted yet
            mount_view(name)
        if tabs.active != name:
            # Let go of the focus first: when the focused widget's tab is hidden, Textual
            # hands the focus to a neighbour in the same (hidden) tab, and the tabs
            # follow the focus straight back.
            focused = screen.focused
            if focused is not None and tabs in focused.ancestors:
                screen.set_focus(None)
            tabs.active = name
        self._focus_view(name, tries=10)

    def _focus_view(self, name: str, tries: int = 0) -> None:
        """Focus the view's own widget; a view that has just mounted (see
        MainScreen.mount_view) may not be focusable yet: try again after the next
        refresh, a few times."""
        from .widgets.base import hidden

        screen = self.screen
        for selector in VIEW_FOCUS.get(name, ()):
            target = next(iter(screen.query(selector)), None)
            if target is not None and target.focusable and not hidden(target):
                screen.set_focus(target)  # now: a deferred focus() leaves a gap with no focus
                return
        if tries > 0:
            self.call_after_refresh(self._focus_view, name, tries - 1)
            return
        pane = next(iter(screen.query(f"#{name}")), None)
        target = next((w for w in screen.focus_chain if pane in w.ancestors), None) if pane else None
        if target is not None:
            target.focus()

    def action_toggle_sidebar(self) -> None:
        """The agents sidebar: hidden, it shows and takes the keys; shown without the
        keys, it takes them; shown with the keys, it hides and the view takes them."""
        screen = self.screen
        try:
            panel = screen.query_one("#agents")
        except Exception:  # another screen is on top
            return
        focused = screen.focused
        if panel.display and focused is not None and panel in focused.ancestors_with_self:
            panel.display = False
            self._focus_current_view()
            return
        panel.display = True
        # Now, not after a refresh: a key typed right after ctrl+b ("a" to add an
        # agent) is meant for the sidebar.
        screen.set_focus(panel.query_one("#agents-list"))

    def _focus_current_view(self) -> None:
        from textual.widgets import TabbedContent

        try:
            tabs = self.screen.query_one("#views", TabbedContent)
        except Exception:
            return
        self._focus_view(tabs.active, tries=3)

    def on_open_modal(self, message: OpenModal) -> None:
        """A widget asked for a modal (widgets never import screens)."""
        from .screens import modal

        message.stop()
        self.push_screen(modal(message.name)(*message.args, **message.kwargs), message.done)

    def action_help(self) -> None:
        from .screens.help import HelpScreen

        self.push_screen(HelpScreen())

    def action_error_details(self) -> None:
        from .screens.errors import ErrorsScreen

        if isinstance(self.screen, ErrorsScreen):  # the same key closes it
            self.screen.dismiss(None)
            return
        if not self.errors:
            self.notify("no errors so far")
            return
        self.push_screen(ErrorsScreen(self.errors))

    def action_choose_binding(self) -> None:
        from .widgets.connection_bar import choose_binding

        choose_binding(self)

    def action_choose_dialect(self) -> None:
        from .widgets.connection_bar import choose_dialect

        choose_dialect(self)

    def action_open_url(self) -> None:
        from .screens.prompt import PromptScreen

        def opened(url: str | None) -> None:
            if url:
                self.connect_to(url.strip())

        self.push_screen(
            PromptScreen("Connect to agent", "http://127.0.0.1:8003", placeholder="agent base URL or card URL"), opened
        )

    def watch_active(self, conn: AgentConnection | None) -> None:
        self.task_id = None
        self.to_main(ConnectionChanged(conn))

    def watch_theme(self, theme: str) -> None:
        if getattr(self, "settings", None) is not None and self.settings.theme != theme:
            self.settings.theme = theme
            try:
                store.save_settings(self.settings)
            except OSError:
                pass
