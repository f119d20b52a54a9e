"""Run the benchmarks against a fresh local stack and print Markdown for BENCHMARKS.md.

.venv/bin/python -m bench [app|frontdoor|ocr|seal|seal-check|tracing|soak|documents|fresh ...] [--requests N]
                          [--duration S] [--rounds R] [--levels 1,4,16,64] [--ocr-levels 1,4,16]
                          [--workers W] [--split-cores] [--soak-seconds S] [--document-pages N]
                          [--document-routes /v1/seal,/v1/ocr] [--fresh-pages N] [--out DIR]

With no suite named, all but `soak`, `documents` and `fresh` run (minutes each: run them on
purpose; `fresh` starts a stack of its own).
`seal-check` is the part of `seal` that measures the document check, on its own.
`app` needs no server (the gateway's own CPU per request, Triton faked); `tracing` starts its
own two stacks (traced and not); `frontdoor` also writes its plot to DIR/frontdoor.png.
`python -m bench.seal_ab` times `seal`'s pages on two checkouts' stacks side by side (each held
by `python -m bench.hold` from its own checkout).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bench import app_overhead, documents, frontdoor, ocr, seal, soak, tracing
from bench.serving import local_stack, split_cores
from evaluation.support.digits import load_mnist

# These need a running Triton and gateway.
STACK_SUITES = ("frontdoor", "ocr", "seal", "seal-check", "soak", "documents")
SUITES = ("app", "tracing", *STACK_SUITES, "fresh")
DEFAULT_SUITES = ("app", "tracing", "frontdoor", "ocr", "seal")
FRONTDOOR_DIGIT = 0  # the first held-out test digit; no model or threshold was tuned on it


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m bench")
    parser.add_argument(
        "suites", nargs="*", metavar=f"{{{','.join(SUITES)}}}", help="default: all but soak, documents, fresh"
    )
    parser.add_argument("--requests", type=int, default=24, help="ocr/seal: requests per level or page")
    parser.add_argument(
        "--duration", type=int, default=5, help="frontdoor, tracing: whole seconds per run (wrk)"
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=3,
        help="frontdoor, tracing: runs per path (arm) and level; ocr: alternating rounds",
    )
    parser.add_argument(
        "--levels", default=",".join(map(str, frontdoor.LEVELS)), help="frontdoor: connections"
    )
    parser.add_argument("--ocr-levels", default="1,4,16", help="ocr: concurrent clients")
    parser.add_argument("--workers", type=int, default=1, help="gateway worker processes")
    parser.add_argument(
        "--split-cores", action="store_true", help="Triton on half the CPUs, gateway and load on the rest"
    )
    parser.add_argument("--soak-seconds", type=int, default=600, help="soak: seconds per route")
    parser.add_argument("--document-pages", type=int, default=100, help="documents: pages of the PDF")
    parser.add_argument("--document-routes", default="/v1/seal", help="documents: routes, comma-separated")
    parser.add_argument("--fresh-pages", type=int, default=20, help="fresh: pages of the dense-text PDF")
    parser.add_argument("--out", type=Path, default=Path("bench/results"))
    return parser


def main() -> int:
    parser = _parser()
    args = parser.parse_args()
    if unknown := set(args.suites) - set(SUITES):
        parser.error(f"unknown suite(s): {', '.join(sorted(unknown))}")
    suites = args.suites or DEFAULT_SUITES
    images, _ = load_mnist("all")
    digit = frontdoor.digit_png(images[FRONTDOOR_DIGIT])
    if "app" in suites:
        print(app_overhead.run(digit), "\n", flush=True)
    if "tracing" in suites:
        print(tracing.run(digit, args.rounds, args.duration, args.split_cores)[0], "\n", flush=True)
    if "fresh" in suites:
        print(documents.fresh_table("/v1/ocr", args.fresh_pages), "\n", flush=True)
    if not set(suites) & set(STACK_SUITES):
        return 0
    with local_stack(args.workers) as stack:
        if args.split_cores:
            print(split_cores(stack), "\n", flush=True)
        if "frontdoor" in suites:
            levels = [int(level) for level in args.levels.split(",")]
            text, _ = frontdoor.run(stack, digit, args.out, levels, args.rounds, args.duration)
            print(text, "\n", flush=True)
        if "ocr" in suites:
            levels = [int(level) for level in args.ocr_levels.split(",")]
            print(ocr.run(stack, args.requests, args.rounds, args.out, levels), "\n", flush=True)
        if "seal" in suites:
            print(seal.run(stack, args.requests), "\n", flush=True)
        elif "seal-check" in suites:
            print(seal.document_check(stack, args.requests), "\n", flush=True)
        if "documents" in suites:
            for route in args.document_routes.split(","):
                print(
                    documents.stream_table(stack, route, args.document_pages, args.rounds), "\n", flush=True
                )
        if "soak" in suites:
            print(soak.run(stack, digit, soak.ocr_page(), args.soak_seconds), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
