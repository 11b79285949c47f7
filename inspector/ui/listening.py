"""What the app's listening modes (hub, proxy) share when they start in its event loop:
the recording of ``--record`` (a recording that cannot start is reported, and the
server runs without it) and the server's port (a taken port is reported, nothing left
open)."""

from __future__ import annotations

from typing import Any


async def start_listening(app: Any, what: str, session: Any, options: Any, server: Any) -> Any:
    """Start ``server`` recording ``session`` as ``options`` say; the recorder (or None),
    or False when the server could not listen (the error is reported)."""
    from ..headless.compose import UsageError
    from ..headless.listening import start_recorder

    try:
        recorder = start_recorder(session, options, what)
    except UsageError as exc:
        app.report_error(f"cannot record the {what}", exc)
        recorder = None
    try:
        await server.start()
    except OSError as exc:
        if recorder is not None:
            recorder.close()
        app.report_error(f"the {what} cannot listen on 127.0.0.1:{options.port}", exc)
        return False
    return recorder
