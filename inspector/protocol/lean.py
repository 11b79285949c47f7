"""The next chunk of a streamed text artifact, without the models.

A long stream is tens of thousands of artifact-update events, each one more piece of
text for an artifact already started. Decoded into models (an event, its artifact, a
text part), each costs more than everything else the client does with it; the task
tracker needs none of them, only a handful of strings. A caller that follows a stream
through its session rather than through the events the stream yields (the TUI, see
``EventStream.drain``) gets such an event as a ``TextChunk``: those strings, taken from
the parsed JSON after a shape test, and the event's text, from which ``model()``
decodes the full event the general way whenever something needs it.

The shape test is narrow on purpose: it accepts only what the dialect's general decoder
would turn into exactly these facts (an ``append: true`` update of an artifact with an
id, one part of text alone, no key it does not name, every value of its JSON type), and
anything else goes the general way, errors included. tests/test_lean.py holds the two
paths against each other.
"""

from __future__ import annotations

from typing import Any

from pydantic_core import from_json

from .wire import capture, parse_json

#: Keys a 1.0 artifact update may have to be read lean (0.3 adds its kind tag).
_EVENT_KEYS = frozenset(("taskId", "contextId", "artifact", "append", "lastChunk"))
_EVENT_KEYS_03 = _EVENT_KEYS | {"kind"}
_ARTIFACT_KEYS = frozenset(("artifactId", "name", "description", "parts"))


class TextChunk:
    """One appended piece of text of an artifact: what the tracker folds. ``model()``
    is the event as every other path decodes it (a TaskArtifactUpdateEvent)."""

    __slots__ = ("task_id", "context_id", "artifact_id", "name", "description", "text", "last_chunk", "data", "codec")

    #: Only appending chunks are read lean (a first chunk starts the artifact: rare).
    append = True

    def __init__(
        self,
        task_id: str,
        context_id: str | None,
        artifact_id: str,
        name: str | None,
        description: str | None,
        text: str,
        last_chunk: bool | None,
        data: str,
        codec: Any,
    ) -> None:
        self.task_id = task_id
        self.context_id = context_id
        self.artifact_id = artifact_id
        self.name = name
        self.description = description
        self.text = text
        self.last_chunk = last_chunk
        #: The SSE event's data (JSON text), and the codec that decodes it.
        self.data = data
        self.codec = codec

    def model(self) -> Any:
        """The event decoded as every other path decodes it (a new object each call):
        the codec's shortcut, which gives exactly what the general way gives, else the
        general way. (The tracker asks for it whenever the chunk is not the plain next
        one of an open artifact: the shortcut costs a third of the general way.)"""
        codec = self.codec
        data = self.data
        return capture(lambda: codec.decode_sse_fast(data) or codec.decode_stream_event(parse_json(data)))

    def __repr__(self) -> str:
        return (
            f"TextChunk(task_id={self.task_id!r}, artifact_id={self.artifact_id!r}, "
            f"text={self.text!r}, last_chunk={self.last_chunk!r})"
        )


def _chunk(ev: Any, keys: frozenset[str], tagged: bool, data: str, codec: Any) -> TextChunk | None:
    """The update ``ev`` (parsed JSON) as a TextChunk, or None when it is anything but
    the plain shape (the general path decides). Unknown keys are refused, not ignored:
    an alias spelling (``task_id``) or a field the tracker reads would change the facts."""
    if ev.__class__ is not dict:
        return None
    try:
        # (Subscripts, not .get: this runs once per event. A missing key is a KeyError.)
        if ev["append"] is not True or not keys.issuperset(ev):
            return None
        art = ev["artifact"]
        if art.__class__ is not dict or not _ARTIFACT_KEYS.issuperset(art):
            return None
        parts = art["parts"]
        if parts.__class__ is not list or len(parts) != 1:
            return None
        part = parts[0]
        # 1.0: {"text"} (its reader tags it); 0.3: {"kind": "text", "text"} (the tag selects TextPart).
        if part.__class__ is not dict or len(part) != (2 if tagged else 1) or (tagged and part.get("kind") != "text"):
            return None
        text = part["text"]
        task_id = ev["taskId"]
        artifact_id = art["artifactId"]
    except KeyError:
        return None
    if text.__class__ is not str or task_id.__class__ is not str or artifact_id.__class__ is not str:
        return None
    context_id = ev.get("contextId")
    last = ev.get("lastChunk")
    name = art.get("name")
    description = art.get("description")
    if (
        (context_id is not None and context_id.__class__ is not str)
        or (last is not None and last.__class__ is not bool)
        or (name is not None and name.__class__ is not str)
        or (description is not None and description.__class__ is not str)
    ):
        return None
    return TextChunk(task_id, context_id, artifact_id, name, description, text, last, data, codec)


def _v10(value: Any, data: str, codec: Any) -> TextChunk | None:
    # A response's result (an "error": null member is no error), whose one key leaves
    # decode_event no choice.
    if value.__class__ is not dict:
        return None
    result = value.get("result")
    if result.__class__ is not dict or len(result) != 1 or value.get("error") is not None:
        return None
    return _chunk(result.get("artifactUpdate"), _EVENT_KEYS, False, data, codec)


def _v03(value: Any, data: str, codec: Any) -> TextChunk | None:
    if value.__class__ is not dict:
        return None
    ev = value.get("result")
    if ev.__class__ is not dict or ev.get("kind") != "artifact-update" or value.get("error") is not None:
        return None
    return _chunk(ev, _EVENT_KEYS_03, True, data, codec)


def _rest(value: Any, data: str, codec: Any) -> TextChunk | None:
    # A REST event is a bare StreamResponse: the 1.0 result without its envelope.
    if value.__class__ is not dict or len(value) != 1:
        return None
    return _chunk(value.get("artifactUpdate"), _EVENT_KEYS, False, data, codec)


#: The codec's ``lean`` attribute -> (a marker every such event's text contains, the reader).
_FORMS = {
    "1.0": ('"artifactUpdate"', _v10),
    "0.3": ('"artifact-update"', _v03),
    "rest": ('"artifactUpdate"', _rest),
}


def lean_reader(codec: Any) -> Any:
    """A function of an SSE event's data for ``codec``'s events: a TextChunk for the
    plain next chunk of an artifact, else what ``wire.decode_sse_data`` gives (which
    raises as it does). A codec without a lean form gets ``decode_sse_data`` itself."""
    # A codec with no lean attribute looks up None, which no form is keyed by.
    form = _FORMS.get(getattr(codec, "lean", None))  # type: ignore[arg-type]
    fast = codec.decode_sse_fast
    general = codec.decode_stream_event

    def read(data: str) -> Any:
        event = fast(data)
        return event if event is not None else general(parse_json(data))

    if form is None:
        return read
    marker, shape = form

    def read_lean(data: str) -> Any:
        if marker in data:
            try:
                # parse_json's checks (BOM, blank, depth) matter only for what fails the
                # shape, and the general path below makes them.
                chunk = shape(from_json(data, cache_strings="keys"), data, codec)
            except ValueError:
                chunk = None
            if chunk is not None:
                return chunk
        return read(data)

    return read_lean


__all__ = ["TextChunk", "lean_reader"]
