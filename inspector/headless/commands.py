"""The headless commands. Each builds a session, talks through the client, reads the
tracker's projection, and prints it in the chosen output format."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from typing import Any
from urllib.parse import urlsplit

from ..client import A2AClient, Auth, Limits, Timeouts, TransportError
from ..protocol import models as m
from ..protocol.errors import JsonRpcError, ProtocolError
from ..protocol.methods import Method
from ..session import Kind, Recorder, Session, TaskTracker
from ..textsafe import shorten, visible
from . import exitcodes
from .compose import UsageError, build_message, load_json_arg
from .metadata_text import metadata_lines
from .method_hints import no_stream_hint, no_stream_warning, spelling_hint
from .output import FORMAT_VERSION, LazyList, LazyText, Out, event_json
from .render import card_lines, message_lines, message_text, part_lines, text_lines
from .waiting_tasks import WaitingTasks, continue_waiting

# A coroutine, not any awaitable: the CLI hands it to asyncio.run.
Handler = Callable[[argparse.Namespace, Out], Coroutine[Any, Any, int]]

#: Messages of a task's history a command holds in memory; older ones wait on disk
#: for the summary (an agent streaming tokens as status messages sends thousands).
MESSAGES_KEPT = 1000


# ------------------------------------------------------------------------- plumbing


def _headers(values: list[str], option: str = "-H") -> dict[str, str]:
    headers: dict[str, str] = {}
    for raw in values:
        name, sep, value = raw.partition(":")
        if not sep or not name.strip():
            raise UsageError(f"{option} expects 'Name: value', got {raw!r}")
        headers[name.strip()] = value.strip()
    return headers


def _method_names(values: list[str]) -> dict[str, str]:
    names: dict[str, str] = {}
    for raw in values:
        method, sep, name = raw.partition("=")
        if not sep or not method.strip() or not name.strip():
            raise UsageError(f"--method-name expects METHOD=NAME (e.g. resubscribe=task/resubscribe), got {raw!r}")
        known = [m.value for m in Method]
        if method.strip() not in known:
            raise UsageError(f"--method-name: no method {method.strip()!r}; methods: {', '.join(known)}")
        names[method.strip()] = name.strip()
    return names


def _auth(args: argparse.Namespace) -> Auth | None:
    """Every credential given, as one Auth: --bearer, --api-key or --basic, and the
    --secret-header headers."""
    given = [x for x in (args.bearer, args.api_key, args.basic) if x]
    if len(given) > 1:
        raise UsageError("give only one of --bearer, --api-key, --basic")
    auth = None
    if args.bearer:
        auth = Auth.bearer(args.bearer)
    elif args.api_key:
        auth = Auth.api_key(args.api_key, header=args.api_key_header)
    elif args.basic:
        user, sep, password = args.basic.partition(":")
        if not sep:
            raise UsageError("--basic expects USER:PASSWORD")
        auth = Auth.basic(user, password)
    secret = _headers(getattr(args, "secret_header", None) or [], "--secret-header")
    if secret:
        auth = Auth.custom(secret) if auth is None else auth + Auth.custom(secret)
    return auth


def redaction_for(args: argparse.Namespace, settings: Any, url: str | None) -> Any:
    """What a recording of this command redacts: the built-in and settings' names, every
    credential option (whatever its header's name), -H headers with secret names, and
    secret query parameters of the URLs given; ``--no-redact`` or the settings turn it off."""
    from ..session.redact import Redaction

    auth = _auth(args)
    return Redaction.for_connection(
        enabled=settings.redact and not args.no_redact,
        extra_names=settings.redact_headers,
        credentials=auth.headers() if auth else None,
        headers=_headers(args.header),
        urls=(url, getattr(args, "card_url", None)),
        values=(getattr(args, "token", None), getattr(args, "oauth2_client_secret", None)),
        plain_names=settings.plain_headers,
    )


def terminal_redaction(args: argparse.Namespace) -> Any:
    """What a command's stdout and stderr are spared (CI logs keep them): what a
    recording is, whatever ``--no-redact`` or the settings' ``redact`` say of recordings."""
    from .. import store
    from ..session.redact import Redaction

    settings = store.load_settings()[0]
    try:
        auth = _auth(args)
        headers = _headers(getattr(args, "header", None) or [])
    except (AttributeError, UsageError):  # a command without them; a mistake said later
        auth, headers = None, {}
    urls = [getattr(args, name, None) for name in ("url", "card_url", "against")]
    return Redaction.for_connection(
        extra_names=settings.redact_headers,
        credentials=auth.headers() if auth else None,
        headers=headers,
        urls=[u for u in urls if isinstance(u, str)],
        values=(getattr(args, "token", None), getattr(args, "oauth2_client_secret", None)),
        plain_names=settings.plain_headers,
    )


def start_recorder(session: Session, args: argparse.Namespace) -> Recorder | None:
    """``--record FILE`` (``--record`` alone: a new, readably named file in the data
    directory), redacted as the settings say: ``redact_headers`` adds secret names,
    ``redact: false`` or ``--no-redact`` records secrets as sent."""
    record = getattr(args, "record", None)
    if record is None:
        return None
    import sys

    from .. import store

    settings, _problem = store.load_settings()
    path: Any = record
    url = getattr(args, "url", None) or getattr(args, "against", None)
    if record == "":
        path = store.default_recording_path(url or "agent", settings)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UsageError(f"cannot record to {path}: {exc.strerror or exc}") from None
    append = bool(getattr(args, "append", False))
    try:
        recorder = Recorder.attach(session, path, redact=redaction_for(args, settings, url), append=append)
    except FileExistsError:
        raise UsageError(
            f"{path} exists: --append adds this session to it (a recording holds several); or record to another file"
        ) from None
    except ValueError as exc:  # --append to a file that is not a recording
        raise UsageError(str(exc)) from None
    except OSError as exc:
        raise UsageError(f"cannot record to {path}: {exc.strerror or exc}") from None
    if record == "":
        print(f"a2a-inspect: recording to {path}", file=sys.stderr, flush=True)
    return recorder


def _names() -> tuple[list[str], list[str]]:
    """The settings' secret and plain header names."""
    from .. import store

    settings = store.load_settings()[0]
    return settings.redact_headers, settings.plain_headers


def client_bounds(args: argparse.Namespace) -> tuple[Timeouts, Limits]:
    """--timeout, --stream-timeout and the --max-body/--max-event/--max-stream-* sizes as the
    client takes them. An explicit --timeout bounds a stalled stream too, unless
    --stream-timeout says otherwise."""
    timeout, stream = getattr(args, "timeout", None), getattr(args, "stream_timeout", None)
    ordinary = timeout if timeout is not None else 30.0
    timeouts = Timeouts(
        connect=ordinary,
        read=ordinary,
        stream_read=stream if stream is not None else timeout if timeout is not None else 300.0,
    )
    given = {
        name: getattr(args, name, None) for name in ("max_body", "max_event", "max_stream_events", "max_stream_body")
    }
    return timeouts, Limits(**{name: value for name, value in given.items() if value is not None})


@contextlib.asynccontextmanager
async def max_time(args: argparse.Namespace, session: Session) -> AsyncIterator[None]:
    """--max-time: the body is cancelled when it runs out, noted in the session, and a
    TransportError("timeout") raised in its place."""
    seconds = getattr(args, "max_time", None)
    if seconds is None:
        yield
        return
    deadline = asyncio.timeout(seconds)
    try:
        async with deadline:
            yield
    except TimeoutError:
        if not deadline.expired():
            raise
        text = f"gave up after {seconds:g} s (--max-time)"
        session.append(Kind.NOTE, {"text": text})
        raise TransportError("timeout", text) from None


@contextlib.asynccontextmanager
async def connect(args: argparse.Namespace) -> AsyncIterator[tuple[A2AClient, Session, TaskTracker]]:
    """A client on a fresh session with a tracker, recording when asked. The session
    keeps no history: what a command prints comes from the tracker's projection and
    the events as they arrive, and a recording goes to disk as they do. The tracker's
    long histories and artifacts' text wait on disk until the command prints them."""
    session = Session(keep=0, store=None)
    tracker = TaskTracker(session, messages_kept=MESSAGES_KEPT, spill_text=True)
    recorder = start_recorder(session, args)
    timeouts, limits = client_bounds(args)
    dialect = "0.3" if args.dialect == "0.2" else args.dialect
    binding = getattr(args, "binding", None) or "auto"
    if binding in ("rest", "grpc") and dialect == "0.1":
        label = "gRPC" if binding == "grpc" else "HTTP+JSON/REST"
        raise UsageError(f"--binding {binding}: the 0.1 draft has no {label} binding (choose --dialect 0.3 or 1.0)")
    if binding not in ("auto", "grpc") and urlsplit(args.url or "").scheme.lower() in ("grpc", "grpcs"):
        raise UsageError(f"--binding {binding}: {args.url} is a gRPC URL (use --binding grpc or auto)")
    for given in (args.url, args.card_url):
        try:
            urlsplit(given or "").port  # noqa: B018 - the property parses the port, raising ValueError
        except ValueError as exc:  # urllib's own words: "Invalid IPv6 URL", "Port out of range"
            raise UsageError(f"not a usable URL: {given!r} ({exc})") from None
    secret_names, plain_names = _names()
    from .tls_args import tls_options

    tls = tls_options(args)
    oauth2 = oauth2_credentials(args)
    try:
        async with max_time(args, session):
            try:
                client = A2AClient(
                    args.url,
                    session=session,
                    dialect=dialect,
                    card_url=args.card_url,
                    headers=_headers(args.header),
                    auth=_auth(args),
                    timeouts=timeouts,
                    method_names=_method_names(getattr(args, "method_name", None) or []),
                    secret_names=secret_names,
                    plain_names=plain_names,
                    limits=limits,
                    binding=binding,
                    tls=tls,
                    oauth2=oauth2,
                )
            except ValueError as exc:  # an unknown method, or a spelling no dialect has
                raise UsageError(f"--method-name: {exc}") from None
            client.on_warning = _warn(args)
            if client.oauth2 is not None:
                from .output import CURRENT

                # The token is a secret from the moment it exists: the recording's and
                # the terminal's redaction learn it then.
                sinks = [
                    recorder.add_secret if recorder is not None else None,
                    getattr(CURRENT.get(), "add_secret", None),
                ]
                client.oauth2.on_token.extend(s for s in sinks if s is not None)
            async with client:
                try:
                    yield client, session, tracker
                except (TransportError, JsonRpcError) as exc:
                    # Refused, and the card says how to authenticate: say so, in one line.
                    from ..client.auth import auth_hint

                    status = getattr(exc, "status", None) or getattr(exc, "http_status", None)
                    hint = auth_hint(client.card, status) if not _auth_given(args) else None
                    hint = hint or getattr(exc, "hint", None) or card_hint(client)
                    if hint:
                        exc.hint = hint  # type: ignore[union-attr]
                    raise
    finally:
        if recorder is not None:
            recorder.close()
        tracker.close()


def _warn(args: argparse.Namespace) -> Callable[[str], None]:
    """Say a warning on stderr, one line after ``a2a-inspect: warning:``, its secrets
    redacted as the command's error lines are."""
    import sys

    from ..textsafe import clip, visible

    def warn(text: str) -> None:
        shown = clip(terminal_redaction(args).shown(text))
        try:
            print(f"a2a-inspect: warning: {visible(shown, single_line=True)}", file=sys.stderr, flush=True)
        except BrokenPipeError:  # pragma: no cover - stderr closed
            pass

    return warn


def card_hint(client: A2AClient) -> str | None:
    """On a failure after a guess: that the card lists no such interface, and the way
    back to one it lists."""
    missing = client.not_in_card
    if missing is None:
        return None
    way = missing.way("--dialect {} uses it", f"--{missing.axis} auto uses one it lists")
    return f"{missing.text}, so {client.endpoint} was a guess: {way}"


def _auth_given(args: argparse.Namespace) -> bool:
    return bool(
        args.bearer
        or args.api_key
        or args.basic
        or getattr(args, "secret_header", None)
        or getattr(args, "oauth2_client_id", None)
    )


def oauth2_credentials(args: argparse.Namespace) -> Any:
    """--oauth2-client-id and its secret (client.oauth2.ClientCredentials), or None."""
    client_id = getattr(args, "oauth2_client_id", None)
    secret = getattr(args, "oauth2_client_secret", None)
    extra = [name for name in ("oauth2_scope", "oauth2_token_url") if getattr(args, name, None)]
    if client_id is None:
        if secret is not None or extra:
            raise UsageError("--oauth2-client-secret, --oauth2-scope and --oauth2-token-url go with --oauth2-client-id")
        return None
    if not secret:
        raise UsageError(
            "--oauth2-client-id: give the client secret too (--oauth2-client-secret @FILE, "
            "or --oauth2-client-secret-env VAR)"
        )
    from ..client.oauth2 import ClientCredentials

    scopes = getattr(args, "oauth2_scope", None)
    return ClientCredentials(
        client_id,
        secret,
        tuple(s for given in scopes for s in given.split()) if scopes else None,
        getattr(args, "oauth2_token_url", None),
    )


def _violation_json(v: Any) -> dict[str, Any]:
    return {"code": v.code, "severity": v.severity, "message": v.message, "seq": v.seq, "taskId": v.task_id}


def _artifact_json(a: Any) -> dict[str, Any]:
    parts = a.parts
    # Written a part and a piece of text at a time (Out.json_doc): a million-chunk
    # artifact's parts as dicts, and its text joined, were each several times its text.
    return {
        "artifactId": a.artifact_id,
        "index": a.index,
        "name": a.name,
        "description": a.description,
        "parts": LazyList(lambda: map(event_json, parts.each())),
        "text": LazyText(parts.pieces),
        "chunks": len(a.chunks),
        "closed": a.closed,
        "metadata": a.metadata,
    }


def _remark_json(r: Any) -> dict[str, Any]:
    out: dict[str, Any] = {
        "kind": r.kind,
        "seq": r.seq,
        "t": round(r.t, 6),
        "state": r.state.value if r.state else None,
        "text": r.text,
    }
    if r.error is not None:
        out.update(code=r.error.code, message=r.error.message, data=r.error.data)
    return out


def task_json(view: Any) -> dict[str, Any]:
    return {
        "id": view.id,
        "contextId": view.context_id,
        "state": view.state.value if view.state else None,
        "statusMessage": event_json(view.status_message) if view.status_message else None,
        "artifacts": [_artifact_json(a) for a in view.artifacts.values()],
        "history": event_json(list(view.history)),
        "timeline": [{"state": c.state.value, "t": round(c.t, 6)} for c in view.timeline],
        # Not states: late reports, JSON-RPC errors and a stream cut at a limit; "error" is
        # the agent's latest word.
        "remarks": [_remark_json(r) for r in view.remarks],
        "error": _remark_json(view.error) if view.error is not None else None,
        "metadata": view.metadata,
    }


def task_text(view: Any, out: Out) -> None:
    path = " → ".join(c.state.value for c in view.timeline) or "-"
    took = view.timeline[-1].t - view.timeline[0].t if len(view.timeline) > 1 else 0.0
    out.line(f"task     {shorten(view.id, 80)}")
    if view.context_id:
        out.line(f"context  {shorten(view.context_id, 80)}")
    state = view.state.value if view.state else "unknown"
    error = view.error.error if view.error is not None else None
    then = f", then error {error.code}" if error is not None else ""
    out.line(f"state    {state}{then}   ({path}{f', {took:.2f} s' if took else ''})")
    if error is not None:
        out.line(f"error    {error.code}: {shorten(error.message or '', 500)}")
    for r in view.remarks:
        if r.kind == "late":
            out.line(f"late     {shorten(r.text, 300)}")
    if view.status_message is not None:
        label = {
            "input-required": "question",
            "auth-required": "needs auth",
            "failed": "reason",
            "rejected": "reason",
        }.get(state, "message")
        out.line(f"{label:<8} {message_text(view.status_message, 500)}")
        for part in view.status_message.parts:
            if not isinstance(part, m.TextPart):
                for line in part_lines(part, "         "):
                    out.line(line)
    _metadata_text(view.metadata, "metadata ", out)
    for a in view.artifacts.values():
        title = a.name or a.artifact_id or (f"#{a.index}" if a.index is not None else "artifact")
        extra = f", {len(a.chunks)} chunk{'s' if len(a.chunks) != 1 else ''}" if a.chunks else ""
        ident = f" ({shorten(a.artifact_id, 40)})" if a.artifact_id and a.name else ""
        out.line(f"artifact {shorten(title, 60)}{ident}{extra}")
        _metadata_text(a.metadata, "  metadata ", out)
        # Chunks of one text split across parts read as one text; other parts stand alone.
        # A run of text is read a piece at a time: a million chunks are never one string.
        parts = a.parts
        for run in parts.spans(0, len(parts)):
            if run.__class__ is tuple:
                for line in text_lines(parts.pieces(*run)):
                    out.line("  " + visible(line))
            else:
                for line in part_lines(run):
                    out.line(line)


def _metadata_text(metadata: Any, label: str, out: Out) -> None:
    for i, line in enumerate(metadata_lines(metadata, " " * len(label))):
        out.line(label + line[len(label) :] if i == 0 else line)


def violations_text(violations: list[Any], out: Out) -> None:
    for v in violations:
        out.line(f"{'✗' if v.severity == 'error' else '!'} {v.code}: {shorten(v.message, 200)}")


def _progress(ev: Any, t: float, out: Out) -> None:
    if isinstance(ev, m.Task):
        out.line(f"[{t:6.2f}s] task {shorten(ev.id, 40)} {ev.status.state.value}")
    elif isinstance(ev, m.TaskStatusUpdateEvent):
        text = message_text(ev.status.message, 120)
        out.line(f"[{t:6.2f}s] {ev.status.state.value}{': ' + text if text else ''}")
    elif isinstance(ev, m.TaskArtifactUpdateEvent):
        a = ev.artifact
        size = sum(len(p.text) for p in a.parts if isinstance(p, m.TextPart))
        flags = ", ".join(
            f
            for f, on in (
                ("append", ev.append if ev.append is not None else a.append),
                ("last", ev.last_chunk if ev.last_chunk is not None else a.last_chunk),
            )
            if on
        )
        name = a.name or a.artifact_id or (f"#{a.index}" if a.index is not None else "")
        out.line(f"[{t:6.2f}s] artifact {shorten(name, 40)} +{size} chars{f' ({flags})' if flags else ''}")
    elif isinstance(ev, m.Message):
        out.line(f"[{t:6.2f}s] message: {message_text(ev, 120)}")


# ------------------------------------------------------------------------- results


async def _finish(
    args: argparse.Namespace,
    out: Out,
    tracker: TaskTracker,
    task_id: str | None,
    reply: m.Message | None,
    error: BaseException | None,
    *,
    streamed: bool,
    command: str,
) -> int:
    """Print the outcome of a send/get/cancel/resubscribe (``command``; a streamed send
    is "stream") and return the exit code."""
    view = tracker.tasks.get(task_id) if task_id else None
    if view is not None:
        WaitingTasks().note(args.url, view, terminal_redaction(args).shown)
    # Everything the agent got wrong in this command's session, its task's first.
    violations = list(view.violations) if view is not None else []
    violations += [v for v in tracker.violations if v not in violations]
    code = exitcodes.OK
    notice = None
    if error is not None:
        code = exitcodes.TRANSPORT
    elif view is not None or command == "cancel":
        state = view.state if view is not None else None
        code = exitcodes.for_state(state, command)
        notice = _notice(args, command, task_id, state)
    code = exitcodes.judged(code, violations, getattr(args, "lenient", False))
    if args.output == "json":
        doc = {
            "formatVersion": FORMAT_VERSION,
            "task": task_json(view) if view is not None else None,
            "message": event_json(reply) if reply is not None else None,
            "violations": [_violation_json(v) for v in violations],
            "error": _error_json(error),
            "notice": notice,
            "exitCode": code,
        }
        out.json_doc(doc)
    elif args.output == "ndjson":
        for v in violations:
            out.json_line({"kind": "violation", **_violation_json(v)})
        if error is not None:
            out.json_line({"kind": "error", **(_error_json(error) or {})})
        else:
            if notice is not None:
                out.json_line({"kind": "notice", "message": notice})
            _exit_line(out, violations, code, notice is not None)
    else:
        if streamed and (view is not None or reply is not None):
            out.line()
        if view is not None:
            task_text(view, out)
        if reply is not None:
            for line in message_lines(reply):
                out.line(line)
        violations_text(violations, out)
        if notice is not None:
            out.line(notice)
    if error is not None:
        raise error
    return code


def _notice(args: argparse.Namespace, command: str, task_id: str | None, state: m.TaskState | None) -> str | None:
    """What a script cannot tell from the state alone: a cancel the agent did not carry
    out, or a task still running after the command, and how to follow it."""
    shown = state.value if state is not None else "in no state (the answer named no task)"
    if command == "cancel":
        if state is m.TaskState.CANCELED:
            return None
        later = f"; it may still end it: {_follow(args, 'get', task_id)}" if state in exitcodes.RUNNING else ""
        return f"not canceled: the agent did not cancel the task, which is {shown}{later}"
    if state in exitcodes.RUNNING and command != "get":
        return (
            f"still running: the task is {shown}; follow it with {_follow(args, 'resubscribe', task_id)} "
            f"(or {_follow(args, 'get', task_id)})"
        )
    return None


def _follow(args: argparse.Namespace, command: str, task_id: str | None) -> str:
    """The command line that follows the task (its id quoted for a shell; an id no shell
    line should carry, an agent's control characters or a kilobyte of it, as TASK_ID)."""
    import shlex

    fits = task_id is not None and len(task_id) <= 200 and visible(task_id, single_line=True) == task_id
    ident = shlex.quote(task_id) if fits and task_id is not None else "TASK_ID"
    extra = [
        f"--{name} {getattr(args, name)}"
        for name in ("dialect", "binding")
        if getattr(args, name, "auto") not in (None, "auto")
    ]
    return " ".join(["a2a-inspect", command, shlex.quote(args.url), ident, *extra])


def _exit_line(out: Out, violations: list[Any], code: int, news: bool = False) -> None:
    # Only beside findings or a notice, where the code is news: a clean stream stays
    # events only (and an "error" record already says why the code is 3).
    if violations or news:
        out.json_line({"kind": "exit", "exitCode": code})


def _judge(args: argparse.Namespace, out: Out, tracker: TaskTracker, code: int) -> int:
    """For commands that print no task: the findings, and the exit code they make."""
    violations = list(tracker.violations)
    code = exitcodes.judged(code, violations, getattr(args, "lenient", False))
    if args.output == "text":
        violations_text(violations, out)
    elif args.output == "ndjson":
        for v in violations:
            out.json_line({"kind": "violation", **_violation_json(v)})
        _exit_line(out, violations, code)
    return code


def _error_json(error: BaseException | None) -> dict[str, Any] | None:
    if error is None:
        return None
    hint = getattr(error, "hint", None)
    if isinstance(error, JsonRpcError):
        doc = {"type": "rpc", "code": error.code, "message": error.message, "data": error.data}
        if hasattr(error, "reason"):  # an HTTP+JSON error body, mapped to its JSON-RPC code
            doc.update(
                {
                    "httpStatus": getattr(error, "http_status", None),
                    "status": getattr(error, "status", None),
                    "reason": error.reason,
                }
            )
    elif isinstance(error, ProtocolError):
        doc = {"type": "protocol", "message": str(error), "path": error.path}
    elif isinstance(error, TransportError):
        doc = {"type": getattr(error, "kind", "transport"), "message": str(error)}
        if error.kind == "http" and error.status is not None:
            doc["httpStatus"] = error.status
        if error.detail is not None:
            doc["detail"] = error.detail
    else:
        doc = {"type": "error", "message": str(error)}
    if isinstance(hint, str):
        doc["hint"] = hint
    return doc


async def _consume(
    args: argparse.Namespace, out: Out, session: Session, client: A2AClient, events: AsyncIterator[Any]
) -> tuple[str | None, m.Message | None, BaseException | None]:
    """Drain a stream, printing progress; returns (task id, message reply, error)."""
    task_id: str | None = None
    reply: m.Message | None = None
    try:
        async for ev in events:
            t = session.last.t if session.last is not None else 0.0
            if args.output == "ndjson":
                out.json_line(event_json(ev))
            elif args.output == "text":
                _progress(ev, t, out)
            if isinstance(ev, m.Task):
                task_id = task_id or ev.id
            elif isinstance(ev, (m.TaskStatusUpdateEvent, m.TaskArtifactUpdateEvent)):
                task_id = task_id or ev.task_id
            elif isinstance(ev, m.Message):
                reply = ev
                task_id = task_id or ev.task_id
    except (JsonRpcError, ProtocolError, TransportError) as exc:
        return task_id, reply, _tag(client, exc)
    return task_id, reply, None


def _single(result: Any) -> tuple[str | None, m.Message | None]:
    if isinstance(result, m.Task):
        return result.id, None
    if isinstance(result, m.Message):
        return result.task_id, result
    return None, None


def _tag(client: A2AClient, exc: BaseException) -> BaseException:
    # Error code names differ by dialect (Orloj's -32003 is "agent not found"): remember
    # which dialect the error came in so the message can name the code correctly.
    if isinstance(exc, JsonRpcError) and client.dialect is not None:
        exc.dialect = client.dialect  # type: ignore[attr-defined]
    hint = card_hint(client)
    if hint is not None and getattr(exc, "hint", None) is None:
        exc.hint = hint  # type: ignore[attr-defined]
    return exc


async def _call(client: A2AClient, call: Awaitable[Any]) -> tuple[Any, BaseException | None]:
    try:
        return await call, None
    except (JsonRpcError, ProtocolError, TransportError) as exc:
        return None, _tag(client, exc)


# ------------------------------------------------------------------------- commands


async def cmd_card(args: argparse.Namespace, out: Out) -> int:
    from ..protocol.lint import lint_card

    async with connect(args) as (client, _session, _tracker):
        card = await client.get_card()
        dialect = None
        try:
            dialect = (await client.resolve_dialect()).name
        except (JsonRpcError, ProtocolError, TransportError):
            dialect = None
        # A dialect given by the user is the client's from the start.
        forced = None if args.dialect == "auto" or client.dialect is None else client.dialect.name
        findings = lint_card(client.card_raw, forced, card_url=client.card_url)
        errors = any(f.severity == "error" for f in findings)
        if args.json or args.output == "json":
            out.json_doc(
                {
                    "formatVersion": FORMAT_VERSION,
                    "cardUrl": client.card_url,
                    "dialect": dialect,
                    "endpoint": client.endpoint,
                    "binding": client.binding,
                    "bindingReason": client.binding_reason,
                    "card": client.card_raw,
                    "findings": [
                        {"severity": f.severity, "code": f.code, "path": f.path, "message": f.message} for f in findings
                    ],
                }
            )
        else:
            # Cut to a terminal's width only on a terminal: piped, every value is whole.
            isatty = getattr(out.stream, "isatty", None)
            for line in card_lines(
                card,
                findings,
                card_url=client.card_url,
                dialect=dialect,
                endpoint=client.endpoint,
                binding=client.binding_reason,
                whole=not (callable(isatty) and isatty()),
            ):
                out.line(line)
        return exitcodes.TASK_FAILED if errors else exitcodes.OK


def _hint(error: BaseException | None, hint: str | None) -> None:
    """Give ``error`` the line said after it (run.fail), unless it has one already."""
    if error is not None and hint and not getattr(error, "hint", None):
        error.hint = hint  # type: ignore[attr-defined]


#: What a shell pipeline prints for an id that was not there (`jq -r .contextId` of a
#: reply without one): sent as given, but said, since it is almost never meant.
NOT_AN_ID = ("null", "undefined", "None")


def _warn_not_an_id(args: argparse.Namespace) -> None:
    for option, value in (("--task-id", args.task_id), ("--context-id", args.context_id)):
        if value in NOT_AN_ID:
            _warn(args)(
                f"{option} is the text {value!r}, what `jq -r` and the like print for a missing "
                "value; it is sent as that id"
            )


async def cmd_send(args: argparse.Namespace, out: Out) -> int:
    if getattr(args, "continue_waiting", False):
        continue_waiting(args)
    _warn_not_an_id(args)
    message = build_message(
        args.text,
        files=args.file,
        file_uris=args.file_uri,
        data=args.data,
        task_id=args.task_id,
        context_id=args.context_id,
    )
    metadata = load_json_arg(args.metadata, "--metadata") if args.metadata else None
    if metadata is not None and not isinstance(metadata, dict):
        raise UsageError("--metadata must be a JSON object")
    message_metadata = (
        load_json_arg(args.message_metadata, "--message-metadata") if getattr(args, "message_metadata", None) else None
    )
    if message_metadata is not None:
        if not isinstance(message_metadata, dict):
            raise UsageError("--message-metadata must be a JSON object")
        message.metadata = message_metadata
    early = bool(getattr(args, "return_immediately", False))
    if early and args.stream:
        raise UsageError("--return-immediately is for a send without --stream: a stream shows the task as it runs")
    config = None
    if args.history_length is not None or early:
        config = m.SendConfiguration(history_length=args.history_length, blocking=False if early else None)
    params = m.SendParams(message=message, configuration=config, metadata=metadata)
    async with connect(args) as (client, session, tracker):
        resolved = await client.resolve_dialect()
        if early and resolved.name == "0.1":
            # tasks/send has no such option: the agent would wait anyway, silently.
            raise UsageError(
                "--return-immediately: the 0.1 draft's tasks/send has no option to answer "
                "early (0.2/0.3 have blocking: false, 1.0 returnImmediately)"
            )
        if args.stream:
            assert client.dialect is not None
            spelled = client.method_names.get(Method.STREAM) or client.dialect.wire_method(Method.STREAM)
            warning = no_stream_warning(client.card, spelled)
            if warning:
                _warn(args)(warning)  # on stderr, before the stream's lines
            task_id, reply, error = await _consume(args, out, session, client, client.stream(params))
            _hint(error, no_stream_hint(error, client.card))
            return await _finish(args, out, tracker, task_id, reply, error, streamed=True, command="stream")
        result, error = await _call(client, client.send(params))
        if args.output == "ndjson" and result is not None:
            out.json_line(event_json(result))
        task_id, reply = _single(result)
        return await _finish(args, out, tracker, task_id, reply, error, streamed=False, command="send")


async def cmd_get(args: argparse.Namespace, out: Out) -> int:
    async with connect(args) as (client, _session, tracker):
        await client.resolve_dialect()
        result, error = await _call(client, client.get_task(args.task_id, history_length=args.history_length))
        if args.output == "ndjson" and result is not None:
            out.json_line(event_json(result))
        task_id, reply = _single(result)
        return await _finish(args, out, tracker, task_id, reply, error, streamed=False, command="get")


async def cmd_cancel(args: argparse.Namespace, out: Out) -> int:
    async with connect(args) as (client, _session, tracker):
        await client.resolve_dialect()
        result, error = await _call(client, client.cancel(args.task_id))
        if args.output == "ndjson" and result is not None:
            out.json_line(event_json(result))
        task_id, reply = _single(result)
        # The user asked for canceled: getting it is success, anything else is not.
        return await _finish(
            args, out, tracker, task_id or args.task_id, reply, error, streamed=False, command="cancel"
        )


async def cmd_resubscribe(args: argparse.Namespace, out: Out) -> int:
    async with connect(args) as (client, session, tracker):
        await client.resolve_dialect()
        task_id, reply, error = await _consume(args, out, session, client, client.resubscribe(args.task_id))
        _hint(error, spelling_hint(error, client.dialect, Method.RESUBSCRIBE, client.method_names))
        return await _finish(
            args, out, tracker, task_id or args.task_id, reply, error, streamed=True, command="resubscribe"
        )


async def cmd_list(args: argparse.Namespace, out: Out) -> int:
    state = None
    if args.state:
        try:
            state = m.TaskState(args.state)
        except ValueError:
            raise UsageError(
                f"unknown state {args.state!r}; one of: " + ", ".join(s.value for s in m.TaskState)
            ) from None
    params = m.ListTasksParams(
        context_id=args.context_id, status=state, page_size=args.page_size, page_token=args.page_token
    )
    async with connect(args) as (client, _session, tracker):
        await client.resolve_dialect()
        result: m.ListTasksResult = await client.list_tasks(params)
        if args.output == "json":
            out.json_doc({"formatVersion": FORMAT_VERSION, **event_json(result)})
        elif args.output == "ndjson":
            for task in result.tasks:
                out.json_line(event_json(task))
        else:
            for task in result.tasks:
                out.line(
                    f"{shorten(task.id, 40):<40} {task.status.state.value:<15} {message_text(task.status.message, 60)}"
                )
            if result.next_page_token:
                out.line(f"next page: --page-token {shorten(result.next_page_token, 200)}")
        return _judge(args, out, tracker, exitcodes.OK)


async def cmd_push(args: argparse.Namespace, out: Out) -> int:
    async with connect(args) as (client, _session, tracker):
        resolved = await client.resolve_dialect()
        action = args.push_command
        if action == "set":
            config = m.PushNotificationConfig(url=args.callback, token=args.token, id=args.config_id)
            result: Any = await client.set_push(args.task_id, config)
        elif action == "get" and args.config_id is None and resolved.name == "1.0":
            # 1.0's GetTaskPushNotificationConfig needs a config id: without one, the
            # task's configs are listed (ListTaskPushNotificationConfigs) instead.
            result = await client.list_push(args.task_id)
        elif action == "get":
            result = await client.get_push(args.task_id, args.config_id)
        elif action == "list":
            result = await client.list_push(args.task_id)
        else:
            if args.config_id is None and resolved.name != "0.1":
                raise UsageError("push delete needs --config-id")
            await client.delete_push(args.task_id, args.config_id)
            result = None
        if args.output in ("json", "ndjson"):
            doc = event_json(result)
            out.json_doc(doc) if args.output == "json" else out.json_line(doc)
        else:
            configs = result if isinstance(result, list) else ([result] if result is not None else [])
            if action == "delete":
                out.line(f"deleted push config of task {shorten(args.task_id, 80)}")
            if not configs and action != "delete":
                out.line("no push notification config")
            for cfg in configs:
                pc = cfg.push_notification_config
                out.line(
                    f"task {shorten(cfg.task_id, 40)}  url {shorten(pc.url, 80)}"
                    f"{'  id ' + shorten(pc.id, 40) if pc.id else ''}"
                    f"{'  token set' if pc.token else ''}"
                )
        return _judge(args, out, tracker, exitcodes.OK)


COMMANDS: dict[str, Handler] = {
    "card": cmd_card,
    "send": cmd_send,
    "get": cmd_get,
    "cancel": cmd_cancel,
    "resubscribe": cmd_resubscribe,
    "list": cmd_list,
    "push": cmd_push,
}
