"""Run ``a2a-inspect`` the way a user or a CI script does, and look at what it printed.

``cli`` (a fixture: import it into a test module) runs the CLI with ARGS and returns a
:class:`CliResult` holding the exit code and the raw and decoded stdout/stderr. Each
test gets its own XDG cache/config/data directories, so the dialect cache written by one
run never decides the dialect of another test's run.

A command (``send``, ``card``, ...) runs in the test's own process: ``inspector.cli.main``
with stdin, stdout, stderr, the XDG variables and the working directory of a fresh
process, its exit code taken from its return value or SystemExit. A fresh interpreter
adds ~0.3-0.5 s of start-up to each of the suite's hundreds of runs and tests nothing
more about a command. The rest runs as a real subprocess (``python -m inspector.cli``):
the terminal UI, standard input (``input=``, ``-``, ``@-``), a call from an async test,
an environment of its own (``env=``), a background run (:meth:`Cli.start`), and any run
asked for with ``process=True`` (the console scripts, exit codes as a shell sees them,
and peak RSS keep tests of their own). ``A2A_TEST_CLI=process`` in the environment runs
every call as a subprocess.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import os
import select
import subprocess
import sys
import time
import traceback
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
COMMAND = [sys.executable, "-m", "inspector.cli"]
#: Generous: a run takes ~0.5 s; the limit only stops a hung CLI from hanging the suite.
DEFAULT_TIMEOUT = 30.0
#: Every call as a subprocess (to check that in-process runs tell the same story).
ALL_IN_SUBPROCESSES = os.environ.get("A2A_TEST_CLI") == "process"
XDG = ("XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME")


@dataclass
class CliResult:
    args: tuple[str, ...]
    code: int
    stdout_bytes: bytes
    stderr_bytes: bytes

    @property
    def out(self) -> str:
        # Strict: the CLI must never write bytes that are not UTF-8.
        return self.stdout_bytes.decode("utf-8")

    @property
    def err(self) -> str:
        return self.stderr_bytes.decode("utf-8")

    @property
    def err_lines(self) -> list[str]:
        return self.err.splitlines()

    def json(self) -> Any:
        return json.loads(self.out)

    def ndjson(self) -> list[Any]:
        return [json.loads(line) for line in self.out.split("\n") if line]

    def __str__(self) -> str:  # shown by pytest when an assertion on the result fails
        return (
            f"$ a2a-inspect {' '.join(self.args)}\nexit {self.code}\n"
            f"--- stdout ---\n{self.out[:4000]}\n--- stderr ---\n{self.err[:4000]}"
        )


class Cli:
    """Runs the CLI with a private XDG home; ``env`` entries are added to each run."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.env = os.environ.copy()
        for name in ("XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"):
            path = home / name.split("_")[1].lower()
            path.mkdir(parents=True, exist_ok=True)
            self.env[name] = str(path)
        # Never inherit a debugging or encoding override from the developer's shell.
        for name in ("PYTHONIOENCODING", "PYTHONWARNINGS", "PYTHONASYNCIODEBUG"):
            self.env.pop(name, None)
        self.env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), self.env.get("PYTHONPATH", "")) if p)

    def __call__(
        self,
        *args: str,
        timeout: float = DEFAULT_TIMEOUT,
        env: dict[str, str] | None = None,
        input: bytes | None = None,
        process: bool = False,
    ) -> CliResult:
        """``input``: bytes for standard input (default: none, as from /dev/null).
        ``process``: in a fresh interpreter even where the test's own process would do."""
        if not (process or env or input is not None or ALL_IN_SUBPROCESSES) and _a_command(args):
            return self._in_process(args)
        stdin = {"input": input} if input is not None else {"stdin": subprocess.DEVNULL}
        proc = subprocess.run(
            [*COMMAND, *args],
            capture_output=True,
            timeout=timeout,
            env={**self.env, **(env or {})},
            cwd=self.home,
            **stdin,
        )
        return CliResult(tuple(args), proc.returncode, proc.stdout, proc.stderr)

    def _in_process(self, args: tuple[str, ...]) -> CliResult:
        from inspector import cli as entry
        from inspector import gcpolicy

        out, err = io.BytesIO(), io.BytesIO()
        # What a fresh process gets on pipes: strict UTF-8 out (the CLI makes its own
        # choice of errors, as it does there), backslashreplace on stderr, empty stdin.
        stdout = io.TextIOWrapper(out, encoding="utf-8", write_through=True)
        stderr = io.TextIOWrapper(err, encoding="utf-8", errors="backslashreplace", write_through=True)
        stdin = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
        gc_policy_was_on = gcpolicy.stats()["installed"]
        with self._as_a_fresh_process(stdin, stdout, stderr):
            try:
                code = entry.main(list(args))
            except SystemExit as exc:  # argparse's usage errors, --help, --version
                code = exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1
                if isinstance(exc.code, str):
                    print(exc.code, file=sys.stderr)
            except Exception:  # as the interpreter would: a traceback and exit 1
                traceback.print_exc()
                code = 1
            finally:
                if not gc_policy_was_on:
                    gcpolicy.uninstall()  # main() installs it process-wide
        return CliResult(tuple(args), code, out.getvalue(), err.getvalue())

    @contextlib.contextmanager
    def _as_a_fresh_process(
        self, stdin: io.TextIOWrapper, stdout: io.TextIOWrapper, stderr: io.TextIOWrapper
    ) -> Iterator[None]:
        saved_streams = sys.stdin, sys.stdout, sys.stderr
        saved_env = {name: os.environ.get(name) for name in XDG}
        cwd = os.getcwd()
        sys.stdin, sys.stdout, sys.stderr = stdin, stdout, stderr
        os.environ.update({name: self.env[name] for name in XDG})
        os.chdir(self.home)
        try:
            yield
        finally:
            sys.stdin, sys.stdout, sys.stderr = saved_streams
            for name, value in saved_env.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
            os.chdir(cwd)

    def start(self, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
        """The CLI in the background, stdout and stderr piped (read stdout as it comes)."""
        return subprocess.Popen(
            [*COMMAND, *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            env={**self.env, **(env or {})},
            cwd=self.home,
        )

    @property
    def dialect_cache(self) -> Path:
        return Path(self.env["XDG_CACHE_HOME"]) / "a2a-inspect" / "dialects.json"


def _a_command(args: tuple[str, ...]) -> bool:
    """A headless command that can run in-process: not the terminal UI (which ``replay``
    without ``--against`` and ``hub`` without ``--headless`` open too), nor one reading
    standard input, nor one asked for inside a running event loop."""
    from inspector.cli import COMMANDS

    if not args or args[0] not in COMMANDS:
        return False
    try:
        asyncio.get_running_loop()
        return False  # called from an async test: main()'s asyncio.run needs a thread of its own
    except RuntimeError:
        pass
    if "-" in args or "@-" in args:
        return False  # reads standard input, which the CLI takes once per process
    if any(a in ("-h", "--help") for a in args):
        return True
    if args[0] == "replay":
        return "--against" in args
    if args[0] == "hub":
        return "--headless" in args
    if args[0] == "proxy":
        return False  # serves until stopped: only as a process of its own
    return True


def read_line(proc: subprocess.Popen[bytes], timeout: float = 60.0) -> bytes:
    """One line of a :meth:`Cli.start` process's stdout (the CLI flushes every line).

    Read from the pipe a byte at a time, not through ``proc.stdout``'s buffer: a buffered
    readline takes in whatever arrived with the line too (the next event of a stream),
    and :func:`finish`'s ``communicate()`` reads the pipe itself, never that buffer."""
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    deadline = time.monotonic() + timeout
    line = bytearray()
    while not line.endswith(b"\n"):
        ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            proc.kill()
            raise AssertionError(f"no output from a2a-inspect within {timeout} s")
        byte = os.read(fd, 1)
        if not byte:
            if line:
                break
            proc.wait(timeout)
            err = proc.stderr.read() if proc.stderr else b""
            raise AssertionError(f"a2a-inspect ended (exit {proc.returncode}) without output: {err!r}")
        line += byte
    return bytes(line)


def finish(
    proc: subprocess.Popen[bytes],
    args: tuple[str, ...] = (),
    timeout: float = DEFAULT_TIMEOUT,
    already_read: bytes = b"",
) -> CliResult:
    """Wait for a :meth:`Cli.start` process; ``already_read``: stdout consumed so far."""
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        raise AssertionError(
            f"a2a-inspect {' '.join(args)} did not finish in {timeout} s; "
            f"stdout: {(already_read + out)[-2000:]!r} stderr: {err[-2000:]!r}"
        ) from None
    return CliResult(args, proc.returncode, already_read + out, err)


@pytest.fixture
def cli(tmp_path: Path) -> Cli:
    return Cli(tmp_path / "home")


def assert_one_error_line(result: CliResult, code: int, *needles: str) -> str:
    """Exit ``code``, exactly one line on stderr, starting ``a2a-inspect:`` and holding
    each needle; no traceback anywhere. Returns that line."""
    assert result.code == code, result
    assert "Traceback" not in result.out and "Traceback" not in result.err, result
    assert len(result.err_lines) == 1, result
    line = result.err_lines[0]
    assert line.startswith("a2a-inspect: "), result
    for needle in needles:
        assert needle in line, f"{needle!r} not in {line!r}"
    return line
