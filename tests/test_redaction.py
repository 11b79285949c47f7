"""Redaction beyond header names: credentials under any header name, secret values
wherever they occur in a written line, URLs in notes and errors, the dialect cache's
keys, and the TUI's recorder knowing its connection's credentials."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from inspector import store
from inspector.client import Auth, DialectCache, MemoryDialectCache
from inspector.client.dialect_cache import agent_key
from inspector.session import Kind, Recorder, Session
from inspector.session.redact import REDACTED, Redaction
from inspector.ui.app import InspectorApp
from mock_agent import MockAgent
from ui_helpers import wait_until


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_urls_in_free_text_lose_their_secret_parameters() -> None:
    r = Redaction()
    text = "dialect 1.0 remembered for http://h:1/a?token=T0KEN-1&v=2, from the cache (http://h/?key=K3Y)."
    assert r.text(text) == (
        "dialect 1.0 remembered for http://h:1/a?token=[redacted]&v=2, from the cache (http://h/?key=[redacted])."
    )
    assert r.text("no url here?") == "no url here?"


def test_notes_and_errors_are_redacted_in_the_recording(tmp_path: Path) -> None:
    session = Session()
    session.append(
        Kind.NOTE,
        {
            "text": "dialect 0.3 remembered for http://h/?access_token=AT-123456",
            "endpoint": "http://h/rpc?api_key=AK-123456",
        },
    )
    session.append(Kind.ERROR, {"type": "connect", "message": "cannot connect to http://h/?token=TK-123456: refused"})
    with Recorder.attach(session, tmp_path / "r.jsonl"):
        pass
    text = (tmp_path / "r.jsonl").read_text()
    for secret in ("AT-123456", "AK-123456", "TK-123456"):
        assert secret not in text
    note, error = lines(tmp_path / "r.jsonl")[1:]
    assert note["text"] == "dialect 0.3 remembered for http://h/?access_token=[redacted]"
    assert note["endpoint"] == "http://h/rpc?api_key=[redacted]"
    assert error["message"] == "cannot connect to http://h/?token=[redacted]: refused"


def test_credentials_under_any_header_name_are_secret_names_and_values() -> None:
    r = Redaction.for_connection(
        credentials=(Auth.api_key("KEY-123456", header="X-My-Key") + Auth.custom({"X-Org": "ORG-123456"})).headers(),
        headers={"Cookie": "sid=SID-123456; theme=dark", "Authorization": "Bearer BR-123456", "X-Plain": "PLAIN-1234"},
        urls=("http://h/?token=Q-123456&v=1", None),
    )
    assert r.is_secret_header("x-my-key") and r.is_secret_header("X-Org")
    assert not r.is_secret_header("X-Plain")
    for value in ("KEY-123456", "ORG-123456", "SID-123456", "BR-123456", "Q-123456"):
        assert value in r.values
    assert "PLAIN-1234" not in r.values  # not a secret name
    # a short value is redacted only where it is named: "dark" would blank out "darkness"
    assert r.settings()["secret_values"] == len({v for v in r.values if len(v) >= 8})
    assert Redaction(values=("dark",)).line('{"a":"darkness"}', {"a": "darkness"}) == '{"a":"darkness"}'
    assert "KEY-123456" not in json.dumps(r.settings())


def test_basic_auth_hides_the_token_the_pair_and_the_password() -> None:
    r = Redaction.for_connection(credentials=Auth.basic("ada", "PASS-word-1").headers())
    assert {"ada:PASS-word-1", "PASS-word-1"} <= set(r.values)


@pytest.mark.parametrize("value", ["S3CRET-value", 'quote"and\\slash', "caf\u00e9-\u65e5\u672c-secret", "1,2,3,4,5"])
def test_a_secret_value_is_replaced_in_any_string_of_a_line(tmp_path: Path, value: str) -> None:
    session = Session()
    session.append(
        Kind.SSE,
        {
            "raw": f"data: echo {value}",
            "data": f"echo {value}",
            "event": None,
            "id": None,
            "retry": None,
            "list": [1, 2, 3, 4, 5],
        },
        exchange=1,
    )
    with Recorder.attach(session, tmp_path / "r.jsonl", redact=Redaction(values=(value,))):
        pass
    (event,) = lines(tmp_path / "r.jsonl")[1:]
    assert event["data"] == f"echo {REDACTED}" and event["raw"] == f"data: echo {REDACTED}"
    assert event["list"] == [1, 2, 3, 4, 5]  # JSON syntax that happens to match is left alone
    assert value not in json.dumps(event, ensure_ascii=False)


def test_values_are_not_redacted_without_redaction(tmp_path: Path) -> None:
    session = Session()
    session.append(Kind.NOTE, {"text": "S3CRET-value"})
    with Recorder.attach(session, tmp_path / "r.jsonl", redact=Redaction(False, values=("S3CRET-value",))):
        pass
    assert lines(tmp_path / "r.jsonl")[1]["text"] == "S3CRET-value"


def test_the_dialect_cache_never_holds_a_secret_query_parameter(tmp_path: Path) -> None:
    assert agent_key("HTTP://H:1/a/?token=T0KEN-1&v=2") == "http://h:1/a/?token=[redacted]&v=2"
    path = tmp_path / "dialects.json"
    # a key written in clear by an older version is rewritten on the next save
    path.write_text(json.dumps({"http://old/?api_key=OLD-123456": "0.1"}))
    cache = DialectCache(path)
    cache.set("http://h/?token=NEW-123456", "1.0")
    text = path.read_text()
    assert "OLD-123456" not in text and "NEW-123456" not in text
    assert cache.get("http://h/?token=another") == "1.0"  # the token does not make another agent
    assert cache.get("http://old/?api_key=x") == "0.1"


async def test_the_tui_recorder_redacts_its_connections_credentials(tmp_path: Path) -> None:
    agents = store.AgentStore(tmp_path / "agents.json")
    async with MockAgent("echo", dialect="all") as mock:
        saved = agents.add(
            store.SavedAgent(
                name="keyed", url=mock.url, auth="api-key", auth_header="X-My-Key", secret="TUI-KEY-123456"
            )
        )
        app = InspectorApp(agent_store=agents, settings=store.Settings())
        async with app.run_test(size=(120, 36)) as pilot:
            conn = app.connect_to(saved.url, saved=saved)
            conn._dialect_cache = MemoryDialectCache()
            app.start_recording(conn, tmp_path / "tui.jsonl")
            await wait_until(pilot, lambda: conn.state == "ready", 10, "connected")
            from inspector.protocol import models as m

            params = m.SendParams(message=m.Message(role=m.Role.USER, parts=[m.TextPart(text="say TUI-KEY-123456")]))
            app.send_message(conn, params, stream=False)
            await wait_until(
                pilot,
                lambda: any(
                    e.kind is Kind.RESPONSE and e.data.get("body") and "say" in e.data["body"]
                    for e in conn.session.events
                ),
                10,
                "answer",
            )
            sent = [e.data["headers"] for e in conn.session.events if e.kind is Kind.REQUEST]
            assert all(h.get("X-My-Key") == "TUI-KEY-123456" for h in sent)  # live: the real value
            app.action_toggle_recording()
    text = (tmp_path / "tui.jsonl").read_text()
    assert "TUI-KEY-123456" not in text
    assert '"X-My-Key":"[redacted]"' in text
    assert "x-my-key" in lines(tmp_path / "tui.jsonl")[0]["redaction"]["headers"]


def test_a_password_in_the_url_is_a_secret() -> None:
    r = Redaction.for_connection(urls=("http://ada:PW-s3cret-01@h:1/x",))
    assert r.url("http://ada:PW-s3cret-01@h:1/x?v=1") == "http://ada:%5Bredacted%5D@h:1/x?v=1"
    assert r.url(r.url("http://ada:PW-s3cret-01@h:1/x")) == "http://ada:%5Bredacted%5D@h:1/x"  # still a URL
    assert (
        r.text("cannot connect to http://ada:PW-s3cret-01@h:1/x: refused")
        == "cannot connect to http://ada:%5Bredacted%5D@h:1/x: refused"
    )
    assert "PW-s3cret-01" in r.values


def test_a_default_recording_name_holds_no_secret() -> None:
    name = store.default_recording_path("http://ada:PW-s3cret-01@LocalHost:8003/a2a?token=T0K3N-s3cret").name
    assert name.endswith("_localhost-8003-a2a.jsonl")
