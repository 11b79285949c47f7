"""`a2a-inspect card` cuts long values to fit a terminal, and prints them whole when its
output goes to a pipe or a file (issue 28 item 10)."""

from __future__ import annotations

from cli_helpers import Cli, cli  # noqa: F401 - cli is a fixture
from mock_agent import MockAgent
from terminal import Terminal

DESCRIPTION = "An agent whose description goes on: " + " ".join(f"clause-{i}" for i in range(30)) + " END"
EXAMPLE = "please summarise " + " ".join(f"item-{i}" for i in range(30)) + " LAST"
LONG = {
    "name": "long",
    "card": {
        "name": "Long Agent",
        "description": DESCRIPTION,
        "skills": [{"id": "s", "name": "summarise", "description": DESCRIPTION, "tags": ["t"], "examples": [EXAMPLE]}],
    },
    "rules": [{"script": [{"status": "completed", "message": "ok"}]}],
}


def test_card_piped_prints_every_value_whole(cli: Cli) -> None:
    with MockAgent(LONG, dialect="1.0") as mock:
        result = cli("card", mock.url)
        assert result.code in (0, 1), result  # 1: lint errors in this bare card
        assert f"  description        {DESCRIPTION}" in result.out.splitlines()
        assert f"      {DESCRIPTION}" in result.out.splitlines()
        assert f"      e.g. {EXAMPLE}" in result.out.splitlines()
        assert "…" not in result.out


def test_card_on_a_terminal_still_cuts_long_values() -> None:
    with MockAgent(LONG, dialect="1.0") as mock:
        with Terminal.app(["card", mock.url], size=(200, 60)) as term:
            assert term.wait_exit() in (0, 1)
            term.wait_for("description        An agent whose description goes on")
            assert "END" not in term.text() and "LAST" not in term.text()
            assert "…" in term.text()
