"""Checks a request's params against its dialect's schema before the codec reads them.

Two jobs, walked together over the shapes of request_shapes.py:

- ProtoJSON names, always: a snake_case field name (``task_id``, ``page_size``) becomes
  its lowerCamel spelling, wherever the schema has that field, so the codecs (which read
  lowerCamel) accept both. Free-form values (metadata, DataPart data) are left alone.
- Strictness, unless lenient: every field the schema or proto requires is present (and,
  for a required list in 1.0, non-empty), every value has its field's JSON type, enums
  hold one of their spellings, and the ranges the spec states hold (history lengths are
  not negative, ListTasks' page size is 1..100, timestamps parse).

The first problem found is raised as a JsonRpcError with ``data = {"path", "reason"}``,
the path being the field's JSON path (``$.params.message.messageId``). Codes are the
ones a2a-sdk 1.3.0 answers: in 1.0 everything is -32602; in 0.3 a request that does
not match the schema's request object is -32600 (its 0.3 layer validates the whole
request at once) while a range or an empty parts list is -32602; 0.1 (no reference
server) is -32602 throughout, as its draft's error table describes invalid params.
"""

from __future__ import annotations

import base64
import binascii
from datetime import datetime
from typing import Any

from inspector.protocol.dialects.base import Dialect
from inspector.protocol.errors import JsonRpcError

from .request_shapes import (
    ANY,
    BOOLEAN,
    BYTES,
    INTEGER,
    METHODS,
    OBJECT,
    SHAPES,
    STRING,
    TIMESTAMP,
    Enum,
    Field,
    ListOf,
    Ref,
    Scalar,
    Shape,
    snake,
)

INT32 = (-(2**31), 2**31 - 1)

# How each kind of problem is answered, per dialect: (code, message).
SCHEMA, REQUIRED, RULE = "schema", "required", "rule"
_ANSWER = {
    "1.0": {
        SCHEMA: (-32602, "Invalid params"),
        REQUIRED: (-32602, "Validation failed"),
        RULE: (-32602, "Invalid params"),
    },
    "0.3": {
        SCHEMA: (-32600, "Invalid Request"),
        REQUIRED: (-32600, "Invalid Request"),
        RULE: (-32602, "Invalid params"),
    },
    "0.1": {SCHEMA: (-32602, "Invalid params"), REQUIRED: (-32602, "Invalid params"), RULE: (-32602, "Invalid params")},
}

#: Ranges the spec states in prose (shape, field) -> (low, high, reason); per dialect.
_RANGES: dict[str, dict[tuple[str, str], tuple[int | None, int | None, str]]] = {
    "0.1": {
        ("TaskSendParams", "historyLength"): (0, None, "history length must be non-negative"),
        ("TaskQueryParams", "historyLength"): (0, None, "history length must be non-negative"),
    },
    "0.3": {
        ("MessageSendConfiguration", "historyLength"): (0, None, "history length must be non-negative"),
        ("TaskQueryParams", "historyLength"): (0, None, "history length must be non-negative"),
    },
    "1.0": {
        ("SendMessageConfiguration", "historyLength"): (0, None, "history length must be non-negative"),
        ("GetTaskRequest", "historyLength"): (0, None, "history length must be non-negative"),
        ("ListTasksRequest", "historyLength"): (0, None, "history length must be non-negative"),
        ("ListTasksRequest", "pageSize"): (1, 100, "page size must be between 1 and 100"),
    },
}

#: Lists that must not be empty although the schema has no minItems: a2a-sdk 1.3.0
#: refuses an empty 0.3 message (its 0.3 layer checks the 1.0 Message, whose parts
#: are REQUIRED).
_NON_EMPTY = {"0.3": {("Message", "parts")}}


class Problem(Exception):
    def __init__(self, kind: str, path: str, reason: str) -> None:
        super().__init__(reason)
        self.kind = kind
        self.path = path
        self.reason = reason


