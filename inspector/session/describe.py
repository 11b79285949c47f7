"""One line on an event: what the traffic view's rows, the proxy's console and the hub's
console say. A payload (a task, a status or artifact event, a message, an error, a
send's params) is put in words by one function, ``describe_payload``, whichever of the
three shows it; the rest lays out what each place adds around it (the proxy's timing,
the hub's frame method). UI-free: plain text, made visible where shown.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..protocol.errors import JsonRpcError, ProtocolError
from ..protocol.models import (
    DataPart,
    FilePart,
    ListTasksResult,
    Message,
    SendParams,
    Task,
    TaskArtifactUpdateEvent,
    TaskStatusUpdateEvent,
    TextPart,
)
from .events import Event, Kind
from .redact import MASK, Redaction

#: The rows show a URL's secret parameters and password masked, by the built-in and
#: credential-looking names (the traffic view's detail knows the connection's own).
_SCREEN = Redaction()


def parts_text(parts: list[Any], limit: int = 200) -> str:
    """A short plain rendering of message/artifact parts: text, [file name], [data]."""
    out: list[str] = []
    size = 0
    for part in parts:
        if isinstance(part, TextPart):
            piece = part.text
        elif isinstance(part, FilePart):
            piece = f"[file {part.file.name or part.file.mime_type or ''}]".replace(" ]", "]")
        elif isinstance(part, DataPart):
            piece = "[data]"
        else:
            piece = "[part]"
        out.append(piece)
        size += len(piece)
        if size > limit:
            break
    return "".join(out)


def short_id(value: str) -> str:
    return value if len(value) <= 12 else value[:8] + "…"


def describe_payload(payload: Any, *, full_ids: bool = False) -> str:
    """One line on what a decoded request, response, stream event, push or frame says:
    the one describer behind the traffic view's rows (ids shortened for their column)
    and the proxy's and hub's consoles (``full_ids``: a console line is what a user
    copies an id from). Empty when there is nothing A2A to say."""
    ident = str if full_ids else short_id
    if isinstance(payload, TaskStatusUpdateEvent):
        return _task_line(ident(payload.task_id), payload.status, " (final)" if payload.final else "")
    if isinstance(payload, TaskArtifactUpdateEvent):
        art = payload.artifact
        name = art.name or art.artifact_id or (f"[{art.index}]" if art.index is not None else "artifact")
        flags = ("+" if payload.append or art.append else "") + ("|" if payload.last_chunk or art.last_chunk else "")
        return f"{name}{flags}: {parts_text(art.parts)}"
    if isinstance(payload, Task):
        return _task_line(ident(payload.id), payload.status, "")
    if isinstance(payload, Message):
        return f"{payload.role.value}: {parts_text(payload.parts)}"
    if isinstance(payload, SendParams):
        task = f"task {ident(payload.message.task_id)} " if payload.message.task_id else ""
        return f"{task}{payload.message.role.value}: {parts_text(payload.message.parts)}"
    if isinstance(payload, JsonRpcError):
        return f"error {payload.code} {payload.message}"
    if isinstance(payload, ProtocolError):
        return f"invalid: {payload}"
    if isinstance(payload, ListTasksResult):
        return f"{len(payload.tasks)} tasks"
    return ""


def _task_line(task_id: str, status: Any, final: str) -> str:
    text = f"task {task_id} {status.state.value}{final}"
    if status.message is not None:
        text += ": " + parts_text(status.message.parts)
    return text


def event_summary(event: Event) -> str:
    """One line on any event, as the traffic view's rows show it."""
    row = _ROWS.get(event.kind)
    return row(event, event.data) if row is not None else ""


def _request_row(event: Event, data: dict[str, Any]) -> str:
    url = data.get("url", "")
    if isinstance(url, str) and ("?" in url or "@" in url):
        url = _SCREEN.shown(url, MASK)  # the detail shows it whole on request (v)
    line = f"{data.get('method', '')} {url}"
    if data.get("client"):
        # Intercepted by a2a-inspect proxy: whose request it was.
        agent = data.get("user_agent")
        line = f"{data['client']}{' ' + agent if agent else ''} → {line}"
    return line


def _response_row(event: Event, data: dict[str, Any]) -> str:
    described = describe_payload(event.payload)
    status = data.get("status")
    if status is None and data.get("grpc_status"):
        status = f"gRPC {data['grpc_status']}"
    if described:
        return f"{status if status is not None else ''} {described}"
    if data.get("streaming"):
        return f"{data.get('reason') or ''} stream ({data.get('content_type') or 'no content type'})"
    return f"{data.get('reason') or ''} {data.get('content_type') or ''}"


def _sse_row(event: Event, data: dict[str, Any]) -> str:
    described = describe_payload(event.payload)
    added = data.get("added_ms")
    if described:
        # A proxied event says how long the proxy held it.
        return described if added is None else f"{described} (+{added} ms proxy)"
    name = data.get("event")
    text = data.get("data")
    if text is None:
        text = data.get("raw") or ""
    return f"{name}: {text}" if name else str(text)


def _stream_end_row(event: Event, data: dict[str, Any]) -> str:
    n = data.get("events")
    final = "terminal" if data.get("terminal") else "no final event"
    grpc = f", gRPC {data['grpc_status']}" if data.get("grpc_status") else ""
    return f"stream {data.get('reason')} after {n} event{'' if n == 1 else 's'}, {final}{grpc}"


