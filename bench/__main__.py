"""Run the benchmarks against a fresh local stack and print Markdown for BENCHMARKS.md.

.venv/bin/python -m bench [--requests N] [--only ocr|seal]
"""

from __future__ import annotations

import argparse
import sys

from bench import ocr, seal
from bench.serving import local_stack


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench")
    parser.add_argument("--requests", type=int, default=24, help="requests per concurrency level / page")
    parser.add_argument("--only", choices=("ocr", "seal"))
    args = parser.parse_args()
    with local_stack() as stack:
        if args.only in (None, "ocr"):
            print(ocr.run(stack, args.requests), "\n", flush=True)
        if args.only in (None, "seal"):
            print(seal.run(stack, args.requests), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
