"""One event in full: its facts, headers and pretty, syntax-coloured JSON body.

A Line API view: a 5 MB body pretty-prints once into lines and only the visible ones
are coloured, so a large artifact scrolls as smoothly as a small one. Everything shown
comes from the agent, so it is rendered as plain segments (never markup) after
``textsafe.visible`` has made control characters and bidi overrides visible.

Secrets are masked until asked for (``v`` on the traffic view): the values of secret
headers (``Bearer ••••••``), the secret query parameters of URLs, and the connection's
own credentials wherever they occur (an agent echoing a token). Screens are shared too:
in screenshots, in a screen share, over a shoulder.
"""

from __future__ import annotations

import base64
import datetime as _dt
import json
import re
from typing import Any, ClassVar

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from ...protocol.errors import JsonRpcError, ProtocolError
from ...protocol.sizes import format_size
from ...safejson import loads
from ...session import Event, Kind
from ...session.redact import MASK, Redaction
from ...textsafe import visible
from .base import ComponentStyles
from .scrolling import set_virtual_size
from .traffic_model import KIND_LABEL, TrafficIndex, format_ms, payload_label

#: Bodies above this are shown as text, not parsed and pretty-printed.
PRETTY_LIMIT = 2_000_000
#: Characters shown of one line (a 1 MB base64 string is one JSON line).
LINE_LIMIT = 4000
#: Characters of a body shown at all: making 64 MiB of control characters visible
#: would stall the UI (y still copies the whole body).
SHOW_LIMIT = 2_000_000

# Line kinds: how render_line colours each one.
HEADING, FIELD, JSON, TEXT, DIM = "heading", "field", "json", "text", "dim"

_TOKEN = re.compile(
    r'(?P<key>"(?:[^"\\]|\\.)*"(?=\s*:))|(?P<string>"(?:[^"\\]|\\.)*"?)'
    r"|(?P<number>-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|(?P<literal>\btrue\b|\bfalse\b|\bnull\b)"
    r"|(?P<punct>[{}\[\],:])"
)


def pretty_json(text: str) -> list[str] | None:
    """``text`` as indented JSON lines, or None when it is not JSON."""
    stripped = text.lstrip("\ufeff").strip()
    if not stripped or stripped[0] not in '{["-0123456789tfn':
        return None
    try:
        value = loads(stripped)
    except ValueError:  # not JSON, or too deep (shown as received instead)
        return None
    try:
        return json.dumps(value, indent=2, ensure_ascii=False).split("\n")
    except (ValueError, RecursionError):
        return None


def body_text(data: dict[str, Any], key: str = "body") -> tuple[str | None, str]:
    """(text, note): the body as text for display, and how it was stored."""
    body = data.get(key)
    if not isinstance(body, str):
        return None, ""
    if data.get(f"{key}_encoding") == "base64" or (key == "raw" and data.get("raw_encoding") == "base64"):
        try:
            raw = base64.b64decode(body)
        except ValueError:
            return body, "base64 (undecodable)"
        return raw.decode("utf-8", "replace"), f"not UTF-8: {format_size(len(raw))} shown with U+FFFD for bad bytes"
    return body, ""


