"""What each dialect's requests must look like, written down from the official schemas.

One table per dialect: the params object of every method, and every object inside it,
field by field, with the field's JSON type and whether the spec makes it required:

  0.1  the v0.1.0 JSON Schema (``required`` lists; parts tagged ``type``);
  0.3  the v0.3.0 JSON Schema (``required`` lists; parts tagged ``kind``);
  1.0  the normative ``lf.a2a.v1`` proto (``google.api.field_behavior = REQUIRED``), read
       as ProtoJSON: int32 as a number or a numeric string, enums by name or number,
       ``null`` as "not set".

Field names are the wire's lowerCamel ones; the snake_case original (``task_id``) of each
is accepted too, as ProtoJSON parsers must and a2a-sdk's 0.3 models do.
tests/test_mock_strict_shapes.py checks these tables against the schema files.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

# ------------------------------------------------------------------ field types


@dataclass(frozen=True)
class Scalar:
    """string, integer, boolean, object (a free JSON object: metadata, Struct), any
    (google.protobuf.Value), timestamp (RFC 3339 text), bytes (base64 text)."""

    name: str


STRING = Scalar("string")
INTEGER = Scalar("integer")
BOOLEAN = Scalar("boolean")
OBJECT = Scalar("object")
ANY = Scalar("any")
TIMESTAMP = Scalar("timestamp")
BYTES = Scalar("bytes")


@dataclass(frozen=True)
class Enum:
    """A closed set of spellings. ``unset``: the proto's zero value, which means "not
    given" (so a required enum at its zero value is missing)."""

    values: tuple[Any, ...]
    unset: tuple[Any, ...] = ()


@dataclass(frozen=True)
class Ref:
    """Another object of the same table."""

    shape: str


@dataclass(frozen=True)
class ListOf:
    item: Any


@dataclass(frozen=True)
class Field:
    type: Any
    required: bool = False
    #: For a required list: it must hold at least one item (proto: a REQUIRED repeated field).
    non_empty: bool = False


@dataclass(frozen=True)
class Shape:
    fields: dict[str, Field]
    #: Tagged unions (0.x parts): the tag key and the shape for each of its values.
    tag: str | None = None
    variants: dict[str, str] = field(default_factory=dict)
    #: Keys of which exactly one (``exactly_one``) or at least one must be present.
    one_of: tuple[str, ...] = ()
    exactly_one: bool = False


def snake(name: str) -> str:
    """``messageId`` -> ``message_id``: the proto's own name for a lowerCamel JSON name."""
    return re.sub(r"(?<!^)([A-Z])", r"_\1", name).lower()


# ------------------------------------------------------------------ 0.1 (v0.1.0 schema)

_META = Field(OBJECT)

V01: dict[str, Shape] = {
    "TaskSendParams": Shape(
        {
            "id": Field(STRING, required=True),
            "sessionId": Field(STRING),
            "message": Field(Ref("Message"), True),
            "pushNotification": Field(Ref("PushNotificationConfig")),
            "historyLength": Field(INTEGER),
            "metadata": _META,
        }
    ),
    "Message": Shape(
        {"role": Field(Enum(("user", "agent")), True), "parts": Field(ListOf(Ref("Part")), True), "metadata": _META}
    ),
    "Part": Shape({}, tag="type", variants={"text": "TextPart", "file": "FilePart", "data": "DataPart"}),
    "TextPart": Shape({"type": Field(STRING, True), "text": Field(STRING, True), "metadata": _META}),
    "FilePart": Shape({"type": Field(STRING, True), "file": Field(Ref("FileContent"), True), "metadata": _META}),
    "DataPart": Shape({"type": Field(STRING, True), "data": Field(OBJECT, True), "metadata": _META}),
    "FileContent": Shape(
        {"name": Field(STRING), "mimeType": Field(STRING), "bytes": Field(STRING), "uri": Field(STRING)}
    ),
    "TaskQueryParams": Shape({"id": Field(STRING, True), "historyLength": Field(INTEGER), "metadata": _META}),
    "TaskIdParams": Shape({"id": Field(STRING, True), "metadata": _META}),
    "TaskPushNotificationConfig": Shape(
        {"id": Field(STRING, True), "pushNotificationConfig": Field(Ref("PushNotificationConfig"), True)}
    ),
    "PushNotificationConfig": Shape(
        {"url": Field(STRING, True), "token": Field(STRING), "authentication": Field(Ref("AuthenticationInfo"))}
    ),
    "AuthenticationInfo": Shape({"schemes": Field(ListOf(STRING), True), "credentials": Field(STRING)}),
}

# ------------------------------------------------------------------ 0.3 (v0.3.0 schema)

