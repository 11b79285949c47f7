"""A client for one ws-agent of a hub in this process: what the TUI's connection to
``ws-agent://NAME`` calls instead of an HTTP client.

It has the calls of ``inspector.client.A2AClient`` that a connection makes (card,
dialect, send, stream, get, cancel, resubscribe), done with the hub's own relays, so
nothing goes through HTTP: what the views show is the agent's session at the hub
(``AgentEntry.session``), every frame both ways, folded by the same tracker as an HTTP
agent's events. Answers are those the bridge gives (the hub's task view, the agent's
message or error), so the UI and ``a2a-inspect send`` through the bridge agree.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from ..protocol import hub as proto
from ..protocol import models as m
from ..protocol.dialects import get_dialect
from ..protocol.errors import JsonRpcError
from ..session.hub_bridge import as_stream_events
from .relay import RelayFailed, settles

if TYPE_CHECKING:
    from .core import Hub


class HubClient:
    """``ws-agent://NAME`` on ``hub``; the A2AClient calls a connection makes."""

    def __init__(self, hub: Hub, name: str) -> None:
        self.hub = hub
        self.name = name
        self.url = proto.agent_url(name)
        #: The hub speaks Society AI's 0.1 dialect to its agents.
        self.dialect = get_dialect("0.1")
        self.dialect_source = "hub"

    # ------------------------------------------------------------------ the card

    @property
    def card(self) -> m.AgentCard | None:
        entry = self.hub.agents.get(self.name)
        return entry.card if entry is not None else None

    @property
    def card_raw(self) -> Any:
        entry = self.hub.agents.get(self.name)
        return entry.card_json(self.hub.bridge_url(self.name)) if entry is not None else None

    @property
    def card_error(self) -> Any:
        entry = self.hub.agents.get(self.name)
        return entry.card_error if entry is not None else None

    @property
    def card_url(self) -> str | None:
        bridge = self.hub.bridge_url(self.name)
        return f"{bridge}/.well-known/agent.json" if bridge else None

    @property
    def endpoint(self) -> str:
        """Where calls go: the agent's ws-agent:// URL (through the hub, not HTTP)."""
        return self.url

    async def resolve_dialect(self) -> Any:
        """Nothing to detect: the agent is registered (or not) and speaks 0.1."""
        self.hub.entry(self.name)  # raises "agent not found" when it is not connected
        return self.dialect

    # ------------------------------------------------------------------ calls

    async def send(self, params: m.SendParams) -> Any:
        relay = await self.hub.start(self.name, params, stream=False)
        try:
            last = await relay.outcome()
        except RelayFailed as exc:
            raise _error(exc) from None
        if isinstance(last, m.Message):
            return last
        history = params.configuration.history_length if params.configuration else None
        return self.hub.task(relay.task_id, history)

    async def stream(self, params: m.SendParams) -> AsyncIterator[Any]:
        relay = await self.hub.start(self.name, params, stream=True)
        streamed: set[Any] = set()
        try:
            async for item in relay.items():
                for event in as_stream_events(item, streamed):
                    yield event
        except RelayFailed as exc:
            raise _error(exc) from None
        finally:
            relay.close()

    async def get_task(self, task_id: str, history_length: int | None = None) -> m.Task:
        self._owned(task_id)
        return self.hub.task(task_id, history_length)

    async def cancel(self, task_id: str) -> m.Task:
        return await self.hub.cancel(self.name, task_id)

    async def resubscribe(self, task_id: str) -> AsyncIterator[Any]:
        self._owned(task_id)
        view, relay = await self.hub.follow(task_id)
        task = self.hub.task(view.id)
        yield m.TaskStatusUpdateEvent(
            task_id=task.id, context_id=task.context_id, status=task.status, final=relay is None
        )
        if relay is None:
            return
        queue = self.hub.follow_queue(task_id)
        try:
            while True:
                item = await queue.get()
                for event in as_stream_events(item, set()):
                    yield event
                if settles(item):
                    return
        finally:
            self.hub.unfollow(task_id, queue)

    async def set_push(self, task_id: str, config: Any) -> Any:
        raise JsonRpcError(
            -32003,
            "Push Notification is not supported",
            {"reason": "the hub relays tasks only; push notifications do not go through it"},
        )

    async def aclose(self) -> None:
        """Nothing to close: the hub owns the socket."""

    def _owned(self, task_id: str) -> None:
        if self.hub.task_agent.get(task_id) != self.name:
            raise JsonRpcError(proto.UNKNOWN_TASK, "Task not found", {"id": task_id})


def _error(exc: RelayFailed) -> JsonRpcError:
    return exc.error or JsonRpcError(-32603, "Internal error", {"reason": str(exc)})
