"""The proxy's gRPC side: one listener per upstream gRPC target (GrpcFront, GrpcListener),
and the slow path's relay, a grpc.aio server on an internal loopback port relaying every
call (any method path: unknown ones pass through as bytes) and logging the A2A ones into
the proxy's Session exactly as the inspector's own gRPC client does
(client/grpc_transport.py: REQUEST, RESPONSE, one MESSAGE per streamed message,
STREAM_END), plus the proxy's fields (client, user_agent, proxy_route, added_ms).

A listener's public port is grpc_front.FrontServer's: a connection goes through grpc.aio
only when the fast path cannot take it (a fault rule that could match, TLS to the agent,
an agent that cannot be reached); see grpc_front.py. Both paths build their records in
grpc_records.py.

Bytes go through untouched here too: the server's handlers and the upstream calls take
and give raw bytes (no (de)serializer). Stream messages are relayed first and decoded to
ProtoJSON by a logging task of their own (grpc_records.MessageLog), woken for a batch of
messages rather than each, so the relay keeps the agent's pace; a task reads the
upstream ahead while the relay writes (_ReadAhead). grpc.aio's one read and one write
operation a message is most of this relay's cost (bench/README.md, section proxy): that
is why it is the path for what only it can do.
The client's metadata goes to this listener's upstream only;
the upstream's initial metadata, status, details and trailers (grpc-status-details-bin
among them) come back unchanged, and the client's deadline and cancellation reach the
upstream call.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from typing import Any

from ..client.grpc_transport import NO_CONNECTION, RESERVED_METADATA, split_target, status_fields
from ..protocol import grpc_codec, grpc_errors, grpc_schema, rest
from ..protocol import models as m
from ..protocol.errors import JsonRpcError
from ..session import payloads
from ..session.events import Kind
from .grpc_records import _LINGER, CallRecords, MessageLog, forwardable, known_paths
from .relaying import BACKLOG, RELEASED, wait_release
from .relaying import HOLDS as _HOLDS
from .relaying import ms as _ms


def _trailers(metadata: Any) -> tuple[tuple[str, Any], ...]:
    # grpc-status-details-bin is the agent's, and passes; the rest of grpc-* is gRPC's own.
    return tuple(
        (k, v)
        for k, v in metadata or ()
        if k == grpc_errors.STATUS_DETAILS_KEY
        or (k.lower() not in RESERVED_METADATA and not k.startswith(("grpc-", ":")))
    )


def error_status(dialect: str, err: JsonRpcError) -> tuple[int, str, bytes]:
    """An A2A error as an agent sends it over gRPC (as a2a-sdk and a2a-mock do): (status
    code, message, a google.rpc.Status with ErrorInfo for grpc-status-details-bin)."""
    code = grpc_errors.status_for_rpc_code(err.code)
    text = grpc_errors.message_03(err.code, err.message) if dialect == "0.3" else err.message
    # Built from the descriptor pool: the checker knows a Message, not its fields.
    status: Any = grpc_schema.message_class(dialect, "google.rpc.Status")(code=code, message=text)
    for detail in rest.encode_error(err)[1]["error"].get("details") or ():
        if isinstance(detail, dict) and isinstance(detail.get("@type"), str):
            try:
                packed = grpc_schema.from_json(
                    dialect, detail["@type"].rsplit("/", 1)[-1], {k: v for k, v in detail.items() if k != "@type"}
                )
            except (ValueError, KeyError):
                continue
            status.details.add().Pack(packed)
    return code, text, status.SerializeToString()


class GrpcListener:
    """One loopback gRPC server relaying to one upstream target."""

    def __init__(self, front: GrpcFront, endpoint: str, route: str) -> None:
        self.front = front
        self.proxy = front.proxy
        self.endpoint = endpoint
        self.target, self.secure = split_target(endpoint)
        self.url = f"{'grpcs' if self.secure else 'grpc'}://{self.target}"
        self.route = route
        #: The public port (grpc_front.FrontServer), and the grpc.aio relay's own.
        self.port = 0
        self.inner_port = 0
        self.server: Any = None
        self.channel: Any = None
        self.front_server: Any = None

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    async def start(self, port: int = 0) -> None:
        import os

        os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
        import grpc

        # The relay passes any size on; the log reads within the proxy's limits (MessageLog).
        options = [("grpc.max_receive_message_length", -1), ("grpc.max_send_message_length", -1)]
        if self.secure:
            from ..client.tls import TlsError, grpc_credentials

            try:
                credentials = grpc_credentials(getattr(self.proxy, "tls", None))
            except TlsError as exc:  # said as any listener that cannot open is (a NOTE)
                raise OSError(str(exc)) from None
            self.channel = grpc.aio.secure_channel(self.target, credentials, options=options)
        else:
            self.channel = grpc.aio.insecure_channel(self.target, options=options)
        # A client's message past the proxy's request bound is refused by gRPC itself
        # (RESOURCE_EXHAUSTED) from its length prefix: it was read whole before (300 MB
        # held, and relayed on).
        limit = min(self.proxy.max_request, 2**31 - 1)
        self.server = grpc.aio.server(
            options=[
                ("grpc.max_receive_message_length", limit),
                ("grpc.max_send_message_length", -1),
                ("grpc.so_reuseport", 0),
            ]
        )
        self.server.add_generic_rpc_handlers((_handler_class()(self),))
        try:
            bound = self.server.add_insecure_port("127.0.0.1:0")
        except RuntimeError as exc:
            raise OSError(f"cannot listen for gRPC on 127.0.0.1: {exc}") from None
        if not bound:
            raise OSError("cannot listen for gRPC on 127.0.0.1")
        self.inner_port = bound
        await self.server.start()
        from .grpc_front import FrontServer

        self.front_server = FrontServer(self)
        try:
            self.port = await self.front_server.start(port)
        except OSError:
            await self.stop()
            raise
        self.proxy.note(
            f"proxy listening for gRPC on {self.address} -> {self.url}",
            code="proxy-listening-grpc",
            proxy=self.address,
            upstream=self.url,
        )

    async def stop(self) -> None:
        if self.front_server is not None:
            front, self.front_server = self.front_server, None
            await front.stop()
        if self.server is not None:
            server, self.server = self.server, None
            await server.stop(None)
        if self.channel is not None:
            channel, self.channel = self.channel, None
            await channel.close()


def _handler_class() -> type:
    import grpc

    class _Handler(grpc.GenericRpcHandler):
        """A handler for ANY method path (the A2A ones logged, the rest relayed as is)."""

        def __init__(self, listener: GrpcListener) -> None:
            self.listener = listener
            self.known = known_paths()

        def service(self, details: Any) -> Any:
            # grpc.aio tells coroutines and async generators apart by their functions:
            # real ``async def``s, not lambdas.
            path = details.method
            found = self.known.get(path)
            listener = self.listener
            if found is None:

                async def passthrough(requests: Any, context: Any) -> Any:
                    async for raw in _GrpcCall(listener, path, None, context).passthrough(requests):
                        yield raw

                return grpc.stream_stream_rpc_method_handler(passthrough)
            if found[1].server_streaming:

                async def stream(request: bytes, context: Any) -> None:
                    await _GrpcCall(listener, path, found, context).stream(request)

                return grpc.unary_stream_rpc_method_handler(stream)

            async def unary(request: bytes, context: Any) -> bytes:
                return await _GrpcCall(listener, path, found, context).unary(request)

            return grpc.unary_unary_rpc_method_handler(unary)

    return _Handler


class TooManyListeners(Exception):
    """The proxy already listens for as many gRPC upstreams as it will."""


class GrpcFront:
    """The proxy's gRPC listeners, one per upstream target, opened on demand (a card
    that names a GRPC interface, or ``--grpc-upstream``), at most ``MAX_LISTENERS``:
    a card is the agent's to write, and one that named a thousand targets had the
    proxy open a server for each until it ran out of file descriptors."""

    MAX_LISTENERS = 16

    def __init__(self, proxy: Any, port: int = 0) -> None:
        self.proxy = proxy
        #: The port of the first listener opened (0: a free one).
        self.port = port
        self.listeners: dict[str, GrpcListener] = {}
        self._lock = asyncio.Lock()

    async def ensure(self, endpoint: str, route: str = "/") -> GrpcListener:
        """The listener for ``endpoint``'s target, opened if need be; TooManyListeners
        when that would be one more than MAX_LISTENERS, OSError when it cannot listen."""
        target, _secure = split_target(endpoint)
        async with self._lock:
            listener = self.listeners.get(target)
            if listener is None:
                if len(self.listeners) >= self.MAX_LISTENERS:
                    raise TooManyListeners(target)
                listener = GrpcListener(self, endpoint, route)
                port = self.port if not self.listeners else 0
                await listener.start(port)
                self.listeners[target] = listener
            return listener

    def client_of(self, peer: str | None) -> str | None:
        """The client behind a grpc.aio call's peer: a slow connection's real client,
        not the proxy's own end of the pipe to the internal port."""
        if peer is None:
            return None
        for listener in self.listeners.values():
            if listener.front_server is not None and peer in listener.front_server.peers:
                return str(listener.front_server.peers[peer])
        return peer

    def moved(self, url: str, host: str) -> str | None:
        """A card's GRPC interface address -> the same form pointing at its listener."""
        target, _secure = split_target(url)
        listener = self.listeners.get(target)
        if listener is None:
            return None
        where = f"{host}:{listener.port}"
        if "://" not in url:
            return where
        scheme = url.split("://", 1)[0].lower()
        scheme = {"grpcs": "grpc", "https": "http"}.get(scheme, scheme)
        return f"{scheme}://{where}"

    async def aclose(self) -> None:
        for listener in list(self.listeners.values()):
            await listener.stop()
        self.listeners.clear()


