"""The web UI's server: textual-serve's Server on a loopback socket, behind the gate.

textual-serve starts the app as a subprocess for each browser WebSocket and ends it
(a ``quit`` message to the app) when the socket closes, which is what closing the tab
does. This subclass changes where it listens (a socket bound here, so ``--port 0`` works
and the printed link has the real port), puts the gate in front of every route, serves
a page of ours (no web fonts from elsewhere) and prints the one-time link instead of
textual-serve's banner and access log, which would show the token.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import shlex
import signal
import socket
import sys
from pathlib import Path
from typing import Any

import aiohttp_jinja2
import jinja2
from aiohttp import web
from textual_serve.server import Server

from .gate import Gate, cookie_attributes

TEMPLATES = Path(__file__).with_name("templates")
#: How long the server waits, when stopped, for open sessions' apps to quit.
SHUTDOWN_SECONDS = 5.0
#: Answers the page itself gets: never framed by another page, never cached.
PAGE_HEADERS = {
    "Content-Security-Policy": "frame-ancestors 'none'",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
}


def app_argv(args: argparse.Namespace) -> list[str]:
    """The terminal UI's command line for ``web``'s arguments: what each browser tab runs.
    Options first and the URL after ``--``, so that no URL reads as a command or option."""
    argv = [sys.executable, "-m", "inspector.cli", "--dialect", args.dialect, "--binding", args.binding]
    if args.demo:
        argv.append("--demo")
    if args.url:
        argv += ["--", args.url]
    return argv


class WebServer(Server):
    """``WebServer(command, sock, gate).serve()``: serve the app ``command`` (a shell
    command line) to the browser the gate admits, on ``sock`` (bound, loopback)."""

    def __init__(self, command: str, sock: socket.socket, gate: Gate) -> None:
        port = sock.getsockname()[1]
        super().__init__(command, host="127.0.0.1", port=port, title="a2a-inspect", templates_path=TEMPLATES)
        self.sock = sock
        self.gate = gate
        self.sessions: set[asyncio.Task[Any]] = set()

    def initialize_logging(self) -> None:
        # textual-serve's own warnings (an app that failed to start), one line each.
        logging.basicConfig(level=logging.WARNING, format="a2a-inspect web: %(message)s")

    def build_app(self) -> web.Application:
        app = web.Application(middlewares=[self.admit])
        aiohttp_jinja2.setup(app, loader=jinja2.FileSystemLoader(self.templates_path))
        app.add_routes(
            [
                web.get("/", self.handle_index, name="index"),
                web.get("/ws", self.handle_websocket, name="websocket"),
                web.get("/download/{key}", self.handle_download, name="download"),
                web.static("/static", self.statics_path, name="static"),
            ]
        )
        return app

    @web.middleware
    async def admit(self, request: web.Request, handler: Any) -> web.StreamResponse:
        """Every request passes the gate before any handler runs: no app process starts
        for a request without the session."""
        headers = [(key.lower(), value) for key, value in request.raw_headers]
        verdict = self.gate.check(request.path, request.query, request.cookies, headers)
        if verdict.reason is not None:
            return web.Response(status=403, text=verdict.reason + "\n", headers=PAGE_HEADERS)
        if verdict.location is not None:
            response = web.Response(status=303, headers={**PAGE_HEADERS, "Location": verdict.location})
            if verdict.cookie is not None:
                response.set_cookie(*verdict.cookie, **cookie_attributes())
            return response
        response = await handler(request)
        if not response.prepared:  # a WebSocket has answered already
            response.headers.update(PAGE_HEADERS)
        return response

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        # Kept so that stopping the server ends each session's app (on_shutdown).
        task = asyncio.current_task()
        assert task is not None
        self.sessions.add(task)
        try:
            return await super().handle_websocket(request)
        finally:
            self.sessions.discard(task)

    async def on_startup(self, app: web.Application) -> None:
        """Nothing: textual-serve's banner would name the command; run() prints the link."""

    async def end_sessions(self) -> None:
        """Quit every open session's app and close its socket. textual-serve's handler
        answers a cancel so; done while the server still reads its sockets (before
        aiohttp's shutdown, which stops reading them: the close handshake would wait
        out its timeout)."""
        for task in list(self.sessions):
            task.cancel()
        if self.sessions:
            await asyncio.wait(list(self.sessions), timeout=SHUTDOWN_SECONDS)

    def serve(self, debug: bool = False) -> None:
        self.debug = debug
        self.initialize_logging()
        asyncio.run(self.run())

    async def run(self) -> None:
        runner = web.AppRunner(
            self.build_app(), handle_signals=False, access_log=None, shutdown_timeout=SHUTDOWN_SECONDS
        )
        await runner.setup()
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        try:
            await web.SockSite(runner, self.sock).start()
            print(
                f"a2a-inspect web: open {self.gate.link()} in your browser\n"
                "  (the link works once, for the first browser that opens it; ctrl+c stops)",
                flush=True,
            )
            await stop.wait()
            await self.end_sessions()
        finally:
            await runner.cleanup()


def listen(port: int) -> socket.socket:
    """A listening TCP socket on 127.0.0.1:``port`` (0: a free one); OSError if it cannot be had."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", port))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    sock.setblocking(False)
    return sock


def run_web(args: argparse.Namespace) -> int:
    try:
        sock = listen(args.port)
    except OSError as exc:
        print(f"a2a-inspect web: cannot listen on 127.0.0.1:{args.port}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    gate = Gate(sock.getsockname()[1])
    WebServer(shlex.join(app_argv(args)), sock, gate).serve()
    return 0
