"""One HTTP exchange, recorded: the request as sent, the response as received, and every
failure in between as one clear line. The client and discovery both send through here,
so nothing reaches the wire without reaching the session log first.
"""

from __future__ import annotations

import base64
import os
import re
import socket
import ssl
import threading
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx

from ..protocol.sizes import format_size
from ..session.events import Kind
from ..session.log import Session
from .errors import TransportError
from .limits import BodyDecoder, DecodeFailed, Limits


@dataclass(frozen=True)
class Timeouts:
    """Seconds. ``read`` bounds each wait for bytes of a normal response; a stream gets
    ``stream_read`` instead, which must exceed the agent's heartbeat gap (a2a-sdk and
    Orloj ping every 15 s) or a quiet but healthy stream would be cut."""

    connect: float = 10.0
    read: float = 60.0
    stream_read: float = 120.0
    #: After a stream's final event, how long to wait for the agent to close it.
    linger: float = 2.0

    def for_request(self, stream: bool) -> httpx.Timeout:
        read = self.stream_read if stream else self.read
        return httpx.Timeout(connect=self.connect, read=read, write=self.read, pool=self.connect)


_tls_lock = threading.Lock()
#: (SSL_CERT_FILE, SSL_CERT_DIR) -> the context verifying against them (or certifi's).
_tls_contexts: dict[tuple[str | None, str | None], ssl.SSLContext] = {}


def shared_tls_context() -> ssl.SSLContext:
    """The verifying TLS context every client without its own ``http=`` shares.

    Loading the CA bundle costs ~40 ms of CPU, so a context is built at most once per
    process, on first use rather than at import (start-up time). It is whatever httpx
    would build by default, so SSL_CERT_FILE / SSL_CERT_DIR still pick the CA; they are
    part of the key because httpx reads them per client. Treat it as read-only: a
    change (a client certificate, say) would reach every client."""
    key = (os.environ.get("SSL_CERT_FILE") or None, os.environ.get("SSL_CERT_DIR") or None)
    ctx = _tls_contexts.get(key)
    if ctx is None:
        # Clients may be created from several threads (the TUI's workers, tests).
        with _tls_lock:
            ctx = _tls_contexts.get(key)
            if ctx is None:
                ctx = _tls_contexts[key] = httpx.create_ssl_context()
    return ctx


def body_text(raw: bytes | bytearray) -> tuple[str, str]:
    """Bytes -> (text, encoding) for the log: UTF-8 when it is, else base64, so nothing is lost."""
    try:
        return raw.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        return base64.b64encode(raw).decode("ascii"), "base64"


def whole_chars(cut: bytearray) -> bytearray:
    """A body cut at a byte limit, without the start of a UTF-8 character the cut split:
    so that text stays text in the log (instead of turning to base64)."""
    for back in range(1, min(4, len(cut)) + 1):
        byte = cut[-back]
        if byte & 0xC0 != 0x80:  # not a continuation byte: the last character starts here
            need = 2 if 0xC0 <= byte < 0xE0 else 3 if 0xE0 <= byte < 0xF0 else 4 if byte >= 0xF0 else 1
            if need > back:
                del cut[-back:]
            break
    return cut


_TITLE = re.compile(rb"<title[^>]*>([^<]{1,80})</title>", re.IGNORECASE)


def describe_body(content_type: str | None, raw: bytes) -> str:
    """A few words on what a body is, for error lines: 'HTML page "Oops", 1.2 KiB'."""
    if not raw:
        return "empty body"
    ctype = (content_type or "").split(";")[0].strip().lower()
    head = raw[:512].lstrip()
    if "html" in ctype or head[:1] == b"<":
        what = "HTML page"
        title = _TITLE.search(raw[:4096])
        if title:
            name = " ".join(title.group(1).decode("utf-8", "replace").split())
            if name:
                what += f' "{name}"'
    elif "json" in ctype:
        what = "JSON"
    elif ctype.startswith("text/"):
        what = "text"
    else:
        what = ctype or "body"
    return f"{what}, {format_size(len(raw))}"


def raw_headers(headers: httpx.Headers) -> dict[str, str]:
    """Headers with the names spelled as on the wire (httpx's dict() lower-cases them)."""
    out: dict[str, str] = {}
    for key, value in headers.raw:
        name = key.decode("latin-1")
        text = value.decode("latin-1")
        out[name] = f"{out[name]}, {text}" if name in out else text
    return out


def reason_phrase(response: httpx.Response) -> str:
    # HTTP/2 has no reason phrase, and some servers send none.
    return response.reason_phrase or httpx.codes.get_reason_phrase(response.status_code)


