"""The A2A client: one agent, one dialect, one binding, every byte into the session log.

The binding is a transport adapter over the same models, codecs and log: JSON-RPC
(``_post``: one endpoint, an envelope, ids) and HTTP+JSON/REST (``_send_rest``: routes
from protocol/rest.py, no envelope, error bodies mapped to the JSON-RPC codes) share the
Wire, the SSE reader and ``_stream``; what differs per binding is how a request is
built (``_post``) and which codec reads the answers (payloads.codec_for). gRPC is a
transport beside the Wire with its own call and stream loop (grpc_transport.py), chosen
in ``_choose_binding`` the same way and logging to the same session.

Results come back as the normalised models; failures as TransportError (the wire),
JsonRpcError (the agent said no) or ProtocolError (the agent said something that is not
A2A), each after it has been logged. Payloads are computed by ``payloads`` from the
very dicts that are logged, so a replayed recording decodes the same way.
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import json
import time
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, cast

import httpx
from pydantic import BaseModel
from pydantic_core import SchemaValidator
from pydantic_core import core_schema as cs

from ..protocol import bindings as b
from ..protocol import models as m
from ..protocol import rest
from ..protocol.card import card_dialects
from ..protocol.dialects import ALL as ALL_DIALECTS
from ..protocol.dialects import Dialect, get_dialect
from ..protocol.errors import JsonRpcError, ProtocolError
from ..protocol.lean import TextChunk, lean_reader
from ..protocol.methods import PARAMS, Method
from ..protocol.states import INTERRUPTED, TERMINAL
from ..protocol.validation import validate
from ..protocol.wire import parse_json
from ..session import payloads
from ..session.events import Kind
from ..session.log import Session
from ..session.redact import Redaction
from . import discovery
from .auth import Auth
from .card_choice import NotInCard, not_in_card
from .dialect_cache import DialectCache, agent_key
from .error_reason import body_reason
from .errors import TransportError, UnsupportedMethod
from .grpc_url import is_grpc_url
from .limits import ACCEPT_ENCODING, DecodeFailed, Limits
from .oauth2 import ClientCredentials, TokenSource
from .sse import EventTooLarge, SSEComment, SSEParser
from .tls import INSECURE_NOTE, TlsOptions, ssl_context
from .transport import (
    BodyTooLarge,
    Exchange,
    Timeouts,
    Wire,
    body_text,
    describe_body,
    reason_phrase,
    same_origin,
    whole_chars,
)

if TYPE_CHECKING:
    from .grpc_transport import GrpcTransport

AUTO = "auto"

_ENDS_STREAM = TERMINAL | INTERRUPTED
#: The longest drain_events() reads on without giving the event loop back. One socket
#: read can hold a few hundred events, and reading them all in one step kept a key
#: press (and the frame after it) waiting 5 ms and more.
DRAIN_TURN = 0.002
_ARTIFACT_UPDATE = m.TaskArtifactUpdateEvent
_TEXT_CHUNK = TextChunk


def ends_stream(event: Any) -> bool:
    """Whether an agent may close the stream after this event: a Message reply, a task
    in a final or interrupted state, or a status update marked final."""
    if event.__class__ is m.TaskArtifactUpdateEvent:  # most events in a long stream
        return False
    if isinstance(event, m.Message):
        return True
    if isinstance(event, m.Task):
        return event.status.state in _ENDS_STREAM
    if isinstance(event, m.TaskStatusUpdateEvent):
        return bool(event.final) or event.status.state in _ENDS_STREAM
    return False


# Only the envelope's id and jsonrpc members are built; jiter skips the rest of the
# document without making objects (about half the time of parsing it). _id_marks spares
# the usual response and event even that.
_ENVELOPE_ID = SchemaValidator(
    cs.typed_dict_schema(
        {
            "id": cs.typed_dict_field(cs.any_schema(), required=False),
            "jsonrpc": cs.typed_dict_field(cs.any_schema(), required=False),
        },
        extra_behavior="ignore",
    )
)

ID_MISMATCH = "id-mismatch"


def _same_id(got: Any, sent: Any) -> bool:
    # JSON-RPC ids are compared as JSON values: 1 and "1" differ, and True is not 1.
    if isinstance(got, bool) or isinstance(sent, bool):
        return got is sent
    if isinstance(sent, (int, float)):
        return isinstance(got, (int, float)) and got == sent
    return type(got) is type(sent) and got == sent


def _show_id(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 40 else text[:39] + "…"


def id_problem(sent: Any, body: bytes | str, error: bool) -> tuple[str, Any] | None:
    """How a JSON-RPC response's id differs from the request's: (phrase, the id it
    carries, None when it has none), or None when it matches. A null id is right on an
    error (the agent could not read the request's). Bodies that are not a JSON-RPC 2.0
    envelope (no ``jsonrpc``, e.g. Orloj's bare events, or not JSON) are not checked
    here: decoding reports those."""
    try:
        envelope = _ENVELOPE_ID.validate_json(body)
    except ValueError:
        return None
    if "jsonrpc" not in envelope:
        return None
    if "id" not in envelope:
        return f"has no id (the request's id is {_show_id(sent)})", None
    got = envelope["id"]
    if _same_id(got, sent) or (got is None and error):
        return None
    return f"carries id {_show_id(got)}, but the request's id is {_show_id(sent)}", got


def _id_marks(rpc_id: Any) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(heads, tails): an event text that starts with a head or ends with a tail carries
    the right id at the top level, in the common serialisations (the mock's and
    json.dumps' put the id first, a2a-sdk's last). A long stream then pays one
    startswith/endswith per event, and the full check only when these miss. A tail is
    unambiguous: none of its quotes is escaped and the closing brace is the document's,
    and as the last member it is the id a parser keeps."""
    tok = json.dumps(rpc_id)
    heads = (
        f'{{"jsonrpc":"2.0","id":{tok},',
        f'{{"id":{tok},',
        f'{{"jsonrpc": "2.0", "id": {tok}, ',
        f'{{"id": {tok}, ',
    )
    tails = (f', "id": {tok}, "jsonrpc": "2.0"}}', f',"id":{tok},"jsonrpc":"2.0"}}')
    return heads, tails


def merge_headers(*layers: Mapping[str, str]) -> dict[str, str]:
    """Later layers win, names compared without case. An empty value removes the header
    (so ``-H 'A2A-Version:'`` can test how an agent copes without it)."""
    out: dict[str, str] = {}
    spelled: dict[str, str] = {}
    for layer in layers:
        for name, value in layer.items():
            low = name.lower()
            if low in spelled:
                del out[spelled.pop(low)]
            if value != "":
                spelled[low] = name
                out[name] = value
    return out


class EventStream:
    """The events of one streaming call: ``async for`` it; ``aclose()`` (or ``async
    with``) ends it early. The HTTP response is closed whichever way it ends.

    ``make(stream)`` builds the generator; it must take the stream off its owner's list
    when it ends (A2AClient._stream does, in a ``finally``), so that each step is the
    generator's own awaitable, with no coroutine of ours around it."""

    def __init__(self, make: Callable[[EventStream], AsyncGenerator[Any, None]], owner: A2AClient) -> None:
        self._owner = owner
        #: Set by drain(): nobody reads the events themselves (see protocol/lean.py).
        self.lean = False
        self._gen = make(self)
        owner._streams.add(self)

    def __aiter__(self) -> EventStream:
        return self

    def __anext__(self) -> Awaitable[Any]:
        return self._gen.__anext__()

    async def aclose(self) -> None:
        self._owner._streams.discard(self)
        await self._gen.aclose()

    async def drain(self) -> Any:
        """Read the stream to its end, for a caller that follows it through the session
        (the TUI); returns the last event, as iterating would have ended on it, and
        raises as iterating would. Nothing else reads the events, so a plain artifact
        chunk is not decoded into models for this caller: the session logs it and the
        tracker folds it as it would the model, from its few strings (a TextChunk)."""
        if self.lean:
            raise RuntimeError("drain() called twice")
        self.lean = True
        last = await drain_events(self)
        if last.__class__ is _TEXT_CHUNK:
            last = last.model()
        return last

    async def __aenter__(self) -> EventStream:
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.aclose()


async def drain_events(events: AsyncIterator[Any]) -> Any:
    """Read ``events`` to their end; the last one. Gives the event loop back at least
    every DRAIN_TURN seconds: the pieces of a stream already received are read without
    waiting, and a task of the same loop (a TUI drawing the stream) must not wait for
    all of them."""
    last = None
    clock = time.perf_counter
    turn = clock()
    async for event in events:
        last = event
        if clock() - turn > DRAIN_TURN:
            await asyncio.sleep(0)
            turn = clock()
    return last


class A2AClient:
    def __init__(
        self,
        url: str,
        *,
        session: Session | None = None,
        dialect: str = AUTO,
        card_url: str | None = None,
        headers: Mapping[str, str] | None = None,
        auth: Auth | None = None,
        timeouts: Timeouts | None = None,
        http: httpx.AsyncClient | None = None,
        dialect_cache: DialectCache | None = None,
        endpoint: str | None = None,
        method_names: Mapping[Method | str, str] | None = None,
        secret_names: Iterable[str] = (),
        limits: Limits | None = None,
        plain_names: Iterable[str] = (),
        binding: str = AUTO,
        tls: TlsOptions | None = None,
        oauth2: ClientCredentials | None = None,
    ) -> None:
        """``method_names`` sends a method under another spelling its dialect knows,
        e.g. ``{"resubscribe": "task/resubscribe"}`` for Society AI's agents.
        ``secret_names``: more header and query parameter names that carry secrets;
        ``plain_names``: names that look like a credential's but are not.
        ``limits``: how much the agent may send (limits.Limits; its defaults when None).
        ``binding``: auto (the card's first interface this client speaks), jsonrpc, rest
        or grpc; a ``grpc://host:port`` URL means grpc.
        ``tls``: --cacert, --cert/--key, --insecure (tls.TlsOptions), for HTTP and gRPC alike.
        ``oauth2``: client credentials; a token from the card's client-credentials flow
        goes with every call after the card as a bearer token (oauth2.py)."""
        # An unknown dialect name is the caller's mistake: say so now, not mid-session.
        self._requested: Dialect | None = None if dialect == AUTO else get_dialect(dialect)
        self._binding_requested = b.get_binding(binding)
        #: A ``grpc://`` URL: no HTTP to fetch a card from (see get_card).
        self._grpc_url = is_grpc_url(url)
        if self._grpc_url and self._binding_requested == b.AUTO:
            self._binding_requested = b.GRPC
        elif self._grpc_url and self._binding_requested != b.GRPC:
            raise ValueError(f"{url} is a gRPC URL: it takes --binding grpc (or auto)")
        if (
            self._binding_requested == b.GRPC
            and self._requested is not None
            and self._requested.name not in b.DIALECTS[b.GRPC]
        ):
            raise ValueError(
                f"the {self._requested.label} dialect has no gRPC binding; "
                "use --binding jsonrpc, or --dialect 0.3 / 1.0"
            )
        if (
            self._binding_requested == b.REST
            and self._requested is not None
            and not rest.supports(self._requested.name)
        ):
            raise ValueError(
                f"the {self._requested.label} dialect has no HTTP+JSON/REST binding; "
                "use --binding jsonrpc, or --dialect 0.3 / 1.0"
            )
        #: jsonrpc or rest, once chosen; how (user, card, default) and the tenant (1.0 REST).
        self.binding: str | None = None
        self.binding_source: str | None = None
        #: Which binding, and why, in words (the NOTE's text).
        self.binding_reason: str | None = None
        #: The user chose a binding or dialect the card lists no interface for: the
        #: endpoint is a guess (card_choice.NotInCard), said in a NOTE and to on_warning.
        self.not_in_card: NotInCard | None = None
        #: Called with each warning this client has for a person (the CLI's stderr).
        self.on_warning: Callable[[str], None] | None = None
        self.tenant: str | None = None
        #: The user's wire spellings, by method; applied where the chosen dialect knows them.
        self.method_names = self._spellings(method_names or {})
        self._wire_names: dict[Method, str] = {}
        self.url = url
        self.session = session if session is not None else Session()
        self.card: m.AgentCard | None = None
        self.card_raw: Any = None
        self.card_url: str | None = card_url
        self._card_url_arg = card_url
        self.dialect: Dialect | None = None
        #: How the dialect was chosen: user, card, cache, probe or fallback.
        self.dialect_source: str | None = None
        self.endpoint: str | None = endpoint
        self._endpoint_arg = endpoint
        self.headers = dict(headers or {})
        self.auth = auth
        #: What is secret in what the user gave: for recordings, and for whatever this
        #: client writes itself (the dialect cache's key, notes naming the agent's URL).
        self.redaction = Redaction.for_connection(
            extra_names=secret_names,
            credentials=auth.headers() if auth else None,
            headers=self.headers,
            urls=(url, card_url, endpoint),
            plain_names=plain_names,
        )
        self.timeouts = timeouts or Timeouts()
        self.limits = limits or Limits()
        self._own_http = http is None
        self.tls = tls or TlsOptions()
        # Accept-Encoding: only what limits.BodyDecoder undoes under its bound.
        self.http = (
            http
            if http is not None
            else httpx.AsyncClient(
                timeout=self.timeouts.for_request(False),
                verify=ssl_context(self.tls),
                headers={"Accept-Encoding": ACCEPT_ENCODING},
            )
        )
        self.dialect_cache = dialect_cache if dialect_cache is not None else DialectCache()
        self._wire = Wire(self.http, self.session, self.timeouts, self.limits)
        self._wire.client_cert = bool(self.tls.cert)
        self._ids = itertools.count(1)
        self._card_result: discovery.CardResult | None = None
        #: Endpoint URL -> whether credentials may go there (see _guard).
        self._allowed: dict[str, bool] = {}
        self._resolving = asyncio.Lock()
        self._streams: set[EventStream] = set()
        #: The gRPC transport, once the binding is grpc (grpc_transport.GrpcTransport).
        self._grpc: GrpcTransport | None = None
        #: For a grpc:// URL: the dialect whose A2AService answered the card RPC.
        self._grpc_dialect: Dialect | None = None
        self._closing: set[asyncio.Task[None]] = set()
        self._base_auth = auth
        #: The OAuth 2.0 token source (--oauth2-client-id), if any.
        self.oauth2: TokenSource | None = None
        if oauth2 is not None:
            self.oauth2 = TokenSource(oauth2, self.http, self._note, self.timeouts.connect + self.timeouts.read)
            self.oauth2.on_token.append(self._took_token)
        if self.tls.insecure:
            self._note(INSECURE_NOTE, code="tls-insecure")
        elif not self.tls.default:
            self._note(self.tls.describe(), code="tls")

    async def __aenter__(self) -> A2AClient:
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        for stream in list(self._streams):
            await stream.aclose()
        if self._grpc is not None:
            await self._grpc.aclose()
        if self._own_http:
            await self.http.aclose()

    # ------------------------------------------------------------------ discovery

    def _card_headers(self) -> dict[str, str]:
        return merge_headers({"Accept": "application/json"}, self.auth.headers() if self.auth else {}, self.headers)

    def _bound(self) -> frozenset[str]:
        """The headers that go only to the origin they were given for (see Wire.send)."""
        return frozenset(n.lower() for n in (*(self.auth.headers() if self.auth else ()), *self.headers))

    def _guard(self, url: str, headers: dict[str, str]) -> dict[str, str]:
        """``headers`` without the credentials and the user's own headers when ``url``
        may not have them: an endpoint on another origin than those the user named (the
        agent's URL, --card-url, an endpoint given), named by a card that a redirect
        brought from another origin. A card served by a named origin speaks for its
        agent: the endpoint it names gets them, wherever it is."""
        allowed = self._allowed.get(url)
        if allowed is None:
            try:
                given = [httpx.URL(u) for u in (self.url, self._card_url_arg, self._endpoint_arg) if u]
                target = httpx.URL(url)
                allowed = (
                    any(same_origin(g, target) for g in given)
                    or self.card_url is None
                    or any(same_origin(g, httpx.URL(self.card_url)) for g in given)
                )
            except httpx.InvalidURL:
                allowed = False
            self._allowed[url] = allowed
            withheld = [n for n in headers if n.lower() in self._bound()]
            if not allowed and withheld:
                self._note(
                    f"{url} is on another origin than {self.url}, named by the card served from "
                    f"{self.card_url} after a redirect: sent there without {', '.join(withheld)}"
                )
        if allowed:
            return headers
        bound = self._bound()
        return {k: v for k, v in headers.items() if k.lower() not in bound}

    @property
    def card_error(self) -> ProtocolError | None:
        """Why the card served does not decode (a JSON array, too deep, wrong types)."""
        return self._card_result.error if self._card_result is not None else None

    async def get_card(self, refresh: bool = False) -> m.AgentCard:
        """The agent card (fetched once; ``refresh`` fetches again). Raises
        TransportError when no candidate URL has one, ProtocolError when it does not decode."""
        if self._grpc_url and (self._card_result is None or refresh):
            await self._grpc_card()
        elif self._card_result is None or refresh:
            candidates = discovery.card_candidates(self.url, self._card_url_arg)
            result = await discovery.fetch_card(self._wire, candidates, self._card_headers(), self._bound())
            self._card_result = result
            self.card, self.card_raw = result.card, result.raw
            self.card_url = result.url or self._card_url_arg
        assert self._card_result is not None  # each branch above sets it, if it was not
        result = self._card_result
        if result.card is not None:
            return result.card
        if result.error is not None:
            raise result.error
        if self._grpc_url:
            # No HTTP card URL was tried: say what the card RPC answered.
            why = self._grpc_card_how.removesuffix(": going on without a card")
            raise TransportError(
                "http",
                f"no agent card from {self.url}: {why} (an agent's public card is "
                "served over HTTP: give its http:// URL)",
            )
        raise discovery.no_card_error(result)

    async def _grpc_card(self) -> None:
        """A bare grpc:// URL has no card URL: ask the agent's card RPC (1.0
        GetExtendedAgentCard, then 0.3 GetAgentCard), or go on without a card."""
        from .grpc_transport import GrpcTransport

        transport = self._grpc_transport(self.url)
        assert isinstance(transport, GrpcTransport)
        order = [self._requested] if self._requested is not None else [get_dialect("1.0"), get_dialect("0.3")]
        card, raw, dialect, how = await transport.fetch_card(order)
        self._note(f"{self.url} is a gRPC URL: no card over HTTP; {how}")
        self._grpc_card_how = how
        self._grpc_dialect = dialect
        self._card_result = discovery.CardResult(card=card, raw=raw, url=None)
        self.card, self.card_raw, self.card_url = card, raw, None
        if card is None:
            self._card_result.misses.append((self.url, 0))

    def _grpc_transport(self, endpoint: str | None = None) -> GrpcTransport:
        from .grpc_transport import GrpcTransport

        endpoint = endpoint or self.endpoint or self.url
        if self._grpc is None or self._grpc.endpoint != endpoint:
            old, self._grpc = self._grpc, GrpcTransport(self, endpoint)
            if old is not None:
                # The card RPC's target differs from the interface chosen: let its channel go.
                closing = asyncio.get_running_loop().create_task(old.aclose())
                self._closing.add(closing)
                closing.add_done_callback(self._closing.discard)
        return self._grpc

    async def _try_card(self) -> None:
        # Detection goes on without a card; only an unreachable agent stops it.
        try:
            await self.get_card()
        except TransportError as exc:
            if exc.kind != "http":
                raise
            self._note(f"no agent card: {exc.message}")
        except ProtocolError:
            pass  # already logged as an ERROR with its path

    async def resolve_dialect(self) -> Dialect:
        """Choose the dialect and endpoint (once): the user's choice, else the card's
        fields, else the cache, else the probe chain, else a guess from the card path."""
        if self.dialect is not None:
            return self.dialect
        async with self._resolving:
            if self.dialect is None:
                await self._resolve()
        assert self.dialect is not None
        return self.dialect

    async def _resolve(self) -> None:
        requested = self._requested
        if requested is not None and self._endpoint_arg:
            self._choose(requested, "user", f"dialect {requested.name} chosen by the user")
            return
        await self._try_card()
        if requested is not None:
            self._choose(requested, "user", f"dialect {requested.name} chosen by the user")
            return
        base = discovery.agent_base(self.url)
        key = self.redaction.url(agent_key(self.url))
        named = card_dialects(self.card) if self.card is not None else []
        if not named and self.card is not None and self._binding_requested != b.JSONRPC:
            # A card listing only HTTP+JSON interfaces names its dialects there.
            named = list(
                dict.fromkeys(i.dialect for i in b.card_interfaces(self.card) if i.binding in (b.REST, b.GRPC))
            )
        dialect: Dialect | None  # None: a cached name this version no longer knows
        if not named and self._grpc_dialect is not None:
            dialect = self._grpc_dialect
            self._choose(dialect, "probe", f"dialect {dialect.name}: its A2AService answered over gRPC")
            return
        if named:
            dialect = get_dialect(named[0])
            self._choose(dialect, "card", f"dialect {dialect.name} detected from the card")
            self.dialect_cache.set(key, dialect.name)
            return
        cached = self.dialect_cache.get(key)
        if cached:
            try:
                dialect = get_dialect(cached)
            except ValueError:
                dialect = None
            if dialect is not None:
                self._choose(
                    dialect, "cache", f"dialect {dialect.name} remembered for {key} from an earlier session (cache)"
                )
                return
        if self._binding_requested in (b.REST, b.GRPC):
            # The probes are JSON-RPC requests: they say nothing of a REST or gRPC agent.
            dialect = get_dialect("1.0")
            label = b.LABELS[self._binding_requested]
            self._choose(
                dialect,
                "fallback",
                f"dialect 1.0 assumed for the {label} binding: the card names no dialect (--dialect 0.3 for 0.3)",
            )
            return

        def probe_url(d: Dialect) -> str:
            return self._endpoint_arg or discovery.endpoint_for(self.card, self.card_raw, d.name, self.card_url, base)

        outcome = await discovery.probe_dialect(
            self._wire,
            probe_url,
            lambda d: self._guard(probe_url(d), self._rpc_headers(d, stream=False, probe=True)),
            lambda: next(self._ids),
        )
        if outcome.dialect is not None:
            dialect = get_dialect(outcome.dialect)
            self._choose(dialect, "probe", f"dialect {dialect.name} detected by probe: {outcome.detail}")
            self.dialect_cache.set(key, dialect.name)
            return
        name, why = discovery.fallback_dialect(self.card_url if self.card_raw is not None else None)
        dialect = get_dialect(name)
        self._choose(
            dialect,
            "fallback",
            f"dialect {dialect.name} assumed: no probe answered as expected ({outcome.detail}); {why}",
        )

    def _choose(self, dialect: Dialect, source: str, text: str) -> None:
        self.dialect = dialect
        self.dialect_source = source
        binding_note = self.binding_reason = self._choose_binding(dialect)
        if not self.endpoint:
            self.endpoint = discovery.endpoint_for(
                self.card, self.card_raw, dialect.name, self.card_url, discovery.agent_base(self.url)
            )
        self._note(text, dialect=dialect.name, source=source, endpoint=self.endpoint)
        self.not_in_card = not_in_card(
            self.card,
            dialect,
            self.binding,
            dialect_chosen=source == "user",
            binding_chosen=self.binding_source == "user",
        )
        if self.not_in_card is not None:
            warning = self.not_in_card.warning(self.endpoint)
            self._note(warning)
            if self.on_warning is not None:
                self.on_warning(warning)
        # Said when there was a choice: the user made one, or the card offers more than
        # JSON-RPC for this dialect. (An agent that only speaks JSON-RPC needs no word.)
        listed = {i.binding for i in b.card_interfaces(self.card) if i.dialect == dialect.name} if self.card else set()
        if self.binding_source == "user" or self.binding != b.JSONRPC or listed - {b.JSONRPC}:
            self._note(
                f"binding {binding_note}",
                binding=self.binding,
                binding_source=self.binding_source,
                endpoint=self.endpoint,
                **({"tenant": self.tenant} if self.tenant else {}),
            )
        self._wire_names = {}
        for method, name in self.method_names.items():
            if dialect.method_for(name) is method:
                self._wire_names[method] = name
            else:
                standard = dialect.methods.get(method)
                instead = f"sending {standard}" if standard else f"it has no {method.value} method"
                self._note(f"{name} is not a {dialect.label} spelling of {method.value}: {instead}")

    def _choose_binding(self, dialect: Dialect) -> str:
        """Set the binding (and for REST the endpoint and tenant); return the NOTE saying
        which and why. auto takes the card's first interface for ``dialect`` that this
        client speaks; the user's choice takes the first of that binding."""
        wanted = self._binding_requested
        listed = [i for i in b.card_interfaces(self.card) if i.dialect == dialect.name] if self.card else []
        label = b.LABELS
        if wanted == b.AUTO:
            spoken = [i for i in listed if i.binding in b.SPOKEN and dialect.name in b.DIALECTS[i.binding]]
            skipped = listed[: listed.index(spoken[0])] if spoken else listed
            passed = "".join(f"; skipped {i.describe()} (unknown binding)" for i in skipped)
            if not spoken or spoken[0].binding == b.JSONRPC:
                self.binding, self.binding_source = b.JSONRPC, "card" if spoken else "default"
                why = (
                    f"the card's first {dialect.label} interface this client speaks"
                    if spoken
                    else "the card lists no interface this client speaks"
                    if listed
                    else "the default"
                )
                return f"{label[b.JSONRPC]} ({why}{passed})"
            first = spoken[0]
            assert first.binding is not None  # spoken: its binding is one of b.SPOKEN
            self.binding, self.binding_source = first.binding, "card"
            self._rest_endpoint(first)
            return (
                f"{label[first.binding]} at {self.endpoint}: the card's first {dialect.label} interface "
                f"this client speaks ({first.spelled}){passed}"
            )
        self.binding, self.binding_source = wanted, "user"
        if wanted == b.JSONRPC:
            return f"{label[b.JSONRPC]} chosen by the user"
        if wanted == b.GRPC:
            if dialect.name not in b.DIALECTS[b.GRPC]:
                raise UnsupportedMethod(
                    dialect.label, "grpc", f"the {dialect.label} dialect has no gRPC binding: use --binding jsonrpc"
                )
            if self._grpc_url:
                # The user named the target: the card (from the agent's RPC) does not move it.
                self.endpoint = self._endpoint_arg or self.url
                return f"{label[b.GRPC]}: {self.url} is a gRPC URL"
            match = next((i for i in listed if i.binding == b.GRPC), None)
            if match is not None:
                self._rest_endpoint(match)
                return f"{label[b.GRPC]} chosen by the user: the card's {match.describe()}"
            if not self.endpoint:
                self.endpoint = self.url
            where = "the card lists no gRPC interface" if self.card is not None else "there is no card"
            return f"{label[b.GRPC]} chosen by the user: {where} for {dialect.label}, so {self.endpoint} is its target"
        if not rest.supports(dialect.name):
            raise UnsupportedMethod(
                dialect.label,
                "rest",
                f"the {dialect.label} dialect has no HTTP+JSON/REST binding: use --binding jsonrpc",
            )
        match = next((i for i in listed if i.binding == b.REST), None)
        if match is not None:
            self._rest_endpoint(match)
            return f"{label[b.REST]} chosen by the user: the card's {match.describe()}"
        if not self.endpoint:
            self.endpoint = discovery.agent_base(self.url)
        where = "the card lists no HTTP+JSON interface" if self.card is not None else "there is no card"
        return f"{label[b.REST]} chosen by the user: {where} for {dialect.label}, so {self.endpoint} is its base URL"

    def _rest_endpoint(self, interface: b.Interface) -> None:
        if not self._endpoint_arg:
            from urllib.parse import urljoin

            if interface.binding == b.GRPC:
                # host:port, grpc://host:port: not relative to the card's URL.
                self.endpoint = interface.url
            else:
                self.endpoint = urljoin(self.card_url or discovery.agent_base(self.url), interface.url)
        self.tenant = interface.tenant

    def _spellings(self, given: Mapping[Method | str, str]) -> dict[Method, str]:
        # A typo would only show up as -32601 mid-session: refuse it here. Only spellings
        # some dialect decodes are allowed (its own names and its method_aliases), so what
        # is sent is always something the inspector can read back.
        out: dict[Method, str] = {}
        for key, name in given.items():
            method = Method(key)
            dialects = (self._requested,) if self._requested is not None else ALL_DIALECTS
            if not any(d.method_for(name) is method for d in dialects):
                known = sorted(
                    {d.methods[method] for d in dialects if method in d.methods}
                    | {w for d in dialects for w, mm in d.method_aliases.items() if mm is method}
                )
                where = f"the {self._requested.label} dialect" if self._requested is not None else "any dialect"
                raise ValueError(
                    f"{name!r} is not how {where} spells {method.value}; known: {', '.join(known) or 'none'}"
                )
            out[method] = name
        return out

    def _note(self, text: str, **extra: Any) -> None:
        self.session.append(Kind.NOTE, {"text": text, **extra})

    def _took_token(self, token: str) -> None:
        bearer = Auth.bearer(token)
        self.auth = self._base_auth + bearer if self._base_auth is not None else bearer
        self.redaction = dataclasses.replace(self.redaction, values=(*self.redaction.values, token))

    async def _authorize(self) -> None:
        """With client credentials: a token that has not expired, fetched if need be."""
        source = self.oauth2
        if source is None or source.fresh():
            return
        try:
            if source.flow is None:
                source.choose(self.card, self.card_url, (self.url, self._card_url_arg, self._endpoint_arg))
            await source.fetch("expired" if source.token else "first call")
        except TransportError as exc:
            # The token exchange is not traffic in the log: its failure is said here.
            self._note(str(exc), code="oauth2-failed")
            raise

    async def _renewed(self, ex: Exchange, info: dict[str, Any]) -> bool:
        """After a 401 to a call that carried a token: the answer logged, a new token
        fetched; True when the call should be sent again (once)."""
        source = self.oauth2
        if source is None or source.token is None or ex.response is None or ex.response.status_code != 401:
            return False
        self._log_body(ex, info, await ex.read())
        await source.fetch("the agent answered 401")
        return True

    async def _dialect_for(self, method: Method) -> Dialect:
        self._check(self.dialect or self._requested, method)
        dialect = await self.resolve_dialect()
        self._check(dialect, method)
        await self._authorize()
        if self.binding == b.REST and not rest.has(dialect.name, method):
            raise UnsupportedMethod(
                dialect.label, method.value, f"the {dialect.label} HTTP+JSON/REST binding has no {method.value} route"
            )
        if self.binding == b.GRPC:
            from ..protocol import grpc_codec

            if not grpc_codec.has(dialect.name, method):
                raise UnsupportedMethod(
                    dialect.label, method.value, f"the {dialect.label} gRPC binding has no {method.value} RPC"
                )
        return dialect

    @staticmethod
    def _check(dialect: Dialect | None, method: Method) -> None:
        if dialect is not None and not dialect.has(method):
            raise UnsupportedMethod(dialect.label, method.value)

    # ------------------------------------------------------------------ requests

    def _call_headers(self, base: Mapping[str, str]) -> dict[str, str]:
        """``base``, the credentials and the user's own headers, the user's last."""
        return merge_headers(base, self.auth.headers() if self.auth else {}, self.headers)

    def _rpc_headers(self, dialect: Dialect, *, stream: bool, probe: bool = False) -> dict[str, str]:
        base = {"Content-Type": "application/json", "Accept": "text/event-stream" if stream else "application/json"}
        auth = self.auth.headers() if self.auth else {}
        if probe:
            # A probe's meaning depends on its version header: the user's cannot override it.
            return merge_headers(base, auth, self.headers, dialect.request_headers())
        return merge_headers(base, dialect.request_headers(), auth, self.headers)

    @staticmethod
    def _params(method: Method, params: Any) -> Any:
        model = PARAMS[method]
        if params is None:
            if method in (Method.EXTENDED_CARD, Method.LIST):
                return model()
            raise TypeError(f"{method.value} needs params ({model.__name__})")
        if isinstance(params, model):
            return params
        if isinstance(params, BaseModel):
            raise TypeError(f"{method.value} takes {model.__name__}, not {type(params).__name__}")
        return validate(model, dict(params) if isinstance(params, Mapping) else params, "$.params")

    async def _post(
        self, dialect: Dialect, method: Method, params: Any, *, stream: bool
    ) -> tuple[Exchange, dict[str, Any]]:
        params = dialect.with_client_ids(method, params)
        if self.binding == b.REST:
            return await self._send_rest(dialect, method, params, stream=stream)
        rpc_id = next(self._ids)
        request = dialect.encode_request(method, params, rpc_id)
        spelled = self._wire_names.get(method)
        if spelled is not None:
            request["method"] = spelled
        body = json.dumps(request, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        info = {"dialect": dialect.name, "a2a_method": method.value, "rpc_method": request["method"], "rpc_id": rpc_id}
        assert self.endpoint is not None
        headers = self._guard(self.endpoint, self._rpc_headers(dialect, stream=stream))
        ex = await self._wire.send(
            "POST", self.endpoint, headers=headers, body=body, info=info, payload=params, stream=stream
        )
        return ex, info

    async def _send_rest(
        self, dialect: Dialect, method: Method, params: Any, *, stream: bool
    ) -> tuple[Exchange, dict[str, Any]]:
        from urllib.parse import urlencode, urlsplit, urlunsplit

        req = rest.encode_request(dialect.name, method, params, self.tenant)
        body = (
            None
            if req.body is None
            else json.dumps(req.body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        )
        assert self.endpoint is not None
        base = urlsplit(self.endpoint)
        query = "&".join(q for q in (base.query, urlencode(req.query)) if q)
        url = urlunsplit((base.scheme, base.netloc, base.path.rstrip("/") + req.path, query, ""))
        info = {
            "dialect": dialect.name,
            "binding": b.REST,
            "a2a_method": method.value,
            "rpc_method": None,
            "rpc_id": None,
            "route": req.route,
            "rest_base": self.endpoint,
        }
        auth = self.auth.headers() if self.auth else {}
        headers = self._guard(
            self.endpoint,
            merge_headers(rest.request_headers(dialect.name, body is not None, stream), auth, self.headers),
        )
        ex = await self._wire.send(req.verb, url, headers=headers, body=body, info=info, payload=params, stream=stream)
        return ex, info

    def wire_preview(self, method: Method, params: Any, *, stream: bool) -> tuple[str, str, dict[str, str], Any, str]:
        """What sending ``params`` would put on the wire, without sending it: (HTTP method,
        URL, headers before credentials and the user's own, JSON body, what it is), in the
        chosen dialect and binding (both must be resolved). For the composer's preview."""
        assert self.dialect is not None and self.endpoint is not None
        dialect = self.dialect
        if self.binding == b.GRPC:
            from ..protocol import grpc_codec

            obj = grpc_codec.encode_request(dialect.name, method, params, self.tenant)
            path = grpc_codec.rpc_path(dialect.name, method)
            headers = {k.lower(): v for k, v in dialect.request_headers().items()}
            return "POST", self.endpoint.rstrip("/") + path, headers, obj, f"{dialect.label} gRPC, {path[1:]}"
        if self.binding == b.REST:
            from urllib.parse import urlencode

            req = rest.encode_request(dialect.name, method, params, self.tenant)
            url = self.endpoint.rstrip("/") + req.path + (f"?{urlencode(req.query)}" if req.query else "")
            headers = rest.request_headers(dialect.name, req.body is not None, stream)
            return req.verb, url, headers, req.body, f"{dialect.label} HTTP+JSON, {req.route}"
        request = dialect.encode_request(method, params, "<id set when sent>")
        headers = {
            "Content-Type": "application/json",
            "Accept": "text/event-stream" if stream else "application/json",
            **dialect.request_headers(),
        }
        return "POST", self.endpoint, headers, request, f"{dialect.label}, {request['method']}"

    @staticmethod
    def _log_body(ex: Exchange, info: dict[str, Any], raw: bytes) -> Any:
        data = ex.response_data(raw)
        payload = payloads.response_payload(info, data)
        ex.log(Kind.RESPONSE, data, payload)
        if info.get("binding") == b.REST:
            return payload  # no envelope, no id to check
        # Reported, never raised: a result with a wrong id is still the result, and
        # showing the deviation is the point (real agents do get this wrong).
        heads, tails = _id_marks(info["rpc_id"])
        if raw.startswith(tuple(h.encode() for h in heads)) or raw[-64:].rstrip().endswith(
            tuple(t.encode() for t in tails)
        ):
            return payload
        problem = id_problem(info["rpc_id"], raw, isinstance(payload, JsonRpcError))
        if problem is not None:
            ex.note(
                f"JSON-RPC id mismatch: the response {problem[0]}",
                code=ID_MISMATCH,
                expected=info["rpc_id"],
                got=problem[1],
            )
        return payload

    @staticmethod
    def _outcome(ex: Exchange, raw: bytes, payload: Any) -> Any:
        """The decoded result, or raise what went wrong (after logging it)."""
        resp = ex.response
        assert resp is not None
        status = resp.status_code
        if isinstance(payload, JsonRpcError):
            payload.http_status = status
            raise payload
        if not 200 <= status < 300:
            ctype = resp.headers.get("content-type")
            detail = body_reason(ctype, raw, reason_phrase(resp))
            raise ex.fail(
                "http",
                f"HTTP {status} {reason_phrase(resp)} ({describe_body(ctype, raw)})"
                + (f": {detail}" if detail else ""),
                detail,
            )
        if isinstance(payload, ProtocolError):
            ex.error("protocol", payload.reason, payload.path)
            raise payload
        return payload

    async def grpc_raw_call(self, path: str, data: bytes) -> tuple[int, str]:
        """Call the gRPC endpoint's ``path`` with ``data`` as the request's bytes, as they
        are (GrpcTransport.raw_call): the status code (0 for OK) and its message."""
        dialect = await self.resolve_dialect()
        return await self._grpc_transport().raw_call(dialect, path, data)

    async def call(self, method: Method | str, params: Any = None) -> Any:
        """One non-streaming method; returns its decoded result."""
        method = Method(method)
        if method.streams:
            raise ValueError(f"{method.value} answers with a stream: use stream_call()")
        dialect = await self._dialect_for(method)
        params = self._params(method, params)
        if self.binding == b.GRPC:
            return await self._grpc_transport().call(dialect, method, params)
        ex, info = await self._post(dialect, method, params, stream=False)
        if await self._renewed(ex, info):
            ex, info = await self._post(dialect, method, params, stream=False)
        raw = await ex.read()
        return self._outcome(ex, raw, self._log_body(ex, info, raw))

    def stream_call(self, method: Method | str, params: Any = None) -> EventStream:
        """A streaming method; iterate the result for its decoded events."""
        method = Method(method)
        if not method.streams:
            raise ValueError(f"{method.value} answers with one response: use call()")
        self._check(self.dialect or self._requested, method)
        return EventStream(lambda stream: self._stream(method, params, stream), self)

    async def _stream(self, method: Method, params: Any, stream: EventStream) -> AsyncGenerator[Any, None]:
        # One generator from the request to the last event: every event of a long stream
        # passes through it, and each generator layer would cost a step per event.
        try:
            dialect = await self._dialect_for(method)
            params = self._params(method, params)
            if self.binding == b.GRPC:
                async for event in self._grpc_transport().stream(
                    dialect, method, params, ends_stream, lean=stream.lean
                ):
                    yield event
                return
            ex, info = await self._post(dialect, method, params, stream=True)
            if await self._renewed(ex, info):
                ex, info = await self._post(dialect, method, params, stream=True)
            resp = ex.response
            assert resp is not None
            try:
                ctype = resp.headers.get("content-type", "")
                if not (200 <= resp.status_code < 300 and "text/event-stream" in ctype.lower()):
                    raw = await ex.read()
                    payload = self._log_body(ex, info, raw)
                    if 200 <= resp.status_code < 300:
                        ex.note(f"expected an SSE stream, got {ctype or 'no content type'}: read it as one response")
                    yield self._outcome(ex, raw, payload)
                    return
                ex.log(Kind.RESPONSE, ex.response_data(None))
                # The stream itself.
                limits = self.limits
                parser = SSEParser(limits.max_event)
                chunks = ex.pieces(limits.max_stream_body)
                state = _StreamState(info["rpc_id"])
                if info.get("binding") == b.REST:
                    state.ids = None  # no envelope, no id to check
                    dialect = payloads.codec_for(dialect, b.REST)
                lean = stream.lean
                if lean:
                    state.read = lean_reader(dialect)
                try:
                    while True:
                        eof = False
                        try:
                            if state.final:
                                # The agent should close now; don't hang on one that doesn't.
                                async with asyncio.timeout(self.timeouts.linger):
                                    chunk = await anext(chunks)
                            else:
                                chunk = await anext(chunks)
                            items = parser.feed(chunk)
                        except StopAsyncIteration:
                            items, eof = parser.close(), True
                        except TimeoutError:
                            ex.note(
                                f"the agent kept the stream open {self.timeouts.linger:g} s after its "
                                "final event; closed it"
                            )
                            self._end(ex, state, "closed")
                            return
                        except httpx.HTTPError as exc:
                            for event in self._record(ex, dialect, parser.close(), state):
                                yield event
                            # A read timeout is ours: the agent went quiet, it did not end the stream.
                            if isinstance(exc, httpx.TimeoutException):
                                self._end(
                                    ex,
                                    state,
                                    "timeout",
                                    f"went quiet for {self.timeouts.stream_read:g} s (read timeout)",
                                )
                            else:
                                self._end(ex, state, "error")
                            raise ex.stream_error(exc) from None
                        except (EventTooLarge, BodyTooLarge, DecodeFailed) as exc:
                            events, failure = self._over(ex, dialect, state, exc, parser)
                            for event in events:
                                yield event
                            raise failure from None
                        state.items += len(items)
                        if state.items > limits.max_stream_events:
                            events, failure = self._over(ex, dialect, state, None, items)
                            for event in events:
                                yield event
                            raise failure from None
                        events = self._record(ex, dialect, items, state)
                        if lean:
                            # drain() keeps only the last event: one step per read, not per event.
                            events = events[-1:]
                        for event in events:
                            yield event
                        if state.error is not None:
                            self._end(ex, state, "error")
                            state.error.http_status = resp.status_code
                            raise state.error
                        if eof:
                            break
                    if state.final:
                        self._end(ex, state, "complete")
                        return
                    self._end(ex, state, "eof")
                    raise ex.fail(
                        "stream",
                        f"stream ended before the task reached a final state "
                        f"({state.events} event{'' if state.events == 1 else 's'} received)",
                    )
                finally:
                    if not state.ended:
                        # The consumer stopped early (break, aclose, cancel).
                        self._end(ex, state, "closed")
            finally:
                await resp.aclose()
        finally:
            self._streams.discard(stream)

    def _over(
        self, ex: Exchange, dialect: Dialect, state: _StreamState, exc: Exception | None, pending: Any
    ) -> tuple[list[Any], TransportError]:
        """A stream that went past a limit (``exc`` None: the count; ``pending`` is then
        the last items read, else the parser) or did not decompress: record what was
        complete before that point (an event over the size limit is logged cut, after
        it), end the stream, and return (the events to hand on, the error to raise)."""
        limits = self.limits
        cut: dict[str, Any] | None = None
        if exc is None:
            items = pending[: len(pending) - (state.items - limits.max_stream_events)]
        elif isinstance(exc, EventTooLarge):
            items = exc.items
            text, encoding = body_text(whole_chars(bytearray(exc.head)))
            cut = {"raw": text, "event": None, "data": None, "id": None, "retry": None, "cut": True}
            if encoding != "utf-8":
                cut["raw_encoding"] = encoding
        else:
            # Over the body limit, what is pending is not an event yet; a body that does
            # not decompress may still hold a last whole one.
            items = pending.close() if isinstance(exc, DecodeFailed) else []
        events = self._record(ex, dialect, items, state)
        if cut is not None:
            ex.log(Kind.SSE, cut, payloads.sse_payload(None, cut))
        inflated = bool(ex.response is not None and ex.response.headers.get("content-encoding"))
        # Over a limit, we stopped reading (the agent did not end the stream): the limit's
        # words go on the STREAM_END too, for whoever shows the task. A body that does not
        # decompress is the agent's error.
        if exc is None:
            words = f"more than {limits.max_stream_events} events and comments (--max-stream-events)"
            self._end(ex, state, "limit", words)
            error = ex.fail("limit", f"stream from {ex.url} sent {words}; stopped reading")
        elif isinstance(exc, EventTooLarge):
            self._end(ex, state, "limit", "an event " + ex.larger_than(limits.max_event, "--max-event", inflated))
            error = ex.too_large("an event of the stream", limits.max_event, "--max-event", inflated)
        elif isinstance(exc, BodyTooLarge):
            self._end(ex, state, "limit", ex.larger_than(limits.max_stream_body, "--max-stream-body", exc.inflated))
            error = ex.too_large("stream", limits.max_stream_body, "--max-stream-body", exc.inflated)
        else:
            self._end(ex, state, "error")
            error = ex.fail("stream", f"stream from {ex.url}: {exc}")
        return events, error

    def _record(self, ex: Exchange, dialect: Dialect, items: list[Any], state: _StreamState) -> list[Any]:
        """Log each parsed item; return the decoded events to hand on. A JSON-RPC error
        stops at that event (state.error); events after it in the same chunk are still
        logged, since they were received. Runs once per event: kept lean on purpose."""
        out: list[Any] = []
        keep = out.append
        session = ex.wire.session
        append, append_sse = session.append, session.append_sse
        number = ex.id
        fast = dialect.decode_sse_fast
        read = state.read
        codec = state.codec
        if codec is None:
            codec = state.codec = _SSECodec(dialect)
        ids, tails = state.ids, state.id_tails
        for item in items:
            if item.__class__ is SSEComment:
                append(Kind.COMMENT, {"text": item.text}, exchange=number)
                continue
            text = item.data
            if item.error is None and not item.incomplete:
                # The common case: wire.decode_sse_data, inlined; the event keeps its
                # raw text only (the session derives the rest again when asked).
                if text is None:
                    payload = None
                elif read is not None:
                    try:
                        payload = read(text)
                    except (JsonRpcError, ProtocolError) as exc:
                        payload = exc
                else:
                    payload = fast(text)
                    if payload is None:
                        try:
                            payload = dialect.decode_stream_event(parse_json(text))
                        except (JsonRpcError, ProtocolError) as exc:
                            payload = exc
                append_sse(item.raw, payload, codec, number)
            else:
                data: dict[str, Any] = {
                    "raw": item.raw,
                    "event": item.event,
                    "data": text,
                    "id": item.id,
                    "retry": item.retry,
                }
                if item.raw_encoding != "utf-8":
                    data["raw_encoding"] = item.raw_encoding
                if item.incomplete:
                    data["incomplete"] = True
                payload = payloads.sse_payload(dialect, data)
                append(Kind.SSE, data, exchange=number, payload=payload)
            state.events += 1
            if ids is not None and text is not None and not text.startswith(ids) and not text.endswith(tails):
                self._check_event_id(ex, state, text, payload)
                ids = state.ids
            cls = payload.__class__
            if (cls is _TEXT_CHUNK or cls is _ARTIFACT_UPDATE) and state.error is None:
                keep(payload)  # what the checks below conclude for a chunk, sooner
                continue
            if payload is None or state.error is not None:
                continue
            if isinstance(payload, (JsonRpcError, ProtocolError)):
                if isinstance(payload, JsonRpcError):
                    state.error = payload
                else:
                    ex.error("protocol", f"event {state.events} skipped: {payload.reason}", payload.path)
                continue
            if not state.final and ends_stream(payload):
                state.final = True
            out.append(payload)
        return out

    @staticmethod
    def _check_event_id(ex: Exchange, state: _StreamState, text: str, payload: Any) -> None:
        problem = id_problem(state.rpc_id, text, isinstance(payload, JsonRpcError))
        if problem is None:
            return
        # Once per stream: an agent that gets it wrong usually does on every event.
        state.ids = None
        ex.note(
            f"JSON-RPC id mismatch: stream event {state.events} {problem[0]} (later events are not checked)",
            code=ID_MISMATCH,
            expected=state.rpc_id,
            got=problem[1],
            event=state.events,
        )

    @staticmethod
    def _end(ex: Exchange, state: _StreamState, reason: str, limit: str | None = None) -> None:
        """``limit``: the words of the limit that ended it (reason ``limit`` or ``timeout``)."""
        state.ended = True
        data = {"reason": reason, "events": state.events, "elapsed_ms": ex.elapsed_ms(), "terminal": state.final}
        if limit is not None:
            data["limit"] = limit
        ex.log(Kind.STREAM_END, data)

    # ------------------------------------------------------------------ conveniences
    # call() answers with Any, as the result type depends on the method (methods.RESULT):
    # each of these names its own method's.

    async def send(self, params: m.SendParams | Mapping[str, Any]) -> m.Task | m.Message:
        return cast(m.Task | m.Message, await self.call(Method.SEND, params))

    def stream(self, params: m.SendParams | Mapping[str, Any]) -> EventStream:
        return self.stream_call(Method.STREAM, params)

    async def get_task(self, id: str, history_length: int | None = None) -> m.Task:
        return cast(m.Task, await self.call(Method.GET, m.TaskQueryParams(id=id, history_length=history_length)))

    async def cancel(self, id: str) -> m.Task:
        return cast(m.Task, await self.call(Method.CANCEL, m.TaskIdParams(id=id)))

    def resubscribe(self, id: str) -> EventStream:
        return self.stream_call(Method.RESUBSCRIBE, m.TaskIdParams(id=id))

    async def set_push(
        self, task_id: str, config: m.PushNotificationConfig | Mapping[str, Any]
    ) -> m.TaskPushNotificationConfig:
        if not isinstance(config, m.PushNotificationConfig):
            config = validate(m.PushNotificationConfig, dict(config), "$.params.pushNotificationConfig")
        params = m.TaskPushNotificationConfig(task_id=task_id, push_notification_config=config)
        return cast(m.TaskPushNotificationConfig, await self.call(Method.PUSH_SET, params))

    async def get_push(self, task_id: str, config_id: str | None = None) -> m.TaskPushNotificationConfig:
        params = m.PushConfigParams(id=task_id, push_notification_config_id=config_id)
        return cast(m.TaskPushNotificationConfig, await self.call(Method.PUSH_GET, params))

    async def list_push(self, task_id: str) -> list[m.TaskPushNotificationConfig]:
        params = m.PushConfigParams(id=task_id)
        return cast(list[m.TaskPushNotificationConfig], await self.call(Method.PUSH_LIST, params))

    async def delete_push(self, task_id: str, config_id: str) -> None:
        params = m.PushConfigParams(id=task_id, push_notification_config_id=config_id)
        return cast(None, await self.call(Method.PUSH_DELETE, params))

    async def list_tasks(self, params: m.ListTasksParams | Mapping[str, Any] | None = None) -> m.ListTasksResult:
        return cast(m.ListTasksResult, await self.call(Method.LIST, params))

    async def extended_card(self) -> m.AgentCard:
        return cast(m.AgentCard, await self.call(Method.EXTENDED_CARD, None))


class _SSECodec:
    """Derives a logged SSE event's payload again, in its exchange's dialect."""

    __slots__ = ("dialect",)

    def __init__(self, dialect: Dialect) -> None:
        self.dialect = dialect

    def __call__(self, event: Any) -> Any:
        return payloads.sse_payload(self.dialect, event.data)


class _StreamState:
    __slots__ = ("events", "items", "final", "error", "ended", "rpc_id", "ids", "id_tails", "codec", "read")

    def __init__(self, rpc_id: Any) -> None:
        self.events = 0
        #: Events and comments so far, against limits.max_stream_events.
        self.items = 0
        self.final = False
        self.error: JsonRpcError | None = None
        self.ended = False
        self.rpc_id = rpc_id
        self.codec: _SSECodec | None = None
        #: Decodes an event's data for a drained stream (protocol/lean.py); None: the
        #: dialect's shortcut, else the general path.
        self.read: Callable[[str], Any] | None = None
        #: Starts and ends of an event text with the right id (see _id_marks); ids is
        #: None once a mismatch is reported.
        heads, self.id_tails = _id_marks(rpc_id)
        self.ids: tuple[str, ...] | None = heads
