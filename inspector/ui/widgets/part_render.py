"""Message and artifact parts as Rich ``Text``: literal, never markup.

Text parts are shown as sent (escape sequences made visible), data parts as pretty
JSON, file parts as one summary line (name, mime, size or URI).
"""

from __future__ import annotations

from typing import Any

from rich.style import Style
from rich.text import Text

from ...textsafe import visible
from .formatting import data_json, file_summary

FILE_MARK = "▤ "
DATA_MARK = "{} "


def part_text(part: Any, *, meta: Style | None = None) -> Text:
    """One part as a Text. ``meta`` styles the labels the inspector adds (not agent data)."""
    from ...protocol.models import DataPart, FilePart, TextPart

    meta = meta or Style(dim=True)
    if isinstance(part, TextPart):
        return Text(visible(part.text))
    if isinstance(part, DataPart):
        text = Text()
        text.append(DATA_MARK + "data\n", style=meta)
        text.append(data_json(part.data))
        return text
    if isinstance(part, FilePart):
        text = Text()
        text.append(FILE_MARK + "file ", style=meta)
        text.append(file_summary(part.file))
        return text
    return Text(visible(repr(part)))


def parts_text(parts: list[Any], *, meta: Style | None = None) -> Text:
    """A message's parts, one per paragraph."""
    out = Text()
    for i, part in enumerate(parts):
        if i:
            out.append("\n")
        out.append_text(part_text(part, meta=meta))
    return out
