"""``a2a-inspect``: headless commands, or the TUI when no command is given.

Only argparse is imported at module level: ``--version`` and ``--help`` must answer
without loading httpx, pydantic or textual. Each command imports what it needs.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, NoReturn

from . import __version__

COMMANDS = (
    "card",
    "send",
    "get",
    "cancel",
    "resubscribe",
    "push",
    "list",
    "replay",
    "export",
    "hub",
    "proxy",
    "web",
    "check",
)

EXIT_CODES_HELP = """\
exit codes:
  0  completed, or the agent replied with a message; also a task still submitted
     or working where the agent may leave it so (get, send --return-immediately,
     a 0.2/0.3 send that did not ask to block), with a line on how to follow it
     (for cancel: the task ended canceled)
  1  failed, canceled, rejected or unknown (card: a lint finding of severity
     error); for cancel, any state but canceled: the agent did not cancel
  2  usage error (bad option, missing file, invalid JSON on the command line)
  3  transport or protocol error: unreachable, timeout (--max-time included), HTTP
     error, invalid JSON, wrong types, broken stream, over a size or count limit, or
     a JSON-RPC error from the agent; also any
     protocol violation of severity error (a malformed event, invalid UTF-8, a
     wrong JSON-RPC id, a blocking send or a stream that left the task running...),
     which outranks 0, 1 and 4 unless --lenient is given
  4  input-required or auth-required: the agent waits for the client
"""

HUB_HELP = """\
ws-agents connect to ws://127.0.0.1:PORT/ws and register (agent.register); each is then
reachable as ws-agent://NAME in the UI, and at http://127.0.0.1:PORT/agents/NAME, an
ordinary A2A (0.1) endpoint for the headless commands and any other client. Every
frame both ways is recorded with --record. The frames: docs/hub.md.

exit codes:
  0  stopped (Ctrl-C)
  1  the port cannot be had
  2  usage error
"""

REPLAY_EXIT_CODES_HELP = """\
exit codes (with --against):
  0  the agent answered every recorded request as recorded (ids and times aside)
  1  some answers differ: states, artifacts, messages, errors or HTTP statuses
  2  usage error (no such file, not a recording)
  3  the agent could not be reached
"""


class Parser(argparse.ArgumentParser):
    """Usage errors as one line on stderr (exit 2), like every other error of the CLI,
    instead of argparse's usage block: scripts read the last line, people the first."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"a2a-inspect: {message} (see '{self.prog} --help')\n")


