"""``a2a-inspect check``: a battery of conformance probes run against a live agent on
every binding its card lists. Results are data (runner.Report): headless renders them
as text, JSON and JUnit, the UI in its Check view. Never imports textual."""

from .context import CheckOptions
from .probe import FAIL, GROUPS, PASS, PROBES, SKIP, Probe, Result
from .runner import Report, run_check, selected

__all__ = [
    "FAIL",
    "GROUPS",
    "PASS",
    "PROBES",
    "SKIP",
    "CheckOptions",
    "Probe",
    "Report",
    "Result",
    "run_check",
    "selected",
]
