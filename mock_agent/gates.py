"""Named gates where ``hold`` steps park a task until a test lets it go.

A scripted delay makes a test's outcome depend on how fast the machine is: a cancel or a
resubscribe meant for a running task may arrive after the task ended. A gate has no
clock: the task waits until ``release(name)``, its cancel, or the step's own timeout.

Runs wait on the server's event loop; ``release`` and ``held`` may be called from any
thread (MockAgent serves from a thread in sync tests): the waiting lists are guarded by
a lock, and a release is handed to each waiter's loop with ``call_soon_threadsafe``. A
released run leaves the list at once, so ``held`` never counts a run that is only
waiting for its loop to resume it (and a second release cannot spend itself on it).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading


class Gates:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._waiting: dict[str, list[asyncio.Future[None]]] = {}

    async def wait(self, name: str, timeout: float | None = None) -> None:
        """Park until ``name`` is released or ``timeout`` seconds pass."""
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        with self._lock:
            self._waiting.setdefault(name, []).append(waiter)
        try:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(waiter, timeout)
        finally:
            with self._lock:
                waiting = self._waiting.get(name, [])
                if waiter in waiting:
                    waiting.remove(waiter)

    def held(self, name: str) -> int:
        """How many runs wait at ``name`` now."""
        with self._lock:
            return len(self._waiting.get(name, ()))

    def release(self, name: str) -> int:
        """Let every run waiting at ``name`` go on; returns how many there were. Runs that
        reach the gate later wait again: wait until ``held(name)`` first."""
        with self._lock:
            waiters = self._waiting.pop(name, [])
        for waiter in waiters:
            waiter.get_loop().call_soon_threadsafe(_open, waiter)
        return len(waiters)


def _open(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)