def _common(p: argparse.ArgumentParser, outputs: tuple[str, str] | None = None) -> None:
    """The connection, limits and output options; ``outputs``: (choices, help) of -o
    for a command whose output is not a task's (check)."""
    g = p.add_argument_group("connection")
    g.add_argument(
        "-H", "--header", action="append", default=[], metavar="'NAME: VALUE'", help="extra HTTP header (repeatable)"
    )
    g.add_argument(
        "--secret-header",
        action="append",
        default=[],
        metavar="'NAME: VALUE'",
        help="a header that is a credential: sent like -H, redacted wherever anything is "
        "written, and sent to the agent's origin only (repeatable; VALUE @FILE reads it "
        "from FILE, @- from standard input)",
    )
    g.add_argument(
        "--secret-header-env",
        action="append",
        default=[],
        metavar="'NAME: VAR'",
        help="a --secret-header whose value is the environment variable VAR's (repeatable)",
    )
    g.add_argument(
        "--bearer",
        metavar="TOKEN|@FILE",
        help="send Authorization: Bearer TOKEN (@FILE reads it from FILE, @- from standard input)",
    )
    g.add_argument("--bearer-env", metavar="VAR", help="--bearer with the token in the environment variable VAR")
    g.add_argument("--api-key", metavar="KEY|@FILE", help="send an API key header (@FILE, @-: read it)")
    g.add_argument("--api-key-env", metavar="VAR", help="--api-key with the key in the environment variable VAR")
    g.add_argument(
        "--api-key-header", default="X-API-Key", metavar="NAME", help="header for --api-key (default: X-API-Key)"
    )
    g.add_argument("--basic", metavar="USER:PASSWORD|@FILE", help="HTTP basic authentication (@FILE, @-: read it)")
    g.add_argument("--basic-env", metavar="VAR", help="--basic with USER:PASSWORD in the environment variable VAR")
    g.add_argument(
        "--oauth2-client-id",
        metavar="ID",
        help="OAuth 2.0 client credentials: get a token from the card's client-credentials flow "
        "(its tokenUrl) and send it as a bearer token, renewed when it expires or on a 401",
    )
    g.add_argument(
        "--oauth2-client-secret",
        metavar="SECRET|@FILE",
        help="the client secret of --oauth2-client-id (@FILE, @-: read it)",
    )
    g.add_argument(
        "--oauth2-client-secret-env", metavar="VAR", help="--oauth2-client-secret from the environment variable VAR"
    )
    g.add_argument(
        "--oauth2-scope",
        action="append",
        metavar="SCOPE",
        help="ask for these scopes (repeatable; default: those the card's security asks for, else all the flow lists)",
    )
    g.add_argument(
        "--oauth2-token-url",
        metavar="URL",
        help="the token URL to use, whatever the card says (the card's must be https or on its own origin)",
    )
    g.add_argument(
        "--dialect",
        default="auto",
        choices=["auto", "0.1", "0.2", "0.3", "1.0"],
        help="wire dialect (default: detect from the card, then probe)",
    )
    g.add_argument(
        "--binding",
        default="auto",
        choices=["auto", "jsonrpc", "rest", "grpc"],
        help="protocol binding: JSON-RPC, HTTP+JSON/REST or gRPC (both 0.3 and 1.0; a "
        "grpc://host:port URL is gRPC) (default: the card's first interface a2a-inspect speaks)",
    )
    g.add_argument("--card-url", metavar="URL", help="fetch the agent card from this URL")
    g.add_argument(
        "--method-name",
        action="append",
        default=[],
        metavar="METHOD=NAME",
        help="send METHOD under another spelling its dialect knows, e.g. "
        "resubscribe=task/resubscribe for Society AI's agents (repeatable)",
    )
    _tls(p)
    _bounds(p)
    o = p.add_argument_group("output")
    choices, help = outputs or ("text,json,ndjson", "text (default), one JSON document, or one JSON event per line")
    o.add_argument("--output", "-o", default="text", choices=choices.split(","), help=help)
    o.add_argument(
        "--record",
        metavar="FILE",
        nargs="?",
        const="",
        help="record the session to FILE (JSONL); without FILE, to a new file in the a2a-inspect data directory",
    )
    o.add_argument(
        "--append",
        action="store_true",
        help="with --record FILE: add this session to FILE if it exists (a recording holds "
        "several sessions; replay, export and diff read them all), instead of refusing",
    )
    o.add_argument("--no-redact", action="store_true", help="record secrets (Authorization, API keys) as sent")
    o.add_argument(
        "--lenient",
        action="store_true",
        help="exit with the outcome's own code even when the agent broke the protocol (violations are still printed)",
    )


