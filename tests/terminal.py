"""The real app in a real terminal, read the way a person reads it.

``Terminal`` starts an installed console script (``a2a-inspect``, ``a2a-mock``) in a
pseudo-terminal of a chosen size; the pty is the child's controlling terminal, so a
resize reaches it as SIGWINCH, as from a terminal window. A thread reads
every byte the program writes and feeds it to a VT100 emulator (pyte); the tests judge
the emulated screen, which is what the terminal was actually sent, not the state of a
widget. Keys go in as the bytes a terminal sends for them (``KEYS``).

Pilot tests and snapshot tests render the app's screen afresh; only a test like these
notices a paint that never reached the terminal.

    with Terminal.app(["http://127.0.0.1:8003"], size=(140, 45)) as term:
        term.wait_for("● ready")
        term.press("f5")
        term.wait_for(r"F5 Traffic", region=term.rows(0, 3))

A wait that times out fails with the whole emulated screen in the message.
"""

from __future__ import annotations

import fcntl
import functools
import os
import pty
import re
import shutil
import signal
import struct
import subprocess
import sys
import termios
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pyte
from wcwidth import wcwidth

#: The longest a wait for the screen lasts by default (seconds). It ends a broken test;
#: it does not time the app: a loaded machine (more test workers than cores) may take
#: seconds to start a Python program and its first frame.
WAIT = 30.0

#: What a terminal (xterm, and the terminals that follow it) sends for each key.
#: Textual reads these as the key names used here.
KEYS: dict[str, bytes] = {
    "enter": b"\r",
    "tab": b"\t",
    "shift+tab": b"\x1b[Z",
    "escape": b"\x1b",
    "backspace": b"\x7f",
    "delete": b"\x1b[3~",
    "space": b" ",
    "up": b"\x1b[A",
    "down": b"\x1b[B",
    "right": b"\x1b[C",
    "left": b"\x1b[D",
    "home": b"\x1b[H",
    "end": b"\x1b[F",
    "pageup": b"\x1b[5~",
    "pagedown": b"\x1b[6~",
    "ctrl+up": b"\x1b[1;5A",
    "ctrl+down": b"\x1b[1;5B",
    "f1": b"\x1bOP",
    "f2": b"\x1bOQ",
    "f3": b"\x1bOR",
    "f4": b"\x1bOS",
    "f5": b"\x1b[15~",
    "f6": b"\x1b[17~",
    "f7": b"\x1b[18~",
    "f8": b"\x1b[19~",
    "f9": b"\x1b[20~",
    "f10": b"\x1b[21~",
    "f11": b"\x1b[23~",
    "f12": b"\x1b[24~",
    "shift+f8": b"\x1b[19;2~",
}
KEYS.update({f"ctrl+{c}": bytes([ord(c) - 96]) for c in "abcdefghijklmnopqrstuvwxyz"})

#: Escape sequences that switch the alternate screen and the cursor (DEC private modes).
ALT_SCREEN_ON, ALT_SCREEN_OFF = b"\x1b[?1049h", b"\x1b[?1049l"
CURSOR_HIDDEN, CURSOR_SHOWN = b"\x1b[?25l", b"\x1b[?25h"
#: Synchronized output (mode 2026): a frame between these is shown at once, as a whole.
SYNC_BEGIN, SYNC_END = b"\x1b[?2026h", b"\x1b[?2026l"
#: A program asks whether the terminal knows mode 2026 (DECRQM); the answer "known, now
#: off" (DECRPM), as kitty, WezTerm, iTerm2, foot and tmux give it.
SYNC_QUERY, SYNC_ANSWER = b"\x1b[?2026$p", b"\x1b[?2026;2$y"


def console_script(name: str) -> str:
    """The path of an installed console script: the one beside this Python first (the
    test command's virtual environment), else the one on PATH."""
    beside = Path(sys.executable).with_name(name)
    if beside.exists():
        return str(beside)
    found = shutil.which(name)
    if found is None:
        raise AssertionError(f"console script {name!r} is not installed (pip install -e .)")
    return found


