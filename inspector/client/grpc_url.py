"""Whether a URL names a gRPC agent: asked by every client, so it lives apart from
grpc_transport.py, whose codecs and descriptor sets only a gRPC call should load."""

from __future__ import annotations

from urllib.parse import urlsplit

GRPC_SCHEMES = ("grpc", "grpcs")


def is_grpc_url(url: str | None) -> bool:
    return bool(url) and urlsplit(url).scheme.lower() in GRPC_SCHEMES
