"""Parsed JSON into a model, with errors that name where: what the card reader, the
card lint and every dialect codec share (so none of them imports another for it)."""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from .errors import ProtocolError, from_validation_error

M = TypeVar("M", bound=BaseModel)


def validate(model: type[M], data: Any, path: str = "$") -> M:
    """``model.model_validate(data)`` with errors as ProtocolError rooted at ``path``."""
    if not isinstance(data, dict):
        raise ProtocolError(f"expected an object, got {type_name(data)}", path)
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise from_validation_error(exc, path) from None


def type_name(value: Any) -> str:
    return {
        dict: "object",
        list: "array",
        str: "string",
        bool: "boolean",
        int: "number",
        float: "number",
        type(None): "null",
    }.get(type(value), type(value).__name__)
