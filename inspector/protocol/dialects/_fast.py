"""A shortcut for the one event a long stream is made of: an artifact-update chunk.

A streamed answer is tens of thousands of ``artifact-update`` events around a handful of
others. The general decoder parses the JSON text, walks the envelope, copies and
re-tags what the dialect spells differently and then validates the normalised dict; for
this one shape all of that can be one ``validate_json`` on the event's text, with a
validator built from the models' own core schema (so the result is made of the very
same classes, with the same fields, unknown keys and fields-set).

A shortcut must never change what an event decodes to, so it is deliberately narrow:
it only returns an event when the general path would have produced an identical one,
and returns None (take the general path) in every other case -- any validation error,
an unexpected part, an envelope with an error member, a BOM. Errors are therefore
always the general path's errors, word for word. tests/test_codec_fast.py checks the
two paths against each other.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, cast

from pydantic import ValidationError
from pydantic_core import SchemaValidator
from pydantic_core import core_schema as cs

from .. import models as m

FastDecoder = Callable[[str], Any]


def _tau_schema(parts: str) -> dict[str, Any]:
    """TaskArtifactUpdateEvent's core schema with the artifact's parts validated as
    ``parts`` says: "kind" (the ``kind`` tag selects the model, as Part's discriminator
    does for a dict) or "text" (every part must be a TextPart, tag or no tag)."""
    # The models defer their build (models.A2AModel): build both first, so the schema
    # exists and _from_schema finds them complete, as it did when they were built at import.
    m.TaskArtifactUpdateEvent.model_rebuild()
    m.Artifact.model_rebuild()
    # Walked and rebuilt by key as plain dicts: the CoreSchema TypedDicts do not narrow by "type".
    schema = cast(dict[str, Any], copy.deepcopy(m.TaskArtifactUpdateEvent.__pydantic_core_schema__))
    defs = schema["definitions"] if schema["type"] == "definitions" else []
    model = schema["schema"] if schema["type"] == "definitions" else schema
    artifact = model["schema"]["fields"]["artifact"]["schema"]
    parts_field = artifact["schema"]["fields"]["parts"]["schema"]
    union = parts_field["schema"]["items_schema"]
    if union.get("type") != "tagged-union" or set(union["choices"]) != {"TextPart", "FilePart", "DataPart"}:
        raise RuntimeError("models.Part changed: update protocol/dialects/_fast.py")  # pragma: no cover
    if parts == "text":
        parts_field["schema"]["items_schema"] = union["choices"]["TextPart"]
    else:
        # models._part_tag reads a dict's "kind" and maps text/file/data to the model;
        # pydantic-core does the same lookup itself for a string discriminator.
        parts_field["schema"]["items_schema"] = cs.tagged_union_schema(
            {
                "text": union["choices"]["TextPart"],
                "file": union["choices"]["FilePart"],
                "data": union["choices"]["DataPart"],
            },
            discriminator="kind",
        )
    return {"type": "definitions", "schema": model, "definitions": defs} if defs else model


def envelope_decoder(inner: str | None, parts: str) -> FastDecoder:
    """``validate_json`` of ``{"result": EVENT}`` (``inner`` None) or ``{"result":
    {inner: EVENT}}``, with EVENT a TaskArtifactUpdateEvent. Like the general path,
    it ignores the other envelope members (jsonrpc, id) and accepts ``"error": null``;
    the wrapper object (``inner``) must have no other member, or the general path's
    choice among several would matter."""
    tau = _tau_schema(parts)
    if tau["type"] == "definitions":
        defs, event = tau["definitions"], tau["schema"]
    else:  # pragma: no cover - pydantic always emits definitions for these models
        defs, event = [], tau
    result = event
    if inner is not None:
        result = cs.typed_dict_schema({inner: cs.typed_dict_field(event)}, extra_behavior="forbid")
    envelope = cs.typed_dict_schema(
        {"result": cs.typed_dict_field(result), "error": cs.typed_dict_field(cs.none_schema(), required=False)},
        extra_behavior="ignore",
    )
    with _from_schema(m.TaskArtifactUpdateEvent, m.Artifact):
        validator = SchemaValidator(cs.definitions_schema(envelope, defs) if defs else envelope)
    return validator.validate_json


def lazy_envelope_decoder(inner: str | None, parts: str) -> Callable[[], FastDecoder]:
    """``envelope_decoder(inner, parts)``, built on the first call and kept: building one
    costs milliseconds of CPU that a command which never reads a stream (card, a
    non-streaming send, the mock) would pay at import."""
    return functools.cache(lambda: envelope_decoder(inner, parts))


@contextmanager
def _from_schema(*classes: type) -> Iterator[None]:
    """Make pydantic-core build these models' validators from the schema we give it.

    For a model schema whose class is complete, pydantic-core reuses the class's own
    ``__pydantic_validator__`` ("prebuilt"), which would ignore our parts schema; it
    decides by the class's ``__pydantic_complete__``, read once, while building. The
    flag is restored before anything else runs (this happens once, on the first fast
    decode, and nothing awaits in between). Should a
    future pydantic-core ignore this, the parts are validated as models.Part does and
    the decoders' checks send kind-less parts to the general path: slower, not wrong."""
    saved = [(cls, cls.__dict__["__pydantic_complete__"]) for cls in classes]
    try:
        for cls, _ in saved:
            type.__setattr__(cls, "__pydantic_complete__", False)
        yield
    finally:
        for cls, flag in saved:
            type.__setattr__(cls, "__pydantic_complete__", flag)


__all__ = ["FastDecoder", "ValidationError", "envelope_decoder", "lazy_envelope_decoder"]
