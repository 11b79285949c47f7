"""Small helpers shared by the benchmarks: timing, medians, a figures table, and
recorded SSE streams that look like what real A2A agents send.

Standard library only, so every benchmark runs from a fresh clone with the project venv
(``fmt_bytes`` borrows the product's size formatter, so a byte count reads as in the app).
"""

from __future__ import annotations

import gc
import json
import os
import random
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

KIB = 1024

# ---------------------------------------------------------------------- timing


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    """(seconds, result) of one call, after a full collection so runs start alike."""
    gc.collect()
    t0 = time.perf_counter()
    result = fn()
    return time.perf_counter() - t0, result


class GCTimer:
    """Time spent in the cyclic garbage collector while active (``with GCTimer() as g``):
    ``g.seconds`` in total, ``g.count`` collections per generation. ``clock`` is what
    it is measured with (wall clock unless told; ``time.process_time`` for CPU time)."""

    def __init__(self, clock: Callable[[], float] = time.perf_counter) -> None:
        self.seconds = 0.0
        self.count = [0, 0, 0]
        self._t0 = 0.0
        self._clock = clock

    def _cb(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._t0 = self._clock()
        else:
            self.seconds += self._clock() - self._t0
            self.count[info["generation"]] += 1

    def __enter__(self) -> GCTimer:
        gc.callbacks.append(self._cb)
        return self

    def __exit__(self, *exc: Any) -> None:
        gc.callbacks.remove(self._cb)


def timed_nogc(fn: Callable[[], Any], clock: Callable[[], float] = time.perf_counter) -> tuple[float, Any]:
    """(seconds, result) of one call with the cyclic GC off: the work's own CPU cost,
    without collections that depend on what else happens to be alive. ``clock`` as for
    GCTimer."""
    gc.disable()
    try:
        t0 = clock()
        result = fn()
        return clock() - t0, result
    finally:
        gc.enable()


def child_cpu_seconds(pid: int) -> float | None:
    """A child process's user + system CPU time so far (Linux /proc), else None."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def stop_child(proc: subprocess.Popen[Any], timeout: float = 5.0) -> None:
    """Terminate a child process, killing it if it does not go within ``timeout``."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


def spread(values: Sequence[float]) -> float:
    """Relative spread (max-min)/median, to show how noisy a figure is."""
    mid = statistics.median(values)
    return (max(values) - min(values)) / mid if mid else 0.0


def rate(count: int, seconds: float) -> float:
    return count / seconds if seconds > 0 else float("inf")


def fmt_rate(per_s: float) -> str:
    return f"{per_s:,.0f}/s"


def fmt_ms(seconds: float) -> str:
    return f"{seconds * 1000:,.1f} ms"


def fmt_us(seconds: float) -> str:
    return f"{seconds * 1e6:,.2f} µs"


def fmt_bytes(n: float) -> str:
    """A byte count (or an average of some) as the product shows sizes."""
    from inspector.protocol.sizes import format_size  # here: importing common stays stdlib only

    return format_size(round(n))


# ---------------------------------------------------------------------- output


def memory_rows(
    results: Sequence[dict[str, Any]], idle_label: str, target_events: int, target_mib: float
) -> list[list[Any]]:
    """The rows of a long-stream memory table (bench/tui_stream, bench/hub_stream): the
    idle baseline, then per size its time, peak, per event above idle, slope from the
    size before, rate, CPU, and the verdict at ``target_events``. Each result has n,
    seconds, peak, idle (MiB) and cpu."""
    rows: list[list[Any]] = [[idle_label, "-", f"{median([r['idle'] for r in results]):,.0f} MiB", "", "", "", "", ""]]
    previous: dict[str, Any] | None = None
    for r in results:
        n = r["n"]
        per = (r["peak"] - r["idle"]) * 2**20 / n
        slope = "-" if previous is None else f"{(r['peak'] - previous['peak']) * 2**20 / (n - previous['n']):,.0f} B"
        verdict = ""
        if n == target_events:
            verdict = f"<= {target_mib} MiB {'PASS' if r['peak'] <= target_mib else 'MISS'}"
        rows.append(
            [
                f"{n:,} chunks",
                f"{r['seconds']:.1f} s",
                f"{r['peak']:,.0f} MiB",
                f"{per:,.0f} B",
                slope,
                f"{n / r['seconds']:,.0f}/s",
                f"{r['cpu']:.1f} s",
                verdict,
            ]
        )
        previous = r
    return rows


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]], *, title: str | None = None, file: Any = None) -> None:
    """Print a plain aligned table (first column left-aligned, the others right)."""
    out = file or sys.stdout
    cells = [[str(h) for h in headers]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]

    def line(row: Sequence[str]) -> str:
        return "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths, strict=True)))

    if title:
        print(title, file=out)
    print(line(cells[0]), file=out)
    print("  ".join("-" * w for w in widths), file=out)
    for row in cells[1:]:
        print(line(row), file=out)
    print(file=out)


