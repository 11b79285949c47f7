"""Writing to a stdout whose reader may go away (``a2a-inspect --completion bash | head``).

Python ignores SIGPIPE, so a closed pipe surfaces as BrokenPipeError on write, and again
when the interpreter flushes stdout at exit. A command that prints for a pipe stops
quietly instead: stdout is pointed at /dev/null so the final flush has nowhere to fail.
"""

from __future__ import annotations

import os
import sys
from typing import TextIO


def silence(stream: TextIO) -> None:
    """Point ``stream``'s file descriptor at /dev/null (after its reader went away)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


def emit(text: str, stream: TextIO | None = None) -> bool:
    """Write and flush ``text``; False when the reader had gone (then nothing more is
    written to that stream)."""
    stream = stream or sys.stdout
    try:
        stream.write(text)
        stream.flush()
    except BrokenPipeError:
        silence(stream)
        return False
    return True
