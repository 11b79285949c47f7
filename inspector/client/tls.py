"""How TLS is verified and which client certificate is shown, as curl's options say it:
``--cacert FILE``, ``--cert FILE --key FILE``, ``--insecure``. The one place that turns
them into an ssl.SSLContext (httpx) or gRPC channel credentials, and into the words a
failed handshake is explained with.

Paths are kept, never the files' contents: a saved agent stores where the key is, and a
recording notes which CA was trusted, not what a key holds.
"""

from __future__ import annotations

import ssl
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from .transport import shared_tls_context

#: The NOTE a session gets when certificates are not checked: a recording must say so,
#: as whatever it holds may have come from anyone in between.
INSECURE_NOTE = "TLS certificates are NOT verified (--insecure): anyone in between could have answered"

#: A CA bundle or a certificate is text of a few KiB; anything over this is the wrong file.
MAX_PEM = 4 * 1024 * 1024


class TlsError(ValueError):
    """A TLS option cannot be used: a file missing or not PEM, a key without a cert."""


@dataclass(frozen=True)
class TlsOptions:
    cacert: str | None = None
    cert: str | None = None
    key: str | None = None
    insecure: bool = False

    @property
    def default(self) -> bool:
        return not (self.cacert or self.cert or self.key or self.insecure)

    def describe(self) -> str:
        """For the session's NOTE: which files, never what they hold."""
        parts = []
        if self.insecure:
            parts.append("certificates not verified (--insecure)")
        if self.cacert:
            parts.append(f"CA from {self.cacert}")
        if self.cert:
            parts.append(f"client certificate {self.cert}")
        return "TLS: " + ", ".join(parts)


_lock = threading.Lock()
_contexts: dict[tuple[TlsOptions, tuple[float, ...]], ssl.SSLContext] = {}


def _read(path: str, what: str, option: str) -> bytes:
    try:
        with Path(path).expanduser().open("rb") as fh:
            data = fh.read(MAX_PEM + 1)
    except OSError as exc:
        raise TlsError(f"{option}: cannot read {path}: {exc.strerror or exc}") from None
    if len(data) > MAX_PEM or b"-----BEGIN" not in data:
        raise TlsError(f"{option}: {path} holds no PEM {what}")
    return data


def check(options: TlsOptions) -> None:
    """Raise TlsError (one line) when the options cannot be used, before anything connects."""
    if options.key and not options.cert:
        raise TlsError("--key: give the client certificate with --cert too")
    if options.insecure and options.cacert:
        raise TlsError("--insecure and --cacert: give one (--insecure trusts any certificate)")
    if options.cacert:
        _read(options.cacert, "certificate", "--cacert")
    if options.cert:
        _read(options.cert, "certificate", "--cert")
    if options.key:
        _read(options.key, "private key", "--key")


def ssl_context(options: TlsOptions | None) -> ssl.SSLContext:
    """The context for httpx: the shared default one when no option is given, else one
    built once per options (and per the files' modification times, so an edited file counts)."""
    if options is None or options.default:
        return shared_tls_context()
    stamps = tuple(_mtime(p) for p in (options.cacert, options.cert, options.key))
    key = (options, stamps)
    ctx = _contexts.get(key)
    if ctx is None:
        with _lock:
            ctx = _contexts.get(key)
            if ctx is None:
                ctx = _contexts[key] = _build(options)
    return ctx


def _mtime(path: str | None) -> float:
    try:
        return Path(path).expanduser().stat().st_mtime if path else 0.0
    except OSError:
        return 0.0


def _build(options: TlsOptions) -> ssl.SSLContext:

    check(options)
    if options.insecure:
        ctx = ssl.create_default_context()
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
    elif options.cacert:
        # Like curl's --cacert: this bundle replaces the default one.
        ctx = ssl.create_default_context()
        try:
            ctx.load_verify_locations(cafile=str(Path(options.cacert).expanduser()))
        except ssl.SSLError as exc:
            raise TlsError(f"--cacert: {options.cacert} is not a usable CA bundle ({exc.reason or exc})") from None
    else:
        ctx = httpx.create_ssl_context()
    if options.cert:
        try:
            ctx.load_cert_chain(
                str(Path(options.cert).expanduser()), str(Path(options.key).expanduser()) if options.key else None
            )
        except ssl.SSLError as exc:
            raise TlsError(
                f"--cert/--key: {options.cert} and its key do not load ({exc.reason or exc}); "
                "give the key with --key if it is in a file of its own"
            ) from None
        except OSError as exc:
            raise TlsError(f"--cert/--key: {exc.strerror or exc}") from None
    return ctx


def grpc_credentials(options: TlsOptions | None) -> Any:
    """gRPC channel credentials for the same options. grpcio cannot skip verification:
    --insecure is refused for gRPC in words rather than quietly verified."""
    import grpc

    if options is None or options.default:
        return grpc.ssl_channel_credentials()
    check(options)
    if options.insecure:
        raise TlsError(
            "--insecure is not available for gRPC (grpcio always verifies the agent's "
            "certificate): give its CA with --cacert FILE"
        )
    root = _read(options.cacert, "certificate", "--cacert") if options.cacert else None
    chain = _read(options.cert, "certificate", "--cert") if options.cert else None
    key = _read(options.key, "private key", "--key") if options.key else None
    if chain is not None and key is None:
        key = chain  # the key may follow the certificate in one file, as for --cert alone
    return grpc.ssl_channel_credentials(root_certificates=root, private_key=key, certificate_chain=chain)
