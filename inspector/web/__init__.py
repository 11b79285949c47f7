"""``a2a-inspect web``: the terminal UI in a browser tab, served with textual-serve.

The server runs on 127.0.0.1 only and admits one browser: the link it prints carries a
random token that is good once (gate.py); the browser that spends it gets a session
cookie, and every later request, the WebSocket that starts the app included, needs
that cookie. Each browser connection runs the app (``a2a-inspect [URL|--demo]``) as a
subprocess, ended when the tab closes (server.py).

Nothing here imports Textual: the app runs in the subprocess, not in the server.
"""
