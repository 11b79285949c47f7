"""Every way a secret can be given x every place it can land: the secret is absent.

Ways: bearer, basic, API key under the default and a custom header name, -H with a
secret name (Authorization, X-API-Key, Cookie, and a name that only looks like a
credential's: X-Auth-Token), --secret-header, a URL query parameter, a user:password in
the URL, a push notification token. Places: the recording, the notes in it, the HAR, curl and
scenario exports, the dialect cache, and what the commands printed (CI logs keep it). Each
way runs the real CLI twice against a real loopback agent (the second run takes the
dialect from the cache, whose note names the agent's URL) and exports the first
recording. The agent echoes every request it gets
(headers, URL, body) in its answer, so a secret that is redacted only where it is named
would still show: redaction by value must catch it.

Saved agents are the one file that keeps a credential, on purpose: it must be in the
agent's ``secret`` field only (or, for a token typed into the address, in its ``url``),
in a private file.
"""

from __future__ import annotations

import base64
import json
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

import hostile
from cli_helpers import Cli
from inspector import store
from inspector.client import Auth
from inspector.serving.runner import BackgroundServer
from inspector.ui.connection import AgentConnection
from inspector.ui.widgets.agents_panel import saved_from_connection


def echo_agent() -> Starlette:
    """A 0.3 agent without a dialect on its card (so detection probes, then caches) and
    without an endpoint on it (so the endpoint is the URL given, query and all), that
    echoes each request in its answer."""
    seen: list[str] = []

    async def card(request: Request) -> Response:
        seen.append(f"GET {request.url} {dict(request.headers)}")
        return hostile.json_response({"name": "echo everything", "capabilities": {"pushNotifications": True}})

    async def rpc(request: Request) -> Response:
        raw = (await request.body()).decode()
        echo = f"POST {request.url} {dict(request.headers)} {raw}"
        seen.append(echo)
        body = json.loads(raw)
        rid, method, params = body.get("id"), body.get("method"), body.get("params")
        if method == "message/send" and params:
            return hostile.json_response(hostile.ok(rid, hostile.task("completed", text=f"echo: {echo}")))
        if method == "message/send":
            return hostile.json_response(hostile.err(rid, -32602, f"invalid params; you sent {echo}"))
        if method == "tasks/pushNotificationConfig/set":
            return hostile.json_response(hostile.ok(rid, params))  # echoes the token, as agents do
        return hostile.json_response(hostile.err(rid, -32601, f"no method {method}"))

    app = Starlette(routes=[Route("/.well-known/{name}", card), Route("/", rpc, methods=["POST"])])
    app.state.seen = seen
    return app


@pytest.fixture(scope="module")
def agent() -> Iterator[tuple[str, Any]]:
    app = echo_agent()
    with BackgroundServer(app) as srv:
        yield srv.url, app


@dataclass(frozen=True)
class Way:
    name: str
    secret: str
    #: CLI words; {secret} is filled in. The URL is the agent's base + ``query``.
    args: tuple[str, ...] = ()
    query: str = ""
    push: bool = False
    #: user:password@ in the URL (httpx sends it as Basic credentials).
    userinfo: str = ""
    #: How the agent sees it on the wire, when not as is.
    wire: str | None = None


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


WAYS = [
    Way("bearer", "BEARER-s3cret-0001", ("--bearer", "{secret}")),
    Way("basic", "BASIC-s3cret-0002", ("--basic", "ada:{secret}"), wire=_b64("ada:BASIC-s3cret-0002")),
    Way("api-key", "APIKEY-s3cret-0003", ("--api-key", "{secret}")),
    Way("api-key-custom-header", "APIKEY-s3cret-0004", ("--api-key", "{secret}", "--api-key-header", "X-My-Key")),
    Way("header-authorization", "HAUTH-s3cret-0005", ("-H", "Authorization: Token {secret}")),
    Way("header-x-api-key", "HKEY-s3cret-0006", ("-H", "X-API-Key: {secret}")),
    Way("secret-header", "SHDR-s3cret-0007", ("--secret-header", "X-Tenant-Pass: {secret}")),
    Way("cookie", "COOKIE-s3cret-0008", ("-H", "Cookie: theme=dark; session={secret}")),
    Way("header-credential-looking", "HTOK-s3cret-0012", ("-H", "X-Auth-Token: {secret}")),
    Way("url-query", "QUERY-s3cret-0009", query="?v=2&token={secret}"),
    Way("push-token", "PUSH-s3cret-0010", push=True),
    Way("url-userinfo", "USERINFO-s3cret-0011", userinfo="ada:{secret}@", wire=_b64("ada:USERINFO-s3cret-0011")),
]


@dataclass
class Landed:
    way: Way
    home: Path
    files: dict[str, Path] = field(default_factory=dict)

    def text(self, place: str) -> str:
        return self.files[place].read_text(encoding="utf-8")


