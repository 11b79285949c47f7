"""A big recording, made fast: a real session with the mock agent, recorded, then its
appended chunk repeated until the file holds the events asked for.

    python bench/_big_recording.py OUT EVENTS

Each repeated chunk is renumbered (seq, t) and carries its own text, so the tracker
assembles an artifact that grows as a real one would. About 700 bytes a line: 1.5M
events make a file of about 1 GB.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


async def record_stream(path: Path) -> None:
    """Record one streamed answer of the mock's 'streaming' scenario (1.0) to ``path``."""
    from inspector.client import A2AClient
    from inspector.protocol import models as m
    from inspector.session import Recorder, Session
    from mock_agent import MockAgent

    async with MockAgent("streaming", dialect="1.0", time_scale=0.01) as mock:
        session = Session()
        with Recorder.attach(session, path):
            async with A2AClient(mock.base_url, session=session) as client:
                params = m.SendParams(
                    message=m.Message(role=m.Role.USER, parts=[m.TextPart(text="hi")], message_id=str(uuid.uuid4()))
                )
                async for _ in client.stream(params):
                    pass


def make(out: Path, events: int) -> int:
    """Write a recording of about ``events`` events to ``out``; returns its size."""
    with tempfile.TemporaryDirectory(prefix="a2a-bench-rec-") as tmp:
        small = Path(tmp) / "r.jsonl"
        asyncio.run(record_stream(small))
        lines = small.read_text().splitlines()
    header, objs = lines[0], [json.loads(line) for line in lines[1:]]
    first = next(
        i
        for i, e in enumerate(objs)
        if e["kind"] == "sse" and '"append":true' in (e.get("data") or "").replace(" ", "")
    )
    chunk = objs[first]
    before, after = objs[:first], objs[first + 1 :]
    # The chunk's text, found in its data, replaced by a numbered one of the same shape.
    data = json.loads(chunk["data"])
    update = data["result"]["artifactUpdate"]
    repeat = max(1, events - len(before) - len(after))
    exchange = chunk["exchange"]
    with open(out, "w", encoding="utf-8", newline="\n") as f:
        f.write(header + "\n")
        seq, t = 0, 0.0

        def put(obj: dict) -> None:
            nonlocal seq, t
            seq += 1
            t = max(t, obj["t"]) + 1e-5
            obj = {k: v for k, v in obj.items() if k not in ("seq", "t", "wall", "kind", "exchange")} | {
                "seq": seq,
                "t": round(t, 6),
                "wall": round(1.7e9 + t, 6),
                "kind": obj["kind"],
                "exchange": obj["exchange"],
            }
            f.write(json.dumps(obj, ensure_ascii=True, separators=(",", ":")) + "\n")

        for obj in before:
            put(obj)
        for i in range(repeat):
            update["artifact"]["parts"] = [{"text": f"token {i:07d}, "}]
            text = json.dumps(data, separators=(",", ":"))
            seq += 1
            t += 1e-5
            # The recorder's own line shape, fixed fields last.
            f.write(
                '{"raw":'
                + json.dumps("data: " + text)
                + ',"event":null,"data":'
                + json.dumps(text)
                + f',"id":null,"retry":null,"seq":{seq},"t":{round(t, 6)},"wall":{round(1.7e9 + t, 6)},'
                f'"kind":"sse","exchange":{exchange}}}\n'
            )
        for obj in after:
            put(obj)
    return out.stat().st_size


if __name__ == "__main__":
    print(make(Path(sys.argv[1]), int(sys.argv[2])))
