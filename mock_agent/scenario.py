"""The scenario file's model: an agent card plus rules, each with a script of steps.

Validated once by pydantic when a file loads; the engine then compiles it into plain
objects, so nothing here runs per request. Field names are snake_case; the few that
mirror a wire field (``last_chunk``, ``artifact_id``, ``mime_type``, ``content_type``)
also accept the wire's camelCase, because people paste from captures.

Union members are tagged ``<name>``: the loader drops such tags from error locations,
so a message names the field the user wrote, not pydantic's branch label.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal, Union

from pydantic import (
    AliasChoices,
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    field_validator,
    model_validator,
)

from inspector.protocol import grpc_errors
from inspector.protocol.models import AgentCard, TaskState

from . import matching, template

_STRICT = ConfigDict(extra="forbid", populate_by_name=True)


def _alias(*names: str) -> Any:
    return Field(default=None, validation_alias=AliasChoices(*names))


# ---------------------------------------------------------------- content (parts)


class FileSpec(BaseModel):
    """A file part's content: exactly one of ``bytes`` (base64) or ``uri``."""

    model_config = _STRICT
    name: str | None = None
    mime_type: str | None = _alias("mime_type", "mimeType", "media_type", "mediaType")
    bytes: str | None = None
    uri: str | None = _alias("uri", "url")

    @model_validator(mode="after")
    def _one_source(self) -> FileSpec:
        if (self.bytes is None) == (self.uri is None):
            raise ValueError("a file needs exactly one of bytes (base64 text) or uri")
        return self


class PartSpec(BaseModel):
    """One part: exactly one of ``text`` (a template), ``data`` or ``file``."""

    model_config = _STRICT
    text: str | None = None
    data: Any = None
    file: FileSpec | None = None
    #: Text only: the rendered text repeated this many times (for large payloads).
    repeat: int = Field(default=1, ge=1, le=100_000_000)
    metadata: dict[str, Any] | None = None

    @model_validator(mode="after")
    def _one_kind(self) -> PartSpec:
        given = [k for k in ("text", "data", "file") if k in self.model_fields_set]
        if len(given) != 1:
            raise ValueError(
                "a part needs exactly one of text, data or file" + (f" (got {', '.join(given)})" if given else "")
            )
        if self.repeat != 1 and self.text is None:
            raise ValueError("repeat applies to text parts only")
        return self


def _kind_of_part(value: Any) -> str:
    return "<text>" if isinstance(value, str) else "<part>"


#: A bare string is shorthand for a text part.
PartLike = Annotated[
    Union[Annotated[str, Tag("<text>")], Annotated[PartSpec, Tag("<part>")]],
    Discriminator(_kind_of_part),
]


def _kind_of_content(value: Any) -> str:
    return "<parts>" if isinstance(value, list) else "<text>"


#: A message's content: one text (a template) or a list of parts.
Content = Annotated[
    Union[Annotated[str, Tag("<text>")], Annotated[list[PartLike], Tag("<parts>")]],
    Discriminator(_kind_of_content),
]


# --------------------------------------------------------------------------- steps


class StatusStep(BaseModel):
    """Move the task to a state, optionally with an agent message."""

    model_config = _STRICT
    status: TaskState
    message: Content | None = None
    #: Override the stream's ``final`` flag (0.1-0.3), e.g. to test a client that
    #: trusts it. Default: true for terminal and input/auth-required states.
    final: bool | None = None
    metadata: dict[str, Any] | None = None


class ArtifactSpec(BaseModel):
    model_config = _STRICT
    artifact_id: str | None = _alias("artifact_id", "artifactId", "id")
    #: The 0.1 draft identifies artifacts by index; defaults to the order of first use.
    index: int | None = Field(default=None, ge=0)
    name: str | None = None
    description: str | None = None
    #: Shorthand for ``parts: [text]``.
    text: str | None = None
    parts: list[PartLike] | None = None
    append: bool | None = None
    last_chunk: bool | None = _alias("last_chunk", "lastChunk")
    metadata: dict[str, Any] | None = None

    @model_validator(mode="after")
    def _has_content(self) -> ArtifactSpec:
        if (self.text is None) == (self.parts is None):
            raise ValueError("an artifact needs exactly one of text or parts")
        return self


