"""Pick a file for a file part: a local path (sent inline as base64, or by file:// URI)
or a URI. The path is checked as you type: name, size and guessed MIME type."""

from __future__ import annotations

import mimetypes
from pathlib import Path
from urllib.parse import urlsplit

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, RadioButton, RadioSet

from ...headless.compose import UsageError, file_part, file_uri_part
from ...protocol import models as m
from ...protocol.sizes import format_size
from ...textsafe import shorten
from ..widgets.key_footer import KeyFooter

#: Above this, inline bytes get a warning (many agents cap request bodies near 1 MiB).
LARGE = 1024 * 1024


def is_uri(text: str) -> bool:
    parts = urlsplit(text.strip())
    return len(parts.scheme) > 1 and bool(parts.netloc or parts.path) and "://" in text


def describe_path(text: str) -> tuple[bool, str]:
    """(usable, what it is) for the path or URI typed so far."""
    text = text.strip()
    if not text:
        return False, "type a file path, or a URI (https://…, file://…)"
    if is_uri(text):
        parsed = urlsplit(text)
        name = Path(parsed.path).name or "(no name)"
        mime = mimetypes.guess_type(parsed.path)[0] or "?"
        return True, f"URI · {shorten(name, 40)} · {mime} (sent by reference)"
    path = Path(text).expanduser()
    try:
        if not path.exists():
            return False, f"✗ no such file: {shorten(str(path), 80)}"
        if not path.is_file():
            return False, f"✗ not a file: {shorten(str(path), 80)}"
        size = path.stat().st_size
    except OSError as exc:
        return False, f"✗ {exc.strerror or exc}"
    mime = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    note = " · large for an inline part" if size > LARGE else ""
    return True, f"{shorten(path.name, 40)} · {format_size(size)} · {mime}{note}"


class FilePickScreen(ModalScreen[m.FilePart | None]):
    """Dismisses with the file part, or None on escape.

    BINDINGS: enter / ctrl+s adds the part, escape cancels, tab reaches the
    bytes-or-URI choice (arrows + space/enter switch it).
    """

    DEFAULT_CSS = """
    FilePickScreen { align: center middle; }
    FilePickScreen > Vertical {
        width: 80; height: auto; padding: 1 2;
        border: thick $primary; background: $surface;
    }
    FilePickScreen .file-title { text-style: bold; margin-bottom: 1; }
    FilePickScreen #file-info { height: auto; margin: 1 0; }
    FilePickScreen #file-info.-bad { color: $error; }
    FilePickScreen #file-info.-ok { color: $success; }
    FilePickScreen RadioSet { width: 100%; height: auto; }
    FilePickScreen .file-hint { color: $foreground-muted; margin-top: 1; }
    FilePickScreen #file-buttons { height: auto; align-horizontal: right; }
    FilePickScreen Button { margin-left: 1; }
    """
    BINDINGS = [
        Binding("escape", "cancel", "Cancel"),
        Binding("ctrl+s", "add", "Add part"),
    ]

    def __init__(self, path: str = "", *, by_uri: bool = False) -> None:
        super().__init__()
        self.initial = path
        self.by_uri = by_uri

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Add a file part", classes="file-title")
            yield Input(self.initial, placeholder="path/to/file, ~/file, or https://host/file.pdf", id="file-path")
            yield Label("", id="file-info", markup=False)
            with RadioSet(id="file-how"):
                yield RadioButton("inline bytes (base64 in the message)", value=not self.by_uri, id="file-bytes")
                yield RadioButton("by URI (file:// for a local path)", value=self.by_uri, id="file-uri")
            yield Label("enter / ctrl+s add · escape cancel", classes="file-hint")
            with Horizontal(id="file-buttons"):
                yield Button("Cancel", id="file-cancel", compact=True)
                yield Button("Add", id="file-add", variant="primary", compact=True)
        # This screen's own keys: the main screen's footer below would name keys that do nothing here.
        yield KeyFooter(compact=True)

    def on_mount(self) -> None:
        self._describe()
        self.query_one("#file-path", Input).focus()

    @on(Input.Changed, "#file-path")
    def _describe(self) -> None:
        ok, text = describe_path(self.query_one("#file-path", Input).value)
        info = self.query_one("#file-info", Label)
        info.update(text)
        info.set_class(not ok and bool(self.query_one("#file-path", Input).value.strip()), "-bad")
        info.set_class(ok, "-ok")

    @on(Input.Submitted, "#file-path")
    def _submitted(self) -> None:
        self.action_add()

    @on(Button.Pressed, "#file-add")
    def _add_pressed(self) -> None:
        self.action_add()

    @on(Button.Pressed, "#file-cancel")
    def _cancel_pressed(self) -> None:
        self.action_cancel()

    def build(self) -> m.FilePart:
        """The part for what was entered; UsageError says what is wrong."""
        text = self.query_one("#file-path", Input).value.strip()
        if not text:
            raise UsageError("type a file path or a URI")
        if is_uri(text):
            return file_uri_part(text)
        by_uri = self.query_one("#file-uri", RadioButton).value
        if by_uri:
            path = Path(text).expanduser()
            if not path.is_file():
                raise UsageError(f"file not found: {text}")
            part = file_uri_part(path.resolve().as_uri())
            part.file.mime_type = part.file.mime_type or "application/octet-stream"
            return part
        return file_part(text)

    def action_add(self) -> None:
        try:
            part = self.build()
        except UsageError as exc:
            info = self.query_one("#file-info", Label)
            info.update(f"✗ {exc}")
            info.set_class(True, "-bad")
            info.set_class(False, "-ok")
            return
        self.dismiss(part)

    def action_cancel(self) -> None:
        self.dismiss(None)
