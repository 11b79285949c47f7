"""Secrets kept off the command line (issue 28 item 11): every credential option takes
an environment variable (``--bearer-env VAR``...) or a file (``--bearer @FILE``, ``@-``),
the value reaches the agent, and it is redacted in a recording and on the terminal as a
typed one is. A variable or file that cannot be had is one line and exit 2."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from cli_helpers import Cli, cli  # noqa: F401 - cli is a fixture
from inspector.serving.runner import BackgroundServer

TOKEN = "tok-from-elsewhere-7f3a9c"
KEY = "key-from-elsewhere-51d2e8"
PASSWORD = "pw-from-elsewhere-c0ffee"
HEADER_SECRET = "hdr-from-elsewhere-9b8a7d"
PUSH_TOKEN = "push-from-elsewhere-4e4e4e"
SECRETS = (TOKEN, KEY, PASSWORD, HEADER_SECRET, PUSH_TOKEN)


def _card(request: Request) -> JSONResponse:
    base = str(request.base_url).rstrip("/")
    return JSONResponse(
        {
            "name": "Locked",
            "description": "checks credentials",
            "url": base + "/",
            "version": "1",
            "protocolVersion": "0.3.0",
            "capabilities": {},
            "defaultInputModes": ["text/plain"],
            "defaultOutputModes": ["text/plain"],
            "skills": [{"id": "s", "name": "s", "description": "s", "tags": []}],
        }
    )


async def _rpc(request: Request) -> JSONResponse:
    """Answers only a request carrying one of the credentials, and echoes it back (as a
    careless agent does): the echo must be redacted too."""
    body = await request.json()
    got = {name: request.headers.get(name) for name in ("authorization", "x-api-key", "x-team-token")}
    got = {k: v for k, v in got.items() if v}
    request.app.state.seen.append(got)
    if not got:
        return JSONResponse({"error": "no credential"}, status_code=401)
    if body.get("method") == "tasks/pushNotificationConfig/set":
        result = dict(body["params"])
    else:
        echo = " ".join(f"{k}={v}" for k, v in sorted(got.items()))
        result = {
            "kind": "message",
            "messageId": "m-1",
            "role": "agent",
            "parts": [{"kind": "text", "text": f"you sent {echo}"}],
        }
    return JSONResponse({"jsonrpc": "2.0", "id": body.get("id"), "result": result})


@pytest.fixture(scope="module")
def locked() -> Iterator[tuple[str, list[dict[str, str]]]]:
    app = Starlette(
        routes=[
            Route("/.well-known/agent-card.json", _card),
            Route("/.well-known/agent.json", _card),
            Route("/", _rpc, methods=["POST"]),
        ]
    )
    app.state.seen = []
    with BackgroundServer(app) as srv:
        yield srv.url, app.state.seen


def _secret_file(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text + "\n", encoding="utf-8")  # as `echo SECRET > file` leaves it
    return str(path)


def _no_secret_in(*texts: str) -> None:
    for text in texts:
        for secret in SECRETS:
            assert secret not in text
        assert base64.b64encode(f"me:{PASSWORD}".encode()).decode() not in text


@pytest.mark.parametrize("how", ["env", "file", "stdin"])
def test_bearer_from_env_file_or_stdin_reaches_the_agent_and_is_redacted(
    cli: Cli, locked: tuple[str, list[dict[str, str]]], tmp_path: Path, how: str
) -> None:
    url, seen = locked
    record = tmp_path / "r.jsonl"
    args = {
        "env": ("--bearer-env", "MY_TOKEN"),
        "file": ("--bearer", "@" + _secret_file(tmp_path, "t", TOKEN)),
        "stdin": ("--bearer", "@-"),
    }[how]
    result = cli(
        "send",
        url,
        "hi",
        *args,
        "--dialect",
        "0.3",
        "--record",
        str(record),
        "-o",
        "json",
        env={"MY_TOKEN": TOKEN} if how == "env" else None,
        input=(TOKEN + "\n").encode() if how == "stdin" else None,
    )
    assert result.code == 0, result
    assert seen[-1] == {"authorization": f"Bearer {TOKEN}"}
    assert TOKEN not in " ".join(result.args)
    reply = result.json()
    assert "you sent authorization=[redacted]" in json.dumps(reply)
    text = record.read_text(encoding="utf-8")
    assert "Bearer [redacted]" in text and "you sent" in text
    _no_secret_in(text, result.out, result.err)


def test_api_key_basic_secret_header_and_push_token_from_env_and_files(
    cli: Cli, locked: tuple[str, list[dict[str, str]]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url, seen = locked
    record = tmp_path / "r.jsonl"
    # The commands run in this process (the cli fixture's quick way): its environment is theirs.
    for name, value in {
        "A2A_KEY": KEY,
        "A2A_BASIC": f"me:{PASSWORD}",
        "TEAM": HEADER_SECRET,
        "PUSH": PUSH_TOKEN,
    }.items():
        monkeypatch.setenv(name, value)
    runs = [
        ("send", url, "hi", "--api-key-env", "A2A_KEY"),
        ("send", url, "hi", "--api-key", "@" + _secret_file(tmp_path, "k", KEY)),
        ("send", url, "hi", "--basic-env", "A2A_BASIC"),
        ("send", url, "hi", "--basic", "@" + _secret_file(tmp_path, "b", f"me:{PASSWORD}")),
        ("send", url, "hi", "--secret-header-env", "X-Team-Token: TEAM"),
        ("send", url, "hi", "--secret-header", "X-Team-Token: @" + _secret_file(tmp_path, "h", HEADER_SECRET)),
        (
            "push",
            "set",
            url,
            "task-1",
            "--url",
            "http://127.0.0.1:9/cb",
            "--token-env",
            "PUSH",
            "--bearer-env",
            "A2A_KEY",
        ),
        (
            "push",
            "set",
            url,
            "task-1",
            "--url",
            "http://127.0.0.1:9/cb",
            "--token",
            "@" + _secret_file(tmp_path, "p", PUSH_TOKEN),
            "--api-key-env",
            "A2A_KEY",
        ),
    ]
    expected = [
        {"x-api-key": KEY},
        {"x-api-key": KEY},
        {"authorization": "Basic " + base64.b64encode(f"me:{PASSWORD}".encode()).decode()},
        {"authorization": "Basic " + base64.b64encode(f"me:{PASSWORD}".encode()).decode()},
        {"x-team-token": HEADER_SECRET},
        {"x-team-token": HEADER_SECRET},
        {"authorization": f"Bearer {KEY}"},
        {"x-api-key": KEY},
    ]
    for args, want in zip(runs, expected, strict=True):
        result = cli(*args, "--dialect", "0.3", "--record", str(record), "--append", "-o", "json")
        assert result.code == 0, result
        assert seen[-1] == want, result
        _no_secret_in(" ".join(result.args), result.out, result.err)
    text = record.read_text(encoding="utf-8")
    assert text.count('"X-Team-Token":"[redacted]"') >= 2
    assert "pushNotificationConfig/set" in text  # the push token went in these bodies, redacted
    _no_secret_in(text)


@pytest.mark.parametrize(
    "args, says",
    [
        (("--bearer-env", "A2A_UNSET_VAR"), "--bearer-env: the environment variable A2A_UNSET_VAR is not set"),
        (("--api-key", "@/nonexistent/a2a-key"), "--api-key: cannot read /nonexistent/a2a-key: No such file"),
        (
            ("--secret-header-env", "X-T: A2A_UNSET_VAR"),
            "--secret-header-env X-T: the environment variable A2A_UNSET_VAR is not set",
        ),
        (("--basic-env", "EMPTY"), "--basic-env: the environment variable EMPTY is empty"),
        (("--bearer", "x", "--bearer-env", "EMPTY"), "give only one of --bearer, --bearer-env"),
        (("--bearer-env", "TWO_LINES"), "holds a control character or a line break"),
    ],
)
def test_a_secret_that_cannot_be_had_is_one_line_and_exit_2(
    cli: Cli, args: tuple[str, ...], says: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EMPTY", "")
    monkeypatch.setenv("TWO_LINES", "a\nb")
    monkeypatch.delenv("A2A_UNSET_VAR", raising=False)
    result = cli("send", "http://127.0.0.1:9", "hi", *args)
    assert result.code == 2, result
    assert len(result.err_lines) == 1 and says in result.err, result
    assert "Traceback" not in result.err


def test_only_one_option_reads_standard_input(cli: Cli) -> None:
    result = cli("send", "http://127.0.0.1:9", "-", "--bearer", "@-", input=b"hello\n")
    assert result.code == 2, result
    assert "standard input can feed one option only" in result.err, result
