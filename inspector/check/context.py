"""What a probe works with: a client bound to one binding and dialect, the session
every byte goes into, the tracker judging it, and a few helpers that keep the probes
short (send a text, expect an A2A error code, post raw bytes to a JSON-RPC endpoint)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from .. import safejson
from ..client import A2AClient, JsonRpcError, ProtocolError, TransportError
from ..client.transport import Wire, same_origin
from ..protocol import models as m
from ..protocol.states import INTERRUPTED, TERMINAL
from ..session import Kind, Session, TaskTracker
from ..textsafe import shorten, visible
from .probe import Failed, Skipped

#: The most requests one probe sends (docs/check.md says so; tests/test_check.py holds
#: every probe to it): a probe that needs more is a bug of ours.
MAX_REQUESTS = 8
#: The most of an agent's text a reason quotes.
QUOTE = 200


def quoted(text: Any) -> str:
    """An agent's words, shown literally on one line and bounded."""
    return visible(shorten(str(text), QUOTE), single_line=True)


def error_text(exc: BaseException) -> str:
    if isinstance(exc, JsonRpcError):
        return f"error {exc.code} {quoted(exc.message)}"
    return quoted(exc)


@dataclass
class CheckOptions:
    url: str
    dialect: str = "auto"
    binding: str = "auto"
    card_url: str | None = None
    only: tuple[str, ...] = ()
    skip: tuple[str, ...] = ()
    #: What the probes send as an ordinary message: one the agent answers by finishing.
    text: str = "hello from a2a-inspect check"
    #: A message that keeps a task working a while (for cancel and subscribe of a running task).
    running_text: str | None = None
    #: A message that makes the agent ask for input (multi-turn).
    ask: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    auth: Any = None
    timeouts: Any = None
    limits: Any = None
    secret_names: tuple[str, ...] = ()
    plain_names: tuple[str, ...] = ()
    #: --method-name: spellings of methods (Society AI's task/resubscribe).
    method_names: dict[str, str] = field(default_factory=dict)
    #: --cacert/--cert/--insecure (client.tls.TlsOptions) and --oauth2-client-id's
    #: credentials (client.oauth2.ClientCredentials), as the other commands take them.
    tls: Any = None
    oauth2: Any = None
    #: The longest one probe may take, whatever it waits for.
    probe_seconds: float = 20.0

    def client(self, session: Session, dialect: str, binding: str, endpoint: str | None = None) -> A2AClient:
        """A client for the agent; with ``endpoint``, one that talks to that interface of
        the card itself."""
        return A2AClient(
            self.url,
            session=session,
            dialect=dialect,
            binding=binding,
            card_url=self.card_url,
            endpoint=endpoint,
            headers=self.headers,
            auth=self.auth,
            timeouts=self.timeouts,
            limits=self.limits,
            secret_names=self.secret_names,
            plain_names=self.plain_names,
            method_names=self.method_names,
            tls=self.tls,
            oauth2=self.oauth2,
        )

    def client_at(self, session: Session, dialect: str, binding: str, endpoint: str) -> A2AClient:
        """A client that talks to ``endpoint`` itself (one interface of the card)."""
        return self.client(session, dialect, binding, endpoint)


