"""What every view of a connection implements, so the screen can fan updates out.

The screen calls these; views read ``conn.session`` / ``conn.tracker`` and redraw.
Views never call the client: they post messages or call app actions instead.
"""

from __future__ import annotations

from ...session import Event
from ..connection import AgentConnection


class ConnectionView:
    """Mixin for widgets showing (part of) the active connection."""

    def show_connection(self, conn: AgentConnection | None) -> None:
        """The active connection changed (or its card/dialect did): redraw from scratch."""

    def session_advanced(self, conn: AgentConnection, events: list[Event], changed: set[str]) -> None:
        """``events`` were appended to ``conn.session`` since the last frame."""

    def show_task(self, conn: AgentConnection | None, task_id: str | None) -> None:
        """The selected task changed."""


def hidden(widget: object) -> bool:
    """True if ``widget`` or an ancestor is not displayed (an inactive tab, say).

    A hidden view can skip per-frame widget work and catch up in ``on_show``: changing
    a hidden widget's size or content still costs a screen-wide layout."""
    return any(not node.display for node in widget.ancestors_with_self)  # type: ignore[attr-defined]
