"""A second task beside the selected one in the Task view: to compare two agents (a 0.3
and a 1.0 one, say) answering the same message, or two turns of one agent."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widget import AwaitMount
from textual.widgets import Static

from ...textsafe import shorten
from .artifacts_view import ArtifactsView
from .base import ConnectionView
from .connection_bar import connection_label
from .conversation import Conversation
from .formatting import short_id
from .state_diagram import StateDiagram

if TYPE_CHECKING:
    from ...session import Event
    from ..connection import AgentConnection


class TaskBeside(ConnectionView, Vertical):
    """The task pinned beside the selected one: its agent, conversation, states and
    artifacts, following it live like the main ones. Pinned from the tasks view (``b``
    on a row; ``b`` on the pinned row again closes it). Its own views ignore the app's
    selection: the screen does not fan out to them, this widget does, for its task only.

    Its conversation, states and artifacts mount at the first pin: most sessions never
    split the view, and at start they were a tenth of the screen's widgets to compose
    and style (~15 ms of CPU per start).
    """

    DEFAULT_CSS = """
    TaskBeside {
        display: none;
        width: 3fr;
        border-left: solid $panel-lighten-1;
        & > #beside-head { height: 1; padding: 0 1; background: $panel; text-style: bold; }
        & > Conversation { height: 1fr; }
        & > StateDiagram { height: auto; }
        & > ArtifactsView { height: 1fr; }
    }
    TaskBeside.-shown { display: block; }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.conn: AgentConnection | None = None
        self.task_id: str | None = None
        #: The parts: asked for at the first pin, fed once they have mounted.
        self._parts_asked = False
        self._parts_mounted = False

    def compose(self) -> ComposeResult:
        yield Static("", id="beside-head", markup=False)

    @property
    def shown(self) -> bool:
        return self.task_id is not None

    def _parts(self) -> list[Any]:
        if not self._parts_mounted:
            return []
        return [self.query_one(Conversation), self.query_one(StateDiagram), self.query_one(ArtifactsView)]

    def pin(self, conn: AgentConnection | None, task_id: str | None) -> None:
        """Show ``task_id`` of ``conn`` here; None closes the split."""
        self.conn, self.task_id = (conn, task_id) if task_id is not None else (None, None)
        if self.shown and not self._parts_mounted:
            # Shown once they have mounted, as they were when composed with the rest:
            # mounted while hidden, then given the task, then shown.
            if not self._parts_asked:
                self._parts_asked = True
                mounting = self.mount(
                    Conversation(id="beside-conversation"),
                    StateDiagram(id="beside-diagram"),
                    ArtifactsView(id="beside-artifacts"),
                )
                self.call_later(self._parts_ready, mounting)
            return
        self._show()

    async def _parts_ready(self, mounting: AwaitMount) -> None:
        await mounting
        self._parts_mounted = True
        self._show()  # whatever is pinned by now

    def _show(self) -> None:
        self.set_class(self.shown, "-shown")
        if self.parent is not None:
            self.parent.set_class(self.shown, "-beside")
        for part in self._parts():
            part.show_task(self.conn, self.task_id)
        self._head()

    def _head(self) -> None:
        conn, task_id = self.conn, self.task_id
        if conn is None or task_id is None:
            text = ""
        else:
            task = conn.tracker.task(task_id)
            state = task.state.value if task is not None and task.state is not None else "?"
            dialect = f" · {conn.dialect_name}" if conn.dialect_name else ""
            text = f"beside: {shorten(connection_label(conn), 24)}{dialect} · task {short_id(task_id)} · {state}"
        self.query_one("#beside-head", Static).update(Text(text), layout=False)

    # ------------------------------------------------------------------ ConnectionView

    def show_connection(self, conn: AgentConnection | None) -> None:
        # Its task stays whatever the active connection is; a closed connection ends it.
        app: Any = self.app
        if self.conn is not None and self.conn not in getattr(app, "connections", []):
            self.pin(None, None)

    def session_advanced(self, conn: AgentConnection, events: list[Event], changed: set[str]) -> None:
        if conn is not self.conn or self.task_id not in changed:
            return
        for part in self._parts():
            part.session_advanced(conn, events, changed)
        self._head()
