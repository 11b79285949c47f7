"""Repaint a screen when a toast leaves it: a workaround for Textual 8.2.8.

When a toast leaves after anything on the screen scrolled while it was up, Textual
does not repaint where it was: the terminal keeps showing the toast for good (until
a resize or another screen). Found by the screen tests (issue 25); no Textual issue
for it yet. What happens: a scroll lays out only the visible widgets and marks the
compositor's full map stale; removing the toast asks its rack for its size, which
rebuilds that map from the DOM as it is now, without the toast; the layout that
follows compares the new map with that one, so the toast's region is never marked
to be painted. A minimal app shows it: a VerticalScroll, ``notify(timeout=3)``,
``scroll_down()``, and the toast stays on the terminal.

Only public API here: the screen's layout signal, and the rack's documented id.
Remove this once the pinned Textual repaints on its own (tests/test_screen_task's
toast test then passes without it).
"""

from __future__ import annotations

from textual.css.query import NoMatches
from textual.screen import Screen

RACK = "textual-toastrack"


def repaint_where_toasts_leave(screen: Screen) -> None:
    """After each layout of ``screen``, repaint it whole if a toast has left."""
    shown = [0]

    def laid_out(_: Screen) -> None:
        try:
            toasts = len(screen.get_child_by_id(RACK).children)
        except NoMatches:  # notifications off
            return
        if toasts < shown[0]:
            screen.refresh()
        shown[0] = toasts

    # Subscribed with the app, not the screen: the screen's own subscriptions go when
    # Textual unsubscribes it (its tooltip's).
    screen.screen_layout_refresh_signal.subscribe(screen.app, laid_out)
