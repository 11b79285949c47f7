"""Every artifact chunk of a task, in arrival order: which artifact, flags, size, time."""

from __future__ import annotations

from array import array
from bisect import bisect_right
from typing import TYPE_CHECKING, Any, ClassVar

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from ...textsafe import shorten
from .base import ComponentStyles, LineBase
from .formatting import format_offset
from .scrolling import set_virtual_size

if TYPE_CHECKING:
    from ...session.chunks import Chunk, ChunkLog
    from ...session.tracker import TaskView

#: Column headings and widths. The artifact column takes what the others leave, at
#: least ARTIFACT_MIN and at most what the longest id needs (ARTIFACT_MAX).
HEADINGS = ("#", "artifact", "app", "last", "size", "t")
FLAG_WIDTH = 4
SIZE_WIDTH = 5
TIME_WIDTH = 7
ARTIFACT_MIN = 6
ARTIFACT_MAX = 40
GAP = 1


def _next_seq(head: list[Any]) -> int:
    """The seq of the next new chunk of a ``sync`` head."""
    chunks: ChunkLog = head[1]
    return chunks.seq(head[2])


def _flag(value: bool | None) -> str:
    """append / lastChunk: yes, no, or — when the chunk did not say."""
    return "—" if value is None else ("yes" if value else "no")


