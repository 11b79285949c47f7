"""``a2a-inspect export FILE --scenario OUT --har OUT --curl OUT``: convert a recording.

* ``--scenario``: an a2a-mock scenario (YAML) that plays the recorded agent: its card
  and one rule per recorded message. Checked with a2a-mock's own loader before it is
  written.
* ``--har``: HAR 1.2, for browser developer tools (Network > Import HAR) and HTTP tools.
* ``--curl``: a bash script of curl commands sending the recorded requests again.

OUT ``-`` writes to stdout (one format at a time). Existing files are kept unless
``--force``. Exit 0 written, 2 usage (no such file, not a recording, nothing to
export to). Notes about the recording and the conversion go to stderr.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from .. import store
from . import exitcodes
from .replay_cmd import _say, load


def run_export(args: argparse.Namespace) -> int:
    targets = [(fmt, getattr(args, fmt)) for fmt in ("scenario", "har", "curl") if getattr(args, fmt)]
    if not targets:
        _say("export needs at least one of --scenario OUT, --har OUT, --curl OUT")
        return exitcodes.USAGE
    if sum(1 for _f, out in targets if out == "-") > 1:
        _say("only one format can go to stdout (-)")
        return exitcodes.USAGE
    for fmt, out in targets:
        if out != "-" and Path(out).exists() and not args.force:
            _say(f"{out} exists; pass --force to replace it")
            return exitcodes.USAGE
    rec = load(args.file)
    if rec is None:
        return exitcodes.USAGE
    source = Path(args.file).name
    for fmt, out in targets:
        try:
            text = _render(fmt, rec, source)
        except _Failed as exc:
            _say(str(exc))
            return exitcodes.TASK_FAILED
        if out == "-":
            try:
                sys.stdout.write(text)
                sys.stdout.flush()
            except BrokenPipeError:
                return exitcodes.OK
            continue
        path = Path(out).expanduser()
        try:
            # Private: a recording's content is the user's to share. A curl script is
            # executable by its owner only.
            store.write_atomic(path, text, mode=0o700 if fmt == "curl" else 0o600)
        except OSError as exc:
            _say(f"cannot write {out}: {exc.strerror or exc}")
            return exitcodes.USAGE
        _say(f"wrote {fmt} to {out}")
    return exitcodes.OK


class _Failed(Exception):
    pass


def _render(fmt: str, rec: Any, source: str) -> str:
    if fmt == "har":
        from ..session.export_har import to_har

        return json.dumps(to_har(rec.session, comment=f"exported from {source} by a2a-inspect"),
                          ensure_ascii=False, indent=2) + "\n"
    if fmt == "curl":
        from ..session.export_curl import to_curl

        return to_curl(rec.session, source=source, created=rec.header.get("created"))
    from ..session.export_scenario import scenario_yaml

    name = Path(source).stem
    text, notes = scenario_yaml(rec.session, name=name, source=source)
    for note in notes:
        _say(f"note: {note}")
    problems = scenario_problems(text)
    if problems:
        raise _Failed("the exported scenario does not load (a bug in a2a-inspect, please report it): "
                      + "; ".join(problems[:3]))
    return text


def scenario_problems(text: str) -> list[str]:
    """Problems a2a-mock's loader finds in ``text`` (none: it serves as written). Checked
    here, above both the session (which writes the scenario) and the mock (which reads it)."""
    try:
        from mock_agent.loader import ScenarioError, load_text
    except ImportError:  # pragma: no cover - the mock ships in the same distribution
        return []
    try:
        load_text(text, "<exported scenario>")
    except ScenarioError as exc:
        return [str(p) for p in exc.problems]
    return []
