"""The proxy: an ASGI app that relays each request to its upstream agent and logs the
exchange into a Session, as the client logs its own (REQUEST, RESPONSE, SSE,
STREAM_END), so the tracker, the TUI, the recorder, replay and the exports take it as
any other traffic.

Relaying comes first: each chunk the upstream sends goes to the client as soon as it
arrives, and only then is it parsed and logged (with how long the proxy held it:
``added_ms``). A fault rule (faults.py) may change that for the exchanges it matches;
every change it makes is marked ``injected`` in the events and told in a NOTE, and the
agent's own events are still logged as the agent sent them, so no verdict blames the
agent for what the proxy did.

Credentials the client sends go to the upstream of the route it called, and nowhere
else: redirects are passed back to the client, never followed.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

import httpx

from ..client.limits import BodyDecoder, DecodeFailed, Limits
from ..client.sse import EventTooLarge, SSEComment, SSEParser
from ..client.transport import body_text, raw_headers, reason_phrase, whole_chars
from ..protocol import models as m
from ..protocol import rest
from ..protocol.bindings import REST
from ..protocol.dialects import get_dialect
from ..session import payloads
from ..session.events import Kind
from ..session.log import Session
from ..session.tracker import TaskTracker
from .card import grpc_addresses, rewrite_card
from .checks import check_request
from .detect import Parsed, classify
from .faults import Fault, Rules
from .paths import as_sent, resolve, sub_path
from .relaying import BACKLOG, RELEASED, settles, wait_release
from .relaying import HOLDS as _HOLDS
from .relaying import SLICE as _SLICE
from .relaying import Backlog as _Backlog
from .relaying import combine as _combine
from .relaying import ms as _ms

#: Headers that belong to one connection, not to the message (RFC 9110 7.6.1), and
#: those the proxy sets itself. Proxy-Authorization is the proxy's: never passed on.
HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "proxy-connection",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
        "host",
        "content-length",
    }
)
#: The largest request a client may send: an HTTP body, or one gRPC message.
MAX_REQUEST = 16 * 1024 * 1024
#: What a proxy's session holds in memory unless given one: the newest events (older
#: ones in a private spill file, read back when asked) and each task's newest messages,
#: as a TUI session does (ui/connection.py). A proxy runs for days: holding every
#: relayed event cost about 4.5 KB an event until it ran out of memory.
EVENTS_KEPT = 10_000
MESSAGES_KEPT = 10_000
#: ... and at most about this much of their text (Session's ``keep_bytes``): ten
#: thousand relayed messages of a megabyte each would be ten gigabytes.
BYTES_KEPT = 32 * 1024 * 1024


@dataclass
class Route:
    """Requests under ``prefix`` ("" for the root) go to ``upstream`` (its base URL,
    without a trailing slash), the prefix taken off."""

    prefix: str
    upstream: str
    #: The dialect this route last spoke (for method names several dialects share).
    dialect: str | None = None

    def __post_init__(self) -> None:
        self.prefix = "/" + self.prefix.strip("/") if self.prefix.strip("/") else ""
        self.upstream = self.upstream.rstrip("/")

    @property
    def label(self) -> str:
        return self.prefix or "/"


def _headers(scope: dict[str, Any]) -> tuple[dict[str, str], dict[str, str]]:
    """(as spelled, lower-cased names) of an ASGI request's headers."""
    spelled: dict[str, str] = {}
    lower: dict[str, str] = {}
    for key, value in scope.get("headers") or ():
        name = key.decode("latin-1")
        text = value.decode("latin-1")
        spelled[name] = f"{spelled[name]}, {text}" if name in spelled else text
        low = name.lower()
        lower[low] = f"{lower[low]}, {text}" if low in lower else text
    return spelled, lower


