"""Regenerate the gRPC descriptor sets in inspector/protocol/protos/ from the vendored protos.

    python3 -m venv /tmp/protogen && /tmp/protogen/bin/pip install grpcio-tools googleapis-common-protos
    /tmp/protogen/bin/python scripts/gen_protos.py

Each version's proto is compiled, with everything it imports and google.rpc's Status and
error details (the rich error model gRPC agents put in their trailers), into one
FileDescriptorSet (``a2a-vX.binpb``). At run time inspector/protocol/grpc_schema.py loads
each set into a private descriptor pool: a2a-sdk's generated modules register the same
package (lf.a2a.v1) in protobuf's default pool, and an inspector has to be able to run in
the same process as the SDK (tests, the pytest plugin, a user's own app). Generated
``_pb2`` modules would register in that default pool and clash with it.

The tools are needed only here, to regenerate; the product needs only ``protobuf`` (and
``grpcio`` for the transport).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent / "inspector" / "protocol" / "protos"
PROTOS = ("a2a-v1.0.1.proto", "a2a-v0.3.0.proto")
EXTRAS = ("google/rpc/status.proto", "google/rpc/error_details.proto")


def main() -> int:
    try:
        import grpc_tools
        from google.api import annotations_pb2  # googleapis-common-protos: google/api, google/rpc
        from grpc_tools import protoc
    except ImportError as exc:
        print(f"needs grpcio-tools and googleapis-common-protos: {exc}", file=sys.stderr)
        return 2
    wkt = os.path.join(os.path.dirname(grpc_tools.__file__), "_proto")
    googleapis = str(Path(annotations_pb2.__file__).resolve().parent.parent.parent)
    for name in PROTOS:
        out = HERE / name.replace(".proto", ".binpb")
        args = [
            "protoc",
            f"-I{HERE}",
            f"-I{googleapis}",
            f"-I{wkt}",
            "--include_imports",
            f"--descriptor_set_out={out}",
            name,
            *EXTRAS,
        ]
        if protoc.main(args) != 0:
            print(f"protoc failed for {name}", file=sys.stderr)
            return 1
        print(
            f"wrote {out.relative_to(Path.cwd()) if out.is_relative_to(Path.cwd()) else out} "
            f"({out.stat().st_size} bytes)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
