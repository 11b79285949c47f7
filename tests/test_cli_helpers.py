"""The test helpers that read a background CLI's output (tests/cli_helpers.py)."""

from __future__ import annotations

import subprocess
import sys

from cli_helpers import finish, read_line


def test_a_line_read_first_leaves_the_rest_to_finish() -> None:
    # Both lines in one write: a buffered readline took the second one in with the first,
    # where communicate() never looked (a stream's second event went missing).
    proc = subprocess.Popen(
        [sys.executable, "-c", "import sys; sys.stdout.write('first\\nsecond\\n')"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    head = read_line(proc)
    done = finish(proc, already_read=head)
    assert (head, done.out, done.code) == (b"first\n", "first\nsecond\n", 0)
