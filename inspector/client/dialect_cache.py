"""Which dialect each agent spoke last time, so reconnecting skips the probe chain.

A small JSON file in the user's cache dir. A cache is disposable: a missing, corrupt or
unwritable file means "nothing remembered", never an error.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from ..safejson import loads
from ..session.redact import Redaction
from ..store import cache_dir

FILE_NAME = "dialects.json"
_REDACT = Redaction()


def agent_key(url: str) -> str:
    """Cache key for an agent URL: trailing slashes and case of scheme/host don't matter,
    and secret query parameters (``?token=``) are replaced: the file must not hold them."""
    url = _REDACT.url(url.strip())
    scheme, sep, rest = url.partition("://")
    if not sep:
        return url.strip().rstrip("/")
    host, slash, path = rest.partition("/")
    return f"{scheme.lower()}://{host.lower()}{slash}{path}".rstrip("/")


class DialectCache:
    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self.path = Path(path) if path is not None else cache_dir() / FILE_NAME

    def get(self, url: str) -> str | None:
        value = self._load().get(agent_key(url))
        return value if isinstance(value, str) else None

    def set(self, url: str, dialect: str) -> None:
        entries = self._load()
        key = agent_key(url)
        if entries.get(key) == dialect:
            return
        entries[key] = dialect
        self._save(entries)

    def _load(self) -> dict[str, object]:
        try:
            data = loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def _save(self, entries: dict[str, object]) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # Write-then-rename: two inspectors saving at once never leave half a file.
            # mkstemp creates the file 0600, which the rename keeps: private, as it
            # names the agents the user talks to.
            fd, tmp = tempfile.mkstemp(prefix=".dialects-", suffix=".json", dir=self.path.parent)
            # Keys an older version wrote with a secret in clear are rewritten on the way.
            entries = {agent_key(k): v for k, v in entries.items()}
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(entries, fh, indent=1, sort_keys=True)
            os.replace(tmp, self.path)
        except OSError:
            pass


class MemoryDialectCache(DialectCache):
    """Same interface, nothing on disk (tests, --no-cache)."""

    def __init__(self) -> None:
        self.path = Path(os.devnull)
        self._entries: dict[str, object] = {}

    def _load(self) -> dict[str, object]:
        return dict(self._entries)

    def _save(self, entries: dict[str, object]) -> None:
        self._entries = dict(entries)
