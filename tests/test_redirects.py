"""Card discovery follows redirects hop by hop, each on the record; credentials and the
user's own headers go only to the origin they were given for: a hop to another origin
is sent without them, and a NOTE says where it went and what was withheld. Errors name
the URL that actually failed."""

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
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

import hostile
from cli_helpers import Cli, assert_one_error_line, cli  # noqa: F401 (fixture)
from inspector.client import A2AClient, Auth, MemoryDialectCache, TransportError
from inspector.client.transport import same_origin
from inspector.serving.runner import BackgroundServer
from inspector.session.events import Kind

CARD = {"name": "elsewhere", "protocolVersion": "0.3.0", "url": "/rpc", "preferredTransport": "JSONRPC"}
BOUND = ("authorization", "x-my-key", "x-custom", "cookie")


class Site:
    """One origin: answers each path with what the test put in ``routes``; records every
    request's path and headers."""

    def __init__(self) -> None:
        self.routes: dict[str, Any] = {}
        self.seen: list[tuple[str, dict[str, str]]] = []
        app = Starlette(routes=[Route("/{path:path}", self.handle, methods=["GET", "POST"])])
        self.server = BackgroundServer(app).start()
        self.url = self.server.url

    async def handle(self, request: Request) -> Response:
        path = "/" + request.path_params["path"]
        self.seen.append((path, dict(request.headers)))
        what = self.routes.get(path)
        if what is None:
            return Response("not here", status_code=404)
        if isinstance(what, str):
            return RedirectResponse(what, status_code=302)
        if path == "/rpc":
            rid = json.loads(await request.body()).get("id")
            return hostile.json_response(hostile.ok(rid, hostile.task("completed", text="ok")))
        return hostile.json_response(what)

    def headers_at(self, path: str) -> list[dict[str, str]]:
        return [h for p, h in self.seen if p == path]


@pytest.fixture
def sites() -> Iterator[tuple[Site, Site]]:
    a, b = Site(), Site()
    yield a, b
    a.server.stop()
    b.server.stop()


