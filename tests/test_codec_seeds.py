"""Every JSON example in the 0.1 seed documents (shared/seeds 000-004) decodes with the
0.1 codec, copied here by hand as literal dicts.

Where a seed's example is not JSON at all (002's streaming examples write the artifact
as ``"artifact": [ "parts": ... ]`` and one has a trailing comma), the obvious object
is used and the test says so. The agent-card examples belong to the card codec.
"""

from __future__ import annotations

import pytest

from inspector.protocol import models as m
from inspector.protocol.dialects import get_dialect, v01
from inspector.protocol.errors import JsonRpcError
from inspector.protocol.methods import Method
from shared_paths import SEEDS

S = m.TaskState


def request(method: str, params: dict, id="1") -> dict:
    return {"jsonrpc": "2.0", "id": id, "method": method, "params": params}


def result(body, id="1") -> dict:
    return {"jsonrpc": "2.0", "id": id, "result": body}


def texts(parts) -> list[str]:
    return [p.text for p in parts]


def test_seed_files_are_the_ones_transcribed() -> None:
    names = sorted(p.name[:3] for p in SEEDS.glob("*.txt"))
    assert names == ["000", "001", "002", "003", "004"]
    # Spot-check that the examples below are still in the files.
    assert '"text": "Hello, agent"' in (SEEDS / "000_397570004ad1ae23.txt").read_text(encoding="utf-8")
    assert '"method": "tasks/sendSubscribe"' in next(SEEDS.glob("001_*")).read_text(encoding="utf-8")
    assert "de38c76d-d54c-436c-8b9f-4c2703648d64" in next(SEEDS.glob("002_*")).read_text(encoding="utf-8")
    assert "a2a-task-xyz" in next(SEEDS.glob("003_*")).read_text(encoding="utf-8")
    assert "task-abc-123" in next(SEEDS.glob("004_*")).read_text(encoding="utf-8")


def test_draft_name() -> None:
    assert get_dialect("draft") is v01 and get_dialect("0.1.0") is v01


# ---------------------------------------------------------------------- 000 Society


def test_000_society_send() -> None:
    req = v01.decode_request(
        request(
            "tasks/send",
            {"id": "task-123", "message": {"role": "user", "parts": [{"type": "text", "text": "Hello, agent"}]}},
            "task-123",
        )
    )
    assert req.method is Method.SEND and req.id == "task-123"
    assert req.params.message.task_id == "task-123" and texts(req.params.message.parts) == ["Hello, agent"]

    task = v01.decode_response(
        Method.SEND,
        result(
            {
                "id": "task-123",
                "status": {"state": "completed", "message": ""},
                "messages": [],
                "artifacts": [{"parts": [{"type": "text", "text": "Hello! I'm the agent."}]}],
            },
            "task-123",
        ),
    )
    assert task.id == "task-123" and task.status.state is S.COMPLETED
    assert task.status.message is None  # "" means no message
    assert texts(task.artifacts[0].parts) == ["Hello! I'm the agent."]
    assert task.model_extra == {"messages": []}


def test_000_society_states_and_errors() -> None:
    # Society's state table says "cancelled".
    task = v01.decode_result(Method.GET, {"id": "t", "status": {"state": "cancelled"}})
    assert task.status.state is S.CANCELED
    with pytest.raises(JsonRpcError) as info:
        v01.decode_response(
            Method.SEND,
            {
                "jsonrpc": "2.0",
                "id": "task-123",
                "error": {"code": -32601, "message": "method not found: unknown/method"},
            },
        )
    assert info.value.code == -32601 and info.value.message == "method not found: unknown/method"


def test_000_message_and_artifact_examples() -> None:
    msg = v01.decode_event({"role": "user", "parts": [{"type": "text", "text": "the message content"}]})
    assert isinstance(msg, m.Message) and texts(msg.parts) == ["the message content"]
    task = v01.decode_result(
        Method.GET,
        {
            "id": "t",
            "status": {"state": "completed"},
            "artifacts": [{"name": "response", "parts": [{"type": "text", "text": "the response content"}]}],
        },
    )
    assert task.artifacts[0].name == "response"


# ---------------------------------------------------------------------- 001 Society AI