class TrafficDetail(ComponentStyles, ScrollView, can_focus=True):
    """The selected event, in full.

    BINDINGS:
    | key | action |
    | :- | :- |
    | up / down / pageup / pagedown / home / end | scroll |
    | left / right | scroll sideways (long lines) |
    | escape | back to the list |

    Secrets are masked until ``toggle_secrets`` (the traffic view's ``v``) shows them.

    COMPONENT_CLASSES: ``traffic-detail--heading``, ``--name`` (header names, field
    labels), ``--dim``, ``--key``, ``--string``, ``--number``, ``--literal``, ``--punct``.
    """

    STYLE_PREFIX = "traffic-detail"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back to list", show=False),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "traffic-detail--heading",
        "traffic-detail--name",
        "traffic-detail--dim",
        "traffic-detail--key",
        "traffic-detail--string",
        "traffic-detail--number",
        "traffic-detail--literal",
        "traffic-detail--punct",
    }

    DEFAULT_CSS = """
    TrafficDetail {
        background: $surface;
        overflow: auto;
        padding: 0 1;
        & > .traffic-detail--heading { color: $primary; text-style: bold; }
        & > .traffic-detail--name { color: $secondary; }
        & > .traffic-detail--dim { color: $foreground-muted; }
        & > .traffic-detail--key { color: $primary; }
        & > .traffic-detail--string { color: $success; }
        & > .traffic-detail--number { color: $warning; }
        & > .traffic-detail--literal { color: $accent; text-style: bold; }
        & > .traffic-detail--punct { color: $foreground-muted; }
    }
    """

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        #: (kind, text[, label]) per line.
        self.lines: list[tuple[str, str, str]] = []
        self.event: Event | None = None
        self._index: TrafficIndex | None = None
        #: Which headers, URL parameters and values are secret (the connection's).
        self.redaction = Redaction()
        #: The secrets shown as they are (``v``), until the same key hides them again.
        self.revealed = False
        self._strips: LRUCache[int, list[Segment]] = LRUCache(256)
        self._styles: dict[str, Style] = {}

    # ------------------------------------------------------------------ content

    def show_event(self, event: Event | None, index: TrafficIndex | None = None) -> None:
        if event is self.event and event is not None:
            return
        self.event = event
        self._index = index
        self._build()
        self.scroll_to(0, 0, animate=False, force=True)

    def set_redaction(self, redaction: Redaction) -> None:
        """The connection's secrets (a new connection: masked again)."""
        self.redaction = redaction
        self.revealed = False
        self._build()

    def toggle_secrets(self) -> bool:
        """Show the masked secrets, or mask them again; True when they are shown."""
        self.revealed = not self.revealed
        self._build()
        return self.revealed

    def _build(self) -> None:
        event = self.event
        hide = None if self.revealed else self.redaction
        self.lines = self._describe(event, self._index, hide) if event is not None else [(DIM, "no event selected", "")]
        self._strips.clear()
        width = min(LINE_LIMIT, max((len(t) + len(label) for _, t, label in self.lines), default=0)) + 2
        set_virtual_size(self, Size(width, len(self.lines)))
        self.refresh()

    def text(self) -> str:
        """What is shown, as plain text (tests, copying the whole view)."""
        return "\n".join(f"{label}{t}" for _, t, label in self.lines)

    @staticmethod
    def _describe(
        event: Event, index: TrafficIndex | None, hide: Redaction | None = None
    ) -> list[tuple[str, str, str]]:
        out = _Lines()
        out.hide = hide
        out.title(event, index)
        for label, value in _FIELDS.get(event.kind, _no_fields)(event.data, event.exchange):
            out.field(label, value)
        payload = event.payload
        if event.kind is Kind.WS:
            payload = getattr(payload, "item", None)  # the frame's content, as for an SSE event
        out.payload(payload)
        data = event.data
        if event.kind in (Kind.REQUEST, Kind.RESPONSE, Kind.PUSH):
            out.body(*body_text(data))
        elif event.kind is Kind.WS and isinstance(data.get("text"), str):
            out.body(data["text"], "", title="frame")
        elif event.kind is Kind.MESSAGE:
            text = data.get("json")
            out.body(
                text if isinstance(text, str) else data.get("raw"),
                "" if isinstance(text, str) else "base64",
                title="message (ProtoJSON)" if isinstance(text, str) else "message",
            )
        elif event.kind is Kind.SSE:
            text = data.get("data")
            if isinstance(text, str):
                out.body(text, "", title="data")
            raw, note = body_text(data, "raw")
            if raw is not None:
                out.heading("raw" + (f" ({note})" if note else ""))
                out.shown(raw)
        # After the body: on a small pane the body is what the eye looks for first.
        out.headers(data.get("headers"), "metadata" if data.get("content_type") == "application/grpc" else "headers")
        if data.get("grpc_details"):
            out.heading("status details (google.rpc.Status)")
            out.extend(
                (JSON, visible(out.masked(line)), "")
                for line in json.dumps(data["grpc_details"], indent=2, ensure_ascii=False, default=str).split("\n")
            )
        trailers = data.get("trailers")
        out.headers(trailers, "trailers")
        return out.clipped()

    # ------------------------------------------------------------------ drawing

    def action_back(self) -> None:
        from .traffic_list import TrafficList

        parent = self.parent
        if parent is not None:
            for widget in parent.query(TrafficList):
                widget.focus()
                return

    def on_resize(self, event: events.Resize) -> None:
        self._strips.clear()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles.clear()
        self._strips.clear()

    def _segments(self, y: int, base: Style) -> list[Segment]:
        cached = self._strips.get(y)
        if cached is not None:
            return cached
        kind, text, label = self.lines[y]
        segments: list[Segment] = []
        if label:
            segments.append(Segment(label, base + self._style("name")))
        if kind == JSON:
            pos = 0
            for match in _TOKEN.finditer(text):
                if match.start() > pos:
                    segments.append(Segment(text[pos : match.start()], base))
                segments.append(Segment(match.group(), base + self._style(match.lastgroup or "punct")))
                pos = match.end()
            if pos < len(text):
                segments.append(Segment(text[pos:], base))
        elif kind == HEADING:
            segments.append(Segment(text, base + self._style("heading")))
        elif kind == DIM:
            segments.append(Segment(text, base + self._style("dim")))
        else:
            segments.append(Segment(text, base))
        self._strips[y] = segments
        return segments

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width or self.size.width
        base = self.rich_style
        row = int(self.scroll_y) + y
        if not 0 <= row < len(self.lines):
            return Strip.blank(width, base)
        x = int(self.scroll_x)
        strip = Strip(self._segments(row, base))
        return strip.crop_extend(x, x + width, base)


