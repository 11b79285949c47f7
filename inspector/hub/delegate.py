"""agent.send_task: one agent delegating a task through the hub.

The task goes to another registered ws-agent (relayed like any other task, so its
frames are in the session) or to an HTTP A2A agent the user named with ``--route``
(sent with the inspector's own client, into the same session). The child task's
metadata names its parent (``parent_task_id``), the requester and the executor, so the
tracker links parent -> child wherever it sees either. The delegating agent is
answered once the child settles, with the child task.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..protocol import hub as proto
from ..protocol import models as m
from ..protocol.errors import JsonRpcError, ProtocolError
from .relay import RelayFailed

if TYPE_CHECKING:
    from .core import Hub
    from .socket import AgentSocket


def _parent(hub: Hub, sock: AgentSocket, named: str | None) -> str | None:
    """The delegating task: the one the agent names, else its only running task."""
    if named:
        return named
    running = {r.task_id for relays in hub.relays.values() for r in relays if r.entry.socket is sock and not r.done}
    return running.pop() if len(running) == 1 else None


async def delegate(hub: Hub, sock: AgentSocket, frame: proto.Frame, exchange: int) -> None:
    item = frame.item
    rid = frame.rpc_id

    async def answer(doc: dict[str, Any]) -> None:
        if frame.has_id:
            await sock.send(doc, exchange)

    if isinstance(item, ProtocolError) or not isinstance(item, proto.Delegation):
        await answer(
            proto.error(
                rid,
                JsonRpcError(
                    -32602,
                    "Invalid params",
                    {"path": getattr(item, "path", "$.params"), "reason": getattr(item, "reason", str(item))},
                ),
            )
        )
        return
    target = item.target
    if not target:
        await answer(
            proto.error(
                rid,
                JsonRpcError(
                    -32602,
                    "Invalid params",
                    {"path": "$.params.agent", "reason": "name the agent to send the task to (params.agent)"},
                ),
            )
        )
        return
    parent = _parent(hub, sock, item.parent_task_id)
    params = item.params.model_copy(deep=True)
    meta = dict(params.metadata or {})
    meta.setdefault("requester", {"name": sock.name})
    meta.setdefault("executor", {"name": target})
    if parent:
        meta.setdefault(proto.PARENT_KEY, parent)
    params.metadata = meta
    via = (
        "ws-agent"
        if target in hub.agents and hub.agents[target].online
        else ("HTTP agent" if target in hub.http_agents else None)
    )
    hub.note(
        f"ws-agent {sock.name} delegates {'task ' + parent if parent else 'a task'} to "
        f"{via or 'unknown agent'} {target}",
        sock,
        exchange=exchange,
        code="hub-delegation",
        parent=parent,
        target=target,
    )
    try:
        if via == "ws-agent":
            result = await _to_ws_agent(hub, target, params, parent, sock.name)
        elif via == "HTTP agent":
            result = await _to_http_agent(hub, hub.http_agents[target], params)
        else:
            raise JsonRpcError(
                proto.NO_SUCH_AGENT,
                "Agent not found",
                {
                    "agent": target,
                    "reason": f"no agent named {target!r}: neither a ws-agent connected to this hub "
                    "nor an HTTP agent given with --route",
                },
            )
    except JsonRpcError as err:
        await answer(proto.error(rid, err))
        return
    except RelayFailed as exc:
        await answer(proto.error(rid, exc.error or JsonRpcError(-32603, "Internal error", {"reason": str(exc)})))
        return
    except Exception as exc:  # an HTTP agent that cannot be reached, a protocol error: one line
        await answer(
            proto.error(rid, JsonRpcError(-32603, "Internal error", {"reason": f"delegating to {target}: {exc}"}))
        )
        return
    if isinstance(result, m.Task):
        meta = dict(result.metadata or {})
        if parent:
            meta.setdefault(proto.PARENT_KEY, parent)
        meta.setdefault("executor", {"name": target})
        result = result.model_copy(update={"metadata": meta})
        await answer(proto.result(rid, proto.encode_task(result)))
    else:
        await answer(proto.result(rid, proto.encode_message(result)))


async def _to_ws_agent(hub: Hub, target: str, params: m.SendParams, parent: str | None, requester: str | None) -> Any:
    relay = await hub.start(target, params, stream=False, requester=requester, parent=parent)
    try:
        last = await relay.outcome(hub.limits.delegate_timeout)
    except TimeoutError:
        raise JsonRpcError(
            -32603,
            "Internal error",
            {"reason": f"the delegated task did not settle within {hub.limits.delegate_timeout:g} s"},
        ) from None
    if isinstance(last, m.Message):
        return last
    return hub.task(relay.task_id)


async def _to_http_agent(hub: Hub, url: str, params: m.SendParams) -> Any:
    from ..client import A2AClient

    async with A2AClient(url, session=hub.session) as client:
        return await client.send(params)
