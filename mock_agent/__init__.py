"""a2a-mock: a scriptable mock A2A agent for client authors.

``MockAgent`` serves a scenario (a built-in's name or a YAML/JSON file) on a free
loopback port; ``a2a-mock`` is the command-line front end; the ``a2a_mock`` pytest
fixture comes from ``mock_agent.pytest_plugin``.
"""

from .api import MockAgent
from .loader import ScenarioError, builtins, load_file, load_text, resolve
from .profiles import PROFILES
from .scenario import Scenario
from .server import MockServer

__all__ = ["MockAgent", "MockServer", "PROFILES", "Scenario", "ScenarioError", "builtins", "load_file",
           "load_text", "resolve"]
