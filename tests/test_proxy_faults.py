"""Each fault rule, live: the official a2a-sdk client -> proxy (with the rule) ->
a2a-mock. The client gets the fault; the session marks it as the proxy's doing
(``injected`` on the events, a NOTE), logs the agent's own events as the agent sent
them, and no verdict blames the agent for what the proxy did."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from inspector.proxy import Rule, Rules, RulesError, load_rules
from inspector.session import Kind
from inspector.session.describe import proxy_line as describe
from mock_agent import MockAgent
from proxy_helpers import MOCK_SCENARIO, message, proxy_to, sdk_client, until


def rules(*docs: dict[str, Any]) -> Rules:
    return Rules([Rule.model_validate(d) for d in docs])


def injected_notes(proxy: Any) -> list[str]:
    return [
        e.data["injected"]
        for e in proxy.session.events
        if e.kind is Kind.NOTE and e.data.get("code") == "proxy-injected"
    ]


def agent_violations(proxy: Any) -> list[str]:
    return [v.code for v in proxy.tracker.violations]


async def _stream(url: str, text: str) -> list[Any]:
    async with sdk_client(url, streaming=True) as client:
        return [e async for e in client.send_message(message(text))]


async def test_delay_holds_the_request_then_relays_it() -> None:
    async with (
        MockAgent(MOCK_SCENARIO, dialect="1.0") as mock,
        proxy_to(
            ("", mock.base_url), rules=rules({"match": {"method": "SendMessage"}, "fault": {"delay": "50ms"}})
        ) as (proxy, server),
    ):
        async with sdk_client(server.base_url, streaming=False) as client:
            (sent,) = [r async for r in client.send_message(message("hello"))]
    assert sent.task.status.state == 3  # TASK_STATE_COMPLETED
    assert injected_notes(proxy) == ["delay=0.05s"]
    response = next(e for e in proxy.session.events if e.kind is Kind.RESPONSE and e.exchange == 2)
    assert response.data["injected"] == "delay=0.05s"
    assert agent_violations(proxy) == []


async def test_error_answers_instead_of_the_agent_which_never_hears_of_it() -> None:
    from a2a.types import a2a_pb2 as pb
    from a2a.utils.errors import TaskNotFoundError

    async with (
        MockAgent(MOCK_SCENARIO, dialect="1.0") as mock,
        proxy_to(
            ("", mock.base_url),
            rules=rules({"match": {"method": "tasks/get"}, "fault": {"rpc_error": {"code": -32001}}}),
        ) as (proxy, server),
    ):
        async with sdk_client(server.base_url, streaming=False) as client:
            (sent,) = [r async for r in client.send_message(message("hello"))]
            with pytest.raises(TaskNotFoundError):
                await client.get_task(pb.GetTaskRequest(id=sent.task.id))
        asked = [r.get("method") for r in mock.requests if isinstance(r, dict)]
    assert "GetTask" not in asked and "SendMessage" in asked
    response = [e for e in proxy.session.events if e.kind is Kind.RESPONSE][-1]
    assert response.data["injected"] == "error=-32001" and '"code":-32001' in response.data["body"]
    assert injected_notes(proxy) == ["error=-32001"]
    assert agent_violations(proxy) == []


async def test_http_status_answers_instead_of_the_agent() -> None:
    async with (
        MockAgent(MOCK_SCENARIO, dialect="1.0") as mock,
        proxy_to(("", mock.base_url), rules=rules({"match": {"method": "send"}, "fault": {"http_status": 503}})) as (
            proxy,
            server,
        ),
    ):
        async with sdk_client(server.base_url, streaming=False) as client:
            with pytest.raises(Exception) as raised:
                [r async for r in client.send_message(message("hello"))]
        assert "503" in str(raised.value)
        assert not any(isinstance(r, dict) and r.get("method") == "SendMessage" for r in mock.requests)
    response = [e for e in proxy.session.events if e.kind is Kind.RESPONSE][-1]
    assert response.data["status"] == 503 and response.data["injected"] == "http=503"
    assert agent_violations(proxy) == []
    # The headless line says the proxy answered; it has no upstream or added time.
    line = describe(response)
    assert line is not None and line.endswith("(answered by the proxy, not relayed) [injected http=503]"), line
    assert "None" not in line


async def test_drop_after_ends_the_clients_stream_and_does_not_blame_the_agent() -> None:
    async with (
        MockAgent(MOCK_SCENARIO, dialect="1.0") as mock,
        proxy_to(
            ("", mock.base_url), rules=rules({"match": {"method": "SendStreamingMessage"}, "fault": {"drop_after": 2}})
        ) as (proxy, server),
    ):
        got: list[Any] = []
        failure: BaseException | None = None
        try:
            async with sdk_client(server.base_url, streaming=True) as client:
                async for event in client.send_message(message("stream this")):
                    got.append(event)
        except Exception as exc:  # whether the SDK reports the cut is the SDK's business
            failure = exc
    print("the SDK on a dropped stream:", repr(failure))
    assert len(got) == 2
    (end,) = [e for e in proxy.session.events if e.kind is Kind.STREAM_END]
    assert end.data["reason"] == "closed" and end.data["injected"] == "drop_after=2"
    assert end.data["terminal"] is False
    assert injected_notes(proxy) == ["drop_after=2"]
    assert agent_violations(proxy) == []


async def test_corrupt_chunk_reaches_the_client_cut_but_the_agents_event_is_logged_whole() -> None:
    async with (
        MockAgent(MOCK_SCENARIO, dialect="1.0") as mock,
        proxy_to(
            ("", mock.base_url),
            rules=rules({"match": {"method": "SendStreamingMessage"}, "fault": {"corrupt_chunk": 2}}),
        ) as (proxy, server),
    ):
        with pytest.raises(Exception) as raised:
            await _stream(server.base_url, "stream this")
        assert not isinstance(raised.value, AssertionError)
        await until(lambda: any(e.kind is Kind.STREAM_END for e in proxy.session.events), "the stream's end")
    sse = [e for e in proxy.session.events if e.kind is Kind.SSE]
    assert len(sse) >= 3 and all(not isinstance(e.payload, Exception) for e in sse)
    assert injected_notes(proxy) == ["corrupt_chunk=2"]
    assert "decode-error" not in agent_violations(proxy)


async def test_duplicate_chunk_sends_one_event_twice() -> None:
    async with MockAgent(MOCK_SCENARIO, dialect="1.0") as mock:
        plain = await _stream(mock.base_url, "stream this")
        async with proxy_to(
            ("", mock.base_url),
            rules=rules({"match": {"method": "SendStreamingMessage"}, "fault": {"duplicate_chunk": 3}}),
        ) as (proxy, server):
            doubled = await _stream(server.base_url, "stream this")
    assert len(doubled) == len(plain) + 1
    assert doubled[2] == doubled[3]
    assert injected_notes(proxy) == ["duplicate_chunk=3"]
    assert agent_violations(proxy) == []


async def test_per_event_faults_count_events_when_one_chunk_carries_several() -> None:
    """A fast agent's events reach the proxy several to a read. drop_after and
    duplicate_chunk numbered each event by the count of the whole read: with a stream
    in one piece, duplicate_chunk=3 never fired and drop_after=2 let every event through.
    The upstream here is the mock's ASGI app, whose stream httpx hands over in one piece."""
    import re

    import httpx

    from inspector.proxy import Proxy, Route
    from mock_agent import MockServer

    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "SendStreamingMessage",
        "params": {"message": {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": "stream this"}]}},
    }

    async def events(fault: dict[str, Any] | None) -> tuple[list[str], Any]:
        upstream = MockServer(MOCK_SCENARIO, dialect="1.0", time_scale=0)
        found = rules({"match": {"method": "SendStreamingMessage"}, "fault": fault}) if fault else None
        proxy = Proxy([Route("", "http://agent")], rules=found)
        proxy._http = httpx.AsyncClient(transport=httpx.ASGITransport(app=upstream.app))
        try:
            async with httpx.AsyncClient(transport=httpx.ASGITransport(app=proxy)) as http:
                resp = await http.post("http://127.0.0.1/", json=body, headers={"A2A-Version": "1.0"})
        finally:
            await proxy.aclose()
        blocks = re.split(r"(?:\r?\n){2}", resp.text.replace("\r\n", "\n"))
        return [block for block in blocks if block.strip()], proxy

    plain, _ = await events(None)
    assert len(plain) >= 4
    doubled, proxy = await events({"duplicate_chunk": 3})
    assert len(doubled) == len(plain) + 1 and doubled[2] == doubled[3]
    assert injected_notes(proxy) == ["duplicate_chunk=3"]
    dropped, proxy = await events({"drop_after": 2})
    assert len(dropped) == 2
    assert injected_notes(proxy) == ["drop_after=2"]


async def test_hold_working_keeps_the_task_working_until_the_rule_is_switched_off() -> None:
    from a2a.types import a2a_pb2 as pb

    async with (
        MockAgent(MOCK_SCENARIO, dialect="1.0") as mock,
        proxy_to(
            ("", mock.base_url),
            rules=rules({"match": {"method": "SendStreamingMessage"}, "fault": {"hold_working": True}}),
        ) as (proxy, server),
    ):
        got: list[Any] = []

        async def read() -> None:
            async with sdk_client(server.base_url, streaming=True) as client:
                async for event in client.send_message(message("stream this")):
                    got.append(event)

        reader = asyncio.ensure_future(read())
        # The agent has finished (its stream ended) while the client still waits.
        await until(
            lambda: any(e.kind is Kind.NOTE and e.data.get("injected") == "hold_working" for e in proxy.session.events),
            "the hold",
        )
        await until(
            lambda: any(
                e.kind is Kind.SSE
                and getattr(getattr(e.payload, "status", None), "state", None)
                and e.payload.status.state.value == "completed"
                for e in proxy.session.events
            ),
            "the agent's completed status, held",
        )
        assert not reader.done()
        states = [e.status_update.status.state for e in got if e.WhichOneof("payload") == "status_update"]
        assert pb.TaskState.TASK_STATE_COMPLETED not in states
        proxy.rules.toggle(0, False)
        await asyncio.wait_for(reader, 20)
    assert got[-1].status_update.status.state == pb.TaskState.TASK_STATE_COMPLETED
    assert any(e.kind is Kind.NOTE and e.data.get("code") == "proxy-released" for e in proxy.session.events)
    assert agent_violations(proxy) == []


# ---------------------------------------------------------------------- the rules themselves


def test_match_by_method_spelling_route_text_and_times() -> None:
    r = rules(
        {"match": {"method": "SendStreamingMessage", "times": 1}, "fault": {"drop_after": 1}},
        {"match": {"route": "/b", "text": "secret"}, "fault": {"delay": 1}},
    )
    v03 = {"a2a_method": "stream", "rpc_method": "message/stream"}
    assert [i for i, _ in r.match(v03, "/", b"")] == [0]
    assert r.match(v03, "/", b"") == []  # times: 1
    send = {"a2a_method": "send", "rpc_method": "SendMessage"}
    assert [i for i, _ in r.match(send, "/b", b'{"text": "a secret"}')] == [1]
    assert r.match(send, "/b", b'{"text": "public"}') == [] and r.match(send, "/", b"secret") == []
    assert r.match({"a2a_method": "card"}, "/b", b"secret") == []  # card GETs are not A2A calls


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("- match: {method: Nope}\n  fault: {delay: 1}\n", "not an A2A method"),
        ("- fault: {}\n", "a fault needs one of"),
        ("- fault: {delay: forever}\n", "not a duration"),
        ("- fault: {delay: 1, bogus: 2}\n", "bogus"),
        ("- fault: {error: -32001, http: 503}\n", "give one"),
        ("- [unclosed\n", "not valid YAML"),
    ],
)
def test_a_bad_rules_file_is_one_clear_line(tmp_path: Path, text: str, needle: str) -> None:
    path = tmp_path / "faults.yaml"
    path.write_text(text)
    with pytest.raises(RulesError) as raised:
        load_rules(path)
    message = str(raised.value)
    assert needle in message and "\n" not in message and str(path) in message