def _reason(exc: BaseException) -> str:
    """The most telling cause in an exception chain, as a lower-case phrase.

    httpx (via anyio) wraps the OS error: "All connection attempts failed" hides the
    "connection refused" underneath."""
    chain: list[BaseException] = []
    seen: BaseException | None = exc
    while seen is not None and len(chain) < 10:
        chain.append(seen)
        seen = seen.__cause__ or seen.__context__
    for cause in chain:
        if isinstance(cause, ConnectionRefusedError):
            return "connection refused"
        if isinstance(cause, socket.gaierror):
            return "host name not found"
    text = str(exc) or type(exc).__name__
    text = re.sub(r"^\[Errno -?\d+\]\s*", "", text).strip().rstrip(".")
    return text[:1].lower() + text[1:] if text else type(exc).__name__


def handshake_hint(exc: BaseException) -> str | None:
    """Why a TLS handshake failed, with the option that helps, or None when ``exc`` (or
    what caused it) is no TLS failure."""
    chain: list[BaseException] = []
    seen: BaseException | None = exc
    while seen is not None and len(chain) < 10:
        chain.append(seen)
        seen = seen.__cause__ or seen.__context__
    verify = next((e for e in chain if isinstance(e, ssl.SSLCertVerificationError)), None)
    texts = " ".join(str(e) for e in chain)
    if verify is not None or "CERTIFICATE_VERIFY_FAILED" in texts:
        said = (getattr(verify, "verify_message", None) or "").rstrip(". ")
        why = f"certificate verify failed: {said}" if said else "certificate verify failed"
        if "mismatch" in why.lower():
            # Trusting another CA would not help: the certificate is for other names.
            return (
                f"the agent's TLS certificate is not for this host ({why}): use a host name it "
                "lists, or --insecure to skip the check"
            )
        return (
            f"the agent's TLS certificate is not trusted ({why}): give its CA with --cacert FILE "
            "(a saved agent's CA file in the UI), or --insecure to skip the check"
        )
    if "CERTIFICATE_REQUIRED" in texts or "certificate required" in texts.lower():
        return "the agent asks for a client certificate: give it with --cert FILE --key FILE"
    if "WRONG_VERSION_NUMBER" in texts:
        return "the agent does not speak TLS here: use http:// (or grpc://)"
    return None


