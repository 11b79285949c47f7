"""The core never imports textual: protocol, client, session and the mock run headless."""

import subprocess
import sys

import pytest

CORE = ["inspector.protocol", "inspector.client", "inspector.session", "mock_agent"]


@pytest.mark.parametrize("module", CORE)
def test_core_module_imports_without_textual(module: str) -> None:
    code = (
        "import importlib, pkgutil, sys\n"
        f"pkg = importlib.import_module({module!r})\n"
        "for info in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + '.'):\n"
        "    importlib.import_module(info.name)\n"
        "bad = sorted(m for m in sys.modules if m == 'textual' or m.startswith('textual.'))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"{module} pulled in textual: {out.stdout.strip()}"
