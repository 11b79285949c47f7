"""Every JSON body in shared/wire-captures (a2a-sdk 1.3.0 agent) decodes in its dialect.

Requests go through the server side (decode_request), responses through the client
side (decode_response, and decode_stream_event per SSE ``data:``); error responses
raise JsonRpcError with the code on the wire. The agent's own REST binding bodies are
ProtoJSON and go through the 1.0 codec's params/result/event decoders.
"""

from __future__ import annotations

import json

import pytest

from captures import Capture, all_captures, parse
from inspector.protocol import models as m
from inspector.protocol.dialects import v01, v03, v10
from inspector.protocol.errors import JsonRpcError, ProtocolError
from inspector.protocol.methods import Method
from inspector.protocol.wire import parse_json
from shared_paths import CAPTURES

CAPTURED = all_captures()
BY_NAME = {c.name: c for c in CAPTURED}
RPC = [c for c in CAPTURED if c.method == "POST" and not c.is_rest]
REST = [c for c in CAPTURED if c.is_rest]


def dialect_of(cap: Capture):
    """The dialect the capture's client spoke: from its name where it says, else the
    A2A-Version header (absent means 0.3, as the agent reads it)."""
    if "_v03_" in cap.name:
        return v03
    if "_v10_" in cap.name:
        return v10
    if "_old_" in cap.name:
        return v01
    return v10 if cap.a2a_version == "1.0" else v03


def cap(name: str) -> Capture:
    return BY_NAME[name]


def test_all_captures_parsed() -> None:
    assert len(CAPTURED) == len(list(CAPTURES.glob("*.txt"))) >= 50
    assert len(RPC) >= 40 and len(REST) >= 8


# ---------------------------------------------------------------------- every body


def _rpc_response_docs(c: Capture) -> list:
    return [json.loads(e.data) for e in c.events()] if c.is_sse else [c.response_json()]


@pytest.mark.parametrize("c", RPC, ids=lambda c: c.name)
def test_every_jsonrpc_body_decodes(c: Capture) -> None:
    dialect = dialect_of(c)
    try:
        request = parse_json(c.request_body)
    except ProtocolError:
        assert c.name == "17_malformed_json"
        assert c.response_json()["error"]["code"] == -32700
        return
    try:
        decoded = dialect.decode_request(request)
        method = decoded.method
    except JsonRpcError as exc:
        # Only where the agent refused the request too (and for the same reason class).
        agent = c.response_json()["error"]["code"]
        assert (exc.code, agent) in {(-32601, -32601), (-32600, -32600), (-32602, -32600), (-32602, -32602)}, c.name
        return
    for doc in _rpc_response_docs(c):
        if "error" in doc:
            with pytest.raises(JsonRpcError) as info:
                (dialect.decode_stream_event(doc) if c.is_sse else dialect.decode_response(method, doc))
            assert info.value.code == doc["error"]["code"]
            assert info.value.message == doc["error"]["message"]
        elif c.is_sse:
            event = dialect.decode_stream_event(doc)
            assert isinstance(event, (m.Task, m.Message, m.TaskStatusUpdateEvent, m.TaskArtifactUpdateEvent))
        else:
            assert dialect.decode_response(method, doc) is not None


# ---------------------------------------------------------------------- server side


