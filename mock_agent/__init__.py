"""a2a-mock: a scriptable mock A2A agent for client authors.

``MockAgent`` serves a scenario (a built-in's name or a YAML/JSON file) on a free
loopback port; ``a2a-mock`` is the command-line front end; the ``a2a_mock`` pytest
fixture comes from ``mock_agent.pytest_plugin``.

The names below are imported on first use: pytest loads the plugin module (and so this
package) in every run wherever a2a-inspect is installed, and that must not cost the
server stack's import time until a test asks for a mock.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from .api import MockAgent as MockAgent
    from .loader import ScenarioError as ScenarioError
    from .loader import builtins as builtins
    from .loader import load_file as load_file
    from .loader import load_text as load_text
    from .loader import resolve as resolve
    from .profiles import PROFILES as PROFILES
    from .scenario import Scenario as Scenario
    from .server import MockServer as MockServer

_WHERE = {
    "MockAgent": ".api",
    "MockServer": ".server",
    "PROFILES": ".profiles",
    "Scenario": ".scenario",
    "ScenarioError": ".loader",
    "builtins": ".loader",
    "load_file": ".loader",
    "load_text": ".loader",
    "resolve": ".loader",
}

__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value
