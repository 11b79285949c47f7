"""A small modal menu of one setting's values, each with what it means (dialect, binding)."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList, Static
from textual.widgets.option_list import Option

from ..widgets.key_footer import KeyFooter


class ChoiceMenu(ModalScreen[str | None]):
    """Dismisses with the chosen value or None. A subclass names the setting (``WHAT``),
    its values (``CHOICES``) and how wide the value column and the box are.

    BINDINGS: up/down choose, enter switches, escape cancels.
    """

    WHAT: ClassVar[str] = "setting"
    #: (value, what it means)
    CHOICES: ClassVar[tuple[tuple[str, str], ...]] = ()
    COLUMN: ClassVar[int] = 5
    WIDTH: ClassVar[int] = 64

    DEFAULT_CSS = """
    ChoiceMenu { align: center middle; }
    ChoiceMenu > Vertical {
        height: auto; padding: 1 2;
        border: thick $primary; background: $surface;
    }
    ChoiceMenu Label { margin-bottom: 1; }
    ChoiceMenu .card-lists { width: 100%; margin-bottom: 1; color: $text-muted; }
    ChoiceMenu OptionList { height: auto; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, requested: str = "auto", current: str | None = None, listed: str | None = None) -> None:
        """``listed``: what the card lists (its interfaces, in a few words): a value it
        does not list is a guess, and the menu says so."""
        super().__init__()
        self.requested = requested
        self.current = current
        self.listed = listed

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.styles.width = self.WIDTH
            now = f"now: {self.current or 'not chosen yet'} (asked for {self.requested})"
            yield Label(f"Switch {self.WHAT} — {now}", markup=False)
            if self.listed:
                yield Static(
                    f"the card lists: {self.listed}; a {self.WHAT} it does not list is a guess",
                    markup=False,
                    id=f"{self.WHAT}-listed",
                    classes="card-lists",
                )
            options = []
            for value, meaning in self.CHOICES:
                mark = "● " if value == self.requested else "  "
                options.append(
                    Option(Content.assemble(mark, (f"{value:<{self.COLUMN}}", "bold"), "  ", meaning), id=value)
                )
            yield OptionList(*options, id=f"{self.WHAT}-options")
        # This screen's own keys: the main screen's footer below would name keys that do nothing here.
        yield KeyFooter(compact=True)

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        values = [value for value, _ in self.CHOICES]
        if self.requested in values:
            options.highlighted = values.index(self.requested)
        options.focus()

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option_id)

    def action_cancel(self) -> None:
        self.dismiss(None)
