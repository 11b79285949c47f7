"""Fault rules: what the proxy does to an exchange instead of relaying it faithfully.

A rules file (``--faults FILE``) is YAML, a list of rules (or ``{rules: [...]}``)::

    - name: flaky stream            # optional; shown in the TUI's list
      match: {method: SendStreamingMessage}
      fault: {drop_after: 3}
    - match: {method: message/send, route: /b}
      fault: {delay: 2s}
    - match: {method: GetTask}
      fault: {error: {code: -32001, message: Task not found}}
      enabled: false                # listed, switched off until toggled

``match`` (every key given must hold; none: every A2A exchange): ``method`` in any
dialect's spelling (``SendStreamingMessage``, ``message/stream``, ``tasks/sendSubscribe``)
or the internal name (``stream``); ``route``: the proxy route's prefix; ``text``: a
regular expression searched in the request body (in the path and query of a request
without one, such as a REST GET); ``times``: only the first N exchanges
that match. ``fault`` takes the mock's words where it has them (docs/scenarios.md):
``delay``, ``error`` (alias ``rpc_error``), ``http`` (alias ``http_status``), and the
proxy's own ``drop_after``, ``corrupt_chunk``, ``duplicate_chunk``, ``hold_working``.
docs/proxy.md has the reference.
"""

from __future__ import annotations

import re
import threading
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from ..protocol.dialects import ALL
from ..protocol.errors import JsonRpcError
from ..protocol.methods import Method

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m)?\s*$")
#: The longest delay a rule may ask for (a typo of "2000s" must not hang a client for ever).
MAX_DELAY = 600.0

_ERROR_TEXT = {
    -32001: "Task not found",
    -32002: "Task cannot be canceled",
    -32003: "Push Notification is not supported",
    -32004: "This operation is not supported",
    -32005: "Incompatible content types",
    -32006: "Invalid agent response",
    -32007: "Extended agent card not configured",
    -32600: "Invalid Request",
    -32601: "Method not found",
    -32602: "Invalid params",
    -32603: "Internal error",
    -32700: "Parse error",
}


def seconds(value: Any) -> float:
    """``1.5``, ``"2s"``, ``"500ms"``, ``"1m"`` -> seconds."""
    if isinstance(value, bool):
        raise ValueError("a duration is a number of seconds, or text like 2s or 500ms")
    if isinstance(value, (int, float)):
        out = float(value)
    else:
        found = _DURATION.match(str(value))
        if not found:
            raise ValueError(f"{value!r} is not a duration (say 2s, 500ms or 1.5)")
        out = float(found.group(1)) * {"ms": 0.001, "m": 60.0}.get(found.group(2) or "s", 1.0)
    if not 0 <= out <= MAX_DELAY:
        raise ValueError(f"a delay is between 0 and {MAX_DELAY:g} s")
    return out


class _Strict(BaseModel):
    # defer_build: validators built on first use; a proxy without --faults never uses them
    # and paid ~9 ms of CPU at start for building them.
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class ErrorFault(_Strict):
    code: int
    message: str | None = None
    data: Any = None

    def error(self) -> JsonRpcError:
        return JsonRpcError(self.code, self.message or _ERROR_TEXT.get(self.code, "Error"), self.data)


class HttpFault(_Strict):
    status: int = Field(ge=100, le=599)
    body: str | None = None
    content_type: str = "text/plain; charset=utf-8"
    headers: dict[str, str] = Field(default_factory=dict)
    #: Over gRPC: the status to end the call with (name or number); default, what a gRPC
    #: client reports for this HTTP status (grpc's HTTP-to-gRPC status mapping).
    grpc: int | None = None

    @field_validator("grpc", mode="before")
    @classmethod
    def _grpc(cls, value: Any) -> Any:
        from ..protocol.grpc_errors import code_of

        return None if value is None else code_of(value)


class Fault(_Strict):
    delay: float | None = None
    error: ErrorFault | None = None
    http: HttpFault | None = None
    drop_after: int | None = Field(default=None, ge=0)
    corrupt_chunk: int | None = Field(default=None, ge=1)
    duplicate_chunk: int | None = Field(default=None, ge=1)
    hold_working: bool = False

    @model_validator(mode="before")
    @classmethod
    def _aliases(cls, value: Any) -> Any:
        if isinstance(value, dict):
            value = dict(value)
            for alias, name in (("rpc_error", "error"), ("http_status", "http")):
                if alias in value:
                    if name in value:
                        raise ValueError(f"give {name} or {alias}, not both")
                    value[name] = value.pop(alias)
            if isinstance(value.get("error"), int) and not isinstance(value.get("error"), bool):
                value["error"] = {"code": value["error"]}
            if isinstance(value.get("http"), int) and not isinstance(value.get("http"), bool):
                value["http"] = {"status": value["http"]}
        return value

    @field_validator("delay", mode="before")
    @classmethod
    def _delay(cls, value: Any) -> Any:
        return None if value is None else seconds(value)

    @model_validator(mode="after")
    def _something(self) -> Fault:
        if not self.words():
            raise ValueError(
                "a fault needs one of delay, error, http, drop_after, corrupt_chunk, duplicate_chunk, hold_working"
            )
        if self.error is not None and self.http is not None:
            raise ValueError("error and http both answer instead of the agent: give one")
        return self

    def words(self) -> list[str]:
        """The fault as ``key=value`` words: what the session marks events with."""
        out = []
        if self.delay is not None:
            out.append(f"delay={self.delay:g}s")
        if self.error is not None:
            out.append(f"error={self.error.code}")
        if self.http is not None:
            out.append(f"http={self.http.status}")
        for key in ("drop_after", "corrupt_chunk", "duplicate_chunk"):
            if getattr(self, key) is not None:
                out.append(f"{key}={getattr(self, key)}")
        if self.hold_working:
            out.append("hold_working")
        return out

    @property
    def answers(self) -> bool:
        """The proxy answers instead of forwarding."""
        return self.error is not None or self.http is not None

    @property
    def per_event(self) -> bool:
        return (
            self.drop_after is not None
            or self.corrupt_chunk is not None
            or self.duplicate_chunk is not None
            or self.hold_working
        )


