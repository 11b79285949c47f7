"""``a2a-inspect hub --headless``: the hub in the foreground, a line per thing it sees.

Text lines leave heartbeats (and the hub's answers to them) out, so that what an agent
does stands out; ``-o ndjson`` prints every event of the session, heartbeats included,
as the recording holds it. The first line says where agents connect and where the bridge
is, so a script can read the port when it asked for port 0.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass, field
from typing import Any

from .compose import UsageError
from .listening import line_redaction, run_listening, say, serve_until_stopped, start_recorder


@dataclass
class HubOptions:
    port: int = 8765
    ws_path: str = "/ws"
    routes: dict[str, str] = field(default_factory=dict)
    limits: Any = None
    record: str | None = None
    append: bool = False
    redact: bool = True
    #: Host names the bridge and agents may use besides loopback (--allow-host).
    allow_hosts: list[str] = field(default_factory=list)


def hub_options(args: argparse.Namespace) -> HubOptions:
    from ..hub import HubLimits
    from ..hub.limits import name_problem

    routes: dict[str, str] = {}
    for item in args.route or ():
        name, sep, url = item.partition("=")
        name, url = name.strip(), url.strip()
        if not sep or not url:
            raise UsageError(f"--route expects NAME=URL, got {item!r}")
        problem = name_problem(name)
        if problem is not None:
            raise UsageError(f"--route {item!r}: {problem}")
        if not url.startswith(("http://", "https://")):
            raise UsageError(f"--route {item!r}: the URL must be http:// or https://")
        routes[name] = url
    kwargs: dict[str, Any] = {}
    if args.max_frame is not None:
        kwargs["max_frame"] = args.max_frame
    if args.heartbeat_timeout is not None:
        kwargs["heartbeat_timeout"] = args.heartbeat_timeout
    for name in ("max_stream_events", "max_stream_body"):
        if getattr(args, name, None) is not None:
            kwargs[name] = getattr(args, name)
    path = args.ws_path if args.ws_path.startswith("/") else "/" + args.ws_path
    if path.startswith("/agents"):
        raise UsageError("--ws-path cannot be under /agents: the HTTP bridge is there")
    return HubOptions(
        port=args.port,
        ws_path=path,
        routes=routes,
        limits=HubLimits(**kwargs),
        record=args.record,
        append=bool(args.append),
        redact=not args.no_redact,
        allow_hosts=list(getattr(args, "allow_host", None) or ()),
    )


def run_hub(args: argparse.Namespace) -> int:
    return run_listening(args, hub_options, _serve)


async def _serve(options: HubOptions, output: str) -> int:
    from ..hub import Hub, HubServer

    hub = Hub(limits=options.limits, http_agents=options.routes)
    recorder = start_recorder(hub.session, options, "hub")
    printer = _Printer(output, line_redaction())
    hub.session.subscribe(printer)
    server = HubServer(hub, port=options.port, ws_path=options.ws_path, allow_hosts=options.allow_hosts)

    def banner() -> list[str]:
        return [
            f"a2a-inspect hub: agents connect to {server.ws_url}",
            f"  bridge: {server.base_url}/agents/NAME (an A2A 0.1 endpoint per ws-agent)",
        ]

    return await serve_until_stopped(server, recorder, banner)


class _Printer:
    """One line per event: text (heartbeats aside) or the event's JSON."""

    def __init__(self, output: str, redaction: Any = None) -> None:
        self.output = output
        #: session.redact.Redaction: an agent's socket opens with its credentials in
        #: the handshake's headers; ndjson prints them as a recording holds them.
        self.redaction = redaction
        self._beats: set[tuple[Any, Any]] = set()

    def __call__(self, event: Any) -> None:
        from ..textsafe import visible

        if self.output == "ndjson":
            doc = self.redaction.event_json(event) if self.redaction is not None else event.to_json()
            say(json.dumps(doc, ensure_ascii=False, default=str))
            return
        line = self.line(event)
        if line is not None:
            say(visible(line, single_line=True))

    def line(self, event: Any) -> str | None:
        from ..protocol import hub as proto
        from ..session import Kind
        from ..session.describe import describe_frame, describe_ws

        data = event.data
        kind = event.kind
        if kind is Kind.NOTE:
            if data.get("code") == "hub-listening":
                return None  # the banner says it
            return f"note: {data.get('text', '')}"
        if kind is Kind.ERROR:
            return f"error: {data.get('message', '')}"
        if kind is Kind.STREAM_END:
            return f"#{event.exchange} ended: {data.get('reason')} after {data.get('events')} frames"
        if kind is not Kind.WS:
            return None
        who = data.get("agent") or f"socket #{data.get('conn')}"
        arrow = {"in": "←", "out": "→", "hub": "·"}.get(data.get("dir"), "·")
        if data.get("op") != "text":
            return f"{who} {arrow} {describe_ws(event)}"
        frame = event.payload
        method = data.get("rpc_method")
        if method == proto.HEARTBEAT:
            if data.get("rpc_id") is not None:
                self._beats.add((data.get("conn"), data.get("rpc_id")))
            return None
        key = (data.get("conn"), getattr(frame, "rpc_id", None))
        if frame is not None and frame.role in ("result", "error") and key in self._beats:
            self._beats.discard(key)
            return None
        number = f"#{event.exchange} " if event.exchange else ""
        return f"{number}{who} {arrow} {describe_frame(frame, method)}"