@pytest.mark.parametrize(
    "name, method, check",
    [
        (
            "02_v03_message_send",
            Method.SEND,
            lambda p: p.message.message_id == "m-1" and p.message.parts[0].text == "hello there inspector",
        ),
        ("05_v10_send", Method.SEND, lambda p: p.message.role is m.Role.USER and p.message.message_id == "m-4"),
        (
            "08_v03_tasks_get_hist1",
            Method.GET,
            lambda p: (p.id, p.history_length) == ("2d7568db-85fe-4f7d-a401-7a3f2e22fed8", 1),
        ),
        ("09_v10_GetTask", Method.GET, lambda p: p.history_length == 0),
        (
            "10_v03_followup",
            Method.SEND,
            lambda p: (
                p.message.task_id == "2d7568db-85fe-4f7d-a401-7a3f2e22fed8" and p.message.context_id.startswith("4b3f")
            ),
        ),
        ("13_v10_CancelTask", Method.CANCEL, lambda p: p.id == "b3a89a1e-e09a-45c9-8c36-92af26264593"),
        (
            "18_old_tasks_send",
            Method.SEND,
            lambda p: (p.message.task_id, p.message.context_id, p.message.message_id) == ("t-old-1", "s-1", None),
        ),
        (
            "18b_old_tasks_sendSubscribe",
            Method.STREAM,
            lambda p: p.message.task_id == "t-old-2" and p.message.context_id is None,
        ),
        (
            "19_v03_send_type_parts",
            Method.SEND,
            lambda p: isinstance(p.message.parts[0], m.TextPart) and p.message.parts[0].text == "typed part",
        ),
        (
            "26_v03_push_set",
            Method.PUSH_SET,
            lambda p: (p.task_id, p.push_notification_config.url) == ("x", "http://127.0.0.1:1/cb"),
        ),
        (
            "27_old_push_set",
            Method.PUSH_SET,
            lambda p: (p.task_id, p.push_notification_config.url) == ("x", "http://127.0.0.1:1/cb"),
        ),
        ("28_v03_ext_card", Method.EXTENDED_CARD, lambda p: p == m.ExtendedCardParams()),
        ("29_v10_ListTasks", Method.LIST, lambda p: p.page_size == 2),
        ("32_v10_ext_card", Method.EXTENDED_CARD, lambda p: p == m.ExtendedCardParams()),
        (
            "35_v03_file_data_parts",
            Method.SEND,
            lambda p: p.configuration.history_length == 1 and len(p.message.parts) == 4,
        ),
        ("37_v03_nonblocking", Method.SEND, lambda p: p.configuration.blocking is False),
        ("38_v03_resubscribe", Method.RESUBSCRIBE, lambda p: p.id == "39f9196c-4b93-4f6c-a58d-6a5cd6d8d72c"),
        ("40_v10_SubscribeToTask", Method.RESUBSCRIBE, lambda p: p.id == "54f56e48-5636-4042-80fd-8d9aa4e3439a"),
        ("40a_v10_nonblocking", Method.SEND, lambda p: p.configuration.blocking is False),
        # The agent answered these with -32601: it does not speak the dialect they are in.
        ("50_pure10_v03_method", Method.SEND, lambda p: p.message.parts[0].text == "hi"),
    ],
)
def test_requests_decode_server_side(name: str, method: Method, check) -> None:
    c = cap(name)
    request = dialect_of(c).decode_request(c.request_json())
    assert request.method is method
    assert request.id == c.request_json()["id"] and request.has_id
    assert check(request.params)


def test_file_and_data_parts_in_both_spellings() -> None:
    v03_msg = v03.decode_request(cap("35_v03_file_data_parts").request_json()).params.message
    v10_msg = v10.decode_request(cap("36b_v10_file_data_parts").request_json()).params.message
    for msg in (v03_msg, v10_msg):
        text, raw, url, data = msg.parts
        assert text.text == "parts demo"
        assert (raw.file.bytes, raw.file.name, raw.file.mime_type, raw.file.uri) == (
            "aGVsbG8=",
            "a.txt",
            "text/plain",
            None,
        )
        assert (url.file.uri, url.file.mime_type, url.file.bytes) == (
            "https://example.invalid/b.png",
            "image/png",
            None,
        )
        assert data.data == {"k": 1}


def test_type_tagged_file_part_and_unknown_key_kept() -> None:
    """19b: an old-style message to a 0.3 agent: type-tagged parts, a stray sessionId."""
    msg = v03.decode_request(cap("19b_v03_send_type_file_part").request_json()).params.message
    assert [p.kind for p in msg.parts] == ["text", "file", "data"]
    assert msg.parts[1].file.bytes == "aGVsbG8="
    assert msg.model_extra == {"sessionId": "s-old"}
    assert v03.encode_params(Method.SEND, m.SendParams(message=msg))["message"]["sessionId"] == "s-old"


@pytest.mark.parametrize("name", ["20_notification_no_id", "31_v10_notification"])
def test_notifications_have_no_id(name: str) -> None:
    c = cap(name)
    request = dialect_of(c).decode_request(c.request_json())
    assert request.has_id is False and request.id is None and request.method is Method.SEND


@pytest.mark.parametrize(
    "name, code, path",
    [
        ("16_unknown_method", -32601, None),
        ("16b_unknown_method_v10", -32601, None),
        ("21_invalid_request", -32600, "$.jsonrpc"),
        ("22_batch", -32600, None),
        ("23_v03_invalid_params", -32602, "$.params.message.role"),
        ("23b_v10_invalid_params", -32602, "$.params.message.role"),
        ("30_v03_tasks_list", -32601, None),
    ],
)
def test_bad_requests_get_the_right_error(name: str, code: int, path: str | None) -> None:
    c = cap(name)
    with pytest.raises(JsonRpcError) as info:
        dialect_of(c).decode_request(c.request_json())
    assert info.value.code == code
    if path:
        assert info.value.data["path"] == path


