"""``a2a-inspect check``: well-behaved agents (the Python a2a-sdk, the JS SDK, a2a-mock)
pass on every binding and dialect they serve, every skip explained; a broken agent fails
where it is broken and only there; the 0.1 seed profiles are told what they leave out
without failing for it. Each agent is started once per session, and each check run
makes only a few dozen requests, so the whole module takes seconds."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest

from inspector.check.context import MAX_REQUESTS
from inspector.cli import main
from mock_agent import MockAgent

FIXTURES = Path(__file__).parent / "fixtures" / "check"

# The peers' "hold" keeps a task working until it is canceled: the cancel of (and the
# subscribe to) a running task is then judged, not raced against the task's end. Their
# "ask" asks for input: the multi-turn probe runs.
HOLD = ("--running-text", "hold", "--ask", "ask")


def check(capsys: pytest.CaptureFixture[str], url: str, *args: str) -> tuple[int, dict]:
    code = main(["check", url, "-o", "json", *args])
    out = capsys.readouterr().out
    return code, json.loads(out)


def failures(doc: dict) -> set[tuple[str, str | None]]:
    return {(r["probe"], r["binding"]) for r in doc["results"] if r["outcome"] == "fail"}


def assert_clean(code: int, doc: dict) -> None:
    """Nothing failed, and every skip says why."""
    failed = [(r["probe"], r["binding"], r["reason"]) for r in doc["results"] if r["outcome"] == "fail"]
    assert failed == [] and code == 0, failed
    assert all(r["reason"] for r in doc["results"] if r["outcome"] == "skip")
    assert doc["summary"]["passed"] > 0


def ran(doc: dict, probe: str) -> set[str | None]:
    return {r["binding"] for r in doc["results"] if r["probe"] == probe and r["outcome"] == "pass"}


def assert_takes_any_media_type(doc: dict) -> None:
    """The peers take a part of any media type, which A2A allows: errors.content-type has
    no refusal to judge on any binding, and says so."""
    skipped = {
        r["binding"]: r["reason"]
        for r in doc["results"]
        if r["probe"] == "errors.content-type" and r["outcome"] == "skip"
    }
    assert set(skipped) == set(doc["bindings"])
    assert all("takes a file part of application/x-a2a-inspect-unsupported" in why for why in skipped.values())


# ---------------------------------------------------------------- well-behaved agents


@pytest.mark.parametrize("dialect", ["1.0", "0.3"])
def test_sdk_agent_passes_on_every_binding(
    capsys: pytest.CaptureFixture[str], sdk_agent_grpc: tuple[str, str], dialect: str
) -> None:
    code, doc = check(capsys, sdk_agent_grpc[0], "--dialect", dialect, *HOLD)
    assert_clean(code, doc)
    assert set(doc["bindings"]) == {"jsonrpc", "rest", "grpc"}
    for probe in (
        "card.extended",
        "messages.send-text",
        "messages.stream-text",
        "messages.blocking",
        "messages.file-uri",
        "tasks.cancel-running",
        "tasks.subscribe-running",
        "tasks.cancel-finished",
        "tasks.unknown-id",
        "tasks.get-history",
        "multi-turn.continue",
    ):
        assert ran(doc, probe) == {"jsonrpc", "rest", "grpc"}, probe
    assert ran(doc, "errors.unknown-method") == {"jsonrpc"}
    assert ran(doc, "errors.rest-invalid-json") == {"rest"}
    assert ran(doc, "errors.grpc-unparsable") == ran(doc, "errors.grpc-unknown-method") == {"grpc"}
    assert_takes_any_media_type(doc)
    assert ran(doc, "card.interfaces") == ran(doc, "bindings.same-task") == {None}
    # A few requests a probe, a few dozen a binding.
    assert max(len(r["exchanges"]) for r in doc["results"]) <= MAX_REQUESTS
    assert doc["requests"] < 40 * len(doc["bindings"])


def test_sdk_agent_pure_v10_passes(capsys: pytest.CaptureFixture[str], sdk_agent_v10: str) -> None:
    code, doc = check(capsys, sdk_agent_v10, *HOLD)
    assert_clean(code, doc)
    assert doc["dialect"] == "1.0"
    assert ran(doc, "tasks.subscribe-finished") == set(doc["bindings"])


@pytest.mark.parametrize("dialect", ["1.0", "0.3"])
def test_js_agent_passes_on_every_binding(
    capsys: pytest.CaptureFixture[str], js_agent_compat: object, dialect: str
) -> None:
    code, doc = check(capsys, js_agent_compat.base, "--dialect", dialect, *HOLD)  # type: ignore[attr-defined]
    assert set(doc["bindings"]) == {"jsonrpc", "rest", "grpc"}
    if dialect == "1.0":
        # @a2a-js/sdk 1.3.0 answers a request whose "jsonrpc" is not "2.0" with -32602
        # (its RequestMalformedError maps to INVALID_PARAMS), where JSON-RPC 2.0 says
        # -32600: the one true finding, and the only failure.
        assert failures(doc) == {("errors.wrong-envelope", "jsonrpc")}
        assert code == 1
        doc["results"] = [r for r in doc["results"] if r["probe"] != "errors.wrong-envelope"]
        code = 0
    assert_clean(code, doc)
    for probe in ("tasks.cancel-running", "tasks.subscribe-running", "multi-turn.continue"):
        assert ran(doc, probe) == {"jsonrpc", "rest", "grpc"}, probe
    # grpc-js answers bytes it cannot parse INTERNAL, a2a-sdk's grpcio UNKNOWN: both refuse.
    assert ran(doc, "errors.grpc-unparsable") == ran(doc, "errors.grpc-unknown-method") == {"grpc"}
    assert_takes_any_media_type(doc)


def test_js_agent_pure_v10(capsys: pytest.CaptureFixture[str], js_agent_v10: object) -> None:
    code, doc = check(capsys, js_agent_v10.base, *HOLD)  # type: ignore[attr-defined]
    assert failures(doc) == {("errors.wrong-envelope", "jsonrpc")}  # as above
    assert ran(doc, "messages.stream-text") == {"jsonrpc", "rest", "grpc"}


@pytest.fixture(scope="module")
def echo_mock() -> Iterator[MockAgent]:
    # Echoes in chunks; "hold" waits (until canceled), "ask" asks: as the peers do.
    from proxy_helpers import MOCK_SCENARIO

    card = {**MOCK_SCENARIO["card"], "capabilities": {"streaming": True, "pushNotifications": True}}
    with MockAgent({**MOCK_SCENARIO, "card": card}, grpc_port=0) as mock:
        yield mock


@pytest.mark.parametrize("dialect", ["1.0", "0.3"])
def test_mock_passes_on_every_binding(capsys: pytest.CaptureFixture[str], echo_mock: MockAgent, dialect: str) -> None:
    code, doc = check(capsys, echo_mock.base_url, "--dialect", dialect, *HOLD)
    assert_clean(code, doc)
    assert set(doc["bindings"]) == {"jsonrpc", "rest", "grpc"}
    for probe in (
        "tasks.cancel-running",
        "tasks.subscribe-running",
        "multi-turn.continue",
        "push.config",
        "push.notification",
    ):
        assert ran(doc, probe) == {"jsonrpc", "rest", "grpc"}, probe
    assert ran(doc, "errors.grpc-unparsable") == ran(doc, "errors.grpc-unknown-method") == {"grpc"}
    assert_takes_any_media_type(doc)


# ---------------------------------------------------------------- broken agents


@pytest.fixture(scope="module")
def broken_mock(request: pytest.FixtureRequest) -> Iterator[MockAgent]:
    # One mock a scenario, on every binding it serves, for both dialects' checks.
    with MockAgent(str(FIXTURES / f"{request.param}.yaml"), grpc_port=0) as mock:
        yield mock


EVERY_BINDING = {"jsonrpc", "rest", "grpc"}


@pytest.mark.parametrize(
    ("broken_mock", "probes"),
    [
        ("stream-no-final", {"messages.stream-text"}),  # a stream without a final event
        ("unknown-artifact", {"messages.stream-text"}),  # a chunk appended to an artifact never started
        ("lies-streaming", {"messages.stream-text"}),  # a card that declares streaming it refuses
        ("blocking-early", {"messages.blocking"}),  # a blocking send answered with the task working
        ("cancel-ignored", {"tasks.cancel-running"}),  # a cancel answered "working", the task goes on
        ("cancel-pretended", {"tasks.cancel-running"}),  # a cancel answered "canceled", the task goes on
        # an unknown task id and a cancel of a finished task answered -32603
        ("wrong-codes", {"tasks.unknown-id", "tasks.cancel-finished"}),
    ],
    indirect=["broken_mock"],
    scope="module",
)
@pytest.mark.parametrize("dialect", ["1.0", "0.3"])
def test_broken_mock_fails_where_broken_only(
    capsys: pytest.CaptureFixture[str], broken_mock: MockAgent, probes: set[str], dialect: str
) -> None:
    # Every group runs: "and no other" is checked against the whole battery.
    code, doc = check(capsys, broken_mock.base_url, "--dialect", dialect, "--running-text", "hold")
    assert code == 1
    assert set(doc["bindings"]) == EVERY_BINDING
    assert failures(doc) == {(probe, binding) for probe in probes for binding in EVERY_BINDING}
    failed = next(r for r in doc["results"] if r["outcome"] == "fail")
    assert failed["rule"] and failed["section"] and failed["exchange"] in failed["exchanges"]


@pytest.mark.parametrize("scenario", ["cancel-ignored", "cancel-pretended"])
def test_a_cancel_not_carried_out_is_told_as_such(capsys: pytest.CaptureFixture[str], scenario: str) -> None:
    # The cancel probe says what the get after the cancel found; the subscription,
    # which needs the cancel to end its task, is skipped, and says why.
    # (The task is submitted or already working when the cancel comes: either is running.)
    answered = "(submitted|working)" if scenario == "cancel-ignored" else "canceled"
    with MockAgent(str(FIXTURES / f"{scenario}.yaml")) as mock:
        _code, doc = check(capsys, mock.base_url, "--binding", "jsonrpc", "--only", "tasks", "--running-text", "hold")
    result = {r["probe"]: r for r in doc["results"]}
    cancel = result["tasks.cancel-running"]
    assert cancel["outcome"] == "fail"
    assert re.search(
        f"answered with the task {answered}.* a get after it says (submitted|working)", cancel["reason"]
    ), cancel["reason"]
    assert "This is a terminal state." in cancel["rule"]
    subscribe = result["tasks.subscribe-running"]
    assert subscribe["outcome"] == "skip" and "tasks.cancel-running judges the cancel" in subscribe["reason"]


@pytest.mark.parametrize(
    ("recode", "probe", "bindings"),
    [
        # Each wrong code alone, on every binding where the probe runs.
        ({"code": -32001, "methods": ["get"], "as": -32603}, "tasks.unknown-id", EVERY_BINDING),
        (
            {"code": -32002, "methods": ["cancel"], "as": {"code": -32603, "message": "Internal error"}},
            "tasks.cancel-finished",
            EVERY_BINDING,
        ),
        ({"code": -32004, "methods": ["resubscribe"], "as": -32603}, "tasks.subscribe-finished", EVERY_BINDING),
        # The JSON-RPC envelope's errors (the errors group runs on JSON-RPC only).
        ({"code": -32700, "as": -32600}, "errors.invalid-json", {"jsonrpc"}),
        ({"code": -32600, "as": -32602}, "errors.wrong-envelope", {"jsonrpc"}),
        ({"code": -32601, "as": -32603}, "errors.unknown-method", {"jsonrpc"}),
        ({"code": -32602, "as": -32603}, "errors.invalid-params", {"jsonrpc"}),
    ],
)
def test_a_wrong_code_fails_its_probe_only(
    capsys: pytest.CaptureFixture[str], recode: dict, probe: str, bindings: set[str]
) -> None:
    import yaml

    scenario = yaml.safe_load((FIXTURES / "wrong-codes.yaml").read_text(encoding="utf-8"))
    with MockAgent({**scenario, "recode": [recode]}, grpc_port=0) as mock:
        code, doc = check(capsys, mock.base_url, "--dialect", "1.0", "--running-text", "hold")
    assert code == 1
    assert failures(doc) == {(probe, binding) for binding in bindings}
    wrong = {**recode, "as": {"code": recode["as"]}} if isinstance(recode["as"], int) else recode
    assert all(str(wrong["as"]["code"]) in r["reason"] for r in doc["results"] if r["outcome"] == "fail")


def test_blocking_send_answered_early_skips_what_needs_a_finished_task(capsys: pytest.CaptureFixture[str]) -> None:
    with MockAgent(str(FIXTURES / "blocking-early.yaml")) as mock:
        _code, doc = check(capsys, mock.base_url, "--binding", "jsonrpc", "--only", "tasks", "--running-text", "hold")
    skipped = {r["probe"]: r["reason"] for r in doc["results"] if r["outcome"] == "skip"}
    assert "leaves the task working" in skipped["tasks.get"]
    assert failures(doc) == set()
    assert ran(doc, "tasks.cancel-running") == ran(doc, "tasks.subscribe-running") == {"jsonrpc"}


# ---------------------------------------------------------------- the 0.1 seeds


@pytest.mark.parametrize(
    ("profile", "not_implemented"),
    [
        # (society's tasks name no session: its tasks.list is skipped for that, before any list.)
        ("society", {"tasks.get", "tasks.get-history", "tasks.unknown-id", "tasks.cancel-finished"}),
        # The draft has no tasks/list (Society AI's agents added it).
        ("society-ai", set()),
        ("draft", {"tasks.list"}),
        ("orloj", set()),  # its tasks name no session either
    ],
)
def test_seed_profiles_are_told_what_they_leave_out(
    capsys: pytest.CaptureFixture[str], profile: str, not_implemented: set[str]
) -> None:
    # Without multi-turn: it would try the card's skill examples, and Orloj's third one
    # ("slow summary please") takes 40 s, so the probe waited out its 10 s for nothing this
    # test reads (test_check_multiturn covers a slow example, on a short budget).
    with MockAgent(profile=profile) as mock:
        code, doc = check(capsys, mock.url, "--skip", "multi-turn")
    assert_clean(code, doc)
    assert doc["dialect"] == "0.1" and doc["bindings"] == ["jsonrpc"]
    left_out = {r["probe"] for r in doc["results"] if r["outcome"] == "skip" and "-32601" in r["reason"]}
    assert left_out == not_implemented
    assert ran(doc, "card.interfaces") == {None}
    assert ran(doc, "messages.send-text") == {"jsonrpc"}


# ---------------------------------------------------------------- the command


def test_text_report_quotes_the_rule_of_a_failure(capsys: pytest.CaptureFixture[str]) -> None:
    with MockAgent(str(FIXTURES / "stream-no-final.yaml")) as mock:
        code = main(["check", mock.base_url, "--binding", "jsonrpc", "--only", "messages"])
    out = capsys.readouterr().out
    assert code == 1
    assert "✗ messages.stream-text" in out
    assert "The stream should complete when the Task if in an interrupted or terminal state." in out
    assert out.rstrip().endswith("1 failed, 0 skipped, 6 passed")


def test_junit_has_a_test_case_a_probe(capsys: pytest.CaptureFixture[str], echo_mock: MockAgent) -> None:
    code = main(["check", echo_mock.base_url, "--binding", "rest", "-o", "junit"])
    root = ET.fromstring(capsys.readouterr().out)
    cases = root.findall("./testsuite/testcase")
    assert code == 0
    assert {c.get("name") for c in cases} >= {"messages.send-text [rest]", "card.lint [agent]"}
    skipped = [c for c in cases if c.find("skipped") is not None]
    assert skipped and all(c.find("skipped").get("message") for c in skipped)  # type: ignore[union-attr]
    assert root.find("testsuite").get("failures") == "0"  # type: ignore[union-attr]


def test_unreachable_agent_exits_3(capsys: pytest.CaptureFixture[str]) -> None:
    from ports import refused_port

    with refused_port() as port:
        code = main(["check", f"http://127.0.0.1:{port}", "-o", "json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 3 and doc["unreachable"] and doc["results"] == []


def test_unknown_group_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "http://127.0.0.1:9", "--only", "messagez"]) == 2
    assert "no probe or group 'messagez'" in capsys.readouterr().err


HOLDING = {
    "name": "check-holding",
    "card": {
        "name": "Holding Agent",
        "description": "Never finishes on its own.",
        "version": "1.0.0",
        "capabilities": {"streaming": True},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "hold", "name": "Hold", "description": "Holds.", "tags": ["hold"]}],
    },
    "rules": [{"script": [{"status": "working"}, {"hold": "never", "timeout": 60}, {"status": "completed"}]}],
}


def test_max_time_bounds_the_whole_check(capsys: pytest.CaptureFixture[str]) -> None:
    # The agent never finishes a task: the probe waiting on one is cut at --max-time,
    # and every probe after it is skipped, not run.
    with MockAgent(HOLDING) as mock:
        code, doc = check(
            capsys, mock.base_url, "--binding", "jsonrpc", "--max-time", "1", "--only", "tasks.get,tasks.get-history"
        )
        assert mock.release("never") == 1  # the one task of the cut probe; none after it
    assert code == 0
    reasons = [r["reason"] for r in doc["results"]]
    assert reasons == ["--max-time ran out during this probe", "not run: --max-time ran out"]


# ---------------------------------------------------------------- the proxy's faults


@pytest.mark.parametrize(
    ("rule", "failing", "said"),
    [
        # A wrong code for an unknown task. A rule's text is searched in the request's body
        # (over gRPC its ProtoJSON), and in the path of REST's GET, which names the id there.
        (
            "{method: get, text: a2a-inspect-check-unknown}\n  fault: {error: {code: -32603, message: Internal error}}",
            {("tasks.unknown-id", b) for b in EVERY_BINDING},
            "error -32603",
        ),
        # A card that declares push notifications, and an agent that refuses a config.
        (
            "{method: push-set}\n  fault: {error: {code: -32003, message: Push notifications are not supported}}",
            {("push.config", b) for b in EVERY_BINDING},
            "error -32003",
        ),
        # Every cancel answered with an internal error: the cancel probes fail; the
        # subscription, which needs a cancel to end, is skipped.
        (
            "{method: cancel}\n  fault: {error: -32603}",
            {
                (p, b)
                for p in ("tasks.unknown-id", "tasks.cancel-finished", "tasks.cancel-running")
                for b in EVERY_BINDING
            },
            "error -32603",
        ),
        # A stream cut after its first event (no final event), and one with an event cut in half.
        (
            "{method: stream}\n  fault: {drop_after: 1}",
            {("messages.stream-text", b) for b in EVERY_BINDING},
            "the stream",
        ),
        (
            "{method: stream}\n  fault: {corrupt_chunk: 2}",
            {("messages.stream-text", b) for b in EVERY_BINDING},
            "decode-error",
        ),
    ],
    ids=["unknown-id-wrong-code", "push-config-refused", "cancel-errors", "stream-dropped", "stream-corrupted"],
)
async def test_proxy_fault_in_front_of_a_good_agent_fails_its_probes_only(
    tmp_path: Path, echo_mock: MockAgent, rule: str, failing: set[tuple[str, str]], said: str
) -> None:
    # The proxy's fault rules in front of a2a-mock, which passes every probe without them
    # (test_mock_passes_on_every_binding): the probes the fault breaks fail, on every
    # binding the proxy relays (its gRPC listener included), and no other.
    from inspector.check import CheckOptions, run_check
    from inspector.proxy.faults import load_rules
    from inspector.session import Session, TaskTracker
    from proxy_helpers import proxy_to

    rules = tmp_path / "faults.yaml"
    rules.write_text(f"- match: {rule}\n", encoding="utf-8")
    async with proxy_to(("/", echo_mock.base_url), rules=load_rules(rules)) as (_proxy, server):
        session = Session(keep=0, store=None)
        options = CheckOptions(url=server.base_url, running_text="hold", ask="ask")
        report = await run_check(options, session, TaskTracker(session))
    assert set(report.bindings) == EVERY_BINDING
    failed = {(r.probe.id, r.binding): r.reason for r in report.results if r.outcome == "fail"}
    assert set(failed) == failing
    assert all(said in reason for reason in failed.values())


def test_record_holds_every_exchange_of_the_check(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from inspector.session.reader import load_recording

    path = tmp_path / "check.jsonl"
    with MockAgent(str(FIXTURES / "stream-no-final.yaml")) as mock:
        code, doc = check(capsys, mock.base_url, "--binding", "jsonrpc", "--only", "messages", "--record", str(path))
    assert code == 1
    events = list(load_recording(path).session.events)
    recorded = {e.exchange for e in events if e.kind.value == "request"}
    failed = next(r for r in doc["results"] if r["outcome"] == "fail")
    assert set(failed["exchanges"]) <= recorded
    assert any(e.seq == failed["seq"] for e in events)


def test_a_spelling_no_dialect_has_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "http://127.0.0.1:9", "--method-name", "get=tasks/fetch"]) == 2
    assert "tasks/fetch" in capsys.readouterr().err


async def test_a_binding_that_loses_tasks_fails_the_equivalence(tmp_path: Path, echo_mock: MockAgent) -> None:
    # Through the proxy, JSON-RPC's tasks/get says "not found" (its body names the id;
    # REST's GET has no body): the task made over one binding is not the same over both.
    from inspector.check import CheckOptions, run_check
    from inspector.proxy.faults import load_rules
    from inspector.session import Session, TaskTracker
    from proxy_helpers import proxy_to

    rules = tmp_path / "faults.yaml"
    rules.write_text(
        "- match: {method: get, text: '\"id\"'}\n  fault: {error: {code: -32001, message: Task not found}}\n",
        encoding="utf-8",
    )
    async with proxy_to(("/", echo_mock.base_url), rules=load_rules(rules)) as (_proxy, server):
        session = Session(keep=0, store=None)
        report = await run_check(CheckOptions(url=server.base_url, only=("bindings",)), session, TaskTracker(session))
    assert {"jsonrpc", "rest"} <= set(report.bindings)
    (result,) = report.results
    assert result.outcome == "fail" and "was answered over jsonrpc with error -32001" in result.reason


def test_agent_text_in_a_report_is_shown_literally(capsys: pytest.CaptureFixture[str]) -> None:
    # An agent's error message with terminal escapes and a line break: the text report
    # shows them as visible escapes on one line, never as control bytes.
    scenario = {
        "name": "escapes",
        "card": {
            "name": "Escaping Agent",
            "description": "Says odd things.",
            "version": "1.0.0",
            "capabilities": {"streaming": True},
            "defaultInputModes": ["text/plain"],
            "defaultOutputModes": ["text/plain"],
            "skills": [{"id": "x", "name": "X", "description": "X.", "tags": ["x"]}],
        },
        "rules": [
            {
                "when": {"method": "stream"},
                "script": [{"error": {"code": -32004, "message": "\x1b]0;owned\x07\x1b[31mred\nsecond line"}}],
            }
        ],
    }
    with MockAgent(scenario) as mock:
        code = main(["check", mock.base_url, "--binding", "jsonrpc", "--only", "messages.stream-text"])
    out = capsys.readouterr().out
    assert code == 1
    assert "\x1b" not in out and "\x07" not in out
    reason = next(line for line in out.splitlines() if "-32004" in line)
    assert "red" in reason and "second line" in reason


@pytest.mark.parametrize("dialect", ["1.0", "0.3"])
def test_an_extended_card_declared_but_missing_fails_card_extended(
    capsys: pytest.CaptureFixture[str], dialect: str
) -> None:
    # a2a-mock answers -32007 for an extended card its card declares but its scenario lacks.
    from proxy_helpers import MOCK_SCENARIO

    card = {
        **MOCK_SCENARIO["card"],
        "capabilities": {"streaming": True, "extendedAgentCard": True},
        "supportsAuthenticatedExtendedCard": True,
    }
    with MockAgent({**MOCK_SCENARIO, "card": card}, grpc_port=0) as mock:
        code, doc = check(capsys, mock.base_url, "--dialect", dialect, *HOLD)
    assert code == 1
    assert failures(doc) == {("card.extended", binding) for binding in EVERY_BINDING}
    assert all("-32007" in r["reason"] for r in doc["results"] if r["outcome"] == "fail")


def test_the_text_report_says_a_skip_once_for_every_binding_it_applies_to(
    capsys: pytest.CaptureFixture[str], echo_mock: MockAgent
) -> None:
    # A probe of one binding is skipped on the two others for one reason: one line.
    code = main(["check", echo_mock.base_url, "--only", "errors"])
    text = capsys.readouterr().out
    assert code == 0, text
    lines = [line for line in text.splitlines() if "errors.grpc-unparsable" in line]
    assert len(lines) == 2, text  # the skip (both bindings) and the pass on grpc
    assert "[jsonrpc, rest]" in lines[0] and "only on the grpc binding" in text
    assert text.count("only on the jsonrpc binding") == 4  # invalid-json, envelope, method, params
