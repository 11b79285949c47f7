"""Which card section, and which field, each lint finding is shown beside.

The headless card (headless/render.py) and the TUI's card view (ui/widgets/card_view.py)
lay the card out in the same sections and hand each finding out once, to the first field
or section whose JSON path holds it; what is left is listed at the end. Plain data and
text, so both the text renderer and the widget stand on it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

# Card sections and the JSON paths whose lint findings belong beside them.
CARD_SECTIONS: list[tuple[str, tuple[str, ...]]] = [
    (
        "identity",
        ("$.name", "$.description", "$.version", "$.url", "$.protocolVersion", "$.documentationUrl", "$.iconUrl"),
    ),
    ("provider", ("$.provider",)),
    ("capabilities", ("$.capabilities", "$.supportsAuthenticatedExtendedCard")),
    ("security", ("$.securitySchemes", "$.security", "$.securityRequirements", "$.authentication")),
    ("modes", ("$.defaultInputModes", "$.defaultOutputModes")),
    ("interfaces", ("$.supportedInterfaces", "$.additionalInterfaces", "$.preferredTransport")),
    ("skills", ("$.skills",)),
]

SEVERITY_MARK = {"error": "✗ error", "warning": "! warning", "info": "· info"}


def owns(prefixes: Iterable[str], path: str) -> bool:
    """Whether ``path`` is one of ``prefixes`` or lies inside one."""
    return any(path == p or path.startswith(p + ".") or path.startswith(p + "[") for p in prefixes)


class FindingPlacer:
    """Hands each finding out once, to the first field (or section) that owns it."""

    def __init__(self, findings: Iterable[Any]) -> None:
        self.findings = list(findings)
        self.placed: set[int] = set()

    def take(self, prefixes: Iterable[str]) -> list[Any]:
        prefixes = tuple(prefixes)
        out = []
        for i, f in enumerate(self.findings):
            if i not in self.placed and owns(prefixes, f.path):
                self.placed.add(i)
                out.append(f)
        return out

    def section(self, name: str) -> list[Any]:
        """The findings left for section ``name`` as a whole."""
        return self.take(dict(CARD_SECTIONS).get(name, ()))

    def rest(self) -> list[Any]:
        return [f for i, f in enumerate(self.findings) if i not in self.placed]
