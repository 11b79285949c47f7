"""Bodies a client must not send, answered as JSON-RPC errors in the dialect asked in.

An oversized body (announced, or chunked without a length) is HTTP 413 with a JSON-RPC
-32600; JSON nested deeper than the limit is a -32700. Never a plain-text error page:
a client's JSON-RPC error handling meets both. Until the body is read, the dialect is
known from the A2A-Version header alone, so a 1.0 client gets the 1.0 error shape
(google.rpc.ErrorInfo in data) even from a mock serving every dialect.
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from inspector.safejson import MAX_JSON_DEPTH
from mock_agent import MockAgent

LIMIT = 4096
HEADERS = {"0.1": {}, "0.3": {}, "1.0": {"A2A-Version": "1.0"}}
SERVED = [("0.1", "0.1"), ("0.3", "0.3"), ("1.0", "1.0"), ("all", "0.3"), ("all", "1.0")]


def request(dialect: str, text: str) -> bytes:
    if dialect == "1.0":
        body = (
            '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"role":"ROLE_USER",'
            '"messageId":"m","parts":[{"text":"%s"}]}}}'
        )
    elif dialect == "0.3":
        body = (
            '{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message",'
            '"role":"user","messageId":"m","parts":[{"kind":"text","text":"%s"}]}}}'
        )
    else:
        body = (
            '{"jsonrpc":"2.0","id":1,"method":"tasks/send","params":{"id":"t","message":{"role":"user",'
            '"parts":[{"type":"text","text":"%s"}]}}}'
        )
    return (body % text).encode()


@pytest.fixture(scope="module")
def mocks() -> Iterator[dict[str, MockAgent]]:
    agents = {d: MockAgent("echo", dialect=d, max_body=LIMIT).start() for d in ("0.1", "0.3", "1.0", "all")}
    try:
        yield agents
    finally:
        for agent in agents.values():
            agent.stop()


def check_shape(error: dict, dialect: str, code: int) -> None:
    assert error["code"] == code
    if dialect == "1.0" and code == -32600:
        (info,) = error["data"]
        assert info["@type"].endswith("google.rpc.ErrorInfo") and info["reason"] == "INVALID_REQUEST"
        assert str(LIMIT) in info["metadata"]["reason"]
    elif code == -32600:
        assert str(LIMIT) in error["data"]["reason"]


@pytest.mark.parametrize(("served", "dialect"), SERVED)
def test_an_oversized_body_is_a_json_rpc_error(mocks: dict[str, MockAgent], served: str, dialect: str) -> None:
    mock = mocks[served]
    with httpx.Client(timeout=10) as client:
        fine = client.post(mock.url, content=request(dialect, "hi"), headers=HEADERS[dialect])
        assert fine.status_code == 200 and "result" in fine.json()
        big = client.post(mock.url, content=request(dialect, "x" * LIMIT), headers=HEADERS[dialect])

        def chunks() -> Iterator[bytes]:
            body = request(dialect, "y" * LIMIT)
            for start in range(0, len(body), 1000):
                yield body[start : start + 1000]

        chunked = client.post(mock.url, content=chunks(), headers=HEADERS[dialect])
    for response in (big, chunked):
        assert response.status_code == 413
        assert response.headers["content-type"].startswith("application/json")
        body = response.json()
        assert body["jsonrpc"] == "2.0" and body["id"] is None
        check_shape(body["error"], dialect, -32600)


@pytest.mark.parametrize(("served", "dialect"), SERVED)
def test_a_too_deep_body_is_a_json_rpc_error(mocks: dict[str, MockAgent], served: str, dialect: str) -> None:
    mock = mocks[served]
    deep = request(dialect, "hi").replace(b'"hi"', b'"hi","metadata":' + b"[" * MAX_JSON_DEPTH + b"]" * MAX_JSON_DEPTH)
    assert len(deep) < LIMIT
    with httpx.Client(timeout=10) as client:
        response = client.post(mock.url, content=deep, headers=HEADERS[dialect])
    assert response.status_code == 200 and response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert body["id"] is None and body["error"]["code"] == -32700
    assert "nested more than" in body["error"]["message"]
