"""What a2a-inspect keeps between runs, in the user's platform directories.

    config dir:  agents.json (saved agents), settings.json, themes/*.yaml (user themes)
    data dir:    recordings/*.jsonl
    cache dir:   dialects.json (see inspector.client.dialect_cache)

Files are written atomically (temp file + rename) so a crash never leaves half a file,
and a corrupt file is reported, set aside as ``*.corrupt``, and replaced by defaults:
the app starts whatever state the disk is in.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import urlsplit

import platformdirs
from pydantic import BaseModel, Field, ValidationError

APP = "a2a-inspect"


def config_dir() -> Path:
    return Path(platformdirs.user_config_dir(APP))


def data_dir() -> Path:
    return Path(platformdirs.user_data_dir(APP))


def cache_dir() -> Path:
    return Path(platformdirs.user_cache_dir(APP))


def themes_dir() -> Path:
    return config_dir() / "themes"


def recordings_dir() -> Path:
    return data_dir() / "recordings"


def write_atomic(path: Path, text: str, *, mode: int = 0o600) -> None:
    """Write ``text`` to ``path`` through a temp file and a rename. The file gets
    ``mode``: private by default, since what a2a-inspect writes may hold tokens (saved
    agents) or whatever an agent said (exports)."""
    with atomic_writer(path, mode=mode) as fh:
        fh.write(text)


@contextmanager
def atomic_writer(path: Path, *, mode: int = 0o600) -> Iterator[TextIO]:
    """A text file to write ``path`` through, a piece at a time (an export of a big
    recording): it replaces ``path`` when the block ends, and is removed, leaving
    ``path`` as it was, when the block raises. The file gets ``mode`` (see write_atomic)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            yield fh
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class SavedAgent(BaseModel):
    name: str
    url: str
    dialect: str = "auto"
    card_url: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    #: "bearer" | "api-key" | "basic" | None; the secret lives in ``secret``.
    auth: str | None = None
    auth_header: str | None = None
    secret: str | None = None
    #: Headers that are credentials (the form's "secret" flag): sent like ``headers``,
    #: redacted like --secret-header wherever anything is written.
    secret_headers: dict[str, str] = Field(default_factory=dict)


def _agent_json(agent: SavedAgent) -> dict[str, Any]:
    out = agent.model_dump(exclude_none=True)
    if not out.get("secret_headers"):
        out.pop("secret_headers", None)  # files of agents without them stay as they were
    return out


class Settings(BaseModel):
    theme: str = "a2a-dark"
    #: Header names redacted in recordings besides the built-in ones.
    redact_headers: list[str] = Field(default_factory=list)
    redact: bool = True
    #: Where recordings go when no file is named.
    recordings: str | None = None


class StoreProblem(Exception):
    """A stored file could not be read; the message says which and why."""


def _load_json(path: Path) -> Any:
    from .safejson import loads

    try:
        return loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError, ValueError) as exc:  # ValueError: bad JSON, too deep
        aside = path.with_suffix(path.suffix + ".corrupt")
        try:
            os.replace(path, aside)
        except OSError:
            pass
        raise StoreProblem(f"{path} could not be read ({exc}); moved aside to {aside.name}") from None


class AgentStore:
    """The saved agents, in order. Names are unique (case-insensitive)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or config_dir() / "agents.json"
        self.problem: str | None = None
        self.agents: list[SavedAgent] = []
        self.reload()

    def reload(self) -> None:
        self.problem = None
        try:
            raw = _load_json(self.path)
        except StoreProblem as exc:
            self.problem, raw = str(exc), None
        agents: list[SavedAgent] = []
        for i, item in enumerate(raw or []):
            try:
                agents.append(SavedAgent.model_validate(item))
            except ValidationError:
                self.problem = f"{self.path}: skipped saved agent #{i + 1}, it is not valid"
        self.agents = agents

    def save(self) -> None:
        text = json.dumps([_agent_json(a) for a in self.agents], indent=2)
        write_atomic(self.path, text + "\n")

    def find(self, name: str) -> SavedAgent | None:
        key = name.casefold()
        return next((a for a in self.agents if a.name.casefold() == key), None)

    def add(self, agent: SavedAgent) -> SavedAgent:
        """Add, or replace the agent of the same name."""
        existing = self.find(agent.name)
        if existing is not None:
            self.agents[self.agents.index(existing)] = agent
        else:
            self.agents.append(agent)
        self.save()
        return agent

    def rename(self, old: str, new: str) -> None:
        agent = self.find(old)
        if agent is None:
            raise KeyError(old)
        if new.casefold() != old.casefold() and self.find(new) is not None:
            raise ValueError(f"an agent named {new!r} exists already")
        agent.name = new
        self.save()

    def remove(self, name: str) -> None:
        agent = self.find(name)
        if agent is None:
            raise KeyError(name)
        self.agents.remove(agent)
        self.save()


def load_settings(path: Path | None = None) -> tuple[Settings, str | None]:
    """The settings and, when the file was unusable, why (defaults are used then)."""
    path = path or config_dir() / "settings.json"
    try:
        raw = _load_json(path)
    except StoreProblem as exc:
        return Settings(), str(exc)
    try:
        return Settings.model_validate(raw or {}), None
    except ValidationError as exc:
        return Settings(), f"{path}: ignored invalid settings ({exc.error_count()} problem(s))"


def save_settings(settings: Settings, path: Path | None = None) -> None:
    path = path or config_dir() / "settings.json"
    write_atomic(path, settings.model_dump_json(indent=2) + "\n")


def default_recording_path(agent_url: str, settings: Settings | None = None, *, now: float | None = None) -> Path:
    """A readable, unique file name: ``2026-11-22_0415_localhost-8003.jsonl``."""
    base = Path(settings.recordings).expanduser() if settings and settings.recordings else recordings_dir()
    stamp = time.strftime("%Y-%m-%d_%H%M%S", time.localtime(now))
    # Host, port and path only: a query or a user:password in the URL may hold a secret.
    parts = urlsplit(agent_url.strip().lower() if "://" in agent_url else f"http://{agent_url.strip().lower()}")
    try:
        where = f"{parts.hostname or ''}-{parts.port or ''}{parts.path}"
    except ValueError:  # a port that is not a number
        where = parts.hostname or ""
    host = re.sub(r"[^a-z0-9.]+", "-", where).strip("-.")[:60] or "agent"
    path = base / f"{stamp}_{host}.jsonl"
    n = 2
    while path.exists():
        path = base / f"{stamp}_{host}-{n}.jsonl"
        n += 1
    return path
