"""Pilot tests: the card view, the composer and the connection bar, against a real mock
agent on loopback."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from inspector.protocol import models as m
from inspector.safeyaml import load as load_yaml
from inspector.session.events import Kind
from inspector.ui.app import InspectorApp
from inspector.ui.screens.dialect_menu import DialectMenu
from inspector.ui.screens.file_pick import FilePickScreen
from inspector.ui.screens.json_edit import JsonEditScreen
from inspector.ui.widgets.card_view import CardView
from inspector.ui.widgets.composer import Composer
from inspector.ui.widgets.connection_bar import ConnectionBar
from mock_agent import MockAgent
from mock_agent.loader import builtin_dir
from ui_helpers import preview, screen_text, wait_until

SIZE = (120, 36)


async def ready(pilot: Any, app: InspectorApp) -> Any:
    conn = await wait_until(
        pilot, lambda: app.active if app.active and app.active.state == "ready" else None, 10, "the agent to be ready"
    )
    await pilot.pause(0.1)
    return conn


def send_requests(conn: Any) -> list[dict[str, Any]]:
    """The JSON-RPC bodies of every send/stream request in the session, oldest first."""
    out = []
    for event in conn.session.events:
        if event.kind is Kind.REQUEST and event.data.get("a2a_method") in ("send", "stream"):
            out.append(json.loads(event.data["body"]))
    return out


def lines_of(app: InspectorApp) -> list[str]:
    return screen_text(app).split("\n")


async def show_card(pilot: Any, app: InspectorApp) -> CardView:
    await pilot.press("f2")
    view = app.screen.query_one(CardView)
    await wait_until(pilot, lambda: view._items, 5, "the card's skills")
    if app.focused is None or app.focused.id != "agents-list":
        # coming from the task tab: the card takes the keys (the sidebar keeps them)
        await wait_until(pilot, lambda: app.focused is view, 3, "the card to take the keys")
    view.focus()
    await pilot.pause()
    assert app.screen.query_one("#views").active == "card"
    return view


# ----------------------------------------------------------------------------- card


def demo_without_provider_url() -> dict[str, Any]:
    """The demo scenario with the provider url left empty: a card with one lint error.
    (The demo's own card has none: a mock should pass its own lint.)"""
    scenario = load_yaml((builtin_dir() / "demo.yaml").read_text(encoding="utf-8"))
    scenario["card"]["provider"]["url"] = ""
    return scenario


async def test_card_shows_identity_findings_beside_fields_and_raw_json() -> None:
    async with MockAgent(demo_without_provider_url(), dialect="all") as mock:
        app = InspectorApp(url=mock.url)
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot, app)
            app.screen.query_one(Composer).text_area.focus()  # F2 from the task tab
            await pilot.pause()
            view = await show_card(pilot, app)
            text = screen_text(app)
            assert "Demo Agent" in text
            assert "lint: 1 error(s)" in text
            assert "A built-in mock agent. Try the examples on each skill." in text
            # The provider has an empty url: the error sits right under that row.
            lines = lines_of(app)
            row = next(i for i, line in enumerate(lines) if "PROVIDER" in line)
            url_row = next(i for i in range(row, len(lines)) if lines[i].split("│")[-1].strip().startswith("url"))
            assert "✗ error $.provider.url: provider url is empty" in lines[url_row + 1]
            assert any(f.path == "$.provider.url" and f.severity == "error" for f in view.findings)

            await pilot.press("j")
            await wait_until(pilot, lambda: '"name": "Demo Agent"' in screen_text(app), 3, "raw JSON")
            assert "IDENTITY" not in screen_text(app)
            await pilot.press("j")
            await wait_until(pilot, lambda: "IDENTITY" in screen_text(app), 3, "the structured card again")


async def test_skill_example_fills_the_composer() -> None:
    async with MockAgent("demo", dialect="all") as mock:
        app = InspectorApp(url=mock.url)
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot, app)
            view = await show_card(pilot, app)
            # skills and examples in order: stories, its example, questions, its example...
            await pilot.press("down", "down", "down")
            assert view.current is not None and view.current.example == "ask me what to write"
            await pilot.press("enter")
            composer = app.screen.query_one(Composer)
            await wait_until(pilot, lambda: composer.text == "ask me what to write", 3, "the composer filled")
            assert app.screen.query_one("#views").active == "task"
            assert app.focused is composer.text_area
            # enter on a skill takes its first example
            await pilot.press("f2")
            await wait_until(pilot, lambda: app.focused is view, 3, "the card focused")
            await pilot.press("up")
            assert view.current.example is None and view.current.skill == 1
            await pilot.press("enter")
            await wait_until(pilot, lambda: composer.text == "ask me what to write", 3, "the skill's first example")