class ArtifactStep(BaseModel):
    """Send one artifact, or one chunk of it (``append``/``last_chunk``)."""

    model_config = _STRICT
    artifact: ArtifactSpec


class ChunksSpec(BaseModel):
    model_config = _STRICT
    artifact_id: str | None = _alias("artifact_id", "artifactId", "id")
    index: int | None = Field(default=None, ge=0)
    name: str | None = None
    description: str | None = None
    #: Each chunk's text, in order ...
    texts: list[str] | None = None
    #: ... or one template rendered ``count`` times with ``{i}`` (from 0) and ``{n}``.
    text: str | None = None
    count: int | None = Field(default=None, ge=1, le=1_000_000)
    #: Each chunk's rendered text repeated this many times (for large payloads).
    repeat: int = Field(default=1, ge=1, le=100_000_000)
    #: Seconds between chunks.
    delay: float = Field(default=0.0, ge=0)
    metadata: dict[str, Any] | None = None

    @model_validator(mode="after")
    def _has_chunks(self) -> ChunksSpec:
        if self.texts is not None:
            if self.text is not None or self.count is not None:
                raise ValueError("give either texts, or text with count, not both")
            if not self.texts:
                raise ValueError("texts must list at least one chunk")
        elif self.text is None or self.count is None:
            raise ValueError("chunks need texts, or text with count")
        return self


class ChunksStep(BaseModel):
    """Stream one artifact in pieces: the first chunk starts it, the rest append,
    the last one carries ``last_chunk``."""

    model_config = _STRICT
    chunks: ChunksSpec


class DelayStep(BaseModel):
    """Wait this many seconds (scaled by the server's time scale)."""

    model_config = _STRICT
    delay: float = Field(ge=0, le=86_400)


class HoldStep(BaseModel):
    """Keep the task where it is until it is released (``MockAgent.release(NAME)``), it
    is canceled, or ``timeout`` seconds pass (scaled like a delay); with ``until:
    message``, also until a follow-up message arrives on the task. Makes a test's timing
    deterministic: the task is surely still running while the test acts on it."""

    model_config = _STRICT
    #: The gate's name: a test releases every task waiting at it at once.
    hold: str = Field(min_length=1)
    timeout: float | None = Field(default=None, gt=0, le=86_400)
    #: ``message``: a message sent to the task while it waits here goes on the task's
    #: history and lets it go on ({text} is then that message's text).
    until: Literal["message"] | None = None


class AskStep(BaseModel):
    """Stop in input-required (or auth-required) with a question. The next message on
    the task runs ``then``; without ``then`` it goes through the rules again."""

    model_config = _STRICT
    ask: Content
    state: Literal["input-required", "auth-required"] = "input-required"
    then: list[Step] | None = None
    metadata: dict[str, Any] | None = None


class ReplyStep(BaseModel):
    """Answer with a Message instead of a task: no task is kept for this turn."""

    model_config = _STRICT
    reply: Content
    metadata: dict[str, Any] | None = None


class ErrorSpec(BaseModel):
    model_config = _STRICT
    code: int
    #: Defaults to the dialect's name for the code.
    message: str | None = None
    data: Any = None

    @model_validator(mode="before")
    @classmethod
    def _shorthand(cls, value: Any) -> Any:
        return {"code": value} if isinstance(value, int) and not isinstance(value, bool) else value


class ErrorStep(BaseModel):
    """Answer with a JSON-RPC error (in a stream: an error event, then the end)."""

    model_config = _STRICT
    error: ErrorSpec


class HttpSpec(BaseModel):
    model_config = _STRICT
    status: int = Field(ge=100, le=599)
    body: str = ""
    #: Default: text/plain; charset=utf-8.
    content_type: str | None = _alias("content_type", "contentType")
    headers: dict[str, str] | None = None
    #: Over gRPC: end the call with this status (a name such as UNAVAILABLE, or 0-16)
    #: instead of the one a gRPC client reports for the HTTP status.
    grpc: str | int | None = None

    @model_validator(mode="before")
    @classmethod
    def _shorthand(cls, value: Any) -> Any:
        return {"status": value} if isinstance(value, int) and not isinstance(value, bool) else value

    @field_validator("grpc")
    @classmethod
    def _grpc_status(cls, value: Any) -> Any:
        if value is not None:
            grpc_errors.code_of(value)  # ValueError names the codes
        return value


