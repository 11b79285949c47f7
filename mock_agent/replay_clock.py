"""The recorded pace of a replay: waits for recorded times, scaled by ``--speed``, and
notices the client leaving (replay.py over HTTP, replay_grpc.py over gRPC)."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any


class Clock:
    """Waits for recorded times, scaled by speed; notices the client leaving."""

    def __init__(self, speed: float, t0: float, receive: Any) -> None:
        loop = asyncio.get_running_loop()
        self.speed = speed
        self.t0 = t0
        self.start = loop.time()
        self.gone = asyncio.Event()
        self._watch = loop.create_task(self._watcher(receive))

    async def _watcher(self, receive: Any) -> None:
        with contextlib.suppress(Exception):
            while True:
                message = await receive()
                if message["type"] == "http.disconnect":
                    self.gone.set()
                    return

    async def until(self, t: float) -> bool:
        """Wait until recorded time ``t``; False when the client has gone."""
        if self.gone.is_set():
            return False
        if self.speed == 0:
            await asyncio.sleep(0)
            return not self.gone.is_set()
        loop = asyncio.get_running_loop()
        delay = self.start + max(0.0, t - self.t0) / self.speed - loop.time()
        if delay > 0:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.gone.wait(), delay)
        return not self.gone.is_set()

    def close(self) -> None:
        self._watch.cancel()
