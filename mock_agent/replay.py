"""``a2a-mock --replay FILE``: serve a recorded session back to a client.

The recorded agent's answers are played back byte for byte as far as they can be: the
same HTTP status and headers, the same SSE framing (named events, ``id:``/``retry:``
lines, line endings, heartbeat comments), the same JSON (in whatever dialect it was
recorded), at the recorded pace divided by ``speed`` (0: no waiting). What changes is
what must: the JSON-RPC id is the new request's, protocol ids follow the new client
(see replay_match.py), and the recorded agent's address becomes this server's.

Which answer a request gets is decided by replay_match.Book: by JSON-RPC method and
content. A request the recording cannot answer gets a JSON-RPC error naming the closest
recorded request and why it did not match. Card GETs are answered at the paths the
recording fetched them from, with the recorded status (a 404 stays a 404).

Several recordings may be served together (``--replay a.jsonl --replay b.jsonl``): a
task one of them created can be continued with the other's requests.
"""

from __future__ import annotations

import base64
import binascii
import json
import logging
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from inspector.protocol import rest
from inspector.protocol.dialects.base import check_envelope
from inspector.protocol.errors import JsonRpcError
from inspector.safejson import loads
from inspector.serving.browser_guard import BrowserGuard
from inspector.serving.runner import serve_until_interrupted
from inspector.session import Kind, Recording, RecordingError, load_recording
from inspector.session.diff import Rewriter, exchanges
from inspector.session.exchange import RecordedExchange, body_bytes, parse_body

from . import framing
from .replay_clock import Clock as _Clock
from .replay_match import Book, Match, Miss

#: Response headers not replayed: framing the server sets itself, and the body is sent
#: decoded (httpx had already undone any content-encoding when it was recorded).
_HOP = frozenset(
    {"content-length", "transfer-encoding", "connection", "keep-alive", "date", "server", "content-encoding"}
)

_LINE = re.compile(r"\r\n|\r|\n")

#: The smallest request body limit; a recording with larger requests raises it (twice its largest).
MIN_MAX_BODY = 1024 * 1024


class ReplayError(ValueError):
    """A recording that cannot be served (missing, not a recording, nothing in it)."""


class _Cut(Exception):
    """Raised to make uvicorn drop the connection, where the recorded one broke."""