def _method_names(spelled: str) -> frozenset[str]:
    """Every name ``spelled`` goes by: its Method value and each dialect's wire name."""
    method: Method | None = None
    try:
        method = Method(spelled)
    except ValueError:
        for dialect in ALL:
            method = dialect.method_for(spelled)
            if method is not None:
                break
    if method is None:
        raise ValueError(f"{spelled!r} is not an A2A method in any dialect")
    names = {method.value}
    for dialect in ALL:
        if dialect.has(method):
            names.add(dialect.wire_method(method))
    return frozenset(names)


class Match(_Strict):
    method: str | None = None
    route: str | None = None
    text: str | None = None
    times: int | None = Field(default=None, ge=1)

    @field_validator("method")
    @classmethod
    def _method(cls, value: str | None) -> str | None:
        if value is not None:
            _method_names(value)
        return value

    @field_validator("text")
    @classmethod
    def _text(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                re.compile(value)
            except re.error as exc:
                raise ValueError(f"text is not a regular expression: {exc}") from None
        return value


class Rule(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)

    name: str | None = None
    match: Match = Field(default_factory=Match)
    fault: Fault
    enabled: bool = True


class RulesFile(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)

    rules: list[Rule]


class Rules:
    """The proxy's rules, live: the TUI toggles them while traffic flows (``toggle``),
    and a ``hold_working`` rule switched off lets what it held go."""

    def __init__(self, rules: list[Rule] | None = None) -> None:
        self.rules = list(rules or [])
        self._used = [0] * len(self.rules)
        self._lock = threading.Lock()
        #: Rule index -> callbacks waiting for it to be switched off (held streams).
        self._waiters: dict[int, list[Any]] = {}

    def __len__(self) -> int:
        return len(self.rules)

    def match(self, info: dict[str, Any], route: str, body: bytes) -> list[tuple[int, Rule]]:
        """The enabled rules this exchange matches, counted against ``times``."""
        out = []
        with self._lock:
            for i, rule in enumerate(self.rules):
                if not rule.enabled or not _matches(rule.match, info, route, body):
                    continue
                if rule.match.times is not None and self._used[i] >= rule.match.times:
                    continue
                self._used[i] += 1
                out.append((i, rule))
        return out

    def armed(self, route: str) -> bool:
        """Whether an enabled rule could match an A2A call relayed for ``route`` (one of
        a method that is no card fetch, or of any method): the gRPC fast path is taken
        only while none could (grpc_front.py)."""
        for i, rule in enumerate(self.rules):
            match = rule.match
            if not rule.enabled or (match.route is not None and route.rstrip("/") != match.route.rstrip("/")):
                continue
            if match.times is not None and self._used[i] >= match.times:
                continue  # spent: it matches nothing more
            if match.method is None or "card" not in _method_names(match.method):
                return True
        return False

    def toggle(self, index: int, enabled: bool | None = None) -> bool:
        rule = self.rules[index]
        rule.enabled = (not rule.enabled) if enabled is None else enabled
        if not rule.enabled:
            for wake in self._waiters.pop(index, []):
                wake()
        return rule.enabled

    def on_release(self, index: int, wake: Any) -> None:
        self._waiters.setdefault(index, []).append(wake)

    def forget(self, index: int, wake: Any) -> None:
        waiting = self._waiters.get(index)
        if waiting and wake in waiting:
            waiting.remove(wake)


def _matches(match: Match, info: dict[str, Any], route: str, body: bytes) -> bool:
    if match.method is not None:
        names = _method_names(match.method)
        if info.get("a2a_method") not in names and info.get("rpc_method") not in names:
            return False
    elif info.get("a2a_method") in (None, "card"):
        return False  # a rule without a method is about A2A calls, not card GETs
    if match.route is not None and route.rstrip("/") != match.route.rstrip("/"):
        return False
    if match.text is not None and re.search(match.text, body.decode("utf-8", "replace")) is None:
        return False
    return True


class RulesError(ValueError):
    """A rules file that cannot be used, as one line (file and what is wrong)."""


def load_rules(path: str | Path) -> Rules:
    from .. import safeyaml

    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise RulesError(f"cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise RulesError(f"{path} is not UTF-8 text") from None
    try:
        doc = safeyaml.load(text)
    except Exception as exc:  # yaml.YAMLError and its bounded kin
        raise RulesError(f"{path}: not valid YAML: {' '.join(str(exc).split())}") from None
    if doc is None:
        return Rules()
    if isinstance(doc, list):
        doc = {"rules": doc}
    try:
        parsed = RulesFile.model_validate(doc)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise RulesError(f"{path}: {where or 'the file'}: {first['msg']}") from None
    return Rules(parsed.rules)
