"""A plain grpcio client for tests: calls an A2AService by method name with ProtoJSON in
and out (messages from inspector/protocol/grpc_schema.py), and reads an error's
google.rpc.Status from its grpc-status-details-bin trailer."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import grpc

from inspector.protocol import grpc_schema

DETAILS = "grpc-status-details-bin"


@dataclass
class Failure:
    """How a call ended, when not with OK: the status, its message, the rich status."""

    code: grpc.StatusCode
    message: str
    status: dict[str, Any] | None
    details: list[dict[str, Any]] = field(default_factory=list)

    @property
    def reason(self) -> str | None:
        return next((d.get("reason") for d in self.details if d.get("@type", "").endswith("ErrorInfo")), None)


def failure(dialect: str, err: grpc.aio.AioRpcError) -> Failure:
    raw = next((v for k, v in (err.trailing_metadata() or ()) if k == DETAILS), None)
    status = details = None
    if raw is not None:
        message = grpc_schema.decode(dialect, "google.rpc.Status", raw)
        details = []
        for any_ in message.details:
            name = any_.type_url.rsplit("/", 1)[-1]
            inner = grpc_schema.message_class(dialect, name)()
            assert any_.Unpack(inner), any_.type_url
            details.append({"@type": any_.type_url, **grpc_schema.to_json(inner)})
        status = {"code": message.code, "message": message.message}
    return Failure(err.code(), err.details() or "", status, details or [])


class Raw:
    """``await raw.unary("GetTask", {"id": ...})`` -> the response's ProtoJSON;
    ``await raw.stream(...)`` -> (the messages' ProtoJSON, Failure or None)."""

    def __init__(self, address: str, dialect: str = "1.0", version: str | None = "default") -> None:
        self.channel = grpc.aio.insecure_channel(address)
        self.dialect = dialect
        self.version = {"1.0": "1.0", "0.3": "0.3"}[dialect] if version == "default" else version

    def _metadata(self, version: str | None = "default") -> tuple[tuple[str, str], ...]:
        v = self.version if version == "default" else version
        return (("a2a-version", v),) if v else ()

    def _method(self, name: str, streaming: bool) -> Any:
        rpc = grpc_schema.rpcs(self.dialect)[name]
        assert rpc.server_streaming is streaming
        response = grpc_schema.message_class(self.dialect, rpc.response)
        make = self.channel.unary_stream if streaming else self.channel.unary_unary
        return make(
            rpc.path,
            request_serializer=lambda m: m.SerializeToString(),
            response_deserializer=lambda data: _parse(response, data),
        ), rpc

    async def unary(
        self, name: str, body: dict[str, Any], version: str | None = "default", timeout: float = 30
    ) -> dict[str, Any]:
        method, rpc = self._method(name, False)
        reply = await method(
            grpc_schema.from_json(self.dialect, rpc.request, body), metadata=self._metadata(version), timeout=timeout
        )
        return _json(reply)

    async def unary_failure(
        self, name: str, body: dict[str, Any], version: str | None = "default", timeout: float = 30
    ) -> Failure:
        try:
            got = await self.unary(name, body, version, timeout)
        except grpc.aio.AioRpcError as err:
            return failure(self.dialect, err)
        raise AssertionError(f"{name} answered {got}")

    def open_stream(self, name: str, body: dict[str, Any], version: str | None = "default") -> Any:
        method, rpc = self._method(name, True)
        return method(
            grpc_schema.from_json(self.dialect, rpc.request, body), metadata=self._metadata(version), timeout=30
        )

    async def stream(
        self, name: str, body: dict[str, Any], version: str | None = "default"
    ) -> tuple[list[dict[str, Any]], Failure | None]:
        call = self.open_stream(name, body, version)
        out: list[dict[str, Any]] = []
        try:
            async for reply in call:
                out.append(_json(reply))
        except grpc.aio.AioRpcError as err:
            return out, failure(self.dialect, err)
        return out, None

    async def close(self) -> None:
        await self.channel.close()

    async def __aenter__(self) -> Raw:
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()


def _parse(cls: type, data: bytes) -> Any:
    from google.protobuf.message import DecodeError

    try:
        return cls.FromString(data)
    except DecodeError:
        return data  # bytes that do not parse, kept to look at


def _json(reply: Any) -> dict[str, Any]:
    return {"unparsed": reply} if isinstance(reply, bytes) else grpc_schema.to_json(reply)


def kinds(events: list[dict[str, Any]]) -> list[str]:
    """Each StreamResponse's payload: task, message, statusUpdate, artifactUpdate."""
    return [next(iter(e)) for e in events]
