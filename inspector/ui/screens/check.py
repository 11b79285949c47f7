"""The Check view (F7, or "Check the agent" in the palette): ``a2a-inspect check``'s
probes run against the active agent, on its own session, so every exchange a probe
makes is in the traffic view. Enter on a failure closes the view and opens the
exchange that shows it there."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Label

from ...textsafe import shorten, visible

MARKS = {"fail": "✗", "skip": "-", "pass": "✓"}
ORDER = {"fail": 0, "skip": 1, "pass": 2}


def options_for(conn: Any) -> Any:
    """The check's options from a connection: its URL, dialect, binding and credentials."""
    from ...check import CheckOptions

    return CheckOptions(url=conn.url, dialect=conn.requested_dialect, binding=conn.requested_binding,
                        card_url=conn.card_url, headers=conn.headers, auth=conn.auth, timeouts=conn.timeouts,
                        limits=conn.limits, secret_names=tuple(conn.secret_names),
                        plain_names=tuple(conn.plain_names), tls=getattr(conn, "tls", None))


class CheckScreen(ModalScreen["int | None"]):
    """BINDINGS: enter opens a failure's exchange in the traffic view; escape closes.
    Dismissed with that exchange's event seq, or None."""

    DEFAULT_CSS = """
    CheckScreen { align: center middle; }
    CheckScreen > Vertical {
        width: 96%; height: 90%; padding: 0 1; border: thick $accent; background: $surface;
    }
    CheckScreen #check-head { width: 100%; margin-bottom: 1; }
    CheckScreen DataTable { height: 1fr; }
    CheckScreen #check-detail { width: 100%; height: auto; max-height: 8; margin-top: 1; }
    CheckScreen #check-keys { width: 100%; color: $text-muted; }
    """
    BINDINGS = [
        Binding("enter", "open_exchange", "Open in traffic"),
        Binding("escape", "dismiss_screen", "Close"),
    ]

    def __init__(self, conn: Any) -> None:
        super().__init__()
        self.conn = conn
        self.results: list[Any] = []
        self.report: Any = None

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(self._head("running…"), markup=False, id="check-head")
            yield DataTable(id="check-table", cursor_type="row", zebra_stripes=True)
            yield Label("", markup=False, id="check-detail")
            yield Label("enter: open a failure in the traffic view · escape: close", markup=False,
                        id="check-keys")

    def _head(self, state: str) -> str:
        name = visible(shorten(self.conn.name, 40), single_line=True)
        return f"Check of {name}: {state}"

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("", "probe", "binding", "why")
        table.focus()
        self.run_worker(self._run(), exclusive=True, exit_on_error=False)

    async def _run(self) -> None:
        from ...check import run_check

        report = await run_check(options_for(self.conn), self.conn.session, self.conn.tracker,
                                 on_result=self._add)
        self.report = report
        head = self.query_one("#check-head", Label)
        if report.unreachable is not None:
            why = visible(shorten(report.unreachable, 200), single_line=True)
            head.update(self._head(f"the agent could not be reached: {why}"))
            return
        counts = ", ".join(f"{report.count(o)} {w}" for o, w in (("fail", "failed"), ("skip", "skipped"),
                                                                  ("pass", "passed")))
        head.update(self._head(f"{counts} · {report.dialect} · {', '.join(report.bindings)}"))
        self.results.sort(key=lambda r: ORDER[r.outcome])
        table = self.query_one(DataTable)
        table.clear()
        for r in self.results:
            self._row(table, r)
        table.move_cursor(row=0)

    def _add(self, result: Any) -> None:
        self.results.append(result)
        self._row(self.query_one(DataTable), result)

    def _row(self, table: DataTable, r: Any) -> None:
        why = visible(shorten(r.reason or r.probe.title, 300), single_line=True)
        table.add_row(MARKS[r.outcome], r.probe.id, r.binding or "agent", why)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        r = self._result(event.cursor_row)
        if r is None:
            return
        lines = [f"{r.probe.id} [{r.binding or 'agent'}]: {r.probe.title}"]
        if r.reason:
            lines.append(r.reason)
        if r.outcome == "fail":
            lines += [f"spec: {r.probe.section}", f"rule: {r.probe.rule}"]
        self.query_one("#check-detail", Label).update(visible("\n".join(lines)))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()  # the table takes enter itself: its selection is this screen's enter
        self.action_open_exchange()

    def _result(self, row: int) -> Any:
        return self.results[row] if 0 <= row < len(self.results) else None

    def action_open_exchange(self) -> None:
        r = self._result(self.query_one(DataTable).cursor_row)
        if r is not None and r.seq is not None:
            self.dismiss(r.seq)
        elif r is not None:
            self.notify("only a failure that an exchange shows opens in the traffic view", markup=False)

    def action_dismiss_screen(self) -> None:
        self.dismiss(None)
