"""How fast a2a-inspect answers: `--version`, and the TUI's first frame on a real terminal.

Each figure is the median of several runs, printed beside a baseline from the same run:
`python -c pass` for `--version`, and a bare Textual app (one Static) for the first
frame, so a slow machine shows as a slow baseline rather than as a regression.

The first frame is measured through a pseudo-terminal: the app is spawned on a pty of
120x36, and the clock stops when the screen shows the footer's key hints (the last
thing the first full frame draws). Then ctrl+q quits it. Three ways in: no argument
(the saved agents, none), a URL (a2a-mock on loopback, started once for the runs), and
no argument with 50 saved agents.

Python writes no bytecode cache when PYTHONDONTWRITEBYTECODE is set (some sandboxes
set it): every start of an editable install then compiled ~70 modules (~100 ms) that
an installed wheel or a second start would not. The children run without it, after a
warm-up start, as a user's machine would.

A second table gives each start's CPU time, from spawn to exit (the app quits as soon
as its first frame is on screen): what a start costs whatever else the machine runs,
and what the test suite pays, a few hundred starts a run.

Targets: --version <= 0.3 s; first frame <= 600 ms and <= 2x the bare app.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import pty
import re
import select
import signal
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import median, spread, stop_child, table

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable

BARE_APP = """
from textual.app import App
from textual.widgets import Footer, Static
class Bare(App):
    BINDINGS = [("f1", "help", "Help")]
    def compose(self):
        yield Static("bare")
        yield Footer()
