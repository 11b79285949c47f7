"""The hub end to end with real processes on loopback: ``a2a-inspect hub --headless``,
``a2a-mock --ws-agent`` and the headless commands through the HTTP bridge, each its own
process, as a user runs them in three terminals."""

from __future__ import annotations

import contextlib
import json
import queue
import subprocess
import sys
import threading
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from cli_helpers import Cli
from hub_scenario import SCENARIO

MOCK = [sys.executable, "-m", "mock_agent.cli"]
#: Generous: only stops a broken test from hanging the suite.
WAIT = 30.0

# A drop with no gate before it: a subprocess's gates cannot be released from here.
CUT_RULE = {"when": {"text": "^cut"}, "script": [{"status": "working", "message": "about to drop"}, {"drop": True}]}


@pytest.fixture
def cli(tmp_path: Path) -> Cli:
    return Cli(tmp_path)


class Lines:
    """A process's stdout, a line at a time, read by a thread (select() on a buffered
    pipe misses lines already in the buffer)."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        self.proc = proc
        self.queue: queue.Queue[str | None] = queue.Queue()
        self.ended = False
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            self.queue.put(raw.decode("utf-8", "replace"))
        self.queue.put(None)

    def next(self) -> str:
        try:
            line = self.queue.get(timeout=WAIT)
        except queue.Empty:
            self.proc.kill()
            raise AssertionError(f"no output within {WAIT} s") from None
        if line is None:
            err = self.proc.stderr.read() if self.proc.stderr else b""
            raise AssertionError(f"the process ended (exit {self.proc.wait(WAIT)}): {err!r}")
        return line

    def rest(self) -> str:
        """Everything until the process ends."""
        out: list[str] = []
        while not self.ended:
            line = self.queue.get(timeout=WAIT)
            if line is None:
                self.ended = True
            else:
                out.append(line)
        return "".join(out)


class Hub:
    """``a2a-inspect hub --headless`` in the background; its lines are read as they come."""

    def __init__(self, cli: Cli, *args: str) -> None:
        self.proc = cli.start("hub", "--headless", "--port", "0", *args)
        self.record = Path(args[args.index("--record") + 1]) if "--record" in args else None
        self.out = Lines(self.proc)
        first = self.out.next()
        assert first.startswith("a2a-inspect hub: agents connect to ws://127.0.0.1:"), first
        self.ws_url = first.rsplit(" ", 1)[1].strip()
        self.base = self.ws_url.replace("ws://", "http://").rsplit("/", 1)[0]
        self.lines: list[str] = []

    def bridge(self, name: str = "helper") -> str:
        return f"{self.base}/agents/{name}"

    def wait_for(self, text: str) -> str:
        """Read lines until one holds ``text`` (the hub prints every frame and note)."""
        while True:
            line = self.out.next()
            self.lines.append(line)
            if text in line:
                return line

    def agents(self) -> dict[str, str]:
        with urllib.request.urlopen(f"{self.base}/agents", timeout=WAIT) as resp:  # loopback only
            return {a["name"]: a["status"] for a in json.load(resp)["agents"]}

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(subprocess.signal.SIGINT)
        try:
            code = self.proc.wait(WAIT)
        except subprocess.TimeoutExpired:
            self.proc.kill()  # never left running after the test
            raise
        assert code == 0


class Mock:
    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        self.proc = proc
        self.out = Lines(proc)


def start_mock(cli: Cli, hub: Hub, scenario: Path, *args: str, name: str = "helper") -> Mock:
    proc = subprocess.Popen(
        [*MOCK, "--ws-agent", hub.ws_url, "--name", name, "--scenario", str(scenario), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        env=cli.env,
        cwd=cli.home,
    )
    mock = Mock(proc)
    try:
        line = mock.out.next()
        assert line.startswith(f"a2a-mock: registered as ws-agent://{name}"), line
    except BaseException:
        proc.kill()
        raise
    return mock


def stop(mock: Mock) -> tuple[int, str, str]:
    proc = mock.proc
    if proc.poll() is None:
        proc.send_signal(subprocess.signal.SIGINT)
    try:
        code = proc.wait(WAIT)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise
    err = proc.stderr.read().decode() if proc.stderr else ""
    return code, mock.out.rest(), err


def _scenario_file(path: Path) -> Path:
    doc = json.loads(json.dumps(SCENARIO))
    doc["rules"].insert(0, CUT_RULE)
    path.write_text(json.dumps(doc))
    return path


@pytest.fixture
def scenario(tmp_path: Path) -> Path:
    return _scenario_file(tmp_path / "hub-tests.json")


@contextlib.contextmanager
def _hub_with_agent(cli: Cli, scenario: Path, record: Path) -> Iterator[tuple[Hub, Mock]]:
    hub = Hub(cli, "--record", str(record))
    mock = None
    try:
        mock = start_mock(cli, hub, scenario)
        yield hub, mock
    finally:
        try:
            if mock is not None:
                stop(mock)
        finally:
            hub.stop()


@pytest.fixture
def hub_and_agent(cli: Cli, scenario: Path, tmp_path: Path) -> Iterator[tuple[Hub, Mock]]:
    """A hub and its agent of the test's own, for a test that stops either."""
    with _hub_with_agent(cli, scenario, tmp_path / "hub.jsonl") as both:
        yield both


