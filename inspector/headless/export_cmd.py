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
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any, TextIO

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
    for _fmt, out in targets:
        if out != "-" and Path(out).exists() and not args.force:
            _say(f"{out} exists; pass --force to replace it")
            return exitcodes.USAGE
    rec = load(args.file)
    if rec is None:
        return exitcodes.USAGE
    source = Path(args.file).name
    for fmt, out in targets:
        # Written a piece at a time (a big recording's export never is in memory whole):
        # to a temp file, renamed into place once complete; for stdout, through one.
        try:
            if out == "-":
                with tempfile.TemporaryFile("w+", encoding="utf-8") as spool:
                    _write(fmt, rec, source, spool)
                    spool.seek(0)
                    try:
                        shutil.copyfileobj(spool, sys.stdout)
                        sys.stdout.flush()
                    except BrokenPipeError:
                        return exitcodes.OK
                continue
            path = Path(out).expanduser()
            # Private: a recording's content is the user's to share. A curl script is
            # executable by its owner only.
            with store.atomic_writer(path, mode=0o700 if fmt == "curl" else 0o600) as fh:
                _write(fmt, rec, source, fh)
        except _Failed as exc:
            _say(str(exc))
            return exitcodes.TASK_FAILED
        except OSError as exc:
            _say(f"cannot write {out}: {exc.strerror or exc}")
            return exitcodes.USAGE
        _say(f"wrote {fmt} to {out}")
    return exitcodes.OK


class _Failed(Exception):
    pass


def _write(fmt: str, rec: Any, source: str, out: TextIO) -> None:
    if fmt == "har":
        from ..session.export_har import write_har

        write_har(rec.session, out, comment=f"exported from {source} by a2a-inspect")
        return
    if fmt == "curl":
        from ..session.export_curl import to_curl

        out.write(to_curl(rec.session, source=source, created=rec.header.get("created")))
        return
    from ..session.export_scenario import write_scenario

    notes, problems = write_scenario(rec.session, out, name=Path(source).stem, source=source, check=scenario_problems)
    for note in notes:
        _say(f"note: {note}")
    if problems:
        raise _Failed(
            "the exported scenario does not load (a bug in a2a-inspect, please report it): " + "; ".join(problems[:3])
        )


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
