"""A recording as an a2a-mock scenario: the recorded agent, scripted, to edit and serve.

The scenario holds the recorded card and one rule per recorded message exchange (send
or stream), in order. Each rule matches that message's text exactly, at its turn in
its task (so the answer to a question is told apart from a first message), and its
script plays what the agent did: the states with their messages, each artifact chunk,
a direct Message reply, a JSON-RPC error, an HTTP error, malformed data, heartbeat
comments, a dropped stream, and the pauses between them as ``delay`` steps.

A blocking send shows only the finished task, so its rule scripts the artifacts and the
final state after the recorded latency: a stream of it shows fewer states than the
agent may have gone through. Texts are written as templates with ``{`` and ``}``
doubled, so the scenario says exactly what the agent said.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any, TextIO

import yaml

from ..protocol import models as m
from ..protocol.card import decode_card
from ..protocol.errors import JsonRpcError, ProtocolError
from ..protocol.states import INTERRUPTED, TERMINAL
from .diff import exchanges
from .events import Event, Kind
from .exchange import RecordedExchange, body_bytes, parse_body
from .log import Session
from .tracker import TaskTracker

#: Pauses shorter than this are not scripted (they are the agent's own overhead).
MIN_DELAY = 0.01

_SETTLING = TERMINAL | INTERRUPTED


def _t(text: str) -> str:
    """Text as a scenario template that renders to itself."""
    return text.replace("{", "{{").replace("}", "}}")


def _content(parts: list[Any]) -> Any:
    """Message/artifact parts as scenario content: one text, or a list of parts."""
    if len(parts) == 1 and isinstance(parts[0], m.TextPart) and not parts[0].metadata:
        return _t(parts[0].text)
    out: list[Any] = []
    for p in parts:
        if isinstance(p, m.TextPart):
            item: dict[str, Any] = {"text": _t(p.text)}
        elif isinstance(p, m.DataPart):
            item = {"data": p.data}
        elif isinstance(p, m.FilePart):
            f = p.file
            spec = {
                k: v
                for k, v in (("name", f.name), ("mime_type", f.mime_type), ("bytes", f.bytes), ("uri", f.uri))
                if v is not None
            }
            if "bytes" in spec and "uri" in spec:
                spec.pop("uri")
            if "bytes" not in spec and "uri" not in spec:
                spec["bytes"] = ""
            item = {"file": spec}
        else:  # pragma: no cover - the model has no other part
            continue
        if getattr(p, "metadata", None):
            item["metadata"] = p.metadata
        out.append(item)
    return out


def _status_step(status: m.TaskStatus, final: bool | None) -> dict[str, Any]:
    step: dict[str, Any] = {"status": status.state.value}
    if status.message is not None and status.message.parts:
        step["message"] = _content(list(status.message.parts))
    if final is not None and final != (status.state in _SETTLING):
        step["final"] = final
    return step


def _artifact_step(art: m.Artifact, append: bool | None, last: bool | None, dialect: str | None) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    if art.artifact_id is not None:
        spec["id"] = art.artifact_id
    if art.index is not None and (dialect == "0.1" or art.artifact_id is None):
        spec["index"] = art.index
    if art.name is not None:
        spec["name"] = art.name
    if art.description is not None:
        spec["description"] = art.description
    content = _content(list(art.parts)) if art.parts else ""
    if isinstance(content, str):
        spec["text"] = content
    else:
        spec["parts"] = content
    if append:
        spec["append"] = True
    if last is not None:
        spec["last_chunk"] = last
    if art.metadata:
        spec["metadata"] = art.metadata
    return {"artifact": spec}


def _error_step(err: JsonRpcError) -> dict[str, Any]:
    spec: dict[str, Any] = {"code": err.code}
    if err.message:
        spec["message"] = err.message
    if err.data is not None:
        spec["data"] = err.data
    return {"error": spec}


def _delay(steps: list[dict[str, Any]], seconds: float) -> None:
    if seconds >= MIN_DELAY:
        steps.append({"delay": round(seconds, 3)})


def _script(ex: RecordedExchange) -> list[dict[str, Any]]:
    return list(_steps(ex))


def _steps(ex: RecordedExchange) -> Iterator[dict[str, Any]]:
    """The script of ``ex``, a step at a time (a stream of a million chunks is a million
    steps: never all in memory)."""
    if ex.response is None:
        yield {"drop": True}
        return
    steps = _stream_script(ex) if ex.response.data.get("streaming") else iter(_answer_script(ex))
    emitted = False
    for step in steps:
        yield step
        emitted = True
    if not emitted:
        yield {"end": True}


def _answer_script(ex: RecordedExchange) -> list[dict[str, Any]]:
    """The steps of a plain (not streamed) answer: one step after the recorded delay."""
    resp = ex.response
    assert resp is not None
    steps: list[dict[str, Any]] = []
    data = resp.data
    _delay(steps, resp.t - ex.request.t)
    payload = resp.payload
    status = data.get("status") or 0
    if isinstance(payload, JsonRpcError):
        steps.append(_error_step(payload))
    elif not 200 <= status < 300:
        raw = body_bytes(data) or b""
        steps.append(
            {
                "http": {
                    "status": status,
                    "body": raw.decode("utf-8", "replace"),
                    "content_type": data.get("content_type") or "text/plain; charset=utf-8",
                }
            }
        )
    elif isinstance(payload, m.Message):
        steps.append({"reply": _content(list(payload.parts)) if payload.parts else ""})
    elif isinstance(payload, m.Task):
        for art in payload.artifacts or []:
            steps.append(_artifact_step(art, None, None, ex.dialect))
        steps.append(_status_step(payload.status, None))
    elif isinstance(payload, ProtocolError):
        body = data.get("body")
        steps.append({"malformed": body if isinstance(body, str) else ""})
    return steps


def _stream_script(ex: RecordedExchange) -> Iterator[dict[str, Any]]:
    """The steps of a streamed answer, a step at a time: a step per event, the recorded
    delays between them, and how the stream ended."""
    assert ex.response is not None
    held: list[dict[str, Any]] = []  # delays, until a step comes after them
    last_t = ex.response.t
    first = True
    for event in ex.stream:
        _delay(held, event.t - last_t)
        last_t = event.t
        if event.kind is Kind.COMMENT:
            yield from held
            held = []
            yield {"heartbeat": {"every": 1, "for": 0, "comment": str(event.data.get("text") or "").strip()}}
            continue
        opening = first
        first = False
        step = _event_step(event, opening, ex.dialect)
        if step is not None:
            yield from held
            held = []
            yield step
            if "error" in step:
                break
    end = ex.end
    if end is not None:
        _delay(held, end.t - last_t)
        reason = end.data.get("reason")
        if reason in ("error", "timeout", "limit"):
            # Broken off, or cut by the client: the closest a script comes is a drop.
            yield from held
            yield {"drop": True}
        elif reason == "eof" and not end.data.get("terminal"):
            yield from held
            yield {"end": True}
    # A delay with nothing after it only holds the stream open: never yielded.


def _event_step(event: Event, opening: bool, dialect: str | None) -> dict[str, Any] | None:
    """The step that replays one SSE event (None: nothing to replay; ``opening``: the
    stream's first event)."""
    payload = event.payload
    if isinstance(payload, m.Task):
        # The mock opens every stream with the task as it stands (submitted).
        if not (opening and payload.status.state is m.TaskState.SUBMITTED):
            return _status_step(payload.status, None)
    elif isinstance(payload, m.TaskStatusUpdateEvent):
        if not (opening and payload.status.state is m.TaskState.SUBMITTED):  # 0.1 opens with it; so does the mock
            return _status_step(payload.status, payload.final)
    elif isinstance(payload, m.TaskArtifactUpdateEvent):
        art = payload.artifact
        append = payload.append if payload.append is not None else art.append
        last = payload.last_chunk if payload.last_chunk is not None else art.last_chunk
        return _artifact_step(art, append, last, dialect)
    elif isinstance(payload, m.Message):
        return {"reply": _content(list(payload.parts)) if payload.parts else ""}
    elif isinstance(payload, JsonRpcError):
        return _error_step(payload)
    elif isinstance(payload, ProtocolError):
        text = event.data.get("data")
        if isinstance(text, str):
            return {"malformed": text}
    return None


def _card(exs: list[RecordedExchange]) -> dict[str, Any]:
    for ex in exs:
        if ex.a2a_method != "card" or ex.response is None:
            continue
        if not 200 <= (ex.response.data.get("status") or 0) < 300:
            continue
        raw = parse_body(ex.response.data)
        try:
            card = decode_card(raw)
        except (ProtocolError, TypeError, ValueError):
            continue
        out = card.wire()
        # The mock fills these in with its own address and the dialects it serves.
        for key in (
            "url",
            "hubBridge",
            "supportedInterfaces",
            "additionalInterfaces",
            "preferredTransport",
            "protocolVersion",
        ):
            out.pop(key, None)
        return out
    return {
        "name": "Recorded agent",
        "description": "exported from a recording without a card",
        "capabilities": {"streaming": True},
        "skills": [],
    }


def _plan(session: Session) -> tuple[list[RecordedExchange], dict[str, int], list[Any], list[str]]:
    """(exchanges, send/stream exchanges per dialect, the rules' (head, exchange) in
    order, notes). A rule's head is its name and when; its script is _steps(exchange),
    made when it is written."""
    tracker = TaskTracker(session)
    exs = exchanges(session.events)
    notes: list[str] = []
    turns: dict[str, int] = {}
    rules: list[Any] = []
    seen: dict[tuple[str, int, str | None], int] = {}
    dialects: dict[str, int] = {}
    for ex in exs:
        if ex.a2a_method not in ("send", "stream"):
            continue
        if ex.dialect:
            dialects[ex.dialect] = dialects.get(ex.dialect, 0) + 1
        view = tracker.exchanges.get(ex.number)
        task_id = view.task_id if view is not None else None
        turn = 1
        if task_id is not None:
            turn = turns[task_id] = turns.get(task_id, 0) + 1
        text = ex.text()
        key = (text, turn, None)
        method_key = (text, turn, ex.a2a_method)
        if key in seen or method_key in seen:
            first = seen.get(method_key, seen.get(key))
            notes.append(
                f"exchange #{ex.number} sends the same text at the same turn as #{first}; only the first is scripted"
            )
            continue
        seen[key] = seen[method_key] = ex.number
        when: dict[str, Any] = {"text": "^" + re.escape(text) + "$", "turn": turn}
        rules.append(({"name": f"exchange {ex.number}: {ex.a2a_method} {text[:40]!r}", "when": when}, ex))
    return exs, dialects, rules, notes


def _head(
    name: str | None, source: str | None, dialects: dict[str, int], exs: list[RecordedExchange]
) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "name": name or "recorded",
        "description": f"Exported from {source or 'a recording'} by a2a-inspect: one rule per recorded message.",
    }
    if dialects:
        doc["dialect"] = max(dialects, key=lambda d: dialects[d])
        if doc["dialect"] not in ("0.1", "0.3", "1.0"):
            doc["dialect"] = "0.3"
    doc["card"] = _card(exs)
    return doc


