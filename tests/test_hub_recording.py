"""A hub recording read as its bridge's HTTP exchanges (inspector/session/hub_bridge.py):
what a2a-mock --replay, replay --against and the exports go by."""

from __future__ import annotations

import json
from pathlib import Path

from hub_helpers import running_hub, until
from hub_scenario import ws_agent
from inspector.client import A2AClient
from inspector.session import Recorder, load_recording
from inspector.session.diff import exchanges
from inspector.session.hub_bridge import is_rebuilt


def msg(text: str) -> dict:
    return {"message": {"role": "user", "parts": [{"kind": "text", "text": text}]}}


def body(ex) -> dict:
    return json.loads(ex.response.data["body"])


def stream_docs(ex) -> list[dict]:
    return [json.loads(e.data["data"]) for e in ex.stream]


async def record_a_session(path: Path) -> tuple[str, str]:
    """A stream canceled at its gate, and a stream whose agent drops its socket."""
    async with (
        running_hub() as (hub, server),
        ws_agent(server.ws_url) as agent,
        A2AClient(f"{server.base_url}/agents/helper") as client,
    ):
        recorder = Recorder.attach(hub.session, path)
        stream = client.stream(msg("wait"))
        first = await anext(stream)
        await until(lambda: agent.held("work") == 1, "the task to reach its gate")
        await client.cancel(first.task_id)
        _ = [e async for e in stream]
        dropping = client.stream(msg("drop it"))
        dropped = await anext(dropping)
        await until(lambda: agent.held("drop") == 1, "the task to reach the drop")
        agent.release("drop")
        _ = [e async for e in dropping]
        await until(lambda: hub.agents["helper"].registrations == 2, "the agent to register again")
        recorder.close()
        return first.task_id, dropped.task_id


async def test_cancel_and_drop_are_rebuilt_as_the_bridge_answered(tmp_path: Path) -> None:
    path = tmp_path / "hub.jsonl"
    canceled_id, dropped_id = await record_a_session(path)
    for decode in (True, False):  # the UI's reader decodes; a2a-mock --replay does not
        exs = exchanges(load_recording(path, decode=decode).session.events)
        assert all(is_rebuilt(ex) for ex in exs)
        kinds = [(ex.http_method, ex.a2a_method) for ex in exs]
        # A card per registration (the agent registered twice), the two streams, the cancel.
        assert kinds == [
            ("GET", "card"),
            ("POST", "stream"),
            ("POST", "cancel"),
            ("POST", "stream"),
            ("GET", "card"),
        ], kinds
        card, waited, cancel, dropped, _again = exs
        assert card.url.endswith("/agents/helper/.well-known/agent.json")
        assert body(card)["url"] == "ws-agent://helper"
        assert waited.url == cancel.url == card.url.split("/.well-known")[0]

        docs = stream_docs(waited)
        assert docs[-1]["result"]["status"]["state"] == "canceled" and docs[-1]["result"]["final"]
        assert {d["id"] for d in docs} == {waited.number}
        assert body(cancel)["result"]["status"]["state"] == "canceled"
        assert body(cancel)["result"]["id"] == canceled_id

        last = stream_docs(dropped)[-1]["result"]
        assert last["id"] == dropped_id and last["status"]["state"] == "failed" and last["final"]
        assert "disconnected" in last["status"]["message"]["parts"][0]["text"]
        assert dropped.end is not None and dropped.end.data["reason"] == "complete"


async def test_a_recording_cut_mid_task_keeps_what_it_has(tmp_path: Path) -> None:
    path = tmp_path / "hub.jsonl"
    async with (
        running_hub() as (hub, server),
        ws_agent(server.ws_url) as agent,
        A2AClient(f"{server.base_url}/agents/helper") as client,
    ):
        recorder = Recorder.attach(hub.session, path)
        stream = client.stream(msg("wait"))
        first = await anext(stream)
        await until(lambda: agent.held("work") == 1, "the task to reach its gate")
        recorder.close()  # as if the hub had been killed here
        await client.cancel(first.task_id)
        _ = [e async for e in stream]
    exs = exchanges(load_recording(path).session.events)
    stream_ex = next(ex for ex in exs if ex.a2a_method == "stream")
    assert [d["result"]["status"]["state"] for d in stream_docs(stream_ex)] == ["working"]
