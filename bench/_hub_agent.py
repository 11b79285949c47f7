"""A bare ws-agent for the hub benchmark: it registers, then answers the first
tasks/sendSubscribe the hub sends it with one artifact in COUNT chunks of about 45
characters, and a completed status marked final. The frames are made on the fly, so its
own memory stays flat whatever the count.

    python bench/_hub_agent.py WS_URL NAME COUNT    # prints "registered", then streams

It writes as fast as the hub takes the frames, with at most WINDOW of them unanswered:
every STEP frames it sends a heartbeat request, and it waits for the hub's answer to the
one WINDOW frames back before going on (the hub answers in order, so that many frames
at most wait in the sockets between them). Without it, a million frames sent at once
wait in the sockets, and the WebSocket layer's keepalive ping, answered behind them,
times out (uvicorn closes the socket, 1011) while a loaded hub works through them.
Standard library and websockets only.
"""

from __future__ import annotations

import asyncio
import json
import sys

from websockets.asyncio.client import connect

#: Frames between two heartbeat requests, and the most frames sent but not yet answered.
STEP = 500
WINDOW = 4000


def chunk_text(i: int) -> str:
    # As bench/_stream_agent.py: about 45 characters, each different, a little non-ASCII.
    return f"token {i:07d} of the answer, naïve “quoted” —\n"


def artifact(task_id: str, i: int, count: int) -> str:
    art: dict = {"name": "answer", "index": 0, "parts": [{"type": "text", "text": chunk_text(i)}]}
    if i:
        art["append"] = True
    if i == count - 1:
        art["lastChunk"] = True
    return json.dumps(
        {"jsonrpc": "2.0", "method": "task.artifact", "params": {"id": task_id, "artifact": art}}, ensure_ascii=False
    )


async def main(url: str, name: str, count: int) -> None:
    async with connect(url, compression=None, max_size=None, ping_interval=None) as ws:
        await ws.send(
            json.dumps(
                {
                    "jsonrpc": "2.0",
                    "id": "r",
                    "method": "agent.register",
                    "params": {
                        "name": name,
                        "card": {
                            "name": name,
                            "description": "streams",
                            "version": "1",
                            "capabilities": {"streaming": True},
                        },
                    },
                }
            )
        )
        answer = json.loads(await ws.recv())
        if "result" not in answer:
            raise SystemExit(f"not registered: {answer}")
        print("registered", flush=True)
        while True:
            doc = json.loads(await ws.recv())
            if doc.get("method") == "tasks/sendSubscribe":
                break
        task_id = doc["params"]["id"]
        await ws.send(json.dumps({"jsonrpc": "2.0", "id": doc["id"], "result": {"ok": True}}))
        await ws.send(
            json.dumps(
                {"jsonrpc": "2.0", "method": "task.status", "params": {"id": task_id, "status": {"state": "working"}}}
            )
        )
        answered = 0
        heard = asyncio.Event()

        async def answers() -> None:
            nonlocal answered
            async for text in ws:
                got = json.loads(text).get("id")
                if isinstance(got, str) and got.startswith("w"):
                    answered = max(answered, int(got[1:]))
                    heard.set()

        reading = asyncio.ensure_future(answers())
        for i in range(count):
            await ws.send(artifact(task_id, i, count))
            if (i + 1) % STEP == 0:
                await ws.send(json.dumps({"jsonrpc": "2.0", "id": f"w{i + 1}", "method": "heartbeat", "params": {}}))
                while answered < i + 1 - WINDOW:
                    heard.clear()
                    await heard.wait()
        await ws.send(
            json.dumps(
                {
                    "jsonrpc": "2.0",
                    "method": "task.status",
                    "params": {"id": task_id, "status": {"state": "completed"}, "final": True},
                }
            )
        )
        # Stay until the benchmark stops us (the hub closes nothing).
        await reading


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3])))
