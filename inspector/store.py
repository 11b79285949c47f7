"""What a2a-inspect keeps between runs, in the user's platform directories.

    config dir:  agents.json (saved agents), settings.json, themes/*.yaml (user themes)
    data dir:    recordings/*.jsonl
    cache dir:   dialects.json (see inspector.client.dialect_cache), waiting-tasks.json
                 (see inspector.headless.waiting_tasks)

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
from dataclasses import MISSING, asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, TextIO, TypeVar
from urllib.parse import urlsplit

import platformdirs

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


# Plain dataclasses, not pydantic models: the TUI reads both files before its first
# frame, and pydantic's import and model building were a good part of that frame's
# cost. ``validated`` still gives pydantic's answer for anything but plain JSON.
@dataclass(kw_only=True)
class SavedAgent:
    name: str
    url: str
    dialect: str = "auto"
    #: "auto" | "jsonrpc" | "rest" | "grpc": the binding chosen (shift+F8) when saved.
    binding: str = "auto"
    card_url: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    #: "bearer" | "api-key" | "basic" | None; the secret lives in ``secret``.
    auth: str | None = None
    auth_header: str | None = None
    #: The secret itself, or ``{"env": "VAR"}``: read from the environment variable VAR
    #: when the agent is opened, so the file holds no credential (see ``secret_value``).
    secret: str | dict[str, str] | None = None
    #: Headers that are credentials (the form's "secret" flag): sent like ``headers``,
    #: redacted like --secret-header wherever anything is written. A value may be
    #: ``{"env": "VAR"}`` too.
    secret_headers: dict[str, str | dict[str, str]] = field(default_factory=dict)
    #: TLS as the CLI's --cacert, --cert, --key, --insecure: paths to the files, never
    #: their contents (a key stays where its owner keeps it).
    cacert: str | None = None
    cert: str | None = None
    key: str | None = None
    insecure: bool = False


class MissingSecret(ValueError):
    """A saved agent's secret names an environment variable that is not set."""


def env_name(value: object) -> str | None:
    """VAR of a stored ``{"env": "VAR"}``, else None."""
    if type(value) is dict and len(value) == 1 and type(value.get("env")) is str and value["env"]:
        return value["env"]
    return None


def secret_value(value: str | dict[str, str], what: str) -> str:
    """A stored secret as sent: itself, or its environment variable's value."""
    var = env_name(value)
    if var is None:
        return value if isinstance(value, str) else ""
    found = os.environ.get(var)
    if not found:
        raise MissingSecret(f"{what}: the environment variable {var} is {'empty' if found == '' else 'not set'}")
    return found


def missing_secrets(agent: SavedAgent) -> list[str]:
    """One line per environment variable the agent refers to that is not set (or empty)."""
    stored = [(agent.secret, f"{agent.auth or 'auth'} secret")] if agent.auth and agent.secret is not None else []
    stored += [(v, f"header {k}") for k, v in agent.secret_headers.items()]
    out = []
    for value, what in stored:
        try:
            secret_value(value, f"saved agent {agent.name!r}, {what}")
        except MissingSecret as exc:
            out.append(str(exc))
    return out


def _agent_json(agent: SavedAgent) -> dict[str, Any]:
    out = {k: v for k, v in asdict(agent).items() if v is not None}
    if not out.get("secret_headers"):
        out.pop("secret_headers", None)  # files of agents without them stay as they were
    if out.get("binding") == "auto":
        out.pop("binding")
    if not out.get("insecure"):
        out.pop("insecure", None)
    return out


@dataclass(kw_only=True)
class Settings:
    theme: str = "a2a-dark"
    #: Header names redacted in recordings besides the built-in ones.
    redact_headers: list[str] = field(default_factory=list)
    #: Header (and query parameter) names that look like a credential's but are not
    #: (an X-Session-Id that is a trace id): recorded and shown as sent.
    plain_headers: list[str] = field(default_factory=list)
    redact: bool = True
    #: Where recordings go when no file is named.
    recordings: str | None = None


