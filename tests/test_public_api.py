"""Our code uses its dependencies' public API only.

A private name (``_x``) of Textual or of any other dependency may change in any
release, silently: an override of a private method of Textual's Screen once kept paints
from ever reaching the terminal, and nothing failed. These checks read the source:

* no import of a private module or name of another distribution (``textual.widgets._footer``);
* no class of ours defines an attribute that shadows a private one of a Textual base
  class (an override of ``Screen._refresh_layout``, say);
* no attribute access to a name that is private to Textual and not one of ours
  (``self.app._handle_exception``).

Where the public API does not reach, the way out is a comment naming the Textual issue,
not a private name.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: The code that ships, and the code that measures it.
SOURCES = ("inspector", "mock_agent", "bench", "scripts")
#: Our own top-level modules and packages (imports of their private names are fine).
OURS = {"inspector", "mock_agent", "peers", "tests", "common", "terminal", "ui_helpers", "snapshot_app"}


def _files(*tops: str) -> list[Path]:
    return sorted(p for top in tops for p in (ROOT / top).rglob("*.py"))


def _ours(module: str) -> bool:
    top = module.split(".")[0]
    return (
        top in OURS
        or top.startswith("test_")
        or (ROOT / "bench" / f"{top}.py").exists()
        or (ROOT / "tests" / f"{top}.py").exists()
    )


def _private(part: str) -> bool:
    return part.startswith("_") and not part.startswith("__")


def _statements(node: ast.AST) -> Iterator[ast.stmt]:
    """Every statement under node, at any depth (in functions, classes, branches, handlers),
    without descending into expressions: imports and class definitions are statements, and
    a file's expressions are most of its nodes (ast.walk over them was most of this module's
    CPU time)."""
    for value in vars(node).values():
        if isinstance(value, list):
            for item in value:
                if isinstance(item, ast.stmt):
                    yield item
                    yield from _statements(item)
                elif isinstance(item, (ast.excepthandler, ast.match_case)):
                    yield from _statements(item)


def private_imports(path: Path) -> list[str]:
    found = []
    for node in _statements(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if not _ours(alias.name) and any(_private(p) for p in alias.name.split(".")):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}: import {alias.name}")
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and not _ours(node.module):
            names = [a.name for a in node.names if _private(a.name)]
            if any(_private(p) for p in node.module.split(".")) or names:
                found.append(
                    f"{path.relative_to(ROOT)}:{node.lineno}: from {node.module} import "
                    f"{', '.join(a.name for a in node.names)}"
                )
    return found


@pytest.mark.parametrize("top", [*SOURCES, "tests"])
def test_no_private_name_of_a_dependency_is_imported(top: str) -> None:
    found = [line for path in _files(top) for line in private_imports(path)]
    assert not found, "private names of dependencies imported:\n" + "\n".join(found)


def _outer_classes(node: ast.AST) -> Iterator[ast.ClassDef]:
    """The class definitions under node that are not inside another one."""
    for value in vars(node).values():
        if isinstance(value, list):
            for item in value:
                if isinstance(item, ast.ClassDef):
                    yield item
                elif isinstance(item, (ast.stmt, ast.excepthandler, ast.match_case)):
                    yield from _outer_classes(item)


@cache
def _textual_private_names() -> frozenset[str]:
    """Every private attribute name Textual's classes define: methods, class attributes,
    and what their methods assign on ``self``."""
    import textual

    names: set[str] = set()
    for path in Path(textual.__file__).parent.rglob("*.py"):
        for node in _outer_classes(ast.parse(path.read_text(encoding="utf-8"))):
            # Its whole subtree, nested classes included.
            for item in ast.walk(node):
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    names.add(item.name)
                elif (
                    isinstance(item, ast.Attribute)
                    and isinstance(item.ctx, ast.Store)
                    and isinstance(item.value, ast.Name)
                    and item.value.id == "self"
                ):
                    names.add(item.attr)
                elif isinstance(item, ast.Name) and isinstance(item.ctx, ast.Store):
                    names.add(item.id)
    return frozenset(n for n in names if _private(n))


def _our_names_and_attributes() -> tuple[set[str], list[tuple[str, str]]]:
    """Every name our own code defines (functions, classes, attributes it assigns), and
    every attribute it reads or writes (``path:line``, name), in one pass over the files."""
    names: set[str] = set()
    attributes: list[tuple[str, str]] = []
    for path in _files(*SOURCES):
        where = path.relative_to(ROOT)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.Attribute):
                attributes.append((f"{where}:{node.lineno}", node.attr))
                if isinstance(node.ctx, ast.Store):
                    names.add(node.attr)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
    return names, attributes


def _ui_classes() -> list[type]:
    import inspector.ui

    classes = []
    for info in pkgutil.walk_packages(inspector.ui.__path__, "inspector.ui."):
        module = importlib.import_module(info.name)
        classes += [v for v in vars(module).values() if inspect.isclass(v) and v.__module__ == info.name]
    return classes


def _assigned_on_self(cls: type) -> set[str]:
    try:
        tree = ast.parse(inspect.getsource(cls))
    except (OSError, TypeError):
        return set()
    return {
        n.attr
        for n in ast.walk(tree)
        if isinstance(n, ast.Attribute)
        and isinstance(n.ctx, ast.Store)
        and isinstance(n.value, ast.Name)
        and n.value.id == "self"
    }


def test_no_private_name_of_textual_is_overridden() -> None:
    found = []
    for cls in _ui_classes():
        bases = [b for b in cls.__mro__[1:] if b.__module__.split(".")[0] == "textual"]
        if not bases:
            continue
        theirs = {n for b in bases for n in vars(b) if _private(n)}
        # What Textual's own machinery puts in every subclass's namespace (CSS type
        # names, merged bindings, reactives...), as in an empty subclass: not ours.
        machinery = set(vars(type(f"Plain{cls.__name__}", (bases[0],), {})))
        for name in sorted((set(vars(cls)) | _assigned_on_self(cls)) & theirs - machinery):
            found.append(f"{cls.__module__}.{cls.__qualname__}.{name}")
    assert not found, "private names of Textual overridden:\n" + "\n".join(found)


def test_no_private_attribute_of_textual_is_used() -> None:
    ours, attributes = _our_names_and_attributes()
    theirs = _textual_private_names() - ours
    found = [f"{where}: .{attr}" for where, attr in attributes if attr in theirs]
    assert not found, "private attributes of Textual used:\n" + "\n".join(found)


def test_the_checks_see_what_they_look_for(tmp_path: Path) -> None:
    """The checks themselves: each finds the kind of use it forbids."""
    sample = tmp_path / "sample.py"
    sample.write_text(
        "from textual.widgets._footer import FooterKey\nimport textual._compositor\n"
        "from httpx_sse._decoders import SSEDecoder\nfrom inspector.session.decoding import _body\n"
    )
    original = ROOT
    globals()["ROOT"] = tmp_path
    try:
        found = private_imports(sample)
    finally:
        globals()["ROOT"] = original
    assert [line.split(": ", 1)[1] for line in found] == [
        "from textual.widgets._footer import FooterKey",
        "import textual._compositor",
        "from httpx_sse._decoders import SSEDecoder",
    ]
    assert {"_refresh_layout", "_compositor_refresh", "_handle_exception", "_compositor"} <= _textual_private_names()


def test_the_app_keeps_textual_s_own_open_url() -> None:
    """Textual's Markdown and Link widgets call ``App.open_url(url, new_tab=...)`` for a
    clicked link; the inspector's "connect to an agent" is ``connect_to``, so such a click
    opens the link instead of connecting to it as an agent."""
    from textual.app import App

    from inspector.ui.app import InspectorApp

    assert InspectorApp.open_url is App.open_url
    assert callable(InspectorApp.connect_to)
