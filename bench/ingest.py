"""Ingest throughput: how fast a long A2A stream goes from bytes to the task view.

For each dialect (1.0 and 0.3) one recorded a2a-sdk-shaped stream of --events SSE
events (default 50,000: a task, a working status, artifact-update chunks of ~40
characters with append=true, a final completed status, a few ``: ping`` heartbeats;
CRLF framing) is cut into network-sized chunks (4-64 KiB) and fed, N times each, to:

  ours      the real client: ``A2AClient.stream()`` over an ``httpx.MockTransport``
            replaying the chunks, with a ``TaskTracker`` subscribed to its ``Session``,
            drained as the TUI drains it (``EventStream.drain()``; ``--consume
            iterate`` iterates its events as the CLI does). That is the live client's
            code path from the raw body on (``response.aiter_raw()`` through its
            bounded decoder, Exchange.pieces): SSEParser.feed -> protocol/lean.py's
            reader (a TextChunk for the plain next chunk of an artifact; iterated:
            decode_sse_data, the dialect's shortcut for the usual event, else
            parse_json + the dialect codec) -> Session.append (Kind.SSE / Kind.COMMENT)
            -> TaskTracker.apply. The process runs under the app's GC
            policy (inspector.gcpolicy), as the CLI and the TUI do; ``--gc default``
            measures it under CPython's own settings instead.
  baseline  plain httpx-sse over the same MockTransport response: the public
            ``aconnect_sse(...).aiter_sse()`` (httpx's aiter_text + SSELineDecoder +
            SSEDecoder), then ``json.loads(sse.data)`` per event.

Both pay the same httpx/asyncio cost, so the ratio compares the per-event work. With
``--loopback`` both are also measured against a real HTTP server on 127.0.0.1 (a tiny
asyncio server in a child process, sending the same chunks with chunked encoding).

Then, to make a regression findable, each stage of our path is timed alone on the same
inputs with the cyclic GC off (reader, decode, log, tracker, and httpx's own cost);
the time the GC took is measured in the end-to-end runs (gc.callbacks), and
what is left of the end-to-end time is the client glue. The peak memory of our path
is read with tracemalloc (a separate, untimed run), and the tracker's result is
checked: the artifact text must be exactly the chunks joined, with every event and
heartbeat logged, the task completed and no violations. A failed check exits 1; a
ratio under the target only prints MISS.

Timing is this process's CPU time (time.process_time), medians of --runs, with the
wall-clock figures beside them: on a machine shared with other work, CPU time barely
moves while wall clock follows the load (on an idle machine the two agree, since both
paths run in this one thread without waiting). Ours and the baseline alternate run by
run so that a change in machine load hits both alike.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import io
import json
import os
import pstats
import subprocess
import sys
import tempfile
import time
import tracemalloc
from functools import partial
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(HERE.parent))  # this checkout's code, ahead of any installed copy

import common as c  # noqa: E402

TARGET = 0.7  # ours / baseline (issue 11)
#: What the figures are measured in: this process's CPU time, which other processes
#: on a busy machine barely move. Wall-clock figures are shown next to them.
CLOCK = time.process_time
WALL = time.perf_counter
#: Stage timings (GC off) are steadier than end-to-end ones: this many runs of them.
STAGE_RUNS = 3
URL = "http://agent.test/"
CTYPE = "text/event-stream; charset=utf-8"


# ---------------------------------------------------------------------- transport


def _replay_transport(chunks: list[bytes]) -> Any:
    import httpx

    class Replay(httpx.AsyncByteStream):
        async def __aiter__(self):
            for chunk in chunks:
                yield chunk

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": CTYPE, "cache-control": "no-store"}, stream=Replay())

    return httpx.MockTransport(handler)


def _send_params() -> dict[str, Any]:
    return {
        "message": {
            "role": "user",
            "message_id": "m-1",
            "parts": [{"kind": "text", "text": "write me a very long answer, please"}],
        }
    }


def _baseline_request(dialect: str) -> dict[str, Any]:
    method = "SendStreamingMessage" if dialect == "1.0" else "message/stream"
    return {
        "jsonrpc": "2.0",
        "id": 1,
        "method": method,
        "params": {
            "message": {
                "role": "user",
                "messageId": "m-1",
                "parts": [{"kind": "text", "text": "write me a very long answer, please"}],
            }
        },
    }


#: The binding the client reads the stream over (--binding).
BINDING = "jsonrpc"
#: How our path consumes the stream (--consume): "drain", as the TUI does (it follows the
#: stream through its session: EventStream.drain), or "iterate", as the CLI does (it
#: prints each event, so every chunk is decoded into models).
CONSUME = "drain"

# ---------------------------------------------------------------------- the two paths


async def ours_once(dialect: str, url: str, transport: Any = None) -> tuple[float, float, int, Any, Any]:
    """One stream through the real client; (CPU seconds, wall seconds, events yielded,
    session, tracker)."""
    import httpx

    from inspector.client.client import A2AClient
    from inspector.session.log import Session
    from inspector.session.tracker import TaskTracker

    session = Session()
    tracker = TaskTracker(session)
    async with httpx.AsyncClient(transport=transport) as http:
        client = A2AClient(url, session=session, dialect=dialect, endpoint=url, http=http, binding=BINDING)
        n = 0
        c0, t0 = CLOCK(), WALL()
        if CONSUME == "drain":
            await client.stream(_send_params()).drain()
        else:
            async for _event in client.stream(_send_params()):
                n += 1
        cpu, wall = CLOCK() - c0, WALL() - t0
        await client.aclose()
    if CONSUME == "drain":
        # The events the client counted as it read them (its STREAM_END says how many).
        from inspector.session.events import Kind

        end = session.last
        n = end.data.get("events", -1) if end is not None and end.kind is Kind.STREAM_END else -1
    return cpu, wall, n, session, tracker


async def baseline_once(dialect: str, url: str, transport: Any = None) -> tuple[float, float, int]:
    """One stream through plain httpx-sse + json.loads; (CPU seconds, wall seconds, events)."""
    import httpx
    from httpx_sse import aconnect_sse

    loads = json.loads
    request = _baseline_request(dialect)
    async with httpx.AsyncClient(transport=transport) as http:
        n = 0
        c0, t0 = CLOCK(), WALL()
        async with aconnect_sse(http, "POST", url, json=request) as source:
            async for sse in source.aiter_sse():
                loads(sse.data)
                n += 1
        cpu, wall = CLOCK() - c0, WALL() - t0
    return cpu, wall, n


async def httpx_only_once(url: str, transport: Any, text: bool) -> float:
    """httpx's own share: read the response and do nothing with it."""
    import httpx

    async with httpx.AsyncClient(transport=transport) as http:
        t0 = CLOCK()
        async with http.stream("POST", url, content=b"{}") as resp:
            it = resp.aiter_text() if text else resp.aiter_bytes()
            async for _ in it:
                pass
        return CLOCK() - t0