def terminal_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a program in the emulated terminal: a 256-colour xterm with
    true colour and UTF-8, and none of Textual's developer switches."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TEXTUAL")}
    env.update(
        {
            "TERM": "xterm-256color",
            "COLORTERM": "truecolor",
            "LANG": "C.UTF-8",
            "LC_ALL": "C.UTF-8",
            "PYTHONUNBUFFERED": "1",
        }
    )
    env.pop("NO_COLOR", None)
    env.pop("COLUMNS", None)
    env.pop("LINES", None)
    env.update(extra or {})
    return env


#: Run in the child before the program: a session of its own, with the pty (its standard
#: input) as the controlling terminal, then the program itself. The child is started by
#: subprocess without a preexec function, so no fork handler of the test process runs in
#: it: a test worker that has used gRPC has fork handlers that broke a plain fork()
#: ("epoll_wait error: Bad file descriptor", and the program never started).
_SESSION = (
    "import fcntl, os, sys, termios; os.setsid(); fcntl.ioctl(0, termios.TIOCSCTTY, 0); "
    "os.execvp(sys.argv[1], sys.argv[1:])"
)


@contextmanager
def step(name: str) -> Iterator[None]:
    """One flow of a test that walks several in one run of the program: a failure in it
    names the flow. A start of the app costs about a second of CPU, so a test walks in
    one run the flows a person goes through one after the other, where the start is not
    what it tests."""
    try:
        yield
    except AssertionError as failure:
        failure.add_note(f"(in the flow: {name})")
        raise


def _set_size(fd: int, cols: int, lines: int) -> None:
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", lines, cols, 0, 0))


def _partial_suffix(data: bytes, marker: bytes) -> int:
    """How many bytes at the end of ``data`` could be the start of ``marker``."""
    for n in range(min(len(marker) - 1, len(data)), 0, -1):
        if marker.startswith(data[-n:]):
            return n
    return 0


def _render(line: Any, columns: int) -> str:
    """One line of a pyte screen as text, as ``pyte.Screen.display`` makes it (the cell
    after a wide character is its stub, left out), at a fraction of its cost."""
    chars = [line[x].data for x in range(columns)]
    text = "".join(chars)
    if text.isascii():
        return text
    kept = []
    stub = False
    for char in chars:
        if stub:
            stub = False
            continue
        kept.append(char)
        stub = bool(char) and _wide(char[0])
    return "".join(kept)


@functools.cache
def _wide(char: str) -> bool:
    return wcwidth(char) == 2


class Lines:
    """The text of a pyte screen's lines, rendered again only where the screen changed.

    A wait checks the screen each time the program writes; rendering the whole screen
    each time (``pyte.Screen.display``) was most of a screen test's own CPU. pyte marks
    the lines it changes in ``screen.dirty``; the one change it does not mark (a
    combining character joined to the end of the line above) is covered by rendering the
    line above each changed line too."""

    def __init__(self, screen: pyte.Screen) -> None:
        self.screen = screen
        self._lines: list[str] = []
        self._text: str | None = None

    def get(self) -> list[str]:
        screen = self.screen
        if len(self._lines) != screen.lines:
            changed: Iterable[int] = range(screen.lines)
            self._lines = [""] * screen.lines
        elif screen.dirty:
            changed = {y for d in screen.dirty for y in (d - 1, d) if 0 <= y < screen.lines}
        else:
            return self._lines
        screen.dirty.clear()
        for y in changed:
            self._lines[y] = _render(screen.buffer[y], screen.columns)
        self._text = None
        return self._lines

    def text(self) -> str:
        """The whole screen, each line without its trailing spaces."""
        lines = self.get()
        if self._text is None:
            self._text = "\n".join(line.rstrip() for line in lines)
        return self._text


