"""``a2a-inspect proxy --headless`` as a real process between the official a2a-sdk
client and the a2a-sdk agent: a line per exchange and event, and a recording that is an
ordinary one (replayed and diffed against the agent: equivalent; served by
``a2a-mock --replay``; exported to HAR and curl)."""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path

import httpx
import pytest

from cli_helpers import Cli
from inspector.session import Kind
from inspector.session.reader import load_recording
from proxy_helpers import message, sdk_client, texts
from test_hub_cli import Lines
from test_replay_serve import mock_process

WAIT = 30.0


@pytest.fixture
def cli(tmp_path: Path) -> Cli:
    return Cli(tmp_path / "home")


class ProxyProcess:
    def __init__(self, cli: Cli, *args: str) -> None:
        self.proc = cli.start("proxy", "--headless", "--port", "0", *args)
        self.out = Lines(self.proc)
        first = self.out.next()
        assert first.startswith("a2a-inspect proxy: clients connect to http://127.0.0.1:"), first
        self.url = first.rsplit(" ", 1)[1].strip()
        self.lines: list[str] = []

    def wait_for(self, text: str) -> str:
        while True:
            line = self.out.next()
            self.lines.append(line)
            if text in line:
                return line

    def stop(self) -> str:
        self.proc.send_signal(subprocess.signal.SIGINT)
        try:
            code = self.proc.wait(WAIT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise
        assert code == 0
        return self.out.rest()


async def _session(url: str) -> list[str]:
    """Send, stream and an input-required turn, through ``url``: the texts received."""
    from a2a.types import a2a_pb2 as pb

    got = []
    async with sdk_client(url, streaming=False) as client:
        (sent,) = [r async for r in client.send_message(message("hello there inspector"))]
        got.append(texts(sent.task.artifacts[0].parts))
        (asked,) = [r async for r in client.send_message(message("ask me"))]
        assert asked.task.status.state == pb.TaskState.TASK_STATE_INPUT_REQUIRED
        (answered,) = [
            r
            async for r in client.send_message(
                message("the answer", task_id=asked.task.id, context_id=asked.task.context_id)
            )
        ]
        got.append(answered.task.status.message.parts[0].text if answered.task.status.message.parts else "")
    async with sdk_client(url, streaming=True) as client:
        events = [e async for e in client.send_message(message("stream me please now"))]
        got.append(
            texts(
                p
                for e in events
                if e.WhichOneof("payload") == "artifact_update"
                for p in e.artifact_update.artifact.parts
            )
        )
    return got


def test_headless_proxy_records_an_ordinary_recording(cli: Cli, sdk_agent_compat: str, tmp_path: Path) -> None:
    upstream = sdk_agent_compat
    record = tmp_path / "proxied.jsonl"
    proxy = ProxyProcess(cli, upstream, "--record", str(record))
    try:
        got = asyncio.run(_session(proxy.url))
        proxy.wait_for("ended: complete after")
    finally:
        rest = proxy.stop()
    text = "".join(proxy.lines) + rest
    assert got[0] == "echo: hello there inspector" and got[2] == "echo: stream me please now"
    assert "→ POST" in text and "SendStreamingMessage [1.0 jsonrpc]" in text and "card" in text
    assert "← task " in text and "ms proxy" in text
    assert "error (" not in text and "warning (" not in text  # no violation, either side

    rec = load_recording(record)
    kinds = {e.kind for e in rec.session.events}
    assert {Kind.REQUEST, Kind.RESPONSE, Kind.SSE, Kind.STREAM_END} <= kinds

    # Diffed against the live agent: the same conversation.
    diff = cli("replay", str(record), "--against", upstream)
    assert diff.code == 0, diff
    assert "equivalent" in diff.out

    # Served back by a2a-mock: the same answers, to the same official client.
    with mock_process("--replay", str(record), "--speed", "0") as (url, _proc):
        again = asyncio.run(_session(url.rstrip("/")))
    assert again == got

    # Exported.
    har, curl = tmp_path / "p.har", tmp_path / "p.sh"
    assert cli("export", str(record), "--har", str(har), "--curl", str(curl)).code == 0
    entries = json.loads(har.read_text())["log"]["entries"]
    assert any("SendStreamingMessage" in (e["request"].get("postData") or {}).get("text", "") for e in entries)
    assert "curl" in curl.read_text()


def test_ndjson_output_is_every_event_redacted(cli: Cli, sdk_agent_v10: str) -> None:
    proxy = ProxyProcess(cli, sdk_agent_v10, "-o", "ndjson")
    try:
        with httpx.Client(timeout=WAIT) as http:
            r = http.get(
                f"{proxy.url}/.well-known/agent-card.json", headers={"Authorization": "Bearer s3cret-t0ken-xyz"}
            )
        assert r.status_code == 200
        line = proxy.wait_for('"kind": "response"')
    finally:
        rest = proxy.stop()
    events = [json.loads(x) for x in [*proxy.lines, *rest.splitlines()] if x.startswith("{")]
    request = next(e for e in events if e["kind"] == "request")
    assert request["headers"]["authorization"] == "Bearer [redacted]"
    assert "s3cret-t0ken-xyz" not in "".join(proxy.lines) + rest
    assert json.loads(line)["status"] == 200


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        ((), "give the agent's URL"),
        (("ftp://x",), "http:// or https://"),
        (("http://127.0.0.1:9", "--route", "nopath"), "--route expects"),
        (("http://127.0.0.1:9", "--faults", "/no/such/faults.yaml"), "cannot read"),
    ],
)
def test_usage_errors_are_one_line(cli: Cli, args: tuple[str, ...], needle: str) -> None:
    proc = cli.start("proxy", "--headless", "--port", "0", *args)
    out, err = proc.communicate(timeout=WAIT)
    assert proc.returncode == 2, (out, err)
    lines = err.decode().strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], lines