# ---------------------------------------------------------------------- stages


def stage_reader(chunks: list[bytes]) -> list[Any]:
    from inspector.client.sse import SSEParser

    parser = SSEParser()
    items: list[Any] = []
    feed = parser.feed
    for chunk in chunks:
        items += feed(chunk)
    items += parser.close()
    return items


def stage_decode(dialect: Any, datas: list[str]) -> list[Any]:
    # What the client does with each event's data. Iterated: wire.decode_sse_data, i.e.
    # the dialect's shortcut for the usual event, else parse_json + decode_stream_event.
    # Drained: protocol/lean.py's reader (a TextChunk for the plain next chunk).
    if CONSUME == "drain":
        from inspector.protocol.lean import lean_reader

        read = lean_reader(dialect)
        return [read(d) for d in datas]
    from inspector.protocol.wire import decode_sse_data

    return [decode_sse_data(dialect, d) for d in datas]


def shortcut_hits(dialect: Any, datas: list[str]) -> int:
    """How many events the shortcut decodes (the rest go the general way): drained, the
    events read as a TextChunk; iterated, those the dialect's decode_sse_fast takes."""
    if CONSUME == "drain":
        from inspector.protocol.lean import TextChunk, lean_reader

        read = lean_reader(dialect)
        return sum(read(d).__class__ is TextChunk for d in datas)
    fast = getattr(dialect, "decode_sse_fast", None)  # None: code from before the shortcut
    return sum(fast(d) is not None for d in datas) if fast is not None else 0


