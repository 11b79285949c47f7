"""SSEParser's fast path (one line-ending style, split in C) must notice every other
line break: a lone CR or LF inside a CRLF-framed block, or a blank line of another
style after the last CRLF one, sends the buffer to the general scanner. Each stream is
fed whole, so every event it completes must come out of that one feed."""

from __future__ import annotations

import pytest

from inspector.client.sse import SSEParser
from test_sse import keys, reference

STREAMS = {
    "lone CR in a CRLF block": b"data: a\rdata: b\r\n\r\ndata: c\r\n\r\n",
    "lone LF in a CRLF block": b"data: a\ndata: b\r\n\r\ndata: c\r\n\r\n",
    "CR CRLF in a block": b"data: a\r\r\ndata: b\r\n\r\n",
    "LF blank line after the last CRLF one": b"data: a\r\n\r\ndata: b\n\n",
    "CR blank line after the last CRLF one": b"data: a\r\n\r\ndata: b\r\r",
    "lone CR pending after the last CRLF blank line": b"data: a\r\n\r\ndata: b\r",
    "LF blank line before a CRLF one": b"data: a\n\ndata: b\r\n\r\n",
    "CR blank line, no CRLF one": b"data: a\r\rdata: b\r\n",
    "not UTF-8, lone LF": b"data: \xff\ndata: b\r\n\r\ndata: c\r\n\r\n",
    "not UTF-8, LF blank line in a CRLF block": b"data: \xff\n\ndata: b\r\n\r\ndata: c\r\n\r\n",
    "not UTF-8, LF blank line after": b"data: \xff\r\n\r\ndata: b\n\n",
    "multi-line CRLF block": b"event: x\r\ndata: a\r\ndata: b\r\n\r\ndata: c\r\n\r\n",
    "extra CRLF blank lines": b"\r\n\r\ndata: a\r\n\r\n\r\n\r\n\r\ndata: b\r\n\r\n",
}


@pytest.mark.parametrize("name", sorted(STREAMS))
def test_fed_whole(name: str) -> None:
    stream = STREAMS[name]
    parser = SSEParser()
    got = parser.feed(stream)
    rest = parser.close()
    assert keys(got + rest) == reference(stream)
    # Whatever the reference completes before the end of the stream came out of feed().
    complete = [item for item in reference(stream) if not (item[0] == "event" and item[6])]
    assert keys(got) == complete
