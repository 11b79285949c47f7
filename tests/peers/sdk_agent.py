"""The "Echo Agent" from /work/shared/wire-captures, rebuilt on the real a2a-sdk server.

Our own mock agent is written from our reading of the spec; this peer is written against
the reference SDK, so the inspector is also exercised against wire behaviour we did not
author (field spellings, SSE framing, error shapes, the 0.3 compatibility layer).

Modes:
  ``compat`` — A2A 1.0 with 0.3 compatibility (the captures' :9999 agent): JSON-RPC at
               ``/`` answering both ``message/send``-style and ``SendMessage``-style
               methods, HTTP+JSON under ``/rest`` (0.3 under ``/rest/v1``), card at
               ``/.well-known/agent-card.json`` and the legacy ``/.well-known/agent.json``.
  ``v10``    — pure A2A 1.0 (the captures' :9998 agent): 0.3 method names are unknown
               (-32601), the card has no 0.3 top-level fields and no legacy path.

With ``grpc=True`` the same handler also serves gRPC (the SDK's GrpcHandler, and in
compat mode its 0.3 CompatGrpcHandler) on a loopback port of its own, started on the
app's event loop in its lifespan: ``GET /_peer/grpc`` says which port. Its card then
lists the GRPC interface first (``127.0.0.1:PORT``, as the SDK's samples write it),
and has an extended card, so that a bare ``grpc://`` URL can ask for it.

Behaviour, keyed on the first word of the user's text (case-insensitive):
  anything else   working "echoing...", three artifact chunks, completed "done"
  ``ask``         input-required with QUESTION; the next message on that taskId is echoed
  ``fail``        failed with FAILED_TEXT
  ``slow``        like echo, but SLOW_DELAY before each chunk
  ``hold``        like echo, but each chunk waits until a test releases it (see Gates):
                  the task stays working for as long as a test needs, whatever the load
  ``msg``         a single Message "echo: <text>" instead of a Task
  ``meta``        like echo, but the task carries TASK_METADATA (Society AI's keys, seed
                  001) and each artifact chunk ARTIFACT_METADATA
Cancel of a running or input-required task ends it as canceled with CANCELED_TEXT.

Test control (not A2A; only for ``hold`` tasks):
  ``GET  /_peer/tasks/{id}/parked?at=N&timeout=S``  answers once the task waits before
                                                   chunk N (0-based); 408 after S seconds
  ``POST /_peer/tasks/{id}/release?steps=N``       lets N more chunks go (``all``: every one)

Standalone, loopback only:  python -m tests.peers.sdk_agent --mode compat --port 9999
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import os
import threading
import uuid
from collections.abc import AsyncIterator
from typing import Any

from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes, create_rest_routes
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types.a2a_pb2 import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentProvider,
    AgentSkill,
    Message,
    Part,
    Role,
    Task,
    TaskState,
    TaskStatus,
)
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

MODES = ("compat", "v10")

# Defaults are fast so suites stay quick; the captures' timing is 0.3 s / 2.0 s.
ECHO_DELAY = float(os.environ.get("A2A_PEER_ECHO_DELAY", "0.05"))
SLOW_DELAY = float(os.environ.get("A2A_PEER_SLOW_DELAY", "0.3"))

AGENT_NAME = "Echo Agent"
QUESTION = "What should I echo? Reply on this taskId."
WORKING_TEXT = "echoing..."
DONE_TEXT = "done"
FAILED_TEXT = "failing as requested"
CANCELED_TEXT = "canceled by request"
ARTIFACT_NAME = "echo"
TASK_METADATA = {
    "requester": {"name": "lead"},
    "executor": {"name": AGENT_NAME},
    "skill_used": "echo",
    "cost": {"amount": 0.002, "currency": "USD"},
}
ARTIFACT_METADATA = {"source": "echo", "tokens": 3}

CARD_PATH = "/.well-known/agent-card.json"
LEGACY_CARD_PATH = "/.well-known/agent.json"
REST_PREFIX = "/rest"


def echo_chunks(text: str) -> list[str]:
    """Split ``text`` into the three chunks the captured agent streams.

    Observed: "hello there inspector" -> "echo: hello ", "there ", "inspector";
    "stream me please now" -> "echo: stream ", "me please ", "now";
    "the answer" -> "echo: ", "the ", "answer"; "notify" -> "echo: ", "notify ", ".".
    """
    words = text.split() or ["(no text)"]
    if len(words) == 1:
        return ["echo: ", f"{words[0]} ", "."]
    if len(words) == 2:
        return ["echo: ", f"{words[0]} ", words[1]]
    return [f"echo: {words[0]} ", " ".join(words[1:-1]) + " ", words[-1]]


def artifact_id_for(task_id: str) -> str:
    return f"echo-{task_id[:8]}"


def _text(text: str) -> list[Part]:
    return [Part(text=text)]


class _Gate:
    """Where one ``hold`` task waits: before chunk ``parked``, until ``released`` > it."""

    def __init__(self) -> None:
        self.parked = -1
        self.released = 0
        self.changed = asyncio.Condition()

    async def wait_for(self, predicate: Any, timeout: float | None = None) -> bool:
        async with self.changed:
            try:
                async with asyncio.timeout(timeout):
                    await self.changed.wait_for(predicate)
            except TimeoutError:
                return False
            return True

    async def update(self, *, parked: int | None = None, release: int = 0) -> None:
        async with self.changed:
            if parked is not None:
                self.parked = parked
            self.released += release
            self.changed.notify_all()


class Gates:
    """The gates of ``hold`` tasks, by task id. Every use runs on the server's loop."""

    ALL = 1 << 30

    def __init__(self) -> None:
        self._gates: dict[str, _Gate] = {}

    def get(self, task_id: str) -> _Gate:
        # A test may ask where a task is parked before the task reaches its gate.
        gate = self._gates.get(task_id)
        if gate is None:
            gate = self._gates[task_id] = _Gate()
        return gate

    async def before_chunk(self, task_id: str, index: int) -> None:
        gate = self.get(task_id)
        await gate.update(parked=index)
        await gate.wait_for(lambda: gate.released > index)

    async def parked(self, request: Request) -> Response:
        gate = self.get(request.path_params["task_id"])
        at = int(request.query_params.get("at", "0"))
        timeout = float(request.query_params.get("timeout", "10"))
        if not await gate.wait_for(lambda: gate.parked >= at, timeout):
            return JSONResponse({"parked": gate.parked, "released": gate.released}, status_code=408)
        return JSONResponse({"parked": gate.parked, "released": gate.released})

    async def release(self, request: Request) -> Response:
        gate = self.get(request.path_params["task_id"])
        steps = request.query_params.get("steps", "1")
        await gate.update(release=self.ALL if steps == "all" else int(steps))
        return JSONResponse({"parked": gate.parked, "released": gate.released})


