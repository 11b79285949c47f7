"""The hub's memory stays flat however much its agents send: its sessions hold their
newest events (and at most so much of their text) in memory, older ones in a spill file,
and a frame's decoded form is not kept beside its text. Measured in a real
``a2a-inspect hub --headless`` process (its peak RSS, /proc VmHWM)."""

from __future__ import annotations

import asyncio
import json
import queue
import subprocess
import threading
from pathlib import Path
from typing import Any

import httpx
import pytest

from cli_helpers import Cli
from hub_helpers import RawAgent
from inspector.session import Kind, Session

#: Generous: only stops a broken test from hanging the suite.
WAIT = 30.0
#: The hub working through 200 MB of frames on a loaded machine: as generous.
SLOW = 120.0
#: Frames of about FRAME characters each, half of them relayed to the bridge's caller:
#: 200 MB, six times what the sessions may hold of their text (32 Mi characters), and
#: enough relayed ones (28) that a relay holding them all for its caller grows past the
#: bound below (186 MiB measured); 80 frames took 40% more CPU to show the same.
FRAMES = 56
FRAME = 3_800_000


@pytest.fixture
def cli(tmp_path: Path) -> Cli:
    return Cli(tmp_path)


def _peak_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise AssertionError("no VmHWM in /proc")


