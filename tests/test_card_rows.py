"""The card's rows, one model that the CLI's card text and the TUI's card view both
render (issue 30 item 2): what one shows, the other shows too."""

from __future__ import annotations

from typing import Any

from inspector.headless.render import card_lines
from inspector.protocol.card import decode_card
from inspector.protocol.lint import lint_card

RAW: dict[str, Any] = {
    "name": "x",
    "description": "d",
    "version": "1",
    "url": "http://127.0.0.1:9/",
    "protocolVersion": "0.3.0",
    "iconUrl": "http://127.0.0.1:9/icon.png",
    "capabilities": {"streaming": True},
    "defaultInputModes": ["text/plain"],
    "defaultOutputModes": ["text/plain"],
    "skills": [{"id": "a", "name": "A", "description": "d", "tags": ["t"], "examples": ["hi"]}],
    "securitySchemes": {
        "my auth": {"type": "http", "description": "a bearer token from the vault"},
        "key": {"type": "apiKey", "in": "header", "name": "X-Key"},
    },
    "security": [{"my auth": []}],
    "additionalInterfaces": [{"transport": "GRPC", "url": "http://127.0.0.1:9/grpc"}],
}


def _cli(raw: dict[str, Any], dialect: str = "0.3") -> list[str]:
    return card_lines(
        decode_card(raw),
        lint_card(raw, dialect),
        card_url="http://127.0.0.1:9/card",
        dialect=dialect,
        endpoint="http://127.0.0.1:9/",
        binding="JSONRPC (card)",
    )


def test_the_cli_shows_every_row_the_card_view_shows() -> None:
    from inspector.ui.widgets.card_view import _text, card_sections

    lines = _cli(RAW)
    sections = card_sections(
        decode_card(RAW), card_url="http://127.0.0.1:9/card", dialect="0.3", endpoint="http://127.0.0.1:9/"
    )
    for title, rows in sections:
        assert title.upper() in lines
        for label, value, _paths in rows:
            row = f"  {label:<18} {_text(value, 100)}"
            assert row in lines, f"{title}: {row!r} not in the CLI's card"


def test_the_cli_puts_each_finding_under_its_row_as_the_card_view_does() -> None:
    lines = _cli(RAW)
    row = next(i for i, line in enumerate(lines) if line.strip().startswith("my auth"))
    assert lines[row + 1].startswith(
        '  ✗ error $.securitySchemes["my auth"].scheme: a http security scheme needs scheme'
    )
    assert lines[row + 2].strip().startswith("key")


def test_the_cli_keeps_its_binding_row_and_counts() -> None:
    lines = _cli(RAW)
    assert "  binding            JSONRPC (card)" in lines
    assert lines[-1].startswith("lint: 1 error(s)")
    assert "  [0] a — A" in lines and "      e.g. hi" in lines


def test_rows_carry_the_json_paths_their_findings_sit_under() -> None:
    from inspector.protocol.card_rows import card_rows

    sections = dict(card_rows(decode_card(RAW), card_url=None, dialect=None, endpoint=None))
    security = {row.label: row for row in sections["security"]}
    assert security["my auth"].paths == ('$.securitySchemes["my auth"]',)
    assert security["my auth"].value == "http — a bearer token from the vault"
    assert security["key"].value == "apiKey (header X-Key)"
    assert "binding" not in {row.label for row in sections["identity"]}
    empty = dict(
        card_rows(
            decode_card({**RAW, "securitySchemes": {}, "security": []}), card_url=None, dialect=None, endpoint=None
        )
    )
    assert [tuple(r) for r in empty["security"]] == [("schemes", "none declared", ())]
