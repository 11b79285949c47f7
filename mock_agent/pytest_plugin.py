"""pytest plugin: a mock A2A agent per test, on a free loopback port.

    def test_client(a2a_mock):                       # scenario "echo", every dialect
        reply = my_client.send(a2a_mock.url, "hi")

    @pytest.mark.a2a_mock("streaming", dialect="1.0", time_scale=0.01)
    def test_stream(a2a_mock): ...

    @pytest.mark.a2a_mock("echo", grpc_port=0)      # gRPC too: a2a_mock.grpc_address
    def test_grpc(a2a_mock): ...

    @pytest.mark.parametrize("a2a_mock", ["echo", {"profile": "orloj"}], indirect=True)
    def test_each(a2a_mock): ...

    def test_two_agents(a2a_mock_factory):
        planner = a2a_mock_factory("echo")
        worker = a2a_mock_factory("errors", dialect="0.3")

The marker and an indirect parameter take what ``MockAgent`` takes. The servers run in
a background thread, so the fixtures work in sync and async tests alike.

pytest loads this module in every run wherever a2a-inspect is installed: the mock (its
server stack, pydantic models, YAML) is imported only when a test uses a fixture.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:  # pragma: no cover
    from .api import MockAgent


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "a2a_mock(scenario=None, **options): the scenario and MockAgent options for the a2a_mock fixture",
    )


@pytest.fixture
def a2a_mock_factory() -> Iterator[Callable[..., MockAgent]]:
    """Call with MockAgent's arguments to start a mock; all stop when the test ends."""
    started: list[MockAgent] = []

    from .api import MockAgent

    def start(scenario: Any = None, **options: Any) -> MockAgent:
        mock = MockAgent(scenario, **options).start()
        started.append(mock)
        return mock

    yield start
    for mock in reversed(started):
        mock.stop()


@pytest.fixture
def a2a_mock(request: pytest.FixtureRequest, a2a_mock_factory: Callable[..., MockAgent]) -> MockAgent:
    """A started MockAgent: ``.url``, ``.card_url``, ``.grpc_address`` (with
    ``grpc_port``), ``.tasks``, ``.requests``."""
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = {}
    marker = request.node.get_closest_marker("a2a_mock")
    if marker is not None:
        args, kwargs = marker.args, dict(marker.kwargs)
    param = getattr(request, "param", None)
    if isinstance(param, dict):
        kwargs.update(param)
    elif param is not None:
        args = (param,)
    return a2a_mock_factory(*args, **kwargs)
