"""Invisible format characters in agent text (zero-width space, BOM, word joiner, tag
characters...) are shown as escapes, like the bidi overrides, in the CLI and the TUI;
a zero-width joiner inside an emoji sequence stays, since it is seen as the joined emoji."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import unicodedata
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

import hostile
from cli_helpers import Cli, cli  # noqa: F401 (fixture)
from inspector.headless.output import _json_text
from inspector.serving.runner import BackgroundServer
from inspector.textsafe import visible
from inspector.ui.app import InspectorApp
from mock_agent import MockAgent
from test_ui_traffic import filter_to, streamed
from ui_helpers import screen_text

TECHNOLOGIST = "\U0001f469\u200d\U0001f4bb"  # woman, ZWJ, laptop: one emoji
HIDDEN = "pay\u200bpal \ufeffbom w\u2060j ta\U000e0041g soft\xadhy zw\u200cnj x\u200dy"
HIDDEN_SHOWN = "pay\\u200bpal \\ufeffbom w\\u2060j ta\\U000e0041g soft\\xadhy zw\\u200cnj x\\u200dy"
RAW = ("\u200b", "\ufeff", "\u2060", "\U000e0041", "\xad", "\u200c")


@pytest.mark.parametrize(
    "ch",
    [
        "\u200b",
        "\u200c",
        "\u200d",
        "\ufeff",
        "\u2060",
        "\u2061",
        "\u2062",
        "\u2063",
        "\u2064",
        "\u180e",
        "\xad",
        "\u206a",
        "\u206f",
        "\ufff9",
        "\U0001d173",
        "\U000e0001",
        "\U000e0020",
        "\U000e007f",
        "\U0001bca0",
        "\U00013430",
    ],
)
def test_each_invisible_format_character_is_escaped(ch: str) -> None:
    shown = visible(f"a{ch}b")
    assert ch not in shown
    code = ord(ch)
    escape = f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"
    assert shown == f"a{escape}b"
    assert visible(shown) == shown  # idempotent


def test_every_invisible_cf_character_is_escaped_and_the_visible_ones_stay() -> None:
    # The Cf characters that render (prepended concatenation marks) are not hidden text.
    renders = {0x600, 0x601, 0x602, 0x603, 0x604, 0x605, 0x6DD, 0x70F, 0x890, 0x891, 0x8E2, 0x110BD, 0x110CD}
    for code in range(sys.maxunicode + 1):
        ch = chr(code)
        if unicodedata.category(ch) != "Cf":
            continue
        if code in renders:
            assert visible(ch) == ch, hex(code)
        else:
            assert ch not in visible(ch), hex(code)


# Format controls that Unicode 15 added (Egyptian hieroglyphs): Python 3.11's own
# Unicode 14 does not know them, 3.12's does; they are escaped on every Python.
@pytest.mark.parametrize("ch", [chr(code) for code in range(0x13439, 0x13440)])
def test_format_characters_newer_than_this_python_are_escaped(ch: str) -> None:
    assert visible(f"a{ch}b") == f"a\\U{ord(ch):08x}b"
    assert ch not in _json_text(json.dumps({"t": ch}, ensure_ascii=False))


def _other_pythons() -> list[str]:
    """Other CPython 3.x interpreters on this machine (PATH, pyenv), by their own version."""
    found: dict[str, str] = {}
    roots = [Path(p) for p in os.environ.get("PATH", "").split(os.pathsep) if p]
    roots += sorted(Path.home().glob(".pyenv/versions/3.*/bin"))
    for root in roots:
        for exe in sorted(root.glob("python3.1[0-9]")):
            if exe.is_file() and os.access(exe, os.X_OK):
                found.setdefault(exe.name, str(exe))
    return [exe for name, exe in sorted(found.items()) if name != f"python3.{sys.version_info.minor}"]


def test_every_format_character_any_python_knows_is_escaped() -> None:
    """What each Python's unicodedata calls a format character or a line/paragraph
    separator is escaped here, whichever Python runs the app (the set does not depend
    on the running Python's Unicode version)."""
    renders = {
        0x600,
        0x601,
        0x602,
        0x603,
        0x604,
        0x605,
        0x6DD,
        0x70F,
        0x890,
        0x891,
        0x8E2,
        0x110BD,
        0x110CD,
        0x200D,
    }  # the joiner: its own tests above
    script = (
        "import sys, unicodedata; print(unicodedata.unidata_version); print(' '.join(str(c) for c in "
        "range(sys.maxunicode + 1) if unicodedata.category(chr(c)) in ('Cf', 'Zl', 'Zp')))"
    )
    pythons = [sys.executable, *_other_pythons()]
    versions = []
    for exe in pythons:
        done = subprocess.run([exe, "-c", script], capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            continue  # a broken interpreter on PATH is not ours to judge
        version, codes = done.stdout.splitlines()
        versions.append(version)
        for code in map(int, codes.split()):
            if code not in renders:
                assert chr(code) not in visible(chr(code)), (exe, version, hex(code))
    assert versions, pythons


@pytest.mark.parametrize(
    "emoji",
    [
        TECHNOLOGIST,
        "\U0001f468\u200d\U0001f469\u200d\U0001f467",  # family
        "\U0001f3f3\ufe0f\u200d\U0001f308",  # rainbow flag: VS16 before the joiner
        "\u2764\ufe0f\u200d\U0001f525",  # heart on fire
        "\U0001f3c3\U0001f3fd\u200d\u2642\ufe0f",  # runner, skin tone, male sign
    ],
)
def test_a_joiner_inside_an_emoji_sequence_stays(emoji: str) -> None:
    assert visible(emoji) == emoji
    assert visible(f"see {emoji}!", single_line=True) == f"see {emoji}!"


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("x\u200dy", "x\\u200dy"),  # between letters
        ("\U0001f469\u200d", "\U0001f469\\u200d"),  # dangling after a pictograph
        ("\u200d\U0001f4bb", "\\u200d\U0001f4bb"),  # leading
        ("\U0001f469\u200d\u200d\U0001f4bb", "\U0001f469\\u200d\\u200d\U0001f4bb"),  # doubled
    ],
)
def test_a_joiner_outside_an_emoji_sequence_is_escaped(raw: str, shown: str) -> None:
    assert visible(raw) == shown


