"""The client's side of an exchange, judged: what a client sent that the spec does not
allow. Each finding becomes a NOTE with its code (``side: client``), which the tracker
turns into a violation, like the agent's (docs/violations.md, "Clients").

Only what is certain is raised: a request the proxy cannot read as A2A at all (a plain
GET, an unknown method) is relayed without a word.
"""

from __future__ import annotations

from typing import Any

from ..protocol import models as m
from ..protocol.bindings import JSONRPC, REST
from .detect import Parsed

#: Message-carrying methods (their params hold ``message``).
_SENDS = ("send", "stream")


def check_request(
    parsed: Parsed, headers: dict[str, str], params: Any, tracker: Any
) -> list[tuple[str, str, str | None]]:
    """``headers``: lower-case names; ``params``: the decoded params (None when they do
    not decode); ``tracker``: the tasks so far (for continuations)."""
    info = parsed.info
    out: list[tuple[str, str, str | None]] = []
    binding = info.get("binding")
    if binding == JSONRPC and (parsed.not_json is not None or parsed.body is not None):
        problem = envelope_problem(parsed)
        if problem is not None:
            out.append(("client-bad-envelope", f"the client's JSON-RPC request {problem}", None))
    if info.get("dialect") == "1.0" and binding in (JSONRPC, REST) and info.get("a2a_method"):
        version = (headers.get("a2a-version") or "").strip()
        if version != "1.0" and not (version.startswith("1.") and version[2:].isdigit()):
            said = f"A2A-Version: {version}" if version else "no A2A-Version header"
            what = info.get("rpc_method") or info.get("route")
            out.append(
                (
                    "client-no-version",
                    f"the client sent the 1.0 request {what} with {said} (an agent takes a request without it as 0.3)",
                    None,
                )
            )
    if info.get("a2a_method") in _SENDS:
        raw_message = _raw_message(parsed)
        # ProtoJSON leaves an empty repeated field out (and 0.3 names it content): over
        # gRPC, the decoded message tells.
        if binding == "grpc":
            empty = isinstance(params, m.SendParams) and not params.message.parts
        else:
            empty = isinstance(raw_message, dict) and raw_message.get("parts") == []
        if empty:
            out.append(("client-empty-parts", "the client sent a message with an empty parts list", None))
        if isinstance(params, m.SendParams):
            msg = params.message
            if not msg.task_id and msg.context_id:
                waiting = _waiting_in(tracker, msg.context_id)
                if waiting is not None:
                    out.append(
                        (
                            "client-continuation-without-task",
                            f"the client answered in context {msg.context_id}, where task {waiting.id} waits "
                            f"({waiting.state.value}), without naming the task: the agent may start a new one",
                            waiting.id,
                        )
                    )
    return out


def envelope_problem(parsed: Parsed) -> str | None:
    """What is wrong with a JSON-RPC 2.0 request object, or None."""
    if parsed.not_json is not None:
        return f"is not JSON ({parsed.not_json})"
    obj = parsed.body
    if isinstance(obj, list):
        return "is a batch (A2A requests are single objects)"
    if not isinstance(obj, dict):
        return "is not a JSON object"
    if obj.get("jsonrpc") != "2.0":
        return f'has jsonrpc {obj.get("jsonrpc")!r}, not "2.0"'
    if not isinstance(obj.get("method"), str):
        return "has no method name"
    if "id" in obj:
        rid = obj["id"]
        if isinstance(rid, bool) or not isinstance(rid, (str, int, type(None))):
            return f"has an id of type {type(rid).__name__} (a string or an integer is expected)"
    if "params" in obj and not isinstance(obj["params"], (dict, list)):
        return "has params that are neither an object nor an array"
    return None


def _raw_message(parsed: Parsed) -> Any:
    body = parsed.body
    if not isinstance(body, dict):
        return None
    if parsed.info.get("binding") in (REST, "grpc"):
        return body.get("message")
    params = body.get("params")
    return params.get("message") if isinstance(params, dict) else None


def _waiting_in(tracker: Any, context_id: str) -> Any:
    """The newest task of ``context_id`` that waits for the client's answer."""
    found = None
    # The context's own tasks (in_context): a pass over every task the session has seen
    # cost each such request more the longer the proxy ran.
    for task in tracker.in_context(context_id):
        if task.state in (m.TaskState.INPUT_REQUIRED, m.TaskState.AUTH_REQUIRED):
            found = task
    return found
