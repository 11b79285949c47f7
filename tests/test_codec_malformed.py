"""Malformed input raises ProtocolError naming the JSON path of the problem, in the
spelling the peer sent; never KeyError/TypeError/AttributeError."""

from __future__ import annotations

import copy
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from captures import all_captures
from inspector.protocol.dialects import ALL, v01, v03, v10
from inspector.protocol.errors import JsonRpcError, ProtocolError
from inspector.protocol.methods import Method

R = Method  # short, for the tables

TASK03 = {"kind": "task", "id": "t", "contextId": "c", "status": {"state": "working"}}
MSG03 = {"kind": "message", "role": "agent", "messageId": "m", "parts": [{"kind": "text", "text": "x"}]}
TASK10 = {"id": "t", "contextId": "c", "status": {"state": "TASK_STATE_WORKING"}}
MSG10 = {"role": "ROLE_AGENT", "messageId": "m", "parts": [{"text": "x"}]}


def with_(base: dict, **changes) -> dict:
    out = copy.deepcopy(base)
    out.update(changes)
    return out


# (what to call, the document, the path the error must name)
RESULTS = [
    # ---- 0.3
    (v03, R.SEND, [TASK03], "$.result"),
    (v03, R.SEND, with_(TASK03, kind="tsk"), "$.result.kind"),
    (v03, R.SEND, with_(TASK03, status={"state": "bogus"}), "$.result.status.state"),
    (v03, R.SEND, with_(TASK03, status="working"), "$.result.status"),
    (v03, R.SEND, with_(TASK03, id=None), "$.result.id"),
    (v03, R.SEND, with_(TASK03, history="none"), "$.result.history"),
    (
        v03,
        R.SEND,
        with_(TASK03, history=[with_(MSG03, parts=[{"kind": "text", "text": 5}])]),
        "$.result.history[0].parts[0].text",
    ),
    (v03, R.SEND, with_(TASK03, history=[with_(MSG03, parts=[{"kind": "audio"}])]), "$.result.history[0].parts[0]"),
    (v03, R.SEND, with_(TASK03, history=[with_(MSG03, parts=["x"])]), "$.result.history[0].parts[0]"),
    (v03, R.SEND, with_(MSG03, role="robot"), "$.result.role"),
    (
        v03,
        R.SEND,
        {"kind": "status-update", "taskId": "t", "contextId": "c", "status": {"state": "working"}, "final": False},
        "$.result",
    ),
    (v03, R.SEND, {"contextId": "c"}, "$.result"),
    (
        v03,
        R.STREAM,
        {
            "kind": "artifact-update",
            "taskId": "t",
            "contextId": "c",
            "artifact": {"artifactId": "a", "parts": [{"kind": "text", "text": 5}]},
        },
        "$.result.artifact.parts[0].text",
    ),
    (
        v03,
        R.STREAM,
        {"kind": "artifact-update", "taskId": "t", "artifact": {"artifactId": "a", "parts": {"kind": "text"}}},
        "$.result.artifact.parts",
    ),
    (v03, R.STREAM, {"kind": "status-update", "taskId": "t", "final": False}, "$.result.status"),
    (
        v03,
        R.STREAM,
        {
            "kind": "status-update",
            "taskId": "t",
            "status": {"state": "working", "message": {"role": "agent", "parts": [{"type": "file", "file": "x"}]}},
        },
        "$.result.status.message.parts[0].file",
    ),
    (v03, R.STREAM, {"kind": 7}, "$.result.kind"),
    (v03, R.GET, "task", "$.result"),
    (v03, R.PUSH_SET, {"taskId": "t", "pushNotificationConfig": {}}, "$.result.pushNotificationConfig.url"),
    (v03, R.PUSH_LIST, {"taskId": "t"}, "$.result"),
    (
        v03,
        R.PUSH_LIST,
        [{"taskId": "t", "pushNotificationConfig": {"url": 1}}],
        "$.result[0].pushNotificationConfig.url",
    ),
    (v03, R.PUSH_DELETE, {}, "$.result"),
    # ---- 0.1
    (v01, R.SEND, {"id": {"x": 1}, "status": {"state": "working"}}, "$.result.id"),
    (v01, R.SEND, {"id": "t", "sessionId": 5, "status": {"state": "working"}}, "$.result.sessionId"),
    (v01, R.SEND, {"id": "t", "status": {"state": "dreaming"}}, "$.result.status.state"),
    (v01, R.SEND, {"id": "t", "status": {"state": "working", "message": ["hi"]}}, "$.result.status.message"),
    (
        v01,
        R.SEND,
        {"id": "t", "status": {"state": "working", "message": {"parts": [{"text": "no type"}]}}},
        "$.result.status.message.parts[0]",
    ),
    (
        v01,
        R.SEND,
        {"id": "t", "status": {"state": "working"}, "artifacts": [{"parts": [{"type": "file", "file": {"data": 3}}]}]},
        "$.result.artifacts[0].parts[0].file.data",
    ),
    (
        v01,
        R.SEND,
        {"id": "t", "status": {"state": "working"}, "history": [{"role": "user", "parts": [{"type": "data"}]}]},
        "$.result.history[0].parts[0].data",
    ),
    (v01, R.SEND, {"id": "t", "status": {"state": "working"}, "artifacts": {}}, "$.result.artifacts"),
    (
        v01,
        R.STREAM,
        {"id": "t", "artifact": {"parts": [{"type": "text", "text": None}], "index": 0}},
        "$.result.artifact.parts[0].text",
    ),
    (v01, R.STREAM, {"id": "t", "artifact": {"parts": [], "index": "first"}}, "$.result.artifact.index"),
    (v01, R.STREAM, {"artifact": {"parts": []}}, "$.result.id"),
    (v01, R.STREAM, {"id": "t", "status": {"state": "working"}, "final": "maybe"}, "$.result.final"),
    (v01, R.STREAM, {"id": "t"}, "$.result"),
    (
        v01,
        R.PUSH_GET,
        {"id": "t", "pushNotificationConfig": {"url": "u", "authentication": {"schemes": "jwt"}}},
        "$.result.pushNotificationConfig.authentication.schemes",
    ),
    (v01, R.LIST, {"tasks": [{"id": "t"}]}, "$.result.tasks[0].status"),
    # ---- 1.0
    (v10, R.SEND, TASK10, "$.result"),
    (v10, R.SEND, {"task": with_(TASK10, status={"state": "TASK_STATE_BOGUS"})}, "$.result.task.status.state"),
    (v10, R.SEND, {"task": with_(TASK10, status={"state": 42})}, "$.result.task.status.state"),
    (v10, R.SEND, {"task": with_(TASK10, status={"state": True})}, "$.result.task.status.state"),
    (v10, R.SEND, {"message": with_(MSG10, role="ROLE_UNSPECIFIED")}, "$.result.message.role"),
    (v10, R.SEND, {"message": with_(MSG10, role=True)}, "$.result.message.role"),
    (
        v10,
        R.SEND,
        {"task": with_(TASK10, history=[with_(MSG10, parts=[{"raw": 5}])])},
        "$.result.task.history[0].parts[0].raw",
    ),
    (
        v10,
        R.SEND,
        {"task": with_(TASK10, history=[with_(MSG10, parts=[{"url": "u", "filename": 3}])])},
        "$.result.task.history[0].parts[0].filename",
    ),
    (
        v10,
        R.SEND,
        {"task": with_(TASK10, history=[with_(MSG10, parts=[{"raw": "", "url": "u"}])])},
        "$.result.task.history[0].parts[0]",
    ),
    (
        v10,
        R.SEND,
        {"task": with_(TASK10, history=[with_(MSG10, parts=[{"text": "x", "metadata": 1}])])},
        "$.result.task.history[0].parts[0].metadata",
    ),
    (v10, R.SEND, {"message": with_(MSG10, parts=[{"filename": "f"}])}, "$.result.message.parts[0]"),
    (
        v10,
        R.STREAM,
        {
            "statusUpdate": {
                "taskId": "t",
                "status": {"state": "TASK_STATE_WORKING", "message": {"role": "ROLE_AGENT", "parts": [{"text": []}]}},
            }
        },
        "$.result.statusUpdate.status.message.parts[0].text",
    ),
    (
        v10,
        R.STREAM,
        {"artifactUpdate": {"taskId": "t", "artifact": {"artifactId": "a", "parts": [{}]}}},
        "$.result.artifactUpdate.artifact.parts[0]",
    ),
    (
        v10,
        R.STREAM,
        {
            "artifactUpdate": {
                "taskId": "t",
                "artifact": {"artifactId": "a", "parts": [{"text": "x"}]},
                "append": "maybe",
            }
        },
        "$.result.artifactUpdate.append",
    ),
    (v10, R.STREAM, {"status_update": {"taskId": 1, "status": {"state": 2}}}, "$.result.status_update.taskId"),
    (v10, R.STREAM, {"update": {}}, "$.result"),
    (v10, R.RESUBSCRIBE, {"task": []}, "$.result.task"),
    (v10, R.LIST, {"tasks": "all"}, "$.result.tasks"),
    (v10, R.LIST, {"tasks": [TASK10], "pageSize": "two"}, "$.result.pageSize"),
    (v10, R.PUSH_GET, {"taskId": "t"}, "$.result.url"),
    (v10, R.PUSH_GET, {"taskId": "t", "url": "u", "authentication": {"scheme": 1}}, "$.result.authentication.scheme"),
    (v10, R.PUSH_LIST, {"configs": [{"url": "u"}]}, "$.result.configs[0].taskId"),
    (v10, R.PUSH_DELETE, {"deleted": True}, "$.result"),
]