def test_001_society_ai_send_subscribe() -> None:
    req = v01.decode_request(
        {
            "jsonrpc": "2.0",
            "id": "req-1",
            "method": "tasks/sendSubscribe",
            "params": {
                "id": "task-uuid",
                "sessionId": "session-uuid",
                "message": {"role": "user", "parts": [{"type": "text", "text": "What is quantum computing?"}]},
                "metadata": {
                    "requester": {"name": "ai-chatbot"},
                    "executor": {"name": "research-agent"},
                    "skill_used": "research-topic",
                    "user_id": "user-uuid",
                },
            },
        }
    )
    assert req.method is Method.STREAM
    p = req.params
    assert (p.message.task_id, p.message.context_id) == ("task-uuid", "session-uuid")
    assert p.metadata["skill_used"] == "research-topic" and p.metadata["executor"] == {"name": "research-agent"}
    # And back out unchanged.
    assert v01.encode_params(Method.STREAM, p)["metadata"]["requester"] == {"name": "ai-chatbot"}

    event = v01.decode_stream_event(
        {
            "jsonrpc": "2.0",
            "id": "req-1",
            "result": {
                "id": "task-uuid",
                "status": {
                    "state": "working",
                    "message": {"role": "agent", "parts": [{"type": "text", "text": "Researching..."}]},
                },
                "final": False,
            },
        }
    )
    assert isinstance(event, m.TaskStatusUpdateEvent)
    assert (event.task_id, event.status.state, event.final) == ("task-uuid", S.WORKING, False)
    assert texts(event.status.message.parts) == ["Researching..."]


def test_001_society_ai_methods() -> None:
    assert v01.decode_request(request("tasks/list", {})).method is Method.LIST
    assert v01.decode_request(request("task/resubscribe", {"id": "task-uuid"})).method is Method.RESUBSCRIBE
    # Its parts: TextPart, FilePart, DataPart, all tagged "type".
    msg = v01.decode_event(
        {
            "role": "agent",
            "parts": [
                {"type": "text", "text": "..."},
                {"type": "file", "file": {"name": "a.png", "mimeType": "image/png", "uri": "https://x.invalid/a.png"}},
                {"type": "data", "data": {"k": 1}},
            ],
        }
    )
    assert [type(p) for p in msg.parts] == [m.TextPart, m.FilePart, m.DataPart]


def test_001_task_with_session_and_extended_metadata() -> None:
    task = v01.decode_result(
        Method.GET,
        {
            "id": "t-1",
            "sessionId": "s-1",
            "status": {"state": "completed"},
            "history": [{"role": "user", "parts": [{"type": "text", "text": "hi"}]}],
            "artifacts": [{"index": 0, "name": "answer", "parts": [{"type": "text", "text": "yo"}]}],
            "metadata": {"cost": {"usd": 0.01}, "requester": {"name": "a"}},
        },
    )
    assert task.context_id == "s-1" and task.metadata["cost"] == {"usd": 0.01}
    assert task.artifacts[0].index == 0
    assert v01.encode_result(Method.GET, task)["sessionId"] == "s-1"


# ---------------------------------------------------------------------- 002 the 0.1 draft

TASK = "de38c76d-d54c-436c-8b9f-4c2703648d64"
SESSION = "c295ea44-7543-4f78-b524-7a38915ad6e4"


def test_002_send_a_task() -> None:
    req = v01.decode_request(
        request(
            "tasks/send",
            {
                "id": TASK,
                "message": {"role": "user", "parts": [{"type": "text", "text": "tell me a joke"}]},
                "metadata": {},
            },
            1,
        )
    )
    assert req.params.message.task_id == TASK and req.params.metadata == {}
    # The response writes "state": "completed", with a trailing comma; without it:
    task = v01.decode_response(
        Method.SEND,
        result(
            {
                "id": TASK,
                "sessionId": SESSION,
                "status": {"state": "completed"},
                "artifacts": [
                    {
                        "name": "joke",
                        "parts": [
                            {"type": "text", "text": "Why did the chicken cross the road? To get to the other side!"}
                        ],
                    }
                ],
                "metadata": {},
            },
            1,
        ),
    )
    assert (task.id, task.context_id, task.status.state) == (TASK, SESSION, S.COMPLETED)
    assert task.artifacts[0].name == "joke" and texts(task.artifacts[0].parts)[0].startswith("Why did the chicken")


