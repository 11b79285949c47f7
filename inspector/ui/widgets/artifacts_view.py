"""The selected task's artifacts, assembled live, with a per-chunk view."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Static

from ..messages import OpenModal
from .artifact_document import ArtifactDocument
from .base import SelectedTaskView
from .chunk_table import ChunkTable

if TYPE_CHECKING:
    from ...session import Event
    from ...session.tracker import TaskView
    from ..connection import AgentConnection


class ArtifactsView(SelectedTaskView, Vertical):
    """The selected task's artifacts as they are assembled, chunk by chunk. The summary
    line says when the task's stream was cut at a limit; each open artifact's info row
    says at which.

    The parts view (:class:`ArtifactDocument`) shows every artifact: text runs wrap and
    grow in place, data parts are pretty JSON, file parts are one line each (``f``
    selects one, ``s`` saves it under a safe name). ``t`` switches to a table of every
    chunk (artifact, append, lastChunk, size, time). Updates come once per frame and only
    add what is new, so thousands of chunks a second stay cheap.

    BINDINGS:
        t: toggle the per-chunk table.
        s: save the selected file part (see ArtifactDocument for f / shift+f).
    """

    BINDINGS = [
        Binding("t", "toggle_chunks", "Chunks"),
        Binding("s", "save", "Save file"),
    ]

    DEFAULT_CSS = """
    ArtifactsView {
        & > #artifacts-summary { height: 1; padding: 0 1; color: $foreground-muted;
                                 background: $panel; }
        & > ArtifactDocument { height: 1fr; padding-left: 1; }
        & > ChunkTable { display: none; }
        &.-chunks > ArtifactDocument { display: none; }
        &.-chunks > ChunkTable { display: block; }
    }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._conn: AgentConnection | None = None
        self._task_id: str | None = None
        self._summary_key: tuple[Any, ...] | None = None

    def compose(self) -> ComposeResult:
        yield Static(Text("artifacts"), id="artifacts-summary")
        yield ArtifactDocument(id="artifact-parts")
        yield ChunkTable(id="artifact-chunks")

    # ------------------------------------------------------------------ ConnectionView

    def session_advanced(self, conn: AgentConnection, events: list[Event], changed: set[str]) -> None:
        if conn is self._conn and self._task_id in changed:
            self._sync()

    # ------------------------------------------------------------------ state

    @property
    def task_view(self) -> TaskView | None:
        """The task shown (Textual's ``task`` is the widget's asyncio task)."""
        if self._conn is None or self._task_id is None:
            return None
        return self._conn.tracker.task(self._task_id)

    @property
    def document(self) -> ArtifactDocument:
        return self.query_one(ArtifactDocument)

    @property
    def chunk_table(self) -> ChunkTable:
        return self.query_one(ChunkTable)

    @property
    def showing_chunks(self) -> bool:
        return self.has_class("-chunks")

    def text_of(self, key: str) -> str | None:
        """The text an artifact shows (escapes visible), or None if it is not shown."""
        section = self.document.sections.get(key)
        return section.text if section is not None else None

    def _reset(self) -> None:
        self.document.clear()
        self.chunk_table.reset()
        self._summary_key = None
        self._sync()

    def _sync(self) -> None:
        task = self.task_view
        if task is not None:
            self.document.sync(task)
            if self.showing_chunks:
                self.chunk_table.sync(task)
        self._summarise(task)

    def _summarise(self, task: TaskView | None) -> None:
        if task is None:
            key: tuple[Any, ...] = (None, self._conn is None)
        else:
            key = (
                len(task.artifacts),
                sum(len(a.chunks) for a in task.artifacts.values()),
                self.showing_chunks,
                bool(self.document.file_parts),
                task.cut is not None,
            )
        if key == self._summary_key:
            return
        self._summary_key = key
        if task is None:
            text = "no agent connected" if self._conn is None else "no task selected"
        else:
            n, chunks, table, files, cut = key
            text = f"{n} artifact{'s' if n != 1 else ''} · {chunks} chunk{'s' if chunks != 1 else ''}"
            if cut:
                # Always in sight, where the artifacts' own info rows may have scrolled off.
                text += " · stream cut"
            text += " · t parts" if table else " · t table"
            if files:
                text += " · f file · s save"
        # One line, full width: its size never depends on the text, so skip the layout.
        self.query_one("#artifacts-summary", Static).update(Text(text), layout=False)

    # ------------------------------------------------------------------ actions

    def action_toggle_chunks(self) -> None:
        showing = not self.showing_chunks
        self.set_class(showing, "-chunks")
        if showing:
            self.chunk_table.sync(self.task_view)
            self.chunk_table.focus()
        else:
            self.document.focus()
        self._summary_key = None
        self._summarise(self.task_view)

    def action_save(self) -> None:
        if self.showing_chunks:
            self.action_toggle_chunks()
        self.document.action_save()

    @on(ArtifactDocument.SaveRequested)
    def _save(self, event: ArtifactDocument.SaveRequested) -> None:
        event.stop()

        def saved(path: Path | None) -> None:
            if path is not None:
                self.notify(f"saved {path}", title="file saved", markup=False)

        self.post_message(OpenModal("save_file", event.part.file, done=saved))