# ----------------------------------------------------------------------------- composer


async def add_file(pilot: Any, app: InspectorApp, path: str, *, by_uri: bool = False) -> None:
    await pilot.press("ctrl+f")
    screen = await wait_until(
        pilot, lambda: isinstance(app.screen, FilePickScreen) and app.screen, 3, "the file picker"
    )
    screen.query_one("#file-path").value = path
    await pilot.pause()
    if by_uri:
        screen.query_one("#file-uri").value = True
        await pilot.pause()
    await pilot.press("ctrl+s")
    await wait_until(pilot, lambda: not isinstance(app.screen, FilePickScreen), 3, "the picker to close")


async def add_data(pilot: Any, app: InspectorApp, text: str) -> None:
    await pilot.press("ctrl+g")
    screen = await wait_until(
        pilot, lambda: isinstance(app.screen, JsonEditScreen) and app.screen, 3, "the JSON editor"
    )
    screen.text_area.text = text
    await pilot.pause()
    await pilot.press("ctrl+s")
    await wait_until(pilot, lambda: not isinstance(app.screen, JsonEditScreen), 3, "the editor to close")


async def test_send_a_multipart_message_and_see_its_task(tmp_path: Any) -> None:
    report = tmp_path / "report.csv"
    report.write_bytes(b"a,b\n1,2\n")
    async with MockAgent("echo", dialect="all") as mock:
        app = InspectorApp(url=mock.url)
        async with app.run_test(size=SIZE) as pilot:
            conn = await ready(pilot, app)
            composer = app.screen.query_one(Composer)
            assert composer.stream  # the card says streaming
            composer.text_area.focus()
            await pilot.press("ctrl+t")  # send, not stream
            assert not composer.stream
            composer.set_text("three parts")
            await add_file(pilot, app, str(report))
            await add_data(pilot, app, '{"rows": 2, "ok": true}')
            assert [type(p).__name__ for p in composer.draft.parts] == ["FilePart", "DataPart"]
            shown = screen_text(app)
            assert "file report.csv · text/csv · bytes 8 B" in shown
            assert "data object, 2 keys" in shown

            await pilot.press("ctrl+s")
            task_id = await wait_until(pilot, lambda: app.task_id, 10, "the new task to be selected")
            task = conn.tracker.task(task_id)
            await wait_until(pilot, lambda: task.state == m.TaskState.COMPLETED, 10, "the task to complete")
            (body,) = send_requests(conn)
            assert body["method"] in ("SendMessage", "message/send")
            parts = body["params"]["message"]["parts"]
            assert parts[0].get("text") == "three parts"
            file_part = next(p for p in parts if "file" in p or "raw" in p or "url" in p)
            raw = json.dumps(file_part)
            assert base64.b64encode(b"a,b\n1,2\n").decode() in raw and "report.csv" in raw
            assert any("rows" in json.dumps(p) for p in parts[1:])
            # the task carries the parts the request had
            user = task.history[0]
            assert [type(p).__name__ for p in user.parts] == ["TextPart", "FilePart", "DataPart"]
            # the composer cleared
            assert composer.text == "" and composer.draft.parts == []


async def test_stream_then_answer_input_required_on_the_same_task() -> None:
    async with MockAgent("input-required", dialect="all") as mock:
        app = InspectorApp(url=mock.url)
        async with app.run_test(size=SIZE) as pilot:
            conn = await ready(pilot, app)
            composer = app.screen.query_one(Composer)
            composer.text_area.focus()
            composer.set_text("ask me something")
            assert composer.stream and composer.target == "new"
            await pilot.press("ctrl+s")
            task_id = await wait_until(pilot, lambda: app.task_id, 10, "the task to be selected")
            task = conn.tracker.task(task_id)
            await wait_until(pilot, lambda: task.state == m.TaskState.INPUT_REQUIRED, 10, "input-required")
            await wait_until(pilot, lambda: composer.target == "continue", 3, "continue chosen")
            assert f"↺ continues {task_id[:8]}… (input-required)" in screen_text(app)
            # the user may switch to a new task, and back
            await pilot.press("ctrl+n")
            assert composer.target == "new"
            await pilot.press("ctrl+n")
            assert composer.target == "continue"

            composer.set_text("banana")
            await pilot.press("ctrl+s")
            await wait_until(pilot, lambda: task.state == m.TaskState.COMPLETED, 10, "the task to complete")
            first, second = send_requests(conn)
            assert first["method"] in ("SendStreamingMessage", "message/stream")
            assert second["params"]["message"]["taskId"] == task_id
            assert [t.task.id for t in mock.tasks] == [task_id]
            assert "echo: banana" in task.text()
            assert app.task_id == task_id
            await wait_until(pilot, lambda: composer.target == "new", 3, "new task again once completed")


