"""A bare A2A 1.0 agent for memory benchmarks: it answers every streaming call with a
long stream made on the fly, so the agent's own memory stays flat whatever the count.

    python bench/_stream_agent.py WORKLOAD COUNT     # prints its port, then serves

WORKLOAD is ``chunks`` (one artifact in COUNT chunks of about 45 characters) or
``status`` (COUNT working status updates, each with a short agent message: "token
streaming" as LLM agents built on a2a-sdk do it). Either stream opens with the task and
a working status and ends with a completed status marked final, in a2a-sdk's 1.0 wire
form (``json.dumps`` defaults, CRLF framing). A GET of /.well-known/agent-card.json gets
a 1.0 card that says it streams (so ``a2a-inspect URL`` connects with its defaults, as
to any agent), any other GET 404. Standard library only; loopback only.
"""

from __future__ import annotations

import asyncio
import json
import sys
import uuid

TASK = "8d2a4519-7d2b-4dc3-8678-233a626c1475"
CONTEXT = "1fcf7e93-3ffd-4922-89f6-82e3d98109f4"
#: About this many bytes go out per write.
WRITE = 64 * 1024


def _event(result: dict, rpc_id: object) -> bytes:
    return b"data: " + json.dumps({"result": result, "id": rpc_id, "jsonrpc": "2.0"}).encode() + b"\r\n\r\n"


def _status(state: str, text: str | None, *, final: bool = False) -> dict:
    status: dict = {"state": state}
    if text is not None:
        status["message"] = {
            "messageId": str(uuid.uuid4()),
            "contextId": CONTEXT,
            "taskId": TASK,
            "role": "ROLE_AGENT",
            "parts": [{"text": text}],
        }
    update: dict = {"taskId": TASK, "contextId": CONTEXT, "status": status}
    if final:
        update["final"] = True
    return {"statusUpdate": update}


def card(host: str) -> bytes:
    return json.dumps(
        {
            "name": "stream agent",
            "description": "one long stream per call (bench/_stream_agent.py)",
            "version": "1",
            "supportedInterfaces": [{"url": f"http://{host}/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
            "capabilities": {"streaming": True},
            "defaultInputModes": ["text"],
            "defaultOutputModes": ["text"],
            "skills": [],
        }
    ).encode()


def chunk_text(i: int) -> str:
    # About 45 characters, every one different, with a little non-ASCII and punctuation.
    return f"token {i:07d} of the answer, naïve “quoted” —\n"


def events(workload: str, count: int, rpc_id: object):
    """The stream's SSE events, one bytes object each."""
    yield _event({"task": {"id": TASK, "contextId": CONTEXT, "status": {"state": "TASK_STATE_SUBMITTED"}}}, rpc_id)
    yield _event(_status("TASK_STATE_WORKING", None), rpc_id)
    for i in range(count):
        if workload == "chunks":
            update = {
                "taskId": TASK,
                "contextId": CONTEXT,
                "artifact": {"artifactId": "answer", "name": "answer", "parts": [{"text": chunk_text(i)}]},
            }
            if i:
                update["append"] = True
            if i == count - 1:
                update["lastChunk"] = True
            yield _event({"artifactUpdate": update}, rpc_id)
        else:
            yield _event(_status("TASK_STATE_WORKING", f"token {i} "), rpc_id)
    yield _event(_status("TASK_STATE_COMPLETED", "done", final=True), rpc_id)


async def serve(workload: str, count: int) -> None:
    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                method, path = lines[0].split(" ")[:2]
                length = 0
                host = "127.0.0.1"
                for line in lines[1:]:
                    name, _, value = line.partition(":")
                    if name.strip().lower() == "content-length":
                        length = int(value)
                    elif name.strip().lower() == "host":
                        host = value.strip()
                body = await reader.readexactly(length) if length else b""
                if method != "POST":
                    if path.split("?")[0] == "/.well-known/agent-card.json":
                        answer = card(host)
                        writer.write(
                            b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: %d\r\n\r\n%b"
                            % (len(answer), answer)
                        )
                    else:
                        writer.write(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n")
                    await writer.drain()
                    continue
                rpc_id = json.loads(body).get("id")
                writer.write(
                    b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream; charset=utf-8\r\n"
                    b"cache-control: no-store\r\ntransfer-encoding: chunked\r\n\r\n"
                )
                pending: list[bytes] = []
                size = 0
                for event in events(workload, count, rpc_id):
                    pending.append(event)
                    size += len(event)
                    if size >= WRITE:
                        block = b"".join(pending)
                        writer.write(b"%x\r\n%b\r\n" % (len(block), block))
                        await writer.drain()
                        pending, size = [], 0
                if pending:
                    block = b"".join(pending)
                    writer.write(b"%x\r\n%b\r\n" % (len(block), block))
                writer.write(b"0\r\n\r\n")
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    print(server.sockets[0].getsockname()[1], flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(serve(sys.argv[1], int(sys.argv[2])))
