"""The gRPC binding's transport: unary and server-streaming calls to an A2AService, each
one an exchange in the session log like an HTTP one.

Calls go through grpcio's generic multicallables (bytes in, bytes out: no generated
stubs, and the sizes on the wire are known); messages are built and read with the
private descriptor pool of protocol/grpc_schema.py. What is logged is ProtoJSON, which
is what the HTTP+JSON binding carries, so the REST codec reads it (payloads.codec_for):
live and replay decode the same text the same way.

grpc and protobuf are imported on the first call, never at start-up.
"""

from __future__ import annotations

import asyncio
import base64
import json
import re
import time
from typing import Any, TypedDict
from urllib.parse import urlsplit

from ..protocol import grpc_codec, grpc_errors, grpc_schema
from ..protocol.dialects import Dialect
from ..protocol.errors import JsonRpcError, ProtocolError
from ..protocol.lean import TextChunk
from ..protocol.methods import Method
from ..protocol.sizes import format_size
from ..protocol.wire import capture
from ..session import payloads
from ..session.events import Kind
from .errors import TransportError
from .grpc_url import GRPC_SCHEMES as GRPC_SCHEMES
from .grpc_url import is_grpc_url
from .tls import TlsError, grpc_credentials
from .transport import Exchange, handshake_hint

#: Metadata gRPC itself owns: a user's header of that name cannot travel as metadata.
RESERVED_METADATA = frozenset(
    (
        "content-type",
        "te",
        "host",
        "connection",
        "transfer-encoding",
        "user-agent",
        "accept",
        "accept-encoding",
        "content-length",
        "keep-alive",
        "upgrade",
    )
)


class _DumpsOptions(TypedDict):
    # json.dumps's keywords as a TypedDict: spread with ** they keep their types.
    ensure_ascii: bool
    separators: tuple[str, str]


_JSON: _DumpsOptions = {"ensure_ascii": False, "separators": (",", ":")}
#: grpcio's words for a target it never reached (an agent may answer UNAVAILABLE itself).
NO_CONNECTION = re.compile(
    r"failed to connect|connection refused|dns resolution failed|name resolution|"
    r"socket closed|connection reset|handshake|no route to host|unreachable",
    re.IGNORECASE,
)


def split_target(endpoint: str) -> tuple[str, bool]:
    """An interface URL -> (``host:port`` for grpcio, TLS or not). Cards write a gRPC
    interface as ``grpc://host:port``, ``https://host:port`` or a bare ``host:port``."""
    if "://" not in endpoint:
        return endpoint.strip().rstrip("/"), False
    parts = urlsplit(endpoint)
    secure = parts.scheme.lower() in ("grpcs", "https")
    # grpcio has no use for a URL's user:password and puts the whole target in its
    # errors (a password on the terminal): the target is the host and port only.
    netloc = parts.netloc.rpartition("@")[2]
    if parts.port is None and parts.scheme.lower() in ("https", "http"):
        netloc = f"{netloc}:{443 if secure else 80}"
    return netloc, secure


def metadata_dict(metadata: Any) -> dict[str, str]:
    """grpc metadata (pairs) -> a dict for the log: ``-bin`` values in base64, repeated
    keys joined with ", " as HTTP headers are."""
    out: dict[str, str] = {}
    for key, value in metadata or ():
        text = base64.b64encode(value).decode("ascii") if isinstance(value, bytes) else str(value)
        out[key] = f"{out[key]}, {text}" if key in out else text
    return out


def status_fields(dialect: str | None, code: int, message: str | None, trailing: Any) -> dict[str, Any]:
    """The status fields of a RESPONSE or STREAM_END: code, name, message, the rich
    details from ``grpc-status-details-bin`` as ProtoJSON (when the dialect is known),
    the trailers. The proxy logs a relayed call's status with it too."""
    out: dict[str, Any] = {
        "grpc_code": code,
        "grpc_status": grpc_errors.NAMES.get(code, str(code)),
        "grpc_message": message or "",
        "trailers": metadata_dict(trailing),
    }
    for key, value in trailing or ():
        if key == grpc_errors.STATUS_DETAILS_KEY and isinstance(value, bytes) and dialect:
            try:
                out["grpc_details"] = grpc_codec.status_details(dialect, value)
            except ValueError as exc:
                out["grpc_details_error"] = str(exc)
    return out


#: The end of a stream's messages, as _QuietWatch.read gives it.
EOF = object()


