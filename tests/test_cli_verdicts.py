"""Exit codes for protocol violations (exit 3 unless --lenient) and the agent's last word
(a JSON-RPC error mid-stream) in headless output, against a small misbehaving peer."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from cli_helpers import Cli, cli  # noqa: F401  (fixture)
from hostile import err, event_stream, json_response, ok, sse, status_update, task
from inspector.serving.runner import BackgroundServer

WRONG_ID = 999


def _answer(result: dict[str, Any]) -> Any:
    async def route(request: Request) -> Response:
        await request.body()
        return json_response(ok(WRONG_ID, result))

    return route


async def _wrong_id_stream(request: Request) -> Response:
    rid = (await request.json())["id"]

    async def gen() -> AsyncIterator[bytes]:
        yield sse(ok(rid, task("submitted")))
        yield sse(ok(WRONG_ID, status_update("working")))
        yield sse(ok(rid, status_update("completed", final=True)))

    return event_stream(gen())


async def _error_mid_stream(request: Request) -> Response:
    rid = (await request.json())["id"]

    async def gen() -> AsyncIterator[bytes]:
        yield sse(ok(rid, task("submitted")))
        yield sse(ok(rid, status_update("working")))
        yield sse(err(rid, -32603, "the model fell over"))

    return event_stream(gen())


@pytest.fixture(scope="module")
def peer() -> Iterator[str]:
    app = Starlette(
        routes=[
            Route("/wrong-id-completed", _answer(task("completed")), methods=["POST"]),
            Route("/wrong-id-failed", _answer(task("failed", text="no")), methods=["POST"]),
            Route("/wrong-id-input", _answer(task("input-required", text="which?")), methods=["POST"]),
            Route("/wrong-id-stream", _wrong_id_stream, methods=["POST"]),
            Route("/error-mid-stream", _error_mid_stream, methods=["POST"]),
        ]
    )
    with BackgroundServer(app) as srv:
        yield srv.url


def send(cli: Cli, url: str, *args: str) -> Any:
    return cli("send", url, "hi", "--dialect", "0.3", *args)


# (route, streaming, outcome's own code): a violation outranks 0, 1 and 4.
CASES = [
    ("wrong-id-completed", False, 0),
    ("wrong-id-failed", False, 1),
    ("wrong-id-input", False, 4),
    ("wrong-id-stream", True, 0),
]


@pytest.mark.parametrize(("route", "stream", "outcome"), CASES, ids=[c[0] for c in CASES])
def test_an_error_violation_is_exit_3_and_lenient_gives_the_outcome(
    cli: Cli, peer: str, route: str, stream: bool, outcome: int
) -> None:
    flags = ("--stream",) if stream else ()
    r = send(cli, f"{peer}/{route}", *flags)
    assert r.code == 3, r
    assert any(line.startswith("✗ id-mismatch: JSON-RPC id mismatch") for line in r.out.splitlines()), r
    assert "Traceback" not in r.err
    doc = send(cli, f"{peer}/{route}", *flags, "-o", "json")
    assert doc.code == 3 and doc.json()["exitCode"] == 3
    assert [v["code"] for v in doc.json()["violations"]] == ["id-mismatch"]
    lenient = send(cli, f"{peer}/{route}", *flags, "--lenient", "-o", "ndjson")
    assert lenient.code == outcome, lenient
    records = lenient.ndjson()
    assert [e["code"] for e in records if e["kind"] == "violation"] == ["id-mismatch"]
    assert records[-1] == {"kind": "exit", "exitCode": outcome}


def test_an_error_mid_stream_is_the_tasks_last_word(cli: Cli, peer: str) -> None:
    url = f"{peer}/error-mid-stream"
    r = send(cli, url, "--stream")
    assert r.code == 3, r
    lines = r.out.splitlines()
    assert any(x.startswith("state    working, then error -32603   (submitted → working") for x in lines), r
    assert "error    -32603: the model fell over" in lines, r
    doc = send(cli, url, "--stream", "-o", "json").json()
    t = doc["task"]
    assert t["state"] == "working" and [c["state"] for c in t["timeline"]] == ["submitted", "working"]
    assert t["error"]["kind"] == "error" and t["error"]["code"] == -32603
    assert t["error"]["message"] == "the model fell over" and t["error"]["state"] == "working"
    assert [x["kind"] for x in t["remarks"]] == ["error"]
    assert doc["error"]["code"] == -32603 and doc["violations"] == []


def test_every_headless_command_takes_lenient() -> None:
    from inspector.cli import build_parser

    parser = build_parser()
    for argv in (
        ["send", "u", "x"],
        ["get", "u", "t"],
        ["cancel", "u", "t"],
        ["resubscribe", "u", "t"],
        ["list", "u"],
        ["push", "get", "u", "t"],
        ["card", "u"],
    ):
        assert parser.parse_args([*argv, "--lenient"]).lenient is True
        assert parser.parse_args(argv).lenient is False
    assert "--lenient" in parser.epilog and "outranks 0, 1 and 4" in parser.epilog
