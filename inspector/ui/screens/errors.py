"""The errors of this run, newest first, in full: the detail behind each notification."""

from __future__ import annotations

import time

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from ..widgets.key_footer import KeyFooter


class ErrorsScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    ErrorsScreen { align: center middle; }
    ErrorsScreen > VerticalScroll {
        width: 90%; height: 80%; padding: 1 2;
        border: thick $error; background: $surface;
    }
    ErrorsScreen .error-title { text-style: bold; color: $error; }
    ErrorsScreen .error-detail { margin-bottom: 1; }
    """
    BINDINGS = [Binding("escape,q,ctrl+e", "dismiss", "Close")]

    def __init__(self, errors: list[tuple[float, str, str]]) -> None:
        super().__init__()
        self.errors = errors

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            for when, title, detail in reversed(self.errors):
                stamp = time.strftime("%H:%M:%S", time.localtime(when))
                yield Static(Text(f"{stamp}  {title}"), classes="error-title")
                yield Static(Text(detail), classes="error-detail")
        # This screen's own keys: the main screen's footer below would name keys that do nothing here.
        yield KeyFooter(compact=True)

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(None)
