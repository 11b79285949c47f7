"""The vendored gRPC schema: unmodified protos, descriptor sets built from them, and a pool
that loads beside a2a-sdk's own generated modules (which register the same package)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from inspector.protocol import grpc_schema as g
from shared_paths import SHARED

PROTOS = Path(g.__file__).parent / "protos"


@pytest.mark.parametrize("name", ["a2a-v1.0.1.proto", "a2a-v0.3.0.proto", "LICENSE-A2A-Apache-2.0.txt"])
def test_vendored_files_are_unmodified_copies(name: str) -> None:
    assert (PROTOS / name).read_bytes() == (SHARED / "a2a-schemas" / name).read_bytes()


@pytest.mark.parametrize(("dialect", "proto"), [("1.0", "a2a-v1.0.1.proto"), ("0.3", "a2a-v0.3.0.proto")])
def test_descriptor_set_has_every_rpc_of_its_proto(dialect: str, proto: str) -> None:
    text = (PROTOS / proto).read_text()
    declared = {m.group(1): bool(m.group(2)) for m in re.finditer(r"rpc (\w+)\(\w+\)\s+returns \((stream )?", text)}
    assert declared, "no rpc found in the proto"
    got = {name: rpc.server_streaming for name, rpc in g.rpcs(dialect).items()}
    assert got == declared
    assert g.rpcs(dialect)["SendMessage"].path == f"/{g.PACKAGES[dialect]}.A2AService/SendMessage"


def test_pool_loads_beside_the_sdk_modules() -> None:
    from a2a.types import a2a_pb2 as sdk  # registers lf.a2a.v1 in protobuf's default pool

    ours = g.from_json("1.0", "Task", {"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_INPUT_REQUIRED"}})
    # The bytes are the same protocol: the SDK's class reads ours.
    theirs = sdk.Task.FromString(ours.SerializeToString())
    assert theirs.id == "t1" and theirs.status.state == sdk.TaskState.TASK_STATE_INPUT_REQUIRED
    assert g.to_json(g.decode("1.0", "Task", theirs.SerializeToString()))["status"] == {
        "state": "TASK_STATE_INPUT_REQUIRED"
    }


def test_rich_error_details_decode() -> None:
    status = g.from_json(
        "1.0",
        "google.rpc.Status",
        {
            "code": 5,
            "message": "no such task",
            "details": [
                {
                    "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                    "reason": "TASK_NOT_FOUND",
                    "domain": "a2a-protocol.org",
                }
            ],
        },
    )
    back = g.to_json(g.decode("1.0", "google.rpc.Status", status.SerializeToString()))
    assert back["code"] == 5 and dict(back["details"][0])["reason"] == "TASK_NOT_FOUND"


def test_bad_input_is_a_clear_value_error() -> None:
    with pytest.raises(ValueError, match="Task"):
        g.decode("1.0", "Task", b"\xff\xff\xff")
    with pytest.raises(ValueError):
        g.from_json("0.3", "Task", {"status": {"state": "NOT_A_STATE"}})


def _filled(cls: Any, depth: int, choice: int, text: str = 'é "x" \u2028') -> Any:
    """A message of ``cls`` with every field set to something not its default (a oneof's
    member ``choice`` modulo its size, a string ``text``), nested messages to ``depth``."""
    from google.protobuf.descriptor import FieldDescriptor as F

    message = cls()
    samples = {
        F.TYPE_STRING: text,
        F.TYPE_BOOL: True,
        F.TYPE_BYTES: b"\x00\xff\xfe",
        F.TYPE_INT32: -5,
        F.TYPE_SINT32: -6,
        F.TYPE_SFIXED32: -7,
        F.TYPE_UINT32: 7,
        F.TYPE_FIXED32: 8,
        F.TYPE_INT64: -(2**40),
        F.TYPE_SINT64: 2**41,
        F.TYPE_SFIXED64: -3,
        F.TYPE_UINT64: 2**63,
        F.TYPE_FIXED64: 9,
        F.TYPE_FLOAT: 1.5,
        F.TYPE_DOUBLE: 0.1,
    }
    for field in message.DESCRIPTOR.fields:
        oneof = field.containing_oneof
        if oneof is not None and oneof.fields[choice % len(oneof.fields)] is not field:
            continue
        flag = getattr(field, "is_repeated", None)  # protobuf 7; label before it
        repeated = bool(flag) if flag is not None else field.label == F.LABEL_REPEATED
        if field.type == F.TYPE_MESSAGE:
            if field.message_type.GetOptions().map_entry:
                continue  # (maps go to json_format whole: not what this compares)
            if depth <= 0 or field.message_type.full_name.startswith("google.protobuf."):
                continue
            target = getattr(message, field.name)
            for _ in range(2 if repeated else 1):
                item = target.add() if repeated else target
                item.CopyFrom(_filled(type(item) if not repeated else type(target[0]), depth - 1, choice, text))
            continue
        if field.type == F.TYPE_ENUM:
            value: Any = field.enum_type.values[-1].number
        elif field.type in samples and field.type not in (F.TYPE_FLOAT, F.TYPE_DOUBLE):
            value = samples[field.type]
        else:
            continue
        if repeated:
            getattr(message, field.name).extend([value, value])
        else:
            setattr(message, field.name, value)
    return message


@pytest.mark.parametrize("dialect", ["1.0", "0.3"])
def test_to_json_is_json_format_s_protojson_for_every_message(dialect: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The short way gives exactly what json_format gives, for every message type of the
    dialect filled every way its oneofs allow, and hands over what it does not write."""
    from google.protobuf import json_format

    package = g.PACKAGES[dialect]
    names = [m for m in g.pool(dialect).FindFileContainingSymbol(f"{package}.Task").message_types_by_name]
    assert len(names) > 20
    compared = 0
    for name in names:
        cls = g.message_class(dialect, name)
        for choice in range(3):
            for depth in (0, 1, 4):
                message = _filled(cls, depth, choice)
                assert g.to_json(message) == json_format.MessageToDict(message), (name, choice, depth)
                compared += 1
    assert compared == len(names) * 9
    # What goes the long way: a Struct, a Timestamp, a float, an unknown enum number.
    task = g.from_json(
        dialect, "Task", {"id": "t", "metadata": {"k": 1.5}, "status": {"timestamp": "2024-01-01T00:00:00Z"}}
    )
    assert g.to_json(task) == json_format.MessageToDict(task) and g.to_json(task)["metadata"] == {"k": 1.5}
    status = g.message_class(dialect, "TaskStatus")(state=999)
    assert g.to_json(status) == json_format.MessageToDict(status) == {"state": 999}
    # And the short way is the one taken for a plain message (json_format not called).
    plain = _filled(g.message_class(dialect, "Task"), 4, 0)
    expected = json_format.MessageToDict(plain)
    monkeypatch.setattr(json_format, "MessageToDict", None)
    assert g.to_json(plain) == expected and "history" in expected


