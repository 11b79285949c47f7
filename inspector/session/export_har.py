"""A recording as a HAR 1.2 file, for browser developer tools and HTTP tooling.

One entry per HTTP exchange, in the order the requests were sent. A streamed (SSE)
response's content is the stream as text/event-stream, rebuilt from the recorded events
(their raw lines, heartbeat comments included); its ``receive`` time runs to the end of
the stream. An exchange that got no response (connection refused, timeout) has status
0 and its error in ``_error``, as Chrome writes failed requests.

gRPC exchanges are left out (HAR describes HTTP requests and responses; a gRPC call's
messages and trailers have no place in it), and the log's ``comment`` says how many:
the curl export writes them as grpcurl commands.

Secrets stay as the recording has them: a redacted recording exports ``[redacted]``.
Fields beginning with ``_`` are the HAR-allowed custom fields (the A2A method, dialect
and JSON-RPC method).
"""

from __future__ import annotations

import base64
import binascii
import json
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any, TextIO
from urllib.parse import parse_qsl, urlsplit

from .. import __version__
from .diff import exchanges
from .events import Kind
from .exchange import RecordedExchange
from .log import Session

HAR_VERSION = "1.2"


def _skipped_note(skipped: int, comment: str | None) -> str | None:
    if not skipped:
        return comment
    note = (
        f"{skipped} gRPC exchange{'' if skipped == 1 else 's'} left out: HAR holds HTTP exchanges "
        "(the curl export writes gRPC calls as grpcurl commands)"
    )
    return f"{comment}; {note}" if comment else note


def to_har(session: Session, *, comment: str | None = None) -> dict[str, Any]:
    all_exs = exchanges(session.events)
    entries = [_entry(ex) for ex in all_exs if ex.binding != "grpc"]
    comment = _skipped_note(len(all_exs) - len(entries), comment)
    log: dict[str, Any] = {
        "version": HAR_VERSION,
        "creator": {"name": "a2a-inspect", "version": __version__},
        "pages": [],
        "entries": entries,
    }
    if comment:
        log["comment"] = comment
    return {"log": log}


def write_har(session: Session, out: TextIO, *, comment: str | None = None) -> None:
    """``to_har``'s document written to ``out`` as JSON (indent 2), an entry at a time,
    and a stream's content an event at a time: the memory it takes is bounded by the
    largest exchange's request and its largest event, whatever the recording's size."""
    out.write('{\n  "log": {\n')
    head = {"version": HAR_VERSION, "creator": {"name": "a2a-inspect", "version": __version__}, "pages": []}
    for key, value in head.items():
        out.write(f"    {json.dumps(key)}: {_json(value, 4)},\n")
    out.write('    "entries": [')
    first = True
    skipped = 0
    for ex in exchanges(session.events):
        if ex.binding == "grpc":
            skipped += 1
            continue
        out.write("\n" if first else ",\n")
        first = False
        _write_entry(ex, out)
    out.write("]" if first else "\n    ]")
    comment = _skipped_note(skipped, comment)
    if comment:
        out.write(f',\n    "comment": {_json(comment, 4)}')
    out.write("\n  }\n}\n")


def _json(value: Any, indent: int) -> str:
    """``value`` as json.dumps(indent=2) writes it ``indent`` spaces deep."""
    return json.dumps(value, ensure_ascii=False, indent=2).replace("\n", "\n" + " " * indent)


def _write_entry(ex: RecordedExchange, out: TextIO) -> None:
    streaming = ex.response is not None and bool(ex.response.data.get("streaming"))
    if not streaming:
        out.write(" " * 6 + _json(_entry(ex), 6))
        return
    # The stream's text goes where a placeholder is, a piece at a time (a JSON string
    # escapes character by character, so the pieces' escapes join into the whole's).
    mark = f"\x00{uuid.uuid4().hex}\x00"
    size = sum(len(piece.encode("utf-8")) for piece in sse_pieces(ex))
    before, found, after = (" " * 6 + _json(_entry(ex, (mark, size)), 6)).partition(json.dumps(mark))
    if not found:  # pragma: no cover - the placeholder is always there
        raise AssertionError("HAR entry without its stream placeholder")
    out.write(before)
    out.write('"')
    for piece in sse_pieces(ex):
        out.write(json.dumps(piece, ensure_ascii=False)[1:-1])
    out.write('"')
    out.write(after)


def _ms(seconds: float) -> float:
    return round(max(0.0, seconds) * 1000, 3)


def _started(ex: RecordedExchange) -> str:
    wall = ex.request.wall or 0.0
    return datetime.fromtimestamp(wall, UTC).isoformat(timespec="milliseconds")


def _headers(headers: Any) -> list[dict[str, str]]:
    if isinstance(headers, dict):
        return [{"name": str(k), "value": str(v)} for k, v in headers.items()]
    if isinstance(headers, list):
        return [
            {"name": str(p[0]), "value": str(p[1])} for p in headers if isinstance(p, (list, tuple)) and len(p) == 2
        ]
    return []


def _content_type(headers: Any, default: str) -> str:
    if isinstance(headers, dict):
        for k, v in headers.items():
            if str(k).lower() == "content-type" and isinstance(v, str):
                return v
    return default