def test_002_get_a_task() -> None:
    req = v01.decode_request(request("tasks/get", {"id": TASK, "historyLength": 10, "metadata": {}}, 1))
    assert (req.method, req.params.id, req.params.history_length) == (Method.GET, TASK, 10)
    task = v01.decode_response(
        Method.GET,
        result(
            {
                "id": TASK,
                "sessionId": SESSION,
                "status": {"state": "completed"},
                "artifacts": [
                    {
                        "parts": [
                            {"type": "text", "text": "Why did the chicken cross the road? To get to the other side!"}
                        ]
                    }
                ],
                "history": [{"role": "user", "parts": [{"type": "text", "text": "tell me a joke"}]}],
                "metadata": {},
            },
            1,
        ),
    )
    assert texts(task.history[0].parts) == ["tell me a joke"] and task.history[0].role is m.Role.USER


def test_002_cancel_a_task() -> None:
    req = v01.decode_request(request("tasks/cancel", {"id": TASK, "metadata": {}}, 1))
    assert req.method is Method.CANCEL and req.params.id == TASK
    # The draft's own answer gives the task id as the number 1.
    task = v01.decode_response(
        Method.CANCEL, result({"id": 1, "sessionId": SESSION, "status": {"state": "canceled"}, "metadata": {}}, 1)
    )
    assert task.id == "1" and task.status.state is S.CANCELED


@pytest.mark.parametrize(
    "method, wire", [(Method.PUSH_SET, "tasks/pushNotification/set"), (Method.PUSH_GET, "tasks/pushNotification/get")]
)
def test_002_push_notifications(method: Method, wire: str) -> None:
    config = {"url": "https://example.com/callback", "authentication": {"schemes": ["jwt"]}}
    params = {"id": TASK, "pushNotificationConfig": config} if method is Method.PUSH_SET else {"id": TASK}
    req = v01.decode_request(request(wire, params, 1))
    assert req.method is method and (req.params.task_id if method is Method.PUSH_SET else req.params.id) == TASK
    answer = v01.decode_response(method, result({"id": TASK, "pushNotificationConfig": config}, 1))
    assert answer.task_id == TASK
    assert answer.push_notification_config.url == "https://example.com/callback"
    assert answer.push_notification_config.authentication.schemes == ["jwt"]
    assert v01.encode_result(method, answer) == {"id": TASK, "pushNotificationConfig": config}


def test_002_multi_turn() -> None:
    seq1 = v01.decode_request(
        request(
            "tasks/send",
            {
                "id": TASK,
                "message": {"role": "user", "parts": [{"type": "text", "text": "request a new phone for me"}]},
                "metadata": {},
            },
            1,
        )
    )
    assert seq1.params.message.context_id is None
    # seq 2: the input-required message has no role.
    seq2 = v01.decode_response(
        Method.SEND,
        result(
            {
                "id": TASK,
                "sessionId": SESSION,
                "status": {
                    "state": "input-required",
                    "message": {"parts": [{"type": "text", "text": "Select a phone type (iPhone/Android)"}]},
                },
                "metadata": {},
            },
            1,
        ),
    )
    assert seq2.status.state is S.INPUT_REQUIRED
    assert seq2.status.message.role is m.Role.AGENT
    assert texts(seq2.status.message.parts) == ["Select a phone type (iPhone/Android)"]
    seq3 = v01.decode_request(
        request(
            "tasks/send",
            {
                "id": TASK,
                "sessionId": SESSION,
                "message": {"role": "user", "parts": [{"type": "text", "text": "Android"}]},
                "metadata": {},
            },
            2,
        )
    )
    assert (seq3.params.message.task_id, seq3.params.message.context_id) == (TASK, SESSION)
    seq4 = v01.decode_response(
        Method.SEND,
        result(
            {
                "id": 1,
                "sessionId": SESSION,
                "status": {"state": "completed"},
                "artifacts": [
                    {
                        "name": "order-confirmation",
                        "parts": [
                            {
                                "type": "text",
                                "text": "I have ordered a new Android device for you. Your request number is R12443",
                            }
                        ],
                        "metadata": {},
                    }
                ],
                "metadata": {},
            },
            2,
        ),
    )
    assert seq4.status.state is S.COMPLETED and seq4.artifacts[0].name == "order-confirmation"


