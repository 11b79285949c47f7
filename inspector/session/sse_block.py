"""The fields of one SSE block, read from its raw text.

The client's parser (inspector/client/sse.py) and the event log both read a block with
this function: the log keeps only an event's raw text and derives ``data``, ``event``,
``id`` and ``retry`` again when a view asks, so both must read a block the same way.
"""

from __future__ import annotations

from typing import Any


def block_fields(text: str, comments: list[str] | None = None) -> tuple[Any, ...]:
    """(event, data, id, retry, has_field) of a block's text, as the SSE spec reads them:
    data lines joined with "\\n" (None without any), the last ``event``/``id``/``retry``
    (an id holding NUL and a retry that is not all digits are ignored), and whether any
    field line was present. Comment lines (text after the colon) go to ``comments``."""
    if "\n" not in text and "\r" not in text:
        lines = [text]
    elif "\r" in text:
        lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    else:
        lines = text.split("\n")
    event = id_ = retry = None
    data: list[str] | None = None
    has_field = False
    for line in lines:
        if not line:
            continue
        if line[0] == ":":
            if comments is not None:
                comments.append(line[1:])
            continue
        has_field = True
        name, colon, value = line.partition(":")
        if colon and value[:1] == " ":
            value = value[1:]
        if name == "data":
            if data is None:
                data = [value]
            else:
                data.append(value)
        elif name == "event":
            event = value
        elif name == "id":
            if "\0" not in value:
                id_ = value
        elif name == "retry":
            if value.isascii() and value.isdigit():
                retry = int(value)
        # Other field names are ignored, as the spec says; they stay in the raw text.
    return event, None if data is None else "\n".join(data), id_, retry, has_field


def sse_data(raw: str) -> dict[str, Any]:
    """The ``data`` dict of a complete, UTF-8 SSE event logged from ``raw``."""
    if raw.startswith("data:") and "\n" not in raw and "\r" not in raw:
        # The common case: one data line.
        return {"raw": raw, "event": None, "data": raw[6:] if raw[5:6] == " " else raw[5:], "id": None, "retry": None}
    event, data, id_, retry, _ = block_fields(raw)
    return {"raw": raw, "event": event, "data": data, "id": id_, "retry": retry}
