"""The footer: Textual's, compact, without styling each key twice."""

from __future__ import annotations

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
