"""What the push view asks the app to do: start, stop and register a connection's
receiver (``AgentConnection.push``) in the app's workers, with the notifications a user
reads. The view only asks; the work belongs to the connection, so a receiver outlives
the view and stops with the connection. The view hears of each change from
``ConnectionPush.subscribe``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..textsafe import visible

if TYPE_CHECKING:
    from ..client.push_receiver import PushReceiver
    from .connection import AgentConnection


def _worker(app: Any, conn: AgentConnection, coro: Any, name: str) -> Any:
    # The connection's group: closing it cancels a start or registration still under
    # way before the receiver is stopped, so none starts after the connection is gone.
    return app.run_worker(coro, name=name, group=f"conn-{conn.id}", exit_on_error=False)


def _port_for(app: Any, conn: AgentConnection) -> int:
    """The chosen port (--push-port) goes to the first receiver that asks; one port
    serves one receiver, so the others get free ports."""
    port = getattr(app, "push_port", 0) or 0
    taken = any(
        c is not conn and c.push.receiver is not None and c.push.receiver.port == port
        for c in getattr(app, "connections", [])
    )
    return 0 if taken else port


def start_receiver(app: Any, conn: AgentConnection) -> None:
    """Start ``conn``'s receiver (a notice if it runs already)."""
    if conn.push.starting:
        return
    receiver = conn.push.receiver
    if receiver is not None and receiver.running:
        app.notify(f"the push receiver is listening on {receiver.url}", markup=False)
        return
    _worker(app, conn, _start(app, conn), "push-receiver")


async def _start(app: Any, conn: AgentConnection) -> PushReceiver | None:
    if conn.push.running:
        return conn.push.receiver
    try:
        receiver = await conn.push.start(_port_for(app, conn))
    except Exception as exc:  # a port or server failure is a notification
        app.report_error("the push receiver did not start", exc)
        return None
    app.notify(f"push receiver listening on {receiver.url}", title="push", markup=False)
    return receiver


def stop_receiver(app: Any, conn: AgentConnection) -> None:
    if not conn.push.running:
        app.notify("the push receiver is not running")
        return
    _worker(app, conn, _stop(app, conn), "push-receiver")


async def _stop(app: Any, conn: AgentConnection) -> None:
    await conn.push.stop()
    app.notify("push receiver stopped", title="push")


def register(app: Any, conn: AgentConnection, task_id: str) -> None:
    """Start the receiver if need be and register it with the agent for ``task_id``."""
    _worker(app, conn, _register(app, conn, task_id), "push-register")


async def _register(app: Any, conn: AgentConnection, task_id: str) -> None:
    if await _start(app, conn) is None:
        return
    config = await app.call_agent(conn, f"registering push for {task_id[:8]}", conn.register_push(task_id))
    if config is None:
        return
    app.notify(
        f"the agent will push task {visible(task_id, single_line=True)} to {config.url}", title="push", markup=False
    )
