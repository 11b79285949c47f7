"""The agent card: structured, with lint findings beside the fields they concern, and
the raw JSON a key away. Skill examples fill the composer."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Static

from ...protocol import models as m
from ...protocol.card_rows import LABEL_WIDTH, CardRow, card_rows, value_text
from ...protocol.card_sections import SEVERITY_MARK, FindingPlacer
from ...textsafe import shorten, visible
from ..connection import AgentConnection
from ..messages import ComposeText
from .base import ConnectionView, hidden, leaving
from .card_item import CardItem

if TYPE_CHECKING:
    from ...protocol.lint import Finding

SEVERITY_STYLE = {"error": "bold $error", "warning": "$warning", "info": "$accent"}
Row = CardRow


def _text(value: Any, width: int = 400) -> str:
    """One field's value for display: literal, control characters made visible."""
    return value_text(value, width=width, item_width=80, multiline=True)


def finding_line(f: Finding, indent: str = "    ") -> Content:
    mark = SEVERITY_MARK.get(f.severity, f.severity)
    return Content.assemble(
        indent,
        (f"{mark} ", SEVERITY_STYLE.get(f.severity, "")),
        # The path names the card's own keys (a security scheme's name).
        (f"{visible(f.path, single_line=True)}: ", "$foreground-muted"),
        (visible(f.message, single_line=True), SEVERITY_STYLE.get(f.severity, "")),
        f"  [{f.code}]",
    )


def section_content(title: str, rows: list[Row], findings: FindingPlacer) -> Content:
    """A section's title and rows; each finding right under the row of its field, the
    section's other findings at its end."""
    lines: list[Content] = [Content.styled(title.upper(), "bold $primary")]
    for label, value, paths in rows:
        text = _text(value)
        first, *more = text.split("\n") or [""]
        lines.append(Content.assemble("  ", (f"{label:<{LABEL_WIDTH}}", "$foreground-muted"), first))
        lines.extend(Content(" " * (LABEL_WIDTH + 2) + line) for line in more)
        if paths:
            lines.extend(finding_line(f) for f in findings.take(paths))
    lines.extend(finding_line(f, "  ") for f in findings.section(title))
    return Content("\n").join(lines)


def card_sections(
    card: m.AgentCard, *, card_url: str | None, dialect: str | None, endpoint: str | None
) -> list[tuple[str, list[Row]]]:
    """The card's fields in sections, each row with the JSON paths it stands for."""
    return card_rows(card, card_url=card_url, dialect=dialect, endpoint=endpoint)


def skill_content(i: int, skill: m.AgentSkill, findings: FindingPlacer) -> Content:
    lines = [
        Content.assemble(
            ("▸ ", "$accent"),
            (shorten(skill.name or "(unnamed skill)", 60), "bold"),
            (f"  id {shorten(skill.id or '-', 40)}", "$foreground-muted"),
        )
    ]
    if skill.description:
        lines.extend(Content("    " + line) for line in visible(skill.description).split("\n"))
    if skill.tags:
        lines.append(Content.assemble("    ", ("tags ", "$foreground-muted"), (_text(skill.tags), "$secondary")))
    if skill.input_modes or skill.output_modes:
        lines.append(
            Content.assemble(
                "    ",
                ("modes ", "$foreground-muted"),
                f"in {_text(skill.input_modes)} · out {_text(skill.output_modes)}",
            )
        )
    lines.extend(finding_line(f, "    ") for f in findings.take((f"$.skills[{i}]",)))
    return Content("\n").join(lines)


def example_content(example: str) -> Content:
    first, *more = visible(example).split("\n")
    lines = [Content.assemble("      ", ("e.g. ", "$foreground-muted"), first)]
    lines.extend(Content("           " + line) for line in more)
    return Content("\n").join(lines)


@dataclass
class _Item:
    skill: int
    #: None for the skill itself.
    example: str | None
    widget: Static


