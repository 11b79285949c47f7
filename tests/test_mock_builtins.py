"""Every built-in scenario over real HTTP, in every dialect, asserted on the wire.

One mock per scenario serves all three dialects at once (``dialect="all"``); each test
speaks one dialect to it. Scripted delays run at 1/100 speed.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator

import httpx
import pytest

from inspector.protocol import models as m
from inspector.protocol.methods import Method
from mock_agent import MockAgent
from test_mock_support import DIALECT_NAMES, SSE, Wire, wire_state

FAST = 0.01


@pytest.fixture(scope="module")
def client() -> Iterator[httpx.Client]:
    with httpx.Client(timeout=10) as c:
        yield c


def _mock(name: str) -> Iterator[MockAgent]:
    with MockAgent(name, dialect="all", time_scale=FAST) as mock:
        yield mock


@pytest.fixture(scope="module")
def echo() -> Iterator[MockAgent]:
    yield from _mock("echo")


@pytest.fixture(scope="module")
def streaming() -> Iterator[MockAgent]:
    yield from _mock("streaming")


@pytest.fixture(scope="module")
def asking() -> Iterator[MockAgent]:
    yield from _mock("input-required")


@pytest.fixture(scope="module")
def errors_mock() -> Iterator[MockAgent]:
    yield from _mock("errors")


@pytest.fixture(scope="module")
def slow() -> Iterator[MockAgent]:
    yield from _mock("slow")


@pytest.fixture(scope="module")
def large() -> Iterator[MockAgent]:
    yield from _mock("large-artifact")


@pytest.fixture(scope="module")
def parts_mock() -> Iterator[MockAgent]:
    yield from _mock("files-and-data")


@pytest.fixture(scope="module")
def demo() -> Iterator[MockAgent]:
    yield from _mock("demo")


dialects = pytest.mark.parametrize("dialect", DIALECT_NAMES)


def events(w: Wire, evs: list[SSE]) -> list[m.StreamEvent]:
    """Each SSE event decoded by the dialect codec: the inspector must be able to read it."""
    assert evs and all(ev.data is not None for ev in evs)
    return [w.decode(ev) for ev in evs]


def states(evs: list[m.StreamEvent]) -> list[str]:
    return [e.status.state.value for e in evs if isinstance(e, (m.Task, m.TaskStatusUpdateEvent))]


# ----------------------------------------------------------------------- echo


@dialects
def test_echo_send_returns_the_completed_task(echo: MockAgent, client: httpx.Client, dialect: str) -> None:
    w = Wire(client, echo.url, dialect)
    body = w.send("hello mock")
    task = w.task_of(body)
    assert w.state_of(task) == wire_state(dialect, "completed")
    assert w.artifact_text(task) == "echo: hello mock"
    # the user's message and the "echoing..." status message are history; "done" is the status
    assert [w.text_parts(h) for h in task["history"]] == [["hello mock"], ["echoing..."]]
    assert w.text_parts(task["status"]["message"]) == ["done"]
    if dialect == "0.1":
        assert task["artifacts"][0]["parts"][0]["type"] == "text" and "sessionId" in task
    elif dialect == "0.3":
        assert task["kind"] == "task" and task["artifacts"][0]["artifactId"]
    else:
        assert "task" in body["result"] and task["history"][0]["role"] == "ROLE_USER"


@dialects
def test_echo_stream_events_in_order(echo: MockAgent, client: httpx.Client, dialect: str) -> None:
    w = Wire(client, echo.url, dialect)
    response, evs = w.stream("stream me")
    assert response.headers["content-type"] == "text/event-stream; charset=utf-8"
    decoded = events(w, evs)
    assert states(decoded) == ["submitted", "working", "completed"]
    artifacts = [e for e in decoded if isinstance(e, m.TaskArtifactUpdateEvent)]
    assert [p.text for a in artifacts for p in a.artifact.parts] == ["echo: stream me"]
    results = [w.result_of(ev) for ev in evs]
    if dialect == "1.0":
        assert list(results[0]) == ["task"] and list(results[-1]) == ["statusUpdate"]
        assert "final" not in results[-1]["statusUpdate"]
    else:
        assert results[-1]["final"] is True and results[1]["final"] is False
    if dialect == "0.3":
        assert [r["kind"] for r in results] == ["task", "status-update", "artifact-update", "status-update"]


@dialects
def test_echo_get_honours_history_length(echo: MockAgent, client: httpx.Client, dialect: str) -> None:
    w = Wire(client, echo.url, dialect)
    task_id = w.task_of(w.send("remember me"))["id"]
    full = w.get(task_id)["result"]
    assert len(full["history"]) == 2
    last = w.get(task_id, history_length=1)["result"]
    assert [w.text_parts(h) for h in last["history"]] == [["echoing..."]]
    assert "history" not in w.get(task_id, history_length=0)["result"]


# ----------------------------------------------------------------------- streaming


@dialects
def test_streaming_sends_twenty_chunks_of_one_artifact(
    streaming: MockAgent, client: httpx.Client, dialect: str
) -> None:
    w = Wire(client, streaming.url, dialect)
    _, evs = w.stream("a story")
    decoded = events(w, evs)
    chunks = [e for e in decoded if isinstance(e, m.TaskArtifactUpdateEvent)]
    assert len(chunks) == 20
    assert [c.artifact.parts[0].text for c in chunks[:2]] == ["chunk 0 of 20: a story\n", "chunk 1 of 20: a story\n"]
    assert [bool(c.append) for c in chunks] == [False] + [True] * 19
    assert [bool(c.last_chunk) for c in chunks] == [False] * 19 + [True]
    raw = [w.result_of(ev) for ev in evs]
    if dialect == "0.1":  # the draft names the artifact by index and flags it on the artifact
        arts = [r["artifact"] for r in raw if "artifact" in r]
        assert {a["index"] for a in arts} == {0} and arts[-1]["lastChunk"] is True
    elif dialect == "0.3":
        arts = [r for r in raw if r.get("kind") == "artifact-update"]
        assert {a["artifact"]["artifactId"] for a in arts} == {"story"}
        assert arts[0]["append"] is False and arts[0]["lastChunk"] is False
    else:  # ProtoJSON leaves false flags out, as a2a-sdk 1.x does
        arts = [r["artifactUpdate"] for r in raw if "artifactUpdate" in r]
        assert "append" not in arts[0] and "lastChunk" not in arts[0] and arts[-1]["lastChunk"] is True


@dialects
def test_streaming_blocking_send_assembles_the_chunks(streaming: MockAgent, client: httpx.Client, dialect: str) -> None:
    w = Wire(client, streaming.url, dialect)
    task = w.task_of(w.send("x"))
    [artifact] = task["artifacts"]
    assert len(artifact["parts"]) == 20 and w.state_of(task) == wire_state(dialect, "completed")


# ----------------------------------------------------------------------- input-required


@dialects
def test_input_required_takes_two_turns(asking: MockAgent, client: httpx.Client, dialect: str) -> None:
    w = Wire(client, asking.url, dialect)
    first = w.task_of(w.send("ask me something"))
    assert w.state_of(first) == wire_state(dialect, "input-required")
    assert w.text_parts(first["status"]["message"]) == ["What should I echo? Reply on this task."]
    context = first.get("contextId") or first.get("sessionId")
    second = w.task_of(w.send("the answer", task_id=first["id"], context_id=context))
    assert second["id"] == first["id"]
    assert w.state_of(second) == wire_state(dialect, "completed")
    assert w.artifact_text(second) == "echo: the answer"
    # as a2a-sdk keeps it: the question moves to history when the answer arrives
    assert [w.text_parts(h)[0] for h in second["history"]] == [
        "ask me something",
        "thinking...",
        "What should I echo? Reply on this task.",
        "the answer",
        "echoing...",
    ]


@dialects
def test_input_required_stream_ends_at_the_question(asking: MockAgent, client: httpx.Client, dialect: str) -> None:
    w = Wire(client, asking.url, dialect)
    _, evs = w.stream("ask")
    decoded = events(w, evs)
    assert states(decoded) == ["submitted", "working", "input-required"]
    if dialect != "1.0":
        assert w.result_of(evs[-1])["final"] is True


def test_a_finished_task_cannot_be_continued_in_03_and_10(asking: MockAgent, client: httpx.Client) -> None:
    w = Wire(client, asking.url, "0.3")
    first = w.task_of(w.send("q"))
    w.send("a", task_id=first["id"], context_id=first["contextId"])
    body = w.send("again", task_id=first["id"], context_id=first["contextId"])
    assert body["error"]["code"] == -32004 and "terminal state: TASK_STATE_COMPLETED" in body["error"]["message"]


def test_the_draft_reopens_a_finished_task(asking: MockAgent, client: httpx.Client) -> None:
    w = Wire(client, asking.url, "0.1")
    first = w.task_of(w.send("q", task_id="draft-task-1"))
    assert first["id"] == "draft-task-1"  # 0.1 clients choose the id
    w.send("a", task_id="draft-task-1")
    third = w.task_of(w.send("more", task_id="draft-task-1"))
    assert w.state_of(third) == "input-required" and "Ask me again" in w.text_parts(third["status"]["message"])[0]


# ----------------------------------------------------------------------- errors


A2A_CODES = [-32001, -32002, -32003, -32004, -32005, -32006, -32007, -32008, -32009]
RPC_CODES = [-32700, -32600, -32601, -32602, -32603]


@dialects
@pytest.mark.parametrize("code", RPC_CODES + A2A_CODES)
def test_errors_scenario_answers_each_code(
    errors_mock: MockAgent, client: httpx.Client, dialect: str, code: int
) -> None:
    w = Wire(client, errors_mock.url, dialect)
    body = w.send(f"error {code}")
    assert body["error"]["code"] == code and body["error"]["message"]
    if dialect == "1.0" and code not in (-32700, -32601):
        [info] = body["error"]["data"]
        assert info["@type"] == "type.googleapis.com/google.rpc.ErrorInfo" and info["domain"] == "a2a-protocol.org"


@dialects
def test_errors_http_faults(errors_mock: MockAgent, client: httpx.Client, dialect: str) -> None:
    w = Wire(client, errors_mock.url, dialect)
    request = w.request(Method.SEND, m.SendParams(message=w.message("http 503")))
    response = w.post(request)
    assert response.status_code == 503 and response.text == "Service Unavailable"
    assert response.headers["retry-after"] == "1" and response.headers["content-type"].startswith("text/plain")
    stream_request = w.request(Method.STREAM, m.SendParams(message=w.message("http 500")))
    response = client.post(w.url, json=stream_request, headers=w.headers(stream=True))
    assert response.status_code == 500  # before any event: a plain HTTP response, not SSE


@dialects
def test_errors_malformed_body_and_event(errors_mock: MockAgent, client: httpx.Client, dialect: str) -> None:
    w = Wire(client, errors_mock.url, dialect)
    response = w.post(w.request(Method.SEND, m.SendParams(message=w.message("malformed"))))
    with pytest.raises(ValueError):
        response.json()
    _, evs = w.stream("malformed")
    bad = [ev for ev in evs if ev.data and ev.data.startswith('{"jsonrpc": "2.0", "id": 1')]
    assert len(bad) == 1
    good = [ev for ev in evs if ev is not bad[0]]
    assert states(events(w, good))[-1] == "completed"  # the stream goes on after the bad event


@dialects
def test_errors_drop_cuts_the_connection(errors_mock: MockAgent, client: httpx.Client, dialect: str) -> None:
    w = Wire(client, errors_mock.url, dialect)
    with pytest.raises(httpx.RemoteProtocolError):
        w.post(w.request(Method.SEND, m.SendParams(message=w.message("drop"))))
    received: list[bytes] = []
    with pytest.raises(httpx.RemoteProtocolError):
        with client.stream(
            "POST",
            w.url,
            json=w.request(Method.STREAM, m.SendParams(message=w.message("drop"))),
            headers=w.headers(stream=True),
        ) as response:
            for chunk in response.iter_raw():
                received.append(chunk)
    raw = b"".join(received)
    assert b"half of the answer" in raw and b"other half" not in raw


@dialects
def test_errors_stream_without_final_event(errors_mock: MockAgent, client: httpx.Client, dialect: str) -> None:
    w = Wire(client, errors_mock.url, dialect)
    _, evs = w.stream("no final")
    decoded = events(w, evs)
    assert states(decoded) == ["submitted", "working"]
    assert isinstance(decoded[-1], m.TaskArtifactUpdateEvent)


@dialects
@pytest.mark.parametrize("trigger, state", [("fail", "failed"), ("reject", "rejected"), ("auth", "auth-required")])
def test_errors_terminal_and_auth_states(
    errors_mock: MockAgent, client: httpx.Client, dialect: str, trigger: str, state: str
) -> None:
    w = Wire(client, errors_mock.url, dialect)
    assert w.state_of(w.task_of(w.send(trigger))) == wire_state(dialect, state)


@dialects
def test_errors_scripted_error_mid_stream(errors_mock: MockAgent, client: httpx.Client, dialect: str) -> None:
    w = Wire(client, errors_mock.url, dialect)
    response, evs = w.stream("error -32002")
    if dialect == "1.0":  # a2a-sdk 1.x answers a stream that fails at once with a JSON error
        assert response.headers["content-type"] == "application/json"
        assert response.json()["error"]["code"] == -32002
    else:
        [ev] = evs
        assert ev.json()["error"]["code"] == -32002


# ----------------------------------------------------------------------- slow


@pytest.mark.parametrize("dialect", ["0.3", "1.0"])
def test_slow_non_blocking_send_returns_at_once(slow: MockAgent, client: httpx.Client, dialect: str) -> None:
    w = Wire(client, slow.url, dialect)
    body = w.send("slow", configuration={"blocking": False})
    task = w.task_of(body)
    assert w.state_of(task) == wire_state(dialect, "submitted")
    for _ in range(200):
        got = w.get(task["id"])["result"]
        if w.state_of(got) == wire_state(dialect, "completed"):
            break
        import time

        time.sleep(0.01)
    assert w.artifact_text(got) == "echo: slow (done)"


@dialects
def test_slow_stream_chunks(slow: MockAgent, client: httpx.Client, dialect: str) -> None:
    w = Wire(client, slow.url, dialect)
    _, evs = w.stream("turtle")
    chunks = [e for e in events(w, evs) if isinstance(e, m.TaskArtifactUpdateEvent)]
    assert [c.artifact.parts[0].text for c in chunks] == ["echo: ", "turtle", " (done)"]


# ----------------------------------------------------------------------- flaky


def _outcomes(mock: MockAgent, client: httpx.Client, n: int) -> list[str]:
    w = Wire(client, mock.url, "0.3")
    out = []
    for i in range(n):
        try:
            response = w.post(w.request(Method.SEND, m.SendParams(message=w.message(f"try {i}"))))
        except httpx.RemoteProtocolError:
            out.append("dropped")
            continue
        if response.status_code != 200:
            out.append(f"http {response.status_code}")
            continue
        try:
            body = response.json()
        except ValueError:
            out.append("malformed")
            continue
        out.append(f"error {body['error']['code']}" if "error" in body else body["result"]["status"]["state"])
    return out


def test_flaky_faults_repeat_from_the_seed(client: httpx.Client) -> None:
    with MockAgent("flaky", time_scale=FAST) as a:
        first = _outcomes(a, client, 16)
    with MockAgent("flaky", time_scale=FAST) as b:
        second = _outcomes(b, client, 16)
    assert first == second
    assert "completed" in first and len(set(first)) >= 3
    with MockAgent("flaky", time_scale=FAST, seed=7) as c:
        assert _outcomes(c, client, 16) != first


# ----------------------------------------------------------------------- large artifact


@dialects
def test_large_artifact_send_and_stream(large: MockAgent, client: httpx.Client, dialect: str) -> None:
    w = Wire(client, large.url, dialect)
    task = w.task_of(w.send("big"))
    assert len(w.artifact_text(task)) == 2 * 1024 * 1024
    _, evs = w.stream("big")
    chunks = [e for e in events(w, evs) if isinstance(e, m.TaskArtifactUpdateEvent)]
    assert len(chunks) == 64 and sum(len(c.artifact.parts[0].text) for c in chunks) == 2 * 1024 * 1024


# ----------------------------------------------------------------------- files and data


@dialects
def test_files_and_data_answers_every_part_kind(parts_mock: MockAgent, client: httpx.Client, dialect: str) -> None:
    w = Wire(client, parts_mock.url, dialect)
    task = w.task_of(w.send("show me"))
    summary, table, report = task["artifacts"]
    if dialect == "1.0":
        assert summary["parts"][1]["data"]["rows"] == 2
        assert table["parts"][0]["mediaType"] == "text/csv" and "raw" in table["parts"][0]
        assert report["parts"][0]["url"] == "https://example.invalid/report.pdf"
    else:
        tag = "type" if dialect == "0.1" else "kind"
        assert [p[tag] for p in summary["parts"]] == ["text", "data"]
        assert table["parts"][0]["file"]["mimeType"] == "text/csv"
        assert base64.b64decode(table["parts"][0]["file"]["bytes"]).startswith(b"name,score")
        assert report["parts"][0]["file"]["uri"] == "https://example.invalid/report.pdf"


@dialects
def test_files_and_data_reports_what_was_sent(parts_mock: MockAgent, client: httpx.Client, dialect: str) -> None:
    w = Wire(client, parts_mock.url, dialect)
    sent_file = w.send(
        parts=[
            m.TextPart(text="here"),
            m.FilePart(file=m.FileContent(name="a.txt", bytes="aGk=", mime_type="text/plain")),
        ]
    )
    assert w.artifact_text(w.task_of(sent_file)) == "received 1 file(s): a.txt"
    sent_data = w.send(parts=[m.DataPart(data={"k": 1})])
    assert w.artifact_text(w.task_of(sent_data)) == 'received 1 data part(s), the first: {"k": 1}'


# ----------------------------------------------------------------------- demo


@dialects
def test_demo_paths_from_the_card_examples(demo: MockAgent, client: httpx.Client, dialect: str) -> None:
    w = Wire(client, demo.url, dialect)
    examples = {s["id"]: s["examples"][0] for s in client.get(demo.card_url).json()["skills"]}
    _, evs = w.stream(examples["stories"])
    decoded = events(w, evs)
    assert len([e for e in decoded if isinstance(e, m.TaskArtifactUpdateEvent)]) == 6
    assert states(decoded)[-1] == "completed"
    asked = w.task_of(w.send(examples["questions"]))
    assert w.state_of(asked) == wire_state(dialect, "input-required")
    answered = w.task_of(
        w.send("a lighthouse", task_id=asked["id"], context_id=asked.get("contextId") or asked.get("sessionId"))
    )
    assert w.artifact_text(answered) == "A very short story about a lighthouse."
    failed = w.send(examples["errors"])
    assert failed["error"]["code"] == -32603


# ----------------------------------------------------------------------- cards


@pytest.mark.parametrize(
    "dialect, path, has",
    [
        ("0.1", "/.well-known/agent.json", "url"),
        ("0.3", "/.well-known/agent-card.json", "protocolVersion"),
        ("1.0", "/.well-known/agent-card.json", "supportedInterfaces"),
    ],
)
def test_single_dialect_card_paths(client: httpx.Client, dialect: str, path: str, has: str) -> None:
    with MockAgent("echo", dialect=dialect) as mock:
        assert mock.card_url == mock.base_url + path
        card = client.get(mock.card_url).json()
        assert has in card and card["name"] == "Echo Agent"
        if dialect == "1.0":
            assert "url" not in card
            assert card["supportedInterfaces"] == [
                {"url": mock.url, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
                {"url": mock.base_url + "/rest", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"},
            ]
        else:
            assert card["url"] == mock.url


def test_all_dialects_card_is_served_at_every_path(echo: MockAgent, client: httpx.Client) -> None:
    paths = {url.removeprefix(echo.base_url) for url in echo.card_urls}
    assert paths == {"/.well-known/agent.json", "/.well-known/agent-card.json"}
    for url in echo.card_urls:
        card = client.get(url).json()
        assert card["url"] == echo.url and card["protocolVersion"] == "0.3.0"
        versions = {i["protocolVersion"] for i in card["supportedInterfaces"]}
        assert versions == {"1.0", "0.3"}
        assert card["capabilities"]["stateTransitionHistory"] is True


def test_single_dialect_mock_refuses_other_dialects(client: httpx.Client) -> None:
    with MockAgent("echo", dialect="1.0") as mock:
        old = Wire(client, mock.url, "0.3").send("hi")
        assert old["error"]["code"] == -32601
        assert Wire(client, mock.url, "1.0").send("hi")["result"]["task"]