class _GrpcCall(CallRecords):
    """One call relayed by grpc.aio."""

    def __init__(self, listener: GrpcListener, path: str, found: Any, context: Any) -> None:
        peer = context.peer() or ""
        who = peer.split(":", 1)[1] if peer.startswith(("ipv4:", "ipv6:")) else (peer or None)
        agent = None
        for key, value in context.invocation_metadata() or ():
            if key == "user-agent" and isinstance(value, str):
                agent = value
        super().__init__(
            listener, path, found, forwardable(context.invocation_metadata()), listener.front.client_of(who), agent
        )
        self.context = context

    # ------------------------------------------------------------------ faults

    async def _before(self, info: dict[str, Any]) -> None:
        """Delay, or answer instead of the agent (aborts the call)."""
        fault = self.fault
        if fault is None:
            return
        if fault.delay:
            self.injected.append(f"delay={fault.delay:g}s")
            self.mark(f"held the call {fault.delay:g} s before relaying it (delay)")
            await asyncio.sleep(fault.delay)
        if not fault.answers:
            return
        trailing: tuple[tuple[str, bytes], ...]
        if fault.error is not None:
            err = fault.error.error()
            self.injected.append(f"error={err.code}")
            code, text, details = error_status(self.dialect, err)
            trailing = ((grpc_errors.STATUS_DETAILS_KEY, details),)
            what = f"answered gRPC {grpc_errors.NAMES[code]} (A2A error {err.code}) instead of relaying the call"
        else:
            spec = fault.http
            code = spec.grpc if spec.grpc is not None else grpc_errors.status_for_http(spec.status)
            self.injected.append(f"http={spec.status}")
            text = (spec.body or "").strip() or f"HTTP {spec.status}"
            trailing = ()
            what = f"answered gRPC {grpc_errors.NAMES[code]} (for HTTP {spec.status}) instead of relaying the call"
        self.mark(what)
        data = self._head((), 0.0, streaming=False)
        data.update(status_fields(self.dialect, code, text, trailing))
        self.log(Kind.RESPONSE, data, payloads.response_payload(info, data))
        await self.context.abort(_code(code), text, trailing_metadata=trailing)

    async def _wait_release(self) -> None:
        await wait_release(self.proxy.rules, self.rule_indexes)
        self.log(Kind.NOTE, {"text": RELEASED, "code": "proxy-released", "injected": "hold_working"})

    # ------------------------------------------------------------------ upstream failures

    async def _failed(self, exc: Any, info: dict[str, Any], elapsed: float, *, head_logged: bool) -> None:
        """The upstream's error status, logged as the client logs it, and passed back
        to the client unchanged (then the call ends: abort raises)."""
        import grpc

        code = exc.code()
        details = exc.details() or ""
        initial = exc.initial_metadata()
        trailing = exc.trailing_metadata()
        if code is grpc.StatusCode.UNAVAILABLE and not initial and NO_CONNECTION.search(details):
            self.connect_failed(details)
        elif code is grpc.StatusCode.CANCELLED and self.context.cancelled():
            raise asyncio.CancelledError
        elif not head_logged:
            self.failed_record(info, initial, elapsed, status_fields(self.dialect, code.value[0], details, trailing))
        if initial and not head_logged:
            await self.context.send_initial_metadata(tuple(initial))
        await self.context.abort(code, details, trailing_metadata=_trailers(trailing))

    def _timeout(self) -> float | None:
        remaining = self.context.time_remaining()
        return remaining if remaining is not None and remaining < 1e8 else None

    # ------------------------------------------------------------------ unary

    async def unary(self, request: bytes) -> bytes:
        import grpc

        info = self.begin(request)
        try:
            await self._before(info)
            sent = time.perf_counter()
            call = self.listener.channel.unary_unary(self.path)(
                request, metadata=self.metadata, timeout=self._timeout()
            )
            try:
                raw = await call
                initial = await call.initial_metadata()
                trailing = await call.trailing_metadata()
                details = await call.details()
            except grpc.aio.AioRpcError as exc:
                await self._failed(exc, info, _ms(sent), head_logged=False)
                raise  # pragma: no cover - abort raised
            except asyncio.CancelledError:
                call.cancel()
                raise
            data, payload = self.unary_record(
                info, initial, _ms(sent), status_fields(self.dialect, 0, details, trailing), raw
            )
            if (
                self.fault is not None
                and self.fault.hold_working
                and isinstance(payload, m.Task)
                and payload.status.state not in _HOLDS
            ):
                self.injected.append("hold_working")
                data["injected"] = " ".join(self.injected)
                self.mark(
                    f"held the agent's answer (task {payload.status.state.value}) until the hold_working "
                    "rule is switched off"
                )
                await self._wait_release()
            self.log(Kind.RESPONSE, data, payload)
            if initial:
                await self.context.send_initial_metadata(tuple(initial))
            self.context.set_trailing_metadata(_trailers(trailing))
            return raw
        finally:
            self.proxy.chain.closed(self.number)

    # ------------------------------------------------------------------ server streams

    async def stream(self, request: bytes) -> Any:
        import grpc

        info = self.begin(request)
        fault = self.fault if self.fault is not None and self.fault.per_event else None
        log = MessageLog(self)
        logger: asyncio.Future[Any] | None = None
        started = False
        reason = "eof"
        status: dict[str, Any] = {}
        sent = time.perf_counter()
        call: Any = None
        ahead: _ReadAhead | None = None
        held: list[bytes] = []
        holding = False
        try:
            await self._before(info)
            sent = time.perf_counter()
            call = self.listener.channel.unary_stream(self.path)(
                request, metadata=self.metadata, timeout=self._timeout()
            )
            # Woken for each message, the log ran between every read and write of the
            # relay's, each time with grpcio's working set to load again (a message's
            # logging cost 50 us there, 15 in a loop of its own): it wakes for a batch.
            # Not under per-event faults, whose notes go in order with the messages.
            logger = asyncio.ensure_future(log.run(_LINGER if fault is None else 0.0))
            ahead = _ReadAhead(call)
            n = 0
            while True:
                try:
                    raw, got = await ahead.read()
                except grpc.aio.AioRpcError as exc:
                    if not started:
                        log.dropped = True
                        await self._failed(exc, info, _ms(sent), head_logged=False)
                    status = status_fields(self.dialect, exc.code().value[0], exc.details(), exc.trailing_metadata())
                    reason = "error"
                    log.errors.append(
                        f"stream ended with gRPC {status['grpc_code']} {status['grpc_status']}: "
                        f"{status['grpc_message']}"
                    )
                    await self._failed(exc, info, _ms(sent), head_logged=True)
                    raise  # pragma: no cover - abort raised
                if raw is grpc.aio.EOF:
                    status = status_fields(
                        self.dialect, (await call.code()).value[0], await call.details(), await call.trailing_metadata()
                    )
                    break
                if not started:
                    started = True
                    initial = await call.initial_metadata()
                    self.log(Kind.RESPONSE, self._head(initial, _ms(sent), streaming=True))
                    if initial:
                        await self.context.send_initial_metadata(tuple(initial))
                n += 1
                if fault is None:
                    await self.context.write(raw)
                    if log.backlog.size > BACKLOG:
                        await log.backlog.drained(self.behind)
                else:
                    if holding or (fault.hold_working and log.leaves_working(raw)):
                        if not holding:
                            holding = True
                            self.injected.append("hold_working")
                            self.mark(
                                "holding the agent's messages from here (it left working) until the "
                                "hold_working rule is switched off"
                            )
                        held.append(raw)
                    elif not await self._faulted(fault, raw, n):
                        log.put(raw, _ms(got))
                        reason = "closed"
                        await self.context.abort(
                            _code(grpc_errors.CODES["UNAVAILABLE"]), "stream dropped by a2a-inspect proxy (drop_after)"
                        )
                log.put(raw, _ms(got))
            if held:
                await self._wait_release()
                for raw in held:
                    await self.context.write(raw)
            if not started:
                initial = await call.initial_metadata()
                self.log(Kind.RESPONSE, self._head(initial, _ms(sent), streaming=True))
                if initial:
                    await self.context.send_initial_metadata(tuple(initial))
            self.context.set_trailing_metadata(_trailers(await call.trailing_metadata()))
            if status.get("grpc_message"):
                self.context.set_details(status["grpc_message"])
        except asyncio.CancelledError:
            reason = "closed"
            log.closed_by_client = True
            raise
        finally:
            if ahead is not None:
                ahead.stop()
            if call is not None:
                call.cancel()
            log.backlog.close()
            try:
                if logger is not None:
                    await asyncio.shield(logger)
            finally:
                # Cancelled again while the log caught up (the client went, then the
                # server stopped): end() logs what is left itself, and the stream's end
                # with what was injected into it is never lost.
                if not log.dropped and (started or status):
                    log.end(reason, status, _ms(sent), self.injected)
                self.proxy.chain.closed(self.number)

    async def _faulted(self, fault: Any, raw: bytes, n: int) -> bool:
        """Relay one message under a per-event fault; False: the call is to be dropped."""
        if fault.corrupt_chunk == n:
            self.injected.append(f"corrupt_chunk={n}")
            self.mark(f"message {n} sent to the client as bytes that do not parse; the agent sent it whole, as logged")
            await self.context.write(grpc_codec.garbled(raw))
        else:
            await self.context.write(raw)
        if fault.duplicate_chunk == n:
            self.injected.append(f"duplicate_chunk={n}")
            self.mark(f"message {n} sent to the client twice; the agent sent it once")
            await self.context.write(raw)
        if fault.drop_after is not None and n >= fault.drop_after:
            self.injected.append(f"drop_after={fault.drop_after}")
            self.mark(
                f"call to the client ended UNAVAILABLE after {n} message{'' if n == 1 else 's'} "
                "(drop_after); the agent's stream was let go"
            )
            return False
        return True

    # ------------------------------------------------------------------ anything else

    async def passthrough(self, requests: Any) -> Any:
        """A method the schema does not know: bytes both ways, any cardinality, logged
        as a call without a dialect (path, metadata, status)."""
        import grpc

        self.begin(None)
        sent = time.perf_counter()
        client = _ClientRequests(requests)
        only = await client.only_message(_ClientRequests.PEEK)
        if only is not None:
            # One message and the half-close: sent upstream as one batch, as the client
            # sent it. Written message by message, grpcio could find the agent's status
            # (an unknown method's UNIMPLEMENTED) come in under a write and report its own
            # INTERNAL ("Internal error from Core") in place of the agent's status.
            call = self.listener.channel.unary_stream(self.path)(only, metadata=self.metadata, timeout=self._timeout())
        else:
            call = self.listener.channel.stream_stream(self.path)(
                client.messages(), metadata=self.metadata, timeout=self._timeout()
            )
        started = False
        try:
            async for raw in call:
                if not started:
                    started = True
                    initial = await call.initial_metadata()
                    if initial:
                        await self.context.send_initial_metadata(tuple(initial))
                yield raw
            trailing = await call.trailing_metadata()
            self.passed_record(
                await call.initial_metadata(), _ms(sent), status_fields(None, 0, await call.details(), trailing)
            )
            await client.finish(self._timeout())
            self.context.set_trailing_metadata(_trailers(trailing))
        except grpc.aio.AioRpcError as exc:
            await client.finish(self._timeout())
            await self._failed(exc, {}, _ms(sent), head_logged=False)
        finally:
            client.close()
            call.cancel()
            self.proxy.chain.closed(self.number)


