"""What reaches a terminal (CI logs keep it) loses its secrets as a recording does, and
stays a readable size: error lines on stderr, ``card``'s output, the proxy's lines and
its ``-o ndjson`` (with the settings' names), a header whose name says it is a
credential; an agent's 5 MB error message shown as its start and its size."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

import hostile
from cli_helpers import Cli
from inspector.serving.runner import BackgroundServer
from inspector.session.reader import load_recording
from test_proxy_cli import WAIT, ProxyProcess

#: An agent's error message far larger than any terminal line.
HUGE = 5 * 1024 * 1024


def reflecting_agent() -> Starlette:
    """A 0.3 agent whose card names the URL it was fetched at (query and all, as agents
    that build their card from the request do), and whose message/send fails with a
    5 MB message when asked for "huge"."""

    async def card(request: Request) -> Response:
        return hostile.json_response(
            {
                "name": "reflector",
                "url": str(request.url).split("/.well-known")[0]
                + "/"
                + (f"?{request.url.query}" if request.url.query else ""),
                "protocolVersion": "0.3.0",
                "version": "1",
                "description": "d",
                "capabilities": {},
                "defaultInputModes": ["text/plain"],
                "defaultOutputModes": ["text/plain"],
                "skills": [],
            }
        )

    async def rpc(request: Request) -> Response:
        body = json.loads(await request.body())
        text = body["params"]["message"]["parts"][0]["text"]
        if text == "huge":
            return hostile.json_response(hostile.err(body["id"], -32603, "E" * HUGE))
        return hostile.json_response(hostile.ok(body["id"], hostile.task("completed", text=f"echo: {text}")))

    return Starlette(routes=[Route("/.well-known/{name}", card), Route("/", rpc, methods=["POST"])])


@pytest.fixture(scope="module")
def agent() -> Iterator[str]:
    with BackgroundServer(reflecting_agent()) as srv:
        yield srv.url


@pytest.fixture
def cli(tmp_path: Path) -> Cli:
    return Cli(tmp_path / "home")


@pytest.fixture
def refused() -> Iterator[int]:
    """A loopback port that refuses connections: bound, never listening, held for the test."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    try:
        yield sock.getsockname()[1]
    finally:
        sock.close()


def settings(cli: Cli, **values: Any) -> None:
    path = Path(cli.env["XDG_CONFIG_HOME"]) / "a2a-inspect" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(values))


def test_error_lines_lose_the_passwords_and_tokens_of_urls(cli: Cli, refused: int) -> None:
    r = cli("card", f"http://ada:PW-s3cret-01@127.0.0.1:{refused}/?token=TK-s3cret-02&v=1")
    assert r.code != 0 and "cannot connect" in r.err, r
    assert "PW-s3cret-01" not in r.err and "TK-s3cret-02" not in r.err, r.err
    assert "token=[redacted]" in r.err and "v=1" in r.err
    r = cli("send", f"grpc://ada:GRPC-s3cret-03@127.0.0.1:{refused}", "hi", "--timeout", "5")
    assert r.code != 0 and r.err, r
    assert "GRPC-s3cret-03" not in r.out + r.err, r.err
    # A password too short to be redacted by its value (under 8 characters) never
    # reaches grpcio's own words: the target it is given is the host and port.
    r = cli("send", f"grpc://ada:pw7@127.0.0.1:{refused}", "hi", "--binding", "grpc", "--timeout", "5")
    assert r.code == 3 and "cannot connect to 127.0.0.1:" in r.err, r
    assert "pw7" not in r.out + r.err, r.err


@pytest.mark.parametrize("output", ["text", "json"])
def test_card_output_loses_the_urls_secrets(cli: Cli, agent: str, output: str) -> None:
    r = cli("card", f"{agent}/?token=CARD-s3cret-04&v=1", "-o", output)
    assert r.code == 0, r
    assert "CARD-s3cret-04" not in r.out + r.err, r.out
    assert "token=[redacted]" in r.out  # the card's URL is shown, without the token


def test_an_echoed_credential_is_not_printed(cli: Cli, agent: str) -> None:
    # Given as a -H header whose name says it is a credential: a secret value, like
    # --secret-header's, wherever anything is written (the terminal too).
    r = cli("send", agent, "my key is AUTH-s3cret-05", "-H", "X-Auth-Token: AUTH-s3cret-05")
    assert r.code == 0, r
    assert "echo: my key is [redacted]" in r.out, r.out
    assert "AUTH-s3cret-05" not in r.out + r.err


