"""The command palette (every action, hiding what cannot apply) and themes (shipped,
user, broken files, switching and persisting, ``$state-*`` in every theme)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from textual import events
from textual.color import Color
from textual.command import CommandInput, CommandList, CommandPalette
from textual.content import Content

from inspector import store
from inspector.session import Session
from inspector.textsafe import visible
from inspector.ui.app import InspectorApp
from inspector.ui.commands import InspectorCommands, literal_markup
from inspector.ui.connection import AgentConnection
from inspector.ui.themes import STATES, load_theme_file, shipped_theme_files
from inspector.ui.widgets.push_panel import PushPanel
from inspector.ui.widgets.traffic_list import TrafficList
from mock_agent import MockAgent
from ui_helpers import record_notifications, wait_until

SHIPPED = ("a2a-dark", "a2a-light", "a2a-high-contrast")


def provider(app: Any) -> InspectorCommands:
    return InspectorCommands(app.screen)


def names(app: Any) -> list[str]:
    return [c.name for c in provider(app).commands()]


async def run_from_palette(pilot: Any, query: str) -> None:
    """ctrl+p, type ``query`` (its first letter, then the rest pasted: each key would
    search and lay out the hits once more), pick the first hit."""
    app = pilot.app
    await pilot.press("ctrl+p")
    await wait_until(pilot, lambda: CommandPalette.is_open(app), 5, "palette open")
    await pilot.press(query[0])
    app.screen.query_one(CommandInput).post_message(events.Paste(query[1:]))
    await wait_until(pilot, lambda: app.screen.query_one(CommandList).option_count > 0, 5, f"hits for {query!r}")
    await pilot.press("down", "enter")
    await wait_until(pilot, lambda: not CommandPalette.is_open(app), 5, "palette closed")
    await pilot.pause()


# ---------------------------------------------------------------------- palette


#: What markup is made of, so that most examples hold tags, escapes and their mixes.
_MARKUP_BITS = st.sampled_from(
    ["[", "]", "\\", "/", "@", "=", "$", "#", "b", "B", " ", "link", "click", "bold red", "on", ":", "\x1b", "\u202e"]
)


@given(st.lists(_MARKUP_BITS | st.text(max_size=3), max_size=12).map("".join))
def test_command_help_is_shown_as_written(text: str) -> None:
    # The palette parses help as Textual markup; what it shows must be the text itself
    # (its control characters made visible), whatever brackets and backslashes it holds.
    assert Content.from_markup(literal_markup(text)).plain == visible(text, single_line=True)


async def test_palette_offers_what_applies_and_hides_the_rest() -> None:
    async with InspectorApp().run_test(size=(120, 36)) as pilot:
        app = pilot.app
        idle = names(app)
        for expected in (
            "Connect to an agent URL…",
            "Show card view",
            "Show task view",
            "Show tasks view",
            "Show traffic view",
            "Show push view",
            "Error details",
            "Help: keys",
            "Quit a2a-inspect",
        ):
            assert expected in idle
        # No agent: nothing that needs one.
        assert not any(
            n.startswith(
                ("Send", "Start the push", "Switch dialect", "Start recording", "Get the selected", "Save the active")
            )
            for n in idle
        )
        # A widget without the action, or no such widget: the command is not offered.
        cmds = provider(app)
        assert list(cmds._widget_command("x", "", "#no-such-widget", "send")) == []
        assert list(cmds._widget_command("x", "", "#push-panel", "no_such_action")) == []
        assert list(cmds._app_command("x", "", "no_such_action")) == []


async def test_palette_commands_for_a_live_agent_run_their_actions() -> None:
    async with MockAgent("echo", dialect="all") as mock:
        app = InspectorApp(url=mock.url)
        async with app.run_test(size=(120, 36)) as pilot:
            await wait_until(pilot, lambda: app.active is not None and app.active.state == "ready", 10, "connected")
            conn = app.active
            live = names(app)
            for expected in (
                "Start the push receiver",
                "Register the push receiver for the selected task",
                "Switch dialect to 0.3",
                "Start recording",
                "Filter traffic",
                "Copy the selected event's body",
            ):
                assert expected in live, expected
            assert not any(n.startswith("Get the selected task") for n in live)  # no task selected yet
            app.select_task("some-task")
            # Named as the active dialect spells them (the mock speaks 1.0 here).
            assert conn.dialect_name == "1.0"
            assert {
                "Get the selected task (GetTask)",
                "Cancel the selected task (CancelTask)",
                "Resubscribe to the selected task (SubscribeToTask)",
            } <= set(names(app))
            app.select_task(None)

            await run_from_palette(pilot, "show traffic view")
            assert app.screen.query_one("#views").active == "traffic"

            await run_from_palette(pilot, "start the push receiver")
            panel = app.screen.query_one(PushPanel)
            await wait_until(pilot, lambda: panel.receiver is not None and panel.receiver.running, 10, "receiver")
            assert app.screen.query_one("#views").active == "push"
            assert "Stop the push receiver" in names(app)

            await run_from_palette(pilot, "switch dialect to 0.3")
            await wait_until(pilot, lambda: conn.dialect_name == "0.3", 10, "dialect 0.3")

            await run_from_palette(pilot, "start recording")
            await wait_until(pilot, lambda: conn.recording is not None, 5, "recording")
            assert "Stop recording" in names(app)


async def test_an_ended_task_is_not_offered_cancel_or_resubscribe_and_0_3_names_its_methods() -> None:
    async with MockAgent("echo", dialect="all") as mock:
        app = InspectorApp(url=mock.url, dialect="0.3")
        async with app.run_test(size=(120, 36)) as pilot:
            await wait_until(pilot, lambda: app.active is not None and app.active.state == "ready", 10, "connected")
            conn = app.active
            await pilot.press(*"hi", "ctrl+s")
            await wait_until(
                pilot, lambda: app.task_id is not None and conn.tracker.task(app.task_id).terminal, 10, "the task done"
            )
            listed = names(app)
            assert "Get the selected task (tasks/get)" in listed
            assert not any(n.startswith(("Cancel the selected", "Resubscribe")) for n in listed), listed
            assert any(n.startswith("Send the composed message (message/send / message/stream)") for n in listed)


async def test_recording_has_no_live_commands() -> None:
    async with InspectorApp().run_test(size=(120, 36)) as pilot:
        app = pilot.app
        app.open_connection(AgentConnection("http://127.0.0.1:9/", session=Session(), read_only=True))
        await pilot.pause()
        listed = names(app)
        assert "Filter traffic" in listed
        assert not any(n.startswith(("Start the push", "Switch dialect", "Start recording", "Send")) for n in listed)


# ---------------------------------------------------------------------- themes


def write_theme(name: str, text: str) -> None:
    folder = store.themes_dir()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text, encoding="utf-8")


def test_shipped_theme_files_load_with_every_state() -> None:
    files = shipped_theme_files()
    assert sorted(p.stem for p in files) == sorted(SHIPPED)
    for path in files:
        theme = load_theme_file(path)
        assert {f"state-{s}" for s in STATES} <= set(theme.variables), path.name


async def test_shipped_themes_register_and_the_default_applies() -> None:
    app = InspectorApp()
    said = record_notifications(app)
    async with app.run_test(size=(120, 36)):
        assert set(SHIPPED) <= set(app.available_themes)
        assert app.theme == "a2a-dark"
        assert said == []  # no problems


async def test_state_variables_resolve_in_every_theme() -> None:
    async with InspectorApp().run_test(size=(120, 36)) as pilot:
        app = pilot.app
        # The hidden tabs' views mount just after the first frame.
        lst = await wait_until(pilot, lambda: next(iter(app.screen.query(TrafficList)), None), 5, "the traffic list")
        # Ours, and every other registered theme (Textual's own have no states: they borrow).
        for name in [*SHIPPED, *sorted(set(app.available_themes) - set(SHIPPED))]:
            app.theme = name
            await pilot.pause()
            variables = app.get_css_variables()
            for state in STATES:
                value = variables[f"state-{state}"]
                assert not value.startswith("$"), (name, state, value)
                Color.parse(value.split()[0])  # a real colour (CSS may add an alpha: "ansi_default 50%")
            lst._styles.clear()
            got = lst.get_component_rich_style("traffic-list--state-working", partial=True).color
            assert got is not None, name
            if not name.startswith("ansi"):
                expected = Color.parse(variables["state-working"].split()[0])
                assert Color.from_rich_color(got).hex[:7] == expected.hex[:7], name
        assert app.is_running


async def test_user_theme_is_picked_up_and_borrows_state_colours() -> None:
    write_theme("mine.yaml", "name: mine\nprimary: '#FF0000'\naccent: '#00FF00'\n")
    async with InspectorApp().run_test(size=(120, 36)) as pilot:
        app = pilot.app
        assert "mine" in app.available_themes
        app.theme = "mine"
        await pilot.pause()
        assert app.get_css_variables()["state-working"].upper().startswith("#00FF00")


@pytest.mark.parametrize(
    "filename, text, words",
    [
        ("broken.yaml", "name: broken\nprimary: [unclosed\n", ["broken.yaml", "line", "YAML"]),
        ("colour.yaml", "name: colour\nprimary: '#12345'\nsecondary: not-a-colour\n", ["colour.yaml", "primary"]),
        (
            "state.yaml",
            "name: state\nprimary: '#123456'\nstates:\n  sleeping: '#ffffff'\n",
            ["state.yaml", "states", "sleeping"],
        ),
        (
            "state-colour.yaml",
            "name: sc\nprimary: '#123456'\nstates:\n  working: nope\n",
            ["state-colour.yaml", "states", "nope"],
        ),
    ],
)
async def test_a_bad_theme_file_is_one_notification_naming_file_and_field(
    filename: str, text: str, words: list[str]
) -> None:
    write_theme(filename, text)
    write_theme("fine.yaml", "name: fine\nprimary: '#336699'\n")
    app = InspectorApp()
    notes = record_notifications(app)
    async with app.run_test(size=(120, 36)):
        assert len(notes) == 1, notes
        assert all(word in notes[0] for word in words), notes[0]
        assert "fine" in app.available_themes and app.is_running


async def test_a_broken_theme_is_a_toast_once_per_version_of_the_file_and_always_in_ctrl_e() -> None:
    write_theme("broken.yaml", "name: broken\nprimary: [unclosed\n")

    async def start() -> tuple[list[str], list[str]]:
        app = InspectorApp()
        toasts = record_notifications(app)
        async with app.run_test(size=(120, 36)):
            return toasts, [detail for _, _, detail in app.errors]

    toasts, errors = await start()
    assert len(toasts) == 1 and "broken.yaml" in toasts[0] and "said once" in toasts[0], toasts
    assert len(errors) == 1 and "broken.yaml" in errors[0]
    # The next start: no toast about the same file; ctrl+e still has it.
    toasts, errors = await start()
    assert toasts == [] and len(errors) == 1 and "broken.yaml" in errors[0], (toasts, errors)
    # The file changed and is still broken: said again, once.
    write_theme("broken.yaml", "name: broken\nprimary: '#12'\n")
    toasts, _ = await start()
    assert len(toasts) == 1 and "broken.yaml" in toasts[0], toasts
    toasts, _ = await start()
    assert toasts == []


async def test_theme_switched_from_the_palette_persists_across_a_restart() -> None:
    async with InspectorApp().run_test(size=(120, 36)) as pilot:
        app = pilot.app
        await pilot.press("ctrl+p")
        await wait_until(pilot, lambda: CommandPalette.is_open(app), 5, "palette open")
        await pilot.press(*"theme")
        hits = app.screen.query_one(CommandList)
        await wait_until(pilot, lambda: hits.option_count > 0, 5, "hits for theme")
        await pilot.pause(0.3)  # every provider has answered
        # One command for themes: the picker, which lists each theme once.
        prompts = [str(hits.get_option_at_index(i).prompt) for i in range(hits.option_count)]
        assert len([p for p in prompts if "theme" in p.lower()]) == 1, prompts
        await pilot.press("enter")
        await wait_until(
            pilot,
            lambda: (
                CommandPalette.is_open(app)
                and "a2a-light"
                in [
                    str(app.screen.query_one(CommandList).get_option_at_index(i).prompt).split("\n")[0]
                    for i in range(app.screen.query_one(CommandList).option_count)
                ]
            ),
            5,
            "the theme picker",
        )
        picker = app.screen.query_one(CommandList)
        listed = [str(picker.get_option_at_index(i).prompt).split("\n")[0] for i in range(picker.option_count)]
        assert len(listed) == len(set(listed)), listed
        await pilot.press(*"a2a-light")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.theme == "a2a-light", 5, "the light theme")
    saved = json.loads((store.config_dir() / "settings.json").read_text(encoding="utf-8"))
    assert saved["theme"] == "a2a-light"
    async with InspectorApp().run_test(size=(120, 36)) as pilot:
        assert pilot.app.theme == "a2a-light"
        pilot.app.theme = "a2a-high-contrast"
        await pilot.pause()
    settings, problem = store.load_settings()
    assert problem is None and settings.theme == "a2a-high-contrast"