# ---------------------------------------------------------------------- streams

_WORDS = [
    "the",
    "agent",
    "streams",
    "its",
    "answer",
    "in",
    "small",
    "pieces",
    "while",
    "the",
    "model",
    "keeps",
    "thinking",
    "about",
    "context",
    "tokens",
    "latency",
    "throughput",
    "inspector",
    "debugger",
    "protocol",
    "artifact",
    "update",
    "status",
    "working",
    "completed",
    "message",
    "part",
    "text",
    "chunk",
    "append",
    "last",
    "final",
    "event",
    "stream",
    "heartbeat",
    "client",
    "server",
    "request",
    "response",
    "json",
    "rpc",
    "task",
    "history",
    "tool",
    "call",
    "result",
    "summary",
    "because",
    "therefore",
    "however",
    "meanwhile",
    "quickly",
    "slowly",
    "carefully",
]
# A little of what model output really holds: non-ASCII letters, punctuation that JSON
# escapes, and the odd newline.
_EXTRAS = ("café", "naïve", "—", "→", "“quoted”", '"quoted"', "tab\there", "line\n", "ünïcode", "日本語")


@dataclass
class Stream:
    """One recorded SSE response body and what a correct reader must make of it."""

    dialect: str
    body: bytes
    #: SSE events with a ``data`` line (comments not counted).
    events: int
    #: Heartbeat comment lines.
    comments: int
    #: artifact-update events among ``events``.
    chunks: int
    task_id: str
    context_id: str
    artifact_id: str
    #: The artifact's text, assembled from every chunk in order.
    text: str
    chunk_sizes: list[int] = field(default_factory=list)


def _uuid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def chunk_text(rng: random.Random, target: int = 40) -> str:
    """About ``target`` characters of plausible model output, ending in a space."""
    words: list[str] = []
    n = 0
    goal = rng.randint(target - 6, target + 6)
    while n < goal:
        w = rng.choice(_EXTRAS) if rng.random() < 0.04 else rng.choice(_WORDS)
        words.append(w)
        n += len(w) + 1
    return " ".join(words) + " "


def _v10_event(result: dict[str, Any], rpc_id: int) -> str:
    # a2a-sdk's 1.0 server: json.dumps defaults (", " / ": ", ASCII escapes), result first.
    return json.dumps({"result": result, "id": rpc_id, "jsonrpc": "2.0"})


def _v03_event(result: dict[str, Any], rpc_id: int) -> str:
    # a2a-sdk's 0.3 server: compact, keys sorted, UTF-8 text as is.
    return json.dumps(
        {"id": rpc_id, "jsonrpc": "2.0", "result": result}, separators=(",", ":"), sort_keys=True, ensure_ascii=False
    )


def _rest_event(result: dict[str, Any], rpc_id: int) -> str:
    # a2a-sdk's REST server: the StreamResponse itself, json.dumps defaults (capture 47).
    return json.dumps(result)


