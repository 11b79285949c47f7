"""Reader for the raw HTTP captures in shared/wire-captures.

Format: ``>>> `` request lines and ``<<< `` response lines; headers, a bare marker
line, then the body. Streamed bodies are one line per received chunk,
``[t+0.13s raw chunk 403B] '<python repr of the chunk text>'``.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from shared_paths import CAPTURES

_CHUNK = re.compile(r"\[t\+[\d.]+s raw chunk \d+B\] (.*)")


@dataclass
class SseEvent:
    data: str
    event: str | None = None


@dataclass
class Capture:
    name: str
    method: str
    target: str
    request_headers: dict[str, str]
    request_body: str | None
    status: int
    response_headers: dict[str, str]
    response_body: str | None = None
    chunks: list[str] = field(default_factory=list)

    @property
    def a2a_version(self) -> str | None:
        return self.request_headers.get("a2a-version")

    @property
    def is_sse(self) -> bool:
        return self.response_headers.get("content-type", "").startswith("text/event-stream")

    @property
    def is_rest(self) -> bool:
        return self.target.startswith("/rest")

    def request_json(self) -> Any:
        return json.loads(self.request_body) if self.request_body else None

    def response_json(self) -> Any:
        return json.loads(self.response_body) if self.response_body else None

    def events(self) -> list[SseEvent]:
        """SSE events (comments dropped), split the way an SSE reader would."""
        text = "".join(self.chunks).replace("\r\n", "\n").replace("\r", "\n")
        out = []
        for block in text.split("\n\n"):
            data, event = [], None
            for line in block.split("\n"):
                if line.startswith("data:"):
                    data.append(line[5:].removeprefix(" "))
                elif line.startswith("event:"):
                    event = line[6:].strip()
            if data:
                out.append(SseEvent("\n".join(data), event))
        return out


def _split(lines: list[str]) -> tuple[str, dict[str, str], str | None]:
    start, headers, body = lines[0], {}, []
    in_body = False
    for line in lines[1:]:
        if in_body:
            body.append(line)
        elif line == "":
            in_body = True
        else:
            key, _, value = line.partition(":")
            headers[key.strip().lower()] = value.strip()
    return start, headers, ("\n".join(body) if body else None)


def parse(path: Path) -> Capture:
    req, resp = [], []
    for raw in path.read_text(encoding="utf-8").splitlines():
        if raw.startswith(">>>"):
            req.append(raw[4:] if raw.startswith(">>> ") else raw[3:])
        elif raw.startswith("<<<"):
            resp.append(raw[4:] if raw.startswith("<<< ") else raw[3:])
        else:
            raise ValueError(f"{path.name}: unexpected line {raw[:40]!r}")
    start, req_headers, req_body = _split(req)
    method, target, _ = start.split(" ", 2)
    status_line, resp_headers, resp_body = _split(resp)
    status = int(status_line.split(" ", 2)[1])
    cap = Capture(path.stem, method, target, req_headers, req_body, status, resp_headers)
    if resp_body is not None and all(_CHUNK.match(x) for x in resp_body.split("\n")):
        cap.chunks = [ast.literal_eval(_CHUNK.match(x).group(1)) for x in resp_body.split("\n")]
    else:
        cap.response_body = resp_body
    return cap


def all_captures() -> list[Capture]:
    return [parse(p) for p in sorted(CAPTURES.glob("*.txt"))]
