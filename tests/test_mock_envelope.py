"""The JSON-RPC envelope is checked before the params (issue 27 item 7).

A body that is no JSON-RPC 2.0 request (an object id, no or another ``jsonrpc``, a
method that is not a string, params that are neither object nor array) is -32600
Invalid Request, whatever is wrong in its params or its A2A-Version header; the answer's
id is null when the id itself is what is wrong. Each case is sent as the same bytes to
a2a-mock and to the Python a2a-sdk peer (tests/peers/sdk_agent.py), and the two must
answer alike; then to ``a2a-mock --replay``, which checks the envelope the same way.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest

from inspector.client import A2AClient
from inspector.protocol import models as m
from inspector.serving.runner import BackgroundServer
from inspector.session import Recorder, Session
from mock_agent import MockAgent
from mock_agent.replay import ReplayServer

#: Per dialect: the send method, params that are wrong for it, the header a client sends.
DIALECT = {"1.0": ("SendMessage", {"message": 5}, {"A2A-Version": "1.0"}), "0.3": ("message/send", {"message": 5}, {})}

#: name -> (the envelope's changes, the id the answer must carry). Every case's params
#: are wrong too: the envelope must be what is answered.
CASES: dict[str, tuple[dict[str, Any], Any]] = {
    "an object id": ({"id": {"a": 1}}, None),
    "an array id": ({"id": [1]}, None),
    "a boolean id": ({"id": True}, None),
    "a fractional id": ({"id": 1.5}, None),
    "no jsonrpc": ({"jsonrpc": ...}, 7),
    "jsonrpc 1.0": ({"jsonrpc": "1.0"}, 7),
    "jsonrpc as a number": ({"jsonrpc": 2.0}, 7),
    "a method that is a number": ({"method": 5}, 7),
    "no method": ({"method": ...}, 7),
    "params a string": ({"params": "x"}, 7),
    "params a number": ({"params": 5}, 7),
}


def body(dialect: str, changes: dict[str, Any]) -> bytes:
    method, params, _headers = DIALECT[dialect]
    obj: dict[str, Any] = {"jsonrpc": "2.0", "id": 7, "method": method, "params": params}
    for key, value in changes.items():
        if value is ...:
            del obj[key]
        else:
            obj[key] = value
    return json.dumps(obj).encode()


def answer(url: str, raw: bytes, headers: dict[str, str]) -> tuple[int, Any]:
    """(JSON-RPC error code, id) of the answer to ``raw``."""
    reply = httpx.post(url, content=raw, headers={"Content-Type": "application/json", **headers}, timeout=30)
    assert reply.status_code == 200, reply.text
    doc = reply.json()
    return doc["error"]["code"], doc.get("id")


@pytest.fixture(scope="module")
def mocks() -> Any:
    agents = {d: MockAgent("echo", dialect=d).start() for d in DIALECT}
    try:
        yield agents
    finally:
        for agent in agents.values():
            agent.stop()


@pytest.mark.parametrize("dialect", list(DIALECT))
@pytest.mark.parametrize("case", list(CASES))
def test_the_envelope_is_answered_before_the_params_as_a2a_sdk_answers(
    mocks: dict[str, MockAgent], sdk_agent_compat: str, dialect: str, case: str
) -> None:
    changes, rid = CASES[case]
    raw = body(dialect, changes)
    headers = DIALECT[dialect][2]
    sdk = answer(sdk_agent_compat + "/", raw, headers)
    mock = answer(mocks[dialect].url, raw, headers)
    assert sdk == (-32600, rid)
    assert mock == sdk


@pytest.mark.parametrize("headers", [{}, {"A2A-Version": "0.3"}], ids=["no header", "header 0.3"])
def test_the_envelope_comes_before_the_version_header(
    mocks: dict[str, MockAgent], sdk_agent_v10: str, headers: dict[str, str]
) -> None:
    """A 1.0 method without the 1.0 header is -32009 when it is a request; one that is
    not a request is -32600 first, at a2a-sdk as at the mock."""
    raw = body("1.0", {"id": {"a": 1}})
    sdk = answer(sdk_agent_v10 + "/", raw, headers)
    assert sdk == (-32600, None)
    assert answer(mocks["1.0"].url, raw, headers) == sdk
    # A request, the same without the bad id: the version is what is wrong.
    assert answer(mocks["1.0"].url, body("1.0", {}), headers)[0] == -32009


def test_a_valid_envelope_with_wrong_params_is_still_invalid_params(
    mocks: dict[str, MockAgent], sdk_agent_compat: str
) -> None:
    for dialect, code in (("1.0", -32602), ("0.3", -32600)):  # a2a-sdk's 0.3 layer: -32600 (request_check.py)
        raw, headers = body(dialect, {}), DIALECT[dialect][2]
        assert answer(sdk_agent_compat + "/", raw, headers) == (code, 7)
        assert answer(mocks[dialect].url, raw, headers) == (code, 7)


async def _record(path: Path) -> None:
    async with MockAgent("echo", dialect="1.0") as mock:
        session = Session()
        with Recorder.attach(session, path):
            async with A2AClient(mock.url, session=session, dialect="1.0") as client:
                await client.send(
                    m.SendParams(
                        message=m.Message(role=m.Role.USER, parts=[m.TextPart(text="hi")], message_id=str(uuid.uuid4()))
                    )
                )


@pytest.mark.parametrize("case", ["an object id", "jsonrpc 1.0", "no jsonrpc", "params a string"])
def test_replay_serving_checks_the_envelope_too(tmp_path: Path, case: str) -> None:
    path = tmp_path / "session.jsonl"
    asyncio.run(_record(path))
    changes, rid = CASES[case]
    # The recorded request itself, with only the envelope changed.
    events = [json.loads(line) for line in path.read_text().splitlines()]
    obj = json.loads(next(e["body"] for e in events if e.get("kind") == "request" and e.get("a2a_method") == "send"))
    for key, value in changes.items():
        if value is ...:
            del obj[key]
        else:
            obj[key] = value
    with BackgroundServer(ReplayServer([path], speed=0).app) as replay:
        reply = httpx.post(replay.url + "/", json=obj, headers={"A2A-Version": "1.0"}, timeout=30).json()
    assert reply["error"]["code"] == -32600 and reply["id"] == (obj.get("id") if rid is not None else None)