class CardView(ConnectionView, Vertical, can_focus=True):
    """The active agent's card.

    BINDINGS: up/down move through skills and their examples, enter picks (an example
    fills the composer; a skill its first example), j toggles the raw JSON, pageup /
    pagedown / home / end scroll.
    """

    DEFAULT_CSS = """
    CardView {
        height: 1fr;
        & > VerticalScroll { height: 1fr; padding: 0 1; }
        & Static.card-section { margin-bottom: 1; }
        & .card-skills-title { text-style: bold; color: $primary; }
        & .card-empty { color: $foreground-muted; padding: 1 2; }
        &:focus CardItem.-cursor { background: $block-cursor-background; color: $block-cursor-foreground; }
        & #card-raw-scroll { display: none; }
        &.-raw #card-raw-scroll { display: block; }
        &.-raw #card-body { display: none; }
    }
    """
    BINDINGS = [
        Binding("up", "cursor(-1)", "Previous", show=False),
        Binding("down", "cursor(1)", "Next", show=False),
        Binding("enter", "pick", "Use example"),
        Binding("j", "toggle_raw", "Raw JSON"),
        Binding("pageup", "scroll_body('page_up')", "Page up", show=False),
        Binding("pagedown", "scroll_body('page_down')", "Page down", show=False),
        Binding("home", "scroll_body('home')", "Top", show=False),
        Binding("end", "scroll_body('end')", "Bottom", show=False),
    ]

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        #: Composed and mounted: safe to query children (is_mounted is False in on_mount).
        self._live = False
        self._conn: AgentConnection | None = None
        self._shown: tuple[Any, ...] | None = None
        self._items: list[_Item] = []
        self.cursor = 0
        self.findings: list[Finding] = []
        self.raw = False

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="card-body", can_focus=False):
            yield Static("no agent: ctrl+o connects", classes="card-empty", markup=False)
        with VerticalScroll(id="card-raw-scroll", can_focus=False):
            yield Static("", id="card-raw", markup=False)

    def on_mount(self) -> None:
        if leaving(self):
            return
        self._live = True
        self.show_connection(getattr(self.app, "active", None))

    def on_show(self) -> None:
        # Shown (its tab picked): take the keys unless something visible has them.
        focused = self.screen.focused
        if focused is None or hidden(focused):
            self.focus()

    # ------------------------------------------------------------------ ConnectionView

    def show_connection(self, conn: AgentConnection | None) -> None:
        self._conn = conn
        if not self._live:
            return
        card = conn.card if conn is not None else None
        key = (
            id(conn),
            id(card),
            id(conn.card_raw) if conn else None,
            conn.dialect_name if conn else None,
            conn.state if conn else None,
        )
        if key == self._shown:
            return
        self._shown = key
        self._rebuild(conn)

    # ------------------------------------------------------------------ rendering

    def _rebuild(self, conn: AgentConnection | None) -> None:
        body = self.query_one("#card-body", VerticalScroll)
        body.remove_children()
        self._items = []
        self.cursor = 0
        self.findings = []
        card = conn.card if conn is not None else None
        if conn is None or card is None:
            if conn is None:
                text = "no agent: ctrl+o connects, or open a saved agent from the list"
            elif conn.state in ("new", "connecting"):
                text = f"fetching the card of {shorten(conn.url, 80)}…"
            elif conn.state == "error" and conn.error is not None:
                text = f"no card: {visible(str(conn.error))}"
            elif conn.card_error is not None:
                # It serves one, and it is broken: that is the finding, not "no card".
                where = getattr(conn.client, "card_url", None)
                text = (
                    f"invalid agent card{' at ' + shorten(where, 120) if where else ''}: "
                    f"{visible(str(conn.card_error))}"
                )
            elif conn.read_only:
                text = "a recording: no card to show"
            else:
                text = "this agent serves no card"
            body.mount(Static(text, classes="card-empty", markup=False))
            self._show_raw(conn.card_raw if conn is not None and conn.card_error is not None else None)
            return
        from ...protocol.lint import lint_card

        client = conn.client
        card_url = getattr(client, "card_url", None) or conn.card_url
        lint_dialect = None if conn.requested_dialect == "auto" else conn.dialect_name
        try:
            self.findings = lint_card(conn.card_raw, lint_dialect, card_url=card_url)
        except Exception as exc:  # a lint bug must not hide the card
            self.app.report_error("card lint failed", exc)
            self.findings = []
        findings = FindingPlacer(self.findings)
        widgets: list[Static] = [Static(self._summary(card), classes="card-section card-summary")]
        dialect = f"{conn.dialect_name} ({conn.dialect_source})" if conn.dialect_name else None
        for title, rows in card_sections(
            card, card_url=card_url, dialect=dialect, endpoint=getattr(client, "endpoint", None)
        ):
            widgets.append(Static(section_content(title, rows, findings), classes=f"card-section card-{title}"))
        skills = card.skills or []
        widgets.append(Static(f"SKILLS ({len(skills)})", classes="card-skills-title", markup=False))
        for i, skill in enumerate(skills):
            item = CardItem(skill_content(i, skill, findings), len(self._items), classes="card-skill")
            self._items.append(_Item(i, None, item))
            widgets.append(item)
            for example in skill.examples or []:
                item = CardItem(example_content(example), len(self._items), classes="card-example")
                self._items.append(_Item(i, example, item))
                widgets.append(item)
        findings.take(("$.skills",))  # shown under their skill, or here:
        rest = findings.rest()
        lines = [finding_line(f, "  ") for f in rest]
        other = Content("\n").join([Content.styled("OTHER FINDINGS", "bold $primary"), *lines]) if rest else ""
        widgets.append(Static(other, classes="card-section card-other"))
        body.mount_all(widgets)
        if self._items:
            self._items[0].widget.add_class("-cursor")
        self._show_raw(conn.card_raw)

    def _summary(self, card: m.AgentCard) -> Content:
        counts = {s: sum(1 for f in self.findings if f.severity == s) for s in ("error", "warning", "info")}
        return Content.assemble(
            (shorten(card.name or "(unnamed agent)", 60), "bold"),
            (f"  {shorten(card.version, 20)}" if card.version else "", "$foreground-muted"),
            "   lint: ",
            (f"{counts['error']} error(s)", SEVERITY_STYLE["error"] if counts["error"] else "$foreground-muted"),
            ", ",
            (
                f"{counts['warning']} warning(s)",
                SEVERITY_STYLE["warning"] if counts["warning"] else "$foreground-muted",
            ),
            ", ",
            (f"{counts['info']} note(s)", "$foreground-muted"),
            ("   j: raw JSON", "$foreground-muted"),
        )

    def _show_raw(self, raw: Any) -> None:
        target = self.query_one("#card-raw", Static)
        if raw is None:
            target.update("no card")
            return
        try:
            text = json.dumps(raw, indent=2, ensure_ascii=False)
        except (TypeError, ValueError):
            text = repr(raw)
        dark = getattr(self.app.current_theme, "dark", True)
        from rich.syntax import Syntax  # pygments is slow to import: only when shown

        target.update(
            Syntax(
                visible(text),
                "json",
                theme="monokai" if dark else "default",
                word_wrap=True,
                background_color="default",
            )
        )

    # ------------------------------------------------------------------ actions

    @property
    def current(self) -> _Item | None:
        return self._items[self.cursor] if 0 <= self.cursor < len(self._items) else None

    def move_to(self, index: int) -> None:
        if not self._items:
            return
        index = max(0, min(len(self._items) - 1, index))
        old = self.current
        if old is not None:
            old.widget.remove_class("-cursor")
        self.cursor = index
        item = self._items[index]
        item.widget.add_class("-cursor")
        self.query_one("#card-body", VerticalScroll).scroll_to_widget(item.widget, animate=False)

    def action_cursor(self, step: int) -> None:
        if self.raw:
            scroll = self.query_one("#card-raw-scroll", VerticalScroll)
            scroll.scroll_relative(y=step, animate=False)
            return
        self.move_to(self.cursor + step)

    def action_scroll_body(self, where: str) -> None:
        scroll = self.query_one("#card-raw-scroll" if self.raw else "#card-body", VerticalScroll)
        getattr(scroll, f"scroll_{where}")(animate=False)

    def action_pick(self) -> None:
        item = self.current
        if self.raw or item is None:
            return
        text = item.example
        if text is None:
            card = self._conn.card if self._conn is not None else None
            skill = (card.skills or [])[item.skill] if card is not None else None
            examples = skill.examples if skill is not None else None
            if not examples:
                self.app.notify("this skill has no examples to try", severity="warning")
                return
            text = examples[0]
        self.post_message(ComposeText(text))

    def action_toggle_raw(self) -> None:
        self.raw = not self.raw
        self.set_class(self.raw, "-raw")

    def on_click(self, event: Any) -> None:
        widget = getattr(event, "widget", None)
        while widget is not None and widget is not self and not isinstance(widget, CardItem):
            widget = widget.parent
        if isinstance(widget, CardItem):
            self.focus()
            self.move_to(widget.index)
            if widget.has_class("card-example") or getattr(event, "chain", 1) >= 2:
                self.action_pick()
