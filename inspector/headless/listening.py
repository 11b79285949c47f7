"""What the long-running listening commands (hub, proxy) share around their server: the
way options errors, a taken port and Ctrl-C end the command, the recorder of
``--record``, and the lines they print."""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
from collections.abc import Callable, Coroutine, Iterable
from typing import Any, TypeVar

from .compose import UsageError

Options = TypeVar("Options")

#: What ``say`` redacts (session.redact.Redaction): the settings' names and the URLs'
#: secrets; set when the command starts, since the settings are read then.
_shown: Any = None


def terminal_redaction() -> Any:
    """The redaction of every line a listening command prints: the built-in names, the
    settings' secret and plain names, always on (``--no-redact`` is about recordings)."""
    from .. import store
    from ..session.redact import Redaction

    settings = store.load_settings()[0]
    return Redaction.for_connection(extra_names=settings.redact_headers, plain_names=settings.plain_headers)


def run_listening(
    args: argparse.Namespace,
    options_for: Callable[[argparse.Namespace], Options],
    serve: Callable[[Options, str], Coroutine[Any, Any, int]],
) -> int:
    from .run import fail

    global _shown
    _shown = terminal_redaction()
    try:
        # Agent text goes to a terminal that may not take every character.
        sys.stdout.reconfigure(errors="backslashreplace")  # type: ignore[union-attr]
    except (AttributeError, ValueError):  # pragma: no cover
        pass
    try:
        options = options_for(args)
    except UsageError as exc:
        return fail(str(exc), 2, redaction=_shown)
    try:
        return asyncio.run(serve(options, args.output))
    except UsageError as exc:
        return fail(str(exc), 2, redaction=_shown)
    except OSError as exc:
        port = getattr(options, "port", 0)
        return fail(f"cannot listen on 127.0.0.1:{port}: {exc.strerror or exc}", 1, redaction=_shown)
    except KeyboardInterrupt:
        return 0


def line_redaction() -> Any:
    """The redaction ``say`` applies, for printers that redact an event's line or JSON
    themselves (before cutting it short) and print it with ``printed``."""
    return _shown if _shown is not None else terminal_redaction()


def say(text: str) -> None:
    """One line on stdout, its secrets redacted."""
    printed(_shown.shown(text) if _shown is not None else text)


def printed(text: str) -> None:
    """One line on stdout, as it is: already redacted."""
    try:
        print(text, flush=True)
    except BrokenPipeError:  # pragma: no cover - the reader went away; the server goes on
        pass


def stop_on_signals() -> asyncio.Event:
    """An event that Ctrl-C or SIGTERM sets, so that the command leaves through its
    ``finally`` blocks (the server stopped, the recording closed) instead of a traceback."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(sig, stop.set)
        except (NotImplementedError, RuntimeError):  # pragma: no cover - not on this platform
            pass
    return stop


async def serve_until_stopped(
    server: Any, recorder: Any, banner: Callable[[], Iterable[str]], started: Callable[[], None] | None = None
) -> int:
    """Run ``server`` until Ctrl-C: print ``banner()`` once it listens (its first line is
    the one a script reads for the port), then call ``started``; close the recording last."""
    stop = stop_on_signals()
    try:
        await server.start()
        try:
            for line in banner():
                say(line)
            if recorder is not None:
                say(f"  recording to {recorder.path}")
            say("  Ctrl-C to stop")
            if started is not None:
                started()
            await stop.wait()
        finally:
            await server.stop()
    finally:
        if recorder is not None:
            recorder.close()
    return 0


def start_recorder(session: Any, options: Any, name: str) -> Any:
    """The recorder for ``--record`` (``options.record``, ``.append``, ``.redact``), or None;
    UsageError says why it cannot start. ``name``: what a recording in the data directory
    is named after."""
    if options.record is None:
        return None
    from .. import store
    from ..session import Recorder
    from ..session.redact import Redaction

    settings, _problem = store.load_settings()
    path: Any = options.record
    if options.record == "":
        path = store.default_recording_path(name, settings)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UsageError(f"cannot record to {path}: {exc.strerror or exc}") from None
    redaction = Redaction.for_connection(
        enabled=settings.redact and options.redact,
        extra_names=settings.redact_headers,
        plain_names=settings.plain_headers,
    )
    try:
        return Recorder.attach(session, path, redact=redaction, append=options.append)
    except FileExistsError:
        raise UsageError(f"{path} exists: --append adds this session to it; or record to another file") from None
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    except OSError as exc:
        raise UsageError(f"cannot record to {path}: {exc.strerror or exc}") from None
