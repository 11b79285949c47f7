"""Every file a2a-inspect writes is private: recordings, exports (HAR, scenario), the
dialect cache, saved agents and settings are 0600, a curl script 0700 (it is run)."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from cli_helpers import Cli, cli  # noqa: F401 (fixture)
from inspector import store
from inspector.client import Auth, MemoryDialectCache
from inspector.ui.connection import AgentConnection
from mock_agent import MockAgent


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture(scope="module")
def agent() -> Iterator[str]:
    with MockAgent("echo", dialect="all") as mock:
        yield mock.url


@pytest.fixture(autouse=True)
def _usual_umask() -> Iterator[None]:
    # Under the usual umask a plain open() makes 0644 files: the modes below are chosen.
    old = os.umask(0o022)
    yield
    os.umask(old)


def test_a_recording_and_its_exports_are_private(cli: Cli, agent: str, tmp_path: Path) -> None:
    rec = tmp_path / "s.jsonl"
    r = cli("send", agent, "hi", "--record", str(rec))
    assert r.code == 0, r
    assert mode(rec) == 0o600
    r = cli(
        "export",
        str(rec),
        "--har",
        str(tmp_path / "s.har"),
        "--scenario",
        str(tmp_path / "s.yaml"),
        "--curl",
        str(tmp_path / "s.sh"),
    )
    assert r.code == 0, r
    assert mode(tmp_path / "s.har") == 0o600
    assert mode(tmp_path / "s.yaml") == 0o600
    assert mode(tmp_path / "s.sh") == 0o700
    assert mode(cli.dialect_cache) == 0o600


def test_replacing_a_file_makes_it_private(cli: Cli, agent: str, tmp_path: Path) -> None:
    rec = tmp_path / "s.jsonl"
    assert cli("send", agent, "hi", "--record", str(rec)).code == 0
    har = tmp_path / "s.har"
    har.write_text("old")
    har.chmod(0o644)
    r = cli("export", str(rec), "--har", str(har), "--force")
    assert r.code == 0, r
    assert mode(har) == 0o600 and har.read_text() != "old"


def test_a_recording_in_the_data_directory_is_private(cli: Cli, agent: str) -> None:
    r = cli("send", agent, "hi", "--record")
    assert r.code == 0, r
    (path,) = (Path(cli.env["XDG_DATA_HOME"]) / "a2a-inspect" / "recordings").iterdir()
    assert mode(path) == 0o600


def test_saved_agents_and_settings_are_private(tmp_path: Path) -> None:
    agents = store.AgentStore(tmp_path / "agents.json")
    agents.add(store.SavedAgent(name="a", url="http://127.0.0.1:1", auth="bearer", secret="s3cr3t-token"))
    assert mode(tmp_path / "agents.json") == 0o600
    store.save_settings(store.Settings(), tmp_path / "settings.json")
    assert mode(tmp_path / "settings.json") == 0o600


async def test_a_recording_started_in_the_tui_is_private(agent: str, tmp_path: Path) -> None:
    conn = AgentConnection(agent, auth=Auth.bearer("tok-123456"), dialect_cache=MemoryDialectCache())
    try:
        conn.start_recording(tmp_path / "tui.jsonl")
        await conn.connect()
    finally:
        await conn.aclose()
    assert mode(tmp_path / "tui.jsonl") == 0o600