#: The tests that leave the hub and its agent as they found them (each works on tasks
#: of its own) share one of each, started once on one worker (pyproject: --dist
#: loadgroup): a hub and a mock cost ~0.65 s of CPU to start and stop.
SHARED = pytest.mark.xdist_group("hub_cli_shared")


@pytest.fixture(scope="module")
def shared_hub(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Hub, Mock]]:
    home = tmp_path_factory.mktemp("shared-hub")
    with _hub_with_agent(Cli(home), _scenario_file(home / "hub-tests.json"), home / "hub.jsonl") as both:
        yield both


@SHARED
def test_card_send_stream_and_get_through_the_bridge(cli: Cli, shared_hub: tuple[Hub, Mock]) -> None:
    hub, _mock = shared_hub
    card = cli("card", hub.bridge(), "-o", "json")
    assert card.code == 0, card
    assert card.json()["card"]["url"] == "ws-agent://helper"

    sent = cli("send", hub.bridge(), "hello", "-o", "json")
    assert sent.code == 0, sent
    task = sent.json()["task"]
    assert task["state"] == "completed"
    assert task["artifacts"][0]["text"] == "echo: hello"

    streamed = cli("send", hub.bridge(), "stream it", "--stream")
    assert streamed.code == 0, streamed
    assert "Once upon a time." in streamed.out
    assert "completed" in streamed.out

    got = cli("get", hub.bridge(), task["id"], "-o", "json")
    assert got.code == 0, got
    assert got.json()["task"]["id"] == task["id"]
    assert got.json()["task"]["state"] == "completed"

    # The hub printed each frame the agent sent for the stream (the hub is shared: these
    # words are the "stream it" rule's, which only this test sends).
    hub.wait_for("task.artifact story")
    hub.wait_for("completed: done")


@SHARED
def test_input_required_is_continued_on_the_same_task(cli: Cli, shared_hub: tuple[Hub, Mock]) -> None:
    hub, _mock = shared_hub
    asked = cli("send", hub.bridge(), "ask me", "-o", "json")
    assert asked.code == 4, asked
    task = asked.json()["task"]
    assert task["state"] == "input-required"
    answered = cli("send", hub.bridge(), "Paris", "--task-id", task["id"], "-o", "json")
    assert answered.code == 0, answered
    done = answered.json()["task"]
    assert done["id"] == task["id"]
    assert done["artifacts"][0]["text"] == "sunny in Paris"


def _sent_params(record: Path, a2a_method: str) -> dict:
    """The params of the one ``a2a_method`` request a ``--record`` file holds."""
    sent = [json.loads(line) for line in record.read_text().splitlines()]
    bodies = [json.loads(e["body"]) for e in sent if e.get("kind") == "request" and e.get("a2a_method") == a2a_method]
    assert len(bodies) == 1, bodies
    return bodies[0]["params"]


