"""A gRPC agent's stream is bounded as an HTTP one is (inspector/client/limits.py): one
message by --max-event, refused by gRPC from its length prefix before it is read (the
channel of a stream receives at most max_event bytes a message); the stream's whole body
by --max-stream-body, its messages by --max-stream-events. Each ends in one line and
exit 3, and the CLI's peak RSS is measured in a process of its own. The agent
(tests/grpc_flood_agent.py) runs in a process of its own too."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

import trust_agents as ta
from cli_helpers import COMMAND, Cli, CliResult, assert_one_error_line
from inspector.client import Limits

HERE = Path(__file__).resolve().parent
MiB = 1024 * 1024
#: The CLI streaming a short answer peaks near 67 MiB; reading one message whole took it
#: to 240 MiB for 60 MB. Generous above the first, well below the second.
PEAK_MIB = 140


@pytest.fixture
def cli(tmp_path: Path) -> Cli:
    return Cli(tmp_path / "home")


@contextmanager
def flood(count: int, size: int) -> Iterator[str]:
    """``grpc://127.0.0.1:PORT`` of an agent streaming ``count`` chunks of ``size`` bytes."""
    proc = subprocess.Popen(
        [sys.executable, str(HERE / "grpc_flood_agent.py"), str(count), str(size)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        yield f"grpc://127.0.0.1:{proc.stdout.readline().strip()}"
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait(30)


def stream(cli: Cli, url: str, *options: str) -> tuple[CliResult, float]:
    args = ("send", url, "hi", "--stream", "--dialect", "1.0", *options)
    proc, peak = ta.peak_rss_mib([*COMMAND, *args], env=cli.env, cwd=cli.home, timeout=60)
    return CliResult(args, proc.returncode, proc.stdout, proc.stderr), peak


def test_a_message_past_the_default_max_event_is_refused_before_it_is_read(cli: Cli) -> None:
    limits = Limits()  # no option given: the defaults
    size = 60_000_000
    assert limits.max_event < size < limits.max_body
    with flood(1, size) as url:
        result, peak = stream(cli, url)
    assert_one_error_line(
        result, 3, f"an event of the stream from {url} is larger than 16 MiB (--max-event); stopped reading"
    )
    assert peak < PEAK_MIB, f"peak RSS {peak:.0f} MiB"


def test_max_event_given_as_an_option(cli: Cli) -> None:
    with flood(3, 2 * MiB) as url:
        result, peak = stream(cli, url, "--max-event", "1M")
        well, well_peak = stream(cli, url, "--max-event", "3M")  # the same stream, within the bound
    # The task came first; the first chunk is over the bound.
    assert_one_error_line(
        result, 3, f"an event of the stream from {url} is larger than 1 MiB (--max-event); stopped reading"
    )
    assert peak < PEAK_MIB, f"peak RSS {peak:.0f} MiB"
    assert well.code == 0 and well.err == "" and well.out.count("x" * 2 * MiB) == 3, well
    assert well_peak < PEAK_MIB, f"peak RSS {well_peak:.0f} MiB"


def test_max_stream_body_and_events_end_a_flood(cli: Cli) -> None:
    with flood(2000, 64 * 1024) as url:  # 125 MiB in all
        body, body_peak = stream(cli, url, "--max-stream-body", "4M")
        count, count_peak = stream(cli, url, "--max-stream-events", "50")
    assert_one_error_line(body, 3, f"stream from {url} is larger than 4 MiB (--max-stream-body); stopped reading")
    assert_one_error_line(
        count, 3, f"stream from {url} sent more than 50 events (--max-stream-events); stopped reading"
    )
    assert body.out.count("x" * 64 * 1024) < 4 * 16  # shown up to the bound, no further
    assert max(body_peak, count_peak) < PEAK_MIB, (body_peak, count_peak)
