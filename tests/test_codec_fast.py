"""The dialects' shortcut for artifact-update events (dialects/_fast.py) against the
general decoder: wherever the shortcut answers, its answer is the general path's, down
to the fields-set and the unknown keys of every model; everywhere else it declines, so
errors are always the general path's own."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

import codec_strategies as cs
from inspector.protocol import models as m
from inspector.protocol.dialects import v01, v03, v10
from inspector.protocol.errors import JsonRpcError, ProtocolError
from inspector.protocol.wire import decode_sse_data, parse_json

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def differences(a, b, path="$"):
    """Where two decoded values differ, model internals included (None when they don't)."""
    if type(a) is not type(b):
        return f"{path}: {type(a).__name__} vs {type(b).__name__}"
    if isinstance(a, BaseModel):
        if a.__pydantic_fields_set__ != b.__pydantic_fields_set__:
            return f"{path}: fields set {sorted(a.__pydantic_fields_set__)} vs {sorted(b.__pydantic_fields_set__)}"
        if a.__pydantic_extra__ != b.__pydantic_extra__:
            return f"{path}: extra {a.__pydantic_extra__} vs {b.__pydantic_extra__}"
        if a.__pydantic_private__ != b.__pydantic_private__:
            return f"{path}: private"
        return differences(a.__dict__, b.__dict__, path)
    if isinstance(a, dict):
        if list(a) != list(b):
            return f"{path}: keys {list(a)} vs {list(b)}"
        return next((d for k in a if (d := differences(a[k], b[k], f"{path}.{k}"))), None)
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{path}: {len(a)} vs {len(b)} items"
        return next(
            (d for i, (x, y) in enumerate(zip(a, b, strict=True)) if (d := differences(x, y, f"{path}[{i}]"))), None
        )
    if a == b or (a != a and b != b):  # NaN
        return None
    return f"{path}: {a!r} vs {b!r}"


def general(dialect, text):
    try:
        return dialect.decode_stream_event(parse_json(text))
    except (JsonRpcError, ProtocolError) as exc:
        return exc


def check(dialect, text) -> bool:
    """The shortcut agrees with the general path; True when it answered."""
    fast = dialect.decode_sse_fast(text)
    slow = general(dialect, text)
    try:
        via_wire = decode_sse_data(dialect, text)
    except (JsonRpcError, ProtocolError) as exc:
        via_wire = exc
    if isinstance(slow, Exception):
        assert fast is None, f"the shortcut decoded what the general path rejects ({slow}):\n{text}"
        assert type(via_wire) is type(slow) and str(via_wire) == str(slow)
        assert getattr(via_wire, "path", None) == getattr(slow, "path", None)
        return False
    assert differences(via_wire, slow) is None, text
    if fast is None:
        return False
    diff = differences(fast, slow)
    assert diff is None, f"{diff}\n{text}"
    return True


def envelopes(result):
    """One SSE data payload, spelled the ways agents do (and some they should not)."""
    yield json.dumps({"jsonrpc": "2.0", "id": 1, "result": result})
    yield json.dumps({"result": result, "id": "x", "jsonrpc": "2.0"}, ensure_ascii=False, separators=(",", ":"))
    yield json.dumps({"jsonrpc": "2.0", "id": 1, "result": result, "error": None})
    yield json.dumps({"jsonrpc": "2.0", "id": 1, "result": result, "error": {"code": -32000, "message": "no"}})
    yield json.dumps({"jsonrpc": "2.0", "id": 1, "error": {"code": -32001, "message": "no"}, "result": result})
    yield "\ufeff" + json.dumps({"jsonrpc": "2.0", "id": 1, "result": result})
    yield " \n" + json.dumps({"jsonrpc": "2.0", "id": 1, "result": result}) + "\n "
    yield json.dumps(result)  # no envelope (Orloj)
    yield json.dumps({"jsonrpc": "2.0", "result": result, "x-private": [1, {"a": None}]})
    text = json.dumps({"jsonrpc": "2.0", "id": 1, "result": result})
    # Duplicate members: whichever one wins, both paths must pick the same.
    yield text[:-1] + ', "result": {"artifactUpdate": {"taskId": "dup", "artifact": {"parts": []}}}}'
    yield text[:-1] + ', "result": {"kind": "artifact-update", "taskId": "dup", "artifact": {"parts": []}}}'
    yield '{"result": {"kind": "artifact-update", "taskId": "dup", "artifact": {"parts": []}}, ' + text[1:]
    yield text.replace('"t-1"', '"t-1", "taskId": "t-2"', 1)
    yield text.replace("hello", "\\ud800 lone surrogate")
    yield text[:-1]  # truncated


V10_EVENT = {
    "taskId": "t-1",
    "contextId": "c-1",
    "artifact": {"artifactId": "a-1", "name": "answer", "parts": [{"text": 'hello \u00e9 "q"\n\t'}]},
}
V03_EVENT = {
    "kind": "artifact-update",
    "taskId": "t-1",
    "contextId": "c-1",
    "append": True,
    "lastChunk": False,
    "artifact": {"artifactId": "a-1", "name": "answer", "parts": [{"kind": "text", "text": "hello \u00e9"}]},
}


def v10_variants():
    base, art = V10_EVENT, V10_EVENT["artifact"]
    yield base
    yield {**base, "append": True}
    yield {**base, "append": True, "lastChunk": True}
    yield {**base, "append": 1}
    yield {**base, "append": "true"}
    yield {**base, "lastChunk": None}
    yield {**base, "kind": "artifact-update"}
    yield {**base, "metadata": {"x": [1, 2.5, None, 1e400, -0.0, 2**70]}}
    yield {**base, "x-private": {"deep": [1]}}
    yield {**base, "task_id": "t-2"}
    yield {**base, "contextId": None}
    yield {k: v for k, v in base.items() if k != "contextId"}
    yield {k: v for k, v in base.items() if k != "taskId"}
    yield {**base, "taskId": 5}
    yield {**base, "artifact": None}
    yield {**base, "artifact": []}
    for parts in (
        [],
        [{"text": "a"}, {"text": "b"}],
        [{"kind": "text", "text": "a"}],
        [{"kind": "data", "text": "a", "data": 1}],
        [{"kind": "file", "file": {"uri": "u"}, "text": "y"}],
        [{"text": "a", "raw": "AAAA"}],
        [{"raw": "AAAA"}],
        [{"url": "https://x.invalid/"}],
        [{"data": {"a": 1}}],
        [{"text": "a"}, {"data": 1}],
        [{"text": "a", "metadata": {"m": 1}}],
        [{"text": "a", "mediaType": "text/plain"}],
        [{"text": 5}],
        [{"text": None}],
        [{"kind": None, "text": "a"}],
        [{"text": "a", "kind": "text", "x-private": 1}],
        [None],
        ["x"],
        {"text": "a"},
    ):
        yield {**base, "artifact": {**art, "parts": parts}}
    yield {**base, "artifact": {"artifactId": "a-1", "content": [{"text": "from content"}]}}
    yield {**base, "artifact": {"artifactId": "a-1", "content": [{"text": "c"}], "parts": [{"text": "p"}]}}
    yield {
        **base,
        "artifact": {
            "artifactId": "a-1",
            "parts": [{"text": "p"}],
            "index": 3,
            "append": True,
            "lastChunk": False,
            "extensions": ["e"],
            "description": "d",
            "metadata": {},
        },
    }
    yield {**base, "artifact": {"parts": [{"text": "p"}]}}
    yield {**base, "artifact": {"artifact_id": "a-1", "parts": [{"text": "p"}]}}


def v03_variants():
    base, art = V03_EVENT, V03_EVENT["artifact"]
    yield base
    yield {**base, "kind": "artifact-update "}
    yield {**base, "kind": "status-update"}
    yield {**base, "kind": 5}
    yield {k: v for k, v in base.items() if k != "kind"}
    yield {**base, "metadata": {"x": 1}, "x-private": True}
    yield {**base, "append": None}
    yield {**base, "lastChunk": "false"}
    for parts in (
        [],
        [{"kind": "text", "text": "a"}, {"kind": "data", "data": [1]}],
        [{"text": "a"}],
        [{"type": "text", "text": "a"}],
        [{"kind": "text", "text": "a"}, {"type": "data", "data": 1}],
        [{"kind": "file", "file": {"uri": "u", "mimeType": "t"}}],
        [{"kind": "file", "file": "x"}],
        [{"kind": 5, "text": "a"}],
        [{"kind": "text", "text": "a", "data": 5}],
        [{"kind": "data"}],
        [{"kind": "data", "data": None}],
        [{"kind": "audio"}],
        [{"kind": "text", "text": 1}],
    ):
        yield {**base, "artifact": {**art, "parts": parts}}


@pytest.mark.parametrize(
    "dialect, variants, wrap",
    [
        (v10, v10_variants, lambda e: {"artifactUpdate": e}),
        (v03, v03_variants, lambda e: e),
    ],
    ids=["1.0", "0.3"],
)
def test_shortcut_matches_the_general_path(dialect, variants, wrap) -> None:
    answered = 0
    for event in variants():
        for text in envelopes(wrap(event)):
            answered += check(dialect, text)
    assert answered  # and it is not just declining everything


def test_the_usual_chunk_takes_the_shortcut() -> None:
    # A silent fallback would keep every result right and lose the speed: say so here.
    assert v10.decode_sse_fast(json.dumps({"result": {"artifactUpdate": V10_EVENT}, "id": 1, "jsonrpc": "2.0"}))
    assert v03.decode_sse_fast(json.dumps({"id": 1, "jsonrpc": "2.0", "result": V03_EVENT}, separators=(",", ":")))
    event = v10.decode_sse_fast(
        json.dumps({"jsonrpc": "2.0", "result": {"artifactUpdate": {**V10_EVENT, "append": True}}})
    )
    assert event.__class__ is m.TaskArtifactUpdateEvent and event.artifact.__class__ is m.Artifact
    assert [p.__class__ for p in event.artifact.parts] == [m.TextPart]
    assert event.append is True and event.artifact.parts[0].__pydantic_fields_set__ == {"kind", "text"}
    # The models' own validators were left as they were.
    assert m.TaskArtifactUpdateEvent.__pydantic_complete__ and m.Artifact.__pydantic_complete__
    with pytest.raises(ValidationError):
        m.Artifact.model_validate({"parts": [{"text": "no kind"}]})


def test_other_events_and_dialects_take_the_general_path() -> None:
    status = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "result": {"statusUpdate": {"taskId": "t", "contextId": "c", "status": {"state": "TASK_STATE_WORKING"}}},
        }
    )
    assert v10.decode_sse_fast(status) is None
    assert isinstance(decode_sse_data(v10, status), m.TaskStatusUpdateEvent)
    assert v01.decode_sse_fast(json.dumps({"jsonrpc": "2.0", "id": 1, "result": V03_EVENT})) is None


