"""One ws-agent cannot write into another's task: frames about a task are taken only
from the agent the hub sent it to; anyone else's are refused, never applied, and shown
as violations (live, and when the hub's recording is read back)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx

from hub_helpers import WAIT, RawAgent, running_hub, text_parts
from inspector.session import Recorder, TaskTracker, load_recording

FORGED = "FORGED-ARTIFACT"


def send(task_id: str) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tasks/send",
        "params": {"id": task_id, "message": {"role": "user", "parts": text_parts("hello")}},
    }


def artifact(task_id: str, text: str) -> dict[str, Any]:
    return {"id": task_id, "artifact": {"index": 0, "parts": text_parts(text), "lastChunk": True}}


async def test_frames_about_another_agents_task_are_refused_and_shown(tmp_path: Path) -> None:
    path = tmp_path / "hub.jsonl"
    async with (
        running_hub(sweep_every=3600, agent_sessions=True) as (hub, server),
        RawAgent(server.ws_url) as helper,
        RawAgent(server.ws_url) as mallory,
        httpx.AsyncClient(timeout=WAIT) as http,
    ):
        recorder = Recorder.attach(hub.session, path)
        await helper.register("helper")
        await mallory.register("mallory")
        call = asyncio.ensure_future(http.post(f"{server.base_url}/agents/helper", json=send("t-1")))
        request = await helper.next_request()
        assert request["params"]["id"] == "t-1"
        # mallory writes into helper's task: an artifact, a status, a completion.
        for method, params in (
            ("task.artifact", artifact("t-1", FORGED)),
            (
                "task.status",
                {
                    "id": "t-1",
                    "status": {"state": "failed", "message": {"role": "agent", "parts": text_parts(FORGED)}},
                    "final": True,
                },
            ),
            (
                "task.complete",
                {"id": "t-1", "status": {"state": "completed"}, "artifacts": [{"parts": text_parts(FORGED)}]},
            ),
        ):
            answer = await mallory.call(method, params)
            assert answer["error"]["code"] == -32001, answer
        # ... and into a task nobody was sent, without an id.
        await mallory.notify("task.artifact", artifact("t-nobody", FORGED))
        # helper does its work.
        await helper.notify("task.artifact", artifact("t-1", "real"))
        await helper.notify("task.complete", {"id": "t-1", "status": {"state": "completed"}})
        answer = (await call).json()
        assert FORGED not in json.dumps(answer), answer
        assert answer["result"]["status"]["state"] == "completed"
        assert [a["parts"][0]["text"] for a in answer["result"]["artifacts"]] == ["real"]
        got = (
            await http.post(
                f"{server.base_url}/agents/helper",
                json={"jsonrpc": "2.0", "id": 2, "method": "tasks/get", "params": {"id": "t-1"}},
            )
        ).json()
        assert FORGED not in json.dumps(got), got
        assert (await mallory.call("heartbeat", {}))["result"] == {"ok": True}  # refused, not cut off
        recorder.close()
        helper_session = hub.agents["helper"].session
        mallory_session = hub.agents["mallory"].session

    def check(tracker: TaskTracker) -> None:
        foreign = [v for v in tracker.violations if v.code == "foreign-task-frame"]
        assert len(foreign) == 4, tracker.violations
        assert [v for v in tracker.violations if v.code != "foreign-task-frame"] == []
        assert all("mallory" in v.message for v in foreign), foreign
        assert "sent to helper" in foreign[0].message and "refused" in foreign[0].message, foreign[0]
        assert "t-nobody" not in tracker.tasks
        task = tracker.task("t-1")
        assert task.state.value == "completed"
        assert task.text() == "real"

    check(hub.tracker)
    check(TaskTracker(load_recording(path).session))
    # Each agent's own session: helper's holds none of it; mallory's shows its frames refused.
    assert TaskTracker(helper_session).violations == []
    assert len([v for v in TaskTracker(mallory_session).violations if v.code == "foreign-task-frame"]) == 4