def check_request(codec: Dialect, obj: Any, *, strict: bool) -> Any:
    """``obj`` (a parsed JSON-RPC request) with its params' field names made lowerCamel;
    in strict mode, first checked against the dialect's schema (JsonRpcError if not).

    Anything that is not a request of a method ``codec`` serves is returned as it is:
    the codec answers malformed envelopes and unknown methods itself."""
    if not isinstance(obj, dict) or obj.get("jsonrpc") != "2.0":
        return obj
    wire = obj.get("method")
    if not isinstance(wire, str) or codec.method_for(wire) is None:
        return obj
    dialect = codec.name
    method = METHODS.get(dialect, {}).get(wire)
    if method is None:
        return obj
    walker = _Walker(dialect, strict)
    present = "params" in obj and obj["params"] is not None
    try:
        if not present:
            if strict and method.params_required:
                raise Problem(REQUIRED, "$.params", "Field required")
            if dialect == "1.0" and method.params is not None:
                # A proto request message left out is an empty one (as a2a-sdk reads it).
                if strict:
                    walker.shape({}, method.params, "$.params")
                return {**obj, "params": {}}
            return obj
        if method.params is None:
            return obj
        params = walker.shape(obj["params"], method.params, "$.params")
    except Problem as problem:
        code, message = _ANSWER[dialect][problem.kind]
        raise JsonRpcError(
            code, f"{message}: {problem.path}: {problem.reason}", {"path": problem.path, "reason": problem.reason}
        ) from None
    if params is obj["params"]:
        return obj
    return {**obj, "params": params}


class _Walker:
    __slots__ = ("dialect", "strict", "shapes", "ranges", "non_empty")

    def __init__(self, dialect: str, strict: bool) -> None:
        self.dialect = dialect
        self.strict = strict
        self.shapes = SHAPES[dialect]
        self.ranges = _RANGES[dialect]
        self.non_empty = _NON_EMPTY.get(dialect, set())

    def shape(self, value: Any, name: str, path: str) -> Any:
        """The object with snake_case keys renamed; checked if strict."""
        shape = self.shapes[name]
        if not isinstance(value, dict):
            if self.strict:
                raise Problem(SCHEMA, path, f"expected an object, got {_type_name(value)}")
            return value
        if shape.tag is not None:
            return self._tagged(value, shape, path)
        out = self._renamed(value, shape, path)
        for key, spec in shape.fields.items():
            here = f"{path}.{key}"
            item = out.get(key)
            if item is None or (self.dialect == "1.0" and _is_unset(item, spec)):
                if self.strict and spec.required:
                    raise Problem(REQUIRED, here, "Field required")
                continue
            checked = self.value(item, spec, name, key, here)
            if checked is not item:
                if out is value:
                    out = dict(value)
                out[key] = checked
        if self.strict and shape.one_of:
            given = [k for k in shape.one_of if out.get(k) is not None]
            if not given or (shape.exactly_one and len(given) > 1):
                listed = ", ".join(shape.one_of)
                why = f"exactly one of {listed} (got {', '.join(given)})" if given else f"one of {listed} is required"
                raise Problem(SCHEMA, path, why)
        return out

    def _tagged(self, value: dict[str, Any], shape: Shape, path: str) -> Any:
        assert shape.tag is not None  # as the caller checked
        tag = value.get(shape.tag)
        variant = shape.variants.get(tag) if isinstance(tag, str) else None
        if variant is None:
            if not self.strict:
                return value
            if tag is None:
                raise Problem(REQUIRED, f"{path}.{shape.tag}", "Field required")
            raise Problem(SCHEMA, f"{path}.{shape.tag}", f"must be one of {', '.join(shape.variants)} (got {tag!r})")
        return self.shape(value, variant, path)

    def _renamed(self, value: dict[str, Any], shape: Shape, path: str) -> dict[str, Any]:
        out = value
        for key in shape.fields:
            proto = snake(key)
            if proto == key or proto not in value:
                continue
            if key in value:
                if self.strict and self.dialect == "1.0":
                    # ProtoJSON parsers refuse a field given twice; a2a-sdk's 0.3
                    # models take the lowerCamel one, and so does lenient mode.
                    raise Problem(SCHEMA, f"{path}.{key}", f"given twice, as {key} and as {proto}")
                continue
            if out is value:
                out = dict(value)
            out[key] = out.pop(proto)
        return out

    def value(self, item: Any, spec: Field, shape: str, key: str, path: str) -> Any:
        kind = spec.type
        if type(kind) is ListOf:
            if not isinstance(item, list):
                if self.strict:
                    raise Problem(SCHEMA, path, f"expected an array, got {_type_name(item)}")
                return item
            if self.strict and not item and (spec.non_empty or (shape, key) in self.non_empty):
                raise Problem(REQUIRED if spec.non_empty else RULE, path, "must contain at least one element")
            out = item
            for i, element in enumerate(item):
                checked = self._one(element, kind.item, shape, key, f"{path}[{i}]")
                if checked is not element:
                    if out is item:
                        out = list(item)
                    out[i] = checked
            return out
        return self._one(item, kind, shape, key, path)

    def _one(self, item: Any, kind: Any, shape: str, key: str, path: str) -> Any:
        if type(kind) is Ref:
            return self.shape(item, kind.shape, path)
        if not self.strict:
            return item
        if type(kind) is Enum:
            if isinstance(item, bool) or item not in kind.values:
                if item in kind.unset and not isinstance(item, bool):
                    return item
                shown = ", ".join(str(v) for v in kind.values if isinstance(v, str))
                raise Problem(SCHEMA, path, f"must be one of {shown} (got {item!r})")
            return item
        assert type(kind) is Scalar
        self._scalar(item, kind, path)
        limits = self.ranges.get((shape, key))
        if limits is not None:
            low, high, reason = limits
            number = int(item)
            if (low is not None and number < low) or (high is not None and number > high):
                raise Problem(RULE, path, f"{reason} (got {number})")
        return item

    def _scalar(self, item: Any, kind: Scalar, path: str) -> None:
        if kind is ANY:
            return
        if kind is STRING:
            ok = isinstance(item, str)
        elif kind is BOOLEAN:
            ok = isinstance(item, bool)
        elif kind is OBJECT:
            ok = isinstance(item, dict)
        elif kind is INTEGER:
            ok = _is_integer(item, proto=self.dialect == "1.0")
            if ok and self.dialect == "1.0" and not INT32[0] <= int(item) <= INT32[1]:
                raise Problem(SCHEMA, path, "out of range for int32")
        elif kind is TIMESTAMP:
            if not isinstance(item, str):
                raise Problem(SCHEMA, path, f"expected an RFC 3339 timestamp string, got {_type_name(item)}")
            if parse_timestamp(item) is None:
                raise Problem(SCHEMA, path, f"not an RFC 3339 timestamp: {item!r}")
            return
        elif kind is BYTES:
            ok = isinstance(item, str) and _is_base64(item)
            if isinstance(item, str) and not ok:
                raise Problem(SCHEMA, path, "not base64")
        else:  # pragma: no cover - the tables use no other scalar
            raise AssertionError(kind)
        if not ok:
            raise Problem(SCHEMA, path, f"expected {_expected(kind)}, got {_type_name(item)}")