#: How real agents write an SSE event's data: a2a-sdk's 1.0 server, its 0.3 one, indented.
STYLES = st.sampled_from(["sdk10", "sdk03", "spaced"])


def sse_text(codec, event, style: str) -> str:
    """``event`` as ``codec`` encodes it in a stream, written in ``style``."""
    doc = codec.encode_stream_event(event, 7)
    if style == "sdk10":
        return json.dumps({"result": doc["result"], "id": 7, "jsonrpc": "2.0"})
    if style == "sdk03":
        return json.dumps(doc, separators=(",", ":"), sort_keys=True, ensure_ascii=False)
    return json.dumps(doc, indent=1)


@SETTINGS
@given(event=cs.stream_events(), style=STYLES)
def test_encoded_events_decode_alike(event, style) -> None:
    for dialect in (v10, v03):
        check(dialect, sse_text(dialect, event, style))


json_leaves = st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from(["", "text", "kind", "t-1"])


@SETTINGS
@given(data=st.data())
def test_mangled_events_decode_alike(data) -> None:
    # Replace or add one member somewhere in a well-formed chunk: the shortcut must not
    # accept anything the general path reads differently.
    for dialect, event, wrap in ((v10, V10_EVENT, lambda e: {"artifactUpdate": e}), (v03, V03_EVENT, lambda e: e)):
        doc = json.loads(json.dumps({"jsonrpc": "2.0", "id": 1, "result": wrap(event)}))
        node = doc
        for _ in range(data.draw(st.integers(0, 5))):
            children = [
                k
                for k, v in (node.items() if isinstance(node, dict) else enumerate(node))
                if isinstance(v, (dict, list))
            ]
            if not children:
                break
            node = node[data.draw(st.sampled_from(children))]
        if isinstance(node, dict):
            key = data.draw(st.sampled_from(sorted(node) + ["kind", "text", "parts", "content", "x-private"]))
            node[key] = data.draw(json_leaves | st.just([]) | st.just({}) | st.just([{"text": "z"}]))
        elif node:
            node[data.draw(st.integers(0, len(node) - 1))] = data.draw(json_leaves | st.just({"text": "z"}))
        check(dialect, json.dumps(doc))


