"""Byte counts as people read and write them: one convention for the whole product.

Binary (IEC) units, powers of 1024, named KiB, MiB and GiB. The limits a user types
(``--max-body 64M``) have always been powers of 1024, so a message that says a body is
"larger than 64 MiB" names the number the user gave; printing sizes in powers of 1000
beside them would make the same byte count read two ways. Every size shown (CLI
messages, limit errors, the TUI's traffic, artifacts and parts, the benchmarks) goes
through ``format_size``.
"""

from __future__ import annotations

import re

KiB = 1024
MiB = 1024 * KiB
GiB = 1024 * MiB

_SIZE = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([kmg]?)(?:i?b)?\s*", re.IGNORECASE)
_UNITS = {"": 1, "k": KiB, "m": MiB, "g": GiB}
_NAMES = ((KiB, "KiB"), (MiB, "MiB"), (GiB, "GiB"))


def parse_size(text: str) -> int:
    """'65536', '64K', '64M', '1.5G' (also '64MiB', '64MB': all powers of 1024) -> bytes.
    ValueError on anything else, or on less than one byte."""
    match = _SIZE.fullmatch(text)
    if match is None:
        raise ValueError(f"not a size: {text!r} (bytes, or a number with K, M or G)")
    size = int(float(match.group(1)) * _UNITS[match.group(2).lower()])
    if size < 1:
        raise ValueError(f"not a size: {text!r} (at least 1 byte)")
    return size


def format_size(n: int | None) -> str:
    """``29 B``, ``1.5 KiB``, ``64 MiB``, ``1.0 GiB``; ``""`` for an unknown size.

    A whole number of units has no decimals, so a limit reads as it is typed back
    (``64 MiB``); anything else has one, so ``64.0 MiB`` says "rounded"."""
    if n is None:
        return ""
    if abs(n) < KiB:
        return f"{n} B"
    for unit, name in _NAMES:
        # The smallest unit that keeps the number below 1024 once rounded (1048575
        # bytes is "1.0 MiB", not "1024.0 KiB").
        if round(abs(n) / unit, 1) < 1024 or unit == GiB:
            return f"{n // unit} {name}" if n % unit == 0 else f"{n / unit:.1f} {name}"
    raise AssertionError("unreachable")  # pragma: no cover


def base64_size(data: str) -> int:
    """Decoded length of base64 text (a file part's bytes), without decoding it."""
    stripped = data.strip()
    pad = len(stripped) - len(stripped.rstrip("="))
    return max(0, len(stripped) * 3 // 4 - pad)
