"""The traffic list: one line per event, drawn through the Line API.

Only the visible lines are ever rendered, and rows are positions in the session's own
event list (``TrafficIndex.rows``), so 100k events cost an array of ints (8 bytes a
row), not widgets. A row's text is made from its event when drawn; only the latest
512 rows' texts are cached.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from ...protocol.sizes import format_size
from ...session import Event, Kind
from ...textsafe import shorten
from .base import LineBase
from .scrolling import set_virtual_size
from .traffic_model import KIND_LABEL, TrafficIndex, direction, format_ms

#: (title, width, right-aligned) of the fixed columns; the summary takes the rest.
COLUMNS: tuple[tuple[str, int, bool], ...] = (
    ("time", 9, True),
    ("", 1, False),
    ("kind", 5, False),
    ("ex", 4, True),
    ("method", 12, False),
    ("status", 10, False),
    ("size", 7, True),
    ("latency", 8, True),
)
#: The same, for a list this wide or wider: method names and states whole ("input-required",
#: "tasks/pushNotificationConfig/get" cut to 22), the summary still the widest column.
COLUMNS_WIDE: tuple[tuple[str, int, bool], ...] = tuple(
    (title, {"method": 22, "status": 14}.get(title, width), right) for title, width, right in COLUMNS
)
WIDE_AT = 150


def columns(width: int) -> tuple[tuple[str, int, bool], ...]:
    """The fixed columns of a list ``width`` cells wide."""
    return COLUMNS_WIDE if width >= WIDE_AT else COLUMNS


def fixed_width(width: int) -> int:
    return sum(w + 1 for _, w, _ in columns(width))


_STATES = (
    "submitted",
    "working",
    "input-required",
    "auth-required",
    "completed",
    "canceled",
    "failed",
    "rejected",
    "unknown",
)
_KIND_CLASS = {
    Kind.REQUEST: "traffic-list--request",
    Kind.RESPONSE: "traffic-list--response",
    Kind.SSE: "traffic-list--sse",
    Kind.MESSAGE: "traffic-list--sse",
    Kind.COMMENT: "traffic-list--comment",
    Kind.STREAM_END: "traffic-list--end",
    Kind.ERROR: "traffic-list--error",
    Kind.NOTE: "traffic-list--note",
    Kind.PUSH: "traffic-list--push",
    Kind.WS: "traffic-list--ws",
}


def header_line(width: int = 0) -> str:
    """The column titles over a list ``width`` cells wide."""
    cells = [title.rjust(w) if right else title.ljust(w) for title, w, right in columns(width)]
    return " ".join(cells) + " summary"


def _fit(text: str, width: int, right: bool) -> str:
    if len(text) > width:
        text = text[: max(0, width - 1)] + "…"
    return text.rjust(width) if right else text.ljust(width)


class TrafficList(LineBase, ScrollView, can_focus=True):
    """Every event of the session, one per line, with a cursor.

    BINDINGS:
    | key | action |
    | :- | :- |
    | up / down | previous / next event |
    | pageup / pagedown | a page up / down |
    | home / end | first / last event (on the last one, new events are followed) |
    | enter | open the event's detail |

    COMPONENT_CLASSES: ``traffic-list--cursor``, ``--time``, ``--dim``, ``--bad``, one per
    kind (``--request``, ``--response``, ``--sse``, ``--comment``, ``--end``, ``--error``,
    ``--note``, ``--push``, ``--ws``) and one per task state (``--state-working``...).
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "cursor(-1)", "Previous", show=False),
        Binding("down", "cursor(1)", "Next", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "first", "First event", show=False),
        Binding("end", "last", "Last event (follow)", show=False),
        Binding("enter", "choose", "Detail", show=False),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "traffic-list--cursor",
        "traffic-list--time",
        "traffic-list--dim",
        "traffic-list--bad",
        *_KIND_CLASS.values(),
        *(f"traffic-list--state-{s}" for s in _STATES),
    }

    DEFAULT_CSS = """
    TrafficList {
        background: $surface;
        overflow-x: hidden;
        overflow-y: scroll;
        & > .traffic-list--cursor { background: $panel-lighten-1; color: $foreground; }
        &:focus > .traffic-list--cursor { background: $primary 40%; color: $foreground; }
        & > .traffic-list--time { color: $foreground-muted; }
        & > .traffic-list--dim { color: $foreground-muted; }
        & > .traffic-list--bad { color: $error; text-style: bold; }
        & > .traffic-list--request { color: $primary; }
        & > .traffic-list--response { color: $success; }
        & > .traffic-list--sse { color: $accent; }
        & > .traffic-list--comment { color: $foreground-muted; }
        & > .traffic-list--end { color: $secondary; }
        & > .traffic-list--error { color: $error; text-style: bold; }
        & > .traffic-list--note { color: $foreground-muted; text-style: italic; }
        & > .traffic-list--push { color: $warning; }
        & > .traffic-list--ws { color: $accent; }
        & > .traffic-list--state-submitted { color: $state-submitted; }
        & > .traffic-list--state-working { color: $state-working; }
        & > .traffic-list--state-input-required { color: $state-input-required; }
        & > .traffic-list--state-auth-required { color: $state-auth-required; }
        & > .traffic-list--state-completed { color: $state-completed; }
        & > .traffic-list--state-canceled { color: $state-canceled; }
        & > .traffic-list--state-failed { color: $state-failed; }
        & > .traffic-list--state-rejected { color: $state-rejected; }
        & > .traffic-list--state-unknown { color: $state-unknown; }
    }
    """

    @dataclass
    class Highlighted(Message):
        """The cursor moved to another event (or off all events: ``event`` None)."""

        traffic_list: TrafficList
        row: int
        event: Event | None

        @property
        def control(self) -> TrafficList:
            return self.traffic_list

    @dataclass
    class Chosen(Message):
        """Enter (or a double click) on an event."""

        traffic_list: TrafficList
        event: Event

        @property
        def control(self) -> TrafficList:
            return self.traffic_list

    @dataclass
    class ColumnsChanged(Message):
        """The list became wide enough for its wide columns, or no longer is: ``header``
        is the titles line over it."""

        traffic_list: TrafficList
        header: str

        @property
        def control(self) -> TrafficList:
            return self.traffic_list

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._columns = COLUMNS
        self.index = TrafficIndex()
        #: Row of the cursor; -1 when there are no rows.
        self.cursor = -1
        #: Keep the cursor on the newest event as events arrive.
        self.follow = True
        self._texts: LRUCache[tuple[int, int], list[tuple[str, str | None]]] = LRUCache(512)
        self._styles: dict[str, Style] = {}

    # ------------------------------------------------------------------ model

    def set_index(self, index: TrafficIndex) -> None:
        self.index = index
        self.cursor = -1
        self.follow = True
        self._texts.clear()
        self.rows_changed()

    def rows_changed(self, keep: int | None = None) -> None:
        """The index gained (or, after a new filter, replaced) rows. ``keep``: an event
        position to keep the cursor on, if it is still shown (else the next one)."""
        n = len(self.index.rows)
        set_virtual_size(self, Size(1, n))
        old = self.cursor
        if n == 0:
            self.cursor = -1
        elif keep is not None:
            self.cursor = self.index.row_at_or_after(keep)
        elif self.follow or self.cursor < 0:
            self.cursor = n - 1
        else:
            self.cursor = min(self.cursor, n - 1)
        self._scroll_to_cursor(end=self.follow and self.cursor == n - 1)
        self.refresh()
        if self.cursor != old or keep is not None:
            self._highlighted()

    @property
    def selected(self) -> Event | None:
        rows = self.index.rows
        if 0 <= self.cursor < len(rows):
            return self.index.events[rows[self.cursor]]
        return None

    @property
    def selected_position(self) -> int | None:
        rows = self.index.rows
        return rows[self.cursor] if 0 <= self.cursor < len(rows) else None

    def move_to(self, row: int) -> None:
        n = len(self.index.rows)
        if n == 0:
            return
        row = max(0, min(n - 1, row))
        if row == self.cursor:
            return
        previous = self.cursor
        self.cursor = row
        self.follow = row == n - 1
        self._scroll_to_cursor()
        self._refresh_row(previous)
        self._refresh_row(row)
        self._highlighted()

    def _highlighted(self) -> None:
        self.post_message(self.Highlighted(self, self.cursor, self.selected))

    def _scroll_to_cursor(self, end: bool = False) -> None:
        height = self.scrollable_content_region.height or self.size.height
        if height <= 0 or self.cursor < 0:
            return
        top = int(self.scroll_y)
        if end:
            target = max(0, len(self.index.rows) - height)
        elif self.cursor < top:
            target = self.cursor
        elif self.cursor >= top + height:
            target = self.cursor - height + 1
        else:
            return
        self.scroll_to(y=target, animate=False, force=True)

    def _refresh_row(self, row: int) -> None:
        if row >= 0:
            self.refresh_line(row)

    def on_resize(self, event: events.Resize) -> None:
        self._texts.clear()
        self._scroll_to_cursor(end=self.follow)
        shown = columns(self.scrollable_content_region.width)
        if shown is not self._columns:
            self._columns = shown
            self.post_message(self.ColumnsChanged(self, header_line(self.scrollable_content_region.width)))

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles.clear()

    # ------------------------------------------------------------------ actions

    def action_cursor(self, step: int) -> None:
        self.move_to((self.cursor if self.cursor >= 0 else 0) + step)

    def action_page(self, step: int) -> None:
        height = max(1, (self.scrollable_content_region.height or self.size.height) - 1)
        self.move_to(self.cursor + step * height)

    def action_first(self) -> None:
        self.move_to(0)

    def action_last(self) -> None:
        self.move_to(len(self.index.rows) - 1)
        self.follow = True

    def action_choose(self) -> None:
        event = self.selected
        if event is not None:
            self.post_message(self.Chosen(self, event))

    def on_click(self, event: events.Click) -> None:
        row = int(self.scroll_y) + event.y
        if 0 <= row < len(self.index.rows):
            self.move_to(row)
            if event.chain >= 2:
                self.action_choose()

    # ------------------------------------------------------------------ drawing

    def _style(self, name: str | None) -> Style:
        if name is None:
            return Style()
        style = self._styles.get(name)
        if style is None:
            style = self._styles[name] = self.get_component_rich_style(name, partial=True)
        return style

    def _cells(self, position: int, width: int) -> list[tuple[str, str | None]]:
        key = (position, width)
        cached = self._texts.get(key)
        if cached is not None:
            return cached
        index = self.index
        event = index.events[position]
        kind = event.kind
        status = index.status(event)
        status_class: str | None = None
        if status in _STATES:
            status_class = f"traffic-list--state-{status}"
        elif (kind is Kind.RESPONSE and status[:1] in ("4", "5")) or status.startswith("rpc ") or status == "invalid":
            status_class = "traffic-list--bad"
        kind_class = _KIND_CLASS.get(kind)
        (
            (_, w_time, _),
            _,
            (_, w_kind, _),
            (_, w_ex, _),
            (_, w_method, _),
            (_, w_status, _),
            (_, w_size, _),
            (_, w_lat, _),
        ) = columns(width)
        method = shorten(index.method(event), w_method)
        cells: list[tuple[str, str | None]] = [
            (_fit(f"{event.t:.3f}", w_time, True) + " ", "traffic-list--time"),
            (direction(event) + " ", kind_class),
            (_fit(KIND_LABEL.get(kind, kind.value), w_kind, False) + " ", kind_class),
            (_fit(str(event.exchange) if event.exchange else "", w_ex, True) + " ", "traffic-list--dim"),
            (_fit(method, w_method, False) + " ", None),
            (_fit(shorten(status, w_status), w_status, False) + " ", status_class),
            (_fit(format_size(index.size(event)), w_size, True) + " ", "traffic-list--dim"),
            (_fit(format_ms(index.latency_ms(event)), w_lat, True) + " ", "traffic-list--dim"),
        ]
        rest = width - fixed_width(width)
        if rest > 0:
            summary_class = "traffic-list--error" if kind is Kind.ERROR else None
            cells.append((shorten(index.summary(event), rest), summary_class))
        self._texts[key] = cells
        return cells

    def render_line(self, y: int) -> Strip:
        width = self._line_width() or self.size.width
        base = self._line_base()
        row = int(self.scroll_y) + y
        rows = self.index.rows
        if not 0 <= row < len(rows):
            return Strip.blank(width, base)
        cells = self._cells(rows[row], width)
        if row == self.cursor:
            # One colour on the cursor: column colours can vanish on its background.
            line_style = base + self._style("traffic-list--cursor")
            segments = [Segment(text, line_style) for text, _ in cells]
        else:
            line_style = base
            segments = [Segment(text, base + self._style(cls) if cls else base) for text, cls in cells]
        return Strip(segments).crop_extend(0, width, line_style)
