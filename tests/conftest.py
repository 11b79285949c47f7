"""Shared fixtures. Each section owns one kind of resource; add new sections below."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator

# --- compiled bytecode (before anything of ours is imported) --------------------------
#
# The suite starts a few hundred Python processes: its xdist workers, and the CLI, the
# mock agent, the proxy and the hub in subprocesses. With PYTHONDONTWRITEBYTECODE set (as
# on the machines CI runs on) each of them compiled what it imports of ours from source
# again (the client, headless and mock modules: 0.52 s of CPU against 0.42 s from .pyc
# files), and every worker rewrote every test module's assertions anew. The suite writes
# them (under __pycache__, which git ignores), whatever the variable says; its processes
# inherit this. Measured on the whole suite, alternating: 268 and 244 s without, 232 and
# 233 s with (390 and 335 s of CPU against 314 and 318).
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False

# --- no animations in the apps the tests start in this process ----------------------
#
# Textual reads TEXTUAL_ANIMATIONS once, when it is imported: before anything here imports
# it. With animations, each view switch slid the tabs' underline through ~35 frames, each
# one laid out and rendered (a fifth of a switch's CPU); the tests read where things end
# up, never a frame in between. The apps in the emulated terminal (tests/terminal.py) run
# as a person runs them: terminal_env leaves TEXTUAL_* out.
os.environ["TEXTUAL_ANIMATIONS"] = "none"

# --- grpc's C core says only what is wrong ----------------------------------------------
#
# The product sets this as it first imports grpc (client/grpc_transport.py,
# proxy/grpc_relay.py); tests that import grpc first (their own servers and clients) left
# its INFO lines ("Got goaway" for each closed channel) in the suite's output.
os.environ.setdefault("GRPC_VERBOSITY", "ERROR")

import pytest  # noqa: E402

from inspector.serving.runner import BackgroundServer  # noqa: E402
from peers.js_agent import Agents, JsAgent  # noqa: E402
from peers.sdk_agent import MODES, build_app  # noqa: E402

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


# --- how many workers `-n auto` starts ---------------------------------------------------
#
# About 40% of a test's time here is spent waiting, not computing: on sockets to the
# servers it starts, on subprocesses, on timers and Textual's refreshes (measured per test
# on 2 cores: 631 s of test time, 370 s of it CPU). One worker per core leaves a core idle
# while its test waits; two per core keep both busy. On 2 cores, with nothing else
# running: -n 2 took 324 s, -n 3 269 s, -n 4 264 s at first; once the suite itself took
# less CPU (bytecode written, codec strategies built once), -n 3 219 s and -n 4 207 s
# (290 and 320 s of CPU). Later, with more tests (4,021; ~490 s of CPU, a worker's tests
# waiting 60% of their time), one run each on a quiet machine: -n 4 300 s, -n 6 277 s,
# -n 8 286 s; three per core it is. PYTEST_XDIST_AUTO_NUM_WORKERS still decides when set.


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None  # xdist's own reading of it
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        cores = os.cpu_count() or 1
    return max(1, 3 * cores)


# --- order: the long tests first ------------------------------------------------------
#
# pytest-xdist hands tests out in collection order (pyproject: --dist loadgroup), so a
# 30-second test collected last keeps the run going on one worker while the other has
# finished. These go first: the modules holding tests of ten seconds or more (the snapshot
# session, 25 s on one worker; subprocesses streaming a long reply, a wheel build, ~100 tab
# switches, the GC policy's runs in subprocesses) and modules of seconds-long tests that
# are not named test_ui_* (the TUI's bomb tests ended the run alone, 8 s on one worker),
# then every Textual app test (seconds each), then the rest in name order, short ones
# filling the end. Only the order changes: a module missing here, or one that grew long,
# is still run, merely later.

LONG_MODULES = (
    "test_snapshots",
    "test_bounded_memory",
    "test_ui_shell",
    "test_gcpolicy",
    "test_ui_palette_themes",
    "test_packaging",
    "test_mock_cli",
    "test_verdicts_clean",
    "test_ui_focus",
    "test_mock_tasks",
    "test_trust_bounds",
    "test_codec_roundtrip",
    "test_long_streams",
    "test_screen_escapes",
    "test_web",
)


def _start_rank(item: pytest.Item) -> int:
    name = item.path.stem
    if name in LONG_MODULES:
        return 0
    return 1 if name.startswith("test_ui_") else 2


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=_start_rank)  # stable: each module's own order is kept


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


@pytest.fixture(scope="session")
def sdk_agent_grpc() -> Iterator[tuple[str, str]]:
    """The SDK Echo Agent (compat: 1.0 and 0.3) serving gRPC too: ``(base URL, grpc://127.0.0.1:PORT)``.
    Its card lists the GRPC interface first."""
    from peers.sdk_agent import grpc_port

    app = build_app("compat", echo_delay=PEER_ECHO_DELAY, slow_delay=PEER_SLOW_DELAY, grpc=True)
    with BackgroundServer(app) as srv:
        yield srv.url, f"grpc://127.0.0.1:{grpc_port(srv.url)}"


@pytest.fixture(params=MODES)
def sdk_agent(request: pytest.FixtureRequest) -> tuple[str, str]:
    """``(mode, base_url)`` for each SDK agent mode ("compat", "v10")."""
    mode = request.param
    return mode, request.getfixturevalue(f"sdk_agent_{mode}")


# --- the official JS SDK's agent (tests/peers/js/agent.mjs) ------------------------------
#
# One node process per configuration (bindings served, 0.3 compatibility on or off) for
# the whole session, started when a test first asks for it; tests only touch tasks they
# created themselves.


@pytest.fixture(scope="session")
def _js_agents() -> Iterator[Agents]:
    agents = Agents()
    yield agents
    agents.stop()


@pytest.fixture
def js_agents(_js_agents: Agents) -> Agents:
    """``get(bindings=("jsonrpc", "rest", "grpc"), compat=True)``: the JS SDK agent in that
    configuration (a peers.js_agent.JsAgent), started once per session. Skips (fails
    in CI) when node or the SDK is missing."""
    from peers import js_peers

    js_peers.require()
    return _js_agents


@pytest.fixture
def js_agent_compat(js_agents: Agents) -> JsAgent:
    """The JS SDK agent on every binding, speaking 1.0 and, through its compat layer, 0.3."""
    return js_agents.get()


@pytest.fixture
def js_agent_v10(js_agents: Agents) -> JsAgent:
    """The JS SDK agent on every binding, speaking 1.0 only."""
    return js_agents.get(compat=False)


def pytest_configure(config: pytest.Config) -> None:
    # A test process is as long-lived as the app, and leaves more behind: every test's
    # apps, sessions and servers stay alive until it ends, so CPython's collector
    # rescans an ever larger heap each time it grows by a quarter. Under the app's own
    # policy (inspector.gcpolicy) the whole suite took 310 s of CPU instead of 442 s,
    # and 220 s of wall clock instead of 284 s, on 2 cores. tests/test_gcpolicy.py
    # runs its tests without it.
    from inspector import gcpolicy

    gcpolicy.install()
    _install_js_peers(config)


def _install_js_peers(config: pytest.Config) -> None:
    # Once per run, in the process that starts the xdist workers (before they start), so
    # workers never race on node_modules; they read the outcome from the environment.
    if hasattr(config, "workerinput"):
        return
    from peers import js_peers

    reason = js_peers.install()
    if reason:
        os.environ["A2A_INSPECT_JS_PEERS_MISSING"] = reason
    else:
        os.environ.pop("A2A_INSPECT_JS_PEERS_MISSING", None)


# --- the agent of the screen tests (tests/screen_agent.yaml) --------------------------


@pytest.fixture
def screen_agent() -> Iterator[object]:
    """The mock agent of the screen tests, on a free loopback port (a MockAgent: ``url``,
    ``held(gate)``, ``release(gate)``)."""
    from mock_agent import MockAgent
    from screen_app import SCENARIO

    with MockAgent(str(SCENARIO)) as mock:
        yield mock