def _size(text: str | None, encoding: str | None) -> int:
    if text is None:
        return 0
    if encoding == "base64":
        try:
            return len(base64.b64decode(text))
        except (binascii.Error, ValueError):
            return len(text)
    return len(text.encode("utf-8"))


def _request(ex: RecordedExchange) -> dict[str, Any]:
    data = ex.data
    body = data.get("body")
    headers = data.get("headers")
    out: dict[str, Any] = {
        "method": ex.http_method,
        "url": ex.url,
        "httpVersion": "HTTP/1.1",
        "cookies": [],
        "headers": _headers(headers),
        "queryString": [{"name": k, "value": v} for k, v in parse_qsl(urlsplit(ex.url).query, keep_blank_values=True)],
        "headersSize": -1,
        "bodySize": _size(body, data.get("body_encoding")) if isinstance(body, str) else 0,
    }
    if isinstance(body, str):
        post: dict[str, Any] = {"mimeType": _content_type(headers, "application/json"), "params": [], "text": body}
        if data.get("body_encoding") == "base64":
            post["comment"] = "body is base64: it was not UTF-8"
        out["postData"] = post
    return out


def sse_text(ex: RecordedExchange) -> str:
    """The stream as it went over the wire, rebuilt from the recorded events."""
    return "".join(sse_pieces(ex))


def sse_pieces(ex: RecordedExchange) -> Iterator[str]:
    """``sse_text`` an event at a time."""
    eol = "\r\n"
    for event in ex.stream:
        raw = event.data.get("raw")
        if event.kind is Kind.SSE and isinstance(raw, str) and event.data.get("raw_encoding") != "base64":
            if "\r\n" in raw:
                break
            if "\n" in raw:
                eol = "\n"
                break
    for event in ex.stream:
        if event.kind is Kind.COMMENT:
            yield f":{event.data.get('text') or ''}{eol}{eol}"
            continue
        raw = event.data.get("raw")
        if not isinstance(raw, str):
            continue
        if event.data.get("raw_encoding") == "base64":
            raw = base64.b64decode(raw).decode("utf-8", "replace")
        yield raw + ("" if event.data.get("incomplete") else eol + eol)


def _response(ex: RecordedExchange, stream: tuple[str, int] | None = None) -> dict[str, Any]:
    """The response; ``stream`` is (the text, its size in bytes) of a stream's content
    when the caller has them (write_har: a placeholder)."""
    resp = ex.response
    if resp is None:
        error = ex.errors[-1].data.get("message") if ex.errors else "no response"
        return {
            "status": 0,
            "statusText": "",
            "httpVersion": "HTTP/1.1",
            "cookies": [],
            "headers": [],
            "content": {"size": 0, "mimeType": "x-unknown"},
            "redirectURL": "",
            "headersSize": -1,
            "bodySize": -1,
            "_error": error,
        }
    data = resp.data
    headers = data.get("headers")
    mime = data.get("content_type") or _content_type(headers, "x-unknown")
    content: dict[str, Any] = {"mimeType": mime}
    if data.get("streaming"):
        text, size = stream if stream is not None else _with_size(sse_text(ex))
        content.update(size=size, text=text)
        body_size = content["size"]
    else:
        body = data.get("body")
        if isinstance(body, str):
            content.update(size=_size(body, data.get("body_encoding")), text=body)
            if data.get("body_encoding") == "base64":
                content["encoding"] = "base64"
            body_size = content["size"]
        else:
            content["size"] = 0
            body_size = -1
    location = (
        next((v for k, v in (headers or {}).items() if str(k).lower() == "location"), "")
        if isinstance(headers, dict)
        else ""
    )
    out = {
        "status": data.get("status") or 0,
        "statusText": data.get("reason") or "",
        "httpVersion": "HTTP/1.1",
        "cookies": [],
        "headers": _headers(headers),
        "content": content,
        "redirectURL": location or "",
        "headersSize": -1,
        "bodySize": body_size,
    }
    if ex.errors:
        out["_error"] = ex.errors[-1].data.get("message")
    return out


def _with_size(text: str) -> tuple[str, int]:
    return text, len(text.encode("utf-8"))


def _entry(ex: RecordedExchange, stream: tuple[str, int] | None = None) -> dict[str, Any]:
    t0 = ex.request.t
    resp = ex.response
    wait = _ms(resp.t - t0) if resp is not None else _ms(ex.last_t - t0)
    receive = _ms(ex.last_t - resp.t) if resp is not None else 0.0
    timings = {"blocked": -1, "dns": -1, "connect": -1, "ssl": -1, "send": 0.0, "wait": wait, "receive": receive}
    entry: dict[str, Any] = {
        "startedDateTime": _started(ex),
        "time": round(wait + receive, 3),
        "request": _request(ex),
        "response": _response(ex, stream),
        "cache": {},
        "timings": timings,
        "_resourceType": "fetch",
        "_exchange": ex.number,
    }
    for key, name in (("a2a_method", "_a2aMethod"), ("dialect", "_a2aDialect"), ("rpc_method", "_rpcMethod")):
        value = ex.data.get(key)
        if value is not None:
            entry[name] = value
    if ex.end is not None:
        entry["_streamEnd"] = ex.end.data.get("reason")
    return entry
