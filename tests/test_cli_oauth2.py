"""OAuth 2.0 client credentials from the card (issue 28 item 13): with
``--oauth2-client-id`` and its secret (argv, @FILE or -env), a token is fetched from the
card's client-credentials flow (0.3 and 1.0 shapes), sent as a bearer token, fetched
again on a 401 and when it expires; neither the secret nor the token is written anywhere
(recording, -o json, stderr), even when the agent echoes the token back; a card whose
token URL is plain http on another origin gets nothing, unless the user names that URL.

The peer is a tiny Starlette app on 127.0.0.1: its cards, its token endpoint and a
JSON-RPC endpoint that answers only a live token. A second server of the same app plays
a token endpoint on another origin."""

from __future__ import annotations

import asyncio
import base64
import json
import secrets
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from cli_helpers import Cli, cli  # noqa: F401 - cli is a fixture
from inspector.client import A2AClient
from inspector.client.oauth2 import ClientCredentials
from inspector.serving.runner import BackgroundServer

CLIENT_ID = "inspector-client"
CLIENT_SECRET = "cs-7d41e0b9-never-written"


@dataclass
class Issuer:
    """What the peer saw and gave: token requests (form and client), live tokens."""

    expires_in: int = 3600
    requests: list[dict[str, str]] = field(default_factory=list)
    live: set[str] = field(default_factory=set)
    issued: list[str] = field(default_factory=list)
    seen_tokens: list[str | None] = field(default_factory=list)
    #: The token URL the "far" card names (the second server's).
    far_token_url: str = ""


def _card_03(base: str, token_url: str) -> dict[str, Any]:
    return {
        "name": "Guarded",
        "description": "needs a token",
        "url": base + "/",
        "version": "1",
        "protocolVersion": "0.3.0",
        "capabilities": {},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "s", "name": "s", "description": "s", "tags": []}],
        "securitySchemes": {
            "cc": {
                "type": "oauth2",
                "flows": {
                    "clientCredentials": {
                        "tokenUrl": token_url,
                        "scopes": {"agent:use": "talk to it", "agent:admin": "not asked"},
                    }
                },
            }
        },
        "security": [{"cc": ["agent:use"]}],
    }


