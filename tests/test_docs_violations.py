"""docs/violations.md documents every violation code the tracker can raise, with the
severity the tracker gives it, and nothing else."""

from __future__ import annotations

import re
from pathlib import Path

from inspector.session import VIOLATION_CODES

DOC = Path(__file__).resolve().parents[1] / "docs" / "violations.md"


def test_every_violation_code_is_documented_with_its_severity() -> None:
    rows = re.findall(r"^\| `([a-z-]+)` \| (error|warning) \|", DOC.read_text(encoding="utf-8"), re.MULTILINE)
    documented = dict(rows)
    assert len(documented) == len(rows), "a code is documented twice"
    assert documented == {code: severity for code, (severity, _) in VIOLATION_CODES.items()}
