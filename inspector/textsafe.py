"""Agent-supplied text is data: make it safe to put on a terminal, without interpreting it.

Control characters and escape sequences become visible escapes (``\\x1b``), bidi
overrides and invisible format characters (zero-width space, BOM, tags...) become
``\\u202e``, ``\\u200b``; newlines and tabs stay as they are unless ``single_line``.
Rich/Textual markup needs no treatment here: callers that render through Rich use
``rich.text.Text`` or Textual's ``Content`` (never markup strings), and plain prints show
``[bold]`` as typed. Where Textual takes nothing but a markup string (the command
palette's help), ``inspector.ui.commands.literal_markup`` escapes it.
"""

from __future__ import annotations

import regex

# C0 controls except \t \n, DEL, C1 controls, and the characters that render as
# nothing or move text around: Unicode's format characters (category Cf: bidi and
# isolate overrides, which can make a terminal display text in an order other than the
# bytes; zero-width space/non-joiner, word joiner, invisible operators, BOM, soft
# hyphen, interlinear annotation, hieroglyph and shorthand format controls, the tag
# characters used to smuggle invisible instructions) and the line/paragraph separators
# (U+2028/9) that split lines where no newline was sent. Taken from the `regex`
# package's Unicode tables, not from the running Python's `unicodedata`: the set is then
# the same on every Python (Python 3.11's Unicode 14 does not know U+13439-U+1343F,
# which 3.12's calls format controls) and as new as the newest of them.
# tests/test_invisible_text.py compares it with unicodedata on every Python it finds.
# The format characters that render visibly (the prepended concatenation marks, such as
# the Arabic number sign U+0600) are left alone, and so is the zero-width joiner: below.
#: A `regex` set (VERSION1 syntax, brackets included) to put inside a character class.
INVISIBLE = r"[[\p{Cf}\p{Zl}\p{Zp}]--[\p{Prepended_Concatenation_Mark}\u200d]]"
# Emoji pictographs (an approximation of Extended_Pictographic that covers every
# pictograph used in emoji ZWJ sequences) and, before a joiner, the emoji presentation
# selector; skin tone modifiers lie inside U+1F000-U+1FAFF.
_PICTO = (
    "\u00a9\u00ae\u203c\u2049\u2122\u2139\u2194-\u21aa\u231a-\u23ff\u24c2\u25aa-\u27bf"
    "\u2934\u2935\u2b05-\u2b55\u3030\u303d\u3297\u3299\U0001f000-\U0001faff"
)
# A zero-width joiner stays where it joins two pictographs into one emoji (woman, ZWJ,
# laptop: the technologist emoji): there
# it is visible as the joined glyph, and escaping it would break the emoji apart.
# Anywhere else it is invisible and shown escaped.
_ZWJ = f"(?<![{_PICTO}\ufe0f])\u200d|\u200d(?![{_PICTO}])"
_UNSAFE = regex.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{INVISIBLE}]|{_ZWJ}", regex.VERSION1)
_UNSAFE_LINE = regex.compile(f"[\x00-\x1f\x7f-\x9f{INVISIBLE}]|{_ZWJ}", regex.VERSION1)
_NAMED = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}


def _escape(match: regex.Match[str]) -> str:
    ch = match.group()
    if ch in _NAMED:
        return _NAMED[ch]
    code = ord(ch)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def visible(text: str, *, single_line: bool = False) -> str:
    """``text`` with every control character made visible. Idempotent on safe text."""
    pattern = _UNSAFE_LINE if single_line else _UNSAFE
    if pattern.search(text) is None:
        return text
    return pattern.sub(_escape, text)


#: Characters of one message put on a terminal or in a dialog: an agent's 50 MB error
#: message would bury a terminal (and a CI log), and takes seconds to lay out in the TUI.
SHOWN_LIMIT = 4096


def clip(text: str, limit: int = SHOWN_LIMIT, whole: str = "", *, size: int | None = None) -> str:
    """The first ``limit`` characters of ``text``, then how many more there were and
    (``whole``) where they all are. ``size``: the length of the whole when ``text`` is
    already a cut of it."""
    size = len(text) if size is None else size
    if size <= limit:
        return text
    more = size - limit
    count = f"{more / 1048576:.1f} M" if more >= 1048576 else f"{more:,}"
    return f"{text[:limit]}… ({count} more characters{'; ' + whole if whole else ''})"


def shorten(text: str, width: int) -> str:
    """One visible line of at most ``width`` characters."""
    line = visible(text, single_line=True)
    return line if len(line) <= width else line[: max(0, width - 1)] + "…"