class Proxy:
    """Relays to ``routes`` (longest prefix first) and logs into ``session`` (by
    default one that holds its newest EVENTS_KEPT events, BYTES_KEPT of text, in
    memory); its tracker holds
    ``messages_kept`` messages of each task's history in memory (None: all)."""

    def __init__(
        self,
        routes: list[Route],
        *,
        session: Session | None = None,
        rules: Rules | None = None,
        limits: Limits | None = None,
        connect_timeout: float = 10.0,
        read_timeout: float = 300.0,
        grpc_port: int = 0,
        max_request: int = MAX_REQUEST,
        messages_kept: int | None = MESSAGES_KEPT,
        tls: Any = None,
    ) -> None:
        if not routes:
            raise ValueError("a proxy needs at least one upstream")
        self.routes = sorted(routes, key=lambda r: len(r.prefix), reverse=True)
        self.session = session if session is not None else Session(keep=EVENTS_KEPT, keep_bytes=BYTES_KEPT)
        #: The tasks as the traffic tells them: continuations and call chains look here.
        self.tracker = TaskTracker(self.session, messages_kept=messages_kept)
        self.rules = rules if rules is not None else Rules()
        self.limits = limits or Limits()
        #: Bytes of one request (an HTTP body, a gRPC message) from a client; more is refused.
        self.max_request = max_request
        #: How long a connection to an upstream may take to open (s), on every binding.
        self.connect_timeout = connect_timeout
        self._timeout = httpx.Timeout(
            connect=connect_timeout, read=read_timeout, write=read_timeout, pool=connect_timeout
        )
        self._http: httpx.AsyncClient | None = None
        #: How the upstream's TLS is checked (client.tls.TlsOptions: --cacert, --cert/--key,
        #: --insecure); None: as any client checks it.
        self.tls = tls
        if tls is not None and tls.insecure:
            from ..client.tls import INSECURE_NOTE

            self.session.append(Kind.NOTE, {"text": f"upstream: {INSECURE_NOTE}", "code": "tls-insecure"})
        #: Hooks called with each new exchange's (number, route, client).
        self.on_exchange: list[Any] = []
        from .chain import CallChain

        self.chain = CallChain(self)
        from .grpc_relay import GrpcFront

        #: The gRPC listeners (grpc_relay.py), opened when a card names a GRPC interface.
        self.grpc = GrpcFront(self, grpc_port)
        #: The exchanges being relayed now, by their tasks: ended by stop_relays.
        self.relaying: dict[asyncio.Task[Any], _Relay] = {}
        #: Set once the proxy is stopping: an exchange cut now was cut by us, not the agent.
        self.stopping = False

    # ------------------------------------------------------------------ plumbing

    def route_for(self, path: str) -> Route | None:
        for route in self.routes:
            if not route.prefix or path == route.prefix or path.startswith(route.prefix + "/"):
                return route
        return None

    def move_url(self, url: str, proxy_base: str) -> str | None:
        """``url`` under one of the upstreams -> the same place under the proxy."""
        for route in self.routes:
            up = route.upstream
            if url == up or url.startswith(up + "/") or url.startswith(up + "?"):
                return proxy_base + route.prefix + url[len(up) :]
        return None

    def http(self) -> httpx.AsyncClient:
        if self._http is None:
            # Redirects are the client's to follow (its credentials, its decision);
            # no environment proxy: the upstream is the address the user gave.
            from ..client.tls import ssl_context

            self._http = httpx.AsyncClient(
                follow_redirects=False,
                timeout=self._timeout,
                trust_env=False,
                verify=ssl_context(self.tls),
                limits=httpx.Limits(max_connections=None, max_keepalive_connections=64),
            )
        return self._http

    async def stop_relays(self, timeout: float = 5.0) -> None:
        """End every exchange still being relayed (a held stream, an agent that has not
        answered yet), each logged as stopped by the proxy, before the server stops:
        uvicorn would otherwise wait for them, then cancel them mid-write."""
        self.stopping = True
        running = [task for task in self.relaying if not task.done()]
        for task in running:
            # One whose client has the whole answer is only logging the rest: let it.
            if not self.relaying[task].ended:
                task.cancel("the proxy is stopping")
        if running:
            await asyncio.wait(running, timeout=timeout)

    async def aclose(self) -> None:
        await self.grpc.aclose()
        if self._http is not None:
            await self._http.aclose()
            self._http = None

    def note(self, text: str, exchange: int = 0, **extra: Any) -> None:
        self.session.append(Kind.NOTE, {"text": text, **extra}, exchange=exchange)

    # ------------------------------------------------------------------ ASGI

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        kind = scope["type"]
        if kind == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await self.aclose()
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        if kind != "http":
            return
        task = asyncio.current_task()
        if task is None or self.stopping:  # pragma: no cover - uvicorn runs each request in a task
            return
        relay = self.relaying[task] = _Relay(self, scope, receive, send)
        try:
            await relay.run()
        finally:
            del self.relaying[task]


class _ClientGone(Exception):
    pass


