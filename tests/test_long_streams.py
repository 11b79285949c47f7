"""Long streams are followed to their end with the default limits: an agent that streams
its answer a token at a time sends more events than the old default count (100,000)
allowed, and neither the CLI nor the TUI (which takes no limit options) may cut it.

The peer is bench/_stream_agent.py (one artifact in CHUNKS chunks, made with a plain
``json.dumps`` each, so that the peer costs little next to what it feeds); the CLI and
the TUI run in processes of their own, as a user runs them, each following one stream
of just over the old default count. About 9 s of CPU in all: a subprocess test, as
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


def _chunk_text(i: int) -> str:
    """bench/_stream_agent.py's chunk_text: chunk ``i``'s text."""
    return f"token {i:07d} of the answer, naïve “quoted” —\n"


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
    # The CLI, no limit option and its default output: a line for every chunk as it
    # comes, then the final status, and the task's summary with the artifact whole (its
    # count of chunks and every chunk's text, the last one last); exit 0. (The text
    # output costs the CLI about a third less CPU than ndjson, and says as much.)
    cli = subprocess.Popen(
        [console_script("a2a-inspect"), "send", long_agent, "hi", "--stream"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert cli.stdout is not None
    chunks, texts, ends, summary = 0, 0, [], []
    last = _chunk_text(CHUNKS - 1).rstrip("\n")
    for line in cli.stdout:
        if "] artifact answer +" in line:
            chunks += 1
        elif line.startswith("  token "):
            texts += 1
            summary.append(line)
        elif "] completed" in line:
            ends.append((chunks, line))
        elif not line.startswith("[") and line.strip():
            summary.append(line)
    err = cli.stderr.read() if cli.stderr is not None else ""
    assert cli.wait(timeout=300) == 0, err
    # Every chunk's line, then the final status once, after the last chunk.
    assert chunks == CHUNKS and len(ends) == 1 and ends[0][0] == CHUNKS and "completed: done" in ends[0][1], ends
    assert any(line.startswith("state    completed") for line in summary), summary[:8]
    assert f"artifact answer (answer), {CHUNKS} chunks\n" in summary, summary[:8]
    assert texts == CHUNKS and summary[-1] == f"  {last}\n", summary[-3:]

    # The TUI: the task completed, every chunk assembled, nothing cut, nothing reported.
    done = subprocess.run([sys.executable, "-c", TUI_CHILD, long_agent], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["errors"] == [] and result["cut"] is None, result
    assert result["state"] == "completed" and result["chunks"] == CHUNKS and result["closed"], result
    assert result["last"].endswith(_chunk_text(CHUNKS - 1)), result
