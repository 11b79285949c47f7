"""``a2a-mock --replay`` matching reads a request without what a client may fill in with
its default value (mock_agent/replay_defaults.py), and still refuses a request that
asks something else.

The recordings are a2a-inspect's own (a send, the same send with no waiting, a get), on
a2a-mock in 1.0 and in 0.3; each case takes the recorded plain send as a2a-inspect sent it,
changes one thing the way another client (the official JS SDK, in the first cases)
writes it, and asks the replay's matcher.
"""

from __future__ import annotations

import asyncio
import copy
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from inspector.client import A2AClient
from inspector.protocol import models as m
from inspector.session import Recorder, Session
from mock_agent import MockAgent
from mock_agent.replay import ReplayServer
from mock_agent.replay_match import Match, Miss

TEXT = "hello there"
#: What each dialect's requests say, and the A2A-Version header a2a-inspect sends.
SEND = {"1.0": "SendMessage", "0.3": "message/send"}
GET = {"1.0": "GetTask", "0.3": "tasks/get"}
HEADER = {"1.0": "1.0", "0.3": None}
#: Which recorded send is which.
NO_WAIT, PLAIN = 0, 1


def _params(text: str, **config: Any) -> m.SendParams:
    return m.SendParams(
        message=m.Message(role=m.Role.USER, parts=[m.TextPart(text=text)], message_id=str(uuid.uuid4())),
        configuration=m.SendConfiguration(**config) if config else None,
    )


async def _record(path: Path, dialect: str) -> None:
    async with MockAgent("echo", dialect=dialect) as mock:
        session = Session()
        with Recorder.attach(session, path):
            async with A2AClient(mock.url, session=session, dialect=dialect) as client:
                # The one without waiting first: a request that only matches by its
                # message would get it, being the first not served yet.
                await client.send(_params(TEXT, blocking=False))
                task = await client.send(_params(TEXT))
                await client.get_task(task.id)


