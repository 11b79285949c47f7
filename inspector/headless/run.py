"""Run one headless command: connect, call, print, and map the outcome to an exit code."""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

from . import exitcodes
from .compose import UsageError
from .output import Out, PipeClosed


def fail(message: str, code: int, hint: str | None = None, redaction: Any = None) -> int:
    """Say ``message`` (and ``hint``) on stderr, a line each after ``a2a-inspect:``,
    its secrets redacted (``redaction``: the command's; else the built-in names) and
    its length bounded; returns ``code``."""
    from ..session.redact import Redaction
    from ..textsafe import clip, visible

    redaction = redaction or Redaction()
    try:
        for text in (message, hint):
            if text:
                shown = clip(redaction.shown(text), whole="--record keeps it whole")
                print(f"a2a-inspect: {visible(shown, single_line=True)}", file=sys.stderr)
    except BrokenPipeError:  # pragma: no cover - stderr closed too
        pass
    return code


def run_command(args: argparse.Namespace) -> int:
    from ..client import TransportError, UnsupportedMethod
    from ..protocol.errors import JsonRpcError, ProtocolError, describe_rpc_error

    # Our own "→"/"✗" and any agent's text must not crash a terminal or pipe that is not
    # UTF-8 (LANG=C on older systems, PYTHONIOENCODING=ascii): escape what it cannot encode.
    try:
        sys.stdout.reconfigure(errors="backslashreplace")  # type: ignore[union-attr]
    except (AttributeError, ValueError):  # pragma: no cover - stdout replaced or closed
        pass
    from .commands import COMMANDS, terminal_redaction

    # CI logs keep what a command prints: its secrets go as they go from a recording.
    shown = terminal_redaction(args)
    out = Out(redaction=shown)
    from .output import CURRENT

    CURRENT.set(out)
    try:
        handler = COMMANDS[args.command]
        return asyncio.run(handler(args, out))
    except UsageError as exc:
        return fail(str(exc), exitcodes.USAGE, redaction=out.redaction)
    except PipeClosed:
        return exitcodes.OK
    except KeyboardInterrupt:
        return fail("interrupted", exitcodes.INTERRUPTED)
    except JsonRpcError as exc:
        text = describe_rpc_error(exc, getattr(exc, "dialect", None))
        if exc.code == -32601 and getattr(args, "dialect", "auto") != "auto":
            # The usual cause: the agent does not speak the dialect the user forced.
            text += f" (does the agent speak A2A {args.dialect}? try --dialect auto)"
        return fail(text, exitcodes.TRANSPORT, getattr(exc, "hint", None), redaction=out.redaction)
    except ProtocolError as exc:
        return fail(f"invalid response from the agent: {exc}", exitcodes.TRANSPORT, redaction=out.redaction)
    except TransportError as exc:
        return fail(str(exc), exitcodes.TRANSPORT, getattr(exc, "hint", None), redaction=out.redaction)
    except UnsupportedMethod as exc:
        # Nothing was sent: the request cannot be made in this dialect at all.
        return fail(f"{exc} (choose another --dialect, or another command)", exitcodes.USAGE, redaction=out.redaction)
