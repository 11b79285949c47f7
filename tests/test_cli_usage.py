"""``a2a-inspect`` usage: what the user typed is wrong -> exit 2 and one line saying
what, before any network traffic; ``--version`` and ``--help`` answer without loading
the heavy libraries.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from cli_helpers import Cli, assert_one_error_line, cli  # noqa: F401 - cli is a fixture
from inspector import __version__

# Nothing listens on port 1: a usage error that reached the network would show up as
# "cannot connect" and exit 3 instead.
URL = "http://127.0.0.1:1"


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "bad.json").write_text("{not json")
    (tmp_path / "list.json").write_text("[1, 2]")
    (tmp_path / "latin1.json").write_bytes(b'{"caf\xe9": 1}')
    (tmp_path / "existing.jsonl").write_text("keep me\n")
    return tmp_path


# (arguments, what the error line must say); "{d}" is the test's temp directory.
USAGE_ERRORS: list[tuple[tuple[str, ...], tuple[str, ...]]] = [
    (("send", URL, "hi", "--file", "{d}/missing.txt"), ("file not found: {d}/missing.txt",)),
    (("send", URL, "hi", "--file", "{d}"), ("not a file: {d}",)),
    (
        ("send", URL, "hi", "--data", "{k:1}"),
        ("--data: invalid JSON: Expecting property name enclosed in double quotes at line 1 column 2",),
    ),
    (("send", URL, "hi", "--data", "@{d}/missing.json"), ("--data: file not found: {d}/missing.json",)),
    (("send", URL, "hi", "--data", "@{d}/bad.json"), ("--data: invalid JSON: ",)),
    (("send", URL, "hi", "--data", "@{d}/latin1.json"), ("--data: cannot read {d}/latin1.json",)),
    (("send", URL, "hi", "--metadata", "{oops"), ("--metadata: invalid JSON: ",)),
    (("send", URL, "hi", "--metadata", "@{d}/list.json"), ("--metadata must be a JSON object",)),
    (("send", URL, "hi", "-H", "X-No-Colon"), ("-H expects 'Name: value', got 'X-No-Colon'",)),
    (("get", URL, "t-1", "-H", ": value"), ("-H expects 'Name: value'",)),
    (("send", URL, "hi", "--bearer", "t", "--api-key", "k"), ("give only one of --bearer, --api-key, --basic",)),
    (("card", URL, "--api-key", "k", "--basic", "u:p"), ("give only one of --bearer, --api-key, --basic",)),
    (("send", URL, "hi", "--basic", "no-colon"), ("--basic expects USER:PASSWORD",)),
    (
        ("send", URL, "hi", "--dialect", "0.4"),
        ("argument --dialect: invalid choice: '0.4'", "'a2a-inspect send --help'"),
    ),
    (("card", URL, "--dialect", "2"), ("argument --dialect: invalid choice: '2'",)),
    (("send", URL), ("nothing to send: give TEXT, --file, --file-uri or --data",)),
    (("send", URL, "hi", "--file-uri", "report.pdf"), ("not a URI (no scheme): report.pdf",)),
    (("send", URL, "hi", "--record", "{d}/existing.jsonl"), ("{d}/existing.jsonl exists: --append adds",)),
    (("send", URL, "hi", "--record", "{d}/no/such/dir/x.jsonl"), ("cannot record to {d}/no/such/dir/x.jsonl",)),
    (("send", URL, "hi", "--timeout", "soon"), ("argument --timeout: not a number of seconds: 'soon'",)),
    (("send", URL, "hi", "--output", "xml"), ("argument --output/-o: invalid choice: 'xml'",)),
    (("get", URL), ("the following arguments are required: task_id",)),
    (("send",), ("the following arguments are required: url",)),
    (("list", URL, "--state", "done"), ("unknown state 'done'; one of: submitted, working",)),
    (("push", "set", URL, "t-1"), ("the following arguments are required: --url",)),
    (("push",), ("the following arguments are required: ACTION",)),
    (("send", URL, "hi", "--bogus"), ("unrecognized arguments: --bogus",)),
    (("replay",), ("the following arguments are required: file",)),
    (("get", URL, "t-1", "--method-name", "get"), ("--method-name expects METHOD=NAME",)),
    (("get", URL, "t-1", "--method-name", "fetch=tasks/get"), ("--method-name: no method 'fetch'; methods: send,",)),
    (
        ("resubscribe", URL, "t-1", "--dialect", "0.3", "--method-name", "resubscribe=task/resubscribe"),
        (
            "--method-name: 'task/resubscribe' is not how the 0.2/0.3 dialect spells resubscribe; "
            "known: tasks/resubscribe",
        ),
    ),
]


@pytest.mark.parametrize(("args", "needles"), USAGE_ERRORS, ids=[" ".join(a[:1] + a[2:])[:60] for a, _ in USAGE_ERRORS])
def test_usage_error_is_exit_2_and_one_line(
    cli: Cli, files: Path, args: tuple[str, ...], needles: tuple[str, ...]
) -> None:
    args = tuple(a.replace("{d}", str(files)) for a in args)
    r = cli(*args)
    assert_one_error_line(r, 2, *(n.replace("{d}", str(files)) for n in needles))
    assert r.out == "", r
    assert "usage:" not in r.err, r


def test_usage_error_leaves_an_existing_recording_alone(cli: Cli, files: Path) -> None:
    r = cli("send", URL, "hi", "--record", str(files / "existing.jsonl"), process=True)
    assert r.code == 2, r
    assert (files / "existing.jsonl").read_text() == "keep me\n"


def test_usage_errors_are_found_before_the_network(cli: Cli, files: Path) -> None:
    # The same command with valid options does reach the (absent) agent: exit 3.
    ok = cli("send", URL, "hi", "--data", '{"k": 1}', "-H", "X-A: b", "--bearer", "t")
    assert_one_error_line(ok, 3, "cannot connect to http://127.0.0.1:1/")


# ------------------------------------------------------------------ version, help

HEAVY = ("textual", "httpx", "pydantic", "rich", "starlette", "uvicorn")
PROBE = """
import json, sys
import inspector.cli
try:
    code = inspector.cli.main({argv!r})
