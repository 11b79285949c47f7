"""docs/check.md lists every probe of the registry, in its group, with the registry's
title, spec reference and skip conditions, and no probe the registry does not have."""

from __future__ import annotations

import re
from pathlib import Path

from inspector.check import GROUPS, PROBES
from inspector.check.probe import CARD_SPELLING

DOC = (Path(__file__).resolve().parents[1] / "docs" / "check.md").read_text(encoding="utf-8")
_ROW = re.compile(r"^\| `([a-z-]+\.[a-z-]+)` \| (.+?) \| (.+?) \| (.+?) \| (.+?) \|$", re.MULTILINE)


def _rows() -> dict[str, tuple[str, ...]]:
    rows: dict[str, tuple[str, ...]] = {}
    group = None
    for line in DOC.splitlines():
        heading = re.match(r"^### ([\w-]+)$", line)
        if heading:
            group = heading.group(1)
        row = _ROW.match(line)
        if row:
            assert row.group(1) not in rows, f"{row.group(1)} listed twice"
            rows[row.group(1)] = (group or "", *row.groups()[1:])
    return rows


def test_every_probe_is_documented_as_registered() -> None:
    rows = _rows()
    assert set(rows) == {p.id for p in PROBES}
    for p in PROBES:
        group, title, section, runs_on, skips = rows[p.id]
        assert (group, title, section, skips) == (p.group, p.title, p.section, p.skips), p.id
        for dialect in p.dialects if len(p.dialects) < 3 else ():
            assert dialect in runs_on, p.id
        for binding in p.bindings if len(p.bindings) < 3 else ():
            assert binding in runs_on, p.id
        assert (f"`capabilities.{CARD_SPELLING.get(p.needs or '')}`" in runs_on) == bool(p.needs), p.id


def test_groups_are_documented_in_order() -> None:
    found = re.findall(r"^### ([\w-]+)$", DOC, re.MULTILINE)
    assert found == list(GROUPS)


def test_every_probe_has_a_rule_to_quote() -> None:
    for p in PROBES:
        assert p.rule and p.section and p.skips, p.id
