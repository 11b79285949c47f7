"""Save a file part to disk: a safe name, never overwriting, in a folder you choose."""

from __future__ import annotations

import mimetypes
import os
import re
import unicodedata
from pathlib import Path

import regex
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static

from ...protocol.models import FileContent
from ...textsafe import INVISIBLE, visible
from ..widgets.formatting import decode_base64, file_summary
from ..widgets.key_footer import KeyFooter

_RESERVED = regex.compile(f'[<>:"|?*\\x00-\\x1f\\x7f-\\x9f\\u200d{INVISIBLE}]', regex.VERSION1)
_WINDOWS_DEVICES = {"CON", "PRN", "AUX", "NUL", *(f"COM{i}" for i in range(1, 10)), *(f"LPT{i}" for i in range(1, 10))}
MAX_NAME = 150


def safe_filename(name: str | None, mime_type: str | None = None) -> str:
    """A file name from an agent-supplied one that cannot leave the chosen folder.

    Path separators are stripped (the last component is kept), control and reserved
    characters become ``_``, leading dots go (no hidden files, no ``..``), the length is
    capped keeping the extension. With nothing left: ``file`` plus an extension guessed
    from the MIME type."""
    raw = unicodedata.normalize("NFC", name or "")
    components = [c for c in re.split(r"[/\\]+", raw) if c.strip() not in ("", ".", "..")]
    base = components[-1] if components else ""
    base = _RESERVED.sub("_", base).strip().lstrip(".").strip()
    if base.split(".")[0].upper() in _WINDOWS_DEVICES:
        base = "_" + base
    if not base:
        ext = mimetypes.guess_extension(mime_type or "") or ""
        base = "file" + ext
    if len(base) > MAX_NAME:
        stem, dot, ext = base.rpartition(".")
        if dot and 0 < len(ext) <= 16:
            base = stem[: MAX_NAME - len(ext) - 1] + "." + ext
        else:
            base = base[:MAX_NAME]
    return base


def write_new_file(directory: Path, name: str, data: bytes) -> Path:
    """Write ``data`` to ``directory/name``, or ``name (1)``, ``name (2)``... whichever does
    not exist yet (exclusive create: an existing file is never overwritten)."""
    directory.mkdir(parents=True, exist_ok=True)
    stem, ext = os.path.splitext(name)
    for n in range(0, 10_000):
        candidate = directory / (name if n == 0 else f"{stem} ({n}){ext}")
        try:
            with open(candidate, "xb") as fh:
                fh.write(data)
        except FileExistsError:
            continue
        return candidate
    raise FileExistsError(f"too many files named like {name} in {directory}")


def save_file_part(file: FileContent, directory: Path, name: str) -> Path:
    """Decode an inline file part and write it under a safe name; returns the path."""
    if file.bytes is None:
        raise ValueError("this file part has no inline bytes (it is a URI)")
    data = decode_base64(file.bytes)
    return write_new_file(directory.expanduser(), safe_filename(name, file.mime_type), data)


def downloads_dir() -> Path:
    import platformdirs

    return Path(platformdirs.user_downloads_dir())


class SaveFileScreen(ModalScreen[Path | None]):
    """Ask where to save a file part; dismisses with the path written, or None.

    BINDINGS:
        enter: save (in either field).
        ctrl+d: the folder becomes your downloads folder.
        ctrl+w: the folder becomes the current directory.
        escape: cancel.
    """

    DEFAULT_CSS = """
    SaveFileScreen { align: center middle; }
    SaveFileScreen > Vertical {
        width: 76; height: auto; padding: 1 2;
        border: thick $primary; background: $surface;
    }
    SaveFileScreen #save-summary { margin-bottom: 1; color: $foreground-muted; }
    SaveFileScreen #save-error { color: $error; }
    SaveFileScreen #save-hint { color: $foreground-muted; margin-top: 1; }
    """

    BINDINGS = [
        Binding("escape", "cancel", "Cancel"),
        Binding("ctrl+d", "folder('downloads')", "Downloads folder"),
        Binding("ctrl+w", "folder('cwd')", "Current folder"),
    ]

    def __init__(self, file: FileContent, directory: Path | None = None) -> None:
        super().__init__()
        self.file = file
        self.directory = directory or Path.cwd()

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Save file part", markup=False)
            yield Static(Text(file_summary(self.file)), id="save-summary")
            yield Label("folder", markup=False)
            yield Input(str(self.directory), id="save-dir")
            yield Label("file name (separators are stripped; an existing file is never replaced)", markup=False)
            yield Input(safe_filename(self.file.name, self.file.mime_type), id="save-name")
            yield Static("", id="save-error")
            yield Static(Text("enter save · ctrl+d downloads · ctrl+w current folder · escape cancel"), id="save-hint")
        # This screen's own keys: the main screen's footer below would name keys that do nothing here.
        yield KeyFooter(compact=True)

    def on_mount(self) -> None:
        self.query_one("#save-name", Input).focus()

    def action_folder(self, which: str) -> None:
        try:
            folder = downloads_dir() if which == "downloads" else Path.cwd()
        except Exception as exc:  # platformdirs on an odd system
            self._error(f"no {which} folder: {exc}")
            return
        self.query_one("#save-dir", Input).value = str(folder)

    def action_cancel(self) -> None:
        self.dismiss(None)

    def _error(self, text: str) -> None:
        self.query_one("#save-error", Static).update(Text(visible(text)))

    @on(Input.Submitted)
    def _save(self, event: Input.Submitted) -> None:
        event.stop()
        folder = self.query_one("#save-dir", Input).value.strip() or "."
        name = self.query_one("#save-name", Input).value
        try:
            path = save_file_part(self.file, Path(folder), name)
        except (OSError, ValueError) as exc:
            self._error(f"not saved: {exc}")
            return
        self.dismiss(path)
