"""One message of a conversation: who said it, then its parts, literally."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.widget import Widget

from ...protocol.enums import Role
from .part_render import parts_text

if TYPE_CHECKING:
    from ...protocol.models import Message

#: kind -> CSS class; the label colour and the left bar follow it.
KINDS = ("user", "agent", "status", "question", "reply")


class MessageView(Widget):
    """A message: a label line (``you``, ``agent``, ``agent · working``, ``agent asks ·
    input-required``) and the parts below it. Text parts wrap; data parts are pretty
    JSON; file parts are one summary line.

    COMPONENT_CLASSES:
        message-view--label: the label line.
        message-view--meta: what the inspector adds (part kind marks, ids).

    CSS classes: ``-user``, ``-agent``, ``-status``, ``-question``, ``-reply`` (the kind),
    ``-waiting`` (a question the agent is still waiting on).
    """

    COMPONENT_CLASSES = {"message-view--label", "message-view--meta"}

    DEFAULT_CSS = """
    MessageView {
        height: auto;
        padding: 0 1;
        margin-bottom: 1;
        border-left: outer $secondary;
        & > .message-view--label { text-style: bold; color: $secondary; }
        & > .message-view--meta { color: $foreground-muted; }
        &.-user { border-left: outer $primary; }
        &.-user > .message-view--label { color: $primary; }
        &.-status { border-left: outer $foreground-muted; }
        &.-status > .message-view--label { color: $foreground-muted; }
        &.-question { border-left: outer $state-input-required; }
        &.-question > .message-view--label { color: $state-input-required; }
        &.-waiting { background: $state-input-required 12%; }
        &.-reply { border-left: outer $accent; }
        &.-reply > .message-view--label { color: $accent; }
    }
    """

    def __init__(self, message: Message, label: str, kind: str, *, note: str = "") -> None:
        super().__init__(classes=f"-{kind}")
        self.message = message
        self.label = label
        self.kind = kind
        #: Inspector remark after the label (message id, "waiting for your reply").
        self.note = note
        self._body: Text | None = None

    @staticmethod
    def kind_of(message: Message) -> str:
        return "user" if message.role == Role.USER else "agent"

    @property
    def waiting(self) -> bool:
        return self.has_class("-waiting")

    def set_waiting(self, waiting: bool) -> None:
        """Mark this question as the one the agent is waiting on (or no longer)."""
        if waiting != self.waiting:
            self.set_class(waiting, "-waiting")
            self.refresh(layout=True)

    @property
    def plain(self) -> str:
        """What the view shows, as plain text (for tests and copying)."""
        return self.render().plain

    def render(self) -> Text:
        meta = self.get_component_rich_style("message-view--meta", partial=True)
        if self._body is None:
            parts = self.message.parts
            self._body = parts_text(parts, meta=meta) if parts else Text("(no parts)", style=meta)
        head = Text()
        head.append(self.label, style=self.get_component_rich_style("message-view--label", partial=True))
        if self.note:
            head.append("  " + self.note, style=meta)
        if self.waiting:
            head.append("  ← waiting for your reply", style=meta)
        return Text.assemble(head, "\n", self._body)
