"""The selected task's messages, user and agent; direct replies when no task is selected."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import Static

from ...protocol.enums import Role, TaskState
from ...protocol.states import INTERRUPTED, TERMINAL
from ...textsafe import visible
from .base import SelectedTaskView
from .formatting import cut_words, short_id
from .message_view import MessageView
from .status_run import StatusRun

if TYPE_CHECKING:
    from ...protocol.models import Message
    from ...session import Event
    from ...session.history import MessageLog
    from ...session.tracker import TaskView
    from ..connection import AgentConnection

EMPTY_NO_AGENT = "No agent connected. ctrl+o connects to one."
EMPTY_NO_TASK = "No task yet: send a message from the composer below. Direct replies (no task) show here."
EMPTY_TASK = "No messages in this task yet."
#: Below a task whose stream was cut at a limit: what it means, and how to follow it again.
CUT_HINT = "a2a-inspect stopped reading; the task may go on at the agent (F4, r: resubscribe)"
#: Below a task whose stream ended on a JSON-RPC error: nothing follows it any more.
ENDED_HINT = "no stream follows the task now; the agent may have gone on with it (F4, g: get it)"

#: Kinds of entry whose consecutive messages of one state join one StatusRun.
RUN_KINDS = ("agent", "status", "question")


class Conversation(SelectedTaskView, VerticalScroll):
    """The selected task's conversation: the user's messages, the agent's messages and
    status messages (labelled with the state they came with), and the question of an
    input-required turn, highlighted while the agent waits for the answer. With no task
    selected it shows direct Message replies (answers that created no task), each after
    the message that asked.

    New messages are mounted as they arrive; nothing already shown is rebuilt unless
    the agent's snapshot reorders the history. Follows the end while you are at the end.

    Consecutive agent messages with the same label (status updates of one state: an
    agent streaming its answer a token at a time) join one :class:`StatusRun` that
    grows, with their count, instead of one widget each. An agent message that did not
    move the task (the same state again) continues the agent's current entry.

    When the stream that followed the task was cut at one of the client's limits, the
    last line says so, with the limit's words, until the task is heard of again; so it
    does, with the error, when the stream ended on a JSON-RPC error (TaskView.ended).

    BINDINGS: the scrolling keys of a VerticalScroll (up/down, pageup/pagedown, home/end).
    A run takes focus (tab) and has its own keys (see StatusRun).
    """

    DEFAULT_CSS = """
    Conversation {
        padding: 0 1;
        & > #conversation-empty { color: $foreground-muted; padding: 1 0; }
        & > #conversation-cut { color: $warning; padding: 1 0 0 0; }
    }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._conn: AgentConnection | None = None
        self._task_id: str | None = None
        # What is on screen: the history list it came from, how many messages, the views.
        self._history: MessageLog | None = None
        self._views: list[MessageView | StatusRun] = []
        #: History messages shown (a run holds many).
        self._shown = 0
        #: (kind, state) of each entry in ``_views``: what a next message must match to join it.
        self._keys: list[tuple[str, Any]] = []
        # Direct replies shown (when no task is selected): exchanges already listed.
        self._reply_exchanges: list[int] = []
        self._replies_seen = -1
        # Status messages and the state they came with: id(message) / messageId -> state.
        self._states: dict[Any, TaskState] = {}
        self._timeline_seen = 0
        self._waiting: MessageView | StatusRun | None = None
        #: The cut the last line tells of (TaskView.cut), if any.
        self._cut: Any = None

    def compose(self) -> ComposeResult:
        yield Static(Text(EMPTY_NO_AGENT), id="conversation-empty")
        # Last, whatever is mounted after it (see _sync).
        cut = Static("", id="conversation-cut")
        cut.display = False
        yield cut

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
    def messages(self) -> list[MessageView | StatusRun]:
        """The entries shown, in order: one message each, or a run of many."""
        return list(self._views)

    @property
    def runs(self) -> list[StatusRun]:
        return [v for v in self._views if isinstance(v, StatusRun)]

    def _clear(self) -> None:
        for view in self._views:
            view.remove()
        self._views = []
        self._keys = []
        self._shown = 0
        self._waiting = None

    def _reset(self) -> None:
        self._clear()
        self._history = None
        self._reply_exchanges = []
        self._replies_seen = -1
        self._states = {}
        self._timeline_seen = 0
        self._sync()

    def _empty(self, text: str | None) -> None:
        empty = self.query_one("#conversation-empty", Static)
        empty.display = text is not None
        if text is not None:
            empty.update(Text(text))

    def _sync(self) -> None:
        conn = self._conn
        if conn is None:
            self._show_cut(None)
            self._empty(EMPTY_NO_AGENT)
            return
        at_end = self.is_vertical_scroll_end or self.max_scroll_y == 0
        task = conn.tracker.task(self._task_id) if self._task_id is not None else None
        added: Sequence[Widget]
        if self._task_id is None:
            added = self._sync_replies(conn)
        else:
            added = self._sync_task(task) if task is not None else []
        if added:
            self.mount_all(added, before=self.query_one("#conversation-cut", Static))
        cut = self._show_cut(None if task is None else task.cut or (task.ended if task.state not in TERMINAL else None))
        if added or cut or (self._views and isinstance(self._views[-1], StatusRun)):
            if at_end:
                self.scroll_end(animate=False)
        self._empty(None if self._views else EMPTY_NO_TASK if self._task_id is None else EMPTY_TASK)

    def _show_cut(self, remark: Any) -> bool:
        """Say under the conversation that its stream was cut (``remark``: a CUT
        remark), or no longer; True when that line changed."""
        if remark is self._cut:
            return False
        self._cut = remark
        note = self.query_one("#conversation-cut", Static)
        note.display = remark is not None
        if remark is not None and remark.error is not None:
            error = remark.error
            said = f" {visible(error.message, single_line=True)[:200]}" if error.message else ""
            text = Text(f"✖ stream ended: error {error.code}{said}\n", style="bold")
            text.append(ENDED_HINT, style="not bold")
            note.update(text)
        elif remark is not None:
            text = Text(f"✂ {cut_words(remark)}\n", style="bold")
            text.append(CUT_HINT, style="not bold")
            note.update(text)
        return True

    def _sync_task(self, task: TaskView) -> list[Widget]:
        timeline = task.timeline
        for change in timeline[self._timeline_seen :]:
            if change.message is not None:
                self._states[id(change.message)] = change.state
                if change.message.message_id is not None:
                    self._states[change.message.message_id] = change.state
        self._timeline_seen = len(timeline)
        history = task.history
        if history is not self._history or len(history) < self._shown:
            # The tracker merged a snapshot (a new list): start over, once.
            if self._history is not None:
                self._clear()
            self._history = history
        added = self._group(history, self._shown, len(history))
        self._shown = len(history)
        self._mark_waiting(task)
        return added

    def _group(self, history: MessageLog, start: int, end: int) -> list[Widget]:
        """Entries for ``history[start:end]``: new widgets to mount (the views and keys
        are updated here); a message that continues the last entry joins it."""
        added: list[Widget] = []
        views, keys = self._views, self._keys
        grow: StatusRun | None = None
        for index in range(start, end):
            msg = history[index]
            key, label = self._key_for(msg)
            if views and keys[-1] == key and key[0] in RUN_KINDS:
                last = views[-1]
                if isinstance(last, StatusRun):
                    grow = last
                    continue
                # A second message: the single view becomes a run of both.
                run = StatusRun(history, index - 1, last.label, last.kind)
                run.extend(index)
                if last in added:
                    added[added.index(last)] = run
                else:
                    self.mount(run, before=last)
                    last.remove()
                views[-1] = run
                grow = run
                continue
            if grow is not None:
                grow.extend(index)
                grow = None
            view = self._view_for(msg, key, label)
            views.append(view)
            keys.append(key)
            added.append(view)
        if grow is not None:
            grow.extend(end)
        return added

    def _key_for(self, msg: Message) -> tuple[tuple[str, Any], str]:
        """((kind, state), label) of the entry ``msg`` belongs to."""
        if msg.role == Role.USER:
            return ("user", None), self._user_label()
        state = self._states.get(id(msg))
        if state is None and msg.message_id is not None:
            state = self._states.get(msg.message_id)
        if state is None and self._keys and self._keys[-1][0] in RUN_KINDS:
            # Said again in the same state (no move, so no timeline entry): it goes on.
            last = self._views[-1]
            return self._keys[-1], last.label
        if state in INTERRUPTED:
            return ("question", state), f"agent asks · {state.value}"
        if state is not None:
            return ("status", state), f"agent · {state.value}"
        return ("agent", None), "agent"

    def _user_label(self) -> str:
        # Through a proxy the user's side is some other program, not whoever reads this.
        return "client" if self._conn is not None and self._conn.state == "proxy" else "you"

    def _view_for(self, msg: Message, key: tuple[str, Any], label: str) -> MessageView:
        note = f"id {short_id(msg.message_id, 12)}" if msg.message_id else ""
        return MessageView(msg, label, key[0], note=note)

    def _mark_waiting(self, task: TaskView) -> None:
        """Highlight the question the agent is waiting on; un-highlight it once answered."""
        waiting: MessageView | StatusRun | None = None
        if task.state in INTERRUPTED and task.status_message is not None:
            question = task.status_message
            for view in reversed(self._views):
                if isinstance(view, StatusRun):
                    if view.contains(question):
                        waiting = view
                        break
                elif view.message is question or (
                    question.message_id is not None and view.message.message_id == question.message_id
                ):
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
                added.append(MessageView(ex.request_message, self._user_label(), "user"))
            added.append(MessageView(ex.reply, "agent · reply (no task)", "reply"))
        self._views.extend(added)
        self._keys.extend(("reply", number) for _ in added)
        return added
