"""Where the read-only reference material lives: ``/work/shared`` next to the repo."""

from pathlib import Path

SHARED = Path(__file__).resolve().parents[2] / "shared"
CAPTURES = SHARED / "wire-captures"
SEEDS = SHARED / "seeds"
SCHEMAS = SHARED / "a2a-schemas"