V03: dict[str, Shape] = {
    "MessageSendParams": Shape(
        {
            "message": Field(Ref("Message"), True),
            "configuration": Field(Ref("MessageSendConfiguration")),
            "metadata": _META,
        }
    ),
    "MessageSendConfiguration": Shape(
        {
            "acceptedOutputModes": Field(ListOf(STRING)),
            "blocking": Field(BOOLEAN),
            "historyLength": Field(INTEGER),
            "pushNotificationConfig": Field(Ref("PushNotificationConfig")),
        }
    ),
    "Message": Shape(
        {
            "kind": Field(Enum(("message",)), True),
            "messageId": Field(STRING, True),
            "parts": Field(ListOf(Ref("Part")), True),
            "role": Field(Enum(("agent", "user")), True),
            "contextId": Field(STRING),
            "taskId": Field(STRING),
            "referenceTaskIds": Field(ListOf(STRING)),
            "extensions": Field(ListOf(STRING)),
            "metadata": _META,
        }
    ),
    "Part": Shape({}, tag="kind", variants={"text": "TextPart", "file": "FilePart", "data": "DataPart"}),
    "TextPart": Shape({"kind": Field(STRING, True), "text": Field(STRING, True), "metadata": _META}),
    "FilePart": Shape({"kind": Field(STRING, True), "file": Field(Ref("File"), True), "metadata": _META}),
    "DataPart": Shape({"kind": Field(STRING, True), "data": Field(OBJECT, True), "metadata": _META}),
    # anyOf FileWithBytes (bytes required) / FileWithUri (uri required).
    "File": Shape(
        {"bytes": Field(STRING), "uri": Field(STRING), "name": Field(STRING), "mimeType": Field(STRING)},
        one_of=("bytes", "uri"),
    ),
    "TaskQueryParams": Shape({"id": Field(STRING, True), "historyLength": Field(INTEGER), "metadata": _META}),
    "TaskIdParams": Shape({"id": Field(STRING, True), "metadata": _META}),
    "TaskPushNotificationConfig": Shape(
        {"taskId": Field(STRING, True), "pushNotificationConfig": Field(Ref("PushNotificationConfig"), True)}
    ),
    "PushNotificationConfig": Shape(
        {
            "url": Field(STRING, True),
            "id": Field(STRING),
            "token": Field(STRING),
            "authentication": Field(Ref("PushNotificationAuthenticationInfo")),
        }
    ),
    "PushNotificationAuthenticationInfo": Shape({"schemes": Field(ListOf(STRING), True), "credentials": Field(STRING)}),
    # tasks/pushNotificationConfig/get: anyOf TaskIdParams / GetTaskPushNotificationConfigParams;
    # both require id, the second adds an optional pushNotificationConfigId.
    "GetTaskPushNotificationConfigParams": Shape(
        {"id": Field(STRING, True), "pushNotificationConfigId": Field(STRING), "metadata": _META}
    ),
    "ListTaskPushNotificationConfigParams": Shape({"id": Field(STRING, True), "metadata": _META}),
    "DeleteTaskPushNotificationConfigParams": Shape(
        {"id": Field(STRING, True), "pushNotificationConfigId": Field(STRING, True), "metadata": _META}
    ),
}

# ------------------------------------------------------------------ 1.0 (lf.a2a.v1 proto)

ROLES = Enum(("ROLE_USER", "ROLE_AGENT", 1, 2), unset=("ROLE_UNSPECIFIED", 0))
STATES = Enum(
    (
        "TASK_STATE_SUBMITTED",
        "TASK_STATE_WORKING",
        "TASK_STATE_COMPLETED",
        "TASK_STATE_FAILED",
        "TASK_STATE_CANCELED",
        "TASK_STATE_INPUT_REQUIRED",
        "TASK_STATE_REJECTED",
        "TASK_STATE_AUTH_REQUIRED",
        1,
        2,
        3,
        4,
        5,
        6,
        7,
        8,
    ),
    unset=("TASK_STATE_UNSPECIFIED", 0),
)
_TENANT = Field(STRING)

