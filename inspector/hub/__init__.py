"""A local Society AI WebSocket hub (seed 001): ws-agents register, heartbeat, report on
their tasks and delegate, and an HTTP bridge makes each one an ordinary A2A endpoint.

Above the client layer: it may use protocol, session and client, never headless or ui
(and never textual). docs/hub.md describes the frames and every assumption made.
"""

from .core import Hub
from .limits import HubLimits
from .registry import AgentEntry
from .relay import RelayFailed, TaskRelay
from .server import WS_PATH, HubServer

__all__ = ["AgentEntry", "Hub", "HubLimits", "HubServer", "RelayFailed", "TaskRelay", "WS_PATH"]
