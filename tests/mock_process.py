"""``a2a-mock`` as a user runs it, in a process of its own: for tests that must measure
its memory (VmHWM from /proc) or survive a mock that hangs or dies. The process is
always ended, by its own pid, when the block leaves."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass


@dataclass
class MockProcess:
    proc: subprocess.Popen[str]
    url: str
    #: What it wrote to stderr, once the block has ended it.
    stderr: str = ""

    def kib(self, field: str = "VmHWM") -> int:
        """``field`` of /proc/PID/status in KiB (VmHWM: the peak resident set so far)."""
        with open(f"/proc/{self.proc.pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
        raise AssertionError(f"no {field} for the mock's process")

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None


@contextlib.contextmanager
def mock_process(*args: str, timeout: float = 30.0) -> Iterator[MockProcess]:
    """Start ``a2a-mock ARGS --port 0`` and wait for its "serving ... at URL" line."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "mock_agent.cli", *args, "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        if " at " not in first:
            proc.kill()
            _out, err = proc.communicate(timeout=timeout)
            raise AssertionError(f"a2a-mock did not start: {first!r} {err[-2000:]}")
        running = MockProcess(proc, first.split(" at ")[1].strip())
        yield running
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
        try:
            _out, err = proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()  # a mock held in a loop that never yields to Ctrl-C
            _out, err = proc.communicate(timeout=10)
        if "running" in locals():
            running.stderr = err
