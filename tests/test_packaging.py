"""What a Python user expects of the distribution: the wheel's contents (themes, typing
markers, data files, entry points)."""

from __future__ import annotations

import configparser
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> zipfile.ZipFile:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), str(REPO)],
                   check=True, capture_output=True, timeout=300)
    (path,) = out.glob("a2a_inspect-*.whl")
    return zipfile.ZipFile(path)


def test_the_wheel_holds_the_themes_typing_markers_and_data(wheel: zipfile.ZipFile) -> None:
    names = set(wheel.namelist())
    shipped = {p.name for p in (REPO / "themes").glob("*.yaml")}
    assert shipped and {f"inspector/themes/{n}" for n in shipped} <= names
    assert {"inspector/py.typed", "mock_agent/py.typed", "inspector/ui/inspector.tcss"} <= names
    scenarios = {p.name for p in (REPO / "mock_agent" / "scenarios").glob("*.yaml")}
    assert {f"mock_agent/scenarios/{n}" for n in scenarios} <= names
    (entry_points,) = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
    ep = configparser.ConfigParser()
    ep.read_string(wheel.read(entry_points).decode())
    assert dict(ep["console_scripts"]) == {"a2a-inspect": "inspector.cli:main", "a2a-mock": "mock_agent.cli:main"}
    assert dict(ep["pytest11"]) == {"a2a_mock": "mock_agent.pytest_plugin"}
    # Nothing of the repository's own beyond the packages: no tests, benchmarks or scripts.
    assert not {n.split("/")[0] for n in names} - {"inspector", "mock_agent"} - {
        n.split("/")[0] for n in names if ".dist-info/" in n}


def test_every_package_of_the_tree_is_in_the_distribution() -> None:
    # pyproject lists the packages (themes/ installs as inspector.themes): a new package
    # directory that is not listed would be missing from the wheel.
    listed = set(tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(REPO).parts) for root in ("inspector", "mock_agent")
             for p in (REPO / root).rglob("__init__.py")}
    assert found | {"inspector.themes"} == listed


@pytest.mark.parametrize("command", ["a2a-inspect", "a2a-mock"])
def test_version(command: str) -> None:
    from inspector import __version__

    out = subprocess.run([str(BIN / command), "--version"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stdout == f"{command} {__version__}\n", out


def test_the_pytest_plugin_imports_nothing_heavy() -> None:
    code = ("import sys\nimport mock_agent.pytest_plugin\n"
            "print(sorted(m for m in ('uvicorn', 'starlette', 'pydantic', 'yaml', 'httpx', 'textual')"
            " if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "[]"
    # ... and the fixtures still work: tests/test_mock_cli.py uses them.