except SystemExit as exc:
    code = exc.code
heavy = sorted({{m.split(".")[0] for m in sys.modules}} & set({heavy!r}))
print(json.dumps({{"code": code, "heavy": heavy}}), file=sys.stderr)
"""


def probe(argv: list[str]) -> tuple[str, dict]:
    proc = subprocess.run(
        [sys.executable, "-c", PROBE.format(argv=argv, heavy=HEAVY)], capture_output=True, text=True, timeout=30
    )
    return proc.stdout, json.loads(proc.stderr.strip().splitlines()[-1])


@pytest.mark.parametrize("argv", [["--version"], ["--help"], ["send", "--help"], ["card", "-h"]])
def test_version_and_help_load_no_heavy_library(argv: list[str]) -> None:
    out, result = probe(argv)
    assert result == {"code": 0, "heavy": []}, (out, result)
    assert out


def test_version(cli: Cli) -> None:
    r = cli("--version")
    assert r.code == 0, r
    assert r.out == f"a2a-inspect {__version__}\n"
    assert r.err == ""


def test_version_from_the_console_script() -> None:
    script = Path(sys.executable).with_name("a2a-inspect")
    if not script.exists():
        pytest.skip("console script not installed next to this interpreter")
    proc = subprocess.run([str(script), "--version"], capture_output=True, text=True, timeout=30)
    assert (proc.returncode, proc.stdout) == (0, f"a2a-inspect {__version__}\n")


EXIT_CODE_LINES = [
    "  0  completed, or the agent replied with a message",
    "  1  failed, canceled, rejected or unknown",
    "  2  usage error",
    "  3  transport or protocol error",
    "  4  input-required or auth-required",
]


def test_help_lists_the_commands_and_the_exit_codes(cli: Cli) -> None:
    r = cli("--help")
    assert r.code == 0, r
    assert r.out.startswith("usage: a2a-inspect")
    lines = r.out.splitlines()
    for command in ("card", "send", "get", "cancel", "resubscribe", "list", "push"):
        assert any(line.split()[:1] == [command] for line in lines), command
    assert "exit codes:" in lines
    for start in EXIT_CODE_LINES:
        assert any(line.startswith(start) for line in lines), start
    # The one exception to "canceled is 1" is documented where the codes are.
    assert "     (for cancel: the task ended canceled)" in lines
    # The terminal UI has no command word: its options are listed too.
    assert "terminal UI:" in lines
    for option in ("--demo", "--dialect", "--record", "--push-port"):
        assert option in r.out, option


@pytest.mark.parametrize(
    ("command", "options"),
    [
        (
            "send",
            (
                "--stream",
                "--file",
                "--file-uri",
                "--data",
                "--metadata",
                "--task-id",
                "--context-id",
                "--history-length",
                "--return-immediately",
                "--no-wait",
                "--dialect",
                "--output",
                "--record",
                "--bearer",
            ),
        ),
        ("get", ("--history-length", "--output")),
        ("card", ("--json", "--card-url")),
    ],
)
def test_command_help_lists_options_and_exit_codes(cli: Cli, command: str, options: tuple[str, ...]) -> None:
    r = cli(command, "--help")
    assert r.code == 0, r
    assert r.out.startswith(f"usage: a2a-inspect {command}")
    for option in options:
        assert option in r.out, option
    assert "exit codes:" in r.out and "  4  input-required or auth-required" in r.out


@pytest.mark.parametrize(("word", "hint"), [("sned", "did you mean 'send'?"), ("frobnicate", "commands: card, send")])
def test_a_mistyped_command_is_a_usage_error_not_a_tui_session(cli: Cli, word: str, hint: str) -> None:
    result = cli(word, "http://127.0.0.1:1")
    assert_one_error_line(result, 2, f"unknown command '{word}'", hint)
    assert result.out == ""


def test_method_name_reaches_society_ais_resubscribe(cli: Cli) -> None:
    from mock_agent import MockAgent

    with MockAgent(profile="society-ai", time_scale=0.01) as mock:
        asked = cli("send", mock.url, "clarify the scope", "-o", "json")
        assert asked.code == 4, asked
        task_id = asked.json()["task"]["id"]
        # The draft's spelling is refused by this profile ...
        plain = cli("resubscribe", mock.url, task_id, "--dialect", "0.1")
        assert plain.code == 3 and "-32601" in plain.err, plain
        # ... Society AI's own gets the waiting task's question again.
        again = cli("resubscribe", mock.url, task_id, "--method-name", "resubscribe=task/resubscribe", "-o", "ndjson")
        assert again.code == 4, again
        assert "Which aspect should the research focus on?" in again.out, again
