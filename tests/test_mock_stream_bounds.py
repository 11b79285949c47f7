"""What a scenario makes the mock produce is bounded, at --check and while it runs.

A scenario --check accepted could crash the mock at start (``repeat: 1e8`` of a long
text: MemoryError), and a chunk bomb within reach of the process's memory was queued
whole, faster than the socket drained, until building the next event failed: the
exception escaped the app and the stream stopped short with no error. Now --check names
the field that goes past a limit (mock_agent/budget.py), a template that renders too
large ends its turn with an error, and a stream goes at its reader's pace, whole.
Each case runs a2a-mock in its own process, its peak RSS read from /proc.
"""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from pathlib import Path

import httpx
import pytest

from mock_agent import MockAgent
from mock_process import mock_process

V10 = {"A2A-Version": "1.0"}
CARD = "card: {name: Bounds, capabilities: {streaming: true}}\n"
MiB = 1024 * 1024


def check(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mock_agent.cli", "--check", "--scenario", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )


def message(text: str, method: str = "SendMessage") -> dict:
    return {
        "jsonrpc": "2.0",
        "id": 1,
        "method": method,
        "params": {"message": {"role": "ROLE_USER", "messageId": str(uuid.uuid4()), "parts": [{"text": text}]}},
    }


def test_check_refuses_what_the_mock_could_not_build_naming_the_field(tmp_path: Path) -> None:
    path = tmp_path / "bomb.yaml"
    path.write_text(
        CARD + "rules:\n"
        "  - script:\n"
        "      - artifact: {name: big, parts: [{text: '" + "x" * 1000 + "', repeat: 100000000}]}\n"
        "  - script:\n"
        "      - chunks: {text: 'chunk {i} of {n} ', count: 1000000, repeat: 1000}\n"
        "  - script:\n"
        "      - heartbeat: {every: 0.000001, for: 3600}\n",
        encoding="utf-8",
    )
    done = check(path)
    assert done.returncode == 1, done.stdout
    lines = done.stderr.splitlines()
    assert (
        lines[0].startswith(f"{path}:4:")
        and "rules[0].script[0].artifact.parts[0].repeat: "
        "100,000,000 copies of a 1,000-character text come to 100,000,000,000 characters"
        in lines[0]
    )
    assert "rules[1].script[0].chunks.count: this script would produce" in lines[1]
    assert "rules[2].script[0].heartbeat.every: this script would send 3,600,000,001 events" in lines[2]
    assert len(lines) == 3 and "Traceback" not in done.stderr
    # Served, the same file is refused before anything is built.
    served = subprocess.run(
        [sys.executable, "-m", "mock_agent.cli", "--scenario", str(path), "--port", "0"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert served.returncode == 1 and "repeat: 100,000,000 copies" in served.stderr
    assert "MemoryError" not in served.stderr and "Traceback" not in served.stderr


def test_a_well_behaved_large_scenario_still_passes(tmp_path: Path) -> None:
    # What the suite and the benchmarks use: a 17 MiB part, a million small chunks.
    path = tmp_path / "fine.yaml"
    path.write_text(
        CARD + "rules:\n"
        "  - script:\n"
        f"      - artifact: {{name: big, parts: [{{text: x, repeat: {17 * MiB}}}]}}\n"
        "      - chunks: {text: 'token {i} ', count: 1000000}\n",
        encoding="utf-8",
    )
    done = check(path)
    assert done.returncode == 0, done.stderr


def test_a_template_that_renders_too_large_ends_its_turn_with_an_error(tmp_path: Path) -> None:
    path = tmp_path / "echo.yaml"
    path.write_text(
        CARD + "rules:\n  - script:\n      - status: working\n"
        "      - artifact: {name: echo, parts: [{text: '{text}', repeat: 100000}]}\n"
        "      - status: completed\n",
        encoding="utf-8",
    )
    with mock_process("--scenario", str(path), "--dialect", "1.0") as mock, httpx.Client(timeout=30) as client:
        small = client.post(mock.url, json=message("hi"), headers=V10).json()["result"]["task"]
        assert small["status"]["state"] == "TASK_STATE_COMPLETED"
        before = mock.kib()
        # 1,000 characters x 100,000: a 100 MB text the old mock built (and kept).
        big = client.post(mock.url, json=message("y" * 1000), headers=V10).json()
        assert big["error"]["code"] == -32603
        assert (
            "a text of 1,000 characters repeated 100,000 times would be 100,000,000 characters"
            in big["error"]["message"]
        )
        grown = (mock.kib() - before) / 1024
        assert grown < 32, f"the mock grew by {grown:.0f} MiB refusing a text it should not build"
        again = client.post(mock.url, json=message("hi"), headers=V10).json()["result"]["task"]
        assert again["status"]["state"] == "TASK_STATE_COMPLETED"
    assert "one text may come to" in mock.stderr and "Traceback" not in mock.stderr


def test_a_chunk_bomb_streams_whole_at_the_readers_pace(tmp_path: Path) -> None:
    # 48 chunks of 1 MiB each, within the limits: the script waits for the reader
    # (engine.QUEUED_TEXT) rather than having the writer frame all it has made at once.
    count = 48
    path = tmp_path / "chunks.yaml"
    path.write_text(
        CARD + "rules:\n  - script:\n      - status: working\n"
        f"      - chunks: {{id: big, text: 'x', count: {count}, repeat: {MiB}}}\n"
        "      - status: completed\n",
        encoding="utf-8",
    )
    with mock_process("--scenario", str(path), "--dialect", "1.0") as mock, httpx.Client(timeout=60) as client:
        client.post(mock.url, json=message("warm up", "SendMessage"), headers=V10)
        before = mock.kib()
        with client.stream("POST", mock.url, json=message("go", "SendStreamingMessage"), headers=V10) as r:
            body = r.read()
        *whole, tail = body.split(b"\r\n\r\n")
        assert tail == b"", "the stream ended inside an event"
        events = [json.loads(e.removeprefix(b"data: ")) for e in whole]
        kinds = [next(iter(e["result"])) for e in events]
        assert kinds == ["task", "statusUpdate"] + ["artifactUpdate"] * count + ["statusUpdate"]
        assert events[-1]["result"]["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED"
        assert all(len(e["result"]["artifactUpdate"]["artifact"]["parts"][0]["text"]) == MiB for e in events[2:-1])
        grown = (mock.kib() - before) / 1024
    # The task keeps its 48 MiB artifact (tasks/get returns it); the stream adds only a
    # bounded queue on top of that.
    assert grown < 48 + 48, f"the mock grew by {grown:.0f} MiB streaming 48 MiB"
    assert "Traceback" not in mock.stderr


def test_an_event_that_cannot_be_sent_ends_the_stream_at_its_boundary_with_an_error(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # An integer of 5,000 digits cannot be written as JSON (Python's digit limit): the
    # third event fails to build mid-stream, as a chunk bomb's next event failed for want
    # of memory. The old mock let the exception out of the app: uvicorn logged a
    # traceback and cut the stream short, with no error event and no final one.
    scenario = {
        "card": {"name": "Unsendable", "capabilities": {"streaming": True}},
        "rules": [
            {
                "script": [
                    {"status": "working"},
                    {"artifact": {"id": "a", "text": "first"}},
                    {"artifact": {"id": "b", "parts": [{"data": {"v": 10**5000}}]}},
                    {"status": "completed"},
                ]
            }
        ],
    }
    with MockAgent(scenario, dialect="1.0") as mock, httpx.Client(timeout=30) as client:
        with client.stream("POST", mock.url, json=message("go", "SendStreamingMessage"), headers=V10) as r:
            body = r.read()
        *whole, tail = body.split(b"\r\n\r\n")
        assert tail == b"", "the stream ended inside an event"
        events = [json.loads(e.removeprefix(b"data: ")) for e in whole]
        assert [next(iter(e.get("result", {"error": 0}))) for e in events] == [
            "task",
            "statusUpdate",
            "artifactUpdate",
            "error",
        ]
        error = events[-1]["error"]
        assert error["code"] == -32603 and "could not send the next event (ValueError" in error["message"]
        # A blocking send of the same script is answered with the error too, and the
        # mock goes on.
        again = client.post(mock.url, json=message("again"), headers=V10).json()
        assert "could not encode the answer (ValueError" in again["error"]["message"]
    said = [r.getMessage() for r in caplog.records]
    assert any("could not send the next event" in line for line in said)
    assert not any("Exception in ASGI application" in line for line in said)