_END = object()


class _ClientRequests:
    """The client's messages of a passed-through call, read by a task of ours and handed
    to the upstream call through a short queue (the client is read no faster than the
    upstream takes them).

    When the upstream ends the call first (an unknown method's UNIMPLEMENTED comes
    before the request was read), ``finish`` reads the rest and drops it until the client
    half-closes (or goes away), and only then does the status go back: a gRPC client whose
    call ends while it is still sending can read INTERNAL ("Internal error from Core")
    instead of the status passed on (seen for 4% of unary calls of an unknown method).
    It waits for that event, not for a time: a fixed wait of one second was too short on
    a loaded machine. Only a client that neither half-closes nor goes away is cut, at its
    own deadline or after HOLD_MAX seconds, so it cannot hold the call open for ever."""

    HOLD_MAX = 30.0
    #: How long a call's first message, then its half-close, is waited for to tell a
    #: call of one message (unary, server streaming: both come in the same HTTP/2
    #: frames, so at once) from a streaming client's, which then goes on as a stream.
    PEEK = 0.2

    def __init__(self, requests: Any) -> None:
        self.queue: asyncio.Queue[Any] = asyncio.Queue(maxsize=8)
        self.held: deque[Any] = deque()  # read by only_message(), for messages() first
        self.dropping = False
        self.task = asyncio.ensure_future(self._read(requests))

    async def only_message(self, wait: float) -> bytes | None:
        """The client's message when it sent one and half-closed within ``wait`` seconds
        (each); None otherwise, and what was read is kept for ``messages()``."""
        for _ in range(2):
            try:
                raw = await asyncio.wait_for(self.queue.get(), wait)
            except TimeoutError:
                return None
            self.held.append(raw)
            if raw is _END:
                break
        return self.held[0] if len(self.held) == 2 and self.held[1] is _END else None

    async def _read(self, requests: Any) -> None:
        async for raw in requests:
            if not self.dropping:
                await self.queue.put(raw)
        if not self.dropping:
            await self.queue.put(_END)

    async def messages(self) -> Any:
        while self.held:
            if (raw := self.held.popleft()) is _END:
                return
            yield raw
        while (raw := await self.queue.get()) is not _END:
            yield raw

    async def finish(self, deadline: float | None) -> None:
        self.dropping = True
        while not self.queue.empty():  # a reader held up by a full queue goes on
            self.queue.get_nowait()
        hold = self.HOLD_MAX if deadline is None else min(deadline, self.HOLD_MAX)
        await asyncio.wait((self.task,), timeout=hold)

    def close(self) -> None:
        if not self.task.done():
            self.task.cancel()
        elif not self.task.cancelled():
            self.task.exception()  # (read: a client that went away is the call's end, logged there)


