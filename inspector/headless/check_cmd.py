"""``a2a-inspect check``: run the battery (inspector.check) and print its report as
text, JSON (formatVersion 1) or JUnit XML."""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

from . import exitcodes
from .compose import UsageError
from .output import FORMAT_VERSION, Out, PipeClosed


def run_check_command(args: argparse.Namespace) -> int:
    from .commands import terminal_redaction
    from .run import fail

    shown = terminal_redaction(args)
    out = Out(redaction=shown)
    try:
        return asyncio.run(_check(args, out))
    except UsageError as exc:
        return fail(str(exc), exitcodes.USAGE, redaction=shown)
    except PipeClosed:
        return exitcodes.OK
    except KeyboardInterrupt:
        return fail("interrupted", exitcodes.INTERRUPTED)


async def _check(args: argparse.Namespace, out: Out) -> int:
    from .. import store
    from ..check import CheckOptions, run_check, selected
    from ..session import Session, TaskTracker
    from .commands import _auth, _headers, _method_names, client_bounds, oauth2_credentials, start_recorder
    from .tls_args import tls_options

    try:
        selected(args.only, args.skip)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if args.binding in ("rest", "grpc") and args.dialect == "0.1":
        raise UsageError(f"--binding {args.binding}: the 0.1 draft has JSON-RPC only")
    timeouts, limits = client_bounds(args)
    settings = store.load_settings()[0]
    dialect = "0.3" if args.dialect == "0.2" else args.dialect
    options = CheckOptions(
        url=args.url,
        dialect=dialect,
        binding=args.binding,
        card_url=args.card_url,
        only=args.only,
        skip=args.skip,
        running_text=args.running_text,
        ask=args.ask,
        headers=_headers(args.header),
        auth=_auth(args),
        timeouts=timeouts,
        limits=limits,
        secret_names=tuple(settings.redact_headers),
        plain_names=tuple(settings.plain_headers),
        method_names=_method_names(args.method_name),
        tls=tls_options(args),
        oauth2=oauth2_credentials(args),
    )
    if args.text:
        options.text = args.text
    session = Session(keep=0, store=None)
    try:  # what the client refuses to be made with is the user's mistake: say it as one
        await options.client(session, options.dialect, options.binding).aclose()
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    tracker = TaskTracker(session, messages_kept=100)
    recorder = start_recorder(session, args)
    try:
        report = await run_check(options, session, tracker, max_time=args.max_time)
    finally:
        if recorder is not None:
            recorder.close()
    if args.output == "json":
        out.json_doc(report_json(report))
    elif args.output == "junit":
        out.line(report_junit(report))
    else:
        for line in report_lines(report):
            out.line(line)
    if report.unreachable is not None:
        if args.output == "text":
            print(f"a2a-inspect: {report.unreachable}", file=sys.stderr)
        return exitcodes.TRANSPORT
    return exitcodes.TASK_FAILED if report.failed else exitcodes.OK


def _where(result: Any) -> str:
    return result.binding or "agent"


