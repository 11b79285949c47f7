"""The proxy's fault rules, each switched on or off while traffic flows (F10 in proxy
mode). Switching a ``hold_working`` rule off lets what it held go."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Label

from ..widgets.key_footer import KeyFooter


def rule_text(index: int, rule: Any) -> str:
    match = rule.match
    where = [
        f"method {match.method}" if match.method else "",
        f"route {match.route}" if match.route else "",
        f"text /{match.text}/" if match.text else "",
        f"first {match.times}" if match.times else "",
    ]
    said = ", ".join(w for w in where if w) or "every A2A call"
    name = f"{rule.name}: " if rule.name else ""
    return f"{index + 1}. {name}{said} → {' '.join(rule.fault.words())}"


class FaultRulesScreen(ModalScreen[None]):
    """BINDINGS: space / enter switch the highlighted rule; escape closes."""

    DEFAULT_CSS = """
    FaultRulesScreen { align: center middle; }
    FaultRulesScreen > Vertical {
        width: 90%; max-width: 110; height: auto; max-height: 80%; padding: 1 2;
        border: thick $accent; background: $surface;
    }
    FaultRulesScreen Label { margin-bottom: 1; width: 100%; }
    FaultRulesScreen DataTable { height: auto; max-height: 20; }
    """
    BINDINGS = [
        Binding("space,enter", "toggle_rule", "On/off"),
        Binding("escape", "dismiss_screen", "Close"),
    ]

    def __init__(self, rules: Any) -> None:
        super().__init__()
        self.rules = rules

    def compose(self) -> ComposeResult:
        with Vertical():
            count = len(self.rules)
            head = (
                f"Fault rules of the proxy ({count}): space switches one on or off; escape closes"
                if count
                else "The proxy has no fault rules (start it with --faults FILE)"
            )
            yield Label(head, markup=False, id="fault-rules-head")
            yield DataTable(id="fault-rules-table", cursor_type="row", zebra_stripes=True)
        # This screen's own keys: the main screen's footer below would name keys that do nothing here.
        yield KeyFooter(compact=True)

    def on_mount(self) -> None:
        self._fill()
        self.query_one(DataTable).focus()
        # The rule column's width is known once the dialog is laid out.
        self.call_after_refresh(self._fill)

    def on_resize(self) -> None:
        self._fill()

    def _fill(self) -> None:
        table = self.query_one(DataTable)
        row = table.cursor_row
        table.clear(columns=True)
        table.add_column("on", key="on")
        # A rule wraps in the room the table has: cut, a narrow terminal lost its fault,
        # the part that says what the rule does. (9: the on/off column and both cells' padding.)
        room = table.scrollable_content_region.width - 9
        table.add_column("rule", key="rule", width=room if room >= 20 else None)
        for i, rule in enumerate(self.rules.rules):
            table.add_row("● on" if rule.enabled else "○ off", Text(rule_text(i, rule)), key=str(i), height=None)
        if self.rules.rules:
            table.move_cursor(row=min(max(row, 0), len(self.rules.rules) - 1))

    def action_toggle_rule(self) -> None:
        table = self.query_one(DataTable)
        if not self.rules.rules:
            return
        index = table.cursor_row
        enabled = self.rules.toggle(index)
        self._fill()
        self.app.notify(f"rule {index + 1} {'on' if enabled else 'off'}", title="proxy", markup=False)

    def action_dismiss_screen(self) -> None:
        self.dismiss(None)
