"""One open agent: its client, session, tracker and recorder. Headless (no textual).

The UI owns a list of these. Widgets read ``session``/``tracker`` (the projections)
and never touch ``client``; the app's workers call the async methods here.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from ..protocol import models as m
from ..session import Kind, Recorder, Session, TaskTracker
from .connection_push import ConnectionPush

_ids = itertools.count(1)

#: A live session holds its newest events in memory; older ones go to a private spill
#: file and are read back when a view asks (the traffic view says so when it happens).
#: Many screens of traffic, yet little memory: an event held costs about its raw size
#: plus 150 bytes (a million held took over 500 MB), one spilled costs nothing here.
EVENTS_KEPT = 10_000
#: Messages of each task's history held in memory (older ones: on disk, read back).
MESSAGES_KEPT = 10_000

#: What a failed call raises; the UI turns each into a notification with details.
if TYPE_CHECKING:
    from ..client import A2AClient, Auth, Limits, Timeouts

# The client stack (httpx and friends) is imported on first use, not with this module:
# the UI's first frame should not wait for it.


def call_errors() -> tuple[type[BaseException], ...]:
    """What a failed call raises; the UI turns each into a notification with details."""
    from ..client import JsonRpcError, ProtocolError, TransportError

    return (JsonRpcError, ProtocolError, TransportError)


class UnexpectedFailure(Exception):
    """What a call raised that is none of call_errors() (a bug, or memory running out),
    as one line: the connection and the error list show it instead of hanging."""

    def __init__(self, exc: BaseException) -> None:
        text = " ".join(str(exc).split())
        super().__init__(f"unexpected {type(exc).__name__}{': ' + text if text else ''}")
        self.original = exc


def display_name(url: str) -> str:
    parts = urlsplit(url if "://" in url else f"http://{url}")
    return parts.netloc or url


class AgentConnection:
    def __init__(
        self,
        url: str,
        *,
        name: str | None = None,
        dialect: str = "auto",
        card_url: str | None = None,
        headers: Mapping[str, str] | None = None,
        auth: Auth | None = None,
        timeouts: Timeouts | None = None,
        session: Session | None = None,
        dialect_cache: Any = None,
        read_only: bool = False,
        secret_names: tuple[str, ...] = (),
        limits: Limits | None = None,
        binding: str = "auto",
        client: Any = None,
        plain_names: tuple[str, ...] = (),
        tls: Any = None,
    ) -> None:
        """``client``: one that is not an HTTP A2AClient (a hub's ws-agent: see
        inspector.hub.client.HubClient); it has the same calls, and its own dialect.
        ``binding``: auto, jsonrpc or rest (see A2AClient's). ``tls``: client.tls.TlsOptions
        (a saved agent's CA file, client certificate, insecure)."""
        self.id = next(_ids)
        self.url = url
        self.name = name or display_name(url)
        self.requested_dialect = dialect
        #: auto, jsonrpc or rest (see A2AClient's ``binding``).
        self.requested_binding = binding
        self.card_url = card_url
        self.headers = dict(headers or {})
        self.auth = auth
        self.tls = tls
        self.timeouts = timeouts
        #: How much the agent may send (client.limits.Limits; None: its defaults).
        self.limits = limits
        self.session = session if session is not None else Session(keep=EVENTS_KEPT)
        self.tracker = TaskTracker(self.session, messages_kept=MESSAGES_KEPT)
        #: A replayed recording: no client, nothing is sent.
        self.read_only = read_only
        self._dialect_cache = dialect_cache
        self.secret_names = secret_names
        self.plain_names = plain_names
        #: The client is not an HTTP one (a ws-agent at a hub): no dialect to switch.
        self.fixed_client = client is not None
        self.client: A2AClient | None = (
            client if client is not None else (None if read_only else self._new_client(dialect))
        )
        #: "new" | "connecting" | "ready" | "error" | "replay"
        self.state = "replay" if read_only else "new"
        self.error: BaseException | None = None
        self.recorder: Recorder | None = None
        #: Name under which this agent is saved, if it is.
        self.saved_as: str | None = None
        #: Headers the user marked secret (part of ``auth``, kept apart to be saved again).
        #: As SavedAgent.secret_headers: a value may be ``{"env": "VAR"}``.
        self.secret_headers: dict[str, str | dict[str, str]] = {}
        #: For a read-only connection: the card and dialect read from its session.
        self._recorded: RecordedFacts | None = None
        #: The local push receiver and what the agent was asked to push to it.
        self.push = ConnectionPush(self.session, lambda: self.dialect_name)

    def _new_client(self, dialect: str) -> A2AClient:
        from ..client import A2AClient, Timeouts

        if self.timeouts is None:
            self.timeouts = Timeouts()
        kwargs: dict[str, Any] = {}
        if self._dialect_cache is not None:
            kwargs["dialect_cache"] = self._dialect_cache
        return A2AClient(
            self.url,
            session=self.session,
            dialect=dialect,
            card_url=self.card_url,
            headers=self.headers,
            auth=self.auth,
            timeouts=self.timeouts,
            secret_names=self.secret_names,
            plain_names=self.plain_names,
            limits=self.limits,
            binding=self.requested_binding,
            tls=self.tls,
            **kwargs,
        )

    # ------------------------------------------------------------------ facts for views

    @property
    def card(self) -> m.AgentCard | None:
        if self.client is None and self.read_only:
            return self.recorded().card
        return self.client.card if self.client else None

    @property
    def card_error(self) -> Any:
        """Why the card the agent served does not decode, if it does not."""
        return getattr(self.client, "card_error", None)

    @property
    def card_raw(self) -> Any:
        if self.client is None and self.read_only:
            return self.recorded().card_raw
        return self.client.card_raw if self.client else None

    @property
    def dialect_name(self) -> str | None:
        if self.client is None and self.read_only:
            return self.recorded().dialect
        client = self.client
        return client.dialect.name if client and client.dialect else None

    @property
    def dialect_source(self) -> str | None:
        if self.client is None and self.read_only:
            return self.recorded().dialect_source
        return self.client.dialect_source if self.client else None

    @property
    def binding_name(self) -> str | None:
        """jsonrpc or rest, once chosen (for a recording: as recorded)."""
        if self.client is None and self.read_only:
            return self.recorded().binding
        # (A hub's ws-agent client has no HTTP binding: None.)
        return getattr(self.client, "binding", None)

    @property
    def binding_source(self) -> str | None:
        if self.client is None and self.read_only:
            return "recording" if self.recorded().binding else None
        return getattr(self.client, "binding_source", None)

    def recorded(self) -> RecordedFacts:
        """A read-only connection has no client: what the client knew (the card, the
        dialect) is read from the session's events instead, as far as they go."""
        facts = self._recorded
        if facts is None or facts.session is not self.session:
            facts = self._recorded = RecordedFacts(self.session)
        facts.catch_up()
        if facts.card_url and not self.card_url:
            self.card_url = facts.card_url
        return facts

    @property
    def recording(self) -> Path | None:
        rec = self.recorder
        return Path(rec.path) if rec is not None and getattr(rec, "active", True) else None

    # ------------------------------------------------------------------ calls

    def _require(self) -> A2AClient:
        if self.client is None:
            from ..client import TransportError

            raise TransportError("closed", "this is a recording: it cannot send")
        return self.client

    async def connect(self) -> None:
        """Fetch the card and choose the dialect; failures are kept in ``error``."""
        client = self._require()
        self.state, self.error = "connecting", None
        try:
            await client.resolve_dialect()
        except call_errors() as exc:
            self.state, self.error = "error", exc
            raise
        except Exception as exc:  # never left "connecting" by a failure nobody foresaw
            failure = UnexpectedFailure(exc)
            self.state, self.error = "error", failure
            raise failure from exc
        self.state = "ready"

    async def switch_dialect(self, dialect: str) -> None:
        """Talk another dialect from now on (``auto`` detects again). The session goes on."""
        old = self._require()
        if self.fixed_client:
            from ..client import TransportError

            raise TransportError("closed", f"{self.name} speaks the dialect of its hub (0.1); it has no other")
        self.requested_dialect = dialect
        self.client = self._new_client(dialect)
        await old.aclose()
        await self.connect()

    async def switch_binding(self, binding: str) -> None:
        """Talk over another binding from now on (``auto``: the card's first one the
        client speaks). The session goes on; ValueError for one it cannot speak."""
        old = self._require()
        if self.fixed_client:
            from ..client import TransportError

            raise TransportError("closed", f"{self.name} is reached through its hub; it has no other binding")
        previous = self.requested_binding
        self.requested_binding = binding
        try:
            self.client = self._new_client(self.requested_dialect)
        except ValueError:
            self.requested_binding = previous
            raise
        await old.aclose()
        await self.connect()

    async def send(self, params: m.SendParams, *, stream: bool) -> Any:
        """Send, or stream to the end. Everything lands in the session as it arrives;
        the return value is the last result or event, for the caller's convenience."""
        client = self._require()
        if not stream:
            return await client.send(params)
        return await _drain(client.stream(params))

    async def get_task(self, task_id: str, history_length: int | None = None) -> m.Task:
        return await self._require().get_task(task_id, history_length=history_length)

    async def cancel(self, task_id: str) -> m.Task:
        return await self._require().cancel(task_id)

    async def resubscribe(self, task_id: str) -> Any:
        return await _drain(self._require().resubscribe(task_id))

    async def set_push(self, task_id: str, config: m.PushNotificationConfig) -> Any:
        return await self._require().set_push(task_id, config)

    async def register_push(self, task_id: str) -> m.PushNotificationConfig | None:
        """Ask the agent to push ``task_id``'s updates to the running receiver
        (``push.start`` first), under a fresh token; the config the agent accepted
        (None if its answer was empty)."""
        config = self.push.config_for(task_id)
        if await self.set_push(task_id, config) is None:
            return None
        self.push.accepted(task_id, config)
        return config

    # ------------------------------------------------------------------ recording

    def start_recording(
        self, path: Path, *, redact: bool = True, extra_secret_headers: tuple[str, ...] = (), append: bool = False
    ) -> Recorder:
        """Record this connection's session; its credentials (whatever their headers'
        names), secret headers and URL query secrets are redacted, as on the CLI."""
        from ..session.redact import Redaction

        self.stop_recording()
        redaction = Redaction.for_connection(
            enabled=redact,
            extra_names=extra_secret_headers,
            credentials=self.auth.headers() if self.auth else None,
            headers=self.headers,
            urls=(self.url, self.card_url),
            plain_names=self.plain_names,
        )
        self.recorder = Recorder.attach(self.session, path, redact=redaction, append=append)
        return self.recorder

    def stop_recording(self) -> Path | None:
        rec, self.recorder = self.recorder, None
        if rec is None:
            return None
        rec.close()  # also unsubscribes it from the session
        return Path(rec.path)

    async def aclose(self) -> None:
        try:
            # First: a notification arriving now must not land in a closed session.
            await self.push.stop()
        finally:
            self.stop_recording()
            if self.client is not None:
                await self.client.aclose()
            self.session.close()
            self.tracker.close()


class RecordedFacts:
    """The card and dialect a recorded session shows, read incrementally from its events:
    the latest card GET answered with a card, and the latest dialect the client chose (its
    NOTE), else the dialect of the latest JSON-RPC request. Objects keep their identity
    while the facts do not change (views compare them by ``id``)."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.seen = 0
        self.card: m.AgentCard | None = None
        self.card_raw: Any = None
        self.card_url: str | None = None
        self.dialect: str | None = None
        self.dialect_source: str | None = None
        self.binding: str | None = None
        self._card_requests: dict[int, str | None] = {}
        # Fed as events arrive: reading a long session again would read back from disk
        # the events it no longer holds in memory.
        session.subscribe(self._see, replay=True)

    def catch_up(self) -> None:
        """Nothing to do: the facts follow the session as it grows."""

    def _see(self, event: Any) -> None:
        self.seen += 1
        kind = event.kind
        if kind is Kind.SSE or kind is Kind.COMMENT or kind is Kind.MESSAGE:
            return  # the bulk of a session: neither says anything of the card or dialect
        data = event.data
        if kind is Kind.REQUEST:
            method = data.get("a2a_method")
            if method == "card":
                url = data.get("url")
                self._card_requests[event.exchange] = url if isinstance(url, str) else None
            elif (
                method != "probe"
                and isinstance(data.get("dialect"), str)
                and self.dialect_source in (None, "recording")
            ):
                # Only until the client's own choice (a NOTE) is seen.
                self.dialect, self.dialect_source = data["dialect"], "recording"
            if method not in ("card", "probe") and isinstance(data.get("dialect"), str):
                # No binding field: a recording made before there was a choice (JSON-RPC).
                binding = data.get("binding")
                self.binding = binding if isinstance(binding, str) and binding else "jsonrpc"
        elif kind is Kind.RESPONSE:
            payload = event.payload
            if isinstance(payload, m.AgentCard):
                self.card = payload
                self.card_raw = _json_body(data)
                self.card_url = self._card_requests.get(event.exchange) or self.card_url
        elif kind is Kind.WS:
            # A hub recording: the card is the one the agent registered with (the latest
            # agent's, when several did), and the hub speaks 0.1.
            item = getattr(event.payload, "item", None)
            card = getattr(item, "card", None)
            if isinstance(card, m.AgentCard) and getattr(event.payload, "method", None) == "agent.register":
                self.card = card
                self.card_raw = getattr(item, "card_raw", None)
                if self.dialect is None:
                    self.dialect, self.dialect_source = "0.1", "hub"
        elif kind is Kind.NOTE and isinstance(data.get("dialect"), str):
            source = data.get("source")
            self.dialect = data["dialect"]
            self.dialect_source = source if isinstance(source, str) and source else "recording"


def _json_body(data: Mapping[str, Any]) -> Any:
    from ..protocol.wire import parse_json
    from ..session.payloads import body_bytes

    try:
        body = body_bytes(dict(data))
        return parse_json(body) if body is not None else None
    except Exception:  # the card decoded from this body once; a failure here costs the raw view only
        return None


async def _drain(events: Any) -> Any:
    """A stream read to its end; its last event. The views read the session, so an
    A2AClient's stream need not decode its chunks into models (EventStream.drain); a
    hub's ws-agent client streams a plain async iterator."""
    drain = getattr(events, "drain", None)
    if drain is not None:
        return await drain()
    from ..client.client import drain_events

    return await drain_events(events)
