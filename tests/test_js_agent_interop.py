"""a2a-inspect's CLI against the official JavaScript SDK's agent (tests/peers/js/agent.mjs,
@a2a-js/sdk 1.3.0): on each binding (JSON-RPC, HTTP+JSON, gRPC) and in both of its
dialects (1.0, and 0.3 through the SDK's compatibility layer): send, send --stream,
input-required continued, a failed task, a Message reply, cancel, resubscribe, get. The
agent is well behaved: every run must be judged clean (no violation), with the exit code
the README's table gives for the outcome. Each run is recorded, so the test also sees
which binding and dialect a2a-inspect really spoke."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cli_helpers import Cli, CliResult, finish, read_line
from inspector.session import Kind, TaskTracker
from inspector.session.reader import Recording, load_recording
from peers import js_agent
from peers.js_agent import Agents, JsAgent
from test_proxy_cli import ProxyProcess

BINDINGS = ["jsonrpc", "rest", "grpc"]
DIALECTS = ["1.0", "0.3"]


@pytest.fixture
def cli(tmp_path: Path) -> Cli:
    return Cli(tmp_path / "home")


class Inspect:
    """``a2a-inspect COMMAND`` on one binding and dialect of an agent, each run recorded."""

    def __init__(self, cli: Cli, agent: JsAgent, binding: str, dialect: str, records: Path) -> None:
        self.cli, self.agent, self.binding, self.dialect = cli, agent, binding, dialect
        self.records = records
        self.runs = 0
        self.last: Path | None = None  # the recording of the latest run

    def args(self, command: str, *args: str) -> list[str]:
        """``a2a-inspect COMMAND [OPTION...] URL LAST`` for ``args`` = (OPTION..., LAST)."""
        self.runs += 1
        record = self.last = self.records / f"{self.runs:02}-{command}.jsonl"
        *options, last = args  # the text or task id: after the URL, options before it
        return [
            command,
            "--binding",
            self.binding,
            "--dialect",
            self.dialect,
            "--record",
            str(record),
            *options,
            self.agent.base,
            last,
        ]

    def __call__(self, command: str, *args: str) -> CliResult:
        return self.cli(*self.args(command, "-o", "json", *args))

    def recorded(self) -> list[Path]:
        return sorted(self.records.glob("*.jsonl"))


@pytest.fixture(params=BINDINGS)
def binding(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture(params=DIALECTS)
def dialect(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def inspect(cli: Cli, js_agent_compat: JsAgent, binding: str, dialect: str, tmp_path: Path) -> Inspect:
    records = tmp_path / "records"
    records.mkdir()
    return Inspect(cli, js_agent_compat, binding, dialect, records)


def artifact_text(doc: dict[str, Any]) -> str:
    (artifact,) = doc["task"]["artifacts"]
    return artifact["text"]


def status_text(doc: dict[str, Any]) -> str:
    return "".join(p.get("text", "") for p in doc["task"]["statusMessage"]["parts"])


def spoken(recording: Recording) -> set[tuple[str, str | None]]:
    """(binding, dialect) of every A2A request recorded (a JSON-RPC request names no binding)."""
    return {
        (e.data.get("binding") or "jsonrpc", e.data.get("dialect"))
        for e in recording.session.events
        if e.kind is Kind.REQUEST and e.data.get("a2a_method") != "card"
    }


def judged_clean(inspect: Inspect) -> None:
    """Every recorded run spoke the binding and dialect asked for, and nothing in any of
    them is a violation (on the agent's side or ours)."""
    for path in inspect.recorded():
        recording = load_recording(path)
        assert spoken(recording) == {(inspect.binding, inspect.dialect)}, path.name
        violations = TaskTracker(recording.session).violations
        assert violations == [], (path.name, [(v.code, v.message) for v in violations])


# ---------------------------------------------------------------------- every binding x dialect


def test_send_and_stream_assemble_the_artifact_exactly(inspect: Inspect) -> None:
    sent = inspect("send", "hello there inspector")
    assert sent.code == 0, sent
    doc = sent.json()
    assert doc["task"]["state"] == "completed" and status_text(doc) == js_agent.DONE_TEXT
    assert artifact_text(doc) == "echo: hello there inspector"
    assert doc["violations"] == [] and doc["error"] is None

    streamed = inspect("send", "--stream", "stream me please now")
    assert streamed.code == 0, streamed
    doc = streamed.json()
    (artifact,) = doc["task"]["artifacts"]
    assert (artifact["text"], artifact["chunks"], artifact["closed"]) == ("echo: stream me please now", 3, True)
    assert [p["text"] for p in artifact["parts"]] == js_agent.echo_chunks("stream me please now")
    assert artifact["name"] == js_agent.ARTIFACT_NAME
    assert [s["state"] for s in doc["task"]["timeline"]] == ["submitted", "working", "completed"]
    assert doc["violations"] == []

    got = inspect("get", "--history-length", "1", doc["task"]["id"])
    assert got.code == 0, got
    assert got.json()["task"]["state"] == "completed" and artifact_text(got.json()) == "echo: stream me please now"
    judged_clean(inspect)


def test_input_required_then_the_follow_up_completes(inspect: Inspect) -> None:
    asked = inspect("send", "ask me something")
    assert asked.code == 4, asked  # the agent waits for the client
    doc = asked.json()
    assert doc["task"]["state"] == "input-required" and status_text(doc) == js_agent.QUESTION
    task, context = doc["task"]["id"], doc["task"]["contextId"]

    answered = inspect("send", "--task-id", task, "--context-id", context, "ask again")
    assert answered.code == 0, answered
    doc = answered.json()
    # The answer is echoed, not taken as a command.
    assert doc["task"]["id"] == task and doc["task"]["state"] == "completed"
    assert artifact_text(doc) == "echo: ask again"

    failed = inspect("send", "fail please")
    assert failed.code == 1, failed
    assert failed.json()["task"]["state"] == "failed" and status_text(failed.json()) == js_agent.FAILED_TEXT

    replied = inspect("send", "msg hi there")
    assert replied.code == 0, replied
    assert replied.json()["task"] is None
    assert [p["text"] for p in replied.json()["message"]["parts"]] == ["echo: msg hi there"]

    # The same outcomes streamed: the stream ends where the blocking call returned.
    for text, code, state in [("ask me", 4, "input-required"), ("fail", 1, "failed"), ("msg hi", 0, None)]:
        streamed = inspect("send", "--stream", text)
        assert streamed.code == code, streamed
        assert (streamed.json()["task"] or {}).get("state") == state, streamed
    judged_clean(inspect)


def test_a_file_echoed_without_its_name_is_the_same_message(inspect: Inspect, tmp_path: Path) -> None:
    """0.3's proto has no file name (v0.3.0's FilePart: uri or bytes, and mimeType): the
    JS SDK's 0.3 REST and gRPC paths echo the user's file parts in the task's history
    without it. The same message, not a messageId used for two (a false warning before)."""
    attached = tmp_path / "notes.txt"
    attached.write_text("a file for the agent\n")
    sent = inspect(
        "send",
        "--file",
        str(attached),
        "--file-uri",
        "https://example.invalid/chart.png",
        "--data",
        '{"n": 1}',
        "with attachments",
    )
    assert sent.code == 0, sent
    doc = sent.json()
    assert doc["violations"] == [], doc["violations"]
    (asked,) = [m for m in doc["task"]["history"] if m["role"] == "user"]
    assert [p["kind"] for p in asked["parts"]] == ["text", "file", "file", "data"]
    judged_clean(inspect)


def test_cancel_of_a_running_task(inspect: Inspect) -> None:
    started = inspect("send", "--no-wait", "hold for cancel")
    task = started.json()["task"]
    assert task["state"] in ("submitted", "working"), started
    # At its gate before its first chunk: running, and staying so until canceled.
    js_agent.wait_parked(inspect.agent.base, task["id"])

    canceled = inspect("cancel", task["id"])
    assert canceled.code == 0, canceled
    doc = canceled.json()
    assert doc["task"]["state"] == "canceled" and status_text(doc) == js_agent.CANCELED_TEXT

    got = inspect("get", task["id"])
    assert got.code == 1, got  # canceled
    assert got.json()["task"]["state"] == "canceled" and got.json()["task"]["artifacts"] == []
    judged_clean(inspect)


def test_cancel_ends_an_open_stream(inspect: Inspect) -> None:
    args = inspect.args("send", "--stream", "-o", "ndjson", "hold then cancel")
    streaming = inspect.cli.start(*args)
    head = read_line(streaming)
    task_id = json.loads(head)["id"]
    js_agent.wait_parked(inspect.agent.base, task_id)

    canceled = inspect("cancel", task_id)
    assert canceled.code == 0 and canceled.json()["task"]["state"] == "canceled", canceled
    ended = finish(streaming, tuple(args), already_read=head)
    assert ended.code == 1, ended  # the streamed task ended canceled
    events = ended.ndjson()
    assert [e["kind"] for e in events] == ["task", "status-update", "status-update"]
    assert [e["status"]["state"] for e in events[1:]] == ["working", "canceled"]
    judged_clean(inspect)


def test_an_unknown_task_s_error_keeps_its_code(inspect: Inspect) -> None:
    """The agent's own error code on every binding and dialect: the JS SDK's 0.3 REST
    layer answers in the JSON-RPC error object's shape (``{"code", "message"}``), not as
    a google.rpc.Status; its code was lost (shown as a bare HTTP 404)."""
    got = inspect("get", "no-such-task-at-all")
    assert got.code == 3, got
    error = got.json()["error"]
    assert error["code"] == -32001, error
    assert "no-such-task-at-all" in error["message"], error


def test_resubscribe_to_a_running_task(inspect: Inspect) -> None:
    started = inspect("send", "--no-wait", "hold these words")
    task_id = started.json()["task"]["id"]
    js_agent.wait_parked(inspect.agent.base, task_id)

    args = inspect.args("resubscribe", "-o", "ndjson", task_id)
    following = inspect.cli.start(*args)
    # The SDK sends the task as it stands once the subscriber is attached: from then on
    # every chunk reaches it.
    head = read_line(following)
    js_agent.release(inspect.agent.base, task_id)
    done = finish(following, tuple(args), already_read=head)
    assert done.code == 0, done
    events = done.ndjson()
    assert events[0]["kind"] == "task" and events[0]["status"]["state"] == "working"
    chunks = [p["text"] for e in events if e["kind"] == "artifact-update" for p in e["artifact"]["parts"]]
    assert "".join(chunks) == "echo: hold these words"
    assert events[-1]["kind"] == "status-update" and events[-1]["status"]["state"] == "completed"
    tracker = TaskTracker(load_recording(inspect.last).session)
    assert next(iter(tracker.tasks[task_id].artifacts.values())).text() == "echo: hold these words"
    judged_clean(inspect)


# ---------------------------------------------------------------------- the cards, every configuration


CONFIGS = [
    (("jsonrpc", "rest", "grpc"), True),
    (("jsonrpc", "rest", "grpc"), False),
    (("rest",), True),
    (("rest",), False),
    (("grpc",), True),
    (("grpc",), False),
]
#: The single-binding agents are started only for these tests: on one worker, not on each.
ONE_WORKER = pytest.mark.xdist_group("js-agent-configs")


def _config_id(config: tuple[tuple[str, ...], bool]) -> str:
    return "+".join(config[0]) + ("+0.3" if config[1] else "")


@ONE_WORKER
@pytest.mark.parametrize("config", CONFIGS, ids=_config_id)
def test_card_of_every_configuration_is_clean(
    cli: Cli, js_agents: Agents, config: tuple[tuple[str, ...], bool]
) -> None:
    agent = js_agents.get(*config)
    shown = cli("card", agent.base, "-o", "json")
    errors = [f for f in shown.json()["findings"] if f["severity"] == "error"] if shown.out else None
    assert (shown.code, errors) == (0, []), shown
    text = cli("card", agent.base)
    assert text.code == 0 and "lint: 0 error(s)" in text.out, text


@ONE_WORKER
@pytest.mark.parametrize("config", CONFIGS[2:], ids=_config_id)
def test_a_card_listing_one_binding_is_followed(
    cli: Cli, js_agents: Agents, tmp_path: Path, config: tuple[tuple[str, ...], bool]
) -> None:
    """No --binding: the card's only interface decides, and the send works over it."""
    agent = js_agents.get(*config)
    (binding,) = config[0]
    record = tmp_path / "one.jsonl"
    sent = cli("send", "--stream", "-o", "json", "--record", str(record), agent.base, "one binding only")
    assert sent.code == 0, sent
    assert artifact_text(sent.json()) == "echo: one binding only" and sent.json()["violations"] == []
    assert spoken(load_recording(record)) == {(binding, "1.0")}


@ONE_WORKER
def test_a_card_served_only_to_a_1_0_client_is_read(cli: Cli, js_agents: Agents, tmp_path: Path) -> None:
    """The SDK's own compat sample lists only 1.0 interfaces with the 0.3 layer on: its card
    handler answers a GET without A2A-Version (0.3, by the spec) 400 with -32009. Asked
    again as 1.0, the card is there (before: "no agent card found", exit 3)."""
    agent = js_agents.get(compat=True, list03=False)
    shown = cli("card", agent.base, "-o", "json")
    assert shown.code == 0, shown
    doc = shown.json()
    assert doc["card"]["name"] == js_agent.AGENT_NAME and doc["dialect"] == "1.0"
    assert [f for f in doc["findings"] if f["severity"] == "error"] == []

    record = tmp_path / "unlisted.jsonl"
    sent = cli("send", "--stream", "-o", "json", "--record", str(record), agent.base, "asked as one")
    assert sent.code == 0, sent
    assert artifact_text(sent.json()) == "echo: asked as one" and sent.json()["violations"] == []
    recording = load_recording(record)
    cards = [e.data for e in recording.session.events if e.kind is Kind.REQUEST and e.data.get("a2a_method") == "card"]
    assert [c["headers"].get("A2A-Version") for c in cards] == [None, "1.0"]
    notes = [e.data["text"] for e in recording.session.events if e.kind is Kind.NOTE]
    assert any("without A2A-Version" in n and "asked again as 1.0" in n for n in notes), notes
    assert spoken(recording) == {("jsonrpc", "1.0")}


def test_the_pure_1_0_agent_on_every_binding(cli: Cli, js_agent_v10: JsAgent, tmp_path: Path) -> None:
    for binding in BINDINGS:
        inspect = Inspect(cli, js_agent_v10, binding, "1.0", tmp_path)
        streamed = inspect("send", "--stream", "stream me please now")
        assert streamed.code == 0, streamed
        assert artifact_text(streamed.json()) == "echo: stream me please now"
        judged_clean(inspect)
        for path in inspect.recorded():
            path.unlink()


# ---------------------------------------------------------------------- the proxy in between


def test_the_proxy_between_a2a_inspect_and_the_js_agent(cli: Cli, js_agent_compat: JsAgent, tmp_path: Path) -> None:
    record = tmp_path / "proxied.jsonl"
    proxy = ProxyProcess(cli, js_agent_compat.base, "--record", str(record))
    try:
        for binding in BINDINGS:
            for dialect in DIALECTS:
                streamed = cli(
                    "send",
                    "--stream",
                    "--binding",
                    binding,
                    "--dialect",
                    dialect,
                    "-o",
                    "json",
                    proxy.url,
                    f"through the proxy {binding}",
                )
                assert streamed.code == 0, streamed
                assert artifact_text(streamed.json()) == f"echo: through the proxy {binding}"
        asked = cli("send", "-o", "json", proxy.url, "ask me")
        assert asked.code == 4, asked
        answered = cli("send", "--task-id", asked.json()["task"]["id"], "-o", "json", proxy.url, "the answer")
        assert answered.code == 0 and artifact_text(answered.json()) == "echo: the answer", answered
    finally:
        proxy.stop()

    recording = load_recording(record)
    assert spoken(recording) == {(b, d) for b in BINDINGS for d in DIALECTS}
    tracker = TaskTracker(recording.session)
    assert tracker.violations == [], [(v.code, v.message) for v in tracker.violations]
    assert len(tracker.tasks) == 7
    texts = sorted(next(iter(t.artifacts.values())).text() for t in tracker.tasks.values())
    assert texts == sorted([*(f"echo: through the proxy {b}" for b in BINDINGS for _ in DIALECTS), "echo: the answer"])
    assert {t.state.value for t in tracker.tasks.values()} == {"completed"}


@pytest.mark.parametrize("transport", BINDINGS)
def test_the_proxy_between_the_js_client_and_the_js_agent(
    cli: Cli, js_agent_compat: JsAgent, tmp_path: Path, transport: str
) -> None:
    """Both ends written on the official JS SDK, a2a-inspect's proxy in between: the
    client reads the card through the proxy (its interfaces moved to the proxy, gRPC
    included), streams, and gets the artifact whole; the recording holds the exchange
    on that binding and judges it clean."""
    from peers import js_client

    record = tmp_path / "js-both-ends.jsonl"
    proxy = ProxyProcess(cli, js_agent_compat.base, "--record", str(record))
    try:
        streamed = js_client.run(proxy.url, transport, "stream", "through the proxy")
        assert streamed.code == 0, streamed
        chunks = streamed.payloads("artifactUpdate")
        assert "".join(p["text"] for c in chunks for p in c["artifact"]["parts"]) == "echo: through the proxy"
        assert streamed.payloads("statusUpdate")[-1]["status"]["state"] == "TASK_STATE_COMPLETED"
        asked = js_client.run(proxy.url, transport, "send", "ask me").task
        answered = js_client.run(
            proxy.url, transport, "send", "the answer", task=asked["id"], context=asked["contextId"]
        ).task
        assert answered["status"]["state"] == "TASK_STATE_COMPLETED", answered
    finally:
        proxy.stop()
    recording = load_recording(record)
    assert {binding for binding, _dialect in spoken(recording)} == {transport}
    tracker = TaskTracker(recording.session)
    assert tracker.violations == [], [(v.code, v.message) for v in tracker.violations]
    assert {t.state.value for t in tracker.tasks.values()} == {"completed"}


def test_the_agent_exits_when_its_stdin_closes() -> None:
    from peers import js_peers

    js_peers.require()
    agent = js_agent.start(js_agent.Config(("jsonrpc",), compat=False))
    assert agent.process.poll() is None
    agent.stop()
    assert agent.process.returncode == 0


# ---------------------------------------------------------------------- the terminal UI


async def test_the_tui_streams_from_the_js_agent(js_agent_compat: JsAgent) -> None:
    from inspector.ui.app import InspectorApp
    from inspector.ui.widgets.artifacts_view import ArtifactsView
    from test_ui_task import params, ready, selected_task
    from ui_helpers import screen_text, wait_until

    app = InspectorApp(url=js_agent_compat.base)
    async with app.run_test(size=(120, 36)) as pilot:
        conn = await ready(pilot)
        assert (conn.binding_name, conn.dialect_name) == ("jsonrpc", "1.0")
        app.send_message(conn, params("stream me please now"), stream=True)
        task = await wait_until(
            pilot, lambda: (t := selected_task(app)) is not None and t.terminal and t, 15, "the streamed task to end"
        )
        artifacts = app.main.query_one(ArtifactsView)
        await wait_until(
            pilot,
            lambda: artifacts.text_of(f"echo-{task.id[:8]}") == "echo: stream me please now",
            10,
            "the assembled artifact",
        )
        await wait_until(pilot, lambda: "echo: stream me please now" in screen_text(app), 5, "the text on screen")
        assert task.state.value == "completed"
        assert conn.tracker.violations == []