def _code(value: int) -> Any:
    import grpc

    for code in grpc.StatusCode:
        if code.value[0] == value:
            return code
    return grpc.StatusCode.UNKNOWN


class _ReadAhead:
    """The upstream's messages read by a task of their own while the relay writes.

    grpc.aio completes each read and each write as an operation of its own, handed to
    the event loop by grpcio's poller thread; with a read always pending beside the
    relay's write, the two complete together and one wake-up of the loop serves both.
    At most READ_AHEAD messages wait: past that the reader waits for the relay, and
    gRPC's flow control holds the agent as before."""

    READ_AHEAD = 64

    def __init__(self, call: Any) -> None:
        self.call = call
        self.items: deque[tuple[Any, float]] = deque()
        self.failure: BaseException | None = None
        self._more = asyncio.Event()
        self._room = asyncio.Event()
        self._task = asyncio.ensure_future(self._run())

    async def _run(self) -> None:
        import grpc

        call, items, clock = self.call, self.items, time.perf_counter
        try:
            while True:
                raw = await call.read()
                items.append((raw, clock()))
                self._more.set()
                if raw is grpc.aio.EOF:
                    return
                if len(items) >= self.READ_AHEAD:
                    self._room.clear()
                    await self._room.wait()
        except Exception as exc:  # noqa: BLE001 - the relay raises it where read() raised it
            self.failure = exc
            self._more.set()

    async def read(self) -> tuple[Any, float]:
        """(message or grpc.aio.EOF, when it came); the upstream's error raised as read() raises it."""
        items = self.items
        while not items:
            if self.failure is not None:
                raise self.failure
            self._more.clear()
            await self._more.wait()
        if len(items) <= self.READ_AHEAD // 2:
            self._room.set()
        return items.popleft()

    def stop(self) -> None:
        self._task.cancel()
