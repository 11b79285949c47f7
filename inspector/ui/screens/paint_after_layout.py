"""A screen that paints a few milliseconds after a layout, not in the same loop turn.

When a task appears or ends, Textual lays the screen out again (7-11 ms of CPU on the
main screen, 2 cores) and then paints what moved (10-20 ms) in one event-loop turn. A
key press that arrived meanwhile waits for both: 30-35 ms, two frames at 60 Hz
(bench/ui, "longest stall"). A key press needs two loop passes to reach its handler
(the driver's thread hands it to the loop, the loop to the app's queue), as does any
task woken by a timer. Painting ``PAINT_GAP`` after the layout, from the loop's timer
queue, lets those passes run between the two halves, so the longest wait is the longer
half. bench/ui on a quiet machine, 12 runs each: worst stall per run 21-44 ms before,
10-26 ms after.

This leans on two private methods of Textual's Screen (``_refresh_layout``, which
ends in ``_compositor_refresh``, the paint). If a Textual release renames them, the
overrides below are never called and the screen paints as Textual does: nothing breaks.
tests/test_ui_paint_after_layout.py checks that the hooks are still Textual's.
``call_after_refresh`` callbacks still run when Textual runs them, after the layout:
that can be before its paint, by up to ``PAINT_GAP``. Holding them for the paint was
tried; the widgets that follow their end (the conversation) then judged "at the end"
from a scroll still pending and stopped following.
"""

from __future__ import annotations

import asyncio
from typing import Any

from textual.screen import Screen, ScreenResultType

#: Seconds between a layout and its paint: room for the two loop passes of a key press
#: or a timer that fell due during the layout (each pass may hold a 2 ms stream drain).
PAINT_GAP = 0.004
#: Layouts one after the other (a terminal resized by dragging) postpone the paint, but
#: never longer than a frame at 60 Hz after the first of them.
PAINT_LATEST = 1 / 60


class PaintAfterLayout(Screen[ScreenResultType]):
    """Paints a layout's result ``PAINT_GAP`` after it, in a turn of its own."""

    _laying_out = False
    _paint_handle: asyncio.TimerHandle | None = None
    #: Loop time of the first layout not painted yet.
    _unpainted_since = 0.0

    def _refresh_layout(self, size: Any = None, scroll: bool = False) -> None:
        self._laying_out = True
        try:
            super()._refresh_layout(size, scroll)
        finally:
            self._laying_out = False

    def _compositor_refresh(self) -> None:
        if not self._laying_out or self.app.is_inline:
            self._cancel_paint()
            super()._compositor_refresh()
            return
        # The loop's timers run in order of when they fell due: input, and tasks whose
        # timer fell due during the layout, go first. A paint still pending from an
        # earlier layout waits too, or it would run in the same pass as this layout.
        loop = asyncio.get_running_loop()
        now = loop.time()
        if self._paint_handle is None:
            self._unpainted_since = now
        self._cancel_paint()
        when = min(now + PAINT_GAP, self._unpainted_since + PAINT_LATEST)
        self._paint_handle = loop.call_at(when, self._paint)

    def _cancel_paint(self) -> None:
        if self._paint_handle is not None:
            self._paint_handle.cancel()
            self._paint_handle = None

    def _paint(self) -> None:
        self._paint_handle = None
        if not self.is_attached or not self.app.is_running:
            return
        try:
            super()._compositor_refresh()
        except Exception as error:  # as Textual's message loop would handle it
            self.app._handle_exception(error)

    def on_unmount(self) -> None:
        self._cancel_paint()
