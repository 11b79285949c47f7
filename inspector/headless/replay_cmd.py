"""``a2a-inspect replay FILE``: open a recording in the UI, or, with ``--against URL``,
send its requests again to a live agent and report what differs.

Exit codes of the diff (scripts and CI branch on them): 0 every exchange behaved as
recorded, 1 some did not, 2 usage (no such file, not a recording), 3 the agent could
not be reached. Notes about the recording (a cut-off last line, a damaged line) go to
stderr, one line each, prefixed ``a2a-inspect: note:``.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any

from . import exitcodes


def _say(text: str) -> None:
    from ..textsafe import visible

    try:
        print(f"a2a-inspect: {visible(text, single_line=True)}", file=sys.stderr, flush=True)
    except BrokenPipeError:  # pragma: no cover
        pass


def load(path_text: str) -> Any:
    """The recording, with its problems reported on stderr; None (after saying why) if
    it cannot be read. Its events stay in the file (read in pages when gone through):
    a recording of any size is read in bounded memory."""
    from ..session import RecordingError
    from ..session.index import open_recording

    path = recording_file(path_text)
    if path is None:
        return None
    try:
        rec = open_recording(path)
    except RecordingError as exc:
        _say(str(exc))
        return None
    except OSError as exc:
        _say(f"cannot read {path_text}: {exc.strerror or exc}")
        return None
    for problem in rec.problems:
        _say(f"note: {path.name} line {problem.line}: {problem.message}")
    return rec


def run_replay(args: argparse.Namespace) -> int:
    """``a2a-inspect replay FILE --against URL``: re-send and compare. (Without --against
    the recording opens in the TUI: inspector/cli.py decides that.)"""
    rec = load(args.file)
    if rec is None:
        return exitcodes.USAGE
    try:
        sys.stdout.reconfigure(errors="backslashreplace")  # type: ignore[union-attr]
    except (AttributeError, ValueError):  # pragma: no cover
        pass
    from ..client import TransportError
    from .compose import UsageError
    from .output import Out, PipeClosed

    out = Out()
    try:
        return asyncio.run(_diff(args, rec, out))
    except UsageError as exc:
        _say(str(exc))
        return exitcodes.USAGE
    except TransportError as exc:  # --max-time ran out
        _say(str(exc))
        return exitcodes.TRANSPORT
    except PipeClosed:
        return exitcodes.OK
    except KeyboardInterrupt:
        _say("interrupted")
        return exitcodes.INTERRUPTED


def recording_file(path_text: str) -> Path | None:
    """``path_text`` as a path to an existing file; None after saying why not."""
    path = Path(path_text).expanduser()
    if not path.is_file():
        _say(f"no such recording: {path_text}" if not path.exists() else f"not a file: {path_text}")
        return None
    return path


async def _diff(args: argparse.Namespace, rec: Any, out: Any) -> int:
    from ..session import Session
    from .commands import _auth, _headers, client_bounds, max_time, oauth2_credentials, start_recorder
    from .output import FORMAT_VERSION
    from .resend import diff_against
    from .tls_args import tls_options

    tls = tls_options(args)
    oauth2 = oauth2_credentials(args)
    session = Session()
    recorder = start_recorder(session, args)
    dialect = None if args.dialect == "auto" else ("0.3" if args.dialect == "0.2" else args.dialect)
    timeouts, limits = client_bounds(args)
    text = args.output == "text"
    if text:
        out.line(f"replaying {Path(args.file).name} against {args.against}")

    def progress(diff: Any) -> None:
        if text:
            for line in exchange_lines(diff):
                out.line(line)
        elif args.output == "ndjson":
            out.json_line(diff.to_json())

    try:
        async with max_time(args, session):
            report = await diff_against(
                rec,
                args.against,
                session=session,
                dialect=dialect,
                card_url=args.card_url,
                headers=_headers(args.header),
                auth=_auth(args),
                timeouts=timeouts,
                progress=progress,
                limits=limits,
                tls=tls,
                oauth2=oauth2,
                on_token=[s for s in (getattr(recorder, "add_secret", None), out.add_secret) if s is not None],
                binding=None if getattr(args, "binding", "auto") == "auto" else args.binding,
            )
    finally:
        if recorder is not None:
            recorder.close()
    doc = {"formatVersion": FORMAT_VERSION, **report.to_json()}
    doc["recording"] = str(args.file)
    doc["problems"] = [{"line": p.line, "message": p.message} for p in rec.problems]
    for note in report.notes:
        _say(f"note: {note}")
    if args.output == "json":
        out.json_doc(doc)
    elif args.output == "ndjson":
        out.json_line({"summary": {k: v for k, v in doc.items() if k != "exchanges"}})
    else:
        differ = doc["differ"]
        if report.transport_error is None:
            verdict = (
                "equivalent" if report.equivalent else f"DIFFERENT: {differ} of {doc['compared']} exchanges differ"
            )
            out.line(
                f"result: {verdict}" if doc["compared"] else "result: nothing to compare (no A2A request recorded)"
            )
    if report.transport_error is not None:
        _say(f"could not reach the agent: {report.transport_error}")
        return exitcodes.TRANSPORT
    return exitcodes.OK if report.equivalent else exitcodes.TASK_FAILED


# ---------------------------------------------------------------------- text


_LABELS = {
    "http_status": "HTTP status",
    "error": "JSON-RPC error",
    "failures": "failure",
    "reply": "reply",
    "task": "task",
    "states": "states",
    "message": "message",
    "artifacts": "artifacts",
    "listed": "listed tasks",
}


def _value(name: str, value: Any) -> str:
    from ..textsafe import shorten

    if value is None or value == []:
        return "none"
    if name == "states" or name == "listed":
        return " → ".join(value)
    if name == "failures":
        return ", ".join(value)
    if name == "artifacts":
        return "; ".join(_artifact(a) for a in value)
    if isinstance(value, str):
        return '"' + shorten(value, 100) + '"'
    return shorten(str(value), 100)


def _artifact(a: dict[str, Any]) -> str:
    from ..textsafe import shorten

    bits = []
    for part in a.get("parts", []):
        if "text" in part:
            bits.append('"' + shorten(part["text"], 60) + '"')
        elif "data" in part:
            bits.append("data " + shorten(str(part["data"]), 40))
        else:
            bits.append("file " + shorten(str((part.get("file") or {}).get("name")), 40))
    name = a.get("name")
    return f"{shorten(name, 30) if name else '(unnamed)'}: {' + '.join(bits) or 'empty'}"


def exchange_lines(diff: Any) -> list[str]:
    from ..textsafe import shorten

    rec = diff.recorded
    what = rec.method or "?"
    if rec.text:
        what += f' "{shorten(rec.text.replace(chr(10), " "), 50)}"'
    if diff.same:
        summary = " → ".join(rec.states) or (
            f"error {rec.error}" if rec.error is not None else ("reply" if rec.reply is not None else "ok")
        )
        return [f"  #{rec.exchange:<3} {what}  same ({summary})"]
    lines = [f"  #{rec.exchange:<3} {what}  DIFFERS"]
    for d in diff.differences:
        label = _LABELS.get(d.field, d.field)
        lines.append(f"         {label:<14} recorded {_value(d.field, d.recorded)}")
        lines.append(f"         {'':<14} live     {_value(d.field, d.live)}")
    if diff.live is not None and diff.live.skipped:
        lines.append(f"         ({diff.live.skipped})")
    return lines
