"""One way to show a byte count: binary units (KiB, MiB, GiB), the powers of 1024 that
the size options (``--max-body 64M``) have always meant. inspector/protocol/sizes.py
holds the only formatter; this file checks what it prints and that no other appears."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from inspector.protocol.sizes import GiB, KiB, MiB, base64_size, format_size, parse_size

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    ("n", "shown"),
    [
        (None, ""),
        (0, "0 B"),
        (1, "1 B"),
        (1000, "1000 B"),
        (1023, "1023 B"),
        (1024, "1 KiB"),
        (1100, "1.1 KiB"),
        (1536, "1.5 KiB"),
        (100 * KiB, "100 KiB"),
        # Rounded up into the next unit rather than "1024.0 KiB".
        (MiB - 1, "1.0 MiB"),
        (MiB, "1 MiB"),
        (MiB + 1, "1.0 MiB"),
        (64 * MiB, "64 MiB"),
        (GiB + GiB // 2, "1.5 GiB"),
        (2048 * GiB, "2048 GiB"),
    ],
)
def test_format_size(n: int | None, shown: str) -> None:
    assert format_size(n) == shown


@pytest.mark.parametrize("typed", ["512K", "100K", "1M", "16M", "64M", "1.5G"])
def test_a_whole_limit_reads_back_as_it_was_typed(typed: str) -> None:
    # "--max-body 64M" is reported as "larger than 64 MiB", and "64 MiB" parses back.
    size = parse_size(typed)
    assert parse_size(format_size(size)) == size


def test_base64_size_counts_decoded_bytes() -> None:
    assert [base64_size(t) for t in ("", "YQ==", "YWI=", "YWJj", " YWJjZA==\n")] == [0, 1, 2, 3, 4]


#: A unit put after a computed number: f"{n / 1000:.1f} kB". (An exact count, "body of
#: 1048577 bytes exceeds the limit of 1 MiB", is not a rounded size and may stay exact.)
_UNIT_AFTER_VALUE = re.compile(r"\}\s?(?:kB|KB|MB|GB|KiB|MiB|GiB)\b")


def test_no_other_size_formatter() -> None:
    # A second formatter is how "kB" (powers of 1000) and "KiB" came to sit side by
    # side: in the product, a unit follows a computed number only in format_size.
    found = []
    for top in ("inspector", "mock_agent"):
        for path in sorted((ROOT / top).rglob("*.py")):
            if path.name == "sizes.py":
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if _UNIT_AFTER_VALUE.search(line.split("#", 1)[0]):
                    found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert found == []
