"""Snapshot tests: every main screen at 120x36, and the main ones at 80x24 (the usual
terminal: sidebar hidden, compact task view) and 200x50, from the deterministic demo.

tests/snapshot_app.py drives the real app against the embedded mock (the demo scenario,
ids, clocks and time zone pinned) through an echo, a question answered on its task, a
scripted JSON-RPC error, and a streamed story that ends in a question. Then each screen
of ``SCREENS`` is shown and exported as SVG, and compared with its baseline in
``__snapshots__/test_snapshots/``. scripts/screenshots.py makes the README's pictures
from the same session.

The modals (agent form new and edit, JSON editor, file picker, errors) are opened over
the same session; the replay (of tests/fixtures/recordings/demo.jsonl), the proxy
(its traffic, and its fault rules) and the hub are apps of their own, driven once per
size.

The sessions are played once per size, not once per screen (``snap_compare`` would
run the app again for each screen), each size on a worker of its own. The comparison
is the one ``snap_compare`` makes (pytest-textual-snapshot's SVG extension for syrupy),
and a mismatch lands in its HTML report (``snapshot_report.html``) the same way.

After a deliberate UI change: ``pytest tests/test_snapshots.py --snapshot-update``, then
look at the new SVGs (or run scripts/screenshots.py and look at the PNGs) before
committing them.
"""

from __future__ import annotations

import asyncio
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pytest_textual_snapshot import SVGImageExtension

from snapshot_app import (
    MODALS,
    PROXY_SCREENS,
    SCREENS,
    SIZE,
    deterministic,
    hub_screenshot,
    in_process_hub,
    in_process_proxy,
    make_app,
    make_hub_app,
    make_proxy_app,
    make_replay_app,
    proxy_screenshots,
    screenshots,
    show_replay,
)

#: Other sizes, and the screens taken at each (named "screen@WxH").
SIZED = {
    (80, 24): ("task", "card", "tasks", "traffic", "push", "help", "split", *MODALS),
    (200, 50): ("task", "card", "tasks", "traffic", "push", "split", *MODALS),
}
#: Screens of other apps than the demo's, at every size: the replay of the demo's
#: recording (tests/fixtures/recordings/demo.jsonl); the proxy's traffic and its fault
#: rules (F10), two clients having called it (snapshot_app.drive_proxy); the hub's
#: frames, a ws-agent having streamed a story (snapshot_app.hub_screenshot).
OTHERS = ("replay", *PROXY_SCREENS, "hub")
SIZED_SCREENS = [f"{screen}@{w}x{h}" for (w, h), screens in SIZED.items() for screen in (*screens, *OTHERS)]
#: The demo's screens at each size.
DEMO_SCREENS = {SIZE: SCREENS + MODALS, **SIZED}


def _size(screen: str) -> tuple[int, int]:
    """The size a screen's snapshot is taken at ("card@80x24": 80x24; "card": SIZE)."""
    _, _, size = screen.partition("@")
    if not size:
        return SIZE
    width, height = size.split("x")
    return int(width), int(height)


def _at_its_size(screen: str) -> Any:
    """``screen`` as a parameter in its size's group: one worker (pyproject's --dist
    loadgroup) takes a size's screens and plays that size's sessions once; the three
    sizes go to three workers (~8 s of CPU each, where one worker took all ~25 s)."""
    width, height = _size(screen)
    return pytest.param(screen, marks=pytest.mark.xdist_group(f"snapshots-{width}x{height}"))


async def _capture(size: tuple[int, int]) -> dict[str, str]:
    """Every snapshot at ``size``: the demo's screens, then the replay's, the proxy's
    and the hub's."""
    with deterministic():
        app = make_app()
        async with app.run_test(size=size) as pilot:
            shots = await screenshots(pilot, DEMO_SCREENS[size])
    with deterministic():
        app = make_replay_app()
        async with app.run_test(size=size) as pilot:
            shots["replay"] = await show_replay(pilot)
    with deterministic(), in_process_proxy():
        app = make_proxy_app()
        async with app.run_test(size=size) as pilot:
            shots.update(await proxy_screenshots(pilot))
    with deterministic(), in_process_hub():
        app = make_hub_app()
        async with app.run_test(size=size) as pilot:
            shots["hub"] = await hub_screenshot(pilot)
    suffix = "" if size == SIZE else f"@{size[0]}x{size[1]}"
    return {f"{name}{suffix}": svg for name, svg in shots.items()}


