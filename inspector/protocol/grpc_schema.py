"""The A2A gRPC schema of each version, from the vendored protos (protos/, Apache-2.0).

Messages are built from a FileDescriptorSet per version (scripts/gen_protos.py) loaded into
a private descriptor pool, never protobuf's default one: a2a-sdk registers the same
package names there, and the inspector must run beside it in one process. Everything here
loads on first use, so start-up does not pay for protobuf.

ProtoJSON is the form every layer above sees: a gRPC message is turned into the JSON the
HTTP+JSON binding would carry, and the REST codecs (protocol/rest.py) take it from there.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING, Any

from pydantic_core import to_json as _dump

if TYPE_CHECKING:
    from google.protobuf.message import Message

#: The proto package of each dialect that has a gRPC binding.
PACKAGES = {"1.0": "lf.a2a.v1", "0.3": "a2a.v1"}
_FILES = {"1.0": "a2a-v1.0.1", "0.3": "a2a-v0.3.0"}
SERVICE = "A2AService"


def supports(dialect: str) -> bool:
    return dialect in PACKAGES


@dataclass(frozen=True)
class Rpc:
    """One method of the A2AService: ``path`` is what goes on the wire (``/pkg.Service/Name``)."""

    name: str
    path: str
    request: str  # full message names
    response: str
    server_streaming: bool


def descriptor_set(dialect: str) -> str:
    """The path of ``dialect``'s FileDescriptorSet as installed (grpcurl's -protoset)."""
    return str(resources.files(__package__).joinpath("protos", f"{_FILES[dialect]}.binpb"))


@functools.cache
def pool(dialect: str) -> Any:
    """The private descriptor pool holding ``dialect``'s schema and google.rpc's error model."""
    from google.protobuf import descriptor_pb2, descriptor_pool

    data = resources.files(__package__).joinpath("protos", f"{_FILES[dialect]}.binpb").read_bytes()
    files = descriptor_pb2.FileDescriptorSet.FromString(data)
    p = descriptor_pool.DescriptorPool()
    for f in files.file:
        p.Add(f)
    return p


@functools.cache
def message_class(dialect: str, name: str) -> type[Message]:
    """The message class for ``name`` (short, e.g. ``Task``, or full, e.g. ``google.rpc.Status``)."""
    from google.protobuf import message_factory

    full = name if "." in name else f"{PACKAGES[dialect]}.{name}"
    return message_factory.GetMessageClass(pool(dialect).FindMessageTypeByName(full))


@functools.cache
def rpcs(dialect: str) -> dict[str, Rpc]:
    """The service's methods by name (``SendMessage``, ``GetTask``...)."""
    service = pool(dialect).FindServiceByName(f"{PACKAGES[dialect]}.{SERVICE}")
    return {
        m.name: Rpc(
            m.name,
            f"/{service.full_name}/{m.name}",
            m.input_type.full_name,
            m.output_type.full_name,
            m.server_streaming,
        )
        for m in service.methods
    }


def to_json(message: Any) -> dict[str, Any]:
    """A message as ProtoJSON (lowerCamelCase names, enums by name, defaults left out).

    Exactly json_format.MessageToDict's, read sooner for the messages nearly every call
    is (strings, enums, integers, booleans, bytes, nested and repeated messages): json_format
    walks each field through a dozen checks in Python, and cost the proxy's log a third of
    a unary call. A message with anything else (a float, a map, a well-known type such as
    Struct or Timestamp, an extension) goes to json_format whole.
    tests/test_grpc_schema.py holds the two equal on every message type of every dialect."""
    try:
        return _message_json(message)
    except _Unusual:
        from google.protobuf import json_format

        return json_format.MessageToDict(message, preserving_proto_field_name=False)


#: ProtoJSON as text, the way every record of it is written: json.dumps(obj,
#: ensure_ascii=False, separators=(",", ":")), its encoder made once (json.dumps builds
#: one per call when given options).
protojson_text = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def to_json_text(message: Any) -> tuple[dict[str, Any], str]:
    """to_json(message) and protojson_text of it, the text written in one C call when
    the short way wrote the message: what it writes holds nothing but dicts, lists,
    strings, booleans and integers (no float: those go to json_format), and for these
    pydantic-core's encoder writes protojson_text's bytes (the same escapes: quote,
    backslash, the C0 controls as \\b \\f \\n \\r \\t or lower-case \\u00XX; all else
    as is) at a fifth of its cost, which a proxied unary call pays twice.
    tests/test_grpc_schema.py holds the two texts equal on every message type."""
    try:
        obj = _message_json(message)
    except _Unusual:
        from google.protobuf import json_format

        obj = json_format.MessageToDict(message, preserving_proto_field_name=False)
        return obj, protojson_text(obj)
    return obj, _dump(obj).decode("utf-8")


