"""Plain-text views of cards and tasks for the headless commands.

Every agent-supplied string goes through ``visible``/``shorten``: markup such as
``[bold]`` prints as typed, and escape sequences print as ``\\x1b``.
"""

from __future__ import annotations

import json
from typing import Any, Callable, Iterable

from ..protocol import models as m
from ..protocol.card_sections import SEVERITY_MARK, FindingPlacer
from ..protocol.sizes import base64_size, format_size
from ..textsafe import shorten, visible

def _finding(f: Any) -> str:
    # The code is what docs/lint.md explains, and what to search for.
    # The path names the card's own keys (a security scheme's name): visible too.
    return (f"{SEVERITY_MARK.get(f.severity, f.severity)} {visible(f.path, single_line=True)}: "
            f"{visible(f.message, single_line=True)} [{f.code}]")


def _whole(text: str, width: int) -> str:
    """``shorten`` without the cut: one visible line, all of it."""
    return visible(text, single_line=True)


def _val(value: Any, cut: Callable[[str, int], str] = shorten) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (list, tuple)):
        return ", ".join(cut(str(v), 60) for v in value) or "-"
    return cut(str(value), 100)


def card_lines(card: m.AgentCard, findings: Iterable[Any], *, card_url: str | None,
               dialect: str | None, endpoint: str | None, binding: str | None = None,
               whole: bool = False) -> list[str]:
    """``whole``: every value in full (output to a pipe or a file, where a cut URL or
    description is lost for good); else values cut to fit a terminal's width."""
    cut = _whole if whole else shorten
    placer = FindingPlacer(findings)
    findings = placer.findings
    out: list[str] = []

    def section(name: str, rows: list[tuple[str, Any]]) -> None:
        out.append(name.upper())
        for label, value in rows:
            out.append(f"  {label:<18} {_val(value, cut)}")
        out.extend(f"  {_finding(f)}" for f in placer.section(name))
        out.append("")

    section("identity", [("name", card.name), ("description", card.description),
                         ("version", card.version), ("url", card.url),
                         ("protocol version", card.protocol_version),
                         ("documentation", card.documentation_url),
                         ("card url", card_url), ("dialect", dialect), ("binding", binding),
                         ("endpoint", endpoint)])
    p = card.provider
    section("provider", [("organization", p.organization if p else None), ("url", p.url if p else None)])
    c = card.capabilities or m.AgentCapabilities()
    section("capabilities", [("streaming", c.streaming), ("push notifications", c.push_notifications),
                             ("state history", c.state_transition_history),
                             ("extended card", c.extended_agent_card or card.supports_authenticated_extended_card),
                             ("extensions", [e.uri for e in c.extensions or []] or None)])
    rows: list[tuple[str, Any]] = []
    for name, scheme in (card.security_schemes or {}).items():
        detail = scheme.scheme or scheme.location or scheme.open_id_connect_url or ""
        rows.append((cut(name, 18), f"{scheme.type}" + (f" ({detail}{' ' + scheme.name if scheme.name else ''})" if detail else "")))
    if card.security:
        rows.append(("required", [" + ".join(req) or "(none)" for req in card.security]))
    if card.authentication:
        schemes = card.authentication.schemes
        rows.append(("schemes (0.1)", schemes if isinstance(schemes, list) else [schemes]))
    section("security", rows or [("schemes", None)])
    section("modes", [("input", card.default_input_modes), ("output", card.default_output_modes)])
    rows = []
    # A label names the interface's binding, as the card spells it: cut and made visible.
    for itf in card.supported_interfaces or []:
        rows.append((cut(f"{itf.protocol_binding or '?'} {itf.protocol_version or ''}".strip(), 18), itf.url))
    if card.preferred_transport:
        rows.append(("preferred (0.3)", card.preferred_transport))
    for itf in card.additional_interfaces or []:
        rows.append((cut(f"{itf.protocol_binding or '?'} (0.3)", 18), itf.url))
    section("interfaces", rows or [("interfaces", None)])
    out.append(f"SKILLS ({len(card.skills or [])})")
    for i, skill in enumerate(card.skills or []):
        out.append(f"  [{i}] {_val(skill.id, cut)} — {_val(skill.name, cut)}")
        if skill.description:
            out.append(f"      {cut(skill.description, 100)}")
        if skill.tags:
            out.append(f"      tags: {_val(skill.tags, cut)}")
        for ex in skill.examples or []:
            out.append(f"      e.g. {cut(ex, 96)}")
        out.extend(f"      {_finding(f)}" for f in placer.take((f"$.skills[{i}]",)))
    out.extend(f"  {_finding(f)}" for f in placer.section("skills"))
    out.append("")
    rest = placer.rest()
    if rest:
        out.append("OTHER FINDINGS")
        out.extend(f"  {_finding(f)}" for f in rest)
        out.append("")
    counts = {s: sum(1 for f in findings if f.severity == s) for s in ("error", "warning", "info")}
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
        return [f"{indent}[file] {shorten(f.name or '(unnamed)', 60)} {shorten(f.mime_type or '', 40)} {where or ''}".rstrip()]
    return [indent + shorten(repr(part), 100)]


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
