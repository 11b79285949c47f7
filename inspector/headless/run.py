"""Run one headless command: connect, call, print, and map the outcome to an exit code."""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

from . import exitcodes
from .compose import UsageError
from .output import Out, PipeClosed


def _fail(message: str, code: int, hint: str | None = None) -> int:
    from ..textsafe import visible

    try:
        print(f"a2a-inspect: {visible(message, single_line=True)}", file=sys.stderr)
        if hint:
            print(f"a2a-inspect: {visible(hint, single_line=True)}", file=sys.stderr)
    except BrokenPipeError:  # pragma: no cover - stderr closed too
        pass
    return code


def run_command(args: argparse.Namespace) -> int:
    from ..client import TransportError, UnsupportedMethod
    from ..protocol.errors import JsonRpcError, ProtocolError

    # Our own "→"/"✗" and any agent's text must not crash a terminal or pipe that is not
    # UTF-8 (LANG=C on older systems, PYTHONIOENCODING=ascii): escape what it cannot encode.
    try:
        sys.stdout.reconfigure(errors="backslashreplace")  # type: ignore[union-attr]
    except (AttributeError, ValueError):  # pragma: no cover - stdout replaced or closed
        pass
    out = Out()
    try:
        from .commands import COMMANDS

        handler = COMMANDS[args.command]
        return asyncio.run(handler(args, out))
    except UsageError as exc:
        return _fail(str(exc), exitcodes.USAGE)
    except PipeClosed:
        return exitcodes.OK
    except KeyboardInterrupt:
        return _fail("interrupted", exitcodes.INTERRUPTED)
    except JsonRpcError as exc:
        text = describe_rpc_error(exc, getattr(exc, "dialect", None))
        if exc.code == -32601 and getattr(args, "dialect", "auto") != "auto":
            # The usual cause: the agent does not speak the dialect the user forced.
            text += f" (does the agent speak A2A {args.dialect}? try --dialect auto)"
        return _fail(text, exitcodes.TRANSPORT, getattr(exc, "hint", None))
    except ProtocolError as exc:
        return _fail(f"invalid response from the agent: {exc}", exitcodes.TRANSPORT)
    except TransportError as exc:
        return _fail(str(exc), exitcodes.TRANSPORT, getattr(exc, "hint", None))
    except UnsupportedMethod as exc:
        # Nothing was sent: the request cannot be made in this dialect at all.
        return _fail(f"{exc} (choose another --dialect, or another command)", exitcodes.USAGE)


def describe_rpc_error(exc: Any, dialect: Any = None) -> str:
    from ..protocol.errors import JSONRPC_CODES

    name = None
    if dialect is not None:
        name = dialect.error_name(exc.code)
    name = name or JSONRPC_CODES.get(exc.code)
    label = f"{exc.code} ({name})" if name else str(exc.code)
    rest_status = getattr(exc, "status", None) if hasattr(exc, "reason") else None
    if rest_status is not None or getattr(exc, "reason", None):
        # An HTTP+JSON error: what the agent sent, and the JSON-RPC code it maps to.
        sent = " ".join(str(x) for x in (f"HTTP {exc.http_status}" if exc.http_status else None,
                                         rest_status, exc.reason) if x)
        text = f"agent returned error {sent} (JSON-RPC {label})"
        if exc.message and exc.message != name:
            text += f": {exc.message}"
        return text
    text = f"agent returned JSON-RPC error {label}"
    if exc.message and exc.message != name:
        text += f": {exc.message}"
    status = getattr(exc, "http_status", None)
    if status and status >= 400:
        text += f" [HTTP {status}]"
    return text


def run_tui(args: argparse.Namespace) -> int:
    try:
        from ..ui.launch import launch
    except ImportError:
        return _fail("the terminal UI is not available in this build yet; use a command (see --help)",
                     exitcodes.USAGE)
    return launch(args)


def run_tui_hub(args: argparse.Namespace) -> int:
    """``a2a-inspect hub`` without --headless: the hub inside the terminal UI."""
    from .hub_cmd import hub_options

    try:
        options = hub_options(args)
    except UsageError as exc:
        return _fail(str(exc), exitcodes.USAGE)
    try:
        from ..ui.launch import launch_hub
    except ImportError:
        return _fail("the terminal UI is not available in this build; use --headless", exitcodes.USAGE)
    return launch_hub(args, options)
