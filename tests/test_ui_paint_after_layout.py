"""The main screen paints a layout's result in a later loop turn, after waiting work."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from textual.app import App, ComposeResult
from textual.widgets import Label

from inspector.ui.screens.paint_after_layout import PAINT_GAP, PAINT_LATEST, PaintAfterLayout


class _Screen(PaintAfterLayout[None]):
    def compose(self) -> ComposeResult:
        yield Label("before", id="label")


class _App(App[None]):
    def on_mount(self) -> None:
        self.push_screen(_Screen())


def _record_paints(app: App[Any], order: list[str]) -> None:
    display = app._display

    def recording(screen: Any, update: Any) -> None:
        if update is not None:
            order.append("paint")
        display(screen, update)

    app._display = recording  # type: ignore[method-assign]


@asynccontextmanager
async def _started() -> AsyncIterator[tuple[_App, Any, _Screen]]:
    app = _App()
    async with app.run_test(size=(40, 5)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, _Screen)
        yield app, pilot, screen


async def _wait(pilot: Any, done: Any, what: str) -> None:
    for _ in range(200):
        if done():
            return
        await pilot.pause(PAINT_GAP)
    raise AssertionError(f"timed out waiting for {what}")


async def test_work_that_arrives_during_a_layout_runs_before_its_paint() -> None:
    async with _started() as (app, pilot, screen):
        order: list[str] = []
        _record_paints(app, order)
        layout = screen._refresh_layout

        def layout_while_a_key_arrives(*args: Any, **kwargs: Any) -> None:
            # A key press (or a timer falling due) while the layout runs: queued behind it.
            asyncio.get_running_loop().call_soon(order.append, "input")
            layout(*args, **kwargs)

        screen._refresh_layout = layout_while_a_key_arrives  # type: ignore[method-assign]
        screen.query_one("#label", Label).update("after, and longer")
        await _wait(pilot, lambda: "paint" in order, "the paint")
        # One paint, after everything that arrived during the layouts (the update may
        # lay out more than once). Textual's own screen paints inside each layout's
        # turn: ["paint", "input", ...].
        assert order[-1] == "paint" and order[:-1] and set(order[:-1]) == {"input"}, order
        assert "after, and longer" in "\n".join(s.text for s in screen._compositor.render_strips())


async def test_a_second_layout_postpones_the_pending_paint_and_exit_cancels_it() -> None:
    async with _started() as (app, pilot, screen):
        screen._refresh_layout()
        first = screen._paint_handle
        assert first is not None
        screen._refresh_layout()
        second = screen._paint_handle
        assert first.cancelled() and second is not None and second is not first
        await _wait(pilot, lambda: screen._paint_handle is None, "the paint")
        assert not second.cancelled()
        # A paint still pending when the app exits is dropped; nothing raises.
        screen._refresh_layout()
        pending = screen._paint_handle
        assert pending is not None
    assert pending.cancelled()


async def test_layouts_one_after_another_postpone_the_paint_by_a_frame_at_most() -> None:
    async with _started() as (app, pilot, screen):
        await _wait(pilot, lambda: screen._paint_handle is None, "the first frame")
        loop = asyncio.get_running_loop()
        before = loop.time()
        screen._refresh_layout()
        handle = screen._paint_handle
        assert handle is not None and before + PAINT_GAP <= handle.when() <= loop.time() + PAINT_GAP
        # A terminal dragged to a new size: layout after layout. Say the first of them
        # was almost a frame ago: the next one may postpone the paint only to that frame.
        screen._unpainted_since = loop.time() - PAINT_LATEST + 0.001
        latest = screen._unpainted_since + PAINT_LATEST
        screen._refresh_layout()
        handle = screen._paint_handle
        assert handle is not None and handle.when() == latest
        await _wait(pilot, lambda: screen._paint_handle is None, "the paint")
        # Painted: the next layout waits the whole gap again.
        before = loop.time()
        screen._refresh_layout()
        handle = screen._paint_handle
        assert handle is not None and handle.when() >= before + PAINT_GAP
