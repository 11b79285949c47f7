"""The Task tab against a real mock agent on loopback: conversation, state diagram,
artifacts (live assembly, chunk table, saving file parts), literal agent text, and a
2,000-chunk stream."""

from __future__ import annotations

import base64
import time
import uuid
from pathlib import Path
from typing import Any

from rich.style import Style
from rich.text import Text
from textual.content import Content
from textual.geometry import Offset
from textual.selection import Selection

from inspector.protocol import models as m
from inspector.ui.app import InspectorApp
from inspector.ui.connection import AgentConnection
from inspector.ui.screens.save_file import SaveFileScreen, safe_filename, write_new_file
from inspector.ui.widgets.artifacts_view import ArtifactsView
from inspector.ui.widgets.conversation import Conversation
from inspector.ui.widgets.state_diagram import StateDiagram, taken_edges
from inspector.ui.widgets.wrap import TAB, WrappedText, wrap_rows
from mock_agent import MockAgent
from ui_helpers import record_notifications, screen_text, wait_until

SIZE = (120, 36)


def scenario(*script: dict[str, Any], name: str = "test", rules: list[dict] | None = None) -> dict:
    return {
        "name": name,
        "card": {"name": f"{name} agent", "capabilities": {"streaming": True}},
        "rules": rules if rules is not None else [{"script": list(script)}],
    }


def params(text: str, task_id: str | None = None, context_id: str | None = None) -> m.SendParams:
    return m.SendParams(
        message=m.Message(
            role=m.Role.USER,
            parts=[m.TextPart(text=text)],
            message_id=str(uuid.uuid4()),
            task_id=task_id,
            context_id=context_id,
        )
    )


async def ready(pilot: Any) -> AgentConnection:
    app = pilot.app
    await wait_until(pilot, lambda: app.active is not None and app.active.state == "ready", 10, "the agent to be ready")
    return app.active


def view(app: InspectorApp, cls: type) -> Any:
    return app.main.query_one(cls)


async def stream_until(
    pilot: Any,
    conn: AgentConnection,
    text: str,
    predicate: Any,
    what: str,
    task_id: str | None = None,
    timeout: float = 15,
) -> None:
    pilot.app.send_message(conn, params(text, task_id=task_id), stream=True)
    await wait_until(pilot, predicate, timeout, what)


def selected_task(app: InspectorApp) -> Any:
    conn = app.active
    return conn.tracker.task(app.task_id) if conn and app.task_id else None


def styles_of(text: Text, word: str, context: str | None = None) -> list[Style]:
    """The styles applied to the first occurrence of ``word`` in ``text`` (the first one
    inside ``context``, when given)."""
    if context is None:
        start = text.plain.index(word)
    else:
        start = text.plain.index(context) + context.index(word)
    end = start + len(word)
    out = [Style.parse(str(text.style)) if text.style else Style()]
    for span in text.spans:
        if span.start <= start and span.end >= end:
            out.append(span.style if isinstance(span.style, Style) else Style.parse(span.style))
    return out


def combined(text: Text, word: str, context: str | None = None) -> Style:
    style = Style()
    for s in styles_of(text, word, context):
        style += s
    return style


# --------------------------------------------------------------------- streaming


STORY = scenario(
    {"status": "working", "message": "writing..."},
    {
        "chunks": {
            "id": "story",
            "name": "story.txt",
            "texts": ["Once ", "upon ", "a time, ", "the end."],
            "delay": 0.02,
        }
    },
    {"status": "completed", "message": "done"},
    name="story",
)


