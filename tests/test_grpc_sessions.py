"""gRPC exchanges in sessions: recorded with binding "grpc", read back decoding as the
live client did (the ProtoJSON of every message, statuses and their details), compared
by ``replay --against`` (diff) over gRPC and across bindings, and kept small in memory."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from binding_matrix import message
from inspector.client import A2AClient
from inspector.headless.resend import diff_against
from inspector.protocol import models as m
from inspector.protocol.grpc_codec import GrpcError
from inspector.session import Kind, Recorder, Session, TaskTracker, load_recording
from inspector.session.diff import exchanges


async def record(target: str, path: Path, dialect: str) -> Session:
    session = Session()
    with Recorder.attach(session, path):
        async with A2AClient(
            target, session=session, dialect=dialect, headers={"Authorization": "Bearer s3cret-token"}
        ) as client:
            [e async for e in client.stream(message("hello stream now"))]
            asked = await client.send(message("ask me"))
            await client.send(message("blue", asked))
            await client.get_task(asked.id, history_length=2)
            with pytest.raises(GrpcError):
                await client.get_task("no-such-task")
    return session


def payload_kinds(events: object, kind: Kind) -> list[str]:
    return [type(e.payload).__name__ for e in events if e.kind is kind]  # type: ignore[attr-defined]


@pytest.mark.parametrize("dialect", ["1.0", "0.3"])
async def test_a_grpc_recording_reads_back_as_it_was_live(
    sdk_agent_grpc: tuple[str, str], tmp_path: Path, dialect: str
) -> None:
    _, target = sdk_agent_grpc
    path = tmp_path / "grpc.jsonl"
    live = await record(target, path, dialect)
    text = path.read_text()
    assert "s3cret-token" not in text  # metadata is redacted as headers are
    lines = [json.loads(line) for line in text.splitlines()]
    requests = [ln for ln in lines if ln.get("kind") == "request"]
    assert {r["binding"] for r in requests} == {"grpc"}
    rec = load_recording(path)
    events = list(rec.session.events)
    for kind in (Kind.REQUEST, Kind.RESPONSE, Kind.MESSAGE):
        assert payload_kinds(events, kind) == payload_kinds(live.events, kind)
    assert payload_kinds(events, Kind.MESSAGE) == [
        "Task",
        "TaskStatusUpdateEvent",
        *["TaskArtifactUpdateEvent"] * 3,
        "TaskStatusUpdateEvent",
    ]
    failures = [e.payload for e in events if e.kind is Kind.RESPONSE and isinstance(e.payload, GrpcError)]
    assert [(f.code, f.grpc_code) for f in failures] == [(-32001, 5)]
    assert [t.state.value for t in TaskTracker(rec.session).tasks.values()] == ["completed", "completed"]
    # One form for comparing: every gRPC request reads as the 1.0 JSON-RPC request saying the same.
    recorded = [ex for ex in exchanges(rec.session.events) if ex.a2a_method != "extended-card"]
    assert [ex.body_json["method"] for ex in recorded] == [
        "SendStreamingMessage",
        "SendMessage",
        "SendMessage",
        "GetTask",
        "GetTask",
    ]
    assert all(ex.is_rpc and ex.rpc_dialect == "1.0" for ex in recorded)
    assert len(recorded[0].stream) == 6


async def test_diff_resends_grpc_exchanges_over_grpc_and_over_json_rpc(
    sdk_agent_grpc: tuple[str, str], tmp_path: Path
) -> None:
    base, target = sdk_agent_grpc
    path = tmp_path / "grpc.jsonl"
    await record(target, path, "1.0")
    rec = load_recording(path)
    live = Session()
    report = await diff_against(rec, target, session=live, headers={"Authorization": "Bearer s3cret-token"})
    assert report.equivalent, [d.to_json() for d in report.exchanges]
    # The card came from the agent's GetExtendedAgentCard RPC: an A2A call, re-sent too.
    assert [d.recorded.method for d in report.exchanges] == ["extended-card", "stream", "send", "send", "get", "get"]
    resent = [e.data for e in live.events if e.kind is Kind.REQUEST]
    assert {r.get("binding") for r in resent} == {"grpc"}
    # The same recording against the agent's HTTP URL over JSON-RPC: the exchanges normalise.
    live = Session()
    report = await diff_against(rec, base, session=live, binding="jsonrpc")
    assert report.equivalent, [d.to_json() for d in report.exchanges]
    resent = [e.data for e in live.events if e.kind is Kind.REQUEST and e.data.get("a2a_method") == "stream"]
    assert [r.get("binding") for r in resent] == [None]


async def test_a_streamed_message_keeps_its_protojson_once(sdk_agent_grpc: tuple[str, str]) -> None:
    _, target = sdk_agent_grpc
    async with A2AClient(target, dialect="1.0") as client:
        [e async for e in client.stream(message("hello stream now"))]
    events = [e for e in client.session.events if e.kind is Kind.MESSAGE]
    assert events and all(not e.payload_kept for e in events)  # derived again when asked
    assert all(set(e.data) == {"json", "size"} for e in events)
    assert isinstance(events[-1].payload, m.TaskStatusUpdateEvent)


async def test_exports_curl_writes_grpcurl_and_har_leaves_grpc_out(
    sdk_agent_grpc: tuple[str, str], tmp_path: Path
) -> None:
    import io

    from inspector.session.export_curl import to_curl
    from inspector.session.export_har import to_har, write_har

    _, target = sdk_agent_grpc
    path = tmp_path / "grpc.jsonl"
    await record(target, path, "1.0")
    session = load_recording(path).session
    script = to_curl(session)
    host = target.removeprefix("grpc://")
    assert f'A2A_GRPC_TARGET="${{A2A_GRPC_TARGET:-{host}}}"' in script and "curl -sS" not in script
    assert 'grpcurl -plaintext -protoset "${A2A_PROTOSET_1_0}"' in script
    assert script.count("lf.a2a.v1.A2AService/SendMessage") == 2
    assert "-H 'a2a-version: 1.0'" in script and "s3cret-token" not in script
    assert "recorded gRPC NOT_FOUND" in script and "recorded gRPC OK" in script
    # The later send continues the task the agent assigned: its id is a variable.
    assert '\\"taskId\\":\\"${TASK_1}\\"' in script
    protoset = next(line for line in script.splitlines() if line.startswith("A2A_PROTOSET_1_0="))
    assert Path(protoset.split(":-", 1)[1].rstrip('}"')).is_file()

    har = to_har(session)
    assert har["log"]["entries"] == [] and "6 gRPC exchanges left out" in har["log"]["comment"]
    out = io.StringIO()
    write_har(session, out, comment="from a test")
    assert json.loads(out.getvalue())["log"]["comment"].startswith("from a test; 6 gRPC exchanges left out")


def test_trailers_are_redacted_as_headers_are() -> None:
    from inspector.session.redact import Redaction

    session = Session()
    response = session.append(
        Kind.RESPONSE,
        {
            "status": None,
            "headers": {"set-cookie": "sid=abc123456789"},
            "trailers": {"set-cookie": "sid=abc123456789", "x-ok": "1"},
            "grpc_code": 0,
        },
        exchange=1,
    )
    end = session.append(
        Kind.STREAM_END, {"reason": "complete", "trailers": {"authorization": "Bearer abcdefgh"}}, exchange=2
    )
    redaction = Redaction()
    assert redaction.event_json(response)["trailers"]["set-cookie"] != "sid=abc123456789"
    assert redaction.event_json(response)["trailers"]["x-ok"] == "1"
    assert "abcdefgh" not in json.dumps(redaction.event_json(end))
