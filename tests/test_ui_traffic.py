"""The traffic view: every event of the active connection, filterable, with the selected
one in full; literal agent text; y copies the raw body; [ ] walk an exchange; and it
stays smooth at 100k events (a benchmark-style test, timings reported, not asserted)."""

from __future__ import annotations

import time
from typing import Any

from textual.widgets import Input

from inspector.protocol import models as m
from inspector.session import Kind, Session
from inspector.ui.app import InspectorApp
from inspector.ui.connection import AgentConnection
from inspector.ui.widgets.traffic_model import Filter, TrafficIndex
from inspector.ui.widgets.traffic_view import TrafficView
from mock_agent import MockAgent
from ui_helpers import screen_text, wait_until


def say(text: str) -> m.SendParams:
    return m.SendParams(message=m.Message(role=m.Role.USER, parts=[m.TextPart(text=text)]))


async def streamed(pilot: Any, text: str = "hello") -> tuple[AgentConnection, TrafficView]:
    app = pilot.app
    await wait_until(pilot, lambda: app.active is not None and app.active.state == "ready", 10, "connected")
    conn = app.active
    app.send_message(conn, say(text), stream=True)
    await wait_until(pilot, lambda: any(e.kind is Kind.STREAM_END for e in conn.session.events), 10, "stream end")
    app.action_view("traffic")
    view = app.screen.query_one(TrafficView)
    await wait_until(pilot, lambda: len(view.index.rows) == len(conn.session.events), 5, "all rows")
    view.traffic_list.focus()
    await pilot.pause()
    return conn, view


async def filter_to(pilot: Any, view: TrafficView, text: str) -> None:
    view.apply_filter(text)
    await wait_until(pilot, lambda: view.index.done, 5, "filter applied")
    await pilot.pause()


def kinds(view: TrafficView) -> list[Kind]:
    return [view.index.events[i].kind for i in view.index.rows]


async def test_stream_lists_every_event_with_its_columns() -> None:
    async with MockAgent("streaming", dialect="all", time_scale=0.01) as mock:
        app = InspectorApp(url=mock.url)
        async with app.run_test(size=(120, 36)) as pilot:
            conn, view = await streamed(pilot)
            shown = kinds(view)
            assert {Kind.REQUEST, Kind.RESPONSE, Kind.SSE, Kind.STREAM_END, Kind.NOTE} <= set(shown)
            # following: the newest event (the stream's end) is selected and detailed
            last = conn.session.events[-1]
            await wait_until(pilot, lambda: view.detail.event is last, 5, "detail of the last event")
            text = screen_text(app)
            assert "end" in text and "stream complete" in text
            stream_request = next(
                e for e in conn.session.events if e.kind is Kind.REQUEST and e.data.get("a2a_method") == "stream"
            )
            index = view.index
            response = next(
                e for e in conn.session.events if e.kind is Kind.RESPONSE and e.exchange == stream_request.exchange
            )
            assert index.method(response) == "stream" and index.status(response) == "200"
            assert index.latency_ms(response) is not None
            first_sse = next(e for e in conn.session.events if e.kind is Kind.SSE)
            assert index.status(first_sse) in {"working", "submitted", "artifact"}
            assert index.size(first_sse) and index.size(first_sse) > 0


async def test_detail_shows_pretty_json_and_headers_and_y_copies_the_raw_body() -> None:
    async with MockAgent("echo", dialect="all") as mock:
        app = InspectorApp(url=mock.url)
        async with app.run_test(size=(120, 36)) as pilot:
            conn, view = await streamed(pilot)
            await filter_to(pilot, view, "kind:req method:stream")
            assert kinds(view) == [Kind.REQUEST]
            await wait_until(
                pilot,
                lambda: view.detail.event is not None and view.detail.event.kind is Kind.REQUEST,
                5,
                "request detailed",
            )
            request = view.detail.event
            detail = view.detail.text()
            assert '  "jsonrpc": "2.0",' in detail  # pretty-printed, one key a line
            assert "headers" in detail and "content-type: application/json" in detail.lower()
            assert '"jsonrpc": "2.0"' in screen_text(app)
            await pilot.press("y")
            assert app.clipboard == request.data["body"]  # the raw body, not the pretty one


