"""Messages the app posts to its screens. Widgets never talk to the network: they read
projections when told the session moved, and ask the app to act through these."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from textual.message import Message

if TYPE_CHECKING:
    from ..session import Event
    from .connection import AgentConnection


@dataclass
class SessionAdvanced(Message):
    """New events arrived on ``connection`` since the last frame (one message per frame)."""

    connection: AgentConnection
    events: list[Event]
    #: Ids of the tasks those events changed (tracker.apply results).
    changed: set[str] = field(default_factory=set)


@dataclass
class ConnectionChanged(Message):
    """A connection was opened, closed, became active, or changed state/dialect/recording."""

    connection: AgentConnection | None


@dataclass
class TaskSelected(Message):
    """The user picked a task (tasks list, conversation...): views focus on it."""

    connection: AgentConnection
    task_id: str | None


@dataclass
class ComposeText(Message):
    """Put this text in the composer (e.g. a skill example was chosen on the card)."""

    text: str


class OpenModal(Message):
    """A widget asks for a modal screen; the app builds and pushes it (``on_open_modal``).

    Widgets never import screens: ``name`` is one of ``screens.MODALS``, the screen is
    built as ``screen(*args, **kwargs)``, and ``done`` is called with what it returns."""

    def __init__(self, name: str, *args: Any, done: Callable[[Any], None] | None = None, **kwargs: Any) -> None:
        super().__init__()
        self.name = name
        self.args = args
        self.kwargs = kwargs
        self.done = done
