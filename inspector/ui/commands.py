"""The command palette (ctrl+p): every action of the app, by name.

Commands run the same actions the keys do (``app.run_action``), on the app or on the
widget that owns the action. A command whose action does not exist (a widget not built
yet, a screen without it) or cannot apply now (no agent, a recording) is not listed,
so the palette never offers something that fails.

Names follow the active dialect: "Cancel the selected task (CancelTask)" under 1.0,
"(tasks/cancel)" under 0.1-0.3; a method the dialect lacks is not offered, nor is an
action the selected task is past (cancel or resubscribe on a task that has ended).

Theme: Textual's own "Theme" command (``InspectorApp.get_system_commands``) opens the
picker, which lists every registered theme once. The app saves the choice in
settings.json (``InspectorApp.watch_theme``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from functools import partial
from typing import Any

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content

from ..textsafe import visible

VIEWS = (
    ("card", "the agent card"),
    ("task", "the selected task: conversation, state, artifacts"),
    ("tasks", "every task of the agent"),
    ("traffic", "every request, response and event"),
    ("push", "push notifications"),
)
DIALECTS = (("auto", "detect again"), ("0.1", "the 0.1 draft"), ("0.3", "0.2 / 0.3"), ("1.0", "1.0"))
BINDINGS = (
    ("auto", "the card's first interface a2a-inspect speaks"),
    ("jsonrpc", "JSON-RPC 2.0 over HTTP"),
    ("rest", "HTTP+JSON/REST (0.3 and 1.0)"),
)


def literal_markup(text: str) -> str:
    """``text`` as Textual markup that shows it as it is: every ``[`` escaped, control
    characters made visible. The palette reads a command's help as markup (it takes no
    Content there), and help names the agent's data (a task id): its ``[@click=...]``
    would have been an action, its ``[link=...]`` a hyperlink, and markup Textual cannot
    parse raised MarkupError, which ended the app."""
    return visible(text, single_line=True).replace("[", "\\[")


@dataclass(frozen=True)
class Command:
    name: str
    help: str
    run: Callable[[], Awaitable[Any] | Any]


class InspectorCommands(Provider):
    """Commands for everything a2a-inspect can do; see the module docstring."""

    # ------------------------------------------------------------------ lookups

    @property
    def _main(self) -> Any:
        app: Any = self.app
        return getattr(app, "main", None) or self.screen

    def _widget(self, selector: str) -> Any:
        try:
            return self._main.query_one(selector)
        except Exception:
            return None

    @staticmethod
    def _has(node: Any, action: str) -> bool:
        name = action.split("(", 1)[0]
        return node is not None and callable(getattr(node, f"action_{name}", None))

    def _live(self) -> Any:
        conn = getattr(self.app, "active", None)
        return conn if conn is not None and not conn.read_only else None

    # ------------------------------------------------------------------ runners

    async def _act(self, node: Any, action: str, view: str | None = None) -> None:
        app: Any = self.app
        if view is not None and self._has(app, "view"):
            await app.run_action(f"view({view!r})")
        await app.run_action(action, node)

    def _app_command(self, name: str, help: str, action: str) -> Iterator[Command]:
        if self._has(self.app, action):
            yield Command(name, help, partial(self._act, self.app, action))

    def _widget_command(
        self, name: str, help: str, selector: str, action: str, view: str | None = None
    ) -> Iterator[Command]:
        mount_view = getattr(self._main, "mount_view", None)
        if view is not None and mount_view is not None:
            mount_view(view)  # a hidden tab's view mounts after the first frame: now, if not yet
        widget = self._widget(selector)
        if self._has(widget, action):
            yield Command(name, help, partial(self._act, widget, action, view))

    # ------------------------------------------------------------------ the list

    def commands(self) -> list[Command]:
        """The commands that apply now, in the order the palette lists them."""
        from ..protocol.methods import Method

        app: Any = self.app
        out: list[Command] = []
        add = out.extend
        conn = getattr(app, "active", None)
        live = self._live()

        add(self._app_command("Connect to an agent URL…", "open a new connection (ctrl+o)", "open_url"))
        if live is not None and not getattr(live, "fixed_client", False):
            add(
                self._app_command(
                    "Check the agent against the spec",
                    "a2a-inspect check's probes on every binding the card lists (f7)",
                    "check",
                )
            )
        for view, what in VIEWS:
            add(self._app_command(f"Show {view} view", what, f"view({view!r})"))

        # Sending (the composer's actions).
        if live is not None:
            send, stream = self._wire(live, Method.SEND), self._wire(live, Method.STREAM)
            spelled = " / ".join(w for w in (send, stream) if isinstance(w, str))
            add(
                self._widget_command(
                    f"Send the composed message{f' ({spelled})' if spelled else ''}",
                    "send or stream it, as the composer says (ctrl+s)",
                    "#composer",
                    "send",
                    "task",
                )
            )
            add(
                self._widget_command(
                    "Switch send / stream",
                    "toggle how the composer sends (ctrl+t)",
                    "#composer",
                    "toggle_stream",
                    "task",
                )
            )
            add(
                self._widget_command(
                    "New task / continue the selected task",
                    "toggle what the next message starts (ctrl+n)",
                    "#composer",
                    "toggle_target",
                    "task",
                )
            )

        # The selected task.
        task_id = getattr(app, "task_id", None)
        if live is not None and task_id and callable(getattr(app, "task_action", None)):
            task = live.tracker.task(task_id)
            ended = task is not None and task.terminal
            for action, method, name, help in (
                ("get", Method.GET, "Get the selected task", "the agent's view of it"),
                ("cancel", Method.CANCEL, "Cancel the selected task", "ask the agent to stop it"),
                ("resubscribe", Method.RESUBSCRIBE, "Resubscribe to the selected task", "reopen its stream"),
            ):
                if ended and action != "get":
                    continue
                wire = self._wire(live, method)
                if wire is False:
                    continue
                label = f"{name} ({wire})" if wire else name
                out.append(Command(label, f"{help} ({task_id})", partial(app.task_action, live, action, task_id)))

        if live is not None:
            add(self._app_command("Get a task by id…", "fetch any task of the agent and show it", "get_task_by_id"))

        # Push notifications.
        if live is not None:
            receiver = live.push.receiver
            if receiver is not None and receiver.running:
                add(
                    self._widget_command(
                        "Stop the push receiver",
                        f"stop listening on {receiver.url}",
                        "#push-panel",
                        "stop_receiver",
                        "push",
                    )
                )
            else:
                add(
                    self._widget_command(
                        "Start the push receiver",
                        "a local webhook for this agent's notifications",
                        "#push-panel",
                        "start_receiver",
                        "push",
                    )
                )
            add(
                self._widget_command(
                    "Register the push receiver for the selected task",
                    "the agent will POST this task's updates to the receiver",
                    "#push-panel",
                    "register_push",
                    "push",
                )
            )

        # Traffic.
        if conn is not None:
            add(
                self._widget_command(
                    "Filter traffic",
                    "kind:, method:, ex:, status:, task: or any text",
                    "#traffic-view",
                    "focus_filter",
                    "traffic",
                )
            )
            add(
                self._widget_command(
                    "Copy the selected event's body",
                    "the raw body, to the clipboard",
                    "#traffic-view",
                    "copy_body",
                    "traffic",
                )
            )

        # Dialect.
        if live is not None and callable(getattr(app, "switch_dialect", None)):
            current = getattr(live, "requested_dialect", None)
            for dialect, what in DIALECTS:
                if dialect != current:
                    out.append(
                        Command(f"Switch dialect to {dialect}", what, partial(app.switch_dialect, live, dialect))
                    )
        add(self._app_command("Choose dialect…", "the dialect menu (f8)", "choose_dialect"))

        # Binding.
        if (
            live is not None
            and not getattr(live, "fixed_client", False)
            and callable(getattr(app, "switch_binding", None))
        ):
            current = getattr(live, "requested_binding", None)
            for binding, what in BINDINGS:
                if binding != current:
                    out.append(
                        Command(f"Switch binding to {binding}", what, partial(app.switch_binding, live, binding))
                    )
        add(self._app_command("Choose binding…", "JSON-RPC or HTTP+JSON/REST (shift+f8)", "choose_binding"))

        # Recording.
        if live is not None:
            recording = getattr(live, "recording", None)
            name = "Stop recording" if recording is not None else "Start recording"
            help = f"close {recording}" if recording is not None else "write this session to a JSONL file"
            add(self._app_command(name, help + " (ctrl+r)", "toggle_recording"))

        if live is not None:
            add(self._widget_command("Save the active agent", "keep its URL, dialect and auth", "#agents", "save"))
        add(self._app_command("Error details", "the last failures in full (ctrl+e)", "error_details"))
        add(self._app_command("Help: keys", "every key of every view (f1)", "help"))
        add(self._app_command("Quit a2a-inspect", "close every connection and leave (ctrl+q)", "quit"))
        return out

    @staticmethod
    def _wire(conn: Any, method: Any) -> str | bool | None:
        """How the connection's dialect spells ``method``; None while the dialect is not
        known yet; False when the dialect has no such method."""
        client = getattr(conn, "client", None)
        dialect = getattr(client, "dialect", None) if client is not None else None
        if dialect is None:
            return None
        if not dialect.has(method):
            return False
        return dialect.wire_method(method)

    # ------------------------------------------------------------------ Provider

    async def discover(self) -> Hits:
        for command in self.commands():
            yield DiscoveryHit(Content(command.name), command.run, text=command.name, help=literal_markup(command.help))

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for command in self.commands():
            score = matcher.match(command.name)
            if score > 0:
                yield Hit(
                    score,
                    matcher.highlight(command.name),
                    command.run,
                    text=command.name,
                    help=literal_markup(command.help),
                )
