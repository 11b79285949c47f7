"""The Echo Agent on the official JavaScript SDK (tests/peers/js/agent.mjs): starting and
stopping its node process, and where it listens.

It behaves as tests/peers/sdk_agent.py does (the same keywords, chunks and texts, the
same ``/_peer`` routes for ``hold`` tasks), so tests judge a2a-inspect against two
implementations it did not write with one set of expectations. A configuration is the
bindings it serves (listed on its card in that order) and whether the SDK's 0.3
compatibility layer is on; the fixtures in tests/conftest.py keep one process per
configuration per session.

The process exits when its stdin closes, so a test run that is killed leaves none behind.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from typing import IO

from peers.js_peers import JS_DIR
from peers.sdk_agent import echo_chunks, release, wait_parked  # noqa: F401  (the same routes)

SCRIPT = JS_DIR / "agent.mjs"
BINDINGS = ("jsonrpc", "rest", "grpc")
AGENT_NAME = "JS Echo Agent"
QUESTION = "What should I echo? Reply on this taskId."
WORKING_TEXT = "echoing..."
DONE_TEXT = "done"
FAILED_TEXT = "failing as requested"
CANCELED_TEXT = "canceled by request"
ARTIFACT_NAME = "echo"
#: Node starts it in ~0.4 s; the limit only stops a broken install from hanging a test.
START_TIMEOUT = 30.0
#: How long a ``hold`` task waits for a test before it goes on by itself.
HOLD_TIMEOUT = 30.0


@dataclass(frozen=True)
class Config:
    bindings: tuple[str, ...] = BINDINGS
    compat: bool = True
    #: With ``compat``: False lists the 1.0 interfaces only (the SDK's compat sample's
    #: card), which the SDK then serves only to a request naming A2A-Version 1.0.
    list03: bool = True

    def __post_init__(self) -> None:
        if not self.bindings or not set(self.bindings) <= set(BINDINGS):
            raise ValueError(f"bindings: a subset of {BINDINGS}, not {self.bindings!r}")

    @property
    def name(self) -> str:
        return f"{'+'.join(self.bindings)}{'+0.3' if self.compat else ''}{'' if self.list03 else '-unlisted'}"


@dataclass
class JsAgent:
    """A running agent.mjs: ``base`` (http://127.0.0.1:PORT, where its card is), and the
    URL of each binding it serves (None for the others; gRPC's is ``127.0.0.1:PORT`` as
    the card lists it, ``grpc_url`` the same as a grpc:// URL)."""

    config: Config
    base: str
    card_url: str
    jsonrpc: str | None
    rest: str | None
    grpc: str | None
    process: subprocess.Popen[bytes] = field(repr=False)
    stderr: IO[bytes] = field(repr=False)

    @property
    def grpc_url(self) -> str | None:
        return f"grpc://{self.grpc}" if self.grpc else None

    def stop(self, timeout: float = 10.0) -> None:
        if self.process.stdin is not None and not self.process.stdin.closed:
            self.process.stdin.close()  # its signal to exit
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout)
        self.stderr.close()


def start(config: Config = Config(), hold_timeout: float = HOLD_TIMEOUT) -> JsAgent:
    """Start agent.mjs in ``config`` and return once it listens (its one JSON line)."""
    node = shutil.which("node")
    if node is None:
        raise RuntimeError("node is not installed")
    args = [node, str(SCRIPT), "--bindings", ",".join(config.bindings), "--hold-timeout", str(hold_timeout)]
    if config.compat:
        args.append("--compat")
    if not config.list03:
        args.append("--no-0.3-interfaces")
    # Files, not pipes: nobody reads the agent's output after its first line, and a
    # pipe left full would stall it.
    out = tempfile.TemporaryFile()  # noqa: SIM115 - closed below once the first line is read
    err = tempfile.TemporaryFile()  # noqa: SIM115 - the agent's: closed when it stops
    proc = subprocess.Popen(args, cwd=JS_DIR, stdin=subprocess.PIPE, stdout=out, stderr=err)
    try:
        ready = _first_line(proc, out, err)
    except BaseException:
        proc.kill()
        proc.wait()
        err.close()
        raise
    finally:
        out.close()
    return JsAgent(config, ready["base"], ready["card"], ready["jsonrpc"], ready["rest"], ready["grpc"], proc, err)


def _first_line(proc: subprocess.Popen[bytes], out: IO[bytes], err: IO[bytes]) -> dict[str, str]:
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        out.seek(0)
        line = out.readline()
        if line.endswith(b"\n"):
            return json.loads(line)
        if proc.poll() is not None:
            err.seek(0)
            raise RuntimeError(
                f"agent.mjs exited {proc.returncode} before it listened: {err.read()[-2000:].decode(errors='replace')}"
            )
        if time.monotonic() > deadline:
            raise RuntimeError(f"agent.mjs did not listen within {START_TIMEOUT} s")
        time.sleep(0.02)


class Agents:
    """The agents of one test session, started on first use, one per configuration."""

    def __init__(self) -> None:
        self._running: dict[Config, JsAgent] = {}

    def get(self, bindings: tuple[str, ...] = BINDINGS, compat: bool = True, list03: bool = True) -> JsAgent:
        config = Config(tuple(bindings), compat, list03)
        agent = self._running.get(config)
        if agent is None:
            agent = self._running[config] = start(config)
        return agent

    def stop(self) -> None:
        for agent in self._running.values():
            agent.stop()
        self._running.clear()
