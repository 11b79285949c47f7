"""A task's artifacts as one scrolling document, drawn a visible row at a time."""

from __future__ import annotations

from bisect import bisect_right
from typing import TYPE_CHECKING, Any, ClassVar

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from ...headless.metadata_text import metadata_lines
from ...protocol.sizes import format_size
from ...textsafe import visible
from .base import ComponentStyles, LineBase
from .formatting import cut_words, data_json, file_summary
from .scrolling import set_virtual_size
from .wrap import WINDOW, WrappedText, cells

if TYPE_CHECKING:
    from ...protocol.models import FilePart
    from ...session.parts import PartList
    from ...session.tracker import ArtifactView, Remark, TaskView

FILE_MARK = "▤ "


class _Block:
    """A run of rows in one style: a heading, a text run, a data part, a file part.
    A text run also knows where its text starts in the artifact's assembled text."""

    __slots__ = ("kind", "body", "part", "base")

    def __init__(self, kind: str, text: str = "", part: Any = None, base: int = 0) -> None:
        self.kind = kind
        self.body = WrappedText(text)
        self.part = part
        self.base = base


def _info(art: ArtifactView, cut: Remark | None = None) -> str:
    """``cut``: the task's stream was cut at a limit (TaskView.cut): an open artifact
    is no longer streaming."""
    n = len(art.chunks)
    bits = [f"{n} chunk{'s' if n != 1 else ''}" if n else "from a task snapshot", format_size(art.size)]
    if art.chunked:
        bits.append("complete" if art.closed else cut_words(cut) if cut is not None else "streaming…")
    info = " · ".join(bits)
    if art.description:
        info += "\n" + visible(art.description)
    # The agent's metadata, a row a key and cut short: a glance (-o json has it whole).
    rows = metadata_lines(art.metadata, "  ", width=120)
    if rows:
        info += "\nmetadata\n" + "\n".join(rows)
    return info


def _title(art: ArtifactView) -> str:
    key = visible(art.key, single_line=True)
    name = visible(art.name, single_line=True) if art.name else None
    return f"{name}  ({key})" if name and name != key else key


class _Section:
    """One artifact: its title and info rows, then its parts. ``sync`` adds only the
    parts that arrived since the last call; text parts in a row join one text run.

    A text run reads its text from the tracker's assembled text (``PartList.slice``,
    which costs what it returns), so the artifact's text is held once: the run keeps
    only its rows. A run that shows text other than as sent (escapes made visible,
    tabs expanded) keeps its own copy, and hands it over once the artifact is complete
    if it turns out to be what the tracker holds after all."""

    def __init__(self, art: ArtifactView) -> None:
        self.key = art.key
        self.title = _Block("title", _title(art))
        self.info = _Block("info", _info(art))
        self.blocks: list[_Block] = []
        self._parts: PartList | None = None
        self._count = 0
        self._seen: tuple[Any, ...] | None = None
        self._text: _Block | None = None
        #: Characters of text parts so far: where the next text run starts in art.text().
        self._raw = 0
        self._shared = False

    @property
    def text(self) -> str:
        """The text parts as shown (escapes visible), joined."""
        return "".join(b.body.text for b in self.blocks if b.kind == "text")

    def sync(self, art: ArtifactView, cut: Remark | None = None) -> tuple[bool, bool]:
        """(changed, blocks added or removed); ``cut``: see _info."""
        seen = (art.last_seq, len(art.parts), art.closed, art.name, cut, art.metadata)
        if seen == self._seen:
            return False, False
        self._seen = seen
        structure = False
        parts = art.parts
        if parts is not self._parts or len(parts) < self._count:
            structure = bool(self.blocks)
            self.blocks, self._text, self._count = [], None, 0
            self._raw, self._shared = 0, False
            self._parts = parts
        from ...protocol.models import TextPart
        from ...session.parts import PartList

        if isinstance(parts, PartList):
            # Text runs as spans of the tracker's text, appended a window at a time: an
            # artifact of a million chunks shown again (another task, then back) built a
            # part and a string a chunk and the whole text twice over, some 300 MB.
            for piece in parts.spans(self._count, len(parts)):
                if piece.__class__ is tuple:
                    a, b = piece
                    for w in range(a, b, WINDOW):
                        structure = self._flush([parts.slice(w, min(b, w + WINDOW))], parts) or structure
                else:
                    structure = self._other(piece, parts) or structure
        else:
            pending: list[str] = []
            for part in parts[self._count :]:
                if isinstance(part, TextPart):
                    pending.append(part.text)
                    continue
                self._flush(pending, parts)
                pending = []
                structure = self._other(part, parts) or structure
            structure = self._flush(pending, parts) or structure
        self._count = len(parts)
        title = _title(art)
        if self.title.body.text != title:
            self.title.body = WrappedText(title)
        self.info.body = WrappedText(_info(art, cut))
        if art.closed and not self._shared:
            self._shared = True
            for block in self.blocks:
                if block.kind == "text":
                    block.body.adopt(parts.slice, block.base)
        return True, structure

    def _other(self, part: Any, parts: Any) -> bool:
        """A part that is not in a text run of ``parts``' own text: a block of its own."""
        from ...protocol.models import DataPart, FilePart, TextPart

        if isinstance(part, TextPart):
            return self._flush([part.text], parts)
        self._text = None
        if isinstance(part, FilePart):
            self.blocks.append(_Block("file", FILE_MARK + file_summary(part.file), part))
        elif isinstance(part, DataPart):
            self.blocks.append(_Block("data", data_json(part.data)))
        else:
            self.blocks.append(_Block("text", repr(part)))
        return True

    def _flush(self, pending: list[str], parts: Any) -> bool:
        if not pending:
            return False
        text = self._text
        created = text is None
        if text is None:
            from ...session.parts import PartList

            text = self._text = _Block("text", base=self._raw)
            if isinstance(parts, PartList):
                text.body.follow(parts.slice, self._raw)
            self.blocks.append(text)
        joined = "".join(pending)
        self._raw += len(joined)
        text.body.append(joined)
        return created


