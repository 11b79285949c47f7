"""Named gates where ``hold`` steps park a task until a test lets it go.

A scripted delay makes a test's outcome depend on how fast the machine is: a cancel or a
resubscribe meant for a running task may arrive after the task ended. A gate has no
clock: the task waits until ``release(name)``, its cancel, or the step's own timeout.

Runs wait on the server's event loop; ``release`` and ``held`` may be called from any
thread (MockAgent serves from a thread in sync tests), so a release is handed to each
waiter's loop with ``call_soon_threadsafe``.
"""

from __future__ import annotations

import asyncio
import contextlib


class Gates:
    def __init__(self) -> None:
        self._waiting: dict[str, set[asyncio.Future[None]]] = {}

    async def wait(self, name: str, timeout: float | None = None) -> None:
        """Park until ``name`` is released or ``timeout`` seconds pass."""
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        waiting = self._waiting.setdefault(name, set())
        waiting.add(waiter)
        try:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(waiter, timeout)
        finally:
            waiting.discard(waiter)

    def held(self, name: str) -> int:
        """How many runs wait at ``name`` now."""
        return len(self._waiting.get(name, ()))

    def release(self, name: str) -> int:
        """Let every run waiting at ``name`` go on; returns how many there were. Runs that
        reach the gate later wait again: wait until ``held(name)`` first."""
        waiters = list(self._waiting.get(name, ()))
        for waiter in waiters:
            waiter.get_loop().call_soon_threadsafe(_open, waiter)
        return len(waiters)


def _open(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)