# 002's streaming examples write each artifact as "artifact": [ "parts": [...], ... ]
# (not JSON); the artifact object they mean is used here.
STREAM = [
    {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {"id": 1, "status": {"state": "working", "timestamp": "2025-04-02T16:59:25.331844"}, "final": False},
    },
    {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {
            "id": 1,
            "artifact": {
                "parts": [{"type": "text", "text": "<section 1...>"}],
                "index": 0,
                "append": False,
                "lastChunk": False,
            },
        },
    },
    {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {
            "id": 1,
            "artifact": {
                "parts": [{"type": "text", "text": "<section 2...>"}],
                "index": 0,
                "append": True,
                "lastChunk": False,
            },
        },
    },
    {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {
            "id": 1,
            "artifact": {
                "parts": [{"type": "text", "text": "<section 3...>"}],
                "index": 0,
                "append": True,
                "lastChunk": True,
            },
        },
    },
    {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {"id": 1, "status": {"state": "completed", "timestamp": "2025-04-02T16:59:35.331844"}, "final": True},
    },
]


def test_002_streaming() -> None:
    # The request example has neither "jsonrpc" nor "id", so only its params decode.
    params = v01.decode_params(
        Method.STREAM,
        {
            "id": TASK,
            "sessionId": SESSION,
            "message": {
                "role": "user",
                "parts": [
                    {"type": "text", "text": "write a long paper describing the attached pictures"},
                    {"type": "file", "file": {"mimeType": "image/png", "data": "<base64-encoded-content>"}},
                ],
            },
            "metadata": {},
        },
    )
    file = params.message.parts[1].file
    assert (file.mime_type, file.bytes) == ("image/png", "<base64-encoded-content>")  # "data" read as bytes

    events = [v01.decode_stream_event(doc) for doc in STREAM]
    first, *chunks, last = events
    assert isinstance(first, m.TaskStatusUpdateEvent) and first.status.state is S.WORKING and first.final is False
    assert first.task_id == "1" and first.status.timestamp == "2025-04-02T16:59:25.331844"
    assert all(isinstance(c, m.TaskArtifactUpdateEvent) for c in chunks)
    assert ["".join(texts(c.artifact.parts)) for c in chunks] == ["<section 1...>", "<section 2...>", "<section 3...>"]
    assert [c.artifact.index for c in chunks] == [0, 0, 0]
    # The chunk flags are read from the artifact and copied to the event.
    assert [(c.append, c.last_chunk) for c in chunks] == [(False, False), (True, False), (True, True)]
    assert [(c.artifact.append, c.artifact.last_chunk) for c in chunks] == [(False, False), (True, False), (True, True)]
    assert last.final is True and last.status.state is S.COMPLETED
    # Written back as the draft has them.
    assert [v01.encode_event(e) for e in events][1:] == [dict(d["result"], id="1") for d in STREAM[1:]]


def test_002_resubscribe() -> None:
    params = v01.decode_params(Method.RESUBSCRIBE, {"id": TASK, "metadata": {}})
    assert params.id == TASK
    events = [
        {
            "id": TASK,
            "artifact": {
                "parts": [{"type": "text", "text": "<section 2...>"}],
                "index": 0,
                "append": True,
                "lastChunk": False,
            },
        },
        {
            "id": TASK,
            "artifact": {
                "parts": [{"type": "text", "text": "<section 3...>"}],
                "index": 0,
                "append": True,
                "lastChunk": True,
            },
        },
        {"id": 1, "status": {"state": "completed", "timestamp": "2025-04-02T16:59:35.331844"}, "final": True},
    ]
    decoded = [v01.decode_result(Method.RESUBSCRIBE, e) for e in events]
    assert [type(e).__name__ for e in decoded] == [
        "TaskArtifactUpdateEvent",
        "TaskArtifactUpdateEvent",
        "TaskStatusUpdateEvent",
    ]
    assert decoded[1].last_chunk is True and decoded[0].task_id == TASK