async def test_preview_shows_the_exact_request_in_the_current_dialect() -> None:
    async with MockAgent("echo", dialect="all") as mock:
        app = InspectorApp(url=mock.url, dialect="0.3")
        async with app.run_test(size=SIZE) as pilot:
            conn = await ready(pilot, app)
            composer = app.screen.query_one(Composer)
            composer.text_area.focus()
            composer.set_text("preview me")
            await pilot.press("f9")
            await wait_until(pilot, lambda: '"method": "message/stream"' in screen_text(app), 3, "the preview")
            message_id = composer.message_id
            assert f'"messageId": "{message_id}"' in json.dumps(composer.preview_request()[1], indent=1)
            await pilot.press("ctrl+t")
            await wait_until(pilot, lambda: '"method": "message/send"' in screen_text(app), 3, "send preview")
            header, request = composer.preview_request()
            assert header.startswith(f"POST {mock.url}")
            await pilot.press("ctrl+s")
            await wait_until(pilot, lambda: send_requests(conn), 10, "the request")
            (body,) = send_requests(conn)
            sent = {k: v for k, v in body.items() if k != "id"}
            assert sent == {k: v for k, v in request.items() if k != "id"}
            assert composer.message_id != message_id  # a fresh id for the next message


async def test_data_part_editor_validates_live_and_opens_editor(monkeypatch: Any, tmp_path: Any) -> None:
    import contextlib

    script = tmp_path / "fake-editor"
    script.write_text('#!/bin/sh\nprintf \'{"from": "editor"}\' > "$1"\n')
    script.chmod(0o755)
    monkeypatch.setenv("EDITOR", str(script))
    monkeypatch.delenv("VISUAL", raising=False)
    async with MockAgent("echo", dialect="all") as mock:
        app = InspectorApp(url=mock.url)
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot, app)
            monkeypatch.setattr(app, "suspend", contextlib.nullcontext)
            composer = app.screen.query_one(Composer)
            composer.text_area.focus()
            await pilot.press("ctrl+g")
            await wait_until(pilot, lambda: isinstance(app.screen, JsonEditScreen), 3, "the JSON editor")
            await pilot.press("escape")  # cancels, even from inside the text area
            await wait_until(pilot, lambda: not isinstance(app.screen, JsonEditScreen), 3, "cancelled")
            assert composer.draft.parts == []
            await pilot.click("#composer-add-data")  # the mouse works too
            screen = await wait_until(
                pilot, lambda: isinstance(app.screen, JsonEditScreen) and app.screen, 3, "the JSON editor"
            )
            screen.text_area.text = '{\n  "a": 1\n  "b": 2\n}'
            await pilot.pause()
            text = screen_text(app)
            assert "✗ line 3, column 3: Expecting ',' delimiter" in text
            assert '3 │   "b": 2' in text
            await pilot.press("ctrl+s")  # refused while invalid
            assert isinstance(app.screen, JsonEditScreen)
            await pilot.press("ctrl+o")  # $EDITOR writes valid JSON
            await wait_until(pilot, lambda: "✓ valid" in screen_text(app), 3, "valid after the editor")
            await pilot.press("ctrl+s")
            await wait_until(pilot, lambda: composer.draft.parts, 3, "the data part")
            assert composer.draft.parts[0].data == {"from": "editor"}
            # part metadata and message metadata
            composer.part_list.focus()
            composer.part_list.highlighted = 1
            await pilot.press("m")
            screen = await wait_until(
                pilot, lambda: isinstance(app.screen, JsonEditScreen) and app.screen, 3, "the metadata editor"
            )
            screen.text_area.text = "[1]"
            await pilot.pause()
            assert "must be a JSON object" in screen_text(app)
            screen.text_area.text = '{"source": "test"}'
            await pilot.press("ctrl+s")
            await wait_until(pilot, lambda: composer.draft.parts[0].metadata == {"source": "test"}, 3, "metadata")
            composer.part_list.highlighted = 2
            await pilot.press("enter")
            screen = await wait_until(
                pilot, lambda: isinstance(app.screen, JsonEditScreen) and app.screen, 3, "the message metadata editor"
            )
            screen.text_area.text = '{"trace": "t-1"}'
            await pilot.press("ctrl+s")
            await wait_until(pilot, lambda: composer.draft.message_metadata == {"trace": "t-1"}, 3, "msg metadata")
            params = composer.build_params()
            assert params.message.metadata == {"trace": "t-1"}
            assert params.message.parts[0].metadata == {"source": "test"}
            # delete removes a part
            composer.part_list.highlighted = 1
            await pilot.press("delete")
            assert composer.draft.parts == []


