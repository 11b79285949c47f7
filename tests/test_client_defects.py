"""Three client gaps, each on real loopback servers: one TLS context for every client,
JSON-RPC ids checked against the request's (reported, never fatal), and Society AI's
``task/resubscribe`` sendable from the 0.1 dialect when asked for."""

from __future__ import annotations

import datetime
import ipaddress
import json
import re
import ssl
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import certifi
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

import hostile
from inspector.client import A2AClient, JsonRpcError, MemoryDialectCache, TransportError, transport
from inspector.client.client import ID_MISMATCH
from inspector.protocol import models as m
from inspector.protocol.dialects import get_dialect
from inspector.protocol.methods import Method
from inspector.serving.runner import BackgroundServer
from inspector.session.events import Kind
from inspector.session.tracker import TaskTracker
from mock_agent import MockAgent

S = m.TaskState


def send_params(text: str = "hi") -> m.SendParams:
    return m.SendParams(message=m.Message(role=m.Role.USER, parts=[m.TextPart(text=text)], message_id="m-1"))


def notes(c: A2AClient, code: str = ID_MISMATCH) -> list[Any]:
    return [e for e in c.session.events if e.kind is Kind.NOTE and e.data.get("code") == code]


# ====================================================================== 1. shared TLS


@pytest.fixture
def fresh_tls(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """No context built yet in this process, and every context httpx or we build counted
    (httpx's default path and ours both end in ssl.create_default_context)."""
    monkeypatch.setattr(transport, "_tls_contexts", {})
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    built: list[Any] = []
    real = ssl.create_default_context

    def counting(*args: Any, **kwargs: Any) -> ssl.SSLContext:
        built.append(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(ssl, "create_default_context", counting)
    return built


def ssl_context_of(c: A2AClient) -> ssl.SSLContext:
    # httpx keeps it on its connection pool; there is no public accessor.
    return c.http._transport._pool._ssl_context  # type: ignore[attr-defined]


async def test_clients_share_one_tls_context_built_once(fresh_tls: list[Any]) -> None:
    clients = [A2AClient(f"http://127.0.0.1:{port}", dialect_cache=MemoryDialectCache()) for port in (1, 2, 3)]
    try:
        assert len(fresh_tls) == 1
        contexts = {id(ssl_context_of(c)) for c in clients}
        assert contexts == {id(transport.shared_tls_context())}
        assert ssl_context_of(clients[0]).verify_mode is ssl.CERT_REQUIRED
        assert ssl_context_of(clients[0]).check_hostname
    finally:
        for c in clients:
            await c.aclose()


async def test_a_client_given_its_own_http_builds_no_context(fresh_tls: list[Any]) -> None:
    import httpx

    own = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    async with httpx.AsyncClient(verify=own) as http, A2AClient("http://127.0.0.1:1", http=http) as c:
        assert c.http is http
    assert fresh_tls == [] and transport._tls_contexts == {}


def test_no_tls_context_is_built_at_import() -> None:
    # A fresh interpreter: this one has long since built a context.
    code = (
        "import ssl\n"
        "built = []\n"
        "real = ssl.create_default_context\n"
        "ssl.create_default_context = lambda *a, **k: built.append(1) or real(*a, **k)\n"
        "import inspector.cli, inspector.client, inspector.headless.commands\n"
        "from inspector.client import transport\n"
        "assert built == [] and transport._tls_contexts == {}, built\n"
        "print('ok')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=Path(__file__).resolve().parents[1],
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


async def test_default_client_still_talks_plain_http_to_a_loopback_mock(fresh_tls: list[Any]) -> None:
    async with MockAgent("echo") as mock, A2AClient(mock.url, dialect_cache=MemoryDialectCache()) as c:
        task = await c.send(send_params("over plain http"))
    assert isinstance(task, m.Task) and task.status.state is S.COMPLETED
    assert [a.parts[0].text for a in task.artifacts or []] == ["echo: over plain http"]
    assert len(fresh_tls) == 1  # built for the client, never used: http:// has no TLS


@pytest.fixture(scope="module")
def loopback_cert(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1: (cert file, key file)."""
    pytest.importorskip("cryptography")  # comes with the test extras (a2a-sdk -> google-auth)
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "a2a-inspect test")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    root = tmp_path_factory.mktemp("tls")
    cert_file, key_file = root / "cert.pem", root / "key.pem"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return cert_file, key_file


async def test_shared_context_verifies_and_still_honours_ssl_cert_file(
    fresh_tls: list[Any], loopback_cert: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    cert_file, key_file = loopback_cert
    app = hostile.dialect_agent(("0.3",))
    with BackgroundServer(app, ssl_certfile=str(cert_file), ssl_keyfile=str(key_file)) as srv:
        url = srv.url.replace("http://", "https://")

        def client() -> A2AClient:
            return A2AClient(url, dialect="0.3", endpoint=url + "/", dialect_cache=MemoryDialectCache())

        # The default CAs do not know this certificate: verification is on.
        async with client() as c:
            with pytest.raises(TransportError) as refused:
                await c.send(send_params())
        assert refused.value.kind == "connect" and "certificate verify failed" in refused.value.message.lower()

        # SSL_CERT_FILE names a CA, as it does for httpx itself: a context for it, once.
        monkeypatch.setenv("SSL_CERT_FILE", str(cert_file))
        async with client() as a, client() as b:
            assert ssl_context_of(a) is ssl_context_of(b)
            task = await a.send(send_params("over tls"))
            assert task.status.state is S.COMPLETED
            assert (await b.send(send_params("again"))).status.state is S.COMPLETED
    assert [k.get("cafile") for k in fresh_tls] == [certifi.where(), str(cert_file)]


# ====================================================================== 2. response ids


V03 = get_dialect("0.3")


def _task(state: str = "completed") -> m.Task:
    return m.Task(id="t-1", context_id="c-1", status=m.TaskStatus(state=S(state)))


def _events() -> list[Any]:
    working = m.TaskStatusUpdateEvent(
        task_id="t-1", context_id="c-1", status=m.TaskStatus(state=S.WORKING), final=False
    )
    chunk = m.TaskArtifactUpdateEvent(
        task_id="t-1",
        context_id="c-1",
        last_chunk=True,
        artifact=m.Artifact(artifact_id="a-1", parts=[m.TextPart(text="done")]),
    )
    done = m.TaskStatusUpdateEvent(task_id="t-1", context_id="c-1", status=m.TaskStatus(state=S.COMPLETED), final=True)
    return [working, chunk, done]


#: How each path answers, given the request's id: the id to put in the response (or
#: MISSING to leave it out), and how to serialise it.
MISSING = object()
ID_RULES: dict[str, Any] = {
    "right": lambda rid: rid,
    "wrong": lambda rid: rid + 100,
    "string": lambda rid: str(rid),
    "null": lambda rid: None,
    "missing": lambda rid: MISSING,
}


def _envelope(rid: Any, member: str, value: Any, *, id_last: bool) -> dict[str, Any]:
    out: dict[str, Any] = {"jsonrpc": "2.0"}
    if not id_last and rid is not MISSING:
        out["id"] = rid
    out[member] = value
    if id_last and rid is not MISSING:
        out["id"] = rid
    return out


def id_agent() -> Starlette:
    """A 0.3 agent at /{rule}[/error][/late][/id-last][/spaced][/json]: answers with the
    id its rule makes (``late``: on the third stream event only), with an error instead
    of a result, the id after the result, json.dumps' spaced separators, or one JSON
    body even to a stream request."""

    async def rpc(request: Request) -> Response:
        flags = request.path_params["flags"].split("/")
        rule, error, late = ID_RULES[flags[0]], "error" in flags, "late" in flags
        id_last, spaced, as_json = "id-last" in flags, "spaced" in flags, "json" in flags
        body = json.loads(await request.body())
        rid, wire = body["id"], body["method"]

        def dump(obj: dict[str, Any]) -> str:
            return json.dumps(obj) if spaced else json.dumps(obj, separators=(",", ":"))

        def answer(result: Any, n: int = 0) -> str:
            given = rule(rid) if not late or n == 2 else rid
            if error:
                return dump(
                    _envelope(given, "error", {"code": -32001, "message": "Task t-1 not found"}, id_last=id_last)
                )
            return dump(_envelope(given, "result", result, id_last=id_last))

        if wire == "message/stream" and not as_json:

            async def chunks() -> Any:
                for n, event in enumerate(_events()):
                    yield f"data: {answer(V03.encode_event(event), n)}\n\n".encode()

            return StreamingResponse(chunks(), media_type="text/event-stream")
        return Response(answer(V03.encode_result(Method.SEND, _task())), media_type="application/json")

    return Starlette(routes=[Route("/{flags:path}", rpc, methods=["POST"])])


@pytest.fixture(scope="module")
def ids_url() -> Iterator[str]:
    with BackgroundServer(id_agent()) as srv:
        yield srv.url


def at(url: str, path: str) -> A2AClient:
    return A2AClient(url, dialect="0.3", endpoint=f"{url}/{path}", dialect_cache=MemoryDialectCache())


@pytest.mark.parametrize(
    ("path", "got", "phrase"),
    [
        ("wrong", 101, "carries id 101, but the request's id is 1"),
        ("string", "1", 'carries id "1", but the request\'s id is 1'),
        ("null", None, "carries id null, but the request's id is 1"),
        ("missing", None, "has no id (the request's id is 1)"),
        ("wrong/id-last/spaced", 101, "carries id 101, but the request's id is 1"),
    ],
)
async def test_a_wrong_response_id_is_noted_and_the_result_still_returned(
    ids_url: str, path: str, got: Any, phrase: str
) -> None:
    async with at(ids_url, path) as c:
        tracker = TaskTracker(c.session)
        task = await c.send(send_params())
    assert isinstance(task, m.Task) and task.status.state is S.COMPLETED
    assert tracker.tasks["t-1"].state is S.COMPLETED
    [note] = notes(c)
    request = next(e for e in c.session.events if e.kind is Kind.REQUEST)
    assert note.exchange == request.exchange
    assert note.data == {
        "text": f"JSON-RPC id mismatch: the response {phrase}",
        "code": ID_MISMATCH,
        "expected": 1,
        "got": got,
    }
    assert not [e for e in c.session.events if e.kind is Kind.ERROR]
    # The failure of the exchange is not recorded: the call succeeded. The task carries
    # the finding, as it does any other protocol violation.
    assert tracker.exchanges[request.exchange].failure is None
    assert [(v.code, v.task_id, v.seq) for v in tracker.violations] == [("id-mismatch", "t-1", note.seq)]


@pytest.mark.parametrize("path", ["right", "right/spaced", "right/id-last", "null/error"])
async def test_a_matching_id_and_a_null_id_on_an_error_are_not_noted(ids_url: str, path: str) -> None:
    async with at(ids_url, path) as c:
        if "error" in path:
            with pytest.raises(JsonRpcError):
                await c.send(send_params())
        else:
            await c.send(send_params())
        events = [e async for e in c.stream(send_params())] if "error" not in path else []
    assert notes(c) == []
    if "error" not in path:
        assert len(events) == 3


async def test_an_error_with_a_wrong_id_is_noted_and_still_raised(ids_url: str) -> None:
    async with at(ids_url, "wrong/error") as c:
        with pytest.raises(JsonRpcError) as refused:
            await c.send(send_params())
    assert refused.value.code == -32001
    [note] = notes(c)
    assert note.data["got"] == 101


@pytest.mark.parametrize(
    ("path", "event", "got"),
    [
        ("wrong", 1, 102),
        ("wrong/late", 3, 102),
        ("string/spaced", 1, "2"),
        ("null/id-last", 1, None),
    ],
)
async def test_stream_events_with_a_wrong_id_are_noted_once_and_all_delivered(
    ids_url: str, path: str, event: int, got: Any
) -> None:
    async with at(ids_url, path) as c:
        await c.send(send_params())  # id 1 (noted too); the stream is id 2
        before = len(notes(c))
        streamed = [e async for e in c.stream(send_params())]
    assert [type(e) for e in streamed] == [m.TaskStatusUpdateEvent, m.TaskArtifactUpdateEvent, m.TaskStatusUpdateEvent]
    assert streamed[-1].status.state is S.COMPLETED
    [note] = notes(c)[before:]
    sse = [e for e in c.session.events if e.kind is Kind.SSE and e.exchange == note.exchange]
    assert len(sse) == 3
    assert note.data["expected"] == 2 and note.data["got"] == got and note.data["event"] == event
    assert note.data["text"].startswith(f"JSON-RPC id mismatch: stream event {event} ")
    # Logged right after the event it is about.
    assert note.seq == sse[event - 1].seq + 1
    [end] = [e for e in c.session.events if e.kind is Kind.STREAM_END]
    assert end.data["reason"] == "complete"


async def test_stream_answered_with_one_json_body_checks_its_id(ids_url: str) -> None:
    # A stream request answered with plain JSON is read as one response: same check.
    async with at(ids_url, "wrong/json") as c:
        [task] = [e async for e in c.stream(send_params())]
    assert isinstance(task, m.Task) and task.status.state is S.COMPLETED
    [note] = notes(c)
    assert note.data["text"] == "JSON-RPC id mismatch: the response carries id 101, but the request's id is 1"


class CountingReader:
    def __init__(self, real: Any) -> None:
        self.real, self.texts = real, []

    def validate_json(self, body: Any) -> Any:
        self.texts.append(body)
        return self.real.validate_json(body)


@pytest.mark.parametrize("dialect", ["1.0", "0.3"])
async def test_real_agents_get_no_notes_and_no_second_scan(
    sdk_agent_compat: str, dialect: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """a2a-sdk puts the id last, the mock first: both are recognised from the text's
    ends alone, so neither a large response nor a long stream is scanned twice."""
    from inspector.client import client as client_module

    reader = CountingReader(client_module._ENVELOPE_ID)
    monkeypatch.setattr(client_module, "_ENVELOPE_ID", reader)
    async with MockAgent("streaming", dialect=dialect, time_scale=0.01) as mock:
        for url in (sdk_agent_compat, mock.url):
            async with A2AClient(url, dialect=dialect, dialect_cache=MemoryDialectCache()) as c:
                await c.send(send_params("hello"))
                streamed = [e async for e in c.stream(send_params("stream me"))]
                with pytest.raises(JsonRpcError):
                    await c.get_task("no-such-task")
            assert len(streamed) > 3 and streamed[-1].status.state is S.COMPLETED
            assert notes(c) == []
    assert reader.texts == []


async def test_unusual_member_order_takes_the_full_check(ids_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from inspector.client import client as client_module

    reader = CountingReader(client_module._ENVELOPE_ID)
    monkeypatch.setattr(client_module, "_ENVELOPE_ID", reader)
    async with at(ids_url, "right/id-last") as c:
        await c.send(send_params())
        [e async for e in c.stream(send_params())]
    assert notes(c) == [] and len(reader.texts) == 4  # the response and three events


# ====================================================================== 3. task/resubscribe


SOCIETY_SPELLING = {"resubscribe": "task/resubscribe"}


def rpc_methods(c: A2AClient) -> list[str]:
    return [
        e.data["rpc_method"]
        for e in c.session.events
        if e.kind is Kind.REQUEST and e.data.get("a2a_method") not in ("card", "probe")
    ]


async def test_society_ai_resubscribe_with_its_spelling() -> None:
    async with MockAgent(profile="society-ai", time_scale=0.01) as mock:
        async with A2AClient(mock.url, dialect_cache=MemoryDialectCache(), method_names=SOCIETY_SPELLING) as c:
            tracker = TaskTracker(c.session)
            asked = await c.send(send_params("clarify the scope"))
            assert asked.status.state is S.INPUT_REQUIRED
            events = [e async for e in c.resubscribe(asked.id)]
            assert c.dialect is not None and c.dialect.name == "0.1"
        assert [e.status.state for e in events] == [S.INPUT_REQUIRED]
        assert events[0].status.message.parts[0].text == "Which aspect should the research focus on?"
        assert rpc_methods(c) == ["tasks/send", "task/resubscribe"]
        assert [e.data["reason"] for e in c.session.events if e.kind is Kind.STREAM_END] == ["complete"]
        assert tracker.violations == []

        # Without the option the same call is the draft's tasks/resubscribe, which this
        # profile does not serve.
        async with A2AClient(mock.url, dialect="0.1", dialect_cache=MemoryDialectCache()) as plain:
            with pytest.raises(JsonRpcError) as refused:
                [e async for e in plain.resubscribe(asked.id)]
        assert refused.value.code == -32601 and rpc_methods(plain) == ["tasks/resubscribe"]


async def test_society_ai_resubscribe_to_a_running_task_gets_the_rest() -> None:
    async with (
        MockAgent(profile="society-ai", time_scale=1.0) as mock,
        A2AClient(mock.url, dialect="0.1", dialect_cache=MemoryDialectCache(), method_names=SOCIETY_SPELLING) as c,
    ):
        stream = c.stream(send_params("papers"))
        first = await anext(stream)
        task_id = first.id if isinstance(first, m.Task) else first.task_id
        again = [e async for e in c.resubscribe(task_id)]
        rest = [e async for e in stream]
    assert again, "the resubscribe stream was empty"
    assert {e.task_id for e in again} == {task_id}
    last = again[-1]
    assert last.status.state is S.COMPLETED
    assert getattr(last, "final", True) is not False
    assert rest[-1].status.state is S.COMPLETED
    assert "task/resubscribe" in rpc_methods(c)


def test_method_names_are_checked_when_the_client_is_made() -> None:
    A2AClient("http://127.0.0.1:1", dialect="0.1", method_names=SOCIETY_SPELLING)
    A2AClient("http://127.0.0.1:1", method_names={Method.RESUBSCRIBE: "task/resubscribe"})
    with pytest.raises(
        ValueError, match=re.escape("not how the 0.2/0.3 dialect spells resubscribe; known: tasks/resubscribe")
    ):
        A2AClient("http://127.0.0.1:1", dialect="0.3", method_names=SOCIETY_SPELLING)
    with pytest.raises(ValueError, match="not how any dialect spells resubscribe"):
        A2AClient("http://127.0.0.1:1", method_names={"resubscribe": "tasks/resubscrib"})
    with pytest.raises(ValueError):
        A2AClient("http://127.0.0.1:1", method_names={"subscribe": "task/resubscribe"})


async def test_a_spelling_the_detected_dialect_lacks_is_noted_and_not_sent() -> None:
    async with (
        MockAgent("input-required", dialect="0.3") as mock,
        A2AClient(mock.url, dialect_cache=MemoryDialectCache(), method_names=SOCIETY_SPELLING) as c,
    ):
        asked = await c.send(send_params("ask me something"))
        events = [e async for e in c.resubscribe(asked.id)]
    assert c.dialect is not None and c.dialect.name == "0.3"
    assert events and events[-1].status.state is S.INPUT_REQUIRED
    assert rpc_methods(c)[-1] == "tasks/resubscribe"
    assert any(
        e.data.get("text") == "task/resubscribe is not a 0.2/0.3 spelling of resubscribe: sending tasks/resubscribe"
        for e in c.session.events
        if e.kind is Kind.NOTE
    )