@SHARED
@pytest.mark.parametrize("stream", [True, False], ids=["stream", "send"])
def test_readmes_multi_turn_recipe_keeps_the_session(
    cli: Cli, shared_hub: tuple[Hub, Mock], tmp_path: Path, stream: bool
) -> None:
    """README's recipe: turn 2 passes turn 1's task and context ids read with jq -r. A
    0.1 stream never names the session, so the bridge's answer had contextId null and
    turn 2 sent sessionId "null"."""
    hub, _mock = shared_hub
    how = ["--stream"] if stream else []
    asked = cli("send", hub.bridge(), "ask me", *how, "-o", "json", "--record", str(tmp_path / "turn1.jsonl"))
    assert asked.code == 4, asked
    turn1 = asked.json()["task"]
    session = turn1["contextId"]
    assert isinstance(session, str) and session and session != "null", turn1
    assert _sent_params(tmp_path / "turn1.jsonl", "stream" if stream else "send")["sessionId"] == session

    answered = cli(
        "send",
        hub.bridge(),
        "Paris",
        *how,
        "--task-id",
        turn1["id"],
        "--context-id",
        session,
        "-o",
        "json",
        "--record",
        str(tmp_path / "turn2.jsonl"),
    )
    assert answered.code == 0, answered
    turn2 = _sent_params(tmp_path / "turn2.jsonl", "stream" if stream else "send")
    assert (turn2["id"], turn2["sessionId"]) == (turn1["id"], session)
    done = answered.json()["task"]
    assert (done["id"], done["contextId"], done["state"]) == (turn1["id"], session, "completed")
    assert done["artifacts"][0]["text"] == "sunny in Paris"
    # The agent got the same session on both turns: the frames the hub sent it for this
    # task, read from the hub's recording once it has printed the task's end.
    hub.wait_for(f"task.complete task {turn1['id']}")
    assert hub.record is not None
    to_agent = [json.loads(line) for line in hub.record.read_text().splitlines()]
    calls = [
        json.loads(e["text"])["params"]
        for e in to_agent
        if e.get("kind") == "ws"
        and e.get("dir") == "out"
        and e.get("rpc_method") in ("tasks/send", "tasks/sendSubscribe")
    ]
    assert [c["sessionId"] for c in calls if c["id"] == turn1["id"]] == [session, session], calls


@SHARED
def test_cancel_a_running_task(cli: Cli, shared_hub: tuple[Hub, Mock]) -> None:
    hub, _mock = shared_hub
    stream = cli.start("send", hub.bridge(), "wait", "--stream", "-o", "ndjson")
    lines = Lines(stream)
    first = json.loads(lines.next())
    assert first["status"]["state"] == "working", first
    task_id = first["taskId"]
    canceled = cli("cancel", hub.bridge(), task_id, "-o", "json")
    assert canceled.code == 0, canceled
    assert canceled.json()["task"]["state"] == "canceled"
    assert stream.wait(WAIT) == 1
    last = json.loads(lines.rest().splitlines()[-1])
    assert last["status"]["state"] == "canceled" and last["final"], last


@SHARED
def test_errors_reach_the_command(cli: Cli, shared_hub: tuple[Hub, Mock]) -> None:
    hub, _mock = shared_hub
    failed = cli("send", hub.bridge(), "fail now")
    assert failed.code == 3, failed
    assert "-32603" in failed.err and "the model is down" in failed.err

    nobody = cli("send", hub.bridge("nobody"), "hello")
    assert nobody.code == 3, nobody
    assert "-32013" in nobody.err and "Agent not found" in nobody.err

    unknown = cli("get", hub.bridge(), "no-such-task")
    assert unknown.code == 3, unknown
    assert "-32001" in unknown.err


@SHARED
def test_a_socket_dropped_mid_task_fails_it_with_a_note(cli: Cli, shared_hub: tuple[Hub, Mock]) -> None:
    hub, mock = shared_hub
    cut = cli("send", hub.bridge(), "cut now", "--stream")
    assert cut.code == 1, cut
    assert "failed" in cut.out
    assert "disconnected" in cut.out
    hub.wait_for("disconnected")
    # The mock comes back, as a real agent does, and takes the next task.
    assert mock.out.next().startswith("a2a-mock: dropped the socket as scripted")
    assert mock.out.next().startswith("a2a-mock: registered as ws-agent://helper")
    again = cli("send", hub.bridge(), "hello")
    assert again.code == 0, again