def test_002_non_textual_media() -> None:
    req = v01.decode_request(
        request(
            "tasks/send",
            {
                "id": TASK,
                "sessionId": SESSION,
                "message": {
                    "role": "user",
                    "parts": [
                        {"type": "text", "text": "Analyze the attached report and generate high level overview"},
                        {"type": "file", "file": {"mimeType": "application/pdf", "data": "<base64-encoded-content>"}},
                    ],
                },
                "metadata": {},
            },
            9,
        )
    )
    assert req.params.message.parts[1].file.mime_type == "application/pdf"
    working = v01.decode_response(
        Method.SEND,
        result(
            {
                "id": TASK,
                "sessionId": SESSION,
                "status": {
                    "state": "working",
                    "message": {
                        "role": "agent",
                        "parts": [{"type": "text", "text": "analysis in progress, please wait"}],
                        "metadata": {},
                    },
                },
                "metadata": {},
            },
            9,
        ),
    )
    assert working.status.state is S.WORKING and working.status.message.metadata == {}
    get = v01.decode_request(request("tasks/get", {"id": TASK, "metadata": {}}, 10))
    assert get.params.id == TASK
    done = v01.decode_response(
        Method.GET,
        result(
            {
                "id": TASK,
                "sessionId": SESSION,
                "status": {"state": "completed"},
                "artifacts": [{"parts": [{"type": "text", "text": "<generated analysis content>"}], "metadata": {}}],
                "metadata": {},
            },
            9,
        ),
    )
    assert texts(done.artifacts[0].parts) == ["<generated analysis content>"]


def test_002_structured_output() -> None:
    schema = {
        "type": "array",
        "items": {
            "type": "object",
            "properties": {"ticketNumber": {"type": "string"}, "description": {"type": "string"}},
        },
    }
    req = v01.decode_request(
        request(
            "tasks/send",
            {
                "id": TASK,
                "sessionId": SESSION,
                "message": {
                    "role": "user",
                    "parts": [
                        {
                            "type": "text",
                            "text": "Show me a list of my open IT tickets",
                            "metadata": {"mimeType": "application/json", "schema": schema},
                        }
                    ],
                },
                "metadata": {},
            },
            9,
        )
    )
    assert req.params.message.parts[0].metadata == {"mimeType": "application/json", "schema": schema}
    answer = v01.decode_response(
        Method.SEND,
        result(
            {
                "id": TASK,
                "sessionId": SESSION,
                "status": {
                    "state": "working",
                    "message": {
                        "role": "agent",
                        "parts": [
                            {
                                "type": "text",
                                "text": '[{"ticketNumber":"REQ12312","description":"request for VPN access"},'
                                '{"ticketNumber":"REQ23422","description":"Add to DL - team-gcp-onboarding"}]',
                            }
                        ],
                        "metadata": {},
                    },
                },
                "metadata": {},
            },
            9,
        ),
    )
    assert texts(answer.status.message.parts)[0].startswith('[{"ticketNumber":"REQ12312"')


@pytest.mark.parametrize(
    "code, name",
    [
        (-32001, "Task not found"),
        (-32002, "Task cannot be canceled"),
        (-32003, "Push notifications not supported"),
        (-32004, "Unsupported operation"),
        (-32005, "Incompatible content types"),
    ],
)
def test_002_error_table(code: int, name: str) -> None:
    assert v01.error_name(code) == name
    with pytest.raises(JsonRpcError) as info:
        v01.decode_response(Method.GET, {"jsonrpc": "2.0", "id": 1, "error": {"code": code, "message": name}})
    assert info.value.code == code


# ---------------------------------------------------------------------- 003 Orloj


