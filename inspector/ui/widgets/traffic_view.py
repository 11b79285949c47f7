"""Every request, response, SSE event, heartbeat, stream end, note, error and push of the
active connection, with a filter and the selected event in full.

Cost per frame is bounded: new events are indexed and filtered in time-boxed slices
(``TrafficIndex.catch_up``), the list draws only its visible lines, and the detail pane
is refreshed at most every ``DETAIL_DELAY`` seconds while the cursor moves.
"""

from __future__ import annotations

import base64
import json
import time
from collections import deque
from typing import Any, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.timer import Timer
from textual.widgets import Input, Static

from ...protocol.sizes import format_size
from ...session import Event, Kind
from ...session.redact import MASK
from ..connection import AgentConnection
from .base import ConnectionView, hidden, leaving
from .traffic_detail import TrafficDetail
from .traffic_list import TrafficList, header_line
from .traffic_model import Filter, TrafficIndex

#: Seconds one frame may spend indexing/filtering before the rest waits for the next.
FRAME_BUDGET = 0.008
#: Between frames with nothing new (a filter working through old events), a bit more.
IDLE_BUDGET = 0.016
FRAME = 1 / 30
#: The detail pane follows the cursor after this pause (holding a key doesn't re-render it per row).
DETAIL_DELAY = 0.05
FILTER_DELAY = 0.15

FILTER_HELP = "filter: text  kind:sse,resp  method:stream  ex:3  status:4xx  task:ID  -negate"


def raw_body(event: Event) -> tuple[str | None, str]:
    """(text to copy, what it is) for ``y``: the body exactly as on the wire."""
    data = event.data
    kind = event.kind
    if kind in (Kind.REQUEST, Kind.RESPONSE, Kind.PUSH):
        body = data.get("body")
        if not isinstance(body, str):
            return None, "body"
        if data.get("body_encoding") == "base64":
            try:
                return base64.b64decode(body).decode("utf-8", "replace"), "body (not UTF-8: bad bytes replaced)"
            except ValueError:
                return body, "body (base64)"
        return body, f"{kind.value} body"
    if kind is Kind.SSE:
        raw = data.get("raw")
        if isinstance(raw, str) and data.get("raw_encoding") == "base64":
            try:
                return base64.b64decode(raw).decode("utf-8", "replace"), "SSE event (not UTF-8)"
            except ValueError:
                return raw, "SSE event (base64)"
        return (raw if isinstance(raw, str) else data.get("data")), "SSE event"
    if kind is Kind.MESSAGE:
        return data.get("json") or data.get("raw"), "gRPC message (ProtoJSON)"
    if kind in (Kind.COMMENT, Kind.NOTE):
        return data.get("text"), kind.value
    if kind is Kind.ERROR:
        return data.get("message"), "error message"
    return json.dumps(data, ensure_ascii=False, indent=2, default=str), "event"


#: ``[`` and ``]`` share one footer entry.
EXCHANGE_STEP = Binding.Group("Prev/next in ex.", compact=True)