class HttpStep(BaseModel):
    """Answer with this HTTP status and body. In a stream that has already started,
    the connection is dropped instead (the status line has gone). Over gRPC: the
    call ends with ``grpc`` (else the status a gRPC client reports for this HTTP
    status), the body as its message, even mid-stream."""

    model_config = _STRICT
    http: HttpSpec


class MalformedStep(BaseModel):
    """Send these bytes where JSON was due: the whole body, or one SSE event's data."""

    model_config = _STRICT
    malformed: str


class DropStep(BaseModel):
    """Close the connection mid-response. The script goes on, so a client that
    resubscribes sees the rest."""

    model_config = _STRICT
    drop: Literal[True]


class HeartbeatSpec(BaseModel):
    model_config = _STRICT
    every: float = Field(gt=0)
    for_: float = Field(ge=0, validation_alias=AliasChoices("for", "duration"), alias="for")
    comment: str = "heartbeat"


class HeartbeatStep(BaseModel):
    """Send SSE comment lines every ``every`` seconds for ``for`` seconds."""

    model_config = _STRICT
    heartbeat: HeartbeatSpec


class EndStep(BaseModel):
    """End the stream here, without a final event; the task keeps its state."""

    model_config = _STRICT
    end: Literal[True]


class Branch(BaseModel):
    model_config = _STRICT
    weight: float = Field(default=1.0, gt=0)
    script: list[Step] = Field(min_length=1)


class OneOfStep(BaseModel):
    """Run one branch, picked at random by weight from the scenario's seeded RNG."""

    model_config = _STRICT
    one_of: list[Branch] = Field(min_length=1)


STEP_TYPES: dict[str, type[BaseModel]] = {
    "status": StatusStep,
    "artifact": ArtifactStep,
    "chunks": ChunksStep,
    "delay": DelayStep,
    "hold": HoldStep,
    "ask": AskStep,
    "reply": ReplyStep,
    "error": ErrorStep,
    "http": HttpStep,
    "malformed": MalformedStep,
    "drop": DropStep,
    "heartbeat": HeartbeatStep,
    "end": EndStep,
    "one_of": OneOfStep,
}
_STEP_KEY_OF = {cls: key for key, cls in STEP_TYPES.items()}


def _step_tag(value: Any) -> str | None:
    key: str | None
    if isinstance(value, dict):
        for key in STEP_TYPES:
            if key in value:
                return f"<{key}>"
        return None
    key = _STEP_KEY_OF.get(type(value))
    return f"<{key}>" if key else None


if TYPE_CHECKING:
    # STEP_TYPES's classes spelled out: the type checker cannot read the union built
    # below from the dict. Keep the two in step.
    Step = Union[
        StatusStep,
        ArtifactStep,
        ChunksStep,
        DelayStep,
        HoldStep,
        AskStep,
        ReplyStep,
        ErrorStep,
        HttpStep,
        MalformedStep,
        DropStep,
        HeartbeatStep,
        EndStep,
        OneOfStep,
    ]
else:
    Step = Annotated[
        Union[tuple(Annotated[cls, Tag(f"<{key}>")] for key, cls in STEP_TYPES.items())],
        Discriminator(
            _step_tag,
            custom_error_type="step",
            custom_error_message="a step is a mapping with one of: " + ", ".join(STEP_TYPES),
        ),
    ]


def step_kind(step: BaseModel) -> str:
    return _STEP_KEY_OF[type(step)]


# --------------------------------------------------------------------------- framing