class EchoExecutor(AgentExecutor):
    def __init__(
        self, echo_delay: float = ECHO_DELAY, slow_delay: float = SLOW_DELAY, gates: Gates | None = None
    ) -> None:
        self.echo_delay = echo_delay
        self.slow_delay = slow_delay
        self.gates = gates if gates is not None else Gates()

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        task_id, context_id = str(context.task_id), str(context.context_id)
        text = context.get_user_input(" ")
        words = text.split()
        keyword = words[0].lower() if words else ""
        task = context.current_task
        # The reply to a question is data, not a command: "ask again" as an answer echoes.
        answering = task is not None and task.status.state == TaskState.TASK_STATE_INPUT_REQUIRED

        if task is None:
            if keyword == "msg":
                # A Message reply is only legal before any Task exists for the request.
                await event_queue.enqueue_event(
                    Message(
                        message_id=f"reply-{uuid.uuid4()}",
                        context_id=context_id,
                        role=Role.ROLE_AGENT,
                        parts=_text(f"echo: {text}"),
                    )
                )
                return
            assert context.message is not None
            # The SDK rejects status updates for a task nobody has announced.
            await event_queue.enqueue_event(
                Task(
                    id=task_id,
                    context_id=context_id,
                    status=TaskStatus(state=TaskState.TASK_STATE_SUBMITTED),
                    history=[context.message],
                    metadata=TASK_METADATA if keyword == "meta" else None,
                )
            )

        updater = TaskUpdater(event_queue, task_id, context_id)

        def say(reply: str) -> Message:
            return updater.new_agent_message(_text(reply))

        if not answering and keyword == "ask":
            await updater.requires_input(say(QUESTION))
            return
        if not answering and keyword == "fail":
            await updater.failed(say(FAILED_TEXT))
            return

        delay = self.slow_delay if keyword == "slow" and not answering else self.echo_delay
        await updater.start_work(say(WORKING_TEXT))
        chunks = echo_chunks(text)
        held = keyword == "hold" and not answering
        for i, chunk in enumerate(chunks):
            if held:
                await self.gates.before_chunk(task_id, i)
            else:
                await asyncio.sleep(delay)
            await updater.add_artifact(
                _text(chunk),
                artifact_id=artifact_id_for(task_id),
                name=ARTIFACT_NAME,
                append=i > 0,
                last_chunk=i == len(chunks) - 1,
                metadata=ARTIFACT_METADATA if keyword == "meta" and not answering else None,
            )
        await updater.complete(say(DONE_TEXT))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        # The SDK awaits this, then cancels the running execute() (it is parked in
        # asyncio.sleep), so no chunk can follow the canceled status.
        updater = TaskUpdater(event_queue, str(context.task_id), str(context.context_id))
        await updater.cancel(updater.new_agent_message(_text(CANCELED_TEXT)))


