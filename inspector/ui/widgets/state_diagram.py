"""The task state machine, current state lit, path taken, timings and violations."""

from __future__ import annotations

import time
from collections.abc import Callable
from itertools import pairwise
from typing import TYPE_CHECKING, Any, Self

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.widget import Widget

from ...headless.metadata_text import MORE, metadata_rows
from ...protocol.enums import TaskState
from ...protocol.states import INTERRUPTED, TERMINAL
from ...session.tracker import CUT
from ...textsafe import shorten, visible
from .base import ComponentStyles, ConnectionView, LineBase
from .formatting import cut_limit, format_duration, format_offset, short_id

if TYPE_CHECKING:
    from textual.selection import Selection

    from ...session import Event
    from ...session.tracker import TaskView
    from ..connection import AgentConnection

S = TaskState

# The drawing: 34 columns. Each line has a mask of the same length naming what each
# cell belongs to: a state's label (lower case) or box (upper case), or an edge (digits).
#   s/S submitted   w/W working   i input-required  a auth-required  I their box
#   c completed  f failed  x canceled  r rejected  T the box of the ended states
#   1 submitted->working  2 submitted->interrupted  3 submitted->ended  8 shared by 2 and 3
#   4 working->interrupted  5 interrupted->working  6 working->ended  7 interrupted->ended
DRAWING = [
    ("╭───────────╮   ╭───────────╮     ", "SSSSSSSSSSSSS   WWWWWWWWWWWWW     "),
    ("│ submitted ├──▶│  working  ├─╮   ", "SSsssssssssSS111WWWwwwwwwwWWW66   "),
    ("╰─────┬─────╯   ╰──┬─────▲──╯ │   ", "SSSSSS8SSSSSS   WWW4WWWWW5WWW 6   "),
    ("      │     ╭──────▼─────┴─╮  │   ", "      8     IIIIIII4IIIII5II  6   "),
    ("      ├────▶│input-required│  │   ", "      822222IiiiiiiiiiiiiiiI  6   "),
    ("      │     │auth-required │  │   ", "      3     IaaaaaaaaaaaaaII  6   "),
    ("      │     ╰──────┬───────╯  │   ", "      3     IIIIIII7IIIIIIII  6   "),
    ("╭─────▼────────────▼──────────▼──╮", "TTTTTT3TTTTTTTTTTTT7TTTTTTTTTT6TTT"),
    ("│ completed    failed            │", "TTcccccccccTTTTffffffTTTTTTTTTTTTT"),
    ("│ canceled     rejected          │", "TTxxxxxxxxTTTTTrrrrrrrrTTTTTTTTTTT"),
    ("╰────────────────────────────────╯", "TTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTTT"),
]
DRAWING_WIDTH = 34

_LABEL = {
    "s": S.SUBMITTED,
    "w": S.WORKING,
    "i": S.INPUT_REQUIRED,
    "a": S.AUTH_REQUIRED,
    "c": S.COMPLETED,
    "f": S.FAILED,
    "x": S.CANCELED,
    "r": S.REJECTED,
}
_BOX = {
    "S": (S.SUBMITTED,),
    "W": (S.WORKING,),
    "I": (S.INPUT_REQUIRED, S.AUTH_REQUIRED),
    "T": (S.COMPLETED, S.FAILED, S.CANCELED, S.REJECTED),
}


def _tier(state: TaskState) -> str:
    if state == S.SUBMITTED:
        return "S"
    if state == S.WORKING:
        return "W"
    if state in INTERRUPTED:
        return "I"
    if state in TERMINAL:
        return "T"
    return "U"


_EDGES = {
    ("S", "W"): "1",
    ("S", "I"): "2",
    ("S", "T"): "3",
    ("W", "I"): "4",
    ("I", "W"): "5",
    ("W", "T"): "6",
    ("I", "T"): "7",
}

