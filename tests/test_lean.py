"""protocol/lean.py against the general decoder: what a drained stream's client reads
from an event's data is either the general path's own result (or error, word for word)
or a TextChunk whose facts are exactly what the tracker would read from the general
path's model, and whose model() is that model."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

import codec_strategies as cs
import test_codec_fast as tf
from inspector.protocol import models as m
from inspector.protocol import rest
from inspector.protocol.dialects import v01, v03, v10
from inspector.protocol.errors import JsonRpcError, ProtocolError
from inspector.protocol.lean import TextChunk, lean_reader


def facts(ev: m.TaskArtifactUpdateEvent) -> tuple | None:
    """What the tracker's chunk shortcut reads from a model, when it would read it as a
    plain appended text chunk (None: it would not)."""
    art = ev.artifact
    if len(art.parts) != 1:
        return None
    part = art.parts[0]
    if part.__class__ is not m.TextPart or part.metadata is not None or part.__pydantic_extra__:
        return None
    append = ev.append if ev.append is not None else art.append
    last = ev.last_chunk if ev.last_chunk is not None else art.last_chunk
    if append is not True or art.artifact_id is None or art.metadata is not None:
        return None
    return ev.task_id, ev.context_id, art.artifact_id, art.name, art.description, part.text, last


def check(codec, text: str) -> bool:
    """The lean reader agrees with the general path; True when it gave a TextChunk."""
    slow = tf.general(codec, text)
    try:
        got = lean_reader(codec)(text)
    except (JsonRpcError, ProtocolError) as exc:
        got = exc
    if isinstance(slow, Exception):
        assert type(got) is type(slow) and str(got) == str(slow), text
        assert getattr(got, "path", None) == getattr(slow, "path", None)
        return False
    if got.__class__ is not TextChunk:
        assert tf.differences(got, slow) is None, text
        return False
    assert slow.__class__ is m.TaskArtifactUpdateEvent, text
    assert facts(slow) == (
        got.task_id,
        got.context_id,
        got.artifact_id,
        got.name,
        got.description,
        got.text,
        got.last_chunk,
    ), text
    assert got.append is True
    assert tf.differences(got.model(), slow) is None, text
    return True


V10_CHUNK = {**tf.V10_EVENT, "append": True}


@pytest.mark.parametrize(
    "codec, variants, wrap",
    [
        (v10, tf.v10_variants, lambda e: {"artifactUpdate": e}),
        (v03, tf.v03_variants, lambda e: e),
    ],
    ids=["1.0", "0.3"],
)
def test_lean_matches_the_general_path(codec, variants, wrap) -> None:
    lean = 0
    for event in variants():
        for variant in (event, {**event, "append": True}):
            for text in tf.envelopes(wrap(variant)):
                lean += check(codec, text)
    assert lean  # and it is not just declining everything


def test_the_usual_chunk_is_read_lean() -> None:
    # A silent fallback would keep every result right and lose the speed: say so here.
    sdk10 = json.dumps({"result": {"artifactUpdate": V10_CHUNK}, "id": 1, "jsonrpc": "2.0"})
    sdk03 = json.dumps({"id": 1, "jsonrpc": "2.0", "result": tf.V03_EVENT}, separators=(",", ":"), sort_keys=True)
    assert check(v10, sdk10) and check(v03, sdk03)
    assert check(rest.codec(v10), json.dumps({"artifactUpdate": V10_CHUNK}))
    # A first chunk starts the artifact: the general way (rare, and the tracker's general path).
    assert not check(v10, sdk10.replace('"append": true', '"append": false'))


def test_other_codecs_are_not_read_lean() -> None:
    text = json.dumps({"jsonrpc": "2.0", "id": 1, "result": tf.V03_EVENT})
    assert lean_reader(v01)(text).__class__ is not TextChunk
    # A 0.3 agent's REST events go through proto03: no lean form.
    assert rest.codec(v03).lean is None


def test_hostile_texts() -> None:
    good = json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"artifactUpdate": V10_CHUNK}})
    for text in (
        good[:-1],
        "\ufeff" + good,
        "",
        " ",
        "null",
        "[]",
        good.replace("hello", "\\ud800"),
        "[" * 5000 + "]" * 5000,
        '{"result": ' * 300 + "1" + "}" * 300,
        good.replace('"t-1"', '"t-1", "taskId": 7'),
        good.replace('"a-1"', '"a-1", "artifactId": null'),
    ):
        check(v10, text)


@tf.SETTINGS
@given(event=cs.stream_events(), style=tf.STYLES)
def test_encoded_events_read_alike(event, style) -> None:
    for codec in (v10, v03):
        check(codec, tf.sse_text(codec, event, style))


@tf.SETTINGS
@given(data=st.data())
def test_mangled_chunks_read_alike(data) -> None:
    # One member replaced or added somewhere in a chunk the lean reader takes: it must
    # not take anything the general path reads differently.
    for codec, event, wrap in ((v10, V10_CHUNK, lambda e: {"artifactUpdate": e}), (v03, tf.V03_EVENT, lambda e: e)):
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
            key = data.draw(
                st.sampled_from(
                    sorted(node)
                    + ["kind", "text", "parts", "content", "metadata", "index", "task_id", "error", "x-private"]
                )
            )
            node[key] = data.draw(tf.json_leaves | st.just([]) | st.just({}) | st.just([{"text": "z"}]))
        elif node:
            node[data.draw(st.integers(0, len(node) - 1))] = data.draw(tf.json_leaves | st.just({"text": "z"}))
        check(codec, json.dumps(doc))


@pytest.mark.parametrize("value", tf.LAX, ids=repr)
def test_lax_values_read_alike(value) -> None:
    # pydantic's lax coercions (1.0 -> True, "3" -> 3 ...) apply on the general path only:
    # the lean reader takes JSON types as they are, or declines.
    for codec, base, wrap in ((v10, V10_CHUNK, lambda e: {"artifactUpdate": e}), (v03, tf.V03_EVENT, lambda e: e)):
        for key, where in (
            ("append", "event"),
            ("lastChunk", "event"),
            ("contextId", "event"),
            ("taskId", "event"),
            ("artifactId", "artifact"),
            ("name", "artifact"),
            ("description", "artifact"),
            ("text", "part"),
        ):
            event = json.loads(json.dumps(base))
            target = {"event": event, "artifact": event["artifact"], "part": event["artifact"]["parts"][0]}[where]
            target[key] = value
            check(codec, json.dumps({"jsonrpc": "2.0", "id": 1, "result": wrap(event)}))