LAX = [
    1.0,
    0.0,
    1.5,
    "1",
    "0",
    "yes",
    "off",
    "True",
    " true ",
    2,
    -1,
    None,
    [],
    {},
    1e3,
    "3",
    3.0,
    -0.0,
    10**30,
    "",
    "1e400",
]


@pytest.mark.parametrize("value", LAX, ids=repr)
def test_lax_values_decode_alike(value) -> None:
    # pydantic's lax coercions (1.0 -> True, "3" -> 3 ...) must not differ between the
    # JSON the shortcut validates and the Python objects the general path validates.
    for dialect, base, wrap in ((v10, V10_EVENT, lambda e: {"artifactUpdate": e}), (v03, V03_EVENT, lambda e: e)):
        for key, where in (
            ("append", "event"),
            ("lastChunk", "event"),
            ("contextId", "event"),
            ("metadata", "event"),
            ("index", "artifact"),
            ("append", "artifact"),
            ("name", "artifact"),
            ("artifactId", "artifact"),
            ("extensions", "artifact"),
            ("metadata", "artifact"),
            ("text", "part"),
            ("metadata", "part"),
        ):
            event = json.loads(json.dumps(base))
            target = {"event": event, "artifact": event["artifact"], "part": event["artifact"]["parts"][0]}[where]
            target[key] = value
            text = json.dumps({"jsonrpc": "2.0", "id": 1, "result": wrap(event)})
            check(dialect, text.replace('"1e400"', "1e400"))
