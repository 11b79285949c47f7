"""A client's request path, resolved before it is relayed.

httpx removes dot segments from a URL as RFC 3986 says, so a path relayed as the client
wrote it can climb out of the route it came in on (``/planner/../../x`` reached ``/x``
on the planner's host, above its base path). The server may also decode ``%2e%2e``
into ``..`` itself. So the proxy resolves both kinds of dot segment here, on the path
as sent, and a path that ends up outside its route is refused.

The path relayed is the one the client sent, percent-encoding kept: decoding it first
would turn ``%3F`` into a query and ``%2F`` into a separator.
"""

from __future__ import annotations

import re
from urllib.parse import quote, unquote

__all__ = ["as_sent", "resolve", "sub_path"]

_DOTS = (".", "..")
#: What quote() leaves as it is in a path: RFC 3986's pchar, and "/".
_SAFE = "/:@!$&'()*+,;=~"


def as_sent(path: str, raw_path: bytes | None) -> str:
    """The request's path as the client wrote it: the ASGI ``raw_path``, else ``path``
    (decoded) encoded again."""
    return raw_path.decode("latin-1") if raw_path else quote(path, safe=_SAFE)


def resolve(raw: str) -> str | None:
    """``raw`` (an absolute path, percent-encoded as sent) with its dot segments, spelled
    plainly or percent-encoded, removed; None when a ``..`` would climb above the root
    (RFC 3986 would drop it silently: here it is a path outside every route), or hides
    behind an encoded slash or a backslash."""
    out: list[str] = []
    segments = raw.split("/")[1:]
    last = len(segments) - 1
    for i, segment in enumerate(segments):
        plain = unquote(segment) if "%" in segment else segment
        if plain not in _DOTS and ".." in plain and ".." in re.split(r"[/\\]", plain):
            # "..%2f..%2fx": one segment here, but an agent that decodes before it splits
            # (or takes a backslash for a slash) climbs with it.
            return None
        if plain in _DOTS:
            if plain == "..":
                if not out:
                    return None
                out.pop()
            if i == last:
                out.append("")  # "/a/.." is the directory "/": its trailing slash stays
            continue
        out.append(segment)
    return "/" + "/".join(out)


def sub_path(prefix: str, resolved: str) -> str:
    """The part of ``resolved`` (a path as sent, dot segments gone, under the route
    ``prefix``, which is spelled decoded) after the prefix."""
    if not prefix:
        return resolved
    count = prefix.count("/")
    segments = resolved.split("/")
    if unquote("/".join(segments[: count + 1])) == prefix:
        return "/" + "/".join(segments[count + 1 :]) if len(segments) > count + 1 else ""
    # A prefix written with an encoded slash in it: relay the rest re-encoded.
    return quote(unquote(resolved)[len(prefix) :], safe=_SAFE)
