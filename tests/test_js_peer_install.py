"""The JS SDK peer is installed from the lockfile, once per run, by the process that starts the run."""

from __future__ import annotations

import json
import subprocess

from peers import js_peers


def test_the_locked_sdk_is_the_one_installed() -> None:
    js_peers.require()
    lock = json.loads(js_peers.LOCKFILE.read_text())
    locked = lock["packages"]["node_modules/@a2a-js/sdk"]["version"]
    out = subprocess.run(
        [
            "node",
            "-e",
            "console.log(JSON.parse(require('fs').readFileSync('node_modules/@a2a-js/sdk/package.json')).version)",
        ],
        cwd=js_peers.JS_DIR,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == locked == "1.3.0"
