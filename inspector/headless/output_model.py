"""The documents ``-o json`` prints, as pydantic models: the source of
docs/output.schema.json (scripts/gen_output_schema.py) and of docs/output.md's promises.

The commands build their documents as plain dicts (inspector/headless/commands.py,
replay_cmd.py); tests/test_output_schema.py checks that real output validates against
the schema made from these models, so the two cannot drift apart unnoticed. Our own
objects forbid keys the model does not name; the A2A objects inside them (tasks,
messages, parts, the card) are the agent's, in the 0.3 spelling with their ``kind``,
and stay open.

``formatVersion`` (``FORMAT_VERSION``) changes only when a document changes in a way an
existing script could trip on (a key removed, renamed or given another type); new keys
do not change it.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter
from pydantic.alias_generators import to_camel

from .output import FORMAT_VERSION

A2AObject = dict[str, Any]


class _Doc(BaseModel):
    model_config = ConfigDict(extra="forbid", alias_generator=to_camel, populate_by_name=True)


class Version(_Doc):
    # Literal[FORMAT_VERSION]; tests/test_output_schema.py checks the two agree.
    format_version: Literal[1] = Field(
        description="The version of this document's shape; changes only on an incompatible change."
    )


class Violation(_Doc):
    """Something the agent did that the A2A specification forbids (docs/violations.md)."""

    code: str = Field(description="The violation's code, e.g. illegal-transition (docs/violations.md).")
    severity: Literal["error", "warning"]
    message: str
    seq: int | None = Field(description="The session event it was seen on.")
    task_id: str | None


class Remark(_Doc):
    """A word about a task that is not a state change: from the agent, or the client's
    own that it stopped reading the task's stream at a limit."""

    kind: Literal["late", "error", "cut"] = Field(
        description="late: a status older than the task's state; error: a JSON-RPC error that ended a call; "
        "cut: the stream that followed the task was cut at one of the client's limits (text: "
        "which, in its words)."
    )
    seq: int
    t: float = Field(description="Seconds since the session started.")
    state: str | None
    text: str
    code: int | None = Field(None, description="kind error: the JSON-RPC error code.")
    message: str | None = Field(None, description="kind error: the JSON-RPC error message.")
    data: Any = Field(None, description="kind error: the JSON-RPC error data, as sent.")


class Artifact(_Doc):
    """An artifact as assembled from its chunks (or taken from a task snapshot)."""

    artifact_id: str | None
    index: int | None = Field(description="0.1 draft artifacts are numbered instead of named by id.")
    name: str | None
    description: str | None
    parts: list[A2AObject] = Field(description="A2A parts in the 0.3 spelling (kind text, file or data).")
    text: str = Field(description="The text parts joined.")
    chunks: int = Field(description="How many chunks it arrived in (0: from a task snapshot).")
    closed: bool = Field(description="Whether its last chunk (lastChunk) arrived.")
    metadata: dict[str, Any] | None = Field(
        None, description="The artifact's metadata as the agent sent it (the latest chunk's or snapshot's)."
    )


class Transition(_Doc):
    state: str
    t: float = Field(description="Seconds since the session started.")


class Task(_Doc):
    """What the session saw of one task, assembled from every response and event."""

    id: str
    context_id: str | None
    state: str | None = Field(description="The A2A task state (submitted, working, completed, ...).")
    status_message: A2AObject | None = Field(description="The latest status message (an A2A Message).")
    artifacts: list[Artifact]
    history: list[A2AObject] = Field(description="The task's messages (A2A Messages), oldest first.")
    timeline: list[Transition] = Field(description="Every state the task went through, in order.")
    remarks: list[Remark]
    error: Remark | None = Field(description="The agent's latest JSON-RPC error about the task, if any.")
    metadata: dict[str, Any] | None = Field(
        None,
        description="The task's metadata as the agent sent it in its latest Task (e.g. Society AI's "
        "requester, executor, skill_used, cost); null when no Task carried any.",
    )


