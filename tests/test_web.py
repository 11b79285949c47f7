"""``a2a-inspect web``: the terminal UI in a browser tab (issue 28, item 14).

The server is the real command in a subprocess, on 127.0.0.1 port 0. What a browser
does is done by a real headless Chromium (tests/browser.py); the rules of the gate and
the app process behind each WebSocket are checked with httpx and a WebSocket client,
which need no browser, the app's screen read through a VT emulator (pyte) from the
bytes the socket carries.
"""

from __future__ import annotations

import os
import re
import select
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pyte
import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import ClientConnection, connect

import browser
from inspector.web.gate import TOKEN_PARAM, Gate

WAIT = 30.0
LINK = re.compile(r"http://127\.0\.0\.1:(\d+)/\?token=([A-Za-z0-9_-]+)")


# --- the gate, as rules -----------------------------------------------------------------


def _headers(port: int, **more: str) -> list[tuple[bytes, bytes]]:
    return [(b"host", f"127.0.0.1:{port}".encode())] + [
        (k.replace("_", "-").encode(), v.encode()) for k, v in more.items()
    ]


def test_the_token_opens_the_page_once_and_then_only_the_cookie_does() -> None:
    gate = Gate(8780)
    first = gate.check("/", {TOKEN_PARAM: gate.token}, {}, _headers(8780))
    assert first.location == "/" and first.cookie is not None and first.cookie[0] == gate.cookie_name
    cookies = dict([first.cookie])
    # The token again, from anyone without the cookie (a process list, a shell history).
    again = gate.check("/", {TOKEN_PARAM: gate.token}, {}, _headers(8780))
    assert not again.allow and again.reason is not None
    assert gate.check("/", {}, cookies, _headers(8780)).allow
    assert gate.check("/ws", {}, cookies, _headers(8780)).allow
    assert gate.check("/static/js/textual.js", {}, cookies, _headers(8780)).allow
    # The same browser opening the link again is sent to the bare page.
    assert gate.check("/", {TOKEN_PARAM: gate.token}, cookies, _headers(8780)).location == "/"
    assert not gate.check("/", {}, {gate.cookie_name: "guess"}, _headers(8780)).allow


def test_nothing_but_the_page_with_the_right_token_spends_it() -> None:
    gate = Gate(8780)
    for path, query in (
        ("/", {}),
        ("/", {TOKEN_PARAM: "x" + gate.token}),
        ("/", {TOKEN_PARAM: "é"}),
        ("/ws", {TOKEN_PARAM: gate.token}),
        ("/static/css/xterm.css", {}),
    ):
        verdict = gate.check(path, query, {}, _headers(8780))
        assert not verdict.allow and verdict.reason is not None and verdict.cookie is None, (path, query)
    assert not gate.spent
    assert gate.check("/", {TOKEN_PARAM: gate.token}, {}, _headers(8780)).cookie is not None


def test_other_pages_are_refused_even_with_the_cookie() -> None:
    gate = Gate(8780)
    cookies = dict([gate.check("/", {TOKEN_PARAM: gate.token}, {}, _headers(8780)).cookie or ("", "")])
    # A page on another local port is the same site: SameSite=Strict lets the cookie go
    # with its WebSocket, so its Origin is what refuses it.
    other = gate.check("/ws", {}, cookies, _headers(8780, origin="http://127.0.0.1:9999"))
    assert not other.allow and "origin" in (other.reason or "")
    assert gate.check("/ws", {}, cookies, _headers(8780, origin="http://127.0.0.1:8780")).allow
    # DNS rebinding: the page's own name in Host.
    rebound = gate.check("/", {}, cookies, [(b"host", b"evil.example:8780")])
    assert not rebound.allow and "--allow-host" not in (rebound.reason or "")


# --- the server -------------------------------------------------------------------------


class Web:
    def __init__(self, proc: subprocess.Popen[bytes], port: int, token: str) -> None:
        self.proc = proc
        self.port = port
        self.token = token
        self.base = f"http://127.0.0.1:{port}"
        self.link = f"{self.base}/?{TOKEN_PARAM}={token}"