class FramingSpec(BaseModel):
    """How streams are cut into writes and lines (framing.py's Framer): realistic by
    default, with the variations a client's SSE parser must survive on request."""

    model_config = _STRICT
    #: per-event: each event its own write, as real servers send; buffered: what is
    #: ready goes out in one write (several events per read).
    writes: Literal["per-event", "buffered"] = "per-event"
    #: Cut every write into pieces of this many bytes (1: byte by byte).
    split: int | None = Field(default=None, ge=1, le=1_048_576)
    line_endings: Literal["crlf", "lf", "cr"] = "crlf"
    #: A comment line before each field of an event and before its closing blank line.
    comments: bool = False


# --------------------------------------------------------------------------- faults outside scripts


#: The methods an error may be recoded for (inspector.protocol.methods.Method's values).
RecodeMethod = Literal[
    "send",
    "stream",
    "get",
    "cancel",
    "resubscribe",
    "list",
    "push-set",
    "push-get",
    "push-list",
    "push-delete",
    "extended-card",
]


class Recode(BaseModel):
    """Answer an error the mock raises itself (a task not found, not cancelable, a
    request it refuses) with another code, as agents that map every failure to one
    error do."""

    model_config = _STRICT
    #: The error the mock would answer ...
    code: int
    #: ... to one of these methods (default: any, and requests naming no known method).
    methods: list[RecodeMethod] | None = Field(default=None, min_length=1)
    #: ... is answered with this instead (an int is shorthand for ``{code: N}``).
    as_: ErrorSpec = Field(validation_alias=AliasChoices("as"), alias="as")


# --------------------------------------------------------------------------- rules