@pytest.fixture(scope="module")
def recordings(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("recordings")
    paths = {d: root / f"{d}.jsonl" for d in SEND}
    for dialect, path in paths.items():
        asyncio.run(_record(path, dialect))
    return paths


def recorded(server: ReplayServer, method: str, nth: int = PLAIN) -> dict[str, Any]:
    """The nth recorded request of ``method``, as the recording holds it."""
    bodies = [c.ex.body_json for c in server.book.candidates if c.wire_method == method]
    return copy.deepcopy(bodies[nth])


def ask(server: ReplayServer, body: dict[str, Any], version: str | None) -> Match | Miss:
    return server.book.match(body, version)


def message(body: dict[str, Any]) -> dict[str, Any]:
    return body["params"]["message"]


def part(body: dict[str, Any]) -> dict[str, Any]:
    return message(body)["parts"][0]


# Each: (name, dialects it applies to, change to a recorded send's JSON-RPC body).
Edit = Callable[[dict[str, Any]], None]
IGNORED: list[tuple[str, tuple[str, ...], Edit]] = [
    ("a text part's mediaType text/plain", ("1.0",), lambda b: part(b).update(mediaType="text/plain")),
    ("the same, in capitals and spaced", ("1.0",), lambda b: part(b).update(mediaType=" Text/Plain ")),
    ("an empty part filename and mediaType", ("1.0",), lambda b: part(b).update(filename="", mediaType="")),
    ("empty part metadata", ("1.0", "0.3"), lambda b: part(b).update(metadata={})),
    ("empty message metadata", ("1.0", "0.3"), lambda b: message(b).update(metadata={})),
    ("null message metadata", ("1.0", "0.3"), lambda b: message(b).update(metadata=None)),
    ("empty params metadata", ("1.0", "0.3"), lambda b: b["params"].update(metadata={})),
    ("empty extensions", ("1.0", "0.3"), lambda b: message(b).update(extensions=[])),
    ("empty referenceTaskIds", ("1.0", "0.3"), lambda b: message(b).update(referenceTaskIds=[])),
    ("empty taskId and contextId", ("1.0",), lambda b: message(b).update(taskId="", contextId="")),
    ("an empty tenant", ("1.0",), lambda b: b["params"].update(tenant="")),
    ("another messageId", ("1.0", "0.3"), lambda b: message(b).update(messageId=str(uuid.uuid4()))),
    ("an empty configuration", ("1.0", "0.3"), lambda b: b["params"].update(configuration={})),
    ("returnImmediately false", ("1.0",), lambda b: b["params"].update(configuration={"returnImmediately": False})),
    (
        "blocking true and no output modes",
        ("0.3",),
        lambda b: b["params"].update(configuration={"blocking": True, "acceptedOutputModes": []}),
    ),
    (
        "a null historyLength and push config",
        ("1.0", "0.3"),
        lambda b: b["params"].update(configuration={"historyLength": None, "pushNotificationConfig": None}),
    ),
]

REFUSED: list[tuple[str, tuple[str, ...], Edit]] = [
    ("another text", ("1.0", "0.3"), lambda b: part(b).update(text="hello here")),
    ("a data part instead of text", ("1.0",), lambda b: message(b).update(parts=[{"data": {"text": TEXT}}])),
    (
        "a data part instead of text",
        ("0.3",),
        lambda b: message(b).update(parts=[{"kind": "data", "data": {"text": TEXT}}]),
    ),
    ("a media type that is not the default", ("1.0",), lambda b: part(b).update(mediaType="text/markdown")),
    ("a second part", ("1.0",), lambda b: message(b)["parts"].append({"text": "more"})),
    ("message metadata with something in it", ("1.0", "0.3"), lambda b: message(b).update(metadata={"k": "v"})),
    ("part metadata with something in it", ("1.0", "0.3"), lambda b: part(b).update(metadata={"k": "v"})),
    ("an extension", ("1.0", "0.3"), lambda b: message(b).update(extensions=["https://example.org/ext"])),
    ("a referenced task", ("1.0", "0.3"), lambda b: message(b).update(referenceTaskIds=["some-task"])),
]


def _cases(table: list[tuple[str, tuple[str, ...], Edit]]) -> list[Any]:
    return [pytest.param(d, name, edit, id=f"{d}-{name}") for name, dialects, edit in table for d in dialects]


@pytest.mark.parametrize(("dialect", "name", "edit"), _cases(IGNORED))
def test_a_default_a_client_fills_in_still_matches(
    recordings: dict[str, Path], dialect: str, name: str, edit: Edit
) -> None:
    server = ReplayServer([recordings[dialect]], speed=0)
    body = recorded(server, SEND[dialect])
    edit(body)
    found = ask(server, body, HEADER[dialect])
    assert isinstance(found, Match), f"{name}: {found}"
    assert found.candidate.wire_method == SEND[dialect]


@pytest.mark.parametrize(("dialect", "name", "edit"), _cases(REFUSED))
def test_a_request_that_means_something_else_is_refused(
    recordings: dict[str, Path], dialect: str, name: str, edit: Edit
) -> None:
    server = ReplayServer([recordings[dialect]], speed=0)
    body = recorded(server, SEND[dialect])
    edit(body)
    found = ask(server, body, HEADER[dialect])
    assert isinstance(found, Miss), name
    assert found.code == -32602 and "differ" in found.why


def test_the_client_defaults_pick_the_recorded_plain_send_not_the_one_without_waiting(
    recordings: dict[str, Path],
) -> None:
    """Both recorded sends have the same message; the JS SDK's defaults (0.3: blocking
    true, no output modes; 1.0: an empty configuration) say what a2a-inspect's plain
    send said, so they get its answer, not the no-wait one's."""
    for dialect, config in (("1.0", {}), ("0.3", {"blocking": True, "acceptedOutputModes": []})):
        server = ReplayServer([recordings[dialect]], speed=0)
        for _ in range(2):  # asked twice: the plain send's answer both times
            body = recorded(server, SEND[dialect])
            body["params"]["configuration"] = config
            found = ask(server, body, HEADER[dialect])
            assert isinstance(found, Match)
            assert found.candidate.index == recorded_index(server, SEND[dialect], PLAIN)
        # And one that asks not to wait gets the other.
        server = ReplayServer([recordings[dialect]], speed=0)
        body = recorded(server, SEND[dialect], NO_WAIT)
        found = ask(server, body, HEADER[dialect])
        assert isinstance(found, Match) and found.candidate.index == recorded_index(server, SEND[dialect], NO_WAIT)


def recorded_index(server: ReplayServer, method: str, nth: int) -> int:
    return [c.index for c in server.book.candidates if c.wire_method == method][nth]


@pytest.mark.parametrize("dialect", list(SEND))
def test_a_get_with_an_empty_tenant_or_a_null_history_length_matches(recordings: dict[str, Path], dialect: str) -> None:
    server = ReplayServer([recordings[dialect]], speed=0)
    sent = ask(server, recorded(server, SEND[dialect]), HEADER[dialect])
    assert isinstance(sent, Match)
    body = recorded(server, GET[dialect], 0)
    # The task id as this client was given it.
    body["params"]["id"] = sent.table[body["params"]["id"]]
    body["params"].update(historyLength=None, metadata={}, **({"tenant": ""} if dialect == "1.0" else {}))
    found = ask(server, body, HEADER[dialect])
    assert isinstance(found, Match) and found.candidate.wire_method == GET[dialect]


def test_an_a2a_version_header_of_0_3_is_what_no_header_says() -> None:
    """1.0: a request without the header is a 0.3 request. The JS SDK's 0.3 transports
    send ``A2A-Version: 0.3``; a2a-inspect sends none."""
    from mock_agent.replay_defaults import version_of

    assert version_of(None) == version_of("") == version_of("0.3") == version_of(" 0.3.0 ") == "0.3"
    assert version_of("1.0") == version_of("1.0.1") == "1.0"
    assert version_of("1.0") != version_of(None)


def test_the_a2a_version_header_still_decides(recordings: dict[str, Path]) -> None:
    server = ReplayServer([recordings["0.3"]], speed=0)
    body = recorded(server, "message/send")
    assert isinstance(ask(server, body, "0.3"), Match)
    refused = ask(server, body, "1.0")
    assert isinstance(refused, Miss) and "A2A-Version" in refused.why
    server = ReplayServer([recordings["1.0"]], speed=0)
    refused = ask(server, recorded(server, "SendMessage"), None)
    assert isinstance(refused, Miss) and "recorded 1.0, this request none" in refused.why


def test_content_inside_data_and_metadata_is_not_touched() -> None:
    """Only the protocol's own fields lose their defaults: what a client put in a data
    part or a metadata object is compared as it came."""
    from mock_agent.replay_defaults import without_defaults

    params = {
        "message": {
            "role": "user",
            "parts": [
                {"kind": "data", "data": {"metadata": {}, "extensions": [], "mediaType": "text/plain", "text": ""}},
                {"text": "x", "mediaType": "text/plain", "metadata": {"inner": {}, "empty": []}},
            ],
            "metadata": {"tenant": "", "blocking": True},
        },
        "configuration": {"blocking": False, "returnImmediately": True, "acceptedOutputModes": ["text/plain"]},
    }
    out = without_defaults(params)
    assert out["message"]["parts"][0] == params["message"]["parts"][0]
    assert out["message"]["parts"][1] == {"text": "x", "metadata": {"inner": {}, "empty": []}}
    assert out["message"]["metadata"] == {"tenant": "", "blocking": True}
    assert out["configuration"] == params["configuration"]
    assert params["message"]["parts"][1]["mediaType"] == "text/plain"  # a copy: the request is not changed
    assert without_defaults(["not", "params"]) == ["not", "params"]