def build_card(mode: str, base_url: str, grpc_port: int | None = None) -> AgentCard:
    """The card as captured, with every URL under ``base_url`` (and, with ``grpc_port``,
    the gRPC interface first)."""
    _check_mode(mode)
    root = base_url.rstrip("/")
    versions = ["1.0", "0.3"] if mode == "compat" else ["1.0"]
    endpoints = [(f"{root}/", "JSONRPC"), (f"{root}{REST_PREFIX}", "HTTP+JSON")]
    if grpc_port is not None:
        endpoints.insert(0, (f"127.0.0.1:{grpc_port}", "GRPC"))
    interfaces = [
        AgentInterface(url=url, protocol_binding=binding, protocol_version=version)
        for version in versions
        for url, binding in endpoints
    ]
    return AgentCard(
        name=AGENT_NAME,
        description='Echoes text back; streams artifact chunks; "ask ..." triggers input-required.',
        supported_interfaces=interfaces,
        provider=AgentProvider(url="https://example.invalid", organization="a2aproto test"),
        version="0.1.0",
        capabilities=AgentCapabilities(
            streaming=True, push_notifications=False, **({"extended_agent_card": True} if grpc_port is not None else {})
        ),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[
            AgentSkill(
                id="echo",
                name="Echo",
                description="Echo the input, streamed as 3 artifact chunks.",
                tags=["echo", "test"],
                examples=["hello world", "ask me", "msg hi", "fail", "slow hello"],
            )
        ],
    )


def _check_mode(mode: str) -> None:
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, not {mode!r}")


def build_app(
    mode: str = "compat",
    base_url: str | None = None,
    *,
    echo_delay: float | None = None,
    slow_delay: float | None = None,
    grpc: bool = False,
) -> Starlette:
    """An ASGI app serving the Echo Agent in ``mode`` ("compat" or "v10").

    The card's URLs come from ``base_url`` when given, otherwise from each card request's
    own base URL — so the app can be built before its port is known (port 0)."""
    _check_mode(mode)
    compat = mode == "compat"
    executor = EchoExecutor(
        ECHO_DELAY if echo_delay is None else echo_delay, SLOW_DELAY if slow_delay is None else slow_delay
    )
    # The handler reads only capabilities from its card, never the URLs.
    grpc_port: dict[str, int | None] = {"port": None}
    handler_card = build_card(mode, base_url or "http://127.0.0.1", 0 if grpc else None)
    handler = DefaultRequestHandler(
        agent_executor=executor,
        task_store=InMemoryTaskStore(),
        agent_card=handler_card,
        extended_agent_card=handler_card if grpc else None,
    )

    @functools.lru_cache(maxsize=8)
    def card_endpoint(url: str) -> Any:
        # Reuse the SDK's card route (ETag, If-None-Match, 0.3 field injection) per URL.
        (route,) = create_agent_card_routes(build_card(mode, url, grpc_port["port"]))
        return route.endpoint

    async def serve_card(request: Request) -> Response:
        return await card_endpoint(base_url or str(request.base_url))(request)

    card_paths = [CARD_PATH, LEGACY_CARD_PATH] if compat else [CARD_PATH]

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        server = await _start_grpc(handler, compat) if grpc else None
        if server is not None:
            grpc_port["port"] = server.port
            for interface in handler_card.supported_interfaces:  # the extended card's too
                if interface.protocol_binding == "GRPC":
                    interface.url = f"127.0.0.1:{server.port}"
        yield
        if server is not None:
            await server.stop(0)
        # Slow tasks may still be running at shutdown; drain them instead of leaking.
        await handler.aclose()

    async def grpc_info(request: Request) -> Response:
        return JSONResponse({"port": grpc_port["port"]})

    routes = [Route(path, serve_card, methods=["GET"]) for path in card_paths]
    routes += [
        Route("/_peer/tasks/{task_id}/parked", executor.gates.parked, methods=["GET"]),
        Route("/_peer/tasks/{task_id}/release", executor.gates.release, methods=["POST"]),
        Route("/_peer/grpc", grpc_info, methods=["GET"]),
    ]
    routes += create_jsonrpc_routes(handler, "/", enable_v0_3_compat=compat)
    routes += create_rest_routes(handler, enable_v0_3_compat=compat, path_prefix=REST_PREFIX)
    return Starlette(routes=routes, lifespan=lifespan)


