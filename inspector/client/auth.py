"""Credentials as HTTP headers. The inspector only ever sends them, and only to the
origin they were given for; it never stores them (a recording keeps the headers as sent,
so whoever writes one decides what to redact: ``Auth.header_names`` says which names
carry secrets, and session.redact.Redaction.for_connection takes ``headers()``)."""

from __future__ import annotations

import base64
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Auth:
    _headers: dict[str, str] = field(default_factory=dict)

    @classmethod
    def bearer(cls, token: str) -> "Auth":
        return cls({"Authorization": f"Bearer {token}"})

    @classmethod
    def api_key(cls, value: str, header: str = "X-API-Key") -> "Auth":
        return cls({header: value})

    @classmethod
    def basic(cls, user: str, password: str) -> "Auth":
        token = base64.b64encode(f"{user}:{password}".encode("utf-8")).decode("ascii")
        return cls({"Authorization": f"Basic {token}"})

    @classmethod
    def custom(cls, headers: dict[str, str]) -> "Auth":
        """Headers the user marked as credentials (``--secret-header``)."""
        return cls(dict(headers))

    def __add__(self, other: "Auth") -> "Auth":
        return Auth({**self._headers, **other._headers})

    def headers(self) -> dict[str, str]:
        return dict(self._headers)

    @property
    def kind(self) -> str:
        """``bearer``, ``basic``, ``api-key`` or ``custom``: what it is, never the secret."""
        value = self._headers.get("Authorization", "")
        if value.startswith("Bearer "):
            return "bearer"
        if value.startswith("Basic "):
            return "basic"
        return "api-key" if len(self._headers) == 1 else "custom"

    @property
    def header_names(self) -> frozenset[str]:
        """Lower-cased names of the headers this carries (for redaction)."""
        return frozenset(name.lower() for name in self._headers)

    def __repr__(self) -> str:
        # Never print the secret itself.
        return f"Auth({', '.join(sorted(self._headers))})"
