"""Themes from YAML files: the ones shipped as the package inspector.themes (themes/ at
the top of the repository) and the user's own.

The keys follow Posting's theme files (name, primary, secondary, accent, background,
surface, panel, error, success, warning, foreground, dark; unknown sections such as
text_area or syntax are accepted and ignored) plus ``states``: a colour per task state,
exposed to CSS as ``$state-<state>`` (e.g. ``$state-input-required``).

A bad file never stops the app: it is skipped and reported as one notification, the
first time that version of the file is seen broken; after that, only ctrl+e's list has
it (a toast at every start about a file you are not editing is noise).
"""

from __future__ import annotations

from functools import cache, lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import yaml
from textual.color import Color, ColorParseError
from textual.theme import Theme

from .. import store

STATES = (
    "submitted",
    "working",
    "input-required",
    "auth-required",
    "completed",
    "canceled",
    "failed",
    "rejected",
    "unknown",
)

#: For a theme that gives no state colours (a user theme without ``states``, or any of
#: Textual's own themes): the theme colour each state borrows, so any palette looks right.
#: Textual does not resolve ``$name`` references inside variable values, so these are
#: resolved for the theme in use (``borrowed_state_variables``, from
#: InspectorApp.get_css_variables).
STATE_THEME_COLOURS: dict[str, str] = {
    "state-submitted": "secondary",
    "state-working": "accent",
    "state-input-required": "warning",
    "state-auth-required": "warning",
    "state-completed": "success",
    "state-canceled": "foreground-muted",
    "state-failed": "error",
    "state-rejected": "error",
    "state-unknown": "foreground-muted",
}

#: Last-resort values (App.get_theme_variable_defaults) for a theme registered after
#: start-up without state colours: concrete colours, so CSS never meets an unresolved
#: reference (which Textual reports as a stylesheet error and stops the app).
STATE_VARIABLE_DEFAULTS: dict[str, str] = {
    "state-submitted": "#9D7CD8",
    "state-working": "#2AC3DE",
    "state-input-required": "#E0AF68",
    "state-auth-required": "#FF9E64",
    "state-completed": "#9ECE6A",
    "state-canceled": "#737AA2",
    "state-failed": "#F7768E",
    "state-rejected": "#DB4B4B",
    "state-unknown": "#565F89",
}


def borrowed_state_variables(theme: Theme, colours: dict[str, str]) -> dict[str, str]:
    """The ``state-*`` variables ``theme`` does not give, each borrowed from the theme
    colour ``STATE_THEME_COLOURS`` names; ``colours`` are the theme's CSS variables."""
    return {
        name: colours.get(colour) or STATE_VARIABLE_DEFAULTS[name]
        for name, colour in STATE_THEME_COLOURS.items()
        if name not in theme.variables
    }


def _colour(value: str | None) -> str | None:
    if value is None:
        return None
    try:
        Color.parse(value)
    except ColorParseError:
        raise ValueError(f"not a colour: {value!r}") from None
    return value


COLOUR_KEYS = (
    "primary",
    "secondary",
    "accent",
    "background",
    "surface",
    "panel",
    "error",
    "success",
    "warning",
    "foreground",
)


@cache
def theme_file_model() -> Any:
    """The pydantic model of a theme file, built on first use: a theme file of plain
    values is read without it (``_plain_theme``), so the first frame does not import
    pydantic; anything else (a wrong type, a "yes" for a bool) is checked here, for its
    coercions and its messages."""
    from pydantic import BaseModel, ConfigDict, Field, field_validator

    class ThemeFile(BaseModel):
        model_config = ConfigDict(extra="ignore")

        name: str = Field(min_length=1)
        primary: str
        secondary: str | None = None
        accent: str | None = None
        background: str | None = None
        surface: str | None = None
        panel: str | None = None
        error: str | None = None
        success: str | None = None
        warning: str | None = None
        foreground: str | None = None
        dark: bool = True
        states: dict[str, str] = Field(default_factory=dict)
        variables: dict[str, str] = Field(default_factory=dict)

        @field_validator(*COLOUR_KEYS)
        @classmethod
        def _is_colour(cls, value: str | None) -> str | None:
            return _colour(value)

        @field_validator("states")
        @classmethod
        def _known_states(cls, value: dict[str, str]) -> dict[str, str]:
            for state, colour in value.items():
                if state not in STATES:
                    raise ValueError(f"unknown task state {state!r} (one of: {', '.join(STATES)})")
                _colour(colour)
            return value

        def to_theme(self) -> Theme:
            return _theme(self.model_dump())

    return ThemeFile


def _theme(values: dict[str, Any]) -> Theme:
    variables = {f"state-{k}": v for k, v in values["states"].items()}
    variables.update(values["variables"])
    return Theme(
        name=values["name"],
        primary=values["primary"],
        secondary=values["secondary"],
        accent=values["accent"],
        background=values["background"],
        surface=values["surface"],
        panel=values["panel"],
        error=values["error"],
        success=values["success"],
        warning=values["warning"],
        foreground=values["foreground"],
        dark=values["dark"],
        variables=variables,
    )


