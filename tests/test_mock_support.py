"""Helpers for the mock agent's tests: speak a dialect to a mock over real HTTP.

Requests are built with the dialect codecs (the inspector's own client side), responses
are kept raw so tests assert on the bytes and JSON the mock actually sent. No tests here.
"""

from __future__ import annotations

import itertools
import json
import uuid
from dataclasses import dataclass, field
from typing import Any

import httpx

from inspector.protocol import models as m
from inspector.protocol.dialects import get_dialect
from inspector.protocol.methods import Method

DIALECT_NAMES = ("0.1", "0.3", "1.0")

TERMINAL_WIRE = {
    "0.1": {"completed", "failed", "canceled", "rejected"},
    "0.3": {"completed", "failed", "canceled", "rejected"},
    "1.0": {"TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_CANCELED", "TASK_STATE_REJECTED"},
}


def wire_state(dialect: str, state: str) -> str:
    """ "completed" as ``dialect`` spells it."""
    if dialect == "1.0":
        return "TASK_STATE_" + state.upper().replace("-", "_")
    return state


@dataclass
class SSE:
    """One parsed SSE block."""

    event: str | None = None
    data: str | None = None
    comments: list[str] = field(default_factory=list)

    def json(self) -> Any:
        return json.loads(self.data) if self.data is not None else None


def parse_sse(raw: bytes) -> list[SSE]:
    out = []
    for block in raw.decode("utf-8").split("\r\n\r\n"):
        if not block:
            continue
        ev = SSE()
        for line in block.split("\r\n"):
            if line.startswith(":"):
                ev.comments.append(line[1:].strip())
            elif line.startswith("event:"):
                ev.event = line[6:].strip()
            elif line.startswith("data:"):
                ev.data = line[5:].lstrip(" ") if ev.data is None else ev.data + "\n" + line[5:].lstrip(" ")
        out.append(ev)
    return out


class Wire:
    """One dialect's client for a mock: builds requests with the codec, returns raw JSON."""

    _ids = itertools.count(1)

    def __init__(self, client: httpx.Client, url: str, dialect: str) -> None:
        self.client = client
        self.url = url
        self.name = dialect
        self.codec = get_dialect(dialect)

    def headers(self, stream: bool = False) -> dict[str, str]:
        headers = dict(self.codec.request_headers())
        if stream:
            headers["accept"] = "text/event-stream"
        return headers

    def message(
        self,
        text: str | None = None,
        *,
        parts: list[Any] | None = None,
        task_id: str | None = None,
        context_id: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> m.Message:
        if parts is None:
            parts = [m.TextPart(text=text or "")]
        return m.Message(
            role=m.Role.USER,
            parts=parts,
            message_id=f"m-{uuid.uuid4().hex[:8]}",
            task_id=task_id,
            context_id=context_id,
            metadata=metadata,
        )

    def request(self, method: Method, params: Any) -> dict[str, Any]:
        return self.codec.encode_request(method, params, next(self._ids))

    def post(self, body: Any, *, headers: dict[str, str] | None = None) -> httpx.Response:
        return self.client.post(self.url, json=body, headers=headers if headers is not None else self.headers())

    def call(self, method: Method, params: Any) -> dict[str, Any]:
        response = self.post(self.request(method, params))
        assert response.status_code == 200, response.text
        return response.json()

    def send(
        self,
        text: str | None = None,
        *,
        configuration: dict[str, Any] | None = None,
        params_metadata: dict[str, Any] | None = None,
        **kw: Any,
    ) -> dict[str, Any]:
        params = m.SendParams(
            message=self.message(text, **kw),
            configuration=m.SendConfiguration(**configuration) if configuration else None,
            metadata=params_metadata,
        )
        return self.call(Method.SEND, params)

    def stream(self, text: str | None = None, **kw: Any) -> tuple[httpx.Response, list[SSE]]:
        params = m.SendParams(message=self.message(text, **kw))
        return self.stream_call(Method.STREAM, params)

    def stream_call(self, method: Method, params: Any) -> tuple[httpx.Response, list[SSE]]:
        with self.client.stream(
            "POST", self.url, json=self.request(method, params), headers=self.headers(stream=True)
        ) as response:
            raw = response.read()
        return response, parse_sse(raw) if response.headers.get("content-type", "").startswith(
            "text/event-stream"
        ) else []

    def get(self, task_id: str, history_length: int | None = None) -> dict[str, Any]:
        return self.call(Method.GET, m.TaskQueryParams(id=task_id, history_length=history_length))

    def cancel(self, task_id: str) -> dict[str, Any]:
        return self.call(Method.CANCEL, m.TaskIdParams(id=task_id))

    # -- reading results -------------------------------------------------------------

    def task_of(self, body: dict[str, Any]) -> dict[str, Any]:
        """The Task in a send/get response (1.0 wraps a send's task in {"task": ...})."""
        result = body["result"]
        if self.name == "1.0" and "task" in result:
            return result["task"]
        return result

    def state_of(self, task: dict[str, Any]) -> str:
        return task["status"]["state"]

    def text_parts(self, obj: dict[str, Any]) -> list[str]:
        return [p["text"] for p in obj.get("parts", []) if "text" in p]

    def artifact_text(self, task: dict[str, Any]) -> str:
        return "".join("".join(self.text_parts(a)) for a in task.get("artifacts") or [])

    def result_of(self, ev: SSE) -> Any:
        body = ev.json()
        assert body["jsonrpc"] == "2.0"
        return body["result"]

    def decode(self, ev: SSE) -> m.StreamEvent:
        """A stream event through the codec, so a wire shape the inspector cannot read fails."""
        return self.codec.decode_stream_event(ev.json())