def test_the_examples_of_the_docs_load(tmp_path: Path) -> None:
    path = tmp_path / "faults.yaml"
    path.write_text("""
- name: flaky stream
  match: {method: SendStreamingMessage}
  fault: {drop_after: 3}
- match: {method: message/send}
  fault: {delay: 2s}
- match: {method: GetTask}
  fault: {error: {code: -32001, message: Task not found}}
  enabled: false
- match: {method: SendMessage}
  fault: {http: {status: 503, body: busy}}
- fault: {corrupt_chunk: 2, duplicate_chunk: 3}
- fault: {hold_working: true}
""")
    loaded = load_rules(path)
    assert len(loaded) == 6 and not loaded.rules[2].enabled
    assert loaded.rules[1].fault.delay == 2.0


async def test_hold_working_holds_a_blocking_answer_until_switched_off() -> None:
    async with (
        MockAgent(MOCK_SCENARIO, dialect="1.0") as mock,
        proxy_to(
            ("", mock.base_url), rules=rules({"match": {"method": "SendMessage"}, "fault": {"hold_working": True}})
        ) as (proxy, server),
    ):

        async def send() -> Any:
            async with sdk_client(server.base_url, streaming=False) as client:
                return [r async for r in client.send_message(message("hello"))]

        sender = asyncio.ensure_future(send())
        await until(lambda: "hold_working" in injected_notes(proxy), "the hold")
        assert not sender.done()
        proxy.rules.toggle(0, False)
        (sent,) = await asyncio.wait_for(sender, 20)
    assert sent.task.status.state == 3  # TASK_STATE_COMPLETED
    response = [e for e in proxy.session.events if e.kind is Kind.RESPONSE][-1]
    assert response.data["injected"] == "hold_working"
    assert agent_violations(proxy) == []


