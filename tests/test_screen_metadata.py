"""Screen test: a Society AI task's metadata (seed 001: requester, executor, skill_used,
cost) and its artifact's, in the task view as the terminal shows them: a row a key,
agent text literal."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from mock_agent import MockAgent
from screen_app import body, inspector, quit_app, send

SCENARIO = {
    "name": "society-ai-screen",
    "dialect": "0.1",
    "card": {
        "name": "research-agent",
        "description": "Research with metadata",
        "version": "1.0.0",
        "capabilities": {"streaming": True},
        "skills": [{"id": "research-topic", "name": "Topic Research", "description": "Research", "tags": ["research"]}],
    },
    "fallback": [
        {
            "artifact": {
                "name": "report",
                "text": "Findings on {text}",
                "metadata": {"sources": 2, "note": "\x1b[31mred\x1b[0m [bold]x[/bold]"},
            }
        },
        {"status": "completed", "message": "Research complete."},
    ],
}


@pytest.fixture(scope="module")
def society_ai() -> Iterator[MockAgent]:
    with MockAgent(SCENARIO, profile="society-ai", time_scale=0.01) as mock:
        yield mock


def test_society_ai_metadata_in_the_task_view(society_ai) -> None:
    with inspector(society_ai.url, (140, 45)) as term:
        # tasks/send answers with the whole task (a 0.1 stream has no task to carry it).
        term.press("ctrl+t")
        term.wait_for(re.compile(r"→ send  new task"), body(term))
        send(term, "quantum")
        term.wait_for(re.compile(r"▸ completed"), body(term))
        term.wait_for("metadata", body(term))
        term.wait_for(re.compile(r'requester +\{"name": "unknown"\}'), body(term))
        term.wait_for(re.compile(r'executor +\{"name": "research-agent"\}'), body(term))
        term.wait_for(re.compile(r"skill_used +research-topic"), body(term))
        # Cut to the pane, not wrapped: one row a key.
        term.wait_for(re.compile(r'cost +\{"amount": 0\.0, '), body(term))
        # The artifact's own metadata, its escape shown, not obeyed; its markup as typed.
        term.wait_for(re.compile(r"sources +2"), body(term))
        term.wait_for(re.compile(r"note +\\x1b\[31mred\\x1b\[0m"), body(term))
        term.wait_for("[bold]x[/bold]", body(term))
        quit_app(term)
