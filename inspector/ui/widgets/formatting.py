"""Small, pure formatting helpers shared by the task views (no Textual import).

Everything an agent supplied goes through :func:`inspector.textsafe.visible` here or at
the call site; these helpers return plain strings, never markup.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import TYPE_CHECKING, Any

from ...protocol.sizes import base64_size, format_size
from ...textsafe import visible

if TYPE_CHECKING:
    from ...protocol.models import FileContent
    from ...session.tracker import Remark


def format_duration(seconds: float | None) -> str:
    """``12ms``, ``1.20s``, ``12.3s``, ``2m03s``, ``1h02m``; ``—`` for None."""
    if seconds is None:
        return "—"
    if seconds < 0:
        seconds = 0.0
    if seconds < 1:
        return f"{seconds * 1000:.0f}ms"
    if seconds < 10:
        return f"{seconds:.2f}s"
    if seconds < 60:
        return f"{seconds:.1f}s"
    if seconds < 3600:
        minutes, secs = divmod(int(seconds), 60)
        return f"{minutes}m{secs:02d}s"
    hours, rest = divmod(int(seconds), 3600)
    return f"{hours}h{rest // 60:02d}m"


def cut_limit(cut: Remark) -> str:
    """The limit a stream was cut at (a CUT remark), in its words: ``more than 100
    events and comments (--max-stream-events)``."""
    # A recording made before the words were kept may have none.
    return visible(cut.text, single_line=True)[:200] if cut.text else "one of a2a-inspect's limits"


def cut_words(cut: Remark) -> str:
    """What a task view says of a stream cut at a limit: ``stream cut: more than ...``."""
    return f"stream cut: {cut_limit(cut)}"


def format_offset(seconds: float) -> str:
    """A time relative to a task's start: ``+0ms``, ``+1.20s``, ``+2m03s``."""
    return "+" + format_duration(seconds)


def format_age(seconds: float) -> str:
    """A coarse age for lists: ``4s``, ``12m``, ``3h``, ``2d`` (stable between frames)."""
    seconds = max(0, int(seconds))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m"
    if seconds < 86400:
        return f"{seconds // 3600}h"
    return f"{seconds // 86400}d"


def short_id(task_id: str, width: int = 8) -> str:
    """The first ``width`` characters of an id, made visible (ids are agent data)."""
    text = visible(task_id, single_line=True)
    return text if len(text) <= width else text[:width] + "…"


def decode_base64(data: str) -> bytes:
    """Decode a file part's bytes: standard base64, tolerating missing padding, line
    breaks and the URL-safe alphabet. ``ValueError`` says what is wrong."""
    compact = "".join(data.split())
    compact += "=" * (-len(compact) % 4)
    try:
        return base64.b64decode(compact, validate=True)
    except (binascii.Error, ValueError):
        pass
    try:
        return base64.b64decode(compact, altchars=b"-_", validate=True)
    except (binascii.Error, ValueError):
        raise ValueError("the file part's bytes are not valid base64") from None


def file_summary(file: FileContent) -> str:
    """One line: name · mime · size (inline bytes) or URI. Agent data, made visible."""
    bits = [visible(file.name, single_line=True) if file.name else "(unnamed)"]
    if file.mime_type:
        bits.append(visible(file.mime_type, single_line=True))
    if file.bytes is not None:
        bits.append(format_size(base64_size(file.bytes)))
    if file.uri is not None:
        bits.append(visible(file.uri, single_line=True))
    if file.bytes is None and file.uri is None:
        bits.append("no content")
    return " · ".join(bits)


def data_json(data: Any) -> str:
    """A data part as pretty JSON, with escapes in strings kept visible."""
    try:
        text = json.dumps(data, indent=2, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        text = repr(data)
    return visible(text)
