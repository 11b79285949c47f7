"""A small menu: which A2A dialect the active connection should talk."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

#: (value, what it means)
CHOICES: tuple[tuple[str, str], ...] = (
    ("auto", "detect again: card fields, then the cache, then probes"),
    ("0.1", "0.1 draft: tasks/send, tasks/sendSubscribe"),
    ("0.3", "0.2 / 0.3: message/send, message/stream"),
    ("1.0", "1.0: SendMessage, SendStreamingMessage"),
)


class DialectMenu(ModalScreen[str | None]):
    """Dismisses with the chosen dialect (``auto``, ``0.1``, ``0.3``, ``1.0``) or None.

    BINDINGS: up/down choose, enter switches, escape cancels.
    """

    DEFAULT_CSS = """
    DialectMenu { align: center middle; }
    DialectMenu > Vertical {
        width: 64; height: auto; padding: 1 2;
        border: thick $primary; background: $surface;
    }
    DialectMenu Label { margin-bottom: 1; }
    DialectMenu OptionList { height: auto; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, requested: str = "auto", current: str | None = None) -> None:
        super().__init__()
        self.requested = requested
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical():
            now = f"now: {self.current or 'not chosen yet'} (asked for {self.requested})"
            yield Label(f"Switch dialect — {now}", markup=False)
            options = []
            for value, meaning in CHOICES:
                mark = "● " if value == self.requested else "  "
                options.append(Option(Content.assemble(mark, (f"{value:<5}", "bold"), "  ", meaning),
                                      id=value))
            yield OptionList(*options, id="dialect-options")

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        values = [value for value, _ in CHOICES]
        if self.requested in values:
            options.highlighted = values.index(self.requested)
        options.focus()

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option_id)

    def action_cancel(self) -> None:
        self.dismiss(None)