@pytest.mark.parametrize("dialect, method, doc, path", RESULTS, ids=lambda x: None)
def test_malformed_results_name_the_path(dialect, method: Method, doc, path: str) -> None:
    response = {"jsonrpc": "2.0", "id": 1, "result": doc}
    with pytest.raises(ProtocolError) as info:
        if method.streams:
            dialect.decode_stream_event(response)
        else:
            dialect.decode_response(method, response)
    assert info.value.path == path, str(info.value)
    assert str(info.value).startswith(path)


PARAMS = [
    # ---- 0.3
    (v03, R.SEND, None, "$.params"),
    (v03, R.SEND, {}, "$.params.message"),
    (v03, R.SEND, {"message": {"role": "user", "parts": [{"kind": "text"}]}}, "$.params.message.parts[0].text"),
    (
        v03,
        R.SEND,
        {"message": {"role": "user", "parts": []}, "configuration": {"blocking": "maybe"}},
        "$.params.configuration.blocking",
    ),
    (v03, R.GET, {"id": 5}, "$.params.id"),
    (v03, R.GET, {"id": "t", "historyLength": "all"}, "$.params.historyLength"),
    (v03, R.PUSH_SET, {"taskId": "t"}, "$.params.pushNotificationConfig"),
    (v03, R.PUSH_DELETE, {"id": "t"}, "$.params.pushNotificationConfigId"),
    # ---- 0.1
    (v01, R.SEND, {"message": {"role": "user", "parts": []}}, "$.params.id"),
    (v01, R.SEND, {"id": "t"}, "$.params.message"),
    (v01, R.SEND, {"id": [], "message": {"role": "user", "parts": []}}, "$.params.id"),
    (v01, R.SEND, {"id": "t", "sessionId": 3, "message": {"role": "user", "parts": []}}, "$.params.sessionId"),
    (
        v01,
        R.SEND,
        {"id": "t", "message": {"role": "user", "parts": [{"type": "text", "text": 1}]}},
        "$.params.message.parts[0].text",
    ),
    (v01, R.SEND, {"id": "t", "message": {"parts": []}}, "$.params.message.role"),
    (
        v01,
        R.SEND,
        {"id": "t", "message": {"role": "user", "parts": []}, "historyLength": "ten"},
        "$.params.historyLength",
    ),
    (
        v01,
        R.SEND,
        {"id": "t", "message": {"role": "user", "parts": []}, "pushNotification": {"token": "x"}},
        "$.params.pushNotification.url",
    ),
    (
        v01,
        R.SEND,
        {"id": "t", "message": {"role": "user", "parts": []}, "acceptedOutputModes": ["text", 2]},
        "$.params.acceptedOutputModes[1]",
    ),
    (v01, R.PUSH_SET, {"id": "t"}, "$.params.pushNotificationConfig"),
    (v01, R.PUSH_SET, {"id": "t", "pushNotificationConfig": []}, "$.params.pushNotificationConfig"),
    (v01, R.LIST, {"sessionId": 1}, "$.params.sessionId"),
    (v01, R.CANCEL, {"id": None}, "$.params.id"),
    # ---- 1.0
    (v10, R.SEND, [], "$.params"),
    (
        v10,
        R.SEND,
        {
            "message": {"role": "ROLE_USER", "messageId": "m", "parts": [{"text": "x"}]},
            "configuration": {"returnImmediately": "yes"},
        },
        "$.params.configuration.returnImmediately",
    ),
    (v10, R.SEND, {"message": {"role": 42}}, "$.params.message.role"),
    (v10, R.SEND, {"message": {"role": "ROLE_USER", "parts": "x"}}, "$.params.message.parts"),
    (
        v10,
        R.SEND,
        {
            "message": {"role": "ROLE_USER", "parts": []},
            "configuration": {"taskPushNotificationConfig": {"token": "t"}},
        },
        "$.params.configuration.taskPushNotificationConfig.url",
    ),
    (
        v10,
        R.SEND,
        {"message": {"role": "ROLE_USER", "parts": []}, "configuration": {"historyLength": []}},
        "$.params.configuration.historyLength",
    ),
    (v10, R.PUSH_SET, {"url": "u"}, "$.params.taskId"),
    (v10, R.PUSH_SET, {"taskId": "t", "url": 5}, "$.params.url"),
    (v10, R.PUSH_SET, {"taskId": "t", "url": "u", "authentication": "Bearer"}, "$.params.authentication"),
    (v10, R.PUSH_GET, {"id": "c"}, "$.params.taskId"),
    (v10, R.PUSH_DELETE, {"taskId": "t"}, "$.params.id"),
    (v10, R.PUSH_DELETE, {"taskId": "t", "id": 3}, "$.params.id"),
    (v10, R.LIST, {"status": "TASK_STATE_SLEEPING"}, "$.params.status"),
    (v10, R.GET, {"historyLength": 1}, "$.params.id"),
]


