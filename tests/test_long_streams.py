"""Long streams are followed to their end with the default limits: an agent that streams
its answer a token at a time sends more events than the old default count (100,000)
allowed, and neither the CLI nor the TUI (which takes no limit options) may cut it.

The peer is bench/_stream_agent.py (one artifact in CHUNKS chunks, made with a plain
``json.dumps`` each, so that the peer costs little next to what it feeds); the CLI and
the TUI run in processes of their own, as a user runs them, each following one stream
of just over the old default count. About 10 s of CPU in all: a subprocess test, as
tests/test_bounded_memory.py's.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from inspector.client.limits import Limits
from terminal import console_script

ROOT = Path(__file__).resolve().parent.parent
#: The old default cut a stream at 100,000 events and comments; this one has CHUNKS + 3
#: events (the task, working, the chunks, completed).
OLD_DEFAULT = 100_000
CHUNKS = OLD_DEFAULT + 500


TUI_CHILD = """
import asyncio, json, sys, uuid
from inspector.protocol import models as m
from inspector.ui.app import InspectorApp

async def main(url):
    app = InspectorApp(url=url)  # the defaults, as `a2a-inspect URL` opens it
    async with app.run_test(size=(120, 36)) as pilot:
        while app.active is None or app.active.state not in ("ready", "error"):
            await asyncio.sleep(0.05)
        conn = app.active
        message = m.Message(role=m.Role.USER, parts=[m.TextPart(text="go")], message_id=str(uuid.uuid4()))
        app.send_message(conn, m.SendParams(message=message), stream=True)
        while True:
            await asyncio.sleep(0.1)
            task = conn.tracker.task(app.task_id) if app.task_id else None
            if app.errors or (not app.waiting and task is not None and (task.terminal or task.cut is not None)):
                break
        art = task.artifacts.get("answer") if task is not None else None
        print(json.dumps({"state": task.state.value if task is not None and task.state else None,
                          "cut": task.cut.text if task is not None and task.cut is not None else None,
                          "errors": [detail for _t, _title, detail in app.errors],
                          "chunks": len(art.chunks) if art is not None else 0,
                          "closed": art.closed if art is not None else False,
                          "last": art.text()[-50:] if art is not None else ""}))

asyncio.run(main(sys.argv[1]))
"""


@pytest.fixture
def long_agent() -> Iterator[str]:
    agent = subprocess.Popen(
        [sys.executable, str(ROOT / "bench" / "_stream_agent.py"), "chunks", str(CHUNKS)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert agent.stdout is not None
        yield f"http://127.0.0.1:{int(agent.stdout.readline())}/"
    finally:
        agent.kill()
        agent.wait(timeout=30)


def test_a_stream_longer_than_the_old_default_is_followed_to_completed(long_agent: str) -> None:
    assert Limits().max_stream_events > CHUNKS + 3 > OLD_DEFAULT
    # The CLI, no limit option: every chunk printed, then the final status, exit 0.
    cli = subprocess.Popen(
        [console_script("a2a-inspect"), "send", long_agent, "hi", "--stream", "-o", "ndjson"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert cli.stdout is not None
    chunks, last = 0, ""
    for line in cli.stdout:
        if line.startswith('{"kind":"artifact-update"'):
            chunks += 1
        last = line
    err = cli.stderr.read() if cli.stderr is not None else ""
    assert cli.wait(timeout=300) == 0, err
    assert chunks == CHUNKS
    final = json.loads(last)
    assert final["kind"] == "status-update" and final["status"]["state"] == "completed", last

    # The TUI: the task completed, every chunk assembled, nothing cut, nothing reported.
    done = subprocess.run([sys.executable, "-c", TUI_CHILD, long_agent], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["errors"] == [] and result["cut"] is None, result
    assert result["state"] == "completed" and result["chunks"] == CHUNKS and result["closed"], result
    # bench/_stream_agent.py's chunk_text for the last chunk:
    assert result["last"].endswith(f"token {CHUNKS - 1:07d} of the answer, naïve “quoted” —\n"), result
