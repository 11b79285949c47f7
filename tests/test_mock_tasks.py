"""The task store over HTTP: resubscribe follows live, cancel, list, heartbeats, hang-ups."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator

import httpx
import pytest

from inspector.protocol import models as m
from inspector.protocol.methods import Method
from mock_agent import MockAgent
from test_mock_support import DIALECT_NAMES, SSE, Wire, parse_sse, wire_state

# A stream that drops after the first half, then keeps working once the test lets it
# (the client has reconnected by then, however slow the machine).
DROP_THEN_FINISH = {
    "name": "drop-then-finish",
    "card": {"name": "t", "capabilities": {"streaming": True}},
    "rules": [
        {
            "script": [
                {"status": "working", "message": "started"},
                {"artifact": {"id": "doc", "text": "first half", "last_chunk": False}},
                {"drop": True},
                {"hold": "resume"},
                {"artifact": {"id": "doc", "text": " second half", "append": True, "last_chunk": True}},
                {"status": "completed", "message": "done"},
            ]
        }
    ],
}

# Echo in three chunks, held before the first until the test lets it go on.
HELD_ECHO = {
    "name": "held-echo",
    "card": {"name": "t", "capabilities": {"streaming": True}},
    "rules": [
        {
            "script": [
                {"status": "working", "message": "still thinking..."},
                {"hold": "go"},
                {"chunks": {"name": "echo", "texts": ["echo: ", "{text}", " (done)"]}},
                {"status": "completed", "message": "done"},
            ]
        }
    ],
}


@pytest.fixture(scope="module")
def client() -> Iterator[httpx.Client]:
    with httpx.Client(timeout=10) as c:
        yield c


def read_events(
    client: httpx.Client, w: Wire, request: dict, on_first: Callable[[], object] | None = None
) -> tuple[list[SSE], bool]:
    """(events, dropped) for a stream request, reading until the server ends or cuts it;
    ``on_first`` runs once the first event has arrived."""
    received = b""
    dropped = False
    try:
        with client.stream("POST", w.url, json=request, headers=w.headers(stream=True)) as response:
            for chunk in response.iter_raw():
                received += chunk
                if on_first is not None and parse_sse(received):
                    on_first()
                    on_first = None
    except httpx.RemoteProtocolError:
        dropped = True
    return parse_sse(received), dropped


@pytest.mark.parametrize("dialect", DIALECT_NAMES)
def test_resubscribe_after_a_drop_sends_the_state_then_follows_live(client: httpx.Client, dialect: str) -> None:
    with MockAgent(DROP_THEN_FINISH, dialect="all") as mock:
        w = Wire(client, mock.url, dialect)
        first, dropped = read_events(client, w, w.request(Method.STREAM, m.SendParams(message=w.message("go"))))
        assert dropped
        decoded = [w.decode(ev) for ev in first]
        task_id = decoded[0].task_id if hasattr(decoded[0], "task_id") else decoded[0].id
        wait_for(lambda: mock.held("resume") == 1, "the run to wait after the drop")
        # The task goes on only once the resubscribe has its first event: the live part
        # must follow on the same stream.
        again, dropped = read_events(
            client,
            w,
            w.request(Method.RESUBSCRIBE, m.TaskIdParams(id=task_id)),
            on_first=lambda: mock.release("resume"),
        )
        assert not dropped
        events = [w.decode(ev) for ev in again]
        head = events[0]
        # the current state first ...
        if dialect == "0.1":
            assert isinstance(head, m.TaskStatusUpdateEvent) and head.status.state is m.TaskState.WORKING
        else:
            assert isinstance(head, m.Task) and head.status.state is m.TaskState.WORKING
            assert [p.text for p in head.artifacts[0].parts] == ["first half"]
        # ... then what happened after the reconnect
        live = events[1:]
        assert [type(e).__name__ for e in live] == ["TaskArtifactUpdateEvent", "TaskStatusUpdateEvent"]
        assert live[0].artifact.parts[0].text == " second half" and live[0].append
        assert live[1].status.state is m.TaskState.COMPLETED
        assembled = w.task_of(w.get(task_id))
        assert w.artifact_text(assembled) == "first half second half"


@pytest.mark.parametrize("dialect", ["0.3", "1.0"])
def test_resubscribe_while_a_non_blocking_send_runs(client: httpx.Client, dialect: str) -> None:
    with MockAgent(HELD_ECHO) as mock:
        w = Wire(client, mock.url, dialect)
        task = w.task_of(w.send("later", configuration={"blocking": False}))
        wait_for(lambda: mock.held("go") == 1, "the task to wait")
        events, dropped = read_events(
            client, w, w.request(Method.RESUBSCRIBE, m.TaskIdParams(id=task["id"])), on_first=lambda: mock.release("go")
        )
        assert not dropped
        decoded = [w.decode(ev) for ev in events]
        assert isinstance(decoded[0], m.Task)
        chunks = [e.artifact.parts[0].text for e in decoded if isinstance(e, m.TaskArtifactUpdateEvent)]
        assert chunks == ["echo: ", "later", " (done)"]
        assert decoded[-1].status.state is m.TaskState.COMPLETED


@pytest.mark.parametrize("dialect", DIALECT_NAMES)
def test_cancel_during_a_stream_ends_it_canceled(client: httpx.Client, dialect: str) -> None:
    with MockAgent(HELD_ECHO, dialect="all") as mock:
        w = Wire(client, mock.url, dialect)
        request = w.request(
            Method.STREAM, m.SendParams(message=w.message("cancel me", task_id="c-1" if dialect == "0.1" else None))
        )
        got: list[SSE] = []
        done = threading.Event()

        def reader() -> None:
            with httpx.Client(timeout=10) as own:
                got.extend(read_events(own, w, request)[0])
            done.set()

        thread = threading.Thread(target=reader)
        thread.start()
        wait_for(lambda: mock.held("go") == 1, "the task to wait")
        task_id = mock.tasks[-1].task.id
        canceled = w.task_of(w.cancel(task_id))
        assert w.state_of(canceled) in ("canceled", "TASK_STATE_CANCELED")
        assert w.text_parts(canceled["status"]["message"]) == ["canceled by request"]
        assert done.wait(5)
        thread.join()
        last = w.decode(got[-1])
        assert isinstance(last, m.TaskStatusUpdateEvent) and last.status.state is m.TaskState.CANCELED
        # The cancel ended the run at its gate: releasing it now changes nothing.
        assert mock.held("go") == 0 and mock.release("go") == 0
        assert w.state_of(w.task_of(w.get(task_id))) in ("canceled", "TASK_STATE_CANCELED")
        assert not mock.tasks[-1].task.artifacts


# Nothing happens for a long while: a cancel sent now lands before the run has produced
# anything, and ends the run, so the test does not wait out the delay.
OPENS_WITH_DELAY = {
    "name": "opens-with-delay",
    "card": {"name": "t", "capabilities": {"streaming": True}},
    "rules": [
        {
            "script": [
                {"delay": 30},
                {"status": "working", "message": "started"},
                {"status": "completed"},
            ]
        }
    ],
}

WORKS_THEN_WAITS = {
    "name": "works-then-waits",
    "card": {"name": "t", "capabilities": {"streaming": True}},
    "rules": [
        {
            "script": [
                {"status": "working", "message": "started"},
                {"delay": 30},
                {"status": "completed"},
            ]
        }
    ],
}


class StreamReader(threading.Thread):
    """Reads one SSE request to its end on its own connection, keeping the bytes as they
    arrive, so a test can tell what came before a cancel from what came after."""

    def __init__(self, w: Wire, request: dict) -> None:
        super().__init__(daemon=True)
        self.w = w
        self.request = request
        self.received = bytearray()

    def run(self) -> None:
        with (
            httpx.Client(timeout=10) as own,
            own.stream("POST", self.w.url, json=self.request, headers=self.w.headers(stream=True)) as response,
        ):
            for chunk in response.iter_raw():
                self.received += chunk

    def events_after(self, cut: int) -> list[m.StreamEvent]:
        """The events whose bytes arrived after the first ``cut`` bytes."""
        raw = bytes(self.received)
        before = len([ev for ev in parse_sse(raw[:cut]) if ev.data])
        return [self.w.decode(ev) for ev in parse_sse(raw) if ev.data][before:]


def wait_for(condition: Callable[[], object], what: str) -> None:
    for _ in range(500):
        if condition():
            return
        time.sleep(0.01)
    raise AssertionError(f"timed out waiting for {what}")


def assert_only_canceled(w: Wire, reader: StreamReader, events: list[m.StreamEvent]) -> None:
    """After a cancel: no state but canceled, and the stream's last word is the final
    canceled status event."""
    states = [e.status.state for e in events if isinstance(e, (m.Task, m.TaskStatusUpdateEvent))]
    assert states and set(states) == {m.TaskState.CANCELED}, states
    last = events[-1]
    assert isinstance(last, m.TaskStatusUpdateEvent) and last.status.state is m.TaskState.CANCELED
    if w.name != "1.0":  # 1.0 has no final flag: the stream's end says it
        last_raw = [ev for ev in parse_sse(bytes(reader.received)) if ev.data][-1].json()["result"]
        assert last_raw["final"] is True


@pytest.mark.parametrize("dialect", DIALECT_NAMES)
def test_a_cancel_during_the_opening_delay_leaves_no_stale_state_on_the_stream(
    client: httpx.Client, dialect: str
) -> None:
    with MockAgent(OPENS_WITH_DELAY, dialect="all") as mock:
        w = Wire(client, mock.url, dialect)
        reader = StreamReader(
            w,
            w.request(
                Method.STREAM, m.SendParams(message=w.message("go", task_id="od-1" if dialect == "0.1" else None))
            ),
        )
        reader.start()
        wait_for(lambda: mock.tasks and mock.tasks[-1].subscribers, "the stream to subscribe")
        record = mock.tasks[-1]
        # The script is still in its delay: the stream has not said anything yet.
        assert record.state is m.TaskState.SUBMITTED and reader.received == b""
        cut = len(reader.received)
        assert w.state_of(w.task_of(w.cancel(record.task.id))) == wire_state(dialect, "canceled")
        reader.join(5)
        assert not reader.is_alive(), "the stream did not end after the cancel"
        assert_only_canceled(w, reader, reader.events_after(cut))
        assert record.state is m.TaskState.CANCELED


@pytest.mark.parametrize("dialect", DIALECT_NAMES)
def test_a_cancel_while_a_resubscriber_waits_leaves_no_stale_state_on_either_stream(
    client: httpx.Client, dialect: str
) -> None:
    with MockAgent(WORKS_THEN_WAITS, dialect="all") as mock:
        w = Wire(client, mock.url, dialect)
        first = StreamReader(
            w,
            w.request(
                Method.STREAM, m.SendParams(message=w.message("go", task_id="rw-1" if dialect == "0.1" else None))
            ),
        )
        first.start()
        wait_for(
            lambda: mock.tasks and mock.tasks[-1].state is m.TaskState.WORKING and first.received,
            "the stream to show working",
        )
        record = mock.tasks[-1]
        again = StreamReader(w, w.request(Method.RESUBSCRIBE, m.TaskIdParams(id=record.task.id)))
        again.start()
        wait_for(
            lambda: len(record.subscribers) == 2 and parse_sse(bytes(again.received)),
            "the resubscriber to have the task as it stands",
        )
        cut_first, cut_again = len(first.received), len(again.received)
        (head,) = [again.w.decode(ev) for ev in parse_sse(bytes(again.received)) if ev.data]
        assert (
            head.status.state if isinstance(head, (m.Task, m.TaskStatusUpdateEvent)) else None
        ) is m.TaskState.WORKING  # the run is in its delay: nothing new to tell
        assert w.state_of(w.task_of(w.cancel(record.task.id))) == wire_state(dialect, "canceled")
        for reader in (first, again):
            reader.join(5)
            assert not reader.is_alive(), "a stream did not end after the cancel"
        assert_only_canceled(w, first, first.events_after(cut_first))
        assert_only_canceled(w, again, again.events_after(cut_again))


def test_cancel_of_a_task_waiting_for_input(client: httpx.Client) -> None:
    with MockAgent("input-required") as mock:
        w = Wire(client, mock.url, "0.3")
        task = w.task_of(w.send("ask"))
        canceled = w.task_of(w.cancel(task["id"]))
        assert canceled["status"]["state"] == "canceled"
        assert w.cancel(task["id"])["error"]["code"] == -32002


def test_list_tasks_pages_newest_first(client: httpx.Client) -> None:
    with MockAgent("echo") as mock:
        w = Wire(client, mock.url, "1.0")
        ids = [w.task_of(w.send(f"n{i}", context_id="ctx-a" if i % 2 else None))["id"] for i in range(5)]
        page = w.call(Method.LIST, m.ListTasksParams(page_size=2))["result"]
        assert [t["id"] for t in page["tasks"]] == ids[::-1][:2]
        assert page["totalSize"] == 5 and page["pageSize"] == 2
        assert "artifacts" not in page["tasks"][0]  # 1.0 includes artifacts only when asked
        rest = w.call(Method.LIST, m.ListTasksParams(page_size=2, page_token=page["nextPageToken"]))["result"]
        assert [t["id"] for t in rest["tasks"]] == ids[::-1][2:4]
        by_context = w.call(Method.LIST, m.ListTasksParams(context_id="ctx-a", include_artifacts=True))["result"]
        assert sorted(t["id"] for t in by_context["tasks"]) == sorted([ids[1], ids[3]])
        assert by_context["tasks"][0]["artifacts"] and "nextPageToken" not in by_context
        bad = w.call(Method.LIST, m.ListTasksParams(page_token="not-mine"))
        assert bad["error"]["code"] == -32602


def test_stream_heartbeats_while_idle(client: httpx.Client) -> None:
    with MockAgent("slow", heartbeat=0.05, time_scale=0.2) as mock:
        w = Wire(client, mock.url, "0.3")
        _, events = w.stream("beat")
        comments = [c for ev in events for c in ev.comments]
        assert len(comments) >= 4 and set(comments) == {"heartbeat"}
        assert [w.decode(ev) for ev in events if ev.data][-1].status.state is m.TaskState.COMPLETED


def test_a_client_that_hangs_up_is_forgotten(client: httpx.Client) -> None:
    with MockAgent("slow", time_scale=0.2) as mock:
        w = Wire(client, mock.url, "0.3")
        request = w.request(Method.STREAM, m.SendParams(message=w.message("bye")))
        with client.stream("POST", w.url, json=request, headers=w.headers(stream=True)) as response:
            next(response.iter_raw())
        record = mock.tasks[-1]
        for _ in range(100):
            if not record.subscribers:
                break
            time.sleep(0.01)
        assert record.subscribers == []
        for _ in range(300):  # the task itself carries on without the client
            if record.terminal:
                break
            time.sleep(0.01)
        assert record.state is m.TaskState.COMPLETED


def test_a_reply_step_answers_with_a_message_and_keeps_no_task(client: httpx.Client) -> None:
    scenario = {"card": {"name": "t"}, "rules": [{"script": [{"reply": "hi {text}"}]}]}
    with MockAgent(scenario) as mock:
        for dialect in DIALECT_NAMES:
            w = Wire(client, mock.url, dialect)
            result = w.send("there")["result"]
            message = result["message"] if dialect == "1.0" else result
            assert w.text_parts(message) == ["hi there"]
            assert message["role"] in ("agent", "ROLE_AGENT")
        time.sleep(0.05)
        assert mock.tasks == []


def test_the_store_keeps_the_newest_tasks_and_those_still_running() -> None:
    from mock_agent.store import TaskStore

    store = TaskStore(limit=10)
    running = store.create("running", "c", "0.3")
    running.run = object()  # its script is still playing: kept until it is done
    waiting = store.create("waiting", "c", "0.3")  # input-required, say: no script runs
    waiting.task.status = m.TaskStatus(state=m.TaskState.INPUT_REQUIRED)
    for i in range(30):
        record = store.create(f"t{i}", "c", "0.3")
        record.task.status = m.TaskStatus(state=m.TaskState.COMPLETED)
    # Ten in all: the oldest idle ones went first; the running one holds its place.
    assert len(store) == 10
    assert store.get("running") is running and store.get("waiting") is None
    assert [r.task.id for r in store][1:] == [f"t{i}" for i in range(21, 30)]
    running.run = None
    store.create("t30", "c", "0.3")
    assert store.get("running") is None and [r.task.id for r in store] == [f"t{i}" for i in range(21, 31)]


async def test_a_long_stream_without_delays_is_sent_as_it_is_made() -> None:
    # The first bytes must not wait for the whole script: the client reads the opening
    # events while the agent is still producing chunks. (Server and client share this
    # event loop, so what the mock has made when the first bytes arrive is exact.)
    n = 20_000
    scenario = {
        "name": "firehose",
        "card": {"name": "t", "capabilities": {"streaming": True}},
        "rules": [
            {
                "name": "all",
                "script": [
                    {"status": "working"},
                    {"chunks": {"id": "a", "text": "x", "count": n}},
                    {"status": "completed"},
                ],
            }
        ],
    }
    async with MockAgent(scenario, dialect="all") as mock, httpx.AsyncClient(timeout=30) as client:
        w = Wire(client, mock.url, "1.0")
        request = w.request(Method.STREAM, m.SendParams(message=w.message("go")))
        made_at_first_byte = None
        received = bytearray()  # bytes += would copy all so far on every chunk
        async with client.stream("POST", w.url, json=request, headers=w.headers(stream=True)) as response:
            async for chunk in response.aiter_raw():
                if made_at_first_byte is None:
                    [record] = mock.tasks
                    made_at_first_byte = sum(len(a.parts) for a in record.task.artifacts or [])
                received += chunk
    assert made_at_first_byte is not None and made_at_first_byte < n // 2, made_at_first_byte
    assert len(parse_sse(received)) == n + 3  # the task, working, n chunks, completed
