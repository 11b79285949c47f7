"""Scenario files -> Scenario, with every problem named by file, line and field.

YAML is parsed once into a node tree (which keeps line/column marks) and a plain
document. pydantic validates the document; each error's location is then walked back
through the node tree to the line the user wrote. JSON files go through the same path:
YAML reads JSON, so one loader keeps the line numbers for both.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError
from pydantic_core import ErrorDetails

from inspector.safeyaml import BoundedLoader, YAMLLimit
from inspector.safeyaml import load as load_yaml

from . import budget
from .scenario import STEP_TYPES, Scenario, template_problems

SUFFIXES = (".yaml", ".yml", ".json")


@dataclass(frozen=True)
class Problem:
    source: str
    line: int | None  # 1-based
    column: int | None  # 1-based
    field: str
    message: str

    def __str__(self) -> str:
        where = self.source
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        return f"{where}: {self.field + ': ' if self.field else ''}{self.message}"


class ScenarioError(ValueError):
    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))


# ------------------------------------------------------------------------- loading


def load_text(text: str, source: str = "<scenario>") -> Scenario:
    root, document = _parse(text, source)
    if not isinstance(document, dict):
        line, col = _mark(root)
        raise ScenarioError(
            [
                Problem(
                    source,
                    line,
                    col,
                    "",
                    "a scenario file holds a mapping (card:, rules:, ...), not " + _kind(document),
                )
            ]
        )
    problems = _duplicate_keys(root, source)
    try:
        scenario = Scenario.model_validate(document)
    except ValidationError as exc:
        problems += [_problem(err, root, source) for err in exc.errors(include_url=False)]
        raise ScenarioError(problems) from None
    problems += [_at(root, loc, source, msg) for loc, msg in template_problems(scenario)]
    problems += [_at(root, loc, source, msg) for loc, msg in budget.problems(scenario)]
    if problems:
        raise ScenarioError(problems)
    return scenario


def load_file(path: str | Path) -> Scenario:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ScenarioError([Problem(str(path), None, None, "", f"cannot read: {exc}")]) from None
    return load_text(text, str(path))


def builtin_dir() -> Any:
    return resources.files("mock_agent") / "scenarios"


def builtins() -> dict[str, str]:
    """Built-in scenario name -> its one-line description, sorted by name."""
    out: dict[str, str] = {}
    for entry in sorted(builtin_dir().iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".yaml"):
            try:
                doc = load_yaml(entry.read_text(encoding="utf-8")) or {}
            except yaml.YAMLError:
                doc = {}
            lines = str(doc.get("description") or "").strip().splitlines() if isinstance(doc, dict) else []
            out[entry.name[:-5]] = lines[0] if lines else ""
    return out


def load_builtin(name: str) -> Scenario:
    entry = builtin_dir() / f"{name}.yaml"
    if not entry.is_file():
        known = list(builtins())
        close = difflib.get_close_matches(name, known, n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise ScenarioError(
            [Problem(name, None, None, "", f"no built-in scenario named {name!r}{hint}; built-ins: {', '.join(known)}")]
        )
    return load_text(entry.read_text(encoding="utf-8"), f"<built-in {name}>")


def resolve(spec: str | Path | dict[str, Any] | Scenario) -> Scenario:
    """A Scenario, a dict, a file path, or a built-in's name -> Scenario."""
    if isinstance(spec, Scenario):
        return spec
    if isinstance(spec, dict):
        try:
            scenario = Scenario.model_validate(spec)
        except ValidationError as exc:
            raise ScenarioError(
                [
                    Problem("<dict>", None, None, _field(err["loc"]), _message(err))
                    for err in exc.errors(include_url=False)
                ]
            ) from None
        over = budget.problems(scenario)
        if over:
            raise ScenarioError([Problem("<dict>", None, None, _field(loc), msg) for loc, msg in over])
        return scenario
    text = str(spec)
    path = Path(text)
    if isinstance(spec, Path) or path.suffix in SUFFIXES or "/" in text or path.exists():
        return load_file(path)
    return load_builtin(text)


# --------------------------------------------------------------------- YAML + marks


def _parse(text: str, source: str) -> tuple[yaml.Node | None, Any]:
    # Bounded: an alias bomb, a self-referencing alias or 100,000 nested lists is a
    # problem at its line, not a hang or a RecursionError (inspector/safeyaml.py).
    loader = BoundedLoader(text)
    try:
        root = loader.get_single_node()
        document = loader.construct_document(root) if root is not None else None
    except YAMLLimit as exc:
        mark = exc.problem_mark
        assert mark is not None  # raised at an event's mark
        raise ScenarioError([Problem(source, mark.line + 1, mark.column + 1, "", str(exc.problem))]) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark else (None, None)
        what = " ".join(x for x in (exc.context, exc.problem) if x)
        raise ScenarioError([Problem(source, line, col, "", f"not valid YAML/JSON: {what}")]) from None
    except yaml.YAMLError as exc:
        raise ScenarioError([Problem(source, None, None, "", f"not valid YAML/JSON: {exc}")]) from None
    finally:
        loader.dispose()
    return root, document


