"""What a gRPC call relayed by the proxy writes into its Session, whichever way its
bytes went: the grpc.aio relay (grpc_relay.py) and the HTTP/2 frame log of the fast
path (grpc_frames.py) both build their records here (REQUEST, RESPONSE, one MESSAGE per
streamed message, STREAM_END; the proxy's fields client, user_agent, proxy_route,
added_ms), so that the two paths log alike."""

from __future__ import annotations

import asyncio
import base64
import time
from typing import Any

from ..client.grpc_transport import RESERVED_METADATA, metadata_dict
from ..protocol import grpc_codec, grpc_schema
from ..protocol import models as m
from ..protocol.errors import ProtocolError
from ..protocol.lean import TextChunk
from ..protocol.wire import capture
from ..session import payloads
from ..session.events import Kind
from .checks import check_request
from .detect import Parsed
from .relaying import HOLDS as _HOLDS
from .relaying import SLICE as _SLICE
from .relaying import Backlog as _Backlog
from .relaying import combine as _combine
from .relaying import ms as _ms
from .relaying import settles

#: How long the stream's log waits, once woken, for more messages to log in one go (s).
_LINGER = 0.002


def known_paths() -> dict[str, tuple[str, Any, Any]]:
    """``/pkg.A2AService/Name`` -> (dialect, Rpc, Method) for every dialect with gRPC."""
    out: dict[str, tuple[str, Any, Any]] = {}
    for dialect in grpc_schema.PACKAGES:
        for name, rpc in grpc_schema.rpcs(dialect).items():
            method = grpc_codec.method_for(dialect, name)
            if method is not None:
                out[rpc.path] = (dialect, rpc, method)
    return out


#: (path, dialect) -> a known method's REQUEST fields above HTTP, made once: each call
#: copies them (a record's dict is its own). Bounded: only the known paths come here.
_INFOS: dict[tuple[str, str], dict[str, Any]] = {}


def _info(path: str, dialect: str, rpc: Any, method: Any) -> dict[str, Any]:
    found = _INFOS.get((path, dialect))
    if found is None:
        found = _INFOS[(path, dialect)] = {
            "dialect": dialect,
            "binding": "grpc",
            "a2a_method": method.value,
            "rpc_method": rpc.name,
            "rpc_id": None,
            "grpc_path": path,
        }
    return found.copy()


def forwardable(metadata: Any) -> list[tuple[str, Any]]:
    """The metadata pairs a call may carry on (gRPC's own keys left to gRPC)."""
    return [
        (k, v) for k, v in metadata or () if k.lower() not in RESERVED_METADATA and not k.startswith(("grpc-", ":"))
    ]