class _HubProcess:
    """``a2a-inspect hub --headless`` with its output drained by a thread."""

    def __init__(self, cli: Cli) -> None:
        self.proc = cli.start("hub", "--headless", "--port", "0")
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        first = self.lines.get(timeout=WAIT)
        assert first is not None and first.startswith("a2a-inspect hub: agents connect to ws://127.0.0.1:"), first
        self.ws_url = first.rsplit(" ", 1)[1].strip()
        self.base = self.ws_url.replace("ws://", "http://").rsplit("/", 1)[0]

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            self.lines.put(raw.decode("utf-8", "replace"))
        self.lines.put(None)

    def stop(self) -> str:
        if self.proc.poll() is None:
            self.proc.send_signal(subprocess.signal.SIGINT)
        try:
            code = self.proc.wait(WAIT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise
        err = self.proc.stderr.read().decode("utf-8", "replace") if self.proc.stderr else ""
        assert code == 0, err
        return err


def _doc(method: str, params: Any) -> str:
    return json.dumps({"jsonrpc": "2.0", "method": method, "params": params})


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads the hub's peak memory from /proc")
async def test_200_mb_of_big_frames_leave_the_hubs_memory_flat(cli: Cli) -> None:
    hub = _HubProcess(cli)
    try:
        async with RawAgent(hub.ws_url) as agent, httpx.AsyncClient(timeout=SLOW) as http:
            assert "result" in await agent.register("chatty")
            idle = _peak_kib(hub.proc.pid)
            body = {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tasks/sendSubscribe",
                "params": {"id": "t-big", "message": {"role": "user", "parts": [{"type": "text", "text": "go"}]}},
            }
            async with http.stream("POST", f"{hub.base}/agents/chatty", json=body) as resp:
                request = await agent.next_request()
                task_id = request["params"]["id"]
                await agent.send({"jsonrpc": "2.0", "id": request["id"], "result": {"ok": True}})
                sent = 0
                for i in range(FRAMES):
                    pad = f"{i:04d}" + "x" * FRAME
                    if i % 2:
                        # A heartbeat carrying the agent's own diagnostics: logged, not relayed.
                        await agent.send(_doc("heartbeat", {"diagnostics": pad}))
                        continue
                    # Progress with a big trace in its metadata: relayed to the caller.
                    await agent.send(
                        _doc("task.status", {"id": task_id, "status": {"state": "working"}, "metadata": {"trace": pad}})
                    )
                    sent += len(pad)
                await agent.send(_doc("task.status", {"id": task_id, "status": {"state": "completed"}, "final": True}))
                # The hub has read every frame (it answers in order) while the caller
                # read none of its stream: the agent is never held back by its caller.
                await agent.send({"jsonrpc": "2.0", "id": "last", "method": "heartbeat", "params": {}})
                while json.loads(await asyncio.wait_for(agent.ws.recv(), SLOW)).get("id") != "last":
                    pass
                traces = []
                last: dict[str, Any] = {}
                async for line in resp.aiter_lines():
                    if line.startswith("data:"):
                        last = json.loads(line[5:])["result"]
                        if "metadata" in last:
                            traces.append(last["metadata"]["trace"][:4])
            assert traces == [f"{i:04d}" for i in range(0, FRAMES, 2)]
            assert last["status"]["state"] == "completed" and last["final"] is True
            assert sent > FRAMES // 2 * FRAME
        grown_mib = (_peak_kib(hub.proc.pid) - idle) / 1024
        # Measured at about 110-117 MiB, whether 24, 56 or 80 frames: flat. Every frame
        # held (its text and decoded form), and every relayed one again for the caller,
        # grew it by ~750 MiB for 80 frames; a relay holding every relayed frame for its
        # caller (before 1b5df89) by 186 MiB for these 56. The newest frames' text (at most
        # 32 MiB) and the caller's next ones in memory (the rest on disk) stay under this.
        assert grown_mib < 160, f"the hub's peak RSS grew by {grown_mib:.0f} MiB for {FRAMES} frames"
    finally:
        err = hub.stop()
    assert "Traceback" not in err, err


def test_a_session_with_a_text_budget_spills_big_events_and_reads_them_back() -> None:
    session = Session(keep=10_000, keep_bytes=1_000_000)
    whole = Session()
    session.subscribe(whole.extend)
    for i in range(40):
        session.append(Kind.WS, {"conn": 1, "dir": "in", "op": "text", "text": f"{i:02d}" + "y" * 99_998})
    # Far fewer than the count allows: the text budget decides.
    held = session.events._mem
    assert session.bounded and len(held) <= 10
    assert sum(len(e.data["text"]) for e in held) <= 1_000_000
    assert len(session) == 40 and list(session.events) == list(whole.events)
    assert session.events[3].data["text"][:2] == "03"
    session.close()


async def test_a_relays_backlog_past_its_lead_waits_on_disk_and_comes_back_in_order(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from inspector.hub import backlog as backlog_mod
    from inspector.protocol import hub as proto

    monkeypatch.setattr(backlog_mod, "AHEAD", 4)
    backlog = backlog_mod.Backlog()
    items = [
        proto.decode_frame(
            _doc(
                "task.artifact",
                {
                    "id": "t",
                    "artifact": {"index": 0, "append": i > 0, "parts": [{"type": "text", "text": f"chunk {i} “é”"}]},
                },
            )
        ).item
        for i in range(11)
    ]
    for item in items[:6]:
        backlog.put(item)
    assert backlog.on_disk == 2
    assert [await backlog.get() for _ in range(3)] == items[:3]
    for item in items[6:]:
        backlog.put(item)  # behind those on disk, so on disk too
    end = object()
    backlog.put(end)  # not a model: kept in memory, after everything before it
    got = [await backlog.get() for _ in range(8)]
    assert got == items[3:] and got[0] is items[3] and got[-1] is not items[-1]
    assert await backlog.get() is end and len(backlog) == 0 and backlog.on_disk == 0
    backlog.close()


async def test_a_resubscriber_that_reads_nothing_waits_on_disk_not_in_the_hubs_memory(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A resubscribe (tasks/resubscribe through the bridge, or the UI following a task)
    # whose caller reads nothing: what the agent says about the task must not pile up in
    # the hub's memory, as it did in an unbounded asyncio.Queue per follower.
    from inspector.hub import Hub
    from inspector.hub import backlog as backlog_mod
    from inspector.protocol import hub as proto

    monkeypatch.setattr(backlog_mod, "AHEAD", 4)
    hub = Hub()
    follower = hub.follow_queue("t")
    items = [
        proto.decode_frame(
            _doc(
                "task.artifact",
                {
                    "id": "t",
                    "artifact": {"index": 0, "append": i > 0, "parts": [{"type": "text", "text": f"chunk {i}"}]},
                },
            )
        ).item
        for i in range(11)
    ]
    for item in items:
        hub.tell("t", item)
    assert follower.on_disk == 7
    assert [await follower.get() for _ in range(11)] == items
    hub.unfollow("t", follower)
    assert "t" not in hub.followers


async def test_a_task_past_the_stream_limits_is_cut_with_a_clear_message() -> None:
    from hub_helpers import running_hub, until
    from inspector.hub import HubLimits
    from inspector.session import Kind

    async def chunks(agent: RawAgent, task_id: str, n: int, text: str) -> None:
        for i in range(n):
            await agent.notify(
                "task.artifact",
                {"id": task_id, "artifact": {"index": 0, "append": i > 0, "parts": [{"type": "text", "text": text}]}},
            )
        await agent.notify("task.status", {"id": task_id, "status": {"state": "completed"}, "final": True})

    limits = HubLimits(max_stream_events=5, max_stream_body=20_000)
    async with (
        running_hub(limits=limits) as (hub, server),
        RawAgent(server.ws_url) as agent,
        httpx.AsyncClient(timeout=WAIT) as http,
    ):
        await agent.register("helper")
        url = f"{server.base_url}/agents/helper"
        message = {"role": "user", "parts": [{"type": "text", "text": "go"}]}
        # A stream: five events go through, then the caller is told why it ends.
        body = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tasks/sendSubscribe",
            "params": {"id": "t-many", "message": message},
        }
        async with http.stream("POST", url, json=body) as resp:
            request = await agent.next_request()
            await agent.send({"jsonrpc": "2.0", "id": request["id"], "result": {"ok": True}})
            await chunks(agent, "t-many", 8, "x")
            events = [json.loads(line[5:]) async for line in resp.aiter_lines() if line.startswith("data:")]
        assert [("artifact" in e.get("result", {})) for e in events] == [True] * 5 + [False]
        assert events[-1]["error"]["data"]["reason"] == (
            "ws-agent helper sent more than 5 events (--max-stream-events) for task t-many: the hub stopped relaying it"
        )
        # A blocking call past the size limit gets the same kind of answer.
        body = {"jsonrpc": "2.0", "id": 2, "method": "tasks/send", "params": {"id": "t-big", "message": message}}
        sending = asyncio.ensure_future(http.post(url, json=body))
        request = await agent.next_request()
        await agent.send({"jsonrpc": "2.0", "id": request["id"], "result": {"ok": True}})
        await chunks(agent, "t-big", 4, "y" * 8_000)
        answer = (await asyncio.wait_for(sending, WAIT)).json()
        assert answer["error"]["data"]["reason"] == (
            "ws-agent helper sent more than 19.5 KiB of frames (--max-stream-body) for task t-big: the hub "
            "stopped relaying it"
        )
        # Both are in the session as the hub's notes and as cut streams: a limit of the
        # hub's, not a fault of the agent's.
        await until(lambda: len([e for e in hub.session.events if e.kind is Kind.STREAM_END]) == 2, "two ends")
        ends = [e.data for e in hub.session.events if e.kind is Kind.STREAM_END]
        assert [(d["reason"], d["limit"]) for d in ends] == [
            ("limit", "more than 5 events (--max-stream-events)"),
            ("limit", "more than 19.5 KiB of frames (--max-stream-body)"),
        ]
        assert [e.data["code"] for e in hub.session.events if e.data.get("code") == "hub-stream-limit"] == [
            "hub-stream-limit"
        ] * 2
        assert hub.tracker.violations == []


def test_the_hubs_stream_limits_are_options_with_the_clients_defaults() -> None:
    from inspector.cli import build_parser
    from inspector.client import Limits
    from inspector.headless.hub_cmd import hub_options

    given = hub_options(build_parser().parse_args(["hub", "--max-stream-events", "7", "--max-stream-body", "1M"]))
    assert (given.limits.max_stream_events, given.limits.max_stream_body) == (7, 1024 * 1024)
    default = hub_options(build_parser().parse_args(["hub"])).limits
    assert (default.max_stream_events, default.max_stream_body) == (
        Limits().max_stream_events,
        Limits().max_stream_body,
    )


async def test_frames_before_registering_are_kept_for_the_agents_session_up_to_a_bound() -> None:
    from hub_helpers import running_hub
    from inspector.session import Kind

    async with running_hub(agent_sessions=True) as (hub, server), RawAgent(server.ws_url) as agent:
        for i in range(10):
            await agent.call("heartbeat", {"pad": f"{i}" + "p" * 100_000})
        await agent.register("late")
        session = hub.agents["late"].session
        assert session is not None
        early = [e for e in session.events if e.kind is Kind.WS and e.data.get("rpc_method") == "heartbeat"]
        # The agent's session holds the first of them (what fits in 256 KiB of text),
        # the hub's own session every one.
        assert 0 < len(early) < 10 and sum(len(e.data["text"]) for e in early) <= 256 * 1024
        assert (
            len(
                [e for e in hub.session.events if e.data.get("rpc_method") == "heartbeat" and e.data.get("dir") == "in"]
            )
            == 10
        )
