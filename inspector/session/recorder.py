"""Recording a session as JSONL while it happens.

One header line, then one event per line, each written and flushed to the OS as the
event is appended: a process killed at any moment leaves a file whose every complete
line is an event, and at most the event being written is lost (the reader reports the
cut-off line). Flushing is not fsync: this survives a crash of the tool, not of the
machine.

A disk problem must never take the session down with it, so a failed write is reported
once (``error``, ``on_error``, the log) and the recorder stops; the session goes on.
The format is documented for users in docs/recording-format.md.
"""

from __future__ import annotations

import base64
import json
import logging
import os
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .. import __version__
from .events import Event, Kind
from .log import Session
from .redact import Redaction

FORMAT = "a2a-inspect-recording"
#: Bumped only for changes an older reader would misread; additions keep the number.
VERSION = 1

log = logging.getLogger(__name__)

#: A string field longer than this (a body cut at 64 MiB, say) is encoded and written a
#: piece at a time: escaping makes a string up to six times longer, and the whole line
#: at once would cost several times that in memory.
SPLICE_OVER = 1 << 20


class Recorder:
    """Writes events to ``path``. Use :meth:`attach` to record a session.

    The file is created when the recorder is, private (0600): failing to open it raises
    (the user asked for this file and must hear why not). An existing file is not replaced unless
    ``overwrite`` is true, since it is likely an earlier recording. With ``append``, this
    session is added to the end of an existing recording (a header line of its own, then
    its events: the reader reads every session of a file; see docs/recording-format.md);
    a file that is not a recording is refused (ValueError) rather than appended to."""

    def __init__(
        self,
        path: str | Path,
        *,
        redact: bool | Redaction = True,
        extra_secret_headers: Iterable[str] = (),
        overwrite: bool = False,
        on_error: Callable[[Exception], None] | None = None,
        session_started: float | None = None,
        append: bool = False,
    ) -> None:
        self.path = Path(path)
        if isinstance(redact, Redaction):
            self.redaction = redact
        else:
            self.redaction = Redaction(bool(redact), tuple(extra_secret_headers))
        # Whether secret values are scrubbed from each line (the per-event test is skipped without).
        self._values = bool(self.redaction.enabled and self.redaction.values)
        #: The write error that stopped the recorder, if one did.
        self.error: Exception | None = None
        self.events_written = 0
        self._on_error = on_error
        self._session: Session | None = None
        self._file = _open_appending(self.path) if append else _open_private(self.path, overwrite)
        self._write(json.dumps(self._header(session_started), ensure_ascii=True))

    @classmethod
    def attach(
        cls,
        session: Session,
        path: str | Path,
        redact: bool | Redaction = True,
        extra_secret_headers: Iterable[str] = (),
        *,
        overwrite: bool = False,
        on_error: Callable[[Exception], None] | None = None,
        append: bool = False,
    ) -> Recorder:
        """Start recording ``session``, beginning with every event it already holds."""
        rec = cls(
            path,
            redact=redact,
            extra_secret_headers=extra_secret_headers,
            overwrite=overwrite,
            on_error=on_error,
            session_started=session.started_wall,
            append=append,
        )
        rec._session = session
        session.subscribe(rec.record, replay=True)
        return rec

    def add_secret(self, value: str) -> None:
        """A secret learned after the recording began (an OAuth 2.0 token): redacted
        from the next event on, wherever it appears."""
        if self.redaction.enabled:
            self.redaction = replace(self.redaction, values=(*self.redaction.values, value))
            self._values = bool(self.redaction.values)

    @property
    def active(self) -> bool:
        return self._file is not None and self.error is None

    def _header(self, session_started: float | None) -> dict[str, Any]:
        now = time.time()
        return {
            "format": FORMAT,
            "version": VERSION,
            "created": datetime.fromtimestamp(now, UTC).isoformat(timespec="seconds"),
            "created_unix": round(now, 6),
            "tool": "a2a-inspect",
            "tool_version": __version__,
            "session_started": session_started,
            "redaction": self.redaction.settings(),
        }

    def record(self, event: Event) -> None:
        """The session listener: one event, one line, flushed."""
        if self._file is None or self.error is not None:
            return
        try:
            obj = self.redaction.event_json(event)
            big = [key for key, value in obj.items() if isinstance(value, str) and len(value) > SPLICE_OVER]
            if big:
                self._write_spliced(obj, big)
                if self.error is None:
                    self.events_written += 1
                return
            line = json.dumps(obj, ensure_ascii=True, separators=(",", ":"), default=_jsonable)
            if self._values:
                raw = event.raw if event.kind is Kind.SSE else None
                line = self.redaction.line(line, obj, raw if raw.__class__ is str else None)
        except (TypeError, ValueError, RecursionError) as exc:
            # A bug upstream put something unwritable in the data; keep the event's place
            # and say what happened rather than drop it silently.
            line = json.dumps({**_stub(event), "text": f"[recorder: event data not serialisable: {exc}]"})
        self._write(line)
        if self.error is None:
            self.events_written += 1

    def _write_spliced(self, obj: dict[str, Any], big: list[str]) -> None:
        """The same line json.dumps would make, with each field in ``big`` encoded in
        pieces: the rest of the event is dumped with a unique token in their place."""
        obj = dict(obj)
        token = f"\x00{uuid.uuid4().hex}\x00"
        for i, key in enumerate(big):
            obj[key], big[i] = f"{token}{i}", obj[key]
        rest = json.dumps(obj, ensure_ascii=True, separators=(",", ":"), default=_jsonable)
        encode = json.encoder.encode_basestring_ascii
        try:
            for i, value in enumerate(big):
                before, rest = rest.split(encode(f"{token}{i}"), 1)
                self._file.write(before + '"')
                for start in range(0, len(value), SPLICE_OVER // 4):
                    self._file.write(encode(value[start : start + SPLICE_OVER // 4])[1:-1])
                self._file.write('"')
            self._file.write(rest + "\n")
            self._file.flush()
        except (OSError, ValueError) as exc:
            self._fail(exc)

    def _write(self, line: str) -> None:
        # ensure_ascii keeps every line pure ASCII: no encoding error can stop a write,
        # and no Unicode line separator can split an event when the file is read back.
        try:
            self._file.write(line + "\n")
            self._file.flush()
        except (OSError, ValueError) as exc:
            self._fail(exc)

    def _fail(self, exc: Exception) -> None:
        self.error = exc
        log.error("recording to %s stopped: %s", self.path, exc)
        try:
            self._file.close()
        except (OSError, ValueError):
            pass
        if self._on_error is not None:
            try:
                self._on_error(exc)
            except Exception:  # the callback is UI code; its failure must not reach the session
                log.exception("recorder on_error callback failed")

    def close(self) -> None:
        """Stop recording and close the file. Safe to call twice."""
        if self._session is not None:
            try:
                self._session.unsubscribe(self.record)
            except ValueError:
                pass
            self._session = None
        if self._file is not None:
            f, self._file = self._file, None
            try:
                f.close()
            except OSError as exc:
                if self.error is None:
                    self.error = exc

    def __enter__(self) -> Recorder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _open_private(path: Path, overwrite: bool) -> Any:
    """The recording file, readable and writable by its owner only (0600): it holds
    everything the agent said, and secrets when recorded with ``--no-redact``."""
    flags = os.O_WRONLY | os.O_CREAT | (os.O_TRUNC if overwrite else os.O_EXCL)
    fd = os.open(path, flags, 0o600)
    try:
        if overwrite and hasattr(os, "fchmod"):
            os.fchmod(fd, 0o600)  # a replaced file would keep its old mode
        return os.fdopen(fd, "w", encoding="utf-8", newline="\n")
    except BaseException:
        os.close(fd)
        raise


def _open_appending(path: Path) -> Any:
    """An existing recording opened at its end (a missing file is created, 0600). Its
    first line must be a recording's header: anything else is not ours to add to."""
    try:
        with open(path, "rb") as fh:
            first = fh.readline(64 * 1024)
            fh.seek(0, os.SEEK_END)
            ends_cleanly = fh.tell() == 0 or (fh.seek(-1, os.SEEK_END) or fh.read(1) == b"\n")
    except FileNotFoundError:
        return _open_private(path, False)
    if first.strip():
        try:
            header = json.loads(first)
        except ValueError:
            header = None
        if not isinstance(header, dict) or header.get("format") != FORMAT:
            raise ValueError(f"{path.name} is not an a2a-inspect recording: not appending to it")
    fd = os.open(path, os.O_WRONLY | os.O_APPEND, 0o600)
    try:
        out = os.fdopen(fd, "w", encoding="utf-8", newline="\n")
    except BaseException:
        os.close(fd)
        raise
    if not ends_cleanly:
        out.write("\n")  # a recording cut off mid-line: the cut line stays a line of its own
    return out


def _jsonable(value: Any) -> Any:
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    return repr(value)


def _stub(event: Event) -> dict[str, Any]:
    return {
        "seq": event.seq,
        "t": round(event.t, 6),
        "wall": round(event.wall, 6),
        "kind": Kind.NOTE.value,
        "exchange": event.exchange,
        "original_kind": event.kind.value,
    }
