"""httpx + SSE transport, auth headers, card discovery and dialect detection.

Never imports textual: the client runs headless (CLI, tests, the mock's own checks)."""

from ..protocol.errors import JsonRpcError, ProtocolError
from .auth import Auth
from .client import AUTO, A2AClient, EventStream, ends_stream, merge_headers
from .dialect_cache import DialectCache, MemoryDialectCache, agent_key
from .errors import TransportError, UnsupportedMethod
from .limits import Limits
from .sse import SSEComment, SSEEvent, SSEParser, aiter_sse
from .transport import Timeouts

__all__ = [
    "AUTO",
    "A2AClient",
    "Auth",
    "DialectCache",
    "EventStream",
    "JsonRpcError",
    "Limits",
    "MemoryDialectCache",
    "ProtocolError",
    "SSEComment",
    "SSEEvent",
    "SSEParser",
    "Timeouts",
    "TransportError",
    "UnsupportedMethod",
    "agent_key",
    "aiter_sse",
    "ends_stream",
    "merge_headers",
]
