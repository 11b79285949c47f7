"""The one normalised A2A model that every dialect decodes into and encodes from.

Field names follow the 0.2/0.3 wire spelling (camelCase aliases) because that is the
dialect in the middle: 0.1 renames a few keys, 1.0 unwraps a few objects, and both
codecs are small key maps around these types.

Every model keeps keys it does not know (``extra="allow"``): an agent's private fields
survive a decode/encode round trip in the same dialect. Codecs strip only the keys
that a dialect uses as tags (``kind``/``type``) before validating.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag
from pydantic.alias_generators import to_camel

# Re-exported: the codecs and the UI name the enums through the models.
from .enums import Role as Role
from .enums import TaskState as TaskState


class A2AModel(BaseModel):
    """Base: camelCase on the wire, snake_case in Python, unknown keys kept."""

    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
        alias_generator=to_camel,
        ser_json_bytes="base64",
        # Each model's validator is built on its first use, not at import: a command
        # uses a handful of the ~30 models, and building all of them cost every
        # a2a-inspect and a2a-mock process ~35 ms of CPU at start.
        defer_build=True,
    )

    def wire(self) -> dict[str, Any]:
        """The model as a 0.3-spelled dict: aliases, no unset/None fields, extras kept."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)


# --------------------------------------------------------------------------- parts


class FileContent(A2AModel):
    """A file's content: exactly one of ``bytes`` (base64 text) or ``uri``."""

    name: str | None = None
    mime_type: str | None = None
    bytes: str | None = None
    uri: str | None = None


class TextPart(A2AModel):
    kind: Literal["text"] = "text"
    text: str
    metadata: dict[str, Any] | None = None


class FilePart(A2AModel):
    kind: Literal["file"] = "file"
    file: FileContent
    metadata: dict[str, Any] | None = None


class DataPart(A2AModel):
    kind: Literal["data"] = "data"
    # The spec says object; agents send lists and scalars too, and we show what they send.
    data: Any
    metadata: dict[str, Any] | None = None


_PART_TAGS = {"text": "TextPart", "file": "FilePart", "data": "DataPart"}


def _part_tag(value: Any) -> str | None:
    kind = value.get("kind") if isinstance(value, dict) else getattr(value, "kind", None)
    return _PART_TAGS.get(kind) if isinstance(kind, str) else None


# Capitalised tags keep error paths clean: errors.from_validation_error drops them.
Part = Annotated[
    Annotated[TextPart, Tag("TextPart")] | Annotated[FilePart, Tag("FilePart")] | Annotated[DataPart, Tag("DataPart")],
    Discriminator(
        _part_tag,
        custom_error_type="part_kind",
        custom_error_message="unknown part kind (expected text, file or data)",
    ),
]


# --------------------------------------------------------------------- messages, tasks


class Message(A2AModel):
    role: Role
    parts: list[Part] = Field(default_factory=list)
    # 0.1 messages have no id; 0.2+ require one (codecs supply it on encode).
    message_id: str | None = None
    task_id: str | None = None
    context_id: str | None = None
    reference_task_ids: list[str] | None = None
    extensions: list[str] | None = None
    metadata: dict[str, Any] | None = None


class TaskStatus(A2AModel):
    state: TaskState
    message: Message | None = None
    timestamp: str | None = None


class Artifact(A2AModel):
    """An artifact or one chunk of it. 0.1 identifies artifacts by ``index``, 0.2+ by
    ``artifact_id``; the tracker keys on whichever is present."""

    artifact_id: str | None = None
    index: int | None = None
    name: str | None = None
    description: str | None = None
    parts: list[Part] = Field(default_factory=list)
    metadata: dict[str, Any] | None = None
    extensions: list[str] | None = None
    # 0.1 carries chunking flags on the artifact itself; 0.2+ on the update event.
    append: bool | None = None
    last_chunk: bool | None = None


class Task(A2AModel):
    id: str
    # 0.1 calls it sessionId; codecs map it here.
    context_id: str | None = None
    status: TaskStatus
    history: list[Message] | None = None
    artifacts: list[Artifact] | None = None
    metadata: dict[str, Any] | None = None


class TaskStatusUpdateEvent(A2AModel):
    task_id: str
    context_id: str | None = None
    status: TaskStatus
    # Removed in 1.0, where the stream's end (or a terminal state) is the signal.
    final: bool | None = None
    metadata: dict[str, Any] | None = None


class TaskArtifactUpdateEvent(A2AModel):
    task_id: str
    context_id: str | None = None
    artifact: Artifact
    append: bool | None = None
    last_chunk: bool | None = None
    metadata: dict[str, Any] | None = None


StreamEvent = Task | Message | TaskStatusUpdateEvent | TaskArtifactUpdateEvent
SendResult = Task | Message


# ------------------------------------------------------------------ push notifications