_ROWS: dict[Kind, Callable[[Event, dict[str, Any]], str]] = {
    Kind.REQUEST: _request_row,
    Kind.RESPONSE: _response_row,
    Kind.SSE: _sse_row,
    Kind.MESSAGE: lambda e, d: describe_payload(e.payload) or str(d.get("json") or d.get("error") or ""),
    Kind.COMMENT: lambda e, d: f": {d.get('text', '')}",
    Kind.STREAM_END: _stream_end_row,
    Kind.ERROR: lambda e, d: str(d.get("message", "")),
    Kind.NOTE: lambda e, d: str(d.get("text", "")),
    Kind.PUSH: lambda e, d: describe_payload(e.payload) or str(d.get("path") or d.get("url") or ""),
    Kind.WS: lambda e, d: describe_ws(e),
}


def describe_ws(event: Any) -> str:
    """One line on a ``ws`` event: a socket opening or closing, a binary frame, or what
    a text frame says (the method and its gist). The traffic view shows the same."""
    data = event.data
    op = data.get("op")
    if op == "open":
        return f"socket opened from {data.get('peer') or 'unknown'}"
    if op == "close":
        why = f" ({data['reason']})" if data.get("reason") else ""
        return f"close {data.get('code')}{why}"
    if op == "binary":
        return f"binary frame, {data.get('size')} bytes"
    return describe_frame(event.payload, data.get("rpc_method"))


def describe_frame(frame: Any, method: str | None) -> str:
    """A hub frame: its method (or role) and what its item says."""
    if frame is None:
        return method or "frame"
    item = frame.item
    if frame.role == "invalid":
        return f"invalid frame: {item}"
    if frame.role == "error" and isinstance(item, JsonRpcError):
        return describe_payload(item)
    head = method or frame.role
    if isinstance(item, ProtocolError):
        return f"{head}: invalid params: {item}"
    described = describe_payload(item, full_ids=True)
    if described:
        return f"{head} {described}"
    name = getattr(item, "name", None) or getattr(item, "target", None)
    return f"{head} {name}" if isinstance(name, str) else head


def proxy_line(event: Any) -> str | None:
    """One line on a proxy event for the proxy's console (the traffic view's rows show
    the same facts, laid out for their columns); None for what the console leaves out."""
    line = _CONSOLE.get(event.kind)
    if line is None:
        return None
    said = line(event, event.data)
    return None if said is None else (f"#{event.exchange} " if event.exchange else "") + said


def _console_note(event: Any, data: dict[str, Any]) -> str | None:
    if data.get("code") == "proxy-listening" or data.get("side") == "client":
        return None  # the banner says it; client findings print as violations
    return f"note: {data.get('text', '')}"


def _console_request(event: Any, data: dict[str, Any]) -> str:
    what = data.get("rpc_method") or data.get("route") or data.get("a2a_method") or ""
    if data.get("a2a_method") == "card":
        what = "card"
    tags = " ".join(t for t in (data.get("dialect"), data.get("binding")) if t)
    agent = f" ({data['user_agent']})" if data.get("user_agent") else ""
    return (
        f"{data.get('client') or 'client'}{agent} → {data.get('method')} "
        f"{data.get('url')} {what}{' [' + tags + ']' if tags else ''}"
    )


def _console_response(event: Any, data: dict[str, Any]) -> str:
    extra = " stream" if data.get("streaming") else f" {data.get('body_size') or 0} bytes"
    if data.get("grpc_status") is not None or data.get("content_type") == "application/grpc":
        head = f"gRPC {data.get('grpc_status') or 'OK'}"
    else:
        head = f"{data.get('status')} {data.get('reason') or ''}"
    return f"← {head}{extra} {_timing(data)}{_injected(data)}"


def _console_event(event: Any, data: dict[str, Any]) -> str:
    said = describe_payload(event.payload, full_ids=True) or "event"
    return f"← {said} (+{data.get('added_ms', 0)} ms)"


def _console_stream_end(event: Any, data: dict[str, Any]) -> str:
    return (
        f"ended: {data.get('reason')} after {data.get('events')} events "
        f"(+{data.get('added_ms')} ms proxy in all, {data.get('added_max_ms')} ms at most){_injected(data)}"
    )


def _injected(data: dict[str, Any]) -> str:
    return f" [injected {data['injected']}]" if data.get("injected") else ""


_CONSOLE: dict[Kind, Callable[[Any, dict[str, Any]], str | None]] = {
    Kind.NOTE: _console_note,
    Kind.ERROR: lambda e, d: f"error: {d.get('message', '')}",
    Kind.REQUEST: _console_request,
    Kind.RESPONSE: _console_response,
    Kind.MESSAGE: _console_event,
    Kind.SSE: _console_event,
    Kind.STREAM_END: _console_stream_end,
}


def _timing(data: dict[str, Any]) -> str:
    """Where an answer's time went. An answer the proxy made itself (a fault rule's
    error or HTTP status) never went upstream: it has no upstream or added time."""
    if data.get("added_ms") is None:
        return "(answered by the proxy, not relayed)" if data.get("injected") else f"({data.get('elapsed_ms')} ms)"
    return f"({data.get('elapsed_ms')} ms upstream, +{data['added_ms']} ms proxy)"
