"""A local push-notification receiver per connection, and the notifications it got.

The receiver (``inspector.client.push_receiver``) is a small HTTP server on loopback; it
appends every POST to the connection's session as a PUSH event, which the tracker
applies to the task's timeline like any stream event. The connection owns it
(``AgentConnection.push``): this panel asks the app to start, stop or register it
(``ui.push_actions``, app workers) and draws what the connection holds, so switching
views or mounting the panel again neither stops nor duplicates a receiver.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.color import Color, ColorParseError
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, DataTable, Static

from ...protocol import models as m
from ...protocol.sizes import format_size
from ...session import Event, Kind
from ...textsafe import visible
from .. import push_actions
from ..connection import AgentConnection
from .base import ConnectionView, leaving
from .traffic_model import payload_label

if TYPE_CHECKING:
    # Starlette and uvicorn load when a receiver first starts, not with the app.
    from ...client.push_receiver import PushReceiver

HINT = "s: start/stop the receiver · r: register for the selected task · enter: show in traffic"


def _short(task_id: str) -> str:
    """A task id for a narrow column: whole up to 12 characters, else its first 8. The
    agent picks the id: its control characters are made visible first."""
    text = visible(task_id, single_line=True)
    return text if len(text) <= 12 else text[:8] + "…"


def _task_of(event: Event) -> str | None:
    payload = event.payload
    task = getattr(payload, "task_id", None) or getattr(payload, "id", None)
    return task if isinstance(task, str) else None


class PushPanel(ConnectionView, Vertical):
    """Push notifications of the active connection.

    BINDINGS:
    | key | action |
    | :- | :- |
    | s | start / stop the local receiver for the active connection |
    | r | register the receiver for the selected task (a fresh random token) |
    | enter | show the selected notification in the traffic view |
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("s", "toggle_receiver", "Receiver on/off"),
        Binding("r", "register_push", "Register"),
    ]

    DEFAULT_CSS = """
    PushPanel {
        height: 1fr;
        & > #push-bar { height: auto; }
        & > #push-bar > Button { margin-right: 1; min-width: 12; }
        & > #push-status { height: auto; padding: 0 1; }
        & > #push-hint { height: 1; padding: 0 1; color: $foreground-muted; }
        & > DataTable { height: 1fr; }
    }
    """

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.connection: AgentConnection | None = None
        #: The connection whose push state this panel listens to.
        self._followed: AgentConnection | None = None
        self._ready = False
        self._rows = 0

    def compose(self) -> ComposeResult:
        with Horizontal(id="push-bar"):
            yield Button("Start receiver", id="push-start", compact=True)
            yield Button("Register for task", id="push-register", compact=True)
        # A line of its own: the receiver's URL is long, and is what a user copies.
        yield Static("", id="push-status", markup=False)
        yield Static(HINT, id="push-hint", markup=False)
        table: DataTable[Any] = DataTable(id="push-table", cursor_type="row", zebra_stripes=True)
        table.add_columns("time", "task", "state", "token", "size", "path")
        yield table

    def on_mount(self) -> None:
        if leaving(self):
            return
        self._ready = True
        self.show_connection(self.connection or getattr(self.app, "active", None), force=True)

    def on_unmount(self) -> None:
        # The receiver stays with its connection; only this panel stops listening to it.
        self._follow(None)

    def _follow(self, conn: AgentConnection | None) -> None:
        old, self._followed = self._followed, conn
        if old is conn:
            return
        if old is not None:
            old.push.unsubscribe(self._status)
        if conn is not None:
            conn.push.subscribe(self._status)

    # ------------------------------------------------------------------ ConnectionView

    def show_connection(self, conn: AgentConnection | None, force: bool = False) -> None:
        if conn is self.connection and not force:
            self._status()
            return
        self.connection = conn
        if not self._ready:
            return
        self._follow(conn)
        table = self.query_one(DataTable)
        table.clear()
        self._rows = 0
        if conn is not None:
            self._add_rows([e for e in conn.session.events if e.kind is Kind.PUSH])
        self._status()

    def session_advanced(self, conn: AgentConnection, events: list[Event], changed: set[str]) -> None:
        if conn is not self.connection or not self._ready:
            return
        pushes = [e for e in events if e.kind is Kind.PUSH]
        if pushes:
            self._add_rows(pushes)
            self._status()

    def show_task(self, conn: AgentConnection | None, task_id: str | None) -> None:
        if self._ready:
            self._status()

    # ------------------------------------------------------------------ drawing

    @property
    def receiver(self) -> PushReceiver | None:
        conn = self.connection
        return conn.push.receiver if conn is not None else None

    def _connections(self) -> list[AgentConnection]:
        return list(getattr(self.app, "connections", []))

    @property
    def receivers(self) -> dict[int, PushReceiver]:
        """The open connections' receivers, by connection id (each connection owns its own)."""
        return {c.id: c.push.receiver for c in self._connections() if c.push.receiver is not None}

    @property
    def registered(self) -> dict[tuple[int, str], m.PushNotificationConfig]:
        """(connection id, task id) -> the config the agent accepted, of the open connections."""
        return {(c.id, task): config for c in self._connections() for task, config in c.push.registered.items()}

    def _state_style(self, state: str) -> str:
        try:
            value = getattr(self.app, "theme_variables", {}).get(f"state-{state}")
            return Color.parse(value).rich_color.name if value else ""
        except (ColorParseError, AttributeError, TypeError):
            return ""

    def _token(self, event: Event) -> Text:
        receiver = self.receiver
        if receiver is not None and any(e is event for e in receiver.received):
            verdict = receiver.check_token(event)
        else:
            from ...client.push_receiver import token_of

            verdict = "present" if token_of(event.data.get("headers") or {}) else "none"
        style = {"ok": "bold green", "wrong": "bold red", "missing": "bold red"}.get(verdict, "")
        return Text(verdict, style=style)

    def _add_rows(self, events: list[Event]) -> None:
        table = self.query_one(DataTable)
        for event in events:
            # The path is the agent's too (where it posted, decoded): made visible.
            task = _short(_task_of(event) or "?")
            state = payload_label(event.payload) or ("no body" if not event.data.get("body") else "?")
            path = visible(str(event.data.get("path") or event.data.get("url") or ""), single_line=True)
            table.add_row(
                Text(f"{event.t:.3f}"),
                Text(task),
                Text(state, style=self._state_style(state)),
                self._token(event),
                Text(format_size(event.data.get("body_size"))),
                Text(path[-40:]),
                key=str(event.seq),
            )
            self._rows += 1
        if table.row_count:
            table.move_cursor(row=table.row_count - 1)

    def _status(self) -> None:
        if not self._ready:
            return
        conn = self.connection
        receiver = self.receiver
        start = self.query_one("#push-start", Button)
        if conn is None:
            text = "no agent"
        elif conn.read_only:
            text = "a recording: notifications as received, no receiver"
        elif conn.push.starting:
            text = "receiver starting…"
        elif receiver is None or not receiver.running:
            text = "receiver stopped"
        else:
            text = f"listening on {receiver.url}"
        start.label = "Stop receiver" if receiver is not None and receiver.running else "Start receiver"
        if conn is not None:
            tasks = list(conn.push.registered)
            if tasks:
                shown = ", ".join(_short(t) for t in tasks[-3:])
                text += f" · for {shown}"
            text += f" · {self._rows} received"
        self.query_one("#push-status", Static).update(text)

    # ------------------------------------------------------------------ actions

    def _live(self) -> AgentConnection | None:
        conn = self.connection
        if conn is None:
            self.app.notify("no agent connected", severity="warning")
            return None
        if conn.read_only:
            self.app.notify("this is a recording: it cannot receive or register", severity="warning")
            return None
        return conn

    def action_toggle_receiver(self) -> None:
        receiver = self.receiver
        if receiver is not None and receiver.running:
            self.action_stop_receiver()
        else:
            self.action_start_receiver()

    def action_start_receiver(self) -> None:
        """Start the local receiver for the active connection (a no-op if it runs)."""
        conn = self._live()
        if conn is not None:
            push_actions.start_receiver(self.app, conn)

    def action_stop_receiver(self) -> None:
        conn = self.connection
        if conn is None:
            self.app.notify("the push receiver is not running")
            return
        push_actions.stop_receiver(self.app, conn)

    def _target_task(self, conn: AgentConnection) -> str | None:
        task_id = getattr(self.app, "task_id", None)
        if task_id:
            return task_id
        tasks = conn.tracker.tasks
        if not tasks:
            return None
        return max(tasks.values(), key=lambda t: t.last_seq).id

    def action_register_push(self) -> None:
        """Register the receiver (started if need be) for the selected task, else the newest."""
        conn = self._live()
        if conn is None:
            return
        task_id = self._target_task(conn)
        if task_id is None:
            self.app.notify("no task yet: send a message first", severity="warning")
            return
        push_actions.register(self.app, conn, task_id)

    # ------------------------------------------------------------------ events

    @on(Button.Pressed, "#push-start")
    def _start_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_toggle_receiver()

    @on(Button.Pressed, "#push-register")
    def _register_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_register_push()

    @on(DataTable.RowSelected)
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        key = event.row_key.value
        if not key:
            return
        from .traffic_view import TrafficView

        self.app.action_view("traffic")
        for view in self.screen.query(TrafficView):
            if view.select_seq(int(key)):
                return
