"""The command line as used all day (issue 12): message metadata, push get on 1.0,
a hint on 401/403, seed cards linted by their own version, and --record --append."""

from __future__ import annotations

import json
from pathlib import Path

from cli_helpers import Cli, cli  # noqa: F401 - cli is a fixture
from inspector.session import Kind, load_recording
from mock_agent import MockAgent

LOCKED = {
    "name": "locked",
    "card": {
        "name": "Locked Agent",
        "securitySchemes": {"bearerAuth": {"type": "http", "scheme": "bearer"}},
        "security": [{"bearerAuth": []}],
    },
    "rules": [{"script": [{"http": {"status": 401, "body": "no token", "content_type": "text/plain"}}]}],
}
OPEN_401 = {
    "name": "plain",
    "card": {"name": "Plain Agent"},
    "rules": [{"script": [{"http": {"status": 401, "body": "no", "content_type": "text/plain"}}]}],
}


def sent_bodies(path: Path) -> list[dict]:
    recording = load_recording(path)
    return [
        json.loads(e.data["body"])
        for e in recording.session.events
        if e.kind is Kind.REQUEST and e.data.get("a2a_method") in ("send", "stream")
    ]


def test_message_metadata_is_the_messages_and_metadata_the_requests(cli: Cli, tmp_path: Path) -> None:
    with MockAgent("echo", dialect="all") as mock:
        record = tmp_path / "m.jsonl"
        result = cli(
            "send",
            mock.url,
            "hi",
            "--message-metadata",
            '{"trace": "t-1"}',
            "--metadata",
            '{"req": 1}',
            "--record",
            str(record),
        )
        assert result.code == 0, result
        (body,) = sent_bodies(record)
        assert body["params"]["message"]["metadata"] == {"trace": "t-1"}
        assert body["params"]["metadata"] == {"req": 1}
        bad = cli("send", mock.url, "hi", "--message-metadata", "[1]")
        assert bad.code == 2 and "--message-metadata must be a JSON object" in bad.err, bad


def test_push_get_on_1_0_without_a_config_id_lists_the_tasks_configs(cli: Cli, tmp_path: Path) -> None:
    with MockAgent("echo", dialect="1.0") as mock:
        task = cli("send", mock.url, "hi", "-o", "json").json()["task"]["id"]
        empty = cli("push", "get", mock.url, task)
        assert empty.code == 0, empty
        assert "no push notification config" in empty.out
        assert cli("push", "set", mock.url, task, "--url", "http://127.0.0.1:9/cb").code == 0
        record = tmp_path / "p.jsonl"
        listed = cli("push", "get", mock.url, task, "--record", str(record))
        assert listed.code == 0, listed
        assert "url http://127.0.0.1:9/cb" in listed.out
        methods = [
            json.loads(e.data["body"])["method"]
            for e in load_recording(record).session.events
            if e.kind is Kind.REQUEST and e.data.get("rpc_method")
        ]
        assert methods[-1] == "ListTaskPushNotificationConfigs"


def test_a_401_with_a_declared_scheme_gets_a_one_line_hint(cli: Cli) -> None:
    with MockAgent(LOCKED, dialect="1.0") as mock:
        result = cli("send", mock.url, "hi")
        assert result.code == 3, result
        assert result.err_lines[-1] == (
            "a2a-inspect: hint: refused (401); the card asks for a bearer token in "
            "scheme 'bearerAuth': try --bearer TOKEN"
        ), result
        # With a credential given, no hint: the credential is the problem, not its absence.
        given = cli("send", mock.url, "hi", "--bearer", "wrong-token")
        assert given.code == 3 and "hint" not in given.err, given


def test_a_401_from_an_agent_that_declares_no_scheme_gets_no_hint(cli: Cli) -> None:
    with MockAgent(OPEN_401, dialect="1.0") as mock:
        result = cli("send", mock.url, "hi")
        assert result.code == 3, result
        assert "hint" not in result.err and len(result.err_lines) == 1, result


def test_seed_cards_are_linted_by_their_own_version_and_card_exits_0(cli: Cli) -> None:
    for profile in ("society", "orloj"):
        with MockAgent(profile=profile) as mock:
            result = cli("card", mock.url)
            assert result.code == 0, result
            assert "✗" not in result.out, result
            assert "lint: 0 error(s)" in result.out


def test_record_on_an_existing_file_refuses_unless_appending(cli: Cli, tmp_path: Path) -> None:
    record = tmp_path / "s.jsonl"
    with MockAgent("echo", dialect="all") as mock:
        assert cli("send", mock.url, "one", "--record", str(record)).code == 0
        refused = cli("send", mock.url, "two", "--record", str(record))
        assert refused.code == 2, refused
        assert "exists: --append adds this session to it" in refused.err
        assert cli("send", mock.url, "two", "--record", str(record), "--append").code == 0
        assert cli("send", mock.url, "three", "--stream", "--record", str(record), "--append").code == 0

        # The reader reads every session, one after the other, numbered on.
        recording = load_recording(record)
        events = recording.session.events
        assert [e.seq for e in events] == list(range(1, len(events) + 1))
        notes = [e.data["text"] for e in events if e.kind is Kind.NOTE and "session" in e.data]
        assert [n.split(" (")[0] for n in notes] == ["session 2 of this file", "session 3 of this file"]
        texts = [b["params"]["message"]["parts"][0]["text"] for b in sent_bodies(record)]
        assert texts == ["one", "two", "three"]
        exchanges = [e.exchange for e in events if e.kind is Kind.REQUEST]
        assert len(exchanges) == len(set(exchanges))
        assert [e.t for e in events] == sorted(e.t for e in events)
        assert recording.problems == []

        # Diff, export and replay take the whole file.
        diff = cli("replay", str(record), "--against", mock.url)
        assert diff.code == 0, diff
        assert '"one"' in diff.out and '"two"' in diff.out and '"three"' in diff.out
        curl = cli("export", str(record), "--curl", "-")
        assert curl.code == 0 and curl.out.count("\ncurl ") + curl.out.startswith("curl ") >= 3, curl
        scenario = cli("export", str(record), "--scenario", "-")
        assert scenario.code == 0 and all(t in scenario.out for t in ("one", "two", "three")), scenario


def test_append_refuses_a_file_that_is_not_a_recording(cli: Cli, tmp_path: Path) -> None:
    other = tmp_path / "notes.txt"
    other.write_text("my notes\n")
    with MockAgent("echo", dialect="all") as mock:
        result = cli("send", mock.url, "hi", "--record", str(other), "--append")
        assert result.code == 2, result
        assert "is not an a2a-inspect recording: not appending to it" in result.err
    assert other.read_text() == "my notes\n"


def test_an_id_that_is_jqs_null_is_sent_but_said(cli: Cli, tmp_path: Path) -> None:
    # `--context-id "$(jq -r .contextId reply.json)"` of a reply without one gives "null".
    with MockAgent("echo", dialect="all") as mock:
        record = tmp_path / "n.jsonl"
        result = cli("send", mock.url, "hi", "--context-id", "null", "--record", str(record))
        assert result.code == 0, result
        assert "warning: --context-id is the text 'null'" in result.err, result
        (body,) = sent_bodies(record)
        assert body["params"]["message"]["contextId"] == "null"  # sent as given
        plain = cli("send", mock.url, "hi", "--context-id", "ctx-1")
        assert plain.code == 0 and "warning" not in plain.err, plain
