"""F1: what every key does, generated from the bindings so it cannot drift."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

INTRO = (
    "a2a-inspect — inspect and debug A2A agents.\n"
    "Every action is also in the command palette (ctrl+p). Agent text is shown literally.\n"
)


class HelpScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll {
        width: 90; height: 85%; padding: 1 2;
        border: thick $primary; background: $surface;
    }
    """
    BINDINGS = [Binding("escape,q,f1", "dismiss", "Close")]

    def compose(self) -> ComposeResult:
        table = Table(box=None, show_header=True, header_style="bold", expand=True)
        table.add_column("where", style="dim", no_wrap=True)
        table.add_column("key", no_wrap=True)
        table.add_column("action")
        seen: set[tuple[str, str]] = set()
        screen = self.app.main or self.app.screen
        for node in [self.app, screen, *screen.query("*")]:
            where = "global" if node is self.app or node is screen else type(node).__name__
            for binding in getattr(node, "BINDINGS", []):
                if not isinstance(binding, Binding) or not binding.description:
                    continue
                key = self.app.get_key_display(binding)
                if (where, key) in seen:
                    continue
                seen.add((where, key))
                table.add_row(where, key, binding.description)
        with VerticalScroll():
            yield Static(Text(INTRO))
            yield Static(table)

    def action_dismiss(self) -> None:
        self.dismiss(None)
