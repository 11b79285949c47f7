"""What an HTTP error's body says went wrong, in a few words: the reason a person needs
beside "HTTP 500", without opening the traffic view.

Servers explain a failure in many shapes: ``{"error": "database down"}``, FastAPI's
``{"detail": ...}``, ``{"message": ...}``, a ``google.rpc.Status`` (``{"error": {"code",
"message", "status"}}``), an RFC 9457 problem (``title``/``detail``), an OAuth error
(``error``/``error_description``), a JSON-RPC error object, or plain text. The excerpt
is bounded (lines and characters, "…" when cut) and left as the agent wrote it: whoever
shows it makes it literal (inspector.textsafe.visible), as all agent text.
"""

from __future__ import annotations

from typing import Any

from ..safejson import loads

#: What an excerpt keeps: the first lines, and at most this many characters of them.
REASON_LINES = 3
REASON_CHARS = 240
#: Bytes of a body looked at for its reason as text.
READ_LIMIT = 64 * 1024
#: JSON up to this size is parsed for the key that holds the reason (a few ms); a larger
#: body shows its start as text.
PARSE_LIMIT = 2 * 1024 * 1024

# Keys that hold a human-readable reason, most telling first.
_TEXT_KEYS = ("detail", "message", "error_description", "errorMessage", "title", "msg", "reason")


def excerpt(text: str, lines: int = REASON_LINES, chars: int = REASON_CHARS) -> str | None:
    """The first ``lines`` non-blank lines of ``text``, at most ``chars`` characters,
    with "…" when anything was left out; None when there is nothing but blanks."""
    kept: list[str] = []
    more = False
    for line in text.strip().splitlines():
        if not line.strip():
            continue
        if len(kept) == lines:
            more = True
            break
        kept.append(line.rstrip())
    if not kept:
        return None
    shown = "\n".join(kept)
    if len(shown) > chars:
        shown, more = shown[:chars].rstrip(), True
    return shown + "…" if more else shown


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def _from_object(obj: Any) -> str | None:
    """The reason a decoded JSON error body names, or None when it names none."""
    if text := _text(obj):
        return text
    if not isinstance(obj, dict):
        return None
    error = obj.get("error")
    if _text(error):  # {"error": "..."}; OAuth adds error_description
        described = _text(obj.get("error_description"))
        return f"{error}: {described}" if described else error
    if isinstance(error, dict):  # google.rpc.Status, or a JSON-RPC error object
        message = _text(error.get("message"))
        if message:
            status = _text(error.get("status"))
            return f"{status}: {message}" if status else message
    for key in _TEXT_KEYS:
        if text := _text(obj.get(key)):
            return text
    # FastAPI's validation errors, and the {"errors": [{"message": ...}]} of many APIs.
    for key, inner in (("detail", "msg"), ("errors", "message"), ("errors", "detail")):
        items = obj.get(key)
        if isinstance(items, list) and items and isinstance(items[0], dict) and (text := _text(items[0].get(inner))):
            return text
    return None


def body_reason(content_type: str | None, raw: bytes | bytearray, phrase: str | None = None) -> str | None:
    """A short excerpt of what the error body ``raw`` says, or None: no body, an HTML page
    (its title is named already), bytes that are not text, or the status's reason
    ``phrase`` again ("Not Found" once is enough)."""
    reason = _reason(content_type, raw)
    if reason is not None and phrase and reason.strip().lower() == phrase.strip().lower():
        return None
    return reason


def _reason(content_type: str | None, raw: bytes | bytearray) -> str | None:
    if not raw:
        return None
    ctype = (content_type or "").split(";")[0].strip().lower()
    head = bytes(raw[:READ_LIMIT])
    if "html" in ctype or head.lstrip()[:1] == b"<":
        return None
    if b"\x00" in head[:8000]:  # an image, a protobuf: nothing a person could read (git's test)
        return None
    text = head.decode("utf-8", "replace")
    if len(raw) <= PARSE_LIMIT and ("json" in ctype or text.lstrip()[:1] in ("{", "[", '"')):
        try:
            reason = _from_object(loads(bytes(raw)))
        except ValueError:
            reason = None
        if reason is not None:
            return excerpt(reason)
    return excerpt(text)