async def test_y_copies_a_body_with_its_secrets_masked_until_v_shows_them() -> None:
    # A message naming a URL with a password and a token: what y copies goes into bug
    # reports, so it is masked as the detail masks it; v shows them, and then y copies them.
    secret = "https://ann:pa55w0rd@files.test/a?token=t0k3n"
    async with MockAgent("echo", dialect="all") as mock:
        app = InspectorApp(url=mock.url)
        async with app.run_test(size=(120, 36)) as pilot:
            _conn, view = await streamed(pilot, f"fetch {secret}")
            await filter_to(pilot, view, "kind:req method:stream")
            await wait_until(
                pilot,
                lambda: view.detail.event is not None and view.detail.event.kind is Kind.REQUEST,
                5,
                "request detailed",
            )
            raw = view.detail.event.data["body"]
            assert "pa55w0rd" in raw and "t0k3n" in raw
            await pilot.press("y")
            assert "pa55w0rd" not in app.clipboard and "t0k3n" not in app.clipboard
            assert "files.test" in app.clipboard  # the rest as it was
            await pilot.press("v", "y")
            assert app.clipboard == raw


async def test_agent_text_is_shown_literally() -> None:
    hostile = "\x1b[31mred[/] [bold]x[/bold] \u202eevil"
    async with MockAgent("echo", dialect="all") as mock:
        app = InspectorApp(url=mock.url)
        async with app.run_test(size=(200, 50)) as pilot:
            conn, view = await streamed(pilot, hostile)
            await filter_to(pilot, view, "kind:sse echo:")
            assert kinds(view) and set(kinds(view)) == {Kind.SSE}
            text = screen_text(app)
            assert "\x1b" not in text and "\u202e" not in text
            assert "\\x1b[31mred[/] [bold]x[/bold] \\u202eevil" in text  # summary, escapes made visible
            await wait_until(
                pilot, lambda: view.detail.event is not None and view.detail.event.kind is Kind.SSE, 5, "sse detailed"
            )
            assert "[bold]x[/bold]" in view.detail.text() and "\\u202eevil" in view.detail.text()


async def test_filter_by_kind_method_text_exchange_and_slash_focuses_it() -> None:
    async with MockAgent("echo", dialect="all") as mock:
        app = InspectorApp(url=mock.url)
        async with app.run_test(size=(120, 36)) as pilot:
            conn, view = await streamed(pilot, "findme")
            await pilot.press("slash")
            box = view.query_one("#traffic-filter", Input)
            assert box.has_focus
            await pilot.press(*"kind:sse", "enter")
            await wait_until(pilot, lambda: view.index.filter.text == "kind:sse", 5, "filter from keys")
            assert view.traffic_list.has_focus
            assert set(kinds(view)) == {Kind.SSE}
            await filter_to(pilot, view, "-kind:sse,note")
            assert kinds(view) and not {Kind.SSE, Kind.NOTE} & set(kinds(view))
            await filter_to(pilot, view, "findme kind:req")
            assert kinds(view) == [Kind.REQUEST]
            exchange = view.index.events[view.index.rows[0]].exchange
            await filter_to(pilot, view, f"ex:{exchange}")
            assert {view.index.events[i].exchange for i in view.index.rows} == {exchange}
            await filter_to(pilot, view, "method:card")
            assert kinds(view) and all(view.index.method(view.index.events[i]) == "card" for i in view.index.rows)
            await filter_to(pilot, view, "kind:bogus")
            assert "unknown kind 'bogus'" in screen_text(app)
            await filter_to(pilot, view, "")
            assert len(view.index.rows) == len(conn.session.events)