class Terminal:
    """One program in a pseudo-terminal, its output shown on an emulated VT100 screen."""

    def __init__(
        self,
        argv: list[str],
        *,
        size: tuple[int, int] = (140, 45),
        env: dict[str, str] | None = None,
        cwd: str | Path | None = None,
        sync: bool = True,
    ) -> None:
        self.argv = argv
        self.cols, self.lines = size
        self.screen = pyte.Screen(self.cols, self.lines)
        self._stream = pyte.ByteStream(self.screen)
        #: The screen's lines as text, rendered again only where it changed.
        self._lines = Lines(self.screen)
        #: Every byte the program wrote, in order.
        self.raw = bytearray()
        #: Bytes of a synchronized frame not complete yet (not on the screen).
        self._pending = b""
        self._in_frame = False
        self._sync = sync
        self._changed = threading.Condition()
        self._eof = False
        self.fd, child = pty.openpty()
        _set_size(child, self.cols, self.lines)
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-c", _SESSION, *argv],
                stdin=child,
                stdout=child,
                stderr=child,
                env=terminal_env(env),
                cwd=str(cwd) if cwd else None,
                close_fds=True,
            )
        finally:
            os.close(child)
        self._reader = threading.Thread(target=self._read, name="pty-reader", daemon=True)
        self._reader.start()

    @classmethod
    @contextmanager
    def app(
        cls,
        args: Iterable[str],
        *,
        size: tuple[int, int] = (140, 45),
        env: dict[str, str] | None = None,
        cwd: str | Path | None = None,
        script: str = "a2a-inspect",
        sync: bool = True,
    ) -> Iterator[Terminal]:
        """``a2a-inspect ARGS`` (or another console script) in a terminal of ``size``
        (columns, lines); killed at the end of the block if still running."""
        term = cls([console_script(script), *args], size=size, env=env, cwd=cwd, sync=sync)
        try:
            yield term
        finally:
            term.close()

    # --- the program's output ------------------------------------------------------

    def _read(self) -> None:
        fd = self.fd
        while True:
            try:
                data = os.read(fd, 65536)
            except OSError:  # EIO: the program closed the terminal
                data = b""
            with self._changed:
                if not data:
                    self._eof = True
                    self._changed.notify_all()
                    return
                asked = self._sync and SYNC_QUERY in self.raw[-len(SYNC_QUERY) :] + data
                self.raw += data
                self._show(data)
                self._changed.notify_all()
            if asked:
                self.write(SYNC_ANSWER)

    def _show(self, data: bytes) -> None:
        """Feed the emulator as a terminal with synchronized output shows: what comes
        between a frame's begin and end appears at once, at its end."""
        data = self._pending + data
        self._pending = b""
        while data:
            if self._in_frame:
                end = data.find(SYNC_END)
                if end < 0:
                    self._pending = data
                    return
                self._stream.feed(data[: end + len(SYNC_END)])
                data = data[end + len(SYNC_END) :]
                self._in_frame = False
                continue
            begin = data.find(SYNC_BEGIN)
            if begin < 0:
                keep = _partial_suffix(data, SYNC_BEGIN)
                self._stream.feed(data[: len(data) - keep])
                self._pending = data[len(data) - keep :]
                return
            self._stream.feed(data[:begin])
            data = data[begin:]
            self._in_frame = True

    # --- what the screen shows ---------------------------------------------------------

    def text(self) -> str:
        """The whole screen, line by line, as a person would read it."""
        with self._changed:
            return self._lines.text()

    def row(self, y: int) -> str:
        with self._changed:
            return self._lines.get()[y].rstrip()

    def rows(self, top: int, bottom: int) -> tuple[int, int, int, int]:
        """A region of whole lines ``top`` to ``bottom`` (exclusive; negative counts from
        the bottom), for ``region=``."""
        return (top % self.lines if top < 0 else top, 0, bottom % self.lines if bottom < 0 else bottom, self.cols)

    def region(self, top: int, left: int, bottom: int, right: int) -> str:
        """The text of a rectangle of the screen: lines ``top`` to ``bottom`` and columns
        ``left`` to ``right`` (both exclusive at the end)."""
        with self._changed:
            return "\n".join(line[left:right].rstrip() for line in self._lines.get()[top:bottom])

    def cursor_hidden(self) -> bool:
        with self._changed:
            return bool(self.screen.cursor.hidden)

    def dump(self) -> str:
        """The screen with line numbers and a frame, for a failure message."""
        with self._changed:
            lines = list(self._lines.get())
            eof = self._eof
        width = self.cols
        out = [f"    ┌{'─' * width}┐ {self.cols}x{self.lines}" + (" (program ended)" if eof else "")]
        out += [f"{y:3} │{line}│" for y, line in enumerate(lines)]
        out.append(f"    └{'─' * width}┘")
        return "\n".join(out)

    # --- waiting for the screen -----------------------------------------------------

    def wait_until(self, predicate: Callable[[], Any], what: str, timeout: float = WAIT) -> Any:
        """Wait until ``predicate()`` is truthy (checked again whenever the program
        writes), and return its value; fail with the screen after ``timeout``."""
        deadline = time.monotonic() + timeout
        while True:
            value = predicate()
            if value:
                return value
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"timed out after {timeout:.1f} s waiting for {what}:\n{self.dump()}")
            with self._changed:
                if self._eof and not predicate():
                    raise AssertionError(f"the program ended while waiting for {what}:\n{self.dump()}")
                self._changed.wait(min(left, 0.1))

    def find(
        self, pattern: str | re.Pattern[str], region: tuple[int, int, int, int] | None = None, flow: bool = False
    ) -> re.Match[str] | None:
        """``pattern`` (a regular expression, or a plain string taken literally) on the
        screen, or in a region of it. ``flow``: the region's lines read as one text (runs
        of spaces and line ends as one space), for text the app wraps: give a region
        that holds only that text's pane."""
        regex = pattern if isinstance(pattern, re.Pattern) else re.compile(re.escape(pattern))
        text = self.region(*region) if region else self.text()
        if flow:
            text = " ".join(text.split())
        return regex.search(text)

    def wait_for(
        self,
        pattern: str | re.Pattern[str],
        region: tuple[int, int, int, int] | None = None,
        timeout: float = WAIT,
        flow: bool = False,
    ) -> re.Match[str]:
        """Wait until the screen (or ``region``) shows ``pattern``."""
        where = f" in {region}" if region else ""
        return self.wait_until(lambda: self.find(pattern, region, flow), f"{pattern!r}{where}", timeout)

    def wait_gone(
        self, pattern: str | re.Pattern[str], region: tuple[int, int, int, int] | None = None, timeout: float = WAIT
    ) -> None:
        """Wait until the screen (or ``region``) no longer shows ``pattern``."""
        where = f" in {region}" if region else ""
        self.wait_until(lambda: not self.find(pattern, region), f"{pattern!r} to go{where}", timeout)

    def wait_quiet(self, quiet: float = 0.3, timeout: float = WAIT) -> None:
        """Wait until the program has written nothing for ``quiet`` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            with self._changed:
                size = len(self.raw)
                self._changed.wait(quiet)
                if len(self.raw) == size or self._eof:
                    return
            if time.monotonic() > deadline:
                raise AssertionError(f"the program never went quiet for {quiet} s:\n{self.dump()}")

    # --- input ------------------------------------------------------------------------

    def write(self, data: bytes) -> None:
        while data:
            data = data[os.write(self.fd, data) :]

    def press(self, *keys: str) -> None:
        """Send keys by name (``"f5"``, ``"ctrl+s"``, ``"enter"``), each as one write."""
        for key in keys:
            self.write(KEYS[key])

    def type(self, text: str) -> None:
        """Type ``text`` (one write, as a fast typist or a paste without brackets)."""
        self.write(text.encode())

    def resize(self, cols: int, lines: int) -> None:
        """Resize the terminal: the emulated screen first, then the pty (SIGWINCH)."""
        with self._changed:
            self.cols, self.lines = cols, lines
            self.screen.resize(lines, cols)
        _set_size(self.fd, cols, lines)

    # --- the end ------------------------------------------------------------------------

    def wait_exit(self, timeout: float = WAIT) -> int:
        """Wait for the program to end; its exit status."""
        try:
            status = self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"the program did not end within {timeout} s:\n{self.dump()}") from None
        self._reader.join(timeout=5)
        return status if status >= 0 else 128 - status

    def restored(self) -> list[str]:
        """What the program left undone to the terminal: that it is still in the
        alternate screen, or left the cursor hidden (empty when all is restored)."""
        raw = bytes(self.raw)
        wrong = []
        if raw.rfind(ALT_SCREEN_ON) > raw.rfind(ALT_SCREEN_OFF):
            wrong.append("still in the alternate screen")
        if raw.rfind(CURSOR_HIDDEN) > raw.rfind(CURSOR_SHOWN):
            wrong.append("cursor left hidden")
        return wrong

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()
        self._reader.join(timeout=5)
        try:
            os.close(self.fd)
        except OSError:
            pass
