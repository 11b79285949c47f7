"""Build the user's message from command-line options: text, files, file URIs, data."""

from __future__ import annotations

import base64
import json
import mimetypes
import sys
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from ..protocol import models as m
from ..safejson import TooDeep, loads


class UsageError(Exception):
    """Something the user typed is wrong; the message says what (exit 2)."""


def file_part(path: str) -> m.FilePart:
    p = Path(path).expanduser()
    if not p.exists():
        raise UsageError(f"file not found: {path}")
    if not p.is_file():
        raise UsageError(f"not a file: {path}")
    try:
        raw = p.read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
    mime = mimetypes.guess_type(p.name)[0] or "application/octet-stream"
    return m.FilePart(file=m.FileContent(name=p.name, mime_type=mime, bytes=base64.b64encode(raw).decode("ascii")))


def file_uri_part(uri: str) -> m.FilePart:
    parsed = urlparse(uri)
    if not parsed.scheme:
        raise UsageError(f"not a URI (no scheme): {uri}")
    name = unquote(Path(parsed.path).name) or None
    mime = mimetypes.guess_type(parsed.path)[0] if name else None
    return m.FilePart(file=m.FileContent(name=name, mime_type=mime, uri=uri))


#: Who has read standard input already: it can be read once per run.
_stdin_taken_by: list[str] = []


def read_stdin(what: str) -> str:
    """Standard input, whole, as text, for ``what`` (TEXT ``-``, ``--data @-``...). It can
    feed one of them only: a second one is a usage error, not an empty read."""
    if _stdin_taken_by:
        raise UsageError(f"{what}: standard input is already read by {_stdin_taken_by[0]}")
    _stdin_taken_by.append(what)
    stream = sys.stdin
    if stream is None:
        raise UsageError(f"{what}: there is no standard input to read")
    if stream.isatty():
        print(f"a2a-inspect: reading {what} from standard input (end it with Ctrl-D)", file=sys.stderr, flush=True)
    try:
        return stream.buffer.read().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(
            f"{what}: standard input is not UTF-8 (byte 0x{exc.object[exc.start]:02x} at offset {exc.start})"
        ) from None
    except OSError as exc:
        raise UsageError(f"{what}: cannot read standard input: {exc.strerror or exc}") from None


def load_json_arg(value: str, what: str) -> Any:
    """``JSON``, ``@FILE`` or ``@-`` (standard input) -> parsed JSON, with a usage error
    naming ``what``."""
    source = value
    if value == "@-":
        source = read_stdin(f"{what} @-")
    elif value.startswith("@"):
        path = Path(value[1:]).expanduser()
        try:
            source = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise UsageError(f"{what}: file not found: {value[1:]}") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise UsageError(f"{what}: cannot read {value[1:]}: {exc}") from None
    try:
        return loads(source)
    except json.JSONDecodeError as exc:
        raise UsageError(f"{what}: invalid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except TooDeep as exc:
        raise UsageError(f"{what}: invalid JSON: {exc}") from None


def build_message(
    text: str | None,
    *,
    files: Sequence[str] = (),
    file_uris: Sequence[str] = (),
    data: Sequence[str] = (),
    task_id: str | None = None,
    context_id: str | None = None,
) -> m.Message:
    parts: list[Any] = []
    if text == "-":
        # As a shell pipeline gives it: the final newline is the writer's, not the message's.
        text = read_stdin("the message text (-)")
        text = text[:-2] if text.endswith("\r\n") else text[:-1] if text.endswith("\n") else text
        if not text:
            raise UsageError("the message text (-): standard input was empty")
    if text:
        parts.append(m.TextPart(text=text))
    parts.extend(file_part(p) for p in files)
    parts.extend(file_uri_part(u) for u in file_uris)
    parts.extend(m.DataPart(data=load_json_arg(d, "--data")) for d in data)
    if not parts:
        raise UsageError("nothing to send: give TEXT, --file, --file-uri or --data")
    return m.Message(
        role=m.Role.USER, parts=parts, message_id=str(uuid.uuid4()), task_id=task_id, context_id=context_id
    )