class Exchange:
    """One request and its response (or failure), sharing one exchange id in the log."""

    __slots__ = ("wire", "id", "url", "t0", "response", "info")

    def __init__(self, wire: Wire, url: str, info: dict[str, Any] | None = None) -> None:
        self.wire = wire
        self.id = wire.session.new_exchange()
        self.url = url
        self.t0 = time.perf_counter()
        self.response: httpx.Response | None = None
        #: The REQUEST's fields above HTTP (dialect, a2a_method...): how to decode the answer.
        self.info = info or {}

    def elapsed_ms(self) -> float:
        return round((time.perf_counter() - self.t0) * 1000, 3)

    def log(self, kind: Kind, data: dict[str, Any], payload: Any = None) -> None:
        self.wire.session.append(kind, data, exchange=self.id, payload=payload)

    def note(self, text: str, **extra: Any) -> None:
        self.log(Kind.NOTE, {"text": text, **extra})

    def error(self, type_: str, message: str, path: str | None = None) -> None:
        data: dict[str, Any] = {"type": type_, "message": message}
        if path is not None:
            data["path"] = path
        self.log(Kind.ERROR, data)

    def fail(self, kind: str, message: str, detail: str | None = None) -> TransportError:
        """Log a transport failure and return the exception to raise."""
        self.error(kind, message)
        status = self.response.status_code if self.response is not None else None
        return TransportError(kind, message, status=status, url=self.url, detail=detail)

    def response_data(
        self, raw: bytes | bytearray | None, *, streaming: bool | None = None, cut: bool = False
    ) -> dict[str, Any]:
        """The RESPONSE event's data: the head, with the body unless this is a stream
        (or the body could not be read: ``raw`` None, ``streaming`` False). ``cut``: the
        body is only what arrived up to the size limit."""
        resp = self.response
        assert resp is not None
        if raw is None:
            body = encoding = size = None
        else:
            body, encoding = body_text(raw)
            size = len(raw)
        data = {
            "status": resp.status_code,
            "reason": reason_phrase(resp),
            "headers": raw_headers(resp.headers),
            "body": body,
            "body_encoding": encoding,
            "body_size": size,
            "elapsed_ms": self.elapsed_ms(),
            "streaming": raw is None if streaming is None else streaming,
            "content_type": resp.headers.get("content-type"),
        }
        if cut:
            data["cut"] = True
        return data

    async def pieces(self, limit: int) -> AsyncIterator[bytes]:
        """The body decoded, in pieces of at most limits.PIECE bytes, up to ``limit``
        bytes: past it, what still fits is given and then BodyTooLarge raised. Raw bytes
        count too, so that what follows the end of a gzip stream cannot run on for ever."""
        assert self.response is not None
        decoder = BodyDecoder(self.response.headers.get("content-encoding"))
        if decoder.skipped:
            self.note(
                f"Content-Encoding {', '.join(decoder.skipped)} was not asked for and is not "
                "decoded: the body is kept as received"
            )
        size = raw_size = 0
        async for raw in self.response.aiter_raw():
            raw_size += len(raw)
            for piece in decoder.feed(raw):
                size += len(piece)
                if size > limit:
                    yield piece[: len(piece) - (size - limit)]
                    raise BodyTooLarge(decoder.decodes)
                yield piece
            if raw_size > limit:
                raise BodyTooLarge(decoder.decodes)
        for piece in decoder.flush():
            size += len(piece)
            if size > limit:
                yield piece[: len(piece) - (size - limit)]
                raise BodyTooLarge(decoder.decodes)
            yield piece

    @staticmethod
    def larger_than(limit: int, option: str, inflated: bool) -> str:
        """A size limit in words: ``larger than 16 MiB after decompression (--max-event)``."""
        after = " after decompression" if inflated else ""
        return f"larger than {format_size(limit)}{after} ({option})"

    def too_large(self, what: str, limit: int, option: str, inflated: bool) -> TransportError:
        return self.fail(
            "limit", f"{what} from {self.url} is {self.larger_than(limit, option, inflated)}; stopped reading"
        )

    async def read(self) -> bytes:
        """The whole body, up to the body size limit; a body over it (kept, cut, in the
        log), one that does not decompress, or a connection that breaks while reading
        it is a TransportError."""
        assert self.response is not None
        limit = self.wire.limits.max_body
        body = bytearray()
        try:
            async for piece in self.pieces(limit):
                body += piece
            return bytes(body)
        except BodyTooLarge as exc:
            from ..session.payloads import response_payload

            data = self.response_data(whole_chars(body), cut=True)
            del body
            self.log(Kind.RESPONSE, data, response_payload(self.info, data))
            raise self.too_large("response", limit, "--max-body", exc.inflated) from None
        except DecodeFailed as exc:
            self.log(Kind.RESPONSE, self.response_data(None, streaming=False))
            raise self.fail("http", f"response from {self.url}: {exc}") from None
        except httpx.TimeoutException:
            self.log(Kind.RESPONSE, self.response_data(None, streaming=False))
            raise self.fail(
                "timeout", f"{self.url} stopped sending its response for {self.wire.timeouts.read:g} s (read timeout)"
            ) from None
        except httpx.HTTPError as exc:
            # The head arrived; keep it on record even though the body did not.
            self.log(Kind.RESPONSE, self.response_data(None, streaming=False))
            raise self.fail("http", f"response from {self.url} broken off: {_reason(exc)}") from None
        finally:
            await self.response.aclose()

    def stream_error(self, exc: httpx.HTTPError) -> TransportError:
        """Map an httpx failure while reading a stream to one logged line."""
        if isinstance(exc, httpx.TimeoutException):
            return self.fail(
                "timeout", f"stream from {self.url} went quiet for {self.wire.timeouts.stream_read:g} s (read timeout)"
            )
        return self.fail("stream", f"stream from {self.url} broken off: {_reason(exc)}")


#: Redirect hops followed before giving up (httpx's default is 20; a card is not that far).
MAX_REDIRECTS = 10
_DEFAULT_PORTS = {"http": 80, "https": 443}


def _origin(url: httpx.URL) -> tuple[str, str, int | None]:
    return url.scheme, url.host, url.port or _DEFAULT_PORTS.get(url.scheme)


def same_origin(given: httpx.URL, target: httpx.URL) -> bool:
    """Whether credentials given for ``given`` may go to ``target``: the same scheme,
    host and port, or the same host upgraded from http to https on the default ports
    (as httpx keeps Authorization on such an upgrade)."""
    if _origin(given) == _origin(target):
        return True
    return (
        given.scheme == "http"
        and target.scheme == "https"
        and given.host == target.host
        and given.port in (None, 80)
        and target.port in (None, 443)
    )


class BodyTooLarge(Exception):
    """A body went past its size limit; ``inflated``: it was compressed."""

    def __init__(self, inflated: bool) -> None:
        super().__init__("body over the size limit")
        self.inflated = inflated


