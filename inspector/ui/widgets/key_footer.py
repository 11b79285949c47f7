"""Textual's Footer, made again once per burst of key changes rather than once per change,
and only when the keys it shows changed."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer


class KeyFooter(Footer):
    """The footer every screen of ours shows.

    Textual's Footer makes all its keys again (removes them and mounts new ones) each
    time the screen says its keys changed, and a screen says so up to three times for
    one change of focus (the focus itself, a refresh after it, a screen resuming): three
    rebuilds of the same keys, each key styled twice as it mounts. Here a change that
    comes while a rebuild is already on its way is left to that rebuild, which reads the
    screen's keys when it runs: measured at the start of the app, 36 footer keys mounted
    and styled became 12 (~10 ms of CPU); in the snapshot session, ~600 rebuilds ~250.
    """

    def __init__(self, *, compact: bool = False) -> None:
        super().__init__(compact=compact)
        #: A rebuild is scheduled and has not read the screen's keys yet.
        self._rebuild_due = False
        #: What the keys shown now were made from (see ``_keys``).
        self._made_from: Any = None

    def bindings_changed(self, screen: Screen[object]) -> None:
        if self._rebuild_due and screen is self.screen:
            return
        super().bindings_changed(screen)
        # Textual schedules the rebuild only in these cases (and then always).
        self._rebuild_due = bool(screen.app.app_focus and self.is_attached and screen is self.screen)

    def _keys(self) -> Any:
        """All that Footer.compose reads to make the keys."""
        app = self.app
        return (
            self.compact,
            self.show_command_palette,
            tuple(
                (binding.key, binding.action, binding.description, binding.tooltip, binding.group, enabled, tip)
                for (_node, binding, enabled, tip) in self.screen.active_bindings.values()
                if binding.show or binding.key == app.COMMAND_PALETTE_BINDING
            ),
        )

    async def recompose(self) -> None:
        if self.is_attached and self.children and self._keys() == self._made_from:
            self._rebuild_due = False  # as compose would: the next change rebuilds
            return
        await super().recompose()

    def compose(self) -> ComposeResult:
        self._rebuild_due = False  # any change from here on needs a rebuild of its own
        made = 0
        for key in super().compose():
            made += 1
            yield key
        # Before the screen's keys are ready, Footer.compose makes none.
        self._made_from = self._keys() if made else None
