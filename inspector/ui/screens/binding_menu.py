"""A small menu: which protocol binding the active connection should talk over."""

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
    ("auto", "the card's first interface a2a-inspect speaks"),
    ("jsonrpc", "JSON-RPC 2.0: one endpoint, POST, method names"),
    ("rest", "HTTP+JSON/REST: routes such as POST /message:send"),
    ("grpc", "gRPC: not supported yet"),
)


class BindingMenu(ModalScreen[str | None]):
    """Dismisses with the chosen binding (``auto``, ``jsonrpc``, ``rest``, ``grpc``) or None.

    BINDINGS: up/down choose, enter switches, escape cancels.
    """

    DEFAULT_CSS = """
    BindingMenu { align: center middle; }
    BindingMenu > Vertical {
        width: 72; height: auto; padding: 1 2;
        border: thick $primary; background: $surface;
    }
    BindingMenu Label { margin-bottom: 1; }
    BindingMenu OptionList { height: auto; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, requested: str = "auto", current: str | None = None) -> None:
        super().__init__()
        self.requested = requested
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical():
            now = f"now: {self.current or 'not chosen yet'} (asked for {self.requested})"
            yield Label(f"Switch binding — {now}", markup=False)
            options = []
            for value, meaning in CHOICES:
                mark = "● " if value == self.requested else "  "
                options.append(Option(Content.assemble(mark, (f"{value:<8}", "bold"), "  ", meaning), id=value))
            yield OptionList(*options, id="binding-options")

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