class ChunkTable(LineBase, ComponentStyles, ScrollView, can_focus=True):
    """One row per chunk of the task's artifacts: the artifact's id (or ``[index]`` in
    0.1), ``append`` (app) and ``lastChunk`` (last) as yes / no / — (absent), content
    size (characters of text, bytes of files, JSON length of data; ``dup`` for a chunk
    another source had already delivered, shown but not assembled again) and time from
    the task's first sight. Fits a 34-column pane; a long artifact id is shortened.

    Built for streams of millions of chunks: the rows are runs of one artifact's
    consecutive chunks (a stream's chunks are one run), read from the artifact's
    ChunkLog as they are drawn, and only the rows on screen are drawn. The header stays
    put; the cursor follows the newest row while it is on the last one.

    BINDINGS:
        up / down, pageup / pagedown, home / end: move the cursor.

    COMPONENT_CLASSES:
        chunk-table--header: the column headings.
        chunk-table--cursor: the cursor row.
        chunk-table--dim: absent and false flags, the row number.
        chunk-table--true: true flags.
    """

    STYLE_PREFIX = "chunk-table"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "cursor(-1)", "Up", show=False),
        Binding("down", "cursor(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "jump(0)", "First", show=False),
        Binding("end", "jump(-1)", "Last", show=False),
    ]

    COMPONENT_CLASSES = {"chunk-table--header", "chunk-table--cursor", "chunk-table--dim", "chunk-table--true"}

    DEFAULT_CSS = """
    ChunkTable {
        height: 1fr;
        scrollbar-size-vertical: 1;
        & > .chunk-table--header { text-style: bold; background: $panel; }
        & > .chunk-table--cursor { background: $block-cursor-blurred-background; }
        &:focus > .chunk-table--cursor { background: $block-cursor-background;
                                         color: $block-cursor-foreground; }
        & > .chunk-table--dim { color: $foreground-muted; }
        & > .chunk-table--true { text-style: bold; }
    }
    """

    cursor_row: reactive[int] = reactive(0, init=False)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._for_task: TaskView | None = None
        self._seen: dict[str, int] = {}
        self._clear_rows()
        self._artifact_width = len("artifact")
        self._styles: dict[str, Style] = {}

    # ------------------------------------------------------------------ data

    def _clear_rows(self) -> None:
        #: The rows in arrival order, as runs of one artifact's consecutive chunks: each
        #: run's first row, its artifact and its first chunk. A Chunk (and a tuple) a
        #: row cost about 300 bytes: 300 MB for a million-chunk stream.
        self._run_rows = array("q")
        self._run_keys: list[str] = []
        self._run_firsts = array("q")
        self._count = 0

    @property
    def row_count(self) -> int:
        return self._count

    def reset(self) -> None:
        self._for_task = None
        self._seen = {}
        self._clear_rows()
        self._artifact_width = len("artifact")
        self.cursor_row = 0
        self._resize()

    def _add(self, key: str, start: int, stop: int) -> None:
        """Rows for chunks ``start`` to ``stop`` (exclusive) of artifact ``key``."""
        count = self._count
        if self._run_keys and self._run_keys[-1] == key and self._run_firsts[-1] + count - self._run_rows[-1] == start:
            self._count = count + stop - start
            return
        self._run_rows.append(count)
        self._run_keys.append(key)
        self._run_firsts.append(start)
        self._count = count + stop - start

    def chunk(self, index: int) -> Chunk:
        """The chunk of row ``index``, read from its artifact."""
        run = bisect_right(self._run_rows, index) - 1
        task = self._for_task
        assert task is not None
        return task.artifacts[self._run_keys[run]].chunks[self._run_firsts[run] + index - self._run_rows[run]]

    def sync(self, task: TaskView | None) -> int:
        """Add rows for the chunks that arrived since the last call; returns how many."""
        if task is not self._for_task:
            self.reset()
            self._for_task = task
        if task is None:
            return 0
        # Per artifact with new chunks: [key, its chunks, the next new one, the end].
        heads: list[list[Any]] = []
        for key, art in task.artifacts.items():
            chunks = art.chunks
            seen = self._seen.get(key, 0)
            if len(chunks) > seen:
                heads.append([key, chunks, seen, len(chunks)])
                self._seen[key] = len(chunks)
                self._artifact_width = min(ARTIFACT_MAX, max(self._artifact_width, len(key)))
        if not heads:
            return 0
        following = self.cursor_row >= self._count - 1
        added = sum(stop - start for _, _, start, stop in heads)
        # In arrival (seq) order across artifacts, a run at a time: each artifact's
        # chunks are in seq order already.
        while len(heads) > 1:
            best = min(heads, key=_next_seq)
            others = min(_next_seq(head) for head in heads if head is not best)
            key, chunks, start, stop = best
            end = start + 1
            while end < stop and chunks.seq(end) < others:
                end += 1
            self._add(key, start, end)
            best[2] = end
            if end >= stop:
                heads.remove(best)
        key, _, start, stop = heads[0]
        self._add(key, start, stop)
        self._resize()
        if following:
            self.cursor_row = self._count - 1
        return added

    def cells(self, index: int) -> list[str]:
        """Row ``index`` as the strings shown (without padding)."""
        run = bisect_right(self._run_rows, index) - 1
        key = self._run_keys[run]
        chunk = self.chunk(index)
        start = self._for_task.first_t if self._for_task is not None else 0.0
        return [
            str(index + 1),
            shorten(key, ARTIFACT_MAX),
            _flag(chunk.append),
            _flag(chunk.last_chunk),
            "dup" if chunk.dup else str(chunk.size),
            format_offset(chunk.t - start),
        ]

    def _fit(self, cell: str, width: int) -> str:
        return cell if len(cell) <= width else cell[: max(0, width - 1)] + "…"

    def get_row_at(self, index: int) -> list[Text]:
        """Row ``index`` as Text cells (the DataTable spelling, for tests and callers)."""
        return [Text(cell) for cell in self.cells(index)]

    # ------------------------------------------------------------------ layout

    def _widths(self) -> list[int]:
        number = max(1, len(str(self._count)))
        fixed = 1 + number + 2 * FLAG_WIDTH + SIZE_WIDTH + TIME_WIDTH + GAP * (len(HEADINGS) - 1)
        room = self.scrollable_content_region.width - fixed
        artifact = max(ARTIFACT_MIN, min(self._artifact_width, room))
        return [number, artifact, FLAG_WIDTH, FLAG_WIDTH, SIZE_WIDTH, TIME_WIDTH]

    def _resize(self) -> None:
        width = 1 + sum(self._widths()) + GAP * (len(HEADINGS) - 1)
        set_virtual_size(self, Size(width, self._count + 1))
        self.refresh()

    def watch_cursor_row(self, old: int, new: int) -> None:
        if self._count:
            clamped = max(0, min(new, self._count - 1))
            if clamped != new:
                self.cursor_row = clamped
                return
        self._scroll_to_cursor()
        self.refresh()

    def _scroll_to_cursor(self) -> None:
        body = max(1, self.size.height - 1)
        top = int(self.scroll_y)
        row = self.cursor_row
        if row < top:
            self.scroll_to(y=row, animate=False, immediate=True)
        elif row >= top + body:
            self.scroll_to(y=row - body + 1, animate=False, immediate=True)

    def on_resize(self, event: events.Resize) -> None:
        self._resize()
        self._scroll_to_cursor()

    # ------------------------------------------------------------------ drawing

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        scroll_x, scroll_y = self.scroll_offset
        base = self._line_base()
        if y == 0:
            header = base + self._style("header")
            segments = self._segments(list(HEADINGS), header, header, header)
        else:
            index = scroll_y + y - 1
            if index >= self._count:
                return Strip.blank(width, base)
            style = base + self._style("cursor") if index == self.cursor_row else base
            segments = self._segments(self.cells(index), style, style + self._style("dim"), style + self._style("true"))
        strip = Strip(segments)
        return strip.crop_extend(scroll_x, scroll_x + width, base if y else base + self._style("header"))

    def _segments(self, cells: list[str], style: Style, dim: Style, true: Style) -> list[Segment]:
        segments = [Segment(" ", style)]
        for i, (cell, width) in enumerate(zip(cells, self._widths(), strict=True)):
            if i:
                segments.append(Segment(" " * GAP, style))
            cell = self._fit(cell, width)
            text = cell.rjust(width) if i in (0, 4, 5) else cell.ljust(width)
            if i in (2, 3) and cell in ("yes", "no", "—"):
                segments.append(Segment(text, true if cell == "yes" else dim))
            elif i == 0 and style is not dim:
                segments.append(Segment(text, dim))
            else:
                segments.append(Segment(text, style))
        return segments

    # ------------------------------------------------------------------ keys and mouse

    def action_cursor(self, delta: int) -> None:
        self.cursor_row = max(0, min(self._count - 1, self.cursor_row + delta))

    def action_page(self, direction: int) -> None:
        self.action_cursor(direction * max(1, self.size.height - 2))

    def action_jump(self, where: int) -> None:
        self.cursor_row = 0 if where == 0 else max(0, self._count - 1)

    def on_click(self, event: events.Click) -> None:
        if event.y >= 1:
            index = int(self.scroll_y) + event.y - 1
            if 0 <= index < self._count:
                self.cursor_row = index
