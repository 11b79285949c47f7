"""a2a-inspect as a proxy between A2A clients and agents: it relays every request to
its upstream, streams the answers back as they arrive, and logs both into a Session,
so that the TUI, recordings, replay and the exports see intercepted traffic as any
other. Fault rules (faults.py) change what it relays, on purpose and marked as such.

Above the client layer: it may use protocol, session and client, never headless or ui
(and never textual). docs/proxy.md describes it.
"""

from .core import Proxy, Route
from .faults import Rule, Rules, RulesError, load_rules
from .server import ProxyServer

__all__ = ["Proxy", "ProxyServer", "Route", "Rule", "Rules", "RulesError", "load_rules"]
