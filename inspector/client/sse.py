"""Server-sent events from raw bytes, keeping what httpx-sse hides from a debugger.

We parse ourselves because an inspector needs the parts a normal client throws away:
comment lines (heartbeats) are reported, every event keeps its raw text, an event cut
off by the end of the stream is reported instead of dropped, and one event that is not
UTF-8 becomes one error while the stream goes on.

The parser works a block at a time on bytes: when a chunk uses one line-ending style,
``bytes.split`` on the blank line finds every block in C and the complete region is
decoded at once; otherwise a regex finds them. Lines are split on CR, LF and CRLF only,
never with ``str.splitlines`` (which also splits on U+2028/U+2029 inside JSON strings).

Decisions the spec leaves to us:
  * A block of field lines with no ``data`` line (``id: 7``, ``event: x``) is not an
    event per the spec, but we still yield it, with ``data=None``, so its raw text is on
    record; callers must not decode it.
  * A block of only comment lines yields only the comments.
  * Comment text is everything after the colon, leading space included, so nothing
    about the line is lost. Comments at the head of a block are reported as soon as
    their line ends (heartbeats must not wait for a blank line) and are never part of
    the following event's ``raw``.
  * At the end of the stream, a block without its blank line is yielded with
    ``incomplete=True`` (the spec would drop it silently).
  * A block whose field lines (its head comments aside) take more than ``max_event``
    bytes, complete or still pending, raises EventTooLarge, carrying the items
    completed before it and the block's first ``max_event`` bytes: what stays buffered
    between feeds is never more than one limit's worth.
"""

from __future__ import annotations

import base64
import re
from collections.abc import AsyncIterable, AsyncIterator
from dataclasses import dataclass
from typing import Any, overload

from ..protocol.errors import ProtocolError
from ..protocol.sizes import format_size
from ..session.sse_block import block_fields

_BOM = b"\xef\xbb\xbf"

# A blank line ends a block: two line terminators in a row. The CR of a CRLF must not
# count as a terminator of its own, or "a\r\nb" would look like a blank line.
_BLOCK_END = re.compile(rb"(?:\r\n|\r(?!\n)|\n)(?:\r\n|\r(?!\n)|\n)")

# A separator spans at most 4 bytes, so one that straddles two chunks starts at most
# this many bytes before the old buffer's end.
_STRADDLE = 3


@dataclass(slots=True)
class SSEEvent:
    """One SSE block as received.

    ``raw`` is the block's text without the blank line that ended it (base64 of the
    bytes when ``raw_encoding`` is "base64": the block was not UTF-8). ``data`` is the
    data lines joined with "\\n", or None when the block had no data line. ``id`` and
    ``retry`` are this block's own fields (None when absent or invalid)."""

    raw: str
    event: str | None = None
    data: str | None = None
    id: str | None = None
    retry: int | None = None
    #: The stream ended before the blank line that would have dispatched this block.
    incomplete: bool = False
    #: Set when the block could not be read at all (not UTF-8); data is then None.
    error: ProtocolError | None = None
    raw_encoding: str = "utf-8"


@dataclass(slots=True)
class SSEComment:
    """One comment line (``: heartbeat``); ``text`` is everything after the colon."""

    text: str


SSEItem = SSEEvent | SSEComment


class EventTooLarge(Exception):
    """One block is longer than the parser's ``max_event``. ``items``: what was complete
    before it (not yet returned); ``head``: the block's first ``max_event`` bytes."""

    def __init__(self, items: list[SSEItem], head: bytes) -> None:
        super().__init__(f"an event is larger than {format_size(len(head))}")
        self.items = items
        self.head = head


