"""The replay timeline: where the cursor is in a recording, and each task's states along it.

Shown under the views only when the app replays a recording (``a2a-inspect replay``).
"""

from __future__ import annotations

import time
from bisect import bisect_right
from typing import Any, ClassVar

from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.widget import Widget

from ...protocol.models import TaskState
from ...session import Event
from ..connection import AgentConnection
from ..messages import OpenModal
from ..replay import FRAME, ReplayController, StateMark, format_t, parse_target, speed_label
from .base import ComponentStyles, ConnectionView
from .formatting import short_id
from .traffic_model import KIND_LABEL, payload_label

#: Task lanes shown at most; the selected task and those around the cursor come first.
MAX_LANES = 5
#: Columns before the timeline: the lane's task and its state at the cursor.
LABEL_WIDTH = 26
HINT = "space play · ←→ step · shift+←→ state · +/- speed · home/end · g go to"
#: While playing, the clock on the bar is redrawn at most this often when no event arrives.
CLOCK_REDRAW = 0.1


#: ``←`` and ``→`` share one footer entry.
STEP = Binding.Group("Step", compact=True)


class ReplayBar(ConnectionView, ComponentStyles, Widget, can_focus=True):
    """Position (n/N), recorded time, speed and play state, and one lane per task
    coloured by its state along the whole recording (dim past the cursor).

    BINDINGS (also bound app-wide in replay, wherever the focused widget does not use
    the key; f7 focuses the timeline):
    | key | action |
    | :- | :- |
    | space | play / pause (at the end: play from the start) |
    | right / left | step one event forward / back |
    | shift+right / shift+left | jump to the next / previous state change of any task |
    | + / - | faster / slower (0.25x … 50x, max) |
    | home / end | the start (nothing applied) / the end (everything) |
    | g | go to an event number (or a recorded time, e.g. 12.5s) |

    COMPONENT_CLASSES:
        replay-bar--<state>: each task state's colour ($state-<state>).
        replay-bar--dim: the part of the timeline after the cursor, hints.
        replay-bar--cursor: the cursor's column.
        replay-bar--status: the play state and speed.
    """

    STYLE_PREFIX = "replay-bar"
    STYLE_DEFAULT = Style()

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space", "command('toggle')", "Play/Pause"),
        # One footer entry for the pair, so that the footer fits 80 columns.
        Binding("left", "command('step', -1)", "Step back", group=STEP),
        Binding("right", "command('step', 1)", "Step", group=STEP),
        Binding("shift+right", "command('state', 1)", "Next state change", show=False),
        Binding("shift+left", "command('state', -1)", "Previous state change", show=False),
        Binding("plus,equals_sign", "command('faster')", "Faster", show=False, key_display="+"),
        Binding("minus", "command('slower')", "Slower", show=False),
        Binding("home", "command('home')", "Replay start", show=False),
        Binding("end", "command('end')", "Replay end", show=False),
        Binding("g", "command('goto')", "Go to event"),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        *(f"replay-bar--{s.value}" for s in TaskState),
        "replay-bar--dim",
        "replay-bar--cursor",
        "replay-bar--status",
    }

    DEFAULT_CSS = """
    ReplayBar {
        height: auto;
        padding: 0 1;
        text-wrap: nowrap;
        text-overflow: clip;
        border-top: solid $panel-lighten-1;
        background: $surface;
        &:focus { border-top: solid $accent; }
        & > .replay-bar--submitted { color: $state-submitted; }
        & > .replay-bar--working { color: $state-working; }
        & > .replay-bar--input-required { color: $state-input-required; }
        & > .replay-bar--auth-required { color: $state-auth-required; }
        & > .replay-bar--completed { color: $state-completed; }
        & > .replay-bar--canceled { color: $state-canceled; }
        & > .replay-bar--failed { color: $state-failed; }
        & > .replay-bar--rejected { color: $state-rejected; }
        & > .replay-bar--unknown { color: $state-unknown; }
        & > .replay-bar--dim { color: $foreground-muted; }
        & > .replay-bar--cursor { text-style: reverse; }
        & > .replay-bar--status { color: $secondary; text-style: bold; }
    }
    """

    def __init__(
        self,
        controller: ReplayController,
        *,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.controller = controller
        self._styles: dict[str, Style] = {}
        self._last_draw = 0.0

    def on_mount(self) -> None:
        self.controller.on_change = self.refresh
        self.set_interval(FRAME, self._tick, name="replay-clock")
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._restyle())

    def _tick(self) -> None:
        moved = self.controller.tick()
        now = time.monotonic()
        busy = self.controller.playing or self.controller.loading or self.controller.seeking
        if moved or (busy and now - self._last_draw >= CLOCK_REDRAW):
            self.refresh()

    # ------------------------------------------------------------------ ConnectionView

    def show_connection(self, conn: AgentConnection | None) -> None:
        self.refresh()

    def show_task(self, conn: AgentConnection | None, task_id: str | None) -> None:
        self.refresh()

    def session_advanced(self, conn: AgentConnection, events: list[Event], changed: set[str]) -> None:
        pass  # the controller moved the cursor; it redraws the bar itself

    # ------------------------------------------------------------------ commands

    def action_command(self, op: str, arg: int = 0) -> None:
        self.command(op, arg)

    def command(self, op: str, arg: int = 0) -> None:
        """Run a replay command: toggle, step(arg), state(arg), faster, slower, home,
        end, goto, focus."""
        c = self.controller
        if op == "toggle":
            c.toggle()
        elif op == "step":
            c.step(arg or 1)
        elif op == "state":
            if not c.jump_state(arg or 1):
                where = "after" if (arg or 1) > 0 else "before"
                self.app.notify(f"no state change {where} event {c.position}", timeout=3)
        elif op == "faster":
            c.faster()
        elif op == "slower":
            c.slower()
        elif op == "home":
            c.home()
        elif op == "end":
            c.end()
        elif op == "goto":
            self._ask_target()
        elif op == "focus":
            self.focus()
        self.refresh()

    def _ask_target(self) -> None:
        c = self.controller

        def chosen(text: str | None) -> None:
            if text is None:
                return
            try:
                target = parse_target(text, c)
            except ValueError as exc:
                self.app.notify(str(exc), severity="warning", markup=False)
                return
            c.pause()
            c.seek(target)
            self.refresh()

        self.post_message(
            OpenModal(
                "prompt",
                f"Go to event (0-{c.total}), or a recorded time like 12.5s",
                "",
                placeholder=f"now at {c.position}",
                done=chosen,
            )
        )

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        width = self._track_width()
        if offset is None or width <= 0 or offset.y < 1 or offset.x < LABEL_WIDTH:
            return
        column = min(width - 1, offset.x - LABEL_WIDTH)
        c = self.controller
        c.pause()
        c.seek(round((column + 1) * c.total / width))
        self.refresh()

    # ------------------------------------------------------------------ drawing

    def _restyle(self) -> None:
        self._styles = {}
        self.refresh()

    def _track_width(self) -> int:
        return max(0, self.content_size.width - LABEL_WIDTH)

    def lane_tasks(self) -> list[str]:
        """The tasks given a lane: the selected one, then those already started nearest
        the cursor, then the next to start; shown in order of first appearance."""
        c = self.controller
        first = c.first_position
        if not first:
            return []
        position = c.position
        chosen: list[str] = []
        selected = getattr(self.app, "task_id", None)
        if selected in first:
            chosen.append(selected)
        started = sorted((t for t in first if first[t] <= position), key=lambda t: -first[t])
        later = sorted((t for t in first if first[t] > position), key=lambda t: first[t])
        for task_id in [*started, *later]:
            if len(chosen) >= MAX_LANES:
                break
            if task_id not in chosen:
                chosen.append(task_id)
        return sorted(chosen, key=lambda t: first[t])

    def render(self) -> Text:
        self._last_draw = time.monotonic()
        c = self.controller
        width = self._track_width()
        lines = [self._status_line()]
        lines.append(self._ruler(width))
        lanes = self.lane_tasks()
        for task_id in lanes:
            lines.append(self._lane(task_id, width))
        hidden = len(c.first_position) - len(lanes)
        if hidden > 0:
            lines.append(
                Text(
                    f"  … {hidden} more task(s): pick one in the Tasks tab (F4) to see its lane",
                    style=self._style("dim"),
                )
            )
        return Text("\n", no_wrap=True, overflow="crop").join(lines)

    def status_text(self) -> str:
        """The first line, as plain text (tests, screen readers)."""
        return self._status_line().plain

    def _status_line(self) -> Text:
        c = self.controller
        icon = "▶ playing" if c.playing else ("■ end" if c.at_end else "❚❚ paused")
        line = Text(no_wrap=True, overflow="ellipsis")
        line.append(f"{icon} {speed_label(c.speed)}", style=self._style("status"))
        width = len(str(c.total))
        line.append(f"  event {c.position:>{width}}/{c.total}")
        if c.loading:
            # The index is still reading the file: the total grows, the ticks fill in.
            line.append(f"  indexing {c.progress:.0%}", style=self._style("dim"))
        if c.seeking:
            line.append("  seeking…", style=self._style("dim"))
        line.append(f"  {format_t(c.shown_t)} / {format_t(c.duration)}")
        event = c.event_at()
        if event is not None:
            what = KIND_LABEL.get(event.kind, event.kind.value)
            label = payload_label(event.payload)
            line.append(f"  #{event.seq} {what}{' ' + label if label else ''}", style=self._style("dim"))
        wait = c.wait_for_next()
        if wait is not None and wait >= 1.0:
            line.append(f"  next event in {wait:.0f} s (→ steps to it)", style=self._style("dim"))
        if self.content_size.width - line.cell_len > len(HINT) + 4:
            pad = self.content_size.width - line.cell_len - len(HINT)
            line.append(" " * pad)
            line.append(HINT, style=self._style("dim"))
        return line

    def _columns(self, width: int) -> list[tuple[int, int]]:
        """Each column's range of positions (lo, hi]: the events drawn in it."""
        n = self.controller.total
        return [((col * n) // width, ((col + 1) * n) // width) for col in range(width)]

    def _cursor_column(self, width: int) -> int:
        c = self.controller
        if c.total == 0 or width <= 0:
            return 0
        return min(width - 1, max(0, -(-c.position * width // c.total) - 1))

    def _ruler(self, width: int) -> Text:
        c = self.controller
        line = Text(no_wrap=True, overflow="crop")
        tasks = len(c.first_position)
        label = f"timeline · {tasks} task{'' if tasks == 1 else 's'}"
        line.append(label[: LABEL_WIDTH - 1].ljust(LABEL_WIDTH), style=self._style("dim"))
        if width <= 0:
            return line
        cursor = self._cursor_column(width)
        marks = c.mark_positions
        position = c.position
        cells: list[tuple[str, Style]] = []
        plain, dim, head = Style(), self._style("dim"), self._style("status")
        for col, (lo, hi) in enumerate(self._columns(width)):
            changed = bisect_right(marks, hi) > bisect_right(marks, lo)
            if col == cursor and position > 0:
                cells.append(("●", head))
            elif lo >= position:
                cells.append(("┬" if changed else "─", dim))
            else:
                cells.append(("┯" if changed else "━", plain))
        _append_runs(line, cells)
        return line

    def _lane(self, task_id: str, width: int) -> Text:
        c = self.controller
        lane: list[StateMark] = c.lanes.get(task_id, [])
        position = c.position
        state = c.state_at(task_id)
        selected = task_id == getattr(self.app, "task_id", None)
        line = Text(no_wrap=True, overflow="crop")
        label = f"{'▸' if selected else ' '} {short_id(task_id)} "
        line.append(label, style="bold" if selected else "")
        state_text = state.value if state is not None else "—"
        state_text = state_text[: LABEL_WIDTH - len(label) - 1]
        line.append(
            f"{state_text:<{LABEL_WIDTH - len(label)}}",
            style=self._style(state.value) if state is not None else self._style("dim"),
        )
        if width <= 0 or not lane:
            return line
        positions = [m.position for m in lane]
        first = c.first_position.get(task_id, lane[0].position)
        cursor = self._cursor_column(width)
        cells: list[tuple[str, Style]] = []
        for col, (lo, hi) in enumerate(self._columns(width)):
            if hi < first:
                glyph, name, future = " ", "", False
            else:
                i = bisect_right(positions, hi)
                at = lane[i - 1].state if i else None
                if at is None:
                    glyph, name = "·", "dim"
                else:
                    glyph, name = ("◆" if i > bisect_right(positions, lo) else "━"), at.value
                future = lo >= position
            here = col == cursor and position > 0
            if here and glyph == " ":
                glyph = "│"
            cells.append((glyph, self._cell_style(name, future, here)))
        _append_runs(line, cells)
        return line

    def _cell_style(self, name: str, future: bool, cursor: bool) -> Style:
        key = f"{name}|{future}|{cursor}"
        style = self._styles.get(key)
        if style is None:
            style = self._style(name) if name else Style()
            if future:
                style = style + Style(dim=True)
            if cursor:
                style = style + self._style("cursor")
            self._styles[key] = style
        return style

    def get_content_height(self, container: Any, viewport: Any, width: int) -> int:
        lanes = min(MAX_LANES, len(self.controller.first_position))
        more = 1 if len(self.controller.first_position) > MAX_LANES else 0
        return 2 + lanes + more


def _append_runs(line: Text, cells: list[tuple[str, Style]]) -> None:
    """Append cells, one span per run of equal style (a lane is mostly long runs)."""
    run: list[str] = []
    style: Style | None = None
    for glyph, cell_style in cells:
        if cell_style is not style and cell_style != style:
            if run:
                line.append("".join(run), style=style)
            run, style = [], cell_style
        run.append(glyph)
    if run:
        line.append("".join(run), style=style)