class PushAuthentication(A2AModel):
    schemes: list[str] = Field(default_factory=list)
    credentials: str | None = None


class PushNotificationConfig(A2AModel):
    id: str | None = None
    url: str
    token: str | None = None
    authentication: PushAuthentication | None = None


class TaskPushNotificationConfig(A2AModel):
    task_id: str
    push_notification_config: PushNotificationConfig


# --------------------------------------------------------------------------- params


class SendConfiguration(A2AModel):
    accepted_output_modes: list[str] | None = None
    history_length: int | None = None
    push_notification_config: PushNotificationConfig | None = None
    # 0.2/0.3 say ``blocking``; 1.0 says ``returnImmediately`` (its negation).
    blocking: bool | None = None


class SendParams(A2AModel):
    """send and stream. The task to continue and the context ride on ``message``
    (0.1's params.id / params.sessionId are mapped onto it by the 0.1 codec)."""

    message: Message
    configuration: SendConfiguration | None = None
    metadata: dict[str, Any] | None = None


class TaskQueryParams(A2AModel):
    id: str
    history_length: int | None = None
    metadata: dict[str, Any] | None = None


class TaskIdParams(A2AModel):
    """cancel and resubscribe."""

    id: str
    metadata: dict[str, Any] | None = None


class PushConfigParams(A2AModel):
    """push get / list / delete: the task and, where a dialect has several, the config id."""

    id: str
    push_notification_config_id: str | None = None
    metadata: dict[str, Any] | None = None


class ListTasksParams(A2AModel):
    context_id: str | None = None
    status: TaskState | None = None
    page_size: int | None = None
    page_token: str | None = None
    history_length: int | None = None
    include_artifacts: bool | None = None
    metadata: dict[str, Any] | None = None


class ListTasksResult(A2AModel):
    tasks: list[Task] = Field(default_factory=list)
    next_page_token: str | None = None
    page_size: int | None = None
    total_size: int | None = None


class ExtendedCardParams(A2AModel):
    metadata: dict[str, Any] | None = None


# --------------------------------------------------------------------------- card


class AgentProvider(A2AModel):
    organization: str | None = None
    url: str | None = None


class AgentExtension(A2AModel):
    uri: str
    description: str | None = None
    required: bool | None = None
    params: dict[str, Any] | None = None


class AgentCapabilities(A2AModel):
    streaming: bool | None = None
    push_notifications: bool | None = None
    state_transition_history: bool | None = None
    extended_agent_card: bool | None = None
    extensions: list[AgentExtension] | None = None


class SecurityScheme(A2AModel):
    """Normalised from 0.2/0.3 (OpenAPI-like, ``type``-tagged) and 1.0 (oneof-wrapped).

    ``type`` is one of apiKey, http, oauth2, openIdConnect, mutualTLS."""

    type: str
    description: str | None = None
    # apiKey
    name: str | None = None
    location: str | None = None  # 0.3 "in", 1.0 "location"
    # http
    scheme: str | None = None
    bearer_format: str | None = None
    # oauth2
    flows: dict[str, Any] | None = None
    oauth2_metadata_url: str | None = None
    # openIdConnect
    open_id_connect_url: str | None = None


class LegacyAuthentication(A2AModel):
    """0.1's ``authentication`` block."""

    schemes: list[str] | str = Field(default_factory=list)
    credentials: str | None = None


class AgentInterface(A2AModel):
    url: str
    # 0.3 "transport", 1.0 "protocolBinding": JSONRPC, GRPC, HTTP+JSON
    protocol_binding: str | None = None
    protocol_version: str | None = None
    tenant: str | None = None


class AgentSkill(A2AModel):
    id: str | None = None
    name: str | None = None
    description: str | None = None
    tags: list[str] | None = None
    examples: list[str] | None = None
    input_modes: list[str] | None = None
    output_modes: list[str] | None = None
    security: list[dict[str, list[str]]] | None = None


class AgentCard(A2AModel):
    """Every field any dialect's card may carry; a card decodes whatever mix it has."""

    name: str | None = None
    description: str | None = None
    version: str | None = None
    url: str | None = None
    protocol_version: str | None = None
    preferred_transport: str | None = None
    additional_interfaces: list[AgentInterface] | None = None
    supported_interfaces: list[AgentInterface] | None = None
    provider: AgentProvider | None = None
    documentation_url: str | None = None
    icon_url: str | None = None
    capabilities: AgentCapabilities | None = None
    authentication: LegacyAuthentication | None = None
    security_schemes: dict[str, SecurityScheme] | None = None
    security: list[dict[str, list[str]]] | None = None
    default_input_modes: list[str] | None = None
    default_output_modes: list[str] | None = None
    skills: list[AgentSkill] | None = None
    supports_authenticated_extended_card: bool | None = None
    signatures: list[dict[str, Any]] | None = None


# --------------------------------------------------------------------------- JSON-RPC


JsonRpcId = str | int | None
