"""The vendored gRPC schema: unmodified protos, descriptor sets built from them, and a pool
that loads beside a2a-sdk's own generated modules (which register the same package)."""

from __future__ import annotations

import re
from pathlib import Path

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