def test_0_1_has_society_list_and_resubscribe_spelling() -> None:
    """30's tasks/list is Society AI's 0.1 method; 'task/resubscribe' its spelling."""
    assert v01.decode_request(cap("30_v03_tasks_list").request_json()).method is Method.LIST
    req = {"jsonrpc": "2.0", "id": 1, "method": "task/resubscribe", "params": {"id": "t"}}
    assert v01.decode_request(req).method is Method.RESUBSCRIBE


def test_malformed_json_body() -> None:
    with pytest.raises(ProtocolError, match="invalid JSON"):
        parse_json(cap("17_malformed_json").request_body)


# ---------------------------------------------------------------------- client side


def _response(name: str, method: Method):
    c = cap(name)
    return dialect_of(c).decode_response(method, c.response_json())


def _text(parts) -> str:
    return "".join(p.text for p in parts)


@pytest.mark.parametrize("name", ["02_v03_message_send", "05_v10_send"])
def test_send_result_task(name: str) -> None:
    task = _response(name, Method.SEND)
    assert isinstance(task, m.Task)
    assert task.status.state is m.TaskState.COMPLETED
    assert _text(task.status.message.parts) == "done"
    assert task.status.message.role is m.Role.AGENT
    assert [h.role for h in task.history] == [m.Role.USER, m.Role.AGENT]
    assert task.history[0].message_id == ("m-1" if "v03" in name else "m-4")
    assert task.artifacts[0].artifact_id == f"echo-{task.id[:8]}"
    assert _text(task.artifacts[0].parts) == ("echo: hello there inspector" if "v03" in name else "echo: hello one oh")
    # No tag survives as an unknown key.
    assert not task.model_extra and not task.history[0].model_extra and not task.status.message.model_extra


@pytest.mark.parametrize(
    "name, method, state",
    [
        ("07_v03_send_ask", Method.SEND, m.TaskState.INPUT_REQUIRED),
        ("08_v03_tasks_get_hist1", Method.GET, m.TaskState.INPUT_REQUIRED),
        ("09_v10_GetTask", Method.GET, m.TaskState.INPUT_REQUIRED),
        ("12_v03_cancel_input_required", Method.CANCEL, m.TaskState.CANCELED),
        ("13_v10_CancelTask", Method.CANCEL, m.TaskState.CANCELED),
        ("13a_v10_send_ask", Method.SEND, m.TaskState.INPUT_REQUIRED),
        ("37_v03_nonblocking", Method.SEND, m.TaskState.SUBMITTED),
        ("40a_v10_nonblocking", Method.SEND, m.TaskState.SUBMITTED),
    ],
)
def test_task_states(name: str, method: Method, state: m.TaskState) -> None:
    task = _response(name, method)
    assert task.status.state is state


def test_input_required_prompt() -> None:
    task = _response("09_v10_GetTask", Method.GET)
    assert _text(task.status.message.parts) == "What should I echo? Reply on this taskId."
    assert task.history is None  # historyLength 0


def test_send_result_message() -> None:
    msg = _response("36_v10_file_data_parts", Method.SEND)
    assert isinstance(msg, m.Message) and msg.role is m.Role.AGENT
    assert msg.message_id.startswith("reply-") and _text(msg.parts) == "echo: msg with parts"


@pytest.mark.parametrize("name", ["36_v10_GetTask_file_parts", "36b_v10_file_data_parts", "36c_v03_get_v10_task"])
def test_file_parts_in_results(name: str) -> None:
    method = Method.SEND if name.startswith("36b") else Method.GET
    task = _response(name, method)
    user = task.history[0]
    assert [p.kind for p in user.parts] == ["text", "file", "file", "data"]
    assert user.parts[1].file.name == "a.txt" and user.parts[2].file.uri.endswith("b.png")


