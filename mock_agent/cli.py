"""``a2a-mock``: serve a scenario, check one, list the built-ins, print the schema.

a2a-mock [--scenario FILE|NAME] [--dialect 0.1|0.3|1.0|all] [--profile NAME]
         [--host 127.0.0.1] [--port 8003] [--grpc-port N]
a2a-mock --check --scenario FILE
a2a-mock --replay FILE [--speed X] [--port N]   (serve a recorded session back)
a2a-mock --ws-agent ws://HOST:PORT/ws --name NAME [--scenario ...]   (a Society AI ws-agent)
a2a-mock --list
a2a-mock schema
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from inspector import __version__
from inspector.completion import SHELLS, complete_if_asked, script
from inspector.pipeout import emit
from inspector.serving.browser_guard import allowed_host
from inspector.serving.loopback import LOOPBACK

from .endpoints import DIALECT_CHOICES, REST_PREFIX
from .loader import ScenarioError, builtins, resolve
from .profiles import PROFILES
from .scenario import json_schema
from .store import DEFAULT_LIMIT


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="a2a-mock",
        description="A scriptable mock A2A agent: serves a scenario's card, tasks and faults.",
        epilog="a2a-mock schema prints the scenario file JSON Schema. Docs: docs/mock.md, docs/scenarios.md",
    )
    p.add_argument("--version", action="version", version=f"a2a-mock {__version__}")
    p.add_argument(
        "command",
        nargs="?",
        choices=["serve", "schema"],
        default="serve",
        help="serve (default) or schema: print the scenario JSON Schema and exit",
    )
    scenario = p.add_argument(
        "--scenario",
        "-s",
        metavar="FILE|NAME",
        help="a scenario file (YAML or JSON) or a built-in's name (default: echo, or the profile's)",
    )
    # argcomplete reads this attribute off the argparse action, which does not declare it.
    scenario.completer = _complete_scenario  # type: ignore[attr-defined]
    p.add_argument(
        "--dialect",
        "-d",
        choices=DIALECT_CHOICES,
        help="protocol dialect to speak; 'all' answers each request in its own (default: the scenario's, else all)",
    )
    p.add_argument("--profile", "-p", choices=sorted(PROFILES), help="behave as one of the seed systems")
    p.add_argument("--host", default=LOOPBACK, help="address to bind (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8003, help="port to bind; 0 picks a free one (default 8003)")
    p.add_argument(
        "--grpc-port",
        type=int,
        metavar="N",
        help="also serve gRPC (dialects 1.0 and 0.3) on 127.0.0.1:N; 0 picks a free port (default: "
        "no gRPC); the card lists it as a GRPC interface",
    )
    p.add_argument("--check", action="store_true", help="validate the scenario and exit: 0 valid, 1 not")
    p.add_argument("--list", action="store_true", help="list built-in scenarios and profiles, then exit")
    p.add_argument("--max-body", type=int, metavar="BYTES", help="largest request body accepted (default 1 MiB)")
    p.add_argument(
        "--lenient",
        action="store_true",
        help="accept requests the spec does not allow (no messageId, empty parts, page sizes out of "
        "range, ...) instead of refusing them as a strict agent does (the default; the card's "
        "urn:a2a-mock:request-validation extension says which mode is on)",
    )
    p.add_argument(
        "--max-tasks",
        type=int,
        metavar="N",
        help=f"keep the newest N tasks in memory (default {DEFAULT_LIMIT:,}) and evict older ones "
        "(asked for, they are unknown: -32001); a task whose script still runs or that a stream "
        "follows is evicted only once it is done",
    )
    p.add_argument(
        "--heartbeat",
        type=float,
        metavar="SECONDS",
        help="send ': heartbeat' on streams idle this long (0 turns it off); with --ws-agent, the "
        "seconds between heartbeat frames (default: what the hub asks for; 0: none, so "
        "the hub marks the agent stale)",
    )
    p.add_argument(
        "--time-scale",
        type=float,
        default=1.0,
        metavar="FACTOR",
        help="multiply every scripted delay (0.1 runs scripts ten times faster)",
    )
    p.add_argument("--seed", type=int, help="seed for one_of steps (overrides the scenario's)")
    p.add_argument("--allow-remote-push", action="store_true", help="allow push notifications to non-loopback URLs")
    p.add_argument("--allow-public", action="store_true", help="allow binding a non-loopback address")
    p.add_argument(
        "--allow-host",
        action="append",
        default=[],
        type=_allow_host,
        metavar="NAME",
        help="answer requests for Host NAME (or NAME:PORT; * for any) besides the loopback address "
        "and name it listens on, and browser requests from its pages (repeatable; others get "
        "403, a guard against DNS rebinding and web pages)",
    )
    p.add_argument(
        "--replay",
        action="append",
        metavar="FILE",
        help="serve an a2a-inspect recording back: the recorded answers to the recorded "
        "requests, in the recorded dialect (repeatable: several recordings at once)",
    )
    p.add_argument(
        "--speed",
        type=float,
        default=1.0,
        metavar="X",
        help="with --replay: play recorded timing X times faster (0: no delays; default 1)",
    )
    p.add_argument(
        "--ws-agent",
        metavar="WS_URL",
        help="play a Society AI ws-agent: connect to the hub at WS_URL (a2a-inspect hub's "
        "ws://127.0.0.1:PORT/ws), register as --name and run the scenario for each task it sends",
    )
    p.add_argument("--name", metavar="NAME", help="with --ws-agent: the name to register (ws-agent://NAME)")
    p.add_argument(
        "--completion",
        choices=SHELLS,
        metavar="SHELL",
        help="print the shell completion script (bash, zsh or fish) and exit; see README",
    )
    return p


def _allow_host(text: str) -> str:
    try:
        return allowed_host(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _complete_scenario(prefix: str, **_: object) -> list[str]:
    """TAB after --scenario: the built-ins' names, and scenario files."""
    import glob

    names = [name for name in builtins() if name.startswith(prefix)]
    files = [
        path + ("/" if Path(path).is_dir() else "")
        for path in glob.glob(glob.escape(prefix) + "*")
        if Path(path).is_dir() or path.endswith((".yaml", ".yml", ".json"))
    ]
    return names + files