class TrafficView(ConnectionView, Vertical):
    """The wire, event by event.

    BINDINGS:
    | key | action |
    | :- | :- |
    | / | focus the filter (enter or escape: back to the list) |
    | y | copy the selected event's raw body to the clipboard |
    | [ / ] | previous / next event of the same exchange |
    | x | show only the selected event's exchange (again: the previous filter) |
    | f | follow: jump to the newest event and stay there |
    | v | show the secrets the detail masks (Bearer ••••••); again: mask them |
    | enter | open the selected event's detail (escape: back) |
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("slash", "focus_filter", "Filter"),
        Binding("y", "copy_body", "Copy"),
        # One footer entry for the pair, so that the footer fits 80 columns.
        Binding("left_square_bracket", "exchange_step(-1)", "Prev in ex.", group=EXCHANGE_STEP),
        Binding("right_square_bracket", "exchange_step(1)", "Next in ex.", group=EXCHANGE_STEP),
        Binding("x", "only_exchange", "Only this exchange", show=False),
        Binding("f", "follow", "Follow new events", show=False),
        # Off the footer (80 columns): F1 lists it, and its toast says how to undo it.
        Binding("v", "toggle_secrets", "Secrets", show=False),
        Binding("escape", "focus_list", "Back to list", show=False),
    ]

    DEFAULT_CSS = """
    TrafficView {
        height: 1fr;
        & > #traffic-bar { height: 1; }
        & #traffic-filter { width: 1fr; height: 1; border: none; padding: 0 1; }
        & #traffic-count { width: auto; max-width: 60; height: 1; padding: 0 1; color: $foreground-muted; }
        & > #traffic-header { height: 1; color: $foreground-muted; text-style: bold; background: $panel; }
        & > TrafficList { height: 1fr; min-height: 5; }
        & > TrafficDetail { height: 1fr; border-top: solid $panel-lighten-1; }
    }
    """

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.connection: AgentConnection | None = None
        self.index = TrafficIndex()
        self._catch_up_timer: Timer | None = None
        self._detail_timer: Timer | None = None
        self._filter_timer: Timer | None = None
        self._shown_rows = 0
        self._count_text = ""
        self._previous_filter = ""
        self._ready = False
        #: Events were indexed while the tab was hidden: the list and count need a redraw.
        self._stale = False
        #: Seconds spent in session_advanced (the frame handler), latest frames, for benchmarks.
        self.frame_times: deque[float] = deque(maxlen=2000)

    def compose(self) -> ComposeResult:
        with Horizontal(id="traffic-bar"):
            yield Input(placeholder=FILTER_HELP, id="traffic-filter")
            yield Static("", id="traffic-count", markup=False)
        yield Static(Text(header_line(), no_wrap=True, overflow="crop"), id="traffic-header")
        yield TrafficList(id="traffic-list")
        yield TrafficDetail(id="traffic-detail")

    @property
    def traffic_list(self) -> TrafficList:
        return self.query_one(TrafficList)

    def on_traffic_list_columns_changed(self, message: TrafficList.ColumnsChanged) -> None:
        self.query_one("#traffic-header", Static).update(Text(message.header, no_wrap=True, overflow="crop"))

    @property
    def detail(self) -> TrafficDetail:
        return self.query_one(TrafficDetail)

    def on_mount(self) -> None:
        if leaving(self):
            return
        self._ready = True
        self.detail.show_event(None)
        if self.connection is not None:
            self.traffic_list.set_index(self.index)
            self.detail.set_redaction(self._redaction(self.connection))
            self._advance()
        elif getattr(self.app, "active", None) is not None:
            self.show_connection(self.app.active)

    # ------------------------------------------------------------------ ConnectionView

    def show_connection(self, conn: AgentConnection | None) -> None:
        if conn is self.connection and conn is not None:
            return
        self.connection = conn
        flt = self.index.filter
        tracker = conn.tracker if conn is not None else None
        self.index = TrafficIndex(
            conn.session if conn is not None else None,
            tracker.exchange_task if tracker is not None else None,
            tracker.tasks.keys if tracker is not None else None,
        )
        self.index.set_filter(flt)
        self._shown_rows = -1
        if not self._ready:
            return
        self.traffic_list.set_index(self.index)
        self.detail.show_event(None)
        self.detail.set_redaction(self._redaction(conn))
        self._advance()

    @staticmethod
    def _redaction(conn: AgentConnection | None) -> Any:
        """The connection's secrets (its client knows the credentials it was given); the
        built-in and credential-looking names for one without a client (a replay, a proxy)."""
        from ...session.redact import Redaction

        client = getattr(conn, "client", None)
        redaction = getattr(client, "redaction", None)
        return redaction if isinstance(redaction, Redaction) else Redaction()

    def session_advanced(self, conn: AgentConnection, events: list[Event], changed: set[str]) -> None:
        if conn is not self.connection:
            return
        start = time.perf_counter()
        self._advance()
        self.frame_times.append(time.perf_counter() - start)

    # ------------------------------------------------------------------ upkeep

    def on_show(self) -> None:
        if self._ready and self._stale:
            self._stale = False
            self._advance()

    def _advance(self, budget: float = FRAME_BUDGET) -> None:
        if not self._ready:
            return
        done = self.index.catch_up(budget)
        if hidden(self):
            # Index on, so the tab opens at once, but leave the widgets until it does.
            self._stale = True
            if not done and self._catch_up_timer is None:
                self._catch_up_timer = self.set_timer(FRAME, self._catch_up_tick)
            return
        rows = len(self.index.rows)
        if rows != self._shown_rows:
            self._shown_rows = rows
            self.traffic_list.rows_changed()
        self._update_count(done)
        if not done and self._catch_up_timer is None:
            self._catch_up_timer = self.set_timer(FRAME, self._catch_up_tick)

    def _catch_up_tick(self) -> None:
        self._catch_up_timer = None
        self._advance(IDLE_BUDGET)

    def _update_count(self, done: bool) -> None:
        index = self.index
        total = len(index.events)
        shown = len(index.rows)
        text = f"{shown:,} events" if index.filter.empty and done else f"{shown:,} of {total:,}"
        if not done:
            text += " · filtering…" if not index.filter.empty else " · indexing…"
        if index.filter.problem:
            text += f" · {index.filter.problem}"
        session = index.session
        if session is not None and session.bounded:
            text += f" · newest {session.keep:,} in memory, older read from disk"
        if not self.traffic_list.follow:
            text += " · paused (f: follow)"
        if text != self._count_text:
            # Its width follows the text; a text of the same length needs no layout.
            layout = len(text) != len(self._count_text)
            self._count_text = text
            self.query_one("#traffic-count", Static).update(text, layout=layout)

    def apply_filter(self, text: str) -> None:
        """Show only the events matching ``text`` (see traffic_model for the syntax)."""
        if self._filter_timer is not None:
            self._filter_timer.stop()
            self._filter_timer = None
        flt = Filter.parse(text)
        if flt.text == self.index.filter.text and flt.problem == self.index.filter.problem:
            return
        keep = self.traffic_list.selected_position
        follow = self.traffic_list.follow
        self.index.set_filter(flt)
        done = self.index.catch_up(IDLE_BUDGET)
        self._shown_rows = len(self.index.rows)
        lst = self.traffic_list
        lst._texts.clear()
        if follow or keep is None:
            lst.follow = True
            lst.rows_changed()
        else:
            lst.rows_changed(keep=keep)
        self._update_count(done)
        if not done and self._catch_up_timer is None:
            self._catch_up_timer = self.set_timer(FRAME, self._catch_up_tick)

    # ------------------------------------------------------------------ events

    @on(Input.Changed, "#traffic-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        event.stop()
        if self._filter_timer is not None:
            self._filter_timer.stop()
        value = event.value
        self._filter_timer = self.set_timer(FILTER_DELAY, lambda: self.apply_filter(value))

    @on(Input.Submitted, "#traffic-filter")
    def _filter_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.apply_filter(event.value)
        self.traffic_list.focus()

    @on(TrafficList.Highlighted)
    def _highlighted(self, event: TrafficList.Highlighted) -> None:
        event.stop()
        if self._detail_timer is None:
            self._detail_timer = self.set_timer(DETAIL_DELAY, self._update_detail)

    @on(TrafficList.Chosen)
    def _chosen(self, event: TrafficList.Chosen) -> None:
        event.stop()
        self._update_detail()
        self.detail.focus()

    def _update_detail(self) -> None:
        self._detail_timer = None
        self.detail.show_event(self.traffic_list.selected, self.index)
        self._update_count(self.index.done)

    # ------------------------------------------------------------------ actions

    def action_focus_filter(self) -> None:
        self.query_one("#traffic-filter", Input).focus()

    def action_focus_list(self) -> None:
        self.traffic_list.focus()

    def action_follow(self) -> None:
        self.traffic_list.action_last()
        self._update_count(self.index.done)

    def action_copy_body(self) -> None:
        event = self.traffic_list.selected
        if event is None:
            self.app.notify("no event selected", severity="warning")
            return
        text, what = raw_body(event)
        if text is None:
            self.app.notify(f"#{event.seq} has no body to copy", severity="warning")
            return
        masked = ""
        if not self.detail.revealed:
            # What is copied ends up in bug reports and chats: secrets masked as the
            # detail masks them, until v shows them there.
            shown = self.detail.redaction.shown(text, MASK)
            if shown != text:
                text, masked = shown, "; secrets masked, v then y copies them"
        self.app.copy_to_clipboard(text)
        self.app.notify(
            f"copied {what} of #{event.seq} ({format_size(len(text.encode('utf-8', 'replace')))}{masked})",
            title="clipboard",
            markup=False,
        )

    def action_toggle_secrets(self) -> None:
        shown = self.detail.toggle_secrets()
        self.app.notify(
            "secrets shown in the detail (v: mask them)" if shown else "secrets masked", title="traffic", markup=False
        )

    def action_exchange_step(self, step: int) -> None:
        lst = self.traffic_list
        event = lst.selected
        if event is None or not event.exchange:
            self.app.notify("the selected event belongs to no exchange", severity="warning")
            return
        row = self.index.exchange_step(lst.cursor, step)
        if row is None:
            where = "after" if step > 0 else "before"
            hidden = "" if self.index.filter.empty else " (the filter may hide some)"
            self.app.notify(f"no event of exchange {event.exchange} {where} this one{hidden}", markup=False)
            return
        lst.move_to(row)

    def action_only_exchange(self) -> None:
        box = self.query_one("#traffic-filter", Input)
        event = self.traffic_list.selected
        if self.index.filter.text.startswith("ex:") and (
            event is None or self.index.filter.has_exchange(event.exchange)
        ):
            text = self._previous_filter
        elif event is None or not event.exchange:
            self.app.notify("the selected event belongs to no exchange", severity="warning")
            return
        else:
            self._previous_filter = box.value
            text = f"ex:{event.exchange}"
        with box.prevent(Input.Changed):
            box.value = text
        self.apply_filter(text)

    def select_seq(self, seq: int) -> bool:
        """Put the cursor on event ``seq`` (clearing the filter if it hides it)."""
        self.index.catch_up(1.0)
        row = self.index.row_of_seq(seq)
        if row is None and not self.index.filter.empty:
            box = self.query_one("#traffic-filter", Input)
            with box.prevent(Input.Changed):
                box.value = ""
            self.apply_filter("")
            self.index.catch_up(1.0)
            self.traffic_list.rows_changed()
            row = self.index.row_of_seq(seq)
        if row is None:
            return False
        self.traffic_list.move_to(row)
        self.traffic_list.focus()
        return True

    def current(self) -> Any:
        """The selected event (for other widgets and tests)."""
        return self.traffic_list.selected