def test_an_agent_that_sends_no_heartbeat_goes_stale(cli: Cli, scenario: Path) -> None:
    hub = Hub(cli, "--heartbeat-timeout", "1")
    mock = None
    try:
        mock = start_mock(cli, hub, scenario, "--heartbeat", "0")
        line = hub.wait_for("marked stale")
        assert "helper" in line
        assert hub.agents() == {"helper": "stale"}
        # Heard from again (any frame counts), it is online.
        assert cli("send", hub.bridge(), "hello").code == 0
        assert hub.agents() == {"helper": "online"}
    finally:
        try:
            if mock is not None:
                stop(mock)
        finally:
            hub.stop()


@SHARED
def test_a_name_already_taken_stops_the_second_mock_with_a_reason(
    cli: Cli, shared_hub: tuple[Hub, Mock], scenario: Path
) -> None:
    hub, _mock = shared_hub
    second = subprocess.run(
        [*MOCK, "--ws-agent", hub.ws_url, "--name", "helper", "--scenario", str(scenario)],
        capture_output=True,
        timeout=WAIT,
        env=cli.env,
        cwd=cli.home,
    )
    assert second.returncode == 1
    assert "refused to register 'helper'" in second.stderr.decode()


def test_the_mock_stops_cleanly_and_the_hub_frees_the_name(cli: Cli, hub_and_agent) -> None:
    hub, mock = hub_and_agent
    code, out, err = stop(mock)
    assert code == 0, err
    assert "stopped" in out
    hub.wait_for("its name is free again")
    assert hub.agents() == {"helper": "offline"}


def test_hub_usage_errors(cli: Cli) -> None:
    bad = cli("hub", "--headless", "--route", "oops")
    assert bad.code == 2 and "NAME=URL" in bad.err
    in_ui = cli("hub", "--route", "oops")  # the TUI checks its options before it starts
    assert in_ui.code == 2 and "NAME=URL" in in_ui.err
    under = cli("hub", "--headless", "--ws-path", "/agents/x")
    assert under.code == 2 and "/agents" in under.err
    lonely = subprocess.run(
        [*MOCK, "--ws-agent", "ws://127.0.0.1:1/ws"], capture_output=True, timeout=WAIT, env=cli.env, cwd=cli.home
    )
    assert lonely.returncode == 1 and b"go together" in lonely.stderr


