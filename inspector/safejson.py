"""How deeply nested JSON may be, whoever sends it: an agent, a file, or a client.
(Sizes in bytes, as users write and read them, are in ``protocol.sizes``.)

Cross-cutting (the bottom layer, like textsafe): the protocol's wire parsing, the
session's recordings, the store's files, safeyaml and the mock all parse with it.

One limit for everything the product parses. 200 levels is far beyond any real A2A
document (a task with a data part is about ten) and well inside what the recursive code
downstream (pydantic's serializer, json.dumps, PyYAML) survives. It is also the limit
pydantic-core's own JSON parser enforces on the hot path, so the common case costs
nothing extra; ``loads`` applies it to the standard library's parser, which has none
of its own below Python's recursion limit.

Depth counts containers: ``1`` is 0 deep, ``[]`` is 1, ``{"a": [1]}`` is 2.
"""

from __future__ import annotations

import json
from typing import Any

#: The deepest nesting of JSON arrays and objects accepted anywhere.
MAX_JSON_DEPTH = 200

TOO_DEEP = f"nested more than {MAX_JSON_DEPTH} levels deep"


class TooDeep(ValueError):
    """JSON nested deeper than the limit."""

    def __init__(self, limit: int = MAX_JSON_DEPTH) -> None:
        super().__init__(f"nested more than {limit} levels deep")


def may_be_too_deep(text: str | bytes | bytearray, limit: int = MAX_JSON_DEPTH) -> bool:
    """Cheap (two counts in C): False when ``text`` cannot hold more than the limit's
    worth of brackets, so the walk in ``too_deep`` can be skipped."""
    if isinstance(text, str):
        return text.count("[") + text.count("{") > limit
    return text.count(b"[") + text.count(b"{") > limit


def too_deep(value: Any, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether parsed JSON (dicts and lists, no cycles) nests deeper than ``limit``."""
    if not isinstance(value, (dict, list)):
        return False
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return True
        for child in node.values() if isinstance(node, dict) else node:
            if isinstance(child, (dict, list)):
                stack.append((child, depth + 1))
    return False


def loads(text: str | bytes | bytearray, limit: int = MAX_JSON_DEPTH) -> Any:
    """``json.loads`` with the depth limit: raises json.JSONDecodeError as it does, and
    TooDeep (also a ValueError) instead of RecursionError or a too deep result.
    ``limit`` is for a document that wraps others a few levels down (a recording line)."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise TooDeep(limit) from None
    if may_be_too_deep(text, limit) and too_deep(value, limit):
        raise TooDeep(limit)
    return value
