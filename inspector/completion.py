"""Shell completion for a2a-inspect and a2a-mock (argcomplete): the script a shell
loads, and the answer to a TAB press. Cross-cutting, like textsafe: the CLIs of both
commands use it, and it imports nothing of theirs.

A TAB press runs the command with ``_ARGCOMPLETE`` set; ``complete_if_asked`` then
builds the parser, lets argcomplete print the candidates, and exits, before anything
heavier than argparse is imported."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable

SHELLS = ("bash", "zsh", "fish")


def script(prog: str, shell: str) -> str:
    """The completion script for ``prog`` in ``shell`` (one of SHELLS)."""
    import argcomplete

    return argcomplete.shellcode([prog], shell=shell)


def complete_if_asked(parser_factory: Callable[[], argparse.ArgumentParser]) -> None:
    if "_ARGCOMPLETE" in os.environ:
        import argcomplete

        argcomplete.autocomplete(parser_factory())
