"""The a2a-mock command line (as a subprocess) and the pytest plugin (in a pytester run)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import jsonschema
import pytest

pytest_plugins = ["pytester"]

CLI = [sys.executable, "-m", "mock_agent.cli"]


def run(*args: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=timeout)


def test_check_valid_scenario_exits_0() -> None:
    result = run("--check", "--scenario", "echo")
    assert result.returncode == 0 and "ok" in result.stdout


def test_check_invalid_file_exits_1_naming_file_line_and_field(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("card:\n  name: x\nrules:\n  - script:\n      - status: finished\n")
    result = run("--check", "--scenario", str(path))
    assert result.returncode == 1
    assert f"{path}:5:" in result.stderr and "rules[0].script[0].status" in result.stderr
    assert "Traceback" not in result.stderr


def test_check_missing_file_or_scenario_exits_1(tmp_path: Path) -> None:
    assert run("--check", "--scenario", str(tmp_path / "nope.yaml")).returncode == 1
    assert run("--check").returncode == 1


def test_list_names_every_builtin_and_profile() -> None:
    result = run("--list")
    assert result.returncode == 0
    for name in (
        "echo",
        "streaming",
        "input-required",
        "errors",
        "slow",
        "flaky",
        "large-artifact",
        "files-and-data",
        "demo",
        "society",
        "society-ai",
        "draft",
        "orloj",
    ):
        assert f"  {name} " in result.stdout


def test_schema_prints_a_valid_json_schema() -> None:
    result = run("schema")
    assert result.returncode == 0
    schema = json.loads(result.stdout)
    jsonschema.Draft202012Validator.check_schema(schema)
    assert "card" in schema["properties"] and "rules" in schema["properties"]


def test_bad_arguments_exit_nonzero() -> None:
    assert run("--dialect", "2.0").returncode == 2
    assert run("--profile", "society", "--dialect", "1.0", "--port", "0").returncode == 1
    result = run("--host", "0.0.0.0", "--port", "0")
    assert result.returncode == 1 and "loopback" in result.stderr


def _serve(*args: str) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [*CLI, "--port", "0", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert proc.stdout is not None
    first = proc.stdout.readline()
    assert "serving" in first, first + (proc.stderr.read() if proc.poll() is not None else "")
    return proc, first.split(" at ")[1].strip()


def test_serve_prints_urls_answers_and_stops_cleanly_on_ctrl_c() -> None:
    proc, url = _serve("--scenario", "echo", "--dialect", "0.3")
    try:
        assert url.startswith("http://127.0.0.1:")
        card_line = proc.stdout.readline()
        assert "card: " in card_line
        card_url = card_line.split("card: ")[1].strip()
        assert httpx.get(card_url).json()["url"] == url
        reply = httpx.post(
            url,
            json={
                "jsonrpc": "2.0",
                "id": 1,
                "method": "message/send",
                "params": {
                    "message": {
                        "kind": "message",
                        "role": "user",
                        "messageId": "m",
                        "parts": [{"kind": "text", "text": "hi"}],
                    }
                },
            },
        )
        assert reply.json()["result"]["status"]["state"] == "completed"
    finally:
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=10)
    assert proc.returncode == 0
    assert "Traceback" not in err and "KeyboardInterrupt" not in err


def test_serve_profile_on_its_endpoint() -> None:
    proc, url = _serve("--profile", "orloj")
    try:
        assert url.endswith("/a2a")
        body = httpx.post(
            url,
            json={
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tasks/send",
                "params": {"id": "t", "message": {"role": "user", "parts": [{"type": "text", "text": "reject"}]}},
            },
        ).json()
        assert body["result"]["status"]["state"] == "rejected"
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=10)
    assert proc.returncode == 0


def test_scripted_drops_do_not_print_tracebacks() -> None:
    proc, url = _serve("--scenario", "errors", "--dialect", "0.3")
    try:
        for method in ("message/send", "message/stream"):
            with pytest.raises(httpx.RemoteProtocolError):
                httpx.post(
                    url,
                    json={
                        "jsonrpc": "2.0",
                        "id": 1,
                        "method": method,
                        "params": {
                            "message": {
                                "kind": "message",
                                "role": "user",
                                "messageId": "m",
                                "parts": [{"kind": "text", "text": "drop"}],
                            }
                        },
                    },
                )
    finally:
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=10)
    assert proc.returncode == 0 and err == ""


def test_serve_reports_a_bad_scenario_without_a_traceback(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("card: {name: x}\nrules: [{script: [{delay: soon}]}]\n")
    result = run("--scenario", str(path), "--port", "0")
    assert result.returncode == 1 and f"{path}:2:" in result.stderr and "Traceback" not in result.stderr


# ----------------------------------------------------------------------- pytest plugin


PLUGIN_TESTS = """
import httpx
import pytest


