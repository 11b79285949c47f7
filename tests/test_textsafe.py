"""Agent text on a terminal: control characters visible, everything else untouched."""

import pytest

from inspector.textsafe import shorten, visible


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("\x1b[31mred\x1b[0m", "\\x1b[31mred\\x1b[0m"),
        ("bell\x07", "bell\\x07"),
        ("csi\x9b2J", "csi\\x9b2J"),  # C1 control: an escape introducer on some terminals
        ("del\x7f", "del\\x7f"),
        ("ab\u202ecd", "ab\\u202ecd"),  # right-to-left override
        ("one\u2028two", "one\\u2028two"),  # line separator: would split a line
        ("para\u2029graph", "para\\u2029graph"),
        ("cr\rover", "cr\\rover"),
    ],
)
def test_controls_become_visible(raw: str, shown: str) -> None:
    assert visible(raw) == shown


def test_markup_newlines_tabs_and_non_ascii_stay_as_typed() -> None:
    text = "[bold]x[/bold]\n\tcafé 日本語 → ok"
    assert visible(text) == text


def test_single_line_makes_newlines_and_tabs_visible_too() -> None:
    assert visible("a\nb\tc", single_line=True) == "a\\nb\\tc"


def test_visible_is_idempotent() -> None:
    once = visible("\x1b[1m\u2028")
    assert visible(once) == once


def test_shorten_cuts_with_an_ellipsis_after_escaping() -> None:
    assert shorten("\x1b" * 10, 8) == "\\x1b\\x1…"
    assert shorten("short", 8) == "short"