class Error(_Doc):
    """Why the command did not get an answer: a JSON-RPC error, a response that is not
    A2A, or a transport failure."""

    type: str = Field(description="rpc, protocol, or the transport failure: connect, timeout, http, limit, ...")
    message: str
    code: int | None = Field(None, description="type rpc: the JSON-RPC error code.")
    data: Any = Field(None, description="type rpc: the JSON-RPC error data, as sent.")
    path: str | None = Field(None, description="type protocol: where in the document the problem is.")
    http_status: int | None = Field(
        None, description="type http, and type rpc from an HTTP+JSON error body: the response's HTTP status."
    )
    status: str | None = Field(None, description="type rpc from an HTTP+JSON error body: its google.rpc.Code name.")
    reason: str | None = Field(None, description="type rpc from an HTTP+JSON error body: its ErrorInfo reason.")
    detail: str | None = Field(
        None,
        description="type http: what the error response's body says went wrong, as the agent wrote it: "
        "its first lines, at most 240 characters, ending in … when cut (also at the end "
        "of message). Absent when the body says nothing readable (empty, HTML, binary).",
    )
    hint: str | None = Field(
        None,
        description="A likely cause, when a2a-inspect has one: the --binding or --dialect chosen is not "
        "in the card, so the endpoint was a guess.",
    )


class ResultDoc(Version):
    """send, get, cancel, resubscribe: the task (or the direct message reply) the call ended with."""

    model_config = ConfigDict(title="Result")

    task: Task | None
    message: A2AObject | None = Field(description="A direct Message reply (A2A Message), if the agent sent one.")
    violations: list[Violation]
    error: Error | None
    notice: str | None = Field(
        None,
        description=(
            "What the state alone does not say: a cancel the agent did not carry out (exit 1), or a "
            "task still submitted or working after the command, with the command line that follows it."
        ),
    )
    exit_code: int = Field(description="The command's exit code (README: exit codes).")


class Finding(_Doc):
    severity: Literal["error", "warning", "info"]
    code: str = Field(description="The lint code (docs/lint.md).")
    path: str = Field(description="Where in the card, as a JSON path ($.skills[0].id).")
    message: str


class CardDoc(Version):
    """card: the agent card as served, with the lint findings."""

    model_config = ConfigDict(title="Card")

    card_url: str | None
    dialect: str | None = Field(description="The A2A dialect detected (0.1, 0.3, 1.0), or null if none answered.")
    endpoint: str | None
    binding: str | None = Field(description="The transport binding chosen (jsonrpc, rest, grpc), or null.")
    binding_reason: str | None = Field(description="Why that binding: the card's interfaces, or the user's choice.")
    card: Any = Field(description="The card exactly as served (parsed JSON).")
    findings: list[Finding]


class TaskListDoc(Version):
    """list: one page of tasks (ListTasksResult in the 0.3 spelling)."""

    model_config = ConfigDict(title="TaskList", extra="allow")

    tasks: list[A2AObject] = Field(description="A2A Tasks in the 0.3 spelling.")
    next_page_token: str | None = None
    page_size: int | None = None
    total_size: int | None = None


class Problem(_Doc):
    line: int
    message: str


class DiffDoc(Version):
    """replay FILE --against URL: the recording re-sent to a live agent, exchange by exchange."""

    model_config = ConfigDict(title="Diff")

    against: str
    equivalent: bool
    compared: int
    differ: int
    transport_error: str | None
    notes: list[str]
    exchanges: list[dict[str, Any]] = Field(
        description="One per re-sent exchange: exchange, liveExchange, method, text, same, differences, recorded, live."
    )
    recording: str
    problems: list[Problem] = Field(description="Lines of the recording that could not be read.")


#: Every document ``-o json`` prints (push prints the A2A objects as they are: see docs/output.md).
OutputDoc = ResultDoc | CardDoc | TaskListDoc | DiffDoc


def json_schema() -> dict[str, Any]:
    """The JSON Schema of every ``-o json`` document (docs/output.schema.json)."""
    schema = TypeAdapter(OutputDoc).json_schema(by_alias=True)
    for model in schema["$defs"].values():
        for prop in model.get("properties", {}).values():
            prop.pop("title", None)  # "Artifactid": pydantic's, from the alias; says nothing
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "a2a-inspect -o json output",
        "description": f"What a2a-inspect prints with -o json (formatVersion {FORMAT_VERSION}); see docs/output.md.",
        **schema,
    }