async def test_brackets_walk_one_exchange_and_x_isolates_it() -> None:
    async with MockAgent("echo", dialect="all") as mock:
        app = InspectorApp(url=mock.url)
        async with app.run_test(size=(120, 36)) as pilot:
            conn, view = await streamed(pilot)
            lst = view.traffic_list
            request = next(
                e for e in conn.session.events if e.kind is Kind.REQUEST and e.data.get("a2a_method") == "stream"
            )
            lst.move_to(view.index.row_of_seq(request.seq))
            await pilot.press("right_square_bracket")
            assert lst.selected.exchange == request.exchange and lst.selected.kind is Kind.RESPONSE
            await pilot.press("right_square_bracket")
            assert lst.selected.kind is Kind.SSE and lst.selected.exchange == request.exchange
            await pilot.press("left_square_bracket", "left_square_bracket")
            assert lst.selected is request
            await pilot.press("left_square_bracket")  # nothing before the request: stays, says so
            assert lst.selected is request
            await pilot.press("x")
            await wait_until(
                pilot,
                lambda: view.index.done and view.index.filter.text == f"ex:{request.exchange}",
                5,
                "exchange filter",
            )
            assert {view.index.events[i].exchange for i in view.index.rows} == {request.exchange}
            assert lst.selected is request  # the cursor stays on the event
            await pilot.press("x")
            await wait_until(pilot, lambda: view.index.filter.empty and view.index.done, 5, "filter restored")
            assert len(view.index.rows) == len(conn.session.events)


def synthetic(session: Session, count: int, start: int = 0) -> None:
    """``count`` events shaped like a busy stream: a request, a response, then SSE events."""
    append = session.append
    for i in range(start, start + count):
        if i % 1000 == 0:
            exchange = session.new_exchange()
            append(
                Kind.REQUEST,
                {
                    "method": "POST",
                    "url": "http://agent/a2a",
                    "headers": {},
                    "body": '{"jsonrpc":"2.0"}',
                    "dialect": "0.3",
                    "a2a_method": "stream",
                    "rpc_method": "message/stream",
                    "rpc_id": i,
                },
                exchange=exchange,
            )
        elif i % 1000 == 1:
            append(
                Kind.RESPONSE,
                {"status": 200, "reason": "OK", "headers": {}, "body": None, "streaming": True, "elapsed_ms": 3.0},
                exchange=session._exchanges,
            )
        else:
            append(
                Kind.SSE,
                {"raw": f"data: chunk {i}", "event": None, "data": f"chunk {i}", "id": None, "retry": None},
                exchange=session._exchanges,
            )


async def test_100k_events_stay_smooth_benchmark() -> None:
    total = 100_000
    async with InspectorApp().run_test(size=(120, 36)) as pilot:
        app = pilot.app
        conn = AgentConnection("http://127.0.0.1:9/", read_only=True)
        app.open_connection(conn)
        app.action_view("traffic")
        await pilot.pause()
        view = app.screen.query_one(TrafficView)
        view.frame_times.clear()
        # Arrive as a very fast stream would: ~5k events per frame.
        started = time.perf_counter()
        batch = 5000
        for start in range(0, total - 1, batch):
            synthetic(conn.session, min(batch, total - 1 - start), start)
            await pilot.pause(1 / 30)
        conn.session.append(Kind.NOTE, {"text": "the very last event"})
        await wait_until(pilot, lambda: "the very last event" in screen_text(app), 15, "last event on screen")
        elapsed = time.perf_counter() - started
        frames = sorted(view.frame_times)
        assert len(view.index.rows) == total and view.traffic_list.selected.seq == total
        # Filtering 100k: restarts from the first event, in time-boxed slices.
        t0 = time.perf_counter()
        view.apply_filter('"chunk 99998"')
        first_slice = time.perf_counter() - t0
        # Time-boxed: the first call covers a slice of the 100k events, not all of them
        # (however fast or loaded the machine: even the fastest filter is far slower).
        assert not view.index.done
        await wait_until(pilot, lambda: view.index.done, 15, "filter over 100k")
        filtered = time.perf_counter() - t0
        assert [view.index.events[i].data["data"] for i in view.index.rows] == ["chunk 99998"]
        # Reported, not asserted tightly: the machine class is noisy.
        print(
            f"\n100k events: {len(frames)} frames, frame handler median {frames[len(frames) // 2] * 1000:.2f} ms, "
            f"max {frames[-1] * 1000:.2f} ms; all on screen after {elapsed:.2f} s; "
            f"filter first slice {first_slice * 1000:.1f} ms, whole filter {filtered * 1000:.0f} ms"
        )


