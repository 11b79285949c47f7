"""A rule's ``when: {text: REGEX}``, matched in bounded time.

The pattern is the scenario author's and the text is any client's message, so a pattern
that backtracks catastrophically (``^(a+)+$``, ``(a|aa)+$``) meeting the wrong message
would hold the event loop, and with it every other client, for minutes. Python's ``re``
cannot be interrupted; the ``regex`` module takes the same syntax (``VERSION0`` is
``re``'s behaviour) and a ``timeout``, so one message's matching, over all the rules
it is tried against, costs at most ``BUDGET`` seconds of the loop.
"""

from __future__ import annotations

import time
from typing import Any

import regex

#: Seconds one message may spend in the rules' patterns, all rules together: far more
#: than a sane pattern needs on a body the size limit lets in, even on a loaded machine,
#: and short enough that other clients barely notice a pattern that runs out of it.
BUDGET = 0.25

error = regex.error
Pattern = Any  # regex.Pattern; the module ships no stubs


class TooSlow(Exception):
    """A pattern ran out of the message's matching time."""


def compile_pattern(pattern: str) -> Pattern:
    """``pattern`` as ``re`` would read it; raises ``error`` (a ValueError) if it is not
    a regular expression."""
    return regex.compile(pattern, regex.VERSION0)


class Clock:
    """One message's matching time, shared by the rules it is tried against."""

    __slots__ = ("deadline",)

    def __init__(self, budget: float = BUDGET) -> None:
        self.deadline = time.monotonic() + budget

    def search(self, pattern: Pattern, text: str) -> Any:
        """``pattern.search(text)``, or TooSlow once the budget is spent."""
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TooSlow
        try:
            return pattern.search(text, timeout=left)
        except TimeoutError:
            raise TooSlow from None