#: Transition rows listed, and violations, before "… n earlier/more"; remarks (late
#: reports, errors) listed among the transitions.
MAX_TRANSITIONS = 6
MAX_VIOLATIONS = 3
MAX_REMARKS = 3
#: Seconds between redraws when only the running state's time changed.
LIVE_REDRAW = 0.25
#: Seconds between redraws of a live task's running state with nothing new from the agent.
TICK = 1.0
#: The timeline table's width (state, at, for); narrower, the "at" column goes.
TABLE_WIDTH = 33
#: On a terminal shorter than this the drawing (11 rows) gives way to the one-line path,
#: so the artifacts below keep room (80x24 is a usual size).
DRAWING_MIN_SCREEN_HEIGHT = 32

#: Codes whose violation is about a state change (marks that row of the path).
TRANSITION_CODES = {
    "illegal-transition",
    "transition-after-terminal",
    "final-not-terminal",
    "terminal-not-final",
    "event-after-final",
    "event-after-terminal",
}


def compact_count(n: int) -> str:
    """``7``, ``999``, ``1.2k``, ``34k``, ``1.2M``: a count in at most four characters."""
    if n < 1000:
        return str(n)
    if n < 10_000:
        return f"{n / 1000:.1f}k"
    if n < 1_000_000:
        return f"{n // 1000}k"
    return f"{n / 1_000_000:.1f}M"


def taken_edges(path: list[TaskState]) -> dict[str, TaskState]:
    """The drawing's edge marks lit by a path of states, each with the state it led to
    (the latest time it was taken)."""
    edges: dict[str, TaskState] = {}
    for before, after in pairwise(path):
        mark = _EDGES.get((_tier(before), _tier(after)))
        if mark is not None:
            edges[mark] = after
            if mark in "23":
                edges["8"] = after
    return edges


