"""The three wire dialects, and the names users may call them by."""

from __future__ import annotations

import re

from .base import Dialect
from .v01 import V01Dialect
from .v03 import V03Dialect
from .v10 import V10Dialect

v01 = V01Dialect()
v03 = V03Dialect()
v10 = V10Dialect()

#: Newest first: the order detection tries them in.
ALL: tuple[Dialect, ...] = (v10, v03, v01)

DIALECTS: dict[str, Dialect] = {d.name: d for d in ALL}

_WORDS = {"draft": v01, "0.1 draft": v01, "0.2/0.3": v03}
_VERSION = re.compile(r"v?(\d+)(?:\.(\d+|x))?(?:\.(\d+|x))?")


def get_dialect(name: str) -> Dialect:
    """``"0.1"``/``"draft"``, ``"0.2"``..``"0.3.0"``, ``"1.0"``/``"1.0.1"`` -> the codec.

    Any 0.2.x speaks the 0.3 codec's wire format (0.2 and 0.3 share method names and
    shapes; the codec decodes the older spellings too)."""
    exact = DIALECTS.get(name)
    if exact is not None:  # a dialect's own name, as every logged event holds it
        return exact
    key = name.strip().lower()
    if key in _WORDS:
        return _WORDS[key]
    match = _VERSION.fullmatch(key)
    if match:
        major, minor = match.group(1), match.group(2)
        if major == "0" and minor == "1":
            return v01
        if major == "0" and minor in ("2", "3"):
            return v03
        if major == "1" and minor in (None, "0", "x"):
            return v10
    choices = ", ".join(f"{d.name} ({d.label})" for d in ALL)
    raise ValueError(f"unknown A2A dialect {name!r}; choose one of: {choices} (also: draft, 0.2, 0.3.0, 1.0.1 ...)")


__all__ = ["ALL", "DIALECTS", "Dialect", "get_dialect", "v01", "v03", "v10"]