def test_003_orloj_send_get_cancel() -> None:
    send = v01.decode_request(
        request(
            "tasks/send",
            {
                "id": "task-001",
                "message": {"role": "user", "parts": [{"type": "text", "text": "Summarize this document"}]},
                "metadata": {"source": "external-workflow"},
            },
            "req-1",
        )
    )
    assert send.params.message.task_id == "task-001" and send.params.metadata == {"source": "external-workflow"}
    task = v01.decode_response(
        Method.SEND,
        result(
            {
                "id": "a2a-task-xyz",
                "status": {
                    "state": "completed",
                    "message": {"role": "agent", "parts": [{"type": "text", "text": "Here is the summary..."}]},
                },
                "artifacts": [{"name": "summary", "parts": [{"type": "text", "text": "..."}], "index": 0}],
            },
            "req-1",
        ),
    )
    assert task.id == "a2a-task-xyz" and texts(task.status.message.parts) == ["Here is the summary..."]
    assert (task.artifacts[0].name, task.artifacts[0].index) == ("summary", 0)
    get = v01.decode_request(request("tasks/get", {"id": "a2a-task-xyz"}, "req-2"))
    assert get.params.id == "a2a-task-xyz"
    cancel = v01.decode_request(request("tasks/cancel", {"id": "a2a-task-xyz", "reason": "No longer needed"}, "req-3"))
    assert cancel.params.id == "a2a-task-xyz" and cancel.params.model_extra == {"reason": "No longer needed"}
    assert v01.encode_params(Method.CANCEL, cancel.params) == {"id": "a2a-task-xyz", "reason": "No longer needed"}


def test_003_orloj_streams_whole_tasks() -> None:
    """Orloj's SSE events are full task results without ``final``."""
    working = v01.decode_result(Method.STREAM, {"id": "a2a-task-xyz", "status": {"state": "working"}})
    done = v01.decode_result(
        Method.STREAM,
        {
            "id": "a2a-task-xyz",
            "status": {
                "state": "completed",
                "message": {"role": "agent", "parts": [{"type": "text", "text": "Done."}]},
            },
            "artifacts": [],
        },
    )
    assert isinstance(working, m.Task) and working.status.state is S.WORKING
    assert isinstance(done, m.Task) and done.artifacts == [] and texts(done.status.message.parts) == ["Done."]
    # Its state table includes rejected (a 0.2 state).
    rejected = v01.decode_result(Method.STREAM, {"id": "a2a-task-xyz", "status": {"state": "rejected"}})
    assert rejected.status.state is S.REJECTED
    assert v01.encode_event(rejected) == {"id": "a2a-task-xyz", "status": {"state": "rejected"}}


def test_003_orloj_error_and_notification() -> None:
    with pytest.raises(JsonRpcError) as info:
        v01.decode_response(
            Method.GET,
            {
                "jsonrpc": "2.0",
                "id": "req-4",
                "error": {"code": -32001, "message": "task not found", "data": {"task_id": "a2a-task-unknown"}},
            },
        )
    assert (info.value.code, info.value.data) == (-32001, {"task_id": "a2a-task-unknown"})
    note = v01.decode_request({"jsonrpc": "2.0", "method": "tasks/get", "params": {"id": "a2a-task-xyz"}})
    assert note.has_id is False


# ---------------------------------------------------------------------- 004 tutorial


def test_004_send_and_message() -> None:
    req = v01.decode_request(
        request(
            "tasks/send",
            {
                "id": "task-abc-123",
                "message": {
                    "role": "user",
                    "parts": [{"type": "text", "text": "Summarize the latest AI safety research"}],
                },
            },
            "req-001",
        )
    )
    assert req.params.message.task_id == "task-abc-123"
    msg = v01.decode_event(
        {
            "role": "user",
            "parts": [
                {"type": "text", "text": "Please review this code for security issues"},
                {
                    "type": "file",
                    "file": {"name": "handler.py", "mimeType": "text/x-python", "bytes": "aW1wb3J0IG9z..."},
                },
            ],
        }
    )
    assert (msg.parts[1].file.name, msg.parts[1].file.bytes) == ("handler.py", "aW1wb3J0IG9z...")


def test_004_part_types() -> None:
    msg = v01.decode_event(
        {
            "role": "agent",
            "parts": [
                {"type": "text", "text": "Analyze this data"},
                {
                    "type": "file",
                    "file": {"name": "report.pdf", "mimeType": "application/pdf", "bytes": "<base64-encoded>"},
                },
                {"type": "data", "data": {"metrics": {"complexity": 42, "lines": 500}, "language": "python"}},
            ],
        }
    )
    assert msg.parts[2].data["metrics"]["complexity"] == 42 and msg.parts[1].file.mime_type == "application/pdf"


