"""The hub's HTTP bridge: ``/agents/NAME`` is an ordinary A2A JSON-RPC endpoint (the
0.1 draft, Society AI's dialect) that reaches the ws-agent NAME, as Society AI's
router does. So the headless commands, and any other A2A client, reach ws-agents
unchanged.

    GET  /agents/NAME/.well-known/agent.json   the agent's card (also agent-card.json)
    POST /agents/NAME                          tasks/send, tasks/sendSubscribe, tasks/get,
                                               tasks/cancel, tasks/resubscribe (and
                                               task/resubscribe), tasks/list
    GET  /agents                               the registered agents, as JSON

What the bridge's callers send is not recorded here (their own client records it):
the hub's session holds the frames the bridge makes the hub send and receive.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from ..protocol import hub as proto
from ..protocol import models as m
from ..protocol.dialects import v01
from ..protocol.errors import JsonRpcError
from ..protocol.methods import Method
from ..safejson import loads
from ..session.hub_bridge import as_stream_events
from .relay import RelayFailed, settles

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response

    from .core import Hub

#: Largest request body the bridge reads.
MAX_BODY = 4 * 1024 * 1024
#: Seconds of silence on a bridged stream before a ": heartbeat" comment.
HEARTBEAT = 15.0
_TICK = object()


def _dump(doc: Any) -> bytes:
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


class Bridge:
    def __init__(self, hub: Hub, heartbeat: float = HEARTBEAT) -> None:
        self.hub = hub
        self.heartbeat = heartbeat

    def routes(self) -> list[Any]:
        from starlette.routing import Route

        return [
            Route("/agents", self.list_agents, methods=["GET"]),
            Route("/agents/{name}/.well-known/{file}", self.card, methods=["GET"]),
            Route("/agents/{name}", self.rpc, methods=["POST"]),
            Route("/agents/{name}/", self.rpc, methods=["POST"]),
        ]

    # ------------------------------------------------------------------ GET

    async def list_agents(self, request: Request) -> Response:
        from starlette.responses import JSONResponse

        hub = self.hub
        return JSONResponse(
            {
                "agents": [
                    {"name": e.name, "url": e.url, "status": e.status, "bridge": hub.bridge_url(e.name)}
                    for e in hub.agents.values()
                ]
            }
        )

    async def card(self, request: Request) -> Response:
        from starlette.responses import JSONResponse, PlainTextResponse

        name = request.path_params["name"]
        if request.path_params["file"] not in ("agent.json", "agent-card.json"):
            return PlainTextResponse("not found", status_code=404)
        entry = self.hub.agents.get(name)
        if entry is None or not entry.online:
            return JSONResponse({"error": f"no ws-agent named {name!r} is connected to this hub"}, status_code=404)
        return JSONResponse(entry.card_json(self.hub.bridge_url(name)))

    # ------------------------------------------------------------------ JSON-RPC

    async def rpc(self, request: Request) -> Response:
        from starlette.responses import Response

        name = request.path_params["name"]
        body = await self._body(request)
        if body is None:
            return self._error(
                None,
                JsonRpcError(
                    -32600, "Request payload too large", {"reason": f"the bridge reads at most {MAX_BODY} bytes"}
                ),
                413,
            )
        try:
            obj = loads(body)
        except ValueError as exc:
            return self._error(None, JsonRpcError(-32700, "Parse error", {"reason": str(exc)}))
        rid = obj.get("id") if isinstance(obj, dict) else None
        try:
            req = v01.decode_request(obj)
        except JsonRpcError as err:
            return self._error(rid if isinstance(rid, (str, int)) else None, err)
        method = req.method
        try:
            entry_missing = self.hub.agents.get(name) is None or not self.hub.agents[name].online
            if entry_missing and method in (Method.SEND, Method.STREAM, Method.CANCEL):
                self.hub.entry(name)  # raises "agent not found"
            if method is Method.SEND:
                return self._result(rid, method, await self._send(name, req.params))
            if method is Method.STREAM:
                relay = await self.hub.start(name, req.params, stream=True, requester=_requester(req.params))
                return self._sse(self._relay_events(relay, rid))
            if method is Method.GET:
                self._owned(name, req.params.id)
                return self._result(rid, method, self.hub.task(req.params.id, req.params.history_length))
            if method is Method.CANCEL:
                return self._result(rid, method, await self.hub.cancel(name, req.params.id))
            if method is Method.RESUBSCRIBE:
                self._owned(name, req.params.id)
                view, relay = await self.hub.follow(req.params.id)
                return self._sse(self._follow_events(view, relay, rid))
            if method is Method.LIST:
                return self._result(rid, method, m.ListTasksResult(tasks=self.hub.tasks_of(name)))
            raise JsonRpcError(
                -32003,
                "Push Notification is not supported",
                {"reason": "the hub relays tasks only; push notifications do not go through it"},
            )
        except JsonRpcError as err:
            return self._error(rid, err, 404 if err.code == proto.NO_SUCH_AGENT else 200)
        except RelayFailed as exc:
            return self._error(rid, exc.error or JsonRpcError(-32603, "Internal error", {"reason": str(exc)}))
        return Response(status_code=500)  # pragma: no cover - every method returns above

    def _owned(self, name: str, task_id: str) -> None:
        if self.hub.task_agent.get(task_id) != name:
            raise JsonRpcError(proto.UNKNOWN_TASK, "Task not found", {"id": task_id})

    async def _send(self, name: str, params: m.SendParams) -> Any:
        relay = await self.hub.start(name, params, stream=False, requester=_requester(params))
        last = await relay.outcome()
        if isinstance(last, m.Message):
            return last
        # The task as its frames built it: chunks streamed as task.artifact are in it
        # even when task.complete did not repeat them.
        return self.hub.task(relay.task_id, params.configuration.history_length if params.configuration else None)

    @staticmethod
    async def _body(request: Request) -> bytes | None:
        chunks: list[bytes] = []
        size = 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > MAX_BODY:
                return None
            chunks.append(chunk)
        return b"".join(chunks)

    @staticmethod
    def _result(rid: Any, method: Method, result: Any) -> Response:
        from starlette.responses import Response

        return Response(_dump(v01.encode_response(method, result, rid)), media_type="application/json")

    @staticmethod
    def _error(rid: Any, err: JsonRpcError, status: int = 200) -> Response:
        from starlette.responses import Response

        return Response(_dump(v01.encode_error(err, rid)), status_code=status, media_type="application/json")

    # ------------------------------------------------------------------ streams

    def _sse(self, events: AsyncIterator[bytes]) -> Response:
        from starlette.responses import StreamingResponse

        return StreamingResponse(
            events, media_type="text/event-stream", headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
        )

    async def _beats(self, source: AsyncIterator[Any]) -> AsyncIterator[Any]:
        """``source``'s items, with _TICK whenever it is quiet for the heartbeat gap."""
        it = source.__aiter__()
        pending: asyncio.Task[Any] | None = None
        try:
            while True:
                if pending is None:
                    pending = asyncio.ensure_future(it.__anext__())
                done, _ = await asyncio.wait({pending}, timeout=self.heartbeat)
                if not done:
                    yield _TICK
                    continue
                try:
                    item = pending.result()
                except StopAsyncIteration:
                    return
                finally:
                    if done:
                        pending = None
                yield item
        finally:
            if pending is not None:
                pending.cancel()
            close = getattr(it, "aclose", None)
            if close is not None:
                await close()

    def _frame(self, rid: Any, item: Any) -> bytes:
        if item is _TICK:
            return b": heartbeat\n\n"
        if isinstance(item, JsonRpcError):
            return b"data: " + _dump(v01.encode_error(item, rid)) + b"\n\n"
        return b"data: " + _dump(v01.encode_stream_event(item, rid)) + b"\n\n"

    async def _relay_events(self, relay: Any, rid: Any) -> AsyncIterator[bytes]:
        streamed: set[Any] = set()
        try:
            async for item in self._beats(relay.items()):
                if item is _TICK:
                    yield self._frame(rid, _TICK)
                    continue
                for event in as_stream_events(item, streamed):
                    yield self._frame(rid, event)
        except RelayFailed as exc:
            err = exc.error or JsonRpcError(-32603, "Internal error", {"reason": str(exc)})
            yield self._frame(rid, err)
        finally:
            relay.close()

    async def _follow_events(self, view: Any, relay: Any, rid: Any) -> AsyncIterator[bytes]:
        task = self.hub.task(view.id)
        now = m.TaskStatusUpdateEvent(
            task_id=task.id, context_id=task.context_id, status=task.status, final=relay is None
        )
        yield self._frame(rid, now)
        if relay is None:
            return
        queue = self.hub.follow_queue(view.id)
        try:
            while True:
                try:
                    item = await asyncio.wait_for(queue.get(), self.heartbeat)
                except TimeoutError:
                    yield self._frame(rid, _TICK)
                    continue
                for event in as_stream_events(item, set()):
                    yield self._frame(rid, event)
                if settles(item):
                    return
        finally:
            self.hub.unfollow(view.id, queue)


def _requester(params: m.SendParams) -> str | None:
    meta = params.metadata or {}
    who = meta.get("requester")
    if isinstance(who, dict):
        who = who.get("name")
    return who if isinstance(who, str) and who else "http-bridge"