async def test_file_picker_validates_and_sends_by_uri(tmp_path: Any) -> None:
    doc = tmp_path / "notes.md"
    doc.write_text("# hi\n")
    async with MockAgent("echo", dialect="all") as mock:
        app = InspectorApp(url=mock.url)
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot, app)
            composer = app.screen.query_one(Composer)
            composer.text_area.focus()
            await pilot.press("ctrl+f")
            screen = await wait_until(
                pilot, lambda: isinstance(app.screen, FilePickScreen) and app.screen, 3, "the file picker"
            )
            screen.query_one("#file-path").value = str(tmp_path / "missing.txt")
            await pilot.pause()
            assert "✗ no such file" in screen_text(app)
            await pilot.press("ctrl+s")
            assert isinstance(app.screen, FilePickScreen)
            screen.query_one("#file-path").value = str(doc)
            await pilot.pause()
            assert "notes.md · 5 B · text/markdown" in screen_text(app)
            await pilot.press("escape")
            await add_file(pilot, app, str(doc), by_uri=True)
            await add_file(pilot, app, "https://example.com/a/photo.png")
            uris = [p.file.uri for p in composer.draft.parts]
            assert uris == [doc.resolve().as_uri(), "https://example.com/a/photo.png"]
            assert composer.draft.parts[1].file.mime_type == "image/png"


# ----------------------------------------------------------------------------- bar


async def test_switch_dialect_from_the_bar() -> None:
    async with MockAgent("echo", dialect="all") as mock:
        app = InspectorApp(url=mock.url)
        async with app.run_test(size=SIZE) as pilot:
            conn = await ready(pilot, app)
            assert conn.dialect_name == "1.0" and conn.dialect_source == "card"
            assert "dialect 1.0 ▾ (card)" in screen_text(app)
            await pilot.press("f8")
            await wait_until(pilot, lambda: isinstance(app.screen, DialectMenu), 3, "the dialect menu")
            await pilot.press("down", "down", "enter")  # auto, 0.1, [0.3]
            await wait_until(pilot, lambda: conn.dialect_name == "0.3" and conn.state == "ready", 10, "0.3")
            await wait_until(pilot, lambda: "dialect 0.3 ▾ (user)" in screen_text(app), 3, "the bar to follow")
            composer = app.screen.query_one(Composer)
            composer.text_area.focus()
            composer.set_text("hello")
            await pilot.press("ctrl+s")
            await wait_until(pilot, lambda: send_requests(conn), 10, "the request")
            assert send_requests(conn)[0]["method"] == "message/stream"
            # a click on the dialect opens the menu too
            await pilot.click("#bar-dialect")
            await wait_until(pilot, lambda: isinstance(app.screen, DialectMenu), 3, "the menu by mouse")
            await pilot.press("escape")


async def test_bar_shows_progress_while_waiting_and_recording() -> None:
    waits = {
        "name": "waits",
        "card": {"name": "Waits", "capabilities": {"streaming": True}},
        "rules": [{"script": [{"status": "working"}, {"hold": "done"}, {"status": "completed"}]}],
    }
    async with MockAgent(waits, dialect="all") as mock:
        app = InspectorApp(url=mock.url)
        async with app.run_test(size=SIZE) as pilot:
            conn = await ready(pilot, app)
            bar = app.screen.query_one(ConnectionBar)
            assert "auth: none" in screen_text(app)
            composer = app.screen.query_one(Composer)
            composer.text_area.focus()
            composer.set_text("take your time")
            await pilot.press("ctrl+s")
            await wait_until(pilot, lambda: f"streaming to {conn.name}… " in screen_text(app), 5, "the progress")
            assert " s" in bar.query_one("#bar-progress").render().plain
            await wait_until(pilot, lambda: mock.held("done") == 1, 5, "the agent waiting")
            assert app.waiting  # the call is still on: the agent has not answered
            mock.release("done")
            await wait_until(pilot, lambda: not app.waiting, 20, "the call to end")
            await wait_until(pilot, lambda: "streaming to" not in screen_text(app), 3, "the progress to clear")
            await pilot.press("ctrl+r")
            await wait_until(pilot, lambda: "⏺ REC " in screen_text(app), 3, "the recording indicator")
            assert conn.recording.name[:20] in screen_text(app)
            await pilot.press("ctrl+r")
            await wait_until(pilot, lambda: "⏺ REC " not in screen_text(app), 3, "recording off")


