#!/usr/bin/env python3
"""Write docs/output.schema.json, the JSON Schema of what ``a2a-inspect -o json`` prints,
from the models in inspector/headless/output_model.py.

    .venv/bin/python scripts/gen_output_schema.py          # write it
    .venv/bin/python scripts/gen_output_schema.py --check  # exit 1 if it is out of date

tests/test_output_schema.py fails while the committed file differs from what this writes.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from inspector.headless.output_model import json_schema  # noqa: E402

TARGET = ROOT / "docs" / "output.schema.json"


def render() -> str:
    return json.dumps(json_schema(), indent=2, ensure_ascii=False) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only check that the file is up to date")
    args = parser.parse_args()
    text = render()
    if args.check:
        if TARGET.read_text(encoding="utf-8") != text:
            print(f"{TARGET.relative_to(ROOT)} is out of date: run scripts/gen_output_schema.py", file=sys.stderr)
            return 1
        return 0
    TARGET.write_text(text, encoding="utf-8")
    print(f"wrote {TARGET.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