@pytest.mark.parametrize("sig", ["SIGTERM", "SIGINT"])
def test_a_signal_mid_stream_stops_the_proxy_cleanly(cli: Cli, screen_agent: object, tmp_path: Path, sig: str) -> None:
    """Ctrl-C or SIGTERM while a stream passes through: the proxy's own handler stops it
    (uvicorn used to take the signal first and close the connections under the relay):
    exit 0, no traceback, and the recording holds the exchange as far as it went."""
    recording = tmp_path / "mid.jsonl"
    proxy = ProxyProcess(cli, screen_agent.url, "--record", str(recording))
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "message/stream",
        "params": {
            "message": {
                "role": "user",
                "messageId": "m1",
                "kind": "message",
                "parts": [{"kind": "text", "text": "held on"}],
            }
        },
    }

    async def stream_until_held() -> None:
        async with httpx.AsyncClient(timeout=WAIT) as client:
            async with client.stream("POST", proxy.url, json=body) as response:
                lines = response.aiter_lines()
                async for line in lines:
                    if "waiting at the gate" in line:
                        proxy.proc.send_signal(getattr(subprocess.signal, sig))
                        break
                try:
                    async for _line in lines:
                        pass
                except httpx.HTTPError:
                    pass  # the proxy went away mid-stream: expected

    asyncio.run(asyncio.wait_for(stream_until_held(), WAIT))
    code = proxy.proc.wait(WAIT)
    rest = proxy.out.rest()
    err = proxy.proc.stderr.read().decode(errors="replace") if proxy.proc.stderr else ""
    assert code == 0, (code, err)
    assert "Traceback" not in err + rest, err + rest
    # The proxy cut the stream, not the agent: no violation blames the agent for it.
    assert "ended: stopped" in rest and "stream-no-terminal" not in rest, rest
    kinds = [e.kind for e in load_recording(recording).session.events]
    assert Kind.REQUEST in kinds and Kind.SSE in kinds, kinds
