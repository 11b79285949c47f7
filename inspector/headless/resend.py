"""Re-sending a recording to a live agent and comparing what comes back.

``diff_against(recording, url)`` sends the recorded A2A requests again, in order, to a
live agent, in the dialect each was recorded in, and compares each answer with the
recorded one (session/diff.py says what is compared). Ids and timestamps are never
compared: the live agent assigns its own, and each recorded task/context id is rewritten
to the one the live agent assigned before it is sent again (so a multi-turn conversation
continues on the live agent's task).

It drives the client, so it lives above it, beside the command that uses it
(``a2a-inspect replay --against``); the comparison itself is the session's.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Callable, Iterable, Mapping
from functools import partial
from typing import Any

from ..client import A2AClient, TransportError
from ..protocol.dialects import Dialect, get_dialect
from ..protocol.errors import JsonRpcError, ProtocolError
from ..protocol.methods import Method
from ..protocol.rest import has as rest_has
from ..session.diff import (
    DiffReport,
    ExchangeDiff,
    Outcome,
    TaskLabels,
    compare,
    exchanges,
    fresh_id,
    id_slots,
    outcome,
    set_path,
)
from ..session.events import Event, Kind
from ..session.exchange import RecordedExchange
from ..session.log import Session
from ..session.redact import REDACTED
from ..session.tracker import TaskTracker

#: The A2A methods re-sent (card GETs and dialect probes are the client's own business).
RESENT = frozenset(
    {
        "send",
        "stream",
        "get",
        "cancel",
        "resubscribe",
        "push-set",
        "push-get",
        "push-list",
        "push-delete",
        "list",
        "extended-card",
    }
)
#: Request headers the live client sets itself; everything else recorded is sent again.
_OWN_HEADERS = frozenset(
    {
        "host",
        "content-length",
        "content-type",
        "accept",
        "accept-encoding",
        "connection",
        "user-agent",
        "a2a-version",
        "transfer-encoding",
    }
)
#: Transport failures that mean the live agent was not reached, not that it behaved.
_UNREACHED = frozenset({"connect", "timeout"})
#: Seconds to wait for a call to reach the wire, or an earlier stream to catch up.
_PATIENCE = 30.0


def recorded_headers(exs: list[RecordedExchange]) -> tuple[dict[str, str], list[str]]:
    """Extra headers of the recorded A2A requests (those the user added with -H), and
    the names of those whose value was redacted (not re-sent)."""
    extra: dict[str, str] = {}
    redacted: list[str] = []
    for ex in exs:
        headers = ex.data.get("headers")
        if not isinstance(headers, dict):
            continue
        for name, value in headers.items():
            if not isinstance(name, str) or not isinstance(value, str) or name.lower() in _OWN_HEADERS:
                continue
            if REDACTED in value:
                if name not in redacted:
                    redacted.append(name)
                continue
            extra.setdefault(name, value)
    return extra, redacted


class _IdMap:
    """Recorded id -> the id to send the live agent."""

    def __init__(self) -> None:
        self.learned: dict[str, str] = {}
        self.chosen: dict[str, str] = {}

    def get(self, recorded: str, key: str) -> str:
        if key == "messageId":
            # Every message is new to the live agent.
            return str(uuid.uuid4())
        hit = self.learned.get(recorded) or self.chosen.get(recorded)
        if hit is None:
            # Chosen by the client in the recording (a 0.1 task id, a contextId given
            # with --context-id): choose a new one, the same each time it recurs.
            hit = self.chosen[recorded] = fresh_id(recorded)
        return hit


async def diff_against(
    recording: Any,
    url: str,
    *,
    session: Session | None = None,
    dialect: str | None = None,
    card_url: str | None = None,
    headers: Mapping[str, str] | None = None,
    auth: Any = None,
    timeouts: Any = None,
    progress: Callable[[ExchangeDiff], None] | None = None,
    limits: Any = None,
    binding: str | None = None,
    tls: Any = None,
    oauth2: Any = None,
    on_token: Iterable[Callable[[str], None]] = (),
) -> DiffReport:
    """Re-send ``recording``'s A2A requests to the agent at ``url`` and compare.
    ``binding`` (jsonrpc, rest, grpc) overrides the recorded one, as ``dialect`` does.

    ``session`` receives the live traffic (attach a Recorder to keep it); ``dialect``
    overrides the recorded dialect; ``tls``: client.tls.TlsOptions; ``headers``/``auth`` are sent with every request
    (the recording's own extra headers are sent too, except redacted ones); ``oauth2``:
    client.oauth2.ClientCredentials, each token issued handed to ``on_token`` too."""
    report = DiffReport(url)
    rec_session: Session = recording.session
    all_exs = exchanges(rec_session.events)
    targets = [ex for ex in all_exs if ex.a2a_method in RESENT and ex.is_rpc]
    for ex in all_exs:
        if ex.a2a_method in RESENT and not ex.is_rpc:
            report.notes.append(
                f"exchange #{ex.number} ({ex.a2a_method}) not re-sent: its recorded request is not "
                "an A2A request (JSON-RPC or REST)"
            )
    extra, redacted = recorded_headers(targets)
    given = {k.lower() for k in (headers or {})} | {k.lower() for k in (auth.headers() if auth else {})}
    if oauth2 is not None:
        given.add("authorization")
    redacted = [name for name in redacted if name.lower() not in given]
    if redacted:
        report.notes.append(
            "recorded with redacted " + ", ".join(redacted) + ": not re-sent (give them with -H, --bearer or --api-key)"
        )
    live = session if session is not None else Session()

    def new_client(name: str, over: str) -> A2AClient:
        client = A2AClient(
            url,
            session=live,
            dialect=name,
            card_url=card_url,
            headers={**extra, **(headers or {})},
            auth=auth,
            timeouts=timeouts,
            limits=limits,
            binding=over,
            tls=tls,
            oauth2=oauth2,
        )
        if client.oauth2 is not None:
            client.oauth2.on_token.extend(on_token)
        return client

    resend = _Resend(report, rec_session, live, new_client, dialect, binding)
    await resend.send_all(targets)
    resend.compare_all(targets, progress)
    return report


class _Resend:
    """One ``diff_against`` run: the live calls in flight and what they have taught us
    about the live agent's ids."""

    def __init__(
        self,
        report: DiffReport,
        recorded: Session,
        live: Session,
        new_client: Callable[[str, str], A2AClient],
        dialect: str | None,
        binding: str | None = None,
    ) -> None:
        self.report = report
        self.live = live
        self.rec_tracker = TaskTracker(recorded)
        self.live_tracker = TaskTracker(live)
        self.new_client = new_client
        self.dialect = dialect
        #: Overrides each exchange's recorded binding when given.
        self.binding = binding
        self.clients: dict[tuple[str, str], A2AClient] = {}
        self.ids = _IdMap()
        #: recorded exchange number -> (live exchange number or None, the running call)
        self.runs: dict[int, tuple[list[int | None], asyncio.Task[Any]]] = {}

    def client_for(self, name: str, binding: str = "jsonrpc") -> A2AClient:
        c = self.clients.get((name, binding))
        if c is None:
            c = self.clients[(name, binding)] = self.new_client(name, binding)
        return c

    # -- sending ----------------------------------------------------------------

    async def send_all(self, targets: list[RecordedExchange]) -> None:
        report = self.report
        try:
            for ex in targets:
                await self.wait_for_earlier(ex, targets)
                self.learn()
                prepared = self.prepare(ex)
                if prepared is None:
                    continue
                codec, method, params = prepared
                slot: list[int | None] = [None]
                over = self.binding or ex.binding
                task = asyncio.create_task(self.run(ex, method, self.client_for(codec.name, over), params, slot))
                self.runs[ex.number] = (slot, task)
                # Let it reach the wire before the next one is considered.
                await _until(partial(_on_wire, slot, task), _PATIENCE)
                if task.done():
                    failure = self.unreached(slot[0], ex)
                    if failure is not None:
                        report.transport_error = failure
                        break
            for _slot, task in self.runs.values():
                await task
        except TransportError as exc:  # pragma: no cover - run() catches these
            report.transport_error = str(exc)
        finally:
            for _slot, task in self.runs.values():
                if not task.done():
                    task.cancel()
            for c in self.clients.values():
                await c.aclose()
        if report.transport_error is None:
            for number, (slot, _task) in self.runs.items():
                failure = self.unreached(slot[0], next(e for e in targets if e.number == number))
                if failure is not None:
                    report.transport_error = failure
                    break
        if report.transport_error is None and not self.runs and targets:
            report.transport_error = "nothing could be re-sent"

    async def wait_for_earlier(self, ex: RecordedExchange, targets: list[RecordedExchange]) -> None:
        """Wait for what had finished before ``ex`` was sent in the recording; an exchange
        still running then (a stream being canceled) runs on, once the live one has got as
        far as the recorded one had."""
        for number, (_slot, task) in list(self.runs.items()):
            earlier = next(e for e in targets if e.number == number)
            if earlier.last_t <= ex.request.t:
                await task
            else:
                seen = sum(1 for e in earlier.stream if e.kind in (Kind.SSE, Kind.MESSAGE) and e.t <= ex.request.t)
                await _until(partial(self.caught_up, number, seen), _PATIENCE)

    def prepare(self, ex: RecordedExchange) -> tuple[Dialect, Method, Any] | None:
        """The codec, method and params to send ``ex`` again with (its ids rewritten to
        the live agent's), or None after noting why it is not re-sent."""
        notes = self.report.notes
        method = Method(ex.a2a_method)
        name = self.dialect or ex.dialect or "0.3"
        try:
            codec = get_dialect(name)
        except ValueError as exc:
            notes.append(f"exchange #{ex.number} not re-sent: {exc}")
            return None
        body = json.loads(json.dumps(ex.body_json))
        for path, value in list(id_slots(body)):
            set_path(body, path, self.ids.get(value, str(path[-2] if isinstance(path[-1], int) else path[-1])))
        try:
            rpc = get_dialect(ex.rpc_dialect or name).decode_request(body)
        except (JsonRpcError, ProtocolError) as exc:
            notes.append(f"exchange #{ex.number} not re-sent: its recorded request does not decode ({exc})")
            return None
        if not codec.has(method):
            notes.append(f"exchange #{ex.number} not re-sent: dialect {codec.name} has no {method.value}")
            return None
        if (self.binding or ex.binding) == "rest" and not rest_has(codec.name, method):
            notes.append(
                f"exchange #{ex.number} not re-sent: the {codec.label} dialect has no "
                f"HTTP+JSON/REST route for {method.value}"
            )
            return None
        if (self.binding or ex.binding) == "grpc":
            from ..protocol.grpc_codec import has as grpc_has

            if not grpc_has(codec.name, method):
                notes.append(
                    f"exchange #{ex.number} not re-sent: the {codec.label} dialect has no gRPC RPC for {method.value}"
                )
                return None
        return codec, method, rpc.params

    async def run(
        self, ex: RecordedExchange, method: Method, client: A2AClient, params: Any, slot: list[int | None]
    ) -> None:
        def watch(event: Event) -> None:
            if slot[0] is None and event.kind is Kind.REQUEST and event.data.get("a2a_method") == method.value:
                slot[0] = event.exchange

        self.live.subscribe(watch)
        try:
            if method.streams:
                await client.stream_call(method, params).drain()  # compared from the session
            else:
                await client.call(method, params)
        except (JsonRpcError, ProtocolError, TransportError):
            pass  # on record in the live session, compared below
        except Exception as exc:  # noqa: BLE001 - one odd exchange must not end the comparison
            self.report.notes.append(f"exchange #{ex.number}: the request could not be made: {exc}")
        finally:
            self.live.unsubscribe(watch)

    # -- what the live agent has said so far --------------------------------------

    def learn(self) -> None:
        """Pair the recorded exchanges' tasks and contexts with the live ones."""
        rec, live, learned = self.rec_tracker, self.live_tracker, self.ids.learned
        for number, (slot, _task) in self.runs.items():
            live_number = slot[0]
            if live_number is None:
                continue
            rex = rec.exchanges.get(number)
            lex = live.exchanges.get(live_number)
            if rex is None or lex is None:
                continue
            if rex.task_id and lex.task_id:
                learned[rex.task_id] = lex.task_id
                rtask, ltask = rec.tasks.get(rex.task_id), live.tasks.get(lex.task_id)
                if rtask and ltask and rtask.context_id and ltask.context_id:
                    learned[rtask.context_id] = ltask.context_id
            if rex.reply is not None and lex.reply is not None and rex.reply.context_id and lex.reply.context_id:
                learned[rex.reply.context_id] = lex.reply.context_id

    def caught_up(self, number: int, events: int) -> bool:
        """The live exchange of recorded ``number`` has had ``events`` events, or ended."""
        return self.live_events(number) >= events or self.runs[number][1].done()

    def live_events(self, number: int) -> int:
        slot = self.runs[number][0]
        if slot[0] is None:
            return 0
        lex = self.live_tracker.exchanges.get(slot[0])
        return lex.events if lex is not None else 0

    def unreached(self, live_number: int | None, recorded: RecordedExchange) -> str | None:
        """The failure message when the live agent was never reached for this exchange
        (and the recording did reach it)."""
        if any(e.data.get("type") in _UNREACHED for e in recorded.errors) and recorded.response is None:
            return None
        live = self.live
        events = live.events if live_number is None else [e for e in live.events if e.exchange == live_number]
        got_response = any(e.kind is Kind.RESPONSE for e in events)
        if live_number is not None and got_response:
            return None
        for event in reversed(events):
            if event.kind is Kind.ERROR and event.data.get("type") in _UNREACHED:
                return str(event.data.get("message"))
        if live_number is None:
            # The request was never sent: discovery failed (no card, agent unreachable).
            for event in reversed(live.events):
                if event.kind is Kind.ERROR and event.data.get("type") in _UNREACHED:
                    return str(event.data.get("message"))
        return None

    # -- comparing ----------------------------------------------------------------

    def compare_all(self, targets: list[RecordedExchange], progress: Callable[[ExchangeDiff], None] | None) -> None:
        report = self.report
        labels_rec, labels_live = TaskLabels(), TaskLabels()
        live_exs = {ex.number: ex for ex in exchanges(self.live.events)}
        for ex in targets:
            if ex.number not in self.runs:
                continue
            recorded = outcome(ex, labels_rec)
            live_number = self.runs[ex.number][0][0]
            live_ex = live_exs.get(live_number) if live_number is not None else None
            if report.transport_error is not None and (live_ex is None or live_ex.response is None):
                continue  # not compared: the agent was not reached
            if live_ex is not None:
                got = outcome(live_ex, labels_live)
            else:
                got = Outcome(ex.number, ex.a2a_method, recorded.text, skipped="no request reached the agent")
                got.failures = _session_failures(self.live)
            diff = ExchangeDiff(recorded, got, live_number, compare(recorded, got))
            report.exchanges.append(diff)
            if progress is not None:
                progress(diff)


def _session_failures(live: Session) -> list[str]:
    out: list[str] = []
    for event in live.events:
        if event.kind is Kind.ERROR:
            kind = event.data.get("type")
            if isinstance(kind, str) and kind not in out:
                out.append(kind)
    return out


def _on_wire(slot: list[int | None], task: asyncio.Task[Any]) -> bool:
    """The run has sent its request (its live exchange number is in ``slot``), or ended."""
    return slot[0] is not None or task.done()


async def _until(ready: Callable[[], bool], limit: float) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limit
    while not ready() and loop.time() < deadline:
        await asyncio.sleep(0.005)