def _tls(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("TLS (https://, grpcs://)")
    g.add_argument(
        "--cacert",
        metavar="FILE",
        help="trust the CA certificates in FILE (PEM) instead of the system's, as curl's --cacert",
    )
    g.add_argument(
        "--cert",
        metavar="FILE",
        help="client certificate (PEM) for mutual TLS; its key with --key, or in FILE after it",
    )
    g.add_argument("--key", metavar="FILE", help="the private key (PEM) of --cert")
    g.add_argument(
        "-k",
        "--insecure",
        action="store_true",
        help="do not verify the agent's certificate (HTTP only): said on stderr and noted in the recording",
    )


def _bounds(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("limits (what the agent may take and send)")
    g.add_argument(
        "--timeout",
        type=_seconds,
        metavar="SECONDS",
        help="longest wait to connect, and for each read of an ordinary response; "
        "also a stream's longest silence unless --stream-timeout is given (default: 30)",
    )
    g.add_argument(
        "--stream-timeout",
        type=_seconds,
        metavar="SECONDS",
        help="longest silence on a stream, heartbeats count as activity (default: --timeout when given, else 300)",
    )
    g.add_argument(
        "--max-time",
        type=_seconds,
        metavar="SECONDS",
        help="give up on the whole command after this long, whatever it is waiting for (default: no limit)",
    )
    g.add_argument(
        "--max-body",
        type=_size,
        metavar="SIZE",
        help="largest response body that is not a stream (and gRPC message), counted "
        "after decompression (default: 64M; SIZE is bytes, or with K, M or G)",
    )
    g.add_argument(
        "--max-event", type=_size, metavar="SIZE", help="largest single SSE event or gRPC stream message (default: 16M)"
    )
    g.add_argument(
        "--max-stream-events",
        type=_count,
        metavar="N",
        help="most events and heartbeat comments one stream may carry (default: 10000000)",
    )
    g.add_argument(
        "--max-stream-body",
        type=_size,
        metavar="SIZE",
        help="largest whole body of one stream, counted after decompression (default: 4G)",
    )


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"not a number of seconds (more than 0): {text!r}")
    return value


def _size(text: str) -> int:
    from .protocol.sizes import parse_size  # light: no httpx, pydantic or textual

    try:
        return parse_size(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _count(text: str) -> int:
    if not text.strip().isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"not a count (1 or more): {text!r}")
    return int(text)


TUI_HELP = """\
terminal UI:
  a2a-inspect                 open the UI with your saved agents
  a2a-inspect URL             connect to the agent at URL (base URL or card URL)
  a2a-inspect --demo          start the embedded mock agent and connect to it
  options: --dialect auto|0.1|0.2|0.3|1.0, --binding auto|jsonrpc|rest|grpc,
           --record FILE (record the session),
           --cacert FILE, --cert FILE --key FILE, --insecure (TLS, as for the commands),
           --push-port PORT (the push receiver's loopback port; default: any free one)

shell completion:
  a2a-inspect --completion bash|zsh|fish   print the script; see README

"""


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="a2a-inspect",
        description="Inspect and debug A2A agents. Without a command, opens the terminal UI.",
        epilog=TUI_HELP + EXIT_CODES_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"a2a-inspect {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    def command(name: str, help: str, epilog: str = EXIT_CODES_HELP) -> argparse.ArgumentParser:
        p = sub.add_parser(
            name, help=help, description=help, epilog=epilog, formatter_class=argparse.RawDescriptionHelpFormatter
        )
        return p

    p = command("card", "show an agent's card with lint findings")
    p.add_argument("url", help="agent base URL or card URL")
    p.add_argument("--json", action="store_true", help="print the card and findings as JSON")
    _common(p)

    p = command("send", "send a message and show the task it starts or continues")
    p.add_argument("url")
    p.add_argument("text", nargs="?", help="the message text; - reads it from standard input")
    p.add_argument("--stream", action="store_true", help="stream the reply (SSE)")
    p.add_argument("--file", action="append", default=[], metavar="PATH", help="attach a file's bytes (repeatable)")
    p.add_argument("--file-uri", action="append", default=[], metavar="URI", help="attach a file by URI (repeatable)")
    p.add_argument(
        "--data",
        action="append",
        default=[],
        metavar="JSON|@FILE",
        help="attach a data part (repeatable; @- reads it from standard input)",
    )
    p.add_argument("--metadata", metavar="JSON|@FILE", help="request metadata object (the params' metadata)")
    p.add_argument(
        "--message-metadata",
        metavar="JSON|@FILE",
        help="the message's own metadata object (what the TUI composer's \"message metadata\" sets)",
    )
    p.add_argument("--task-id", metavar="ID", help="continue this task")
    p.add_argument(
        "--context-id", "--session-id", dest="context_id", metavar="ID", help="context (0.1: session) to send in"
    )
    p.add_argument(
        "--continue",
        dest="continue_waiting",
        action="store_true",
        help="answer this agent's last task waiting for input (input-required or auth-required), named on stderr",
    )
    p.add_argument("--history-length", type=int, metavar="N", help="history messages to return")
    p.add_argument(
        "--return-immediately",
        "--no-wait",
        dest="return_immediately",
        action="store_true",
        help="ask the agent to answer at once, with the task still running (1.0: "
        "returnImmediately; 0.2/0.3: blocking false; the 0.1 draft has no such option). "
        "Without it a 1.0 send must wait for the task to finish or ask for input",
    )
    _common(p)

    p = command("get", "fetch a task")
    p.add_argument("url")
    p.add_argument("task_id")
    p.add_argument("--history-length", type=int, metavar="N")
    _common(p)

    p = command("cancel", "cancel a task")
    p.add_argument("url")
    p.add_argument("task_id")
    _common(p)

    p = command("resubscribe", "follow a running task's stream again")
    p.add_argument("url")
    p.add_argument("task_id")
    _common(p)

    p = command("list", "list tasks (1.0 ListTasks, Society AI tasks/list)")
    p.add_argument("url")
    p.add_argument("--context-id", metavar="ID")
    p.add_argument("--state", metavar="STATE", help="only tasks in this state")
    p.add_argument("--page-size", type=int, metavar="N")
    p.add_argument("--page-token", metavar="TOKEN")
    _common(p)

    p = command("push", "push-notification configuration of a task")
    push = p.add_subparsers(dest="push_command", metavar="ACTION", required=True)
    q = push.add_parser("set", help="register a callback URL for a task's updates")
    q.add_argument("url")
    q.add_argument("task_id")
    q.add_argument("--url", dest="callback", required=True, metavar="CALLBACK")
    q.add_argument(
        "--token",
        metavar="T|@FILE",
        help="token the agent sends back with each notification (@FILE reads it from FILE, @- from standard input)",
    )
    q.add_argument("--token-env", metavar="VAR", help="--token with the token in the environment variable VAR")
    q.add_argument("--config-id", metavar="ID", help="config id (0.3+, several per task)")
    _common(q)
    for action, help in (
        ("get", "show a task's callback (1.0 without --config-id: list them all)"),
        ("list", "list a task's callbacks (0.3+)"),
        ("delete", "remove a task's callback (0.3+)"),
    ):
        q = push.add_parser(action, help=help)
        q.add_argument("url")
        q.add_argument("task_id")
        q.add_argument("--config-id", metavar="ID")
        _common(q)

    p = command(
        "replay",
        "open a recording in the UI, or with --against URL send its requests to a "
        "live agent and report what differs (ids and times aside)",
        REPLAY_EXIT_CODES_HELP,
    )
    p.add_argument("file", help="a recording (JSONL), e.g. from --record")
    p.add_argument("--against", metavar="URL", help="the agent to send the recorded requests to (base URL or card URL)")
    _common(p)

    p = command(
        "export",
        "convert a recording: an a2a-mock scenario, a HAR file, or a curl script",
        "exit codes:\n  0  written\n  2  usage error (no such file, not a recording, file exists)\n",
    )
    p.add_argument("file", help="a recording (JSONL), e.g. from --record")
    p.add_argument("--scenario", metavar="OUT", help="write an a2a-mock scenario (YAML); - for stdout")
    p.add_argument("--har", metavar="OUT", help="write HAR 1.2 (browser developer tools); - for stdout")
    p.add_argument("--curl", metavar="OUT", help="write a bash script of curl commands; - for stdout")
    p.add_argument("--force", action="store_true", help="replace existing output files")
    p = command("hub", "run a local Society AI WebSocket hub (ws-agent://NAME agents), with an HTTP bridge", HUB_HELP)
    p.add_argument(
        "--port",
        type=_port,
        default=8765,
        help="loopback port for sockets and the bridge (default 8765; 0 picks a free one)",
    )
    p.add_argument("--ws-path", default="/ws", metavar="PATH", help="where agents connect (default /ws)")
    p.add_argument(
        "--headless", action="store_true", help="no UI: print a line per frame (heartbeats aside) and per hub event"
    )
    p.add_argument(
        "--output",
        "-o",
        default="text",
        choices=["text", "ndjson"],
        help="with --headless: text lines, or every event (heartbeats too) as a JSON line",
    )
    p.add_argument(
        "--record",
        metavar="FILE",
        nargs="?",
        const="",
        help="record every frame to FILE (JSONL); without FILE, to a new file in the data directory",
    )
    p.add_argument("--append", action="store_true", help="with --record FILE: add to FILE if it exists")
    p.add_argument("--no-redact", action="store_true", help="record secrets as sent")
    p.add_argument(
        "--route",
        action="append",
        default=[],
        metavar="NAME=URL",
        help="an HTTP A2A agent that ws-agents may delegate to as NAME (agent.send_task); repeatable",
    )
    p.add_argument(
        "--max-frame",
        type=_size,
        metavar="SIZE",
        help="largest frame an agent may send (default 4M); a larger one closes its socket",
    )
    p.add_argument(
        "--heartbeat-timeout",
        type=_seconds,
        metavar="SECONDS",
        help="silence after which an agent is marked stale (default 45)",
    )
    _allow_host_option(p, "the bridge, and agents' sockets")
    p.add_argument(
        "--max-stream-events",
        type=_count,
        metavar="N",
        help="most frames one task call may bring, as a client's option (default: 10000000)",
    )
    p.add_argument(
        "--max-stream-body",
        type=_size,
        metavar="SIZE",
        help="most bytes of frames one task call may bring, as a client's option (default: 4G)",
    )
    _proxy_parser(command)
    _web_parser(command)
    from .headless.check_args import add_check_parser  # light: argparse only

    add_check_parser(command, _common)
    return parser


def _proxy_parser(command: Any) -> None:
    p = command(
        "proxy",
        "relay clients to an A2A agent through a2a-inspect: see, record and judge "
        "traffic you do not send, and inject faults",
        PROXY_HELP,
    )
    p.add_argument("upstream", nargs="?", metavar="UPSTREAM_URL", help="the agent's base URL (or card URL)")
    p.add_argument(
        "--port", type=_port, default=8790, help="loopback port clients connect to (default 8790; 0 picks a free one)"
    )
    p.add_argument(
        "--route",
        action="append",
        default=[],
        metavar="/PATH=URL",
        help="requests under /PATH go to the agent at URL (the path taken off); repeatable",
    )
    p.add_argument(
        "--grpc-port", type=_port, default=0, help="loopback port of the proxy's gRPC listener (default 0: a free one)"
    )
    p.add_argument(
        "--grpc-upstream",
        metavar="HOST:PORT",
        help="relay gRPC to this target from the start "
        "(otherwise a gRPC listener opens when the agent's card names a GRPC interface)",
    )
    p.add_argument("--faults", metavar="FILE", help="fault rules (YAML; see docs/proxy.md)")
    _tls(p)
    p.add_argument("--headless", action="store_true", help="no UI: print a line per exchange and event")
    p.add_argument(
        "--output",
        "-o",
        default="text",
        choices=["text", "ndjson"],
        help="with --headless: text lines, or every event as a JSON line (secrets redacted)",
    )
    p.add_argument(
        "--record",
        metavar="FILE",
        nargs="?",
        const="",
        help="record the traffic to FILE (JSONL); without FILE, to a new file in the data directory",
    )
    p.add_argument("--append", action="store_true", help="with --record FILE: add to FILE if it exists")
    p.add_argument("--no-redact", action="store_true", help="record secrets as sent")
    _allow_host_option(p, "clients")


def _web_parser(command: Any) -> None:
    p = command("web", "the terminal UI in a browser tab: a loopback server with a one-time link", WEB_HELP)
    p.add_argument("url", nargs="?", help="agent base URL or card URL")
    p.add_argument("--demo", action="store_true", help="start the embedded mock agent and connect to it")
    p.add_argument(
        "--port", type=_port, default=8780, help="loopback port of the page (default 8780; 0 picks a free one)"
    )
    p.add_argument("--dialect", default="auto", choices=["auto", "0.1", "0.2", "0.3", "1.0"])
    p.add_argument(
        "--binding",
        default="auto",
        choices=["auto", "jsonrpc", "rest", "grpc"],
        help="protocol binding (default: the card's first interface a2a-inspect speaks)",
    )


WEB_HELP = """\
Prints a link to http://127.0.0.1:PORT/ with a random token. The first browser that
opens it gets a session cookie and the token is spent: anyone else on the machine who
sees the link gets 403. Each tab runs its own a2a-inspect [URL|--demo]; closing the tab
ends it. Needs the web extra: pip install 'a2a-inspect[web]'.

exit codes:
  0  stopped (Ctrl-C)
  1  the port cannot be had
  2  usage error, or textual-serve is not installed
"""


def _allow_host_option(p: argparse.ArgumentParser, who: str) -> None:
    p.add_argument(
        "--allow-host",
        action="append",
        default=[],
        type=_allow_host,
        metavar="NAME",
        help=f"let {who} call it as Host NAME (or NAME:PORT; * for any) besides the loopback "
        "address and name with its port, and take browser requests from NAME's pages "
        "(repeatable; others get 403: a guard against DNS rebinding and web pages)",
    )


def _allow_host(text: str) -> str:
    from .serving.browser_guard import allowed_host

    try:
        return allowed_host(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


PROXY_HELP = """\
Clients call the proxy's address instead of the agent's; the card it serves points
them back at the proxy. Every exchange is logged as a2a-inspect's own are: the TUI
shows it (tasks, task view, traffic, each client by address and user agent), --record
writes an ordinary recording, and violations are judged on both sides.

examples:
  a2a-inspect proxy http://localhost:9999 --port 8790
  a2a-inspect proxy --route /a=http://localhost:9001 --route /b=http://localhost:9002 --headless
  a2a-inspect proxy http://localhost:9999 --faults faults.yaml --record

exit codes:
  0  stopped (Ctrl-C)
  1  cannot listen on the port
  2  usage error (bad URL or route, unreadable fault rules)
"""


def build_tui_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="a2a-inspect",
        usage="a2a-inspect [URL] [--demo] [--record FILE]\n       a2a-inspect COMMAND ...  (see --help)",
        description="Open the terminal UI; with URL, connect to that agent.",
    )
    parser.add_argument("url", nargs="?", help="agent base URL or card URL")
    parser.add_argument(
        "--demo", action="store_true", help="start the embedded mock agent on a free loopback port and connect to it"
    )
    parser.add_argument("--record", metavar="FILE", help="record the session to FILE")
    parser.add_argument(
        "--append",
        action="store_true",
        help="with --record FILE: add this session to FILE if it exists, instead of refusing",
    )
    parser.add_argument("--dialect", default="auto", choices=["auto", "0.1", "0.2", "0.3", "1.0"])
    parser.add_argument(
        "--binding",
        default="auto",
        choices=["auto", "jsonrpc", "rest", "grpc"],
        help="protocol binding (default: the card's first interface a2a-inspect speaks)",
    )
    _tls(parser)
    parser.add_argument(
        "--push-port",
        type=_port,
        default=0,
        metavar="PORT",
        help="the push receiver listens on this loopback port (default: any free "
        "port), e.g. for an agent in a container that can only reach one",
    )
    parser.add_argument("--version", action="version", version=f"a2a-inspect {__version__}")
    return parser


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"not a port number (0-65535): {port}")
    return port


