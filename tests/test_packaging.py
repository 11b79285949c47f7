"""What a Python user expects of the distribution: the wheel's contents (themes, typing
markers, data files, entry points), --version on both commands, shell completion, and a
pytest plugin that costs nothing until its fixture is used."""

from __future__ import annotations

import configparser
import os
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


#: The tests that read the built wheel run on one worker (pyproject: --dist loadgroup), so
#: that it is built once a run: a build is the module's costliest step (~3 s of CPU).
WHEEL = pytest.mark.xdist_group("wheel")


@pytest.fixture(scope="session")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> zipfile.ZipFile:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), str(REPO)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (path,) = out.glob("a2a_inspect-*.whl")
    return zipfile.ZipFile(path)


@WHEEL
def test_the_wheel_holds_the_themes_typing_markers_and_data(wheel: zipfile.ZipFile) -> None:
    names = set(wheel.namelist())
    shipped = {p.name for p in (REPO / "themes").glob("*.yaml")}
    assert shipped and {f"inspector/themes/{n}" for n in shipped} <= names
    assert {"inspector/py.typed", "mock_agent/py.typed", "inspector/ui/inspector.tcss"} <= names
    scenarios = {p.name for p in (REPO / "mock_agent" / "scenarios").glob("*.yaml")}
    assert {f"mock_agent/scenarios/{n}" for n in scenarios} <= names
    assert "mock_agent/scenario.schema.json" in names  # the built-ins' modeline names it
    # The gRPC binding's schema: the vendored protos, their licence, the descriptor sets.
    protos = {p.name for p in (REPO / "inspector" / "protocol" / "protos").iterdir()}
    assert {"LICENSE-A2A-Apache-2.0.txt", "a2a-v1.0.1.binpb", "a2a-v0.3.0.binpb"} <= protos
    assert {f"inspector/protocol/protos/{n}" for n in protos} <= names
    (entry_points,) = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
    ep = configparser.ConfigParser()
    ep.read_string(wheel.read(entry_points).decode())
    assert dict(ep["console_scripts"]) == {"a2a-inspect": "inspector.cli:main", "a2a-mock": "mock_agent.cli:main"}
    assert dict(ep["pytest11"]) == {"a2a_mock": "mock_agent.pytest_plugin"}
    # Nothing of the repository's own beyond the packages: no tests, benchmarks or scripts.
    assert (
        not {n.split("/")[0] for n in names}
        - {"inspector", "mock_agent"}
        - {n.split("/")[0] for n in names if ".dist-info/" in n}
    )


def test_every_package_of_the_tree_is_in_the_distribution() -> None:
    # pyproject lists the packages (themes/ installs as inspector.themes): a new package
    # directory that is not listed would be missing from the wheel.
    listed = set(tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {
        ".".join(p.parent.relative_to(REPO).parts)
        for root in ("inspector", "mock_agent")
        for p in (REPO / root).rglob("__init__.py")
    }
    assert found | {"inspector.themes"} == listed


@pytest.mark.parametrize("command", ["a2a-inspect", "a2a-mock"])
def test_version(command: str) -> None:
    from inspector import __version__

    out = subprocess.run([str(BIN / command), "--version"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stdout == f"{command} {__version__}\n", out


@pytest.mark.parametrize("command", ["a2a-inspect", "a2a-mock"])
@pytest.mark.parametrize(
    ("shell", "registers"), [("bash", "-F _python_argcomplete"), ("zsh", "#compdef"), ("fish", "complete --command")]
)
def test_completion_script_for_each_shell(command: str, shell: str, registers: str) -> None:
    out = subprocess.run([str(BIN / command), "--completion", shell], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out
    assert registers in out.stdout and command in out.stdout


@pytest.mark.parametrize(
    "argv",
    [
        ["a2a-inspect", "--completion", "bash"],
        ["a2a-mock", "--completion", "zsh"],
        ["a2a-mock", "--list"],
        ["a2a-mock", "schema"],
    ],
)
def test_printing_to_a_reader_that_went_away_is_quiet(argv: list[str]) -> None:
    # `... | head -1`, made deterministic: the pipe's read end is closed before the
    # command writes, so its first write meets EPIPE.
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        out = subprocess.run(
            [str(BIN / argv[0]), *argv[1:]], stdout=write_end, stderr=subprocess.PIPE, text=True, timeout=60
        )
    finally:
        os.close(write_end)
    assert (out.returncode, out.stderr) == (0, ""), out


@WHEEL
def test_the_wheel_says_its_licence_version_and_links(wheel: zipfile.ZipFile) -> None:
    from email.parser import Parser

    from inspector import __version__

    (name,) = [n for n in wheel.namelist() if n.endswith(".dist-info/METADATA")]
    meta = Parser().parsestr(wheel.read(name).decode())
    assert meta["Version"] == __version__  # one source: inspector/__init__.py
    assert meta["License-Expression"] == "Apache-2.0"
    assert "LICENSE" in meta.get_all("License-File", [])
    assert not [c for c in meta.get_all("Classifier", []) if c.startswith("License ::")]  # PEP 639
    assert meta.get_all("Project-URL")
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert "version" not in project and "version" in project["dynamic"]


BASH_TAB = r"""
source <("$1" --completion bash)
shift
for line in "$@"; do
    COMP_LINE="$line"; COMP_POINT=${#COMP_LINE}
    read -ra COMP_WORDS <<< "$COMP_LINE"
    [[ "$COMP_LINE" == *" " ]] && COMP_WORDS+=("")
    COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
    COMPREPLY=()
    _python_argcomplete "${COMP_WORDS[0]}"
    echo "${COMPREPLY[*]}"
done
"""


def tab(command: str, *lines: str) -> list[list[str]]:
    """What bash offers for each command line (cursor at its end), through the script."""
    env = {"PATH": f"{BIN}:/usr/bin:/bin", "HOME": str(REPO)}
    out = subprocess.run(
        ["bash", "-c", BASH_TAB, "tab", command, *lines],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=True,
    )
    return [line.split() for line in out.stdout.splitlines()]


def test_tab_completes_commands_options_and_choices() -> None:
    assert tab(
        "a2a-inspect",
        "a2a-inspect se",
        "a2a-inspect send http://x --dia",
        "a2a-inspect send http://x --dialect ",
        "a2a-inspect --de",
        "a2a-inspect push ",
    ) == [
        ["send"],
        ["--dialect"],
        ["auto", "0.1", "0.2", "0.3", "1.0"],
        ["--demo"],
        ["-h", "--help", "set", "get", "list", "delete"],
    ]
    assert tab("a2a-mock", "a2a-mock --scenario stre", "a2a-mock --profile ") == [
        ["streaming"],
        ["draft", "orloj", "society", "society-ai"],
    ]


def test_the_pytest_plugin_imports_nothing_heavy() -> None:
    code = (
        "import sys\nimport mock_agent.pytest_plugin\n"
        "print(sorted(m for m in ('uvicorn', 'starlette', 'pydantic', 'yaml', 'httpx', 'textual')"
        " if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "[]"
    # ... and the fixtures still work: tests/test_mock_cli.py uses them.
