"""python -m gateway.client {mnist,ocr,seal} PATH... [--url URL] [--api-key KEY]
[--concurrency N] [--output FILE]

Sends every image and PDF under PATH to the gateway and writes one JSON line per file, and
for a PDF one line per page before it, as each page is read. With --output, files that
already have a final answer there are skipped and new lines appended, so the same command
resumes an interrupted run (a PDF cut short is sent again whole). Exit status: 0 when every file was read, 1
when some failed, 2 on bad arguments.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TextIO

from gateway.client.files import discover, settled
from gateway.client.progress import Progress, Tally
from gateway.client.runner import Outcome, PageOutcome, RetryPolicy, client_for, run

TASKS = ("mnist", "ocr", "seal")
API_KEY_ENV = "GATEWAY_API_KEY"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m gateway.client", description=__doc__.splitlines()[0])
    parser.add_argument("task", choices=TASKS)
    parser.add_argument("paths", nargs="+", type=Path, metavar="PATH", help="files or folders")
    parser.add_argument("--url", default="http://127.0.0.1:8080", help="the gateway's base URL")
    parser.add_argument("--api-key", default=os.environ.get(API_KEY_ENV), help=f"or ${API_KEY_ENV}")
    parser.add_argument("--concurrency", type=int, default=4, help="requests in flight")
    parser.add_argument("--output", type=Path, help="JSON Lines file (default: stdout; no resume)")
    parser.add_argument("--attempts", type=int, default=RetryPolicy.attempts, help="tries per file")
    return parser


@contextlib.contextmanager
def _output(path: Path | None) -> Iterator[TextIO]:
    if path is None:
        yield sys.stdout
        return
    with path.open("a", encoding="utf-8") as stream:
        yield stream


async def _run(args: argparse.Namespace, files: list[Path], out: TextIO, progress: Progress) -> None:
    def done(outcome: Outcome | PageOutcome) -> None:
        out.write(json.dumps(outcome.record(), ensure_ascii=False) + "\n")
        out.flush()  # a line per page and per settled file survives an interruption
        progress.update(outcome)

    async with client_for(args.url, args.api_key, args.concurrency) as client:
        policy = RetryPolicy(attempts=max(1, args.attempts))
        await run(client, f"/v1/{args.task}", files, args.concurrency, done, policy)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        files = discover(args.paths)
    except FileNotFoundError as exc:
        parser.error(str(exc))
    skip = settled(args.output) if args.output else set()
    todo = [path for path in files if str(path) not in skip]
    if skip:
        sys.stderr.write(f"resuming: {len(files) - len(todo)} of {len(files)} files already done\n")
    progress = Progress(Tally(len(todo)), sys.stderr)
    with _output(args.output) as out:
        try:
            asyncio.run(_run(args, todo, out, progress))
        finally:
            progress.close()
    return 1 if progress.tally.failures else 0


if __name__ == "__main__":
    sys.exit(main())
