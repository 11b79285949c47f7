"""Tripwires for what we use of a dependency beyond its documented API: when an upgrade
changes it, these fail first and say what to look at, before a behaviour test fails
somewhere far away (or passes while a guard silently stopped working)."""

from __future__ import annotations

import asyncio
import importlib
import inspect

import pytest
import uvicorn

from inspector.serving import deadline

# uvicorn's HTTP protocols, by the module uvicorn keeps each in; httptools is optional.
PROTOCOLS = [
    ("uvicorn.protocols.http.h11_impl", "H11Protocol"),
    ("uvicorn.protocols.http.httptools_impl", "HttpToolsProtocol"),
]


def _protocol(module: str, name: str) -> type:
    try:
        return getattr(importlib.import_module(module), name)
    except ImportError as exc:  # httptools not installed: uvicorn does not use that one
        pytest.skip(f"{module}: {exc}")


@pytest.mark.parametrize(("module", "name"), PROTOCOLS)
def test_uvicorn_keeps_what_the_request_deadline_reads(module: str, name: str) -> None:
    """deadline.py: the protocol's ``cycle`` (the current request), its ``more_body``,
    ``response_started`` and ``response_complete``, the ``loop`` and ``transport``, and
    the ``handle_websocket_upgrade`` hand-over, in both of uvicorn's HTTP protocols."""
    cls = _protocol(module, name)
    where = f"uvicorn {uvicorn.__version__} {module}.{name}"
    for method in ("connection_made", "data_received", "connection_lost", "handle_websocket_upgrade"):
        assert callable(getattr(cls, method, None)), f"{where} has no {method}(): see inspector/serving/deadline.py"
    init = inspect.getsource(cls.__init__) + inspect.getsource(cls.connection_made)
    for attribute in ("self.loop", "self.transport", "self.cycle"):
        assert attribute in init, f"{where} no longer sets {attribute}: see inspector/serving/deadline.py"
    cycle = importlib.import_module(module).RequestResponseCycle
    kept = inspect.getsource(cycle.__init__)
    for attribute in ("self.more_body", "self.response_started", "self.response_complete"):
        assert attribute in kept, (
            f"{where}'s RequestResponseCycle has no {attribute}: see inspector/serving/deadline.py"
        )


def test_the_request_deadline_subclasses_the_protocol_uvicorn_picks() -> None:
    from uvicorn.protocols.http.auto import AutoHTTPProtocol

    chosen = deadline.protocol(1.0)
    assert issubclass(chosen, AutoHTTPProtocol)
    assert issubclass(chosen, asyncio.Protocol)


def test_uvicorn_server_keeps_what_the_runner_reads() -> None:
    """runner.py: ``started``, ``should_exit``, ``force_exit``, ``servers``, and
    ``serve`` taking the process's signals only inside ``capture_signals`` (which the
    runner's server makes a no-op)."""
    server = uvicorn.Server(uvicorn.Config(app=None))
    for attribute in ("started", "should_exit", "force_exit"):
        assert hasattr(server, attribute), (
            f"uvicorn {uvicorn.__version__}.Server has no {attribute}: see inspector/serving/runner.py"
        )
    assert "self.capture_signals()" in inspect.getsource(uvicorn.Server.serve), (
        f"uvicorn {uvicorn.__version__}.Server.serve takes signals another way: see inspector/serving/runner.py"
    )
    assert "self.servers" in inspect.getsource(uvicorn.Server), "see inspector/serving/runner.py"
