"""``a2a-mock --replay FILE --grpc-port N``: a recording's gRPC exchanges served back over gRPC.

The same A2AService adapter as the live mock (grpc_server.add_service), answered from
the recording instead of a scenario. A call is matched the way a REST one is: its
request message read into the normalised params (grpc_codec.decode_request), written
as the 1.0 JSON-RPC request saying the same, and looked up among the recorded gRPC
exchanges (replay_match.Book, which holds each in that form: RecordedExchange.body_json).
The answer is the recorded one: each message's ProtoJSON with the ids rewritten for
this client, at the recorded pace, ending with the recorded status, message and
details.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import logging
from typing import TYPE_CHECKING, Any

from inspector.protocol import grpc_codec, grpc_errors, grpc_schema
from inspector.protocol.errors import ProtocolError
from inspector.protocol.methods import Method
from inspector.safejson import loads
from inspector.session.diff import Rewriter
from inspector.session.events import Kind

from .grpc_server import ServiceFront, status_bin
from .replay_clock import Clock
from .replay_match import Match, Miss

if TYPE_CHECKING:  # pragma: no cover
    from .replay import ReplayServer


async def _never() -> dict[str, Any]:
    # The call's context is cancelled when the client goes away: nothing to watch.
    await asyncio.get_running_loop().create_future()
    return {"type": "http.disconnect"}  # pragma: no cover - never resolves


class ReplayGrpc(ServiceFront):
    """The gRPC server beside a ReplayServer's HTTP one, in the same event loop."""

    def __init__(self, replay: ReplayServer, host: str, port: int) -> None:
        # The dialects served: those of the recorded gRPC exchanges (1.0 when none).
        dialects = sorted(
            {
                d
                for c in replay.book.candidates
                if c.ex.binding == "grpc" and (d := c.ex.dialect) is not None and grpc_schema.supports(d)
            }
        ) or ["1.0"]
        super().__init__(host, port, dialects, replay.max_body)
        self.replay = replay

    async def _abort(self, context: Any, dialect: str, code: int, text: str, details: Any = None) -> None:
        trailers = ((grpc_errors.STATUS_DETAILS_KEY, status_bin(dialect, code, text, details)),) if details else ()
        await context.abort(self._codes.get(code, self._codes[2]), text, trailing_metadata=trailers)

    async def _call(self, dialect: str, rpc: grpc_schema.Rpc, method: Method, request: Any, context: Any) -> Any:
        metadata = {k: v for k, v in (context.invocation_metadata() or ()) if isinstance(v, str)}
        try:
            params = grpc_codec.decode_request(dialect, method, grpc_schema.to_json(request))
            obj = grpc_codec.as_jsonrpc(method, params)
        except (ProtocolError, ValueError) as exc:
            await self._abort(
                context,
                dialect,
                grpc_errors.CODES["INVALID_ARGUMENT"],
                f"a2a-mock replay: the request does not decode: {exc}",
            )
            return None
        try:
            found = self.replay.book.match(obj, metadata.get(grpc_codec.VERSION_KEY), "grpc")
        except Exception as exc:  # noqa: BLE001 - a matcher bug must answer, not hang the call
            logging.getLogger(__name__).exception("replay matching failed")
            await self._abort(
                context, dialect, grpc_errors.CODES["INTERNAL"], f"a2a-mock replay: matching failed: {exc}"
            )
            return None
        if isinstance(found, Miss):
            if self.replay.log is not None:
                self.replay.log(f"no recorded answer for {rpc.name}: {found.why}")
            # An RPC the recording never made is one this agent does not implement (a
            # client trying the card RPC of each dialect reads it so); else the usual status.
            code = (
                grpc_errors.CODES["UNIMPLEMENTED"]
                if found.code == -32601
                else grpc_errors.status_for_rpc_code(found.code)
            )
            await self._abort(context, dialect, code, f"no recorded request matches: {found.why}")
            return None
        return await self._play(found, dialect, rpc, context)

    async def _play(self, match: Match, dialect: str, rpc: grpc_schema.Rpc, context: Any) -> Any:
        ex = match.candidate.ex
        rewrite = Rewriter(dict(match.table))
        clock = Clock(self.replay.speed, ex.request.t, _never)
        try:
            resp = ex.response
            if resp is None:
                why = (
                    f"the recorded request got no response: {ex.errors[-1].data.get('message')}"
                    if ex.errors
                    else "the recording ends before the response to this request"
                )
                if ex.errors:
                    await clock.until(ex.errors[-1].t)
                await self._abort(context, dialect, grpc_errors.CODES["UNAVAILABLE"], f"no recorded response: {why}")
                return None
            await clock.until(resp.t)
            if not resp.data.get("streaming"):
                if resp.data.get("grpc_code"):
                    await self._end(context, dialect, resp.data)
                    return None
                return self._message(dialect, rpc, resp.data.get("body"), resp.data.get("body_encoding"), rewrite)
            for event in ex.stream:
                if event.kind is not Kind.MESSAGE:
                    continue
                await clock.until(event.t)
                data = event.data
                text, encoding = (
                    (data.get("json"), "utf-8") if data.get("json") is not None else (data.get("raw"), "base64")
                )
                await context.write(self._message(dialect, rpc, text, encoding, rewrite))
            end = ex.end
            if end is not None:
                await clock.until(end.t)
                if end.data.get("grpc_code"):
                    await self._end(context, dialect, end.data)
                elif end.data.get("reason") in ("timeout", "limit"):
                    # Our side gave up there: the agent's status was never seen.
                    await self._abort(
                        context,
                        dialect,
                        grpc_errors.CODES["UNAVAILABLE"],
                        f"the recorded stream was cut off here ({end.data.get('reason')})",
                    )
            return None
        finally:
            clock.close()

    async def _end(self, context: Any, dialect: str, data: dict[str, Any]) -> None:
        """End the call with the recorded status, message and rich details."""
        await self._abort(
            context, dialect, int(data["grpc_code"]), str(data.get("grpc_message") or ""), data.get("grpc_details")
        )

    def _message(self, dialect: str, rpc: grpc_schema.Rpc, text: Any, encoding: Any, rewrite: Rewriter) -> Any:
        """A recorded message: its ProtoJSON, ids rewritten, as the response message; bytes
        that did not parse when recorded go back as they came."""
        if not isinstance(text, str):
            return b""
        if encoding == "base64":
            try:
                return base64.b64decode(text)
            except (binascii.Error, ValueError):
                return b""
        try:
            return grpc_schema.from_json(dialect, rpc.response, rewrite(loads(text)), ignore_unknown=True)
        except ValueError:
            return text.encode("utf-8")
