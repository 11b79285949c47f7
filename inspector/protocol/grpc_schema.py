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
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING, Any

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
    """A message as ProtoJSON (lowerCamelCase names, enums by name, defaults left out)."""
    from google.protobuf import json_format

    return json_format.MessageToDict(message, preserving_proto_field_name=False)


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
    from google.protobuf.message import DecodeError

    try:
        return message_class(dialect, name).FromString(data)
    except DecodeError as exc:
        raise ValueError(f"not a valid {name}: {exc}") from None