class StateDiagram(LineBase, ConnectionView, ComponentStyles, Widget):
    """The selected task's walk through the A2A state machine.

    The drawing (34 columns) lights the current state in its theme colour
    (``$state-<state>``), shows the states visited in colour and the edges taken in bold;
    below it every transition with its time from the task's first sight and the time
    spent in the state (the current state's time runs on, ticking every second, marked
    ``…``; in a recording, to the task's latest event; a state the agent reported again
    and again shows how many status updates it sent in it: ``working ×1.2k``), with the
    remarks that are not states among them: a late report (``↶``, a status older than
    the current state), a JSON-RPC error (``✖ error -32603``), which the title also
    shows as "working · then error -32603", and a stream the client stopped reading at
    one of its limits (``✂ stream cut`` and the limit's words; the title says "working ·
    stream cut", and the running state's time stops there; as it does when the stream
    ended on a JSON-RPC error: "working · then error -32603 · stream ended"); then the protocol violations
    with code and message, coloured by severity.
    Narrower than 34 columns, or on a terminal shorter than 32 rows, the drawing is
    replaced by a one-line path.

    COMPONENT_CLASSES:
        state-diagram--<state>: each task state's colour (``$state-<state>``).
        state-diagram--dim: states and edges not taken.
        state-diagram--edge: edges taken (drawn in the colour of the state they led to).
        state-diagram--error / state-diagram--warning: violations by severity.
        state-diagram--title: the heading line.
    """

    STYLE_PREFIX = "state-diagram"

    #: Wall clock: a live task's running state has lasted until now, not only until the
    #: agent's latest event. Tests and snapshots may replace it.
    clock: Callable[[], float] = staticmethod(time.time)

    COMPONENT_CLASSES = {
        *(f"state-diagram--{s.value}" for s in S),
        "state-diagram--dim",
        "state-diagram--edge",
        "state-diagram--error",
        "state-diagram--warning",
        "state-diagram--title",
    }

    DEFAULT_CSS = """
    StateDiagram {
        height: auto;
        padding: 0 0 0 1;
        & > .state-diagram--submitted { color: $state-submitted; }
        & > .state-diagram--working { color: $state-working; }
        & > .state-diagram--input-required { color: $state-input-required; }
        & > .state-diagram--auth-required { color: $state-auth-required; }
        & > .state-diagram--completed { color: $state-completed; }
        & > .state-diagram--canceled { color: $state-canceled; }
        & > .state-diagram--failed { color: $state-failed; }
        & > .state-diagram--rejected { color: $state-rejected; }
        & > .state-diagram--unknown { color: $state-unknown; }
        & > .state-diagram--dim { color: $foreground-muted; }
        & > .state-diagram--edge { text-style: bold; }
        & > .state-diagram--error { color: $error; }
        & > .state-diagram--warning { color: $warning; }
        & > .state-diagram--title { text-style: bold; }
    }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._conn: AgentConnection | None = None
        self._task_id: str | None = None
        self._drawn: tuple[Any, ...] | None = None
        self._shape: tuple[Any, ...] | None = None
        self._painted = 0.0
        self._trailing: Any = None
        self._styles: dict[str, Style] = {}
        #: ((width, tall, base style), strips, rows' text): what render_line draws, until
        #: a refresh.
        self._cached: tuple[tuple[Any, ...], list[Strip], list[str]] | None = None

    def on_mount(self) -> None:
        self.set_interval(TICK, self._tick, name="state-diagram-tick")

    def _tick(self) -> None:
        """The running state's time goes on while the agent says nothing, as long as a
        stream still follows the task (a cut one is not followed: its time stopped)."""
        task = self.task_view
        if (
            task is not None
            and task.state is not None
            and task.state not in TERMINAL
            and task.cut is None
            and task.ended is None
            and self._live()
        ):
            self.refresh()

    def _live(self) -> bool:
        conn = self._conn
        return conn is not None and not conn.read_only and self.display and self.is_on_screen

    def _now(self, task: TaskView) -> float:
        """Session time of "now" for the running state: the wall clock for a live agent,
        the latest event for a recording or a task whose stream was cut (nothing is
        known of it since)."""
        conn = self._conn
        if conn is None or conn.read_only or task.cut is not None or task.ended is not None:
            return task.last_t
        return max(task.last_t, self.clock() - conn.session.started_wall)

    # ------------------------------------------------------------------ ConnectionView

    def show_connection(self, conn: AgentConnection | None) -> None:
        self._conn = conn
        self._task_id = self.app.task_id if conn is not None else None
        self._update(force=True)

    def show_task(self, conn: AgentConnection | None, task_id: str | None) -> None:
        self._conn, self._task_id = conn, task_id
        self._update(force=True)

    def session_advanced(self, conn: AgentConnection, events: list[Event], changed: set[str]) -> None:
        if conn is self._conn and self._task_id in changed:
            self._update()

    @property
    def task_view(self) -> TaskView | None:
        """The task shown (Textual's ``task`` is the widget's asyncio task)."""
        if self._conn is None or self._task_id is None:
            return None
        return self._conn.tracker.task(self._task_id)

    def _update(self, force: bool = False, timed: bool = False) -> None:
        """Redraw when the task changed; lay out again only when the height may have.
        When only the running state's time moved, redraw a few times a second."""
        task = self.task_view
        if task is None:
            shape: tuple[Any, ...] | None = None
            key: tuple[Any, ...] | None = None
        else:
            shape = (
                task.id,
                min(len(task.timeline), MAX_TRANSITIONS + 1),
                tuple(v.message for v in task.violations[: MAX_VIOLATIONS + 1]),
                min(len(task.remarks), MAX_REMARKS),
                task.error,
                task.cut,
                task.ended,
                task.metadata,
            )
            key = (shape, len(task.timeline), len(task.violations), task.last_t)
        if not force and key == self._drawn:
            return
        drawn = self._drawn
        only_time = not force and key is not None and drawn is not None and key[:3] == drawn[:3]
        if only_time and not timed:
            if self._trailing is None:
                delay = max(0.02, LIVE_REDRAW - (time.monotonic() - self._painted))
                self._trailing = self.set_timer(delay, self._redraw_time, name="state-diagram-time")
            return
        self.refresh(layout=force or shape != self._shape)
        self._drawn, self._shape = key, shape
        self._painted = time.monotonic()

    def _redraw_time(self) -> None:
        self._trailing = None
        self._update(timed=True)

    # ------------------------------------------------------------------ drawing

    # Drawn line by line from strips made once per change and width: the layout measures
    # the height (this widget is height: auto) and the paint draws with the same strips.
    # Textual's own path (Text to Content, word-wrapped, every line) took 3-7 ms a paint,
    # the costliest widget when a task appears or ends; this takes a fraction of that.

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._strips(width))

    def render_line(self, y: int) -> Strip:
        width = self._line_width()
        strips = self._strips(width)
        return strips[y] if y < len(strips) else Strip.blank(width, self._line_base())

    def refresh(self, *regions: Region, repaint: bool = True, layout: bool = False, recompose: bool = False) -> Self:
        self._cached = None
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)

    def notify_style_update(self) -> None:
        self._cached = None
        super().notify_style_update()

    def _strips(self, width: int) -> list[Strip]:
        return self._drawn_rows(width)[0]

    def _tall(self) -> bool:
        """Room for the drawing (else the one-line path): a terminal tall enough."""
        return self.app.size.height >= DRAWING_MIN_SCREEN_HEIGHT

    def _drawn_rows(self, width: int) -> tuple[list[Strip], list[str]]:
        """The strips at ``width``, and each row's text (what a selection reads)."""
        base = self._line_base()
        key = (width, self._tall(), base)
        cached = self._cached
        if cached is not None and cached[0] == key:
            return cached[1], cached[2]
        rows: list[Text] = []
        if width > 0:
            console = self.app.console
            for line in self._lines(width, key[1]):
                if "\n" not in line.plain and line.cell_len <= width:
                    rows.append(line)
                    continue
                wrapped = list(line.wrap(console, width))
                for row in wrapped[:-1]:  # as Textual wraps: no space left where a row breaks
                    row.rstrip()
                rows.extend(wrapped)
        selection = self.text_selection
        strips = [self._row_strip(row, y, width, base, selection) for y, row in enumerate(rows)]
        self._cached = (key, strips, [row.plain for row in rows])
        return self._cached[1], self._cached[2]

    def _row_strip(self, row: Text, y: int, width: int, base: Style, selection: Selection | None) -> Strip:
        """Row ``y`` as a strip, the selection highlighted. Each segment carries its
        place in the text (Textual's ``offset`` meta), so a mouse selection starts and
        ends where it would in any other widget."""
        span = selection.get_span(y) if selection is not None else None
        if span is not None:
            start, end = span
            row.stylize(
                self.screen.get_component_rich_style("screen--selection"), start, len(row) if end == -1 else end
            )
        segments = []
        x = 0
        for text, style, _ in row.render(self.app.console):
            at = Style.from_meta({"offset": (x, y)})
            segments.append(Segment(text, (base + style if style else base) + at))
            x += len(text)
        return Strip(segments).crop_extend(0, width, base)

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        width = self._line_width()
        return selection.extract("\n".join(self._drawn_rows(width)[1])), "\n"

    def render(self) -> Text:
        """The whole drawing as one Text, unwrapped."""
        width = self.outer_size.width - self.styles.gutter.width
        return Text("\n").join(self._lines(width or DRAWING_WIDTH, self._tall()))

    def _lines(self, width: int, tall: bool) -> list[Text]:
        task = self.task_view
        if task is None:
            text = "No task selected." if self._conn is not None else "No agent connected."
            return [Text(text, style=self._style("dim"))]
        lines: list[Text] = [self._title(task), *self._delegation(task)]
        path = [c.state for c in task.timeline]
        if width >= DRAWING_WIDTH and tall:
            lines.extend(self._drawing(task, path))
        else:
            lines.append(self._path_line(path))
        lines.extend(self._transitions(task, narrow=width < TABLE_WIDTH))
        lines.extend(self._violations(task))
        lines.extend(self._metadata(task, width))
        return lines

    def _metadata(self, task: TaskView, width: int) -> list[Text]:
        """The task's metadata (Society AI's requester, executor, skill_used, cost, or
        any agent's), a row a key, cut to the pane: a glance, -o json has it whole."""
        rows = metadata_rows(task.metadata)
        if not rows:
            return []
        dim = self._style("dim")
        pad = max((len(key) for key, _ in rows if key != MORE), default=0)
        room = max(8, width - 4 - pad)
        out = [Text("metadata", style=dim + Style(bold=True))]
        for key, value in rows:
            row = Text("  ")
            if key == MORE:
                row.append(f"{key} {value}", style=dim)
            else:
                row.append(f"{key:<{pad}}  ", style=dim)
                row.append(shorten(value, room))
            out.append(row)
        return out

    def _title(self, task: TaskView) -> Text:
        title = Text()
        title.append("task " + short_id(task.id), style=self._style("title"))
        if task.state is not None:
            title.append("  ")
            title.append(task.state.value, style=self._style(task.state.value) + Style(bold=True))
        if task.error is not None and task.error.error is not None:
            title.append(f" · then error {task.error.error.code}", style=self._style("error") + Style(bold=True))
        if task.cut is not None:
            title.append(" · stream cut", style=self._style("warning") + Style(bold=True))
        elif task.ended is not None and task.state not in TERMINAL:
            # The error ended the only stream following the task: its time stops here,
            # and only a get can tell where the task is now.
            title.append(" · stream ended", style=self._style("warning") + Style(bold=True))
        return title

    def _delegation(self, task: TaskView) -> list[Text]:
        """The delegation chain through a hub's agent.send_task: the task that asked for
        this one, and the tasks this one asked for (with their agents, where known)."""
        conn = self._conn
        tracker = conn.tracker if conn is not None else None
        children = tracker.children.get(task.id, []) if tracker is not None else []
        if task.parent is None and not children:
            return []
        out: list[Text] = []
        dim = self._style("dim")
        if task.parent is not None:
            why = tracker.chain_why.get(task.id) if tracker is not None else None
            line = Text("likely called by  " if why else "delegated by  ", style=dim)
            line.append("task " + short_id(task.parent))
            asker = _who(task.metadata, "requester")
            if asker:
                line.append(f"  ({asker})", style=dim)
            out.append(line)
            if why:
                # The proxy's inference (inspector/proxy/chain.py): its reason, on a line
                # of its own (a narrow pane would cut it off).
                out.append(Text(f"  {why}", style=dim))
        for child_id in children:
            chained = tracker is not None and child_id in tracker.chain_why
            line = Text("likely called  " if chained else "delegated to  ", style=dim)
            line.append("task " + short_id(child_id))
            child = tracker.task(child_id) if tracker is not None else None
            if child is not None:
                doer = _who(child.metadata, "executor")
                if doer:
                    line.append(f"  {doer}", style=dim)
                if child.state is not None:
                    line.append("  ")
                    line.append(child.state.value, style=self._style(child.state.value))
            out.append(line)
        return out

    def _path_line(self, path: list[TaskState]) -> Text:
        line = Text()
        for i, state in enumerate(path):
            if i:
                line.append(" → ", style=self._style("dim"))
            line.append(state.value, style=self._style(state.value))
        return line or Text("(no state yet)", style=self._style("dim"))

    def _drawing(self, task: TaskView, path: list[TaskState]) -> list[Text]:
        current = task.state
        visited = set(path)
        edges = taken_edges(path)
        dim = self._style("dim")
        edge = self._style("edge")
        styles: dict[str | None, Style] = {}  # None: past the end of a row's mask
        for mark, state in _LABEL.items():
            if state == current:
                styles[mark] = self._style(state.value) + Style(bold=True, reverse=True)
            elif state in visited:
                styles[mark] = self._style(state.value) + Style(bold=True)
            else:
                styles[mark] = dim
        for mark, states in _BOX.items():
            lit = next((s for s in states if s == current), None) or next(
                (s for s in reversed(path) if s in states), None
            )
            styles[mark] = self._style(lit.value) if lit is not None else dim
        for mark in "12345678":
            to = edges.get(mark)
            styles[mark] = dim if to is None else self._style(to.value) + edge
        out = []
        for drawing, mask in DRAWING:
            line = Text()
            run_start = 0
            run_mark: str | None = mask[0]
            for col in range(1, len(drawing) + 1):
                col_mark = mask[col] if col < len(mask) else None
                if col_mark != run_mark:
                    line.append(drawing[run_start:col], style=styles.get(run_mark, dim))
                    run_start, run_mark = col, col_mark
            out.append(line)
        if current == S.UNKNOWN:
            out.append(Text("current state: unknown (the agent did not say)", style=self._style("unknown")))
        return out

    def _transitions(self, task: TaskView, narrow: bool = False) -> list[Text]:
        """The timeline table; ``narrow``: without the "at" column, so a row never wraps."""
        timeline = task.timeline
        if not timeline:
            return [Text("no state reported yet", style=self._style("dim"))]
        flagged = {v.seq for v in task.violations if v.code in TRANSITION_CODES}
        start = task.first_t
        at_width = 0 if narrow else 8
        out = [Text(f"{'state':<16}{'at' if at_width else '':>{at_width}}{'for':>9}", style=self._style("dim"))]
        shown = timeline[-MAX_TRANSITIONS:]
        if len(timeline) > len(shown):
            out.append(Text(f"… {len(timeline) - len(shown)} earlier", style=self._style("dim")))
        last = timeline[-1]
        remarks = [r for r in task.remarks[-MAX_REMARKS:] if r.seq > shown[0].seq]
        for change in shown:
            while remarks and remarks[0].seq < change.seq:
                out.append(self._remark_row(remarks.pop(0), start))
            state = change.state
            if change.end_t is not None:
                took = format_duration(change.end_t - change.t)
            elif state in TERMINAL:
                took = "end"
            else:
                took = format_duration(max(0.0, self._now(task) - change.t)) + (
                    "" if task.cut is not None or task.ended is not None else "…"
                )
            mark = "✖ " if change.seq in flagged else ("▸ " if change is last else "  ")
            row = Text()
            row.append(mark, style=self._style("error") if change.seq in flagged else self._style(state.value))
            label = state.value
            # Repeated status updates of one state are one row, with their count.
            count = f" ×{compact_count(change.updates)}" if change.updates > 1 else ""
            if len(label) + len(count) > 14:
                count = ""
            style = self._style(state.value) + (Style(bold=True) if change is last else Style())
            if count:
                row.append(label, style=style)
                row.append(f"{count:<{14 - len(label)}}", style=self._style("dim"))
            else:
                row.append(f"{label:<14}", style=style)
            row.append(f"{format_offset(change.t - start) if at_width else '':>{at_width}}{took:>9}")
            out.append(row)
        out.extend(self._remark_row(r, start) for r in remarks)
        return out

    def _remark_row(self, remark: Any, start: float) -> Text:
        row = Text()
        if remark.kind == CUT:
            style = self._style("warning")
            row.append("✂ ", style=style)
            row.append(f"{'stream cut':<14}", style=style + Style(bold=True))
            row.append(f"{format_offset(remark.t - start):>8}")
            row.append("\n  " + cut_limit(remark))
        elif remark.error is not None:
            row.append("✖ ", style=self._style("error"))
            row.append(f"{'error ' + str(remark.error.code):<14}", style=self._style("error") + Style(bold=True))
            row.append(f"{format_offset(remark.t - start):>8}")
            if remark.error.message:
                row.append("\n  " + visible(remark.error.message, single_line=True)[:200])
        else:
            row.append("↶ ", style=self._style("dim"))
            label = f"late {remark.state.value}" if remark.state is not None else "late"
            row.append(f"{label:<14}", style=self._style("dim"))
            row.append(f"{format_offset(remark.t - start):>8}{'late':>9}", style=self._style("dim"))
        return row

    def _violations(self, task: TaskView) -> list[Text]:
        violations = task.violations
        if not violations:
            return []
        errors = sum(1 for v in violations if v.severity == "error")
        head = Text(
            f"violations: {len(violations)}", style=self._style("error" if errors else "warning") + Style(bold=True)
        )
        out = [head]
        for v in violations[:MAX_VIOLATIONS]:
            style = self._style("error" if v.severity == "error" else "warning")
            row = Text()
            row.append("✖ " if v.severity == "error" else "⚠ ", style=style)
            row.append(v.code, style=style + Style(bold=True))
            row.append("\n  " + visible(v.message))
            out.append(row)
        if len(violations) > MAX_VIOLATIONS:
            out.append(Text(f"… {len(violations) - MAX_VIOLATIONS} more", style=self._style("dim")))
        return out


def _who(metadata: Any, key: str) -> str | None:
    """Society AI's ``requester`` / ``executor`` name in a task's metadata."""
    value = metadata.get(key) if isinstance(metadata, dict) else None
    if isinstance(value, dict):
        value = value.get("name")
    return visible(value, single_line=True) if isinstance(value, str) and value else None