@pytest.fixture(scope="module")
def svgs(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], str]:
    """A screen's SVG; the sessions of its size are played the first time one is asked for."""
    captured: dict[tuple[int, int], dict[str, str]] = {}

    def svg(screen: str) -> str:
        size = _size(screen)
        if size not in captured:
            # Its own config dirs, as the same for every size: the autouse XDG fixture
            # is the asking test's (user themes would otherwise reach the palette).
            root = tmp_path_factory.mktemp("snapshot-xdg")
            with pytest.MonkeyPatch.context() as mp:
                for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"):
                    mp.setenv(name, str(root / name.lower()))
                captured[size] = asyncio.run(_capture(size))
        return captured[size][screen]

    return svg


def _report(request: pytest.FixtureRequest, snapshot: Any, passed: bool, actual: str) -> None:
    """Hand the result to pytest-textual-snapshot's HTML report, as snap_compare does."""
    try:
        from pytest_textual_snapshot import PseudoApp, PseudoConsole, node_to_report_path
        from rich.console import Console
    except ImportError:  # another plugin version: the assertion still fails with a diff
        return
    console = Console(legacy_windows=False, force_terminal=True)
    index = snapshot.num_executions - 1
    result = snapshot.executions.get(index)
    exists = bool(result and result.final_data is not None)
    path, line, name = request.node.reportinfo()
    data = (
        passed,
        str(snapshot),
        actual,
        PseudoApp(PseudoConsole(console.legacy_windows, console.size)),
        path,
        line,
        name,
        "",
        "",
        exists,
    )
    node_to_report_path(request.node).write_bytes(pickle.dumps(data))


@pytest.mark.parametrize("screen", [_at_its_size(s) for s in (*SCREENS, *MODALS, *OTHERS, *SIZED_SCREENS)])
def test_screen(screen: str, svgs: Callable[[str], str], snapshot: Any, request: pytest.FixtureRequest) -> None:
    """task: a streamed story with its two artifacts and the question that follows;
    card; tasks; traffic with the question's SSE event in the detail pane; push; help (F1);
    the command palette with "task" typed; light: the task view in the a2a-light theme."""
    snapshot = snapshot.use_extension(SVGImageExtension)
    actual = svgs(screen)
    passed = snapshot == actual
    _report(request, snapshot, passed, actual)
    assert passed, f"the {screen} screen changed: see snapshot_report.html"


#: The README's pictures (screenshots/NAME.svg, made by scripts/screenshots.py), each
#: from the same state as a snapshot: name -> that snapshot's screen. check.svg has none.
README_PICTURES = {
    "task": "task",
    "card": "card",
    "tasks": "tasks",
    "traffic": "traffic",
    "push": "push",
    "help": "help",
    "palette": "palette",
    "task-light": "light",
    "split": "split",
    "proxy": "proxy",
}


@pytest.mark.parametrize("picture", README_PICTURES)
def test_the_readme_picture_is_the_snapshot(picture: str) -> None:
    """A picture the README shows is what the snapshot of its screen holds: a UI change
    that updates the snapshots and forgets scripts/screenshots.py fails here (the PNG is
    made from the SVG by the same run)."""
    from pytest_textual_snapshot import normalize_svg

    root = Path(__file__).resolve().parents[1]
    shown = root / "screenshots" / f"{picture}.svg"
    baseline = root / "tests" / "__snapshots__" / "test_snapshots" / f"test_screen[{README_PICTURES[picture]}].svg"
    assert normalize_svg(shown.read_text(encoding="utf-8")) == normalize_svg(baseline.read_text(encoding="utf-8")), (
        f"screenshots/{picture}.svg is not the {README_PICTURES[picture]} snapshot: run scripts/screenshots.py"
    )