def test_list_tasks_with_empty_string_defaults() -> None:
    """29: ProtoJSON with defaults written out ("filename": "" on text parts)."""
    result = _response("29_v10_ListTasks", Method.LIST)
    assert (len(result.tasks), result.page_size, result.total_size) == (2, 2, 10)
    assert result.next_page_token.startswith("eyJ0cyI6")
    first = result.tasks[0].status.message
    assert first.parts[0].text == "done" and first.parts[0].model_extra == {"filename": "", "mediaType": ""}
    assert first.extensions == [] and first.reference_task_ids == []
    assert [t.status.state for t in result.tasks] == [m.TaskState.COMPLETED, m.TaskState.CANCELED]


@pytest.mark.parametrize(
    "name, expected",
    [
        ("03_v03_message_stream", "echo: stream me please now"),
        ("06_v10_stream", "echo: stream in one oh"),
        ("38_v03_resubscribe", "echo: slow one two three"),
        ("40_v10_SubscribeToTask", "echo: slow four five six"),
        ("52_long_stream_pings", "echo: long stream test"),
    ],
)
def test_streams(name: str, expected: str) -> None:
    c = cap(name)
    dialect = dialect_of(c)
    events = [dialect.decode_stream_event(json.loads(e.data)) for e in c.events()]
    assert isinstance(events[0], m.Task)
    chunks = [e for e in events if isinstance(e, m.TaskArtifactUpdateEvent)]
    assert len(chunks) == 3
    assert "".join(_text(e.artifact.parts) for e in chunks) == expected
    assert [bool(e.append) for e in chunks] == [False, True, True]
    assert [bool(e.last_chunk) for e in chunks] == [False, False, True]
    assert {e.task_id for e in chunks} == {events[0].id}
    last = events[-1]
    assert isinstance(last, m.TaskStatusUpdateEvent) and last.status.state is m.TaskState.COMPLETED
    # 0.3 says final; 1.0 has no such field.
    assert last.final is (True if dialect is v03 else None)


def test_stream_ending_in_input_required() -> None:
    c = cap("53_v03_stream_ask")
    task, update = (v03.decode_stream_event(json.loads(e.data)) for e in c.events())
    assert task.status.state is m.TaskState.SUBMITTED
    assert update.status.state is m.TaskState.INPUT_REQUIRED and update.final is False


@pytest.mark.parametrize(
    "name, method, code",
    [
        ("04_v10_send_no_version_header", Method.SEND, -32009),
        ("11_v03_cancel_completed", Method.CANCEL, -32002),
        ("14_v03_get_unknown_task", Method.GET, -32001),
        ("15_v10_GetTask_unknown", Method.GET, -32001),
        ("25_v03_name_v10_header", Method.GET, -32603),
        ("26_v03_push_set", Method.PUSH_SET, -32003),
        ("28_v03_ext_card", Method.EXTENDED_CARD, -32004),
        ("32_v10_ext_card", Method.EXTENDED_CARD, -32004),
        ("34_v10_stream_unknown_task", Method.STREAM, -32001),
        ("41_v10_SubscribeToTask_terminal", Method.RESUBSCRIBE, -32004),
    ],
)
def test_error_responses(name: str, method: Method, code: int) -> None:
    c = cap(name)
    dialect = dialect_of(c)
    with pytest.raises(JsonRpcError) as info:
        dialect.decode_response(method, c.response_json())
    assert info.value.code == code
    assert dialect.error_name(code)
    if dialect is v10 and code != -32603:
        assert info.value.data[0]["@type"] == "type.googleapis.com/google.rpc.ErrorInfo"


@pytest.mark.parametrize("name", ["33_v03_stream_unknown_task", "39_v03_resubscribe_completed"])
def test_error_as_sse_event(name: str) -> None:
    (event,) = cap(name).events()
    with pytest.raises(JsonRpcError) as info:
        v03.decode_stream_event(json.loads(event.data))
    assert info.value.code in (-32001, -32004)


def test_error_names() -> None:
    assert v10.error_name(-32009) == "Version not supported"
    assert v03.error_name(-32007) == "Authenticated extended card not configured"
    assert v01.error_name(-32003) == "Push notifications not supported"
    assert v01.error_name(-32007) is None and v01.error_name(-32601) == "Method not found"


# ---------------------------------------------------------------------- REST bodies (ProtoJSON)


