"""The protocol's enumerations, apart from its pydantic models (``models`` re-exports
them): the TUI draws its first frame with these, before pydantic is imported."""

from __future__ import annotations

from enum import Enum


class Role(str, Enum):
    USER = "user"
    AGENT = "agent"


class TaskState(str, Enum):
    """Union of every dialect's states. 1.0's UNSPECIFIED decodes to UNKNOWN."""

    SUBMITTED = "submitted"
    WORKING = "working"
    INPUT_REQUIRED = "input-required"
    AUTH_REQUIRED = "auth-required"
    COMPLETED = "completed"
    CANCELED = "canceled"
    FAILED = "failed"
    REJECTED = "rejected"
    UNKNOWN = "unknown"