def test_json_output_escapes_them_and_keeps_the_value() -> None:
    text = _json_text(json.dumps(HIDDEN + TECHNOLOGIST, ensure_ascii=False))
    for raw in (*RAW, "\u200d"):
        assert raw not in text
    assert "\\udb40\\udc41" in text  # a tag character, as its UTF-16 surrogate pair
    assert json.loads(text) == HIDDEN + TECHNOLOGIST


# ------------------------------------------------------------------------ CLI


def hidden_app() -> Starlette:
    async def endpoint(request: Request) -> Response:
        rid = json.loads(await request.body()).get("id")
        return hostile.json_response(hostile.ok(rid, hostile.task("completed", text=HIDDEN + " " + TECHNOLOGIST)))

    return Starlette(routes=[Route("/a2a", endpoint, methods=["POST"])])


@pytest.fixture(scope="module")
def hidden_agent() -> Iterator[str]:
    with BackgroundServer(hidden_app()) as srv:
        yield srv.url


@pytest.mark.parametrize("output", ["text", "json", "ndjson"])
def test_cli_shows_invisible_characters(cli: Cli, hidden_agent: str, output: str) -> None:
    r = cli("send", f"{hidden_agent}/a2a", "hi", "--dialect", "0.3", "--output", output)
    assert r.code == 0, r
    for raw in RAW:
        assert raw not in r.out, (raw, r)
    if output == "text":
        assert f"message  {HIDDEN_SHOWN} {TECHNOLOGIST}" in r.out.splitlines(), r
    else:
        doc = r.json() if output == "json" else r.ndjson()[0]
        message = doc["task"]["statusMessage"] if output == "json" else doc["status"]["message"]
        assert message["parts"][0]["text"] == HIDDEN + " " + TECHNOLOGIST


# ------------------------------------------------------------------------ TUI


async def test_tui_shows_invisible_characters() -> None:
    async with MockAgent("echo", dialect="all") as mock:
        app = InspectorApp(url=mock.url)
        async with app.run_test(size=(200, 50)) as pilot:
            _conn, view = await streamed(pilot, HIDDEN)
            await filter_to(pilot, view, "kind:sse echo:")
            text = screen_text(app)
            for raw in RAW:
                assert raw not in text, raw
            assert HIDDEN_SHOWN in text
            app.action_view("task")
            await pilot.pause()
            text = screen_text(app)
            for raw in RAW:
                assert raw not in text, raw
            assert "pay\\u200bpal" in text