@contextmanager
def web_server(*args: str) -> Iterator[Web]:
    """``a2a-inspect web ARGS --port 0``, until the block ends (then Ctrl-C, exit 0)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "inspector.cli", "web", "--port", "0", *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        assert proc.stdout is not None
        ready, _, _ = select.select([proc.stdout], [], [], WAIT)
        line = proc.stdout.readline().decode() if ready else ""
        found = LINK.search(line)
        assert found, f"no link printed: {line!r} {proc.stderr.read() if proc.poll() is not None else ''}"
        yield Web(proc, int(found[1]), found[2])
        proc.send_signal(signal.SIGINT)
        assert proc.wait(WAIT) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def descendants(pid: int) -> list[int]:
    """The processes below ``pid`` (zombies aside), from /proc."""
    parents: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        if fields[0] != "Z":
            parents.setdefault(int(fields[1]), []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        for child in parents.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def cmdline(pid: int) -> list[str]:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")[:-1]
    except OSError:
        return []


def apps(pid: int) -> list[int]:
    """The app processes below the server (textual-serve runs each through a shell)."""
    return [p for p in descendants(pid) if cmdline(p)[1:3] == ["-m", "inspector.cli"]]


def wait_until(check, what: str) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + WAIT
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


class AppSocket:
    """A browser's WebSocket without the browser: the app's output read into pyte."""

    def __init__(self, ws: ClientConnection, size: tuple[int, int] = (120, 40)) -> None:
        self.ws = ws
        self.screen = pyte.Screen(*size)
        self.stream = pyte.ByteStream(self.screen)

    def wait_for(self, needle: str) -> str:
        deadline = time.monotonic() + WAIT
        while True:
            text = "\n".join(self.screen.display)
            if needle in text:
                return text
            assert time.monotonic() < deadline, f"timed out waiting for {needle!r}; the app shows:\n{text}"
            try:
                frame = self.ws.recv(timeout=0.2)
            except TimeoutError:
                continue
            if isinstance(frame, bytes):
                self.stream.feed(frame)


def test_a_socket_runs_the_app_on_the_same_arguments_and_closing_it_ends_the_app(a2a_mock) -> None:
    with web_server(a2a_mock.url, "--dialect", "0.3") as web, httpx.Client(base_url=web.base) as http:
        ws_url = f"ws://127.0.0.1:{web.port}/ws?width=120&height=40"
        # Without the session: refused before anything runs, the page's scripts included.
        for path in ("/", f"/?{TOKEN_PARAM}=wrong", "/static/js/textual.js", "/download/x"):
            assert http.get(path).status_code == 403, path
        with pytest.raises(InvalidStatus) as refused:
            connect(ws_url, open_timeout=WAIT).close()
        assert refused.value.response.status_code == 403
        assert descendants(web.proc.pid) == []
        # The link: spent once, a session cookie in exchange.
        opened = http.get(f"/?{TOKEN_PARAM}={web.token}")
        assert opened.status_code == 303 and opened.headers["location"] == "/"
        cookie = opened.headers["set-cookie"]
        assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
        name, value = cookie.split(";")[0].split("=", 1)
        assert httpx.get(web.link).status_code == 403  # another client with the same link
        page = http.get("/")
        assert page.status_code == 200 and f"ws://127.0.0.1:{web.port}/ws" in page.text
        assert "https://" not in page.text  # nothing loaded from elsewhere (textual-serve's page loads web fonts)
        # The cookie's WebSocket starts the app, with web's arguments.
        with connect(ws_url, additional_headers={"Cookie": f"{name}={value}"}, open_timeout=WAIT) as ws:
            shown = AppSocket(ws).wait_for("● ready")
            assert "Echo Agent" in shown and a2a_mock.url in shown and "dialect 0.3" in shown
            (app,) = apps(web.proc.pid)
            assert cmdline(app)[3:] == ["--dialect", "0.3", "--binding", "auto", "--", a2a_mock.url]
        # Closing the socket (what closing the tab does) ends the app.
        wait_until(lambda: descendants(web.proc.pid) == [], "the app process to end")


def test_stopping_the_server_ends_the_open_sessions_apps(a2a_mock) -> None:
    with web_server(a2a_mock.url) as web:
        opened = httpx.get(f"{web.link}")
        name, value = opened.headers["set-cookie"].split(";")[0].split("=", 1)
        with connect(
            f"ws://127.0.0.1:{web.port}/ws", additional_headers={"Cookie": f"{name}={value}"}, open_timeout=WAIT
        ) as ws:
            AppSocket(ws).wait_for("● ready")
            running = descendants(web.proc.pid)
            assert len(apps(web.proc.pid)) == 1
            web.proc.send_signal(signal.SIGINT)
            assert web.proc.wait(WAIT) == 0
        wait_until(lambda: not any(cmdline(p) for p in running), "the app to end with the server")


def test_a_browser_opens_the_demo_sends_a_message_and_sees_it_completed(tmp_path: Path) -> None:
    browser.require()
    with web_server("--demo") as web, browser.Chromium(tmp_path / "profile") as chromium:
        page = chromium.open(web.link)
        page.wait_for("● ready")
        page.wait_for("demo agent")
        (app,) = apps(web.proc.pid)
        assert "--demo" in cmdline(app)
        page.focus()
        page.type("hello there")
        page.wait_for("hello there")
        page.press("s", ctrl=True)
        shown = page.wait_until(
            lambda text: "▸ completed" in text and "echo: hello there" in text,
            "the task completed, its echo artifact shown",
        )
        assert "hello there" in shown
        page.close()
        wait_until(lambda: descendants(web.proc.pid) == [], "the app to end with its tab")


def test_the_port_taken_and_usage_errors_are_one_line_each() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "inspector.cli", "web", "--demo", "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=WAIT,
        )
        assert done.returncode == 1 and done.stderr.startswith(f"a2a-inspect web: cannot listen on 127.0.0.1:{port}")
        assert len(done.stderr.splitlines()) == 1
    done = subprocess.run(
        [sys.executable, "-m", "inspector.cli", "web", "http://127.0.0.1:1", "--dialect", "0.1", "--binding", "grpc"],
        capture_output=True,
        text=True,
        timeout=WAIT,
    )
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1
    # Without the web extra: what to install, not a traceback.
    without = (
        "import sys; sys.modules['textual_serve'] = None; from inspector.cli import main; "
        "sys.exit(main(['web', '--demo', '--port', '0']))"
    )
    done = subprocess.run([sys.executable, "-c", without], capture_output=True, text=True, timeout=WAIT)
    assert done.returncode == 2 and done.stderr == (
        "a2a-inspect web: needs the web extra (textual_serve is missing): pip install 'a2a-inspect[web]'\n"
    )
