"""--cacert, --cert, --key and --insecure, as every command that connects reads them."""

from __future__ import annotations

import argparse
import sys

from ..client.tls import TlsError, TlsOptions, ssl_context
from .compose import UsageError

#: Said on stderr whenever --insecure is used: the check it turns off is what tells the
#: agent from anyone in between, and a script's log should show that it was off.
INSECURE_WARNING = (
    "a2a-inspect: WARNING: --insecure: the agent's TLS certificate is not verified; "
    "anyone in between can read and change this traffic"
)


def tls_options(args: argparse.Namespace, *, warn: bool = True) -> TlsOptions | None:
    """The TLS options given, checked (UsageError: one line naming the option); None
    when none is given. ``warn``: say the --insecure warning on stderr."""
    options = TlsOptions(
        cacert=getattr(args, "cacert", None),
        cert=getattr(args, "cert", None),
        key=getattr(args, "key", None),
        insecure=bool(getattr(args, "insecure", False)),
    )
    if options.default:
        return None
    try:
        ssl_context(options)  # built now (and kept) so that a file that does not load is a usage error
    except TlsError as exc:
        raise UsageError(str(exc)) from None
    if options.insecure and warn:
        print(INSECURE_WARNING, file=sys.stderr, flush=True)
    return options
