"""Start the TUI from the command line's parsed arguments."""

from __future__ import annotations

import argparse


def launch(args: argparse.Namespace) -> int:
    from .app import InspectorApp

    dialect = "0.3" if args.dialect == "0.2" else args.dialect
    binding = getattr(args, "binding", None) or "auto"
    if binding in ("grpc", "rest") and dialect == "0.1":
        import sys

        label = "gRPC" if binding == "grpc" else "HTTP+JSON/REST"
        print(f"a2a-inspect: --binding {binding}: the 0.1 draft has no {label} binding", file=sys.stderr)
        return 2
    from ..headless.compose import UsageError
    from ..headless.tls_args import tls_options

    try:
        tls = tls_options(args)
    except UsageError as exc:
        import sys

        print(f"a2a-inspect: {exc}", file=sys.stderr)
        return 2
    app = InspectorApp(
        url=args.url,
        dialect=dialect,
        binding=binding,
        demo=args.demo,
        record=args.record,
        push_port=getattr(args, "push_port", 0) or 0,
        record_append=bool(getattr(args, "append", False)),
        tls=tls,
    )
    result = app.run()
    return result if isinstance(result, int) else 0


def launch_hub(args: argparse.Namespace, options: object) -> int:
    """``a2a-inspect hub`` without --headless: the hub, its agents open in the UI."""
    from .app import InspectorApp

    app = InspectorApp(hub=options)
    result = app.run()
    return result if isinstance(result, int) else 0


def launch_proxy(args: argparse.Namespace, options: object) -> int:
    """``a2a-inspect proxy`` without --headless: the proxy's traffic in the UI."""
    from .app import InspectorApp

    app = InspectorApp(proxy=options)
    result = app.run()
    return result if isinstance(result, int) else 0
