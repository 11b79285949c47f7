"""``a2a-inspect proxy --headless``: the proxy in the foreground, a line per thing it sees.

Text lines: each exchange's request (which client, which method, dialect and binding),
its answer, each stream event, the stream's end, the proxy's notes (injected faults
among them) and every violation, the agent's or the client's, as it is found.
``-o ndjson`` prints every event of the session as a recording holds it, its secrets
redacted as the settings say (with the settings' ``redact_headers`` and ``plain_headers``,
whatever ``--no-redact`` says of the recording). The first line says where clients
connect, so that a script can read the port when it asked for port 0.

What it holds stays flat however long it runs: as ``a2a-inspect send`` does, it prints
(and records) each event as it comes and lets it go, keeping only what the tracker
folds, with each task's newest messages in memory (older ones on disk).
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from .compose import UsageError
from .listening import line_redaction, printed, run_listening, say, serve_until_stopped, start_recorder


@dataclass
class ProxyOptions:
    upstream: str = ""
    port: int = 8790
    #: (prefix, upstream URL) besides the root's.
    routes: list[tuple[str, str]] = field(default_factory=list)
    record: str | None = None
    append: bool = False
    redact: bool = True
    faults: str | None = None
    #: The gRPC listener's port (0: free), and a gRPC target to listen for from the start.
    grpc_port: int = 0
    grpc_upstream: str | None = None
    #: Host names clients may use besides loopback (--allow-host).
    allow_hosts: list[str] = field(default_factory=list)
    #: The upstream's TLS (--cacert, --cert/--key, --insecure): client.tls.TlsOptions.
    tls: Any = None

    def route_list(self) -> list[Any]:
        from ..proxy import Route

        out = [Route("", self.upstream)] if self.upstream else []
        return out + [Route(prefix, url) for prefix, url in self.routes]


def _upstream(text: str, what: str) -> str:
    url = text.strip()
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise UsageError(f"{what} must be an http:// or https:// URL, got {text!r}")
    if parts.query or parts.fragment:
        raise UsageError(f"{what} must be a base URL without a query, got {text!r}")
    for suffix in ("/.well-known/agent-card.json", "/.well-known/agent.json"):
        if parts.path.endswith(suffix):
            url = url[: url.rindex(suffix)]
    return url.rstrip("/")


def proxy_options(args: argparse.Namespace) -> ProxyOptions:
    routes: list[tuple[str, str]] = []
    seen: set[str] = set()
    for item in args.route or ():
        prefix, sep, url = item.partition("=")
        prefix = "/" + prefix.strip().strip("/")
        if not sep or not url.strip() or prefix == "/":
            raise UsageError(f"--route expects /PATH=URL (a path other than /), got {item!r}")
        if prefix in seen:
            raise UsageError(f"--route {prefix} is given twice")
        seen.add(prefix)
        routes.append((prefix, _upstream(url, f"--route {item!r}")))
    upstream = _upstream(args.upstream, "UPSTREAM_URL") if args.upstream else ""
    if not upstream and not routes:
        raise UsageError("give the agent's URL (UPSTREAM_URL), or at least one --route /PATH=URL")
    if args.faults:
        from ..proxy import RulesError, load_rules

        try:
            load_rules(args.faults)
        except RulesError as exc:
            raise UsageError(str(exc)) from None
    grpc_upstream = getattr(args, "grpc_upstream", None)
    if grpc_upstream is not None:
        grpc_upstream = grpc_upstream.strip()
        host, sep, port = (
            grpc_upstream.rpartition(":")
            if "://" not in grpc_upstream
            else grpc_upstream.split("://", 1)[1].rpartition(":")
        )
        if not sep or not host or not port.isdigit():
            raise UsageError(f"--grpc-upstream expects HOST:PORT (or grpc://HOST:PORT), got {grpc_upstream!r}")
    from .tls_args import tls_options

    return ProxyOptions(
        upstream=upstream,
        port=args.port,
        routes=routes,
        record=args.record,
        append=bool(args.append),
        redact=not args.no_redact,
        faults=args.faults,
        grpc_port=getattr(args, "grpc_port", 0) or 0,
        grpc_upstream=grpc_upstream,
        allow_hosts=list(getattr(args, "allow_host", None) or ()),
        tls=tls_options(args),
    )


#: Messages of each task's history the headless proxy holds in memory (as the CLI's
#: commands do; the rest wait on disk).
MESSAGES_KEPT = 1000
#: Text of the events printed and not yet let go, at most about (the session frees them
#: in batches: a batch of big messages would otherwise be held whole).
HEADLESS_BYTES_KEPT = 4 * 1024 * 1024


def build_proxy(options: ProxyOptions, session: Any = None, messages_kept: int | None = None) -> Any:
    """The proxy for ``options``, on ``session`` (None: the proxy's own bounded one);
    ``messages_kept`` as Proxy takes it (None: the proxy's default)."""
    from ..proxy import Proxy, load_rules

    rules = load_rules(options.faults) if options.faults else None
    extra: dict[str, Any] = {"messages_kept": messages_kept} if messages_kept is not None else {}
    return Proxy(
        options.route_list(), session=session, rules=rules, grpc_port=options.grpc_port, tls=options.tls, **extra
    )


def run_proxy(args: argparse.Namespace) -> int:
    return run_listening(args, proxy_options, _serve)


async def _serve(options: ProxyOptions, output: str) -> int:
    from ..proxy import ProxyServer
    from ..session import Session

    # Printed and recorded as they come, then let go: nothing here reads an old event.
    proxy = build_proxy(
        options, session=Session(keep=0, store=None, keep_bytes=HEADLESS_BYTES_KEPT), messages_kept=MESSAGES_KEPT
    )
    recorder = start_recorder(proxy.session, options, "proxy")
    printer = Printer(output, proxy.tracker, line_redaction())
    server = ProxyServer(proxy, port=options.port, grpc_upstream=options.grpc_upstream, allow_hosts=options.allow_hosts)

    def banner() -> list[str]:
        lines = [f"a2a-inspect proxy: clients connect to {server.base_url}"]
        lines += [f"  {server.base_url}{route.prefix or '/'} -> {route.upstream}" for route in proxy.routes]
        lines += [f"  gRPC {address} -> {upstream}" for upstream, address in server.grpc_addresses.items()]
        if options.faults:
            lines.append(f"  fault rules: {len(proxy.rules)} from {options.faults}")
        return lines

    # Events print after the banner (whose first line a script reads), from the first one.
    return await serve_until_stopped(server, recorder, banner, lambda: proxy.session.subscribe(printer, replay=True))


class Printer:
    """One line per event (text), or the event's JSON (ndjson); violations as found."""

    def __init__(self, output: str, tracker: Any, redaction: Any) -> None:
        self.output = output
        self.tracker = tracker
        self.redaction = redaction
        self._judged = 0

    def __call__(self, event: Any) -> None:
        from ..session.describe import proxy_line
        from ..textsafe import clip, visible

        if self.output == "ndjson":
            say(json.dumps(self.redaction.event_json(event), ensure_ascii=False, default=str))
        else:
            line = proxy_line(event)
            if line is not None:
                printed(visible(clip(self.redaction.shown(line)), single_line=True))
        # The tracker subscribed first: what this event showed is in already.
        found = self.tracker.violations[self._judged :]
        self._judged = len(self.tracker.violations)
        for v in found:
            if self.output == "ndjson":
                say(
                    json.dumps(
                        {
                            "kind": "violation",
                            "code": v.code,
                            "severity": v.severity,
                            "task": v.task_id,
                            "message": v.message,
                            "seq": v.seq,
                            "exchange": v.exchange,
                        },
                        ensure_ascii=False,
                    )
                )
            else:
                side = "client" if v.code.startswith("client-") else "agent"
                say(visible(f"#{v.exchange} {v.severity} ({side}) {v.code}: {v.message}", single_line=True))
