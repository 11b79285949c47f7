"""The sidebar: open connections (one active; the others keep receiving events) and
saved agents (kept in the config dir between runs)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from ...store import SavedAgent
from ...textsafe import shorten, visible
from ..messages import ConnectionChanged, OpenModal
from .base import ConnectionView
from .connection_bar import connection_label

if TYPE_CHECKING:
    from ...session import Event
    from ..connection import AgentConnection

STATE_GLYPH = {
    "new": ("○", "$foreground-muted"),
    "connecting": ("◌", "$warning"),
    "ready": ("●", "$success"),
    "error": ("✗", "$error"),
    "replay": ("▶", "$secondary"),
    "proxy": ("⇄", "$accent"),
    "stale": ("◌", "$warning"),
    "offline": ("✗", "$error"),
}


def saved_from_connection(conn: AgentConnection) -> SavedAgent:
    """What saving an open connection stores (the secret is read back from its auth)."""
    auth = secret = header = None
    secret_headers = dict(getattr(conn, "secret_headers", {}) or {})
    if conn.auth is not None:
        headers = {k: v for k, v in conn.auth.headers().items() if k not in secret_headers}
        value = headers.get("Authorization", "")
        if value.startswith("Bearer "):
            auth, secret = "bearer", value[len("Bearer ") :]
        elif value.startswith("Basic "):
            import base64
            import binascii

            try:
                auth, secret = "basic", base64.b64decode(value[len("Basic ") :]).decode("utf-8")
            except (binascii.Error, UnicodeDecodeError):
                auth = None
        elif len(headers) == 1:
            ((header, secret),) = headers.items()
            auth = "api-key"
    if auth is None and conn.card is not None:
        # Not authenticated yet: the card says how (its first scheme), the user adds the secret.
        from ...client.auth import card_auth

        ways = card_auth(conn.card)
        if ways:
            way = ways[0]
            auth = {"basic": "basic", "api-key": "api-key"}.get(way.kind, "bearer")
            # The card's header name goes into a text field as a suggestion: visible, as
            # everywhere (a name with control characters could not be sent anyway).
            header = visible(way.header, single_line=True) if way.kind == "api-key" and way.header else None
    return SavedAgent(
        name=conn.saved_as or connection_label(conn),
        url=conn.url,
        dialect=conn.requested_dialect,
        binding=conn.requested_binding,
        card_url=conn.card_url,
        headers=dict(conn.headers),
        auth=auth,
        auth_header=header,
        secret=secret,
        secret_headers=secret_headers,
        **tls_fields(getattr(conn, "tls", None)),
    )


def tls_fields(tls: Any) -> dict[str, Any]:
    """A connection's TLS options as a saved agent keeps them (paths only)."""
    if tls is None:
        return {}
    return {"cacert": tls.cacert, "cert": tls.cert, "key": tls.key, "insecure": tls.insecure}