def _plain_theme(raw: dict[Any, Any]) -> Theme | None:
    """The theme of a file whose values are all of exactly their types and valid (what
    the shipped themes are), as ThemeFile would make it; else None."""
    name = raw.get("name")
    if type(name) is not str or not name or type(raw.get("primary")) is not str:
        return None
    values: dict[str, Any] = {"name": name}
    for key in COLOUR_KEYS:
        value = raw.get(key)
        if value is not None and (type(value) is not str or not _is_colour(value)):
            return None
        values[key] = value
    values["dark"] = raw.get("dark", True)
    if type(values["dark"]) is not bool:
        return None
    for key in ("states", "variables"):
        table = raw.get(key, {})
        if type(table) is not dict or any(type(k) is not str or type(v) is not str for k, v in table.items()):
            return None
        values[key] = dict(table)
    if any(state not in STATES or not _is_colour(colour) for state, colour in values["states"].items()):
        return None
    return _theme(values)


def _is_colour(value: str) -> bool:
    try:
        _colour(value)
    except ValueError:
        return False
    return True


class ThemeError(Exception):
    pass


#: Theme files up to this size are remembered once read (see ``_remembered_theme``).
REMEMBERED_THEME_BYTES = 64 * 1024


def load_theme_file(path: Path) -> Theme:
    """Read one theme file; ThemeError names the file and what is wrong."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ThemeError(f"theme {path.name}: cannot read it ({exc})") from None
    if len(text) <= REMEMBERED_THEME_BYTES:
        return _remembered_theme(path.name, text)
    return _theme_from_text(path.name, text)


@lru_cache(maxsize=32)
def _remembered_theme(name: str, text: str) -> Theme:
    # Every start registers every theme file: their YAML was ~5% of an app's start in
    # a process that starts many (the test suite), for files that had not changed. Keyed
    # by content, so a file edited between two starts is read afresh.
    return _theme_from_text(name, text)


def _theme_from_text(name: str, text: str) -> Theme:
    from ..safeyaml import YAMLLimit, load

    try:
        raw: Any = load(text)
    except YAMLLimit as exc:  # an alias bomb, a cycle, too deep
        where = f" line {exc.problem_mark.line + 1}:" if exc.problem_mark is not None else ""
        raise ThemeError(f"theme {name}:{where} {exc.problem}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark is not None else ""
        raise ThemeError(f"theme {name}:{where} not valid YAML") from None
    if not isinstance(raw, dict):
        raise ThemeError(f"theme {name}: expected a mapping of keys like name, primary, ...")
    plain = _plain_theme(raw)
    if plain is not None:
        return plain
    from pydantic import ValidationError

    try:
        return theme_file_model().model_validate(raw).to_theme()
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or "(file)"
        raise ThemeError(f"theme {name}: {field}: {first['msg']}") from None


def shipped_theme_files() -> list[Path]:
    folder = resources.files("inspector.themes")
    return sorted(Path(str(p)) for p in folder.iterdir() if p.name.endswith((".yaml", ".yml")))


def user_theme_files() -> list[Path]:
    folder = store.themes_dir()
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.suffix in (".yaml", ".yml"))


def register_themes(app: Any) -> list[tuple[str, bool]]:
    """Register shipped then user themes (a user theme may replace a shipped one of the
    same name). Returns (problem line, said before) per bad file: said before when this
    very content of the file was found broken at an earlier start."""
    problems: list[tuple[Path, str]] = []
    for path in [*shipped_theme_files(), *user_theme_files()]:
        try:
            app.register_theme(load_theme_file(path))
        except ThemeError as exc:
            problems.append((path, str(exc)))
    return _said_before(problems)


#: The broken theme files already reported: file path -> hash of the content found broken.
TOLD_FILE = "broken-themes.json"


def _fingerprint(path: Path) -> str:
    import hashlib

    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return "unreadable"


def _said_before(problems: list[tuple[Path, str]]) -> list[tuple[str, bool]]:
    """Which problems were reported at an earlier start, and remember today's: a file
    fixed and broken again differently is new again."""
    import json

    told_path = store.cache_dir() / TOLD_FILE
    try:
        told = json.loads(told_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        told = {}
    if not isinstance(told, dict):
        told = {}
    now = {str(path): _fingerprint(path) for path, _ in problems}
    if now != told:
        try:
            told_path.parent.mkdir(parents=True, exist_ok=True)
            store.write_atomic(told_path, json.dumps(now))
        except OSError:
            pass  # then it is said again next time: no worse than before
    return [(text, told.get(str(path)) == now[str(path)]) for path, text in problems]