def main(argv: Sequence[str] | None = None) -> int:
    if argv is None:
        complete_if_asked(build_parser)
    args = build_parser().parse_args(argv)
    if args.completion:
        emit(script("a2a-mock", args.completion))
        return 0
    if args.command == "schema":
        emit(json.dumps(schema(), indent=2) + "\n")
        return 0
    if args.list:
        emit(list_text())
        return 0
    if args.check:
        return check(args.scenario)
    if args.replay:
        return replay(args)
    if args.ws_agent or args.name:
        return ws_agent(args)
    if args.max_tasks is not None and args.max_tasks < 1:
        print("a2a-mock: --max-tasks must be 1 or more", file=sys.stderr)
        return 1
    return serve(args)


def replay(args: argparse.Namespace) -> int:
    if args.scenario or args.profile or args.dialect:
        print(
            "a2a-mock: --replay serves a recording as recorded (its dialect included); it does not take "
            "--scenario, --profile or --dialect",
            file=sys.stderr,
        )
        return 1
    if args.speed < 0:
        print("a2a-mock: --speed must be 0 (no delays) or more", file=sys.stderr)
        return 1
    if args.host not in (LOOPBACK, "localhost", "::1") and not args.allow_public:
        print(
            f"a2a-mock: refusing to bind {args.host}: the mock binds loopback only (pass --allow-public to expose it)",
            file=sys.stderr,
        )
        return 1
    from .replay import main as replay_main

    return replay_main(
        args.replay,
        speed=args.speed,
        host=args.host,
        port=args.port,
        grpc_port=args.grpc_port,
        allow_hosts=args.allow_host,
    )


def ws_agent(args: argparse.Namespace) -> int:
    if not args.ws_agent or not args.name:
        print("a2a-mock: --ws-agent WS_URL and --name NAME go together", file=sys.stderr)
        return 1
    if args.dialect not in (None, "0.1") or args.profile not in (None, "society-ai"):
        print(
            "a2a-mock: a ws-agent speaks Society AI's 0.1 dialect over the hub; it takes no other "
            "--dialect or --profile",
            file=sys.stderr,
        )
        return 1
    from .ws_agent import main as ws_main

    try:
        scenario = resolve(args.scenario or "echo")
    except ScenarioError as exc:
        print(exc, file=sys.stderr)
        return 1
    return ws_main(
        args.ws_agent,
        args.name,
        scenario,
        time_scale=args.time_scale,
        seed=args.seed,
        heartbeat=args.heartbeat,
        max_tasks=args.max_tasks,
        allow_public=args.allow_public,
    )


