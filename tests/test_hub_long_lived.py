"""Agents' sockets stay up as long as the agent lives: the HTTP request deadline
(serving/deadline.py) never reaches an upgraded socket, heartbeats keep an agent for
hours, and a2a-mock's ws-agent comes back when its socket drops.

Real sockets throughout; the deadline is shortened (and the hub's clock is the test's)
so that what takes 30 s and hours takes a second here."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys

from hub_helpers import WAIT, RawAgent, running_hub, until
from inspector.hub import Hub, HubLimits, HubServer

#: The request deadline in these tests (30 s in use).
DEADLINE = 0.3


async def _past_the_deadline() -> None:
    # The hub serves in this event loop: its deadline timer (DEADLINE after the socket
    # opened) is due before this sleep's, so it has fired, or not, by the time this returns.
    await asyncio.sleep(3 * DEADLINE)


def _bridge_send(text: str) -> dict:
    return {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tasks/send",
        "params": {"id": "t-long", "message": {"role": "user", "parts": [{"type": "text", "text": text}]}},
    }


async def test_a_heartbeating_agent_outlives_the_deadline_and_stays_for_hours() -> None:
    import httpx

    now = [0.0]
    limits = HubLimits(heartbeat_timeout=45.0)
    async with (
        running_hub(limits=limits, clock=lambda: now[0], sweep_every=3600, request_timeout=DEADLINE) as (hub, server),
        RawAgent(server.ws_url) as agent,
        httpx.AsyncClient(timeout=WAIT) as http,
    ):
        await agent.register("helper")
        # A task is running across the deadline and the hours: it must not be failed.
        call = asyncio.ensure_future(http.post(f"{server.base_url}/agents/helper", json=_bridge_send("take your time")))
        request = await agent.next_request()
        await _past_the_deadline()
        # Three hours of heartbeats, one every 15 s of the hub's clock, each over the socket.
        for _ in range(3 * 3600 // 15):
            assert (await agent.call("heartbeat", {"name": "helper"}))["result"] == {"ok": True}
            now[0] += 15.0
            hub.sweep()
            assert hub.agents["helper"].status == "online"
        task_id = request["params"]["id"]
        await agent.notify(
            "task.complete",
            {
                "id": task_id,
                "status": {"state": "completed"},
                "artifacts": [{"parts": [{"type": "text", "text": "done"}]}],
            },
        )
        answer = (await call).json()
        assert answer["result"]["status"]["state"] == "completed", answer
        assert hub.agents["helper"].registrations == 1
        # Silence still makes it stale, as before.
        now[0] += 46.0
        hub.sweep()
        assert hub.agents["helper"].status == "stale"
        # The deadline still holds for the bridge's HTTP: a request that never finishes
        # arriving is answered 408.
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        writer.write(b"POST /agents/helper HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        await writer.drain()
        head = await asyncio.wait_for(reader.read(64), WAIT)
        writer.close()
        assert head.startswith(b"HTTP/1.1 408 Request Timeout\r\n"), head


async def test_the_mock_reconnects_with_backoff_when_its_socket_drops() -> None:
    from mock_agent.ws_agent import WsAgent

    warned: list[str] = []
    async with running_hub(sweep_every=3600, request_timeout=DEADLINE) as (hub, server):
        port = server.port
        agent = WsAgent(server.ws_url, "helper", heartbeat=0, warn=warned.append, reconnect_delay=0.01)
        run = asyncio.ensure_future(agent.run())
        try:
            await until(lambda: agent.registered.is_set() or run.done(), "the agent to register")
            await _past_the_deadline()
            assert agent.connections == 1 and warned == []
            # The hub closes the socket: the mock comes back.
            sock = hub.agents["helper"].socket
            await sock.close(1011, "hub trouble")
            await until(lambda: hub.agents["helper"].registrations == 2 or run.done(), "a second registration")
            assert warned == [
                f"a2a-mock: the socket to {server.ws_url} was closed by the hub (code 1011: hub "
                "trouble); reconnecting in 0.01 s (attempt 1 of 30)"
            ]
            await until(lambda: agent.registered.is_set(), "the agent to be registered again")
        except BaseException:
            agent.stop()
            raise
    # The hub is gone: each attempt fails, and waits twice as long as the one before.
    try:
        await until(lambda: len(warned) >= 4 or run.done(), "attempts to reconnect")
        assert not run.done()
        # (uvicorn closes it, 1012, as it shuts down)
        assert "was closed by the hub (code 10" in warned[1] and "in 0.01 s (attempt 1 of 30)" in warned[1], warned
        assert "could not be opened" in warned[2] and "reconnecting in 0.02 s (attempt 2 of 30)" in warned[2], warned
        assert "reconnecting in 0.04 s (attempt 3 of 30)" in warned[3], warned
        # A hub on the same port again: the agent registers there.
        again = Hub()
        async with HubServer(again, port=port, sweep_every=3600):
            await until(lambda: "helper" in again.agents or run.done(), "the agent at the new hub")
            assert again.agents["helper"].online and not run.done()
            seen = len(warned)
        await until(lambda: len(warned) > seen, "the next drop")
        assert "attempt 1 of 30" in warned[seen], warned  # it registered: the count started over
    finally:
        agent.stop()
        with contextlib.suppress(BaseException):
            await asyncio.wait_for(run, WAIT)
    assert run.done() and run.exception() is None


async def test_the_mock_command_stays_past_the_deadline_and_says_when_it_reconnects() -> None:
    async with running_hub(sweep_every=3600, request_timeout=DEADLINE) as (hub, server):
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "mock_agent.cli",
            "--ws-agent",
            server.ws_url,
            "--name",
            "helper",
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        try:
            line = await asyncio.wait_for(proc.stdout.readline(), WAIT)
            assert line.decode().startswith("a2a-mock: registered as ws-agent://helper"), line
            await _past_the_deadline()
            assert proc.returncode is None and hub.agents["helper"].online
            await hub.agents["helper"].socket.close(1011, "hub trouble")
            err = await asyncio.wait_for(proc.stderr.readline(), WAIT)
            assert err.decode() == (
                f"a2a-mock: the socket to {server.ws_url} was closed by the hub (code 1011: "
                "hub trouble); reconnecting in 0.5 s (attempt 1 of 30)\n"
            )
            line = await asyncio.wait_for(proc.stdout.readline(), WAIT)
            assert line.decode().startswith("a2a-mock: registered as ws-agent://helper"), line
            await until(lambda: hub.agents["helper"].registrations == 2, "the second registration")
        finally:
            if proc.returncode is None:
                proc.send_signal(signal.SIGINT)
            try:
                code = await asyncio.wait_for(proc.wait(), WAIT)
            except TimeoutError:
                proc.kill()
                raise
        assert code == 0
        rest = (await proc.stderr.read()).decode()
        assert rest == "", rest