def stage_inputs(logged: Any, dialect: Any) -> list[Any]:
    """The logged events as the client hands them to the session: an SSE event as its raw
    text with its payload decoded as the client decodes it live (not timed here; the
    decode stage times that)."""
    from inspector.session.events import Kind

    read = None
    if CONSUME == "drain":
        from inspector.protocol.lean import lean_reader

        read = lean_reader(dialect)
    out = []
    for ev in logged:
        payload = ev.payload
        if read is not None and ev.kind is Kind.SSE and ev.compact:
            payload = read(ev.data["data"])
        out.append((ev, ev.raw if ev.compact else None, payload, ev.codec))
    return out


def stage_log(inputs: list[Any]) -> Any:
    from inspector.session.log import Session

    session = Session()
    append, append_sse = session.append, session.append_sse
    for ev, raw, payload, codec in inputs:
        if raw is not None:
            append_sse(raw, payload, codec, ev.exchange)
        else:
            append(ev.kind, ev.data, exchange=ev.exchange, payload=payload)
    return session


def stage_tracker(inputs: list[Any]) -> Any:
    from inspector.session.events import Event
    from inspector.session.tracker import TaskTracker

    # The events as the tracker sees them live: payloads there (the decode stage times them).
    events = [
        Event(ev.seq, ev.t, ev.kind, ev.exchange, raw if raw is not None else ev.data, ev.wall, payload)
        for ev, raw, payload, _codec in inputs
    ]
    tracker = TaskTracker()
    apply = tracker.apply
    t0 = CLOCK()
    for ev in events:
        apply(ev)
    tracker.seconds = CLOCK() - t0  # type: ignore[attr-defined]
    return tracker


def baseline_stage_sse(texts: list[str]) -> list[Any]:
    # httpx-sse's public EventSource over a response holding the same pieces, as
    # EventSource.aiter_sse reads a stream: this stage includes httpx's text decoding of
    # the pieces (its own decoders are private names of httpx-sse).
    import httpx
    from httpx_sse import EventSource

    class Pieces(httpx.SyncByteStream):
        def __iter__(self) -> Any:
            for text in texts:
                yield text.encode()

    response = httpx.Response(200, headers={"content-type": "text/event-stream"}, stream=Pieces())
    return list(EventSource(response).iter_sse())


def baseline_stage_json(datas: list[str]) -> list[Any]:
    loads = json.loads
    return [loads(d) for d in datas]


# ---------------------------------------------------------------------- checks


class CheckFailed(Exception):
    pass


def check_ours(stream: c.Stream, n: int, session: Any, tracker: Any) -> None:
    from inspector.protocol.models import TaskState
    from inspector.session.events import Kind

    problems = []
    if n != stream.events:
        how = "counted" if CONSUME == "drain" else "yielded"
        problems.append(f"the client {how} {n} events, the stream has {stream.events}")
    kinds: dict[Any, int] = {}
    for ev in session.events:
        kinds[ev.kind] = kinds.get(ev.kind, 0) + 1
    if kinds.get(Kind.SSE, 0) != stream.events:
        problems.append(f"{kinds.get(Kind.SSE, 0)} SSE events logged, expected {stream.events}")
    if kinds.get(Kind.COMMENT, 0) != stream.comments:
        problems.append(f"{kinds.get(Kind.COMMENT, 0)} heartbeat comments logged, expected {stream.comments}")
    if kinds.get(Kind.ERROR, 0):
        errs = [ev.data.get("message") for ev in session.events if ev.kind is Kind.ERROR][:3]
        problems.append(f"{kinds[Kind.ERROR]} ERROR events logged: {errs}")
    end = [ev.data for ev in session.events if ev.kind is Kind.STREAM_END]
    if not end or end[-1].get("reason") != "complete":
        problems.append(f"stream did not end as complete: {end[-1] if end else 'no STREAM_END'}")
    task = tracker.tasks.get(stream.task_id)
    if task is None:
        problems.append(f"tracker has no task {stream.task_id}")
    else:
        if task.state is not TaskState.COMPLETED:
            problems.append(f"task state is {task.state}, expected completed")
        view = task.artifacts.get(stream.artifact_id)
        if view is None:
            problems.append(f"task has no artifact {stream.artifact_id!r} (has {list(task.artifacts)})")
        else:
            text = view.text()
            want = sum(stream.chunk_sizes)
            if len(text) != want:
                problems.append(f"artifact text is {len(text):,} characters, the chunks sum to {want:,}")
            elif text != stream.text:
                at = next(i for i, (a, b) in enumerate(zip(text, stream.text, strict=True)) if a != b)
                problems.append(f"artifact text differs from the chunks joined at character {at}")
            if len(view.chunks) != stream.chunks:
                problems.append(f"artifact has {len(view.chunks)} chunks, expected {stream.chunks}")
            if not view.closed:
                problems.append("artifact not closed although the last chunk had lastChunk=true")
    if tracker.violations:
        problems.append(
            f"{len(tracker.violations)} violations on a well-formed stream, e.g. "
            f"{tracker.violations[0].code}: {tracker.violations[0].message}"
        )
    if problems:
        raise CheckFailed(f"[{stream.dialect}] our path got the stream wrong:\n  " + "\n  ".join(problems))