def test_index_is_incremental_and_time_boxed() -> None:
    session = Session()
    synthetic(session, 10_000)
    index = TrafficIndex(session)
    index.set_filter(Filter.parse("kind:resp"))
    assert not index.catch_up(budget=0)  # one slice per call at worst
    while not index.catch_up():
        pass
    assert len(index.rows) == 10
    synthetic(session, 1000, start=10_000)
    index.catch_up()
    assert len(index.rows) == 11 and index.done
    # a new filter rescans; per-exchange facts are kept
    requests = dict(index.requests)
    index.set_filter(Filter.parse("ex:3-4 -kind:sse"))
    while not index.catch_up():
        pass
    assert [index.events[i].kind for i in index.rows] == [Kind.REQUEST, Kind.RESPONSE] * 2
    assert index.requests == requests
    assert index.exchange_step(0, 1) == 1 and index.exchange_step(1, 1) is None
    assert Filter.parse('"two words" status:2xx').terms[0].value == "two words"


def test_rows_are_runs_of_positions_and_read_as_a_list_of_them() -> None:
    import random
    from bisect import bisect_left

    from inspector.ui.widgets.traffic_model import Positions

    rng = random.Random(3)
    for density in (1.0, 0.5, 0.02):
        kept = Positions()
        plain: list[int] = []
        pos = 0
        while len(plain) < 5000:
            if rng.random() < 0.5:
                stop = pos + rng.randint(1, 40)
                chosen = [p for p in range(pos, stop) if density == 1.0 or rng.random() < density]
                kept.extend(range(pos, stop) if density == 1.0 else iter(chosen))
                plain.extend(chosen)
                pos = stop
            pos += rng.randint(0, 3)
        assert len(kept) == len(plain) and kept == plain and list(kept) == plain
        assert [kept[i] for i in range(len(plain))] == plain and kept[-1] == plain[-1]
        for probe in range(-2, plain[-1] + 3):
            assert kept.bisect_left(probe) == bisect_left(plain, probe), probe
    # No filter over a stream: the rows of a million events are one run.
    index = TrafficIndex(session := Session())
    synthetic(session, 3000)
    while not index.catch_up():
        pass
    assert index.rows == range(len(session)) and index.rows._rows is None
    assert all(members._rows is None for members in index.exchanges.values())


async def test_a_wide_list_shows_methods_and_states_whole_and_its_header_follows_a_resize() -> None:
    asks = {
        "name": "asks",
        "card": {"name": "Asks", "capabilities": {"streaming": True}},
        "rules": [{"script": [{"ask": "Which city?", "then": [{"status": "completed"}]}]}],
    }
    async with MockAgent(asks, dialect="0.3") as mock:
        app = InspectorApp(url=mock.url)
        async with app.run_test(size=(200, 50)) as pilot:
            _conn, view = await streamed(pilot)
            header = str(view.query_one("#traffic-header").render())
            # 22 columns for the method, 14 for the state: "message/stream", "input-required" whole.
            assert "method                 status         " in header, header
            await wait_until(pilot, lambda: " input-required " in screen_text(app), 5, "the state whole")
            await pilot.resize_terminal(120, 36)
            await wait_until(pilot, lambda: "input-req…" in screen_text(app), 5, "the narrow columns")
            header = str(view.query_one("#traffic-header").render())
            assert "method       status     " in header and "method                 " not in header, header
