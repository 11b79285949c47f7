"""The Check view's options (o in the Check view): the --ask text (a message that makes
the agent ask for input, for the multi-turn probe), the --running-text (a message
that keeps a task working, for the cancel and subscribe of a running task) and the
groups to run. What is chosen is remembered for the agent for the session."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, Label, SelectionList

from ..check_runs import TEXT_MAX, CheckSettings
from ..widgets.key_footer import KeyFooter


class CheckOptionsScreen(ModalScreen["CheckSettings | None"]):
    """BINDINGS: ctrl+s (or enter in a text box) runs the check with these options;
    escape leaves them as they were. Dismissed with the new settings, or None."""

    DEFAULT_CSS = """
    CheckOptionsScreen { align: center middle; }
    CheckOptionsScreen > VerticalScroll {
        width: 90%; max-width: 100; height: auto; max-height: 100%; padding: 0 1;
        border: thick $accent; background: $surface;
    }
    CheckOptionsScreen Label { width: 100%; }
    CheckOptionsScreen .check-option-title { text-style: bold; }
    CheckOptionsScreen SelectionList { height: auto; max-height: 9; }
    """
    BINDINGS = [
        Binding("ctrl+s", "apply", "Run with these", priority=True),
        Binding("escape", "cancel", "Cancel"),
    ]

    def __init__(self, agent: str, settings: CheckSettings) -> None:
        """``agent``: the agent's name as the view shows it (already made literal)."""
        super().__init__()
        self.agent = agent
        self.settings = settings

    def compose(self) -> ComposeResult:
        from ...check import GROUPS

        with VerticalScroll():
            yield Label(f"Check options for {self.agent}", markup=False, classes="check-option-title")
            yield Label("ask (--ask): a message that makes the agent ask for input", markup=False)
            yield Input(
                self.settings.ask, placeholder="none: the multi-turn probe skips", max_length=TEXT_MAX, id="check-ask"
            )
            yield Label("running text (--running-text): a message that keeps a task working", markup=False)
            yield Input(
                self.settings.running_text,
                placeholder="none: the ordinary text (it may end first)",
                max_length=TEXT_MAX,
                id="check-running",
            )
            yield Label("groups (space switches one)", markup=False)
            chosen = set(self.settings.groups or GROUPS)
            yield SelectionList[str](*((g, g, g in chosen) for g in GROUPS), id="check-groups")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#check-ask", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_apply()

    def action_apply(self) -> None:
        from ...check import GROUPS

        picked = set(self.query_one("#check-groups", SelectionList).selected)
        if not picked:
            self.notify("choose at least one group to run", severity="warning", markup=False)
            return
        groups = () if picked >= set(GROUPS) else tuple(g for g in GROUPS if g in picked)
        self.dismiss(
            CheckSettings(
                ask=self.query_one("#check-ask", Input).value.strip(),
                running_text=self.query_one("#check-running", Input).value.strip(),
                groups=groups,
            )
        )

    def action_cancel(self) -> None:
        self.dismiss(None)
