"""The composer's text box: a TextArea that leaves f6 to the app."""

from __future__ import annotations

from textual.binding import Binding, BindingType
from textual.containers import ScrollableContainer
from textual.widgets import TextArea


def _keys(binding: BindingType) -> set[str]:
    key = binding.key if isinstance(binding, Binding) else binding[0]
    return {k.strip() for k in key.split(",")}


_OWN = set().union(*(_keys(b) for b in TextArea.BINDINGS))


class MessageText(TextArea, inherit_bindings=False):
    """TextArea binds f6 to "select line"; in this app f6 shows the Push view (the view
    keys are priority bindings, so it works either way, but the footer then lists it out
    of place). Everything else TextArea binds, and what it inherits, is kept."""

    BINDINGS = [b for b in TextArea.BINDINGS if _keys(b) != {"f6"}] + [
        # What TextArea inherits, where it does not bind the key itself (as merging would).
        b
        for b in ScrollableContainer.BINDINGS
        if not _keys(b) & _OWN
    ]
