#!/usr/bin/env python3
"""Regenerate screenshots/: each main screen of a2a-inspect, from the deterministic demo.

    .venv/bin/python scripts/screenshots.py              # every screen
    .venv/bin/python scripts/screenshots.py task traffic # some of them
    .venv/bin/python scripts/screenshots.py --no-png     # SVG only

The demo is the one the snapshot tests use (tests/snapshot_app.py): the inspector, headless
at 120x36, talking to the embedded mock agent's demo scenario through the composer, with
ids, clocks and the time zone pinned, so a run changes a file only when the UI changed.
Each screen is written as screenshots/NAME.svg (Textual's export) and, when
``rsvg-convert`` (Debian: librsvg2-bin) is on PATH, as screenshots/NAME.png too. The PNGs
use the Fira Code font if it is installed (Debian: fonts-firacode), else a fallback
monospace font.

The user's own settings, saved agents, themes and dialect cache are never read or
written: the run gets empty temporary XDG directories.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: Output name per screen (the light theme shows the task view).
NAMES = {"light": "task-light"}


def parse_args(argv: list[str] | None, screens: tuple[str, ...]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument(
        "screens", nargs="*", metavar="SCREEN", help=f"screens to write (default: all): {', '.join(screens)}"
    )
    p.add_argument("--out", type=Path, default=ROOT / "screenshots", help="output directory (default: %(default)s)")
    p.add_argument("--no-png", action="store_true", help="write SVG only, even when rsvg-convert is present")
    args = p.parse_args(argv)
    unknown = [s for s in args.screens if s not in screens]
    if unknown:
        p.error(f"unknown screen(s) {', '.join(unknown)}; choose from {', '.join(screens)}")
    return args


#: Screens made outside the demo session. The proxy's is the proxy snapshot's
#: (tests/snapshot_app.py: an in-process proxy, two clients, the virtual clock); the
#: check view's is not snapshot-tested (a live mock agent on a free port).
EXTRA = ("proxy", "check")


async def capture_proxy() -> str:
    """``a2a-inspect proxy`` in front of a mock agent, as the proxy snapshot shows it:
    a2a-inspect's own client streamed a story through it (a fault rule repeated one
    event) and a hand-written client forgot the A2A-Version header."""
    from snapshot_app import SIZE, deterministic, in_process_proxy, make_proxy_app, proxy_screenshots

    with deterministic(), in_process_proxy():
        app = make_proxy_app()
        async with app.run_test(size=SIZE) as pilot:
            return (await proxy_screenshots(pilot))["proxy"]


async def capture_check() -> str:
    """The Check view (F7) against a mock agent whose streams end without a final event,
    the failure highlighted with its rule."""
    from inspector.ui.app import InspectorApp
    from inspector.ui.screens.check import CheckScreen
    from mock_agent import MockAgent
    from snapshot_app import SIZE

    scenario = ROOT / "tests" / "fixtures" / "check" / "stream-no-final.yaml"
    async with MockAgent(str(scenario)) as mock:
        app = InspectorApp(url=mock.base_url)
        async with app.run_test(size=SIZE) as pilot:
            while app.active is None or app.active.state != "ready":
                await pilot.pause(0.05)
            await pilot.press("f7")
            while not isinstance(app.screen, CheckScreen) or app.screen.report is None:
                await pilot.pause(0.05)
            await pilot.pause(0.3)
            return app.export_screenshot(title="a2a-inspect · check")


async def capture(screens: tuple[str, ...]) -> dict[str, str]:
    from snapshot_app import SIZE, deterministic, make_app, screenshots

    out: dict[str, str] = {}
    demo = tuple(s for s in screens if s not in EXTRA)
    if demo:
        with deterministic():
            app = make_app()
            async with app.run_test(size=SIZE) as pilot:
                out.update(await screenshots(pilot, demo))
    if "proxy" in screens:
        out["proxy"] = await capture_proxy()
    if "check" in screens:
        out["check"] = await capture_check()
    return out


def to_png(svg: Path, png: Path, rsvg: str) -> None:
    # Textual writes runs of spaces as U+00A0; librsvg drops them at the start of a text
    # element (shifting right-aligned columns) unless whitespace is preserved.
    text = svg.read_text(encoding="utf-8").replace("<svg ", '<svg xml:space="preserve" ', 1)
    subprocess.run([rsvg, "--format=png", "--output", str(png)], input=text.encode("utf-8"), check=True)


def have_fira_code() -> bool | None:
    fc_list = shutil.which("fc-list")
    if fc_list is None:
        return None
    out = subprocess.run([fc_list, "Fira Code"], capture_output=True, text=True).stdout
    return bool(out.strip())


def main(argv: list[str] | None = None) -> int:
    sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
    from snapshot_app import SCREENS

    args = parse_args(argv, SCREENS + EXTRA)
    screens = tuple(args.screens) or SCREENS + EXTRA
    rsvg = None if args.no_png else shutil.which("rsvg-convert")

    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="a2a-inspect-screenshots-") as home:
        for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"):
            os.environ[name] = str(Path(home) / name.lower())
        svgs = asyncio.run(capture(screens))

    args.out.mkdir(parents=True, exist_ok=True)
    for screen in screens:
        stem = NAMES.get(screen, screen)
        svg = args.out / f"{stem}.svg"
        svg.write_text(svgs[screen], encoding="utf-8")
        written = [svg]
        if rsvg is not None:
            png = svg.with_suffix(".png")
            to_png(svg, png, rsvg)
            written.append(png)
        print("  ".join(str(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path) for path in written))

    if rsvg is None and not args.no_png:
        print("rsvg-convert not found (Debian: apt-get install librsvg2-bin): SVG only", file=sys.stderr)
    elif rsvg is not None and have_fira_code() is False:
        print(
            "note: Fira Code is not installed (Debian: fonts-firacode): the PNGs use a fallback font", file=sys.stderr
        )
    print(f"{len(screens)} screen(s) in {time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
