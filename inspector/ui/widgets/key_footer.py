"""The footer: Textual's, compact, without styling each key twice."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.widgets import Footer
from textual.widgets._footer import FooterKey


class KeyFooter(Footer):
    """``Footer(compact=True)`` that gives its keys their ``-compact`` class as they are
    made. Textual's keys add it once mounted (their ``compact`` watcher), which restyles
    each key a second time; the footer makes all its keys again whenever the focused
    widget's bindings change, so on every view switch."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(compact=True, **kwargs)  # type: ignore[arg-type]

    def compose(self) -> ComposeResult:
        for widget in super().compose():
            if isinstance(widget, FooterKey):
                widget.add_class("-compact", update=False)  # styled as it mounts
            yield widget

    def bindings_changed(self, screen: Any) -> None:
        # The first time (the screen has just given the keys to a widget): make the keys
        # now, not after a refresh as Footer does, so that the first frame has them
        # rather than the one after it. Later changes go Footer's way (coalesced).
        if self._bindings_ready or not screen.app.app_focus or not (self.is_attached and screen is self.screen):
            super().bindings_changed(screen)
            return
        self._bindings_ready = True
        self.call_later(self.recompose)