class ProbeContext:
    def __init__(
        self,
        options: CheckOptions,
        client: A2AClient,
        session: Session,
        tracker: TaskTracker,
        *,
        dialect: str,
        binding: str | None,
        bindings: tuple[str, ...] = (),
        clients: dict[str, A2AClient] | None = None,
    ) -> None:
        self.options = options
        #: Every binding the check runs on, and the client of each that could be used
        #: (for the probes that compare them).
        self.bindings = bindings
        self.clients = clients or {}
        self.client = client
        self.session = session
        self.tracker = tracker
        self.dialect = dialect
        self.binding = binding
        self.exchanges: list[int] = []
        #: Exchange -> the seq of its request event (where the traffic view opens it).
        self.request_seqs: dict[int, int] = {}
        #: Violation codes this probe leaves to another probe.
        self.ignored: set[str] = set()
        self._listening = False

    # -------------------------------------------------------------- bookkeeping

    def ignore(self, *codes: str) -> None:
        self.ignored.update(codes)

    def listen(self) -> None:
        self.exchanges = []
        self.request_seqs = {}
        self.ignored = set()
        if not self._listening:
            self.session.subscribe(self._seen)
            self._listening = True

    def stop(self) -> None:
        if self._listening:
            self.session.unsubscribe(self._seen)
            self._listening = False

    def _seen(self, event: Any) -> None:
        if event.kind is Kind.REQUEST and event.exchange not in self.exchanges:
            self.exchanges.append(event.exchange)
            self.request_seqs[event.exchange] = event.seq

    @property
    def card(self) -> m.AgentCard | None:
        return self.client.card

    @property
    def last_exchange(self) -> int | None:
        return self.exchanges[-1] if self.exchanges else None

    def fail(self, text: str) -> Failed:
        return Failed(text, self.last_exchange)

    # -------------------------------------------------------------- messages

    def message(
        self, text: str, *, task_id: str | None = None, context_id: str | None = None, parts: list[Any] | None = None
    ) -> m.Message:
        return m.Message(
            role=m.Role.USER,
            parts=parts or [m.TextPart(text=text)],
            message_id=str(uuid.uuid4()),
            task_id=task_id,
            context_id=context_id,
        )

    def params(
        self, message: m.Message, *, blocking: bool | None = None, history_length: int | None = None
    ) -> m.SendParams:
        config = None
        if blocking is not None or history_length is not None:
            config = m.SendConfiguration(blocking=blocking, history_length=history_length)
        return m.SendParams(message=message, configuration=config)

    async def send(
        self, text: str | None = None, *, blocking: bool | None = None, parts: list[Any] | None = None
    ) -> m.Task | m.Message:
        """A send the agent must answer with a task or a message; anything else fails."""
        msg = self.message(text or self.options.text, parts=parts)
        try:
            return await self.client.send(self.params(msg, blocking=blocking))
        except (JsonRpcError, ProtocolError, TransportError) as exc:
            raise self.fail(f"the send was answered with {error_text(exc)}") from None

    async def finished_task(self) -> m.Task:
        """A task of our own in a terminal state (the ordinary text, sent blocking). A
        send answered early is messages.blocking's finding, not this probe's."""
        self.ignore("blocking-not-final")
        result = await self.send(blocking=True if self.dialect == "0.3" else None)
        if not isinstance(result, m.Task):
            raise Skipped("the agent answers the ordinary text with a message, not a task")
        if result.status.state not in TERMINAL:
            raise Skipped(f"the ordinary text leaves the task {result.status.state.value}, not finished")
        return result

    async def answered(self, call: Any, what: str) -> Any:
        """Await ``call``: its result, or a failure naming ``what`` and the answer (a
        -32601 from a 0.1 agent skips: the draft leaves every method but tasks/send to it)."""
        try:
            return await call
        except JsonRpcError as exc:
            if exc.code == -32601 and self.dialect == "0.1":
                raise Skipped(
                    f"the agent does not implement {what} (-32601), which the 0.1 draft leaves to it"
                ) from None
            raise self.fail(f"{what} was answered with {error_text(exc)}") from None
        except (ProtocolError, TransportError) as exc:
            raise self.fail(f"{what} was answered with {error_text(exc)}") from None

    # -------------------------------------------------------------- errors

    async def expect_error(self, call: Any, codes: tuple[int, ...], what: str) -> JsonRpcError:
        """Await ``call`` and return the A2A error it raises, which must carry one of
        ``codes``; a result, or another code, fails."""
        try:
            result = await call
        except JsonRpcError as exc:
            if exc.code in codes:
                return exc
            if exc.code == -32601 and self.dialect == "0.1":
                raise Skipped(
                    f"the agent does not implement {what} (-32601), which the 0.1 draft leaves to it"
                ) from None
            raise self.fail(f"{what} was answered with {error_text(exc)}, not {_codes(codes)}") from None
        except (ProtocolError, TransportError) as exc:
            raise self.fail(f"{what} was answered with {error_text(exc)}, not an A2A error {_codes(codes)}") from None
        shown = f"a task in state {result.status.state.value}" if isinstance(result, m.Task) else "a result"
        raise self.fail(f"{what} was answered with {shown}, not error {_codes(codes)}")

    async def post_raw(
        self,
        body: bytes,
        *,
        rpc_method: str | None = None,
        url: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, Any]:
        """POST ``body`` as it is to the JSON-RPC endpoint (or ``url``, with ``headers``),
        in the session like any request; returns (HTTP status, the JSON answer or None
        when it is not JSON). Credentials and the user's own headers go only where the
        client would send them: the origin given."""
        import httpx

        client = self.client
        assert client.dialect is not None and client.endpoint is not None
        target = url or client.endpoint
        sent = (
            dict(headers)
            if headers is not None
            else {"Content-Type": "application/json", "Accept": "application/json", **client.dialect.request_headers()}
        )
        if same_origin(httpx.URL(client.url), httpx.URL(target)):
            sent.update(client.auth.headers() if client.auth is not None else {})
            sent.update(client.headers)
        wire = Wire(client.http, self.session, client.timeouts, client.limits)
        info = {
            "dialect": client.dialect.name,
            "a2a_method": None,
            "rpc_method": rpc_method,
            "rpc_id": None,
            "check": True,
        }
        try:
            ex = await wire.send("POST", target, headers=sent, body=body, info=info)
            raw = await ex.read()
        except TransportError as exc:
            raise self.fail(f"no answer: {error_text(exc)}") from None
        ex.log(Kind.RESPONSE, ex.response_data(raw))
        assert ex.response is not None
        try:
            answer = safejson.loads(raw)
        except ValueError:
            answer = None
        return ex.response.status_code, answer


def _codes(codes: tuple[int, ...]) -> str:
    return " or ".join(str(c) for c in codes)


def settled(state: m.TaskState) -> bool:
    """A state a blocking call may answer with: terminal or interrupted."""
    return state in TERMINAL or state in INTERRUPTED