class _Relay:
    """One exchange: the client's request, relayed, and its answer, relayed back."""

    def __init__(self, proxy: Proxy, scope: dict[str, Any], receive: Any, send: Any) -> None:
        self.proxy = proxy
        self.scope = scope
        self.receive = receive
        self._send = send
        self.session = proxy.session
        self.number = 0
        self.gone = asyncio.Event()
        #: The answer's head went to the client; its end too.
        self.started = False
        self.ended = False
        self.fault: Fault | None = None
        self.injected: list[str] = []
        self.upstream: httpx.Response | None = None

    def log(self, kind: Kind, data: dict[str, Any], payload: Any = None) -> None:
        self.session.append(kind, data, exchange=self.number, payload=payload)

    def note(self, text: str, **extra: Any) -> None:
        self.log(Kind.NOTE, {"text": text, **extra})

    def mark(self, text: str) -> None:
        """A NOTE about a fault the proxy injected into this exchange."""
        self.log(
            Kind.NOTE,
            {"text": f"injected by the proxy: {text}", "code": "proxy-injected", "injected": " ".join(self.injected)},
        )

    async def send(self, message: dict[str, Any]) -> None:
        if self.gone.is_set():
            raise _ClientGone
        await self._send_marked(message)

    async def _send_marked(self, message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            self.started = True
        elif not message.get("more_body"):
            self.ended = True
        await self._send(message)

    # ------------------------------------------------------------------ the request

    async def _read_body(self) -> bytes | None:
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await self.receive()
            if message["type"] == "http.disconnect":
                self.gone.set()
                return None
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.proxy.max_request:
                return None
            chunks.append(chunk)
            if not message.get("more_body"):
                return b"".join(chunks)

    async def _watch(self) -> None:
        """Notice the client hanging up, so that its upstream request is let go."""
        while True:
            message = await self.receive()
            if message["type"] == "http.disconnect":
                self.gone.set()
                if self.upstream is not None:
                    await self.upstream.aclose()
                return

    async def run(self) -> None:
        scope = self.scope
        arrived = time.perf_counter()
        path = scope.get("path") or "/"
        query = scope.get("query_string") or b""
        verb = scope.get("method", "GET")
        route = self.proxy.route_for(path)
        if route is None:
            await self._plain(404, "no route of this proxy covers " + path)
            return
        sent = as_sent(path, scope.get("raw_path"))
        resolved = resolve(sent)
        if resolved is None or self.proxy.route_for(unquote(resolved)) is not route:
            words = f"path {sent} leaves the route {route.label} (dot segments)"
            self.proxy.note(f"refused a request: {words}", code="proxy-path-refused", route=route.label)
            await self._plain(400, f"{words}; not relayed")
            return
        body = await self._read_body()
        if body is None:
            if not self.gone.is_set():
                await self._plain(413, f"request body larger than {self.proxy.max_request} bytes")
            return
        spelled, lower = _headers(scope)
        # Relayed as sent (percent-encoding kept); read decoded, as the agent will.
        sub = sub_path(route.prefix, resolved) or "/"
        url = route.upstream + sub + (("?" + query.decode("latin-1")) if query else "")
        parsed = classify(verb, unquote(sub), lower, body, route.dialect)
        info = parsed.info
        if info.get("binding") == REST and isinstance(info.get("rest_base"), str):
            info["rest_base"] = route.upstream + info["rest_base"].rstrip("/")
        if info.get("dialect"):
            route.dialect = info["dialect"]
        client = scope.get("client")
        who = f"{client[0]}:{client[1]}" if client else None
        self.number = self.session.new_exchange()
        text, encoding = body_text(body) if body else (None, "utf-8")
        data = {
            "method": verb,
            "url": url,
            "headers": spelled,
            "body": text,
            "body_encoding": encoding,
            **info,
            "client": who,
            "user_agent": lower.get("user-agent"),
            "proxy_route": route.label,
        }
        payload = payloads.request_payload(data) if info.get("dialect") else None
        self.log(Kind.REQUEST, data, payload)
        for hook in self.proxy.on_exchange:
            hook(self.number, route, who)
        self.proxy.chain.opened(self.number, route.label, payload, info.get("a2a_method"))
        for code, message, task_id in check_request(parsed, lower, payload, self.proxy.tracker):
            extra = {"task_id": task_id} if task_id else {}
            self.note(message, code=code, side="client", **extra)
        # A request without a body (a REST GET, DELETE) is matched by its path and query:
        # what names the task there.
        searched = body or (unquote(sub) + (("?" + unquote(query.decode("latin-1"))) if query else "")).encode()
        matched = self.proxy.rules.match(info, route.label, searched)
        fault = _combine([rule.fault for _i, rule in matched])
        self.fault = fault
        self.rule_indexes = [i for i, _rule in matched]
        watcher = asyncio.ensure_future(self._watch())
        try:
            if fault is not None and fault.delay:
                self.injected.append(f"delay={fault.delay:g}s")
                self.mark(f"held the request {fault.delay:g} s before relaying it (delay)")
                await asyncio.sleep(fault.delay)
            if fault is not None and fault.answers:
                await self._answer(fault, info)
                return
            await self._forward(verb, url, lower, spelled, body, parsed, arrived)
        except _ClientGone:
            pass
        except asyncio.CancelledError:
            if not self.proxy.stopping:
                raise
            await self._stopped()
        finally:
            watcher.cancel()
            self.proxy.chain.closed(self.number)

    async def _stopped(self) -> None:
        """The proxy stopped while this exchange was on its way: say so to the client
        (an answer that had not started is a 503; a stream is ended where it was) and in
        the log, and return normally so the server has nothing left to cancel."""
        task = asyncio.current_task()
        if task is not None:
            task.uncancel()
        if self.gone.is_set():
            return
        try:
            if not self.started:
                self.log(Kind.ERROR, {"type": "stopped", "message": "the proxy stopped before the agent answered"})
                await self._plain(503, "stopped before the agent answered")
            elif not self.ended:
                await self._send_marked({"type": "http.response.body", "body": b"", "more_body": False})
        except OSError:  # pragma: no cover - the client went away meanwhile
            pass

    async def _plain(self, status: int, text: str) -> None:
        body = f"a2a-inspect proxy: {text}\n".encode()
        await self._send_marked(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [
                    (b"content-type", b"text/plain; charset=utf-8"),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await self._send_marked({"type": "http.response.body", "body": body})

    # ------------------------------------------------------------------ injected answers

    async def _answer(self, fault: Fault, info: dict[str, Any]) -> None:
        """Answer as the fault says, instead of the agent (which never hears of it)."""
        if fault.error is not None:
            err = fault.error.error()
            self.injected.append(f"error={err.code}")
            if info.get("binding") == REST:
                status, doc = rest.encode_error(err)
            else:
                status = 200
                dialect = get_dialect(info["dialect"]) if info.get("dialect") else get_dialect("1.0")
                doc = dialect.encode_error(err, info.get("rpc_id"))
            raw = json.dumps(doc, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
            ctype = "application/json"
            headers: dict[str, str] = {}
            what = f"answered JSON-RPC error {err.code} instead of relaying the request"
        else:
            assert fault.http is not None
            spec = fault.http
            status = spec.status
            self.injected.append(f"http={status}")
            raw = (spec.body if spec.body is not None else f"injected by a2a-inspect proxy: HTTP {status}\n").encode()
            ctype = spec.content_type
            headers = dict(spec.headers)
            what = f"answered HTTP {status} instead of relaying the request"
        self.mark(what)
        head = {"content-type": ctype, **headers, "content-length": str(len(raw))}
        text, encoding = body_text(raw)
        data = {
            "status": status,
            "reason": httpx.codes.get_reason_phrase(status),
            "headers": head,
            "body": text,
            "body_encoding": encoding,
            "body_size": len(raw),
            "elapsed_ms": 0.0,
            "streaming": False,
            "content_type": ctype,
            "injected": " ".join(self.injected),
        }
        self.log(Kind.RESPONSE, data, payloads.response_payload(info, data))
        await self.send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [(k.encode("latin-1"), v.encode("latin-1")) for k, v in head.items()],
            }
        )
        await self.send({"type": "http.response.body", "body": raw})

    # ------------------------------------------------------------------ relaying

    async def _forward(
        self,
        verb: str,
        url: str,
        lower: dict[str, str],
        spelled: dict[str, str],
        body: bytes,
        parsed: Parsed,
        arrived: float,
    ) -> None:
        http = self.proxy.http()
        # As bytes, the client's own (latin-1 gives them back): httpx would encode a str
        # as ASCII and refuse a header with any other byte in it.
        headers = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in spelled.items() if k.lower() not in HOP]
        if parsed.card:
            # Read whole to rewrite it: asked for unencoded.
            headers = [(k, v) for k, v in headers if k.lower() != b"accept-encoding"]
            headers.append((b"Accept-Encoding", b"identity"))
        info = parsed.info
        try:
            request = http.build_request(verb, url, headers=headers, content=body if body else None)
        except (httpx.InvalidURL, ValueError) as exc:
            self.log(Kind.ERROR, {"type": "connect", "message": f"cannot relay to {url}: {exc}"})
            await self._plain(502, f"cannot relay to {url}")
            return
        before_ms = _ms(arrived)
        sent = time.perf_counter()
        try:
            self.upstream = await http.send(request, stream=True)
        except httpx.TimeoutException:
            self.log(Kind.ERROR, {"type": "timeout", "message": f"no response from {url} in time"})
            await self._plain(504, f"the agent at {url} did not answer in time")
            return
        except httpx.HTTPError as exc:
            from ..client.transport import handshake_hint

            why = handshake_hint(exc) or str(exc) or type(exc).__name__
            self.log(Kind.ERROR, {"type": "connect", "message": f"cannot reach {url}: {why}"})
            await self._plain(502, f"cannot reach the agent at {url}")
            return
        resp = self.upstream
        upstream_ms = _ms(sent)
        try:
            if 300 <= resp.status_code < 400 and resp.headers.get("location"):
                self.note(
                    f"the agent redirected (HTTP {resp.status_code}) to {resp.headers['location']}: "
                    "passed back to the client, not followed",
                    redirect=resp.headers["location"],
                )
            ctype = (resp.headers.get("content-type") or "").lower()
            if parsed.card and resp.status_code == 200:
                await self._card(resp, info, upstream_ms, before_ms)
            elif "text/event-stream" in ctype and 200 <= resp.status_code < 300:
                await self._stream(resp, info, upstream_ms, before_ms)
            else:
                await self._body(resp, info, upstream_ms, before_ms)
        finally:
            await resp.aclose()

    def _response_data(
        self,
        resp: httpx.Response,
        raw: bytes | bytearray | None,
        upstream_ms: float,
        before_ms: float,
        *,
        streaming: bool,
        cut: bool = False,
    ) -> dict[str, Any]:
        if raw is None:
            body = encoding = size = None
        else:
            body, encoding = body_text(bytes(raw))
            size = len(raw)
        data = {
            "status": resp.status_code,
            "reason": reason_phrase(resp),
            "headers": raw_headers(resp.headers),
            "body": body,
            "body_encoding": encoding,
            "body_size": size,
            "elapsed_ms": upstream_ms,
            "streaming": streaming,
            "content_type": resp.headers.get("content-type"),
            "added_ms": before_ms,
        }
        if cut:
            data["cut"] = True
        if self.injected:
            data["injected"] = " ".join(self.injected)
        return data

    def _head(self, resp: httpx.Response, drop: tuple[str, ...] = ()) -> list[tuple[bytes, bytes]]:
        return [
            (k, v)
            for k, v in resp.headers.raw
            if k.lower().decode("latin-1") not in HOP and k.lower().decode("latin-1") not in drop
        ]

    async def _card(self, resp: httpx.Response, info: dict[str, Any], upstream_ms: float, before_ms: float) -> None:
        limit = self.proxy.limits.max_body
        raw = bytearray()
        async for chunk in resp.aiter_raw():
            raw += chunk
            if len(raw) > limit:
                self.log(
                    Kind.RESPONSE,
                    self._response_data(
                        resp, whole_chars(raw[:limit]), upstream_ms, before_ms, streaming=False, cut=True
                    ),
                )
                await self._plain(502, f"the agent's card is larger than {limit} bytes")
                return
        body = bytes(raw)
        data = self._response_data(resp, body, upstream_ms, before_ms, streaming=False)
        self.log(Kind.RESPONSE, data, payloads.response_payload(info, data))
        proxy_base = self._proxy_base()
        host = proxy_base.split("://", 1)[1].rsplit(":", 1)[0]
        route = self.proxy.route_for(self.scope.get("path") or "/")
        from .grpc_relay import TooManyListeners

        refused: list[str] = []
        for url in grpc_addresses(body):
            try:
                await self.proxy.grpc.ensure(url, route.label if route is not None else "/")
            except TooManyListeners:
                refused.append(url)
            except OSError as exc:
                self.note(f"cannot open a gRPC listener for {url}: {exc}", code="proxy-grpc-failed")
        if refused:
            # One line for them all: a card may name thousands.
            shown = ", ".join(refused[:3]) + (f" and {len(refused) - 3} more" if len(refused) > 3 else "")
            self.note(
                f"card names more gRPC targets than the proxy listens for (at most "
                f"{self.proxy.grpc.MAX_LISTENERS}): {shown} left as they are; a client that follows them "
                "bypasses the proxy",
                code="proxy-grpc-refused",
                refused=len(refused),
            )
        done = rewrite_card(
            body, lambda url: self.proxy.move_url(url, proxy_base), lambda url: self.proxy.grpc.moved(url, host)
        )
        out = body
        if done is not None:
            out = done.body
            if done.moved:
                self.note(
                    f"card rewritten for the client: {len(done.moved)} address"
                    f"{'' if len(done.moved) == 1 else 'es'} now point to the proxy "
                    f"({', '.join(sorted({old for old, _ in done.moved}))})",
                    code="proxy-card",
                    moved=[list(p) for p in done.moved],
                )
            skipped = set(refused)
            for url, why in done.kept:
                if url in skipped:
                    continue  # told above, all in one line
                self.note(
                    f"card address {url} left as is ({why}): a client that follows it bypasses the proxy",
                    code="proxy-card-kept",
                    url=url,
                )
        head = self._head(resp, ("etag", "content-encoding"))
        head.append((b"content-length", str(len(out)).encode()))
        await self.send({"type": "http.response.start", "status": resp.status_code, "headers": head})
        await self.send({"type": "http.response.body", "body": out})

    def _proxy_base(self) -> str:
        """The proxy's address as the client called it (its Host header)."""
        _spelled, lower = _headers(self.scope)
        scheme = self.scope.get("scheme", "http")
        host = lower.get("host")
        if not host:
            server = self.scope.get("server") or ("127.0.0.1", 80)
            host = f"{server[0]}:{server[1]}"
        return f"{scheme}://{host}"

    async def _body(self, resp: httpx.Response, info: dict[str, Any], upstream_ms: float, before_ms: float) -> None:
        """A response that is not a stream: relayed chunk by chunk, logged whole (up to
        the body limit) once it has all gone through."""
        limit = self.proxy.limits.max_body
        decoder = BodyDecoder(resp.headers.get("content-encoding"))
        kept = bytearray()
        cut = False
        added = before_ms
        held = self.fault is not None and self.fault.hold_working
        pending: list[bytes] = []
        await self.send({"type": "http.response.start", "status": resp.status_code, "headers": self._head(resp)})
        try:
            async for chunk in resp.aiter_raw():
                got = time.perf_counter()
                if held:
                    pending.append(chunk)
                else:
                    await self.send({"type": "http.response.body", "body": chunk, "more_body": True})
                    added += _ms(got)
                if not cut:
                    try:
                        for piece in decoder.feed(chunk):
                            kept += piece
                    except DecodeFailed:
                        cut = True
                    if len(kept) > limit:
                        del kept[limit:]
                        cut = True
            if not cut:
                for piece in decoder.flush():
                    kept += piece
        except (httpx.HTTPError, DecodeFailed) as exc:
            if self.gone.is_set():
                raise _ClientGone from None
            self.log(Kind.ERROR, {"type": "http", "message": f"the agent's response broke off: {exc}"})
        data = self._response_data(
            resp, whole_chars(kept) if cut else kept, upstream_ms, added, streaming=False, cut=cut
        )
        payload = payloads.response_payload(info, data)
        if held:
            await self._hold_body(payload, pending)
            if self.injected:
                data["injected"] = " ".join(self.injected)
        self.log(Kind.RESPONSE, data, payload)
        await self.send({"type": "http.response.body", "body": b"", "more_body": False})

    async def _hold_body(self, payload: Any, pending: list[bytes]) -> None:
        state = payload.status.state if isinstance(payload, m.Task) else None
        if state is None or state in _HOLDS:
            for chunk in pending:
                await self.send({"type": "http.response.body", "body": chunk, "more_body": True})
            return
        self.injected.append("hold_working")
        self.mark(f"held the agent's answer (task {state.value}) until the hold_working rule is switched off")
        await self._wait_release()
        for chunk in pending:
            await self.send({"type": "http.response.body", "body": chunk, "more_body": True})

    async def _wait_release(self) -> None:
        if not await wait_release(self.proxy.rules, self.rule_indexes, self.gone):
            raise _ClientGone
        self.note(RELEASED, code="proxy-released", injected="hold_working")

    # ------------------------------------------------------------------ streams

    async def _stream(self, resp: httpx.Response, info: dict[str, Any], upstream_ms: float, before_ms: float) -> None:
        fault = self.fault if self.fault is not None and self.fault.per_event else None
        # Per-event faults re-frame the stream event by event: sent decoded.
        head = self._head(resp, ("content-encoding",) if fault is not None else ())
        self.log(Kind.RESPONSE, self._response_data(resp, None, upstream_ms, before_ms, streaming=True))
        await self.send({"type": "http.response.start", "status": resp.status_code, "headers": head})
        log = _StreamLog(self, resp, info)
        reason = "eof"
        try:
            try:
                if fault is None:
                    reason = await self._pass_through(resp, log)
                else:
                    reason = await self._event_by_event(resp, log, _FaultState(fault))
            except httpx.HTTPError as exc:
                if self.gone.is_set():
                    reason = "closed"
                else:
                    reason = "timeout" if isinstance(exc, httpx.TimeoutException) else "error"
                    log.errors.append(f"the agent's stream broke off: {exc}")
            if reason == "sent":
                reason = "eof"
            elif reason != "closed" and not self.gone.is_set():
                await self.send({"type": "http.response.body", "body": b"", "more_body": False})
        except _ClientGone:
            reason = "closed"
        except asyncio.CancelledError:
            if self.proxy.stopping:
                reason = "stopped"
            raise
        finally:
            log.finish()
            for text in log.errors:
                self.log(Kind.ERROR, {"type": "stream", "message": text})
            if reason == "eof" and log.final:
                reason = "complete"
            end = {
                "reason": log.failed or reason,
                "events": log.events,
                "elapsed_ms": upstream_ms,
                "terminal": log.final,
                "added_ms": round(log.added_total, 3),
                "added_max_ms": round(log.added_max, 3),
            }
            if self.gone.is_set():
                end["closed_by"] = "client"
            elif reason == "stopped":
                end["closed_by"] = "proxy"
            if self.injected:
                end["injected"] = " ".join(self.injected)
            end.update(log.backlog.waited_fields())
            self.log(Kind.STREAM_END, end)

    def _behind(self, text: str) -> None:
        self.note(text, code="proxy-log-behind")

    async def _pass_through(self, resp: httpx.Response, log: _StreamLog) -> str:
        """Relay each chunk as it comes; log it beside the relaying, not in its way.

        The chunks go to a queue that a task of its own parses and logs, yielding to
        the relay every few milliseconds: a flood of events reaches the client at the
        agent's pace while the log catches up. The queue is bounded (BACKLOG bytes):
        past that, the relay waits for the log rather than hold the whole stream."""
        backlog = log.backlog
        logger = asyncio.ensure_future(log.run())
        try:
            async for chunk in resp.aiter_raw():
                got = time.perf_counter()
                await self.send({"type": "http.response.body", "body": chunk, "more_body": True})
                backlog.put(chunk, _ms(got))
                if backlog.size > BACKLOG:
                    await backlog.drained(self._behind)
            # The client has it all: its stream ends now, whatever the log still has to do.
            await self.send({"type": "http.response.body", "body": b"", "more_body": False})
            return "sent"
        finally:
            backlog.close()
            await asyncio.shield(logger)

    async def _event_by_event(self, resp: httpx.Response, log: _StreamLog, state: _FaultState) -> str:
        # Each event's own number: one chunk can carry several events (a fast agent, TCP
        # coalescing), and log.events has counted them all by the time they are relayed.
        n = 0
        async for chunk in resp.aiter_raw():
            got = time.perf_counter()
            for item, payload in log.feed(chunk, _ms(got)):
                if payload is _COMMENT:
                    await self._send_item(item)
                    continue
                n += 1
                if not await self._faulted(state, item, payload, n):
                    return "closed"
            if log.failed:
                return log.failed
        for item, payload in log.close():
            if payload is not _COMMENT:
                n += 1
                await self._faulted(state, item, payload, n)
        await self._release_held(state)
        return "eof"

    def _log_item(self, item: Any, codec: Any, added: float, lazy: Any) -> Any:
        """Log one parsed SSE item; its decoded payload (_COMMENT for a comment). Runs
        once per event of every relayed stream: the usual event takes the codec's
        shortcut (as the client's stream loop does), the rest the general path. The
        event keeps its data only: ``lazy`` derives the payload again when asked."""
        if item.__class__ is SSEComment:
            self.session.append(Kind.COMMENT, {"text": item.text}, exchange=self.number)
            return _COMMENT
        text = item.data
        data: dict[str, Any] = {
            "raw": item.raw,
            "event": item.event,
            "data": text,
            "id": item.id,
            "retry": item.retry,
            "added_ms": added,
        }
        if item.error is None and not item.incomplete and text is not None and codec is not None:
            payload = codec.decode_sse_fast(text)
            if payload is None:
                payload = payloads.sse_payload(codec, data)
        else:
            if item.raw_encoding != "utf-8":
                data["raw_encoding"] = item.raw_encoding
            if item.incomplete:
                data["incomplete"] = True
            payload = payloads.sse_payload(codec, data)
        self.session.append_lazy(Kind.SSE, data, payload, lazy, self.number)
        return payload

    async def _send_item(self, item: Any, text: str | None = None) -> None:
        if item.__class__ is SSEComment:
            block = f":{item.text}\n\n"
        else:
            block = (text if text is not None else item.raw) + "\n\n"
        await self.send(
            {"type": "http.response.body", "body": block.encode("utf-8", "surrogateescape"), "more_body": True}
        )

    async def _faulted(self, state: _FaultState, item: Any, payload: Any, n: int) -> bool:
        """Relay one event under a per-event fault; False: the stream is to be dropped."""
        fault = state.fault
        if state.holding or (
            fault.hold_working
            and isinstance(payload, (m.TaskStatusUpdateEvent, m.Task))
            and payload.status.state not in _HOLDS
        ):
            if not state.holding:
                state.holding = True
                self.injected.append("hold_working")
                self.mark(
                    "holding the agent's events from here (it left working) until the hold_working rule is switched off"
                )
            state.held.append(item)
            return True
        if fault.corrupt_chunk == n and item.data:
            self.injected.append(f"corrupt_chunk={n}")
            self.mark(f"event {n} sent to the client cut in half (not JSON); the agent sent it whole, as logged")
            await self._send_item(item, "data: " + item.data[: max(1, len(item.data) // 2)])
        else:
            await self._send_item(item)
        if fault.duplicate_chunk == n:
            self.injected.append(f"duplicate_chunk={n}")
            self.mark(f"event {n} sent to the client twice; the agent sent it once")
            await self._send_item(item)
        if fault.drop_after is not None and n >= fault.drop_after:
            self.injected.append(f"drop_after={fault.drop_after}")
            self.mark(
                f"stream to the client ended after {n} event{'' if n == 1 else 's'} (drop_after); "
                "the agent's stream was let go"
            )
            await self.send({"type": "http.response.body", "body": b"", "more_body": False})
            return False
        return True

    async def _release_held(self, state: _FaultState) -> None:
        if not state.held:
            return
        await self._wait_release()
        for item in state.held:
            await self._send_item(item)
        state.held.clear()


_COMMENT: Any = object()


class _FaultState:
    __slots__ = ("fault", "holding", "held")

    def __init__(self, fault: Fault) -> None:
        self.fault = fault
        self.holding = False
        self.held: list[Any] = []


class _StreamLog:
    """One relayed stream, parsed and logged: the parser, the counts, how it ended."""

    def __init__(self, relay: _Relay, resp: httpx.Response, info: dict[str, Any]) -> None:
        limits = relay.proxy.limits
        self.relay = relay
        self.codec = payloads.codec_for(info.get("dialect"), info.get("binding"))
        self.lazy = payloads.SSECodec(self.codec)
        self.parser = SSEParser(limits.max_event)
        self.decoder = BodyDecoder(resp.headers.get("content-encoding"))
        self.backlog = _Backlog()
        self.events = 0
        self.final = False
        self.added_total = 0.0
        self.added_max = 0.0
        #: Why logging stopped early ("limit", "error"), if it did; the relay goes on.
        self.failed: str | None = None
        self.errors: list[str] = []
        self._closed = False

    def feed(self, chunk: bytes, added: float) -> list[tuple[Any, Any]]:
        return self._log(self.parse(chunk, added), added)

    def parse(self, chunk: bytes, added: float) -> list[Any]:
        """The items ``chunk`` completes (not logged yet)."""
        self.added_total += added
        if added > self.added_max:
            self.added_max = added
        if self.failed:
            return []
        try:
            items: list[Any] = []
            for piece in self.decoder.feed(chunk):
                items += self.parser.feed(piece)
        except (EventTooLarge, DecodeFailed) as exc:
            self._fail(exc)
            items = exc.items if isinstance(exc, EventTooLarge) else []
        return items

    def close(self) -> list[tuple[Any, Any]]:
        if self._closed or self.failed:
            return []
        self._closed = True
        try:
            items: list[Any] = []
            for piece in self.decoder.flush():
                items += self.parser.feed(piece)
            items += self.parser.close()
        except (EventTooLarge, DecodeFailed) as exc:
            self._fail(exc)
            items = []
        return self._log(items, 0.0)

    def _fail(self, exc: Exception) -> None:
        self.failed = "limit" if isinstance(exc, EventTooLarge) else "error"
        self.errors.append(f"the agent's stream: {exc}; the proxy relays the rest without logging it")

    def _log(self, items: list[Any], added: float) -> list[tuple[Any, Any]]:
        out = []
        log_item = self.relay._log_item
        codec, lazy = self.codec, self.lazy
        for item in items:
            payload = log_item(item, codec, added, lazy)
            if payload is not _COMMENT:
                self.events += 1
                if not self.final and settles(payload):
                    self.final = True
            out.append((item, payload))
        return out

    async def run(self) -> None:
        """The logging task of a pass-through stream (see _Relay._pass_through)."""
        backlog = self.backlog
        clock = time.perf_counter
        while True:
            started = clock()
            while True:
                taken = backlog.take()
                if taken is None:
                    break
                chunk, added = taken
                items = self.parse(chunk, added)
                # A few events at a time, the clock read between: a chunk holds hundreds.
                for at in range(0, len(items), 4):
                    self._log(items[at : at + 4], added)
                    if clock() - started > _SLICE:
                        await asyncio.sleep(0)  # the relay's turn
                        started = clock()
            if backlog.closed and not backlog.items:
                return
            await backlog.more()

    def finish(self) -> None:
        """Log whatever is still queued, and the parser's last words."""
        while True:
            taken = self.backlog.take()
            if taken is None:
                break
            self.feed(*taken)
        self.close()