def _looks_like_command(word: str) -> bool:
    """A bare word that cannot be an agent address (no scheme, port, dot or slash):
    a mistyped command, not a URL to open the TUI on."""
    return not word.startswith("-") and word.isidentifier() and word not in ("localhost",)


def completion_parser() -> argparse.ArgumentParser:
    """What TAB completes: the commands with their options, and the terminal UI's options
    (which main() parses with a parser of their own)."""
    from .completion import SHELLS

    parser = build_parser()
    for action in build_tui_parser()._actions:
        if action.option_strings and not any(o in ("-h", "--help", "--version") for o in action.option_strings):
            parser._add_action(action)
    parser.add_argument("--completion", choices=SHELLS, help="print the shell completion script for SHELL")
    return parser


def main(argv: list[str] | None = None) -> int:
    from . import completion
    from .pipeout import emit

    if argv is None:
        completion.complete_if_asked(completion_parser)
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["--completion"]:
        if len(argv) != 2 or argv[1] not in completion.SHELLS:
            print(f"a2a-inspect: --completion takes one of {', '.join(completion.SHELLS)}", file=sys.stderr)
            return 2
        emit(completion.script("a2a-inspect", argv[1]))
        return 0
    if (argv and argv[0] in COMMANDS) or any(a in ("-h", "--help") for a in argv[:1]):
        args = build_parser().parse_args(argv)
        if _secrets_unreadable(args):
            return 2
        if args.command == "replay":
            if not args.against:
                return _replay_in_tui(args.file)
            from .headless.replay_cmd import run_replay

            return run_replay(args)
        if args.command == "export":
            from .headless.export_cmd import run_export

            return run_export(args)
        if args.command == "hub":
            if args.headless:
                from .headless.hub_cmd import run_hub

                return run_hub(args)
            return _run_tui_hub(args)
        if args.command == "proxy":
            return _run_proxy(args)
        if args.command == "web":
            return _run_web(args)
        if args.command == "check":
            from .headless.check_cmd import run_check_command

            return run_check_command(args)
        from . import gcpolicy
        from .headless.run import run_command

        gcpolicy.install()  # the session log is append-only: see gcpolicy's docstring
        return run_command(args)
    if argv and _looks_like_command(argv[0]):
        import difflib

        close = difflib.get_close_matches(argv[0], COMMANDS, n=1)
        hint = f"; did you mean '{close[0]}'?" if close else f" (commands: {', '.join(COMMANDS)})"
        print(f"a2a-inspect: unknown command '{argv[0]}'{hint}", file=sys.stderr)
        return 2
    args = build_tui_parser().parse_args(argv)
    from . import gcpolicy

    gcpolicy.install()
    gcpolicy.hold()  # until the first frame (the app resumes it): see gcpolicy.hold
    return _run_tui(args)


