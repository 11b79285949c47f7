"""The composer's parts: the text part, file and data parts, and the message metadata,
one row each."""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual.binding import Binding
from textual.content import Content
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from ...protocol.sizes import base64_size, format_size
from ...textsafe import shorten

if TYPE_CHECKING:
    from ...protocol import models as m

TEXT_ROW = "text"
META_ROW = "message-metadata"


def file_size(part: m.FilePart) -> int | None:
    data = part.file.bytes
    return None if data is None else base64_size(data)


def describe_json(value: Any) -> str:
    if isinstance(value, dict):
        kind = f"object, {len(value)} key{'s' if len(value) != 1 else ''}"
    elif isinstance(value, list):
        kind = f"array, {len(value)} item{'s' if len(value) != 1 else ''}"
    else:
        kind = type(value).__name__ if value is not None else "null"
    size = len(json.dumps(value, ensure_ascii=False, separators=(",", ":")))
    return f"{kind} · {format_size(size)}"


def _meta(metadata: dict[str, Any] | None) -> tuple[str, str]:
    if not metadata:
        return ("", "")
    return (f" · meta {len(metadata)} key{'s' if len(metadata) != 1 else ''}", "$secondary")


def part_row(part: Any) -> Content:
    """One line about a file or data part: what it is, how big, how it travels."""
    from ...protocol import models as m

    if isinstance(part, m.FilePart):
        f = part.file
        size = file_size(part)
        how = f"bytes {format_size(size)}" if size is not None else f"uri {shorten(f.uri or '', 40)}"
        return Content.assemble(
            ("file ", "bold $accent"),
            (shorten(f.name or "(unnamed)", 30), "bold"),
            f" · {shorten(f.mime_type or '?', 30)} · {how}",
            _meta(part.metadata),
        )
    if isinstance(part, m.DataPart):
        return Content.assemble(
            ("data ", "bold $accent"),
            describe_json(part.data),
            " · ",
            (shorten(json.dumps(part.data, ensure_ascii=False), 40), "$foreground-muted"),
            _meta(part.metadata),
        )
    return Content(shorten(repr(part), 60))


def decoded_bytes(part: m.FilePart) -> bytes | None:
    """The inline content of a file part (tests and previews)."""
    return base64.b64decode(part.file.bytes) if part.file.bytes is not None else None


class PartList(OptionList):
    """The message being composed, part by part.

    BINDINGS: enter edits the highlighted row (text: back to the text box; file: pick
    again; data: edit its JSON; message metadata: edit it), m edits the part's metadata,
    delete / backspace removes a file or data part.
    """

    DEFAULT_CSS = """
    PartList {
        height: auto;
        max-height: 6;
        border: none;
        padding: 0;
        background: transparent;
        &:focus { background-tint: $foreground 5%; }
    }
    """
    BINDINGS = [
        Binding("m", "metadata", "Part metadata"),
        Binding("delete,backspace", "remove", "Remove part"),
    ]

    @dataclass
    class Edit(Message):
        """Edit the row's content (``row`` is "text", "message-metadata" or a part index)."""

        part_list: PartList
        row: str | int

        @property
        def control(self) -> PartList:
            return self.part_list

    @dataclass
    class EditMetadata(Message):
        """Edit the metadata of the row's part (the text part's too)."""

        part_list: PartList
        row: str | int

        @property
        def control(self) -> PartList:
            return self.part_list

    @dataclass
    class Remove(Message):
        """Remove the part at ``index`` (of the file and data parts)."""

        part_list: PartList
        index: int

        @property
        def control(self) -> PartList:
            return self.part_list

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(markup=False, compact=True, **kwargs)

    def show(
        self, text: str, text_metadata: dict[str, Any] | None, parts: list[Any], message_metadata: dict[str, Any] | None
    ) -> None:
        """Redraw the rows, keeping the highlight where it was."""
        highlighted = self.highlighted
        lines = text.count("\n") + 1 if text else 0
        options = [
            Option(
                Content.assemble(
                    ("text ", "bold $accent"),
                    f"{len(text)} chars, {lines} line{'s' if lines != 1 else ''}",
                    _meta(text_metadata),
                ),
                id=TEXT_ROW,
            )
        ]
        for i, part in enumerate(parts):
            options.append(Option(part_row(part), id=f"part-{i}"))
        meta = (
            (
                f"{len(message_metadata)} key{'s' if len(message_metadata) != 1 else ''}: "
                + shorten(json.dumps(message_metadata, ensure_ascii=False), 40)
            )
            if message_metadata
            else "none"
        )
        options.append(
            Option(
                Content.assemble(
                    ("message metadata ", "bold $accent"), (meta, "$foreground-muted" if not message_metadata else "")
                ),
                id=META_ROW,
            )
        )
        self.set_options(options)
        if highlighted is not None and self.option_count:
            self.highlighted = min(highlighted, self.option_count - 1)

    def row(self) -> str | int | None:
        option = self.highlighted_option
        if option is None or option.id is None:
            return None
        if option.id.startswith("part-"):
            return int(option.id[5:])
        return option.id

    def _on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        row = self.row()
        if row is not None:
            self.post_message(self.Edit(self, row))

    def action_metadata(self) -> None:
        row = self.row()
        if row is not None:
            self.post_message(self.EditMetadata(self, row))

    def action_remove(self) -> None:
        row = self.row()
        if isinstance(row, int):
            self.post_message(self.Remove(self, row))
        else:
            self.app.notify("only file and data parts can be removed", severity="warning")