async def test_stream_assembles_the_artifact_and_the_diagram_walks_the_path() -> None:
    async with MockAgent(STORY, dialect="all") as mock:
        app = InspectorApp(url=mock.url)
        async with app.run_test(size=SIZE) as pilot:
            conn = await ready(pilot)
            artifacts = view(app, ArtifactsView)
            await stream_until(
                pilot,
                conn,
                "tell me",
                lambda: artifacts.text_of("story") == "Once upon a time, the end.",
                "the assembled story",
            )
            # The task the user just created is selected without a key press.
            task = selected_task(app)
            assert task is not None and task.terminal
            await wait_until(pilot, lambda: "the end." in screen_text(app), 5, "the text on screen")

            # The chunk table: one row per chunk, with the flags.
            artifacts.document.focus()
            await pilot.press("t")
            table = artifacts.chunk_table
            await wait_until(pilot, lambda: table.row_count == 4, 5, "4 chunk rows")
            rows = [[cell.plain for cell in table.get_row_at(i)] for i in range(4)]
            assert [r[1] for r in rows] == ["story"] * 4
            assert [r[2] for r in rows][1:] == ["yes", "yes", "yes"]  # append
            assert rows[0][2] in ("—", "no")  # the first chunk starts the artifact
            assert [r[3] for r in rows][-1] == "yes"  # lastChunk on the last one
            assert [r[4] for r in rows] == ["5", "5", "8", "8"]  # sizes in characters
            assert all(r[5].startswith("+") for r in rows)
            await pilot.pause(0.1)
            shown = screen_text(app)
            assert "# artifact app  last  size       t" in shown  # all columns fit at 120x36
            last_row = next(line for line in shown.splitlines() if " 4 story" in line)
            assert "yes  yes" in last_row and " 8 " in last_row and "+" in last_row
            await pilot.press("t")
            assert not artifacts.showing_chunks

            # The diagram: the current state lit (reverse, in its colour), the path listed.
            diagram = view(app, StateDiagram)
            await wait_until(
                pilot,
                lambda: "completed" in diagram.render().plain and "▸ completed" in diagram.render().plain,
                5,
                "the final state",
            )
            rendered = diagram.render()
            plain = rendered.plain
            assert "╭───────────╮" in plain  # the drawing, at 120x36
            for state in ("submitted", "working", "completed"):
                assert f"  {state}" in plain or f"▸ {state}" in plain
            lines = [line for line in plain.splitlines() if line.strip().startswith(("submitted", "working", "▸"))]
            assert len(lines) == 3 and all("+" in line for line in lines)
            # durations: submitted and working have one, the terminal state says "end"
            assert lines[-1].rstrip().endswith("end")
            assert any(ch.isdigit() for ch in lines[1].split("+", 1)[1])
            lit = combined(rendered, "completed", "│ completed")
            assert lit.reverse and lit.bold
            assert lit.color == diagram.get_component_rich_style("state-diagram--completed", partial=True).color
            assert not combined(rendered, "rejected").reverse
            assert combined(rendered, "working", "│  working").bold  # visited
            assert taken_edges([m.TaskState.SUBMITTED, m.TaskState.WORKING, m.TaskState.COMPLETED]).keys() == {"1", "6"}

            # The conversation: the user's message, then the status messages with their states.
            conversation = view(app, Conversation)
            labels = [v.label for v in conversation.messages]
            assert labels == ["you", "agent · working", "agent · completed"]
            assert "tell me" in conversation.messages[0].plain


async def test_artifact_text_grows_while_streaming() -> None:
    # Each chunk waits at a gate until the test has seen the one before on screen.
    grows = scenario(
        {"status": "working"},
        {"artifact": {"id": "a", "text": "one ", "last_chunk": False}},
        {"hold": "next"},
        {"artifact": {"id": "a", "text": "two ", "append": True, "last_chunk": False}},
        {"hold": "next"},
        {"artifact": {"id": "a", "text": "three ", "append": True, "last_chunk": True}},
        {"status": "completed"},
    )
    async with MockAgent(grows, dialect="all") as mock:
        app = InspectorApp(url=mock.url)
        async with app.run_test(size=SIZE) as pilot:
            conn = await ready(pilot)
            artifacts = view(app, ArtifactsView)
            app.send_message(conn, params("go"), stream=True)
            for shown in ("one ", "one two "):
                await wait_until(
                    pilot,
                    lambda shown=shown: artifacts.text_of("a") == shown and mock.held("next") == 1,
                    10,
                    f"{shown!r} on screen, the agent waiting",
                )
                task = selected_task(app)
                assert task is not None and not task.terminal
                mock.release("next")
            await wait_until(
                pilot,
                lambda: artifacts.text_of("a") == "one two three " and selected_task(app).terminal,
                10,
                "the whole artifact",
            )
            # One text run, appended to, not rebuilt.
            assert [b.kind for b in artifacts.document.sections["a"].blocks] == ["text"]