def _secrets_unreadable(args: argparse.Namespace) -> bool:
    """Read the secrets given as @FILE or --*-env into ``args``; True (said) when one
    cannot be had."""
    if not hasattr(args, "bearer") and not hasattr(args, "token"):
        return False  # export, hub, proxy: no credential options
    from .headless.compose import UsageError
    from .headless.secret_args import resolve_secret_args

    try:
        resolve_secret_args(args)
    except UsageError as exc:
        from .headless.run import fail

        fail(str(exc), 2)
        return True
    return False


def _run_tui(args: argparse.Namespace) -> int:
    try:
        from .ui.launch import launch
    except ImportError:
        # Only here: headless.run brings the protocol's models, which the TUI's first
        # frame does without.
        from .headless import exitcodes
        from .headless.run import fail

        return fail("the terminal UI is not available in this build yet; use a command (see --help)", exitcodes.USAGE)
    return launch(args)


def _run_tui_hub(args: argparse.Namespace) -> int:
    """``a2a-inspect hub`` without --headless: the hub inside the terminal UI."""
    from .headless import exitcodes
    from .headless.compose import UsageError
    from .headless.hub_cmd import hub_options
    from .headless.run import fail

    try:
        options = hub_options(args)
    except UsageError as exc:
        return fail(str(exc), exitcodes.USAGE)
    try:
        from .ui.launch import launch_hub
    except ImportError:
        return fail("the terminal UI is not available in this build; use --headless", exitcodes.USAGE)
    return launch_hub(args, options)


