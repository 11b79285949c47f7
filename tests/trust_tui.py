"""The TUI against hostile agents, in a process of its own so that its peak memory can
be measured (tests/test_trust_bounds.py runs it through trust_agents.peak_rss_mib).

    python tests/trust_tui.py card|send|stream URL [card|send|stream URL ...]

For each pair in turn, opens an app on URL under ``run_test()`` (Pilot); for send and
stream it waits for the connection, then sends one message. Prints one JSON line, an
object with a result per case: the connection's state and error, the error list's last
entry, whether the card view and the traffic view show it (the cut RESPONSE or SSE
event included); then exits 0. The cases run one after another in one process (one
start of Python and Textual, not one each), so its peak is the largest case's.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parents[1]))

from inspector.protocol import models as m
from inspector.ui.app import InspectorApp
from ui_helpers import screen_text, wait_until


async def main(case: str, url: str) -> dict[str, Any]:
    app = InspectorApp(url=url, dialect="0.3" if case != "card" else "auto")
    out: dict[str, Any] = {}
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_until(
            pilot,
            lambda: app.active is not None and app.active.state in ("ready", "error"),
            60,
            "the connection to settle",
        )
        conn = app.active
        if case != "card":
            assert conn.state == "ready", conn.error
            params = m.SendParams(
                message=m.Message(role=m.Role.USER, parts=[m.TextPart(text="hi")], message_id=str(uuid.uuid4()))
            )
            app.send_message(conn, params, stream=case == "stream")
            await wait_until(pilot, lambda: app.errors, 60, "the error to be reported")
        await pilot.pause(0.2)
        out["state"] = conn.state
        out["error"] = str(conn.error) if conn.error is not None else None
        out["errors"] = [[title, detail] for _t, title, detail in app.errors]
        out["screen"] = screen_text(app)
        await pilot.press("f5")  # the traffic view
        await pilot.pause(0.3)
        out["traffic_screen"] = screen_text(app)
        out["cut"] = [e.kind.value for e in conn.session.events if e.data.get("cut")]
        out["kinds"] = [e.kind.value for e in conn.session.events]
        out["cut_size"] = max(
            (len(e.data.get("body") or e.data.get("raw") or "") for e in conn.session.events if e.data.get("cut")),
            default=0,
        )
    return out


if __name__ == "__main__":
    results = {}
    for case, url in zip(sys.argv[1::2], sys.argv[2::2], strict=True):
        started = time.monotonic()
        results[case] = asyncio.run(main(case, url))
        results[case]["seconds"] = round(time.monotonic() - started, 2)
    print(json.dumps(results))
