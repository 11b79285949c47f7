"""Matching a new JSON-RPC request to a recorded one, and keeping ids consistent.

A request matches a recorded exchange when it has the same JSON-RPC method, the same
A2A version (an absent ``A2A-Version`` header is 0.3), the same content with every
protocol id masked (or, looser, the same message for send/stream: a client that adds a
configuration the recording's did not still matches), and ids that agree with the
conversation so far. Content is compared without the fields a client may fill in with
their default value (replay_defaults.py: a text part's ``mediaType: text/plain``, an
empty ``metadata``, ...).

Ids. The recording's agent assigned task, context and message ids; the new client
sends and receives others. Two tables keep them straight:

* live -> recorded: the new request is read in the recording's ids before matching,
  so "continue task L1" finds the recorded exchange that continued task T1;
* recorded -> live: the recorded answer is written in the new client's ids before it
  is sent: the JSON-RPC id is the new request's, ids the client chose (its messageId,
  a 0.1 task id, a contextId it made up) come back as it sent them, and ids the
  recorded agent assigned in the answer to a first message get fresh ones, as a live
  agent would: two clients replaying the same conversation get two different tasks.
  Answers to polls and later turns keep the ids already given; a client naming a
  recorded task by its recorded id gets the recorded ids.

Each served answer's ids form a group (task, context, messages). A later request that
names any live id of a group brings the whole group back, so turn 2 on task L1 gets
L1's context, not the context of a task some other client started since.

An id recorded in a request is "fresh" when it first appears there (the client chose
it): any new value is accepted in its place. An id that the recording knew before
(assigned by the agent earlier) must come back as the live id it was mapped to.
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass, field
from typing import Any

from inspector.session.diff import (
    OPTIONAL_IDS,
    Rewriter,
    fresh_id,
    id_slots,
    mask_ids,
)
from inspector.session.exchange import RecordedExchange, parse_body, request_text, sse_json

from .replay_defaults import version_of, without_defaults

Path = tuple[Any, ...]

_UUID_TEXT = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")

#: Methods whose matching may ignore everything but the message (send and stream, in
#: every dialect's spelling).
_MESSAGE_METHODS = frozenset({"send", "stream"})


_BINDING_NAMES = {"jsonrpc": "JSON-RPC", "rest": "HTTP+JSON/REST", "grpc": "gRPC"}


@dataclass(eq=False)
class Candidate:
    """A recorded JSON-RPC exchange, prepared for matching."""

    index: int
    ex: RecordedExchange
    #: Which recording it came from (several may be served together).
    source: str
    wire_method: str
    version: str | None
    params: Any
    masked: Any
    #: The masked message, for send/stream.
    core: Any
    #: (path, recorded value, fresh) for every id in the request's params.
    slots: list[tuple[Path, str, bool]]
    #: Ids the recorded answer introduced (first seen there).
    introduced: list[str]
    #: The same, by (role, n): ("task", 0) is the first task id it introduced.
    roles: dict[tuple[str, int], str]
    text: str
    #: Recorded ids the answer mentions (as ids, or UUIDs inside text): all it can need
    #: rewritten.
    mentions: set[str] = field(default_factory=set)

    def describe(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "exchange": self.ex.number,
            "method": self.wire_method,
            "a2a_method": self.ex.a2a_method,
            "text": self.text,
        }
        if self.version is not None:
            out["a2a_version"] = self.version
        return out


@dataclass
class Match:
    candidate: Candidate
    #: recorded -> live, for writing the answer.
    table: dict[str, str]


@dataclass
class Miss:
    code: int
    message: str
    why: str
    closest: Candidate | None = None

    def data(self) -> dict[str, Any]:
        out: dict[str, Any] = {"why": self.why}
        if self.closest is not None:
            out["closest"] = self.closest.describe()
        return out


@dataclass
class _Slot:
    recorded_view: str  # the value read in the recording's ids
    sent: str  # the value as the client sent it


@dataclass
class _Score:
    tier: int
    problem: str | None = None


def _version(value: str | None) -> str | None:
    value = (value or "").strip()
    return value or None


class Book:
    """Every recorded JSON-RPC exchange, and the id tables of this replay."""

    def __init__(self, exchanges: list[tuple[str, RecordedExchange]]) -> None:
        self.candidates: list[Candidate] = []
        seen: set[str] = set()
        for source, ex in exchanges:
            body = ex.body_json
            if not ex.is_rpc:
                continue
            params = without_defaults(body.get("params"))
            slots = []
            for path, value in id_slots(params):
                slots.append((path, value, value not in seen))
            seen.update(value for _p, value, _f in slots)
            introduced: list[str] = []
            roles: dict[tuple[str, int], str] = {}
            bodies = []
            if ex.response is not None:
                bodies.append(parse_body(ex.response.data))
            bodies += [sse_json(e) for e in ex.stream]
            mentions: set[str] = set()
            for obj in bodies:
                if obj is None:
                    continue
                mentions.update(_UUID_TEXT.findall(json.dumps(obj)))
                for path, value in id_slots(obj):
                    mentions.add(value)
                    if value not in seen:
                        seen.add(value)
                        introduced.append(value)
                        role = _role(path)
                        n = sum(1 for r, _k in roles if r == role)
                        roles[(role, n)] = value
            a2a = ex.a2a_method
            masked = mask_ids(params, OPTIONAL_IDS)
            core = None
            if a2a in _MESSAGE_METHODS and isinstance(masked, dict):
                core = masked.get("message")
            self.candidates.append(
                Candidate(
                    len(self.candidates),
                    ex,
                    source,
                    body["method"],
                    _version(ex.header("A2A-Version")),
                    params,
                    masked,
                    core,
                    slots,
                    introduced,
                    roles,
                    request_text(params),
                    mentions,
                )
            )
        #: Every id the recording holds.
        self.recorded_ids = seen
        for c in self.candidates:
            c.mentions &= seen
        # Conversations that started alike (the same message, sent or streamed): the
        # ids answering it in the same role stand for each other, so a client on the
        # second recorded "ask me" task can take the turn recorded for the first one.
        self.introduced_by: dict[str, tuple[Candidate, tuple[str, int]]] = {}
        self.twin: dict[str, str] = {}
        first_of: dict[tuple[Any, ...], Candidate] = {}
        for c in self.candidates:
            family = "message" if c.ex.a2a_method in _MESSAGE_METHODS else c.wire_method
            sig = (family, c.ex.dialect, c.version, json.dumps(c.masked, sort_keys=True, default=str))
            first = first_of.setdefault(sig, c)
            for key, value in c.roles.items():
                self.introduced_by[value] = (c, key)
                self.twin[value] = first.roles.get(key, value)
        #: recorded -> live (latest binding) and live -> recorded.
        self.fwd: dict[str, str] = {}
        self.back: dict[str, str] = {}
        #: live id -> its group (recorded -> live) from the answer that bound it.
        self.groups: dict[str, dict[str, str]] = {}
        self.used: set[int] = set()
        #: The candidate served last.
        self.cursor = -1
        self.methods = sorted({c.wire_method for c in self.candidates})

    # ------------------------------------------------------------------ matching

    def match(self, obj: dict[str, Any], version: str | None, binding: str = "jsonrpc") -> Match | Miss:
        """The recorded exchange answering ``obj`` (a JSON-RPC request; for a REST one,
        rest.as_jsonrpc of it) among those recorded over ``binding``."""
        wire = obj.get("method")
        params = without_defaults(obj.get("params"))
        version = _version(version)
        # Only the ids this request holds: the tables grow with every request served.
        held = {v for _p, v in id_slots(params)} | set(_UUID_TEXT.findall(json.dumps(params, default=str)))
        to_recorded = Rewriter({k: self.back[k] for k in held if k in self.back})
        view = to_recorded(params)
        new_slots = {
            path: _Slot(value, sent) for (path, value), (_p, sent) in zip(id_slots(view), id_slots(params), strict=True)
        }
        masked = mask_ids(view, OPTIONAL_IDS)
        best: list[Candidate] = []
        best_tier = 0
        for c in self.candidates:
            if c.wire_method != wire or not _same_version(c.version, version) or c.ex.binding != binding:
                continue
            score = self._score(c, masked, new_slots)
            if score.tier == 0:
                continue
            if score.tier > best_tier:
                best, best_tier = [c], score.tier
            elif score.tier == best_tier:
                best.append(c)
        if not best:
            if not any(c.ex.binding == binding for c in self.candidates):
                spoken = sorted({c.ex.binding for c in self.candidates})
                how = "; serve it with --grpc-port and call it over gRPC" if "grpc" in spoken else ""
                return Miss(
                    -32601,
                    "Method not found",
                    f"the recording holds no {_BINDING_NAMES.get(binding, binding)} request, only "
                    f"{', '.join(_BINDING_NAMES.get(b, b) for b in spoken)} ones{how}",
                )
            return self._miss(wire, masked, new_slots, version, params)
        chosen = self._pick(best)
        self.used.add(chosen.index)
        self.cursor = chosen.index
        return Match(chosen, self._bind(chosen, new_slots))

    def _pick(self, best: list[Candidate]) -> Candidate:
        """Of equally good matches: the first not served yet, in recording order. Once
        all have been: for a request that continues something (a poll, the next turn),
        the latest, so a task never goes back to an earlier state; for one that starts
        something, the next after the last served, so a client running the recorded
        session again walks through it again."""
        unused = [c for c in best if c.index not in self.used]
        if unused:
            return unused[0]
        if not _starts(best[0]):
            return best[-1]
        after = [c for c in best if c.index > self.cursor]
        return after[0] if after else best[0]

    def _score(self, c: Candidate, masked: Any, new_slots: dict[Path, _Slot]) -> _Score:
        if masked == c.masked:
            tier = 2
        elif c.core is not None and isinstance(masked, dict) and masked.get("message") == c.core:
            tier = 1
        elif c.core is None and c.ex.a2a_method not in _MESSAGE_METHODS:
            tier = 1  # get, cancel...: the ids decide
        else:
            return _Score(0, "content")
        for path, recorded, fresh in c.slots:
            slot = new_slots.get(path)
            if slot is None:
                if tier == 1 and path and path[-1] in ("id", "taskId"):
                    return _Score(0, f"the request names no {path[-1]}")
                continue
            if slot.recorded_view == recorded:
                continue
            if not fresh and self._twins(slot.recorded_view, recorded):
                continue
            if fresh and slot.recorded_view not in self.recorded_ids:
                continue
            if fresh:
                continue  # a recorded id in a slot the client filled itself: lenient
            return _Score(0, _id_problem(path, slot, recorded))
        return _Score(tier)

    def _bind(self, c: Candidate, new_slots: dict[Path, _Slot]) -> dict[str, str]:
        table = {r: self.fwd[r] for r in c.mentions if r in self.fwd}
        group: dict[str, str] = {}
        slot: _Slot | None
        for slot in new_slots.values():
            known = self.groups.get(slot.sent)
            if known is not None:
                group.update(known)
        for path, recorded, _fresh in c.slots:
            slot = new_slots.get(path)
            if slot is not None and slot.recorded_view != recorded and self._twins(slot.recorded_view, recorded):
                # The client is on a twin conversation: its ids stand in for this one's.
                mine = self.introduced_by[recorded][0]
                theirs = self.introduced_by[slot.recorded_view][0]
                for key, r1 in mine.roles.items():
                    r2 = theirs.roles.get(key)
                    if r2 in group:
                        group[r1] = group[r2]
        table.update(group)
        for path, recorded, _fresh in c.slots:
            slot = new_slots.get(path)
            if slot is not None:
                table[recorded] = group[recorded] = slot.sent
        # A request that starts something (a first message) gets new ids for what its
        # answer introduces, every time. One that continues something (a poll, the next
        # turn) keeps them stable: the ids already given, or, for a client using the
        # recording's own ids, those.
        starts = _starts(c)
        literal = any(
            (slot := new_slots.get(path)) is not None and slot.sent == recorded and _role(path) != "messageId"
            for path, recorded, _fresh in c.slots
        )
        for recorded in c.introduced:
            if starts:
                live = fresh_id(recorded)
            else:
                live = (
                    group.get(recorded)
                    or (recorded if literal else None)
                    or self.fwd.get(recorded)
                    or fresh_id(recorded)
                )
            table[recorded] = group[recorded] = live
        for recorded, live in group.items():
            self.fwd[recorded] = live
            self.back[live] = recorded
            self.groups[live] = group
        return table

    def _twins(self, a: str, b: str) -> bool:
        ta, tb = self.twin.get(a), self.twin.get(b)
        return ta is not None and ta == tb

    # ------------------------------------------------------------------ misses

    def _miss(self, wire: Any, masked: Any, new_slots: dict[Path, _Slot], version: str | None, params: Any) -> Miss:
        if not self.candidates:
            return Miss(-32601, "Method not found", "the recording holds no JSON-RPC request")
        text = request_text(params)
        same_method = [c for c in self.candidates if c.wire_method == wire]
        if not same_method:
            closest = max(self.candidates, key=lambda c: _similar(text, c.text))
            return Miss(
                -32601,
                "Method not found",
                f"method {wire!r} is not in the recording (recorded: {', '.join(self.methods)})",
                closest,
            )
        closest = max(
            same_method,
            key=lambda c: (
                _similar(
                    json.dumps(masked, sort_keys=True, default=str), json.dumps(c.masked, sort_keys=True, default=str)
                ),
                _same_version(c.version, version),
            ),
        )
        if not _same_version(closest.version, version):
            why = (
                f"the A2A-Version header differs: recorded {closest.version or 'none'}, "
                f"this request {version or 'none'}"
            )
        else:
            score = self._score(closest, masked, new_slots)
            if score.problem == "content" or score.problem is None:
                why = "the params differ from the closest recorded request: " + _first_difference(
                    closest.masked, masked
                )
            else:
                why = score.problem
        return Miss(-32602, "Invalid params", why, closest)


def _same_version(recorded: str | None, got: str | None) -> bool:
    return version_of(recorded) == version_of(got)


def _starts(c: Candidate) -> bool:
    """A first message: a send or stream that names no task it continues."""
    return c.ex.a2a_method in _MESSAGE_METHODS and all(fresh for path, _v, fresh in c.slots if _role(path) == "task")


def _role(path: Path) -> str:
    key = next((k for k in reversed(path) if isinstance(k, str)), "id")
    if key in ("id", "taskId", "task_id"):
        return "task"
    if key in ("contextId", "sessionId", "context_id", "session_id"):
        return "context"
    return key


def _id_problem(path: Path, slot: _Slot, recorded: str) -> str:
    key = next((k for k in reversed(path) if isinstance(k, str)), "id")
    return (
        f"{key} {slot.sent!r} is not the {key} of the recorded conversation here "
        f"(the recorded request names {recorded!r}; replay the request that created it first)"
    )


def _similar(a: str, b: str) -> float:
    return difflib.SequenceMatcher(None, a, b).ratio()


def _first_difference(recorded: Any, got: Any, path: str = "$.params") -> str:
    """Where two JSON values first differ, as a path with both values."""
    if isinstance(recorded, dict) and isinstance(got, dict):
        for key in list(recorded) + [k for k in got if k not in recorded]:
            if key not in got:
                return f"{path}.{key} is missing (recorded {_short(recorded[key])})"
            if key not in recorded:
                return f"{path}.{key} was not in the recorded request (got {_short(got[key])})"
            if recorded[key] != got[key]:
                return _first_difference(recorded[key], got[key], f"{path}.{key}")
        return f"{path} differs"
    if isinstance(recorded, list) and isinstance(got, list):
        for i, (a, b) in enumerate(zip(recorded, got, strict=False)):
            if a != b:
                return _first_difference(a, b, f"{path}[{i}]")
        return f"{path} has {len(got)} items, recorded {len(recorded)}"
    return f"{path} is {_short(got)}, recorded {_short(recorded)}"


def _short(value: Any, limit: int = 80) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 3] + "..."