Bare().run()
"""


def isolated_env() -> dict[str, str]:
    env = dict(os.environ)
    root = tempfile.mkdtemp(prefix="a2a-bench-")
    for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"):
        env[name] = os.path.join(root, name.lower())
    env["TERM"] = "xterm-256color"
    env["COLORTERM"] = "truecolor"
    env.pop("TEXTUAL", None)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # see the module's docstring
    return env


def saved_agents(env: dict[str, str], count: int) -> dict[str, str]:
    """``env`` with its own config directory holding ``count`` saved agents."""
    env = dict(env)
    root = tempfile.mkdtemp(prefix="a2a-bench-agents-")
    env["XDG_CONFIG_HOME"] = root
    folder = Path(root) / "a2a-inspect"
    folder.mkdir(parents=True)
    agents = [
        {
            "name": f"agent {i:02d}",
            "url": f"http://127.0.0.1:{20000 + i}/",
            **({"dialect": "1.0"} if i % 3 == 0 else {}),
            **({"auth": "bearer", "secret": f"token-{i}"} if i % 5 == 0 else {}),
        }
        for i in range(count)
    ]
    (folder / "agents.json").write_text(json.dumps(agents, indent=2), encoding="utf-8")
    return env


class Mock:
    """a2a-mock on loopback (port 0) for the runs with a URL."""

    def __init__(self, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(
            [PY, "-m", "mock_agent.cli", "--port", "0"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        assert self.proc.stdout is not None
        deadline = time.monotonic() + 30
        self.url = ""
        while time.monotonic() < deadline and not self.url:
            line = self.proc.stdout.readline()
            if not line:
                break
            found = re.search(r" at (http://\S+)", line)
            if found:
                self.url = found.group(1)
        if not self.url:
            self.close()
            raise RuntimeError("a2a-mock did not start")

    def close(self) -> None:
        stop_child(self.proc)


def time_command(argv: list[str], env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - t0


#: CPU seconds (user + system) each first_frame() child took from spawn to exit: less
#: sensitive to other work on the machine than the wall clock, and what the test suite
#: pays for every app it starts.
CPU: dict[str, list[float]] = {}


def first_frame(argv: list[str], env: dict[str, str], marker: bytes, timeout: float = 20.0, label: str = "") -> float:
    """Seconds from spawn until ``marker`` appears on the pty; then quit the app. The
    child's CPU time (spawn to exit) goes to ``CPU[label]``."""
    pid, fd = pty.fork()
    if pid == 0:  # child: become the app
        os.execvpe(argv[0], argv, env)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 36, 120, 0, 0))
    t0 = time.perf_counter()
    seen = b""
    elapsed = None
    try:
        while time.perf_counter() - t0 < timeout:
            ready, _, _ = select.select([fd], [], [], 0.05)
            if not ready:
                continue
            try:
                data = os.read(fd, 65536)
            except OSError:
                break
            if not data:
                break
            seen = (seen + data)[-200_000:]
            if marker in seen:
                elapsed = time.perf_counter() - t0
                break
        if elapsed is None:
            raise RuntimeError(f"no first frame within {timeout:.0f} s ({argv[-1]!r}); last output: {seen[-300:]!r}")
        os.write(fd, b"\x11")  # ctrl+q
        deadline = time.perf_counter() + 5
        while time.perf_counter() < deadline:
            done, _, usage = os.wait4(pid, os.WNOHANG)
            if done:
                break
            select.select([fd], [], [], 0.05)
            try:
                os.read(fd, 65536)
            except OSError:
                pass
        else:
            os.kill(pid, signal.SIGKILL)
            _, _, usage = os.wait4(pid, 0)
        CPU.setdefault(label, []).append(usage.ru_utime + usage.ru_stime)
        return elapsed
    finally:
        os.close(fd)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--quick", action="store_true", help="3 runs each")
    args = parser.parse_args()
    runs = 3 if args.quick else args.runs
    env = isolated_env()
    inspect = str(Path(PY).with_name("a2a-inspect"))
    if not os.path.exists(inspect):
        inspect_argv = [PY, "-m", "inspector.cli"]
    else:
        inspect_argv = [inspect]
    agents_env = saved_agents(env, 50)
    mock = Mock(env)
    try:
        # Warm the OS page cache and .pyc files once, so run 1 is not an outlier.
        time_command([*inspect_argv, "--version"], env)
        first_frame([PY, "-c", BARE_APP], env, b"Help")
        first_frame([*inspect_argv], env, b"Help")
        first_frame([*inspect_argv, mock.url], env, b"Help")

        base_py = [time_command([PY, "-c", "pass"], env) for _ in range(runs)]
        version = [time_command([*inspect_argv, "--version"], env) for _ in range(runs)]
        bare: list[float] = []
        frame: list[float] = []
        with_url: list[float] = []
        with_agents: list[float] = []
        CPU.clear()  # the warm-up's
        for _ in range(runs):  # alternating, so load from elsewhere hits all alike
            bare.append(first_frame([PY, "-c", BARE_APP], env, b"Help", label="bare"))
            frame.append(first_frame([*inspect_argv], env, b"Help", label="frame"))
            with_url.append(first_frame([*inspect_argv, mock.url], env, b"Help", label="url"))
            with_agents.append(first_frame([*inspect_argv], agents_env, b"Help", label="agents"))
    finally:
        mock.close()

    def row(name: str, values: list[float], base: list[float], target: float, ratio: float | None) -> list[str]:
        ours = median(values)
        times = ours / median(base)
        ok = ours <= target and (ratio is None or times <= ratio)
        goal = f"<= {target * 1000:.0f} ms" + (f", <= {ratio:g}x" if ratio else "")
        return [
            name,
            f"{ours * 1000:.0f} ms",
            f"±{spread(values) * 50:.0f}%",
            f"{median(base) * 1000:.0f} ms",
            f"{times:.2f}x",
            goal,
            "PASS" if ok else "MISS",
        ]

    table(
        ["measure", "median", "spread", "baseline", "vs baseline", "target", "verdict"],
        [
            row("a2a-inspect --version", version, base_py, 0.3, None),
            row("TUI first frame (120x36)", frame, bare, 0.6, 2),
            row("  with a URL (a2a-mock)", with_url, bare, 0.6, 2),
            row("  with 50 saved agents", with_agents, bare, 0.6, 2),
        ],
        title=f"startup ({runs} runs each; baselines: `python -c pass`, a bare Textual app)",
    )
    table(
        ["start", "CPU (median)", "spread", "bare app", "vs bare app"],
        [
            [name, f"{median(CPU[key]) * 1000:.0f} ms", f"±{spread(CPU[key]) * 50:.0f}%"]
            + [f"{median(CPU['bare']) * 1000:.0f} ms", f"{median(CPU[key]) / median(CPU['bare']):.2f}x"]
            for name, key in (
                ("TUI (120x36)", "frame"),
                ("  with a URL (a2a-mock)", "url"),
                ("  with 50 saved agents", "agents"),
            )
        ],
        title="CPU per start, spawn to quit (ctrl+q once the first frame is on screen)",
    )
    print(f"load average (1, 5, 15 min): {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