# --------------------------------------------------------------------- input-required


async def test_an_input_required_question_shows_in_the_conversation() -> None:
    async with MockAgent("input-required", dialect="all") as mock:
        app = InspectorApp(url=mock.url)
        async with app.run_test(size=SIZE) as pilot:
            conn = await ready(pilot)
            conversation = view(app, Conversation)
            await stream_until(
                pilot, conn, "hello", lambda: any(v.waiting for v in conversation.messages), "the question"
            )
            question = next(v for v in conversation.messages if v.waiting)
            assert question.kind == "question"
            assert question.label == "agent asks · input-required"
            assert "What should I echo?" in question.plain
            await pilot.pause(0.1)
            shown = screen_text(app)
            assert "What should I echo?" in shown and "waiting for your reply" in shown
            assert "No messages" not in shown
            task = selected_task(app)
            assert task is not None and task.state is m.TaskState.INPUT_REQUIRED
            diagram = view(app, StateDiagram)
            assert combined(diagram.render(), "input-required", "│input-required").reverse

            # Answer on the same task: the question is no longer waiting, the echo arrives.
            app.send_message(conn, params("parrot", task_id=task.id, context_id=task.context_id), stream=True)
            await wait_until(pilot, lambda: task.terminal, 10, "the task to complete")
            await wait_until(
                pilot, lambda: not any(v.waiting for v in conversation.messages), 5, "the question answered"
            )
            labels = [v.label for v in conversation.messages]
            assert labels[:3] == ["you", "agent · working", "agent asks · input-required"]
            assert "you" in labels[3:]
            artifacts = view(app, ArtifactsView)
            await wait_until(
                pilot,
                lambda: any("echo: parrot" in s.text for s in artifacts.document.sections.values()),
                5,
                "the echo artifact",
            )


async def test_direct_replies_show_when_no_task_is_selected() -> None:
    replying = scenario({"reply": "a direct answer to: {text}"})
    async with MockAgent(replying, dialect="all") as mock:
        app = InspectorApp(url=mock.url)
        async with app.run_test(size=SIZE) as pilot:
            conn = await ready(pilot)
            conversation = view(app, Conversation)
            app.send_message(conn, params("hi there"), stream=False)
            await wait_until(pilot, lambda: len(conversation.messages) == 2, 10, "the reply")
            you, agent = conversation.messages
            assert you.label == "you" and "hi there" in you.plain
            assert agent.kind == "reply" and "a direct answer to: hi there" in agent.plain
            assert app.task_id is None


# --------------------------------------------------------------------- violations


async def test_a_chunk_after_close_is_highlighted_as_a_violation() -> None:
    broken = scenario(
        {"status": "working"},
        {"artifact": {"id": "doc", "text": "closed", "last_chunk": True}},
        {"artifact": {"id": "doc", "text": " and more", "append": True}},
        {"end": True},
    )
    async with MockAgent(broken, dialect="all") as mock:
        app = InspectorApp(url=mock.url)
        async with app.run_test(size=SIZE) as pilot:
            conn = await ready(pilot)
            diagram = view(app, StateDiagram)
            await stream_until(
                pilot,
                conn,
                "go",
                lambda: (
                    selected_task(app) is not None
                    and {"chunk-after-close", "stream-no-terminal"} <= {v.code for v in selected_task(app).violations}
                ),
                "the violations",
            )
            await wait_until(pilot, lambda: "stream-no-terminal" in diagram.render().plain, 5, "the violations drawn")
            rendered = diagram.render()
            assert "violations: " in rendered.plain
            assert "chunk appended to artifact 'doc' after its lastChunk" in rendered.plain
            error = diagram.get_component_rich_style("state-diagram--error", partial=True)
            assert combined(rendered, "chunk-after-close").color == error.color
            await pilot.pause(0.1)
            assert "chunk-after-close" in screen_text(app)
            # The artifact still shows what the agent sent.
            artifacts = view(app, ArtifactsView)
            await wait_until(pilot, lambda: artifacts.text_of("doc") == "closed and more", 5, "the artifact")
            # The diagram draws its own strips (cheaper than Textual's path from the Text):
            # the rows Textual would draw, at every width, wrapped where it wraps them.
            error_segments = 0
            now = time.time()
            diagram.clock = lambda: now  # the running state's time stands still
            for width in (12, 20, 32, 33, 34, 41, 60):
                lines = diagram._lines(width, tall=True)
                textual_rows = Content.from_rich_text(Text("\n").join(lines)).wrap(width)
                diagram._cached = None
                strips = diagram._strips(width)
                assert [s.text.rstrip() for s in strips] == [r.plain.rstrip() for r in textual_rows]
                assert all(s.cell_length == width for s in strips)
                error_segments += sum(
                    1
                    for s in strips
                    for seg in s
                    if seg.text == "chunk-after-close" and seg.style is not None and seg.style.color == error.color
                )
            assert error_segments == 6  # at width 12 the code folds over two rows
            # A mouse selection works as in any other widget: each cell knows its place.
            screen = app.screen
            content = diagram.content_region
            assert screen.get_widget_and_offset_at(content.x + 5, content.y + 1) == (diagram, Offset(5, 1))
            screen.selections = {diagram: Selection(Offset(0, 0), Offset(4, 0))}
            await pilot.pause()
            assert screen.get_selected_text() == "task"
            highlight = screen.get_component_rich_style("screen--selection").bgcolor
            first = diagram._strips(content.width)[0]
            assert [seg.style.bgcolor == highlight for seg in first if seg.style][:2] == [True, False]
            assert first.text.startswith("task ")