class _QuietWatch:
    """The idle timeout of a stream's reads, with one timer per quiet period instead of
    one per message (asyncio.timeout arms and cancels a timer around every read: about
    15 µs a message, a tenth of the client's cost in bench/grpc_stream). When the timer
    fires it looks at when the current read began: a read that has waited ``wait``
    seconds is cancelled and raises TimeoutError, as asyncio.timeout's would; otherwise
    the timer is set again for that read's own deadline. Between reads (the consumer's
    turn) nothing is cancelled."""

    __slots__ = ("loop", "task", "handle", "since", "wait", "reading", "fired")

    def __init__(self) -> None:
        self.loop: Any = None
        self.task: Any = None
        self.handle: Any = None
        self.since = 0.0
        self.wait = 0.0
        self.reading = False
        self.fired = False

    async def read(self, step: Any, wait: float) -> Any:
        """``await step()`` (the next message), or TimeoutError once it has waited
        ``wait`` seconds; the end of the messages (StopAsyncIteration) as ``EOF``."""
        loop = self.loop
        if loop is None:
            loop = self.loop = asyncio.get_running_loop()
        task = self.task = asyncio.current_task(loop)
        self.since = since = loop.time()
        self.wait = wait
        if self.handle is None or since + wait < self.handle.when():
            self._arm(since + wait)
        self.reading = True
        cancelling = task.cancelling() if task is not None else 0
        try:
            return await step()
        except StopAsyncIteration:
            return EOF
        except asyncio.CancelledError:
            if self.fired and task is not None:
                self.fired = False
                if task.uncancel() <= cancelling:
                    raise TimeoutError from None
            raise
        finally:
            self.reading = False

    def _arm(self, due: float) -> None:
        if self.handle is not None:
            self.handle.cancel()
        self.handle = self.loop.call_at(due, self._check)

    def _check(self) -> None:
        self.handle = None
        if not self.reading:
            return  # the next read sets the timer again
        due = self.since + self.wait
        if self.loop.time() < due:
            self._arm(due)
            return
        self.fired = True
        self.task.cancel()

    def close(self) -> None:
        if self.handle is not None:
            self.handle.cancel()
            self.handle = None


