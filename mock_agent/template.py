"""``"echo: {text}"`` templates: parsed once when a scenario loads, rendered per turn.

Only ``{name}`` substitution, with ``{{`` and ``}}`` for literal braces. No format specs,
attribute access or expressions: a scenario file is data, and the user's text that
ends up in a reply must never be able to reach anything but the variables we hand in.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache

#: Variables every script can use; a rule's text regex adds its named groups.
BUILTIN_VARS: dict[str, str] = {
    "text": "the user's text (all text parts, joined with newlines)",
    "task_id": "the task's id",
    "context_id": "the task's context (0.1: session) id",
    "turn": "the turn number within the task, from 1",
    "skill": "the skill named in the request's metadata, or empty",
    "method": "send or stream",
    "dialect": "0.1, 0.3 or 1.0",
    "file_count": "how many file parts the user sent",
    "data_count": "how many data parts the user sent",
    "file_names": "the names of the user's file parts, comma-separated",
    "data_json": "the first data part the user sent, as JSON (empty if none)",
}
#: Only inside ``chunks``: the chunk's number (from 0) and the chunk count.
CHUNK_VARS: dict[str, str] = {"i": "the chunk number, from 0", "n": "the number of chunks"}

_TOKEN = re.compile(r"\{\{|\}\}|\{([^{}]*)\}|[{}]")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


class TemplateError(ValueError):
    pass


@lru_cache(maxsize=4096)
def parse(template: str) -> tuple[str | tuple[str], ...]:
    """Split into literal strings and 1-tuples holding a variable name."""
    out: list[str | tuple[str]] = []
    pos = 0
    literal = ""
    for match in _TOKEN.finditer(template):
        literal += template[pos : match.start()]
        pos = match.end()
        token = match.group(0)
        if token == "{{":
            literal += "{"
        elif token == "}}":
            literal += "}"
        elif token in ("{", "}"):
            raise TemplateError(
                f"unmatched {token!r} at offset {match.start()} (write {token * 2} for a literal brace)"
            )
        else:
            name = match.group(1).strip()
            if not _NAME.match(name):
                raise TemplateError(f"{{{match.group(1)}}} is not a variable name")
            if literal:
                out.append(literal)
                literal = ""
            out.append((name,))
    literal += template[pos:]
    if literal:
        out.append(literal)
    return tuple(out)


def names(template: str) -> list[str]:
    return [seg[0] for seg in parse(template) if isinstance(seg, tuple)]


def is_static(template: str) -> bool:
    segs = parse(template)
    return len(segs) == 0 or (len(segs) == 1 and isinstance(segs[0], str))


def render(template: str, values: Mapping[str, object]) -> str:
    segs = parse(template)
    if len(segs) == 1 and isinstance(segs[0], str):
        return segs[0]
    return "".join(seg if isinstance(seg, str) else str(values.get(seg[0], "")) for seg in segs)