def schema() -> dict[str, Any]:
    out = {"$schema": "https://json-schema.org/draft/2020-12/schema", "title": "a2a-mock scenario"}
    out.update(json_schema())
    out["title"] = "a2a-mock scenario"
    return out


def list_text() -> str:
    names = builtins()
    width = max(map(len, [*names, *PROFILES])) + 2
    lines = ["Built-in scenarios (--scenario NAME):"]
    lines += [f"  {name:<{width}}{description}" for name, description in names.items()]
    lines += ["", "Profiles (--profile NAME):"]
    lines += [f"  {name:<{width}}seed {profile.seeds}: {profile.summary}" for name, profile in PROFILES.items()]
    return "\n".join(lines) + "\n"


def check(spec: str | None) -> int:
    if not spec:
        print("a2a-mock: --check needs --scenario FILE|NAME", file=sys.stderr)
        return 1
    try:
        scenario = resolve(spec)
    except ScenarioError as exc:
        print(exc, file=sys.stderr)
        return 1
    print(f"{spec}: ok ({len(scenario.rules)} rule{'s' if len(scenario.rules) != 1 else ''})")
    return 0


def serve(args: argparse.Namespace) -> int:
    # Here, not at the top: --check, --list and schema have no use for uvicorn or starlette.
    from inspector.serving.browser_guard import BrowserGuard
    from inspector.serving.runner import check_port, serve_until_interrupted

    from .server import MockServer

    try:
        server = MockServer(
            args.scenario,
            dialect=args.dialect,
            profile=args.profile,
            max_body=args.max_body,
            heartbeat=args.heartbeat,
            time_scale=args.time_scale,
            seed=args.seed,
            allow_remote_push=args.allow_remote_push,
            store_limit=args.max_tasks,
            lenient=True if args.lenient else None,
            grpc_port=args.grpc_port,
        )
    except (ScenarioError, ValueError) as exc:
        print(f"a2a-mock: {exc}", file=sys.stderr)
        return 1
    if args.host not in (LOOPBACK, "localhost", "::1") and not args.allow_public:
        print(
            f"a2a-mock: refusing to bind {args.host}: the mock binds loopback only (pass --allow-public to expose it)",
            file=sys.stderr,
        )
        return 1
    if args.grpc_port:
        try:
            check_port(LOOPBACK, args.grpc_port)
        except OSError as exc:
            print(
                f"a2a-mock: cannot listen for gRPC on {LOOPBACK}:{args.grpc_port}: {exc.strerror or exc}",
                file=sys.stderr,
            )
            return 1
    # Everything loaded so far lives as long as the process: keep the collector from
    # rescanning it on every request.
    gc.collect()
    gc.freeze()

    def banner(base: str) -> list[str]:
        host, _, port = base.rpartition("//")[2].rpartition(":")
        server.http_server = (host.strip("[]"), int(port))
        name = server.scenario.name or "scenario"
        what = f"profile {server.profile.name}" if server.profile else f"dialect {server.dialect_name}"
        what += ", strict" if server.strict else ", lenient"
        return [
            f"a2a-mock: serving {name!r} ({what}) at {base}{server.rpc_path}",
            *(f"  card: {base}{path}" for path in server.card_paths),
            *(
                [f"  HTTP+JSON/REST ({', '.join(server.rest_dialects)}): {base}{REST_PREFIX}"]
                if server.rest_dialects
                else []
            ),
            *(
                [f"  gRPC ({', '.join(server.rest_dialects)}): grpc://{server.grpc_address}"]
                if server.grpc_address
                else []
            ),
            "  Ctrl-C to stop",
        ]

    return serve_until_interrupted(BrowserGuard(server.app, args.allow_host), args.host, args.port, banner, "a2a-mock")


if __name__ == "__main__":
    sys.exit(main())
