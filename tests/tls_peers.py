"""Servers behind TLS for the TLS tests (issue 28 item 12): a throwaway CA made by
trustme (certificates for 127.0.0.1 and a client), the a2a-sdk Echo Agent under uvicorn
with its certificate (and one requiring a client certificate), and the agent's 1.0 gRPC
service on grpc.aio servers with ssl_server_credentials. All on 127.0.0.1, port 0; one
of each per test module. Import the fixtures into a test module to use them."""

from __future__ import annotations

import asyncio
import ssl
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import trustme

from inspector.serving.runner import BackgroundServer
from peers.sdk_agent import EchoExecutor, build_app, build_card


@dataclass
class Pki:
    ca: Path
    server_cert: Path
    server_key: Path
    client_cert: Path
    client_key: Path
    #: A CA that signed nothing here: trusting it must not make the agent trusted.
    other_ca: Path


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    home = tmp_path_factory.mktemp("pki")
    ca = trustme.CA()
    server = ca.issue_cert("127.0.0.1")  # not localhost: a name the certificate does not list
    client = ca.issue_cert("client@a2a-inspect.test")
    paths = Pki(*(home / n for n in ("ca.pem", "server.pem", "server.key", "client.pem", "client.key", "other.pem")))
    ca.cert_pem.write_to_path(str(paths.ca))
    server.cert_chain_pems[0].write_to_path(str(paths.server_cert))
    server.private_key_pem.write_to_path(str(paths.server_key))
    client.cert_chain_pems[0].write_to_path(str(paths.client_cert))
    client.private_key_pem.write_to_path(str(paths.client_key))
    trustme.CA().cert_pem.write_to_path(str(paths.other_ca))
    return paths


def _https(srv: BackgroundServer) -> str:
    return srv.url.replace("http://", "https://")


@pytest.fixture(scope="module")
def https_agent(pki: Pki) -> Iterator[str]:
    with BackgroundServer(
        build_app("v10", echo_delay=0, slow_delay=0), ssl_certfile=str(pki.server_cert), ssl_keyfile=str(pki.server_key)
    ) as srv:
        yield _https(srv)


@pytest.fixture(scope="module")
def mtls_agent(pki: Pki) -> Iterator[str]:
    with BackgroundServer(
        build_app("v10", echo_delay=0, slow_delay=0),
        ssl_certfile=str(pki.server_cert),
        ssl_keyfile=str(pki.server_key),
        ssl_ca_certs=str(pki.ca),
        ssl_cert_reqs=ssl.CERT_REQUIRED,
    ) as srv:
        yield _https(srv)


class _GrpcTls:
    """The Echo Agent's 1.0 gRPC service behind TLS, on its own event loop in a thread."""

    def __init__(self, pki: Pki, require_client: bool) -> None:
        self.pki, self.require_client = pki, require_client
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="grpc-tls", daemon=True)
        self.server: Any = None

    async def _start(self) -> int:
        import grpc
        from a2a.server.request_handlers import DefaultRequestHandler, GrpcHandler
        from a2a.server.tasks import InMemoryTaskStore
        from a2a.types import a2a_pb2_grpc

        card = build_card("v10", "http://127.0.0.1", 0)
        handler = DefaultRequestHandler(
            agent_executor=EchoExecutor(0, 0), task_store=InMemoryTaskStore(), agent_card=card, extended_agent_card=card
        )
        self.server = grpc.aio.server()
        a2a_pb2_grpc.add_A2AServiceServicer_to_server(GrpcHandler(handler), self.server)
        pki = self.pki
        credentials = grpc.ssl_server_credentials(
            [(pki.server_key.read_bytes(), pki.server_cert.read_bytes())],
            root_certificates=pki.ca.read_bytes() if self.require_client else None,
            require_client_auth=self.require_client,
        )
        port = self.server.add_secure_port("127.0.0.1:0", credentials)
        await self.server.start()
        return port

    def __enter__(self) -> str:
        self.thread.start()
        port = asyncio.run_coroutine_threadsafe(self._start(), self.loop).result(timeout=30)
        return f"grpcs://127.0.0.1:{port}"

    def __exit__(self, *exc: Any) -> None:
        asyncio.run_coroutine_threadsafe(self.server.stop(0), self.loop).result(timeout=30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


@pytest.fixture(scope="module")
def grpcs_agent(pki: Pki) -> Iterator[str]:
    with _GrpcTls(pki, require_client=False) as url:
        yield url


@pytest.fixture(scope="module")
def grpcs_mtls_agent(pki: Pki) -> Iterator[str]:
    with _GrpcTls(pki, require_client=True) as url:
        yield url
