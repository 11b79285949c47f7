"""Compose a message of text, file and data parts; send or stream it, as a new task or
as the next turn of the selected one; preview the exact JSON-RPC request."""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.timer import Timer
from textual.widgets import Button, Label, Static, TextArea

from ...headless.method_hints import no_streaming
from ...protocol.states import INTERRUPTED, TERMINAL
from ...textsafe import shorten, visible
from ..messages import ComposeText, OpenModal
from .base import ConnectionView, hidden
from .message_text import MessageText
from .part_list import META_ROW, TEXT_ROW, PartList

if TYPE_CHECKING:
    from ...protocol import models as m
    from ...session import Event
    from ..connection import AgentConnection

#: Strings longer than this are cut in the preview (base64 files would drown it).
PREVIEW_STRING = 160
PREVIEW_DELAY = 0.15


def clip_strings(value: Any, limit: int = PREVIEW_STRING) -> Any:
    """A copy of a JSON value with long strings cut, saying how much was left out."""
    if isinstance(value, str):
        if len(value) <= limit:
            return value
        return f"{value[:limit]}…(+{len(value) - limit} chars)"
    if isinstance(value, dict):
        return {k: clip_strings(v, limit) for k, v in value.items()}
    if isinstance(value, list):
        return [clip_strings(v, limit) for v in value]
    return value


@dataclass
class Draft:
    """What is being composed, apart from the text box."""

    text_metadata: dict[str, Any] | None = None
    parts: list[Any] = field(default_factory=list)
    message_metadata: dict[str, Any] | None = None


