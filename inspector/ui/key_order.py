"""Keys are handled one after the other, each against the focus it was aimed at.

Textual hands a key to the widget that has the focus as the key arrives, but resolves a
binding that is not a priority one only later, when the key has bubbled back up through
the widget's ancestors to the app, against whatever has the focus by then. A second key
that arrives in between is handed out (or, for a priority binding such as a view key,
acted on) before the first one is done. Two keys in one read from the terminal went
wrong that way: ctrl+s then F5 sent nothing (F5 had moved the focus off the composer
before ctrl+s came back up to be resolved), and text typed right after Tab went into
the field Tab was leaving.

``KeyOrder`` holds each key that arrives while an earlier one is still on its way, and
lets it go once the earlier one is done: a marker sent up the same way the key bubbles
(the focused widget, each ancestor, the screen, then the app, each a FIFO queue of its
own) arrives behind it, so by then the key has been handled or stopped. A marker that
never arrives (a widget on its way removed meanwhile) is given up, and the keys go on as
Textual alone would take them: looked for every ``GIVE_UP`` seconds, never on time alone
while its way is whole, up to ``HOLD_AT_MOST``. Given up after a second, a key on a loaded
machine (its marker slow behind a flood of messages) let the next ones go too early: the
text typed after ``/`` went to the traffic list, not the filter it had focused.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

from textual import events
from textual.dom import DOMNode

#: Seconds between looks at the way of a key whose marker has not come back.
GIVE_UP = 1.0
#: Seconds after which a key still on its way no longer holds the next ones, whatever its
#: way looks like (a bound on a stuck key, never reached by a working app).
HOLD_AT_MOST = 20.0


class KeyOrder:
    """The keys of one app, in order: ``arrived`` takes each key as it reaches the app
    and hands it to ``deliver`` (Textual's own handling, ``App.on_event``) now, or once
    the keys before it are done."""

    def __init__(self, app: Any, deliver: Callable[[events.Key], Awaitable[None]]) -> None:
        self.app = app
        self.deliver = deliver
        #: Keys that arrived while another was on its way, oldest first.
        self.waiting: deque[events.Key] = deque()
        #: A number for the key on its way (None: none is); a marker carries it, so
        #: that a late marker of an earlier key lets nothing go.
        self.on_its_way: int | None = None
        self._count = 0

    async def arrived(self, event: events.Key) -> None:
        if self.on_its_way is not None or self.waiting:
            self.waiting.append(event)
            return
        await self._hand(event)

    async def _hand(self, event: events.Key) -> None:
        if not self.app.screen_stack:
            # The app is shutting down (Pilot closes the screens while the app's loop still
            # runs): a key still queued has nowhere to go.
            return
        # Where Textual will forward it, unless a priority binding takes it.
        target = self.app.focused or self.app.screen
        await self.deliver(event)
        if not event.is_forwarded:
            return  # acted on at once (a priority binding): nothing is on its way
        self._count += 1
        token = self.on_its_way = self._count
        path = [node for node in (target, *target.ancestors) if node is not self.app]
        self._mark(path, 0, token)
        self.app.set_timer(GIVE_UP, partial(self._look, token, path, GIVE_UP))

    async def _look(self, token: int, path: list[DOMNode], waited: float) -> None:
        """The marker of key ``token`` is late: give it up if a node of its way is gone
        (the marker can no longer come back), else look again later."""
        if self.on_its_way != token:
            return
        if waited < HOLD_AT_MOST and all(node.is_attached for node in path):
            self.app.set_timer(GIVE_UP, partial(self._look, token, path, waited + GIVE_UP))
            return
        await self._done(token)

    def _mark(self, path: list[DOMNode], at: int, token: int) -> None:
        if at < len(path):
            path[at].call_later(self._mark, path, at + 1, token)
        else:
            # The key, if it bubbled this far, is in the app's queue ahead of this.
            self.app.call_later(self._done, token)

    async def _done(self, token: int) -> None:
        if self.on_its_way != token:
            return
        self.on_its_way = None
        while self.waiting and self.on_its_way is None:
            await self._hand(self.waiting.popleft())