def _card_10(base: str, token_url: str) -> dict[str, Any]:
    return {
        "name": "Guarded 1.0",
        "description": "needs a token",
        "version": "1",
        "supportedInterfaces": [{"url": base + "/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "capabilities": {},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "s", "name": "s", "description": "s", "tags": []}],
        "securitySchemes": {
            "cc": {
                "oauth2SecurityScheme": {
                    "flows": {"clientCredentials": {"tokenUrl": token_url, "scopes": {"agent:use": "talk to it"}}}
                }
            }
        },
        "securityRequirements": [{"schemes": {"cc": {"list": ["agent:use"]}}}],
    }


def build_peer(issuer: Issuer) -> Starlette:
    def base_of(request: Request) -> str:
        return str(request.base_url).rstrip("/") + "/" + request.path_params["flavour"]

    async def card(request: Request) -> JSONResponse:
        flavour, base = request.path_params["flavour"], base_of(request)
        origin = str(request.base_url).rstrip("/")
        if flavour == "v10":
            return JSONResponse(_card_10(base, origin + "/token"))
        if flavour == "relative":
            return JSONResponse(_card_03(base, "/token"))
        return JSONResponse(_card_03(base, issuer.far_token_url if flavour == "far" else origin + "/token"))

    async def token(request: Request) -> JSONResponse:
        form = dict(parse_qsl((await request.body()).decode()))
        scheme, _, value = request.headers.get("authorization", "").partition(" ")
        client = base64.b64decode(value).decode() if scheme == "Basic" else ""
        issuer.requests.append({**form, "client": client})
        if client != f"{CLIENT_ID}:{CLIENT_SECRET}" or form.get("grant_type") != "client_credentials":
            return JSONResponse({"error": "invalid_client"}, status_code=401)
        tok = f"at-{secrets.token_hex(12)}"
        issuer.live.add(tok)
        issuer.issued.append(tok)
        return JSONResponse({"access_token": tok, "token_type": "Bearer", "expires_in": issuer.expires_in})

    async def rpc(request: Request) -> JSONResponse:
        body = await request.json()
        scheme, _, tok = request.headers.get("authorization", "").partition(" ")
        issuer.seen_tokens.append(tok or None)
        if scheme != "Bearer" or tok not in issuer.live:
            return JSONResponse(
                {"error": "invalid_token"},
                status_code=401,
                headers={"WWW-Authenticate": 'Bearer error="invalid_token"'},
            )
        # A careless agent: the token must still not be written. ("quiet": the same
        # answer each time, for a replay to compare.)
        echo = "ok" if request.path_params["flavour"] == "quiet" else f"you sent Bearer {tok}"
        if request.path_params["flavour"] == "v10":
            result: Any = {"message": {"messageId": "m-1", "role": "ROLE_AGENT", "parts": [{"text": echo}]}}
        else:
            result = {"kind": "message", "messageId": "m-1", "role": "agent", "parts": [{"kind": "text", "text": echo}]}
        return JSONResponse({"jsonrpc": "2.0", "id": body.get("id"), "result": result})

    return Starlette(
        routes=[
            Route("/{flavour}/.well-known/agent-card.json", card),
            Route("/{flavour}/.well-known/agent.json", card),
            Route("/token", token, methods=["POST"]),
            Route("/{flavour}/", rpc, methods=["POST"]),
        ]
    )


@pytest.fixture(scope="module")
def peer() -> Iterator[tuple[str, str, Issuer]]:
    """(the agent's origin, the far token server's origin, what they saw)."""
    issuer = Issuer()
    app = build_peer(issuer)
    with BackgroundServer(app) as near, BackgroundServer(app) as far:
        issuer.far_token_url = far.url + "/token"
        yield near.url, far.url, issuer


@pytest.fixture
def issuer(peer: tuple[str, str, Issuer]) -> Issuer:
    issuer = peer[2]
    issuer.expires_in = 3600
    issuer.live.clear()
    for seen in (issuer.requests, issuer.issued, issuer.seen_tokens):
        seen.clear()
    return issuer


def _nothing_secret(issuer: Issuer, *texts: str) -> None:
    for text in texts:
        assert CLIENT_SECRET not in text
        for tok in issuer.issued:
            assert tok not in text


@pytest.mark.parametrize("flavour", ["v03", "v10", "relative"])
def test_a_token_from_the_cards_flow_is_sent_and_never_written(
    cli: Cli,
    peer: tuple[str, str, Issuer],
    issuer: Issuer,
    flavour: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    record = tmp_path / "r.jsonl"
    monkeypatch.setenv("CC_SECRET", CLIENT_SECRET)
    result = cli(
        "send",
        f"{peer[0]}/{flavour}",
        "hi",
        "--oauth2-client-id",
        CLIENT_ID,
        "--oauth2-client-secret-env",
        "CC_SECRET",
        "--record",
        str(record),
        "-o",
        "json",
    )
    assert result.code == 0, result
    assert len(issuer.issued) == 1 and issuer.seen_tokens == issuer.issued
    assert issuer.requests[0]["grant_type"] == "client_credentials"
    assert issuer.requests[0]["scope"] == "agent:use"  # what the card's security asks, not every scope
    text = record.read_text(encoding="utf-8")
    assert "you sent Bearer [redacted]" in json.dumps(result.json()), result.out
    assert "oauth2-token" in text and "Bearer [redacted]" in text
    _nothing_secret(issuer, text, result.out, result.err)


def test_a_401_gets_a_new_token_and_the_call_again(peer: tuple[str, str, Issuer], issuer: Issuer) -> None:
    async def run() -> None:
        creds = ClientCredentials(CLIENT_ID, CLIENT_SECRET)
        async with A2AClient(f"{peer[0]}/v03", oauth2=creds) as client:
            await client.send(
                {"message": {"role": "user", "parts": [{"kind": "text", "text": "one"}], "messageId": "a"}}
            )
            issuer.live.clear()  # the authorization server revoked it
            reply = await client.send(
                {"message": {"role": "user", "parts": [{"kind": "text", "text": "two"}], "messageId": "b"}}
            )
            assert "you sent Bearer" in reply.parts[0].text
            notes = [e.data["text"] for e in client.session.events if e.data.get("code") == "oauth2-token"]
            assert len(notes) == 2 and "the agent answered 401" in notes[1], notes

    asyncio.run(run())
    assert len(issuer.issued) == 2
    assert issuer.seen_tokens == [issuer.issued[0], issuer.issued[0], issuer.issued[1]]


def test_an_expired_token_is_fetched_again_before_the_call(peer: tuple[str, str, Issuer], issuer: Issuer) -> None:
    issuer.expires_in = 1

    async def run() -> None:
        async with A2AClient(f"{peer[0]}/v03", oauth2=ClientCredentials(CLIENT_ID, CLIENT_SECRET)) as client:
            await client.send(
                {"message": {"role": "user", "parts": [{"kind": "text", "text": "one"}], "messageId": "a"}}
            )
            source = client.oauth2
            assert source is not None and source.fresh()
            for _ in range(100):  # until the client itself holds the token expired (under a second)
                if not source.fresh():
                    break
                await asyncio.sleep(0.05)
            assert not source.fresh()
            await client.send(
                {"message": {"role": "user", "parts": [{"kind": "text", "text": "two"}], "messageId": "b"}}
            )

    asyncio.run(run())
    # The second call carried the second token: no 401 on the way.
    assert len(issuer.issued) == 2 and issuer.seen_tokens == issuer.issued


def test_a_plain_http_token_url_on_another_origin_gets_nothing(
    cli: Cli, peer: tuple[str, str, Issuer], issuer: Issuer, tmp_path: Path
) -> None:
    url = f"{peer[0]}/far"
    record = tmp_path / "r.jsonl"
    refused = cli(
        "send",
        url,
        "hi",
        "--oauth2-client-id",
        CLIENT_ID,
        "--oauth2-client-secret",
        CLIENT_SECRET,
        "--record",
        str(record),
    )
    assert refused.code == 3, refused
    assert "clear text" in refused.err and "--oauth2-token-url" in refused.err, refused
    notes = [json.loads(line) for line in record.read_text(encoding="utf-8").splitlines()]
    assert any(n.get("code") == "oauth2-failed" and "clear text" in n["text"] for n in notes), notes
    assert issuer.requests == [] and issuer.seen_tokens == []
    _nothing_secret(issuer, refused.out, refused.err)
    # Named by the user, the same URL is theirs to choose.
    chosen = cli(
        "send",
        url,
        "hi",
        "--oauth2-client-id",
        CLIENT_ID,
        "--oauth2-client-secret",
        CLIENT_SECRET,
        "--oauth2-token-url",
        issuer.far_token_url,
        "--oauth2-scope",
        "agent:admin",
    )
    assert chosen.code == 0, chosen
    assert [r["scope"] for r in issuer.requests] == ["agent:admin"]


def test_refused_credentials_are_one_line(cli: Cli, peer: tuple[str, str, Issuer], issuer: Issuer) -> None:
    result = cli("send", f"{peer[0]}/v03", "hi", "--oauth2-client-id", CLIENT_ID, "--oauth2-client-secret", "wrong")
    assert result.code == 3, result
    assert "refused the client credentials: HTTP 401: invalid_client" in result.err, result
    assert issuer.seen_tokens == []
    missing = cli("send", f"{peer[0]}/v03", "hi", "--oauth2-client-id", CLIENT_ID)
    assert missing.code == 2 and "give the client secret too" in missing.err, missing
    # Without credentials, the refusal's hint names the options that get a token.
    bare = cli("send", f"{peer[0]}/v03", "hi")
    assert bare.code == 3 and "try --oauth2-client-id ID --oauth2-client-secret-env VAR" in bare.err, bare


def test_replay_against_gets_its_own_token(
    cli: Cli, peer: tuple[str, str, Issuer], issuer: Issuer, tmp_path: Path
) -> None:
    url, record, again = f"{peer[0]}/quiet", tmp_path / "r.jsonl", tmp_path / "again.jsonl"
    creds = ("--oauth2-client-id", CLIENT_ID, "--oauth2-client-secret", CLIENT_SECRET)
    assert cli("send", url, "hi", *creds, "--record", str(record)).code == 0
    replayed = cli("replay", str(record), "--against", url, *creds, "--record", str(again))
    assert replayed.code == 0, replayed
    assert "redacted Authorization" not in replayed.err, replayed  # the token replaces it
    assert len(issuer.issued) == 2 and issuer.seen_tokens == issuer.issued
    _nothing_secret(
        issuer, record.read_text(encoding="utf-8"), again.read_text(encoding="utf-8"), replayed.out, replayed.err
    )
