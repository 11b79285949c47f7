"""The A2A operations, named once, independent of how any dialect spells them."""

from __future__ import annotations

from enum import Enum

from . import models as m


class Method(str, Enum):
    SEND = "send"
    STREAM = "stream"
    GET = "get"
    CANCEL = "cancel"
    RESUBSCRIBE = "resubscribe"
    PUSH_SET = "push-set"
    PUSH_GET = "push-get"
    PUSH_LIST = "push-list"
    PUSH_DELETE = "push-delete"
    LIST = "list"
    EXTENDED_CARD = "extended-card"

    @property
    def streams(self) -> bool:
        """Answered with an SSE stream rather than one JSON body."""
        return self in (Method.STREAM, Method.RESUBSCRIBE)


#: The normalised params model each method takes.
PARAMS: dict[Method, type[m.A2AModel]] = {
    Method.SEND: m.SendParams,
    Method.STREAM: m.SendParams,
    Method.GET: m.TaskQueryParams,
    Method.CANCEL: m.TaskIdParams,
    Method.RESUBSCRIBE: m.TaskIdParams,
    Method.PUSH_SET: m.TaskPushNotificationConfig,
    Method.PUSH_GET: m.PushConfigParams,
    Method.PUSH_LIST: m.PushConfigParams,
    Method.PUSH_DELETE: m.PushConfigParams,
    Method.LIST: m.ListTasksParams,
    Method.EXTENDED_CARD: m.ExtendedCardParams,
}
