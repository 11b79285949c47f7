"""A saved agent's credentials as the client sends them: its auth kind and secret, and
its secret headers, each read from its environment variable when it names one; and its
TLS files (CA, client certificate and key), read where it names them."""

from __future__ import annotations

from ..client import Auth
from ..client.tls import TlsError, TlsOptions, ssl_context
from ..store import SavedAgent, secret_value


def saved_auth(saved: SavedAgent) -> Auth | None:
    """Raises store.MissingSecret (naming the variable) when one is unset."""
    auth = None
    if saved.auth and saved.secret is not None:
        secret = secret_value(saved.secret, f"saved agent {saved.name!r}, {saved.auth} secret")
        if saved.auth == "bearer":
            auth = Auth.bearer(secret)
        elif saved.auth == "api-key":
            auth = Auth.api_key(secret, header=saved.auth_header or "X-API-Key")
        elif saved.auth == "basic":
            user, _, password = secret.partition(":")
            auth = Auth.basic(user, password)
    if saved.secret_headers:
        # Credentials too: redacted by name and value, like --secret-header.
        custom = Auth.custom(
            {
                name: secret_value(value, f"saved agent {saved.name!r}, header {name}")
                for name, value in saved.secret_headers.items()
            }
        )
        auth = custom if auth is None else auth + custom
    return auth


def saved_tls(saved: SavedAgent) -> TlsOptions | None:
    options = TlsOptions(
        cacert=saved.cacert or None, cert=saved.cert or None, key=saved.key or None, insecure=bool(saved.insecure)
    )
    return None if options.default else options


def tls_problem(saved: SavedAgent) -> str | None:
    """Why the agent's TLS files cannot be used (one line naming the file), or None."""
    options = saved_tls(saved)
    if options is None:
        return None
    try:
        ssl_context(options)
    except TlsError as exc:
        return (
            str(exc)
            .replace("--cacert", "CA file")
            .replace("--cert/--key", "client cert/key")
            .replace("--cert", "client cert")
            .replace("--key", "client key")
        )
    return None
