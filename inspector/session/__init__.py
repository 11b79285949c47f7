"""The session layer: the event log, its projections, and recordings of it.

Headless by rule: nothing here imports textual.
"""

from .chunks import Chunk
from .events import Event, Kind
from .lines import Problem
from .log import Listener, Session
from .reader import (
    PayloadDecoder,
    Recording,
    RecordingError,
    RecordingIterator,
    iter_recording,
    load_recording,
)
from .recorder import FORMAT, VERSION, Recorder
from .redact import REDACTED, Redaction, redact_body
from .tracker import (
    VIOLATION_CODES,
    ArtifactView,
    ExchangeView,
    StateChange,
    TaskTracker,
    TaskView,
    Violation,
)

__all__ = [
    "Event",
    "Kind",
    "Listener",
    "Session",
    "TaskTracker",
    "TaskView",
    "ArtifactView",
    "Chunk",
    "StateChange",
    "ExchangeView",
    "Violation",
    "VIOLATION_CODES",
    "Recorder",
    "FORMAT",
    "VERSION",
    "Redaction",
    "REDACTED",
    "redact_body",
    "load_recording",
    "iter_recording",
    "Recording",
    "RecordingIterator",
    "RecordingError",
    "Problem",
    "PayloadDecoder",
]