class _Lines(list[tuple[str, str, str]]):
    """The detail's lines as they are built: (kind, text, label) each. ``hide``: the
    secrets to mask (None: shown as they are)."""

    hide: Redaction | None = None

    def masked(self, text: str) -> str:
        return text if self.hide is None else self.hide.shown(text, MASK)

    def field(self, label: str, value: Any) -> None:
        if value is None or value == "":
            return
        for i, line in enumerate(visible(self.masked(str(value))).split("\n")):
            self.append((FIELD, line, f"{label}: " if i == 0 else " " * (len(label) + 2)))

    def heading(self, text: str) -> None:
        if self:
            self.append((TEXT, "", ""))
        self.append((HEADING, text, ""))

    def title(self, event: Event, index: TrafficIndex | None) -> None:
        wall = _dt.datetime.fromtimestamp(event.wall).strftime("%H:%M:%S.%f")[:-3] if event.wall else ""
        title = f"#{event.seq}  {KIND_LABEL.get(event.kind, event.kind.value)}"
        if event.exchange:
            title += f"  exchange {event.exchange}"
        self.append((HEADING, title, ""))
        self.append((DIM, f"t={event.t:.3f} s  {wall}".rstrip(), ""))
        if index is not None and event.exchange and event.kind is not Kind.REQUEST:
            method = index.method(event)
            if method:
                self.field("method", method)

    def payload(self, payload: Any) -> None:
        if payload is None:
            return
        label = payload_label(payload)
        if isinstance(payload, ProtocolError):
            self.field("invalid", str(payload))
        elif isinstance(payload, JsonRpcError):
            self.field("rpc error", f"{payload.code} {payload.message}")
        else:
            what = type(payload).__name__ + (f" ({label})" if label else "")
            self.field("decoded", what)

    def body(self, text: str | None, note: str, title: str = "body") -> None:
        if text is None:
            return
        self.heading(title + (f" ({note})" if note else "") + ("" if text else " (empty)"))
        if not text:
            return
        lines = pretty_json(text) if len(text) <= PRETTY_LIMIT else None
        if lines is not None:
            self.extend((JSON, visible(self.masked(line)), "") for line in lines)
            return
        if len(text) > PRETTY_LIMIT:
            self.append(
                (DIM, f"{format_size(len(text))}: shown as received (too large to pretty-print); y copies it", "")
            )
        self.shown(text)

    def shown(self, text: str) -> None:
        if len(text) > SHOW_LIMIT:
            self.append((DIM, f"the first {SHOW_LIMIT:,} of {len(text):,} characters", ""))
            text = text[:SHOW_LIMIT]
        self.extend((TEXT, self.masked(line).expandtabs(4), "") for line in visible(text).split("\n"))

    def headers(self, headers: Any, title: str = "headers") -> None:
        if isinstance(headers, dict) and headers:
            self.heading(title)
            for name, value in headers.items():
                name, value = str(name), str(value)
                if self.hide is not None:
                    value = self.hide.masked_header(name, value)
                self.append((FIELD, visible(value, single_line=True), f"{visible(name, single_line=True)}: "))

    def clipped(self) -> list[tuple[str, str, str]]:
        return [
            (k, t if len(t) <= LINE_LIMIT else t[:LINE_LIMIT] + f"… ({len(t) - LINE_LIMIT} more characters)", label)
            for k, t, label in self
        ]


