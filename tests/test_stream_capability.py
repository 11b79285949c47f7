"""``send --stream`` to an agent whose card declares no streaming: a warning before the
stream goes (it goes anyway: the user asked, and cards can be wrong), and the reason
again beside the agent's refusal. The TUI, which then sends instead of streaming, says
why where a person sees it."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from cli_helpers import Cli
from mock_agent import MockAgent
from screen_app import body, inspector, quit_app

WARNING = "the card declares no streaming (capabilities.streaming: false); sending tasks/sendSubscribe anyway"
HINT = "the card declares no streaming (capabilities.streaming: false): send without --stream"


@pytest.fixture
def cli(tmp_path: Path) -> Cli:
    return Cli(tmp_path)


@pytest.fixture(scope="module")
def society() -> Iterator[MockAgent]:
    """Society (seed 000): streaming: false on its card, tasks/send only (-32601 for the rest)."""
    with MockAgent(profile="society", time_scale=0.01) as mock:
        yield mock


def test_stream_to_a_card_without_streaming_warns_and_says_why_it_failed(cli: Cli, society) -> None:
    refused = cli("send", society.url, "hi", "--stream")
    assert refused.code == 3, refused
    lines = refused.err.splitlines()
    assert lines[0] == f"a2a-inspect: warning: {WARNING}, as --stream asks", lines
    assert "-32601" in lines[1], lines
    assert lines[2] == f"a2a-inspect: {HINT}", lines
    # Without --stream the same agent answers, and nothing is said about streaming.
    sent = cli("send", society.url, "hi")
    assert sent.code == 0 and "streaming" not in sent.err, sent


def test_a_card_that_is_wrong_about_streaming_still_streams(cli: Cli) -> None:
    # a2a-mock streams whatever its card says: the warning, then the stream as asked.
    scenario = {
        "name": "says-no-stream",
        "card": {"name": "quiet", "capabilities": {"streaming": False}},
        "rules": [{"script": [{"chunks": {"name": "a", "texts": ["one ", "two"]}}, {"status": "completed"}]}],
    }
    with MockAgent(scenario, dialect="0.3", time_scale=0.01) as mock:
        streamed = cli("send", mock.url, "hi", "--stream")
    assert streamed.code == 0, streamed
    assert "the card declares no streaming" in streamed.err and "send without" not in streamed.err
    assert "one two" in streamed.out


def test_a_streaming_card_gets_no_warning(cli: Cli, sdk_agent_compat: str) -> None:
    streamed = cli("send", sdk_agent_compat, "hello there", "--stream")
    assert streamed.code == 0, streamed
    assert "streaming" not in streamed.err, streamed.err


def test_the_tui_says_why_it_sends_instead_of_streaming(society) -> None:
    with inspector(society.url, (140, 45)) as term:
        term.wait_for(re.compile(r"→ send  new task"), body(term))
        # A toast (its lines wrap where the toast's width says).
        term.wait_for("the card declares no streaming")
        term.wait_for("messages are sent, not streamed")
        term.press("ctrl+t")
        term.wait_for(re.compile(r"⇶ stream  new task"), body(term))
        term.wait_for("may refuse the stream")
        quit_app(term)