class InvalidData(ValueError):
    """What ``validated`` refuses; ``count`` is the number of problems pydantic found."""

    def __init__(self, count: int) -> None:
        super().__init__(f"{count} problem(s)")
        self.count = count


_Stored = TypeVar("_Stored", SavedAgent, Settings)


def validated(cls: type[_Stored], raw: Any) -> _Stored:
    """``raw`` (parsed JSON) as a ``cls``, as a pydantic model of the same fields would
    take it. Plain values of the right types (what a2a-inspect writes) are taken here;
    anything else (a "yes" for a bool, a wrong type, a missing field) goes to pydantic,
    imported only then, for its coercions and its count of problems."""
    plain = _plain(cls, raw)
    if plain is not None:
        return plain
    from pydantic import ValidationError

    try:
        return _adapter(cls).validate_python(raw)
    except ValidationError as exc:
        raise InvalidData(exc.error_count()) from None


_adapters: dict[type, Any] = {}


def _adapter(cls: type) -> Any:
    # A dict, not functools.cache: its typed __call__ wants Hashable, which mypy does not
    # see a pydantic model's class as.
    adapter = _adapters.get(cls)
    if adapter is None:
        from pydantic import TypeAdapter

        adapter = _adapters[cls] = TypeAdapter(cls)
    return adapter


def _plain(cls: type[_Stored], raw: Any) -> _Stored | None:
    """``cls`` from ``raw`` when every field is of exactly its type (and the required
    ones are there), copied as pydantic would; else None. Unknown keys are ignored."""
    if type(raw) is not dict:
        return None
    values: dict[str, Any] = {}
    for f in fields(cls):
        if f.name not in raw:
            if f.default is MISSING and f.default_factory is MISSING:  # required
                return None
            continue
        value = raw[f.name]
        kind = f.type
        if kind == "str" or kind == "str | None":
            if not (type(value) is str or (value is None and kind == "str | None")):
                return None
        elif kind == "str | dict[str, str] | None":
            if not (value is None or type(value) is str or env_name(value) is not None):
                return None
            value = dict(value) if type(value) is dict else value
        elif kind == "dict[str, str | dict[str, str]]":
            if type(value) is not dict or any(
                type(k) is not str or not (type(v) is str or env_name(v) is not None) for k, v in value.items()
            ):
                return None
            value = {k: dict(v) if type(v) is dict else v for k, v in value.items()}
        elif kind == "bool":
            if type(value) is not bool:
                return None
        elif kind == "list[str]":
            if type(value) is not list or any(type(v) is not str for v in value):
                return None
            value = list(value)
        elif kind == "dict[str, str]":
            if type(value) is not dict or any(type(k) is not str or type(v) is not str for k, v in value.items()):
                return None
            value = dict(value)
        else:  # a field this function does not know: pydantic decides
            return None
        values[f.name] = value
    return cls(**values)


def _refs_ok(agent: SavedAgent) -> bool:
    """Every dict where a secret goes is an ``{"env": "VAR"}`` (pydantic takes any dict)."""
    values = [agent.secret, *agent.secret_headers.values()]
    return all(not isinstance(v, dict) or env_name(v) is not None for v in values)


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
                agent = validated(SavedAgent, item)
                if not _refs_ok(agent):
                    raise InvalidData(1)
                agents.append(agent)
            except InvalidData:
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
        return validated(Settings, raw or {}), None
    except InvalidData as exc:
        return Settings(), f"{path}: ignored invalid settings ({exc.count} problem(s))"


def save_settings(settings: Settings, path: Path | None = None) -> None:
    path = path or config_dir() / "settings.json"
    # As pydantic's model_dump_json(indent=2) wrote it: the same bytes as before.
    write_atomic(path, json.dumps(asdict(settings), indent=2, ensure_ascii=False) + "\n")


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
