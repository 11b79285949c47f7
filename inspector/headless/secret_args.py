"""Secrets given without putting them on the command line.

A value on argv is visible to every local user through ``ps`` and stays in the shell's
history, so each secret option also takes ``@FILE`` (``@-``: standard input) and has an
``-env VAR`` twin. The value read replaces the option's own in ``args`` before anything
else looks at it: auth, the recording's redaction and the terminal's all treat it as if
it had been typed, so it is redacted wherever the typed one would be.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from ..protocol.sizes import format_size
from .compose import UsageError

#: The options whose value is a credential: (args attribute, option, its -env twin).
SECRET_OPTIONS = (
    ("bearer", "--bearer", "bearer_env"),
    ("api_key", "--api-key", "api_key_env"),
    ("basic", "--basic", "basic_env"),
    ("token", "--token", "token_env"),
    ("oauth2_client_secret", "--oauth2-client-secret", "oauth2_client_secret_env"),
)
#: A secret is a token, a key or a password: anything longer is a wrong file.
MAX_SECRET = 64 * 1024
#: Options besides the secrets that may read standard input with ``-`` or ``@-``.
_STDIN_READERS = ("text", "data", "metadata", "message_metadata")


def resolve_secret_args(args: argparse.Namespace) -> None:
    """Replace every ``@FILE`` secret and every ``--*-env`` option in ``args`` with the
    value it names. Raises UsageError (one line, never the value) when a file cannot be
    read, a variable is unset, or a value cannot be a header's."""
    stdin_taken = _stdin_users(args)
    for attr, option, env_attr in SECRET_OPTIONS:
        given, var = getattr(args, attr, None), getattr(args, env_attr, None)
        if given is not None and var is not None:
            raise UsageError(f"give only one of {option}, {option}-env")
        if var is not None:
            setattr(args, attr, from_env(var, f"{option}-env"))
        elif isinstance(given, str) and given.startswith("@"):
            if given == "@-":
                stdin_taken.append(option)
                _one_stdin(stdin_taken)
            setattr(args, attr, from_file(given[1:], option))
    headers = list(getattr(args, "secret_header", None) or [])
    for i, raw in enumerate(headers):
        name, sep, value = raw.partition(":")
        value = value.strip()
        if sep and value.startswith("@"):
            if value == "@-":
                stdin_taken.append("--secret-header")
                _one_stdin(stdin_taken)
            headers[i] = f"{name}: {from_file(value[1:], '--secret-header ' + name.strip())}"
    for raw in getattr(args, "secret_header_env", None) or []:
        name, sep, var = raw.partition(":")
        if not sep or not name.strip() or not var.strip():
            raise UsageError(f"--secret-header-env expects 'NAME: VAR', got {raw!r}")
        headers.append(f"{name.strip()}: {from_env(var.strip(), '--secret-header-env ' + name.strip())}")
    if hasattr(args, "secret_header"):
        args.secret_header = headers


def from_env(var: str, option: str) -> str:
    """The value of the environment variable ``var``."""
    if not var or "=" in var:
        raise UsageError(f"{option}: not a variable name: {var!r}")
    value = os.environ.get(var)
    if value is None:
        raise UsageError(f"{option}: the environment variable {var} is not set")
    return _checked(value, f"{option}: the environment variable {var}")


def from_file(path_text: str, option: str) -> str:
    """The secret in the file ``path_text`` (``-``: standard input), its final line
    break(s) taken off, as ``echo TOKEN > file`` leaves one."""
    where = "standard input" if path_text == "-" else path_text
    if not path_text:
        raise UsageError(f"{option} @FILE: name the file after the @")
    try:
        if path_text == "-":
            data = sys.stdin.buffer.read(MAX_SECRET + 1)
        else:
            with Path(path_text).expanduser().open("rb") as fh:
                data = fh.read(MAX_SECRET + 1)
    except OSError as exc:
        raise UsageError(f"{option}: cannot read {where}: {exc.strerror or exc}") from None
    if len(data) > MAX_SECRET:
        raise UsageError(f"{option}: {where} is over {format_size(MAX_SECRET)}: not a secret")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise UsageError(f"{option}: {where} is not UTF-8 text") from None
    return _checked(text.rstrip("\r\n"), f"{option}: {where}")


def _checked(value: str, what: str) -> str:
    if not value:
        raise UsageError(f"{what} is empty")
    if any(ord(c) < 32 or ord(c) == 127 for c in value):
        # Said without the value: it is a secret, and a header cannot carry it anyway.
        raise UsageError(f"{what} holds a control character or a line break inside (one secret, one line)")
    return value


def _stdin_users(args: argparse.Namespace) -> list[str]:
    users = []
    for attr in _STDIN_READERS:
        value = getattr(args, attr, None)
        values = value if isinstance(value, list) else [value]
        if any(v in ("-", "@-") for v in values if isinstance(v, str)):
            users.append("--" + attr.replace("_", "-") if attr != "text" else "the message text (-)")
    return users


def _one_stdin(users: list[str]) -> None:
    if len(users) > 1:
        raise UsageError(f"standard input can feed one option only: {' and '.join(users)} both read it")
