"""Ports for tests that must not depend on port luck.

``bind(("127.0.0.1", 0))``, read the port, close, and use it later is a race: between
the close and the use, any process (another xdist worker's server, say) may be given
the same port. Two ways out, each at the cause:

* a port that must refuse connections stays *bound* (never listening) for as long as
  the test needs it: nobody else can take it, and a connect to it is refused;
* a port that the code under test must bind itself is taken from below the kernel's
  ephemeral range, which ``bind(0)`` and outgoing connections never hand out, spread
  by xdist worker so that two workers do not pick the same one.
"""

from __future__ import annotations

import contextlib
import os
import random
import socket
from collections.abc import Iterator


@contextlib.contextmanager
def refused_port() -> Iterator[int]:
    """A loopback port that refuses connections while the block runs."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield sock.getsockname()[1]


def _ephemeral_low() -> int:
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as fh:
            return int(fh.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def unassigned_port() -> int:
    """A free loopback port that the kernel does not hand out to ``bind(0)``."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    index = int(worker[2:]) if worker[2:].isdigit() else 0
    top = min(_ephemeral_low(), 32768)
    # Each worker draws from its own band of 500 ports between 20000 and the range.
    low = 20000 + (index * 500) % max(500, top - 20500)
    for port in random.sample(range(low, low + 500), 500):
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port in {low}-{low + 499}")