FALLBACK = [
    {"status": "failed", "message": "a2a-mock: this message is not one the recording holds (edit the scenario's rules)"}
]
NO_RULES = "the recording holds no send or stream exchange: the scenario has no rules"


def to_scenario(
    session: Session, *, name: str | None = None, source: str | None = None
) -> tuple[dict[str, Any], list[str]]:
    """(the scenario as a document, notes on what could not be scripted exactly). Holds
    every step: for big recordings, write_scenario writes them a few at a time."""
    exs, dialects, rules, notes = _plan(session)
    doc = _head(name, source, dialects, exs)
    doc["rules"] = [{**head, "script": _script(ex)} for head, ex in rules]
    doc["fallback"] = FALLBACK
    if not rules:
        notes.append(NO_RULES)
    return doc, notes


def dump_yaml(doc: dict[str, Any]) -> str:
    return yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=100, default_flow_style=False)


def scenario_yaml(session: Session, *, name: str | None = None, source: str | None = None) -> tuple[str, list[str]]:
    doc, notes = to_scenario(session, name=name, source=source)
    return _banner(source) + dump_yaml(doc), notes


def _banner(source: str | None) -> str:
    return f"# a2a-mock scenario exported from {source or 'a recording'} by a2a-inspect\n"


#: Steps checked at a time by write_scenario.
CHECK_STEPS = 2000


