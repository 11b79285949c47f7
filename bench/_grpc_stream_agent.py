"""A bare gRPC A2AService for bench/grpc_stream.py: SendStreamingMessage answers with the
same N pre-serialised StreamResponse messages every time (a task, a working status,
N-3 artifact chunks, a completed status), so the server costs next to nothing per message
and runs in a process of its own. Prints its port, then serves until stdin closes.

    python bench/_grpc_stream_agent.py EVENTS
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import grpc

from inspector.protocol import grpc_schema

TASK, CONTEXT, ARTIFACT = "task-bench-1", "ctx-bench-1", "art-1"


def messages(n: int) -> list[bytes]:
    def msg(obj: dict) -> bytes:
        return grpc_schema.from_json("1.0", "StreamResponse", obj).SerializeToString()

    out = [
        msg({"task": {"id": TASK, "contextId": CONTEXT, "status": {"state": "TASK_STATE_SUBMITTED"}}}),
        msg({"statusUpdate": {"taskId": TASK, "contextId": CONTEXT, "status": {"state": "TASK_STATE_WORKING"}}}),
    ]
    chunks = max(1, n - 3)
    for i in range(chunks):
        text = f'chunk {i:06d} of the answer, some words é "quoted" '
        out.append(
            msg(
                {
                    "artifactUpdate": {
                        "taskId": TASK,
                        "contextId": CONTEXT,
                        "append": i > 0,
                        "lastChunk": i == chunks - 1,
                        "artifact": {"artifactId": ARTIFACT, "parts": [{"text": text}]},
                    }
                }
            )
        )
    out.append(
        msg({"statusUpdate": {"taskId": TASK, "contextId": CONTEXT, "status": {"state": "TASK_STATE_COMPLETED"}}})
    )
    return out


async def main() -> None:
    prepared = messages(int(sys.argv[1]))

    async def stream(request: bytes, context: grpc.aio.ServicerContext):
        for item in prepared:
            yield item

    handler = grpc.method_handlers_generic_handler(
        "lf.a2a.v1.A2AService", {"SendStreamingMessage": grpc.unary_stream_rpc_method_handler(stream)}
    )
    server = grpc.aio.server(options=[("grpc.max_send_message_length", -1)])
    server.add_generic_rpc_handlers((handler,))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    print(port, flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    await server.stop(0)


if __name__ == "__main__":
    asyncio.run(main())
