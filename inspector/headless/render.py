"""Plain-text views of cards and tasks for the headless commands.

Every agent-supplied string goes through ``visible``/``shorten``: markup such as
``[bold]`` prints as typed, and escape sequences print as ``\\x1b``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from ..protocol import models as m
from ..protocol.card_rows import CardRow, card_rows, value_text
from ..protocol.card_sections import SEVERITY_MARK, FindingPlacer
from ..protocol.sizes import base64_size, format_size
from ..textsafe import shorten, visible


def _finding(f: Any) -> str:
    # The code is what docs/lint.md explains, and what to search for.
    # The path names the card's own keys (a security scheme's name): visible too.
    return (
        f"{SEVERITY_MARK.get(f.severity, f.severity)} {visible(f.path, single_line=True)}: "
        f"{visible(f.message, single_line=True)} [{f.code}]"
    )


#: A width no value reaches: ``whole`` output (to a pipe or a file) cuts nothing.
_UNCUT = 1 << 62


def _val(value: Any, whole: bool = False) -> str:
    if whole:
        return value_text(value, width=_UNCUT, item_width=_UNCUT, multiline=False)
    return value_text(value, width=100, item_width=60, multiline=False)


def _cut(text: str, width: int, whole: bool) -> str:
    return shorten(text, _UNCUT if whole else width)


def _section(out: list[str], name: str, rows: list[CardRow], placer: FindingPlacer, whole: bool) -> None:
    """A section's rows, each finding right under the row of its field, the section's
    other findings at its end."""
    out.append(name.upper())
    for label, value, paths in rows:
        # The label column is 18 wide here, a little narrower than the card view's.
        out.append(f"  {_cut(label, 18, whole):<18} {_val(value, whole)}")
        if paths:
            out.extend(f"  {_finding(f)}" for f in placer.take(paths))
    out.extend(f"  {_finding(f)}" for f in placer.section(name))
    out.append("")


def _skill_lines(i: int, skill: m.AgentSkill, placer: FindingPlacer, whole: bool) -> list[str]:
    out = [f"  [{i}] {_val(skill.id, whole)} — {_val(skill.name, whole)}"]
    if skill.description:
        out.append(f"      {_cut(skill.description, 100, whole)}")
    if skill.tags:
        out.append(f"      tags: {_val(skill.tags, whole)}")
    out.extend(f"      e.g. {_cut(ex, 96, whole)}" for ex in skill.examples or [])
    out.extend(f"      {_finding(f)}" for f in placer.take((f"$.skills[{i}]",)))
    return out


def card_lines(
    card: m.AgentCard,
    findings: Iterable[Any],
    *,
    card_url: str | None,
    dialect: str | None,
    endpoint: str | None,
    binding: str | None = None,
    whole: bool = False,
) -> list[str]:
    """``whole``: every value in full (output to a pipe or a file, where a cut URL or
    description is lost for good); else values cut to fit a terminal's width."""
    placer = FindingPlacer(findings)
    out: list[str] = []
    for name, rows in card_rows(card, card_url=card_url, dialect=dialect, endpoint=endpoint, binding=binding or "-"):
        _section(out, name, rows, placer, whole)
    skills = card.skills or []
    out.append(f"SKILLS ({len(skills)})")
    for i, skill in enumerate(skills):
        out.extend(_skill_lines(i, skill, placer, whole))
    out.extend(f"  {_finding(f)}" for f in placer.section("skills"))
    out.append("")
    rest = placer.rest()
    if rest:
        out.append("OTHER FINDINGS")
        out.extend(f"  {_finding(f)}" for f in rest)
        out.append("")
    counts = {s: sum(1 for f in placer.findings if f.severity == s) for s in ("error", "warning", "info")}
    out.append(f"lint: {counts['error']} error(s), {counts['warning']} warning(s), {counts['info']} note(s)")
    return out


# ----------------------------------------------------------------------------- parts


def part_lines(part: Any, indent: str = "  ") -> list[str]:
    if isinstance(part, m.TextPart):
        return [indent + line for line in visible(part.text).split("\n")]
    if isinstance(part, m.DataPart):
        text = json.dumps(part.data, indent=2, ensure_ascii=False)
        return [indent + line for line in visible(text).split("\n")]
    if isinstance(part, m.FilePart):
        f = part.file
        size = format_size(base64_size(f.bytes)) if f.bytes else None
        where = shorten(f.uri, 80) if f.uri else size
        name, mime = shorten(f.name or "(unnamed)", 60), shorten(f.mime_type or "", 40)
        return [f"{indent}[file] {name} {mime} {where or ''}".rstrip()]
    return [indent + shorten(repr(part), 100)]


def text_lines(pieces: Iterable[str]) -> Iterator[str]:
    """The lines of the text these pieces make (``"".join(pieces).split("\\n")``),
    holding one piece and one line at a time."""
    carry: list[str] = []
    for piece in pieces:
        lines = piece.split("\n")
        if len(lines) > 1:
            yield "".join(carry) + lines[0]
            yield from lines[1:-1]
            carry = []
        carry.append(lines[-1])
    yield "".join(carry)


def message_text(message: m.Message | None, width: int = 200) -> str:
    if message is None:
        return ""
    texts = [p.text for p in message.parts if isinstance(p, m.TextPart)]
    other = len(message.parts) - len(texts)
    text = " ".join(texts)
    if other:
        text += f" (+{other} part{'s' if other > 1 else ''})"
    return shorten(text, width)


def message_lines(message: m.Message) -> list[str]:
    out = [f"{message.role.value}:"]
    for part in message.parts:
        out.extend(part_lines(part))
    return out