def _run_proxy(args: argparse.Namespace) -> int:
    """``a2a-inspect proxy``: headless, or inside the terminal UI."""
    from .headless import exitcodes
    from .headless.compose import UsageError
    from .headless.proxy_cmd import proxy_options, run_proxy
    from .headless.run import fail

    if args.headless:
        return run_proxy(args)
    try:
        options = proxy_options(args)
    except UsageError as exc:
        return fail(str(exc), exitcodes.USAGE)
    try:
        from .ui.launch import launch_proxy
    except ImportError:
        return fail("the terminal UI is not available in this build; use --headless", exitcodes.USAGE)
    return launch_proxy(args, options)


def _run_web(args: argparse.Namespace) -> int:
    """``a2a-inspect web``: the arguments are checked here, where the user typed them,
    rather than in each browser tab."""
    if args.binding in ("grpc", "rest") and args.dialect == "0.1":
        print(f"a2a-inspect: --binding {args.binding}: the 0.1 draft has no such binding", file=sys.stderr)
        return 2
    try:
        from .web.server import run_web
    except ImportError as exc:
        missing = (exc.name or "").split(".")[0]
        if missing not in ("textual_serve", "aiohttp", "aiohttp_jinja2", "jinja2"):
            raise
        print(
            f"a2a-inspect web: needs the web extra ({missing} is missing): pip install 'a2a-inspect[web]'",
            file=sys.stderr,
        )
        return 2
    return run_web(args)


def _replay_in_tui(path_text: str) -> int:
    from .headless import exitcodes
    from .headless.replay_cmd import recording_file
    from .headless.run import fail

    path = recording_file(path_text)
    if path is None:
        return exitcodes.USAGE
    try:
        from .ui.replay_app import launch_replay
    except ImportError:
        return fail(
            "replaying in the terminal UI is not available in this build yet; "
            "diff against an agent with --against URL, or convert with 'a2a-inspect export'",
            exitcodes.USAGE,
        )
    return launch_replay(path)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