V10: dict[str, Shape] = {
    "SendMessageRequest": Shape(
        {
            "tenant": _TENANT,
            "message": Field(Ref("Message"), True),
            "configuration": Field(Ref("SendMessageConfiguration")),
            "metadata": _META,
        }
    ),
    "Message": Shape(
        {
            "messageId": Field(STRING, True),
            "contextId": Field(STRING),
            "taskId": Field(STRING),
            "role": Field(ROLES, True),
            "parts": Field(ListOf(Ref("Part")), True, non_empty=True),
            "metadata": _META,
            "extensions": Field(ListOf(STRING)),
            "referenceTaskIds": Field(ListOf(STRING)),
        }
    ),
    "Part": Shape(
        {
            "text": Field(STRING),
            "raw": Field(BYTES),
            "url": Field(STRING),
            "data": Field(ANY),
            "metadata": _META,
            "filename": Field(STRING),
            "mediaType": Field(STRING),
        },
        one_of=("text", "raw", "url", "data"),
        exactly_one=True,
    ),
    "SendMessageConfiguration": Shape(
        {
            "acceptedOutputModes": Field(ListOf(STRING)),
            "taskPushNotificationConfig": Field(Ref("TaskPushNotificationConfig")),
            "historyLength": Field(INTEGER),
            "returnImmediately": Field(BOOLEAN),
        }
    ),
    "TaskPushNotificationConfig": Shape(
        {
            "tenant": _TENANT,
            "id": Field(STRING),
            "taskId": Field(STRING),
            "url": Field(STRING, True),
            "token": Field(STRING),
            "authentication": Field(Ref("AuthenticationInfo")),
        }
    ),
    "AuthenticationInfo": Shape({"scheme": Field(STRING, True), "credentials": Field(STRING)}),
    "GetTaskRequest": Shape({"tenant": _TENANT, "id": Field(STRING, True), "historyLength": Field(INTEGER)}),
    "ListTasksRequest": Shape(
        {
            "tenant": _TENANT,
            "contextId": Field(STRING),
            "status": Field(STATES),
            "pageSize": Field(INTEGER),
            "pageToken": Field(STRING),
            "historyLength": Field(INTEGER),
            "statusTimestampAfter": Field(TIMESTAMP),
            "includeArtifacts": Field(BOOLEAN),
        }
    ),
    "CancelTaskRequest": Shape({"tenant": _TENANT, "id": Field(STRING, True), "metadata": _META}),
    "SubscribeToTaskRequest": Shape({"tenant": _TENANT, "id": Field(STRING, True)}),
    "GetTaskPushNotificationConfigRequest": Shape(
        {"tenant": _TENANT, "taskId": Field(STRING, True), "id": Field(STRING, True)}
    ),
    "ListTaskPushNotificationConfigsRequest": Shape(
        {"tenant": _TENANT, "taskId": Field(STRING, True), "pageSize": Field(INTEGER), "pageToken": Field(STRING)}
    ),
    "DeleteTaskPushNotificationConfigRequest": Shape(
        {"tenant": _TENANT, "taskId": Field(STRING, True), "id": Field(STRING, True)}
    ),
    "GetExtendedAgentCardRequest": Shape({"tenant": _TENANT}),
}


@dataclass(frozen=True)
class MethodShape:
    #: The params object's shape (None: the method takes no params, or the spec gives none).
    params: str | None
    #: The JSON-RPC request's schema lists ``params`` as required.
    params_required: bool


#: wire method -> its params, per dialect. 1.0 requests are proto messages: absent params
#: are an empty message (as a2a-sdk reads them), whose required fields are then missing.
METHODS: dict[str, dict[str, MethodShape]] = {
    "0.1": {
        "tasks/send": MethodShape("TaskSendParams", True),
        "tasks/sendSubscribe": MethodShape("TaskSendParams", True),
        "tasks/get": MethodShape("TaskQueryParams", True),
        "tasks/cancel": MethodShape("TaskIdParams", True),
        "tasks/resubscribe": MethodShape("TaskQueryParams", True),
        "task/resubscribe": MethodShape("TaskQueryParams", True),
        "tasks/pushNotification/set": MethodShape("TaskPushNotificationConfig", True),
        "tasks/pushNotification/get": MethodShape("TaskIdParams", True),
        # Society AI's tasks/list has no schema: nothing to enforce.
        "tasks/list": MethodShape(None, False),
    },
    "0.3": {
        "message/send": MethodShape("MessageSendParams", True),
        "message/stream": MethodShape("MessageSendParams", True),
        "tasks/get": MethodShape("TaskQueryParams", True),
        "tasks/cancel": MethodShape("TaskIdParams", True),
        "tasks/resubscribe": MethodShape("TaskIdParams", True),
        "tasks/pushNotificationConfig/set": MethodShape("TaskPushNotificationConfig", True),
        "tasks/pushNotificationConfig/get": MethodShape("GetTaskPushNotificationConfigParams", True),
        "tasks/pushNotificationConfig/list": MethodShape("ListTaskPushNotificationConfigParams", True),
        "tasks/pushNotificationConfig/delete": MethodShape("DeleteTaskPushNotificationConfigParams", True),
        "agent/getAuthenticatedExtendedCard": MethodShape(None, False),
    },
    "1.0": {
        "SendMessage": MethodShape("SendMessageRequest", False),
        "SendStreamingMessage": MethodShape("SendMessageRequest", False),
        "GetTask": MethodShape("GetTaskRequest", False),
        "ListTasks": MethodShape("ListTasksRequest", False),
        "CancelTask": MethodShape("CancelTaskRequest", False),
        "SubscribeToTask": MethodShape("SubscribeToTaskRequest", False),
        "CreateTaskPushNotificationConfig": MethodShape("TaskPushNotificationConfig", False),
        "GetTaskPushNotificationConfig": MethodShape("GetTaskPushNotificationConfigRequest", False),
        "ListTaskPushNotificationConfigs": MethodShape("ListTaskPushNotificationConfigsRequest", False),
        "DeleteTaskPushNotificationConfig": MethodShape("DeleteTaskPushNotificationConfigRequest", False),
        "GetExtendedAgentCard": MethodShape("GetExtendedAgentCardRequest", False),
    },
}

SHAPES: dict[str, dict[str, Shape]] = {"0.1": V01, "0.3": V03, "1.0": V10}
