"""The tasks each agent last left waiting for input, for ``send --continue``.

A small JSON file beside the dialect cache (the user's cache dir): per agent URL (its
cache key, with secret query parameters replaced), the newest tasks the CLI saw, each
with its context, state and question. Only what an agent said about its own tasks is
kept, never a header or a credential. Bounded: AGENTS agents (the least recently used
are dropped), TASKS tasks each, QUESTION characters of a question. A cache: missing,
corrupt or unwritable means "nothing remembered", never an error.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..client.dialect_cache import agent_key
from ..protocol.states import INTERRUPTED
from ..safejson import loads
from ..store import cache_dir
from ..textsafe import shorten
from .compose import UsageError

FILE_NAME = "waiting-tasks.json"
AGENTS = 64
TASKS = 8
QUESTION = 300
#: Longer ids are not a task a person continues by hand; the file stays small.
ID_MAX = 512
WAITING = frozenset(state.value for state in INTERRUPTED)


@dataclass(frozen=True)
class Waiting:
    task_id: str
    context_id: str | None
    state: str
    question: str

    def describe(self) -> str:
        """One line naming the task: its id's first 8 characters, its state, its question."""
        said = f": {shorten(self.question, 120)}" if self.question else ""
        return f"task {shorten(self.task_id[:8], 8)} ({self.state}{said})"


def _question(message: Any) -> str:
    if message is None:
        return ""
    texts = [getattr(p, "text", None) for p in getattr(message, "parts", ()) or ()]
    return " ".join(t for t in texts if isinstance(t, str))[:QUESTION]


class WaitingTasks:
    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self.path = Path(path) if path is not None else cache_dir() / FILE_NAME

    def note(self, url: str, view: Any, redact: Callable[[str], str] | None = None) -> None:
        """Remember where ``view`` (a tracker's TaskView) stands now, for the agent at
        ``url``. ``redact`` spares the question the secrets given (an agent may echo one)."""
        task_id, state = getattr(view, "id", None), getattr(view, "state", None)
        if not isinstance(task_id, str) or not task_id or len(task_id) > ID_MAX or state is None:
            return
        context_id = view.context_id if isinstance(view.context_id, str) and len(view.context_id) <= ID_MAX else None
        question = _question(view.status_message) if state.value in WAITING else ""
        if question and redact is not None:
            question = redact(question)
        entry = {"id": task_id, "contextId": context_id, "state": state.value, "question": question}
        data = self._load()
        key = agent_key(url)
        agent = data.pop(key, None)
        tasks = [
            t
            for t in (agent.get("tasks", []) if isinstance(agent, dict) else [])
            if isinstance(t, dict) and t.get("id") != task_id
        ]
        data[key] = {"tasks": [entry, *tasks][:TASKS]}
        # Dicts keep insertion order: the agent just used is last, the oldest first.
        while len(data) > AGENTS:
            data.pop(next(iter(data)))
        self._save(data)

    def last_waiting(self, url: str) -> Waiting | None:
        """The newest task of the agent at ``url`` that was left input- or auth-required."""
        agent = self._load().get(agent_key(url))
        for t in agent.get("tasks", []) if isinstance(agent, dict) else []:
            if not isinstance(t, dict) or t.get("state") not in WAITING or not isinstance(t.get("id"), str):
                continue
            context = t.get("contextId")
            question = t.get("question")
            return Waiting(
                t["id"],
                context if isinstance(context, str) else None,
                t["state"],
                question if isinstance(question, str) else "",
            )
        return None

    def _load(self) -> dict[str, Any]:
        try:
            data = loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def _save(self, data: dict[str, Any]) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # Write-then-rename (0600 from mkstemp): two runs at once never leave half a
            # file, and it names the agents the user talks to.
            fd, tmp = tempfile.mkstemp(prefix=".waiting-", suffix=".json", dir=self.path.parent)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(data, fh, indent=1)
            os.replace(tmp, self.path)
        except OSError:
            pass


def continue_waiting(args: Any, tasks: WaitingTasks | None = None) -> Waiting:
    """``send --continue``: point ``args`` at the agent's last task waiting for input,
    and say which on stderr (stdout stays the command's own output)."""
    if args.task_id or args.context_id:
        raise UsageError("--continue picks the task and its context itself: give it without --task-id and --context-id")
    found = (tasks or WaitingTasks()).last_waiting(args.url)
    if found is None:
        raise UsageError(
            f"--continue: no task of {shorten(agent_key(args.url), 100)} is waiting for input "
            "(input-required or auth-required) as far as this machine's last commands saw; "
            "name one with --task-id"
        )
    args.task_id, args.context_id = found.task_id, found.context_id
    print(f"a2a-inspect: continuing {found.describe()}", file=sys.stderr, flush=True)
    return found
