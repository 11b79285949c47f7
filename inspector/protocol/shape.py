"""Small checks the codecs run on raw JSON before it reaches pydantic.

A codec that renames or moves a key has to check that key's type itself: pydantic would
report the error under the normalised name, and the user needs the path they sent.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any, TypeAlias

from pydantic import ValidationError

from .errors import ProtocolError, from_validation_error
from .models import A2AModel
from .states import is_terminal
from .validation import M, type_name

#: A JSON path, built lazily: ``"$.result"`` or ``(parent, key)``. Decoders pass one
#: down for every object they visit, but only render it when something is wrong, so a
#: well-formed event costs a few tuples instead of a few formatted strings.
Path: TypeAlias = str | tuple["Path", str | int]


def render(path: Path) -> str:
    keys: list[str | int] = []
    while isinstance(path, tuple):
        path, key = path
        keys.append(key)
    out = path
    for key in reversed(keys):
        out += f"[{key}]" if isinstance(key, int) else f".{key}"
    return out


def fail(message: str, path: Path) -> ProtocolError:
    return ProtocolError(message, render(path))


def obj(value: Any, path: Path) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise fail(f"expected an object, got {type_name(value)}", path)
    return value


def arr(value: Any, path: Path) -> list[Any]:
    if not isinstance(value, list):
        raise fail(f"expected an array, got {type_name(value)}", path)
    return value


def string(value: Any, path: Path) -> str:
    if not isinstance(value, str):
        raise fail(f"expected a string, got {type_name(value)}", path)
    return value


def boolean(value: Any, path: Path) -> bool:
    if not isinstance(value, bool):
        raise fail(f"expected a boolean, got {type_name(value)}", path)
    return value


def check(model: type[M], data: Any, path: Path) -> M:
    """``validate`` for a lazily built path."""
    if isinstance(data, dict):
        try:
            return model.model_validate(data)
        except ValidationError as exc:
            raise from_validation_error(exc, render(path)) from None
    raise fail(f"expected an object, got {type_name(data)}", path)


Shaper = Callable[[Any, Path], Any]


def shape_task(
    data: dict[str, Any], path: Path, status_in: Shaper, message_in: Shaper, artifact_in: Shaper
) -> dict[str, Any]:
    """A wire Task's dict with its status, history and artifacts each reshaped by the
    dialect's own function (a status present even as null is checked; a null history or
    artifacts list is left alone)."""
    out = dict(data)
    if "status" in data:
        out["status"] = status_in(data["status"], (path, "status"))
    if data.get("history") is not None:
        sub = (path, "history")
        out["history"] = [message_in(x, (sub, i)) for i, x in enumerate(arr(data["history"], sub))]
    if data.get("artifacts") is not None:
        sub = (path, "artifacts")
        out["artifacts"] = [artifact_in(x, (sub, i)) for i, x in enumerate(arr(data["artifacts"], sub))]
    return out


def new_id() -> str:
    return str(uuid.uuid4())


def drop_tag(model: A2AModel | None, expected: str, key: str = "kind") -> None:
    """Forget a tag key the model kept as an unknown field, if it says what we expected.

    A tag with any other value is left in place: it is the agent's data, and it
    round-trips like any other unknown key."""
    if model is None:
        return
    extra = model.__pydantic_extra__
    if extra and extra.get(key) == expected:
        del extra[key]


def implied_final(event: dict[str, Any]) -> bool:
    """``final`` for a status event that has none (decoded from 1.0): the stream ends
    with the task."""
    from .models import TaskState

    state = (event.get("status") or {}).get("state")
    try:
        return is_terminal(TaskState(state))
    except ValueError:
        return False
