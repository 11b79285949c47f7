"""The Check view (F7, or "Check the agent" in the palette): ``a2a-inspect check``'s
probes run against the active agent, on its own session, so every exchange a probe
makes is in the traffic view. Failures come first, skips are grouped by reason and
folded, passes fold into one line; enter on a failure closes the view and opens the
exchange that shows it there. The view always shows the active agent's last run
(ui/check_runs.py keeps it): a run in progress says so, r runs again, o sets the
--ask text, the --running-text and the groups."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, Tree

from ...textsafe import shorten, visible
from ..check_runs import OPTION_PROBES, CheckRun, CheckSettings, checkable, outline
from ..typed_app import InspectorAppNode
from ..widgets.connection_bar import connection_label
from ..widgets.key_footer import KeyFooter

#: Keys of the tree's rows, kept across redraws (what is open, where the cursor is).
PASSED, FAILED = "passed", "failed"
#: Seconds between redraws while results come in.
REDRAW = 0.15


def _line(text: str, limit: int = 300) -> str:
    return visible(shorten(text, limit), single_line=True)


def _where(r: Any) -> str:
    return r.binding or "agent"


class CheckTree(Tree[tuple[str, Any]]):
    """The results. BINDINGS: enter opens a failure in the traffic view, or opens and
    folds a group; space folds too."""

    BINDINGS = [Binding("enter", "select_cursor", "Open")]


class CheckScreen(InspectorAppNode, ModalScreen["int | None"]):
    """BINDINGS: r runs the check again; o sets its options; s unfolds / folds the
    skips; p the passes; escape closes. Dismissed with the event seq of the failure to
    open in the traffic view, or None."""

    DEFAULT_CSS = """
    /* Opaque: a see-through screen repaints the views below it (and they change with
       every exchange a probe makes) on every frame, which slowed a check tenfold. */
    CheckScreen { align: center middle; background: $background; }
    CheckScreen > Vertical {
        width: 96%; height: 1fr; padding: 0 1; border: thick $accent; background: $surface;
    }
    CheckScreen #check-head { width: 100%; text-style: bold; color: $accent; }
    CheckScreen #check-summary { width: 100%; }
    CheckScreen #check-options { width: 100%; color: $text-muted; margin-bottom: 1; }
    CheckScreen CheckTree { height: 1fr; overflow-x: hidden; }
    CheckScreen #check-detail { width: 100%; height: auto; max-height: 8; margin-top: 1; }
    """
    BINDINGS = [
        Binding("r", "run", "Run again"),
        Binding("o", "options", "Options"),
        Binding("s", "toggle_skips", "Skips"),
        Binding("p", "toggle_passes", "Passes"),
        Binding("escape", "dismiss_screen", "Close"),
    ]

    def __init__(self, conn: Any) -> None:
        super().__init__()
        self.conn = conn
        #: Rows unfolded by the person, by key: a redraw keeps them so.
        self.unfolded: set[str] = set()
        #: Whether the last redraw showed a run in progress.
        self.drawn_running = False
        self.redraw_due = False

    @property
    def run(self) -> CheckRun | None:
        return self.app.checks.run_for(self.conn) if self.conn is not None else None

    @property
    def results(self) -> list[Any]:
        """The shown run's results in the view's order: failures, skips, passes."""
        run = self.run
        if run is None:
            return []
        o = outline(run.results)
        return [*o.failed, *(r for _, group in o.skipped for r in group), *o.passed]

    @property
    def report(self) -> Any:
        run = self.run
        return run.report if run is not None else None

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("", markup=False, id="check-head")
            yield Label("", markup=False, id="check-summary")
            yield Label("", markup=False, id="check-options")
            tree: CheckTree = CheckTree("results", id="check-tree")
            tree.show_root = False
            tree.auto_expand = True
            yield tree
            yield Label("", markup=False, id="check-detail")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.app.checks.listeners.append(self._heard)
        self.watch(self.app, "active", self._follow, init=False)
        self.query_one(CheckTree).focus()
        if self.run is None and checkable(self.conn):
            self.app.checks.start(self.app, self.conn)
        self._draw()

    def on_unmount(self) -> None:
        if self._heard in self.app.checks.listeners:
            self.app.checks.listeners.remove(self._heard)

    def _follow(self, conn: Any) -> None:
        """Another agent became active: its run (or none) is what the view shows now."""
        if conn is self.conn:
            return
        self.conn = conn
        self.unfolded.clear()
        self._draw()

    def _heard(self, conn_id: int, run: CheckRun) -> None:
        if self.conn is None or conn_id != self.conn.id or run is not self.run or not self.is_mounted:
            return
        if not run.running or not run.results:
            self._draw()  # a run's start and end are shown at once
        elif not self.redraw_due:
            # Results come in bursts (dozens in a second): one redraw for each burst.
            self.redraw_due = True
            self.set_timer(REDRAW, self._redraw)

    def _redraw(self) -> None:
        self.redraw_due = False
        if self.is_mounted:
            self._draw()

    # ------------------------------------------------------------------ drawing

    def _shown_name(self) -> str:
        # The name the bar shows: the user's, else the card's, else host:port.
        return _line(connection_label(self.conn), 40) if self.conn is not None else "no agent"

    def _title(self, run: CheckRun | None) -> str:
        title = f"Check of {self._shown_name()}"
        if run is None:
            return title
        title += f" · run {run.number}"
        if run.report is not None and run.report.dialect:
            title += f" · {run.report.dialect} · {', '.join(run.report.bindings)}"
        return title

    def _summary(self, run: CheckRun | None) -> Text:
        """The counts line: how many failed (in red when any), passed, and were skipped
        for how many reasons; or what keeps the view from having them."""
        if self.conn is None or not checkable(self.conn):
            return Text("a check needs a live HTTP or gRPC agent (ctrl+o connects one)")
        if run is None:
            return Text("not checked yet: r runs the check")
        if run.report is not None and run.report.unreachable is not None:
            return Text(f"the agent could not be reached: {_line(run.report.unreachable, 200)}", style="bold red")
        o = outline(run.results)
        skipped = sum(len(g) for _, g in o.skipped)
        reasons = len(o.skipped)
        line = Text()
        if run.running:
            line.append(f"running… {len(run.results)} probes so far: ", style="bold")
        elif run.error is not None:
            line.append(f"{run.error}: ", style="bold")
        line.append(f"{len(o.failed)} failed", style="bold red" if o.failed else "bold green")
        line.append(f" · {len(o.passed)} passed · {skipped} skipped")
        if skipped:
            line.append(f" ({reasons} reason{'s' if reasons != 1 else ''})")
        return line

    def _draw(self) -> None:
        run = self.run
        self.query_one("#check-head", Label).update(self._title(run))
        self.query_one("#check-summary", Label).update(self._summary(run))
        settings = self.app.checks.settings_for(self.conn) if self.conn is not None else CheckSettings()
        self.query_one("#check-options", Label).update(_line(settings.describe(), 400) + " (o: options)")
        tree = self.query_one(CheckTree)
        kept = tree.cursor_node.data[0] if tree.cursor_node is not None and tree.cursor_node.data else None
        # While results come in (and as they end) the cursor stays on the top row, the
        # first failure; after that it stays where the person puts it.
        if run is None or run.running or self.drawn_running:
            kept = None
        self.drawn_running = run is not None and run.running
        tree.clear()
        if run is not None:
            self._fill(tree, run)
        self._restore_cursor(tree, kept)
        self._show_detail()

    def _fill(self, tree: CheckTree, run: CheckRun) -> None:
        o = outline(run.results)
        root = tree.root
        for r in o.failed:
            label = Text.assemble(
                ("✗ ", "bold red"), (r.probe.id, "bold"), f"  [{_where(r)}]  ", _line(r.reason or r.probe.title)
            )
            root.add_leaf(label, data=(f"{FAILED}:{r.probe.id}:{_where(r)}", r))
        for reason, group in o.skipped:
            key = f"skip:{reason}"
            ids = ", ".join(dict.fromkeys(r.probe.id for r in group))
            label = Text.assemble(("– ", "dim"), f"{len(group)} skipped: ", _line(reason, 200), (f"  ({ids})", "dim"))
            node = root.add(label, data=(key, group), expand=key in self.unfolded)
            for r in group:
                node.add_leaf(
                    Text(f"{r.probe.id}  [{_where(r)}]  {_line(r.probe.title)}"),
                    data=(f"skipped:{r.probe.id}:{_where(r)}", r),
                )
        if o.passed:
            ids = ", ".join(dict.fromkeys(r.probe.id for r in o.passed))
            label = Text.assemble(("✓ ", "green"), f"{len(o.passed)} passed", (f"  ({_line(ids, 400)})", "dim"))
            node = root.add(label, data=(PASSED, o.passed), expand=PASSED in self.unfolded)
            for r in o.passed:
                node.add_leaf(
                    Text(f"✓ {r.probe.id}  [{_where(r)}]  {_line(r.probe.title)}"),
                    data=(f"{PASSED}:{r.probe.id}:{_where(r)}", r),
                )

    def _restore_cursor(self, tree: CheckTree, key: str | None) -> None:
        """The cursor stays on what it was on; else the first row (the first failure)."""
        shown = self._shown(tree)
        if not shown:
            return
        keys = [node.data[0] for node in shown]
        tree.move_cursor_to_line(keys.index(key) if key in keys else 0)

    @staticmethod
    def _shown(tree: CheckTree) -> list[Any]:
        """The rows on screen, top to bottom (the tree numbers its lines only when drawn)."""
        out = []
        for node in tree.root.children:
            out.append(node)
            if node.is_expanded:
                out.extend(node.children)
        return out

    def _show_detail(self) -> None:
        node = self.query_one(CheckTree).cursor_node
        self.query_one("#check-detail", Label).update(self._detail(node.data if node is not None else None))

    def _detail(self, data: tuple[str, Any] | None) -> str:
        if data is None:
            return ""
        key, what = data
        if key == PASSED:
            return f"{len(what)} probes passed: p lists them"
        if key.startswith("skip:"):
            why = what[0].reason or "no reason given"
            lines = [
                f"{len(what)} skipped because: {why}",
                "probes: " + ", ".join(f"{r.probe.id} [{_where(r)}]" for r in what),
            ]
            wants = sorted({OPTION_PROBES[r.probe.id] for r in what if r.probe.id in OPTION_PROBES})
            if wants:
                lines.append(f"o sets the {' and the '.join(wants)} these probes need")
            return visible("\n".join(lines))
        r = what
        lines = [f"{r.probe.id} [{_where(r)}]: {r.probe.title}"]
        if r.reason:
            lines.append(r.reason)
        if r.outcome == "fail":
            lines += [f"spec: {r.probe.section}", f"rule: {r.probe.rule}"]
            if r.seq is not None:
                lines.append("enter: the exchange that shows it, in the traffic view")
        return visible("\n".join(lines))

    # ------------------------------------------------------------------ events and keys

    def on_tree_node_highlighted(self, event: Tree.NodeHighlighted) -> None:
        event.stop()
        self.query_one("#check-detail", Label).update(self._detail(event.node.data))

    def on_tree_node_selected(self, event: Tree.NodeSelected) -> None:
        event.stop()
        data = event.node.data
        if data is None or event.node.children:
            return  # a group: the tree opens or folds it
        r = data[1]
        if r.outcome == "fail" and r.seq is not None:
            self.dismiss(r.seq)
        elif r.outcome == "fail":
            self.notify("no exchange shows this failure (see its reason)", markup=False)
        else:
            self.notify("only a failure opens in the traffic view", markup=False)

    def on_tree_node_expanded(self, event: Tree.NodeExpanded) -> None:
        event.stop()
        if event.node.data is not None:
            self.unfolded.add(event.node.data[0])

    def on_tree_node_collapsed(self, event: Tree.NodeCollapsed) -> None:
        event.stop()
        if event.node.data is not None:
            self.unfolded.discard(event.node.data[0])

    def action_run(self) -> None:
        if not checkable(self.conn):
            self.notify(
                "a check needs a live HTTP or gRPC agent: connect to one first (ctrl+o)",
                severity="warning",
                markup=False,
            )
            return
        self.app.checks.start(self.app, self.conn)

    def action_options(self) -> None:
        if not checkable(self.conn):
            self.notify(
                "a check needs a live HTTP or gRPC agent: connect to one first (ctrl+o)",
                severity="warning",
                markup=False,
            )
            return
        from .check_options import CheckOptionsScreen

        conn = self.conn

        def chosen(settings: CheckSettings | None) -> None:
            if settings is not None and conn is self.conn:
                self.app.checks.start(self.app, conn, settings)

        self.app.push_screen(CheckOptionsScreen(self._shown_name(), self.app.checks.settings_for(conn)), chosen)

    def _toggle(self, keys: list[str]) -> None:
        if not keys:
            return
        if all(k in self.unfolded for k in keys):
            self.unfolded.difference_update(keys)
        else:
            self.unfolded.update(keys)
        self._draw()

    def action_toggle_skips(self) -> None:
        run = self.run
        self._toggle([f"skip:{reason}" for reason, _ in outline(run.results).skipped] if run else [])

    def action_toggle_passes(self) -> None:
        run = self.run
        self._toggle([PASSED] if run is not None and outline(run.results).passed else [])

    def action_dismiss_screen(self) -> None:
        self.dismiss(None)