def test_default_is_echo_in_every_dialect(a2a_mock):
    card = httpx.get(a2a_mock.card_url).json()
    assert card["name"] == "Echo Agent"
    assert {i["protocolVersion"] for i in card["supportedInterfaces"]} == {"1.0", "0.3"}


@pytest.mark.a2a_mock("errors", dialect="1.0")
def test_marker_picks_the_scenario(a2a_mock):
    assert httpx.get(a2a_mock.card_url).json()["name"] == "Error Agent"


@pytest.mark.parametrize("a2a_mock", ["streaming", {"profile": "orloj"}], indirect=True)
def test_indirect_parameters(a2a_mock):
    assert a2a_mock.url.startswith("http://127.0.0.1:")


def test_factory_starts_several(a2a_mock_factory):
    a = a2a_mock_factory("echo")
    b = a2a_mock_factory("demo", dialect="0.3")
    assert a.base_url != b.base_url


async def test_works_in_async_tests(a2a_mock):
    async with httpx.AsyncClient() as client:
        assert (await client.get(a2a_mock.card_url)).status_code == 200


@pytest.mark.a2a_mock("echo", dialect="1.0", grpc_port=0)
def test_grpc_on_a_free_port(a2a_mock):
    import grpc

    assert a2a_mock.grpc_url == "grpc://" + a2a_mock.grpc_address
    with grpc.insecure_channel(a2a_mock.grpc_address) as channel:
        grpc.channel_ready_future(channel).result(timeout=10)
    card = httpx.get(a2a_mock.card_url).json()
    assert {"url": a2a_mock.grpc_address, "protocolBinding": "GRPC", "protocolVersion": "1.0"} in card[
        "supportedInterfaces"]
"""


def test_pytest_plugin_fixtures(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_uses_mock=PLUGIN_TESTS)
    pytester.makeini("[pytest]\nasyncio_mode = auto\n")
    # Load the plugin by module whether or not the a2a_mock entry point is installed.
    # Unrelated plugins installed for this suite (hypothesis, snapshots, xdist) would only
    # add their start-up to the child run.
    unrelated = [
        arg
        for name in ("hypothesispytest", "textual-snapshot", "syrupy", "xdist", "xdist.looponfail")
        for arg in ("-p", f"no:{name}")
    ]
    result = pytester.runpytest_subprocess("-p", "no:a2a_mock", "-p", "mock_agent.pytest_plugin", "-q", *unrelated)
    result.assert_outcomes(passed=7)


def test_a_taken_port_is_one_line_and_exit_1() -> None:
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        r = run("--port", str(port))
    assert r.returncode == 1, r
    assert r.stderr.strip() == f"a2a-mock: cannot listen on 127.0.0.1:{port}: Address already in use", r.stderr
    assert "Traceback" not in r.stderr


def test_serve_grpc_on_a_free_port_prints_its_address() -> None:
    import asyncio

    from grpc_raw import Raw

    proc, url = _serve("--scenario", "echo", "--grpc-port", "0")
    try:
        lines = [proc.stdout.readline() for _ in range(5)]
        (line,) = [x for x in lines if x.lstrip().startswith("gRPC")]
        assert line.strip().startswith("gRPC (1.0, 0.3): grpc://127.0.0.1:")
        address = line.split(": ", 1)[1].strip().removeprefix("grpc://")  # as a2a-inspect takes it

        async def send() -> dict:
            async with Raw(address) as raw:
                return await raw.unary(
                    "SendMessage", {"message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "hi"}]}}
                )

        task = asyncio.run(send())["task"]
        card = httpx.get(url.rstrip("/") + "/.well-known/agent-card.json").json()
        assert {"url": address, "transport": "GRPC"} in card["additionalInterfaces"]
        got = httpx.post(
            url, json={"jsonrpc": "2.0", "id": 1, "method": "tasks/get", "params": {"id": task["id"]}}
        ).json()
        assert got["result"]["status"]["state"] == "completed"
    finally:
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=10)
    assert proc.returncode == 0 and "Traceback" not in err


def test_grpc_port_needs_a_dialect_with_grpc() -> None:
    result = run("--dialect", "0.1", "--port", "0", "--grpc-port", "0")
    assert result.returncode == 1 and "no gRPC binding" in result.stderr