def _is_unset(item: Any, spec: Field) -> bool:
    """ProtoJSON: a scalar at its default is not set (proto3 has no presence for it)."""
    kind = spec.type
    if kind is STRING:
        return isinstance(item, str) and item == ""
    if type(kind) is Enum:
        return item in kind.unset and not isinstance(item, bool)
    if type(kind) is ListOf:
        return item == [] and not spec.non_empty
    return False


def _is_integer(item: Any, *, proto: bool) -> bool:
    if isinstance(item, bool):
        return False
    if isinstance(item, int):
        return True
    if isinstance(item, float):
        return item.is_integer()
    if proto and isinstance(item, str):
        # ProtoJSON writes 64-bit ints as strings and reads int32 from either.
        text = item[1:] if item.startswith("-") else item
        return text.isascii() and text.isdigit()
    return False


def _is_base64(text: str) -> bool:
    # ProtoJSON bytes: standard or URL-safe base64, padding optional.
    try:
        base64.b64decode(text.replace("-", "+").replace("_", "/") + "=" * (-len(text) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


def parse_timestamp(text: str) -> datetime | None:
    """An RFC 3339 timestamp (``2026-01-02T03:04:05Z``, fractions and offsets allowed),
    or None. ProtoJSON Timestamps always carry a zone."""
    if len(text) < 20 or text[10] not in "Tt":
        return None
    try:
        value = datetime.fromisoformat(text[:-1] + "+00:00" if text[-1] in "Zz" else text)
    except ValueError:
        return None
    return value if value.tzinfo is not None else None


def _expected(kind: Scalar) -> str:
    return {
        "string": "a string",
        "integer": "an integer",
        "boolean": "a boolean",
        "object": "an object",
        "bytes": "base64 text",
    }.get(kind.name, kind.name)


def _type_name(value: Any) -> str:
    return {
        dict: "object",
        list: "array",
        str: "string",
        bool: "boolean",
        int: "number",
        float: "number",
        type(None): "null",
    }.get(type(value), type(value).__name__)
