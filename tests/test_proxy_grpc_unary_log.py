"""The proxy's log of a relayed unary gRPC call (inspector/proxy/grpc_records.py
CallRecords) writes each body's ProtoJSON text in one C call and decodes its payload from
the dict the text was written from (grpc_schema.to_json_text, payloads.grpc_request_payload
and grpc_answer_payload), not by parsing the text it has just written. That must change
nothing: each REQUEST and RESPONSE holds the text json_format's dict gives through
json.dumps, and the payload a replay derives from the record (payloads.request_payload,
response_payload); the proxy's tracker shows what a tracker folding those replayed payloads
shows. The agent is a loopback grpc.aio server whose answers are built in advance."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest

from inspector.protocol import grpc_schema
from inspector.protocol.methods import Method
from inspector.proxy import Proxy, ProxyServer, Route
from inspector.session import Event, Kind, TaskTracker, payloads
from inspector.session.events import _LAZY
from proxy_helpers import grpc_agent, until
from test_tracker_fast import state

V10, V03 = "lf.a2a.v1.A2AService", "a2a.v1.A2AService"
#: Every character json.dumps(ensure_ascii=False) escapes, and some it writes as they are.
HOSTILE = "".join(map(chr, range(0x20))) + '"\\\x7f é \u2028\u2029 😀 </script> \ufeff \ud7ff \U0010ffff'


def _task(task_id: str, state: str = "TASK_STATE_COMPLETED", text: str = "done", **more: Any) -> dict[str, Any]:
    task = {
        "id": task_id,
        "contextId": "c1",
        "status": {"state": state},
        "artifacts": [{"artifactId": "a", "name": "answer", "parts": [{"text": text}]}],
    }
    task.update(more)
    return task


#: The 1.0 agent's answer to SendMessage, by the word the request's text starts with: the
#: short way's plain cases, hostile text, what goes to json_format whole (floats in a
#: Struct, an unknown enum number), answers whose decoding fails (no id), a Message, an
#: unfinished task (a finding), and bytes that are no SendMessageResponse.
ANSWERS: dict[str, Any] = {
    "plain": {"task": _task("t-plain")},
    "hostile": {"task": _task("t-hostile", text=HOSTILE, metadata={"k": HOSTILE})},
    "floats": {"task": _task("t-floats", metadata={"f": 1.5, "big": 1e20, "tiny": 1e-7, "list": [1, 2.25, "x"]})},
    "enum": {"task": _task("t-enum", state="TASK_STATE_COMPLETED")},  # its state put at 999 below
    "noid": {"task": _task("")},
    "message": {"message": {"messageId": "r1", "role": "ROLE_AGENT", "parts": [{"text": HOSTILE}]}},
    "working": {"task": _task("t-working", state="TASK_STATE_WORKING")},
    "bad": b"\xff\xff\xff",
}


def _answer(word: str) -> bytes:
    answer = ANSWERS[word]
    if isinstance(answer, bytes):
        return answer
    message = grpc_schema.from_json("1.0", "SendMessageResponse", answer)
    if word == "enum":
        message.task.status.state = 999
    return message.SerializeToString()


#: Each answer serialized once: the bytes the agent sends are those the test reads.
SENT = {word: _answer(word) for word in ANSWERS}
GOT = grpc_schema.from_json("1.0", "Task", _task("t-plain", text="got")).SerializeToString()


def _send(word: str, **message: Any) -> bytes:
    body = {"messageId": f"m-{word}", "role": "ROLE_USER", "parts": [{"text": f"{word} {HOSTILE}"}], **message}
    return grpc_schema.from_json("1.0", "SendMessageRequest", {"message": body}).SerializeToString()


#: The 0.3 agent's task (its proto names the parts "content" and the answer's message "msg").
TASK_03 = grpc_schema.from_json(
    "0.3",
    "SendMessageResponse",
    {"task": {"id": "t-03", "contextId": "c3", "status": {"state": "TASK_STATE_COMPLETED"}}},
).SerializeToString()
SEND_03 = grpc_schema.from_json(
    "0.3",
    "SendMessageRequest",
    {"request": {"messageId": "m-03", "role": "ROLE_USER", "content": [{"text": HOSTILE}]}, "metadata": {"n": 0.5}},
).SerializeToString()


@contextlib.asynccontextmanager
async def agent() -> AsyncIterator[str]:
    async def send(req: bytes, _context: Any) -> bytes:
        text = grpc_schema.decode("1.0", "SendMessageRequest", req).message.parts[0].text
        return SENT[text.split(" ", 1)[0]]

    async def get(_req: bytes, _context: Any) -> bytes:
        return GOT

    async def cancel(_req: bytes, context: Any) -> bytes:
        await context.abort(grpc.StatusCode.FAILED_PRECONDITION, "task t-plain cannot be cancelled")
        return b""  # pragma: no cover

    async def delete(_req: bytes, _context: Any) -> bytes:
        return b""  # google.protobuf.Empty

    async def send_03(_req: bytes, _context: Any) -> bytes:
        return TASK_03

    handlers = {
        f"/{V10}/SendMessage": send,
        f"/{V10}/GetTask": get,
        f"/{V10}/CancelTask": cancel,
        f"/{V10}/DeleteTaskPushNotificationConfig": delete,
        f"/{V03}/SendMessage": send_03,
    }

    class Handler(grpc.GenericRpcHandler):
        def service(self, details: Any) -> Any:
            found = handlers.get(details.method)
            return grpc.unary_unary_rpc_method_handler(found) if found is not None else None

    async with grpc_agent(Handler()) as address:
        yield address


#: (path, request bytes, the agent's answer: None for an error status) of every call, in order.
CALLS = [
    *[(f"/{V10}/SendMessage", _send(word), SENT[word]) for word in ANSWERS],
    # A continuation in the plain task's context without naming it: no finding (the
    # task is done), but the check reads the decoded params.
    (f"/{V10}/SendMessage", _send("plain", contextId="c1", metadata={"f": 2.5, "s": HOSTILE}), SENT["plain"]),
    (f"/{V10}/GetTask", grpc_schema.from_json("1.0", "GetTaskRequest", {"id": "t-plain"}).SerializeToString(), GOT),
    (
        f"/{V10}/CancelTask",
        grpc_schema.from_json("1.0", "CancelTaskRequest", {"id": "t-plain"}).SerializeToString(),
        None,
    ),
    (
        f"/{V10}/DeleteTaskPushNotificationConfig",
        grpc_schema.from_json(
            "1.0", "DeleteTaskPushNotificationConfigRequest", {"taskId": "t-plain", "id": "p1"}
        ).SerializeToString(),
        b"",
    ),
    (f"/{V10}/GetTask", b"\xff\xff\xff", GOT),  # a request that is no GetTaskRequest: base64, no payload
    (f"/{V03}/SendMessage", SEND_03, TASK_03),
]


def _same(got: Any, derived: Any) -> bool:
    """A payload as logged and as derived again: models compare equal; an error by its
    class and words (exceptions compare by identity)."""
    if isinstance(derived, Exception):
        return type(got) is type(derived) and str(got) == str(derived)
    return type(got) is type(derived) and bool(got == derived)


def _errors_said(value: Any) -> Any:
    """A tracker's state with each error as its class and words (state() copies them,
    and exceptions compare by identity)."""
    if isinstance(value, Exception):
        return (type(value).__name__, str(value))
    if isinstance(value, dict):
        return {k: _errors_said(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_errors_said(v) for v in value]
    return value


def _general_text(dialect: str, name: str, raw: bytes) -> str:
    from google.protobuf import json_format

    obj = json_format.MessageToDict(grpc_schema.decode(dialect, name, raw))
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


async def test_unary_records_and_payloads_are_what_a_replay_derives(monkeypatch: pytest.MonkeyPatch) -> None:
    proxy = Proxy([Route("", "http://127.0.0.1:9")])

    # The lean way is the one taken: parsing a logged body again would not show in the
    # records, only in the CPU.
    def reparsed(*_args: Any) -> Any:
        raise AssertionError("the proxy parsed a unary call's body again")

    with monkeypatch.context() as patch:
        patch.setattr(payloads, "parse_json", reparsed)
        async with agent() as upstream, ProxyServer(proxy, grpc_upstream=upstream):
            (listener,) = proxy.grpc.listeners.values()
            async with grpc.aio.insecure_channel(listener.address) as channel:
                for path, body, _answer in CALLS:
                    with contextlib.suppress(grpc.aio.AioRpcError):
                        await channel.unary_unary(path)(body, metadata=(("a2a-version", "1.0"),))
            await until(
                lambda: len([e for e in proxy.session.events if e.kind is Kind.RESPONSE]) == len(CALLS), "answers"
            )
    events = list(proxy.session.events)
    requests = {e.exchange: e for e in events if e.kind is Kind.REQUEST}
    responses = {e.exchange: e for e in events if e.kind is Kind.RESPONSE}
    assert len(requests) == len(responses) == len(CALLS)
    # The fields in the order a recording writes them (the general path's {..., **info, ...}).
    assert {tuple(e.data) for e in requests.values()} == {
        (
            *("method", "url", "headers", "body", "body_encoding", "body_size", "content_type"),
            *("dialect", "binding", "a2a_method", "rpc_method", "rpc_id", "grpc_path"),
            *("client", "user_agent", "proxy_route"),
        )
    }
    rpcs = {**grpc_schema.rpcs("1.0"), **{f"03/{k}": v for k, v in grpc_schema.rpcs("0.3").items()}}
    replayed = []
    for number, (path, body, sent) in zip(sorted(requests), CALLS, strict=True):
        request, response = requests[number], responses[number]
        dialect = "0.3" if path.startswith(f"/{V03}/") else "1.0"
        rpc = rpcs[("03/" if dialect == "0.3" else "") + path.rsplit("/", 1)[1]]
        if body == b"\xff\xff\xff":
            assert request.data["body_encoding"] == "base64" and request.payload is None
        else:
            assert request.data["body"] == _general_text(dialect, rpc.request, body)
        again = payloads.request_payload(request.data)
        assert _same(request.payload, again), (path, request.payload, again)
        if sent is None or sent == b"\xff\xff\xff":
            assert response.data["body_encoding"] in (None, "base64")
        else:
            assert response.data["body"] == _general_text(dialect, rpc.response, sent)
        answer = payloads.response_payload(request.data, response.data)
        if sent == b"\xff\xff\xff":
            # Bytes that are no answer: a replay says why, as the live log did (it read the
            # base64 text as JSON and said that was not JSON).
            assert str(answer).startswith("not a valid lf.a2a.v1.SendMessageResponse")
        assert _same(response.payload, answer), (path, response.payload, answer)
        replayed += [(request, again), (response, answer)]
    # Each kind of payload came: models, decoding failures, the agent's error, none.
    kinds = {type(e.payload).__name__ for e in responses.values()}
    assert {"Task", "Message", "ProtocolError", "GrpcError", "NoneType"} <= kinds, kinds
    hostile = next(e for e in responses.values() if "t-hostile" in (e.data.get("body") or ""))
    assert hostile.payload.artifacts[0].parts[0].text == HOSTILE
    assert json.loads(hostile.data["body"])["task"]["metadata"] == {"k": HOSTILE}
    floats = next(e for e in responses.values() if "t-floats" in (e.data.get("body") or ""))
    assert '"big":1e+20' in floats.data["body"] and floats.payload.metadata["tiny"] == 1e-7
    # The proxy's tracker, against one folding every event with the payload a replay derives.
    tracker = TaskTracker(messages_kept=10_000)
    derived = dict((id(e), p) for e, p in replayed)
    for e in events:
        payload = derived.get(id(e), e.payload if e._payload is not _LAZY else _LAZY)
        tracker.apply(Event(e.seq, e.t, e.kind, e.exchange, e.data, e.wall, payload))
    assert _errors_said(state(tracker)) == _errors_said(state(proxy.tracker))
    assert "blocking-not-final" in {v.code for v in proxy.tracker.violations}
    assert proxy.tracker.task("t-plain") is not None and proxy.tracker.task("t-03") is not None


def test_a_payload_from_the_dict_is_the_payload_from_its_text() -> None:
    """grpc_request_payload and grpc_answer_payload give what parsing the text gives, a
    body nested past the JSON bound included (parse_json's ProtocolError)."""
    deep: Any = "x"
    for _ in range(250):
        deep = [deep]
    plain = {"message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "hi"}]}}
    nested = {"message": {**plain["message"], "metadata": {"d": deep}}}
    for obj in (plain, nested, {"message": {"role": "ROLE_NOBODY"}}):
        text = grpc_schema.protojson_text(obj)
        data = {"dialect": "1.0", "binding": "grpc", "a2a_method": "send", "body": text, "body_encoding": "utf-8"}
        assert _same(payloads.grpc_request_payload("1.0", Method.SEND, obj, text), payloads.request_payload(data))
    for answer in ({"task": _task("t")}, {"task": {**_task("t"), "metadata": {"d": deep}}}, {"task": {}}):
        text = grpc_schema.protojson_text(answer)
        request = {"dialect": "1.0", "binding": "grpc", "a2a_method": "send"}
        response = {"body": text, "body_encoding": "utf-8", "grpc_code": 0, "streaming": False}
        got = payloads.grpc_answer_payload("1.0", Method.SEND, answer, text)
        assert _same(got, payloads.response_payload(request, response)), (got, answer)
    assert "levels deep" in str(
        payloads.grpc_answer_payload("1.0", Method.SEND, {"task": {"metadata": deep}}, "[" * 201)
    )
    assert payloads.grpc_answer_payload("1.0", Method.PUSH_DELETE, {}, "{}") is None
