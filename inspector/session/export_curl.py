"""A recording as a bash script of curl commands that send its requests again.

Every recorded request becomes one curl command, in order, with the recorded method,
headers and body byte for byte, except for three kinds of value that become variables
so the script can be pointed elsewhere and run:

* the agent's address: ``A2A_BASE`` (default: the recorded origin);
* secrets the recording redacted: read from the environment (``A2A_BEARER_TOKEN``,
  ``A2A_X_API_KEY``...); the script stops with a message naming the variable when one
  is needed and not set;
* task and context ids the recorded agent assigned, where later requests use them
  (``TASK_1``, ``CONTEXT_1``, default: the recorded values): a live agent assigns new
  ones, so set them to continue its tasks.

Streaming requests get ``-N`` so events print as they arrive.

A gRPC exchange becomes a grpcurl command instead (``grpcurl -plaintext -d '<json>'
-H 'a2a-version: 1.0' host:port lf.a2a.v1.A2AService/SendMessage``): its message as the
ProtoJSON recorded, its metadata as headers, the schema from the FileDescriptorSet
a2a-inspect ships (``-protoset``; A2A_PROTOSET_1_0 / A2A_PROTOSET_0_3 point elsewhere),
since an agent need not offer server reflection.
"""

from __future__ import annotations

import itertools
import json
import re
import shlex
from typing import Any
from urllib.parse import unquote, unquote_plus, urlsplit, urlunsplit

from .diff import exchanges, id_slots
from .exchange import RecordedExchange, parse_body, sse_json
from .log import Session
from .redact import REDACTED, SCHEME_HEADERS

#: Headers curl sets itself (or that describe the recorded connection, not the request).
_SKIP = frozenset({"host", "content-length", "accept-encoding", "connection", "user-agent", "transfer-encoding"})

_TASK_KEYS = frozenset({"id", "taskId", "task_id", "referenceTaskIds"})
_CONTEXT_KEYS = frozenset({"contextId", "sessionId", "context_id", "session_id"})


def _dq(text: str) -> str:
    """Escape for the inside of a double-quoted shell string."""
    return re.sub(r'([\\"$`])', r"\\\1", text)


def _env_name(text: str) -> str:
    return re.sub(r"[^A-Z0-9]+", "_", text.upper()).strip("_") or "SECRET"