class AgentsPanel(ConnectionView, Vertical):
    """Open connections, then saved agents. A dot marks an inactive connection with news.

    BINDINGS: enter opens the highlighted saved agent / makes the highlighted connection
    active; a adds a saved agent; s saves the active connection (its name, dialect and
    binding as they are now); e edits a saved agent (every field); r renames; d removes a
    saved agent (asks first); w closes a connection. Up/down move through the list.
    """

    DEFAULT_CSS = """
    AgentsPanel {
        height: 1fr;
        & > OptionList { height: 1fr; border: none; padding: 0; background: transparent; }
        & > OptionList:focus { background-tint: $foreground 4%; }
    }
    """
    BINDINGS = [
        Binding("enter", "open", "Open", show=False),
        Binding("a", "add", "Add"),
        Binding("s", "save", "Save"),
        Binding("e", "edit", "Edit"),
        # Off the footer so that it fits 80 columns with e Edit: e does what r does for a
        # saved agent, and F1 and the palette still list r.
        Binding("r", "rename", "Rename", show=False),
        Binding("d", "remove", "Remove"),
        Binding("w", "close", "Close"),
    ]

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        #: Composed and mounted: safe to query children (is_mounted is False in on_mount).
        self._live = False
        #: Ids of inactive connections that received events since they were last active.
        self.news: set[int] = set()
        self._active_id: int | None = None
        self._states: dict[int, str] = {}

    def compose(self) -> ComposeResult:
        yield OptionList(id="agents-list", markup=False)

    def on_mount(self) -> None:
        self._live = True
        self.refresh_list()

    # ------------------------------------------------------------------ helpers

    @property
    def option_list(self) -> OptionList:
        return self.query_one("#agents-list", OptionList)

    @property
    def store(self) -> Any:
        return self.app.agent_store

    def _connections(self) -> list[AgentConnection]:
        return list(getattr(self.app, "connections", []))

    def _open_for(self, agent: SavedAgent) -> AgentConnection | None:
        key = agent.name.casefold()
        return next((c for c in self._connections() if c.saved_as and c.saved_as.casefold() == key), None)

    def highlighted(self) -> tuple[str | None, Any]:
        """("conn", AgentConnection) | ("saved", SavedAgent) | (None, None): the caller
        knows the item's type from the kind, which the checker cannot follow."""
        option = self.option_list.highlighted_option
        if option is None or option.id is None:
            return None, None
        kind, _, key = option.id.partition(":")
        if kind == "conn":
            conn = next((c for c in self._connections() if str(c.id) == key), None)
            return ("conn", conn) if conn is not None else (None, None)
        if kind == "saved":
            agent = self.store.find(key)
            return ("saved", agent) if agent is not None else (None, None)
        return None, None

    def refresh_list(self) -> None:
        """Rebuild the list, keeping the highlight on the same entry."""
        if not self._live:
            return
        options = self.option_list
        current = options.highlighted_option.id if options.highlighted_option is not None else None
        active = getattr(self.app, "active", None)
        self._active_id = active.id if active is not None else None
        items: list[Option | None] = []
        conns = self._connections()
        self._states = {c.id: c.state for c in conns}
        items.append(Option(Content.styled(f"OPEN ({len(conns)})", "bold $foreground-muted"), disabled=True))
        if not conns:
            items.append(
                Option(
                    Content.styled("  none: enter opens a saved agent,\n  ctrl+o a URL", "$foreground-muted"),
                    disabled=True,
                )
            )
        for conn in conns:
            glyph, colour = STATE_GLYPH.get(conn.state, ("?", "$foreground-muted"))
            is_active = conn is active
            line = Content.assemble(
                ("▶ " if is_active else "  ", "bold $accent"),
                (glyph, colour),
                " ",
                (shorten(connection_label(conn), 20), "bold" if is_active else ""),
                (" ●" if conn.id in self.news else "", "bold $warning"),
                "\n    ",
                (shorten(conn.url, 24), "$foreground-muted"),
            )
            items.append(Option(line, id=f"conn:{conn.id}"))
        items.append(None)
        agents = list(self.store.agents)
        items.append(Option(Content.styled(f"SAVED ({len(agents)})", "bold $foreground-muted"), disabled=True))
        if not agents:
            items.append(
                Option(
                    Content.styled("  none: a adds one,\n  s saves the active agent", "$foreground-muted"),
                    disabled=True,
                )
            )
        for agent in agents:
            is_open = self._open_for(agent) is not None
            detail = shorten(agent.url, 24)
            extra = " · ".join(x for x in (agent.dialect if agent.dialect != "auto" else "", agent.auth or "") if x)
            line = Content.assemble(
                "  ",
                (shorten(agent.name, 22), "bold"),
                (" (open)" if is_open else "", "$success"),
                "\n    ",
                (detail, "$foreground-muted"),
                (f"\n    {shorten(extra, 24)}" if extra else "", "$foreground-muted"),
            )
            items.append(Option(line, id=f"saved:{agent.name}"))
        options.set_options(items)
        ids = [o.id for o in options.options]
        if current in ids:
            options.highlighted = ids.index(current)
        elif active is not None and f"conn:{active.id}" in ids:
            options.highlighted = ids.index(f"conn:{active.id}")

    # ------------------------------------------------------------------ ConnectionView

    def show_connection(self, conn: AgentConnection | None) -> None:
        if conn is not None:
            self.news.discard(conn.id)
        self.refresh_list()

    def session_advanced(self, conn: AgentConnection, events: list[Event], changed: set[str]) -> None:
        redraw = False
        if conn.id != self._active_id and conn.id not in self.news and events:
            self.news.add(conn.id)
            redraw = True
        if self._states.get(conn.id) != conn.state:
            redraw = True
        if redraw:
            self.refresh_list()

    # ------------------------------------------------------------------ store

    def _store_op(self, what: str, op: Any) -> bool:
        """Run a store change; a problem with the file is a notification, not a crash."""
        try:
            op()
        except (OSError, ValueError, KeyError) as exc:
            detail = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
            self.app.notify(f"{what}: {detail}", title="saved agents", severity="error", markup=False)
            return False
        return True

    # ------------------------------------------------------------------ actions

    @on(OptionList.OptionSelected, "#agents-list")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.action_open()

    def action_open(self) -> None:
        kind, item = self.highlighted()
        if kind == "conn":
            self.activate(item)
        elif kind == "saved":
            self.open_saved(item)

    def activate(self, conn: AgentConnection) -> None:
        self.news.discard(conn.id)
        if self.app.active is not conn:
            self.app.active = conn
        else:
            self.refresh_list()

    def open_saved(self, agent: SavedAgent) -> None:
        conn = self._open_for(agent)
        if conn is not None:
            self.activate(conn)
            return
        from ...store import missing_secrets

        missing = missing_secrets(agent)
        if missing:
            # Said, not connected without them: a refusal would only say "unauthorized".
            self.app.notify(
                f"{missing[0]}: set it and open the agent again (e edits it)",
                title="saved agents",
                severity="error",
                markup=False,
            )
            return
        from ..saved_auth import tls_problem

        problem = tls_problem(agent)
        if problem:
            self.app.notify(
                f"saved agent {agent.name!r}: {problem} (e edits it)",
                title="saved agents",
                severity="error",
                markup=False,
            )
            return
        self.app.connect_to(agent.url, saved=agent)

    def action_add(self) -> None:
        def added(agent: SavedAgent | None) -> None:
            if agent is not None and self._store_op(f"cannot save {agent.name!r}", lambda: self.store.add(agent)):
                self.app.notify(f"saved agent {agent.name!r}", markup=False)
                self.refresh_list()
                self._highlight(f"saved:{agent.name}")

        self.post_message(
            OpenModal("agent_form", "Add a saved agent", taken=[a.name for a in self.store.agents], done=added)
        )

    def action_save(self) -> None:
        conn = self.app.active
        if conn is None or conn.read_only:
            self.app.notify("no live agent to save: connect first (ctrl+o)", severity="warning")
            return
        existing = self.store.find(conn.saved_as) if conn.saved_as else None
        # What the connection talks now (a dialect or binding switched since it opened).
        draft = (
            replace(existing, dialect=conn.requested_dialect, binding=conn.requested_binding)
            if existing is not None
            else saved_from_connection(conn)
        )
        names = [a.name for a in self.store.agents if existing is None or a is not existing]

        def saved(agent: SavedAgent | None) -> None:
            if agent is None:
                return

            def op() -> None:
                if existing is not None and existing.name.casefold() != agent.name.casefold():
                    self.store.remove(existing.name)
                self.store.add(agent)

            if self._store_op(f"cannot save {agent.name!r}", op):
                conn.saved_as = agent.name
                # Shown under the name it was saved as (the card's, or the one typed),
                # not the address it was opened with.
                conn.name = agent.name
                self.app.notify(f"saved {agent.name!r}", markup=False)
                self.app.to_main(ConnectionChanged(conn))
                self.refresh_list()

        from ...client.auth import card_auth

        ways = card_auth(conn.card) if conn.card is not None else []
        asks = ", ".join(
            visible(f"{w.name} ({w.kind}{' ' + w.header if w.header else ''})", single_line=True) for w in ways
        )
        self.post_message(
            OpenModal("agent_form", "Save the active agent", draft, taken=names, card_asks=asks or None, done=saved)
        )

    def action_edit(self) -> None:
        kind, item = self.highlighted()
        agent: SavedAgent | None = (
            item if kind == "saved" else (self.store.find(item.saved_as) if kind == "conn" and item.saved_as else None)
        )
        if agent is None:
            self.app.notify("highlight a saved agent to edit (s saves the active one)", severity="warning")
            return
        names = [a.name for a in self.store.agents if a is not agent]

        def edited(new: SavedAgent | None) -> None:
            if new is None:
                return
            old = agent.name

            def op() -> None:
                index = self.store.agents.index(agent)
                if self.store.find(new.name) not in (None, agent):
                    raise ValueError(f"an agent named {new.name!r} exists already")
                self.store.agents[index] = new  # in its place in the list
                self.store.save()

            if not self._store_op(f"cannot save {new.name!r}", op):
                return
            conn = next(
                (c for c in self._connections() if c.saved_as and c.saved_as.casefold() == old.casefold()), None
            )
            changed = replace(new, name=agent.name) != agent
            if conn is not None:
                conn.saved_as = conn.name = new.name
                self.app.to_main(ConnectionChanged(conn))
            later = " (the open connection keeps its settings: w closes it, enter opens it again)"
            self.app.notify(f"saved {new.name!r}{later if conn is not None and changed else ''}", markup=False)
            self.refresh_list()
            self._highlight(f"saved:{new.name}" if kind == "saved" else f"conn:{item.id}")

        self.post_message(OpenModal("agent_form", f"Edit {shorten(agent.name, 40)}", agent, taken=names, done=edited))

    def action_rename(self) -> None:
        kind, item = self.highlighted()
        if kind is None:
            self.app.notify("highlight an agent to rename", severity="warning")
            return
        conn: AgentConnection | None = item if kind == "conn" else self._open_for(item)
        agent: SavedAgent | None = (
            item if kind == "saved" else (self.store.find(item.saved_as) if item.saved_as else None)
        )
        draft = agent or SavedAgent(name=connection_label(item) if conn is not None else item.name, url=item.url)
        names = [a.name for a in self.store.agents if a is not agent]

        def renamed(new: SavedAgent | None) -> None:
            if new is None:
                return
            if agent is not None:
                old = agent.name
                if not self._store_op(f"cannot rename {old!r}", lambda: self.store.rename(old, new.name)):
                    return
            if conn is not None:
                conn.name = new.name
                if agent is not None:
                    conn.saved_as = new.name
                self.app.to_main(ConnectionChanged(conn))
            self.refresh_list()
            self._highlight(f"saved:{new.name}" if kind == "saved" else f"conn:{conn.id if conn else ''}")

        self.post_message(
            OpenModal(
                "agent_form", f"Rename {shorten(draft.name, 40)}", draft, taken=names, rename_only=True, done=renamed
            )
        )

    def action_remove(self) -> None:
        kind, item = self.highlighted()
        agent: SavedAgent | None = (
            item if kind == "saved" else (self.store.find(item.saved_as) if kind == "conn" and item.saved_as else None)
        )
        if agent is None:
            self.app.notify("highlight a saved agent to remove (w closes a connection)", severity="warning")
            return

        def answered(yes: bool | None) -> None:
            if not yes:
                return
            if self._store_op(f"cannot remove {agent.name!r}", lambda: self.store.remove(agent.name)):
                for conn in self._connections():
                    if conn.saved_as and conn.saved_as.casefold() == agent.name.casefold():
                        conn.saved_as = None
                self.app.notify(f"removed saved agent {agent.name!r}", markup=False)
                self.refresh_list()

        self.post_message(
            OpenModal(
                "confirm",
                f"Remove the saved agent {shorten(agent.name, 40)!r} ({shorten(agent.url, 60)})?",
                done=answered,
            )
        )

    async def action_close(self) -> None:
        kind, item = self.highlighted()
        conn = item if kind == "conn" else (self._open_for(item) if kind == "saved" else None)
        conn = conn or self.app.active
        if conn is None:
            self.app.notify("no open connection to close", severity="warning")
            return
        self.news.discard(conn.id)
        await self.app.close_connection(conn)
        self.refresh_list()

    def _highlight(self, option_id: str) -> None:
        ids = [o.id for o in self.option_list.options]
        if option_id in ids:
            self.option_list.highlighted = ids.index(option_id)
