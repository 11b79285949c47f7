"""F1: the keys, by what you want to do ("send a message", "watch the wire"...).

Each entry names the widget class and action it describes; the key shown is read from
that class's BINDINGS, so a key that changes is shown as it is. tests/test_ui_help.py
checks that every entry resolves and that every binding is described somewhere.
"""

from __future__ import annotations

from typing import Any

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from ..widgets.key_footer import KeyFooter

INTRO = (
    "a2a-inspect — inspect and debug A2A agents. The pane with the keys has an accent bar on "
    "its left; one-letter keys act on that pane only. Every action is also in the command "
    "palette (^p). Agent text is shown literally."
)

#: (owner, action, what it does). Owner: a class name resolved by ``owners(app_class)``, or None
#: for keys no binding of ours carries (the action is then the key to show).
Entry = tuple[str | None, str, str]

SECTIONS: list[tuple[str, list[Entry]]] = [
    (
        "Move around",
        [
            ("app", "view('card')", "the agent card"),
            ("app", "view('task')", "the task: conversation, state, artifacts; the composer takes the keys"),
            ("app", "view('tasks')", "every task of every open agent"),
            ("app", "view('traffic')", "every request, response and event"),
            ("app", "view('push')", "push notifications"),
            ("app", "toggle_sidebar", "the agents sidebar: show it and take the keys; again: hide it"),
            (None, "tab / shift+tab", "the next / previous pane of the view"),
            (None, "^p", "the command palette: every action by name"),
            ("app", "help", "this help"),
            (None, "^q", "quit"),
        ],
    ),
    (
        "Connect to an agent",
        [
            ("app", "open_url", "connect to an agent by URL (base URL or card URL)"),
            ("AgentsPanel", "open", "sidebar: open the saved agent / show the open agent"),
            ("AgentsPanel", "add", "sidebar: add a saved agent (URL, dialect, auth, headers)"),
            ("AgentsPanel", "save", "sidebar: save the active agent, its auth prefilled from the card"),
            ("AgentsPanel", "edit", "sidebar: edit a saved agent (URL, dialect, binding, auth, headers)"),
            ("AgentsPanel", "rename", "sidebar: rename"),
            ("AgentsPanel", "remove", "sidebar: remove a saved agent (asks first)"),
            ("AgentsPanel", "close", "sidebar: close a connection"),
            ("app", "choose_dialect", "talk another dialect (0.1, 0.3, 1.0) or detect again"),
            ("app", "choose_binding", "talk over another binding (JSON-RPC, HTTP+JSON/REST) or the card's first"),
            ("app", "fault_rules", "a2a-inspect proxy: its fault rules, each switched on or off live"),
            ("app", "check", "check the agent against the spec: every probe, on every binding (the keys: below)"),
        ],
    ),
    (
        "Send a message (F3)",
        [
            ("Composer", "send", "send the message"),
            (
                "Composer",
                "toggle_stream",
                "switch the mode: stream the reply (SSE) or send and wait for it (the mode shows above the text box)",
            ),
            ("Composer", "add_file", "add a file part"),
            ("Composer", "add_data", "add a data part (JSON editor)"),
            ("Composer", "toggle_preview", "show the request exactly as it will go on the wire"),
            ("Composer", "recall", "bring back the last message sent"),
            ("PartList", "metadata", "parts list: edit the highlighted part's metadata"),
            ("PartList", "remove", "parts list: remove the highlighted part"),
            (None, "enter", 'parts list: edit the row ("message metadata": this message\'s metadata)'),
        ],
    ),
    (
        "Answer a question (input-required)",
        [
            (None, "(automatic)", "the composer continues a task that waits for input: type, send"),
            (
                "Composer",
                "toggle_target",
                "switch between a new task and the next turn of the selected task "
                "(a finished one: said first; refused, the next message starts a new task)",
            ),
        ],
    ),
    (
        "Edit JSON (data parts, metadata)",
        [
            ("JsonEditScreen", "save", "save (only valid JSON)"),
            ("JsonEditScreen", "cancel", "cancel"),
            ("JsonEditScreen", "external", "edit in $VISUAL, else $EDITOR, else vi (as git does)"),
            ("JsonText", "select_all", "select everything"),
        ],
    ),
    (
        "Follow a task",
        [
            ("TasksView", "open", "tasks: show the task in the task view"),
            ("TasksView", "task_action('get')", "tasks: fetch the task from the agent (shown in the task view)"),
            ("TasksView", "task_action('cancel')", "tasks: cancel the task"),
            ("TasksView", "task_action('resubscribe')", "tasks: follow its stream again"),
            ("TasksView", "beside", "tasks: show the task beside the open one (split); again: close"),
            ("ArtifactsView", "toggle_chunks", "artifacts: a table of every chunk"),
            ("ArtifactDocument", "select_file(1)", "artifacts: select the next file part"),
            ("ArtifactsView", "save", "artifacts: save the selected file part"),
        ],
    ),
    (
        "Read the card (F2)",
        [
            ("CardView", "pick", "use the skill's example as the next message"),
            ("CardView", "toggle_raw", "the card's raw JSON"),
        ],
    ),
    (
        "Watch the wire (F5)",
        [
            ("TrafficView", "focus_filter", "filter: kind:, method:, ex:, status:, task: or any text"),
            ("TrafficView", "copy_body", "copy the selected event's raw body (secrets masked until v shows them)"),
            ("TrafficView", "exchange_step(-1)", "previous event of the same exchange"),
            ("TrafficView", "exchange_step(1)", "next event of the same exchange"),
            ("TrafficView", "only_exchange", "only the selected event's exchange (again: back)"),
            ("TrafficView", "follow", "follow the newest event"),
            ("TrafficView", "toggle_secrets", "show the secrets the detail masks; again: mask them"),
            ("TrafficView", "focus_list", "filter: back to the list"),
            ("TrafficList", "choose", "the selected event in full"),
            ("TrafficDetail", "back", "back to the list"),
        ],
    ),
    (
        "Push notifications (F6)",
        [
            ("PushPanel", "toggle_receiver", "start / stop a local receiver for this agent"),
            ("PushPanel", "register_push", "register it for the selected task"),
        ],
    ),
    (
        "Record and replay",
        [
            ("app", "toggle_recording", "start / stop recording this agent's session (JSONL)"),
            ("ReplayBar", "command('toggle')", "replay: play / pause"),
            ("ReplayBar", "command('step', 1)", "replay: one event on"),
            ("ReplayBar", "command('step', -1)", "replay: one event back"),
            ("ReplayBar", "command('state', 1)", "replay: the next state change"),
            ("ReplayBar", "command('goto')", "replay: go to an event"),
            ("ReplayApp", "replay('focus')", "replay: the timeline takes the keys"),
        ],
    ),
    (
        "Check the agent against the spec (F7)",
        [
            (
                "CheckTree",
                "select_cursor",
                "on a failure: its exchange in the traffic view; on a group: unfold / fold it",
            ),
            ("CheckScreen", "toggle_skips", "unfold / fold the skipped probes (grouped by reason)"),
            ("CheckScreen", "toggle_passes", "unfold / fold the passed probes (one line)"),
            ("CheckScreen", "run", "run the check again (the view shows the agent's last run)"),
            ("CheckScreen", "options", "the --ask text, the --running-text and the groups, kept for the agent"),
            ("CheckOptionsScreen", "apply", "options: run the check with them"),
            ("CheckOptionsScreen", "cancel", "options: leave them as they were"),
            ("CheckScreen", "dismiss_screen", "close the view (a run goes on: F7 shows it)"),
        ],
    ),
    (
        "When something fails",
        [
            ("app", "error_details", "the last errors in full (works from anywhere)"),
        ],
    ),
]


