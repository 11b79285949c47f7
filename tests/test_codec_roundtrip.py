"""decode(encode(x)) == x for every dialect, modulo each dialect's documented losses.

The losses are applied to the *expected* value by ``expected()`` below, one line per
loss, so the property stays exact: anything a codec loses that is not listed fails.

Also wire-level: what a codec emits, decoded and emitted again, is unchanged.
"""

from __future__ import annotations

import json
import uuid

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import codec_strategies as cs
from inspector.protocol import models as m
from inspector.protocol.dialects import ALL, v01, v03, v10
from inspector.protocol.methods import Method
from inspector.protocol.states import is_terminal

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
DIALECT_IDS = [d.name for d in ALL]


def _through_json(doc):
    return json.loads(json.dumps(doc))


# ---------------------------------------------------------------------- the losses


def _messages(x):
    """Every Message inside x (a normalised object), including x itself."""
    if isinstance(x, m.Message):
        yield x
    elif isinstance(x, m.Task):
        if x.status.message:
            yield x.status.message
        yield from x.history or ()
    elif isinstance(x, m.TaskStatusUpdateEvent) and x.status.message:
        yield x.status.message


def _artifacts(x):
    if isinstance(x, m.Task):
        yield from x.artifacts or ()
    elif isinstance(x, m.ListTasksResult):
        for t in x.tasks:
            yield from t.artifacts or ()


def _final(event: m.TaskStatusUpdateEvent) -> None:
    # 0.1 and 0.3 need final on the wire; an absent one is derived from the state.
    if event.final is None:
        event.final = is_terminal(event.status.state)


def expected(dialect, x, method: Method | None = None):
    x = x.model_copy(deep=True) if x is not None else None
    items = x.tasks if isinstance(x, m.ListTasksResult) else [x]
    if dialect is v01:
        for item in items:
            for msg in _messages(item):
                # 0.1 messages have no ids.
                msg.message_id = msg.task_id = msg.context_id = None
        if isinstance(x, m.SendParams):
            x.message.message_id = None  # task and context ride on params.id / sessionId
            if x.configuration is not None:
                x.configuration.blocking = None  # tasks/send always blocks
                if not x.configuration.model_dump(exclude_none=True):
                    x.configuration = None
        if isinstance(x, m.TaskStatusUpdateEvent):
            x.context_id = None
            _final(x)
        if isinstance(x, m.TaskArtifactUpdateEvent):
            x.context_id = None
            # The chunk flags live on the 0.1 artifact and are copied to the event.
            for key in ("append", "last_chunk"):
                value = getattr(x.artifact, key)
                value = getattr(x, key) if value is None else value
                setattr(x.artifact, key, value)
                setattr(x, key, value)
    elif dialect is v03:
        if isinstance(x, m.TaskStatusUpdateEvent):
            _final(x)
    elif dialect is v10:
        if isinstance(x, m.TaskStatusUpdateEvent):
            x.final = None  # 1.0 has no final
        for item in items:
            for art in _artifacts(item):
                # 1.0 artifacts have no index and no chunk flags.
                art.index = art.append = art.last_chunk = None
        if isinstance(x, m.TaskArtifactUpdateEvent):
            x.artifact.index = None
            for key in ("append", "last_chunk"):
                if getattr(x, key) is None:
                    setattr(x, key, getattr(x.artifact, key))
                setattr(x.artifact, key, None)
        configs = []
        if isinstance(x, m.TaskPushNotificationConfig):
            configs.append(x.push_notification_config)
        if isinstance(x, m.SendParams) and x.configuration and x.configuration.push_notification_config:
            configs.append(x.configuration.push_notification_config)
        for config in configs:
            if config.authentication is not None:
                # 1.0 names a single scheme.
                config.authentication.schemes = config.authentication.schemes[:1]
        if method in (
            Method.GET,
            Method.RESUBSCRIBE,
            Method.PUSH_GET,
            Method.PUSH_LIST,
            Method.PUSH_DELETE,
            Method.LIST,
            Method.EXTENDED_CARD,
        ):
            x.metadata = None  # these 1.0 requests have no metadata field
    return x


# ---------------------------------------------------------------------- params


def _params_cases():
    for d in ALL:
        for method in d.methods:
            yield pytest.param(d, method, id=f"{d.name}-{method.value}")


