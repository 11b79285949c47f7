"""The selected task's messages, user and agent; direct replies when no task is selected."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from ...protocol.models import Message, Role, TaskState
from ...protocol.states import INTERRUPTED
from ...session import Event
from ..connection import AgentConnection
from .base import SelectedTaskView
from .formatting import short_id
from .message_view import MessageView

if TYPE_CHECKING:
    from ...session.tracker import TaskView

EMPTY_NO_AGENT = "No agent connected. ctrl+o connects to one."
EMPTY_NO_TASK = "No task yet: send a message from the composer below. Direct replies (no task) show here."
EMPTY_TASK = "No messages in this task yet."


class Conversation(SelectedTaskView, VerticalScroll):
    """The selected task's conversation: the user's messages, the agent's messages and
    status messages (labelled with the state they came with), and the question of an
    input-required turn, highlighted while the agent waits for the answer. With no task
    selected it shows direct Message replies (answers that created no task), each after
    the message that asked.

    New messages are mounted as they arrive; nothing already shown is rebuilt unless
    the agent's snapshot reorders the history. Follows the end while you are at the end.

    BINDINGS: the scrolling keys of a VerticalScroll (up/down, pageup/pagedown, home/end).
    """

    DEFAULT_CSS = """
    Conversation {
        padding: 0 1;
        & > #conversation-empty { color: $foreground-muted; padding: 1 0; }
    }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._conn: AgentConnection | None = None
        self._task_id: str | None = None
        # What is on screen: the history list it came from, how many messages, the views.
        self._history: list[Message] | None = None
        self._views: list[MessageView] = []
        # Direct replies shown (when no task is selected): exchanges already listed.
        self._reply_exchanges: list[int] = []
        self._replies_seen = -1
        # Status messages and the state they came with: id(message) / messageId -> state.
        self._states: dict[Any, TaskState] = {}
        self._timeline_seen = 0
        self._waiting: MessageView | None = None

    def compose(self) -> ComposeResult:
        yield Static(Text(EMPTY_NO_AGENT), id="conversation-empty")

    # ------------------------------------------------------------------ ConnectionView

    def session_advanced(self, conn: AgentConnection, events: list[Event], changed: set[str]) -> None:
        if conn is not self._conn:
            return
        if self._task_id is None:
            if len(conn.tracker.replies) != self._replies_seen:
                self._sync()
        elif self._task_id in changed:
            self._sync()

    # ------------------------------------------------------------------ drawing

    @property
    def messages(self) -> list[MessageView]:
        """The message views shown, in order."""
        return list(self._views)

    def _reset(self) -> None:
        for view in self._views:
            view.remove()
        self._views = []
        self._history = None
        self._reply_exchanges = []
        self._replies_seen = -1
        self._states = {}
        self._timeline_seen = 0
        self._waiting = None
        self._sync()

    def _empty(self, text: str | None) -> None:
        empty = self.query_one("#conversation-empty", Static)
        empty.display = text is not None
        if text is not None:
            empty.update(Text(text))

    def _sync(self) -> None:
        conn = self._conn
        if conn is None:
            self._empty(EMPTY_NO_AGENT)
            return
        at_end = self.is_vertical_scroll_end or self.max_scroll_y == 0
        if self._task_id is None:
            added = self._sync_replies(conn)
        else:
            task = conn.tracker.task(self._task_id)
            added = self._sync_task(task) if task is not None else []
        if added:
            self.mount_all(added)
            self._views.extend(added)
            if at_end:
                self.scroll_end(animate=False)
        self._empty(None if self._views else EMPTY_NO_TASK if self._task_id is None else EMPTY_TASK)

    def _sync_task(self, task: TaskView) -> list[MessageView]:
        timeline = task.timeline
        for change in timeline[self._timeline_seen:]:
            if change.message is not None:
                self._states[id(change.message)] = change.state
                if change.message.message_id is not None:
                    self._states[change.message.message_id] = change.state
        self._timeline_seen = len(timeline)
        history = task.history
        start = len(self._views)
        if history is not self._history or len(history) < start:
            # The tracker merged a snapshot (a new list): start over, once.
            if self._history is not None:
                for view in self._views:
                    view.remove()
                self._views = []
                self._waiting = None
                start = 0
            self._history = history
        added = [self._view_for(msg) for msg in history[start:]]
        self._mark_waiting(task, added)
        return added

    def _view_for(self, msg: Message) -> MessageView:
        note = f"id {short_id(msg.message_id, 12)}" if msg.message_id else ""
        if msg.role == Role.USER:
            return MessageView(msg, "you", "user", note=note)
        state = self._states.get(id(msg))
        if state is None and msg.message_id is not None:
            state = self._states.get(msg.message_id)
        if state in INTERRUPTED:
            return MessageView(msg, f"agent asks · {state.value}", "question", note=note)
        if state is not None:
            return MessageView(msg, f"agent · {state.value}", "status", note=note)
        return MessageView(msg, "agent", "agent", note=note)

    def _mark_waiting(self, task: TaskView, added: list[MessageView]) -> None:
        """Highlight the question the agent is waiting on; un-highlight it once answered."""
        waiting: MessageView | None = None
        if task.state in INTERRUPTED and task.status_message is not None:
            question = task.status_message
            for view in reversed(self._views + added):
                if view.message is question or (
                        question.message_id is not None and view.message.message_id == question.message_id):
                    waiting = view
                    break
        if waiting is self._waiting:
            return
        if self._waiting is not None:
            self._waiting.set_waiting(False)
        if waiting is not None:
            waiting.set_waiting(True)
        self._waiting = waiting

    def _sync_replies(self, conn: AgentConnection) -> list[MessageView]:
        tracker = conn.tracker
        self._replies_seen = len(tracker.replies)
        shown = set(self._reply_exchanges)
        added: list[MessageView] = []
        for number, ex in tracker.exchanges.items():
            if number in shown or ex.reply is None or ex.task_id is not None:
                continue
            self._reply_exchanges.append(number)
            if ex.request_message is not None:
                added.append(MessageView(ex.request_message, "you", "user"))
            added.append(MessageView(ex.reply, "agent · reply (no task)", "reply"))
        return added
