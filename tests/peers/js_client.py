"""Running the official JS SDK's client (tests/peers/js/client.mjs) against an agent, and
reading what it printed.

Each call is one node process (or, for ``run``, one call of a node process kept for
them: ``client.mjs --serve``): the SDK's ClientFactory reads the agent's card, picks the
transport (its 0.3 legacy transports for a 0.3 card), makes one call and prints one JSON
line per answer or stream event (1.0 ProtoJSON: {"task": ...}, {"statusUpdate": ...}),
or one {"error": ...} line and exit 1. The whole run is bounded: the script's own
--timeout, and a kill a few seconds later should node itself hang.
"""

from __future__ import annotations

import atexit
import contextlib
import itertools
import json
import shutil
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from peers import js_peers

CLIENT = js_peers.JS_DIR / "client.mjs"
#: The client's own bound (seconds): every call here is over in well under one.
TIMEOUT = 20.0
#: What the SDK names its transports (the class the factory chose), per dialect and binding.
TRANSPORTS = {
    ("1.0", "jsonrpc"): "JsonRpcTransport",
    ("0.3", "jsonrpc"): "LegacyJsonRpcTransport",
    ("1.0", "rest"): "RestTransport",
    ("0.3", "rest"): "LegacyRestTransport",
    ("1.0", "grpc"): "GrpcTransport",
    ("0.3", "grpc"): "LegacyGrpcTransport",
}


@dataclass
class JsRun:
    args: tuple[str, ...]
    code: int
    #: The JSON lines on stdout, in order.
    lines: list[dict[str, Any]]
    stderr: str
    #: The {"client": ...} line from stderr: transport (class name), protocolName, protocolVersion.
    client: dict[str, Any] = field(default_factory=dict)

    @property
    def error(self) -> dict[str, Any] | None:
        return next((line["error"] for line in self.lines if "error" in line), None)

    @property
    def transport(self) -> str:
        # The bundler prefixes some class names with "_" (_RestTransport): the name is the rest.
        return str(self.client.get("transport", "")).lstrip("_")

    @property
    def task(self) -> dict[str, Any]:
        """The one task answered (send, get, cancel)."""
        assert self.code == 0 and len(self.lines) == 1 and "task" in self.lines[0], self
        return self.lines[0]["task"]

    def payloads(self, kind: str) -> list[dict[str, Any]]:
        """The stream events of one kind ("task", "statusUpdate", "artifactUpdate", "message")."""
        return [line[kind] for line in self.lines if kind in line]

    def __str__(self) -> str:
        return f"node client.mjs {' '.join(self.args)} -> {self.code}\n{self.lines}\n{self.stderr[-2000:]}"


def _command(
    url: str,
    transport: str,
    operation: str,
    text: str | None,
    task: str | None,
    context: str | None,
    return_immediately: bool,
    timeout: float,
) -> list[str]:
    js_peers.require()
    node = shutil.which("node")
    assert node is not None  # require() has checked
    args: list[str] = [url, transport, operation]
    if text is not None:
        args.append(text)
    if task is not None:
        args += ["--task", task]
    if context is not None:
        args += ["--context", context]
    if return_immediately:
        args.append("--return-immediately")
    return [node, str(CLIENT), *args, "--timeout", f"{timeout:g}"]


def _result(command: list[str], code: int, stdout: str, stderr: str) -> JsRun:
    lines = [json.loads(line) for line in stdout.splitlines() if line.strip()]
    client: dict[str, Any] = {}
    for line in stderr.splitlines():
        if line.startswith('{"client":'):
            client = json.loads(line)["client"]
    return JsRun(tuple(command[2:]), code, lines, stderr, client)


def run(
    url: str,
    transport: str,
    operation: str,
    text: str | None = None,
    *,
    task: str | None = None,
    context: str | None = None,
    return_immediately: bool = False,
    timeout: float = TIMEOUT,
) -> JsRun:
    """``node client.mjs URL TRANSPORT OPERATION [TEXT] ...``, to its end: made by this
    process's client server (``client.mjs --serve``), as that command would make it."""
    command = _command(url, transport, operation, text, task, context, return_immediately, timeout)
    code, stdout, stderr = _server().call(command[2:], timeout + 10)
    return _result(command, code, stdout, stderr)


