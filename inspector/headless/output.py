"""Where headless output goes: stdout, in text, JSON or NDJSON, never with raw agent bytes.

Writes go through :class:`Out` so a closed pipe (``| head``) ends the program quietly
and so every string an agent supplied passes through ``visible()`` in text mode.
JSON output keeps non-ASCII text readable (``ensure_ascii=False``); ``json.dumps``
escapes C0 controls such as ESC itself, and ``_json_text`` escapes what it leaves raw
that a terminal could act on or that would not show: DEL, C1 controls (0x9b is CSI),
bidi overrides and invisible format characters.
"""

from __future__ import annotations

import json
import re
import sys
import uuid
from collections.abc import Callable, Iterable, Iterator
from contextvars import ContextVar
from dataclasses import replace
from typing import Any, TextIO

import regex

from ..pipeout import silence
from ..protocol import models as m
from ..textsafe import INVISIBLE

#: The ``formatVersion`` of every ``-o json`` document (the shapes: output_model.py,
#: docs/output.md).
FORMAT_VERSION = 1


# Outside strings JSON has only ASCII, so these can only occur inside a string, where a
# \uXXXX escape means the same character: the document decodes to the same value.
# Invisible format characters (zero-width joiner included) are escaped too: the value is
# the same, and a reader sees them. A JSON escape is UTF-16, so one above U+FFFF is
# written as its surrogate pair.
_JSON_UNSAFE = regex.compile(f"[\x7f-\x9f\u200d{INVISIBLE}]", regex.VERSION1)


def _json_escape(ch: str) -> str:
    code = ord(ch)
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def _json_text(text: str) -> str:
    return _JSON_UNSAFE.sub(lambda mt: _json_escape(mt.group()), text)


#: Characters written at once while a long value is written a piece at a time.
WRITE = 1 << 16


class LazyList:
    """A JSON array in a ``-o json`` document, made an item at a time while it is written
    (a streamed artifact's million parts): ``items()`` gives them."""

    __slots__ = ("items",)

    def __init__(self, items: Callable[[], Iterable[Any]]) -> None:
        self.items = items


class LazyText:
    """A JSON string in a ``-o json`` document, written a piece at a time: ``pieces()``
    gives the text in order (and may be called twice)."""

    __slots__ = ("pieces",)

    def __init__(self, pieces: Callable[[], Iterable[str]]) -> None:
        self.pieces = pieces


def _swap_lazy(node: Any, lazy: list[Any], token: str) -> Any:
    """``node`` with each LazyList and LazyText in it replaced by ``"TOKEN-N"``
    (N: its place in ``lazy``)."""
    if node.__class__ is LazyList or node.__class__ is LazyText:
        lazy.append(node)
        return f"{token}-{len(lazy) - 1}"
    if isinstance(node, dict):
        return {k: _swap_lazy(v, lazy, token) for k, v in node.items()}
    if isinstance(node, list):
        return [_swap_lazy(v, lazy, token) for v in node]
    return node


def _escaped(text: str) -> str:
    """``text`` as the inside of a JSON string, as json_doc writes it (character by
    character: the pieces of a text escape to the pieces of its escape)."""
    return _json_text(json.dumps(text, ensure_ascii=False)[1:-1])


class PipeClosed(Exception):
    """stdout's reader went away; stop writing and exit quietly."""