def test_rest_v10_bodies_decode_with_the_10_codec() -> None:
    c = cap("42_rest_v10_send")
    params = v10.decode_params(Method.SEND, c.request_json())
    assert params.message.message_id == "r-1"
    task = v10.decode_result(Method.SEND, c.response_json())
    assert task.status.state is m.TaskState.COMPLETED and _text(task.artifacts[0].parts) == "echo: rest hello"
    events = [v10.decode_event(json.loads(e.data)) for e in cap("47_rest_v10_stream").events()]
    assert [type(e).__name__ for e in events] == ["Task"] + ["TaskStatusUpdateEvent"] + [
        "TaskArtifactUpdateEvent"
    ] * 3 + ["TaskStatusUpdateEvent"]


def test_rest_v03_bodies_decode_leniently() -> None:
    """The 0.3 REST binding is the 0.3 proto's JSON: 1.0 enums, but "content" for
    parts and a "final" flag. The 1.0 codec reads it."""
    task = v10.decode_result(Method.SEND, cap("44_rest_v03_send").response_json())
    assert _text(task.history[0].parts) == "rest old" and _text(task.artifacts[0].parts) == "echo: rest old"
    events = [v10.decode_event(json.loads(e.data)) for e in cap("44b_rest_v03_stream").events()]
    assert _text(events[1].status.message.parts) == "echoing..."
    assert events[-1].final is True and events[-1].status.state is m.TaskState.COMPLETED


@pytest.mark.parametrize("c", [c for c in REST if c.status >= 400], ids=lambda c: c.name)
def test_rest_errors_surface_as_errors(c: Capture) -> None:
    with pytest.raises(JsonRpcError) as info:
        v10.decode_response(Method.SEND, c.response_json())
    assert info.value.code == c.status


@pytest.mark.parametrize("dialect", [v03, v10], ids=["0.3", "1.0"])
def test_extended_card_result_goes_through_the_card_codec(dialect) -> None:
    body = cap("01_card_legacy_path").response_json()
    card = dialect.decode_response(Method.EXTENDED_CARD, {"jsonrpc": "2.0", "id": 1, "result": body})
    assert isinstance(card, m.AgentCard) and card.name == "Echo Agent"
    assert card.skills[0].id == "echo"
    out = dialect.encode_result(Method.EXTENDED_CARD, card)
    assert out["name"] == "Echo Agent" and out == dialect.encode_card(card)
    with pytest.raises(ProtocolError, match=r"^\$\.result"):
        dialect.decode_response(Method.EXTENDED_CARD, {"jsonrpc": "2.0", "id": 1, "result": {"name": 5}})


def test_every_dialect_encodes_cards() -> None:
    from inspector.protocol.card import decode_card

    card = decode_card(cap("01_card_legacy_path").response_json())
    assert v01.encode_card(card)["name"] == v03.encode_card(card)["name"] == v10.encode_card(card)["name"]
    assert "supportedInterfaces" in v10.encode_card(card) and "supportedInterfaces" not in v01.encode_card(card)


# ---------------------------------------------------------------------- lossless


def _lossless_cases():
    for c in RPC:
        if c.name in ("19_v03_send_type_parts", "19b_v03_send_type_file_part"):
            continue  # type-tagged parts are normalised to kind: deliberately not lossless
        try:
            request = json.loads(c.request_body)
            dialect = dialect_of(c)
            method = dialect.method_for(request["method"]) if isinstance(request, dict) else None
        except (json.JSONDecodeError, KeyError):
            continue
        if method is None:
            continue
        yield pytest.param(c, dialect, method, id=c.name)


@pytest.mark.parametrize("c, dialect, method", list(_lossless_cases()))
def test_wire_round_trip_is_lossless(c: Capture, dialect, method: Method) -> None:
    """encode(decode(doc)) == doc in the dialect that produced the doc."""
    request = c.request_json()
    if "params" in request:
        try:
            params = dialect.decode_params(method, request["params"])
        except ProtocolError:
            assert c.name.startswith(("21_", "23"))  # the malformed ones
        else:
            assert dialect.encode_params(method, params) == request["params"]
    checked = 0
    for doc in _rpc_response_docs(c):
        if "result" not in doc:
            continue
        if c.is_sse:
            assert dialect.encode_event(dialect.decode_event(doc["result"])) == doc["result"]
        else:
            assert dialect.encode_result(method, dialect.decode_result(method, doc["result"])) == doc["result"]
        checked += 1
    assert checked or any("error" in d for d in _rpc_response_docs(c))


def test_parse_reads_chunks_and_comments() -> None:
    c = parse(CAPTURES / "52_long_stream_pings.txt")
    assert len(c.chunks) == 7 and len(c.events()) == 6  # the ": ping" comment is no event
