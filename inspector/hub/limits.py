"""What a ws-agent may do to the hub: every number the agent controls has a bound."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..protocol.sizes import GiB

#: Names are the ``NAME`` of ``ws-agent://NAME`` and a path segment of the bridge.
NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


@dataclass(frozen=True)
class HubLimits:
    #: Largest frame, in bytes. A bigger one is refused by the WebSocket layer before
    #: its payload is read (close code 1009), so it never reaches memory.
    max_frame: int = 4 * 1024 * 1024
    #: Frames one socket may send unasked (anything but answers to the hub's requests
    #: and frames about a task the hub sent it and still relays) in a burst, and per
    #: second after it: past that the socket is closed (code 1008) with a note saying so.
    burst: int = 2000
    rate: float = 500.0
    #: Frames about one task (one turn of it) while the hub relays it: past that the
    #: socket is closed (1008). As many as a stream may carry to the client
    #: (--max-stream-events).
    max_task_frames: int = 10_000_000
    #: Seconds without a frame from an agent before it is marked stale (and told, at
    #: registration, how often to heartbeat: a third of it).
    heartbeat_timeout: float = 45.0
    #: Registered agents at once.
    max_agents: int = 200
    #: Sockets at once (registered or not).
    max_sockets: int = 400
    #: Seconds an agent has to answer a request that is not a task's work (tasks/cancel).
    answer_timeout: float = 30.0
    #: Seconds a delegated task (agent.send_task) may take to settle.
    delegate_timeout: float = 300.0
    #: Tasks the hub keeps track of at once, per agent, still running.
    max_running: int = 1000
    #: What one task call may bring, as a client bounds an agent's stream: its frames,
    #: and their bytes. Past either the hub stops relaying it, and the caller gets an
    #: error saying so. The client's defaults (inspector/client/limits.py; a test keeps
    #: them equal), written out: importing the client would load httpx into every hub.
    max_stream_events: int = 10_000_000
    max_stream_body: int = 4 * GiB

    @property
    def heartbeat_interval(self) -> float:
        return self.heartbeat_timeout / 3


def name_problem(name: object) -> str | None:
    """Why ``name`` cannot be an agent's name, or None."""
    if not isinstance(name, str) or not name:
        return "no name given (params.name)"
    if not NAME_RE.fullmatch(name):
        shown = name if len(name) <= 40 else name[:39] + "…"
        return f"name {shown!r} is not 1-64 letters, digits, '.', '_' or '-' (starting with a letter or digit)"
    return None