class _Script:
    def __init__(self, session: Session, source: str | None, created: str | None) -> None:
        self.exchanges = exchanges(session.events)
        self.source = source
        self.created = created
        origins = [ex.origin for ex in self.exchanges if ex.origin and ex.binding != "grpc"]
        self.origin = origins[0] if origins else "http://localhost"
        #: recorded id -> variable name, for ids the agent assigned and requests reused.
        self.id_vars: dict[str, str] = {}
        self.id_notes: dict[str, str] = {}
        #: env var -> what it stands for.
        self.secrets: dict[str, str] = {}
        #: gRPC host:port -> its variable; protoset variable -> its dialect.
        self.grpc_targets: dict[str, str] = {}
        self.protosets: dict[str, str] = {}
        self._ids()

    def _ids(self) -> None:
        from_agent: set[str] = set()
        seen: set[str] = set()
        counts = {"TASK": 0, "CONTEXT": 0, "ID": 0}
        for ex in self.exchanges:
            body = ex.body_json if ex.is_rpc else None
            if body is not None:
                for path, value in id_slots(body.get("params")):
                    key = next((k for k in reversed(path) if isinstance(k, str)), "id")
                    if value in from_agent and value not in self.id_vars and key != "messageId":
                        kind = "TASK" if key in _TASK_KEYS else "CONTEXT" if key in _CONTEXT_KEYS else "ID"
                        counts[kind] += 1
                        name = f"{kind}_{counts[kind]}"
                        self.id_vars[value] = name
                        self.id_notes[name] = f"{key} the agent assigned in exchange {ex.number}'s answer"
                    seen.add(value)
            # A generator: a long stream's events are read one at a time.
            answers = itertools.chain(
                [parse_body(ex.response.data)] if ex.response is not None else [], (sse_json(e) for e in ex.stream)
            )
            for doc in answers:
                for _path, value in id_slots(doc):
                    if value not in seen:
                        seen.add(value)
                        from_agent.add(value)
        # The note names where the id was first used; point it at its origin instead.
        for value, name in self.id_vars.items():
            origin = next((ex.number for ex in self.exchanges if _answers_mention(ex, value)), None)
            if origin is not None:
                self.id_notes[name] = f"assigned by the agent in exchange {origin}"

    def secret(self, name: str, what: str) -> str:
        self.secrets.setdefault(name, what)
        return f"${{{name}:?set {name}: it was redacted in the recording}}"

    # ------------------------------------------------------------------ pieces

    def url(self, ex: RecordedExchange) -> str:
        url = ex.url
        parts = urlsplit(url)
        # The recorded path and query, after whichever origin heads the URL.
        rest = urlunsplit(("", "", parts.path, parts.query, "")) if ex.origin else url
        head = "${A2A_BASE}" if ex.origin == self.origin else _dq(ex.origin)
        if parts.query and REDACTED in parts.query:
            # Piece by piece, as recorded: decoded, "%20" would reach curl as a space,
            # which it refuses in a URL.
            pieces = []
            for piece in parts.query.split("&"):
                k, _, v = piece.partition("=")
                if unquote(v) == REDACTED:
                    name = unquote_plus(k)
                    pieces.append(f"{_dq(k)}={self.secret('A2A_PARAM_' + _env_name(name), f'query parameter {name}')}")
                else:
                    pieces.append(_dq(piece))
            return f'"{head}{_dq(parts.path)}?{"&".join(pieces)}"'
        return f'"{head}{_dq(rest)}"'

    def header(self, name: str, value: str) -> str | None:
        low = name.lower()
        if low in _SKIP:
            return None
        if REDACTED not in value:
            return shlex.quote(f"{name}: {value}")
        if low in SCHEME_HEADERS and " " in value.strip():
            scheme = value.strip().split(" ", 1)[0]
            var = self.secret(f"A2A_{_env_name(scheme)}_TOKEN", f"{name}: {scheme} ...")
            return f'"{_dq(name)}: {_dq(scheme)} {var}"'
        var = self.secret(f"A2A_{_env_name(name)}", f"{name}: ...")
        return f'"{_dq(name)}: {var}"'

    def body(self, text: str) -> str:
        """The body as a double-quoted shell word, ids and redacted values as variables."""
        tokens: dict[str, str] = {}
        for value, name in self.id_vars.items():
            tokens[json.dumps(value)] = f'\\"${{{name}}}\\"'
        tokens[json.dumps(REDACTED)] = '\\"${A2A_PUSH_TOKEN:-[redacted]}\\"'
        present = [t for t in tokens if t in text]
        if REDACTED in text and json.dumps(REDACTED) in present:
            self.secrets.setdefault("A2A_PUSH_TOKEN", "push notification token (optional)")
        if not present:
            return f'"{_dq(text)}"'
        regex = re.compile("|".join(re.escape(t) for t in sorted(present, key=len, reverse=True)))
        out, pos = [], 0
        for mt in regex.finditer(text):
            out.append(_dq(text[pos : mt.start()]))
            out.append(tokens[mt.group()])
            pos = mt.end()
        out.append(_dq(text[pos:]))
        return '"' + "".join(out) + '"'

    def grpc_command(self, ex: RecordedExchange, title: str) -> list[str]:
        """A gRPC exchange as a grpcurl command (see the module's docstring)."""
        data = ex.data
        parts = urlsplit(ex.url)
        status = next(
            (e.data.get("grpc_status") for e in (ex.response, ex.end) if e is not None and e.data.get("grpc_status")),
            None,
        )
        title += f"  -> recorded {'gRPC ' + str(status) if status else 'no response'}"
        lines = [re.sub(r"[\x00-\x1f\x7f]", " ", title)]
        dialect = ex.dialect or "1.0"
        var = "A2A_PROTOSET_" + _env_name(dialect)
        self.protosets[var] = dialect
        args = ["grpcurl"]
        if parts.scheme != "grpcs":
            args.append("-plaintext")
        args.append(f'-protoset "${{{var}}}"')
        body = data.get("body")
        if isinstance(body, str) and data.get("body_encoding") != "base64":
            args += ["-d", self.body(body)]
        args += self.header_args(data.get("headers"))
        self.grpc_targets.setdefault(
            parts.netloc, f"A2A_GRPC_TARGET{'_' + str(len(self.grpc_targets) + 1) if self.grpc_targets else ''}"
        )
        args.append(f'"${{{self.grpc_targets[parts.netloc]}}}"')
        args.append(shlex.quote(parts.path.lstrip("/")))
        lines.append(" \\\n  ".join(_pairs(args)))
        return lines

    def header_args(self, headers: Any) -> list[str]:
        """``-H`` and each recorded header (metadata, for grpcurl) as a shell word."""
        out: list[str] = []
        for name, value in headers.items() if isinstance(headers, dict) else ():
            if isinstance(name, str) and isinstance(value, str):
                word = self.header(name, value)
                if word is not None:
                    out += ["-H", word]
        return out

    def command(self, ex: RecordedExchange) -> list[str]:
        data = ex.data
        a2a = ex.a2a_method or "http"
        what = {"card": "agent card", "probe": "dialect probe"}.get(a2a, a2a)
        text = ex.text().replace("\n", " ")
        title = f"# {ex.number}. {what}"
        if ex.rpc_method:
            title += f" ({ex.rpc_method}{', dialect ' + ex.dialect if ex.dialect else ''})"
        if text and a2a in ("send", "stream"):
            title += ": " + (text if len(text) <= 60 else text[:57] + "...")
        if ex.binding == "grpc":
            return self.grpc_command(ex, title)
        status = ex.response.data.get("status") if ex.response is not None else None
        title += f"  -> recorded {'HTTP ' + str(status) if status else 'no response'}"
        lines = [re.sub(r"[\x00-\x1f\x7f]", " ", title)]
        streaming = ex.streaming or a2a in ("stream", "resubscribe")
        args = ["curl", "-sS"]
        if streaming:
            args.append("-N")
        method = ex.http_method
        body = data.get("body")
        if method != ("POST" if isinstance(body, str) else "GET"):
            args += ["-X", shlex.quote(method)]
        args.append(self.url(ex))
        args += self.header_args(data.get("headers"))
        if isinstance(body, str):
            if data.get("body_encoding") == "base64":
                args += ["--data-binary", f"@<(base64 -d <<< {shlex.quote(body)})"]
            else:
                args += ["--data-binary", self.body(body)]
        lines.append(" \\\n  ".join(_pairs(args)))
        lines.append("echo")
        return lines

    def render(self) -> str:
        commands = []
        for ex in self.exchanges:
            commands.append("\n".join(self.command(ex)))
        head = [
            "#!/usr/bin/env bash",
            f"# The requests of an a2a-inspect recording{' (' + self.source + ')' if self.source else ''}"
            f"{', made ' + self.created if self.created else ''}, as curl commands.",
            "#",
            f"#   A2A_BASE={self.origin} bash {'this-script.sh'}",
            "#",
            "# A2A_BASE is the agent to send to (default: the recorded one).",
        ]
        if self.secrets:
            head.append("# Secrets redacted in the recording are read from the environment:")
            head += [f"#   {name:<22} {what}" for name, what in self.secrets.items()]
        if self.id_vars:
            head += [
                "# Ids the recorded agent assigned are variables (default: the recorded values). A live",
                "# agent assigns new ones: set these to the ids it returns to continue its tasks.",
            ]
        if self.grpc_targets:
            head += [
                "# gRPC calls go through grpcurl (github.com/fullstorydev/grpcurl) to A2A_GRPC_TARGET",
                "# (host:port), with the schema a2a-inspect ships as a FileDescriptorSet.",
            ]
        head.append("set -euo pipefail")
        head.append(f'A2A_BASE="${{A2A_BASE:-{_dq(self.origin).replace("}", chr(92) + "}")}}}"')
        for target, name in self.grpc_targets.items():
            head.append(f'{name}="${{{name}:-{_dq(target)}}}"')
        for name, dialect in self.protosets.items():
            head.append(f'{name}="${{{name}:-{_dq(_protoset(dialect))}}}"')
        for value, name in self.id_vars.items():
            head.append(
                f'{name}="${{{name}:-{_dq(value).replace("}", chr(92) + "}")}}}"  # {self.id_notes.get(name, "")}'
            )
        return "\n".join(head) + "\n\n" + "\n\n".join(commands) + "\n"