class SSEParser:
    """Incremental: ``feed(chunk)`` any split of the byte stream, then ``close()``.

    Both return the items completed so far, in stream order. The output does not depend
    on how the stream was split into chunks (nor does where EventTooLarge is raised)."""

    __slots__ = ("_buf", "_scanned", "_at_start", "last_event_id", "max_event")

    def __init__(self, max_event: int | None = None) -> None:
        #: The longest block accepted, in bytes (None: no limit).
        self.max_event = max_event
        self._buf = bytearray()
        # How much of _buf has already been searched for a separator.
        self._scanned = 0
        self._at_start = True
        #: The spec's "last event ID": the latest ``id:`` seen, kept across events.
        self.last_event_id: str | None = None

    def feed(self, chunk: bytes) -> list[SSEItem]:
        out: list[SSEItem] = []
        if not chunk:
            return out
        if self._buf:
            self._buf += chunk
            buf: bytes | bytearray = self._buf
        else:
            buf = chunk
        if self._at_start:
            if len(buf) < len(_BOM) and _BOM.startswith(buf):
                self._keep(buf, 0)  # could still become a BOM
                return out
            self._at_start = False
            if buf[:3] == _BOM:
                buf = buf[3:]
                self._scanned = 0
        pos = self._fast(buf, out) if len(buf) - len(chunk) <= _FAST_PENDING else -1
        if pos < 0:
            pos = self._scan(buf, out)
        self._keep(buf, pos)
        if self._buf:
            pos = _head_comments(self._buf, out, False)
            if pos:
                del self._buf[:pos]
                self._scanned = len(self._buf)
            if self.max_event is not None and len(self._buf) > self.max_event:
                raise EventTooLarge(out, bytes(self._buf[: self.max_event]))
        return out

    def close(self) -> list[SSEItem]:
        """End of stream: whatever is left is an incomplete block (reported, not dropped)."""
        out: list[SSEItem] = []
        rest = bytes(self._buf)
        self._buf = bytearray()
        self._scanned = 0
        if rest:
            # feed() left at most max_event bytes pending.
            self._block_bytes(rest, out, True)
        return out

    # -- internals ------------------------------------------------------------------

    def _fast(self, buf: bytes | bytearray, out: list[SSEItem]) -> int:
        """When the buffer uses one line-ending style, a blank line is one fixed string:
        split in C and decode everything complete at once. Returns where the unparsed
        rest starts, or -1 to leave the buffer to the general scanner.

        One style means: no CR at all (LF), or every CR and LF paired as CRLF. Rather
        than count CRs, LFs and CRLFs over the whole buffer (three passes that
        dominated the reader's time), it splits on the CRLF blank line and checks only
        the pieces that have a line break in them, and the rest after the last blank
        line: the separators are CRLF by construction, and a CRLF cannot straddle one,
        so the buffer is all CRLF exactly when every piece is."""
        crlf = b"\r" in buf
        sep = b"\r\n\r\n" if crlf else b"\n\n"
        last = buf.rfind(sep)
        if last < 0:
            return -1 if crlf and not _all_crlf(buf, b"\r", b"\n", b"\r\n") else 0
        cut = last + len(sep)
        if self.max_event is not None and cut > self.max_event:
            return -1  # some block may be over the limit: _scan measures each one
        if crlf and not _all_crlf(buf[cut:], b"\r", b"\n", b"\r\n"):
            return -1
        region = buf[:cut]
        try:
            text = region.decode("utf-8")
        except UnicodeDecodeError:
            pieces = region.split(sep)[:-1]
            if crlf and not all(_all_crlf(block, b"\r", b"\n", b"\r\n") for block in pieces):
                return -1
            for raw in pieces:
                if raw:
                    self._block_bytes(raw, out, False)
            return cut
        # The piece after the last separator holds only line breaks (blank lines).
        blocks = text.split("\r\n\r\n" if crlf else "\n\n")
        blocks.pop()
        if crlf:
            for block in blocks:
                if ("\n" in block or "\r" in block) and not _all_crlf(block, "\r", "\n", "\r\n"):
                    return -1
        block_text = self._block_text
        add = out.append
        for block in blocks:
            if not block:
                continue
            if "\n" not in block and "\r" not in block and block.startswith("data:"):
                # The common case, inlined: one "data:" line.
                add(SSEEvent(block, None, block[6:] if block[5:6] == " " else block[5:]))
            else:
                block_text(block, out, False)
        return cut

    def _scan(self, buf: bytes | bytearray, out: list[SSEItem]) -> int:
        """Mixed or lone-CR line endings, or a long pending block: regex, from where the
        previous feed stopped searching."""
        pos = 0
        limit = self.max_event
        for match in _BLOCK_END.finditer(buf, max(0, self._scanned - _STRADDLE)):
            end = match.start()
            if end > pos:
                if limit is not None and end - pos > limit:
                    self._big_block(buf[pos:end], out, limit)
                else:
                    self._block_bytes(buf[pos:end], out, False)
            pos = match.end()
        return pos

    def _big_block(self, block: bytes | bytearray, out: list[SSEItem], limit: int) -> None:
        # The comment lines at a block's head are items of their own (heartbeats), not
        # part of the event: measured without them, as a pending block is.
        skip = _head_comments(block, out, True) if block[0] in _HEAD_BYTES else 0
        if len(block) - skip > limit:
            raise EventTooLarge(out, bytes(block[skip : skip + limit]))
        if skip < len(block):
            self._block_bytes(block[skip:], out, False)

    def _keep(self, buf: bytes | bytearray, pos: int) -> None:
        if buf is self._buf:
            if pos:
                del self._buf[:pos]
        else:
            self._buf = bytearray(buf[pos:]) if pos < len(buf) else bytearray()
        self._scanned = len(self._buf)

    def _block_bytes(self, block: bytes | bytearray, out: list[SSEItem], incomplete: bool) -> None:
        if block[0] in _HEAD_BYTES:
            block = block[_head_comments(block, out, True) :]
            if not block:
                return
        try:
            text = block.decode("utf-8")
        except UnicodeDecodeError as exc:
            out.append(
                SSEEvent(
                    base64.b64encode(block).decode("ascii"),
                    incomplete=incomplete,
                    error=ProtocolError(f"event is not UTF-8 (byte 0x{block[exc.start]:02x} at offset {exc.start})"),
                    raw_encoding="base64",
                )
            )
            return
        self._block_text(text, out, incomplete)

    def _block_text(self, text: str, out: list[SSEItem], incomplete: bool) -> None:
        if text[0] in "\r\n:":
            # Same split as _block_bytes makes, so chunking cannot change the output.
            block = text.encode("utf-8")
            text = block[_head_comments(block, out, True) :].decode("utf-8")
            if not text:
                return
        comments: list[str] = []
        event, data, id_, retry, has_field = block_fields(text, comments)
        for comment in comments:
            out.append(SSEComment(comment))
        if id_ is not None:
            self.last_event_id = id_
        if has_field:
            out.append(SSEEvent(text, event, data, id_, retry, incomplete))


