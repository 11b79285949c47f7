"""What every view of a connection implements, so the screen can fan updates out.

The screen calls these; views read ``conn.session`` / ``conn.tracker`` and redraw.
Views never call the client: they post messages or call app actions instead.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from rich.style import Style

from ..typed_app import InspectorAppNode

if TYPE_CHECKING:
    from ...session import Event
    from ..connection import AgentConnection


def leaving(widget: Any) -> bool:
    """Whether ``widget`` is on its way out (removed, or the app quit in the moment the
    views that mount after the first frame were mounting): its children may be gone
    already, so its mount handler has nothing to do and the screen sends it no more
    updates. (``display`` is False for a widget being removed, also when its own style
    would show it.)"""
    return not widget.is_attached or (not widget.display and widget.styles.display != "none")


class ConnectionView(InspectorAppNode):
    """Mixin for widgets showing (part of) the active connection."""

    def show_connection(self, conn: AgentConnection | None) -> None:
        """The active connection changed (or its card/dialect did): redraw from scratch."""

    def session_advanced(self, conn: AgentConnection, events: list[Event], changed: set[str]) -> None:
        """``events`` were appended to ``conn.session`` since the last frame."""

    def show_task(self, conn: AgentConnection | None, task_id: str | None) -> None:
        """The selected task changed."""


class SelectedTaskView(ConnectionView):
    """A view of the app's selected task: it keeps which connection and task it shows,
    and calls ``_reset`` when that changes and ``_sync`` when the same task may have
    moved on. Subclasses set ``_conn``/``_task_id`` to None in ``__init__``."""

    _conn: AgentConnection | None
    _task_id: str | None

    def show_connection(self, conn: AgentConnection | None) -> None:
        task_id = self.app.task_id if conn is not None else None
        if conn is self._conn and task_id == self._task_id and conn is not None:
            self._sync()
            return
        self._conn, self._task_id = conn, task_id
        self._reset()

    def show_task(self, conn: AgentConnection | None, task_id: str | None) -> None:
        if conn is self._conn and task_id == self._task_id:
            return
        self._conn, self._task_id = conn, task_id
        self._reset()

    def _reset(self) -> None:
        """Another task (or none): redraw from scratch."""
        raise NotImplementedError

    def _sync(self) -> None:
        """The same task: show what is new."""
        raise NotImplementedError


class ComponentStyles:
    """``_style(name)``: the rich Style of the component class ``<STYLE_PREFIX>--<name>``,
    looked up once per theme. Widgets that draw line by line ask for these on every row,
    and Textual's lookup walks the CSS each time (and forgets on every refresh). The
    widget sets ``self._styles = {}`` in ``__init__``; a style update empties it."""

    STYLE_PREFIX: ClassVar[str]
    #: What a component class that sets nothing gives (None: Textual's own default).
    STYLE_DEFAULT: ClassVar[Style | None] = None
    _styles: dict[str, Style]

    def _style(self, name: str) -> Style:
        style = self._styles.get(name)
        if style is None:
            extra = {} if self.STYLE_DEFAULT is None else {"default": self.STYLE_DEFAULT}
            style = self._styles[name] = self.get_component_rich_style(  # type: ignore[attr-defined]
                f"{self.STYLE_PREFIX}--{name}", partial=True, **extra
            )
        return style

    def notify_style_update(self) -> None:
        self._styles = {}
        super().notify_style_update()  # type: ignore[misc]


def hidden(widget: object) -> bool:
    """True if ``widget`` or an ancestor is not displayed (an inactive tab, say).

    A hidden view can skip per-frame widget work and catch up in ``on_show``: changing
    a hidden widget's size or content still costs a screen-wide layout."""
    return any(not node.display for node in widget.ancestors_with_self)  # type: ignore[attr-defined]


class LineBase:
    """``_line_base()`` and ``_line_width()``: the widget's ``rich_style`` and the width
    of its scrollable content, looked up once per ``render_lines`` rather than once per
    line. The style walks every ancestor for its background and the width asks the
    compositor for the region (about 0.1 ms together), and a line-API widget asked for
    36 lines paid them 36 times a frame."""

    _line_base_style: Style | None = None
    _line_width_cells: int | None = None

    def render_lines(self, crop: Any) -> Any:
        self._line_base_style = self.rich_style  # type: ignore[attr-defined]
        self._line_width_cells = self.scrollable_content_region.width  # type: ignore[attr-defined]
        try:
            return super().render_lines(crop)  # type: ignore[misc]
        finally:
            self._line_base_style = None
            self._line_width_cells = None

    def _line_base(self) -> Style:
        style = self._line_base_style
        return style if style is not None else self.rich_style  # type: ignore[attr-defined]

    def _line_width(self) -> int:
        width = self._line_width_cells
        return width if width is not None else self.scrollable_content_region.width  # type: ignore[attr-defined]
