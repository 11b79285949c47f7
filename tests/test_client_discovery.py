"""Card discovery, endpoint resolution and dialect detection against real loopback
servers: small ones speaking one dialect each (tests/hostile.py) and the a2a-sdk peer."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

import hostile
from inspector.client import (
    A2AClient,
    DialectCache,
    JsonRpcError,
    MemoryDialectCache,
    ProtocolError,
    TransportError,
    UnsupportedMethod,
)
from inspector.client.dialect_cache import agent_key
from inspector.client.discovery import agent_base, card_candidates
from inspector.protocol import models as m
from inspector.protocol.methods import Method
from inspector.serving.runner import BackgroundServer
from inspector.session.events import Kind

CARD_10 = {
    "name": "ten",
    "supportedInterfaces": [{"url": "{base}/rpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
}
CARD_03 = {"name": "three", "protocolVersion": "0.3.0", "url": "/rpc", "preferredTransport": "JSONRPC"}
# 0.1 cards (and Society's) name neither a version nor a transport: only probing can tell.
CARD_01 = {"name": "draft", "url": "{base}/rpc", "capabilities": {"streaming": True}}
SOCIETY_CARD = {
    "name": "claude",
    "description": "Claude Code agent",
    "url": "{base}",
    "skills": [{"id": "code", "name": "Code Assistant"}],
    "capabilities": {"streaming": False, "pushNotifications": False},
}


def send_params(text: str = "hello") -> m.SendParams:
    return m.SendParams(message=m.Message(role="user", parts=[m.TextPart(text=text)], message_id="m-1"))


@pytest.fixture
def serve() -> Iterator[Any]:
    servers: list[BackgroundServer] = []

    def start(app: Any) -> str:
        srv = BackgroundServer(app).start()
        servers.append(srv)
        return srv.url

    yield start
    for srv in servers:
        srv.stop()


def requests_of(c: A2AClient, what: str) -> list[dict[str, Any]]:
    return [e.data for e in c.session.events if e.kind is Kind.REQUEST and e.data["a2a_method"] == what]


def notes(c: A2AClient) -> list[dict[str, Any]]:
    return [e.data for e in c.session.events if e.kind is Kind.NOTE]


def detection(c: A2AClient) -> dict[str, Any]:
    (note,) = [n for n in notes(c) if "source" in n]
    return note


# ------------------------------------------------------------------ where the card is


def test_card_candidates() -> None:
    assert card_candidates("http://a:1") == [
        "http://a:1/.well-known/agent-card.json",
        "http://a:1/.well-known/agent.json",
    ]
    assert card_candidates("http://a:1/", "http://a:1/c.json") == ["http://a:1/c.json"]
    assert card_candidates("http://a:1/x/agent.json") == ["http://a:1/x/agent.json"]
    # an endpoint with a path: its own well-known paths, then the origin's
    assert card_candidates("http://a:1/a2a/") == [
        "http://a:1/a2a/.well-known/agent-card.json",
        "http://a:1/a2a/.well-known/agent.json",
        "http://a:1/.well-known/agent-card.json",
        "http://a:1/.well-known/agent.json",
    ]
    assert agent_base("http://a:1/.well-known/agent.json") == "http://a:1/"
    assert agent_base("http://a:1/cards/me.json") == "http://a:1/cards"


async def test_card_at_agent_card_path_gives_dialect_and_relative_endpoint(serve) -> None:
    app = hostile.dialect_agent(("0.3",), card=CARD_03, rpc_path="/rpc")
    url = serve(app)
    async with A2AClient(url, dialect_cache=MemoryDialectCache()) as c:
        dialect = await c.resolve_dialect()
        result = await c.send(send_params())
    assert dialect.name == "0.3" and c.dialect_source == "card"
    assert c.card_url == f"{url}/.well-known/agent-card.json"
    assert c.card.name == "three" and c.card_raw["protocolVersion"] == "0.3.0"
    assert c.endpoint == f"{url}/rpc"  # "/rpc" resolved against the card's URL
    assert isinstance(result, m.Task)
    assert [r["url"] for r in requests_of(c, "card")] == [c.card_url]
    assert requests_of(c, "probe") == []
    assert detection(c)["text"] == "dialect 0.3 detected from the card"
    card_response = next(e for e in c.session.events if e.kind is Kind.RESPONSE)
    assert isinstance(card_response.payload, m.AgentCard)


async def test_card_at_legacy_path_after_a_404(serve) -> None:
    app = hostile.dialect_agent(("0.1",), card=CARD_01, card_path="/.well-known/agent.json", rpc_path="/rpc")
    url = serve(app)
    async with A2AClient(url, dialect_cache=MemoryDialectCache()) as c:
        await c.resolve_dialect()
    gets = [e for e in c.session.events if e.kind is Kind.RESPONSE and e.exchange in (1, 2)]
    assert [g.data["status"] for g in gets] == [404, 200]
    assert gets[0].payload is None and isinstance(gets[1].payload, m.AgentCard)
    assert c.card_url == f"{url}/.well-known/agent.json"
    assert c.endpoint == f"{url}/rpc"
    assert c.dialect.name == "0.1" and c.dialect_source == "probe"


async def test_explicit_card_url_is_the_only_card_get(serve) -> None:
    app = hostile.dialect_agent(("1.0",), card=CARD_10, card_path="/cards/me.json", rpc_path="/rpc")
    url = serve(app)
    async with A2AClient(url, card_url=f"{url}/cards/me.json", dialect_cache=MemoryDialectCache()) as c:
        await c.resolve_dialect()
    assert [r["url"] for r in requests_of(c, "card")] == [f"{url}/cards/me.json"]
    assert c.dialect.name == "1.0" and c.endpoint == f"{url}/rpc"


async def test_a_url_ending_in_json_is_the_card_url(serve) -> None:
    app = hostile.dialect_agent(("1.0",), card=CARD_10, card_path="/cards/me.json", rpc_path="/rpc")
    url = serve(app)
    async with A2AClient(f"{url}/cards/me.json", dialect_cache=MemoryDialectCache()) as c:
        await c.resolve_dialect()
    assert [r["url"] for r in requests_of(c, "card")] == [f"{url}/cards/me.json"]
    assert c.endpoint == f"{url}/rpc"


@pytest.mark.parametrize(
    ("speaks", "card", "source"),
    [
        ("1.0", CARD_10, "card"),
        ("0.3", CARD_03, "card"),
        ("0.1", CARD_01, "probe"),
    ],
)
async def test_detection_with_a_card_for_each_dialect(serve, speaks: str, card: dict, source: str) -> None:
    url = serve(hostile.dialect_agent((speaks,), card=card, rpc_path="/rpc"))
    async with A2AClient(url, dialect_cache=MemoryDialectCache()) as c:
        await c.resolve_dialect()
        result = await c.send(send_params())
    assert (c.dialect.name, c.dialect_source) == (speaks, source)
    assert result.artifacts[0].parts[0].text == "hello back"
    # the send went out in the detected dialect's own spelling
    assert [r["rpc_method"] for r in requests_of(c, "send")] == [c.dialect.wire_method(Method.SEND)]


# ------------------------------------------------------------------ the probe chain


@pytest.mark.parametrize(
    ("speaks", "want", "probes"),
    [
        (("1.0",), "1.0", ["GetTask"]),
        (("0.3",), "0.3", ["GetTask", "message/send"]),
        (("0.1",), "0.1", ["GetTask", "message/send", "tasks/send"]),
        (("1.0", "0.3"), "1.0", ["GetTask"]),
    ],
)
async def test_probe_chain_without_a_card(serve, speaks, want: str, probes: list[str]) -> None:
    app = hostile.dialect_agent(speaks)
    url = serve(app)
    async with A2AClient(url, dialect_cache=MemoryDialectCache()) as c:
        await c.resolve_dialect()
    assert c.dialect.name == want and c.dialect_source == "probe"
    sent = requests_of(c, "probe")
    assert [p["rpc_method"] for p in sent] == probes
    assert [p["dialect"] for p in sent] == ["1.0", "0.3", "0.1"][: len(probes)]
    # only the 1.0 probe carries the version header
    assert [("A2A-Version" in p["headers"]) for p in sent] == [True, False, False][: len(probes)]
    assert app.state.accepted == []  # no probe got past validation: no side effects
    assert detection(c)["text"].startswith(f"dialect {want} detected by probe: {probes[-1]} answered ")
    assert c.endpoint == url  # no card: the URL given


async def test_probe_responses_carry_their_decoded_errors(serve) -> None:
    url = serve(hostile.dialect_agent(("0.1",)))
    async with A2AClient(url, dialect_cache=MemoryDialectCache()) as c:
        await c.resolve_dialect()
    probe_exchanges = {
        e.exchange for e in c.session.events if e.kind is Kind.REQUEST and e.data["a2a_method"] == "probe"
    }
    payloads = [e.payload for e in c.session.events if e.kind is Kind.RESPONSE and e.exchange in probe_exchanges]
    # -32603: the 0.1 handler refusing the 1.0 header (as a2a-sdk does, capture 25)
    assert [p.code for p in payloads] == [-32603, -32601, -32602]
    assert all(isinstance(p, JsonRpcError) for p in payloads)


async def test_user_headers_cannot_fool_the_version_probe(serve) -> None:
    url = serve(hostile.dialect_agent(("1.0",)))
    async with A2AClient(url, headers={"A2A-Version": "0.3"}, dialect_cache=MemoryDialectCache()) as c:
        await c.resolve_dialect()
    assert c.dialect.name == "1.0"


@pytest.mark.parametrize("mode", ["compat", "v10"])
async def test_probe_chain_against_the_real_sdk(sdk_agent_compat, sdk_agent_v10, mode: str) -> None:
    url = sdk_agent_compat if mode == "compat" else sdk_agent_v10
    # a card URL with nothing behind it forces the probe chain
    async with A2AClient(url, card_url=f"{url}/no-card-here.json", dialect_cache=MemoryDialectCache()) as c:
        await c.resolve_dialect()
        result = await c.send(send_params("hello probe"))
    assert c.dialect.name == "1.0" and c.dialect_source == "probe"
    assert isinstance(result, m.Task) and result.status.state is m.TaskState.COMPLETED


async def test_nothing_answers_so_the_card_path_decides(serve) -> None:
    # the card is at the 0.1 path and names an endpoint that does not exist
    card = dict(CARD_01, url="{base}/nowhere")
    url = serve(hostile.dialect_agent(("0.1",), card=card, card_path="/.well-known/agent.json", rpc_path="/rpc"))
    cache = MemoryDialectCache()
    async with A2AClient(url, dialect_cache=cache) as c:
        await c.resolve_dialect()
    assert c.dialect.name == "0.1" and c.dialect_source == "fallback"
    text = detection(c)["text"]
    assert text.startswith("dialect 0.1 assumed: no probe answered as expected (GetTask answered HTTP 404")
    assert text.endswith("the card is at the 0.1 path (agent.json)")
    assert cache.get(url) is None  # a guess is not remembered


# ------------------------------------------------------------------ Society's surface


async def test_society_card_and_tasks_send_only(serve) -> None:
    app = hostile.dialect_agent(("0.1",), card=SOCIETY_CARD, card_path="/.well-known/agent.json", only=("tasks/send",))
    url = serve(app)
    async with A2AClient(url, dialect_cache=MemoryDialectCache()) as c:
        await c.resolve_dialect()
        task = await c.send(send_params())
        with pytest.raises(JsonRpcError) as info:
            await c.get_task("t-1")
    assert c.dialect.name == "0.1" and c.endpoint == url
    assert task.status.state is m.TaskState.COMPLETED
    assert info.value.code == -32601 and info.value.http_status == 200
    assert app.state.accepted == ["tasks/send"]  # the user's send, not a probe


# ------------------------------------------------------------------ cache and override


async def test_cache_hit_skips_the_probes_and_override_skips_detection(serve, tmp_path) -> None:
    url = serve(hostile.dialect_agent(("0.1",)))
    cache = DialectCache(tmp_path / "dialects.json")
    async with A2AClient(url, dialect_cache=cache) as first:
        await first.resolve_dialect()
    assert len(requests_of(first, "probe")) == 3
    assert json.loads((tmp_path / "dialects.json").read_text()) == {agent_key(url): "0.1"}

    async with A2AClient(url + "/", dialect_cache=DialectCache(tmp_path / "dialects.json")) as second:
        await second.resolve_dialect()
    assert second.dialect.name == "0.1" and second.dialect_source == "cache"
    assert requests_of(second, "probe") == []
    assert "(cache)" in detection(second)["text"]

    async with A2AClient(url, dialect="0.3", dialect_cache=cache) as third:
        await third.resolve_dialect()
        with pytest.raises(JsonRpcError) as info:
            await third.send(send_params())
    assert third.dialect_source == "user" and requests_of(third, "probe") == []
    assert detection(third)["text"] == "dialect 0.3 chosen by the user"
    assert info.value.code == -32601
    assert cache.get(url) == "0.1"  # an override is not remembered


def test_a_corrupt_cache_file_is_no_cache(tmp_path) -> None:
    path = tmp_path / "sub" / "dialects.json"
    path.parent.mkdir()
    path.write_bytes(b"\x00{not json")
    cache = DialectCache(path)
    assert cache.get("http://a:1") is None
    cache.set("http://a:1/", "1.0")
    assert json.loads(path.read_text()) == {"http://a:1": "1.0"}
    assert DialectCache(path).get("HTTP://A:1") == "1.0"
    path.write_text("[1, 2]")
    assert cache.get("http://a:1") is None


def test_an_unwritable_cache_is_ignored(tmp_path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    cache = DialectCache(blocker / "dialects.json")  # parent is a file: cannot write
    cache.set("http://a:1", "0.3")
    assert cache.get("http://a:1") is None


def test_an_unknown_dialect_name_fails_at_construction() -> None:
    with pytest.raises(ValueError, match=re.escape("unknown A2A dialect '2.0'")):
        A2AClient("http://127.0.0.1:9", dialect="2.0")


# ------------------------------------------------------------------ failures


async def test_no_card_anywhere(serve) -> None:
    url = serve(hostile.dialect_agent(("0.3",)))
    async with A2AClient(url, dialect_cache=MemoryDialectCache()) as c:
        with pytest.raises(TransportError) as info:
            await c.get_card()
    assert info.value.kind == "http"
    assert str(info.value) == (
        f"no agent card found: tried {url}/.well-known/agent-card.json (HTTP 404), "
        f"{url}/.well-known/agent.json (HTTP 404)"
    )


async def test_an_invalid_card_is_kept_raw_and_detection_goes_on(serve) -> None:
    card = dict(CARD_03, skills="not a list")
    url = serve(hostile.dialect_agent(("0.3",), card=card, rpc_path="/rpc"))
    async with A2AClient(url, dialect_cache=MemoryDialectCache()) as c:
        with pytest.raises(ProtocolError) as info:
            await c.get_card()
        await c.resolve_dialect()
    assert info.value.path == "$.skills"
    assert c.card is None and c.card_raw["skills"] == "not a list"
    errors = [e.data for e in c.session.events if e.kind is Kind.ERROR]
    assert errors == [
        {"type": "protocol", "message": f"agent card does not decode: {info.value.reason}", "path": "$.skills"}
    ]
    # the raw card's url still names the endpoint; probing found the dialect
    assert c.endpoint == f"{url}/rpc" and c.dialect.name == "0.3" and c.dialect_source == "probe"


async def test_unreachable_agent(serve) -> None:
    from ports import refused_port

    with refused_port() as port:
        url = f"http://127.0.0.1:{port}"
        async with A2AClient(url, dialect_cache=MemoryDialectCache()) as c:
            with pytest.raises(TransportError) as info:
                await c.resolve_dialect()
    assert info.value.kind == "connect"
    assert str(info.value) == f"cannot connect to {url}/.well-known/agent-card.json: connection refused"
    assert [e.kind for e in c.session.events] == [Kind.REQUEST, Kind.ERROR]


async def test_a_method_the_dialect_lacks_fails_before_any_io() -> None:
    # nothing listens on this port: any I/O would fail differently
    async with A2AClient("http://127.0.0.1:9", dialect="0.1", dialect_cache=MemoryDialectCache()) as c:
        with pytest.raises(UnsupportedMethod, match=re.escape("the 0.1 draft dialect has no push-list method")):
            await c.list_push("t-1")
        with pytest.raises(UnsupportedMethod, match="has no extended-card method"):
            await c.extended_card()
    async with A2AClient("http://127.0.0.1:9", dialect="0.3", dialect_cache=MemoryDialectCache()) as c:
        with pytest.raises(UnsupportedMethod, match=re.escape("the 0.2/0.3 dialect has no list method")):
            await c.list_tasks()
    assert len(c.session) == 0


async def test_a_method_the_detected_dialect_lacks_fails_before_sending_it(serve) -> None:
    url = serve(hostile.dialect_agent(("0.1",)))
    async with A2AClient(url, dialect_cache=MemoryDialectCache()) as c:
        with pytest.raises(UnsupportedMethod):
            await c.delete_push("t-1", "cfg")
    assert {r["a2a_method"] for r in (e.data for e in c.session.events if e.kind is Kind.REQUEST)} == {"card", "probe"}