class Out:
    """``redaction`` (session.redact.Redaction): what is printed has its secrets
    redacted as a recording has them (URLs, the values the user gave)."""

    def __init__(self, stream: TextIO | None = None, redaction: Any = None) -> None:
        self.stream = stream or sys.stdout
        self.redaction = redaction

    def add_secret(self, value: str) -> None:
        """A secret learned on the way (an OAuth 2.0 token): redacted from now on."""
        if self.redaction is not None:
            self.redaction = replace(self.redaction, values=(*self.redaction.values, value))

    def line(self, text: str = "") -> None:
        if self.redaction is not None:
            text = self.redaction.shown(text)
        self._write(text + "\n")

    def json_line(self, obj: Any) -> None:
        if self.redaction is not None:
            obj = self.redaction.shown_json(obj)
        self._write(_json_text(json.dumps(obj, ensure_ascii=False, separators=(",", ":"))) + "\n")

    def json_doc(self, obj: Any) -> None:
        """``obj`` as an indented JSON document. A LazyList or LazyText in it is written a
        piece at a time, the same characters as if it were a list or a string: a
        document with a million-chunk artifact never exists whole in memory."""
        if self.redaction is not None:
            obj = self.redaction.shown_json(obj)  # (a lazy value is left as it is: below)
        lazy: list[Any] = []
        # A fresh token: no agent can have written it into its text beforehand.
        token = uuid.uuid4().hex
        text = _json_text(json.dumps(_swap_lazy(obj, lazy, token), ensure_ascii=False, indent=2))
        if not lazy:
            self._write(text + "\n")
            return
        at = 0
        for found in re.finditer(f'"{token}-([0-9]+)"', text):
            self._write(text[at : found.start()], flush=False)
            line = text.rfind("\n", 0, found.start()) + 1
            indent = len(text[line : found.start()]) - len(text[line : found.start()].lstrip(" "))
            self._write_chunks(self._lazy_json(lazy[int(found.group(1))], indent))
            at = found.end()
        self._write(text[at:] + "\n")

    def _lazy_json(self, node: Any, indent: int) -> Iterator[str]:
        """A lazy value's JSON, in pieces, as ``json.dumps(..., indent=2)`` writes it at
        ``indent`` spaces, redacted as ``json_doc`` redacts the rest."""
        shown = self.redaction
        if node.__class__ is LazyText:
            yield '"'
            if shown is not None and shown.may_change(node.pieces()):
                if any("\n" in value for value in shown.values):
                    # A secret across lines: redacted as one string, as a string would be.
                    whole = shown.shown("".join(node.pieces()))
                    for at in range(0, len(whole), WRITE):
                        yield _escaped(whole[at : at + WRITE])
                else:
                    from .render import text_lines

                    # A line at a time: no URL (it ends at whitespace) nor secret spans two.
                    for i, line in enumerate(text_lines(node.pieces())):
                        yield _escaped(("\n" if i else "") + shown.shown(line))
            else:
                for piece in node.pieces():
                    yield _escaped(piece)
            yield '"'
            return
        pad = "\n" + " " * (indent + 2)
        first = True
        for item in node.items():
            if shown is not None:
                item = shown.shown_json(item)
            yield (
                ("[" if first else ",")
                + pad
                + _json_text(json.dumps(item, ensure_ascii=False, indent=2).replace("\n", pad))
            )
            first = False
        yield "[]" if first else "\n" + " " * indent + "]"

    def _write_chunks(self, pieces: Iterable[str]) -> None:
        batch: list[str] = []
        size = 0
        for piece in pieces:
            batch.append(piece)
            size += len(piece)
            if size >= WRITE:
                self._write("".join(batch), flush=False)
                batch, size = [], 0
        self._write("".join(batch), flush=False)

    def _write(self, text: str, flush: bool = True) -> None:
        try:
            self.stream.write(text)
            if flush:
                self.stream.flush()
        except BrokenPipeError:
            silence(self.stream)
            raise PipeClosed from None


KIND = {
    m.Task: "task",
    m.Message: "message",
    m.TaskStatusUpdateEvent: "status-update",
    m.TaskArtifactUpdateEvent: "artifact-update",
}


def event_json(obj: Any) -> Any:
    """A normalised object as JSON in the 0.3 spelling with its ``kind``, whatever the
    dialect on the wire: one vocabulary for scripts that read our output."""
    if isinstance(obj, m.A2AModel):
        out = obj.wire()
        kind = KIND.get(type(obj))
        return {"kind": kind, **out} if kind else out
    if isinstance(obj, list):
        return [event_json(x) for x in obj]
    return obj


#: The command's Out, for whatever learns a secret after it was made (client.oauth2).
CURRENT: ContextVar[Out | None] = ContextVar("a2a_inspect_out", default=None)
