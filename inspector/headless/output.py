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
import sys
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
        if self.redaction is not None:
            obj = self.redaction.shown_json(obj)
        self._write(_json_text(json.dumps(obj, ensure_ascii=False, indent=2)) + "\n")

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
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
