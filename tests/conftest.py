"""Shared fixtures. Each section owns one kind of resource; add new sections below."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from inspector.serving.runner import BackgroundServer
from peers.sdk_agent import MODES, build_app

# --- user directories ----------------------------------------------------------------
#
# platformdirs reads XDG_* at call time: every test gets empty config/data/cache dirs,
# so the dialect cache, saved agents and settings never leak between tests or from the
# developer's own machine.


@pytest.fixture(autouse=True)
def _isolated_user_dirs(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path_factory.mktemp("xdg")
    for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"):
        monkeypatch.setenv(name, str(root / name.lower()))


# --- real a2a-sdk peer (tests/peers/sdk_agent.py) ------------------------------------
#
# One server per mode for the whole session: the SDK app is stateless apart from its
# in-memory task store, and tests only touch tasks they created themselves.

# Pinned here rather than taken from the environment: cancel tests rely on a "slow"
# task still running a few hundred milliseconds after it was started.
PEER_ECHO_DELAY = 0.02
PEER_SLOW_DELAY = 0.3


def _serve_sdk_agent(mode: str) -> Iterator[str]:
    app = build_app(mode, echo_delay=PEER_ECHO_DELAY, slow_delay=PEER_SLOW_DELAY)
    with BackgroundServer(app) as srv:
        yield srv.url


@pytest.fixture(scope="session")
def sdk_agent_compat() -> Iterator[str]:
    """Base URL (no trailing slash) of the SDK Echo Agent speaking 1.0 and 0.3."""
    yield from _serve_sdk_agent("compat")


@pytest.fixture(scope="session")
def sdk_agent_v10() -> Iterator[str]:
    """Base URL (no trailing slash) of the SDK Echo Agent speaking pure 1.0."""
    yield from _serve_sdk_agent("v10")


@pytest.fixture(params=MODES)
def sdk_agent(request: pytest.FixtureRequest) -> tuple[str, str]:
    """``(mode, base_url)`` for each SDK agent mode ("compat", "v10")."""
    mode = request.param
    return mode, request.getfixturevalue(f"sdk_agent_{mode}")