class GrpcTransport:
    """Calls to one gRPC endpoint for one client (its session, limits, timeouts, auth)."""

    def __init__(self, client: Any, endpoint: str) -> None:
        # ``client``: the A2AClient (not imported: client.py imports this module).
        self.client = client
        self.endpoint = endpoint
        self.target, self.secure = split_target(endpoint)
        if "://" in endpoint and "@" in urlsplit(endpoint).netloc:
            client._note(
                "a gRPC URL's user:password is not sent (gRPC has no URL credentials): give them with --basic USER:PASS"
            )
        #: What the log names the agent by (``grpc://host:port``), and credentials are checked against.
        self.url = f"{'grpcs' if self.secure else 'grpc'}://{self.target}"
        #: Channels by the largest message they receive: gRPC bounds that per channel
        #: only, and a stream's message has its own bound (max_event) beside an answer's
        #: (max_body).
        self._channels: dict[int, Any] = {}
        #: The last unary answer as ProtoJSON (a card fetched by RPC keeps it as served).
        self.last_answer: Any = None

    def channel(self, limit: int | None = None) -> Any:
        """The channel whose calls receive messages of at most ``limit`` bytes (default:
        max_body). gRPC refuses a longer one from its length prefix, before reading it."""
        limit = min(self.client.limits.max_body if limit is None else limit, 2**31 - 1)
        channel = self._channels.get(limit)
        if channel is None:
            import os

            # grpc's C core logs to stderr (a GOAWAY at INFO level): not over the TUI.
            os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
            import grpc

            options = [("grpc.max_receive_message_length", limit), ("grpc.max_send_message_length", -1)]
            if self.secure:
                credentials = grpc_credentials(getattr(self.client, "tls", None))
                channel = grpc.aio.secure_channel(self.target, credentials, options=options)
            else:
                channel = grpc.aio.insecure_channel(self.target, options=options)
            self._channels[limit] = channel
        return channel

    def _channel(self, ex: Exchange, limit: int | None = None) -> Any:
        try:
            return self.channel(limit)
        except TlsError as exc:  # the request is logged: its failure goes beside it
            raise ex.fail("connect", str(exc)) from None

    async def aclose(self) -> None:
        channels = list(self._channels.values())
        self._channels.clear()
        for channel in channels:
            await channel.close()

    # ------------------------------------------------------------------ requests

    def metadata(self, dialect: Dialect) -> list[tuple[str, str]]:
        """``a2a-version`` (1.0), the credentials and the user's headers (only to the
        origin they were given for: A2AClient._guard), as lower-case metadata keys."""
        client = self.client
        headers = client._guard(
            self.url, client._call_headers({k.lower(): v for k, v in dialect.request_headers().items()})
        )
        dropped = [k for k in headers if k.lower() in RESERVED_METADATA or k.lower().startswith(("grpc-", ":"))]
        if dropped:
            client._note(f"gRPC metadata cannot carry {', '.join(dropped)} (gRPC sets it itself): not sent")
        return [(k.lower(), v) for k, v in headers.items() if k not in dropped]

    def _request(
        self, dialect: Dialect, method: Method, params: Any
    ) -> tuple[Exchange, Any, bytes, list[tuple[str, str]]]:
        """Build the call's message and log its REQUEST: (exchange, rpc, bytes, metadata)."""
        name = dialect.name
        rpc = grpc_schema.rpcs(name)[grpc_codec.rpc_name(name, method)]
        obj = grpc_codec.encode_request(name, method, params, self.client.tenant)
        try:
            message = grpc_schema.from_json(name, rpc.request, obj, ignore_unknown=True)
        except ValueError as exc:
            raise ProtocolError(f"cannot build {rpc.request}: {exc}") from None
        data = message.SerializeToString()
        metadata = self.metadata(dialect)
        info = {
            "dialect": name,
            "binding": "grpc",
            "a2a_method": method.value,
            "rpc_method": rpc.name,
            "rpc_id": None,
            "grpc_path": rpc.path,
        }
        url = self.url + rpc.path
        ex = Exchange(self.client._wire, url, info)
        ex.log(
            Kind.REQUEST,
            {
                "method": "POST",
                "url": url,
                "headers": dict(metadata),
                "body": json.dumps(grpc_schema.to_json(message), **_JSON),
                "body_encoding": "utf-8",
                "body_size": len(data),
                "content_type": "application/grpc",
                **info,
            },
            params,
        )
        ex.t0 = time.perf_counter()
        return ex, rpc, data, metadata

    def _head(self, ex: Exchange, initial: Any, *, streaming: bool) -> dict[str, Any]:
        return {
            "status": None,
            "reason": None,
            "headers": metadata_dict(initial),
            "body": None,
            "body_encoding": None,
            "body_size": None,
            "elapsed_ms": ex.elapsed_ms(),
            "streaming": streaming,
            "content_type": "application/grpc",
        }

    # ------------------------------------------------------------------ failures

    def _failure(
        self, ex: Exchange, exc: Any, dialect: str, *, timeout: float | None, stream: bool = False
    ) -> Exception:
        """An AioRpcError -> what to raise, logged: a TransportError when nothing reached
        the agent or we gave up (connect, deadline, our own size limit: max_body, or a
        ``stream``'s max_event), else the agent's status as a RESPONSE and its GrpcError."""
        import grpc

        code = exc.code()
        details = exc.details() or ""
        initial = exc.initial_metadata()
        if code is grpc.StatusCode.UNAVAILABLE and not initial and NO_CONNECTION.search(details):
            # grpcio's own words for a target it never reached (an agent may answer
            # UNAVAILABLE itself: that is its status, below).
            why = handshake_hint(exc) or _first_line(details)
            tls = getattr(self.client, "tls", None)
            if self.secure and "socket closed" in details.lower() and not getattr(tls, "cert", None):
                # A server requiring a client certificate hangs up after the handshake:
                # grpcio only reports the closed socket.
                why += " (if it asks for a client certificate, give it with --cert FILE --key FILE)"
            return ex.fail("connect", f"cannot connect to {self.target}: {why}")
        if code is grpc.StatusCode.DEADLINE_EXCEEDED:
            return ex.fail("timeout", f"no answer from {self.url} within {timeout or 0:g} s (deadline)")
        if stream and _own_limit(code, details):
            return ex.fail(
                "limit",
                f"an event of the stream from {self.url} is larger than "
                f"{format_size(self.client.limits.max_event)} (--max-event); stopped reading",
            )
        if _own_limit(code, details):
            return ex.fail(
                "limit",
                f"a message from {self.url} is larger than "
                f"{format_size(self.client.limits.max_body)} (--max-body); not read",
            )
        data = self._head(ex, initial, streaming=False)
        data.update(status_fields(dialect, code.value[0], details, exc.trailing_metadata()))
        payload = payloads.response_payload(ex.info, data)
        ex.log(Kind.RESPONSE, data, payload)
        return (
            payload if isinstance(payload, JsonRpcError) else ex.fail("http", f"gRPC {data['grpc_status']}: {details}")
        )

    # ------------------------------------------------------------------ unary

    async def call(self, dialect: Dialect, method: Method, params: Any) -> Any:
        import grpc

        ex, rpc, data, metadata = self._request(dialect, method, params)
        timeouts = self.client.timeouts
        deadline = timeouts.connect + timeouts.read
        call = self._channel(ex).unary_unary(rpc.path)(data, metadata=metadata, timeout=deadline)
        try:
            raw = await call
            initial = await call.initial_metadata()
            trailing = await call.trailing_metadata()
            details = await call.details()
        except grpc.aio.AioRpcError as exc:
            raise self._failure(ex, exc, dialect.name, timeout=deadline) from None
        head = self._head(ex, initial, streaming=False)
        head.update(status_fields(dialect.name, 0, details, trailing))
        head["body_size"] = len(raw)
        try:
            message = grpc_schema.decode(dialect.name, rpc.response, raw)
        except ValueError as exc:
            head.update(body=base64.b64encode(raw).decode("ascii"), body_encoding="base64")
            ex.log(Kind.RESPONSE, head, ProtocolError(str(exc)))
            ex.error("protocol", str(exc))
            raise ProtocolError(str(exc)) from None
        answer = grpc_schema.to_json(message)
        self.last_answer = answer
        head.update(body=json.dumps(answer, **_JSON), body_encoding="utf-8")
        payload = payloads.response_payload(ex.info, head)
        ex.log(Kind.RESPONSE, head, payload)
        if isinstance(payload, ProtocolError):
            ex.error("protocol", payload.reason, payload.path)
            raise payload
        if isinstance(payload, JsonRpcError):
            raise payload
        return payload

    async def raw_call(self, dialect: Dialect, path: str, data: bytes) -> tuple[int, str]:
        """Call ``path`` with ``data`` as the request's bytes, whatever they are (a
        check's malformed calls): the status code the agent ended it with (0 for OK) and
        its message. Logged like any call; a call that never reached the agent raises."""
        import grpc

        metadata = self.metadata(dialect)
        info = {
            "dialect": dialect.name,
            "binding": "grpc",
            "a2a_method": None,
            "rpc_method": path.rsplit("/", 1)[-1],
            "rpc_id": None,
            "grpc_path": path,
        }
        url = self.url + path
        ex = Exchange(self.client._wire, url, info)
        ex.log(
            Kind.REQUEST,
            {
                "method": "POST",
                "url": url,
                "headers": dict(metadata),
                "body": base64.b64encode(data).decode("ascii"),
                "body_encoding": "base64",
                "body_size": len(data),
                "content_type": "application/grpc",
                **info,
            },
        )
        ex.t0 = time.perf_counter()
        deadline = self.client.timeouts.connect + self.client.timeouts.read
        call = self._channel(ex).unary_unary(path)(data, metadata=metadata, timeout=deadline)
        try:
            raw = await call
            initial = await call.initial_metadata()
            trailing = await call.trailing_metadata()
            details = await call.details()
        except grpc.aio.AioRpcError as exc:
            failed = self._failure(ex, exc, dialect.name, timeout=deadline)
            if isinstance(failed, TransportError) and failed.kind != "http":
                raise failed from None
            return exc.code().value[0], exc.details() or ""
        head = self._head(ex, initial, streaming=False)
        head.update(status_fields(dialect.name, 0, details, trailing))
        head.update(body=base64.b64encode(raw).decode("ascii"), body_encoding="base64", body_size=len(raw))
        ex.log(Kind.RESPONSE, head)
        return 0, ""

    # ------------------------------------------------------------------ streams

    async def stream(self, dialect: Dialect, method: Method, params: Any, ends_stream: Any, lean: bool = False) -> Any:
        """The stream's events, decoded, as an async generator; logs every message.
        ``lean``: nobody reads the events but the session (EventStream.drain), so the
        plain next chunk of a text artifact (grpc_codec.plain_chunk_reader) is handed on
        as a TextChunk (protocol/lean.py), not decoded into models."""
        import grpc

        ex, rpc, data, metadata = self._request(dialect, method, params)
        client = self.client
        timeouts, limits = client.timeouts, client.limits
        session = client.session
        codec = payloads.codec_for(dialect, "grpc")
        lazy = payloads.MessageCodec(codec)
        decode_event = codec.decode_stream_event
        fast = codec.decode_sse_fast
        plain = grpc_codec.plain_chunk_reader(dialect.name) if codec is not None else None
        from pydantic_core import to_json as dump  # compact, UTF-8 as is: json.dumps' ensure_ascii=False, 4x sooner

        response_class = grpc_schema.message_class(dialect.name, rpc.response)
        to_json = grpc_codec.stream_json
        number = ex.id
        call = self._channel(ex, limits.max_event).unary_stream(rpc.path)(data, metadata=metadata)
        # The call's own async iterator, not call.read(): read() checks the call's state
        # and style around each message, a layer more per message of a long stream.
        step = call.__aiter__().__anext__
        events = 0
        #: The stream's bytes so far, against limits.max_stream_body.
        size = 0
        final = started = ended = False
        #: A drained stream's chunks are not yielded (nobody takes them: EventStream.drain
        #: keeps the last event only): the last one, when nothing came after it.
        held = None
        quiet = _QuietWatch()

        def end(reason: str, status: dict[str, Any] | None = None, limit: str | None = None) -> None:
            # ``limit``: the words of the limit that ended it, as the HTTP path's STREAM_END has them.
            nonlocal ended
            ended = True
            data = {
                "reason": reason,
                "events": events,
                "elapsed_ms": ex.elapsed_ms(),
                "terminal": final,
                **(status or {}),
            }
            if limit is not None:
                data["limit"] = limit
            ex.log(Kind.STREAM_END, data)

        try:
            while True:
                wait = timeouts.linger if final else timeouts.stream_read
                try:
                    raw = await quiet.read(step, wait)
                except TimeoutError:
                    if final:
                        ex.note(f"the agent kept the stream open {wait:g} s after its final event; closed it")
                        end("closed")
                        if held is not None:
                            yield held
                        return
                    words = f"went quiet for {wait:g} s (read timeout)"
                    failure = ex.fail("timeout", f"stream from {self.url} {words}")
                    end("timeout", limit=words)
                    raise failure from None
                except grpc.aio.AioRpcError as exc:
                    if not started:
                        # An error before any message: the answer is the status alone.
                        ended = True  # as an HTTP error answer to a stream request: no stream
                        raise self._failure(ex, exc, dialect.name, timeout=None, stream=True) from None
                    status = status_fields(dialect.name, exc.code().value[0], exc.details(), exc.trailing_metadata())
                    if _own_limit(exc.code(), exc.details()):
                        # Our channel's bound, not the agent's status: as the HTTP path words it.
                        words = f"larger than {format_size(limits.max_event)} (--max-event)"
                        failure = ex.fail(
                            "limit", f"an event of the stream from {self.url} is {words}; stopped reading"
                        )
                        end("limit", status, "an event " + words)
                        raise failure from None
                    error = grpc_codec.decode_status(
                        status["grpc_code"], status["grpc_message"], status.get("grpc_details")
                    )
                    ex.error(
                        "grpc",
                        f"stream ended with gRPC {status['grpc_code']} {status['grpc_status']}: "
                        f"{status['grpc_message']}",
                    )
                    end("error", status)
                    raise error from None
                if raw is EOF:
                    status = status_fields(
                        dialect.name, (await call.code()).value[0], await call.details(), await call.trailing_metadata()
                    )
                    if not started:
                        ex.log(Kind.RESPONSE, self._head(ex, await call.initial_metadata(), streaming=True))
                    end("complete" if final else "eof", status)
                    if final:
                        if held is not None:
                            yield held
                        return
                    raise ex.fail(
                        "stream",
                        f"stream ended before the task reached a final state "
                        f"({events} event{'' if events == 1 else 's'} received)",
                    )
                if not started:
                    started = True
                    ex.log(Kind.RESPONSE, self._head(ex, await call.initial_metadata(), streaming=True))
                events += 1
                size += len(raw)
                if events > limits.max_stream_events or len(raw) > limits.max_event or size > limits.max_stream_body:
                    events -= 1
                    if len(raw) > limits.max_event:
                        words = f"larger than {format_size(limits.max_event)} (--max-event)"
                        failure = ex.fail(
                            "limit", f"an event of the stream from {self.url} is {words}; stopped reading"
                        )
                        words = "an event " + words
                    elif size > limits.max_stream_body:
                        words = f"larger than {format_size(limits.max_stream_body)} (--max-stream-body)"
                        failure = ex.fail("limit", f"stream from {self.url} is {words}; stopped reading")
                    else:
                        words = f"more than {limits.max_stream_events} events (--max-stream-events)"
                        failure = ex.fail("limit", f"stream from {self.url} sent {words}; stopped reading")
                    end("limit", limit=words)
                    raise failure
                try:
                    message = response_class.FromString(raw)
                    got = plain(message) if plain is not None else None
                    obj = to_json(message) if got is None else None
                except Exception as exc:  # protobuf's DecodeError; a message that does not parse
                    text = f"not a valid {rpc.response}: {exc}"
                    session.append(
                        Kind.MESSAGE,
                        {"json": None, "size": len(raw), "raw": base64.b64encode(raw).decode("ascii"), "error": text},
                        exchange=number,
                        payload=ProtocolError(text),
                    )
                    ex.error("protocol", f"event {events} skipped: {text}")
                    continue
                if got is not None:
                    # A plain text chunk, its ProtoJSON written from the message's fields:
                    # a drained stream's TextChunk, else the codec's shortcut decodes it.
                    text = got[0]
                    if lean:
                        payload = TextChunk(*got[1], text, codec)
                    else:
                        payload = fast(text)
                        if payload is None:  # (strings and flags only: to_json cannot fail)
                            payload = capture(decode_event, to_json(message))
                else:
                    # Anything else, as payloads.message_payload derives it again: the
                    # codec's shortcut first.
                    text = dump(obj).decode("utf-8")
                    payload = fast(text)
                    if payload is None:
                        payload = capture(decode_event, obj)
                session.append_lazy(Kind.MESSAGE, {"json": text, "size": len(raw)}, payload, lazy, number)
                if payload.__class__ is TextChunk:
                    held = payload  # never a stream's end (an appended chunk)
                    continue
                if isinstance(payload, ProtocolError):
                    ex.error("protocol", f"event {events} skipped: {payload.reason}", payload.path)
                    continue
                if isinstance(payload, JsonRpcError):
                    continue
                if not final and ends_stream(payload):
                    final = True
                held = None
                yield payload
        finally:
            quiet.close()
            if not ended:
                end("closed")  # the consumer stopped early (break, aclose, cancel)
            call.cancel()

    # ------------------------------------------------------------------ the card

    async def fetch_card(self, dialects: list[Dialect]) -> tuple[Any, Any, Dialect | None, str]:
        """A card for a bare ``grpc://`` URL (no HTTP card URL to fetch): the 1.0
        GetExtendedAgentCard or the 0.3 GetAgentCard RPC, in ``dialects``' order.
        Returns (the card or None, its ProtoJSON, the dialect whose service answered,
        what happened)."""
        from ..protocol import models as m

        tried: list[str] = []
        for dialect in dialects:
            name = grpc_codec.rpc_name(dialect.name, Method.EXTENDED_CARD)
            try:
                card = await self.call(dialect, Method.EXTENDED_CARD, m.ExtendedCardParams())
            except grpc_codec.GrpcError as exc:
                if exc.grpc_code == 12:  # UNIMPLEMENTED: no such service in this dialect
                    tried.append(f"{dialect.label} {name}: UNIMPLEMENTED")
                    continue
                return (
                    None,
                    None,
                    dialect,
                    (f"{dialect.label} {name} answered {exc.describe()}: going on without a card"),
                )
            except ProtocolError as exc:
                return (
                    None,
                    self.last_answer,
                    dialect,
                    (f"{dialect.label} {name} answered with a card that does not decode ({exc})"),
                )
            return card, self.last_answer, dialect, f"the card came from the agent's {dialect.label} {name} RPC"
        return None, None, None, "no A2AService answered (" + "; ".join(tried) + ")"


def _own_limit(code: Any, details: str | None) -> bool:
    """Whether a status is grpcio refusing a message longer than our channel's bound
    ("Stream removed (CLIENT: Received message larger than max (N vs. M))"), not the
    agent's own RESOURCE_EXHAUSTED (its server refusing our request says "SERVER: ...")."""
    import grpc

    text = details or ""
    return code is grpc.StatusCode.RESOURCE_EXHAUSTED and "larger than max" in text and "SERVER:" not in text


def _first_line(text: str) -> str:
    line = (text or "").strip().splitlines()[0] if (text or "").strip() else "unavailable"
    return line[:200]


__all__ = ["GrpcTransport", "is_grpc_url", "split_target", "TransportError"]