async def _start_grpc(handler: DefaultRequestHandler, compat: bool) -> Any:
    """The SDK's gRPC service(s) over ``handler``, on a loopback port of their own, on the
    running loop (the handler's task store and queues live there)."""
    import grpc
    from a2a.server.request_handlers import GrpcHandler
    from a2a.types import a2a_pb2_grpc

    server = grpc.aio.server()
    a2a_pb2_grpc.add_A2AServiceServicer_to_server(GrpcHandler(handler), server)
    if compat:
        from a2a.compat.v0_3 import a2a_v0_3_pb2_grpc
        from a2a.compat.v0_3.grpc_handler import CompatGrpcHandler

        a2a_v0_3_pb2_grpc.add_A2AServiceServicer_to_server(CompatGrpcHandler(handler), server)
    server.port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    return server


def grpc_port(base_url: str) -> int:
    """The gRPC port of a peer built with ``grpc=True``."""
    import httpx

    port = httpx.get(f"{base_url}/_peer/grpc").json()["port"]
    assert isinstance(port, int), "this peer serves no gRPC (build_app(grpc=True))"
    return port


def wait_parked(base_url: str, task_id: str, at: int = 0, timeout: float = 10.0) -> None:
    """Return once the ``hold`` task waits before chunk ``at``; raise if it never does."""
    import httpx

    r = httpx.get(
        f"{base_url}/_peer/tasks/{task_id}/parked", params={"at": at, "timeout": timeout}, timeout=timeout + 5
    )
    if r.status_code != 200:
        raise AssertionError(f"task {task_id} never parked before chunk {at}: {r.text}")


def release(base_url: str, task_id: str, steps: int | str = "all") -> None:
    """Let ``steps`` more chunks of the ``hold`` task go (``"all"``: the rest of them)."""
    import httpx

    httpx.post(f"{base_url}/_peer/tasks/{task_id}/release", params={"steps": steps}).raise_for_status()


def main(argv: list[str] | None = None) -> None:
    from inspector.serving.runner import BackgroundServer

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=MODES, default="compat")
    parser.add_argument("--port", type=int, default=0, help="loopback port (0 = any free port)")
    parser.add_argument(
        "--echo-delay", type=float, default=ECHO_DELAY, help="seconds before each echo chunk (captures: 0.3)"
    )
    parser.add_argument(
        "--slow-delay", type=float, default=SLOW_DELAY, help="seconds before each 'slow' chunk (captures: 2.0)"
    )
    args = parser.parse_args(argv)
    app = build_app(args.mode, echo_delay=args.echo_delay, slow_delay=args.slow_delay)
    with BackgroundServer(app, port=args.port) as srv:
        print(f"{AGENT_NAME} ({args.mode}) on {srv.url}  card: {srv.url}{CARD_PATH}", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            threading.Event().wait()


if __name__ == "__main__":
    main()
