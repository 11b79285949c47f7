"""What the commands the suite (and a user's script) runs most load at start, and what they
must not: each of those processes paid for the gRPC codecs, uvicorn or every pydantic
model's validator whether or not it used them. One subprocess checks them all, in an order
where an earlier step cannot load what a later one must not."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator

import pytest

from mock_agent import MockAgent

PROBE = """
import contextlib, io, json, sys
import pydantic
url = sys.argv[1]
seen = {}

def loaded(*names):
    return sorted(name for name in names if name in sys.modules)

# The modules every headless command imports (cli -> headless.run -> commands -> client):
# no model's validator is built before a command validates one.
import inspector.cli, inspector.headless.run, inspector.headless.commands
from inspector.protocol import models as m
seen["built at import"] = sorted(
    name for name, cls in vars(m).items()
    if isinstance(cls, type) and issubclass(cls, m.A2AModel) and cls.__pydantic_complete__
)

# a2a-mock --check: no server to run, so neither uvicorn nor starlette.
import mock_agent.cli
with contextlib.redirect_stdout(io.StringIO()):
    seen["check exit"] = mock_agent.cli.main(["--check", "--scenario", "echo"])
seen["check loaded"] = loaded("uvicorn", "starlette", "mock_agent.server")

# card and send over HTTP: the gRPC transport and its codecs are for gRPC agents only.
grpc = ("inspector.client.grpc_transport", "inspector.protocol.grpc_codec", "inspector.protocol.grpc_schema")
with contextlib.redirect_stdout(io.StringIO()):
    seen["card exit"] = inspector.cli.main(["card", url])
    seen["send exit"] = inspector.cli.main(["send", url, "hello"])
seen["send loaded"] = loaded(*grpc)
# A send that streamed nothing built no shortcut for streamed chunks.
seen["chunk model built"] = m.TaskArtifactUpdateEvent.__pydantic_complete__

# a2a-inspect proxy without --faults: the fault rules' models are never validated.
import inspector.headless.proxy_cmd, inspector.proxy.core, inspector.proxy.faults as faults
seen["fault models built"] = sorted(
    name for name, cls in vars(faults).items()
    if isinstance(cls, type) and issubclass(cls, pydantic.BaseModel) and cls.__pydantic_complete__
)

# a2a-mock without --grpc-port: no gRPC front.
from mock_agent.server import MockServer
MockServer("echo")
seen["mock loaded"] = loaded("mock_agent.grpc_server", *grpc)
print(json.dumps(seen))
"""


@pytest.fixture(scope="module")
def agent_url() -> Iterator[str]:
    with MockAgent("echo", dialect="0.3") as mock:
        yield mock.url


def test_commands_start_without_what_they_do_not_use(agent_url: str) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, agent_url], capture_output=True, text=True, timeout=60, check=False
    )
    assert proc.returncode == 0, proc.stderr
    seen = json.loads(proc.stdout.strip().splitlines()[-1])
    assert (seen["check exit"], seen["card exit"], seen["send exit"]) == (0, 0, 0), seen
    assert seen["built at import"] == []
    assert seen["check loaded"] == []
    assert seen["send loaded"] == []
    assert seen["chunk model built"] is False
    assert seen["fault models built"] == []
    assert seen["mock loaded"] == []
