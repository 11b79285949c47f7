"""``a2a-inspect`` against hostile agents (tests/hostile.py), as a real subprocess.

A failure is exit 3 with exactly one line on stderr, ``a2a-inspect: ...``, saying what
went wrong, and no traceback anywhere. Agent text is data: markup prints as typed, an
escape byte as ``\\x1b`` in text and ``\\u001b`` in JSON, never raw on stdout. A closed
pipe (``| head -1``) ends the CLI quietly.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

import escape_agent
import hostile
from cli_helpers import Cli, CliResult, assert_one_error_line, cli, finish, read_line  # noqa: F401 - cli is a fixture
from inspector.serving.runner import BackgroundServer
from inspector.textsafe import visible
from peers.sdk_agent import release, wait_parked

ESC = "\x1b"
UNREACHABLE = "http://127.0.0.1:1"


@pytest.fixture(scope="module")
def agent() -> Iterator[str]:
    with BackgroundServer(hostile.build_app()) as srv:
        yield srv.url


def send(cli: Cli, agent: str, behaviour: str, *args: str, stream: bool = False, output: str = "text") -> CliResult:
    return cli(
        "send", f"{agent}/{behaviour}", "hi", "--dialect", "0.3", "-o", output, *(["--stream"] if stream else []), *args
    )


def assert_no_raw_controls(r: CliResult) -> None:
    assert ESC.encode() not in r.stdout_bytes, r
    assert ESC.encode() not in r.stderr_bytes, r
    assert "Traceback" not in r.out and "Traceback" not in r.err, r


# ------------------------------------------------------------- failures: exit 3, one line

# (behaviour, streaming?, extra options, what the one stderr line must say)
FAILURES: list[tuple[str, bool, tuple[str, ...], tuple[str, ...]]] = [
    ("invalid-json", False, (), ("invalid response from the agent: invalid JSON",)),
    ("wrong-state", False, (), ("invalid response from the agent: $.result.status.state: ",)),
    ("parts-not-a-list", False, (), ("$.result.status.message.parts: ",)),
    ("not-utf8", False, (), ("body is not UTF-8 (byte 0xe9 at offset ",)),
    ("html-500", False, (), ("HTTP 500 Internal Server Error", 'HTML page "Internal Server Error"')),
    ("rpc-error-500", False, (), ("JSON-RPC error -32603 (Internal error)", "the model fell over", "[HTTP 500]")),
    ("cut-body", False, (), ("broken off", "received 19 bytes, expected 1000")),
    ("stalled-body", False, ("--timeout", "0.4"), ("stopped sending its response for 0.4 s",)),
    ("slow", False, ("--timeout", "0.4"), ("no response from", "within 0.4 s")),
    ("truncated-mid-event", True, (), ("stream ended before the task reached a final state",)),
    ("truncated-no-final", True, (), ("stream ended before the task reached a final state (3 events received)",)),
    ("broken-stream", True, (), ("stream from", "broken off")),
    ("rpc-error-in-stream", True, (), ("JSON-RPC error -32603", "Internal error mid-stream")),
    ("plain-error-for-stream", True, (), ("JSON-RPC error -32001", "Task does-not-exist not found")),
    ("silent-stream", True, ("--stream-timeout", "0.5"), ("went quiet for 0.5 s",)),
]


@pytest.mark.parametrize(("behaviour", "stream", "extra", "needles"), FAILURES, ids=[f[0] for f in FAILURES])
def test_failure_is_exit_3_and_one_line(
    cli: Cli, agent: str, behaviour: str, stream: bool, extra: tuple[str, ...], needles: tuple[str, ...]
) -> None:
    r = send(cli, agent, behaviour, *extra, stream=stream)
    line = assert_one_error_line(r, 3, *needles)
    assert len(line) < 400, line
    assert_no_raw_controls(r)


# One of each kind of failure, in the two machine-readable modes.
MACHINE = ["invalid-json", "html-500", "rpc-error-500", "truncated-no-final", "broken-stream", "slow"]
ERROR_TYPES = {
    "invalid-json": "protocol",
    "html-500": "http",
    "rpc-error-500": "rpc",
    "truncated-no-final": "stream",
    "broken-stream": "stream",
    "slow": "timeout",
}


@pytest.mark.parametrize("output", ["json", "ndjson"])
@pytest.mark.parametrize("behaviour", MACHINE)
def test_failure_in_json_modes_is_reported_on_stdout_too(cli: Cli, agent: str, behaviour: str, output: str) -> None:
    _, stream, extra, needles = next(f for f in FAILURES if f[0] == behaviour)
    r = send(cli, agent, behaviour, *extra, stream=stream, output=output)
    line = assert_one_error_line(r, 3, *needles)
    assert_no_raw_controls(r)
    if output == "json":
        doc = r.json()
        error = doc["error"]
        assert doc["exitCode"] == 3
    else:
        records = r.ndjson()
        error = records[-1]
        assert error["kind"] == "error"
    assert error["type"] == ERROR_TYPES[behaviour]
    if error["type"] == "rpc":
        assert error["code"] == -32603 and error["message"] in line
    else:
        assert error["message"] in line


def test_stream_without_a_final_state_still_prints_what_arrived(cli: Cli, agent: str) -> None:
    r = send(cli, agent, "truncated-no-final", stream=True)
    assert r.code == 3, r
    lines = r.out.splitlines()
    assert any(x.endswith("task t-hostile submitted") for x in lines)
    assert any(x.endswith("artifact a1 +7 chars") for x in lines)
    assert "state    working   (submitted → working, 0.00 s)" in lines or any(
        x.startswith("state    working   (submitted → working") for x in lines
    ), r
    assert lines[lines.index("artifact a1, 1 chunk") + 1] == "  partial"
    assert any(x.startswith("✗ stream-no-terminal: ") for x in lines)

    nd = send(cli, agent, "truncated-no-final", stream=True, output="ndjson")
    assert nd.code == 3, nd
    kinds = [e["kind"] for e in nd.ndjson()]
    assert kinds[:3] == ["task", "status-update", "artifact-update"]
    assert kinds[-1] == "error" and "violation" in kinds

    doc = send(cli, agent, "truncated-no-final", stream=True, output="json")
    assert doc.code == 3, doc
    task = doc.json()["task"]
    assert task["state"] == "working" and task["artifacts"][0]["text"] == "partial"
    assert task["artifacts"][0]["closed"] is False


# ---------------------------------------------------------------- not failures


def test_ten_megabyte_body_is_a_task_like_any_other(cli: Cli, agent: str) -> None:
    # Big is not wrong: the body decodes, the task completed, all of it is printed.
    r = send(cli, agent, "big-body")
    assert r.code == 0, r
    assert r.err == ""
    lines = r.out.splitlines()
    assert lines[lines.index("artifact big") + 1] == "  " + "x" * hostile.BIG_TEXT_SIZE
    j = send(cli, agent, "big-body", output="json")
    assert j.code == 0, j
    assert j.json()["task"]["artifacts"][0]["text"] == "x" * hostile.BIG_TEXT_SIZE


def test_bad_events_in_a_stream_are_reported_and_skipped(cli: Cli, agent: str) -> None:
    # The stream goes on past each broken event and the task completes, but the agent
    # broke the protocol: exit 3 (README's "invalid JSON"), unless --lenient.
    r = send(cli, agent, "bad-events-stream", stream=True, output="ndjson")
    assert r.code == 3, r
    records = r.ndjson()
    events = [e["status"]["state"] for e in records if e["kind"] == "status-update"]
    assert events == ["working", "completed"]
    violations = [e for e in records if e["kind"] == "violation"]
    assert [v["code"] for v in violations] == ["decode-error"] * 3
    assert "not UTF-8" in violations[1]["message"]
    assert records[-1] == {"kind": "exit", "exitCode": 3}
    assert_no_raw_controls(r)

    lenient = send(cli, agent, "bad-events-stream", "--lenient", stream=True, output="ndjson")
    assert lenient.code == 0, lenient
    assert [e["code"] for e in lenient.ndjson() if e["kind"] == "violation"] == ["decode-error"] * 3
    assert lenient.ndjson()[-1] == {"kind": "exit", "exitCode": 0}

    text = send(cli, agent, "bad-events-stream", stream=True)
    assert text.code == 3 and text.err == "", text
    assert [line for line in text.out.splitlines() if line.startswith("✗ decode-error: ")][1:2], text
    doc = send(cli, agent, "bad-events-stream", stream=True, output="json").json()
    assert doc["exitCode"] == 3 and doc["task"]["state"] == "completed"
    assert [v["code"] for v in doc["violations"]] == ["decode-error"] * 3


def test_heartbeats_keep_a_quiet_stream_alive(cli: Cli, agent: str) -> None:
    # Silent for 1.6 s in all, but a heartbeat every 0.1 s: never 1 s without bytes.
    r = send(cli, agent, "heartbeat-only", "--stream-timeout", "1", stream=True)
    assert r.code == 0, r
    assert r.out.splitlines()[-1].startswith("state    completed")


def test_stream_left_open_after_the_final_event_ends(cli: Cli, agent: str) -> None:
    started = time.monotonic()
    r = send(cli, agent, "open-after-final", stream=True)
    assert r.code == 0, r
    assert time.monotonic() - started < 15  # the agent would hold it open for 30 s
    assert any(x.startswith("state    completed") for x in r.out.splitlines())


def test_plain_json_answer_to_a_stream_request_is_read(cli: Cli, agent: str) -> None:
    r = send(cli, agent, "plain-json-for-stream", stream=True)
    assert r.code == 0, r
    assert "message  no stream for you" in r.out.splitlines()


def test_orloj_0_1_stream(cli: Cli, agent: str) -> None:
    r = cli("send", f"{agent}/orloj", "hi", "--stream", "--dialect", "0.1")
    assert r.code == 0, r
    lines = r.out.splitlines()
    assert any(x.startswith("task     ") for x in lines) and "message  Done." in lines
    assert any(x.startswith("state    completed   (working → completed") for x in lines)


# ------------------------------------------------------------- markup and escapes

LITERAL = hostile.MARKUP_TEXT.replace(ESC, "\\x1b")  # what text mode must show


@pytest.mark.parametrize("stream", [False, True], ids=["send", "stream"])
def test_markup_and_escapes_print_literally_in_text(cli: Cli, agent: str, stream: bool) -> None:
    behaviour = "fancy-stream" if stream else "markup"
    r = send(cli, agent, behaviour, stream=stream)
    assert r.code == 0, r
    assert_no_raw_controls(r)
    assert "[bold]not bold[/bold]" in r.out and "[link=http://x]y[/link]" in r.out
    if stream:
        # The artifact: the separator text, then the markup appended to it. U+2028 and
        # U+2029 are shown as escapes: raw, they would break the line where the agent
        # sent no newline.
        assert r.out.splitlines()[-1] == "  one\\u2028two\\u2029three" + LITERAL
    else:
        assert f"message  {LITERAL}" in r.out.splitlines()


@pytest.mark.parametrize("output", ["json", "ndjson"])
@pytest.mark.parametrize("stream", [False, True], ids=["send", "stream"])
def test_markup_and_escapes_are_escaped_in_json(cli: Cli, agent: str, stream: bool, output: str) -> None:
    behaviour = "fancy-stream" if stream else "markup"
    r = send(cli, agent, behaviour, stream=stream, output=output)
    assert r.code == 0, r
    assert_no_raw_controls(r)
    assert "\\u001b[31mnot red\\u001b[0m" in r.out
    if output == "json":
        task = r.json()["task"]
        got = task["artifacts"][0]["text"] if stream else task["statusMessage"]["parts"][0]["text"]
        assert got == (hostile.SEPARATOR_TEXT + hostile.MARKUP_TEXT if stream else hostile.MARKUP_TEXT)
    else:
        texts = [p["text"] for e in r.ndjson() if e["kind"] == "artifact-update" for p in e["artifact"]["parts"]]
        if not stream:
            texts = [p["text"] for p in r.ndjson()[0]["status"]["message"]["parts"]]
        assert hostile.MARKUP_TEXT in texts


@pytest.fixture(scope="module")
def escaping_agent() -> Iterator[str]:
    with BackgroundServer(escape_agent.build_app()) as srv:
        yield srv.url


def _shown(tag: str, upto: int = 40) -> str:
    return visible(escape_agent.hostile(tag))[:upto]


# What each run must show of the agent's text, literally (markup and escapes as text).
ESCAPING_RUNS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    # The card: a binding's name in the label column, a scheme's name in a finding's path.
    "card": (("card", "{url}"), (_shown("IT"), f'$.securitySchemes["{_shown("SS")}', _shown("DS"))),
    "send": (("send", "{url}", "hello"), (f"message  {_shown('SM')}", f"  {_shown('AT')}")),
    "stream": (("send", "--stream", "{url}", "hello"), (_shown("CK", 80),)),
    "rpc-error": (("send", "{url}", "boom"), (_shown("ER"),)),
    "http-500": (("send", "{url}", "crash"), ("HTTP 500 Internal Server Error (text",)),
}


@pytest.mark.parametrize("run", ESCAPING_RUNS)
def test_an_agent_whose_every_field_holds_escapes_never_drives_the_terminal(
    cli: Cli, escaping_agent: str, run: str
) -> None:
    args, shown = ESCAPING_RUNS[run]
    r = cli(*(a.format(url=escaping_agent) for a in args))
    raw = r.stdout_bytes + r.stderr_bytes
    assert [what for what, payload in escape_agent.LEAKS.items() if payload in raw] == [], r
    assert "Traceback" not in r.err, r
    for text in shown:
        assert text in r.out + r.err, r


def test_a_terminal_that_is_not_utf8_gets_escapes_not_a_crash(cli: Cli, agent: str) -> None:
    # Our own "→" and the agent's U+2028 cannot be encoded in ASCII: they are escaped.
    r = cli("send", f"{agent}/fancy-stream", "hi", "--stream", "--dialect", "0.3", env={"PYTHONIOENCODING": "ascii"})
    assert r.code == 0, r
    assert r.stdout_bytes.isascii()
    assert_no_raw_controls(r)
    assert "state    completed   (submitted \\u2192 completed" in r.out
    assert "  one\\u2028two\\u2029three[bold]not bold[/bold] \\x1b[31m" in r.out


# Agent strings a careless client would print raw, beyond the shared corpus: C1 controls
# and bidi overrides in text, escapes in ids and names, and a multi-line error message.
SNEAKY_TEXT = "a\x9b31mb \u202egnp.exe c\x07d"
EVIL_ID = "t-\x1b[2J\nx"


def sneaky_app() -> Starlette:
    async def endpoint(request: Request) -> Response:
        rid = json.loads(await request.body()).get("id")
        what = request.path_params["what"]
        if what == "c1-bidi":
            body = hostile.ok(rid, hostile.task("completed", text=SNEAKY_TEXT))
        elif what == "evil-ids":
            result = hostile.task(
                "completed",
                artifacts=[
                    {
                        "artifactId": "a\x1b[1m",
                        "name": "\x1b]0;pwned\x07name",
                        "parts": [{"kind": "text", "text": "ok"}],
                    }
                ],
            )
            result["id"], result["contextId"] = EVIL_ID, "c-\x1b]0;title\x07"
            body = hostile.ok(rid, result)
        else:  # multi-line-error
            body = hostile.err(rid, -32000, "bad\n\x1b[31mthing\r\nsecond line")
        return hostile.json_response(body)

    return Starlette(routes=[Route("/{what}", endpoint, methods=["POST"])])


@pytest.fixture(scope="module")
def sneaky() -> Iterator[str]:
    with BackgroundServer(sneaky_app()) as srv:
        yield srv.url


@pytest.mark.parametrize("output", ["text", "json", "ndjson"])
def test_c1_controls_and_bidi_overrides_never_reach_stdout_raw(cli: Cli, sneaky: str, output: str) -> None:
    r = send(cli, sneaky, "c1-bidi", output=output)
    assert r.code == 0, r
    for raw in ("\x9b", "\u202e", "\x07"):
        assert raw not in r.out, (raw, r)
    if output == "text":
        assert "message  a\\x9b31mb \\u202egnp.exe c\\x07d" in r.out.splitlines()
    else:
        assert "a\\u009b31mb \\u202egnp.exe c\\u0007d" in r.out
        doc = r.json() if output == "json" else r.ndjson()[0]
        message = doc["task"]["statusMessage"] if output == "json" else doc["status"]["message"]
        assert message["parts"][0]["text"] == SNEAKY_TEXT


def test_escapes_in_ids_and_names_stay_on_their_line(cli: Cli, sneaky: str) -> None:
    r = send(cli, sneaky, "evil-ids")
    assert r.code == 0, r
    assert_no_raw_controls(r)
    lines = r.out.splitlines()
    assert lines[0] == "task     t-\\x1b[2J\\nx"
    assert lines[1] == "context  c-\\x1b]0;title\\x07"
    assert any(x.startswith("artifact \\x1b]0;pwned\\x07name") for x in lines), r
    assert "\x07" not in r.out


def test_multi_line_error_message_is_one_line(cli: Cli, sneaky: str) -> None:
    r = send(cli, sneaky, "multi-line-error")
    line = assert_one_error_line(r, 3, "JSON-RPC error -32000", "bad\\n\\x1b[31mthing\\r\\nsecond line")
    assert_no_raw_controls(r)
    assert line


# ------------------------------------------------------------------------ unreachable


@pytest.mark.parametrize(
    "command",
    [
        ("card", UNREACHABLE),
        ("send", UNREACHABLE, "hi"),
        ("send", UNREACHABLE, "hi", "--stream", "--dialect", "1.0"),
        ("get", UNREACHABLE, "t-1", "-o", "json"),
        ("cancel", UNREACHABLE, "t-1", "-o", "ndjson"),
        ("resubscribe", UNREACHABLE, "t-1", "--dialect", "0.3"),
    ],
    ids=["card", "send", "stream", "get", "cancel", "resubscribe"],
)
def test_unreachable_agent(cli: Cli, command: tuple[str, ...]) -> None:
    r = cli(*command)
    assert_one_error_line(r, 3, "cannot connect to http://127.0.0.1:1/", "connection refused")


# ------------------------------------------------------------------------ closed pipe


def read_one_line_then_close(cli: Cli, *args: str) -> tuple[bytes, CliResult]:
    """``a2a-inspect ARGS | head -1``: read one line, close the pipe, let the CLI finish."""
    proc = cli.start(*args)
    line = read_line(proc)
    proc.stdout.close()
    return line, finish(proc, args)


def test_ndjson_stream_into_a_closed_pipe(cli: Cli, sdk_agent_compat: str) -> None:
    # The peer holds the task until the pipe is closed, so the CLI surely writes again after.
    args = ("send", sdk_agent_compat, "hold a b c", "--stream", "--output", "ndjson")
    proc = cli.start(*args)
    line = read_line(proc)
    first = json.loads(line)
    assert first["kind"] == "task"
    wait_parked(sdk_agent_compat, first["id"])
    proc.stdout.close()
    release(sdk_agent_compat, first["id"])
    r = finish(proc, args)
    assert r.code == 0, r
    assert r.err == "", r


def test_text_into_a_closed_pipe(cli: Cli, agent: str) -> None:
    # Ten megabytes of text into a pipe nobody reads any more.
    line, r = read_one_line_then_close(cli, "send", f"{agent}/big-body", "hi", "--dialect", "0.3")
    assert line == b"task     t-hostile\n"
    assert r.code == 0, r
    assert r.err == "", r
