"""The bar across the top: the active agent, its dialect (and how it was chosen), auth,
connection status, recording, and progress of whatever waits on the network."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.content import Content
from textual.widgets import Label

from ...textsafe import shorten, visible
from ..messages import OpenModal
from .base import ConnectionView

if TYPE_CHECKING:
    from ...session import Event
    from ..connection import AgentConnection

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
#: How often the progress line redraws while something waits.
PROGRESS_INTERVAL = 0.1

STATE_LABELS = {
    "new": "○ new",
    "connecting": "◌ connecting",
    "ready": "● ready",
    "error": "✗ error",
    "replay": "▶ replay",
    # a2a-inspect proxy: the traffic of clients passing through.
    "proxy": "⇄ proxy",
    # A ws-agent at the hub: silent past the heartbeat timeout, or its socket gone.
    "stale": "◌ stale",
    "offline": "✗ offline",
}


def auth_summary(conn: AgentConnection) -> str:
    """What credentials go with each request, without the secret: ``bearer``, ``basic``,
    ``api key in header X-API-Key``, ``none``; plus the number of extra headers."""
    auth = conn.auth
    kind = "none"
    if auth is not None:
        kind = auth.description
    if conn.headers:
        kind += f" +{len(conn.headers)} header{'s' if len(conn.headers) > 1 else ''}"
    card = conn.card
    if auth is None and card is not None and (card.security or card.authentication):
        kind += " (card asks for auth)"
    return kind


def connection_label(conn: AgentConnection) -> str:
    """The name to show: the user's (saved or renamed), else the card's, else host:port."""
    from ..connection import display_name

    card = conn.card
    if not conn.saved_as and conn.name == display_name(conn.url) and card is not None and card.name:
        return visible(card.name, single_line=True)
    return conn.name


def choose_dialect(app: Any) -> None:
    """Ask which dialect the active connection should talk, then switch to it.
    The app's dialect key and a click on the bar's dialect both land here."""
    conn = app.active
    if conn is None:
        app.notify("no agent: connect first (ctrl+o)", severity="warning")
        return
    if conn.read_only:
        app.notify("a recording's dialect is fixed", severity="warning")
        return

    def chosen(choice: str | None) -> None:
        if choice is not None and app.active is conn:
            app.switch_dialect(conn, choice)

    app.post_message(
        OpenModal("dialect_menu", conn.requested_dialect, conn.dialect_name, card_lists(conn), done=chosen)
    )


def card_lists(conn: AgentConnection) -> str | None:
    """The card's interfaces in a few words (made visible), for the menus; None
    before there is a card, or when it names none."""
    from ...client.card_choice import listed_text

    card = conn.card
    if card is None:
        return None
    client = conn.client
    text = listed_text(card)
    if client is not None and getattr(client, "redaction", None) is not None:
        text = client.redaction.shown(text)
    return visible(text, single_line=True) or None


def choose_binding(app: Any) -> None:
    """Ask which binding the active connection should talk over, then switch to it.
    The app's binding key (shift+f8) and a click on the bar's binding land here."""
    conn = app.active
    if conn is None:
        app.notify("no agent: connect first (ctrl+o)", severity="warning")
        return
    if conn.read_only or conn.fixed_client:
        app.notify(
            "a recording's binding is fixed"
            if conn.read_only
            else f"{conn.name} is reached through its hub: no other binding",
            severity="warning",
        )
        return

    def chosen(choice: str | None) -> None:
        if choice is not None and app.active is conn:
            app.switch_binding(conn, choice)

    app.post_message(
        OpenModal("binding_menu", conn.requested_binding, conn.binding_name, card_lists(conn), done=chosen)
    )


#: Short names for the bar, which has little room (the tooltip says how it was chosen).
_SHORT = {"jsonrpc": "JSON-RPC", "rest": "REST", "grpc": "gRPC"}


def binding_label(conn: AgentConnection) -> str:
    if conn.fixed_client:
        return "hub (WebSocket)"  # a ws-agent: reached through its hub, nothing to switch
    name = conn.binding_name
    if conn.read_only:
        return _SHORT.get(name or "", name or "?")
    if name:
        return f"{_SHORT.get(name, name)} ▾"
    if conn.requested_binding != "auto":
        return f"{_SHORT.get(conn.requested_binding, conn.requested_binding)} ▾"
    return "auto ▾"


def binding_tooltip(conn: AgentConnection) -> str:
    from ...protocol.bindings import LABELS

    if conn.fixed_client:
        return "a ws-agent: its tasks go through the hub's WebSocket"
    name = conn.binding_name or conn.requested_binding
    how = (
        "recording" if conn.read_only else conn.binding_source or ("user" if conn.requested_binding != "auto" else "?")
    )
    reason = getattr(conn.client, "binding_reason", None) if conn.client is not None else None
    text = f"binding {LABELS.get(name, name)} ({how})"
    if reason:
        text += f": {reason}"
    return text + ("" if conn.read_only else "\nswitch binding (shift+F8)")


#: The fewest columns the URL is shown in when the bar is narrow (less: not shown).
URL_MIN = 12
#: The recording's name in the bar, in columns, at each level of _texts (0: only its tooltip).
REC_NAME = (40, 21, 0)

#: Shown while the agent's TLS certificate is not checked (a saved agent's "insecure").
INSECURE_MARK = "⚠ TLS UNVERIFIED"


class ConnectionBar(ConnectionView, Horizontal):
    """One line: status, agent, URL, dialect (with how it was chosen), auth, recording, progress.

    Click the dialect (or press the app's dialect key, F8) to switch it. The progress
    part shows a spinner and the elapsed time of each call in ``app.waiting``, redrawn
    about ten times a second while something waits and not at all otherwise.
    """

    DEFAULT_CSS = """
    ConnectionBar {
        height: 1;
        background: $panel;
        padding: 0 1;
        & > Label { padding-right: 2; }
        & > #bar-status { text-style: bold; }
        & > #bar-status.-new { color: $foreground-muted; }
        & > #bar-status.-connecting { color: $warning; }
        & > #bar-status.-ready { color: $success; }
        & > #bar-status.-error { color: $error; }
        & > #bar-status.-replay { color: $secondary; }
        & > #bar-status.-stale { color: $warning; }
        & > #bar-status.-offline { color: $error; }
        & > #bar-name { text-style: bold; }
        & > #bar-url { color: $foreground-muted; }
        & > #bar-dialect { color: $accent; }
        & > #bar-dialect:hover { text-style: underline; }
        & > #bar-binding { color: $accent; }
        & > #bar-binding:hover { text-style: underline; }
        & > #bar-auth { color: $foreground-muted; }
        & > #bar-tls { color: $error; text-style: bold; }
        & > #bar-rec { color: $error; text-style: bold; }
        & > #bar-progress { width: 1fr; color: $warning; text-align: right; padding-right: 0; }
    }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        #: Composed and mounted: safe to query children (is_mounted is False in on_mount).
        self._live = False
        self._conn: AgentConnection | None = None
        self._spin = 0
        self._progress_shown = False
        self._state: str | None = None
        #: A proxy connection's dialects seen so far (by id of the connection).
        self._seen: dict[int, list[str]] = {}

    def compose(self) -> ComposeResult:
        yield Label("no agent", id="bar-status", markup=False)
        yield Label("ctrl+o connects; the agents list opens saved ones", id="bar-name", markup=False)
        yield Label("", id="bar-url", markup=False)
        yield Label("", id="bar-dialect", markup=False)
        yield Label("", id="bar-binding", markup=False)
        yield Label("", id="bar-auth", markup=False)
        yield Label("", id="bar-tls", markup=False)
        yield Label("", id="bar-rec", markup=False)
        yield Label("", id="bar-progress", markup=False)

    def on_mount(self) -> None:
        self._live = True
        self.query_one("#bar-dialect").tooltip = "switch dialect (F8)"
        self.set_interval(PROGRESS_INTERVAL, self._tick, name="bar-progress")
        self.show_connection(getattr(self.app, "active", None))

    # ------------------------------------------------------------------ ConnectionView

    def show_connection(self, conn: AgentConnection | None) -> None:
        self._conn = conn
        if not self._live:
            return
        status = self.query_one("#bar-status", Label)
        for state in STATE_LABELS:
            status.remove_class(f"-{state}")
        labels = {
            name: self.query_one(f"#bar-{name}", Label)
            for name in ("name", "url", "dialect", "binding", "auth", "tls", "rec")
        }
        if conn is None:
            self._state = None
            status.update("○ no agent")
            status.add_class("-new")
            labels["name"].update("ctrl+o connects; the agents list opens saved ones")
            for name in ("url", "dialect", "binding", "auth", "tls", "rec"):
                labels[name].update("")
                labels[name].display = False
            return
        self._state = conn.state
        status.update(STATE_LABELS.get(conn.state, conn.state))
        status.add_class(f"-{conn.state}")
        # Tooltips as Content: Textual reads a str tooltip as markup, and an agent's
        # text in it ("[link=http://x]", an error message) was styled, or raised
        # MarkupError on hover and ended the app.
        if conn.state == "error" and conn.error is not None:
            status.tooltip = Content(shorten(str(conn.error), 200))
        else:
            status.tooltip = None
        texts = self._fitted(conn)
        labels["name"].update(texts["name"])
        labels["url"].update(texts["url"])
        labels["url"].display = bool(texts["url"])
        labels["dialect"].update(texts["dialect"])
        labels["dialect"].display = True
        labels["binding"].update(texts["binding"])
        # Each line cut on its own: the reason names the card's interfaces (agent text).
        lines = binding_tooltip(conn).split("\n")
        labels["binding"].tooltip = Content("\n".join(shorten(line, 300) for line in lines))
        labels["binding"].display = True
        labels["auth"].update(texts["auth"])
        labels["auth"].display = not conn.read_only
        insecure = bool(texts["tls"])
        labels["tls"].update(texts["tls"])
        labels["tls"].display = insecure
        labels["tls"].tooltip = (
            "TLS certificates are not verified (insecure): anyone in between could answer" if insecure else None
        )
        recording = conn.recording
        labels["rec"].update(texts["rec"])
        labels["rec"].display = recording is not None
        if recording is not None:
            labels["rec"].tooltip = Content(visible(str(recording)))

    def _texts(self, conn: AgentConnection, level: int) -> dict[str, str]:
        """The bar's words for ``conn``: at ``level`` 0 in full; 1 in short forms, for a
        narrow bar; 2 with the recording's name left to its tooltip, for a narrower one."""
        compact = level > 0
        if conn.state == "proxy":
            # A proxy has no dialect of its own: each exchange is read for its own.
            seen = ", ".join(self._seen.get(id(conn), []))
            full = "dialect per exchange" + (f": {seen}" if seen else "")
            short = f"dialects {seen}" if seen else "dialect per exchange"
        elif conn.read_only:
            short = conn.dialect_name or "?"
            full = f"dialect {short} (recording)"
        elif conn.dialect_name:
            short = f"{conn.dialect_name} ▾"
            full = f"dialect {short} ({conn.dialect_source or '?'})"
        elif conn.requested_dialect != "auto":
            short = f"{conn.requested_dialect} ▾"
            full = f"dialect {short} (user)"
        else:
            short, full = "auto ▾", "dialect auto ▾"
        recording = conn.recording
        auth = "" if conn.read_only else f"auth: {auth_summary(conn)}"
        insecure = not conn.read_only and bool(getattr(getattr(conn, "tls", None), "insecure", False))
        return {
            "name": shorten(connection_label(conn), 20 if compact else 30),
            "dialect": short if compact else full,
            "binding": binding_label(conn),
            "auth": shorten(auth, 24) if compact else auth,
            "tls": INSECURE_MARK if insecure else "",
            "rec": "" if recording is None else f"⏺ REC {shorten(recording.name, REC_NAME[level])}".rstrip(),
        }

    def _fitted(self, conn: AgentConnection) -> dict[str, str]:
        """The words that fit the bar's width: the full forms, with the URL cut to what is
        left (up to 50 columns), while that leaves it URL_MIN; else shorter forms, level by
        level (the URL not shown when even the shortest leave it less). Status, dialect,
        binding, auth, the TLS warning and the recording mark are what a narrow terminal
        must still show."""
        width = self.size.width
        status = STATE_LABELS.get(conn.state, conn.state)

        def room(texts: dict[str, str]) -> int:
            # Each label has 2 columns of padding after it; the bar 1 on each side.
            used = 2 + sum(cell_len(text) + 2 for text in (status, *texts.values()) if text)
            return width - used - 2 if width else 50

        for level in range(len(REC_NAME)):
            texts = self._texts(conn, level)
            left = room(texts)
            if left >= URL_MIN:
                break
        texts["url"] = shorten(conn.url, min(left, 50)) if left >= URL_MIN else ""
        return texts

    def on_resize(self) -> None:
        if self._conn is not None:
            self.show_connection(self._conn)

    def session_advanced(self, conn: AgentConnection, events: list[Event], changed: set[str]) -> None:
        # The state moves during connect (card fetch, probes) before ConnectionChanged says so.
        if conn is self._conn and conn.state != self._state:
            self.show_connection(conn)
        elif conn is self._conn and conn.state == "proxy":
            from ...session.events import Kind

            seen = self._seen.setdefault(id(conn), [])
            fresh = False
            for event in events:
                if event.kind is Kind.REQUEST:
                    name = event.data.get("dialect")
                    if isinstance(name, str) and name and name not in seen:
                        seen.append(name)
                        fresh = True
            if fresh:
                seen.sort()
                self.show_connection(conn)

    # ------------------------------------------------------------------ progress

    def _tick(self) -> None:
        waiting = getattr(self.app, "waiting", None) or {}
        conn = self._conn
        if conn is not None and conn.state != self._state:
            self.show_connection(conn)
        if not waiting:
            if self._progress_shown:
                self.query_one("#bar-progress", Label).update("")
                self._progress_shown = False
            return
        self._spin = (self._spin + 1) % len(SPINNER)
        entries = sorted(waiting.values(), key=lambda entry: entry[1])
        label, started = entries[0]
        elapsed = max(0.0, time.monotonic() - started)
        text = f"{SPINNER[self._spin]} {shorten(label, 50)}… {elapsed:.1f} s"
        if len(entries) > 1:
            text += f" (+{len(entries) - 1} more)"
        # Its width is 1fr and an empty label is one row already, so a new text never
        # moves anything: no layout, ten times a second, nor when it first appears (that
        # one landed in the first frame of every stream).
        self.query_one("#bar-progress", Label).update(text, layout=False)
        self._progress_shown = True

    def on_click(self, event: Any) -> None:
        widget = getattr(event, "widget", None)
        if widget is not None and widget.id == "bar-dialect":
            choose_dialect(self.app)
        elif widget is not None and widget.id == "bar-binding":
            choose_binding(self.app)