# --------------------------------------------------------------------- files


CSV = b"name,score\nada,1\ngrace,2\n"
FILES = scenario(
    {"status": "working"},
    {
        "artifact": {
            "id": "csv",
            "name": "table.csv",
            "parts": [
                {
                    "file": {
                        "name": "../../etc/table.csv",
                        "mime_type": "text/csv",
                        "bytes": base64.b64encode(CSV).decode(),
                    }
                }
            ],
        }
    },
    {
        "artifact": {
            "id": "link",
            "name": "report",
            "parts": [
                {
                    "file": {
                        "name": "report.pdf",
                        "mime_type": "application/pdf",
                        "uri": "https://example.invalid/report.pdf",
                    }
                }
            ],
        }
    },
    {"artifact": {"id": "numbers", "parts": [{"data": {"rows": 2, "ok": True}}]}},
    {"status": "completed"},
)


async def test_saving_a_file_part_writes_the_decoded_bytes_under_a_safe_name(tmp_path: Path) -> None:
    async with MockAgent(FILES, dialect="all") as mock:
        app = InspectorApp(url=mock.url)
        said = record_notifications(app)
        async with app.run_test(size=SIZE) as pilot:
            conn = await ready(pilot)
            artifacts = view(app, ArtifactsView)
            document = artifacts.document
            await stream_until(
                pilot,
                conn,
                "files",
                lambda: len(document.file_parts) == 2 and "numbers" in document.sections,
                "the file parts",
            )
            inline, uri = document.file_parts
            document.focus()
            await pilot.pause(0.1)
            shown = screen_text(app)
            # The name as the agent sent it (the safe name is only for saving).
            assert "▤ ../../etc/table.csv · text/csv · 25 B" in document.plain
            assert "../../etc/table.csv" in shown
            assert '"rows": 2' in shown  # the data part as pretty JSON

            # f walks the file parts; a URI part has nothing to save: it shows the URI.
            await pilot.press("f", "f")
            assert document.selected_file is uri
            assert "report.pdf" in screen_text(app)
            await pilot.press("s")
            await pilot.pause(0.2)
            assert not isinstance(app.screen, SaveFileScreen)
            assert any("https://example.invalid/report.pdf" in n.message for n in said)

            await pilot.press("f")  # wraps around to the first
            assert document.selected_file is inline
            for expected in ("table.csv", "table (1).csv"):
                assert document.selected_file is inline and document.has_focus
                await pilot.press("s")
                await wait_until(pilot, lambda: isinstance(app.screen, SaveFileScreen), 5, "the save prompt")
                screen = app.screen
                assert screen.query_one("#save-name").value == "table.csv"  # no path from the agent
                screen.query_one("#save-dir").value = str(tmp_path)
                await pilot.press("enter")
                await wait_until(pilot, lambda: not isinstance(app.screen, SaveFileScreen), 5, "the save")
                assert (tmp_path / expected).read_bytes() == CSV
            assert sorted(p.name for p in tmp_path.iterdir()) == ["table (1).csv", "table.csv"]
            assert not (tmp_path.parent / "etc").exists()


