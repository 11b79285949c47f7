"""A 1.0 gRPC agent that floods: SendStreamingMessage answers with a task, then COUNT
artifact chunks of SIZE bytes of text each (after the first, the same serialised message
every time: the agent costs next to nothing), an empty last chunk and a completed status,
COUNT + 3 messages that break no rule of A2A. Run as a process of its own, so
that the client's memory is measured alone; prints its port, serves until stdin closes.

    python tests/grpc_flood_agent.py COUNT SIZE
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import grpc

from inspector.protocol import grpc_schema

TASK, CONTEXT = "task-flood-1", "ctx-flood-1"


def _message(obj: dict) -> bytes:
    return grpc_schema.from_json("1.0", "StreamResponse", obj).SerializeToString()


async def main(count: int, size: int) -> None:
    first = _message({"task": {"id": TASK, "contextId": CONTEXT, "status": {"state": "TASK_STATE_WORKING"}}})

    def chunk(text: str, append: bool, last: bool = False) -> bytes:
        message = grpc_schema.from_json(
            "1.0",
            "StreamResponse",
            {
                "artifactUpdate": {
                    "taskId": TASK,
                    "contextId": CONTEXT,
                    "append": append,
                    "lastChunk": last,
                    "artifact": {"artifactId": "a", "parts": [{"text": ""}]},
                }
            },
        )
        message.artifact_update.artifact.parts[0].text = text  # ProtoJSON takes seconds for 60 MB
        return message.SerializeToString()

    opening, more, closing = chunk("x" * size, False), chunk("x" * size, True), chunk("", True, True)
    done = _message(
        {"statusUpdate": {"taskId": TASK, "contextId": CONTEXT, "status": {"state": "TASK_STATE_COMPLETED"}}}
    )

    async def stream(request: bytes, context: grpc.aio.ServicerContext):
        yield first
        yield opening
        for _ in range(count - 1):
            yield more
        yield closing
        yield done

    handler = grpc.method_handlers_generic_handler(
        "lf.a2a.v1.A2AService", {"SendStreamingMessage": grpc.unary_stream_rpc_method_handler(stream)}
    )
    server = grpc.aio.server(options=[("grpc.max_send_message_length", -1), ("grpc.max_receive_message_length", -1)])
    server.add_generic_rpc_handlers((handler,))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    print(port, flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    await server.stop(0)


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]), int(sys.argv[2])))