# ----------------------------------------------------------------------------- agent text is data

HOSTILE = {
    "name": "hostile",
    "card": {
        "name": "[bold]Evil[/bold] \x1b[31mred",
        "description": "[link=http://x]click[/link] \x1b]0;title\x07",
        "version": "1.0.0",
        "capabilities": {"streaming": True},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [
            {
                "id": "s[1]",
                "name": "[red]skill[/red]",
                "description": "d",
                "tags": ["[b]t[/b]"],
                "examples": ["say [bold]hi[/bold]"],
            }
        ],
    },
    "rules": [{"script": [{"status": "completed", "message": "ok"}]}],
}


async def test_agent_text_shows_literally() -> None:
    async with MockAgent(HOSTILE, dialect="all") as mock:
        app = InspectorApp(url=mock.url)
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot, app)
            await show_card(pilot, app)
            text = screen_text(app)
            assert text.count("[bold]Evil[/bold]") >= 3  # bar, agents list, card
            assert "[bold]Evil[/bold] \\x1b[31mred" in text
            assert "[link=http://x]click[/link] \\x1b]0;title\\x07" in text
            await pilot.press("down")  # the cursor scrolls the skills into view
            text = screen_text(app)
            assert "[red]skill[/red]" in text and "[b]t[/b]" in text
            assert "say [bold]hi[/bold]" in text
            await pilot.press("j")
            await wait_until(pilot, lambda: "\\u001b[31mred" in screen_text(app), 3, "raw JSON, escaped")
            await pilot.press("j")
            await pilot.press("enter")
            composer = app.screen.query_one(Composer)
            await wait_until(pilot, lambda: composer.text == "say [bold]hi[/bold]", 3, "the example as typed")
            assert "say [bold]hi[/bold]" in screen_text(app)


@pytest.mark.parametrize("dialect", ["0.1", "1.0"])
async def test_composer_preview_follows_the_dialect(dialect: str) -> None:
    async with MockAgent("echo", dialect="all") as mock:
        app = InspectorApp(url=mock.url, dialect=dialect)
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot, app)
            composer = app.screen.query_one(Composer)
            composer.set_text("x")
            _, request = await preview(pilot, composer)
            assert request["method"] == {"0.1": "tasks/sendSubscribe", "1.0": "SendStreamingMessage"}[dialect]
            composer.text_area.focus()
            await pilot.press("ctrl+s")
            task_id = await wait_until(pilot, lambda: app.task_id, 10, "the new task selected")
            assert [t.task.id for t in mock.tasks] == [task_id]


def test_findings_sit_under_the_field_they_concern() -> None:
    from inspector.protocol.card import decode_card
    from inspector.protocol.card_sections import FindingPlacer
    from inspector.protocol.lint import lint_card
    from inspector.ui.widgets.card_view import card_sections, section_content

    raw = {
        "name": "x",
        "description": "d",
        "version": "1",
        "url": "http://h/",
        "protocolVersion": "0.3.0",
        "capabilities": {},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "a", "name": "A", "description": "d", "tags": []}],
        "securitySchemes": {"my auth": {"type": "http"}},
        "security": [{"my auth": []}],
    }
    findings = FindingPlacer(lint_card(raw, "0.3"))
    sections = dict(card_sections(decode_card(raw), card_url=None, dialect=None, endpoint=None))
    lines = section_content("security", sections["security"], findings).plain.split("\n")
    row = next(i for i, line in enumerate(lines) if line.strip().startswith("my auth"))
    assert '✗ error $.securitySchemes["my auth"].scheme: a http security scheme needs scheme' in lines[row + 1]
    assert lines[row + 2].strip().startswith("required")
    assert findings.rest() == []


def test_the_message_box_binds_what_textarea_binds_but_f6() -> None:
    from textual.widgets import TextArea

    from inspector.ui.widgets.message_text import MessageText

    def actions(cls: type) -> dict[str, list[str]]:
        return {key: [b.action for b in bindings] for key, bindings in cls._merged_bindings.key_to_bindings.items()}

    expected = actions(TextArea)
    assert expected.pop("f6") == ["select_line"]
    assert actions(MessageText) == expected
