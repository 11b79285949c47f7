"""The loopback address every server of ours binds by default; apart from runner.py so
that an option's default does not load uvicorn (a2a-mock --check, --list)."""

LOOPBACK = "127.0.0.1"
