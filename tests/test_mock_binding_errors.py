"""Requests the bindings cannot take are answered in the binding's own error form.

Over gRPC, bytes that do not parse as the RPC's request message are the client's
fault: INVALID_ARGUMENT with a sentence, not UNKNOWN naming a Python class. Over
HTTP+JSON/REST, a verb no route takes (PUT, PATCH) is a google.rpc.Status JSON body
with 405, like every other REST error the mock answers, never a plain-text page.
"""

from __future__ import annotations

from typing import Any

import grpc
import httpx
import pytest

from grpc_raw import Raw
from inspector.protocol import grpc_schema
from mock_agent import MockAgent
from test_mock_grpc import send


@pytest.fixture
async def mock() -> Any:
    async with MockAgent("echo", grpc_port=0) as agent:
        yield agent


@pytest.mark.parametrize("dialect", ["1.0", "0.3"])
async def test_an_undecodable_grpc_request_is_invalid_argument(mock: MockAgent, dialect: str) -> None:
    path = grpc_schema.rpcs(dialect)["SendMessage"].path
    version = (("a2a-version", dialect),)
    async with grpc.aio.insecure_channel(mock.grpc_address) as channel:
        # A field tag claiming a length-delimited field of 127 bytes, and then none.
        call = channel.unary_unary(path, request_serializer=None, response_deserializer=None)
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await call(b"\x0a\x7f", metadata=version, timeout=10)
    err = caught.value
    assert err.code() is grpc.StatusCode.INVALID_ARGUMENT, (err.code(), err.details())
    assert "not a valid" in err.details() and "DecodeError" not in err.details()
    # The mock goes on: a well-formed request on the same server is answered.
    async with Raw(mock.grpc_address, dialect) as raw:
        reply = await raw.unary("SendMessage", send("still here", dialect=dialect))
    assert reply


@pytest.mark.parametrize("verb", ["PUT", "PATCH"])
async def test_a_rest_verb_no_route_takes_is_a_status_body(mock: MockAgent, verb: str) -> None:
    async with httpx.AsyncClient(timeout=10) as http:
        sent = await http.post(
            mock.base_url + "/rest/message:send",
            headers={"A2A-Version": "1.0"},
            json={"message": {"role": "ROLE_USER", "messageId": "m-1", "parts": [{"text": "hi"}]}},
        )
        task_id = sent.json()["task"]["id"]
        r = await http.request(verb, f"{mock.base_url}/rest/tasks/{task_id}:cancel", headers={"A2A-Version": "1.0"})
    assert r.status_code == 405
    assert r.headers["content-type"].startswith("application/json")
    error = r.json()["error"]
    # The same Status the mock answers a DELETE on that route with (ErrorInfo inside).
    assert isinstance(error["status"], str)
    assert error["code"] == 405  # the body's code is the HTTP status it came with
    assert error["details"][0]["@type"].endswith("google.rpc.ErrorInfo")
    assert f"Method {verb} not allowed" in error["message"]
