"""The official JavaScript SDK (@a2a-js/sdk) as a test peer: where its packages are, and
installing them once from the lockfile in tests/peers/js.

Node and npm are not Python: on a machine without them the JS peer tests skip with the
reason. CI sets A2A_INSPECT_JS_PEERS=required so that a missing node, or an `npm ci`
that failed, fails the run instead of skipping a quarter of the interop tests.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

JS_DIR = Path(__file__).resolve().parent / "js"
LOCKFILE = JS_DIR / "package-lock.json"
# npm writes its own copy of the lockfile here after an install: equal bytes mean the
# installed tree is the locked one (npm ci always removes node_modules first).
INSTALLED_LOCK = JS_DIR / "node_modules" / ".package-lock-ci"
REQUIRED = os.environ.get("A2A_INSPECT_JS_PEERS") == "required"
MIN_NODE_MAJOR = 20


def _node_major() -> int | None:
    node = shutil.which("node")
    if node is None:
        return None
    try:
        out = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=30).stdout
        return int(out.strip().lstrip("v").split(".")[0])
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return None


def _installed() -> bool:
    return INSTALLED_LOCK.is_file() and INSTALLED_LOCK.read_bytes() == LOCKFILE.read_bytes()


def install() -> str | None:
    """Install the locked packages unless they already are; the reason the JS peers cannot
    run, or None. Called once, by the process that starts the test run."""
    major = _node_major()
    if major is None or major < MIN_NODE_MAJOR:
        return f"the JS SDK peer needs node >= {MIN_NODE_MAJOR} (found: {major or 'none'})"
    npm = shutil.which("npm")
    if npm is None:
        return "the JS SDK peer needs npm to install @a2a-js/sdk"
    if _installed():
        return None
    done = subprocess.run(
        [npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"],
        cwd=JS_DIR,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if done.returncode != 0:
        return f"npm ci in {JS_DIR} failed ({done.returncode}): {done.stderr.strip()[-600:]}"
    INSTALLED_LOCK.write_bytes(LOCKFILE.read_bytes())
    return None


def unavailable() -> str | None:
    """Why the JS peers cannot run in this process, or None (workers read what the first
    process found, so npm runs once per test run)."""
    reason = os.environ.get("A2A_INSPECT_JS_PEERS_MISSING")
    if reason:
        return reason
    return None if _installed() and _node_major() else "the JS SDK peer is not installed"


def require() -> None:
    """Skip the calling test (or fail it, in CI) when the JS peers cannot run."""
    import pytest  # here: the module also runs as a script before pytest is installed

    reason = unavailable()
    if reason is None:
        return
    if REQUIRED:
        pytest.fail(f"A2A_INSPECT_JS_PEERS=required, but {reason}")
    pytest.skip(reason)


if __name__ == "__main__":
    # .ci/run installs the peer this way beside pip's install; the suite then finds it
    # installed. Only the standard library is needed here.
    problem = install()
    if problem:
        print(problem, file=sys.stderr)
    sys.exit(1 if problem else 0)
