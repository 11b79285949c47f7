"""``a2a-inspect check``'s options (argparse only: --help answers without loading the
client)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

CHECK_HELP = """\
Discovers the agent's card, then runs the probes on each binding the card lists for
the dialect it speaks (or the one --binding names), and reports each probe as pass,
fail (with the spec's rule) or skipped (with why). Probes make only their own tasks,
send a few requests each, and never go to another host than URL's. Every probe, its
spec reference and what makes it skip: docs/check.md.

groups: card, messages, errors, tasks, multi-turn, push, bindings

examples:
  a2a-inspect check http://localhost:9999
  a2a-inspect check http://localhost:9999 --binding rest --only messages,tasks
  a2a-inspect check http://localhost:9999 -o junit > check.xml

exit codes:
  0  no probe failed (some may have been skipped)
  1  a probe failed
  2  usage error
  3  the agent could not be reached
"""


def _words(text: str) -> tuple[str, ...]:
    return tuple(w.strip() for w in text.split(",") if w.strip())


def add_check_parser(command: Callable[..., argparse.ArgumentParser], common: Callable[..., Any]) -> None:
    p = command("check", "run conformance probes against an agent on every binding its card lists", CHECK_HELP)
    p.add_argument("url", help="agent base URL or card URL")
    p.add_argument(
        "--only",
        type=_words,
        default=(),
        metavar="GROUP|PROBE,...",
        help="run only these groups or probes (comma-separated)",
    )
    p.add_argument(
        "--skip",
        type=_words,
        default=(),
        metavar="GROUP|PROBE,...",
        help="leave these groups or probes out (comma-separated)",
    )
    p.add_argument(
        "--text",
        default=None,
        metavar="TEXT",
        help="the message the probes send: one the agent answers by finishing the task "
        "(default: 'hello from a2a-inspect check')",
    )
    p.add_argument(
        "--running-text",
        default=None,
        metavar="TEXT",
        help="a message that keeps the agent working a while, for the cancel of a running "
        "task (default: --text; the probe is skipped when that task ends first)",
    )
    p.add_argument(
        "--ask",
        default=None,
        metavar="TEXT",
        help="a message that makes the agent ask for input (input-required), for the "
        "multi-turn probe (without it, the card's skill examples are tried, at most 3)",
    )
    common(p, ("text,json,junit", "text (default), one JSON document, or JUnit XML (a test case a probe)"))
