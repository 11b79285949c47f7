"""Build the protocol models the mock sends without pydantic validating them.

Everything the mock emits is built by the mock from already-validated scenario data,
so validation would only cost time. ``model_construct`` skips validation but still walks
every field's aliases and defaults on each call; under load that walk was the mock's
single largest cost. A maker does the walk once per class and then fills ``__dict__``
directly, leaving the instance as ``model_construct`` would.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from pydantic import BaseModel

_setattr = object.__setattr__

M = TypeVar("M", bound=BaseModel)


def maker(cls: type[M]) -> Callable[..., M]:
    """``maker(Task)(id=..., status=...)``: keyword arguments are field names, not aliases."""
    defaults: dict[str, Any] = {}
    factories: dict[str, Callable[[], Any]] = {}
    for name, field in cls.model_fields.items():
        if field.default_factory is not None:
            # (pydantic's other kind of factory, given the validated data, is not used here.)
            factories[name] = field.default_factory  # type: ignore[assignment]
        elif not field.is_required():
            defaults[name] = field.default
    allow_extra = cls.model_config.get("extra") == "allow"
    new = cls.__new__
    if cls.__pydantic_post_init__:  # pragma: no cover - none of the protocol models has one
        raise TypeError(f"{cls.__name__} needs model_construct")

    def make(**values: Any) -> M:
        obj = new(cls)
        data = dict(defaults)
        for name, factory in factories.items():
            if name not in values:
                data[name] = factory()
        data.update(values)
        _setattr(obj, "__dict__", data)
        _setattr(obj, "__pydantic_fields_set__", set(values))
        _setattr(obj, "__pydantic_extra__", {} if allow_extra else None)
        _setattr(obj, "__pydantic_private__", None)
        return obj

    make.__name__ = f"make_{cls.__name__}"
    return make


# The models the mock builds per request.
from inspector.protocol import models as _m  # noqa: E402

Task = maker(_m.Task)
TaskStatus = maker(_m.TaskStatus)
Message = maker(_m.Message)
TextPart = maker(_m.TextPart)
FilePart = maker(_m.FilePart)
DataPart = maker(_m.DataPart)
FileContent = maker(_m.FileContent)
Artifact = maker(_m.Artifact)
TaskStatusUpdateEvent = maker(_m.TaskStatusUpdateEvent)
TaskArtifactUpdateEvent = maker(_m.TaskArtifactUpdateEvent)
ListTasksResult = maker(_m.ListTasksResult)
TaskPushNotificationConfig = maker(_m.TaskPushNotificationConfig)
