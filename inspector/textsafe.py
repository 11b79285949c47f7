"""Agent-supplied text is data: make it safe to put on a terminal, without interpreting it.

Control characters and escape sequences become visible escapes (``\\x1b``), bidi
overrides become ``\\u202e``; newlines and tabs stay as they are unless ``single_line``.
Rich/Textual markup needs no treatment here: callers that render through Rich use
``rich.text.Text`` (never markup strings), and plain prints show ``[bold]`` as typed.
"""

from __future__ import annotations

import re

# C0 controls except \t \n, DEL, C1 controls, and the Unicode bidi/isolate overrides that
# can make a terminal display text in an order other than the bytes, and the Unicode
# line/paragraph separators (U+2028/9) that split lines where no newline was sent.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")
_UNSAFE_LINE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}


def _escape(match: re.Match[str]) -> str:
    ch = match.group()
    if ch in _NAMED:
        return _NAMED[ch]
    code = ord(ch)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def visible(text: str, *, single_line: bool = False) -> str:
    """``text`` with every control character made visible. Idempotent on safe text."""
    pattern = _UNSAFE_LINE if single_line else _UNSAFE
    if pattern.search(text) is None:
        return text
    return pattern.sub(_escape, text)


def shorten(text: str, width: int) -> str:
    """One visible line of at most ``width`` characters."""
    line = visible(text, single_line=True)
    return line if len(line) <= width else line[: max(0, width - 1)] + "…"