# ---------------------------------------------------------------------- loopback server


async def _serve(directory: str) -> None:
    """Child process: a bare HTTP/1.1 server that answers POST /<dialect> with that
    dialect's recorded body, in the same chunks, with chunked transfer encoding."""
    bodies = {}
    for path in Path(directory).glob("*.sse"):
        bodies["/" + path.stem] = c.split_network(path.read_bytes())

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                target = lines[0].split(" ")[1]
                length = 0
                for line in lines[1:]:
                    name, _, value = line.partition(":")
                    if name.strip().lower() == "content-length":
                        length = int(value)
                if length:
                    await reader.readexactly(length)
                chunks = bodies.get(target)
                if chunks is None:
                    writer.write(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n")
                    await writer.drain()
                    continue
                writer.write(
                    b"HTTP/1.1 200 OK\r\ncontent-type: "
                    + CTYPE.encode()
                    + b"\r\ncache-control: no-store\r\ntransfer-encoding: chunked\r\n\r\n"
                )
                for chunk in chunks:
                    writer.write(b"%x\r\n%b\r\n" % (len(chunk), chunk))
                    await writer.drain()
                writer.write(b"0\r\n\r\n")
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    print(port, flush=True)
    async with server:
        await server.serve_forever()


class Loopback:
    def __init__(self, streams: dict[str, c.Stream]) -> None:
        self._dir = tempfile.TemporaryDirectory(prefix="a2a-bench-")
        for name, stream in streams.items():
            Path(self._dir.name, f"{name}.sse").write_bytes(stream.body)
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--serve", self._dir.name], stdout=subprocess.PIPE, text=True
        )
        line = self.proc.stdout.readline() if self.proc.stdout else ""
        if not line.strip().isdigit():
            self.close()
            raise RuntimeError("loopback server did not start")
        self.base = f"http://127.0.0.1:{int(line)}"

    def url(self, dialect: str) -> str:
        return f"{self.base}/{dialect}"

    def close(self) -> None:
        c.stop_child(self.proc)
        self._dir.cleanup()


# ---------------------------------------------------------------------- main


def _verdict(ratio: float) -> str:
    return "PASS" if ratio >= TARGET else "MISS"


def _run_nogc(loop: asyncio.AbstractEventLoop, coro: Any) -> Any:
    gc.disable()
    try:
        return loop.run_until_complete(coro)
    finally:
        gc.enable()


def _spread(values: list[float]) -> str:
    return f"±{c.spread(values) * 50:.0f}%"


