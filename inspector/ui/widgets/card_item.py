"""One row of the card view's skills: a skill or one of its examples."""

from __future__ import annotations

from typing import Any

from textual.content import Content
from textual.widgets import Static


class CardItem(Static):
    """A skill or one of its examples: a row the card's cursor moves over.

    Not focusable: the card view holds the keys and marks its cursor row with ``-cursor``.
    """

    DEFAULT_CSS = """
    CardItem { height: auto; }
    CardItem:hover { background: $boost; }
    CardItem.-cursor { background: $block-cursor-blurred-background; }
    """

    def __init__(self, content: Content, index: int, **kwargs: Any) -> None:
        super().__init__(content, markup=False, **kwargs)
        #: Position among the card view's rows.
        self.index = index