async def test_text_matches_the_path_of_a_request_without_a_body() -> None:
    import re

    import httpx

    from inspector.proxy.faults import Match

    held = rules({"match": {"method": "GetTask"}, "fault": {"http_status": 503}, "enabled": False})
    headers = {"A2A-Version": "1.0"}
    async with (
        MockAgent(MOCK_SCENARIO, dialect="1.0") as mock,
        proxy_to(("", mock.base_url), rules=held) as (proxy, server),
        httpx.AsyncClient(timeout=10) as http,
    ):
        sent = await http.post(
            server.base_url + "/rest/message:send",
            headers=headers,
            json={"message": {"role": "ROLE_USER", "messageId": "m-1", "parts": [{"text": "hello"}]}},
        )
        task_id = sent.json()["task"]["id"]
        # The task's id is in the GET's path only: the rule names it there.
        held.rules[0].match = Match(method="GetTask", text=re.escape(task_id))
        held.toggle(0, True)
        other = await http.get(server.base_url + "/rest/tasks/some-other-task", headers=headers)
        faulted = await http.get(server.base_url + f"/rest/tasks/{task_id}", headers=headers)
    assert other.status_code == 404  # relayed: the agent knows no such task
    assert faulted.status_code == 503
    injected = [e.data.get("injected") for e in proxy.session.events if e.kind is Kind.RESPONSE]
    assert injected == [None, None, "http=503"]