class ArtifactDocument(LineBase, ComponentStyles, ScrollView, can_focus=True):
    """Every artifact of a task, one after the other: a title row, an info row (chunks,
    size, complete, still streaming, or its stream cut at a limit), then the parts: text runs wrapped, data parts as
    pretty JSON, file parts as one line each. Agent text is shown literally.

    Only rows on screen are drawn and chunks are appended to the last row, so a stream
    of thousands of chunks a second, or an artifact of megabytes, costs what is new.
    The view follows the end while you are at the end.

    BINDINGS:
        f / shift+f: select the next / previous file part.
        s / enter: save the selected file part (with only one, that one).
        up / down, pageup / pagedown, home / end: scroll.

    COMPONENT_CLASSES:
        artifact-document--title, --info, --text, --data, --file, --selected, --hint.
    """

    STYLE_PREFIX = "artifact-document"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f", "select_file(1)", "Next file"),
        Binding("shift+f", "select_file(-1)", "Previous file", show=False),
        Binding("s", "save", "Save file"),
        Binding("enter", "save", "Save file", show=False),
    ]

    COMPONENT_CLASSES = {
        "artifact-document--title",
        "artifact-document--info",
        "artifact-document--text",
        "artifact-document--data",
        "artifact-document--file",
        "artifact-document--selected",
        "artifact-document--hint",
    }

    DEFAULT_CSS = """
    ArtifactDocument {
        scrollbar-gutter: stable;
        & > .artifact-document--title { text-style: bold; background: $panel; }
        & > .artifact-document--info { color: $foreground-muted; }
        & > .artifact-document--data { color: $text-secondary; }
        & > .artifact-document--file { color: $accent; }
        & > .artifact-document--selected { background: $block-cursor-blurred-background; }
        &:focus > .artifact-document--selected { background: $block-cursor-background;
                                                 color: $block-cursor-foreground; }
        & > .artifact-document--hint { color: $foreground-muted; }
    }
    """

    class SaveRequested(Message):
        """The user asked to save ``part`` (a file part with inline bytes)."""

        def __init__(self, document: ArtifactDocument, part: FilePart) -> None:
            super().__init__()
            self.document = document
            self.part = part

        @property
        def control(self) -> ArtifactDocument:
            return self.document

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._sections: dict[str, _Section] = {}
        self._flat: list[_Block] = []
        #: First row of each block in ``_flat`` (plus the total at the end).
        self._starts: list[int] = [0]
        self._width = 0
        self._selected: _Block | None = None
        self._following = True
        self._styles: dict[str, Style] = {}

    # ------------------------------------------------------------------ content

    @property
    def sections(self) -> dict[str, _Section]:
        return self._sections

    @property
    def file_parts(self) -> list[FilePart]:
        return [b.part for b in self._flat if b.kind == "file"]

    @property
    def selected_file(self) -> FilePart | None:
        return self._selected.part if self._selected is not None else None

    @property
    def row_count(self) -> int:
        return self._starts[-1]

    @property
    def plain(self) -> str:
        """Everything the document shows, unwrapped, one block a line (tests, copying)."""
        return "\n".join(block.body.text for block in self._flat)

    def clear(self) -> None:
        self._sections = {}
        self._flat = []
        self._starts = [0]
        self._selected = None
        self._following = True
        self.scroll_to(y=0, animate=False, immediate=True)
        self._relayout()

    def sync(self, task: TaskView | None) -> bool:
        """Show what the task's artifacts gained since the last call."""
        if task is None:
            return False
        changed = structure = False
        for key, art in task.artifacts.items():
            section = self._sections.get(key)
            if section is None:
                section = self._sections[key] = _Section(art)
                structure = True
            moved, added = section.sync(art, task.cut)
            changed = changed or moved
            structure = structure or added
        if structure:
            self._flatten()
        if changed or structure:
            self._relayout()
        return changed or structure

    def _flatten(self) -> None:
        flat: list[_Block] = []
        for i, section in enumerate(self._sections.values()):
            if i:
                flat.append(_Block("gap", ""))
            flat.append(section.title)
            flat.append(section.info)
            flat.extend(section.blocks)
        self._flat = flat
        if self._selected is not None and self._selected not in flat:
            self._selected = None

    def _relayout(self) -> None:
        width = self._width = self._content_width()
        following = self._following
        starts = [0]
        total = 0
        for block in self._flat:
            total += block.body.wrap(width) if width else block.body.row_count
            starts.append(total)
        self._starts = starts
        set_virtual_size(self, Size(width, total))
        self.refresh()
        if following:
            self.scroll_end(animate=False, immediate=False, x_axis=False)

    def _content_width(self) -> int:
        return max(1, self.scrollable_content_region.width) if self.size.width else 0

    # ------------------------------------------------------------------ events

    def on_resize(self, event: events.Resize) -> None:
        if self._content_width() != self._width:
            self._relayout()
        elif self._following:
            # Shorter (the state diagram above grew a row): the end moved down out of
            # sight with no new text to bring it back.
            self.scroll_end(animate=False, immediate=False, x_axis=False)

    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        self._following = new >= self.max_scroll_y

    # ------------------------------------------------------------------ drawing

    def render_line(self, y: int) -> Strip:
        width = self._line_width()
        base = self._line_base()
        row = int(self.scroll_y) + y
        if row >= self._starts[-1] or not self._flat:
            return Strip.blank(width, base)
        index = bisect_right(self._starts, row) - 1
        block = self._flat[index]
        text = block.body.row(row - self._starts[index])
        style = base + self._style(block.kind) if block.kind not in ("gap", "text") else base
        segments = [Segment(text, style)]
        length = cells(text)
        if block is self._selected:
            style = style + self._style("selected")
            segments = [Segment(text, style)]
            if row == self._starts[index] and block.part.file.bytes is not None:
                hint = "  s: save"
                if length + len(hint) <= width:
                    segments.append(Segment(hint, style + self._style("hint")))
                    length += len(hint)
            return Strip(segments, length).adjust_cell_length(width, style)
        if block.kind == "title":
            return Strip(segments, length).adjust_cell_length(width, style)
        return Strip(segments, length).adjust_cell_length(width, base)

    # ------------------------------------------------------------------ file parts

    def select_file(self, part: FilePart | None) -> None:
        block = next((b for b in self._flat if b.kind == "file" and b.part is part), None)
        self._selected = block
        self.refresh()
        if block is not None:
            index = self._flat.index(block)
            top = self._starts[index]
            self.scroll_to_region(Region(0, top, 1, self._starts[index + 1] - top), animate=False)

    def action_select_file(self, step: int) -> None:
        files = [b for b in self._flat if b.kind == "file"]
        if not files:
            self.notify("No file part in this task's artifacts.", severity="warning")
            return
        if self._selected in files:
            position = (files.index(self._selected) + step) % len(files)
        else:
            position = 0 if step > 0 else len(files) - 1
        self.select_file(files[position].part)

    def action_save(self) -> None:
        files = [b for b in self._flat if b.kind == "file"]
        if self._selected is None:
            if not files:
                self.notify("No file part in this task's artifacts.", severity="warning")
                return
            if len(files) > 1:
                self.select_file(files[0].part)
                self.notify(f"{len(files)} file parts: f selects the next one, s saves the selected one.")
                return
            self.select_file(files[0].part)
        if self._selected is None:  # (select_file selects the block of the part it is given)
            return
        part = self._selected.part
        file = part.file
        if file.bytes is None:
            uri = visible(file.uri or "(none)", single_line=True)
            self.notify(f"This file part is a URI, not inline bytes: {uri}", title="nothing to save", markup=False)
            return
        self.post_message(self.SaveRequested(self, part))

    def on_click(self, event: events.Click) -> None:
        row = int(self.scroll_y) + event.y
        if 0 <= row < self._starts[-1]:
            block = self._flat[bisect_right(self._starts, row) - 1]
            if block.kind == "file":
                self.select_file(block.part)
