"""``check``'s errors group beyond JSON-RPC's malformed requests: a part refused for its
media type (errors.content-type), and the gRPC forms of a malformed request
(errors.grpc-unparsable, errors.grpc-unknown-method). The well-behaved peers' whole runs
are in test_check.py; here, agents that refuse or take what they should not."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import grpc
import pytest

from inspector.check import CheckOptions, run_check
from inspector.cli import main
from inspector.protocol import grpc_schema
from inspector.session import Session, TaskTracker
from mock_agent import MockAgent
from proxy_helpers import grpc_agent

UNSUPPORTED = "application/x-a2a-inspect-unsupported"


def check(capsys: pytest.CaptureFixture[str], url: str, *args: str) -> tuple[int, dict]:
    code = main(["check", url, "-o", "json", *args])
    return code, json.loads(capsys.readouterr().out)


def outcomes(doc: dict, probe: str) -> dict[str | None, tuple[str, str]]:
    return {r["binding"]: (r["outcome"], r["reason"] or "") for r in doc["results"] if r["probe"] == probe}


def refusing(code: int, message: str) -> dict[str, Any]:
    """a2a-mock refusing every message with a file part with ``code``; text alone is echoed."""
    from proxy_helpers import MOCK_SCENARIO

    return {
        **MOCK_SCENARIO,
        "name": f"refuses-files-{code}",
        "rules": [
            {"when": {"part": "file"}, "script": [{"error": {"code": code, "message": message}}]},
            *MOCK_SCENARIO["rules"],
        ],
    }


# ---------------------------------------------------------------- errors.content-type


@pytest.mark.parametrize("dialect", ["1.0", "0.3"])
def test_a_refusal_with_content_type_not_supported_passes_on_every_binding(
    capsys: pytest.CaptureFixture[str], dialect: str
) -> None:
    # -32005 as each binding carries it: the JSON-RPC code, HTTP 415 (1.0) and gRPC
    # INVALID_ARGUMENT with its reason, read back by the client as -32005.
    with MockAgent(refusing(-32005, "Incompatible content types"), grpc_port=0) as mock:
        _code, doc = check(capsys, mock.base_url, "--dialect", dialect, "--only", "errors.content-type")
    assert outcomes(doc, "errors.content-type") == {b: ("pass", "") for b in ("jsonrpc", "rest", "grpc")}


def test_an_agent_that_refuses_every_file_is_not_judged_on_media_types(capsys: pytest.CaptureFixture[str]) -> None:
    # Refusing a text/plain file as well says the refusal is about files, not their
    # media type: no claim about ContentTypeNotSupportedError can be made.
    with MockAgent(refusing(-32603, "Internal error")) as mock:
        code, doc = check(capsys, mock.base_url, "--only", "errors.content-type")
    assert code == 0
    for outcome, reason in outcomes(doc, "errors.content-type").values():
        assert outcome == "skip" and "text/plain too" in reason and "-32603" in reason


@pytest.mark.parametrize("binding", ["jsonrpc", "rest"])
async def test_a_wrong_code_for_a_media_type_fails_content_type_only(tmp_path: Path, binding: str) -> None:
    # The proxy in front of a2a-mock refuses only a message naming the made-up media type,
    # with -32603 Internal error: the same file as text/plain is taken, so the refusal is
    # about the media type, and its code is not ContentTypeNotSupportedError's.
    from inspector.proxy.faults import load_rules
    from proxy_helpers import MOCK_SCENARIO, proxy_to

    rules = tmp_path / "faults.yaml"
    rules.write_text(
        "- match: {method: send, text: x-a2a-inspect-unsupported}\n"
        "  fault: {error: {code: -32603, message: Internal error}}\n",
        encoding="utf-8",
    )
    with MockAgent(MOCK_SCENARIO) as mock:
        async with proxy_to(("/", mock.base_url), rules=load_rules(rules)) as (_proxy, server):
            session = Session(keep=0, store=None)
            report = await run_check(
                CheckOptions(url=server.base_url, binding=binding, only=("errors", "messages")),
                session,
                TaskTracker(session),
            )
    failed = [(r.probe.id, r.binding, r.reason, r.exchange, r.exchanges) for r in report.results if r.outcome == "fail"]
    assert [(p, b) for p, b, *_ in failed] == [("errors.content-type", binding)]
    _probe, _binding, reason, exchange, exchanges = failed[0]
    assert "-32603" in reason and "text/plain was taken" in reason
    # The failure opens the refused exchange (the first of the two), not the control.
    assert exchanges and exchange == exchanges[0]


@pytest.mark.parametrize(("code", "outcome"), [(-32602, "pass"), (-32005, "pass"), (-32603, "fail")])
async def test_a_data_part_refused_as_a_validation_error_is_no_violation(
    tmp_path: Path, code: int, outcome: str
) -> None:
    # 1.0 §3.3.2 names "unsupported content type" among -32602's examples: an agent that
    # refuses a data part so is within the spec; an internal error is not a refusal.
    from inspector.proxy.faults import load_rules
    from proxy_helpers import MOCK_SCENARIO, proxy_to

    rules = tmp_path / "faults.yaml"
    rules.write_text(
        f"- match: {{method: send, text: '\"n\":1'}}\n  fault: {{error: {{code: {code}, message: refused}}}}\n",
        encoding="utf-8",
    )
    with MockAgent(MOCK_SCENARIO) as mock:
        async with proxy_to(("/", mock.base_url), rules=load_rules(rules)) as (_proxy, server):
            session = Session(keep=0, store=None)
            report = await run_check(
                CheckOptions(url=server.base_url, binding="jsonrpc", only=("messages",)), session, TaskTracker(session)
            )
    results = {r.probe.id: r for r in report.results}
    assert results["messages.data-part"].outcome == outcome, results["messages.data-part"].reason
    assert [r.probe.id for r in report.results if r.outcome == "fail"] == (
        ["messages.data-part"] if outcome == "fail" else []
    )


# ---------------------------------------------------------------- gRPC malformed requests


class _TakesAnything(grpc.GenericRpcHandler):
    """A 1.0 gRPC agent that answers every call OK: SendMessage with a message, whatever
    its bytes were, and any other method, one the service has or not, with no fields."""

    def service(self, handler_call_details: Any) -> Any:
        answer = b""
        if handler_call_details.method.endswith("/SendMessage"):
            answer = grpc_schema.from_json(
                "1.0",
                "SendMessageResponse",
                {"message": {"messageId": "m-1", "role": "ROLE_AGENT", "parts": [{"text": "taken"}]}},
            ).SerializeToString()

        async def ok(_request: bytes, _context: Any) -> bytes:
            return answer

        return grpc.unary_unary_rpc_method_handler(ok)


@asynccontextmanager
async def takes_anything() -> AsyncIterator[str]:
    async with grpc_agent(_TakesAnything()) as address:
        yield f"grpc://{address}"


async def test_a_grpc_agent_that_takes_anything_fails_the_grpc_error_probes() -> None:
    async with takes_anything() as url:
        session = Session(keep=0, store=None)
        report = await run_check(
            CheckOptions(url=url, dialect="1.0", binding="grpc", only=("errors",)), session, TaskTracker(session)
        )
    failed = {r.probe.id: r.reason for r in report.results if r.outcome == "fail"}
    assert set(failed) == {"errors.grpc-unparsable", "errors.grpc-unknown-method"}
    assert "answered OK, as if it were a request" in failed["errors.grpc-unparsable"]
    assert "A2AInspectCheckNoSuchMethod" in failed["errors.grpc-unknown-method"]
    # The raw calls are in the session like any other: the request's bytes as sent.
    requests = [
        e
        for e in session.events
        if e.kind.value == "request"
        and e.data.get("grpc_path", "").endswith(("/SendMessage", "/A2AInspectCheckNoSuchMethod"))
        and e.data.get("body_encoding") == "base64"
    ]
    assert len(requests) == 2


@pytest.fixture(scope="module")
def mock_grpc() -> Iterator[MockAgent]:
    from proxy_helpers import MOCK_SCENARIO

    with MockAgent(MOCK_SCENARIO, grpc_port=0) as mock:
        yield mock


@pytest.mark.parametrize("dialect", ["1.0", "0.3"])
def test_mock_answers_malformed_grpc_calls_as_grpc_says(
    capsys: pytest.CaptureFixture[str], mock_grpc: MockAgent, dialect: str
) -> None:
    code, doc = check(capsys, mock_grpc.base_url, "--dialect", dialect, "--binding", "grpc", "--only", "errors")
    assert code == 0
    for probe in ("errors.grpc-unparsable", "errors.grpc-unknown-method"):
        assert outcomes(doc, probe) == {"grpc": ("pass", "")}, probe
    # And they are not run on the other bindings, which have their own forms.
    code, doc = check(capsys, mock_grpc.base_url, "--dialect", dialect, "--binding", "jsonrpc", "--only", "errors")
    assert outcomes(doc, "errors.grpc-unparsable")["jsonrpc"][0] == "skip"
