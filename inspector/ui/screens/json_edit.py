"""Edit a JSON value (a data part, or metadata) with live validation, or in $EDITOR."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label, TextArea

from ...textsafe import shorten
from ..typed_app import InspectorAppNode
from ..widgets.key_footer import KeyFooter


@dataclass
class JsonEdited:
    """The result: ``value`` is the parsed JSON (None when an optional value was cleared)."""

    value: Any


def check_json(text: str, *, object_only: bool, allow_empty: bool) -> tuple[Any, str | None, int | None]:
    """(value, problem, line of the problem (1-based)). Empty text is None when allowed."""
    if not text.strip():
        if allow_empty:
            return None, None, None
        return None, "empty: type a JSON value", None
    from ...safejson import TooDeep, loads

    try:
        value = loads(text)
    except json.JSONDecodeError as exc:
        return None, f"line {exc.lineno}, column {exc.colno}: {exc.msg}", exc.lineno
    except TooDeep as exc:
        return None, str(exc), None
    if object_only and not isinstance(value, dict):
        return None, "must be a JSON object ({...})", 1
    return value, None, None


#: The editor when neither $VISUAL nor $EDITOR is set: git's choice, on every Unix.
FALLBACK_EDITOR = "vi"


def editor_command() -> list[str] | None:
    """$VISUAL, else $EDITOR, else ``vi`` when it is on the PATH (as git does); None when
    there is none to run."""
    import shutil

    editor = (os.environ.get("VISUAL") or "").strip() or (os.environ.get("EDITOR") or "").strip()
    if editor:
        try:
            return shlex.split(editor) or None
        except ValueError:  # an unclosed quote: taken as one program's path
            return [editor]
    return [FALLBACK_EDITOR] if shutil.which(FALLBACK_EDITOR) else None


#: What a new data part starts as, and where the cursor goes in it: inside the braces.
OBJECT_TEMPLATE = "{\n  \n}"
OBJECT_TEMPLATE_CURSOR = (1, 2)


class JsonText(TextArea):
    """The editor's text box. ctrl+a selects everything (TextArea's line start stays on
    home). While the text is still the untouched ``template``, typing or pasting a
    value that opens its own brace or bracket replaces the template instead of landing
    inside it, so no brace is left over.

    BINDINGS: ctrl+a selects all.
    """

    BINDINGS = [Binding("ctrl+a", "select_all", "Select all", show=False)]

    def __init__(self, text: str = "", *, template: str | None = None, **kwargs: Any) -> None:
        super().__init__(text, **kwargs)
        self.template = template

    def _pristine(self) -> bool:
        return self.template is not None and self.text == self.template

    # Public handlers: Textual calls a subclass's handler before TextArea's own one
    # (which inserts the key or the pasted text), so the template is gone by then.
    def on_key(self, event: events.Key) -> None:
        if event.character in ("{", "[") and self._pristine():
            self.text = ""

    def on_paste(self, event: events.Paste) -> None:
        if event.text.lstrip()[:1] in ("{", "[") and self._pristine():
            self.text = ""


class JsonEditScreen(InspectorAppNode, ModalScreen[JsonEdited | None]):
    """Dismisses with JsonEdited, or None on escape.

    ``object_only``: the value must be an object (metadata). ``allow_empty``: empty text
    clears the value (optional metadata).

    BINDINGS: ctrl+s saves (when valid), escape cancels, ctrl+o opens $EDITOR (or $VISUAL).
    """

    DEFAULT_CSS = """
    JsonEditScreen { align: center middle; }
    JsonEditScreen > Vertical {
        width: 90%; height: 80%; padding: 1 2;
        border: thick $primary; background: $surface;
    }
    JsonEditScreen .json-title { text-style: bold; }
    JsonEditScreen TextArea { height: 1fr; }
    /* The parser's message and the line it blames wrap in a narrow terminal: cut, the
       message lost what it expected (80 columns ended "in double quo"). */
    JsonEditScreen #json-status { width: 100%; height: auto; margin-top: 1; }
    JsonEditScreen #json-status.-ok { color: $success; }
    JsonEditScreen #json-status.-bad { color: $error; }
    JsonEditScreen #json-error-line { color: $error; width: 100%; height: auto; }
    /* The keys wrap in a narrow terminal instead of being cut. */
    JsonEditScreen .json-hint { color: $foreground-muted; width: 100%; height: auto; }
    JsonEditScreen #json-buttons { height: auto; align-horizontal: right; }
    JsonEditScreen Button { margin-left: 1; }
    """
    BINDINGS = [
        # priority: the text area would otherwise take escape to mean "leave the text area".
        Binding("escape", "cancel", "Cancel", priority=True),
        Binding("ctrl+s", "save", "Save", priority=True),
        Binding("ctrl+o", "external", "Open in $EDITOR"),
    ]

    def __init__(
        self,
        title: str,
        value: Any = None,
        *,
        object_only: bool = False,
        allow_empty: bool = False,
        text: str | None = None,
        cursor: tuple[int, int] | None = None,
        template: bool = False,
        new_object: bool = False,
    ) -> None:
        """``text``: the text to start from instead of ``value``; ``cursor``: where
        the cursor starts (default: the end); ``template``: ``text`` is a template
        (see JsonText); ``new_object``: start from an empty object's template, the
        cursor inside its braces."""
        super().__init__()
        if new_object:
            text, cursor, template = OBJECT_TEMPLATE, OBJECT_TEMPLATE_CURSOR, True
        self.cursor = cursor
        self.template = template
        self.title_text = title
        self.object_only = object_only
        self.allow_empty = allow_empty
        if text is None:
            text = "" if value is None else json.dumps(value, indent=2, ensure_ascii=False)
        self.initial = text
        self.value: Any = None
        self.problem: str | None = None

    def compose(self) -> ComposeResult:
        what = "a JSON object" if self.object_only else "any JSON value"
        if self.allow_empty:
            what += " (empty: none)"
        with Vertical():
            yield Label(f"{self.title_text} — {what}", classes="json-title", markup=False)
            yield JsonText(
                self.initial,
                id="json-text",
                show_line_numbers=True,
                soft_wrap=False,
                tab_behavior="indent",
                template=self.initial if self.template else None,
            )
            yield Label("", id="json-status", markup=False)
            yield Label("", id="json-error-line", markup=False)
            yield Label(
                "ctrl+s save · escape cancel · ctrl+a select all · ctrl+o edit in $EDITOR",
                classes="json-hint",
                markup=False,
            )
            with Horizontal(id="json-buttons"):
                yield Button("Cancel", id="json-cancel", compact=True)
                yield Button("Save", id="json-save", variant="primary", compact=True)
        # This screen's own keys: the main screen's footer below would name keys that do nothing here.
        yield KeyFooter(compact=True)

    def on_mount(self) -> None:
        self.validate_text()
        area = self.text_area
        area.move_cursor(self.cursor if self.cursor is not None else area.document.end)
        area.focus()

    @property
    def text_area(self) -> TextArea:
        return self.query_one("#json-text", TextArea)

    @on(TextArea.Changed, "#json-text")
    def _changed(self) -> None:
        self.validate_text()

    def validate_text(self) -> None:
        text = self.text_area.text
        self.value, self.problem, line = check_json(text, object_only=self.object_only, allow_empty=self.allow_empty)
        status = self.query_one("#json-status", Label)
        error_line = self.query_one("#json-error-line", Label)
        status.set_class(self.problem is None, "-ok")
        status.set_class(self.problem is not None, "-bad")
        if self.problem is None:
            status.update("✓ valid" + ("" if self.value is not None else " (empty: none)"))
            error_line.update("")
            error_line.display = False
            return
        status.update(f"✗ {self.problem}")
        lines = text.split("\n")
        if line is not None and 1 <= line <= len(lines):
            error_line.update(f"{line:>4} │ {shorten(lines[line - 1], 200)}")
            error_line.display = True
        else:
            error_line.display = False

    @on(Button.Pressed, "#json-save")
    def _save_pressed(self) -> None:
        self.action_save()

    @on(Button.Pressed, "#json-cancel")
    def _cancel_pressed(self) -> None:
        self.action_cancel()

    def action_save(self) -> None:
        self.validate_text()
        if self.problem is not None:
            self.app.notify(f"not saved: {self.problem}", severity="error", markup=False)
            return
        self.dismiss(JsonEdited(self.value))

    def action_cancel(self) -> None:
        self.dismiss(None)

    def action_external(self) -> None:
        """Edit the text in $EDITOR (the app is suspended meanwhile)."""
        from textual.app import SuspendNotSupported

        command = editor_command()
        if command is None:
            self.app.notify(
                f"no editor: $VISUAL and $EDITOR are unset and {FALLBACK_EDITOR} is not on the PATH; "
                "set $EDITOR to edit in your own editor",
                severity="warning",
                markup=False,
            )
            return
        fd, name = tempfile.mkstemp(prefix="a2a-inspect-", suffix=".json")
        path = Path(name)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(self.text_area.text)
            try:
                with self.app.suspend():
                    result = subprocess.run([*command, str(path)], check=False)
            except SuspendNotSupported:
                self.app.notify("this terminal cannot hand over to an editor", severity="error")
                return
            except FileNotFoundError:
                self.app.report_error(
                    f"cannot run {command[0]}", OSError(f"{command[0]}: not found (check $VISUAL and $EDITOR)")
                )
                return
            except OSError as exc:
                self.app.report_error(f"cannot run {command[0]}", exc)
                return
            if result.returncode != 0:
                self.app.notify(
                    f"{command[0]} exited with status {result.returncode}; text kept as it was",
                    severity="warning",
                    markup=False,
                )
                return
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            self.app.report_error("editing in $EDITOR failed", exc)
            return
        finally:
            path.unlink(missing_ok=True)
        self.text_area.text = text
        self.validate_text()
