"""A real headless Chromium, driven over the Chrome DevTools protocol (a WebSocket, with the
``websockets`` package the product already depends on): what ``a2a-inspect web``'s page
shows, read from the page's own terminal.

Debian's ``chromium`` is not a Python package: without it the browser tests skip and say
why, unless A2A_INSPECT_BROWSER=required (``.ci/run``), where a missing browser fails.

The page draws the app in xterm.js on a canvas, so its text is not in the DOM. The test
asks the page's terminal object for its lines (xterm's public buffer API), found on the
page's heap with the protocol's ``Runtime.queryObjects``: what the terminal holds is
what the canvas shows. Keys go in as the browser's own key events.

    with Chromium(tmp_path) as browser:
        page = browser.open(url)
        page.wait_for("● ready")
        page.type("hello")
        page.press("s", ctrl=True)
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from websockets.sync.client import ClientConnection, connect

REQUIRED = os.environ.get("A2A_INSPECT_BROWSER") == "required"
#: Debian's packages put it here; elsewhere, whatever ``chromium`` is on PATH.
CHROMIUM = "/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else shutil.which("chromium")
#: The longest any wait lasts: it ends a broken test, it does not time the app.
WAIT = 30.0

#: The page's terminal, as xterm's public API has it: a buffer with an active screen.
_FIND_TERMINAL = """function () {
  const terminal = o => {
    try {
      return typeof o.write === 'function' && typeof o.rows === 'number' && o.buffer && o.buffer.active
             && typeof o.buffer.active.getLine === 'function';
    } catch (e) {
      return false;  // a getter that refuses this receiver (typed arrays' buffer)
    }
  };
  return this.find(o => o && terminal(o)) || null;
}"""
_SCREEN_TEXT = """function () {
  const b = this.buffer.active, lines = [];
  for (let y = 0; y < this.rows; y++) {
    const line = b.getLine(b.viewportY + y);
    lines.push(line ? line.translateToString(true) : '');
  }
  return lines.join('\\n');
}"""


def require() -> None:
    """Skip the calling test (fail it under A2A_INSPECT_BROWSER=required) without Chromium."""
    if CHROMIUM is not None:
        return
    reason = "no Chromium (apt-get install chromium)"
    if REQUIRED:
        pytest.fail(f"A2A_INSPECT_BROWSER=required, but {reason}")
    pytest.skip(reason)


class Chromium:
    """A headless Chromium with its own profile in ``profile``, for one ``with`` block."""

    def __init__(self, profile: Path, size: tuple[int, int] = (1280, 900)) -> None:
        self.profile = profile
        self.size = size
        self.proc: subprocess.Popen[bytes] | None = None
        self.ws: ClientConnection | None = None
        self._next = 0
        self.events: list[dict[str, Any]] = []
        self._stack = ExitStack()

    def __enter__(self) -> Chromium:
        assert CHROMIUM is not None
        self.proc = subprocess.Popen(
            [
                CHROMIUM,
                "--headless=new",
                "--no-sandbox",
                "--remote-debugging-port=0",
                "--remote-debugging-address=127.0.0.1",
                f"--user-data-dir={self.profile}",
                f"--window-size={self.size[0]},{self.size[1]}",
                "--no-first-run",
                "--no-default-browser-check",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-default-apps",
                "--disable-extensions",
                "--mute-audio",
                # Loopback only: any name the page or the browser would look up fails.
                "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
                "--disable-crash-reporter",
                "--disable-breakpad",
                "about:blank",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        # Chromium writes the port it chose, and the browser target's path, here.
        active = self.profile / "DevToolsActivePort"
        deadline = time.monotonic() + WAIT
        while not (active.exists() and len(active.read_text().split()) >= 2):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.__exit__(None, None, None)
                raise AssertionError(f"Chromium did not start (exit {self.proc.returncode})")
            time.sleep(0.05)
        port, path = active.read_text().split()[:2]
        self.ws = self._stack.enter_context(connect(f"ws://127.0.0.1:{port}{path}", max_size=None, open_timeout=WAIT))
        return self

    def __exit__(self, *exc: object) -> None:
        if self.ws is not None:
            try:  # as a person quits it: Chromium ends its own helper processes
                self.call("Browser.close")
            except Exception:  # noqa: BLE001 - it may already be gone; terminate() below
                pass
        self._stack.close()
        if self.proc is not None and self.proc.poll() is None:
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def call(self, method: str, params: dict[str, Any] | None = None, session: str | None = None) -> dict[str, Any]:
        """One protocol command; its result (events that arrive meanwhile are kept)."""
        assert self.ws is not None
        self._next += 1
        message: dict[str, Any] = {"id": self._next, "method": method, "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        self.ws.send(json.dumps(message))
        deadline = time.monotonic() + WAIT
        while True:
            answer = json.loads(self.ws.recv(timeout=max(0.1, deadline - time.monotonic())))
            if answer.get("id") != self._next:
                self.events.append(answer)
                continue
            if "error" in answer:
                raise AssertionError(f"{method}: {answer['error']}")
            return answer.get("result", {})

    def wait_event(self, method: str, session: str | None = None) -> dict[str, Any]:
        """The next event ``method`` (of ``session``'s page), kept or still to come."""
        assert self.ws is not None
        deadline = time.monotonic() + WAIT
        while True:
            for event in self.events:
                if event.get("method") == method and event.get("sessionId") == session:
                    self.events.remove(event)
                    return event.get("params", {})
            self.events.append(json.loads(self.ws.recv(timeout=max(0.1, deadline - time.monotonic()))))

    def open(self, url: str) -> Page:
        """A new tab, loaded from ``url`` (redirects followed)."""
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        self.call("Page.enable", session=session)
        self.call("Page.navigate", {"url": url}, session)
        self.wait_event("Page.loadEventFired", session)
        return Page(self, target, session)


class Page:
    """One tab: its terminal's text, and keys typed into it."""

    def __init__(self, browser: Chromium, target: str, session: str) -> None:
        self.browser = browser
        self.target = target
        self.session = session
        self._terminal: str | None = None

    def call(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        return self.browser.call(method, params, self.session)

    def evaluate(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        return result["result"].get("value")

    def _find_terminal(self) -> str | None:
        proto = self.call("Runtime.evaluate", {"expression": "Object.prototype", "objectGroup": "find"})
        found = self.call(
            "Runtime.queryObjects", {"prototypeObjectId": proto["result"]["objectId"], "objectGroup": "find"}
        )
        terminal = self.call(
            "Runtime.callFunctionOn",
            {
                "objectId": found["objects"]["objectId"],
                "functionDeclaration": _FIND_TERMINAL,
                "objectGroup": "terminal",
            },
        )["result"]
        self.call("Runtime.releaseObjectGroup", {"objectGroup": "find"})
        return terminal.get("objectId")

    def text(self) -> str:
        """What the page's terminal shows, a line a row ('' until it exists)."""
        if self._terminal is None:
            self._terminal = self._find_terminal()
            if self._terminal is None:
                return ""
        result = self.call(
            "Runtime.callFunctionOn",
            {"objectId": self._terminal, "functionDeclaration": _SCREEN_TEXT, "returnByValue": True},
        )
        return result["result"].get("value") or ""

    def wait_until(self, check: Callable[[str], bool], what: str, timeout: float = WAIT) -> str:
        deadline = time.monotonic() + timeout
        while True:
            text = self.text()
            if check(text):
                return text
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}; the page shows:\n{text}")
            time.sleep(0.1)

    def wait_for(self, needle: str, timeout: float = WAIT) -> str:
        return self.wait_until(lambda text: needle in text, repr(needle), timeout)

    def focus(self) -> None:
        """Keys to the terminal (xterm reads them from its hidden text area), as a click
        would give them, without clicking on the app."""
        self.evaluate("document.querySelector('.xterm-helper-textarea').focus()")

    def type(self, text: str) -> None:
        for ch in text:
            self.call("Input.dispatchKeyEvent", {"type": "keyDown", "key": ch, "text": ch})
            self.call("Input.dispatchKeyEvent", {"type": "keyUp", "key": ch})

    def press(self, key: str, ctrl: bool = False) -> None:
        """A letter key, with ctrl if asked (xterm sends ctrl+s as the byte 0x13)."""
        code = ord(key.upper())
        params = {"key": key, "code": f"Key{key.upper()}", "windowsVirtualKeyCode": code, "modifiers": 2 if ctrl else 0}
        self.call("Input.dispatchKeyEvent", {"type": "rawKeyDown", **params})
        self.call("Input.dispatchKeyEvent", {"type": "keyUp", **params})

    def close(self) -> None:
        """Close the tab, as a person does."""
        self.browser.call("Target.closeTarget", {"targetId": self.target})