@pytest.mark.parametrize("dialect, method, params, path", PARAMS, ids=lambda x: None)
def test_malformed_params_name_the_path(dialect, method: Method, params, path: str) -> None:
    with pytest.raises(ProtocolError) as info:
        dialect.decode_params(method, params)
    assert info.value.path == path, str(info.value)
    # Through the server-side entry point the same path comes back as -32602.
    with pytest.raises(JsonRpcError) as rpc:
        dialect.decode_request({"jsonrpc": "2.0", "id": 1, "method": dialect.methods[method], "params": params})
    assert rpc.value.code == -32602 and rpc.value.data["path"] == path


@pytest.mark.parametrize(
    "doc, path",
    [
        ([], "$"),
        ({"jsonrpc": "2.0", "id": 1}, "$"),
        ({"jsonrpc": "2.0", "id": 1, "error": "bad"}, "$.error"),
        ({"jsonrpc": "2.0", "id": 1, "error": {"code": "x", "message": "m"}}, "$.error.code"),
        ({"jsonrpc": "2.0", "id": 1, "error": {"code": -32001, "message": 7}}, "$.error.message"),
    ],
)
@pytest.mark.parametrize("dialect", ALL, ids=[d.name for d in ALL])
def test_malformed_envelopes(dialect, doc, path: str) -> None:
    with pytest.raises(ProtocolError) as info:
        dialect.decode_response(Method.GET, doc)
    assert info.value.path == path