def make_stream(
    dialect: str,
    events: int = 50_000,
    *,
    heartbeats: int = 5,
    seed: int = 1,
    rpc_id: int = 1,
    text_len: int = 40,
    rest: bool = False,
) -> Stream:
    """An A2A message/stream response body shaped like a2a-sdk's (see
    /work/shared/wire-captures/06_v10_stream.txt and 03_v03_message_stream.txt): the
    task (submitted, with the user's message), a working status, ``events - 3``
    artifact-update chunks of ~``text_len`` characters (the first starts the artifact,
    the rest append, the last has lastChunk), a completed status marked final, and
    ``heartbeats`` ``: ping`` comments spread through it. CRLF framing, as a2a-sdk
    (sse-starlette) sends. ``rest``: the HTTP+JSON binding's events, the bare 1.0
    StreamResponse without a JSON-RPC envelope (1.0 only)."""
    if rest and dialect != "1.0":
        raise ValueError("the REST stream generator writes 1.0 events only")
    if dialect not in ("1.0", "0.3"):
        raise ValueError(f"no stream generator for dialect {dialect!r}")
    if events < 4:
        raise ValueError("a stream needs at least 4 events")
    rng = random.Random(f"{seed}-{dialect}")
    task_id, context_id = _uuid(rng), _uuid(rng)
    artifact_id = f"answer-{task_id[:8]}"
    v10 = dialect == "1.0"
    encode = _rest_event if rest else _v10_event if v10 else _v03_event
    n_chunks = events - 3
    stamp = "2026-11-22T03:35:13.519244Z"

    def agent_msg(text: str) -> dict[str, Any]:
        if v10:
            return {
                "messageId": _uuid(rng),
                "contextId": context_id,
                "taskId": task_id,
                "role": "ROLE_AGENT",
                "parts": [{"text": text}],
            }
        return {
            "contextId": context_id,
            "kind": "message",
            "messageId": _uuid(rng),
            "parts": [{"kind": "text", "text": text}],
            "role": "agent",
            "taskId": task_id,
        }

    out: list[str] = []
    user = "write me a very long answer, please"
    if v10:
        task = {
            "task": {
                "id": task_id,
                "contextId": context_id,
                "status": {"state": "TASK_STATE_SUBMITTED"},
                "history": [
                    {
                        "messageId": "m-1",
                        "contextId": context_id,
                        "taskId": task_id,
                        "role": "ROLE_USER",
                        "parts": [{"text": user}],
                    }
                ],
            }
        }
        working = {
            "statusUpdate": {
                "taskId": task_id,
                "contextId": context_id,
                "status": {"state": "TASK_STATE_WORKING", "message": agent_msg("working..."), "timestamp": stamp},
            }
        }
        done = {
            "statusUpdate": {
                "taskId": task_id,
                "contextId": context_id,
                "status": {"state": "TASK_STATE_COMPLETED", "message": agent_msg("done"), "timestamp": stamp},
            }
        }
    else:
        task = {
            "contextId": context_id,
            "history": [
                {
                    "contextId": context_id,
                    "kind": "message",
                    "messageId": "m-1",
                    "parts": [{"kind": "text", "text": user}],
                    "role": "user",
                    "taskId": task_id,
                }
            ],
            "id": task_id,
            "kind": "task",
            "status": {"state": "submitted"},
        }
        working = {
            "contextId": context_id,
            "final": False,
            "kind": "status-update",
            "status": {"message": agent_msg("working..."), "state": "working", "timestamp": stamp},
            "taskId": task_id,
        }
        done = {
            "contextId": context_id,
            "final": True,
            "kind": "status-update",
            "status": {"message": agent_msg("done"), "state": "completed", "timestamp": stamp},
            "taskId": task_id,
        }
    out.append(encode(task, rpc_id))
    out.append(encode(working, rpc_id))

    every = n_chunks // (heartbeats + 1) if heartbeats else 0
    comments = 0
    pieces: list[str] = []
    for i in range(n_chunks):
        text = chunk_text(rng, text_len)
        pieces.append(text)
        last = i == n_chunks - 1
        if v10:
            upd: dict[str, Any] = {
                "taskId": task_id,
                "contextId": context_id,
                "artifact": {"artifactId": artifact_id, "name": "answer", "parts": [{"text": text}]},
            }
            if i:
                upd["append"] = True
            if last:
                upd["lastChunk"] = True
            out.append(encode({"artifactUpdate": upd}, rpc_id))
        else:
            upd = {
                "append": i > 0,
                "artifact": {"artifactId": artifact_id, "name": "answer", "parts": [{"kind": "text", "text": text}]},
                "contextId": context_id,
                "kind": "artifact-update",
                "lastChunk": last,
                "taskId": task_id,
            }
            out.append(encode(upd, rpc_id))
        if every and (i + 1) % every == 0 and comments < heartbeats:
            out.append(None)  # type: ignore[arg-type]  # a heartbeat goes here
            comments += 1
    out.append(encode(done, rpc_id))

    lines = []
    beat = 0
    for item in out:
        if item is None:
            beat += 1
            lines.append(f": ping - 2026-11-22 03:37:{beat:02d}.851068+00:00\r\n\r\n")
        else:
            lines.append(f"data: {item}\r\n\r\n")
    return Stream(
        dialect,
        "".join(lines).encode("utf-8"),
        events,
        comments,
        n_chunks,
        task_id,
        context_id,
        artifact_id,
        "".join(pieces),
        [len(p) for p in pieces],
    )


def split_network(body: bytes, *, lo: int = 4 * KIB, hi: int = 64 * KIB, seed: int = 7) -> list[bytes]:
    """Cut a body the way a socket read would: random sizes in [lo, hi], ignoring event
    boundaries (so separators and UTF-8 sequences get split across chunks too)."""
    rng = random.Random(seed)
    out = []
    pos = 0
    n = len(body)
    while pos < n:
        size = rng.randint(lo, hi)
        out.append(body[pos : pos + size])
        pos += size
    return out
