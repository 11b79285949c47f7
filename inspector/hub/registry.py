"""The registered agents: who is connected under which name, with which card, and when
each was last heard from."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..protocol import hub as proto
from ..protocol import models as m
from ..protocol.card import encode_card

if TYPE_CHECKING:
    from ..session import Session
    from .socket import AgentSocket


@dataclass(eq=False)
class AgentEntry:
    """One agent name. The entry outlives its socket: an agent that reconnects under
    the same name carries on in the same session."""

    name: str
    socket: AgentSocket | None
    card: m.AgentCard | None = None
    card_raw: Any = None
    card_error: Exception | None = None
    #: Monotonic times (the hub's clock).
    registered_at: float = 0.0
    last_seen: float = 0.0
    #: Nothing heard for longer than the heartbeat timeout.
    stale: bool = False
    #: The agent's own session (frames of its sockets only), when the hub keeps them.
    session: Session | None = None
    #: Times it registered (a reconnect counts again).
    registrations: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def online(self) -> bool:
        return self.socket is not None

    @property
    def url(self) -> str:
        return proto.agent_url(self.name)

    @property
    def status(self) -> str:
        """online | stale | offline"""
        if self.socket is None:
            return "offline"
        return "stale" if self.stale else "online"

    def card_json(self, bridge: str | None = None) -> dict[str, Any]:
        """The card as the hub serves it: the agent's own, ``url`` its ws-agent:// URL,
        and ``hubBridge`` the HTTP address that reaches it (when the hub serves one)."""
        if isinstance(self.card_raw, dict):
            out = dict(self.card_raw)
        elif self.card is not None:
            out = encode_card(self.card, "0.1")
        else:
            out = {"name": self.name}
        out.setdefault("name", self.name)
        out["url"] = self.url
        if bridge:
            out["hubBridge"] = bridge
        return out


def _words(card: m.AgentCard | None, name: str) -> str:
    bits = [name]
    if card is not None:
        bits += [card.name or "", card.description or ""]
        for skill in card.skills or ():
            bits += [
                skill.id or "",
                skill.name or "",
                skill.description or "",
                *(skill.tags or ()),
                *(skill.examples or ()),
            ]
    return " ".join(bits).casefold()


def _tags(card: m.AgentCard | None) -> set[str]:
    return {t.casefold() for s in (card.skills or ()) for t in (s.tags or ())} if card is not None else set()


def _skills(card: m.AgentCard | None) -> set[str]:
    return {s.id.casefold() for s in (card.skills or ()) if s.id} if card is not None else set()


def matches(entry: AgentEntry, search: proto.Search) -> bool:
    """Every word of the query in the agent's name, description or skills; every tag
    among its skills' tags; the skill among its skills' ids (all case-insensitive)."""
    text = _words(entry.card, entry.name)
    if any(word not in text for word in search.query.casefold().split()):
        return False
    if search.tags and not {t.casefold() for t in search.tags} <= _tags(entry.card):
        return False
    if search.skill and search.skill.casefold() not in _skills(entry.card):
        return False
    return True
