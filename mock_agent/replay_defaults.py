"""What a client may add to a request, or leave out, without changing what it asks.

``a2a-mock --replay`` matches a new request against the recorded ones by content. Two
clients asking the same thing do not write the same bytes: the official JS SDK sends a
text part with ``mediaType: text/plain``, an empty ``metadata: {}``, an empty
``extensions: []``, ``configuration: {"blocking": true}``, and the header
``A2A-Version: 0.3`` to a 0.3 agent; a2a-inspect sends none of these. Each is a value
the spec (or the ProtoJSON mapping of 1.0's proto3 messages) gives a field when it is
absent, so both requests are read without them before they are compared.

Only fields of the protocol's own objects are touched (the params, the message, its
parts, the send configuration): what a client puts inside a data part, a file or a
metadata object is content and is compared as it came.
"""

from __future__ import annotations

from typing import Any

#: Keys whose empty object (or null) says nothing: metadata maps (proto's Struct).
_EMPTY_OBJECTS = frozenset({"metadata"})
#: Keys whose empty list (or null) says nothing: repeated fields.
_EMPTY_LISTS = frozenset({"extensions", "referenceTaskIds", "acceptedOutputModes"})
#: String fields whose empty string is proto3's "not set": ids, a 1.0 tenant, a 1.0
#: part's filename and media type.
_EMPTY_STRINGS = frozenset({"tenant", "taskId", "contextId", "messageId", "filename", "mediaType"})
#: Configuration fields at their default. 1.0: return_immediately is false unless set
#: ("If false (default)"). 0.2/0.3 name no default for blocking and servers differ
#: (a2a-sdk waits without it; @a2a-js/sdk's 0.3 layer does not, for a configuration
#: sent without it), but the clients agree on what they mean: a2a-inspect sends none
#: for a send that waits, @a2a-js/sdk's client sends true for the same send. Read as 1.0
#: reads its own flag: waiting is the default.
_CONFIG_DEFAULTS = {"returnImmediately": False, "blocking": True}
#: A text part's media type when none is given (1.0 Part.media_type: text/plain for text).
_TEXT_MEDIA_TYPE = "text/plain"


def without_defaults(params: Any) -> Any:
    """A copy of JSON-RPC ``params`` (any dialect; REST and gRPC requests as
    rest.as_jsonrpc / grpc_codec.as_jsonrpc write them) without the fields that hold
    their default value. Anything not shaped like params comes back as it is."""
    if not isinstance(params, dict):
        return params
    out = _fields(params)
    if isinstance(out.get("message"), dict):
        out["message"] = _message(out["message"])
    config = out.get("configuration")
    if isinstance(config, dict):
        config = {
            k: v
            for k, v in _fields(config).items()
            if not (k in _CONFIG_DEFAULTS and isinstance(v, bool) and v == _CONFIG_DEFAULTS[k])
        }
        for key in ("pushNotificationConfig", "taskPushNotificationConfig"):
            if config.get(key, ...) is None:
                del config[key]
        out["configuration"] = config
    if out.get("configuration", ...) in ({}, None):
        out.pop("configuration")
    for key in ("historyLength", "pushNotification"):
        if out.get(key, ...) is None:
            del out[key]
    return out


def _message(message: dict[str, Any]) -> dict[str, Any]:
    out = _fields(message)
    parts = out.get("parts")
    if isinstance(parts, list):
        out["parts"] = [_part(p) if isinstance(p, dict) else p for p in parts]
    return out


def _part(part: dict[str, Any]) -> dict[str, Any]:
    out = _fields(part)
    media = out.get("mediaType")
    if "text" in out and isinstance(media, str) and media.strip().lower() == _TEXT_MEDIA_TYPE:
        del out["mediaType"]
    return out


def _fields(obj: dict[str, Any]) -> dict[str, Any]:
    """``obj`` without its empty metadata, empty lists and unset strings (one level)."""
    out = {}
    for key, value in obj.items():
        if key in _EMPTY_OBJECTS and value in ({}, None):
            continue
        if key in _EMPTY_LISTS and value in ([], None):
            continue
        if key in _EMPTY_STRINGS and value in ("", None):
            continue
        out[key] = value
    return out


def version_of(header: str | None) -> str:
    """The A2A version a request speaks, from its ``A2A-Version`` header: an absent (or
    empty) header means 0.3 (1.0: a server reads a request without it as 0.3), and a
    patch number adds nothing (the header carries Major.Minor): "0.3.0" is "0.3"."""
    value = (header or "").strip() or "0.3"
    parts = value.split(".")
    if len(parts) > 2 and all(p.isdigit() for p in parts):
        return ".".join(parts[:2])
    return value