def test_a_credential_looking_header_is_recorded_redacted_unless_listed_plain(
    cli: Cli, agent: str, tmp_path: Path
) -> None:
    rec = tmp_path / "r.jsonl"
    r = cli(
        "send",
        agent,
        "hi",
        "-H",
        "X-Auth-Token: AUTH-s3cret-06",
        "-H",
        "X-Session-Id: trace-000000042",
        "-H",
        "X-Plain: PLAIN-value-07",
        "--record",
        str(rec),
    )
    assert r.code == 0, r
    text = rec.read_text()
    assert "AUTH-s3cret-06" not in text and "trace-000000042" not in text
    assert '"X-Auth-Token":"[redacted]"' in text and '"X-Session-Id":"[redacted]"' in text
    assert '"X-Plain":"PLAIN-value-07"' in text  # not every header is a secret
    # The settings' plain_headers: a name that only looks like a credential's.
    settings(cli, plain_headers=["X-Session-Id"])
    rec2 = tmp_path / "r2.jsonl"
    r = cli(
        "send",
        agent,
        "hi",
        "-H",
        "X-Auth-Token: AUTH-s3cret-06",
        "-H",
        "X-Session-Id: trace-000000042",
        "--record",
        str(rec2),
    )
    assert r.code == 0, r
    text = rec2.read_text()
    assert '"X-Session-Id":"trace-000000042"' in text and "AUTH-s3cret-06" not in text
    assert "x-session-id" in json.loads(text.splitlines()[0])["redaction"]["plain_names"]


def test_proxy_ndjson_honours_the_settings_names(cli: Cli, agent: str) -> None:
    settings(cli, redact_headers=["X-Tenant"])
    proxy = ProxyProcess(cli, agent, "-o", "ndjson")
    try:
        with httpx.Client(timeout=WAIT) as http:
            r = http.get(
                f"{proxy.url}/.well-known/agent-card.json",
                headers={"X-Tenant": "TENANT-s3cret-08", "X-Auth-Token": "AUTH-s3cret-09"},
            )
        assert r.status_code == 200
        proxy.wait_for('"kind": "response"')
    finally:
        rest = proxy.stop()
    printed = "".join(proxy.lines) + rest
    events = [json.loads(x) for x in printed.splitlines() if x.startswith("{")]
    request = next(e for e in events if e["kind"] == "request")
    assert request["headers"]["x-tenant"] == "[redacted]" and request["headers"]["x-auth-token"] == "[redacted]"
    assert "TENANT-s3cret-08" not in printed and "AUTH-s3cret-09" not in printed


def test_proxy_lines_lose_the_urls_secrets(cli: Cli, agent: str) -> None:
    proxy = ProxyProcess(cli, agent)
    try:
        with httpx.Client(timeout=WAIT) as http:
            r = http.get(f"{proxy.url}/.well-known/agent-card.json?token=PROXY-s3cret-10&v=1")
        assert r.status_code == 200
        line = proxy.wait_for("→ GET")
        proxy.wait_for("← 200")
    finally:
        rest = proxy.stop()
    assert "token=[redacted]" in line and "v=1" in line, line
    assert "PROXY-s3cret-10" not in "".join(proxy.lines) + rest


def test_a_huge_error_message_is_shown_as_its_start_and_recorded_whole(cli: Cli, agent: str, tmp_path: Path) -> None:
    rec = tmp_path / "r.jsonl"
    r = cli("send", agent, "huge", "--record", str(rec))
    assert r.code != 0, r
    assert len(r.stderr_bytes) < 16 * 1024, f"{len(r.stderr_bytes):,} bytes on stderr"
    assert "-32603" in r.err and "EEEE" in r.err and "5.0 M more characters; --record keeps it whole" in r.err
    bodies = [e.data.get("body") or "" for e in load_recording(rec).session.events]
    assert any("E" * HUGE in body for body in bodies)


def test_finding_urls_in_an_agents_text_stays_linear() -> None:
    # URLs of any scheme are looked for in what is printed: "a.a.a.…" is a possible
    # scheme from every dot, and an unbounded scheme made 16 KB of it take 2 s (4 MB:
    # hours). In a subprocess, so that a regression fails on the timeout, not hangs.
    import subprocess
    import sys

    code = (
        "from inspector.session.redact import Redaction\n"
        "text = 'a.' * 2_000_000 + ' grpc://ada:PW-s3cret-11@h/?token=TK-s3cret-12'\n"
        "print(Redaction().shown(text)[-60:])\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip().endswith("grpc://ada:%5Bredacted%5D@h/?token=[redacted]"), done.stdout


async def test_hub_ndjson_redacts_an_agents_handshake_credentials(cli: Cli) -> None:
    import subprocess

    from websockets.asyncio.client import connect

    from test_hub_cli import Lines

    proc = cli.start("hub", "--headless", "--port", "0", "-o", "ndjson")
    out = Lines(proc)
    lines: list[str] = []
    try:
        # With -o ndjson the hub's first line is its listening note, naming the socket's URL.
        while True:
            lines.append(out.next())
            if '"hub-listening"' in lines[-1]:
                ws_url = json.loads(lines[-1])["ws"]
                break
        async with connect(
            ws_url, additional_headers={"Authorization": "Bearer HUB-s3cret-0001", "X-Auth-Token": "HUB-s3cret-0002"}
        ):
            while '"op": "open"' not in lines[-1]:
                lines.append(out.next())
    finally:
        proc.send_signal(subprocess.signal.SIGINT)
        try:
            assert proc.wait(WAIT) == 0
        finally:
            if proc.poll() is None:
                proc.kill()
    printed = "".join(lines) + out.rest()
    opened = json.loads(lines[-1])
    assert opened["headers"]["authorization"] == "Bearer [redacted]", opened
    assert opened["headers"]["x-auth-token"] == "[redacted]"
    assert "HUB-s3cret" not in printed
