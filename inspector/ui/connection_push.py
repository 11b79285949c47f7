"""One connection's push receiver and the tasks the agent was asked to push to it.

The connection owns this (``AgentConnection.push``), not the view that shows it: the
receiver listens while the connection is open, whatever the screen shows or re-mounts,
and stops when the connection closes. Headless (no textual): the app runs these calls
in its workers; a view that shows the state subscribes, and hears of each change in the
same step as it happens (a message would leave a moment where the receiver listens
and the view still says "starting").
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..protocol import models as m
from ..session import Session

if TYPE_CHECKING:
    # Starlette and uvicorn load when a receiver first starts, not with the app.
    from ..client.push_receiver import PushReceiver


class ConnectionPush:
    """The local receiver of one connection (made on first start, kept when stopped so a
    restart keeps its port, secret path and tokens) and the configs the agent accepted."""

    def __init__(self, session: Session, dialect: Callable[[], str | None]) -> None:
        self.session = session
        self._dialect = dialect
        self.receiver: PushReceiver | None = None
        #: task id -> the config the agent accepted, oldest registration first.
        self.registered: dict[str, m.PushNotificationConfig] = {}
        #: True while the receiver's server is coming up.
        self.starting = False
        # Two quick requests (s, then r) must not start two servers for one receiver.
        self._lock = asyncio.Lock()
        self._listeners: list[Callable[[], None]] = []

    def subscribe(self, listener: Callable[[], None]) -> None:
        """Call ``listener`` after each change of the receiver's state or registrations."""
        self._listeners.append(listener)

    def unsubscribe(self, listener: Callable[[], None]) -> None:
        if listener in self._listeners:
            self._listeners.remove(listener)

    def _changed(self) -> None:
        for listener in list(self._listeners):
            listener()

    @property
    def running(self) -> bool:
        return self.receiver is not None and self.receiver.running

    async def start(self, port: int = 0) -> PushReceiver:
        """The receiver, listening (a no-op if it is). ``port`` is used only when the
        receiver is first made (0: any free port). A failure is raised, and forgets the
        receiver: the next start makes a new one (on another port, if asked)."""
        async with self._lock:
            receiver = self.receiver
            if receiver is None:
                from ..client.push_receiver import PushReceiver

                receiver = self.receiver = PushReceiver(self.session, dialect=self._dialect, port=port)
            if receiver.running:
                return receiver
            self.starting = True
            self._changed()
            try:
                await receiver.start()
            except BaseException:
                if self.receiver is receiver:
                    self.receiver = None
                raise
            finally:
                self.starting = False
                self._changed()
            return receiver

    async def stop(self) -> bool:
        """Stop listening; False if it was not."""
        receiver = self.receiver
        if receiver is None or not receiver.running:
            return False
        await receiver.stop()
        self._changed()
        return True

    def config_for(self, task_id: str) -> m.PushNotificationConfig:
        """A config naming the running receiver's URL for ``task_id`` and a fresh token."""
        receiver = self.receiver
        if receiver is None or not receiver.running:
            raise RuntimeError("the push receiver is not running")
        return m.PushNotificationConfig(url=receiver.url_for(task_id), token=receiver.issue_token(task_id))

    def accepted(self, task_id: str, config: m.PushNotificationConfig) -> None:
        """The agent accepted ``config`` for ``task_id``."""
        self.registered[task_id] = config
        self._changed()