@SHARED
def test_a_hub_recording_is_served_back_exported_and_diffed(
    cli: Cli, scenario: Path, tmp_path: Path, shared_hub: tuple[Hub, Mock]
) -> None:
    record = tmp_path / "hub.jsonl"
    hub = Hub(cli, "--record", str(record))
    mock = start_mock(cli, hub, scenario)
    try:
        assert cli("send", hub.bridge(), "hello").code == 0
        assert cli("send", hub.bridge(), "stream it", "--stream").code == 0
        asked = cli("send", hub.bridge(), "ask me", "-o", "json")
        assert asked.code == 4, asked
        assert cli("send", hub.bridge(), "Paris", "--task-id", asked.json()["task"]["id"]).code == 0
        assert cli("send", hub.bridge(), "fail now").code == 3
    finally:
        try:
            stop(mock)
        finally:
            hub.stop()

    # a2a-mock --replay serves the bridge's answers back, at the bridge's paths.
    proc = subprocess.Popen(
        [*MOCK, "--replay", str(record), "--port", "0", "--speed", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        env=cli.env,
        cwd=cli.home,
    )
    served = Lines(proc)
    try:
        banner = served.next()
        assert "5 recorded requests, dialect 0.1" in banner, banner
        base = banner.rsplit(" ", 1)[1].strip()
        assert base.endswith("/agents/helper"), banner
        card = cli("card", base, "-o", "json")
        assert card.code == 0 and card.json()["card"]["url"] == "ws-agent://helper", card
        sent = cli("send", base, "hello", "-o", "json")
        assert sent.code == 0 and sent.json()["task"]["artifacts"][0]["text"] == "echo: hello", sent
        streamed = cli("send", base, "stream it", "--stream")
        assert streamed.code == 0 and "Once upon a time." in streamed.out, streamed
        asked = cli("send", base, "ask me", "-o", "json")
        assert asked.code == 4, asked
        answered = cli("send", base, "Paris", "--task-id", asked.json()["task"]["id"], "-o", "json")
        assert answered.code == 0 and answered.json()["task"]["artifacts"][0]["text"] == "sunny in Paris", answered
        failed = cli("send", base, "fail now")
        assert failed.code == 3 and "the model is down" in failed.err, failed
    finally:
        proc.send_signal(subprocess.signal.SIGINT)
        proc.wait(WAIT)

    # Exports read the same exchanges.
    exported = cli("export", str(record), "--scenario", "-")
    assert exported.code == 0, exported
    assert "^stream\\ it$" in exported.out and "Hub Test Agent" in exported.out
    assert "hubBridge" not in exported.out
    har = cli("export", str(record), "--har", "-")
    assert har.code == 0, har
    urls = [e["request"]["url"] for e in json.loads(har.out)["log"]["entries"]]
    assert urls and all(u.startswith(hub.base + "/agents/helper") for u in urls), urls

    # replay --against a live hub with the same agent (the shared pair, another hub and
    # mock of the same scenario): the answers are the same.
    live, _again = shared_hub
    diff = cli("replay", str(record), "--against", live.bridge())
    assert diff.code == 0, diff
    assert "result: equivalent" in diff.out


def _peak_rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise AssertionError("no VmHWM in /proc")


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads the hub's peak memory from /proc")
async def test_a_50_mb_frame_is_refused_from_its_header_and_the_hub_goes_on(cli: Cli, scenario: Path) -> None:
    from hub_helpers import RawAgent

    hub = Hub(cli)
    try:
        async with RawAgent(hub.ws_url) as agent:
            assert "result" in await agent.register("big")
            before = _peak_rss_kib(hub.proc.pid)
            pad = "x" * (50 * 1024 * 1024)
            try:
                await agent.send('{"jsonrpc": "2.0", "method": "heartbeat", "params": {"pad": "' + pad + '"}}')
            except Exception:  # the hub may close the socket while the frame is still going out
                pass
            del pad
            code, _reason = await agent.closed()
            assert code == 1009
        hub.wait_for("closed the socket (1009)")
        # The payload was never read into memory: the peak grew by far less than 50 MB.
        grown = _peak_rss_kib(hub.proc.pid) - before
        assert grown < 20 * 1024, f"the hub's peak RSS grew by {grown} KiB"
        # And the hub serves the next agent as if nothing happened.
        mock = start_mock(cli, hub, scenario)
        try:
            assert cli("send", hub.bridge(), "hello").code == 0
        finally:
            stop(mock)
    finally:
        hub.stop()


async def test_a_hostile_agents_frames_print_as_visible_text(cli: Cli) -> None:
    from hub_helpers import RawAgent

    hub = Hub(cli)
    try:
        async with RawAgent(hub.ws_url) as agent:
            await agent.register(
                "evil",
                {
                    "name": "evil",
                    "description": "\x1b[2J\x1b]0;pwned\x07",
                    "version": "1",
                    "capabilities": {},
                    "skills": [],
                },
            )
            await agent.send("\x1b[31m{not json\u202e")
            assert (await agent.recv())["error"]["code"] == -32700
            answer = await agent.call("task.status", {"id": "never-sent\x1b[1m", "status": {"state": "working"}})
            assert answer["error"]["code"] == -32001
        hub.wait_for("invalid frame")
        line = hub.wait_for("never-sent")
        hub.stop()
        printed = "".join(hub.lines) + hub.out.rest()
        assert "\x1b" not in printed and "\u202e" not in printed and "\x07" not in printed
        assert "never-sent\x1b" not in line and "never-sent" in line, line
    finally:
        hub.stop()
