"""What the long-running listening commands (hub, proxy) share around their server: the
way options errors, a taken port and Ctrl-C end the command."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from .compose import UsageError

O = TypeVar("O")


def run_listening(args: argparse.Namespace, options_for: Callable[[argparse.Namespace], O],
                  serve: Callable[[O, str], Coroutine[Any, Any, int]]) -> int:
    from .run import fail

    try:
        # Agent text goes to a terminal that may not take every character.
        sys.stdout.reconfigure(errors="backslashreplace")  # type: ignore[union-attr]
    except (AttributeError, ValueError):  # pragma: no cover
        pass
    try:
        options = options_for(args)
    except UsageError as exc:
        return fail(str(exc), 2)
    try:
        return asyncio.run(serve(options, args.output))
    except UsageError as exc:
        return fail(str(exc), 2)
    except OSError as exc:
        port = getattr(options, "port", 0)
        return fail(f"cannot listen on 127.0.0.1:{port}: {exc.strerror or exc}", 1)
    except KeyboardInterrupt:
        return 0