def test_004_task_and_artifact_objects() -> None:
    task = v01.decode_result(
        Method.GET,
        {
            "id": "task-abc-123",
            "sessionId": "session-xyz",
            "status": {
                "state": "working",
                "message": {"role": "agent", "parts": [{"type": "text", "text": "Analyzing code..."}]},
                "timestamp": "2026-03-21T10:30:00Z",
            },
            "artifacts": [],
            "history": [{"role": "user", "parts": [{"type": "text", "text": "Review this code"}]}],
            "metadata": {},
        },
    )
    assert (task.context_id, task.status.state, task.status.timestamp) == (
        "session-xyz",
        S.WORKING,
        "2026-03-21T10:30:00Z",
    )
    assert texts(task.history[0].parts) == ["Review this code"]
    # An artifact with an "id" the draft does not define: kept as it came.
    event = v01.decode_event(
        {
            "id": "task-abc-123",
            "artifact": {
                "id": "artifact-001",
                "name": "Security Review Report",
                "description": "Analysis of handler.py for security vulnerabilities",
                "parts": [
                    {"type": "text", "text": "## Security Review\n\n### Critical: SQL Injection on line 42\n..."},
                    {
                        "type": "data",
                        "data": {"vulnerabilities": 3, "severity": {"critical": 1, "high": 1, "medium": 1}},
                    },
                ],
                "metadata": {"reviewType": "security", "linesAnalyzed": 500},
            },
        }
    )
    assert event.artifact.model_extra == {"id": "artifact-001"} and event.artifact.parts[1].data["vulnerabilities"] == 3
    assert v01.encode_event(event)["artifact"]["id"] == "artifact-001"


def test_004_sse_events_are_tasks() -> None:
    """The tutorial's SSE lines carry id+status (no final): whole tasks, as Orloj sends."""
    lines = [
        {
            "jsonrpc": "2.0",
            "id": "req-1",
            "result": {
                "id": "task-1",
                "status": {
                    "state": "working",
                    "message": {"role": "agent", "parts": [{"type": "text", "text": "Starting analysis..."}]},
                },
            },
        },
        {
            "jsonrpc": "2.0",
            "id": "req-1",
            "result": {
                "id": "task-1",
                "status": {
                    "state": "working",
                    "message": {"role": "agent", "parts": [{"type": "text", "text": "Found 3 issues..."}]},
                },
            },
        },
        {
            "jsonrpc": "2.0",
            "id": "req-1",
            "result": {
                "id": "task-1",
                "status": {"state": "completed"},
                "artifacts": [{"name": "report", "parts": [{"type": "text", "text": "## Final Report..."}]}],
            },
        },
        {
            "jsonrpc": "2.0",
            "id": "req-1",
            "result": {
                "id": "task-1",
                "status": {
                    "state": "working",
                    "message": {"role": "agent", "parts": [{"type": "text", "text": "Processing step 2 of 5..."}]},
                },
            },
        },
    ]
    events = [v01.decode_stream_event(doc) for doc in lines]
    assert all(isinstance(e, m.Task) for e in events)
    assert [e.status.state for e in events] == [S.WORKING, S.WORKING, S.COMPLETED, S.WORKING]
    assert events[2].artifacts[0].name == "report"


def test_004_error() -> None:
    with pytest.raises(JsonRpcError) as info:
        v01.decode_stream_event(
            {
                "jsonrpc": "2.0",
                "id": "req-1",
                "error": {"code": -32001, "message": "Task not found", "data": {"taskId": "task-unknown"}},
            }
        )
    assert info.value.code == -32001 and info.value.data == {"taskId": "task-unknown"}


def test_004_push_and_get_params() -> None:
    push = v01.decode_params(
        Method.PUSH_SET, {"id": "t", "pushNotificationConfig": {"url": "https://cb.invalid", "token": "tok"}}
    )
    assert push.push_notification_config.token == "tok"
    get = v01.decode_params(Method.GET, {"id": "t", "historyLength": 3})
    assert get.history_length == 3