class _QuietCuts(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        for _ in range(8):
            if exc is None:
                break
            if isinstance(exc, _Cut):
                return False
            exc = exc.__cause__ or exc.__context__
        return True


logging.getLogger("uvicorn.error").addFilter(_QuietCuts())


class ReplayServer:
    """An ASGI app (``.app``) answering with the recorded responses of ``paths``."""

    def __init__(
        self,
        paths: str | Path | Sequence[str | Path],
        *,
        speed: float = 1.0,
        log: Callable[[str], None] | None = None,
        grpc_port: int | None = None,
    ) -> None:
        if speed < 0:
            raise ReplayError("--speed must be 0 (no waiting) or more")
        self.speed = speed
        self.log = log
        if isinstance(paths, (str, Path)):
            paths = [paths]
        self.paths = [Path(p) for p in paths]
        self.recordings: list[Recording] = []
        #: "file: line N: message" for every problem the reader reported.
        self.problems: list[str] = []
        pairs: list[tuple[str, RecordedExchange]] = []
        for path in self.paths:
            try:
                rec = load_recording(path, decode=False)
            except FileNotFoundError:
                raise ReplayError(f"{path}: no such file") from None
            except (OSError, RecordingError) as exc:
                raise ReplayError(str(exc) if isinstance(exc, RecordingError) else f"{path}: {exc}") from None
            self.recordings.append(rec)
            self.problems += [f"{path.name}: line {p.line}: {p.message}" for p in rec.problems]
            pairs += [(path.name, ex) for ex in exchanges(rec.session.events)]
        self.exchanges = [ex for _name, ex in pairs]
        self.book = Book(pairs)
        #: GET path -> the recorded exchange that answers it (a 2xx one preferred).
        self.gets: dict[str, RecordedExchange] = {}
        for ex in self.exchanges:
            if ex.http_method != "GET" or ex.response is None or ex.binding == "rest":
                continue
            known = self.gets.get(ex.path)
            status = ex.response.data.get("status") or 0
            if known is None or (
                200 <= status < 300
                and known.response is not None
                and not 200 <= (known.response.data.get("status") or 0) < 300
            ):
                self.gets[ex.path] = ex
        self.rpc_paths = list(dict.fromkeys(c.ex.path for c in self.book.candidates if c.ex.binding == "jsonrpc")) or [
            "/"
        ]
        #: The paths of the recorded HTTP+JSON/REST interfaces ("/rest"): requests under
        #: them are matched as REST requests.
        self.rest_bases = sorted(
            {
                urlsplit(str(ex.data.get("rest_base"))).path.rstrip("/")
                for ex in self.exchanges
                if ex.binding == "rest" and ex.data.get("rest_base")
            },
            key=len,
            reverse=True,
        )
        self.card_paths = [
            p
            for p, ex in self.gets.items()
            if ex.response is not None and 200 <= (ex.response.data.get("status") or 0) < 300
        ]
        self.origins = sorted({ex.origin for ex in self.exchanges if ex.origin}, key=len, reverse=True)
        spoken = {c.ex.dialect for c in self.book.candidates if c.ex.dialect and c.ex.a2a_method != "probe"}
        self.dialects = sorted(spoken or {c.ex.dialect for c in self.book.candidates if c.ex.dialect})
        if not self.book.candidates and not self.gets:
            raise ReplayError(f"{', '.join(p.name for p in self.paths)}: no recorded exchange to serve")
        largest = max((len(ex.request.data.get("body") or "") for ex in self.exchanges), default=0)
        #: Request bodies above this are refused (413 and a JSON-RPC error), unread.
        self.max_body = max(MIN_MAX_BODY, 2 * largest)
        #: The recording's gRPC exchanges served over gRPC on ``grpc_port`` (replay_grpc.py),
        #: started and stopped with the HTTP app.
        self.grpc = None
        if grpc_port is not None:
            from .replay_grpc import ReplayGrpc

            self.grpc = ReplayGrpc(self, "127.0.0.1", grpc_port)  # loopback, as the live mock's

    @property
    def grpc_address(self) -> str | None:
        """``127.0.0.1:PORT`` of the gRPC server once started (None: not served)."""
        return self.grpc.address if self.grpc is not None and self.grpc.server is not None else None

    @property
    def rpc_path(self) -> str:
        return self.rpc_paths[0]

    @property
    def app(self) -> ReplayServer:
        return self

    def describe(self) -> str:
        n = len(self.book.candidates)
        dialects = f"dialect {', '.join(self.dialects)}" if self.dialects else "no A2A dialect"
        speed = "no delays" if self.speed == 0 else ("recorded timing" if self.speed == 1 else f"speed {self.speed:g}")
        return f"{n} recorded request{'s' if n != 1 else ''}, {dialects}, {speed}"

    # ------------------------------------------------------------------ ASGI

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        kind = scope["type"]
        if kind == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    try:
                        if self.grpc is not None:
                            await self.grpc.start()
                    except OSError as exc:
                        await send({"type": "lifespan.startup.failed", "message": str(exc)})
                        return
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    if self.grpc is not None:
                        await self.grpc.stop()
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        if kind != "http":
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        host = headers.get("host")
        if host is None:
            server = scope.get("server") or ("127.0.0.1", 80)
            host = f"{server[0]}:{server[1]}"
        base = f"{scope.get('scheme', 'http')}://{host}"
        body = await _read(receive, self.max_body)
        if body is None:
            return
        if isinstance(body, int):
            data = {"reason": f"body of {body} bytes or more exceeds the limit of {self.max_body} bytes"}
            doc = {
                "jsonrpc": "2.0",
                "id": None,
                "error": {"code": -32600, "message": "Request payload too large", "data": data},
            }
            await _send(
                send, 413, framing.dumps(doc), [(b"content-type", framing.JSON_TYPE), (b"connection", b"close")]
            )
            return
        method = scope["method"]
        if self.rest_bases and await self._rest(scope, body, headers, base, receive, send):
            return
        if method in ("GET", "HEAD"):
            await self._get(scope["path"], base, send, head=method == "HEAD")
        elif method == "POST":
            await self._rpc(body, headers, base, receive, send)
        else:
            await _send(send, 405, b"method not allowed", [(b"content-type", b"text/plain; charset=utf-8")])

    # ------------------------------------------------------------------ GET

    async def _get(self, path: str, base: str, send: Any, head: bool) -> None:
        ex = self.gets.get(path)
        if ex is None:
            body = framing.dumps({"error": "not in the recording", "path": path, "recorded": sorted(self.gets)})
            await _send(send, 404, body, [(b"content-type", framing.JSON_TYPE)])
            return
        assert ex.response is not None  # gets holds answered exchanges only
        resp = ex.response.data
        raw = body_bytes(resp) or b""
        if resp.get("body_encoding") != "base64":
            text = raw.decode("utf-8")
            for origin in self.origins:
                text = text.replace(origin, base).replace(origin.replace("/", "\\/"), base.replace("/", "\\/"))
            text = self._grpc_card(text)
            raw = text.encode("utf-8")
        await _send(send, resp.get("status") or 200, b"" if head else raw, _headers(resp))

    def _grpc_card(self, text: str) -> str:
        """A card's GRPC interfaces pointed at this replay's gRPC server, when it serves
        one: the recorded agent's gRPC address is gone, and a client that follows the
        card (the SDKs' client factories do) must reach the replay."""
        served = self.grpc_address
        if served is None:
            return text
        try:
            card = loads(text)
        except ValueError:
            return text
        for url in _grpc_urls(card):
            new = json.dumps(f"grpc://{served}" if url.startswith("grpc://") else served)
            old = json.dumps(url)
            # As JSON strings, in both spellings of a slash, so only those values change.
            text = text.replace(old, new).replace(old.replace("/", "\\/"), new.replace("/", "\\/"))
        return text

    # ------------------------------------------------------------------ JSON-RPC

    async def _rpc(self, body: bytes, headers: dict[str, str], base: str, receive: Any, send: Any) -> None:
        try:
            obj = loads(body)
        except (ValueError, UnicodeDecodeError) as exc:  # not JSON, or nested too deeply
            await self._error(send, None, -32700, "Parse error", {"why": f"the body is not JSON: {exc}"})
            return
        try:
            check_envelope(obj)
        except JsonRpcError as err:
            # An id that is not one is answered with null (JSON-RPC 2.0 §5).
            rid = obj.get("id") if isinstance(obj, dict) else None
            valid = rid is None or (isinstance(rid, (str, int)) and not isinstance(rid, bool))
            await self._error(
                send,
                rid if valid else None,
                -32600,
                "Invalid Request",
                {"why": f"not a JSON-RPC 2.0 request: {err.data.get('path', '$')} {err.data['reason']}"},
            )
            return
        rid = obj.get("id")
        try:
            found = self.book.match(obj, headers.get("a2a-version"))
        except Exception as exc:  # noqa: BLE001 - a matcher bug must answer, not 500
            logging.getLogger(__name__).exception("replay matching failed")
            await self._error(send, rid, -32603, f"a2a-mock replay: matching failed: {exc}", None)
            return
        if isinstance(found, Miss):
            if self.log is not None:
                self.log(f"no recorded answer for {obj['method']}: {found.why}")
            await self._error(send, rid, found.code, f"no recorded request matches: {found.why}", found.data())
            return
        await self._play(found, rid, base, receive, send)

    # ------------------------------------------------------------------ HTTP+JSON/REST

    async def _rest(self, scope: Any, body: bytes, headers: dict[str, str], base: str, receive: Any, send: Any) -> bool:
        """Answer a request to a recorded REST interface; False when it is not one."""
        path = scope["path"]
        for prefix in self.rest_bases:
            if not (path == prefix or path.startswith(prefix + "/")):
                continue
            route = path[len(prefix) :] or "/"
            dialect = "0.3" if route.startswith("/v1/") else "1.0"
            found = rest.match_route(dialect, scope["method"], route)
            if found is None or isinstance(found, str):
                continue
            try:
                obj = loads(body) if body.strip() else None
                query = parse_qsl(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True)
                params = rest.decode_request(dialect, found, query, obj)
            except (ValueError, UnicodeDecodeError) as exc:  # not JSON, or params that do not decode
                await self._rest_error(send, -32602, f"a2a-mock replay: the request does not decode: {exc}", None)
                return True
            request = rest.as_jsonrpc(found.method, params)
            found_ex = self.book.match(request, headers.get("a2a-version"), "rest")
            if isinstance(found_ex, Miss):
                if self.log is not None:
                    self.log(f"no recorded answer for {scope['method']} {path}: {found_ex.why}")
                await self._rest_error(
                    send, found_ex.code, f"no recorded request matches: {found_ex.why}", found_ex.data()
                )
                return True
            await self._play(found_ex, None, base, receive, send, rest_form=True)
            return True
        return False

    async def _rest_error(self, send: Any, code: int, message: str, data: Any) -> None:
        status, doc = rest.encode_error(JsonRpcError(code, message, data))
        await _send(send, status, framing.dumps(doc), [(b"content-type", framing.JSON_TYPE)])

    async def _error(self, send: Any, rid: Any, code: int, message: str, data: Any) -> None:
        body = framing.dumps({"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message, "data": data}})
        await _send(send, 200, body, [(b"content-type", framing.JSON_TYPE)])

    async def _play(self, match: Match, rid: Any, base: str, receive: Any, send: Any, rest_form: bool = False) -> None:
        ex = match.candidate.ex
        table = dict(match.table)
        for origin in self.origins:
            table[origin] = base
        rewrite = Rewriter(table)
        clock = _Clock(self.speed, ex.request.t, receive)
        try:
            resp = ex.response
            if resp is None:
                # The recorded request got no answer (connection refused, a timeout, or
                # the recording was cut off before it came).
                if ex.errors and not await clock.until(ex.errors[-1].t):
                    return
                why = (
                    f"the recorded request got no response: {ex.errors[-1].data.get('message')}"
                    if ex.errors
                    else "the recording ends before the response to this request"
                )
                fail = (
                    self._rest_error(send, -32603, f"no recorded response: {why}", {"why": why})
                    if rest_form
                    else self._error(
                        send,
                        rid,
                        -32603,
                        f"no recorded response: {why}",
                        {"why": why, "closest": match.candidate.describe()},
                    )
                )
                await fail
                return
            if not await clock.until(resp.t):
                return
            data = resp.data
            if data.get("streaming"):
                await self._stream(ex, rewrite, rid, clock, send)
                return
            raw = body_bytes(data)
            if raw is None:
                # The head arrived, the body broke off.
                await send(
                    {"type": "http.response.start", "status": data.get("status") or 200, "headers": _headers(data)}
                )
                raise _Cut()
            doc = parse_body(data)
            if doc is not None:
                raw = _dump(_answer(doc, rewrite, rid), data.get("body") or "")
            await _send(send, data.get("status") or 200, raw, _headers(data))
        finally:
            clock.close()

    async def _stream(self, ex: RecordedExchange, rewrite: Rewriter, rid: Any, clock: _Clock, send: Any) -> None:
        assert ex.response is not None  # the caller read it: a streaming response
        await send(
            {
                "type": "http.response.start",
                "status": ex.response.data.get("status") or 200,
                "headers": _headers(ex.response.data),
            }
        )
        eol = _eol(ex)
        for event in ex.stream:
            if not await clock.until(event.t):
                return
            frame = _frame(event, rewrite, rid, eol)
            await send({"type": "http.response.body", "body": frame, "more_body": True})
        end = ex.end
        if end is not None and not await clock.until(end.t):
            return
        if end is not None and end.data.get("reason") in ("error", "timeout", "limit"):
            raise _Cut()
        await send({"type": "http.response.body", "body": b"", "more_body": False})


# ---------------------------------------------------------------------- helpers


def _grpc_urls(card: Any) -> set[str]:
    """The urls of a card's gRPC interfaces: 1.0 supportedInterfaces, 0.3
    additionalInterfaces, and a 0.3 card's main url when its preferred transport is gRPC."""
    if not isinstance(card, dict):
        return set()
    found: set[str] = set()
    for key, binding in (("supportedInterfaces", "protocolBinding"), ("additionalInterfaces", "transport")):
        entries = card.get(key)
        for entry in entries if isinstance(entries, list) else ():
            if (
                isinstance(entry, dict)
                and str(entry.get(binding)).upper() == "GRPC"
                and isinstance(entry.get("url"), str)
            ):
                found.add(entry["url"])
    if str(card.get("preferredTransport")).upper() == "GRPC" and isinstance(card.get("url"), str):
        found.add(card["url"])
    return {u for u in found if u}


def _answer(doc: Any, rewrite: Rewriter, rid: Any) -> Any:
    out = rewrite(doc)
    if isinstance(out, dict) and "jsonrpc" in out and "id" in out:
        out["id"] = rid
    return out


def _dump(doc: Any, original: str) -> bytes:
    """JSON in the recorded body's own style: compact or spaced, escaped or not."""
    spaced = '", "' in original or '": ' in original
    ascii_only = original.isascii() and "\\u" in original
    return json.dumps(doc, ensure_ascii=ascii_only, separators=(", ", ": ") if spaced else (",", ":")).encode("utf-8")


def _eol(ex: RecordedExchange) -> str:
    """The stream's line ending, from an event spanning several lines (CRLF, as
    sse-starlette and a2a-sdk write, when no event shows one)."""
    for event in ex.stream:
        raw = event.data.get("raw")
        if event.kind is Kind.SSE and isinstance(raw, str) and event.data.get("raw_encoding") != "base64":
            found = _LINE.search(raw)
            if found:
                return found.group()
    return "\r\n"


def _frame(event: Any, rewrite: Rewriter, rid: Any, eol: str) -> bytes:
    data = event.data
    if event.kind is Kind.COMMENT:
        return (":" + str(data.get("text") or "") + eol + eol).encode("utf-8")
    end = "" if data.get("incomplete") else eol + eol
    raw = data.get("raw")
    if not isinstance(raw, str):
        return end.encode("utf-8")
    if data.get("raw_encoding") == "base64":
        try:
            return base64.b64decode(raw) + end.encode("utf-8")
        except (binascii.Error, ValueError):
            return end.encode("utf-8")
    # Comment lines inside the block were recorded as their own events, just before it.
    lines = [line for line in _LINE.split(raw) if not line.startswith(":")]
    text = data.get("data")
    doc = None
    if isinstance(text, str) and not data.get("incomplete"):
        try:
            doc = loads(text)
        except ValueError:
            doc = None
    if doc is not None:
        new = _dump(_answer(doc, rewrite, rid), text).decode("utf-8")
        out: list[str] = []
        placed = False
        for line in lines:
            if line.startswith("data:"):
                if not placed:
                    out.append(("data: " if line.startswith("data: ") else "data:") + new)
                    placed = True
                continue
            out.append(line)
        lines = out
    return (eol.join(lines) + end).encode("utf-8")


def _headers(data: dict[str, Any]) -> list[tuple[bytes, bytes]]:
    out = []
    headers = data.get("headers")
    if isinstance(headers, dict):
        for name, value in headers.items():
            if isinstance(name, str) and isinstance(value, str) and name.lower() not in _HOP:
                out.append((name.lower().encode("latin-1"), value.encode("latin-1", "replace")))
    return out


async def _send(send: Any, status: int, body: bytes, headers: list[tuple[bytes, bytes]]) -> None:
    headers = [(k, v) for k, v in headers if k != b"content-length"]
    headers.append((b"content-length", str(len(body)).encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _read(receive: Any, limit: int) -> bytes | int | None:
    """The request body; None if the client went away; its size so far (an int) once
    that is over ``limit``."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return size
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


# ---------------------------------------------------------------------- command line


def main(
    paths: Sequence[str],
    *,
    speed: float,
    host: str,
    port: int,
    grpc_port: int | None = None,
    allow_hosts: Sequence[str] = (),
) -> int:
    """``a2a-mock --replay FILE [--speed X]``: serve until Ctrl-C (behind the browser guard,
    with ``allow_hosts`` as ``--allow-host`` gives them)."""
    import sys

    def say(text: str) -> None:
        print(f"a2a-mock: {text}", file=sys.stderr, flush=True)

    try:
        server = ReplayServer(paths, speed=speed, log=say, grpc_port=grpc_port)
    except ReplayError as exc:
        say(str(exc))
        return 1
    for problem in server.problems:
        say(problem)

    def banner(base: str) -> list[str]:
        names = ", ".join(p.name for p in server.paths)
        return [
            f"a2a-mock: replaying {names} ({server.describe()}) at {base}{server.rpc_path}",
            *(f"  card: {base}{path}" for path in server.card_paths),
            *(
                [f"  gRPC ({', '.join(server.grpc.dialects)}): grpc://{server.grpc_address}"]
                if server.grpc is not None and server.grpc_address
                else []
            ),
            "  Ctrl-C to stop",
        ]

    return serve_until_interrupted(BrowserGuard(server.app, allow_hosts), host, port, banner, "a2a-mock")