def write_scenario(
    session: Session,
    out: TextIO,
    *,
    name: str | None = None,
    source: str | None = None,
    check: Callable[[str], list[str]] | None = None,
) -> tuple[list[str], list[str]]:
    """``scenario_yaml``'s text written to ``out`` a step at a time: memory stays
    bounded whatever the recording's size. ``check`` (a2a-mock's loader, given by the
    caller: the session layer does not import the mock) gets the text in pieces of a few
    thousand steps, each with the scenario's head and fallback as the file has them.
    Returns (notes, the problems ``check`` found, each naming a rule near it)."""
    exs, dialects, rules, notes = _plan(session)
    head = _banner(source) + dump_yaml(_head(name, source, dialects, exs))
    tail = dump_yaml({"fallback": FALLBACK})
    out.write(head)
    problems: list[str] = []
    if not rules:
        out.write(dump_yaml({"rules": []}) + tail)
        notes.append(NO_RULES)
        if check is not None:
            problems += check(head + dump_yaml({"rules": []}) + tail)
        return notes, problems
    out.write("rules:\n")
    probe: list[str] = []  # the rules' text since the last check
    steps = 0
    number = 0
    opening: str | None  # the rule's head, until it goes into probe
    for number, (rule_head, ex) in enumerate(rules, 1):
        # At the columns the whole document has them, so long strings fold alike.
        opening = dump_yaml({"rules": [rule_head]}).removeprefix("rules:\n") + "  script:\n"
        out.write(opening)
        reopen = opening  # a piece checked on its own starts with its rule's head
        for step in _steps(ex):
            text = dump_yaml({"rules": [{"script": [step]}]}).removeprefix("rules:\n- script:\n")
            out.write(text)
            if check is None:
                continue
            if opening is not None:
                probe.append(opening)
                opening = None
            probe.append(text)
            steps += 1
            if steps >= CHECK_STEPS:
                problems += [f"near rule {number}: {p}" for p in check(head + "rules:\n" + "".join(probe) + tail)]
                probe, steps, opening = [], 0, reopen
        if len(problems) > 10:
            break
    if probe and check is not None:
        problems += [f"near rule {number}: {p}" for p in check(head + "rules:\n" + "".join(probe) + tail)]
    out.write(tail)
    return notes, problems