def run_dialect(
    stream: c.Stream,
    args: argparse.Namespace,
    loop: asyncio.AbstractEventLoop,
    loopback: Loopback | None,
    summary: list[list[Any]],
) -> None:
    from inspector.client.sse import SSEComment, SSEEvent
    from inspector.protocol.dialects import get_dialect

    name = stream.dialect
    dialect = get_dialect(name)
    if BINDING == "rest":
        from inspector.protocol import rest

        dialect = rest.codec(dialect)  # what the client decodes REST events with
    chunks = c.split_network(stream.body)
    n = stream.events
    print(
        f"== dialect {name}: {n:,} events + {stream.comments} heartbeats, {c.fmt_bytes(len(stream.body))} "
        f"in {len(chunks)} chunks of 4-64 KiB"
    )

    transport = _replay_transport(chunks)
    texts = [ch.decode("utf-8", "replace") for ch in chunks]  # only for the baseline's stage timing
    url = loopback.url(name) if loopback is not None else ""

    runs: dict[str, list[float]] = {
        k: []
        for k in (
            "ours",
            "base",
            "ours_wall",
            "base_wall",
            "ours_gc",
            "base_gc",
            "loop_ours",
            "loop_base",
            "loop_ours_wall",
            "loop_base_wall",
            "reader",
            "decode",
            "log",
            "tracker",
            "httpx_bytes",
            "b_sse",
            "b_json",
            "httpx_text",
            "ours_full",
        )
    }
    gc_counts = [0, 0, 0]
    hits = 0
    checked = False
    for run in range(args.runs):
        stages = run < STAGE_RUNS
        # End to end, alternating so drift in machine load hits both alike. The cyclic
        # GC is on, as in the app, and the time it takes is recorded.
        gc.collect()
        with c.GCTimer(clock=CLOCK) as g:
            t, wall, count, session, tracker = loop.run_until_complete(ours_once(name, URL, transport))
        if not checked:
            check_ours(stream, count, session, tracker)
            checked = True
        runs["ours"].append(t)
        runs["ours_wall"].append(wall)
        runs["ours_gc"].append(g.seconds)
        gc_counts = g.count
        runs["ours_full"].append(gc_counts[2])
        logged = session.events
        del session, tracker
        if stages:
            # The session's own stages, on what it logged (GC off: their own CPU cost).
            inputs = stage_inputs(logged, dialect)
            t, _s = c.timed_nogc(partial(stage_log, inputs), clock=CLOCK)
            runs["log"].append(t)
            del _s
            _t, _tr = c.timed_nogc(partial(stage_tracker, inputs), clock=CLOCK)
            runs["tracker"].append(_tr.seconds)
            del _tr, inputs
        del logged
        gc.collect()
        with c.GCTimer(clock=CLOCK) as g:
            t, wall, count = loop.run_until_complete(baseline_once(name, URL, transport))
        if count != n:
            raise CheckFailed(f"[{name}] httpx-sse saw {count} events, the stream has {n}")
        runs["base"].append(t)
        runs["base_wall"].append(wall)
        runs["base_gc"].append(g.seconds)
        if loopback is not None:
            gc.collect()
            t, wall, count, session, tracker = loop.run_until_complete(ours_once(name, url, None))
            check_ours(stream, count, session, tracker)
            del session, tracker
            runs["loop_ours"].append(t)
            runs["loop_ours_wall"].append(wall)
            gc.collect()
            t, wall, count = loop.run_until_complete(baseline_once(name, url, None))
            if count != n:
                raise CheckFailed(f"[{name}] httpx-sse (loopback) saw {count} events, expected {n}")
            runs["loop_base"].append(t)
            runs["loop_base_wall"].append(wall)

        if not stages:
            continue
        # The other stages, each alone on the same inputs, GC off.
        t, items = c.timed_nogc(lambda: stage_reader(chunks), clock=CLOCK)
        runs["reader"].append(t)
        events = [i for i in items if i.__class__ is SSEEvent]
        others = [i for i in items if i.__class__ is not SSEEvent]
        if len(events) != n or len(others) != stream.comments or any(i.__class__ is not SSEComment for i in others):
            raise CheckFailed(
                f"[{name}] SSEParser produced {len(events)} events and {len(others)} other items, "
                f"expected {n} and {stream.comments} comments"
            )
        datas = [e.data for e in events]
        del items, events, others
        t, _p = c.timed_nogc(partial(stage_decode, dialect, datas), clock=CLOCK)
        runs["decode"].append(t)
        del _p
        if not hits:
            hits = shortcut_hits(dialect, datas)
        runs["httpx_bytes"].append(_run_nogc(loop, httpx_only_once(URL, transport, False)))
        t, sses = c.timed_nogc(lambda: baseline_stage_sse(texts), clock=CLOCK)
        runs["b_sse"].append(t)
        bdatas = [s.data for s in sses]
        del sses
        t, _o = c.timed_nogc(partial(baseline_stage_json, bdatas), clock=CLOCK)
        runs["b_json"].append(t)
        del _o, bdatas, datas
        runs["httpx_text"].append(_run_nogc(loop, httpx_only_once(URL, transport, True)))

    med = {k: c.median(v) for k, v in runs.items() if v}
    ours, base = med["ours"], med["base"]
    ratio = base / ours
    wratio = med["base_wall"] / med["ours_wall"]
    print(
        f"   check: artifact assembled exactly ({stream.chunks:,} chunks, {len(stream.text):,} characters), "
        f"{n:,} events and {stream.comments} heartbeats logged, task completed, no violations: OK"
    )

    def path_row(label: str, key: str) -> list[Any]:
        secs = med[key]
        return [
            label,
            c.fmt_ms(secs),
            c.fmt_rate(c.rate(n, secs)),
            c.fmt_us(secs / n),
            _spread(runs[key]),
            c.fmt_rate(c.rate(n, med[key + "_wall"])),
            _spread(runs[key + "_wall"]),
            "",
        ]

    def ratio_row(label: str, cpu: float, wall: float) -> list[Any]:
        return [label, "", f"{cpu:.2f}x", "", "", f"{wall:.2f}x", "", f"{_verdict(cpu)} (target >= {TARGET}x)"]

    rows = [
        path_row("ours: A2AClient.stream + Session + TaskTracker", "ours"),
        path_row("baseline: httpx-sse aiter_sse + json.loads", "base"),
        ratio_row("ratio ours/baseline (MockTransport)", ratio, wratio),
    ]
    lratio = None
    if loopback is not None:
        lratio = med["loop_base"] / med["loop_ours"]
        rows += [
            path_row("ours over loopback HTTP", "loop_ours"),
            path_row("baseline over loopback HTTP", "loop_base"),
            ratio_row("ratio ours/baseline (loopback)", lratio, med["loop_base_wall"] / med["loop_ours_wall"]),
        ]
    c.table(
        ["path", "CPU median", "events/s", "per event", "spread", "wall events/s", "spread", "verdict"],
        rows,
        title=f"   end to end, median of {args.runs} runs, in CPU time (wall clock beside it; "
        "spread: ±half the max-min range)",
    )
    print(
        "   each run, CPU µs per event: ours "
        + " ".join(f"{t / n * 1e6:.1f}" for t in runs["ours"])
        + " | baseline "
        + " ".join(f"{t / n * 1e6:.1f}" for t in runs["base"])
        + " | gc "
        + " ".join(f"{t / n * 1e6:.1f}" for t in runs["ours_gc"])
    )
    # A median hides the run that paid for a whole-heap collection: name those runs.
    full = [
        (i + 1, t, g)
        for i, (t, g, k) in enumerate(zip(runs["ours"], runs["ours_gc"], runs["ours_full"], strict=True))
        if k
    ]
    if full:
        print(
            "   runs with a full (gen 2) collection: "
            + ", ".join(f"run {i}: {t / n * 1e6:.1f} µs/event, of which gc {g / n * 1e6:.1f}" for i, t, g in full)
            + f"; the worst run's ratio: {c.median(runs['base']) / max(runs['ours']):.2f}x"
        )
    else:
        print(
            f"   no run contained a full (gen 2) collection ({len(runs['ours'])} runs); "
            f"the worst run's ratio: {c.median(runs['base']) / max(runs['ours']):.2f}x"
        )
    print()

    def stage_row(label: str, secs: float, total: float) -> list[Any]:
        return [
            label,
            c.fmt_ms(secs),
            c.fmt_us(secs / n),
            f"{secs / total * 100:.0f}%",
            c.fmt_rate(c.rate(n, secs)) if secs > 0 else "-",
        ]

    ours_parts = ["reader", "decode", "log", "tracker", "httpx_bytes", "ours_gc"]
    glue = ours - sum(med[k] for k in ours_parts)
    c.table(
        ["stage (ours)", "median", "per event", "of total", "alone"],
        [
            stage_row("reader   SSEParser.feed/close over the chunks", med["reader"], ours),
            stage_row(
                f"decode   {'lean_reader' if CONSUME == 'drain' else 'wire.decode_sse_data'} "
                f"({type(dialect).__name__}: {hits:,} by its shortcut)",
                med["decode"],
                ours,
            ),
            stage_row("log      Session.append_sse, no listeners", med["log"], ours),
            stage_row("tracker  TaskTracker.apply over the session log", med["tracker"], ours),
            stage_row("httpx    MockTransport response.aiter_bytes only", med["httpx_bytes"], ours),
            stage_row(
                f"gc       cyclic GC during the run ({gc_counts[0]}/{gc_counts[1]}/{gc_counts[2]} "
                "collections of gen 0/1/2)",
                med["ours_gc"],
                ours,
            ),
            stage_row("glue     the rest: client _stream/_record, generators", glue, ours),
            stage_row("total    end to end", ours, ours),
        ],
        title=f"   where our time goes, in CPU time (stages timed alone with the GC off, median of "
        f"{min(args.runs, STAGE_RUNS)} runs; gc measured in the end-to-end runs; glue = total - the others)",
    )
    bglue = base - med["b_sse"] - med["b_json"] - med["httpx_text"] - med["base_gc"]
    c.table(
        ["stage (baseline)", "median", "per event", "of total", "alone"],
        [
            stage_row("sse      httpx_sse SSELineDecoder + SSEDecoder", med["b_sse"], base),
            stage_row("json     json.loads", med["b_json"], base),
            stage_row("httpx    MockTransport response.aiter_text only", med["httpx_text"], base),
            stage_row("gc       cyclic GC during the run", med["base_gc"], base),
            stage_row("glue     the rest: aiter_sse generators", bglue, base),
            stage_row("total    end to end", base, base),
        ],
    )

    if not args.no_memory:
        gc.collect()
        tracemalloc.start()
        _t, _w, count, session, tracker = loop.run_until_complete(ours_once(name, URL, transport))
        current, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        check_ours(stream, count, session, tracker)
        del session, tracker
        gc.collect()
        tracemalloc.start()
        loop.run_until_complete(baseline_once(name, URL, transport))
        _bcur, bpeak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        print(
            f"   memory (tracemalloc, separate untimed run): ours peak {c.fmt_bytes(peak)}, of which "
            f"{c.fmt_bytes(current)} stays held by the session log and tracker ({c.fmt_bytes(current / n)} "
            f"per event; the body is {c.fmt_bytes(len(stream.body))}); baseline peak {c.fmt_bytes(bpeak)}"
        )
        print()

    if args.profile:
        gc.collect()
        prof = cProfile.Profile()
        prof.enable()
        loop.run_until_complete(ours_once(name, URL, transport))
        prof.disable()
        buf = io.StringIO()
        pstats.Stats(prof, stream=buf).sort_stats("tottime").print_stats(args.profile)
        print(
            f"   cProfile of our path, GC on (top {args.profile} by own time; collections are "
            "charged to whichever function allocated when they ran):"
        )
        print("\n".join("   " + line for line in buf.getvalue().splitlines() if line.strip()))
        print()

    summary.append(
        [
            name,
            c.fmt_rate(c.rate(n, ours)),
            c.fmt_rate(c.rate(n, base)),
            f"{ratio:.2f}x",
            _verdict(ratio),
            f"{wratio:.2f}x",
            f"{med['ours_gc'] / ours * 100:.0f}%",
        ]
        + ([f"{lratio:.2f}x", _verdict(lratio)] if lratio is not None else [])
    )