def _mark(node: yaml.Node | None) -> tuple[int | None, int | None]:
    if node is None:
        return 1, 1
    return node.start_mark.line + 1, node.start_mark.column + 1


def _duplicate_keys(node: yaml.Node | None, source: str) -> list[Problem]:
    # PyYAML keeps the last of two equal keys without a word; in a scenario that hides
    # a whole rule or step, so it is an error here.
    out: list[Problem] = []
    stack = [node] if node is not None else []
    while stack:
        n = stack.pop()
        if isinstance(n, yaml.MappingNode):
            seen: set[str] = set()
            for key, value in n.value:
                if isinstance(key, yaml.ScalarNode):
                    if key.value in seen:
                        line, col = _mark(key)
                        out.append(Problem(source, line, col, key.value, "key given twice in this mapping"))
                    seen.add(key.value)
                stack.append(value)
        elif isinstance(n, yaml.SequenceNode):
            stack.extend(n.value)
    return out


def _is_tag(key: Any) -> bool:
    return isinstance(key, str) and key.startswith("<") and key.endswith(">")


def _variants(key: str) -> set[str]:
    snake = "".join("_" + c.lower() if c.isupper() else c for c in key)
    parts = key.split("_")
    camel = parts[0] + "".join(p[:1].upper() + p[1:] for p in parts[1:])
    out = {key, snake, camel}
    if key == "for_":
        out |= {"for", "duration"}
    if key == "as_":
        out.add("as")
    if key == "artifact_id":
        out.add("id")
    if key == "uri":
        out.add("url")
    if key == "mime_type":
        out |= {"media_type", "mediaType"}
    return out


def _node_for(root: yaml.Node | None, loc: Iterable[Any]) -> yaml.Node | None:
    """The node a pydantic location points at, or the deepest one that exists (for a
    missing field, the mapping that lacks it)."""
    node = root
    key_node: yaml.Node | None = None
    for key in loc:
        if _is_tag(key):
            continue
        if isinstance(node, yaml.MappingNode) and isinstance(key, str):
            names = _variants(key)
            found = next(((k, v) for k, v in node.value if isinstance(k, yaml.ScalarNode) and k.value in names), None)
            if found is None:
                return node
            key_node, node = found
        elif isinstance(node, yaml.SequenceNode) and isinstance(key, int) and 0 <= key < len(node.value):
            key_node, node = None, node.value[key]
        else:
            return node
    # A block mapping or list starts on the line after its key; the field's name is
    # on the key's line, so point there.
    if (
        isinstance(node, (yaml.MappingNode, yaml.SequenceNode))
        and key_node is not None
        and node.start_mark.line != key_node.start_mark.line
    ):
        return key_node
    return node


def _field(loc: Iterable[Any]) -> str:
    out = ""
    for key in loc:
        if _is_tag(key):
            continue
        out += f"[{key}]" if isinstance(key, int) else (f".{key}" if out else str(key))
    return out


def _message(err: ErrorDetails) -> str:
    kind = err.get("type")
    value = err.get("input")
    loc = err.get("loc", ())
    if kind == "extra_forbidden":
        return f"unknown field {loc[-1]!r}" if loc else "unknown field"
    if kind == "missing":
        return f"missing required field {loc[-1]!r}" if loc else "missing required field"
    if kind == "step":
        if isinstance(value, dict):
            keys = ", ".join(repr(k) for k in value) or "nothing"
            close = [c for k in value for c in difflib.get_close_matches(str(k), STEP_TYPES, n=1)]
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            return f"unknown step with {keys}{hint}; a step has one of: {', '.join(STEP_TYPES)}"
        return f"a step is a mapping (e.g. '- status: working'), not {_kind(value)}"
    msg = str(err.get("msg", "invalid"))
    if msg.startswith("Value error, "):
        msg = msg[len("Value error, ") :]
    msg = msg.replace(" or instance of PartSpec", "").replace(" or instance of AgentCard", "")
    if isinstance(value, (str, int, float, bool)) and kind != "value_error" and "got" not in msg:
        shown = repr(value) if len(repr(value)) <= 60 else repr(value)[:57] + "..."
        msg += f" (got {shown})"
    return msg


def _problem(err: ErrorDetails, root: yaml.Node | None, source: str) -> Problem:
    return _at(root, err.get("loc", ()), source, _message(err))


def _at(root: yaml.Node | None, loc: tuple[Any, ...], source: str, message: str) -> Problem:
    line, col = _mark(_node_for(root, loc))
    return Problem(source, line, col, _field(loc), message)


def _kind(value: Any) -> str:
    return {
        dict: "a mapping",
        list: "a list",
        str: "a string",
        type(None): "nothing",
        bool: "a boolean",
        int: "a number",
        float: "a number",
    }.get(type(value), type(value).__name__)