class CallRecords:
    """What one relayed call writes into the Session, whichever way its bytes went: the
    grpc.aio relay's _GrpcCall and the HTTP/2 frame log's calls (grpc_frames.py) both
    build their records here, so that the two paths log alike."""

    def __init__(
        self,
        listener: Any,
        path: str,
        found: Any,
        metadata: list[tuple[str, Any]],
        client: str | None,
        user_agent: str | None,
    ) -> None:
        self.listener = listener
        self.proxy = listener.proxy
        self.session = self.proxy.session
        self.path = path
        # All None for a call passed through unread (a path of no A2A method): what reads
        # them runs only for a known one.
        self.dialect: Any
        self.rpc: Any
        self.method: Any
        self.dialect, self.rpc, self.method = found if found is not None else (None, None, None)
        self.number = 0
        self.injected: list[str] = []
        self.fault: Any = None
        self.rule_indexes: list[int] = []
        self.arrived = time.perf_counter()
        self.metadata = metadata
        self.client = client
        self.user_agent = user_agent

    # ------------------------------------------------------------------ logging

    def log(self, kind: Kind, data: dict[str, Any], payload: Any = None) -> None:
        self.session.append(kind, data, exchange=self.number, payload=payload)

    def behind(self, text: str) -> None:
        self.log(Kind.NOTE, {"text": text, "code": "proxy-log-behind"})

    def mark(self, text: str) -> None:
        self.log(
            Kind.NOTE,
            {"text": f"injected by the proxy: {text}", "code": "proxy-injected", "injected": " ".join(self.injected)},
        )

    def begin(self, data: bytes | None) -> Any:
        """Log the REQUEST (and the client-side findings); match the fault rules."""
        obj: Any = None
        text: str | None = None
        encoding = None
        rpc = self.rpc
        if rpc is not None:
            info = _info(self.path, self.dialect, rpc, self.method)
            if data is not None:
                try:
                    obj, text = grpc_schema.to_json_text(grpc_schema.decode(self.dialect, rpc.request, data))
                    encoding = "utf-8"
                except ValueError:
                    text, encoding = base64.b64encode(data).decode("ascii"), "base64"
        else:
            info = {"binding": "grpc", "grpc_path": self.path}
        who = self.client
        self.number = self.session.new_exchange()
        listener = self.listener
        headers = metadata_dict(self.metadata)
        # The fields in the order the general path wrote them ({..., **info, ...}).
        record = {
            "method": "POST",
            "url": listener.url + self.path,
            "headers": headers,
            "body": text,
            "body_encoding": encoding,
            "body_size": None if data is None else len(data),
            "content_type": "application/grpc",
        }
        record.update(info)
        record["client"] = who
        record["user_agent"] = self.user_agent
        record["proxy_route"] = listener.route
        # request_payload(record), from the dict its body was written from.
        payload = None if obj is None else payloads.grpc_request_payload(self.dialect, self.method, obj, text or "")
        self.log(Kind.REQUEST, record, payload)
        for hook in self.proxy.on_exchange:
            hook(self.number, self.listener, who)
        self.proxy.chain.opened(self.number, self.listener.route, payload, info.get("a2a_method"))
        if self.rpc is not None:
            lower = {k.lower(): v for k, v in headers.items()}
            for code, message, task_id in check_request(Parsed(info, body=obj), lower, payload, self.proxy.tracker):
                extra = {"task_id": task_id} if task_id else {}
                self.log(Kind.NOTE, {"text": message, "code": code, "side": "client", **extra})
            rules = self.proxy.rules
            # (No rule: nothing to match, nor to count.)
            matched = rules.match(info, self.listener.route, (text or "").encode("utf-8")) if len(rules) else []
            self.fault = _combine([rule.fault for _i, rule in matched])
            self.rule_indexes = [i for i, _rule in matched]
        return info

    def _head(self, initial: Any, elapsed: float, *, streaming: bool, added: float | None = None) -> dict[str, Any]:
        """A RESPONSE's head; ``added``: the time the proxy held the call (ms), by
        default the time from its arrival to its relaying (``elapsed`` ago)."""
        data = {
            "status": None,
            "reason": None,
            "headers": metadata_dict(initial),
            "body": None,
            "body_encoding": None,
            "body_size": None,
            "elapsed_ms": elapsed,
            "streaming": streaming,
            "content_type": "application/grpc",
            "added_ms": round(_ms(self.arrived) - elapsed, 3) if added is None else round(added, 3),
        }
        if self.injected:
            data["injected"] = " ".join(self.injected)
        return data

    def failed_record(
        self, info: dict[str, Any], initial: Any, elapsed: float, status: dict[str, Any], **head: Any
    ) -> None:
        """The RESPONSE of a call that ended with an error status before any message."""
        data = self._head(initial, elapsed, streaming=False, **head)
        data.update(status)
        self.log(Kind.RESPONSE, data, payloads.response_payload(info, data) if self.rpc is not None else None)

    def connect_failed(self, details: str) -> None:
        self.log(
            Kind.ERROR,
            {
                "type": "connect",
                "message": f"cannot reach the agent at {self.listener.url}: "
                f"{details.strip().splitlines()[0] if details.strip() else ''}",
            },
        )

    def unary_record(
        self, info: dict[str, Any], initial: Any, elapsed: float, status: dict[str, Any], raw: bytes | int, **head: Any
    ) -> tuple[dict[str, Any], Any]:
        """A unary call's RESPONSE record and payload (not logged: a hold may come
        first); ``raw`` is the answer, or its size when it was too large to hold."""
        data = self._head(initial, elapsed, streaming=False, **head)
        data.update(status)
        if isinstance(raw, int):
            data["body_size"] = raw
            data["cut"] = True
            return data, ProtocolError(payloads.CUT_BODY)
        data["body_size"] = len(raw)
        return data, self._answer(data, raw, info)

    def passed_record(self, initial: Any, elapsed: float, status: dict[str, Any], **head: Any) -> None:
        """The RESPONSE of a call passed through unread (any status)."""
        data = self._head(initial, elapsed, streaming=False, **head)
        data.update(status)
        self.log(Kind.RESPONSE, data)

    def _answer(self, data: dict[str, Any], raw: bytes, info: dict[str, Any]) -> Any:
        """A unary answer into ``data`` as ProtoJSON (within the body limit); its payload."""
        if len(raw) > self.proxy.limits.max_body:
            data["cut"] = True  # relayed whole; too large to log (the client's --max-body)
            return ProtocolError(payloads.CUT_BODY)
        try:
            message = grpc_schema.decode(self.dialect, self.rpc.response, raw)
        except ValueError as exc:
            data.update(body=base64.b64encode(raw).decode("ascii"), body_encoding="base64")
            return ProtocolError(str(exc))
        obj, text = grpc_schema.to_json_text(message)
        data.update(body=text, body_encoding="utf-8")
        code = data.get("grpc_code")
        if isinstance(code, int) and code != 0:
            return payloads.response_payload(info, data)
        # response_payload(info, data), from the dict the body was written from.
        return payloads.grpc_answer_payload(self.dialect, self.method, obj, text)