def owners(app_class: type) -> dict[str, Any]:
    """The classes the help names, by name (imported here: help is rarely opened). The
    app's own (``app``, and ``ReplayApp`` when replaying) are read from ``app_class``'s
    bases: a screen sits below the app and does not import it."""
    from ..widgets.agents_panel import AgentsPanel
    from ..widgets.artifact_document import ArtifactDocument
    from ..widgets.artifacts_view import ArtifactsView
    from ..widgets.card_view import CardView
    from ..widgets.composer import Composer
    from ..widgets.part_list import PartList
    from ..widgets.push_panel import PushPanel
    from ..widgets.replay_bar import ReplayBar
    from ..widgets.tasks_view import TasksView
    from ..widgets.traffic_detail import TrafficDetail
    from ..widgets.traffic_list import TrafficList
    from ..widgets.traffic_view import TrafficView
    from .check import CheckScreen, CheckTree
    from .check_options import CheckOptionsScreen
    from .json_edit import JsonEditScreen, JsonText

    apps = {cls.__name__: cls for cls in app_class.__mro__}
    own = {"app": apps["InspectorApp"]}
    if "ReplayApp" in apps:
        own["ReplayApp"] = apps["ReplayApp"]
    return {
        **own,
        "AgentsPanel": AgentsPanel,
        "ArtifactDocument": ArtifactDocument,
        "ArtifactsView": ArtifactsView,
        "CardView": CardView,
        "Composer": Composer,
        "PartList": PartList,
        "PushPanel": PushPanel,
        "ReplayBar": ReplayBar,
        "TasksView": TasksView,
        "TrafficDetail": TrafficDetail,
        "TrafficList": TrafficList,
        "TrafficView": TrafficView,
        "JsonEditScreen": JsonEditScreen,
        "JsonText": JsonText,
        "CheckScreen": CheckScreen,
        "CheckTree": CheckTree,
        "CheckOptionsScreen": CheckOptionsScreen,
    }


def binding_for(owner: Any, action: str) -> Binding | None:
    for binding in getattr(owner, "BINDINGS", []):
        if isinstance(binding, Binding) and binding.action == action:
            return binding
    return None


def resolve(app: Any) -> list[tuple[str, list[tuple[str, str]]]]:
    """The sections with each entry's key as the app shows it. A key that no longer
    exists raises (the test suite calls this)."""
    classes = owners(type(app))
    out = []
    replay = getattr(app, "replay_controller", None) is not None
    for title, entries in SECTIONS:
        rows = []
        for owner, action, text in entries:
            if owner is None:
                rows.append((action, text))
                continue
            if not replay and owner.startswith("Replay"):
                continue
            binding = binding_for(classes[owner], action)
            if binding is None:
                raise LookupError(f"help: {owner} has no binding for {action!r}")
            rows.append((app.get_key_display(binding), text))
        if rows:
            out.append((title, rows))
    return out


class HelpScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll {
        width: 96; max-width: 100%; height: 90%; padding: 0 1;
        border: thick $primary; background: $surface;
    }
    HelpScreen .help-title { text-style: bold; color: $accent; margin-top: 1; }
    """
    BINDINGS = [Binding("escape,q,f1", "dismiss", "Close")]

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(Text(INTRO))
            for title, rows in resolve(self.app):
                yield Static(Text(title), classes="help-title")
                table = Table(box=None, show_header=False, expand=True, padding=(0, 1))
                table.add_column("key", no_wrap=True, style="bold", min_width=14)
                table.add_column("what")
                for key, text in rows:
                    table.add_row(Text(key), Text(text))
                yield Static(table)
        # This screen's own keys: the main screen's footer below would name keys that do nothing here.
        yield KeyFooter(compact=True)

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(None)
