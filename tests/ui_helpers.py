"""Small helpers for Pilot tests of the inspector app."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable
from typing import Any

#: The least time a condition is waited for (seconds).
BOUND = 30.0


async def wait_until(pilot: Any, predicate: Callable[[], Any], timeout: float = 10.0, what: str = "condition") -> Any:
    """Poll ``predicate`` between short sleeps until it is truthy; fail after ``timeout``,
    or after BOUND if that is longer: the bound ends a broken test, it does not time the
    app, and a loaded machine (more test workers than cores, other work) stretches a few
    seconds' wait for a menu or a redraw past a short one.

    The sleeps are the event loop's, not ``pilot.pause``: the app handles its messages and
    draws its frames on its own meanwhile, as it does for a user. A pause per poll made every
    widget on the screen handle one more message and forced a layout, ~7 ms of CPU a poll
    (a tenth of that for a sleep). One pause comes after a wait that slept: what the test
    reads next (the screen's text, sizes) is then as drawn after the condition held, as when
    each poll paused; on a loaded machine the app's own next frame can come much later."""
    timeout = max(timeout, BOUND)
    deadline = time.monotonic() + timeout
    slept = False
    while True:
        value = predicate()
        if value:
            if slept:
                await pilot.pause(0)
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.1f} s waiting for {what}")
        await asyncio.sleep(0.05)
        slept = True


class Note(str):
    """One notification as the app made it: its text, with its title and severity."""

    title: str
    severity: str

    @property
    def message(self) -> str:
        return str(self)


def record_notifications(app: Any) -> list[Note]:
    """Every notification ``app`` makes from now on, in order, kept after its toast is gone.

    Install it before the app starts. A toast leaves the screen (and Textual's list of
    them, which is private) on a timer of a few seconds; on a loaded machine a start alone
    can take longer, so a test reading the toasts would race that timer."""
    said: list[Note] = []
    notify = app.notify

    def record(message: Any, *, title: str = "", severity: str = "information", **kwargs: Any) -> Any:
        note = Note(message)
        note.title, note.severity = title, severity
        said.append(note)
        return notify(message, title=title, severity=severity, **kwargs)

    app.notify = record
    return said


def screen_text(app: Any) -> str:
    """The current screen as plain text, line by line: what a user would read."""
    strips = app.screen._compositor.render_strips()
    return "\n".join(strip.text for strip in strips)


async def preview(pilot: Any, composer: Any) -> tuple[str, Any]:
    """The composer's preview, once the composer has heard of the ready connection (a
    message after the connection's own state says ready)."""

    def previewed() -> Any:
        try:
            return composer.preview_request()
        except ValueError:
            return None

    return await wait_until(pilot, previewed, 10, "the composer to know the agent")


def one_read(app: Any, keys: Iterable[str]) -> None:
    """Post each key to the app at once, as its driver does with the keys of one read from
    the terminal, without Pilot's wait for the screen to settle after each (a screen that
    a flood of events keeps busy may not settle within Pilot's 30 s on a loaded machine)."""
    from textual import events

    for key in keys:
        character = {"tab": "\t", "space": " ", "slash": "/"}.get(key, key if len(key) == 1 else None)
        app.post_message(events.Key(key, character))
