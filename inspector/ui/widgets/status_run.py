"""Consecutive agent messages of one state as one entry that grows: a token stream."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, ClassVar

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from .base import ComponentStyles, LineBase
from .formatting import file_summary
from .scrolling import set_virtual_size
from .wrap import WrappedText, cells

if TYPE_CHECKING:
    from ...protocol.models import Message
    from ...session.history import MessageLog

#: How many of the run's latest messages are searched for the question being waited on.
WAITING_SEARCH = 64


def message_text(message: Message) -> str:
    """A message's parts as one string: text as sent, ``[file …]`` and ``[data …]`` marks."""
    from ...protocol.models import DataPart, FilePart, TextPart

    out: list[str] = []
    for part in message.parts:
        if isinstance(part, TextPart):
            out.append(part.text)
        elif isinstance(part, FilePart):
            out.append(f"[file {file_summary(part.file)}]")
        elif isinstance(part, DataPart):
            try:
                out.append(f"[data {json.dumps(part.data, ensure_ascii=False, default=str)}]")
            except (TypeError, ValueError):
                out.append(f"[data {part.data!r}]")
        else:
            out.append(repr(part))
    return "".join(out)


class StatusRun(LineBase, ComponentStyles, ScrollView, can_focus=True):
    """Messages the agent sent one after the other in the same state (status updates
    while ``working``, say) shown as one entry, the way chunks grow an artifact: a label
    with the count, then the messages' text joined. A model that streams its answer a
    token at a time in status messages reads as one growing paragraph, and costs one
    widget however many messages it sends.

    The entry grows up to half the conversation's height and then scrolls inside
    itself, following the end while you are at the end. ``enter`` lists each message on
    its own numbered line instead (every update, in order), in up to the whole height,
    and back.

    BINDINGS:
        enter / e: each message on its own line, or joined again.
        up / down, pageup / pagedown, home / end: scroll inside the entry.

    COMPONENT_CLASSES:
        status-run--label: the label line.
        status-run--meta: the count, the key hint, message numbers.

    CSS classes: the kind as for MessageView (``-status``, ``-question``, ``-agent``),
    ``-expanded``, ``-waiting``.
    """

    STYLE_PREFIX = "status-run"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,e", "toggle_updates", "Each update / joined"),
    ]

    COMPONENT_CLASSES = {"status-run--label", "status-run--meta"}

    DEFAULT_CSS = """
    StatusRun {
        height: auto;
        max-height: 50%;
        padding: 0 1;
        margin-bottom: 1;
        overflow-x: hidden;
        overflow-y: auto;
        scrollbar-size-vertical: 1;
        border-left: outer $secondary;
        & > .status-run--label { text-style: bold; color: $secondary; }
        & > .status-run--meta { color: $foreground-muted; }
        &.-status { border-left: outer $foreground-muted; }
        &.-status > .status-run--label { color: $foreground-muted; }
        &.-question { border-left: outer $state-input-required; }
        &.-question > .status-run--label { color: $state-input-required; }
        &.-waiting { background: $state-input-required 12%; }
        &.-expanded { max-height: 100%; }
        &:focus { background-tint: $foreground 5%; }
    }
    """

    def __init__(self, history: MessageLog, start: int, label: str, kind: str) -> None:
        super().__init__(classes=f"-{kind}")
        self.label = label
        self.kind = kind
        #: The messages shown: ``history[start:start + count]`` (the tracker's list).
        self.history = history
        self.start = start
        self.count = 0
        self._joined = WrappedText()
        #: One numbered line per message; built when first asked for, then kept growing.
        self._each: WrappedText | None = None
        self._styles: dict[str, Style] = {}
        self._width = 0

    # ------------------------------------------------------------------ content

    @property
    def expanded(self) -> bool:
        return self.has_class("-expanded")

    @property
    def message(self) -> Message:
        """The latest message of the run."""
        return self.history[self.start + self.count - 1]

    @property
    def messages(self) -> list[Message]:
        return self.history[self.start : self.start + self.count]

    @property
    def waiting(self) -> bool:
        return self.has_class("-waiting")

    @property
    def body(self) -> WrappedText:
        return self._each if self.expanded and self._each is not None else self._joined

    @property
    def plain(self) -> str:
        """What the entry shows, unwrapped: the label line, then the body (tests, copying)."""
        return self._label_text() + "\n" + self.body.text

    def extend(self, end: int) -> None:
        """Show the history's messages up to ``end`` (exclusive) as well."""
        first = self.start + self.count
        if end <= first:
            return
        texts = [message_text(m) for m in self.history[first:end]]
        self._joined.append("".join(texts))
        if self._each is not None:
            self._each.append(self._numbered(first - self.start, texts))
        self.count = end - self.start
        self._resize()

    def contains(self, message: Message) -> bool:
        """Whether ``message`` is among the run's latest messages."""
        stop = self.start + self.count
        for m in reversed(self.history[max(self.start, stop - WAITING_SEARCH) : stop]):
            if m is message or (message.message_id is not None and m.message_id == message.message_id):
                return True
        return False

    def set_waiting(self, waiting: bool) -> None:
        if waiting != self.waiting:
            self.set_class(waiting, "-waiting")
            self.refresh()

    @staticmethod
    def _numbered(first: int, texts: list[str]) -> str:
        out = []
        for i, text in enumerate(texts, first + 1):
            out.append(f"#{i:<5} {text}\n")
        return "".join(out)

    def _label_text(self) -> str:
        hint = "enter: joined" if self.expanded else "enter: each update"
        text = f"{self.label} · {self.count:,} updates  {hint}"
        if self.waiting:
            text += "  ← waiting for your reply"
        return text

    # ------------------------------------------------------------------ keys

    def action_toggle_updates(self) -> None:
        expanding = not self.expanded
        if expanding and self._each is None:
            self._each = WrappedText(self._numbered(0, [message_text(m) for m in self.messages]))
        self.set_class(expanding, "-expanded")
        self.scroll_to(y=0, animate=False, immediate=True)
        self._resize(force_layout=True)
        self.call_after_refresh(self.scroll_visible, animate=False)

    # ------------------------------------------------------------------ size

    def _content_width(self) -> int:
        return max(1, self.scrollable_content_region.width) if self.size.width else 0

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        scrollbar = self.styles.scrollbar_size_vertical
        return 1 + self.body.wrap(max(1, width - scrollbar))

    def on_mount(self) -> None:
        self._resize(force_layout=True)

    def _resize(self, force_layout: bool = False) -> None:
        if not self.is_mounted:
            return  # on_mount sizes it
        width = self._width = self._content_width()
        shown = self.virtual_size.height
        following = self.scroll_y >= self.max_scroll_y
        total = 1 + (self.body.wrap(width) if width else self.body.row_count)
        # Growing while all of it shows changes the height: a layout. Once it scrolls
        # inside itself (at its max-height) only the scrollbar changes.
        if force_layout or (total != shown and shown <= self.size.height):
            self.refresh(layout=True)
        set_virtual_size(self, Size(width, total))
        self.refresh()
        if following:
            self.scroll_end(animate=False, immediate=False, x_axis=False)

    def on_resize(self, event: events.Resize) -> None:
        if self._content_width() != self._width:
            self._resize()

    # ------------------------------------------------------------------ drawing

    def render_line(self, y: int) -> Strip:
        width = self._line_width()
        base = self._line_base()
        if y == 0:
            label = self._style("label")
            meta = self._style("meta")
            count = f" · {self.count:,} updates"
            hint = "  " + ("enter: joined" if self.expanded else "enter: each update")
            if self.waiting:
                hint += "  ← waiting for your reply"
            segments = [Segment(self.label, base + label), Segment(count, base + meta), Segment(hint, base + meta)]
            return Strip(segments).crop_extend(0, width, base)
        body = self.body
        if body.wrap(width) != self.virtual_size.height - 1:
            self.call_later(self._resize)
        row = int(self.scroll_y) + y - 1
        if row >= body.row_count:
            return Strip.blank(width, base)
        text = body.row(row)
        return Strip([Segment(text, base)], cells(text)).adjust_cell_length(width, base)
