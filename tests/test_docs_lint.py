"""Every card-lint code is documented: LINT_CODES in lint.py and the tables of
docs/lint.md list exactly the codes the linter's source can emit, with the severities
it emits them with, and real cards only ever produce listed codes."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from inspector.protocol import lint
from inspector.protocol.card import DIALECTS
from inspector.protocol.lint import LINT_CODES, lint_card
from mock_agent.loader import builtins
from mock_agent.server import MockServer

DOC = Path(__file__).resolve().parents[1] / "docs" / "lint.md"
SOURCE = Path(lint.__file__).read_text(encoding="utf-8")
SHARED = Path(__file__).resolve().parents[2] / "shared"
CAPTURE = SHARED / "wire-captures" / "01_card_legacy_path.txt"

# The calls that hand the linter a code: add(severity, path, code, message),
# required(obj, key, path, code, what) (always an error) and Finding(severity, path, message, code).
_CALL = re.compile(r"(self\.add|self\.required|\bFinding)\(")
_STRING = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
# A code literal, possibly an f-string template such as f"empty-{key}". Messages never
# match: they have spaces, and the other literals in these calls have no hyphen.
_CODE = re.compile(r"[a-z]+(?:-(?:[a-z]+|\{\w+\}))+")
_PLACEHOLDER = re.compile(r"\{(\w+)\}")
# What each template placeholder ranges over, taken from the linter's own tables so that
# a new identity field or mode list cannot go undocumented.
_EXPANSIONS: dict[str, tuple[str, ...]] = {
    "key": lint._IDENTITY_KEYS,
    "code": tuple(stem for _, stem in lint._MODE_KEYS),
}
_SEVERITIES = ("error", "warning", "info")
_ROW = re.compile(r"^\| `([^`]+)` \| ([a-z]+(?: or [a-z]+)*) \|", re.MULTILINE)


def _calls(source: str) -> Iterator[tuple[str, str]]:
    """(callee, argument text) of each call that can carry a code; string literals are
    skipped while matching parentheses, as messages contain them."""
    for match in _CALL.finditer(source):
        depth, i = 1, match.end()
        while depth:
            literal = _STRING.match(source, i)
            if literal:
                i = literal.end()
                continue
            depth += {"(": 1, ")": -1}.get(source[i], 0)
            i += 1
        yield match.group(1), source[match.end() : i - 1]


def _expand(template: str) -> list[str]:
    names = _PLACEHOLDER.findall(template)
    unknown = [n for n in names if n not in _EXPANSIONS]
    assert not unknown, f"code template {template!r}: no expansion for {{{unknown[0]}}} in this test"
    codes = [template]
    for name in names:
        codes = [c.replace(f"{{{name}}}", value) for c in codes for value in _EXPANSIONS[name]]
    return codes


def source_codes() -> dict[str, set[str] | None]:
    """Code -> the severities the source gives it; None when some call site computes the
    severity (then only linting real cards can tell)."""
    out: dict[str, set[str] | None] = {}
    for callee, args in _calls(SOURCE):
        literals = _STRING.findall(args)
        code = next((s for s in literals if _CODE.fullmatch(s)), None)
        if code is None:
            continue  # the code is a variable: a helper passing on its caller's literal
        if callee == "self.required":
            severity: str | None = "error"
        else:
            severity = literals[0] if args.lstrip().startswith('"') and literals[0] in _SEVERITIES else None
        for concrete in _expand(code):
            known = out.setdefault(concrete, set())
            if severity is None or known is None:
                out[concrete] = None
            else:
                known.add(severity)
    return out


def documented() -> dict[str, set[str]]:
    text = DOC.read_text(encoding="utf-8")
    rows = _ROW.findall(text)
    table_rows = [line for line in text.splitlines() if line.startswith("| `")]
    assert len(rows) == len(table_rows), "a table row of docs/lint.md does not read | `code` | severity |"
    seen: dict[str, set[str]] = {}
    for code, severities in rows:
        assert code not in seen, f"{code} has more than one row in docs/lint.md"
        seen[code] = set(severities.split(" or "))
        assert seen[code] <= set(_SEVERITIES), f"{code}: unknown severity {severities!r} in docs/lint.md"
    return seen


# ------------------------------------------------------------------ registry and docs


def test_source_scan_finds_codes() -> None:
    # Guards the regexes: a scan that silently found nothing would make the rest vacuous.
    codes = source_codes()
    assert {"missing-field", "not-an-object", "security-scheme-shape", "empty-default-input-modes"} <= set(codes)


def test_every_code_in_the_source_is_registered_and_vice_versa() -> None:
    codes = set(source_codes())
    unregistered, unused = sorted(codes - set(LINT_CODES)), sorted(set(LINT_CODES) - codes)
    assert not unregistered, f"lint.py emits {', '.join(unregistered)} but LINT_CODES has no entry for it"
    assert not unused, f"LINT_CODES lists {', '.join(unused)} but lint.py never emits it"
    for code, meaning in LINT_CODES.items():
        assert meaning.strip() and "\n" not in meaning, f"LINT_CODES[{code!r}] should be one line"


def test_every_registered_code_has_one_row_in_the_docs() -> None:
    docs = documented()
    undocumented, stale = sorted(set(LINT_CODES) - set(docs)), sorted(set(docs) - set(LINT_CODES))
    assert not undocumented, f"no row in docs/lint.md for {', '.join(undocumented)}"
    assert not stale, f"docs/lint.md documents {', '.join(stale)}, not in LINT_CODES"


def test_every_row_names_the_spec_text_it_enforces() -> None:
    # | code | severity | what it means | dialects | spec |: a rule says where it comes from,
    # or that it is a2a-inspect's own advice ("a2a-inspect"), never nothing.
    rows = [line for line in DOC.read_text(encoding="utf-8").splitlines() if line.startswith("| `")]
    assert rows
    for row in rows:
        cells = [cell.strip() for cell in re.split(r"(?<!\\)\|", row.strip().strip("|"))]
        assert len(cells) == 5, f"{cells[0]}: {len(cells)} cells, not code, severity, meaning, dialects, spec"
        assert cells[4], f"{cells[0]}: the spec column is empty"


def test_documented_severities_match_the_source() -> None:
    docs = documented()
    for code, severities in sorted(source_codes().items()):
        if severities is not None and code in docs:
            assert docs[code] == severities, (
                f"{code!r} is documented as {' or '.join(sorted(docs[code]))} "
                f"but lint.py emits it as {' or '.join(sorted(severities))}"
            )


# ------------------------------------------------------------------ real cards


def check_findings(raw: Any, where: str, **kwargs: Any) -> set[str]:
    """Lints ``raw`` as every dialect; each code must be registered and documented with
    the severity it came with. Returns the codes seen."""
    docs = documented()
    seen = set()
    for dialect in (None, *DIALECTS):
        for finding in lint_card(raw, dialect, **kwargs):
            code = finding.code
            if code not in LINT_CODES:
                pytest.fail(f"{where} (as {dialect or 'auto'}): {code!r} is not in LINT_CODES")
            assert finding.severity in docs.get(code, {finding.severity}), (
                f"{where} (as {dialect or 'auto'}): {code!r} came as {finding.severity}, "
                f"docs/lint.md says {' or '.join(sorted(docs[code]))}"
            )
            seen.add(code)
    return seen


def test_capture_card_codes_are_documented() -> None:
    if not CAPTURE.is_file():
        pytest.skip(f"reference capture not found at {CAPTURE}")
    text = CAPTURE.read_text(encoding="utf-8")
    raw = json.loads(next(line[4:] for line in text.splitlines() if line.startswith("<<< {")))
    assert check_findings(raw, CAPTURE.name)  # read as 0.1 or 0.3, a 1.0 card has notes


@pytest.mark.parametrize("name", sorted(builtins()))
def test_mock_builtin_cards_codes_are_documented(name: str) -> None:
    for served in (None, *DIALECTS):
        server = MockServer(name, dialect=served)
        raw = json.loads(server.encoded_card("http://127.0.0.1:9/"))
        check_findings(
            raw,
            f"built-in {name} served as {served or 'default'}",
            card_url="http://127.0.0.1:9/.well-known/agent-card.json",
        )


def test_every_severity_is_written_where_the_code_is() -> None:
    # Each call names its severity as a literal, so the source scan above checks every row
    # of docs/lint.md; a severity computed at run time would escape that check.
    computed = sorted(code for code, severities in source_codes().items() if severities is None)
    assert not computed, f"{computed}: give each call its severity as a literal (or check these rows another way)"
