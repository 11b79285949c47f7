"""Resize a scroll view's content without a screen-wide layout."""

from __future__ import annotations

from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.widget import Widget


def set_virtual_size(view: ScrollView, size: Size) -> None:
    """Set ``view.virtual_size`` to ``size``, asking for a layout only when one is needed.

    Assigning ``virtual_size`` marks the whole screen for layout: every widget is
    arranged again, about 7 ms at 120x36, and a view growing by a few lines each frame
    paid it every frame. A scroll view's size does not depend on its content, so
    only its scrollbars need updating; if that shows or hides a scrollbar, Textual's
    ``show_*_scrollbar`` reactives ask for the layout themselves.
    """
    if size == view.virtual_size:
        return
    update = getattr(view, "_scroll_update", None)  # Textual's own hook; private, hence the fallback
    if update is None or not view.container_size:
        view.virtual_size = size  # not laid out yet: the first layout will size the scrollbars
        return
    view.set_reactive(Widget.virtual_size, size)
    update(size)
    view.refresh()