async def test_s_in_the_artifacts_view_saves_the_only_file_part(tmp_path: Path) -> None:
    one_file = scenario(
        {"artifact": {"parts": [{"file": {"name": "a.bin", "bytes": base64.b64encode(b"\x00\x01").decode()}}]}},
        {"status": "completed"},
    )
    async with MockAgent(one_file, dialect="all") as mock:
        app = InspectorApp(url=mock.url)
        async with app.run_test(size=SIZE) as pilot:
            conn = await ready(pilot)
            artifacts = view(app, ArtifactsView)
            await stream_until(pilot, conn, "x", lambda: len(artifacts.document.file_parts) == 1, "the file part")
            artifacts.document.focus()
            await pilot.press("s")
            await wait_until(pilot, lambda: isinstance(app.screen, SaveFileScreen), 5, "the save prompt")
            app.screen.query_one("#save-dir").value = str(tmp_path / "new")
            await pilot.press("enter")
            await wait_until(pilot, lambda: (tmp_path / "new" / "a.bin").exists(), 5, "the file")
            assert (tmp_path / "new" / "a.bin").read_bytes() == b"\x00\x01"


def test_safe_filenames() -> None:
    assert safe_filename("../../etc/passwd") == "passwd"
    assert safe_filename("..\\..\\boot.ini") == "boot.ini"
    assert safe_filename("/abs/path/x.txt") == "x.txt"
    assert safe_filename(".bashrc") == "bashrc"
    assert safe_filename("..") == "file"
    assert safe_filename(None, "text/csv") == "file.csv"
    assert safe_filename("a\x1b[31mb.txt") == "a_[31mb.txt"
    assert safe_filename("evil\u202etxt.exe") == "evil_txt.exe"
    assert safe_filename("CON.txt") == "_CON.txt"
    long = safe_filename("x" * 300 + ".json")
    assert len(long) == 150 and long.endswith(".json")


