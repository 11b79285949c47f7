"""A task's or an artifact's ``metadata``, as rows a person reads: one row a key, its
value as compact JSON (a string as itself), every row one visible line.

The metadata is the agent's (Society AI's ``requester``, ``executor``, ``skill_used``,
``cost``, seed 001), so it is bounded like all agent text: at most ``MAX_KEYS`` rows, each
value cut to the width given, and a value is encoded only as far as the row shows it
(a 10 MB value costs what its first row costs).
"""

from __future__ import annotations

import json
from typing import Any

from ..textsafe import shorten

#: Rows shown before "… N more keys": metadata is a glance, the JSON output has it whole.
MAX_KEYS = 12
#: The key of the last row when some keys are not shown.
MORE = "…"
#: Widest a key is shown.
KEY_WIDTH = 24

_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(", ", ": "), check_circular=False, default=str)


def compact_value(value: Any, width: int) -> str:
    """``value`` as one visible line of at most ``width`` characters."""
    if isinstance(value, str):
        return shorten(value, width)
    out: list[str] = []
    size = 0
    for piece in _ENCODER.iterencode(value):
        out.append(piece)
        size += len(piece)
        if size > width:
            break
    return shorten("".join(out), width)


def metadata_rows(metadata: Any, width: int = 200, max_keys: int = MAX_KEYS) -> list[tuple[str, str]]:
    """``(key, value)`` rows of a metadata object, the value at most ``width`` characters;
    a last row ``(MORE, "N more keys")`` when there are more than ``max_keys``. A
    metadata that is not an object (an agent's mistake) is one row with an empty key."""
    if metadata is None:
        return []
    if not isinstance(metadata, dict):
        return [("", compact_value(metadata, width))]
    rows: list[tuple[str, str]] = []
    for i, (key, value) in enumerate(metadata.items()):
        if i == max_keys:
            more = len(metadata) - max_keys
            rows.append((MORE, f"{more} more key{'s' if more != 1 else ''}"))
            break
        rows.append((shorten(str(key), KEY_WIDTH), compact_value(value, width)))
    return rows


def metadata_lines(metadata: Any, indent: str, width: int = 200) -> list[str]:
    """The rows as aligned ``key  value`` lines, each starting with ``indent``."""
    rows = metadata_rows(metadata, width)
    pad = max((len(k) for k, _ in rows if k != MORE), default=0)
    lines = []
    for key, value in rows:
        if key == MORE or not key:
            lines.append(f"{indent}{key} {value}" if key else f"{indent}{value}")
        else:
            lines.append(f"{indent}{key:<{pad}}  {value}")
    return lines