@pytest.mark.parametrize("dialect, method", list(_params_cases()))
@SETTINGS
@given(data=st.data())
def test_params_round_trip(dialect, method: Method, data) -> None:
    params = data.draw(cs.params_for(method))
    wire = _through_json(dialect.encode_request(method, params, 11))
    request = dialect.decode_request(wire)
    assert (request.method, request.id, request.wire_method) == (method, 11, dialect.methods[method])
    want = expected(dialect, params, method)
    if dialect is v01 and method in (Method.SEND, Method.STREAM) and params.message.task_id is None:
        # The client picks the task id in 0.1: the codec made one up.
        uuid.UUID(request.params.message.task_id)
        want.message.task_id = request.params.message.task_id
        if params.message.context_id is None:
            # ... and, for a new task, the session (a 0.1 stream never names it).
            uuid.UUID(request.params.message.context_id)
            want.message.context_id = request.params.message.context_id
    assert request.params == want
    # Wire level: once through the codec, the wire form is a fixed point.
    assert dialect.encode_params(method, request.params) == wire.get("params")


# ---------------------------------------------------------------------- results, events


def _result_cases():
    for d in ALL:
        for method in d.methods:
            if method is not Method.EXTENDED_CARD:  # the card codec is tested with card.py
                yield pytest.param(d, method, id=f"{d.name}-{method.value}")


@pytest.mark.parametrize("dialect, method", list(_result_cases()))
@SETTINGS
@given(data=st.data())
def test_results_round_trip(dialect, method: Method, data) -> None:
    if method is Method.LIST and dialect is v01:
        result = data.draw(cs.list_results())
    else:
        result = data.draw(cs.results_for(method))
    wire = _through_json(dialect.encode_response(method, result, "r"))
    decoded = dialect.decode_response(method, wire)
    if method is Method.PUSH_LIST:
        assert decoded == [expected(dialect, c) for c in result]
    elif result is None:
        assert decoded is None
    else:
        assert decoded == expected(dialect, result, None)
        assert type(decoded) is type(result)
    again = dialect.encode_result(method, decoded)
    assert again == wire["result"]


@pytest.mark.parametrize("dialect", ALL, ids=DIALECT_IDS)
@SETTINGS
@given(event=cs.stream_events())
def test_stream_events_round_trip(dialect, event) -> None:
    wire = _through_json(dialect.encode_stream_event(event, 4))
    decoded = dialect.decode_stream_event(wire)
    assert type(decoded) is type(event)
    assert decoded == expected(dialect, event)
    assert dialect.encode_event(decoded) == wire["result"]


@pytest.mark.parametrize("dialect", [v03, v10], ids=["0.3", "1.0"])
@SETTINGS
@given(message=cs.messages())
def test_message_without_id_gets_a_fresh_one(dialect, message: m.Message) -> None:
    message.message_id = None
    first = dialect.encode_params(Method.SEND, m.SendParams(message=message))["message"]["messageId"]
    second = dialect.encode_params(Method.SEND, m.SendParams(message=message))["message"]["messageId"]
    assert first != second and str(uuid.UUID(first)) == first
    assert message.message_id is None  # the caller's object is not touched


def test_encoders_accept_plain_dicts() -> None:
    """A scenario file gives dicts in the normalised spelling; they are validated."""
    task = {"id": "t", "contextId": "c", "status": {"state": "working"}}
    assert v10.encode_result(Method.GET, task)["status"]["state"] == "TASK_STATE_WORKING"
    assert v01.encode_result(Method.GET, task)["sessionId"] == "c"
    assert v03.encode_result(Method.GET, task)["kind"] == "task"
    update = {"kind": "status-update", "taskId": "t", "contextId": "c", "status": {"state": "completed"}}
    assert v10.encode_event(update) == {
        "statusUpdate": {"taskId": "t", "contextId": "c", "status": {"state": "TASK_STATE_COMPLETED"}}
    }
    assert v01.encode_event(update) == {"id": "t", "status": {"state": "completed"}, "final": True}
    reply = {"role": "agent", "parts": [{"kind": "text", "text": "hi"}], "messageId": "m"}
    assert v10.encode_result(Method.SEND, reply)["message"]["role"] == "ROLE_AGENT"


@pytest.mark.parametrize("dialect", ALL, ids=DIALECT_IDS)
def test_methods_a_dialect_lacks_are_refused(dialect) -> None:
    from inspector.protocol.errors import ProtocolError

    missing = [mt for mt in Method if mt not in dialect.methods]
    for method in missing:
        with pytest.raises(ProtocolError, match=method.value):
            dialect.encode_request(method, None, 1)
        with pytest.raises(ProtocolError):
            dialect.decode_result(method, {})
    assert {v01: 3, v03: 1, v10: 0}[dialect] == len(missing)
