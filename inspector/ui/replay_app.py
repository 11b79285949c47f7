"""``a2a-inspect replay FILE`` in the terminal UI: the inspector app driven by a
``ReplayController`` (replay.py), with the replay keys bound app-wide."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

from textual.binding import Binding

from ..session import Recording, RecordingError
from ..session.index import RecordingIndex
from ..textsafe import visible
from .app import InspectorApp
from .connection import AgentConnection
from .replay import ReplayController

#: Problems listed in the start-up notification (all of them are in ctrl+e).
PROBLEMS_SHOWN = 4
#: open_replay indexes this much of a recording before the first frame: a recording no
#: bigger opens at its end; a bigger one at its first event, the rest indexed in the
#: background. Decided by size, not by a clock, so that the same file always opens the
#: same way. 2 MiB takes 0.05-0.1 s on a quiet 2-core machine (20-40 MB/s: artifact
#: chunks, status messages), well inside the first frame's budget.
SYNC_INDEX_BYTES = 2 << 20


class ReplayApp(InspectorApp):
    """The inspector on a recording. The timeline's keys work from anywhere the focused
    widget does not use them (the timeline itself, when focused, always takes them)."""

    BINDINGS = [
        *InspectorApp.BINDINGS,
        # Off the footer, which must fit 80 columns beside each view's keys: the timeline's
        # own footer (f7) and F1 show it.
        Binding("space", "replay('toggle')", "Play/Pause", show=False),
        Binding("right", "replay('step', 1)", "Step", show=False),
        Binding("left", "replay('step', -1)", "Step back", show=False),
        Binding("shift+right", "replay('state', 1)", "Next state change", show=False),
        Binding("shift+left", "replay('state', -1)", "Previous state change", show=False),
        Binding("plus,equals_sign", "replay('faster')", "Faster", show=False, key_display="+"),
        Binding("minus", "replay('slower')", "Slower", show=False),
        Binding("home", "replay('home')", "Replay start", show=False),
        Binding("end", "replay('end')", "Replay end", show=False),
        Binding("g", "replay('goto')", "Go to event", show=False),
        Binding("f7", "replay('focus')", "Timeline", show=False),
    ]

    def __init__(
        self, controller: ReplayController, *, problems: list[tuple[str, str]] | None = None, **kwargs: Any
    ) -> None:
        super().__init__(replay=controller.conn, **kwargs)
        #: The replay_bar finds its controller here (the main screen mounts it when set).
        self.replay_controller = controller
        #: (title, text) notifications to show once the screen is up.
        self.replay_problems = list(problems or [])
        #: Start the recording's index in a background thread after the first frame.
        self.index_in_background = False
        controller.on_swap = self._swap_connection
        controller.on_facts = self._facts_changed
        controller.on_loaded = self._loaded

    def on_mount(self) -> None:
        # (Textual calls InspectorApp.on_mount too, after this one: it opens the connection
        # and pushes the main screen, after the first frame and at once respectively.)
        self.title = f"a2a-inspect replay · {self.replay_controller.name}"
        self.call_after_first_frame(self._started)

    async def on_unmount(self) -> None:
        await super().on_unmount()
        recording = self.replay_controller.recording
        if isinstance(recording, RecordingIndex):
            recording.close()

    def record_problems(self, path: Path, index: RecordingIndex) -> None:
        if index.problems:
            detail = "\n".join(f"line {p.line}: {visible(p.message)}" for p in index.problems)
            self.errors.append((time.time(), f"problems reading {path.name}", detail))

    def _loaded(self) -> None:
        """The background index has read the whole file: what it found, said once."""
        recording = self.replay_controller.recording
        if not isinstance(recording, RecordingIndex):
            return
        for title, text in problem_notifications(recording.path, recording):
            self.notify(text, title=title, severity="warning", timeout=10, markup=False)
        self.record_problems(recording.path, recording)

    def _started(self) -> None:
        recording = self.replay_controller.recording
        if self.index_in_background and isinstance(recording, RecordingIndex):
            # After the first frame: the index must not hold it back.
            self.call_after_refresh(recording.start)
        # After InspectorApp.on_mount: the main screen is up to show these.
        for title, text in self.replay_problems:
            self.notify(text, title=title, severity="warning", timeout=10, markup=False)
        self.call_after_refresh(self._focus_bar)

    def _focus_bar(self) -> None:
        bar = self._bar()
        if bar is not None:
            bar.focus()

    def _bar(self) -> Any:
        from .widgets.replay_bar import ReplayBar

        main = self.main
        if main is None:
            return None
        try:
            return main.query_one(ReplayBar)
        except Exception:
            return None

    def action_replay(self, op: str, arg: int = 0) -> None:
        bar = self._bar()
        if bar is not None:
            bar.command(op, arg)

    def _facts_changed(self, conn: AgentConnection) -> None:
        from .messages import ConnectionChanged

        if conn in self.connections:
            # The events go out first (as they would have live, the card before the
            # dialect note): views that react to new tasks must see them as news.
            self._flush_frame()
            self.to_main(ConnectionChanged(conn))

    def _swap_connection(self, old: AgentConnection, new: AgentConnection) -> None:
        """Install a rebuilt connection in place of ``old``: the views redraw from scratch."""
        from .messages import ConnectionChanged

        controller = self.replay_controller
        if self.replay is old:
            self.replay = new  # not opened yet (the app opens it after the first frame)
        self.pump.unwatch(old)
        if old not in self.connections or self.main is None:
            # The user closed the recording's connection: nothing shows it.
            controller.settled()
            return
        self.connections[self.connections.index(old)] = new
        self.pump.watch(new)
        if self.active is old:
            task_id = self.task_id
            self.active = new  # posts ConnectionChanged; clears the task selection
            if task_id is not None and task_id in new.tracker.tasks:
                # Quietly keep the task in view (no TaskSelected: that would pin it in
                # the tasks list, which otherwise follows the newest task as live does).
                self.task_id = task_id
        else:
            self.to_main(ConnectionChanged(new))  # another agent is active: lists update
        # Runs after the screen has handled the ConnectionChanged posted above.
        self.main.call_later(controller.settled)


# ---------------------------------------------------------------------- entry point


def problem_notifications(path: Path, recording: Recording | RecordingIndex) -> list[tuple[str, str]]:
    """What to tell the user about a damaged recording: (title, text) pairs."""
    out: list[tuple[str, str]] = []
    problems = list(recording.problems)
    if recording.truncated:
        count = recording.count if isinstance(recording, RecordingIndex) else len(recording.session)
        out.append(
            (
                "recording cut off",
                f"{path.name} ends in an incomplete line (the recording process was killed?): "
                f"that event is lost; the {count} complete events replay.",
            )
        )
        problems = [p for p in problems if not p.message.startswith("incomplete last line")]
    if problems:
        lines = [f"line {p.line}: {visible(p.message, single_line=True)[:160]}" for p in problems[:PROBLEMS_SHOWN]]
        if len(problems) > PROBLEMS_SHOWN:
            lines.append(f"… and {len(problems) - PROBLEMS_SHOWN} more (ctrl+e)")
        out.append((f"{len(problems)} problem(s) reading {path.name}", "\n".join(lines)))
    return out


def open_replay(path: Path, *, background: bool = True, **app_kwargs: Any) -> ReplayApp:
    """Open ``path`` and build the app (not run). Raises OSError or RecordingError.

    The first SYNC_INDEX_BYTES of the recording are indexed now: a recording no bigger
    opens at its end; a bigger one opens at its first event while the index goes on in
    a background thread after the first frame (``background`` False: it does not go on
    by itself, for tests that drive ``scan``)."""
    index = RecordingIndex(path)
    index.scan(SYNC_INDEX_BYTES)
    if index.size <= SYNC_INDEX_BYTES:
        # All of it was read: this finds the end (and only a file still being written
        # to has more, which the background pass then reads).
        index.scan(SYNC_INDEX_BYTES)
    controller = ReplayController(index, name=path.name)
    app = ReplayApp(controller, problems=problem_notifications(path, index) if index.done else [], **app_kwargs)
    if index.done:
        app.record_problems(path, index)
    elif background:
        app.index_in_background = True
    return app


def launch_replay(path: Path) -> int:
    """``a2a-inspect replay FILE``: 0 after a normal quit, 2 when the file cannot be
    replayed (missing, unreadable, not a recording), said in one line on stderr."""
    path = Path(path)
    try:
        app = open_replay(path)
    except RecordingError as exc:
        print(f"a2a-inspect: {visible(str(exc), single_line=True)}", file=sys.stderr)
        return 2
    except OSError as exc:
        reason = exc.strerror or str(exc)
        print(f"a2a-inspect: cannot open {path}: {reason}", file=sys.stderr)
        return 2
    result = app.run()
    return result if isinstance(result, int) else 0