def test_write_new_file_never_overwrites(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("mine")
    first = write_new_file(tmp_path, "a.txt", b"1")
    second = write_new_file(tmp_path, "a.txt", b"2")
    assert (first.name, second.name) == ("a (1).txt", "a (2).txt")
    assert (tmp_path / "a.txt").read_text() == "mine"


# --------------------------------------------------------------------- literal text


HOSTILE = "[bold]not bold[/bold] \x1b[31mred\x1b[0m [link=http://x]y[/link]"


async def test_agent_text_with_markup_and_escapes_renders_literally() -> None:
    echo = scenario(
        {"status": "working", "message": HOSTILE},
        {"artifact": {"id": "[b]id", "name": "[red]name", "text": HOSTILE}},
        {"status": "completed", "message": [{"data": {"k": HOSTILE}}]},
    )
    async with MockAgent(echo, dialect="all") as mock:
        app = InspectorApp(url=mock.url)
        async with app.run_test(size=(160, 40)) as pilot:
            conn = await ready(pilot)
            conversation = view(app, Conversation)
            artifacts = view(app, ArtifactsView)
            await stream_until(
                pilot,
                conn,
                HOSTILE,
                lambda: (
                    selected_task(app) is not None
                    and selected_task(app).terminal
                    and artifacts.text_of("[b]id") is not None
                ),
                "the task",
            )
            await wait_until(pilot, lambda: len(conversation.messages) == 3, 5, "three messages")
            literal = "[bold]not bold[/bold] \\x1b[31mred\\x1b[0m [link=http://x]y[/link]"
            you, status, _done = conversation.messages
            assert literal in you.plain and literal in status.plain
            assert "\x1b" not in you.plain + status.plain
            assert artifacts.text_of("[b]id") == literal
            await pilot.pause(0.2)
            shown = screen_text(app)
            assert "\x1b" not in shown
            assert "[bold]not bold[/bold]" in shown
            assert "[red]name" in shown
            assert "\\u001b[31mred" in shown  # inside the data part's JSON
            # Nothing was interpreted as markup: no span styles the agent's words bold.
            head = combined(status.render(), "not bold")
            assert not head.bold


# --------------------------------------------------------------------- many chunks


async def test_2000_fast_chunks_display_quickly() -> None:
    many = scenario(
        {"status": "working"},
        {"chunks": {"id": "big", "text": "chunk {i}\n", "count": 2000}},
        {"status": "completed"},
    )
    expected = "".join(f"chunk {i}\n" for i in range(2000))
    async with MockAgent(many, dialect="all") as mock:
        app = InspectorApp(url=mock.url)
        async with app.run_test(size=SIZE) as pilot:
            conn = await ready(pilot)
            artifacts = view(app, ArtifactsView)
            artifacts.document.focus()
            await pilot.press("t")  # the chunk table is live too
            started = time.monotonic()
            app.send_message(conn, params("go"), stream=True)
            await wait_until(
                pilot,
                lambda: artifacts.text_of("big") == expected and artifacts.chunk_table.row_count == 2000,
                60,
                "2,000 chunks on screen",
            )
            elapsed = time.monotonic() - started
            shown_at = time.time()
            task = selected_task(app)
            assert task is not None and len(task.artifacts["big"].chunks) == 2000
            last = next(e for e in reversed(conn.session.events) if e.seq == task.last_seq)
            print(
                f"\n2,000 chunks: all on screen {elapsed:.2f} s after sending; the stream took "
                f"{task.last_t - task.first_t:.2f} s (mock, client and UI share one event loop); "
                f"on screen {shown_at - last.wall:.2f} s after the last event"
            )
            await pilot.press("t")
            await pilot.pause(0.1)
            assert "chunk 1999" in screen_text(app)  # followed to the end
            assert [b.kind for b in artifacts.document.sections["big"].blocks] == ["text"]
            # Complete, and shown as sent: the view reads the tracker's assembled text.
            assert artifacts.document.sections["big"].blocks[0].body.adopted
            assert artifacts.text_of("big") == task.artifacts["big"].text() == expected


async def test_a_streaming_artifact_text_is_held_once_by_the_tracker_not_the_view() -> None:
    held = scenario(
        {"status": "working"},
        {"artifact": {"id": "big", "text": "piece 0 "}},
        *({"artifact": {"id": "big", "text": f"piece {i} ", "append": True}} for i in range(1, 300)),
        {"hold": "more"},
        {"artifact": {"id": "big", "text": "\ttabbed 0", "append": True}},
        {"artifact": {"id": "big", "text": "\ttabbed 1", "append": True, "last_chunk": True}},
        {"status": "completed"},
    )
    sent = "".join(f"piece {i} " for i in range(300))
    async with MockAgent(held, dialect="all") as mock:
        app = InspectorApp(url=mock.url)
        async with app.run_test(size=SIZE) as pilot:
            conn = await ready(pilot)
            artifacts = view(app, ArtifactsView)
            app.send_message(conn, params("go"), stream=True)
            await wait_until(
                pilot,
                lambda: mock.held("more") == 1 and artifacts.text_of("big") == sent,
                30,
                "300 chunks shown, the agent waiting",
            )
            task = selected_task(app)
            assert task is not None and not task.artifacts["big"].closed
            body = artifacts.document.sections["big"].blocks[0].body
            # Still streaming: the run reads the tracker's text and keeps only its rows.
            assert body.adopted and not body._blocks and not body._open
            # The text is in the view before the next frame paints it.
            await wait_until(pilot, lambda: "piece 299" in screen_text(app), 10, "piece 299 on screen")
            mock.release("more")
            # A tab is shown as spaces, not as sent: from then on the run keeps a copy.
            shown = sent + "".join(f"{TAB}tabbed {i}" for i in range(2))
            await wait_until(pilot, lambda: artifacts.text_of("big") == shown, 30, "the tabbed chunks shown")
            assert not body.adopted
            assert task.artifacts["big"].text() == sent + "".join(f"\ttabbed {i}" for i in range(2))


async def test_the_chunk_table_lists_interleaved_artifacts_in_arrival_order_as_runs() -> None:
    from test_tracker import Script, chunk, send, status

    s = Script("0.3")
    ex, _ = s.stream(send("go"), status("t", "working"))
    order: list[tuple[str, str]] = []

    def arrive(aid: str, i: int, **flags: Any) -> None:
        s.event(ex, chunk("t", aid, f"{aid}{i} ", append=i > 0 or None, **flags))
        order.append((aid, f"{aid}{i} "))

    for i in range(300):  # a run of one artifact, then both in turns, then runs again
        arrive("a", i)
    async with InspectorApp().run_test(size=SIZE) as pilot:
        app = pilot.app
        conn = AgentConnection("http://127.0.0.1:9/", session=s.session, read_only=True)
        app.open_connection(conn)
        app.select_task("t")
        app.action_view("task")
        artifacts = view(app, ArtifactsView)
        artifacts.document.focus()
        await pilot.press("t")
        table = artifacts.chunk_table
        await wait_until(pilot, lambda: table.row_count == 300, 5, "300 rows")
        for i in range(300, 320):
            arrive("a", i)
            arrive("b", i - 300)
        for i in range(20, 50):
            arrive("b", i)
        for i in range(320, 330):
            arrive("a", i)
        app.call_later(artifacts._sync)  # as a frame would, after all of them arrived at once
        await wait_until(pilot, lambda: table.row_count == len(order), 5, "every chunk")
        rows = [table.cells(i) for i in range(table.row_count)]
        assert [(r[1], r[4]) for r in rows] == [(aid, str(len(text))) for aid, text in order]
        assert [r[0] for r in rows] == [str(i + 1) for i in range(len(order))]
        assert [table.chunk(i).parts[0].text for i in range(len(order))] == [text for _, text in order]
        # Runs: a0-a300, then one per turn (b0, a301, ... b19; b20-b49 go on b19's),
        # then a320-a329.
        assert len(table._run_keys) == 1 + 39 + 1
        assert table.cursor_row == len(order) - 1  # it followed the newest row


async def test_an_artifact_shown_again_shows_what_it_showed_while_it_arrived() -> None:
    from test_tracker import Script, chunk, send, status

    s = Script("0.3")
    ex, _ = s.stream(send("go"), status("t", "working"))
    s.event(ex, chunk("t", "a", "first line\n"))
    for i in range(3000):
        s.event(ex, chunk("t", "a", f"chunk {i} of a long line " + ("\n" if i % 7 == 0 else ""), append=True))
    s.event(
        ex,
        {
            "kind": "artifact-update",
            "taskId": "t",
            "contextId": "c1",
            "append": True,
            "artifact": {"artifactId": "a", "parts": [{"kind": "data", "data": {"k": [1, 2]}}]},
        },
    )
    s.event(ex, chunk("t", "a", "after the data\tpart \x1b[1m", append=True, last=True))
    async with InspectorApp().run_test(size=SIZE) as pilot:
        app = pilot.app
        conn = AgentConnection("http://127.0.0.1:9/", session=s.session, read_only=True)
        app.open_connection(conn)
        app.select_task("t")
        app.action_view("task")
        artifacts = view(app, ArtifactsView)
        document = artifacts.document
        await wait_until(
            pilot, lambda: "a" in document.sections and len(document.sections["a"].blocks) == 3, 5, "the artifact"
        )
        shown = (document.plain, document.row_count, [b.kind for b in document.sections["a"].blocks])
        document.clear()
        document.sync(conn.tracker.task("t"))
        assert (document.plain, document.row_count, [b.kind for b in document.sections["a"].blocks]) == shown
        assert shown[2] == ["text", "data", "text"]
        assert document.plain.endswith("after the data    part \\x1b[1m")


async def test_the_artifact_view_keeps_the_end_in_sight_when_it_gets_shorter() -> None:
    """Following the end of a long artifact, the view gets shorter with no new text (a
    cap on its height here; the state diagram above growing a row does the same): the
    last piece stays on screen. Seen: under load all the chunks came in one frame, the
    diagram grew after, and the end was left below the view."""
    texts = [f"piece {i} " for i in range(300)]
    long = scenario({"status": "working"}, {"chunks": {"id": "big", "texts": texts}}, {"status": "completed"})
    async with MockAgent(long, dialect="all") as mock:
        app = InspectorApp(url=mock.url)
        async with app.run_test(size=SIZE) as pilot:
            conn = await ready(pilot)
            artifacts = view(app, ArtifactsView)
            app.send_message(conn, params("go"), stream=True)
            await wait_until(pilot, lambda: artifacts.text_of("big") == "".join(texts), 30, "300 chunks shown")
            await wait_until(pilot, lambda: "piece 299" in screen_text(app), 10, "the end on screen")
            document = artifacts.document
            before = document.max_scroll_y
            document.styles.max_height = document.size.height - 5
            await wait_until(pilot, lambda: document.max_scroll_y > before, 10, "a shorter view")
            await wait_until(pilot, lambda: "piece 299" in screen_text(app), 10, "the end still on screen")
            assert document.scroll_y == document.max_scroll_y


# --------------------------------------------------------------------- pieces


def test_wrap_rows_is_stable_under_appends() -> None:
    import random

    rng = random.Random(7)
    for _ in range(300):
        line = "".join(rng.choice("ab  cdé日") for _ in range(rng.randint(0, 120)))
        width = rng.randint(1, 16)
        whole = wrap_rows(line, 0, width)
        cut = rng.randint(0, len(line))
        part = wrap_rows(line[:cut], 0, width)
        assert part[:-1] + wrap_rows(line, part[-1][0], width) == whole


def test_wrap_rows_matches_a_cell_by_cell_wrap() -> None:
    # Rows of narrow text (accents, curly quotes, dashes, Cyrillic) are found by
    # offsets, others cell by cell; both must break where measuring every cell would.
    import random

    from rich.cells import cell_len

    def by_cells(line: str, width: int) -> list[tuple[int, int]]:
        rows, pos = [], 0
        while cell_len(line[pos:]) > width:
            end = pos
            while cell_len(line[pos : end + 1]) <= width:
                end += 1
            if end == pos:  # a glyph wider than the width takes a row of its own
                rows.append((pos, pos + 1))
                pos += 1
                continue
            space = line.rfind(" ", pos + 1, end + 1)
            if line[end] == " ":
                rows.append((pos, end))
                pos = end + 1
            elif space > pos:
                rows.append((pos, space))
                pos = space + 1
            else:
                rows.append((pos, end))
                pos = end
        rows.append((pos, len(line)))
        return rows

    rng = random.Random(11)
    for _ in range(600):
        line = "".join(
            rng.choice(["ab", " ", "é", "“q”", "—", "жи", "…", "→", "日", "e\u0301"]) for _ in range(rng.randint(0, 60))
        )
        width = rng.randint(1, 16)
        assert wrap_rows(line, 0, width) == by_cells(line, width), (line, width)
    # A wide glyph anywhere after the start sends the line to the cell-by-cell path.
    assert wrap_rows("ab日cd", 0, 3) == [(0, 2), (2, 4), (4, 5)]


def test_wrapped_text_makes_escapes_visible_and_appends_in_place() -> None:
    text = WrappedText()
    text.append("a\x1b[31mb\tc\nnext")
    assert text.text == "a\\x1b[31mb    c\nnext"
    assert text.wrap(6) == 4  # "a\x1b[", "31mb  ", " c", "next": one space goes per break
    text.append(" word and more")
    rows = [text.row(i) for i in range(text.wrap(6))]
    assert rows[-4:] == ["next", "word", "and", "more"]


async def test_a_narrow_diagram_falls_back_to_a_path_line() -> None:
    async with MockAgent("echo", dialect="all") as mock:
        app = InspectorApp(url=mock.url)
        async with app.run_test(size=(90, 30)) as pilot:
            conn = await ready(pilot)
            diagram = view(app, StateDiagram)
            # The layout keeps the column wide enough for the drawing (min-width): squeeze it.
            column = app.screen.query_one("#task-right")
            column.styles.min_width = 0
            column.styles.width = 24
            await stream_until(
                pilot, conn, "hi", lambda: selected_task(app) is not None and selected_task(app).terminal, "the task"
            )
            await wait_until(
                pilot, lambda: "submitted → working → completed" in diagram.render().plain, 5, "the path line"
            )
            assert "╭" not in diagram.render().plain