class _Server:
    """``node client.mjs --serve``: one node process making this test process's calls one
    at a time (node and the SDK start once: about 0.4 s of CPU a call saved). A call that
    does not end in time takes the process with it; the next call starts another."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen[str] | None = None
        self.lock = threading.Lock()
        self.ids = itertools.count(1)

    def _started(self) -> subprocess.Popen[str]:
        if self.proc is None or self.proc.poll() is not None:
            node = shutil.which("node")
            assert node is not None  # _command's require() has checked
            self.proc = subprocess.Popen(
                [node, str(CLIENT), "--serve"],
                cwd=js_peers.JS_DIR,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
            atexit.register(self.close)
        return self.proc

    def close(self) -> None:
        if self.proc is not None and self.proc.stdin is not None:
            self.proc.stdin.close()  # it ends when stdin closes
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def call(self, argv: list[str], timeout: float) -> tuple[int, str, str]:
        with self.lock:
            proc = self._started()
            assert proc.stdin is not None and proc.stdout is not None
            number = next(self.ids)
            proc.stdin.write(json.dumps({"id": number, "argv": argv}) + "\n")
            proc.stdin.flush()
            # The client's own --timeout ends the call; this bounds node itself.
            watchdog = threading.Timer(timeout, proc.kill)
            watchdog.start()
            out: list[str] = []
            notes: list[str] = []
            try:
                for line in proc.stdout:
                    answer = json.loads(line)
                    if answer.get("id") != number:
                        continue
                    if "end" in answer:
                        return int(answer["end"]), "".join(out), "".join(notes)
                    if "out" in answer:
                        out.append(json.dumps(answer["out"]) + "\n")
                    else:
                        notes.append(str(answer.get("note", "")) + "\n")
            finally:
                watchdog.cancel()
            raise AssertionError(f"the JS client server ended during {argv} (killed after {timeout:g} s?): {out}")


_SERVER: _Server | None = None


def _server() -> _Server:
    global _SERVER
    if _SERVER is None:
        _SERVER = _Server()
    return _SERVER


class Running:
    """A client still running (a stream): read its lines as they come, then finish it."""

    def __init__(self, command: list[str], proc: subprocess.Popen[str]) -> None:
        self.command = command
        self.proc = proc
        self.seen: list[str] = []

    def next_line(self) -> dict[str, Any]:
        """The next JSON line on stdout (the client's own --timeout bounds the wait)."""
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        assert line, f"the JS client ended before another line: {self.seen}"
        self.seen.append(line)
        return json.loads(line)

    def finish(self, timeout: float = TIMEOUT) -> JsRun:
        out, err = self.proc.communicate(timeout=timeout)
        return _result(self.command, self.proc.returncode, "".join(self.seen) + out, err)


@contextlib.contextmanager
def started(
    url: str,
    transport: str,
    operation: str,
    text: str | None = None,
    *,
    task: str | None = None,
    timeout: float = TIMEOUT,
) -> Iterator[Running]:
    """The client started in the background; ended by its pid when the block leaves."""
    command = _command(url, transport, operation, text, task, None, False, timeout)
    proc = subprocess.Popen(command, cwd=js_peers.JS_DIR, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        yield Running(command, proc)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate(timeout=10)


def artifact_text(events: list[dict[str, Any]], artifact_id: str) -> str:
    """An artifact assembled from its artifactUpdate events the way A2A says: a chunk
    with append adds its parts' text, one without starts the artifact again."""
    text = ""
    for event in events:
        artifact = event.get("artifact") or {}
        if artifact.get("artifactId") != artifact_id:
            continue
        chunk = "".join(p.get("text", "") for p in artifact.get("parts", []))
        text = text + chunk if event.get("append") else chunk
    return text