#: Every character json.dumps(ensure_ascii=False) escapes, and some it writes as they are.
_ESCAPED = "".join(map(chr, range(0x20))) + '"\\\x7f é \u2028\u2029 😀 </script> \ufeff \ud7ff \U0010ffff'


@pytest.mark.parametrize("dialect", ["1.0", "0.3"])
def test_to_json_text_is_protojson_text_of_to_json(dialect: str) -> None:
    """to_json_text writes the short way's dict with pydantic-core's encoder: the same
    bytes as json.dumps (protojson_text) for every message type filled every way, hostile
    strings included, and for what json_format writes (floats, a Struct, an unknown enum)."""
    package = g.PACKAGES[dialect]
    names = [m for m in g.pool(dialect).FindFileContainingSymbol(f"{package}.Task").message_types_by_name]
    for name in names:
        cls = g.message_class(dialect, name)
        for choice in range(3):
            for text in (_ESCAPED, "plain"):
                message = _filled(cls, 2, choice, text)
                obj, written = g.to_json_text(message)
                assert obj == g.to_json(message), (name, choice)
                assert written == g.protojson_text(obj) == json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
    task = g.from_json(
        dialect, "Task", {"id": _ESCAPED, "metadata": {"k": 1e20, "t": 1e-7, "s": _ESCAPED, "l": [1, 2.5]}}
    )
    task.status.state = 999
    obj, written = g.to_json_text(task)
    assert written == g.protojson_text(obj) and '"k":1e+20' in written and '"t":1e-07' in written