def _protoset(dialect: str) -> str:
    from ..protocol.grpc_schema import PACKAGES, descriptor_set

    return descriptor_set(dialect if dialect in PACKAGES else "1.0")


def _answers_mention(ex: RecordedExchange, value: str) -> bool:
    docs = itertools.chain(
        [parse_body(ex.response.data)] if ex.response is not None else [], (sse_json(e) for e in ex.stream)
    )
    return any(v == value for doc in docs for _p, v in id_slots(doc))


def _pairs(args: list[str]) -> list[str]:
    """Group an argv into lines: the command and URL, then one option (with its value) each."""
    out: list[str] = []
    i = 0
    first: list[str] = []
    while i < len(args) and not (args[i].startswith("-H") or args[i].startswith("--data") or args[i] == "-d"):
        first.append(args[i])
        i += 1
    out.append(" ".join(first))
    while i < len(args):
        if args[i] in ("-H", "--data-binary", "-X", "-d") and i + 1 < len(args):
            out.append(f"{args[i]} {args[i + 1]}")
            i += 2
        else:
            out.append(args[i])
            i += 1
    return out


def to_curl(session: Session, *, source: str | None = None, created: str | None = None) -> str:
    """The bash script (text) reproducing the session's requests with curl."""
    return _Script(session, source, created).render()