# What each kind of event shows above its payload and body: (label, value) pairs, the
# empty ones left out when shown.
Fields = list[tuple[str, Any]]


def _no_fields(data: dict[str, Any], exchange: int) -> Fields:
    return []


def _request_fields(data: dict[str, Any], exchange: int) -> Fields:
    return [
        ("request", f"{data.get('method', '')} {data.get('url', '')}"),
        *((key, data.get(key)) for key in ("a2a_method", "rpc_method", "rpc_id", "dialect", "binding")),
        ("size", format_size(data["body_size"]) + " on the wire" if isinstance(data.get("body_size"), int) else None),
    ]


def _grpc_status(data: dict[str, Any]) -> Fields:
    if data.get("grpc_status") is None:
        return []
    return [
        ("grpc status", f"{data.get('grpc_code')} {data['grpc_status']}"),
        ("grpc message", data.get("grpc_message")),
        (
            "problem",
            f"grpc-status-details-bin does not decode: {data['grpc_details_error']}"
            if data.get("grpc_details_error")
            else None,
        ),
    ]


def _response_fields(data: dict[str, Any], exchange: int) -> Fields:
    status = f"{data.get('status', '')} {data.get('reason') or ''}".strip() if data.get("status") is not None else None
    out: Fields = [
        ("status", status),
        *_grpc_status(data),
        ("elapsed", format_ms(data.get("elapsed_ms"))),
        ("size", format_size(data.get("body_size"))),
        ("content-type", data.get("content_type")),
    ]
    if data.get("cut"):
        out.append(("problem", "body cut at the size limit: only its start was kept"))
    if data.get("streaming"):
        what = "messages" if data.get("content_type") == "application/grpc" else "SSE events"
        out.append(("body", f"streamed: see the {what} of exchange {exchange}"))
    return out


def _sse_fields(data: dict[str, Any], exchange: int) -> Fields:
    out: Fields = [(key, data.get(key)) for key in ("event", "id", "retry")]
    if data.get("incomplete"):
        out.append(("problem", "incomplete event (no blank line after it)"))
    if data.get("cut"):
        out.append(("problem", "event cut at the size limit: only its start was kept"))
    return out


def _note_fields(data: dict[str, Any], exchange: int) -> Fields:
    return [
        ("note", data.get("text")),
        *(
            (key, value if isinstance(value, str) else json.dumps(value, default=str))
            for key, value in data.items()
            if key != "text"
        ),
    ]


def _ws_fields(data: dict[str, Any], exchange: int) -> Fields:
    where: dict[str | None, str] = {
        "in": "from the agent",
        "out": "to the agent",
        "hub": "the hub's own word (not on the wire)",
    }
    return [
        ("frame", f"{data.get('op', '')} {where.get(data.get('dir'), '')}".strip()),
        ("agent", data.get("agent")),
        ("socket", f"#{data.get('conn')}" if data.get("conn") is not None else None),
        *((key, data.get(key)) for key in ("rpc_method", "rpc_id", "peer", "path", "code", "reason")),
        ("size", format_size(data.get("size")) if isinstance(data.get("size"), int) else None),
    ]


_FIELDS: dict[Kind, Any] = {
    Kind.REQUEST: _request_fields,
    Kind.RESPONSE: _response_fields,
    Kind.SSE: _sse_fields,
    Kind.COMMENT: lambda data, exchange: [("comment", data.get("text"))],
    Kind.STREAM_END: lambda data, exchange: [
        ("reason", data.get("reason")),
        ("events", data.get("events")),
        ("elapsed", format_ms(data.get("elapsed_ms"))),
        ("terminal", data.get("terminal")),
        *_grpc_status(data),
    ],
    Kind.MESSAGE: lambda data, exchange: [
        ("size", format_size(data.get("size")) + " on the wire" if isinstance(data.get("size"), int) else None),
        ("problem", data.get("error")),
    ],
    Kind.ERROR: lambda data, exchange: [(key, data.get(key)) for key in ("type", "message", "path")],
    Kind.NOTE: _note_fields,
    Kind.PUSH: lambda data, exchange: [
        ("url", data.get("url")),
        ("size", format_size(data.get("body_size"))),
        ("from", data.get("client")),
    ],
    Kind.WS: _ws_fields,
}