class Match(BaseModel):
    """Every condition given must hold; none given matches everything."""

    model_config = _STRICT
    #: Regex searched in the user's text; named groups become template variables.
    text: str | None = None
    #: The message has at least one part of this kind.
    part: Literal["text", "file", "data"] | None = None
    #: The skill named in metadata (skill, skillId, skill_id, skill_used).
    skill: str | None = None
    #: The turn number within the task, from 1.
    turn: int | None = Field(default=None, ge=1)
    method: Literal["send", "stream"] | None = None
    dialect: Literal["0.1", "0.3", "1.0"] | None = None

    @field_validator("text")
    @classmethod
    def _regex(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                matching.compile_pattern(value)
            except matching.error as exc:
                raise ValueError(f"not a valid regular expression: {exc}") from None
        return value


class Rule(BaseModel):
    model_config = _STRICT
    name: str | None = None
    when: Match = Field(default_factory=Match)
    script: list[Step] = Field(min_length=1)


class Scenario(BaseModel):
    model_config = _STRICT
    name: str | None = None
    description: str | None = None
    #: The dialect to serve when neither --dialect nor a profile says.
    dialect: Literal["0.1", "0.3", "1.0", "all"] | None = None
    #: The agent card, in the 0.2/0.3 spelling. ``url`` and the interfaces are
    #: filled in with the address the mock is actually serving on.
    card: AgentCard
    #: Returned by the extended-card method; without it that method answers the
    #: dialect's "not configured" error.
    extended_card: AgentCard | None = None
    rules: list[Rule] = Field(default_factory=list)
    #: Runs when no rule matches. Default: the task fails, naming the scenario.
    fallback: list[Step] | None = None
    #: Seeds the RNG behind ``one_of``, so "random" faults repeat run after run.
    seed: int | None = None
    #: Seconds of stream silence after which a ``: heartbeat`` comment is sent.
    heartbeat: float | None = Field(default=None, gt=0)
    #: Largest request body accepted, in bytes (default 1 MiB).
    max_body: int | None = Field(default=None, gt=0)
    #: Take requests the spec does not allow (no messageId, empty parts, page sizes out
    #: of range, ...) instead of refusing them; ``--lenient`` says the same.
    lenient: bool | None = None
    #: Say on the card (a capabilities extension) whether requests are checked strictly
    #: (default true; the demo's card leaves it out to look like any agent's).
    mode_on_card: bool | None = None
    #: How many tasks the mock keeps (newest first; default 1,000).
    max_tasks: int | None = Field(default=None, ge=1, le=10_000_000)
    #: How streams are written: per event (default), buffered, or with framing faults.
    framing: FramingSpec | None = None
    #: What a cancel of a running task does: ``cancel`` (default) ends it canceled;
    #: ``ignore`` answers the task as it is and lets it go on; ``pretend`` answers it
    #: canceled and lets it go on (its store, a get, a stream still say it runs).
    cancel: Literal["cancel", "ignore", "pretend"] = "cancel"
    #: Errors answered with another code (first match wins).
    recode: list[Recode] = Field(default_factory=list)


AskStep.model_rebuild()
Branch.model_rebuild()
Scenario.model_rebuild()


# ---------------------------------------------------------------- JSON Schema


def json_schema() -> dict[str, Any]:
    """The scenario file's JSON Schema, listing every accepted spelling of a field (pydantic
    puts only the first of several alias choices in the schema)."""
    out = Scenario.model_json_schema()
    defs = out.get("$defs", {})
    for cls in (FileSpec, ArtifactSpec, ChunksSpec, HttpSpec, HeartbeatSpec):
        entry = defs.get(cls.__name__)
        if entry is None:
            continue
        for info in cls.model_fields.values():
            alias = info.validation_alias
            if not isinstance(alias, AliasChoices):
                continue
            choices = [c for c in alias.choices if isinstance(c, str)]
            shown = next((c for c in choices if c in entry["properties"]), None)
            if shown is None:
                continue
            for other in choices:
                entry["properties"].setdefault(other, entry["properties"][shown])
    return out


# ---------------------------------------------------------------- semantic checks


def template_problems(scenario: Scenario) -> list[tuple[tuple[Any, ...], str]]:
    """Templates naming variables that will never be set: ``(location, message)``."""
    problems: list[tuple[tuple[Any, ...], str]] = []
    for r, rule in enumerate(scenario.rules):
        groups = set(matching.compile_pattern(rule.when.text).groupindex) if rule.when.text else set()
        _check_script(rule.script, ("rules", r, "script"), set(template.BUILTIN_VARS) | groups, problems)
    if scenario.fallback:
        _check_script(scenario.fallback, ("fallback",), set(template.BUILTIN_VARS), problems)
    return problems


def _check_script(
    steps: list[Any], loc: tuple[Any, ...], known: set[str], out: list[tuple[tuple[Any, ...], str]]
) -> None:
    for i, step in enumerate(steps):
        here = loc + (i,)
        for sub, text in _templates(step):
            try:
                names = template.names(text)
            except template.TemplateError as exc:
                out.append((here + sub, str(exc)))
                continue
            allowed = known | (set(template.CHUNK_VARS) if isinstance(step, ChunksStep) else set())
            for name in names:
                if name not in allowed:
                    out.append(
                        (here + sub, f"unknown template variable {{{name}}}; known: " + ", ".join(sorted(allowed)))
                    )
        if isinstance(step, AskStep) and step.then:
            _check_script(step.then, here + ("then",), known, out)
        if isinstance(step, OneOfStep):
            for b, branch in enumerate(step.one_of):
                _check_script(branch.script, here + ("one_of", b, "script"), known, out)


def _content_templates(content: Any, loc: tuple[Any, ...]) -> list[tuple[tuple[Any, ...], str]]:
    if content is None:
        return []
    if isinstance(content, str):
        return [(loc, content)]
    out = []
    for i, part in enumerate(content):
        if isinstance(part, str):
            out.append((loc + (i,), part))
        elif part.text is not None:
            out.append((loc + (i, "text"), part.text))
    return out


def _templates(step: Any) -> list[tuple[tuple[Any, ...], str]]:
    if isinstance(step, StatusStep):
        return _content_templates(step.message, ("message",))
    if isinstance(step, AskStep):
        return _content_templates(step.ask, ("ask",))
    if isinstance(step, ReplyStep):
        return _content_templates(step.reply, ("reply",))
    spec: ArtifactSpec | ChunksSpec
    if isinstance(step, ArtifactStep):
        spec = step.artifact
        return _content_templates(spec.text, ("artifact", "text")) + _content_templates(
            spec.parts, ("artifact", "parts")
        )
    if isinstance(step, ChunksStep):
        spec = step.chunks
        if spec.texts is not None:
            return [(("chunks", "texts", i), t) for i, t in enumerate(spec.texts)]
        return [(("chunks", "text"), spec.text or "")]
    return []