class Composer(ConnectionView, Vertical):
    """Compose and send a message to the active agent.

    BINDINGS: ctrl+s sends; ctrl+t switches the mode between streaming and a plain send;
    ctrl+n switches between a new task and the next turn of the selected task (chosen
    automatically when that task is input-required or auth-required; a task in a final
    state is continued only on request, with a warning, and a refusal ends it: the next
    message starts a new task again); ctrl+f adds a file part; ctrl+g adds a data part (JSON); f9 shows
    the JSON-RPC request as it will go on the wire; ctrl+up brings back the last message
    sent (metadata included: metadata belongs to one message and clears after sending).
    In the parts list: enter edits, m edits a part's metadata, delete removes.
    """

    DEFAULT_CSS = """
    Composer {
        height: auto;
        border-top: solid $panel-lighten-1;
        & > #composer-head { height: 1; }
        /* Continuing a finished task: the warning wraps to a second line rather than
           being cut. Only then: the head changing height while a stream fills the
           conversation above made where that stopped scrolling depend on timing. */
        & > #composer-head.-final { height: auto; max-height: 3; }
        & #composer-mode { padding-right: 2; text-style: bold; color: $accent; }
        & #composer-mode:hover, & #composer-target:hover { text-style: underline; }
        & #composer-target { width: 1fr; height: auto; color: $foreground-muted; }
        & #composer-target.-continue { color: $warning; text-style: bold; }
        & > #composer-text-box, & > #composer-parts-box { height: auto; }
        & #composer-text { height: 6; }
        & > #composer-buttons { height: 1; }
        & > #composer-buttons > Button { margin-right: 1; min-width: 6; }
        & > #composer-preview { display: none; height: auto; max-height: 16; border-top: dashed $panel-lighten-2; }
        &.-preview > #composer-preview { display: block; }
        & #composer-preview-head { color: $foreground-muted; }
    }
    """
    BINDINGS = [
        Binding("ctrl+s", "send", "Send"),
        # Named for what the key does: it switches the mode (shown above the text box).
        Binding("ctrl+t", "toggle_stream", "Stream on/off"),
        Binding("ctrl+n", "toggle_target", "New task/continue", show=False),
        # Off the footer (which must fit 80 columns): the buttons under the text box and
        # its placeholder name them.
        Binding("ctrl+f", "add_file", "+File", show=False),
        Binding("ctrl+g", "add_data", "+Data", show=False),
        Binding("f9", "toggle_preview", "Preview", show=False),
        Binding("ctrl+up", "recall", "Recall last", show=False),
    ]

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        #: Composed and mounted: safe to query children (is_mounted is False in on_mount).
        self._live = False
        self._conn: AgentConnection | None = None
        self._card: Any = None
        self.draft = Draft()
        self.stream = False
        self._stream_chosen = False
        #: Connections already told that their card declares no streaming.
        self._told_no_stream: set[int] = set()
        #: "new" or "continue" (the selected task).
        self.target = "new"
        self.selected: str | None = None
        self._auto_key: tuple[Any, ...] | None = None
        self.message_id = str(uuid.uuid4())
        self.preview = False
        self._preview_timer: Timer | None = None
        #: Sent messages waiting for their task: message id -> exchange (once seen).
        self._pending: dict[str, int | None] = {}
        #: Messages sent to a task in a final state: message id -> (task id, exchange
        #: once seen). A refusal of one puts the composer back on "new task".
        self._to_final: dict[str, tuple[str, int | None]] = {}
        self._last: tuple[str, Draft] | None = None
        self._shown_before = False

    def compose(self) -> ComposeResult:
        with Horizontal(id="composer-head"):
            yield Label("", id="composer-mode", markup=False)
            yield Label("", id="composer-target", markup=False)
        # One focusable widget per box: when the tab is hidden, Textual moves focus to a
        # focusable sibling, which would be hidden too and would switch the tab back.
        with Vertical(id="composer-text-box"):
            yield MessageText(
                id="composer-text",
                soft_wrap=True,
                tab_behavior="focus",
                placeholder="message text · ctrl+s send · ctrl+f file · ctrl+g data · f9 preview",
            )
        with Vertical(id="composer-parts-box"):
            yield PartList(id="composer-parts")
        with Horizontal(id="composer-buttons"):
            for label, name in (
                ("+ file", "add_file"),
                ("+ data", "add_data"),
                ("preview", "toggle_preview"),
                ("send", "send"),
            ):
                button = Button(
                    label,
                    id=f"composer-{name.replace('_', '-')}",
                    compact=True,
                    variant="primary" if name == "send" else "default",
                )
                button.can_focus = False
                yield button
        with VerticalScroll(id="composer-preview"):
            yield Static("", id="composer-preview-head", markup=False)
            yield Static("", id="composer-preview-body", markup=False)

    def on_mount(self) -> None:
        self._live = True
        self.query_one("#composer-mode").tooltip = "ctrl+t: switch between streaming and a plain send"
        self.query_one(
            "#composer-target"
        ).tooltip = "ctrl+n: switch between a new task and continuing the selected task"
        self.show_connection(getattr(self.app, "active", None))

    def on_show(self) -> None:
        # Back on the task tab with the keys nowhere visible: they go to the text box.
        # (Not on the first show: at start-up the screen decides what has focus.)
        if not self._shown_before:
            self._shown_before = True
            return
        focused = self.screen.focused
        if focused is None or hidden(focused):
            self.text_area.focus()

    # ------------------------------------------------------------------ accessors

    @property
    def text_area(self) -> TextArea:
        return self.query_one("#composer-text", TextArea)

    @property
    def part_list(self) -> PartList:
        return self.query_one("#composer-parts", PartList)

    @property
    def text(self) -> str:
        return self.text_area.text

    def set_text(self, text: str) -> None:
        area = self.text_area
        area.text = text
        area.move_cursor(area.document.end)

    def selected_task(self) -> Any:
        conn = self._conn
        if conn is None or self.selected is None:
            return None
        return conn.tracker.task(self.selected)

    # ------------------------------------------------------------------ ConnectionView

    def show_connection(self, conn: AgentConnection | None) -> None:
        if conn is not self._conn:
            self._conn = conn
            self._stream_chosen = False
            self._pending.clear()
            self._to_final.clear()
            self.selected = getattr(self.app, "task_id", None)
            self._auto_key = None
            self._card = None
        card = conn.card if conn is not None else None
        if card is not self._card:
            self._card = card
            if not self._stream_chosen:
                caps = card.capabilities if card is not None else None
                self.stream = bool(caps and caps.streaming)
                self._say_why_send(conn, card)
        self._auto_target()
        self._refresh_all()

    def show_task(self, conn: AgentConnection | None, task_id: str | None) -> None:
        if conn is not self._conn:
            return
        self.selected = task_id
        self._auto_target()
        self._refresh_head()
        self._schedule_preview()

    def session_advanced(self, conn: AgentConnection, events: list[Event], changed: set[str]) -> None:
        if conn is not self._conn:
            return
        if self._pending:
            self._follow_pending(conn, events)
        if self._to_final:
            self._follow_refusals(conn, events)
        if self.selected is not None and self.selected in changed:
            # Only a change of the task's state matters here (it is shown beside the id).
            if self._auto_target():
                self._refresh_head()
                self._schedule_preview()

    def _follow_pending(self, conn: AgentConnection, events: list[Event]) -> None:
        """Select the task a sent message started, once the agent names it."""
        from ...protocol import models as m
        from ...session.events import Kind

        pending = self._pending
        for event in events:
            if event.kind is Kind.REQUEST and isinstance(event.payload, m.SendParams):
                message_id = event.payload.message.message_id
                if message_id in pending and pending[message_id] is None:
                    pending[message_id] = event.exchange
        for message_id, exchange in list(pending.items()):
            if exchange is None:
                continue
            view = conn.tracker.exchanges.get(exchange)
            task_id = view.task_id if view is not None else None
            if task_id:
                del pending[message_id]
                if self.app.task_id != task_id:
                    self.app.select_task(task_id)
            elif view is not None and (view.reply is not None or view.error is not None or view.failure or view.ended):
                del pending[message_id]  # answered without a task
                if view.reply is not None and self.app.task_id is not None:
                    # A direct reply: the conversation shows replies when no task is selected.
                    self.app.select_task(None)

    def _follow_refusals(self, conn: AgentConnection, events: list[Event]) -> None:
        """A message to a task in a final state that the agent refused (-32004 from most
        agents): the next message starts a new task, not another refused one."""
        from ...protocol import models as m
        from ...session.events import Kind

        sent = self._to_final
        for event in events:
            if event.kind is Kind.REQUEST and isinstance(event.payload, m.SendParams):
                message_id = event.payload.message.message_id
                if message_id in sent and sent[message_id][1] is None:
                    sent[message_id] = (sent[message_id][0], event.exchange)
        for message_id, (task_id, exchange) in list(sent.items()):
            view = conn.tracker.exchanges.get(exchange) if exchange is not None else None
            if view is None:
                continue
            if view.error is not None or view.failure:
                del sent[message_id]
                if self.target == "continue" and self.selected == task_id:
                    self.target = "new"
                    self._refresh_head()
                    self._schedule_preview()
                    self.app.notify(
                        f"the agent refused a message to {shorten(task_id, 9)}, a task in a final "
                        "state: the next message starts a new task",
                        title="new task",
                        severity="warning",
                        markup=False,
                    )
            elif view.ended or view.reply is not None or (not view.streaming and view.http_status is not None):
                del sent[message_id]  # accepted: the agent may reopen its own tasks

    def selected_final_state(self) -> str | None:
        """The selected task's state when it is a final one (completed, failed...)."""
        task = self.selected_task()
        state = task.state if task is not None else None
        return state.value if state in TERMINAL else None

    def _auto_target(self) -> bool:
        """New task, or continue the selected one when it waits for input. Re-decided when
        the selected task or its state changes (then True); the user's ctrl+n holds until then."""
        task = self.selected_task()
        state = task.state if task is not None else None
        key = (self.selected, state)
        if key == self._auto_key:
            return False
        self._auto_key = key
        self.target = "continue" if state in INTERRUPTED else "new"
        return True

    # ------------------------------------------------------------------ drawing

    def _refresh_all(self) -> None:
        if not self._live:
            return
        self._refresh_head()
        self._refresh_parts()
        self._schedule_preview(now=True)

    def _refresh_head(self) -> None:
        if not self._live:
            return
        mode = self.query_one("#composer-mode", Label)
        mode.update("⇶ stream" if self.stream else "→ send")
        target = self.query_one("#composer-target", Label)
        task = self.selected_task()
        if self.target == "continue" and self.selected is not None:
            state = task.state.value if task is not None and task.state is not None else "?"
            final = self.selected_final_state() is not None
            refuse = ": the agent may refuse" if final else ""
            target.update(f"↺ continues {shorten(self.selected, 9)} ({state}){refuse} · ctrl+n: new task")
            target.add_class("-continue")
            self.query_one("#composer-head").set_class(final, "-final")
        else:
            self.query_one("#composer-head").remove_class("-final")
            hint = " · ctrl+n: continue the selected task" if self.selected is not None else ""
            target.update(f"new task{hint}")
            target.remove_class("-continue")

    def _refresh_parts(self) -> None:
        if self._live:
            d = self.draft
            self.part_list.show(self.text, d.text_metadata, d.parts, d.message_metadata)

    def _schedule_preview(self, now: bool = False) -> None:
        if not self.preview or not self._live:
            return
        if self._preview_timer is not None:
            self._preview_timer.stop()
            self._preview_timer = None
        if now:
            self.update_preview()
        else:
            self._preview_timer = self.set_timer(PREVIEW_DELAY, self.update_preview)

    # ------------------------------------------------------------------ building

    def build_params(self) -> m.SendParams:
        """The SendParams for the current draft; ValueError when there is nothing to send."""
        from ...protocol import models as m

        d = self.draft
        parts: list[Any] = []
        text = self.text
        if text.strip():
            parts.append(m.TextPart(text=text, metadata=d.text_metadata))
        parts.extend(part.model_copy(deep=True) for part in d.parts)
        if not parts:
            raise ValueError("nothing to send: type some text, or add a file (ctrl+f) or data (ctrl+g) part")
        task_id = context_id = None
        if self.target == "continue" and self.selected is not None:
            task_id = self.selected
            task = self.selected_task()
            context_id = task.context_id if task is not None else None
        message = m.Message(
            role=m.Role.USER,
            parts=parts,
            message_id=self.message_id,
            task_id=task_id,
            context_id=context_id,
            metadata=d.message_metadata,
        )
        return m.SendParams(message=message)

    def preview_request(self) -> tuple[str, Any]:
        """(header lines, the request body as a dict) for the wire, in the connection's
        dialect and binding; ValueError says why not."""
        from ...protocol.dialects import get_dialect
        from ...protocol.methods import Method

        conn = self._conn
        if conn is None:
            raise ValueError("no agent: connect first (ctrl+o)")
        name = conn.dialect_name or (conn.requested_dialect if conn.requested_dialect != "auto" else None)
        if name is None:
            raise ValueError("the dialect is not known yet: it is chosen once the agent is reached")
        dialect = get_dialect(name)
        method = Method.STREAM if self.stream else Method.SEND
        if not dialect.has(method):
            raise ValueError(f"the {dialect.label} dialect has no {method.value} method")
        params = self.build_params()
        client = conn.client
        if (
            client is not None
            and callable(getattr(client, "wire_preview", None))
            and getattr(client, "dialect", None) is dialect
            and getattr(client, "endpoint", None)
        ):
            # The client knows the binding too: REST or JSON-RPC, as it will send it.
            verb, endpoint, headers, request, what = client.wire_preview(method, params, stream=self.stream)
        else:
            request = dialect.encode_request(method, params, "<id set when sent>")
            verb, endpoint, what = (
                "POST",
                getattr(client, "endpoint", None) or conn.url,
                f"{dialect.label}, {request['method']}",
            )
            headers = {
                "Content-Type": "application/json",
                "Accept": "text/event-stream" if self.stream else "application/json",
                **dialect.request_headers(),
            }
        if conn.auth is not None:
            headers.update({k: "•••" for k in conn.auth.headers()})
        headers.update({k: v for k, v in conn.headers.items()})
        head = [f"{verb} {endpoint}  ({what})"]
        head += [f"{k}: {v}" for k, v in headers.items()]
        head.append("(the id, and 0.1's new task and session ids, are set when sent)")
        return "\n".join(head), request

    def update_preview(self) -> None:
        self._preview_timer = None
        if not self._live or not self.preview:
            return
        head = self.query_one("#composer-preview-head", Static)
        body = self.query_one("#composer-preview-body", Static)
        try:
            header, request = self.preview_request()
        except ValueError as exc:
            head.update(f"preview: {exc}")
            body.update("")
            return
        head.update(visible(header))
        text = json.dumps(clip_strings(request), indent=2, ensure_ascii=False)
        dark = getattr(self.app.current_theme, "dark", True)
        from rich.syntax import Syntax  # pygments is slow to import: only when shown

        body.update(
            Syntax(
                visible(text),
                "json",
                theme="monokai" if dark else "default",
                word_wrap=True,
                background_color="default",
            )
        )

    # ------------------------------------------------------------------ events

    @on(TextArea.Changed, "#composer-text")
    def _text_changed(self) -> None:
        self._refresh_parts()
        self._schedule_preview()

    def on_compose_text(self, message: ComposeText) -> None:
        """Fill the text box (a card's skill example, ...) and bring the composer up.

        The text is the agent's: it goes in with its control characters made visible.
        The text box draws what it holds as it is, so an escape sequence in an example
        reached the terminal; and what the box shows is what gets sent."""
        message.stop()
        self.set_text(visible(message.text))
        if hasattr(self.app, "action_view"):
            self.app.action_view("task")
        self.text_area.focus()

    def on_click(self, event: Any) -> None:
        widget = getattr(event, "widget", None)
        if widget is None:
            return
        if widget.id == "composer-mode":
            self.action_toggle_stream()
        elif widget.id == "composer-target":
            self.action_toggle_target()

    @on(Button.Pressed, "#composer-buttons Button")
    def _button(self, event: Button.Pressed) -> None:
        event.stop()
        action = (event.button.id or "").removeprefix("composer-").replace("-", "_")
        getattr(self, f"action_{action}")()

    @on(PartList.Edit)
    def _edit_row(self, event: PartList.Edit) -> None:
        from ...protocol import models as m

        event.stop()
        if event.row == TEXT_ROW:
            self.text_area.focus()
        elif event.row == META_ROW:
            self.edit_message_metadata()
        elif isinstance(event.row, int) and event.row < len(self.draft.parts):
            part = self.draft.parts[event.row]
            if isinstance(part, m.DataPart):
                self.edit_data(event.row)
            else:
                self.app.notify("a file part cannot be edited: remove it (delete) and add another", severity="warning")

    @on(PartList.EditMetadata)
    def _edit_row_metadata(self, event: PartList.EditMetadata) -> None:
        event.stop()
        if event.row == META_ROW:
            self.edit_message_metadata()
        elif event.row == TEXT_ROW:
            self._edit_metadata(
                "text part metadata",
                self.draft.text_metadata,
                lambda value: setattr(self.draft, "text_metadata", value),
            )
        elif isinstance(event.row, int) and event.row < len(self.draft.parts):
            part = self.draft.parts[event.row]
            self._edit_metadata(
                f"{type(part).__name__} {event.row + 1} metadata",
                part.metadata,
                lambda value: setattr(part, "metadata", value),
            )

    @on(PartList.Remove)
    def _remove_part(self, event: PartList.Remove) -> None:
        event.stop()
        if 0 <= event.index < len(self.draft.parts):
            del self.draft.parts[event.index]
            self._draft_changed()

    def _draft_changed(self) -> None:
        self._refresh_parts()
        self._schedule_preview(now=True)

    # ------------------------------------------------------------------ editing

    def _edit_metadata(self, title: str, value: dict[str, Any] | None, apply: Any) -> None:
        def done(result: Any) -> None:  # a JsonEdited, or None when cancelled
            if result is not None:
                apply(result.value or None)
                self._draft_changed()

        # A new object starts as an empty one, the cursor inside its braces.
        self.post_message(
            OpenModal(
                "json_edit", title, value, object_only=True, allow_empty=True, new_object=value is None, done=done
            )
        )

    def edit_message_metadata(self) -> None:
        self._edit_metadata(
            "message metadata",
            self.draft.message_metadata,
            lambda value: setattr(self.draft, "message_metadata", value),
        )

    def edit_data(self, index: int | None = None) -> None:
        from ...protocol import models as m

        existing = self.draft.parts[index] if index is not None else None

        def done(result: Any) -> None:  # a JsonEdited, or None when cancelled
            if result is None:
                return
            if isinstance(existing, m.DataPart):
                existing.data = result.value
            else:
                self.draft.parts.append(m.DataPart(data=result.value))
            self._draft_changed()

        if isinstance(existing, m.DataPart):
            self.post_message(OpenModal("json_edit", "data part", existing.data, done=done))
        else:
            self.post_message(OpenModal("json_edit", "new data part", new_object=True, done=done))

    # ------------------------------------------------------------------ actions

    def action_add_file(self) -> None:
        def picked(part: m.FilePart | None) -> None:
            if part is not None:
                self.draft.parts.append(part)
                self._draft_changed()

        self.post_message(OpenModal("file_pick", done=picked))

    def action_add_data(self) -> None:
        self.edit_data(None)

    def _say_why_send(self, conn: AgentConnection | None, card: Any) -> None:
        """The composer sends instead of streaming when the card has no streaming: say
        so, once per connection (the mode label alone does not say why)."""
        why = no_streaming(card)
        if conn is None or why is None or conn.id in self._told_no_stream:
            return
        self._told_no_stream.add(conn.id)
        self.notify(
            f"{why}: messages are sent, not streamed (ctrl+t streams anyway)", title="send, not stream", markup=False
        )

    def action_toggle_stream(self) -> None:
        self.stream = not self.stream
        self._stream_chosen = True
        why = no_streaming(self._card) if self.stream else None
        if why:
            self.notify(f"{why}: the agent may refuse the stream", severity="warning", title="stream", markup=False)
        self._refresh_head()
        self._schedule_preview(now=True)

    def action_toggle_target(self) -> None:
        if self.target == "continue":
            self.target = "new"
        elif self.selected is None:
            self.app.notify("no task selected to continue: pick one in the tasks view (F4)", severity="warning")
            return
        else:
            self.target = "continue"
            final = self.selected_final_state()
            if final:
                self.app.notify(
                    f"task {shorten(self.selected, 9)} is {final}: the agent may refuse a message to "
                    "it (ctrl+n: back to a new task)",
                    title="continue a finished task",
                    severity="warning",
                    markup=False,
                )
        self._refresh_head()
        self._schedule_preview(now=True)

    def action_toggle_preview(self) -> None:
        self.preview = not self.preview
        self.set_class(self.preview, "-preview")
        # Room for the preview: the screen's layout caps the composer at half the column.
        self.styles.max_height = "85%" if self.preview else None
        self._schedule_preview(now=True)

    def action_recall(self) -> None:
        if self._last is None:
            self.app.notify("nothing sent yet", severity="warning")
            return
        text, draft = self._last
        self.set_text(text)
        self.draft = Draft(draft.text_metadata, [p.model_copy(deep=True) for p in draft.parts], draft.message_metadata)
        self._draft_changed()

    def action_send(self) -> None:
        conn = self._conn
        if conn is None:
            self.app.notify("no agent: connect first (ctrl+o)", severity="warning")
            return
        if conn.read_only:
            self.app.notify(
                "the proxy relays its clients' messages: it sends none of its own"
                if conn.state == "proxy"
                else "this is a recording: it cannot send",
                severity="warning",
            )
            return
        try:
            params = self.build_params()
        except ValueError as exc:
            self.app.notify(str(exc), severity="warning", markup=False)
            return
        if self.target == "new":
            self._pending[self.message_id] = None
        elif self.selected is not None and self.selected_final_state():
            self._to_final[self.message_id] = (self.selected, None)
        self.app.send_message(conn, params, self.stream)
        d = self.draft
        self._last = (self.text, Draft(d.text_metadata, [p.model_copy(deep=True) for p in d.parts], d.message_metadata))
        # Metadata belongs to the message it was set on: all of it clears with the rest
        # (ctrl+up brings the whole message back, metadata included).
        self.draft = Draft()
        self.message_id = str(uuid.uuid4())
        self.text_area.text = ""
        self._draft_changed()