class _Unusual(Exception):
    """A field to_json's short way does not write: json_format writes the message."""


# google.protobuf.descriptor.FieldDescriptor's TYPE_* numbers.
_DOUBLE, _FLOAT, _INT64, _UINT64, _INT32, _FIXED64, _FIXED32, _BOOL, _STRING = range(1, 10)
_GROUP, _MESSAGE, _BYTES, _UINT32, _ENUM, _SFIXED32, _SFIXED64, _SINT32, _SINT64 = range(10, 19)
_AS_IS = frozenset({_INT32, _FIXED32, _BOOL, _STRING, _UINT32, _SFIXED32, _SINT32})
_AS_TEXT = frozenset({_INT64, _UINT64, _FIXED64, _SFIXED64, _SINT64})


#: A field descriptor -> (its JSON name, repeated, how it is written: _PLAIN as is,
#: _NESTED a message, _OTHER by _field_json): what _message_json reads of a field, read
#: once (each is a descriptor property, looked up per field of every message). A field
#: it does not write short (an extension, a map) is not kept.
_FIELDS: dict[Any, tuple[str, bool, int]] = {}
_PLAIN, _NESTED, _OTHER = range(3)


def _field_facts(field: Any) -> tuple[str, bool, int]:
    if field.is_extension or (field.message_type is not None and field.message_type.GetOptions().map_entry):
        raise _Unusual
    kind = field.type
    how = _PLAIN if kind in _AS_IS else _NESTED if kind == _MESSAGE else _OTHER
    facts = _FIELDS[field] = (field.json_name, _repeated(field), how)
    return facts


#: A message descriptor -> whether it is a well-known type (google.protobuf.*), which has
#: a JSON form of its own: read once per type, not per message.
_WELL_KNOWN: dict[Any, bool] = {}


def _message_json(message: Any) -> dict[str, Any]:
    descriptor = message.DESCRIPTOR
    known = _WELL_KNOWN.get(descriptor)
    if known is None:
        known = _WELL_KNOWN[descriptor] = descriptor.full_name.startswith("google.protobuf.")
    if known:
        raise _Unusual
    out: dict[str, Any] = {}
    fields = _FIELDS
    for field, value in message.ListFields():
        facts = fields.get(field)
        name, repeated, how = facts if facts is not None else _field_facts(field)
        if how == _PLAIN:
            out[name] = list(value) if repeated else value
        elif how == _NESTED:
            out[name] = [_message_json(item) for item in value] if repeated else _message_json(value)
        elif repeated:
            out[name] = [_field_json(field, item) for item in value]
        else:
            out[name] = _field_json(field, value)
    return out


def _repeated(field: Any) -> bool:
    # protobuf 7 has is_repeated and no label; 5.29 (the oldest we take) has label.
    flag = getattr(field, "is_repeated", None)
    return bool(flag) if flag is not None else bool(field.label == 3)


def _field_json(field: Any, value: Any) -> Any:
    kind = field.type
    if kind in _AS_IS:
        return value
    if kind == _MESSAGE:
        return _message_json(value)
    if kind == _ENUM:
        if field.enum_type.full_name == "google.protobuf.NullValue":
            raise _Unusual
        named = field.enum_type.values_by_number.get(value)
        if named is None:
            raise _Unusual  # json_format's word on an unknown number (closed enums refuse it)
        return named.name
    if kind in _AS_TEXT:
        return str(value)
    if kind == _BYTES:
        import base64

        return base64.b64encode(value).decode("utf-8")
    raise _Unusual  # floats (json_format's shortest-float and NaN spellings), groups


def from_json(dialect: str, name: str, obj: Any, *, ignore_unknown: bool = False) -> Any:
    """ProtoJSON to a message of type ``name``; raises ValueError with the reason."""
    from google.protobuf import json_format

    cls = message_class(dialect, name)
    try:
        return json_format.ParseDict(obj, cls(), ignore_unknown_fields=ignore_unknown)
    except json_format.ParseError as exc:
        raise ValueError(str(exc)) from None


def decode(dialect: str, name: str, data: bytes) -> Any:
    """Wire bytes to a message of type ``name``; raises ValueError when they do not parse."""
    try:
        return message_class(dialect, name).FromString(data)
    except _decode_error() as exc:
        raise ValueError(f"not a valid {name}: {exc}") from None


@functools.cache
def _decode_error() -> type[Exception]:
    # Read once: an import statement in decode() cost every message about a microsecond.
    from google.protobuf.message import DecodeError

    return DecodeError