class MessageLog:
    """A relayed stream's messages, decoded and logged off the relay's path."""

    def __init__(self, call: CallRecords) -> None:
        from pydantic_core import to_json as dump

        self.call = call
        self.session = call.session
        self.backlog = _Backlog()
        self.events = 0
        self.final = False
        self.added_total = 0.0
        self.added_max = 0.0
        self.errors: list[str] = []
        self.dropped = False
        self.closed_by_client = False
        dialect = call.dialect
        self.codec = payloads.codec_for(dialect, "grpc")
        self.lazy = payloads.MessageCodec(self.codec)
        self.cls = grpc_schema.message_class(dialect, call.rpc.response)
        #: The plain next chunk of a text artifact (nearly every message of a long
        #: stream) is read from the message's fields and handed to the tracker as a
        #: TextChunk, its ProtoJSON written once, as the client's drained stream does
        #: (GrpcTransport.stream): no dict, no second parse, no models.
        self.plain = grpc_codec.plain_chunk_reader(dialect) if self.codec is not None else None
        self.dump = dump
        self.limit = call.proxy.limits.max_event

    def put(self, raw: bytes, added: float) -> None:
        self.backlog.put(raw, added)

    def leaves_working(self, raw: bytes) -> bool:
        try:
            obj = grpc_codec.stream_json(self.cls.FromString(raw))
        except Exception:  # noqa: BLE001 - protobuf's DecodeError: not a state change
            return False
        payload = capture(self.codec.decode_stream_event, obj)
        return isinstance(payload, (m.TaskStatusUpdateEvent, m.Task)) and payload.status.state not in _HOLDS

    def one(self, raw: bytes | int, added: float) -> None:
        """Log one message; ``raw`` is its size when it was too large to hold (the
        frame log never holds a message past the limit)."""
        self.added_total += added
        self.added_max = max(self.added_max, added)
        self.events += 1
        number = self.call.number
        if isinstance(raw, int) or len(raw) > self.limit:
            # Relayed whole; logged as the client logs an event past --max-event: cut.
            self.session.append(
                Kind.MESSAGE,
                {"json": None, "size": raw if isinstance(raw, int) else len(raw), "cut": True, "added_ms": added},
                exchange=number,
                payload=ProtocolError(payloads.CUT_EVENT),
            )
            return
        plain = self.plain
        try:
            message = self.cls.FromString(raw)
            got = plain(message) if plain is not None else None
            obj = grpc_codec.stream_json(message) if got is None else None
        except Exception as exc:  # noqa: BLE001 - protobuf's DecodeError
            text = f"not a valid {self.call.rpc.response}: {exc}"
            self.session.append(
                Kind.MESSAGE,
                {
                    "json": None,
                    "size": len(raw),
                    "raw": base64.b64encode(raw).decode("ascii"),
                    "error": text,
                    "added_ms": added,
                },
                exchange=number,
                payload=ProtocolError(text),
            )
            self.session.append(
                Kind.ERROR, {"type": "protocol", "message": f"event {self.events} skipped: {text}"}, exchange=number
            )
            return
        if got is not None:
            text = got[0]
            # An appended chunk: never an error, never a stream's end.
            self.session.append_lazy(
                Kind.MESSAGE,
                {"json": text, "size": len(raw), "added_ms": added},
                TextChunk(*got[1], text, self.codec),
                self.lazy,
                number,
            )
            return
        text = self.dump(obj).decode("utf-8")
        payload = self.codec.decode_sse_fast(text)
        if payload is None:
            payload = capture(self.codec.decode_stream_event, obj)
        self.session.append_lazy(
            Kind.MESSAGE, {"json": text, "size": len(raw), "added_ms": added}, payload, self.lazy, number
        )
        if isinstance(payload, ProtocolError):
            self.session.append(
                Kind.ERROR,
                {"type": "protocol", "message": f"event {self.events} skipped: {payload.reason}"},
                exchange=number,
            )
        elif not self.final and settles(payload):
            self.final = True

    async def run(self, linger: float = 0.0) -> None:
        """Log what the relay queued, giving the relay a turn every _SLICE seconds;
        with ``linger``, in batches (Backlog.more)."""
        backlog = self.backlog
        clock = time.perf_counter
        while True:
            started = clock()
            while True:
                taken = backlog.take()
                if taken is None:
                    break
                self.one(*taken)
                if clock() - started > _SLICE:
                    await asyncio.sleep(0)
                    started = clock()
            if backlog.closed and not backlog.items:
                return
            await backlog.more(linger)

    def end(self, reason: str, status: dict[str, Any], elapsed: float, injected: list[str]) -> None:
        while True:
            taken = self.backlog.take()
            if taken is None:
                break
            self.one(*taken)
        number = self.call.number
        for text in self.errors:
            self.session.append(Kind.ERROR, {"type": "grpc", "message": text}, exchange=number)
        if reason == "eof" and self.final:
            reason = "complete"
        data = {
            "reason": reason,
            "events": self.events,
            "elapsed_ms": elapsed,
            "terminal": self.final,
            **status,
            "added_ms": round(self.added_total, 3),
            "added_max_ms": round(self.added_max, 3),
        }
        if self.closed_by_client:
            data["closed_by"] = "client"
        if injected:
            data["injected"] = " ".join(injected)
        data.update(self.backlog.waited_fields())
        self.session.append(Kind.STREAM_END, data, exchange=number)