@pytest.fixture
def refused() -> Iterator[str]:
    """A loopback port that refuses connections for the whole test: bound, not listening."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"


def credentials() -> dict[str, Any]:
    return {
        "auth": Auth.api_key("KEY-0123456789", header="X-My-Key") + Auth.bearer("BEARER-0123456789"),
        "headers": {"X-Custom": "mine", "Cookie": "sid=COOKIE-0123456789"},
    }


def notes(c: A2AClient) -> list[str]:
    return [e.data["text"] for e in c.session.events if e.kind is Kind.NOTE]


def test_same_origin_rule() -> None:
    u = httpx.URL
    assert same_origin(u("http://a:80/x"), u("http://a/y"))
    assert same_origin(u("http://a/x"), u("https://a/y"))  # upgrade, same host
    assert not same_origin(u("https://a/x"), u("http://a/y"))  # downgrade
    assert not same_origin(u("http://a:1/x"), u("http://a:2/x"))  # another port
    assert not same_origin(u("http://a/x"), u("http://b/x"))
    assert not same_origin(u("http://a:8080/x"), u("https://a:8443/x"))


async def test_a_cross_origin_redirect_gets_no_credentials(sites) -> None:
    a, b = sites
    a.routes["/.well-known/agent-card.json"] = f"{b.url}/card.json"
    b.routes["/card.json"] = CARD
    async with A2AClient(a.url, dialect_cache=MemoryDialectCache(), **credentials()) as c:
        card = await c.get_card()
    assert card.name == "elsewhere"
    (sent_a,) = a.headers_at("/.well-known/agent-card.json")
    (sent_b,) = b.headers_at("/card.json")
    for name in BOUND:
        assert name in sent_a, name
        assert name not in sent_b, name
    assert sent_b["accept"] == "application/json"  # the protocol's own headers still go
    assert c.card_url == f"{b.url}/card.json"  # where the card was served from
    (note,) = [n for n in notes(c) if "redirected" in n]
    assert note.startswith(f"{a.url}/.well-known/agent-card.json redirected (HTTP 302) to {b.url}/card.json")
    assert "another origin: sent there without X-My-Key, Authorization, X-Custom, Cookie" in note
    assert f"go only to {a.url}" in note
    # each hop is an exchange of its own on the record
    requests = [e.data["url"] for e in c.session.events if e.kind is Kind.REQUEST]
    assert requests == [f"{a.url}/.well-known/agent-card.json", f"{b.url}/card.json"]


async def test_credentials_come_back_on_a_hop_to_the_origin_they_were_given_for(sites) -> None:
    a, b = sites
    a.routes["/.well-known/agent-card.json"] = f"{b.url}/bounce"
    b.routes["/bounce"] = f"{a.url}/card.json"
    a.routes["/card.json"] = CARD
    async with A2AClient(a.url, dialect_cache=MemoryDialectCache(), **credentials()) as c:
        await c.get_card()
    assert all(name not in b.headers_at("/bounce")[0] for name in BOUND)
    assert all(name in a.headers_at("/card.json")[0] for name in BOUND)


async def test_a_same_origin_redirect_keeps_them(sites) -> None:
    a, _b = sites
    a.routes["/.well-known/agent-card.json"] = "/cards/real.json"
    a.routes["/cards/real.json"] = CARD
    async with A2AClient(a.url, dialect_cache=MemoryDialectCache(), **credentials()) as c:
        await c.get_card()
    (sent,) = a.headers_at("/cards/real.json")
    assert all(name in sent for name in BOUND)
    (note,) = [n for n in notes(c) if "redirected" in n]
    assert note == f"{a.url}/.well-known/agent-card.json redirected (HTTP 302) to {a.url}/cards/real.json"


async def test_the_error_names_the_url_that_failed(sites, refused: str) -> None:
    a, _b = sites
    a.routes["/.well-known/agent-card.json"] = f"{refused}/card.json"
    async with A2AClient(a.url, dialect_cache=MemoryDialectCache()) as c:
        with pytest.raises(TransportError) as info:
            await c.get_card()
    assert info.value.message == f"cannot connect to {refused}/card.json: connection refused"
    assert info.value.url == f"{refused}/card.json"


async def test_a_redirect_loop_ends(sites) -> None:
    a, _b = sites
    a.routes["/.well-known/agent-card.json"] = "/.well-known/agent-card.json"
    async with A2AClient(a.url, dialect_cache=MemoryDialectCache()) as c:
        with pytest.raises(TransportError) as info:
            await c.get_card()
    assert "more than 10 redirects, gave up" in info.value.message
    assert len(a.seen) == 11


async def test_a_missing_card_after_a_redirect_names_where_it_was_missing(sites) -> None:
    a, b = sites
    a.routes["/.well-known/agent-card.json"] = f"{b.url}/gone.json"
    async with A2AClient(a.url, dialect_cache=MemoryDialectCache()) as c:
        with pytest.raises(TransportError) as info:
            await c.get_card()
    assert f"{b.url}/gone.json (HTTP 404)" in info.value.message


def test_cli_cross_origin_redirect(cli: Cli, sites, tmp_path: Path) -> None:
    a, b = sites
    a.routes["/.well-known/agent-card.json"] = f"{b.url}/card.json"
    b.routes["/card.json"] = {**CARD, "url": f"{a.url}/rpc"}
    a.routes["/rpc"] = {}
    rec = tmp_path / "r.jsonl"
    r = cli(
        "send",
        a.url,
        "hi",
        "--api-key",
        "KEY-0123456789",
        "--api-key-header",
        "X-My-Key",
        "-H",
        "X-Custom: mine",
        "--secret-header",
        "X-Org: ORG-0123456789",
        "--record",
        str(rec),
    )
    assert r.code == 0, r
    (sent_b,) = b.headers_at("/card.json")
    assert not {"x-my-key", "x-custom", "x-org"} & set(sent_b)
    (sent_rpc,) = a.headers_at("/rpc")
    assert sent_rpc["x-my-key"] == "KEY-0123456789" and sent_rpc["x-org"] == "ORG-0123456789"
    text = rec.read_text()
    assert "another origin: sent there without X-My-Key, X-Org, X-Custom" in text


def test_cli_error_names_the_redirect_target(cli: Cli, sites, refused: str) -> None:
    a, _b = sites
    a.routes["/.well-known/agent-card.json"] = f"{refused}/card.json"
    r = cli("card", a.url)
    assert_one_error_line(r, 3, f"cannot connect to {refused}/card.json")
    assert f"{a.url}/.well-known" not in r.err


async def test_an_endpoint_named_by_a_card_from_another_origin_gets_no_credentials(sites) -> None:
    a, b = sites
    a.routes["/.well-known/agent-card.json"] = f"{b.url}/card.json"
    b.routes["/card.json"] = CARD  # "url": "/rpc", so the endpoint is on b's origin
    b.routes["/rpc"] = {}
    async with A2AClient(a.url, dialect_cache=MemoryDialectCache(), **credentials()) as c:
        await c.send({"message": {"role": "user", "parts": [{"kind": "text", "text": "hi"}], "messageId": "m-1"}})
    (sent,) = b.headers_at("/rpc")
    assert not set(BOUND) & set(sent)
    assert sent["content-type"] == "application/json"
    (note,) = [n for n in notes(c) if "named by the card" in n]
    assert note == (
        f"{b.url}/rpc is on another origin than {a.url}, named by the card served from "
        f"{b.url}/card.json after a redirect: sent there without X-My-Key, Authorization, "
        "X-Custom, Cookie"
    )


async def test_a_card_from_the_given_origin_speaks_for_its_endpoint(sites) -> None:
    a, b = sites
    a.routes["/.well-known/agent-card.json"] = {**CARD, "url": f"{b.url}/rpc"}
    b.routes["/rpc"] = {}
    async with A2AClient(a.url, dialect_cache=MemoryDialectCache(), **credentials()) as c:
        await c.send({"message": {"role": "user", "parts": [{"kind": "text", "text": "hi"}], "messageId": "m-1"}})
    (sent,) = b.headers_at("/rpc")
    assert all(name in sent for name in BOUND)
    assert not [n for n in notes(c) if "named by the card" in n]