class Wire:
    """Sends requests through one httpx client and records them in one session."""

    def __init__(
        self, http: httpx.AsyncClient, session: Session, timeouts: Timeouts, limits: Limits | None = None
    ) -> None:
        self.http = http
        self.session = session
        self.timeouts = timeouts
        self.limits = limits or Limits()
        #: A client certificate is shown (--cert): an https agent that hangs up before
        #: answering is then not one asking for it.
        self.client_cert = False

    async def send(
        self,
        method: str,
        url: str,
        *,
        headers: dict[str, str],
        body: bytes | None = None,
        info: dict[str, Any],
        payload: Any = None,
        stream: bool = False,
        follow_redirects: bool = False,
        bound: frozenset[str] = frozenset(),
    ) -> Exchange:
        """Log the request, send it, and return the exchange with its response head
        (the body still unread). ``info`` holds the REQUEST fields above HTTP: dialect,
        a2a_method, rpc_method, rpc_id.

        ``follow_redirects``: each hop is an exchange of its own, on the record, with a
        NOTE saying where it led. ``bound``: lower-cased names of the headers that go
        only to ``url``'s origin (credentials, the user's own headers): a hop to
        another origin is sent without them, and the NOTE says so."""
        ex = await self._send_one(method, url, headers, body, info, payload, stream)
        if not follow_redirects:
            return ex
        given = httpx.URL(url)
        hops = 0
        while ex.response is not None and ex.response.next_request is not None:
            target = ex.response.next_request
            raw = await ex.read()
            ex.log(Kind.RESPONSE, ex.response_data(raw))
            to = str(target.url)
            hops += 1
            if hops > MAX_REDIRECTS:
                raise ex.fail("http", f"{ex.url} redirected to {to}: more than {MAX_REDIRECTS} redirects, gave up")
            send = headers
            text = f"{ex.url} redirected (HTTP {ex.response.status_code}) to {to}"
            if not same_origin(given, target.url):
                withheld = [name for name in headers if name.lower() in bound]
                if withheld:
                    send = {k: v for k, v in headers.items() if k.lower() not in bound}
                    text += (
                        f", another origin: sent there without {', '.join(withheld)} (credentials "
                        f"and your own headers go only to {given.scheme}://{given.netloc.decode('ascii')})"
                    )
            ex.note(text, redirect=to)
            ex = await self._send_one(
                target.method, to, send, body if target.method == method else None, info, payload, stream
            )
        return ex

    async def _send_one(
        self,
        method: str,
        url: str,
        headers: dict[str, str],
        body: bytes | None,
        info: dict[str, Any],
        payload: Any,
        stream: bool,
    ) -> Exchange:
        ex = Exchange(self, url, info)
        try:
            request = self.http.build_request(
                method, url, headers=headers, content=body, timeout=self.timeouts.for_request(stream)
            )
        except (httpx.InvalidURL, httpx.UnsupportedProtocol, ValueError, TypeError) as exc:
            ex.log(Kind.REQUEST, self._request_data(method, url, headers, body, info), payload)
            raise ex.fail("connect", f"cannot connect to {url}: {_reason(exc)}") from None
        ex.log(Kind.REQUEST, self._request_data(method, url, raw_headers(request.headers), body, info), payload)
        ex.t0 = time.perf_counter()
        try:
            # Redirects are followed by send(), hop by hop, so each is on the record and
            # credentials can be kept from other origins (httpx withholds Authorization only).
            ex.response = await self.http.send(request, stream=True, follow_redirects=False)
        except httpx.ConnectTimeout:
            raise ex.fail(
                "timeout", f"cannot connect to {url}: no answer within {self.timeouts.connect:g} s (connect timeout)"
            ) from None
        except httpx.TimeoutException:
            limit = self.timeouts.stream_read if stream else self.timeouts.read
            raise ex.fail("timeout", f"no response from {url} within {limit:g} s (read timeout)") from None
        except httpx.ConnectError as exc:
            raise ex.fail("connect", f"cannot connect to {url}: {handshake_hint(exc) or _reason(exc)}") from None
        except httpx.HTTPError as exc:
            why = handshake_hint(exc) or _reason(exc)
            if isinstance(exc, httpx.RemoteProtocolError) and not self.client_cert and request.url.scheme == "https":
                # TLS 1.3 sends the refusal of a missing client certificate after the
                # handshake, and Python often never reads it: only the hang-up is seen.
                why += " (if it asks for a client certificate, give it with --cert FILE --key FILE)"
            raise ex.fail("connect", f"no response from {url}: {why}") from None
        return ex

    @staticmethod
    def _request_data(
        method: str, url: str, headers: dict[str, str], body: bytes | None, info: dict[str, Any]
    ) -> dict[str, Any]:
        text, encoding = body_text(body) if body is not None else (None, "utf-8")
        return {"method": method, "url": url, "headers": headers, "body": text, "body_encoding": encoding, **info}