# Above this much pending data, re-counting line endings on every chunk would be
# quadratic in the size of one huge event; the regex resumes where it stopped instead.
_FAST_PENDING = 1 << 16

_HEAD_BYTES = frozenset(b"\r\n:")


@overload
def _all_crlf(piece: bytes | bytearray, cr: bytes, lf: bytes, crlf: bytes) -> bool: ...
@overload
def _all_crlf(piece: str, cr: str, lf: str, crlf: str) -> bool: ...
def _all_crlf(piece: str | bytes | bytearray, cr: Any, lf: Any, crlf: Any) -> bool:
    """Every CR and LF of ``piece`` (bytes or text) is part of a CRLF."""
    n = piece.count(cr)
    return n == piece.count(lf) == piece.count(crlf)


def _head_comments(buf: bytes | bytearray, out: list[SSEItem], to_end: bool) -> int:
    """Report the comment lines at the head of a block; return where its fields start.

    Heartbeats must show when their line ends, not when a later blank line does, so a
    pending block's head is read early; splitting it off the same way when the block
    arrives whole keeps the output independent of chunking (a leading comment is never
    part of ``raw``). A comment after a field line belongs to its block and is reported
    with it. Blank lines at the head end an empty block: they dispatch nothing."""
    pos = 0
    n = len(buf)
    while pos < n:
        byte = buf[pos]
        if byte == 0x0A or byte == 0x0D:
            pos += 1
            continue
        if byte != 0x3A:  # ':'
            break
        cr = buf.find(b"\r", pos)
        lf = buf.find(b"\n", pos)
        end = cr if lf < 0 or 0 <= cr < lf else lf
        if end < 0:
            if not to_end:
                break  # the line may still grow
            end = n
        out.append(SSEComment(bytes(buf[pos + 1 : end]).decode("utf-8", "replace")))
        pos = end + 1
    return pos


async def aiter_sse(chunks: AsyncIterable[bytes]) -> AsyncIterator[SSEItem]:
    """Parse an async byte stream; the last items come from ``close()`` at its end."""
    parser = SSEParser()
    async for chunk in chunks:
        for item in parser.feed(chunk):
            yield item
    for item in parser.close():
        yield item