def report_lines(report: Any) -> list[str]:
    """The text report: a heading, then failures, skips and passes, each a line (a
    failure with the rule it broke below it)."""
    from ..check import FAIL, PASS, SKIP
    from ..textsafe import shorten, visible

    if report.unreachable is not None:
        return [f"check {visible(report.url, single_line=True)}: the agent could not be reached"]
    name = f" ({visible(shorten(report.card_name, 80), single_line=True)})" if report.card_name else ""
    lines = [
        f"check {visible(report.url, single_line=True)}{name}",
        f"dialect {report.dialect}, bindings {', '.join(report.bindings)}; "
        f"{report.requests} requests in {report.seconds:.1f} s",
    ]
    for outcome, title in ((FAIL, "failed"), (SKIP, "skipped"), (PASS, "passed")):
        chosen = [r for r in report.results if r.outcome == outcome]
        if not chosen:
            continue
        lines.append("")
        lines.append(f"{title} ({len(chosen)})")
        mark = {FAIL: "✗", SKIP: "-", PASS: "✓"}[outcome]
        if outcome == SKIP:
            # A probe skipped for one reason on several bindings is one line.
            same: dict[tuple[str, str], list[Any]] = {}
            for r in chosen:
                same.setdefault((r.probe.id, r.reason), []).append(r)
            for group in same.values():
                r = group[0]
                where = ", ".join(_where(g) for g in group)
                lines.append(f"  {mark} {r.probe.id:<28} [{where}] {r.probe.title}")
                lines.append(f"      {r.reason}")
            continue
        for r in chosen:
            lines.append(f"  {mark} {r.probe.id:<28} [{_where(r)}] {r.probe.title}")
            if r.reason:
                lines.append(f"      {r.reason}")
            if outcome == FAIL:
                lines.append(f"      spec: {r.probe.section}")
                lines.append(f"      rule: {r.probe.rule}")
    if report.stopped:
        lines.append("")
        lines.append(f"stopped: {report.stopped}")
    lines.append("")
    lines.append(f"{report.count(FAIL)} failed, {report.count(SKIP)} skipped, {report.count(PASS)} passed")
    return lines


def result_json(r: Any) -> dict[str, Any]:
    return {
        "probe": r.probe.id,
        "group": r.probe.group,
        "title": r.probe.title,
        "binding": r.binding,
        "dialect": r.dialect,
        "outcome": r.outcome,
        "reason": r.reason or None,
        "section": r.probe.section,
        "rule": r.probe.rule,
        "exchanges": r.exchanges,
        "exchange": r.exchange,
        "seq": r.seq,
        "seconds": round(r.seconds, 3),
    }


def report_json(report: Any) -> dict[str, Any]:
    from ..check import FAIL, PASS, SKIP

    return {
        "formatVersion": FORMAT_VERSION,
        "url": report.url,
        "dialect": report.dialect,
        "bindings": report.bindings,
        "cardName": report.card_name,
        "unreachable": report.unreachable,
        "stopped": report.stopped,
        "requests": report.requests,
        "summary": {"failed": report.count(FAIL), "skipped": report.count(SKIP), "passed": report.count(PASS)},
        "results": [result_json(r) for r in report.results],
    }


def report_junit(report: Any) -> str:
    """JUnit XML: a test suite, a test case a probe and binding (classname
    ``a2a-inspect.check.GROUP``), failures with the rule, skips with why."""
    from xml.etree import ElementTree as ET

    from ..check import FAIL, SKIP
    from ..textsafe import visible

    def clean(text: str) -> str:
        # XML 1.0 cannot carry most control characters, even escaped.
        return visible(text, single_line=False)

    suites = ET.Element("testsuites")
    suite = ET.SubElement(
        suites,
        "testsuite",
        name=f"a2a-inspect check {clean(report.url)}",
        tests=str(len(report.results)),
        failures=str(report.count(FAIL)),
        skipped=str(report.count(SKIP)),
        errors="1" if report.unreachable else "0",
        time=f"{report.seconds:.3f}",
    )
    if report.unreachable is not None:
        case = ET.SubElement(suite, "testcase", classname="a2a-inspect.check", name="reach the agent")
        ET.SubElement(case, "error", message=clean(report.unreachable))
    for r in report.results:
        case = ET.SubElement(
            suite,
            "testcase",
            classname=f"a2a-inspect.check.{r.probe.group}",
            name=f"{r.probe.id} [{_where(r)}]",
            time=f"{r.seconds:.3f}",
        )
        if r.outcome == FAIL:
            node = ET.SubElement(case, "failure", message=clean(r.reason))
            node.text = clean(f"{r.reason}\nspec: {r.probe.section}\nrule: {r.probe.rule}")
        elif r.outcome == SKIP:
            ET.SubElement(case, "skipped", message=clean(r.reason))
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode")
