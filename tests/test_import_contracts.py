"""The layering holds: import-linter's contracts (pyproject.toml) and what they cannot say.

The contracts themselves are checked by import-linter, run once for the module; each contract
is a test of its own here so a failure names the rule that broke. Two rules import-linter
cannot express are checked with the ast: every top-level module of ``inspector`` is placed in
a layer (a new one must be placed, not slip in unchecked), and no module imports a private
name (``_name``) from another package.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
CONTRACTS = {c["id"]: c["name"] for c in CONFIG["contracts"]}


@pytest.fixture(scope="module")
def lint_report() -> str:
    # import-linter's own command (as `lint-imports` runs it), without its cache: nothing
    # is written into the tree.
    run = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())",
            "--no-cache",
            "--no-logo",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert "Contracts:" in run.stdout, run.stdout + run.stderr
    return run.stdout


@pytest.mark.parametrize("contract", sorted(CONTRACTS))
def test_contract_is_kept(contract: str, lint_report: str) -> None:
    name = CONTRACTS[contract]
    line = next((ln for ln in lint_report.splitlines() if ln.startswith(name)), None)
    assert line is not None, f"{name!r} not in the report:\n{lint_report}"
    # "KEPT", or "KEPT (N ignored imports)" where pyproject lists the known exceptions.
    assert re.search(r" KEPT( \(\d+ ignored imports?\))?$", line.rstrip()), lint_report[
        lint_report.find("Broken contracts") :
    ]


def _modules(package: str) -> list[tuple[str, Path]]:
    base = ROOT / package
    out = []
    for path in sorted(base.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out.append((".".join(parts), path))
    return out


def test_every_top_level_module_is_in_a_layer() -> None:
    layers = next(c for c in CONFIG["contracts"] if c["id"] == "layers")["layers"]
    placed = {name.strip().strip("()") for layer in layers for name in re.split(r"[|:]", layer)}
    children = {".".join(name.split(".")[:2]) for name, _ in _modules("inspector")} - {"inspector"}
    assert children - placed == set(), "place these in a layer of [tool.importlinter]"


def _package_of(module: str, path: Path) -> str:
    return module if path.name == "__init__.py" else module.rpartition(".")[0]


def private_names_taken(module: str, own: str, source: str) -> list[str]:
    """In ``source`` (module ``module`` of package ``own``): each ``from X import _name``
    whose X lies in another package of ours."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.ImportFrom):
            continue
        target = node.module or ""
        if node.level:
            base = own.split(".")[: len(own.split(".")) - node.level + 1]
            target = ".".join(base + ([target] if target else []))
        if not target.startswith(("inspector", "mock_agent")):
            continue
        # ``from pkg import mod`` names a module: its package is pkg itself.
        target_package = target if (ROOT / target.replace(".", "/")).is_dir() else target.rpartition(".")[0]
        if target_package == own:
            continue
        found += [
            f"{module} -> {target}.{a.name}"
            for a in node.names
            if a.name.startswith("_") and not a.name.startswith("__")
        ]
    return found


def test_no_private_name_crosses_a_package() -> None:
    found = []
    for package in ("inspector", "mock_agent"):
        for module, path in _modules(package):
            found += private_names_taken(module, _package_of(module, path), path.read_text(encoding="utf-8"))
    assert found == []


def test_the_private_name_check_can_fail() -> None:
    # A made-up module of inspector.client taking a private name from the session package
    # is caught; one taking it from its own package, or a private alias, is not.
    source = (
        "from ..session.decoding import _body, decode\n"
        "from .transport import _helper\n"
        "from inspector.protocol import models as _m\n"
    )
    assert private_names_taken("inspector.client.made_up", "inspector.client", source) == [
        "inspector.client.made_up -> inspector.session.decoding._body"
    ]
