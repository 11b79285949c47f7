"""URLs are built with a URL library, never by joining strings: a base URL with a query
keeps the query after the path, on the card URLs built from it and on the endpoint
that falls back to it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

import hostile
from cli_helpers import Cli, cli  # noqa: F401 (fixture)
from inspector.client import A2AClient, MemoryDialectCache
from inspector.client.discovery import agent_base, card_candidates
from inspector.client.push_receiver import PushReceiver
from inspector.serving.runner import BackgroundServer, url_at
from inspector.session import Session


def test_card_candidates_keep_the_query_after_the_path() -> None:
    assert card_candidates("http://a:1/?v=1") == [
        "http://a:1/.well-known/agent-card.json?v=1",
        "http://a:1/.well-known/agent.json?v=1",
    ]
    assert card_candidates("http://a:1/a2a?v=1#frag") == [
        "http://a:1/a2a/.well-known/agent-card.json?v=1",
        "http://a:1/a2a/.well-known/agent.json?v=1",
        "http://a:1/.well-known/agent-card.json?v=1",
        "http://a:1/.well-known/agent.json?v=1",
    ]
    # a card URL given: used as it is
    assert card_candidates("http://a:1/?v=1", "http://a:1/c.json?k=2") == ["http://a:1/c.json?k=2"]


def test_the_endpoint_from_a_card_url_keeps_its_query() -> None:
    assert agent_base("http://a:1/.well-known/agent-card.json?v=1") == "http://a:1/?v=1"
    assert agent_base("http://a:1/x/.well-known/agent.json?v=1") == "http://a:1/x?v=1"
    assert agent_base("http://a:1/?v=1") == "http://a:1/?v=1"


def test_server_urls_join_paths_with_urllib() -> None:
    assert url_at("http://127.0.0.1:5", "/a2a") == "http://127.0.0.1:5/a2a"
    assert url_at("http://127.0.0.1:5/", "/a2a") == "http://127.0.0.1:5/a2a"
    assert url_at("http://h:1/base/?v=1", "rpc") == "http://h:1/base/rpc?v=1"


async def test_push_receiver_urls() -> None:
    receiver = PushReceiver(Session())
    await receiver.start()
    try:
        assert receiver.url.endswith(f"/{receiver.secret}/")
        assert receiver.url_for("t/1?x") == receiver.url + "t%2F1%3Fx"
    finally:
        await receiver.stop()


def versioned_agent() -> Starlette:
    """An agent that answers only with ``?v=1``: its card (without a ``url``, so the
    client falls back on the address it was given) and its JSON-RPC endpoint at /."""
    seen: list[str] = []

    async def card(request: Request) -> Response:
        seen.append(f"GET {request.url.path}?{request.url.query}")
        if request.query_params.get("v") != "1":
            return Response("no such version", status_code=404)
        return hostile.json_response({"name": "versioned", "protocolVersion": "0.3.0", "preferredTransport": "JSONRPC"})

    async def rpc(request: Request) -> Response:
        seen.append(f"POST {request.url.path}?{request.url.query}")
        rid = json.loads(await request.body()).get("id")
        if request.query_params.get("v") != "1":
            return hostile.json_response(hostile.err(rid, -32601, "unknown version"))
        return hostile.json_response(hostile.ok(rid, hostile.task("completed", text="versioned")))

    app = Starlette(routes=[Route("/.well-known/agent-card.json", card), Route("/", rpc, methods=["POST"])])
    app.state.seen = seen
    return app


@pytest.fixture(scope="module")
def versioned() -> Iterator[tuple[str, Any]]:
    app = versioned_agent()
    with BackgroundServer(app) as srv:
        yield srv.url, app


async def test_a_query_on_the_base_url_reaches_the_card_and_the_endpoint(versioned) -> None:
    url, app = versioned
    app.state.seen.clear()
    async with A2AClient(f"{url}/?v=1", dialect_cache=MemoryDialectCache()) as c:
        await c.resolve_dialect()
        task = await c.send(
            {"message": {"role": "user", "parts": [{"kind": "text", "text": "hi"}], "messageId": "m-1"}}
        )
    assert c.card_url == f"{url}/.well-known/agent-card.json?v=1"
    assert c.endpoint == f"{url}/?v=1"
    assert task.status.state.value == "completed"
    # the card first, then probes (the card names no endpoint) and the send, all with v=1
    assert app.state.seen[0] == "GET /.well-known/agent-card.json?v=1"
    assert set(app.state.seen[1:]) == {"POST /?v=1"}


def test_cli_with_a_query_on_the_base_url(cli: Cli, versioned) -> None:
    url, _app = versioned
    r = cli("send", f"{url}/?v=1", "hi")
    assert r.code == 0, r
    assert "versioned" in r.out


@pytest.mark.parametrize(
    ("url", "why", "shown"),
    [
        ("http://[bad/", "Invalid IPv6 URL", "http://[bad/"),
        # The password is a secret on stderr too (CI logs keep it).
        (
            "http://ada:[pw]@127.0.0.1:9/",
            "does not appear to be an IPv4 or IPv6 address",
            "http://ada:%5Bredacted%5D@127.0.0.1:9/",
        ),
        ("http://127.0.0.1:99999/", "Port out of range", "http://127.0.0.1:99999/"),
    ],
)
def test_an_unusable_url_is_a_usage_error(cli: Cli, url: str, why: str, shown: str) -> None:
    from cli_helpers import assert_one_error_line

    assert_one_error_line(cli("card", url), 2, f"not a usable URL: {shown!r}", why)
