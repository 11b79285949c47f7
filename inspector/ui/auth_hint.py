"""What a 401/403 means for the open agent, and where in the TUI to fix it: the same
reading of the card as the command line's hint (client.auth), with the TUI's place to
set a credential (a saved agent) instead of an option."""

from __future__ import annotations

from typing import Any

from ..client.auth import card_asks, refusal


def refused_hint(conn: Any, exc: BaseException) -> str | None:
    """One line for an agent's 401/403, or None (another status, or nothing to say:
    no credential sent and a card that declares no scheme)."""
    status = getattr(exc, "status", None) or getattr(exc, "http_status", None)
    refused = refusal(status)
    if refused is None or conn is None:
        return None
    asks = card_asks(getattr(conn, "card", None))
    what = asks[0] if asks else None
    if asks is not None and asks[1].kind == "other":
        what = f"{what} (a token from it goes as a bearer token)"
    where = (
        "ctrl+b, then e edits the saved agent's auth"
        if getattr(conn, "saved_as", None)
        else "ctrl+b, then s saves this agent, its auth prefilled from the card"
    )
    auth = getattr(conn, "auth", None)
    if auth is not None:
        # A credential went and was refused: it is the one to check.
        said = f"{refused} with {auth.description} sent"
        return f"{said}; {what}: check it ({where})" if what else f"{said}: check it ({where})"
    if what is None:
        return None
    return f"{refused}; {what}: set it in a saved agent ({where})"
