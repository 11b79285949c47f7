"""Run an ASGI app with uvicorn on a loopback port, in a thread or in the running loop.

Used by the mock (its programmatic API and its command), the push receiver, the
inspector's ``--demo`` and the test suite:
port 0 lets the OS pick a free port, and the bound port is read back once uvicorn has
started, so callers always get a working URL.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import uvicorn

from .deadline import REQUEST_TIMEOUT, protocol
from .loopback import LOOPBACK as LOOPBACK


def url_at(base: str, path: str) -> str:
    """``path`` under ``base``'s path, built with urllib rather than by joining strings:
    a query on ``base`` stays a query (after the path), and no slash is doubled."""
    parts = urlsplit(base)
    return urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/") + "/" + path.lstrip("/"), parts.query, ""))


def _config(app: Any, host: str, port: int, **kwargs: Any) -> uvicorn.Config:
    """``request_timeout``: seconds each request may take to arrive (deadline.py)."""
    if host not in (LOOPBACK, "localhost", "::1"):
        # The mock is a debugging aid: exposing it beyond this machine must be explicit.
        if not kwargs.pop("allow_public", False):
            raise ValueError(f"refusing to bind {host}: the mock binds loopback only (pass allow_public=True)")
    kwargs.pop("allow_public", None)
    kwargs.setdefault("lifespan", "auto")
    http = protocol(kwargs.pop("request_timeout", REQUEST_TIMEOUT))
    return uvicorn.Config(app, host=host, port=port, log_level="warning", access_log=False, http=http, **kwargs)


class _Server(uvicorn.Server):
    # Signal handlers belong to whoever owns the process (the CLI, pytest, the TUI).
    # uvicorn's serve() takes SIGINT/SIGTERM for itself while it runs in the main thread
    # (capture_signals since 0.29; install_signal_handlers, overridden here before, is
    # gone): the proxy's and the hub's own handler then never saw a Ctrl-C until uvicorn
    # had shut its connections under the streams it was relaying.
    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


def check_port(host: str, port: int) -> None:
    """Raise OSError (naming ``host:port``) if a chosen port cannot be bound. uvicorn would
    log it and call sys.exit(), which in a running event loop ends the whole process."""
    if not port:
        return
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as asyncio's create_server
        try:
            probe.bind((host, port))
        except OSError as exc:
            raise OSError(exc.errno, exc.strerror or str(exc), f"{host}:{port}") from None


async def _serve(server: uvicorn.Server) -> None:
    try:
        await server.serve()
    except SystemExit as exc:  # uvicorn's answer to a failed start; lost the race above
        raise RuntimeError(f"uvicorn could not start (exit {exc.code}); see its log") from None


def _bound_port(server: uvicorn.Server) -> int:
    for srv in server.servers:
        for sock in srv.sockets:
            return sock.getsockname()[1]
    raise RuntimeError("uvicorn started without a listening socket")


def serve_until_interrupted(app: Any, host: str, port: int, banner: Callable[[str], list[str]], prog: str) -> int:
    """Serve ``app`` in the foreground until Ctrl-C, as the a2a-mock command does. Once
    listening, prints ``banner(base_url)``, a line each. Returns the exit status: 1 (with
    one line on stderr, after ``prog:``) when the port cannot be had."""
    try:
        check_port(host, port)
        asyncio.run(_serve_foreground(app, host, port, banner))
    except KeyboardInterrupt:
        pass
    except OSError as exc:
        print(f"{prog}: cannot listen on {host}:{port}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    except SystemExit:  # uvicorn's own exit when it cannot start; it has logged why
        print(f"{prog}: cannot listen on {host}:{port}", file=sys.stderr)
        return 1
    return 0


async def _serve_foreground(app: Any, host: str, port: int, banner: Callable[[str], list[str]]) -> None:
    # uvicorn's own server and signal handlers: Ctrl-C ends it gracefully.
    uv = uvicorn.Server(_config(app, host, port, lifespan="on", allow_public=True))
    task = asyncio.create_task(uv.serve())
    while not uv.started:
        if task.done():
            await task  # re-raises what stopped it
            raise OSError("the server stopped before it started")
        await asyncio.sleep(0.02)
    base = f"http://{'[' + host + ']' if ':' in host else host}:{_bound_port(uv)}"
    for line in banner(base):
        print(line, flush=True)
    await task


class BackgroundServer:
    """``with BackgroundServer(app) as srv: srv.url`` — uvicorn in a daemon thread.

    Also ``async with`` — uvicorn as a task in the running event loop."""

    def __init__(self, app: Any, host: str = LOOPBACK, port: int = 0, **uvicorn_kwargs: Any) -> None:
        self.app = app
        self.host = host
        self.port = port
        self._kwargs = uvicorn_kwargs
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self._task: asyncio.Task[None] | None = None

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    # -- thread ---------------------------------------------------------------

    def start(self, timeout: float = 10.0) -> BackgroundServer:
        check_port(self.host, self.port)
        server = self._server = _Server(_config(self.app, self.host, self.port, **self._kwargs))
        failed: list[BaseException] = []

        def run() -> None:
            try:
                server.run()
            except BaseException as exc:  # surfaced to the starting thread below
                failed.append(exc)

        self._thread = threading.Thread(target=run, name="a2a-uvicorn", daemon=True)
        self._thread.start()
        waited = 0.0
        while not self._server.started:
            if failed or not self._thread.is_alive():
                raise RuntimeError(f"server failed to start: {failed[0] if failed else 'exited'}")
            if waited > timeout:
                raise RuntimeError("server did not start in time")
            threading.Event().wait(0.01)
            waited += 0.01
        self.port = _bound_port(self._server)
        return self

    def stop(self, timeout: float = 5.0) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout)
            if self._thread.is_alive() and self._server is not None:
                self._server.force_exit = True
                self._thread.join(timeout)
        self._thread = None

    def __enter__(self) -> BackgroundServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    # -- event loop -------------------------------------------------------------

    async def astart(self, timeout: float = 10.0) -> BackgroundServer:
        check_port(self.host, self.port)
        self._server = _Server(_config(self.app, self.host, self.port, **self._kwargs))
        self._task = asyncio.create_task(_serve(self._server), name="a2a-uvicorn")
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not self._server.started:
            if self._task.done():
                exc = self._task.exception()
                raise RuntimeError(f"server failed to start: {exc or 'exited'}")
            if loop.time() > deadline:
                raise RuntimeError("server did not start in time")
            await asyncio.sleep(0.01)
        self.port = _bound_port(self._server)
        return self

    async def astop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._task is not None:
            with contextlib.suppress(asyncio.CancelledError, asyncio.TimeoutError):
                await asyncio.wait_for(self._task, 5.0)
            if not self._task.done():
                self._task.cancel()
            self._task = None

    async def __aenter__(self) -> BackgroundServer:
        return await self.astart()

    async def __aexit__(self, *exc: Any) -> None:
        await self.astop()
