"""The mock keeps the newest N tasks (``--max-tasks``, ``MockAgent(max_tasks=N)``) and
forgets the rest, so a long load test does not grow it without bound. A task whose
script still runs, or that a stream follows, stays until it is done.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable

import httpx

from mock_agent import MockAgent

V10 = {"A2A-Version": "1.0"}


def send(client: httpx.Client, mock_url: str, text: str, **params: object) -> dict:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "SendMessage",
        "params": {
            "message": {"role": "ROLE_USER", "messageId": str(uuid.uuid4()), "parts": [{"text": text}]},
            **params,
        },
    }
    return client.post(mock_url, json=body, headers=V10).json()


def listed(client: httpx.Client, mock_url: str) -> dict:
    return client.post(
        mock_url, headers=V10, json={"jsonrpc": "2.0", "id": 2, "method": "ListTasks", "params": {"pageSize": 100}}
    ).json()["result"]


def until(predicate: Callable[[], bool], what: str, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.005)


def test_only_the_newest_tasks_are_kept() -> None:
    with MockAgent("echo", dialect="1.0", max_tasks=5) as mock, httpx.Client(timeout=10) as client:
        ids = [send(client, mock.url, f"task {i}")["result"]["task"]["id"] for i in range(8)]
        page = listed(client, mock.url)
        assert page["totalSize"] == 5 and [t["id"] for t in page["tasks"]] == ids[::-1][:5]
        gone = client.post(
            mock.url, headers=V10, json={"jsonrpc": "2.0", "id": 3, "method": "GetTask", "params": {"id": ids[0]}}
        ).json()
        assert gone["error"]["code"] == -32001


def test_a_live_task_outlives_the_limit_until_it_is_done() -> None:
    scenario = {
        "card": {"name": "Live"},
        "rules": [
            {"when": {"text": "^hold"}, "script": [{"status": "working"}, {"hold": "live"}, {"status": "completed"}]},
            {"script": [{"status": "completed"}]},
        ],
    }
    with MockAgent(scenario, dialect="1.0", max_tasks=2) as mock, httpx.Client(timeout=10) as client:
        live = send(client, mock.url, "hold on", configuration={"returnImmediately": True})["result"]["task"]["id"]
        until(lambda: mock.held("live") == 1, "the task at its gate")
        for i in range(4):
            send(client, mock.url, f"quick {i}")
        assert mock.task(live) is not None  # the oldest, but still running: kept
        mock.release("live")
        until(lambda: mock.task(live).run is None, "the held task to finish")
        send(client, mock.url, "one more")
        assert mock.task(live) is None  # done now, and the oldest: evicted by the next task
        assert listed(client, mock.url)["totalSize"] == 2


def test_max_tasks_from_the_scenario() -> None:
    scenario = {"card": {"name": "Few"}, "max_tasks": 3, "rules": [{"script": [{"status": "completed"}]}]}
    with MockAgent(scenario, dialect="1.0") as mock, httpx.Client(timeout=10) as client:
        for i in range(6):
            send(client, mock.url, f"task {i}")
        assert len(mock.tasks) == 3


def _rss_kb(pid: int, field: str) -> int:
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise AssertionError(f"no {field} for {pid}")


def test_a_long_run_stays_small_in_a_real_process(tmp_path) -> None:
    # 600 tasks each holding its own ~256 KB artifact (a template, so rendered per task):
    # ~150 MB if the mock kept them all, ~10 MB with --max-tasks 40. Started as
    # notifications: processed, answered 204, so the load costs little beyond the tasks.
    big = tmp_path / "big.yaml"
    big.write_text(
        "card: {name: Big}\nrules:\n  - script:\n      - status: working\n"
        "      - artifact: {name: big, parts: [{text: '{text}.', repeat: 40000}]}\n"
        "      - status: completed\n",
        encoding="utf-8",
    )
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "mock_agent.cli",
            "--scenario",
            str(big),
            "--dialect",
            "1.0",
            "--port",
            "0",
            "--max-tasks",
            "40",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        assert "serving" in first, first
        url = first.split(" at ")[1].strip()
        with httpx.Client(timeout=30) as client:
            send(client, url, "warm up")
            start = _rss_kb(proc.pid, "VmRSS")
            for i in range(600):
                body = {
                    "jsonrpc": "2.0",
                    "method": "SendMessage",
                    "params": {
                        "message": {
                            "role": "ROLE_USER",
                            "messageId": str(uuid.uuid4()),
                            "parts": [{"text": f"n {i:05d}"}],
                        }
                    },
                }
                assert client.post(url, json=body, headers=V10).status_code == 204
            until(lambda: listed(client, url)["totalSize"] == 40, "the store to settle at 40 tasks")
        grown_mb = (_rss_kb(proc.pid, "VmHWM") - start) / 1024
        assert grown_mb < 80, f"the mock grew by {grown_mb:.0f} MiB over 600 tasks kept to 40"
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=10)


def test_the_cli_help_states_the_limit() -> None:
    text = subprocess.run(
        [sys.executable, "-m", "mock_agent.cli", "--help"], capture_output=True, text=True, check=True
    ).stdout
    assert "--max-tasks N" in text and "newest N tasks" in " ".join(text.split())
    bad = subprocess.run([sys.executable, "-m", "mock_agent.cli", "--max-tasks", "0"], capture_output=True, text=True)
    assert bad.returncode == 1 and "--max-tasks" in bad.stderr