def main(argv: list[str] | None = None) -> int:
    try:
        import httpx_sse
    except ImportError:
        print("bench/run ingest: the baseline needs httpx-sse: pip install -e '.[bench]'", file=sys.stderr)
        return 2
    ap = argparse.ArgumentParser(prog="bench/run ingest", description=__doc__.split("\n\n")[0])
    ap.add_argument("--events", type=int, default=50_000, help="SSE events per stream (default 50000)")
    ap.add_argument("--runs", type=int, default=5, help="runs per measurement; medians are reported (default 5)")
    ap.add_argument("--quick", action="store_true", help="at most 5,000 events and 3 runs, no loopback")
    ap.add_argument(
        "--dialect", action="append", choices=("1.0", "0.3"), help="only this dialect (repeatable; default both)"
    )
    ap.add_argument(
        "--binding",
        choices=("jsonrpc", "rest"),
        default="jsonrpc",
        help="the binding the stream comes over: rest is HTTP+JSON, bare StreamResponse "
        "events (1.0 only; default jsonrpc)",
    )
    ap.add_argument("--heartbeats", type=int, default=5, help="': ping' comments in each stream (default 5)")
    ap.add_argument("--seed", type=int, default=1, help="seed for the stream's text and the chunk sizes")
    ap.add_argument(
        "--loopback",
        action="store_true",
        help="also measure both paths over real HTTP on 127.0.0.1 (server in a child process)",
    )
    ap.add_argument(
        "--consume",
        choices=("drain", "iterate"),
        default="drain",
        help="drain the stream as the TUI does (default), or iterate its events as the CLI does",
    )
    ap.add_argument("--no-memory", action="store_true", help="skip the tracemalloc run")
    ap.add_argument(
        "--profile",
        type=int,
        nargs="?",
        const=25,
        default=0,
        metavar="N",
        help="also print a cProfile of our path (top N functions, default 25)",
    )
    ap.add_argument(
        "--gc",
        choices=("app", "default"),
        default="app",
        help="garbage-collector settings: the app's (inspector.gcpolicy, as the CLI and TUI "
        "install it; the default) or CPython's own",
    )
    ap.add_argument("--serve", metavar="DIR", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.serve:
        try:
            asyncio.run(_serve(args.serve))
        except KeyboardInterrupt:
            pass
        return 0
    if args.quick:
        args.events = min(args.events, 5_000)
        args.runs = min(args.runs, 3)
        args.loopback = False
    if args.runs < 1 or args.events < 4:
        ap.error("need --runs >= 1 and --events >= 4")
    global BINDING, CONSUME
    BINDING = args.binding
    CONSUME = args.consume
    dialects = args.dialect or (["1.0"] if args.binding == "rest" else ["1.0", "0.3"])
    if args.binding == "rest" and dialects != ["1.0"]:
        ap.error("--binding rest measures 1.0 streams only")

    import httpx
    import httpx_sse
    import pydantic

    if args.gc == "app":
        from inspector import gcpolicy

        gcpolicy.install()  # what inspector.cli and the TUI do at start-up
    gc_note = (
        "GC: the app's policy (inspector.gcpolicy)" if args.gc == "app" else "GC: CPython's defaults (--gc default)"
    )
    consuming = "drains the stream, as the TUI does" if CONSUME == "drain" else "iterates its events, as the CLI does"
    print(
        f"ingest: {args.events:,} SSE events per stream, {', '.join(dialects)}, medians of {args.runs} runs "
        f"(Python {sys.version.split()[0]}, httpx {httpx.__version__}, httpx-sse "
        f"{getattr(httpx_sse, '__version__', '?')}, pydantic {pydantic.VERSION}, {os.cpu_count()} CPUs; "
        f"{gc_note}; ours {consuming})"
    )
    print()
    started = time.perf_counter()
    streams = {
        d: c.make_stream(d, args.events, heartbeats=args.heartbeats, seed=args.seed, rest=args.binding == "rest")
        for d in dialects
    }
    summary: list[list[Any]] = []
    loopback = None
    loop = asyncio.new_event_loop()
    try:
        if args.loopback:
            loopback = Loopback(streams)
        for name in dialects:
            run_dialect(streams[name], args, loop, loopback, summary)
    except CheckFailed as exc:
        print(f"\nFAIL: {exc}", file=sys.stderr)
        return 1
    finally:
        loop.close()
        if loopback is not None:
            loopback.close()
    headers = ["dialect", "ours", "baseline", "ratio", "verdict", "ratio (wall)", "gc share of ours"]
    if args.loopback:
        headers += ["ratio (loopback)", "verdict"]
    c.table(
        headers,
        summary,
        title=f"ingest summary (events/s of CPU time, medians; target: ours >= {TARGET}x "
        f"baseline; the wall-clock ratio for comparison)",
    )
    print(f"done in {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