# ---------------------------------------------------------------------- anything at all

_DECODERS = [(d, method) for d in ALL for method in d.methods if method is not Method.EXTENDED_CARD]

json_docs = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 9)
    | st.sampled_from(["", "x", "text", "working", "TASK_STATE_WORKING", "ROLE_USER", "user"]),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(
                [
                    "id",
                    "taskId",
                    "kind",
                    "type",
                    "status",
                    "state",
                    "message",
                    "parts",
                    "text",
                    "raw",
                    "url",
                    "data",
                    "file",
                    "artifact",
                    "artifacts",
                    "history",
                    "role",
                    "final",
                    "task",
                    "statusUpdate",
                    "artifactUpdate",
                    "sessionId",
                    "contextId",
                    "pushNotificationConfig",
                    "configuration",
                    "tasks",
                    "configs",
                    "authentication",
                    "scheme",
                    "bytes",
                    "uri",
                    "append",
                    "lastChunk",
                    "metadata",
                    "returnImmediately",
                    "messageId",
                ]
            ),
            inner,
            max_size=5,
        )
    ),
    max_leaves=25,
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=json_docs, which=st.integers(0, len(_DECODERS) - 1))
def test_arbitrary_json_never_crashes(doc, which: int) -> None:
    dialect, method = _DECODERS[which]
    for call in (
        lambda: dialect.decode_result(method, doc),
        lambda: dialect.decode_params(method, doc),
        lambda: dialect.decode_event(doc),
    ):
        try:
            call()
        except ProtocolError:
            pass


def _captured_docs():
    out = []
    for c in all_captures():
        bodies = [e.data for e in c.events()] if c.is_sse else [c.response_body, c.request_body]
        for body in bodies:
            try:
                doc = json.loads(body) if body else None
            except json.JSONDecodeError:
                continue
            if isinstance(doc, dict) and isinstance(doc.get("result"), dict):
                out.append(doc["result"])
            elif isinstance(doc, dict) and isinstance(doc.get("params"), dict):
                out.append(doc["params"])
    return out


CAPTURED_DOCS = [d for d in _captured_docs() if d]


def _nodes(doc, path=()):
    yield path
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from _nodes(v, path + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from _nodes(v, path + (i,))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_mutated_captures_never_crash(data) -> None:
    """A real document with one node replaced by arbitrary JSON: decoded or refused
    with a ProtocolError, nothing else."""
    doc = copy.deepcopy(data.draw(st.sampled_from(CAPTURED_DOCS)))
    path = data.draw(st.sampled_from(list(_nodes(doc))[1:]))
    target = doc
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = data.draw(json_docs)
    for dialect, method in _DECODERS:
        for call in (dialect.decode_result, dialect.decode_params):
            try:
                call(method, doc)
            except ProtocolError:
                pass
