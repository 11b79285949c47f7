"""Every task of the session with state, age and agent."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rich.style import Style
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import DataTable, Static

from ...protocol.models import TaskState
from ...protocol.states import TERMINAL
from ...session import Event
from ...textsafe import shorten
from ..connection import AgentConnection
from .base import ComponentStyles, ConnectionView, leaving
from .connection_bar import connection_label
from .formatting import format_age, short_id

if TYPE_CHECKING:
    from ...session.tracker import TaskView

COLUMNS = (
    ("agent", "agent"),
    ("state", "state"),
    ("task", "task"),
    ("age", "age"),
    ("artifacts", "artifacts"),
    ("violations", "violations"),
    ("messages", "messages"),
)

HINT = "enter open · g get · c cancel · r resubscribe · b beside the open task (split)"


@dataclass
class _Row:
    conn: AgentConnection
    task_id: str
    started: float
    cells: dict[str, Any] = field(default_factory=dict)


def row_key(conn: AgentConnection, task_id: str) -> str:
    return f"{conn.id}:{task_id}"


class TasksView(ConnectionView, ComponentStyles, Vertical):
    """Every task of every open connection, oldest first: agent, state (in its colour),
    short id, age, artifact, violation and message counts. A task whose latest word was a
    JSON-RPC error reads "working · error -32603" (the error is not a state), one whose
    stream was cut at a limit "working · stream cut". Rows are added and updated
    in place as the tasks change; a task seen out of order re-sorts the table.

    It also follows the newest task: until you pick one yourself, the newest task of
    the active connection is selected as soon as it appears (so a task you just created
    shows in the Task tab), and a direct reply (no task) clears the selection so the
    conversation shows it. Choosing a task (here, or anywhere that posts TaskSelected)
    stops following, and that task comes back when its connection is made active
    again; selecting no task resumes following.

    BINDINGS:
        enter: show the task in the Task tab.
        g: get the task from the agent (tasks/get).
        c: cancel the task.
        r: resubscribe to the task's stream.
        b: show the task beside the selected one in the Task tab (split); on the task
           already beside: close the split.

    COMPONENT_CLASSES:
        tasks-view--<state>: each task state's colour.
        tasks-view--violations: a non-zero violation count.
        tasks-view--dim: zeros and the agent column.
    """

    STYLE_PREFIX = "tasks-view"
    STYLE_DEFAULT = Style()

    BINDINGS = [
        Binding("enter", "open", "Open"),
        Binding("g", "task_action('get')", "Get"),
        Binding("c", "task_action('cancel')", "Cancel"),
        Binding("r", "task_action('resubscribe')", "Resubscribe"),
        Binding("b", "beside", "Beside"),
    ]

    COMPONENT_CLASSES = {*(f"tasks-view--{s.value}" for s in TaskState), "tasks-view--violations", "tasks-view--dim"}

    DEFAULT_CSS = """
    TasksView {
        & > #tasks-hint { height: 1; padding: 0 1; color: $foreground-muted; background: $panel; }
        & > DataTable { height: 1fr; }
        & > .tasks-view--submitted { color: $state-submitted; }
        & > .tasks-view--working { color: $state-working; }
        & > .tasks-view--input-required { color: $state-input-required; }
        & > .tasks-view--auth-required { color: $state-auth-required; }
        & > .tasks-view--completed { color: $state-completed; }
        & > .tasks-view--canceled { color: $state-canceled; }
        & > .tasks-view--failed { color: $state-failed; }
        & > .tasks-view--rejected { color: $state-rejected; }
        & > .tasks-view--unknown { color: $state-unknown; }
        & > .tasks-view--violations { color: $error; text-style: bold; }
        & > .tasks-view--dim { color: $foreground-muted; }
    }
    """

    #: Wall clock for ages; tests and snapshots may replace it.
    clock: Callable[[], float] = staticmethod(time.time)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._rows: dict[str, _Row] = {}
        #: Row keys in display order (by first sight, oldest first).
        self._order: list[str] = []
        #: Tasks already listed per connection id (tracker.tasks only grows).
        self._known: dict[int, int] = {}
        self._active: AgentConnection | None = None
        # Following the newest task: per connection, whether the user picked one.
        self._pinned: dict[int, bool] = {}
        self._auto: tuple[int, str | None] | None = None
        self._replies: dict[int, int] = {}
        #: The task last selected per connection, restored when it becomes active again.
        self._chosen: dict[int, str | None] = {}
        self._styles: dict[str, Style] = {}

    def compose(self) -> ComposeResult:
        yield Static(Text(HINT), id="tasks-hint")
        yield DataTable(id="tasks-table", cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        if leaving(self):
            return
        table = self.table
        for label, key in COLUMNS:
            table.add_column(label, key=key)
        self.set_interval(1.0, self._tick, name="task-ages")
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._restyle())
        # Mounted after the first frame (see MainScreen): list what is there already,
        # without following (the app's selection stands).
        app: Any = self.app
        for conn in list(getattr(app, "connections", [])):
            self._add_new(conn)
            self._replies[conn.id] = len(conn.tracker.replies)
        active, task_id = getattr(app, "active", None), getattr(app, "task_id", None)
        if active is not None and task_id is None and active.tracker.tasks:
            # Tasks came before this view (a loaded machine draws its first frame late):
            # the newest is followed, as it would have been with the view there.
            self._follow(active, active.tracker.tasks)
            task_id = app.task_id
        if active is not None and task_id is not None and row_key(active, task_id) in self._rows:
            table.move_cursor(row=self._order.index(row_key(active, task_id)), animate=False)

    @property
    def table(self) -> DataTable:
        return self.query_one("#tasks-table", DataTable)

    @property
    def row_keys(self) -> list[str]:
        """Row keys (``<connection id>:<task id>``) in display order."""
        return list(self._order)

    # ------------------------------------------------------------------ ConnectionView

    def show_connection(self, conn: AgentConnection | None) -> None:
        connections: list[AgentConnection] = list(self.app.connections)
        live = {c.id for c in connections}
        gone = [k for k, row in self._rows.items() if row.conn.id not in live]
        if gone:
            for key in gone:
                del self._rows[key]
            self._order = [k for k in self._order if k in self._rows]
            for cid in list(self._known):
                if cid not in live:
                    del self._known[cid]
            self._rebuild()
        for c in connections:
            self._add_new(c)
        if conn is not None:  # its card (and so its name) may have just arrived
            for key, row in self._rows.items():
                task = conn.tracker.task(row.task_id) if row.conn is conn else None
                if task is not None:
                    self._update_row(key, row, task)
        switched = conn is not self._active
        self._active = conn
        if switched and conn is not None:
            self._replies[conn.id] = len(conn.tracker.replies)
            if self.app.task_id is None:
                chosen = self._chosen.get(conn.id)
                if self._pinned.get(conn.id) and chosen in conn.tracker.tasks:
                    # Back on a connection: the task picked there before comes back.
                    self.app.select_task(chosen)
                else:
                    self._follow(conn, conn.tracker.tasks)

    def show_task(self, conn: AgentConnection | None, task_id: str | None) -> None:
        if conn is None:
            return
        if task_id is None:
            self._pinned[conn.id] = False
        elif self._auto != (conn.id, task_id):
            self._pinned[conn.id] = True
        self._auto = None
        self._chosen[conn.id] = task_id
        if task_id is not None:
            key = row_key(conn, task_id)
            if key in self._rows:
                self.table.move_cursor(row=self._order.index(key), animate=False)

    def session_advanced(self, conn: AgentConnection, events: list[Event], changed: set[str]) -> None:
        if conn not in self.app.connections:
            return
        new = self._add_new(conn)
        tracker = conn.tracker
        for task_id in changed:
            key = row_key(conn, task_id)
            row = self._rows.get(key)
            task = tracker.task(task_id)
            if row is not None and task is not None:
                self._update_row(key, row, task)
        if conn is self.app.active and not self._pinned.get(conn.id):
            replies = len(tracker.replies)
            if new:
                self._follow(conn, new)
            elif replies > self._replies.get(conn.id, 0) and self.app.task_id is not None:
                self._auto = (conn.id, None)
                self.app.select_task(None)
            self._replies[conn.id] = replies

    # ------------------------------------------------------------------ following

    def _follow(self, conn: AgentConnection, tasks: Any) -> None:
        """Select the newest of ``tasks`` (ids) on ``conn``, as the app's task."""
        newest: TaskView | None = None
        for task_id in tasks:
            task = conn.tracker.task(task_id)
            if task is not None and (newest is None or task.first_seq >= newest.first_seq):
                newest = task
        if newest is None or newest.id == self.app.task_id:
            return
        self._auto = (conn.id, newest.id)
        self.app.select_task(newest.id)

    # ------------------------------------------------------------------ rows

    def _add_new(self, conn: AgentConnection) -> list[str]:
        tasks = conn.tracker.tasks
        known = self._known.get(conn.id, 0)
        if len(tasks) <= known:
            return []
        new_ids = list(tasks)[known:]
        self._known[conn.id] = len(tasks)
        started0 = conn.session.started_wall
        resort = False
        for task_id in new_ids:
            task = tasks[task_id]
            key = row_key(conn, task_id)
            if key in self._rows:
                continue
            row = _Row(conn, task_id, started0 + task.first_t)
            if self._order and self._rows[self._order[-1]].started > row.started:
                resort = True
            self._rows[key] = row
            self._order.append(key)
            row.cells = self._cells(row, task)
            if not resort:
                self.table.add_row(*row.cells.values(), key=key)
        if resort:
            self._order.sort(key=lambda k: self._rows[k].started)
            self._rebuild()
        return new_ids

    def _rebuild(self) -> None:
        table = self.table
        cursor = self._order[table.cursor_row] if 0 <= table.cursor_row < len(self._order) else None
        table.clear()
        for key in self._order:
            row = self._rows[key]
            table.add_row(*row.cells.values(), key=key)
        if cursor in self._rows:
            table.move_cursor(row=self._order.index(cursor), animate=False)

    def _cells(self, row: _Row, task: TaskView) -> dict[str, Any]:
        dim = self._style("dim")
        state = task.state.value if task.state is not None else "—"
        violations = len(task.violations)
        state_cell = Text(state, style=self._style(state) if task.state is not None else dim)
        ended = task.ended is not None and task.state not in TERMINAL
        if task.error is not None and task.error.error is not None:
            # Not a state: the agent's latest word after it (see TaskView.error); when it
            # ended the stream (TaskView.ended), nothing follows the task: g gets it.
            said = " · ended on error" if ended else " · error"
            state_cell.append(f"{said} {task.error.error.code}", style=self._style("violations"))
        if task.cut is not None:
            # Nor is a stream the client cut at a limit (see TaskView.cut).
            state_cell.append(" · stream cut", style=self._style("violations"))
        return {
            # The card's name once it is known (or the name the user gave the agent).
            "agent": Text(shorten(connection_label(row.conn), 18), style=dim),
            "state": state_cell,
            "task": Text(short_id(task.id)),
            "age": Text(self._age(row), justify="right"),
            "artifacts": Text(str(len(task.artifacts)), justify="right", style=dim if not task.artifacts else Style()),
            "violations": Text(
                str(violations), justify="right", style=self._style("violations") if violations else dim
            ),
            "messages": Text(str(len(task.history)), justify="right"),
        }

    def _update_row(self, key: str, row: _Row, task: TaskView) -> None:
        cells = self._cells(row, task)
        table = self.table
        for column, value in cells.items():
            if row.cells.get(column) != value:
                table.update_cell(key, column, value, update_width=True)
        row.cells = cells

    def _age(self, row: _Row) -> str:
        return format_age(self.clock() - row.started)

    def _tick(self) -> None:
        table = self.table
        for key, row in self._rows.items():
            age = Text(self._age(row), justify="right")
            if row.cells.get("age") != age:
                row.cells["age"] = age
                table.update_cell(key, "age", age)

    def _restyle(self) -> None:
        for key, row in self._rows.items():
            task = row.conn.tracker.task(row.task_id)
            if task is not None:
                row.cells = {}
                self._update_row(key, row, task)

    # ------------------------------------------------------------------ actions

    def _cursor(self) -> _Row | None:
        table = self.table
        if not self._order or not 0 <= table.cursor_row < len(self._order):
            return None
        return self._rows.get(self._order[table.cursor_row])

    @on(DataTable.RowSelected, "#tasks-table")
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_open()

    def action_open(self) -> None:
        row = self._cursor()
        if row is None:
            self.notify("No task yet.", severity="warning")
            return
        app: Any = self.app
        if app.active is not row.conn:
            app.active = row.conn
        app.select_task(row.task_id)
        app.action_view("task")

    def action_beside(self) -> None:
        """Pin the highlighted task beside the selected one and show the Task tab;
        the task already beside closes the split."""
        from .task_beside import TaskBeside

        row = self._cursor()
        app: Any = self.app
        beside = next(iter(app.screen.query(TaskBeside)), None)
        if beside is None:
            return
        if row is None or (beside.conn is row.conn and beside.task_id == row.task_id):
            beside.pin(None, None)
            self.notify("split closed")
            return
        beside.pin(row.conn, row.task_id)
        if app.task_id is None or (app.active is row.conn and app.task_id == row.task_id):
            self.notify("beside: select another task (enter) to compare with", markup=False)
        app.action_view("task")

    def action_task_action(self, action: str) -> None:
        row = self._cursor()
        if row is None:
            self.notify("No task selected.", severity="warning")
            return
        if row.conn.read_only:
            self.notify(f"{row.conn.name} is a recording: it cannot {action}.", severity="warning", markup=False)
            return
        self.app.task_action(row.conn, action, row.task_id)