@pytest.fixture(scope="module", params=WAYS, ids=[w.name for w in WAYS])
def landed(request: pytest.FixtureRequest, agent: tuple[str, Any], tmp_path_factory: pytest.TempPathFactory) -> Landed:
    way: Way = request.param
    base, app = agent
    home = tmp_path_factory.mktemp(way.name)
    cli = Cli(home / "home")
    url = f"{base}/{way.query.format(secret=way.secret)}".replace("://", "://" + way.userinfo.format(secret=way.secret))
    extra = [a.format(secret=way.secret) for a in way.args]
    out = Landed(way, home)
    printed = []
    for run in (1, 2):
        rec = home / f"run{run}.jsonl"
        if way.push:
            words = ["push", "set", url, "t-1", "--url", "http://127.0.0.1:9/callback", "--token", way.secret]
        else:
            words = ["send", url, "hello"]
        r = cli(*words, *extra, "--record", str(rec))
        assert r.code == 0, r
        printed.append(r.out + r.err)
        out.files[f"recording {run}"] = rec
    # The secret really went over the wire (else absence below would prove nothing).
    wire = way.wire or way.secret
    assert any(wire in seen for seen in app.state.seen), way
    exports = {"har": home / "s.har", "curl": home / "s.sh", "scenario": home / "s.yaml"}
    r = cli(
        "export", str(out.files["recording 1"]), *(w for fmt, path in exports.items() for w in (f"--{fmt}", str(path)))
    )
    assert r.code == 0, r
    out.files.update(exports)
    out.files["dialect cache"] = cli.dialect_cache
    out.files["terminal"] = home / "printed.txt"
    out.files["terminal"].write_text("".join(printed), encoding="utf-8")
    return out


PLACES = ["recording 1", "recording 2", "har", "curl", "scenario", "dialect cache", "terminal"]


@pytest.mark.parametrize("place", PLACES)
def test_the_secret_is_absent(landed: Landed, place: str) -> None:
    text = landed.text(place)
    assert text.strip(), place
    for form in {landed.way.secret, landed.way.wire or landed.way.secret}:
        assert form not in text, f"{landed.way.name}: {form} in {place}"


def notes(path: Path) -> list[dict[str, Any]]:
    events = [json.loads(line) for line in path.read_text().splitlines()[1:]]
    return [e for e in events if e["kind"] in ("note", "error")]


def test_the_secret_is_absent_from_notes(landed: Landed) -> None:
    first, second = notes(landed.files["recording 1"]), notes(landed.files["recording 2"])
    assert first and second
    for note in first + second:
        assert landed.way.secret not in json.dumps(note)
    if landed.way.query:
        # the notes do name the URL: with the secret replaced, the rest kept
        remembered = [n["text"] for n in second if "remembered for" in n.get("text", "")]
        assert remembered and "token=[redacted]" in remembered[0] and "v=2" in remembered[0], second
        detected = [n for n in first if n.get("source") == "probe"]
        assert detected and detected[0]["endpoint"].endswith("/?v=2&token=[redacted]"), first


def test_the_agents_echo_is_redacted_where_it_is_not_named(landed: Landed) -> None:
    """The agent's answer quotes the request: only redaction by value can catch that."""
    if landed.way.push:
        pytest.skip("the push token is echoed in a push config, redacted by its place")
    events = [json.loads(line) for line in landed.text("recording 1").splitlines()[1:]]
    answers = [e for e in events if e["kind"] == "response" and "echo: POST" in (e.get("body") or "")]
    assert answers and "[redacted]" in answers[-1]["body"]


def test_everything_written_is_private(landed: Landed) -> None:
    for place, path in landed.files.items():
        if place == "terminal":
            continue  # the test's own copy of what was printed
        want = 0o700 if place == "curl" else 0o600
        assert stat.S_IMODE(path.stat().st_mode) == want, place


# ------------------------------------------------------------------ saved agents

SAVED_WAYS = {
    "bearer": (Auth.bearer("BEARER-saved-0001"), "BEARER-saved-0001", ""),
    "basic": (Auth.basic("ada", "BASIC-saved-0002"), "ada:BASIC-saved-0002", ""),
    "api-key-custom-header": (Auth.api_key("APIKEY-saved-0003", header="X-My-Key"), "APIKEY-saved-0003", ""),
    "url-query": (None, "QUERY-saved-0004", "/?token=QUERY-saved-0004"),
}


@pytest.mark.parametrize("way", sorted(SAVED_WAYS))
def test_a_saved_agent_keeps_the_secret_in_one_place(way: str, tmp_path: Path) -> None:
    auth, secret, query = SAVED_WAYS[way]
    conn = AgentConnection(f"http://127.0.0.1:1{query}", auth=auth)
    agents = store.AgentStore(tmp_path / "agents.json")
    agents.add(saved_from_connection(conn))
    path = tmp_path / "agents.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    text = path.read_text()
    (saved,) = json.loads(text)
    where = "url" if query else "secret"
    assert secret in saved[where]
    assert text.count(secret) == 1, text  # nowhere else: not in headers, not in a card URL
    # and it reconnects with the same credential
    (again,) = store.AgentStore(path).agents
    assert (again.secret if not query else again.url.split("token=")[1]) == secret
